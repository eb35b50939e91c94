"""Hand check of shipped nodes: are they genuine intermediate results? Draws a seeded random
sample of nodes from the shipped test sets, shows each with its problem, and scores it against a
verdict file written by a person who read them.

    python benchmarks/node_audit.py sample [--n 50] [--seed 0]     # print the sample to judge
    python benchmarks/node_audit.py report [--card CARD]           # precision from the verdicts

A verdict (``benchmarks/node_audit.json``) is ``{"record", "node", "genuine", "why"}`` per sampled
node: ``genuine`` is true for a checkable intermediate result a solver passes through (a value
computed, an equation set up, a key expression), false for the answer or a piece of it, a given
restated, a fragment, a chain read across unrelated parts, or a step of one route only. The
report refuses to score when the sample and the verdicts disagree (the data changed since the
check): every figure in the card belongs to the data it ships with.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from node_builder.stats import write_section  # noqa: E402

DATA = ROOT / "lm_eval_tasks" / "consensusbench" / "data"
VERDICTS = Path(__file__).with_name("node_audit.json")
SETS = ("math500", "gsm8k", "aime24", "aime25")
CARD_START = "<!-- audit:start (written by benchmarks/node_audit.py report --card) -->"
CARD_END = "<!-- audit:end -->"


def draw(n: int, seed: int) -> list[tuple[dict, dict]]:
    """``n`` (record, node) pairs drawn uniformly from all nodes of the test sets."""
    pool = []
    for name in SETS:
        with open(DATA / f"{name}.jsonl", encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                pool.extend((record, node) for node in record["nodes"])
    return random.Random(seed).sample(pool, min(n, len(pool)))


def show(sample: list[tuple[dict, dict]]) -> None:
    for i, (record, node) in enumerate(sample, 1):
        print(f"--- {i}. {record['id']}  answer {record['answer']!r}  voices {record['provenance'].get('voices')}")
        print(f"    problem: {' '.join(record['problem'].split())[:400]}")
        print(f"    node: {node['text']!r} ({node['kind']}, support {node['support']}, "
              f"standalone {node.get('standalone', True)})")


def report(sample: list[tuple[dict, dict]], verdicts: list[dict]) -> dict:
    judged = {(v["record"], v["node"]): v for v in verdicts}
    missing = [(r["id"], n["text"]) for r, n in sample if (r["id"], n["text"]) not in judged]
    if missing:
        raise SystemExit(f"{VERDICTS.name}: no verdict for {len(missing)} sampled nodes (the data changed?), "
                         f"e.g. {missing[0]}: rerun `sample` and judge them")
    rows = [judged[(r["id"], n["text"])] for r, n in sample]
    genuine = sum(1 for v in rows if v["genuine"])
    return {"n": len(rows), "genuine": genuine, "precision": round(genuine / len(rows), 3),
            "not_genuine": [f"{v['record']}: {v['node']} ({v['why']})" for v in rows if not v["genuine"]]}


def card_section(result: dict, seed: int) -> str:
    lines = [f"{result['n']} nodes drawn at random (seed {seed}) from the four test sets, each read by hand with its problem: "
             f"**{result['genuine']} of {result['n']} ({result['precision']:.0%}) are genuine "
             "intermediate results** (a value computed, an equation set up, a key expression a solver passes "
             "through). The others:"]
    lines += [f"* {item}" for item in result["not_genuine"]] or ["* none"]
    lines.append("\nVerdicts: `benchmarks/node_audit.json`; `python benchmarks/node_audit.py report` recomputes this.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("sample", "report"))
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--card", help="write the result into this data card (between its audit markers)")
    args = parser.parse_args(argv)
    sample = draw(args.n, args.seed)
    if args.command == "sample":
        show(sample)
        return 0
    result = report(sample, json.loads(VERDICTS.read_text(encoding="utf-8")))
    print(json.dumps(result, indent=2))
    if args.card:
        write_section(args.card, CARD_START, CARD_END, card_section(result, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
