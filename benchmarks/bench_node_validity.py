"""Node validity on solutions the nodes were NOT built from; prints the figures, and with
``--card`` writes them into the data card (lm_eval_tasks/consensusbench/data/README.md).

    python benchmarks/bench_node_validity.py --raw RAW [--only math500 aime24 gsm8k aime25]      # RAW: node_builder/README.md
        [--limit N] [--out validity.json] [--card lm_eval_tasks/consensusbench/data/README.md]
    python benchmarks/bench_node_validity.py --from-json validity.json --card lm_eval_tasks/consensusbench/data/README.md

Every setting builds nodes with the shipped pipeline and settings (``node_builder.pipeline
.build_records``: consensus, refine, build-wide finalize) and scores held-out solutions with the
benchmark's own metric (``consensus_metrics``: acc by math-verify, NCR by ``match_nodes``).

* ``math500`` / ``aime24`` — **leave one model out** on the staged evaluation runs: for each
  model M, the nodes of every problem are built from the reference solutions and the runs of all
  other models (M's runs are not used at all, not even as background), then M's solutions are
  scored. Reported: mean NCR of M's correct solutions, mean NCR of its wrong ones, and the AUC
  with which NCR separates them (pooled over all models, and per model).
* ``gsm8k`` — no model runs are staged: nodes from the reference solution alone; correct = the
  "socratic" rewording of it (nearly the same text, an upper bound), wrong = an arithmetic slip
  propagated to the answer (:func:`node_builder.perturb.gsm8k_slip`).
* ``aime25`` — one voice (maintainer-written solutions): leave one solution out where a problem
  has two; wrong = the held-out solution derailed after a random middle point
  (:func:`node_builder.perturb.substitute_slip`).
* **unrelated** (every setting) — precision: the correct held-out solution of *another* problem
  scored against a problem's nodes (3 per problem, seeded); mean NCR and the share with any
  credit. A node found in unrelated text is no evidence of solving this problem.

AUC = probability that a correct held-out solution has a higher NCR than a wrong one (ties 1/2).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import time
from pathlib import Path

from sklearn.metrics import roc_auc_score
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from consensus_metrics import match_nodes, relation_chains  # noqa: E402
from node_builder.shipped import AIME25_SOLUTIONS, SHIPPED  # noqa: E402
from node_builder.filter import filter_problem  # noqa: E402
from node_builder.importers import load_sources  # noqa: E402
from node_builder.importers.gsm8k import split_final, strip_socratic_prefixes  # noqa: E402
from node_builder.importers.jsonl_lines import read_jsonl  # noqa: E402
from node_builder.importers.text_cleanup import strip_calculator_annotations  # noqa: E402
from node_builder.perturb import gsm8k_slip, substitute_slip  # noqa: E402
from node_builder.pipeline import BuildConfig, build_records, without_voice  # noqa: E402
from node_builder.stats import write_section  # noqa: E402

CARD_START = "<!-- validity:start (written by benchmarks/bench_node_validity.py --card) -->"
CARD_END = "<!-- validity:end -->"
UNRELATED_PER_PROBLEM = 3


def ncr(text: str, nodes: list[dict]) -> float | None:
    if not nodes:
        return None
    matches = match_nodes(text, nodes, budget_s=10.0)
    return sum(m.covered for m in matches) / len(matches)


def _auc(pairs: list[tuple[float, int]]) -> float | None:
    labels = [y for _, y in pairs]
    if len(set(labels)) < 2:
        return None
    return round(float(roc_auc_score(labels, [x for x, _ in pairs])), 4)


def summary(pairs: list[tuple[float, int]], unrelated: list[float], **extra) -> dict:
    pos = [x for x, y in pairs if y == 1]
    neg = [x for x, y in pairs if y == 0]
    mean = lambda xs: round(statistics.mean(xs), 4) if xs else None  # noqa: E731
    return {"auc": _auc(pairs), "ncr_correct": mean(pos), "ncr_wrong": mean(neg), "n_correct": len(pos),
            "n_wrong": len(neg), "unrelated_ncr": mean(unrelated),
            "unrelated_with_credit": round(sum(u > 0 for u in unrelated) / len(unrelated), 4) if unrelated else None,
            "n_unrelated": len(unrelated), **extra}


def unrelated_scores(records: dict[str, dict], solutions: list[tuple[str, str]], rng: random.Random) -> list[float]:
    """NCR of correct solutions of *other* problems against each problem's nodes."""
    out = []
    for pid, record in records.items():
        others = [text for other, text in solutions if other != pid]
        if record["nodes"] and others:
            for text in rng.sample(others, min(UNRELATED_PER_PROBLEM, len(others))):
                out.append(ncr(text, record["nodes"]))
    return out


# ------------------------------------------------------------------ leave one model out
def load_filtered(benchmark: str, raw: Path, limit: int | None) -> list:
    specs = [s.format(raw=raw, solutions=AIME25_SOLUTIONS) for s in SHIPPED[benchmark]]
    problems = load_sources(specs, benchmark).problems
    problems = problems[:limit] if limit else problems
    for problem in tqdm(problems, desc=f"{benchmark}: acc", file=sys.stderr):
        filter_problem(problem)  # every verdict once; the builds below reuse them
    return problems


def leave_one_model_out(benchmark: str, raw: Path, limit: int | None, seed: int) -> dict:
    problems = load_filtered(benchmark, raw, limit)
    models = sorted({t.voice for p in problems for t in p.trajectories} - {"reference"})
    rng = random.Random(seed)
    pairs, unrelated, per_model = [], [], {}
    for model in tqdm(models, desc=f"{benchmark}: models", file=sys.stderr):
        records = {r["id"]: r for r in build_records(without_voice(problems, model), BuildConfig())}
        mine = []
        for problem in problems:
            for t in problem.trajectories:
                if t.voice == model:
                    score = ncr(t.text, records[problem.id]["nodes"])
                    if score is not None:
                        mine.append((score, int(bool(t.correct))))
        solutions = [(p.id, t.text) for p in problems for t in p.trajectories if t.voice == model and t.correct]
        theirs = unrelated_scores(records, solutions, rng)
        per_model[model] = summary(mine, theirs)
        pairs += mine
        unrelated += theirs
    with_nodes = sum(1 for p in problems if p.correct_trajectories())
    return summary(pairs, unrelated, problems=len(problems), models=len(models), per_model=per_model,
                   problems_with_a_correct_solution=with_nodes)


# ------------------------------------------------------------------ single-voice sets
def gsm8k_setting(raw: Path, limit: int | None, seed: int) -> dict:
    problems = load_sources([f"gsm8k:{raw}/gsm8k/test.jsonl"], "gsm8k").problems
    problems = problems[:limit] if limit else problems
    records = {r["id"]: r for r in build_records(problems, BuildConfig())}
    socratic = {f"gsm8k/test/{i}": obj for i, (_, obj) in enumerate(read_jsonl(raw / "gsm8k" / "test_socratic.jsonl"))}
    rng = random.Random(seed)
    pairs, solutions, no_variant = [], [], 0
    for problem in tqdm(problems, desc="gsm8k", file=sys.stderr):
        nodes = records[problem.id]["nodes"]
        body, gold = split_final(socratic[problem.id]["answer"], problem.id)
        annotated = strip_socratic_prefixes(body)
        positive = strip_calculator_annotations(annotated)[0] + f"\nThe answer is \\boxed{{{gold}}}."
        solutions.append((problem.id, positive))
        if not nodes:
            continue
        pairs.append((ncr(positive, nodes), 1))
        variant = gsm8k_slip(f"{annotated}\n#### {gold}", rng)
        if variant is None:
            no_variant += 1
            continue
        pairs.append((ncr(variant[0], nodes), 0))
    return summary(pairs, unrelated_scores(records, solutions, rng), problems=len(problems),
                   no_wrong_variant=no_variant)


def aime25_setting(raw: Path, seed: int) -> dict:
    specs = [s.format(raw=raw, solutions=AIME25_SOLUTIONS) for s in SHIPPED["aime25"]]
    problems = load_sources(specs, "aime25").problems
    for problem in problems:
        filter_problem(problem)
    rng = random.Random(seed)
    pairs, no_variant, held = [], 0, 0
    for problem in problems:
        correct = problem.correct_trajectories()
        if len(correct) < 2:
            continue
        for j, held_out in enumerate(correct):
            others = copy.copy(problem)
            others.trajectories = [t for k, t in enumerate(correct) if k != j]
            [record] = build_records([others], BuildConfig())
            if not record["nodes"]:
                continue
            held += 1
            pairs.append((ncr(held_out.text, record["nodes"]), 1))
            results = [(s.start, s.text) for c in relation_chains(held_out.text) for s in c.sides[1:] if c.rels and s.text]
            variant = substitute_slip(held_out.text, problem.answer, rng, results)
            if variant is None:
                no_variant += 1
                continue
            pairs.append((ncr(variant, record["nodes"]), 0))
    records = {r["id"]: r for r in build_records(problems, BuildConfig())}
    solutions = [(p.id, p.correct_trajectories()[0].text) for p in problems if p.correct_trajectories()]
    return summary(pairs, unrelated_scores(records, solutions, rng), problems=len(problems), held_out=held,
                   no_wrong_variant=no_variant)


# ------------------------------------------------------------------ the data card
def card_section(report: dict) -> str:
    """The Markdown the card shows between its validity markers."""
    rows = []
    labels = {"math500": "MATH-500: leave one model out (5 models, SkyThought runs)",
              "aime24": "AIME 2024: leave one model out (10 models, SkyThought runs)",
              "gsm8k": "GSM8K: reference nodes; socratic rewording vs a propagated slip",
              "aime25": "AIME 2025: leave one maintainer solution out; vs a derailed copy"}
    for name, label in labels.items():
        if name in report:
            r = report[name]
            rows.append(f"| {label} | {r['n_correct']} / {r['n_wrong']} | **{r['ncr_correct']}** | {r['ncr_wrong']} | "
                         f"**{r['auc']}** | {r['unrelated_ncr']} ({r['unrelated_with_credit']:.1%}) |")
    lines = ["| setting | held-out correct / wrong | mean NCR correct | mean NCR wrong | AUC | unrelated: mean NCR (share with credit) |",
             "|---|---:|---:|---:|---:|---|", *rows]
    for name in ("math500", "aime24"):
        if name in report:
            lines += ["", f"{labels[name].split(':')[0]} per held-out model (mean NCR correct / wrong, AUC):", ""]
            for model, r in report[name]["per_model"].items():
                shown = {key: "–" if r[key] is None else r[key] for key in ("ncr_correct", "ncr_wrong", "auc")}
                lines.append(f"* {model}: {shown['ncr_correct']} / {shown['ncr_wrong']}, AUC {shown['auc']} "
                             f"({r['n_correct']} correct, {r['n_wrong']} wrong)")
    lines += ["", f"Seed {report['seed']}; {report['seconds']:.0f} s on this machine."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raw", help="raw sources dir (the build's --raw); required unless --from-json")
    parser.add_argument("--only", nargs="+", choices=("math500", "aime24", "gsm8k", "aime25"))
    parser.add_argument("--limit", type=int, help="first N problems of each set (a quick look; not for the card)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument("--card", help="write the figures into this data card (between its validity markers)")
    parser.add_argument("--from-json", metavar="OUT", help="no measuring: print (and with --card write) the figures "
                                                          "of an earlier run's --out file")
    args = parser.parse_args(argv)
    if args.from_json:
        try:
            report = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
            section = card_section(report)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            parser.error(f"--from-json {args.from_json}: not a report of this script ({exc})")
        print(section)
        if args.card:
            write_section(args.card, CARD_START, CARD_END, section)
        return 0
    if args.raw is None:
        parser.error("--raw is required (or --from-json OUT)")
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if args.card and (args.limit or args.only):
        parser.error("--card needs every setting on every problem (no --limit, no --only)")
    raw = Path(args.raw)
    if not raw.is_dir():
        parser.error(f"--raw {raw}: not a directory")
    report, start = {"seed": args.seed}, time.time()
    for name in args.only or ["math500", "aime24", "gsm8k", "aime25"]:
        if name in ("math500", "aime24"):
            report[name] = leave_one_model_out(name, raw, args.limit, args.seed)
        elif name == "gsm8k":
            report[name] = gsm8k_setting(raw, args.limit, args.seed)
        else:
            report[name] = aime25_setting(raw, args.seed)
        print(f"{name}: {json.dumps({k: v for k, v in report[name].items() if k != 'per_model'})}", flush=True)
    report["seconds"] = round(time.time() - start, 1)
    print(card_section(report))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if args.card:
        write_section(args.card, CARD_START, CARD_END, card_section(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
