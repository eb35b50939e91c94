"""Speed of the ConsensusPR rewards on batches like real RL steps, where the time goes, and what
the reward-hacking guard costs honest text.

    python benchmarks/bench_rewards.py --raw RAW            # everything (about 13 minutes here)
    python benchmarks/bench_rewards.py --n 1024 --tokens 4096 --workers 0,2 --modes outcome/mv-only,linear
    python benchmarks/bench_rewards.py --raw RAW --skip-throughput --skip-long   # the guard's counts only

Sections (each can be skipped):

1. **Throughput.** A batch of ``--n`` completions, each ~``--tokens`` tokens (SmolLM2 tokenizer)
   long, built from real solution text: the problem's own reference solution, padded in front
   with other real solutions as "thinking" until the length is reached, and ending with a boxed
   answer that is right for half of them; nodes are the shipped nodes of the problem. For each
   reward mode and worker count: seconds per batch, ms per completion, the mean reward, and for
   every mode its time over ``outcome/mv-only`` (the math-verify-only reward) with the same
   workers -- the node reward's overhead in wall time, in this run.
2. **Where the time goes** (:mod:`reward_stages`): the same batch, stage by stage (guard,
   matching, pasting rule, math-verify), math-verify timed alternately with the node stages on
   the same completion, each stage's best of ``--profile-repeats`` passes (as in 3); the *node
   path* (guard + matching + pasting rule) over math-verify is the node reward's cost ratio. Then the reward's own code path end to end (scoring process +
   sandbox CPU).
3. **Long completions.** Real long-CoT traces (the staged Sky-T1 runs on AIME 2024 in
   ``--raw``), each cut to ``--long`` token lengths (default 4k, 16k, 32k: the same traces at
   every length), profiled stage by stage (each stage's best of ``--long-repeats`` passes);
   cost per 1k characters shows whether cost is linear in length (math-verify reads only the
   last 20k characters, so its cost does not grow).
4. **Guard.** Honest text scored with the guard on and off -- every shipped record with a
   reference solution, and every output of the staged model runs (``--raw``) that our own
   ``acc`` finds correct, with the shipped nodes of its problem (rules 1-2 alone where the
   problem is not shipped), plus the honest-solution fixture: the guard must fire on none.
   Then the attacks: the NCR they get with the guard off and on.

Data: the shipped files (``lm_eval_tasks/consensusbench/data/*.jsonl`` and
``training_recipes/data/gsm8k_train.jsonl``; while those are not built, the GSM8K-train test
fixture) and the raw data folder (``--raw RAW``; without it the
long traces and the staged runs' honest solutions are left out). Figures vary with the machine's load: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from training_recipes.data import normalise_nodes  # noqa: E402
from training_recipes.guards import GuardConfig  # noqa: E402
from training_recipes.rewards import consensus_reward  # noqa: E402
from training_recipes.scoring import score_completions  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reward_stages  # noqa: E402

#: The shipped data files: the four test sets and the GSM8K training split (node_builder.shipped).
DATA_FILES = [ROOT / "lm_eval_tasks" / "consensusbench" / "data" / f"{name}.jsonl"
              for name in ("aime24", "aime25", "gsm8k", "math500")] + [ROOT / "training_recipes" / "data" / "gsm8k_train.jsonl"]
FIXTURES = ROOT / "tests" / "fixtures" / "train"
#: The reward modes a run times unless ``--modes`` names others.
DEFAULT_MODES = ("outcome/mv-only", "outcome", "linear", "max", "cl")


def load_all_records() -> list[dict]:
    """Every shipped record (any split; nodes normalised), else the fixture's."""
    records = []
    files = [path for path in DATA_FILES if path.is_file()] or [FIXTURES / "gsm8k_train_fixture.jsonl"]
    for path in files:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    if row.get("solution"):
                        # GSM8K's <<a*b=c>> calculator annotations are not part of the prose
                        row["solution"] = re.sub(r"<<[^<>]*>>", "", row["solution"])
                    row["nodes"] = normalise_nodes(row.get("nodes"), str(path))
                    row["_file"] = path.name
                    records.append(row)
    return records


def load_records() -> list[dict]:
    """Shipped records with a reference solution (any split), else the fixture's."""
    return [r for r in load_all_records() if r.get("solution")]


def honest_fixture_texts() -> list[str]:
    return [json.loads(l)["text"] for l in (FIXTURES / "honest_solutions.jsonl").read_text(encoding="utf-8").split("\n") if l]


def build_batch(records, n: int, tokens: int, tokenizer, seed: int = 0):
    """``n`` completions of ~``tokens`` tokens from real solution text (see the module docstring)."""
    rng = random.Random(seed)
    with_nodes = [r for r in records if r["nodes"]] or records
    filler_pool = [r["solution"] for r in records] + honest_fixture_texts()
    completions, answers, nodes = [], [], []
    for i in range(n):
        rec = rng.choice(with_nodes)
        final = f"\n\nThe answer is \\boxed{{{rec['answer'] if i % 2 == 0 else rec['answer'] + '1'}}}."
        core = rec["solution"] + final
        parts, length = [], len(tokenizer(core, add_special_tokens=False)["input_ids"])
        while length < tokens:
            piece = rng.choice(filler_pool)
            parts.append(piece)
            length += len(tokenizer(piece, add_special_tokens=False)["input_ids"])
        completions.append([{"role": "assistant", "content": "\n\n".join(parts + [core])}])
        answers.append(rec["answer"])
        nodes.append(rec["nodes"])
    return completions, answers, nodes


def time_reward(reward, completions, answers, nodes, repeats: int = 1):
    if reward.workers > 1:  # start and warm the persistent pool outside the timing, as in training
        reward(completions=completions[:2 * reward.workers], answer=answers[:2 * reward.workers],
               nodes=nodes[:2 * reward.workers])
    best, rewards = None, None
    for _ in range(repeats):
        start = time.perf_counter()
        rewards = reward(completions=completions, answer=answers, nodes=nodes)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, rewards


def prepare_problems(answers, nodes, workers) -> None:
    """Before any timing: measure what a problem costs once per process (parsing its gold answer,
    preparing its node forms), then have every scoring process do it for the batch's problems.

    A process keeps both (LRU caches), so in a GRPO step only a group's first completion pays
    for them; without this, whichever reward mode ran first would pay for every problem of this
    batch (one problem per completion) and the later modes for none."""
    from consensus_metrics.answer import _parse_gold
    from consensus_metrics.matching import match_nodes_ex

    problems = {}
    for answer, problem_nodes in zip(answers, nodes):
        problems.setdefault((answer, json.dumps(problem_nodes, sort_keys=True)), (answer, problem_nodes))
    _parse_gold("1/2")
    match_nodes_ex("", ["x = 1"], symbolic=False)
    c0 = time.process_time()
    for answer, _ in problems.values():
        _parse_gold(answer)
    c1 = time.process_time()
    for _, problem_nodes in problems.values():
        match_nodes_ex("", problem_nodes, symbolic=False)  # forms, anchors, relations: no text
    c2 = time.process_time()
    print(f"once per problem and process ({len(problems)} problems): parsing the gold "
          f"{1e3 * (c1 - c0) / len(problems):.3f} ms, "
          f"preparing the nodes {1e3 * (c2 - c1) / len(problems):.3f} ms (CPU; done by every process before the timing "
          "below, as for the later completions of a GRPO group)")
    dummies = ["\\boxed{0}"] * len(answers)
    for count in workers:
        reward = consensus_reward("linear", workers=count)
        for _ in range(2 if count > 1 else 1):  # a pool's workers share the batch's problems at random
            reward(completions=dummies, answer=answers, nodes=nodes)


def throughput(args, completions, answers, nodes) -> dict:
    """Seconds per batch for each mode and worker count (printed as a table; the best of
    ``--repeats`` rounds, each round timing every mode and worker count once, so that a change
    in the machine's load hits all of them), with each mode's time over ``outcome/mv-only`` at
    the same worker count."""
    rewards_of = {}
    for mode in args.modes:
        for workers in args.workers:
            if mode == "outcome/mv-only":
                rewards_of[mode, workers] = consensus_reward("outcome", track_ncr=False, workers=workers)
            else:
                rewards_of[mode, workers] = consensus_reward(mode, workers=workers)
            if mode == "cl":  # the curriculum needs a training clock (TRL passes trainer_state); both
                rewards_of[mode, workers].set_clock(epoch=0.0)  # phases score acc and NCR alike
    times: dict = {key: [] for key in rewards_of}
    results = {}
    for _ in range(args.repeats):
        for key, reward in rewards_of.items():
            elapsed, results[key] = time_reward(reward, completions, answers, nodes, 1)
            times[key].append(elapsed)
    print(f"{'reward':<18}{'workers':>8}{'s/batch':>10}{'ms/compl':>10}{'mean':>8}{'timed out':>11}"
          f"   {'all rounds (s)' if args.repeats > 1 else ''}")
    seconds = {}
    for (mode, workers), rewards in results.items():
        seconds[mode, workers] = min(times[mode, workers])
        scored = [r for r in rewards if r is not None]  # None: out of the time budget
        rounds = ", ".join(f"{t:.2f}" for t in times[mode, workers]) if args.repeats > 1 else ""
        print(f"{mode:<18}{workers:>8}{seconds[mode, workers]:>10.2f}"
              f"{1000 * seconds[mode, workers] / len(completions):>10.2f}"
              f"{statistics.mean(scored) if scored else float('nan'):>8.3f}{len(rewards) - len(scored):>11}   {rounds}",
              flush=True)
    for workers in args.workers:
        base = seconds.get(("outcome/mv-only", workers))
        if base:
            rows = [f"{mode} {seconds[mode, workers] / base - 1:+.2f}" for mode in args.modes
                    if mode != "outcome/mv-only" and (mode, workers) in seconds]
            if rows:
                print(f"node reward overhead over outcome/mv-only, {workers} workers (wall): {', '.join(rows)}")
    if ("linear", 2) in seconds:
        print(f"target: linear with 2 workers <= 2.0 s -> {seconds['linear', 2]:.2f} s")
    return seconds


def profile(items, label: str, repeats: int = 1) -> tuple[float, dict]:
    """Print the stage table of :func:`reward_stages.stage_profile` for ``items`` (text caches
    cleared first: no sentence of them was tokenised before); return the node path's CPU over
    math-verify's, and the totals. With ``repeats`` > 1 each stage's figure is its lowest of
    that many passes (a load spike of the shared machine then shows in none)."""
    totals = None
    for _ in range(repeats):
        reward_stages.clear_text_caches()
        run = reward_stages.stage_profile(items)
        totals = run if totals is None else {k: [min(a, b) for a, b in zip(totals[k], run[k])] for k in run}
    chars = statistics.mean(len(t) for t, _, _ in items)
    best = f", each stage's best of {repeats} passes" if repeats > 1 else ""
    print(f"\n{label}: {len(items)} completions, mean {chars:.0f} characters; per completion, CPU time "
          f"(math-verify timed alternately with the node stages on the same text{best}):")
    return reward_stages.print_profile(totals, len(items), chars), totals


ATTACKS = {
    "list 0..5000": " ".join(str(i) for i in range(5001)),
    "x=0..299": ", ".join(f"x={i}" for i in range(300)),
    "maybe 0..999": " ".join(f"Maybe {i}." for i in range(1000)),
}


def _fired(texts, answers, nodes) -> list[tuple[float | None, float | None, str]]:
    """``(ncr guard off, ncr guard on, rule fired)`` per honest text; texts without nodes go
    through rules 1-2 alone (the reward runs no guard where there is no node credit)."""
    from training_recipes.guards import inspect_completion

    out = [None] * len(texts)
    with_nodes = [i for i, n in enumerate(nodes) if n]
    on = score_completions([texts[i] for i in with_nodes], [answers[i] for i in with_nodes],
                           [nodes[i] for i in with_nodes], guard=GuardConfig(), budget_s=10.0)
    off = score_completions([texts[i] for i in with_nodes], [answers[i] for i in with_nodes],
                            [nodes[i] for i in with_nodes], guard=GuardConfig(enabled=False), budget_s=10.0)
    for i, a, b in zip(with_nodes, on, off):
        out[i] = (b.ncr, a.ncr, a.guard)
    config = GuardConfig()
    for i, n in enumerate(nodes):
        if not n:
            report = inspect_completion(texts[i], config)
            rule = "number_spam" if report.number_spam else "number_list" if report.redacted_spans else ""
            out[i] = (None, None, rule)
    return out


def guard_report(args, records, all_records) -> None:
    import staged_runs

    t0 = time.perf_counter()
    corpora = [("shipped reference solutions",
                [(r["solution"], r["answer"], r["nodes"], r.get("id")) for r in records])]
    raw = Path(args.raw) if args.raw else None
    if raw is None:
        print("\n(no --raw RAW: the staged model runs' correct solutions are not read)")
    elif (raw / "trajectories").is_dir() or (raw / "qwen25math_math_cot_100").is_dir():
        runs = [(text, gold, record["nodes"] if record else [], f"{name}: {record['id'] if record else 'unshipped'}")
                for name, record, gold, text in staged_runs.correct_solutions(raw, all_records)]
        corpora.append(("staged model runs, correct by our acc", runs))
    fixture = honest_fixture_texts()
    corpora.append(("honest-solution fixture (32 hardest of 8,800+)", [(t, "0", [], "fixture") for t in fixture]))
    print(f"\nguard on honest text (fired = any rule; with nodes: scored by the reward with the guard on and off)")
    total = fired_total = 0
    for name, rows in corpora:
        results = _fired([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
        fired = [(row, res) for row, res in zip(rows, results) if res[2]]
        changed = sum(1 for res in results if res[0] is not None and res[0] != res[1])
        defined = [(res[0], res[1]) for res in results if res[0] is not None]
        ncr = (f"; mean ncr guard off {statistics.mean(a for a, _ in defined):.4f}, on "
               f"{statistics.mean(b for _, b in defined):.4f}") if defined else ""
        print(f"  {name}: {len(rows)} texts ({len(defined)} with nodes), guard fired on {len(fired)}, "
              f"ncr changed on {changed}{ncr}")
        if changed > sum(1 for _, res in fired if res[0] is not None and res[0] != res[1]):
            print("    (an ncr change without a rule firing: a time-bounded symbolic check decided differently)")
        for row, res in fired[:10]:
            print(f"    {row[3]}: ncr {res[0]} -> {res[1]} ({res[2]})")
        total += len(rows)
        fired_total += len(fired)
    print(f"honest false alarms: {fired_total} of {total} honest texts ({time.perf_counter() - t0:.0f} s)")
    rec = max((r for r in records if r["nodes"]), key=lambda r: len(r["nodes"]), default=None)
    if rec is None:
        return
    print(f"\nattacks against {rec.get('id')} ({len(rec['nodes'])} nodes; no right answer): ncr guard off -> on")
    pasted = " ; ".join(n["text"] for n in rec["nodes"])
    stopped = working = 0
    attacks = {**ATTACKS, "pasted nodes": pasted}
    for name, text in attacks.items():  # a long budget: unguarded, a list is one long sentence to tokenise
        a = score_completions([text], [rec["answer"]], [rec["nodes"]], guard=GuardConfig(), budget_s=10.0)[0]
        b = score_completions([text], [rec["answer"]], [rec["nodes"]], guard=GuardConfig(enabled=False),
                              budget_s=10.0)[0]
        working += bool(b.ncr)
        stopped += bool(b.ncr) and not a.ncr
        print(f"  {name:<14} {b.ncr:.3f} -> {a.ncr:.3f} ({a.guard or 'not fired'})")
    print(f"attacks stopped: {stopped} of the {working} that earn node credit without the guard"
          + (f" ({len(attacks) - working} earn none even unguarded: these nodes are not credited that way)"
             if working < len(attacks) else ""))


def main(argv=None) -> int:
    """Parse the options and print each section in turn (a script's table of contents: long, flat)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1024, help="completions per batch")
    parser.add_argument("--tokens", type=int, default=4096, help="tokens per completion (SmolLM2 tokenizer)")
    parser.add_argument("--modes", default=",".join(DEFAULT_MODES))
    parser.add_argument("--workers", default="0,2", help="comma-separated worker counts (0 = in-process)")
    parser.add_argument("--repeats", type=int, default=3, help="throughput rounds (the best counts)")
    parser.add_argument("--tokenizer", default=None, help="tokenizer folder (default: the embedded SmolLM2)")
    parser.add_argument("--raw", default=None,
                        help="raw sources folder (node_builder/README.md, 'Raw sources'): the staged model runs' "
                             "long traces and honest solutions; without it the long-trace section is skipped "
                             "and the guard reads the shipped references and the fixture only")
    parser.add_argument("--long", default="4096,16384,32768", help="token lengths of the long-trace settings")
    parser.add_argument("--long-n", type=int, default=48, help="long traces per setting")
    parser.add_argument("--profile-repeats", type=int, default=3,
                        help="passes over the batch in 'where the time goes' (each stage's best)")
    parser.add_argument("--long-repeats", type=int, default=3, help="passes per long setting (each stage's best)")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-profile", action="store_true")
    parser.add_argument("--skip-long", action="store_true")
    parser.add_argument("--skip-guard", action="store_true")
    args = parser.parse_args(argv)
    args.modes = [m for m in args.modes.split(",") if m]
    args.workers = [int(w) for w in args.workers.split(",") if w]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from consensus_metrics._native import COMPILED, native_modules

    compiled = native_modules()
    print(f"build: compiled (Cython) {', '.join(compiled) or 'nothing'}; from source "
          f"{', '.join(n for n in COMPILED if n not in compiled) or 'nothing'}; CPU cores: {os.cpu_count()}; "
          f"load average {os.getloadavg()[0]:.1f}")
    all_records = load_all_records()
    records = [r for r in all_records if r.get("solution")]
    tokenizer = None
    if not (args.skip_throughput and args.skip_profile and args.skip_long):
        from transformers import AutoTokenizer

        if args.tokenizer is None:
            from models.embedded_model import ensure_embedded_model

            args.tokenizer = str(ensure_embedded_model())
        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    if not (args.skip_throughput and args.skip_profile):
        print(f"building {args.n} completions of ~{args.tokens} tokens from {len(records)} records ...", flush=True)
        completions, answers, nodes = build_batch(records, args.n, args.tokens, tokenizer)
        texts = [c[0]["content"] for c in completions]
        lengths = [len(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts]
        print(f"batch: {len(texts)} completions, tokens mean {statistics.mean(lengths):.0f} (min {min(lengths)}, "
              f"max {max(lengths)}), chars mean {statistics.mean(map(len, texts)):.0f}, nodes/problem mean "
              f"{statistics.mean(len(n) for n in nodes):.1f}")
        prepare_problems(answers, nodes, args.workers if not args.skip_throughput else [0])
        if not args.skip_throughput:
            throughput(args, completions, answers, nodes)
        if not args.skip_profile:
            ratio, _ = profile(list(zip(texts, nodes, answers)), f"where the time goes, batch of ~{args.tokens} tokens",
                               args.profile_repeats)
            print(f"node path / math-verify: {ratio:.3f} (target <= 0.35)")
            cpu = reward_stages.reward_cpu(list(zip(texts, nodes, answers)))
            if cpu:
                print(f"the reward's own path, scoring process + sandbox CPU per completion: math-verify only "
                      f"{1e3 * cpu['mv-only']:.3f} ms, with nodes {1e3 * cpu['nodes']:.3f} ms "
                      f"(overhead {cpu['nodes'] / cpu['mv-only'] - 1:+.3f})")
    if not args.skip_long and args.raw is None:
        print("\nlong completions: skipped (no --raw RAW: the long traces are the raw sources' staged runs)")
    elif not args.skip_long:
        import staged_runs

        lengths = sorted(int(x) for x in args.long.split(",") if x)
        print(f"\nlong completions: the {args.long_n} longest staged AIME 2024 outputs of the raw folder (--raw), each cut to "
              f"{', '.join(map(str, lengths))} tokens ...", flush=True)
        settings = staged_runs.long_traces(Path(args.raw), all_records, tokenizer, lengths, args.long_n)
        costs = {}
        for n_tokens in lengths:
            items = settings[n_tokens]
            if not items:
                print(f"  no staged output holds {n_tokens} tokens")
                continue
            _, totals = profile(items, f"{n_tokens}-token heads of real long traces", args.long_repeats)
            costs[n_tokens] = (totals, sum(len(t) for t, _, _ in items))
        print_linearity(costs)
    if not args.skip_guard:
        guard_report(args, records, all_records)
    return 0


def print_linearity(costs: dict) -> None:
    """CPU cost per 1k characters of each stage at each length, relative to the shortest
    (``costs``: ``{tokens: (stage totals, characters)}``; 1.0 = linear in length)."""
    if len(costs) < 2:
        return
    stages = (*reward_stages.NODE_PATH, "math-verify")

    def per_kchar(n_tokens):
        totals, chars = costs[n_tokens]
        node = sum(totals[s][0] for s in reward_stages.NODE_PATH)
        return [1e6 * node / (chars / 1000)] + [1e6 * totals[s][0] / (chars / 1000) for s in stages]

    first = per_kchar(min(costs))
    print("\ncost per 1k characters (CPU µs), and relative to the shortest setting (1.00 = linear in length):")
    print(f"  {'tokens':>6}  " + "".join(f"{name:>22}" for name in ("node path", *stages)))
    for n_tokens in costs:
        row = per_kchar(n_tokens)
        print(f"  {n_tokens:>6}  " + "".join(f"{v:>14.1f} ({v / f:4.2f})" if f else f"{v:>22.1f}"
                                            for v, f in zip(row, first)))


if __name__ == "__main__":
    sys.exit(main())
