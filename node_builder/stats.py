r"""Node statistics of a shipped data file (the figures of the data card and of the targets).

``file_stats(path)`` returns::

    problems, with_nodes, with_nodes_pct, nodes, k_mean, k_median, k_max, kinds{...},
    support_mean, value_nodes, value_eq_answer_pct, value_in_problem_pct,
    self_match_pct (for records built from human solutions alone -- whose ``solution`` field is
    the source -- the nodes the matcher finds in it, GSM8K calculator annotations removed as the
    importer does), reference_match_pct (for records with model voices: nodes found in the
    reference solution too), standalone_pct, voices_mean, multi_voice_problems, benchmarks,
    rejected_references (records with a human solution that never reaches its gold answer),
    notes_missing (empty records without a note),
    ordered (every node list ascending in position), sources{...}, correct_trajectories_mean

"equal to a number given in the problem" = the matcher covers the value in the problem text, the
problem writes the number anywhere (``numbers_in``: also inside expressions), or states it in
words (:mod:`node_builder.number_words`) — the same tests refine uses.
Two independent cross-checks use no matcher at all: ``value_in_problem_digits_pct`` compares
each value with every digit string of the problem (``\d+(.\d+)?``, commas removed — stricter:
the ``2`` of ``x^2`` counts), ``value_eq_answer_plain_pct`` with the answer read as a plain
number (``-3/4``, ``2.5``, ``1,000``).

Example:
    >>> import json, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "d.jsonl")
    >>> rec = {"id": "p1", "problem": "5 + 7 - 3?", "answer": "9", "solution": "5+7=12, 12-3=9",
    ...        "nodes": [{"id": "n1", "text": "12", "kind": "value", "forms": ["12"], "value": "12",
    ...                   "support": 1.0, "position": 0.3}],
    ...        "provenance": {"sources": ["reference"], "voices": ["reference"], "correct": 1}}
    >>> _ = open(p, "w").write(json.dumps(rec) + "\n")
    >>> s = file_stats(p); s["with_nodes_pct"], s["value_eq_answer_pct"], s["self_match_pct"]
    (100.0, 0.0, 100.0)
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from fractions import Fraction

from consensus_metrics.nodes import coerce_nodes
from consensus_metrics.records import InputFileError, check_input_file, check_problem, iter_jsonl
from node_builder.importers.text_cleanup import strip_calculator_annotations
from node_builder.matcher import covered, number_of, numbers_in
from node_builder.number_words import number_words


_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")
_PLAIN = re.compile(r"^\s*-?\s*(\d[\d,]*(?:\.\d+)?|\.\d+)(?:\s*/\s*(\d+))?\s*$")


def _plain_number(text: str) -> Fraction | None:
    match = _PLAIN.match(text.replace("\\frac{", "").replace("}{", "/").replace("}", "")
                         if text.lstrip("-").startswith("\\frac{") else text)
    if not match:
        return None
    value = Fraction(match.group(1).replace(",", "")) / int(match.group(2) or 1)
    return -value if text.strip().startswith("-") else value


def _pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 2) if whole else 0.0


def _covered_ids(text: str, nodes: list[dict]) -> set[str]:
    return set(covered(text, nodes)) if text and nodes else set()


def read_data_file(path: str) -> list[dict]:
    """The records of a data file, each checked for what the statistics read: the docs/SPEC.md §2
    fields (``consensus_metrics.records.check_problem``: id, problem, answer, nodes) and a
    ``provenance`` object; anything else is a ``ValueError`` naming ``file:line`` (a missing file,
    or one that is no regular file: the path). Nodes come back complete (every field the
    schema gives a default), as the node schema reads them."""
    try:
        check_input_file(path)
    except InputFileError as err:
        raise ValueError(str(err)) from None
    records = []
    for lineno, row in iter_jsonl(path):
        where = f"{path}:{lineno}"
        check_problem(dict(row), where)
        provenance = row.get("provenance", {})
        if not isinstance(provenance, dict):
            raise ValueError(f"{where}: field 'provenance' must be an object, got {provenance!r:.80}")
        for key, kind in (("sources", list), ("voices", list), ("correct", (int, float)),
                          ("rejected_references", (int, float))):
            if key in provenance and not isinstance(provenance[key], kind):
                raise ValueError(f"{where}: field 'provenance.{key}' has the wrong type: {provenance[key]!r:.80}")
        nodes = [dict(node.to_json(), id=node.id) for node in coerce_nodes(row["nodes"])]
        records.append({**row, "nodes": nodes})
    return records


def file_stats(path: str) -> dict:
    """Every figure of the data card for one data file (the keys :func:`statistics_section` reads).

    One pass over the records that fills all counters at once (longer than 60 lines for that
    reason: each counter is a line or two, and a pass per figure would read the file ten times)."""
    records = read_data_file(path)
    ks = [len(r["nodes"]) for r in records]
    kinds, sources = Counter(), Counter()
    value_nodes = eq_answer = in_problem = self_matched = checkable = standalone = 0
    reference_matched = reference_checkable = notes_missing = rejected = multi_voice = 0
    digits_hits = plain_answer_hits = 0
    supports, ordered, correct, voices = [], True, [], []
    multi_voice_nodes = single_voice = signed = 0
    suspects, levels = [], {}
    for record in records:
        nodes = record["nodes"]
        prov = record.get("provenance", {})
        counted = (prov.get("consensus") or {}).get("voices_counted") or len(prov.get("voices", [])) or 1
        multi_voice_nodes += sum(1 for n in nodes if round(n["support"] * counted) >= 2 and not prov.get("single_voice"))
        single_voice += bool(nodes) and bool(prov.get("single_voice"))
        signed += bool(prov.get("signed"))
        if prov.get("suspect_gold"):
            suspects.append({"id": record["id"], "gold": record["answer"], **prov["suspect_gold"]})
        if record.get("level") is not None:
            total, hit = levels.get(record["level"], (0, 0))
            levels[record["level"]] = (total + 1, hit + bool(nodes))
        sources.update(prov.get("sources", []))
        correct.append(prov.get("correct", 0))
        record_voices = prov.get("voices", ["reference"])
        voices.append(len(record_voices))
        multi_voice += len(record_voices) > 1
        rejected += prov.get("rejected_references", 0) > 0
        notes_missing += not nodes and not prov.get("note")
        positions = [n["position"] for n in nodes]
        ordered = ordered and positions == sorted(positions)
        answer = number_of(record["answer"])
        words = number_words(record["problem"]) | numbers_in(record["problem"])
        digits = {Fraction(d.replace(",", "")) for d in _DIGITS.findall(record["problem"])}
        plain_answer = _plain_number(record["answer"])
        in_text = _covered_ids(record["problem"], [n for n in nodes if n["kind"] == "value"])
        if record.get("solution") and nodes:
            found = len(_covered_ids(strip_calculator_annotations(record["solution"])[0], nodes))
            if record_voices == ["reference"]:
                checkable += len(nodes)
                self_matched += found
            else:
                reference_checkable += len(nodes)
                reference_matched += found
        for node in nodes:
            kinds[node["kind"]] += 1
            supports.append(node["support"])
            standalone += node.get("standalone", True)
            if node["kind"] == "value":
                value_nodes += 1
                number = number_of(node["value"])
                eq_answer += number is not None and number == answer
                in_problem += node["id"] in in_text or number in words
                digits_hits += number is not None and abs(number) in digits
                plain_answer_hits += plain_answer is not None and number == plain_answer
    return {
        "benchmarks": sorted({r["benchmark"] for r in records if isinstance(r.get("benchmark"), str)}),
        "problems": len(records), "with_nodes": sum(1 for k in ks if k),
        "with_nodes_pct": _pct(sum(1 for k in ks if k), len(records)),
        "nodes": sum(ks), "k_mean": round(statistics.mean(ks), 2) if ks else 0.0,
        "k_median": float(statistics.median(ks)) if ks else 0.0, "k_max": max(ks, default=0),
        "kinds": dict(sorted(kinds.items())),
        "support_mean": round(statistics.mean(supports), 3) if supports else 0.0,
        "standalone_pct": _pct(standalone, sum(ks)),
        "value_nodes": value_nodes, "value_eq_answer_pct": _pct(eq_answer, value_nodes),
        "value_in_problem_pct": _pct(in_problem, value_nodes),
        "value_in_problem_digits_pct": _pct(digits_hits, value_nodes),
        "value_eq_answer_plain_pct": _pct(plain_answer_hits, value_nodes),
        "self_match_pct": _pct(self_matched, checkable) if checkable else None,
        "reference_match_pct": _pct(reference_matched, reference_checkable) if reference_checkable else None,
        "voices_mean": round(statistics.mean(voices), 2) if voices else 0.0,
        "multi_voice_problems": multi_voice, "rejected_references": rejected, "notes_missing": notes_missing,
        "ordered": ordered, "sources": dict(sorted(sources.items())),
        "correct_trajectories_mean": round(statistics.mean(correct), 2) if correct else 0.0,
        "multi_voice_nodes_pct": _pct(multi_voice_nodes, sum(ks)), "single_voice_records": single_voice,
        "suspect_gold": suspects, "signed_records": signed,
        "with_nodes_by_level_pct": {str(k): _pct(h, t) for k, (t, h) in sorted(levels.items())},
    }


STATS_START = "<!-- statistics:start (written by python -m node_builder stats --card) -->"
STATS_END = "<!-- statistics:end -->"


def verdict_counts(benchmark: str, folder=None) -> dict | None:
    r"""The standing verdicts of a benchmark's verdict file (``node_builder/signoffs/<name>.jsonl``;
    None where it has none): ``problems``, ``verdicts``, ``labels`` (label -> count, in the
    rubric's order), ``proposed`` (key results a reviewer wrote in), ``second`` (GOOD verdicts a
    second reviewer signed too) and ``settled`` (a third reader's or an appeal's final word).

    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> rows = [{"id": "t/1", "text": "x = 2", "label": "GOOD", "reviewer": "a", "second": "b"},
    ...         {"id": "t/1", "text": "4", "label": "FRAGMENT", "reviewer": "a", "settled": True}]
    >>> _ = (folder / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    >>> c = verdict_counts("t", folder); c["verdicts"], c["labels"]["GOOD"], c["second"], c["settled"]
    (2, 1, 1, 1)
    >>> verdict_counts("no-such-benchmark") is None
    True
    """
    from node_builder.signoff import LABELS, SIGNOFF_DIR, signoffs_of

    verdicts = signoffs_of(benchmark, SIGNOFF_DIR if folder is None else folder)
    if verdicts is None:
        return None
    labels = Counter(label for v in verdicts.values() for label in v.labels.values())
    return {"problems": len(verdicts), "verdicts": sum(labels.values()),
            "labels": {label: labels[label] for label in LABELS},
            "proposed": sum(len(v.proposed) for v in verdicts.values()),
            "second": sum(len(v.second) for v in verdicts.values()),
            "settled": sum(len(v.settled) for v in verdicts.values())}


def verdict_table(benchmarks: list[str], folder=None) -> list[str]:
    """The verdict files of ``benchmarks`` as a Markdown table (no lines where none has one)."""
    from node_builder.signoff import LABELS

    rows = []
    for benchmark in dict.fromkeys(benchmarks):
        counts = verdict_counts(benchmark, folder)
        if counts is not None:
            rows.append(f"| `{benchmark}.jsonl` | {counts['problems']} | {counts['verdicts']} | "
                        + " | ".join(str(counts["labels"][label]) for label in LABELS)
                        + f" | {counts['proposed']} | {counts['second']} | {counts['settled']} |")
    if not rows:
        return []
    return ["Reviewers' verdicts (`node_builder/signoffs/`; the standing label of every candidate text read):", "",
            "| verdict file | problems | verdicts | " + " | ".join(LABELS)
            + " | written in | second GOOD signature | settled (final) |",
            "|---|" + "---:|" * (len(LABELS) + 5), *rows]


def statistics_section(paths: list[str]) -> str:
    """The data card's statistics tables (Markdown) for the given data files, and the verdict
    files of their benchmarks."""
    rows, checks, levels, suspects, benchmarks = [], [], [], [], []
    for path in paths:
        s = file_stats(path)
        benchmarks.extend(s["benchmarks"])
        name = path.rsplit("/", 1)[-1]
        k = s["kinds"]
        rows.append(f"| `{name}` | {s['problems']} | {s['with_nodes']} ({s['with_nodes_pct']}%) | {s['nodes']} | "
                    f"{s['k_mean']} / {s['k_median']} / {s['k_max']} | {k.get('value', 0)} / {k.get('equation', 0)} / "
                    f"{k.get('expression', 0)} / {k.get('proposition', 0)} | {s['standalone_pct']}% | "
                    f"{s['support_mean']} | {s['voices_mean']} | {s['multi_voice_problems']} | "
                    f"{s['multi_voice_nodes_pct']}% | {s['single_voice_records']} | {s['signed_records']} | "
                    f"{len(s['suspect_gold'])} |")
        if s["with_nodes_by_level_pct"]:
            levels.append(f"`{name}` records with nodes by level: " + ", ".join(
                f"{level}: {pct}%" for level, pct in s["with_nodes_by_level_pct"].items()) + ".")
        for flag in s["suspect_gold"]:
            suspects.append(f"| `{flag['id']}` | {flag['gold']} | {flag['answer']} | {', '.join(flag['voices'])} | "
                            f"{flag['gold_voices']} |")
        self_match = "–" if s["self_match_pct"] is None else f"{s['self_match_pct']}%"
        reference = "–" if s["reference_match_pct"] is None else f"{s['reference_match_pct']}%"
        checks.append(f"| `{name}` | {s['value_eq_answer_pct']}% ({s['value_eq_answer_plain_pct']}%) | "
                      f"{s['value_in_problem_pct']}% ({s['value_in_problem_digits_pct']}%) | {self_match} | "
                      f"{reference} | {s['rejected_references']} | {s['notes_missing']} |")
    suspect_table = (["", "Suspect gold answers (flagged in `provenance.suspect_gold`; the gold is never changed):", "",
                      "| record | gold | answer of the strong voices | strong voices | strong voices reaching the gold |",
                      "|---|---|---|---|---:|", *suspects] if suspects else [])
    return "\n".join([
        "| file | problems | with nodes | nodes | k mean / median / max | value / equation / expression / proposition "
        "| standalone | support mean | voices per problem | problems with 2+ voices | nodes by 2+ voices "
        "| single-voice records | signed records | suspect gold |",
        "|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|", *rows, "", *levels, "",
        "| file | value = answer | value given in problem | nodes in own sources (human only) "
        "| nodes in the reference (multi-voice) | problems with a rejected human solution | empty records without a note |",
        "|---|---:|---:|---:|---:|---:|---:|", *checks, *suspect_table, "", *verdict_table(benchmarks)]).rstrip()


def write_section(card: str, start: str, end: str, body: str) -> None:
    """Replace the text between the ``start`` and ``end`` markers of ``card`` with ``body``."""
    import re
    from pathlib import Path

    path = Path(card)
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise ValueError(f"{card}: no section markers {start} ... {end}")
    path.write_text(pattern.sub(lambda _: f"{start}\n{body}\n{end}", text), encoding="utf-8")
