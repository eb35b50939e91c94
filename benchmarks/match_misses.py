r"""Where NCR loses on correct solutions: a hand audit of the matcher's misses.

A *miss* is a shipped node that a correct chain-of-thought solution of one of the voices does not
cover. ``sample`` draws misses at random (seeded) from the shipped nodes and the staged model
runs and writes a sheet a reviewer reads with the rubric below; ``report`` prints, per benchmark,
how the reviewer labelled them and how many of each label the *current* matcher covers (the
sheet keeps the solution text, so a later matcher is measured on the same misses). Labels:

* ``VERBATIM`` -- the solution writes the node essentially as written (spacing, notation, sides
  swapped, inside a longer chain);
* ``EQUIVALENT`` -- the same fact for the same quantities in another form (rearranged,
  unsimplified, in words with the same numbers);
* ``VALUE_ONLY`` -- the node's value appears, but not as that result;
* ``ABSENT`` -- the solution's route does not pass through the result;
* ``CONTRADICTS`` -- the solution gives the node's quantity another value.

A covered ``ABSENT``, ``VALUE_ONLY`` or ``CONTRADICTS`` row would be credit for what a solution
does not state: the report counts them as false credit. It also re-reads the precision checks of
matcher credits (``match_audit/*credits*.jsonl``: credits of a new rule, or ``credits`` draws of
every rule, each labelled YES or NO by a reader) and counts those the current matcher still gives.

``credits`` draws the other way round: credits at random (seeded) -- a shipped node that a model
solution of its problem covers under the scoring rules (the context rule included), half in
solutions whose final answer is right and half in wrong ones -- with the credited words
(``span``) and their line, for a reader who labels each YES (the solution states that result
there, in any form) or NO (another quantity with the same numbers, a coincidence, a fragment).

    python benchmarks/match_misses.py sample --raw RAW --benchmark gsm8k --n 50 --seed 4280 \
        --out benchmarks/match_audit/gsm8k_sheet.jsonl
    python benchmarks/match_misses.py credits --raw RAW --benchmark aime24 --n 40 --seed 4287 \
        --out benchmarks/match_audit/aime24_credits.jsonl
    python benchmarks/match_misses.py credits --raw RAW --benchmark math500 --n 40 --seed 4300 --via division \
        --out benchmarks/match_audit/division_credits.jsonl   # the credits of one rule
    python benchmarks/match_misses.py report   # benchmarks/match_audit/{B}_sheet.jsonl + {B}_verdicts.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_node_validity import _key, coverage_keys, load_problems  # noqa: E402

from consensus_metrics import match_nodes  # noqa: E402

AUDIT_DIR = REPO / "benchmarks" / "match_audit"
DATA = REPO / "lm_eval_tasks" / "consensusbench" / "data"
LABELS = ("VERBATIM", "EQUIVALENT", "VALUE_ONLY", "ABSENT", "CONTRADICTS")
STATED = ("VERBATIM", "EQUIVALENT")


def misses(benchmark: str, raw: Path) -> list[dict]:
    """Every (shipped node, correct chain-of-thought solution of a voice) the matcher misses."""
    records = {r["id"]: r for r in map(json.loads, open(DATA / f"{benchmark}.jsonl", encoding="utf-8"))}
    out = []
    for problem in load_problems(benchmark, raw, None):
        nodes = records[problem.id]["nodes"]
        for t in problem.trajectories:
            if not nodes or not t.correct or t.tool or t.voice == "reference":
                continue
            keys = coverage_keys(t.text, nodes)
            out += [{"id": problem.id, "voice": t.voice, "node": n, "problem": problem.problem, "solution": t.text}
                    for n in nodes if _key(n) not in keys]
    return out


#: Characters of context kept on each side of a credited span (its line, or this much of it).
LINE_CONTEXT = 300


def line_of(text: str, start: int, end: int) -> str:
    """The line(s) holding ``text[start:end]``, at most :data:`LINE_CONTEXT` characters either side.

    >>> line_of("Step 1.\\nSo 4 * 6 = 24 pens.\\nDone.", 11, 21)
    'So 4 * 6 = 24 pens.'
    """
    lo = max(text.rfind("\n", 0, start) + 1, start - LINE_CONTEXT)
    hi = text.find("\n", end)
    hi = min(len(text) if hi < 0 else hi, end + LINE_CONTEXT)
    return text[lo:hi]


def credits(benchmark: str, raw: Path, n: int, seed: int, via: str | None = None) -> list[dict]:
    """``n`` credits drawn at random: half in model solutions whose answer is right, half in wrong
    ones (each half as many as exist). Solutions are visited in a seeded random order and each
    gives at most one credit (one of its covered nodes, chosen with the same generator), so no
    solution or problem dominates; the reference solutions, which the nodes come from, are left out.
    With ``via``, only credits of that rule (``NodeMatch.via``: ``words``, ``division``...)."""
    records = {r["id"]: r for r in map(json.loads, open(DATA / f"{benchmark}.jsonl", encoding="utf-8"))}
    pool = [(p, t) for p in load_problems(benchmark, raw, None) if records[p.id]["nodes"]
            for t in p.trajectories if t.voice != "reference" and t.correct is not None]
    rng = random.Random(seed)
    rng.shuffle(pool)
    want = {True: (n + 1) // 2, False: n // 2}
    out = []
    for problem, t in pool:
        if not want[bool(t.correct)]:
            continue
        nodes = records[problem.id]["nodes"]
        hits = [m for m in match_nodes(t.text, nodes, budget_s=10.0) if m.covered and via in (None, m.via)]
        if not hits:
            continue
        m = rng.choice(hits)
        node = next(x for x in nodes if x["id"] == m.node_id)
        want[bool(t.correct)] -= 1
        out.append({"benchmark": benchmark, "id": problem.id, "voice": t.voice, "correct": bool(t.correct),
                    "problem": problem.problem, "node": node["text"], "via": m.via,
                    "span": t.text[m.start:m.end], "line": line_of(t.text, m.start, m.end)})
        if not any(want.values()):
            break
    return out


def covers(text: str, node: dict) -> bool:
    """Whether the current matcher covers ``node`` in ``text`` (the node on its own)."""
    return match_nodes(text, [{**node, "standalone": True}], budget_s=10.0)[0].covered


def covered_now(row: dict) -> bool:
    """Whether the current matcher covers the row's node in its solution."""
    return covers(row["solution"], row["node"])


def report(folder: Path) -> int:
    print("| benchmark | misses read | " + " | ".join(LABELS) + " | stated (reader) | stated, covered now |"
          " false credit now |")
    print("|---|---:|" + "---:|" * (len(LABELS) + 3))
    for sheet in sorted(folder.glob("*_sheet.jsonl")):
        benchmark = sheet.name[:-len("_sheet.jsonl")]
        verdicts_path = folder / f"{benchmark}_verdicts.jsonl"
        if not verdicts_path.exists():
            print(f"{benchmark}: no verdicts ({verdicts_path.name})", file=sys.stderr)
            continue
        rows = {r["n"]: r for r in map(json.loads, open(sheet, encoding="utf-8"))}
        verdicts = [json.loads(line) for line in open(verdicts_path, encoding="utf-8") if line.strip()]
        labels = Counter(v["label"] for v in verdicts)
        now = Counter(v["label"] for v in verdicts if covered_now(rows[v["n"]]))
        stated = sum(labels[x] for x in STATED)
        stated_now = sum(now[x] for x in STATED)
        false_now = sum(now[x] for x in LABELS if x not in STATED)
        print(f"| {benchmark} | {len(verdicts)} | " + " | ".join(str(labels[x]) for x in LABELS)
              + f" | {stated} ({stated / len(verdicts):.0%}) | {stated_now} | {false_now} |")
    credit_checks(folder)
    return 0


def credit_checks(folder: Path) -> None:
    """The precision reads of new matcher credits (``*credits*.jsonl``: a credit's node and the
    text it was found in, ``span``, labelled ``YES``/``NO`` by a reader): how many of each label
    the current matcher still credits in that text. A ``NO`` credited now is false credit."""
    files = sorted(folder.glob("*credits*.jsonl"))
    if not files:
        return
    shipped = {}  # (id, node text) -> the shipped node, with its forms
    for path in DATA.glob("*.jsonl"):
        for record in map(json.loads, open(path, encoding="utf-8")):
            shipped.update({(record["id"], node["text"]): node for node in record["nodes"]})
    print("\n| credits read | rows | YES | NO | YES credited now | NO credited now | NO in wrong answers |"
          "\n|---|---:|---:|---:|---:|---:|---:|")
    for path in files:
        rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
        labels = Counter(r["label"] for r in rows)
        now = Counter(r["label"] for r in rows if _credited(r, shipped.get((r["id"], r["node"]))))
        wrong = [r for r in rows if r.get("correct") is False]
        no_wrong = sum(r["label"] == "NO" for r in wrong)
        print(f"| {path.name} | {len(rows)} | {labels['YES']} | {labels['NO']} | {now['YES']} | {now['NO']} | "
              f"{no_wrong} of {len(wrong)} |")


def _credited(row: dict, node: dict | None) -> bool:
    """Whether the current matcher credits a read credit's node (as shipped, else its text) in the
    line it was found in (the marked words alone where the line does not hold them all)."""
    text = row["line"] if row["span"] in row["line"] else row["span"]
    return covers(text, node or {"id": "n", "text": row["node"]})


def write_sheet(rows: list[dict], out: Path) -> None:
    """Write a reader's sheet: one JSON line per row, numbered ``n`` from 1."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as handle:
        for i, row in enumerate(rows, 1):
            handle.write(json.dumps({"n": i, **row}, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("sample", "credits", "report"))
    parser.add_argument("--raw", type=Path, help="the raw sources folder (sample, credits)")
    parser.add_argument("--benchmark", choices=("math500", "gsm8k", "aime24"))
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--seed", type=int, default=4280)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--dir", type=Path, default=AUDIT_DIR, help="report: the sheets and verdicts")
    parser.add_argument("--via", help="credits: only those of this rule (words, division, chain...)")
    args = parser.parse_args(argv)
    if args.command == "report":
        return report(args.dir)
    if not (args.raw and args.benchmark and args.out):
        parser.error(f"{args.command} needs --raw, --benchmark and --out")
    if args.command == "credits":
        rows = credits(args.benchmark, args.raw, args.n, args.seed, args.via)
        write_sheet(rows, args.out)
        print(f"{len(rows)} credits drawn (seed {args.seed}) -> {args.out}")
        return 0
    found = misses(args.benchmark, args.raw)
    rows = random.Random(args.seed).sample(found, min(args.n, len(found)))
    write_sheet(rows, args.out)
    print(f"{len(found)} misses; {len(rows)} drawn (seed {args.seed}) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
