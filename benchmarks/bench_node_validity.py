"""Node validity: does NCR on trajectories NOT used to build a problem's nodes separate correct
from incorrect solutions? Prints AUCs (and writes them as JSON with ``--out``).

    python benchmarks/bench_node_validity.py --raw ../shared/data/raw [--out validity.json]

Three held-out settings (nodes always built by the shipped pipeline, default settings):

* ``gsm8k`` — nodes from the GSM8K test *reference* solution alone; positives: the "socratic"
  solution (sub-questions removed — nearly the same text, so this mostly checks the negatives);
  negatives: arithmetic slips propagated through the socratic solution (:func:`gsm8k_slip`,
  one random step per problem).
* ``math_loo`` — Qwen2.5-Math 100 MATH problems x 8 sampled solutions, leave-one-out: nodes from
  the other 7 (their correct ones), the held-out sample scored; labels are the metric's ``acc``
  (real wrong solutions). Pooled AUC, and the mean per-problem AUC over problems with both.
* ``aime24_loo`` — AIME 2024 AoPS solutions, leave-one-solution-out; positives: the held-out
  solution; negatives: the same solution derailed after a random middle point
  (:func:`substitute_slip`: later computed results and the answer replaced by wrong numbers).

NCR and acc come from ``consensus_metrics.score_trajectory`` (the benchmark's own metric).
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

from consensus_metrics import relation_chains, score_trajectory
from node_builder.filter import filter_problem
from node_builder.importers import aime24, gsm8k, jsonl_dump
from node_builder.importers.gsm8k import split_final, strip_socratic_prefixes
from node_builder.importers.jsonl_lines import read_jsonl
from node_builder.perturb import gsm8k_slip, substitute_slip
from node_builder.pipeline import BuildConfig, build_record
from node_builder.schema import Problem


def _auc(pairs: list[tuple[float, int]]) -> float | None:
    labels = [y for _, y in pairs]
    if len(set(labels)) < 2:
        return None
    return round(float(roc_auc_score(labels, [x for x, _ in pairs])), 4)


def _summary(pairs: list[tuple[float, int]], extra: dict) -> dict:
    pos = [x for x, y in pairs if y == 1]
    neg = [x for x, y in pairs if y == 0]
    return {"auc": _auc(pairs), "n_correct": len(pos), "n_wrong": len(neg),
            "ncr_correct_mean": round(statistics.mean(pos), 4) if pos else None,
            "ncr_wrong_mean": round(statistics.mean(neg), 4) if neg else None, **extra}


def _score(text: str, nodes: list, answer: str) -> tuple[float | None, int]:
    s = score_trajectory(text, nodes, answer, budget_s=10.0)
    return s["ncr"], s["acc"]


def gsm8k_validity(raw: Path, limit: int | None, rng: random.Random) -> dict:
    reference = gsm8k.load(raw / "gsm8k" / "test.jsonl").problems[:limit]
    socratic_raw = {}
    for index, (where, obj) in enumerate(read_jsonl(raw / "gsm8k" / "test_socratic.jsonl")):
        socratic_raw[f"gsm8k/test/{index}"] = obj
    pairs, no_nodes, no_variant = [], 0, 0
    for problem in tqdm(reference, desc="gsm8k", file=sys.stderr):
        record = build_record(copy.deepcopy(problem), BuildConfig())
        if not record["nodes"]:
            no_nodes += 1
            continue
        body, gold = split_final(socratic_raw[problem.id]["answer"], problem.id)
        annotated = strip_socratic_prefixes(body)
        positive = gsm8k.clean_solution(annotated)[0] + f"\nThe answer is \\boxed{{{gold}}}."
        ncr, acc = _score(positive, record["nodes"], problem.answer)
        if acc == 1:
            pairs.append((ncr, 1))
        variant = gsm8k_slip(f"{annotated}\n#### {gold}", rng)
        if variant is None:
            no_variant += 1
            continue
        ncr, acc = _score(variant[0], record["nodes"], problem.answer)
        if acc == 0:
            pairs.append((ncr, 0))
    return _summary(pairs, {"problems": len(reference), "no_nodes": no_nodes,
                            "no_wrong_variant": no_variant})


def math_loo_validity(raw: Path, limit: int | None) -> dict:
    path = raw / "qwen25math_math_cot_100" / "math_cot_100.jsonl"
    fields = {"id": "idx", "problem": "question", "trajectories": "code"}
    problems = jsonl_dump.load(path, benchmark="math", fields=fields).problems[:limit]
    pairs, per_problem, no_nodes = [], [], 0
    for problem in tqdm(problems, desc="math_loo", file=sys.stderr):
        filter_problem(problem)  # the metric's acc for every sample, once
        mine = []
        for j, held_out in enumerate(problem.trajectories):
            others = copy.deepcopy(problem)
            others.trajectories = [t for k, t in enumerate(others.trajectories) if k != j]
            record = build_record(others, BuildConfig())
            if not record["nodes"]:
                no_nodes += 1
                continue
            ncr, acc = _score(held_out.text, record["nodes"], problem.answer)
            mine.append((ncr, acc))
        pairs.extend(mine)
        auc = _auc(mine)
        if auc is not None:
            per_problem.append(auc)
    return _summary(pairs, {"problems": len(problems), "held_out_without_nodes": no_nodes,
                            "problems_with_both_labels": len(per_problem),
                            "per_problem_auc_mean": round(statistics.mean(per_problem), 4)
                            if per_problem else None})


def aime24_loo_validity(raw: Path, rng: random.Random) -> dict:
    problems = aime24.load(raw / "aime24" / "test.jsonl").problems
    pairs, no_nodes, no_variant, single = [], 0, 0, 0
    for problem in tqdm(problems, desc="aime24_loo", file=sys.stderr):
        filter_problem(problem)
        correct = problem.correct_trajectories()
        if len(correct) < 2:
            single += 1
            continue
        for j, held_out in enumerate(correct):
            others = copy.deepcopy(problem)
            others.trajectories = [t for k, t in enumerate(correct) if k != j]
            record = build_record(others, BuildConfig())
            if not record["nodes"]:
                no_nodes += 1
                continue
            ncr, acc = _score(held_out.text, record["nodes"], problem.answer)
            pairs.append((ncr, 1))
            results = [(s.start, s.text) for c in relation_chains(held_out.text)
                       for s in c.sides[1:] if c.rels and s.text]
            variant = substitute_slip(held_out.text, problem.answer, rng, results)
            if variant is None:
                no_variant += 1
                continue
            ncr, acc = _score(variant, record["nodes"], problem.answer)
            if acc == 0:
                pairs.append((ncr, 0))
    return _summary(pairs, {"problems": len(problems), "single_solution_problems": single,
                            "held_out_without_nodes": no_nodes, "no_wrong_variant": no_variant})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raw", required=True, help="raw sources dir (../shared/data/raw)")
    parser.add_argument("--limit", type=int, help="first N problems of each set (quick look)")
    parser.add_argument("--only", nargs="+", choices=("gsm8k", "math_loo", "aime24_loo"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    raw, rng = Path(args.raw), random.Random(args.seed)
    only = args.only or ["gsm8k", "math_loo", "aime24_loo"]
    report, start = {}, time.time()
    if "gsm8k" in only:
        report["gsm8k"] = gsm8k_validity(raw, args.limit, rng)
    if "math_loo" in only:
        report["math_loo"] = math_loo_validity(raw, args.limit)
    if "aime24_loo" in only:
        report["aime24_loo"] = aime24_loo_validity(raw, rng)
    report["seconds"] = round(time.time() - start, 1)
    for name, figures in report.items():
        print(f"{name}: {figures}")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
