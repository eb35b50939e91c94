"""Independent hand audit of the shipped nodes: precision (stratified by benchmark, a strict
rubric) and recall (the key results an expert expects, found or not), scored from verdict files
written by a reviewer who did not write the node rules.

    python benchmarks/node_audit.py sample --out SHEET.jsonl [--per-benchmark 40] [--seed 7] [--skip-judged]
    python benchmarks/node_audit.py recall-sample --out SHEET.jsonl [--per-benchmark 10] [--seed 7] [--skip-judged]
    python benchmarks/node_audit.py sheets --sheet SHEET.jsonl --recall-sheet RSHEET.jsonl --out-dir DIR
    python benchmarks/node_audit.py import --sheet SHEET.jsonl --recall-sheet RSHEET.jsonl --answers DIR --name "seed 7"
    python benchmarks/node_audit.py report [--card lm_eval_tasks/consensusbench/data/README.md] [--sample NAME]

``sample`` draws ``--per-benchmark`` nodes at random from each test set (seeded), each with its
problem, gold answer, reference solution and the record's other nodes, as one JSON line: the
sheet a reviewer reads. The reviewer labels each node with one of :data:`LABELS` and a reason, in
``benchmarks/node_audit/precision.jsonl`` (``{"benchmark", "record", "node", "label", "why",
"sample"}``; ``sample`` names the draw, ``"seed 4244"``).

``--skip-judged`` leaves out the nodes (records) the verdict files already judge: a further sample
adds to the first, and ``report`` scores all verdicts together.

``recall-sample`` draws ``--per-benchmark`` records with their full node lists; the reviewer
writes, per record, the 2-5 key results an expert expects of a correct solution and whether the
node list holds each (``benchmarks/node_audit/recall.jsonl``: ``{"benchmark", "record",
"key_results": [{"result", "found", "node"}]}``).

``sheets`` splits the two samples by benchmark into what one fresh reviewer per benchmark reads:
``DIR/<benchmark>/items.md`` (part A, the nodes to label; part B, the records for recall) and
``DIR/<benchmark>/BRIEF.md`` (the rubric, ``RUBRIC``, and the two answer files to write in
that folder, ``answers_precision.jsonl`` and ``answers_recall.jsonl``). ``import`` checks every
answer file against its sheet (a line per item, in sheet order, the same record, a label of the
rubric, key results with a yes/no ``found``) and appends the verdicts under the sample's name
(``--name "seed 7"``) to ``precision.jsonl`` and ``recall.jsonl`` of ``--verdicts``; one bad file
(named with its line) appends nothing, and a name the verdict files already hold is refused.

``report`` scores the verdicts against the current data, so that every figure in the card belongs
to the data it ships with: a judged node that is no longer in its record (a later rule removed
it) is *retired* -- left out of the figures and counted with its label; a key result whose
``node`` left its record counts as not found. Precision = GOOD share; GOOD+ROUTE share; recall =
found key results / all; the GOOD and GOOD+ROUTE counts per node kind (value, equation,
expression, proposition), which tell the next round of rules where the defects sit; and GOOD per
sample: a sample drawn after the rules that retired judged nodes is the unbiased figure (those
rules were written reading the earlier samples). ``--sample NAME`` scores one sample alone
(repeat it to pool several).

Rubric: ``node_builder.signoff.RUBRIC``, the nodes issue's, in the words the briefs give each
reviewer (one label per node, of ``LABELS``; the signers label with the same ones).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from node_builder.signoff import LABELS, RUBRIC  # noqa: E402  (the audit's rubric, which the signers use too)
from node_builder.stats import write_section  # noqa: E402

DATA = ROOT / "lm_eval_tasks" / "consensusbench" / "data"
VERDICTS = Path(__file__).resolve().parent / "node_audit"
SETS = ("math500", "gsm8k", "aime24", "aime25")
NAMES = {"math500": "MATH-500", "gsm8k": "GSM8K", "aime24": "AIME 2024", "aime25": "AIME 2025"}
#: Longest reference solution shown on a sheet (characters; longer ones are cut with a mark).
MAX_REFERENCE_CHARS = 3500
ANSWER_FILES = ("answers_precision.jsonl", "answers_recall.jsonl")
#: What every sheet row holds (``sample`` rows add ``node``).
SHEET_KEYS = ("benchmark", "record", "problem", "answer", "reference_solution", "nodes")
CARD_START = "<!-- audit:start (written by benchmarks/node_audit.py report --card) -->"
CARD_END = "<!-- audit:end -->"


def records(name: str) -> list[dict]:
    with open(Path(DATA) / f"{name}.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _sheet_row(name: str, record: dict, node: dict | None = None) -> dict:
    row = {"benchmark": name, "record": record["id"], "problem": record["problem"], "answer": record["answer"],
           "reference_solution": record["solution"], "nodes": [n["text"] for n in record["nodes"]],
           "voices": record["provenance"]["voices"]}
    if node is not None:
        row.update(node=node["text"], kind=node["kind"])  # not its support: the reader judges the result alone
    return row


def draw_nodes(per_benchmark: int, seed: int, judged: frozenset = frozenset()) -> list[dict]:
    """``per_benchmark`` (record, node) sheet rows from each test set, seeded; ``(record id, node
    text)`` pairs in ``judged`` are left out (a second sample next to the first)."""
    rng = random.Random(seed)
    out = []
    for name in SETS:
        pool = [(r, n) for r in records(name) for n in r["nodes"] if (r["id"], n["text"]) not in judged]
        out += [_sheet_row(name, r, n) for r, n in rng.sample(pool, min(per_benchmark, len(pool)))]
    return out


def draw_records(per_benchmark: int, seed: int, judged: frozenset = frozenset()) -> list[dict]:
    """``per_benchmark`` records of each test set (with nodes or not: an empty record misses all);
    record ids in ``judged`` are left out."""
    rng = random.Random(seed)
    out = []
    for name in SETS:
        pool = [r for r in records(name) if r["id"] not in judged]
        out += [_sheet_row(name, r) for r in rng.sample(pool, min(per_benchmark, len(pool)))]
    return out


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# ------------------------------------------------------------------ reviewer sheets and their answers
class AnswerError(ValueError):
    """An answer file that does not fit its sheet; the message names the file and line."""


def _clip(text: str, limit: int = MAX_REFERENCE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + " [...]"


def _items_md(name: str, nodes: list[dict], records_: list[dict]) -> str:
    """Part A (the nodes to label) and part B (the records for recall) of one benchmark's sheet."""
    out = [f"# {NAMES[name]}: part A, {len(nodes)} nodes to label\n"]
    for i, row in enumerate(nodes, 1):
        others = [text for text in row["nodes"] if text != row["node"]]
        out.append(f"## A{i}. record {row['record']}\n\nPROBLEM: {row['problem']}\n\nGOLD ANSWER: {row['answer']}\n\n"
                   f"REFERENCE SOLUTION: {_clip(row['reference_solution'])}\n\n"
                   f"OTHER NODES OF THIS RECORD: {json.dumps(others, ensure_ascii=False)}\n\n"
                   f"NODE TO LABEL: `{row['node']}`\n")
    out.append(f"# {NAMES[name]}: part B, {len(records_)} records for recall\n")
    for i, row in enumerate(records_, 1):
        out.append(f"## B{i}. record {row['record']}\n\nPROBLEM: {row['problem']}\n\nGOLD ANSWER: {row['answer']}\n\n"
                   f"REFERENCE SOLUTION: {_clip(row['reference_solution'])}\n\n"
                   f"THE RECORD'S NODES: {json.dumps(row['nodes'], ensure_ascii=False)}\n")
    return "\n".join(out)


def _brief_md(name: str, folder: Path, n_nodes: int, n_records: int) -> str:
    rubric = "\n".join(f"- **{label}**: {text}" for label, text in RUBRIC.items())
    precision, recall = (folder / file for file in ANSWER_FILES)
    return f"""# Independent audit of consensus nodes: {NAMES[name]}

You are a mathematician auditing "consensus nodes": the few checkable intermediate results
(equations, key values) that correct solutions of a problem are supposed to share. You did not
write the rules that produced them. Be strict and independent.

Read `{folder / "items.md"}`. It has two parts.

**Part A** lists {n_nodes} nodes, each with its problem, gold answer, reference solution and the
record's other nodes. Label each node with exactly one label of this rubric:

{rubric}

**Part B** lists {n_records} records, each with its problem, gold answer, reference solution and
the record's nodes (possibly none). For each record, write the 2 to 5 key intermediate results
an expert expects correct solutions to pass through (not the final answer, not the givens), and
for each say whether the record's node list contains it in some form (found true/false, and the
node text that matches, or null).

Write `{precision}`: one JSON object per line, in part A's order, exactly
{{"record": "...", "node": "<the node text exactly as shown between backticks>", "label": "GOOD", "why": "<one sentence>"}}

Write `{recall}`: one JSON object per line, in part B's order, exactly
{{"record": "...", "key_results": [{{"result": "<the key result in words or a formula>", "found": true, "node": "<matching node text or null>"}}]}}

Both files must be valid JSON lines (escape backslashes in LaTeX as \\\\ inside JSON strings).
In your final message, give the count of each label in part A and the share of key results found in part B.
"""


def write_sheets(node_rows: list[dict], record_rows: list[dict], out_dir: Path) -> dict[str, int]:
    """Write ``out_dir/<benchmark>/items.md`` and ``BRIEF.md`` for every benchmark of the two
    samples (the rows ``sample`` and ``recall-sample`` write); returns the items per benchmark."""
    counts = {}
    for name in SETS:
        nodes = [row for row in node_rows if row["benchmark"] == name]
        records_ = [row for row in record_rows if row["benchmark"] == name]
        if not nodes and not records_:
            continue
        folder = (Path(out_dir) / name).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "items.md").write_text(_items_md(name, nodes, records_), encoding="utf-8")
        (folder / "BRIEF.md").write_text(_brief_md(name, folder, len(nodes), len(records_)), encoding="utf-8")
        counts[name] = len(nodes) + len(records_)
    return counts


def _answer_lines(path: Path, want: int) -> list[tuple[int, dict]]:
    """``(line number, JSON object)`` of an answer file's non-blank lines, exactly ``want`` of them."""
    if not path.is_file():
        raise AnswerError(f"{path}: missing (the reviewer writes it; see BRIEF.md)")
    out = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise AnswerError(f"{path}:{number}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise AnswerError(f"{path}:{number}: not a JSON object")
            out.append((number, row))
    if len(out) != want:
        raise AnswerError(f"{path}: {len(out)} answers for {want} sheet items")
    return out


def _same_record(where: str, got: dict, want: dict) -> None:
    if got.get("record") != want["record"]:
        raise AnswerError(f"{where}: record {got.get('record')!r}, the sheet has {want['record']!r} here")


def read_answers(node_rows: list[dict], record_rows: list[dict], answers_dir: Path, sample: str) -> tuple[list, list]:
    """The precision and recall verdicts of the reviewers' answer files, checked against the sheet
    rows (module doc); raises :class:`AnswerError` naming the file and line of the first misfit."""
    precision, recall = [], []
    for name in SETS:
        nodes = [row for row in node_rows if row["benchmark"] == name]
        records_ = [row for row in record_rows if row["benchmark"] == name]
        if not nodes and not records_:
            continue
        path = Path(answers_dir) / name / ANSWER_FILES[0]
        for want, (number, got) in zip(nodes, _answer_lines(path, len(nodes))):
            where = f"{path}:{number}"
            _same_record(where, got, want)
            if got.get("label") not in LABELS:
                raise AnswerError(f"{where}: label {got.get('label')!r} is none of {', '.join(LABELS)}")
            precision.append({"benchmark": name, "record": want["record"], "node": want["node"],
                              "label": got["label"], "why": str(got.get("why", "")), "sample": sample})
        path = Path(answers_dir) / name / ANSWER_FILES[1]
        for want, (number, got) in zip(records_, _answer_lines(path, len(records_))):
            where = f"{path}:{number}"
            _same_record(where, got, want)
            keys = got.get("key_results")
            if not isinstance(keys, list) or not all(isinstance(k, dict) and isinstance(k.get("result"), str)
                                                     and isinstance(k.get("found"), bool) for k in keys):
                raise AnswerError(f"{where}: key_results must be a list of {{\"result\": text, \"found\": true/false, "
                                  f"\"node\": text or null}}")
            recall.append({"benchmark": name, "record": want["record"],
                           "key_results": [{"result": k["result"], "found": k["found"],
                                            "node": k.get("node") if k["found"] else None} for k in keys],
                           "sample": sample})
    return precision, recall


def import_answers(node_rows: list[dict], record_rows: list[dict], answers_dir: Path, sample: str,
                   verdicts: Path) -> tuple[int, int]:
    """Append the checked answers (:func:`read_answers`) to ``verdicts/precision.jsonl`` and
    ``recall.jsonl``; nothing is written when any file misfits or ``sample`` is already there.
    Returns the numbers of precision and recall verdicts appended."""
    verdicts = Path(verdicts)
    for file in ("precision.jsonl", "recall.jsonl"):
        if (verdicts / file).exists() and any(v.get("sample") == sample for v in read_jsonl(verdicts / file)):
            raise AnswerError(f"{verdicts / file}: already holds sample {sample!r}; name this one differently")
    precision, recall = read_answers(node_rows, record_rows, answers_dir, sample)
    verdicts.mkdir(parents=True, exist_ok=True)
    for file, rows in (("precision.jsonl", precision), ("recall.jsonl", recall)):
        with open(verdicts / file, "a", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return len(precision), len(recall)


def score(precision: list[dict], recall: list[dict], sample: str | list[str] | None = None) -> dict:
    """Per benchmark: label counts, GOOD and GOOD+ROUTE shares, recall, retired verdicts, GOOD per
    sample (see the module doc); ``sample``: score only that sample's (those samples') verdicts."""
    if sample is not None:
        wanted = {sample} if isinstance(sample, str) else set(sample)
        precision = [v for v in precision if v.get("sample") in wanted]
        recall = [v for v in recall if v.get("sample") in wanted]
    bad = [v for v in precision if v["label"] not in LABELS]
    if bad:
        raise SystemExit(f"unknown label {bad[0]['label']!r} for {bad[0]['record']} (labels: {', '.join(LABELS)})")
    current = {name: {r["id"]: r for r in records(name)} for name in SETS}
    texts = {(name, rid): {n["text"] for n in record["nodes"]} for name in SETS for rid, record in current[name].items()}
    retired = [v for v in precision if v["node"] not in texts.get((v["benchmark"], v["record"]), set())]
    precision = [v for v in precision if v["node"] in texts.get((v["benchmark"], v["record"]), set())]
    kind_of = {(name, rid, node["text"]): node["kind"]
               for name in SETS for rid, record in current[name].items() for node in record["nodes"]}
    out = {}
    for name in SETS:
        labels = Counter(v["label"] for v in precision if v["benchmark"] == name)
        by_kind: dict[str, Counter] = {}
        for v in precision:
            if v["benchmark"] == name:
                by_kind.setdefault(kind_of[name, v["record"], v["node"]], Counter())[v["label"]] += 1
        n = sum(labels.values())
        keys = [k for v in recall if v["benchmark"] == name for k in v["key_results"]]
        found = [bool(k["found"]) and k.get("node") in texts.get((name, v["record"]), set())
                 for v in recall if v["benchmark"] == name for k in v["key_results"]]
        samples: dict[str, Counter] = {}
        for v in precision:
            if v["benchmark"] == name:
                samples.setdefault(v.get("sample", "?"), Counter())[v["label"] == "GOOD"] += 1
        out[name] = {"nodes": n, "labels": {label: labels.get(label, 0) for label in LABELS},
                     "good_pct": round(100 * labels["GOOD"] / n, 1) if n else None,
                     "good_route_pct": round(100 * (labels["GOOD"] + labels["ROUTE"]) / n, 1) if n else None,
                     "records": len({v["record"] for v in recall if v["benchmark"] == name}),
                     "key_results": len(keys),
                     "recall_pct": round(100 * sum(found) / len(keys), 1) if keys else None,
                     "retired": dict(sorted(Counter(v["label"] for v in retired if v["benchmark"] == name).items())),
                     "by_sample": {s: {"nodes": c[True] + c[False], "good": c[True]} for s, c in sorted(samples.items())},
                     "by_kind": {kind: {"nodes": sum(c.values()), "good": c["GOOD"], "good_route": c["GOOD"] + c["ROUTE"]}
                                 for kind, c in sorted(by_kind.items())}}
    return out


def _pct(value) -> str:
    return "–" if value is None else f"{value}%"


def card_section(result: dict) -> str:
    lines = ["| benchmark | nodes judged | GOOD | GOOD+ROUTE | " + " | ".join(LABELS[1:]) + " | recall (key results found) |",
             "|---|---:|---:|---:|" + "---:|" * (len(LABELS) - 1) + "---|"]
    for name in SETS:
        r = result[name]
        other = " | ".join(str(r["labels"][label]) for label in LABELS[1:])
        lines.append(f"| {NAMES[name]} | {r['nodes']} | **{_pct(r['good_pct'])}** | {_pct(r['good_route_pct'])} | {other} | "
                     f"**{_pct(r['recall_pct'])}** ({r['key_results']} key results of {r['records']} records) |")
    kinds = sorted({kind for name in SETS for kind in result[name]["by_kind"]})
    lines += ["", "GOOD / GOOD+ROUTE of the judged nodes by node kind (judged nodes in brackets):", "",
              "| benchmark | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
    for name in SETS:
        cells = []
        for kind in kinds:
            k = result[name]["by_kind"].get(kind)
            cells.append(f"{k['good']} / {k['good_route']} ({k['nodes']})" if k else "–")
        lines.append(f"| {NAMES[name]} | " + " | ".join(cells) + " |")
    samples = sorted({s for name in SETS for s in result[name]["by_sample"]}, key=lambda s: (len(s), s))
    lines += ["", "GOOD by sample (judged nodes still shipped in brackets):", "",
              "| sample | " + " | ".join(NAMES[name] for name in SETS) + " |", "|---|" + "---:|" * len(SETS)]
    for s in samples:
        cells = []
        for name in SETS:
            k = result[name]["by_sample"].get(s)
            cells.append(f"{100 * k['good'] / k['nodes']:.1f}% ({k['nodes']})" if k and k["nodes"] else "–")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    retired = {name: result[name]["retired"] for name in SETS if result[name]["retired"]}
    if retired:
        lines += ["", "Judged nodes no longer shipped (removed by later rules; left out above): " + "; ".join(
            f"{NAMES[name]} {sum(c.values())} ({', '.join(f'{k} {v}' for k, v in c.items())})"
            for name, c in retired.items()) + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("sample", "recall-sample", "sheets", "import", "report"))
    parser.add_argument("--per-benchmark", type=int)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", help="sample: write the sheet here (JSON lines)")
    parser.add_argument("--verdicts", default=str(VERDICTS), help="report: the folder of precision.jsonl and recall.jsonl")
    parser.add_argument("--card", help="report: write the result into this data card (between its audit markers)")
    parser.add_argument("--data", help="the folder of the four test sets (default: the shipped ones)")
    parser.add_argument("--sample", action="append",
                        help="report: score only the verdicts of this sample (their \"sample\" field); repeatable")
    parser.add_argument("--skip-judged", action="store_true",
                        help="sample, recall-sample: leave out what the --verdicts files already judge")
    parser.add_argument("--sheet", help="sheets, import: the nodes sample (what `sample --out` wrote)")
    parser.add_argument("--recall-sheet", help="sheets, import: the records sample (what `recall-sample --out` wrote)")
    parser.add_argument("--out-dir", help="sheets: write one folder per benchmark here")
    parser.add_argument("--answers", help="import: the folder `sheets` wrote, with the reviewers' answer files")
    parser.add_argument("--name", help='import: the sample\'s name in the verdict files, e.g. "seed 7"')
    args = parser.parse_args(argv)
    if args.data:
        globals()["DATA"] = Path(args.data)
    if args.command in ("sheets", "import"):
        needed = ("sheet", "recall_sheet") + (("out_dir",) if args.command == "sheets" else ("answers", "name"))
        missing = [f"--{flag.replace('_', '-')}" for flag in needed if not getattr(args, flag)]
        if missing:
            parser.error(f"{args.command} needs {', '.join(missing)}")
        try:
            node_rows, record_rows = read_jsonl(Path(args.sheet)), read_jsonl(Path(args.recall_sheet))
        except (OSError, ValueError) as exc:
            parser.error(f"--sheet / --recall-sheet: {exc}")
        lacking = next((f"{flag}, row {i}: no {key!r}" for flag, rows, keys in (
            ("--sheet", node_rows, SHEET_KEYS + ("node",)), ("--recall-sheet", record_rows, SHEET_KEYS))
            for i, row in enumerate(rows, 1) for key in keys if key not in row), None)
        if lacking:
            parser.error(f"{lacking} (give the files `sample` and `recall-sample` wrote)")
        if args.command == "sheets":
            counts = write_sheets(node_rows, record_rows, Path(args.out_dir))
            print(f"sheets for {', '.join(f'{name} ({n} items)' for name, n in counts.items())} -> {args.out_dir}")
            return 0
        try:
            n_precision, n_recall = import_answers(node_rows, record_rows, Path(args.answers), args.name,
                                                   Path(args.verdicts))
        except (AnswerError, OSError, ValueError) as exc:
            print(f"node_audit import: {exc}; nothing was appended", file=sys.stderr)
            return 2
        print(f"{n_precision} precision and {n_recall} recall verdicts of {args.name!r} -> {args.verdicts}")
        return 0
    if args.command in ("sample", "recall-sample"):
        folder = Path(args.verdicts)
        if args.command == "sample":
            judged = (frozenset((v["record"], v["node"]) for v in read_jsonl(folder / "precision.jsonl"))
                      if args.skip_judged else frozenset())
            rows = draw_nodes(args.per_benchmark or 40, args.seed, judged)
        else:
            judged = (frozenset(v["record"] for v in read_jsonl(folder / "recall.jsonl"))
                      if args.skip_judged else frozenset())
            rows = draw_records(args.per_benchmark or 10, args.seed, judged)
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
            print(f"{len(rows)} rows -> {args.out}")
        else:
            sys.stdout.write(text)
        return 0
    folder = Path(args.verdicts)
    try:
        result = score(read_jsonl(folder / "precision.jsonl"), read_jsonl(folder / "recall.jsonl"), args.sample)
    except (OSError, ValueError, KeyError) as exc:
        parser.error(f"--verdicts {folder}: {exc}")
    print(json.dumps(result, indent=2))
    print(card_section(result))
    if args.card:
        write_section(args.card, CARD_START, CARD_END, card_section(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
