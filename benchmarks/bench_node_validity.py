"""Node validity on solutions the nodes were NOT built from, for the shipped rule and a grid of
consensus rules; prints the figures, and with ``--card`` writes them into the data card.

    python benchmarks/bench_node_validity.py --raw RAW [--only math500 gsm8k aime24 aime25]   # RAW: node_builder/README.md
        [--grid] [--limit N] [--out validity.json] [--card lm_eval_tasks/consensusbench/data/README.md]
    python benchmarks/bench_node_validity.py --from-json validity.json [--card ...]

Every setting builds nodes with the shipped pipeline (``node_builder``: evidence, consensus,
build-wide finalize) and scores held-out solutions with the benchmark's own metric
(``consensus_metrics``: acc by math-verify, NCR by ``match_nodes`` with its context rule).

* ``math500`` / ``gsm8k`` / ``aime24`` -- **leave one model out** (LOMO) on the staged runs: for
  each model voice M, every problem's nodes are built from the reference solutions and the runs
  of all other voices (M's solutions neither mine, vote nor serve as background), then M's
  solutions are scored. Reported: coverage (problems with nodes), mean NCR of M's correct and
  wrong solutions, and the AUC with which NCR separates them (pooled over all voices).
* ``aime25`` -- one voice (maintainer-written solutions): leave one solution out where a problem
  has two; wrong = the held-out solution derailed after a random middle point
  (:func:`node_builder.perturb.substitute_slip`).
* **unrelated** (every setting) -- precision: correct held-out solutions of *other* problems
  scored against a problem's nodes (3 per problem, seeded); mean NCR and the share with credit.

The shipped setting builds the nodes as shipped: with the reviewers' verdicts
(:mod:`node_builder.signoff`), under which a signed record does not depend on the consensus rule.
``--grid`` therefore compares the rules of :data:`GRID` (share of voices x minimum number of
voices) *before* sign-off, the rules alone (what a benchmark without verdicts gets), repeating
LOMO for every rule from one evidence pass per problem (:func:`node_builder.evidence.gather`; the
rules only select, :func:`node_builder.consensus.select`), and prints the curve the data card shows.

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
from node_builder.consensus import ConsensusRule, select  # noqa: E402
from node_builder.evidence import gather  # noqa: E402
from node_builder.filter import filter_problem  # noqa: E402
from node_builder.finalize import Background, finalize_records  # noqa: E402
from node_builder.importers import load_sources  # noqa: E402
from node_builder.perturb import substitute_slip  # noqa: E402
from node_builder.pipeline import BuildConfig, build_records, record_of, without_voice  # noqa: E402
from node_builder.shipped import shipped_sources  # noqa: E402
from node_builder.stats import write_section  # noqa: E402
from node_builder.signoff import proposed_nodes, signoffs_of  # noqa: E402

CARD_START = "<!-- validity:start (written by benchmarks/bench_node_validity.py --card) -->"
CARD_END = "<!-- validity:end -->"
UNRELATED_PER_PROBLEM = 3
LOMO_SETS = ("math500", "gsm8k", "aime24")
#: The rules ``--grid`` compares: (share of voices, minimum number of voices).
GRID = tuple(ConsensusRule(min_share=s, min_voices=v) for s in (0.3, 0.4, 0.5, 0.6, 0.7) for v in (2, 3))


def _key(node: dict) -> tuple:
    return (node["kind"], node["value"], *node["forms"])


def credited(covered_keys: set, nodes: list[dict]) -> int:
    """Covered nodes of a list under the context rule (docs/SPEC.md §3 rule 5), given which of
    them the text covers on their own (``covered_keys``)."""
    hit = [n for n in nodes if _key(n) in covered_keys]
    standalone = sum(1 for n in hit if n["standalone"])
    common = len(hit) - standalone
    return standalone + (common if (standalone or common >= 2) else 0)


def coverage_keys(text: str, nodes: list[dict]) -> set:
    """Keys of ``nodes`` that ``text`` covers on its own (every node standalone)."""
    probes = [{**n, "id": f"u{i}", "standalone": True} for i, n in enumerate(nodes)]
    return {_key(nodes[int(m.node_id[1:])]) for m in match_nodes(text, probes, budget_s=10.0) if m.covered}


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


# ------------------------------------------------------------------ evidence, once per problem
def load_problems(benchmark: str, raw: Path, limit: int | None) -> list:
    problems = load_sources(shipped_sources(benchmark, raw), benchmark).problems
    problems = problems[:limit] if limit else problems
    for problem in tqdm(problems, desc=f"{benchmark}: acc", file=sys.stderr):
        filter_problem(problem)
    return problems


def evidence_of(benchmark: str, problems: list, signed: bool = True) -> list:
    """Every problem's evidence; ``signed``: with the reviewers' proposed key results as candidates."""
    signoffs = (signoffs_of(benchmark) or {}) if signed else {}
    return [gather(p, None, proposed_nodes(signoffs.get(p.id), p))
            for p in tqdm(problems, desc=f"{benchmark}: evidence", file=sys.stderr)]


def _labels(signoffs: dict, evidence) -> dict | None:
    verdicts = signoffs.get(evidence.problem.id)
    return verdicts.labels if verdicts else None


def build_under(evidences, problems, rules, exclude: str | None, config: BuildConfig) -> dict:
    """``{rule: records}`` for every rule, finalized against one background measured on the union
    of their nodes (the background leaves ``exclude``'s solutions out)."""
    signoffs = config.signoffs or {}
    by_rule = {rule: [record_of(ev, select(ev, rule, exclude_voice=exclude, signed=_labels(signoffs, ev)), config,
                                signed=ev.problem.id in signoffs) for ev in evidences]
               for rule in rules}
    union = []
    for i, ev in enumerate(evidences):
        seen, nodes = set(), []
        for rule in rules:
            for node in by_rule[rule][i]["nodes"]:
                if _key(node) not in seen:
                    seen.add(_key(node))
                    nodes.append(node)
        union.append({"id": ev.problem.id, "nodes": nodes})
    kept = without_voice(problems, exclude) if exclude else problems
    background = Background(union, kept)
    for rule in rules:
        finalize_records(by_rule[rule], kept, config.common_share, config.refine.max_nodes, background=background)
    return by_rule


def leave_one_model_out(benchmark: str, problems, evidences, rules, seed: int, signed: bool = True) -> dict:
    """LOMO figures for every rule (see the module doc). ``signed``: problems with shipped verdicts
    (:mod:`node_builder.signoff`) keep their signed candidates (under any rule); else the rules alone."""
    config = BuildConfig(signoffs=signoffs_of(benchmark) if signed else None)
    voices = sorted({t.voice for p in problems for t in p.trajectories} - {"reference"})
    rng = random.Random(seed)
    pairs = {rule: [] for rule in rules}
    prose_pairs = {rule: [] for rule in rules}  # chain-of-thought solutions only (no tool-integrated run)
    unrelated = {rule: [] for rule in rules}
    per_voice = {rule: {} for rule in rules}
    for voice in tqdm(voices, desc=f"{benchmark}: leave one model out", file=sys.stderr):
        by_rule = build_under(evidences, problems, rules, voice, config)
        by_id = {rule: {r["id"]: r for r in by_rule[rule]} for rule in rules}
        union = {}
        for rule in rules:
            for record in by_rule[rule]:
                for node in record["nodes"]:
                    union.setdefault(record["id"], {}).setdefault(_key(node), node)
        theirs = [(p.id, t) for p in problems for t in p.trajectories if t.voice == voice]
        solutions = [(pid, t.text) for pid, t in theirs if t.correct]
        mine = {rule: [] for rule in rules}
        for pid, t in theirs:
            nodes = list(union.get(pid, {}).values())
            keys = coverage_keys(t.text, nodes) if nodes else set()
            for rule in rules:
                record = by_id[rule][pid]
                if record["nodes"]:
                    pair = (credited(keys, record["nodes"]) / len(record["nodes"]), int(bool(t.correct)))
                    mine[rule].append(pair)
                    if not t.tool:
                        prose_pairs[rule].append(pair)
        others_scores = {rule: [] for rule in rules}
        for pid, nodes_by_key in union.items():
            others = [text for other, text in solutions if other != pid]
            for text in rng.sample(others, min(UNRELATED_PER_PROBLEM, len(others))):
                keys = coverage_keys(text, list(nodes_by_key.values()))
                for rule in rules:
                    record = by_id[rule][pid]
                    if record["nodes"]:
                        others_scores[rule].append(credited(keys, record["nodes"]) / len(record["nodes"]))
        for rule in rules:
            per_voice[rule][voice] = summary(mine[rule], others_scores[rule])
            pairs[rule] += mine[rule]
            unrelated[rule] += others_scores[rule]
    return {rule: summary(pairs[rule], unrelated[rule], voices=len(voices), per_voice=per_voice[rule],
                          chain_of_thought=summary(prose_pairs[rule], [])) for rule in rules}


def coverage_of(records: list[dict], problems) -> dict:
    """Problems with nodes (overall and per MATH level) and the share of multi-voice nodes."""
    with_nodes = [r for r in records if r["nodes"]]
    out = {"problems": len(records), "with_nodes": len(with_nodes),
           "with_nodes_pct": round(100 * len(with_nodes) / max(len(records), 1), 1),
           "nodes": sum(len(r["nodes"]) for r in records)}
    multi = [n for r in records for n in r["nodes"] if not r["provenance"]["single_voice"]
             and round(n["support"] * len(r["provenance"]["voices"])) >= 2]
    out["two_voice_nodes_pct"] = round(100 * len(multi) / max(out["nodes"], 1), 1)
    levels = {}
    for record in records:
        if record.get("level") is not None:
            total, hit = levels.get(record["level"], (0, 0))
            levels[record["level"]] = (total + 1, hit + bool(record["nodes"]))
    if levels:
        out["by_level_pct"] = {str(k): round(100 * h / t, 1) for k, (t, h) in sorted(levels.items())}
    return out


# ------------------------------------------------------------------ one voice: AIME 2025
def aime25_setting(raw: Path, seed: int) -> dict:
    problems = load_sources(shipped_sources("aime25", raw), "aime25").problems
    for problem in problems:
        filter_problem(problem)
    rng = random.Random(seed)
    config = BuildConfig(signoffs=signoffs_of("aime25"))
    pairs, no_variant, held = [], 0, 0
    for problem in problems:
        correct = problem.correct_trajectories()
        if len(correct) < 2:
            continue
        for j, held_out in enumerate(correct):
            others = copy.copy(problem)
            others.trajectories = [t for k, t in enumerate(correct) if k != j]
            [record] = build_records([others], config)
            if not record["nodes"]:
                continue
            held += 1
            keys = coverage_keys(held_out.text, record["nodes"])
            pairs.append((credited(keys, record["nodes"]) / len(record["nodes"]), 1))
            results = [(s.start, s.text) for c in relation_chains(held_out.text) for s in c.sides[1:] if c.rels and s.text]
            variant = substitute_slip(held_out.text, problem.answer, rng, results)
            if variant is None:
                no_variant += 1
                continue
            keys = coverage_keys(variant, record["nodes"])
            pairs.append((credited(keys, record["nodes"]) / len(record["nodes"]), 0))
    records = build_records(problems, config)
    solutions = [(p.id, p.correct_trajectories()[0].text) for p in problems if p.correct_trajectories()]
    unrelated = []
    for record in records:
        others = [text for pid, text in solutions if pid != record["id"]]
        if record["nodes"] and others:
            for text in rng.sample(others, min(UNRELATED_PER_PROBLEM, len(others))):
                unrelated.append(credited(coverage_keys(text, record["nodes"]), record["nodes"]) / len(record["nodes"]))
    return summary(pairs, unrelated, problems=len(problems), held_out=held, no_wrong_variant=no_variant)


# ------------------------------------------------------------------ the data card
LABELS = {"math500": "MATH-500", "gsm8k": "GSM8K", "aime24": "AIME 2024"}


def _rule_name(rule: ConsensusRule) -> str:
    return f"share >= {rule.min_share}, voices >= {rule.min_voices}"


def card_section(report: dict) -> str:
    """The Markdown the card shows between its validity markers."""
    lines = ["| setting | held-out correct / wrong | mean NCR correct | mean NCR wrong | AUC | unrelated: mean NCR (share with credit) |",
             "|---|---:|---:|---:|---:|---|"]
    for name in (*LOMO_SETS, "aime25"):
        if name not in report:
            continue
        r = report[name]["shipped"] if name in LOMO_SETS else report[name]
        label = (f"{LABELS[name]}: leave one model out ({r['voices']} model voices)" if name in LOMO_SETS
                 else "AIME 2025: leave one maintainer solution out; vs a derailed copy")
        rows = f"| {label} | {r['n_correct']} / {r['n_wrong']} | **{r['ncr_correct']}** | {r['ncr_wrong']} | **{r['auc']}** | "
        rows += f"{r['unrelated_ncr']} ({(r['unrelated_with_credit'] or 0):.1%}) |"
        lines.append(rows)
        cot = r.get("chain_of_thought")
        if cot and cot["n_correct"] and cot["n_correct"] != r["n_correct"]:
            lines.append(f"| {LABELS[name]}: the same, chain-of-thought solutions only (no tool-integrated run) | "
                         f"{cot['n_correct']} / {cot['n_wrong']} | **{cot['ncr_correct']}** | {cot['ncr_wrong']} | "
                         f"**{cot['auc']}** | |")
    for name in LOMO_SETS:
        if name in report and report[name].get("grid"):
            lines += ["", f"{LABELS[name]}, the consensus rules compared before sign-off (the rules alone; leave one model "
                      "out; coverage of the full build):", "",
                      "| rule | problems with nodes | nodes by 2+ voices | NCR correct | NCR wrong | AUC | "
                      "chain-of-thought: NCR correct / AUC | unrelated NCR |",
                      "|---|---:|---:|---:|---:|---:|---|---:|"]
            for row in report[name]["grid"]:
                cot = row.get("chain_of_thought") or {}
                lines.append(f"| {row['rule']} | {row['coverage']['with_nodes_pct']}% | {row['coverage']['two_voice_nodes_pct']}% "
                             f"| {row['ncr_correct']} | {row['ncr_wrong']} | {row['auc']} | "
                             f"{cot.get('ncr_correct')} / {cot.get('auc')} | {row['unrelated_ncr']} |")
    lines += ["", f"Seed {report['seed']}; {report['seconds']:.0f} s on this machine."]
    return "\n".join(lines)


def measure(name: str, raw: Path, limit: int | None, seed: int, grid: bool) -> dict:
    if name == "aime25":
        return aime25_setting(raw, seed)
    problems = load_problems(name, raw, limit)
    evidences = evidence_of(name, problems)
    shipped = ConsensusRule()
    lomo = leave_one_model_out(name, problems, evidences, [shipped], seed)
    full = build_under(evidences, problems, [shipped], None, BuildConfig(signoffs=signoffs_of(name)))
    out = {"shipped": {**lomo[shipped], "coverage": coverage_of(full[shipped], problems)}}
    if grid:  # the consensus rules alone, before sign-off (a signed record does not depend on the rule)
        rules = list(dict.fromkeys([shipped, *GRID]))
        evidences = evidence_of(name, problems, signed=False)
        lomo = leave_one_model_out(name, problems, evidences, rules, seed, signed=False)
        full = build_under(evidences, problems, rules, None, BuildConfig())
        out["grid"] = [{"rule": _rule_name(rule), **{k: v for k, v in lomo[rule].items() if k != "per_voice"},
                        "coverage": coverage_of(full[rule], problems)} for rule in rules]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raw", help="raw sources dir (the build's --raw); required unless --from-json")
    parser.add_argument("--only", nargs="+", choices=(*LOMO_SETS, "aime25"))
    parser.add_argument("--grid", action="store_true", help="also compare the consensus rules of GRID")
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
    for name in args.only or [*LOMO_SETS, "aime25"]:
        report[name] = measure(name, raw, args.limit, args.seed, args.grid)
        shown = report[name].get("shipped", report[name])
        print(f"{name}: {json.dumps({k: v for k, v in shown.items() if k != 'per_voice'})}", flush=True)
        for row in report[name].get("grid", []):
            print(f"  {row['rule']}: {json.dumps({k: v for k, v in row.items() if k not in ('rule',)})}", flush=True)
    report["seconds"] = round(time.time() - start, 1)
    print(card_section(report))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if args.card:
        write_section(args.card, CARD_START, CARD_END, card_section(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
