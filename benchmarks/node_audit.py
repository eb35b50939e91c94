"""Independent hand audit of the shipped nodes: precision (stratified by benchmark, a strict
rubric) and recall (the key results an expert expects, found or not), scored from verdict files
written by a reviewer who did not write the node rules.

    python benchmarks/node_audit.py sample --out SHEET.jsonl [--per-benchmark 40] [--seed 7] [--skip-judged]
    python benchmarks/node_audit.py recall-sample --out SHEET.jsonl [--per-benchmark 10] [--seed 7] [--skip-judged]
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

``report`` scores the verdicts against the current data, so that every figure in the card belongs
to the data it ships with: a judged node that is no longer in its record (a later rule removed
it) is *retired* -- left out of the figures and counted with its label; a key result whose
``node`` left its record counts as not found. Precision = GOOD share; GOOD+ROUTE share; recall =
found key results / all; the GOOD and GOOD+ROUTE counts per node kind (value, equation,
expression, proposition), which tell the next round of rules where the defects sit; and GOOD per
sample: a sample drawn after the rules that retired judged nodes is the unbiased figure (those
rules were written reading the earlier samples). ``--sample NAME`` scores one sample alone
(repeat it to pool several).

Rubric (:data:`LABELS`):

* GOOD -- a key intermediate result most correct solutions state in some form;
* ROUTE -- correct, but one route's step (other correct solutions need not pass through it);
* RESTATE -- a given of the problem, restated or substituted into its own definition;
* DEFINITION -- a generic formula or definition (true in any problem);
* ANSWER -- the answer or what trivially yields it (the m/n of an m+n answer, the value before
  "mod 1000", the answer in other units);
* FRAGMENT -- meaningless alone (a piece of an expression, a dangling operator, a list member, a
  case label, a duplicate of another node);
* WRONG -- false.
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

from node_builder.stats import write_section  # noqa: E402

DATA = ROOT / "lm_eval_tasks" / "consensusbench" / "data"
VERDICTS = Path(__file__).resolve().parent / "node_audit"
SETS = ("math500", "gsm8k", "aime24", "aime25")
LABELS = ("GOOD", "ROUTE", "RESTATE", "DEFINITION", "ANSWER", "FRAGMENT", "WRONG")
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
    names = {"math500": "MATH-500", "gsm8k": "GSM8K", "aime24": "AIME 2024", "aime25": "AIME 2025"}
    lines = ["| benchmark | nodes judged | GOOD | GOOD+ROUTE | " + " | ".join(LABELS[1:]) + " | recall (key results found) |",
             "|---|---:|---:|---:|" + "---:|" * (len(LABELS) - 1) + "---|"]
    for name in SETS:
        r = result[name]
        other = " | ".join(str(r["labels"][label]) for label in LABELS[1:])
        lines.append(f"| {names[name]} | {r['nodes']} | **{_pct(r['good_pct'])}** | {_pct(r['good_route_pct'])} | {other} | "
                     f"**{_pct(r['recall_pct'])}** ({r['key_results']} key results of {r['records']} records) |")
    kinds = sorted({kind for name in SETS for kind in result[name]["by_kind"]})
    lines += ["", "GOOD / GOOD+ROUTE of the judged nodes by node kind (judged nodes in brackets):", "",
              "| benchmark | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
    for name in SETS:
        cells = []
        for kind in kinds:
            k = result[name]["by_kind"].get(kind)
            cells.append(f"{k['good']} / {k['good_route']} ({k['nodes']})" if k else "–")
        lines.append(f"| {names[name]} | " + " | ".join(cells) + " |")
    samples = sorted({s for name in SETS for s in result[name]["by_sample"]}, key=lambda s: (len(s), s))
    lines += ["", "GOOD by sample (judged nodes still shipped in brackets):", "",
              "| sample | " + " | ".join(names[name] for name in SETS) + " |", "|---|" + "---:|" * len(SETS)]
    for s in samples:
        cells = []
        for name in SETS:
            k = result[name]["by_sample"].get(s)
            cells.append(f"{100 * k['good'] / k['nodes']:.1f}% ({k['nodes']})" if k and k["nodes"] else "–")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    retired = {name: result[name]["retired"] for name in SETS if result[name]["retired"]}
    if retired:
        lines += ["", "Judged nodes no longer shipped (removed by later rules; left out above): " + "; ".join(
            f"{names[name]} {sum(c.values())} ({', '.join(f'{k} {v}' for k, v in c.items())})"
            for name, c in retired.items()) + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("sample", "recall-sample", "report"))
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
    args = parser.parse_args(argv)
    if args.data:
        globals()["DATA"] = Path(args.data)
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
