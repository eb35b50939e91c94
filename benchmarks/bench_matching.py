"""Speed of node matching next to math-verify's answer check, on real trajectories.

    python benchmarks/bench_matching.py [--raw ../shared/data/raw] [--limit 800]

Data: the 100 MATH problems x 8 Qwen2.5-Math sampled solutions of
``qwen25math_math_cot_100/math_cot_100.jsonl``; each problem's nodes are built by the node
builder (rule-based miner + refine) from its reference solution alone. Prints, in one run:

1. ``match_nodes`` time per trajectory (CPU and wall, symbolic fallback on, the default);
2. math-verify's ``verify(parse(gold), parse(text))`` time on the same trajectories;
3. their ratio (target <= 0.25);
4. cost per character on trajectories 50x longer (each followed by 49 other solutions), to
   show the cost is linear in length;
5. scoring throughput (Acc + NCR + TPN) with 1 and 2 worker processes (target: close to 2x).
   Each worker overlaps its matching with math-verify in its own sandbox process, so one
   worker already keeps more than one core partly busy.

Measurements interleave the two checkers trajectory by trajectory so that machine load affects
both alike; CPU time (``process_time``) is the headline because this machine is shared.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def load(raw_dir: str, limit: int):
    from node_builder.pipeline import BuildConfig, build_record
    from node_builder.schema import Problem, Trajectory

    path = os.path.join(raw_dir, "qwen25math_math_cot_100", "math_cot_100.jsonl")
    items = []
    n_nodes = []
    for line in open(path, encoding="utf-8"):
        row = json.loads(line)
        responses = row["code"] if isinstance(row["code"], list) else ast.literal_eval(row["code"])
        problem = Problem(id=str(row["idx"]), benchmark="math", problem=row["question"], answer=row["answer"],
                          solution=row["solution"], trajectories=[Trajectory(row["solution"], "reference", True)])
        nodes = build_record(problem, BuildConfig())["nodes"]
        n_nodes.append(len(nodes))
        for text in responses:
            items.append((text, nodes, row["answer"]))
    return items[:limit], n_nodes


def timed(fn, *args):
    c0, w0 = time.process_time(), time.perf_counter()
    fn(*args)
    return time.process_time() - c0, time.perf_counter() - w0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", default=os.path.join(ROOT, "..", "shared", "data", "raw"))
    parser.add_argument("--limit", type=int, default=800)
    parser.add_argument("--long-factor", type=int, default=50)
    parser.add_argument("--long-count", type=int, default=40)
    args = parser.parse_args()

    from math_verify import parse, verify

    from consensus_metrics import match_nodes, warmup
    from consensus_metrics.batch import ScoringPool

    items, n_nodes = load(args.raw, args.limit)
    chars = statistics.mean(len(t) for t, _, _ in items)
    print(f"{len(items)} trajectories, mean {chars:.0f} characters; nodes per problem: mean "
          f"{statistics.mean(n_nodes):.1f}, problems with nodes {sum(1 for n in n_nodes if n)}/{len(n_nodes)}")
    warmup()
    for text, nodes, gold in items[:20]:  # warm caches of both sides
        match_nodes(text, nodes)
        verify(parse(f"${gold}$"), parse(text))

    from consensus_metrics import matching
    from consensus_metrics.normalize import _cached_tokens

    def clear_caches():
        _cached_tokens.cache_clear()
        matching._local.segments = None

    cold_cpu = []
    for text, nodes, _gold in items:  # cold: no sentence of the trajectory was tokenised before
        clear_caches()
        cold_cpu.append(timed(match_nodes, text, nodes)[0])
    # In order, as in a GRPO group or repeated sampling: the 8 samples of a problem come
    # together, so sentences an earlier sample shared are already tokenised.
    clear_caches()
    match_cpu, match_wall, mv_cpu, mv_wall = [], [], [], []
    for text, nodes, gold in items:
        c, w = timed(match_nodes, text, nodes)
        match_cpu.append(c)
        match_wall.append(w)
        c, w = timed(lambda: verify(parse(f"${gold}$"), parse(text)))
        mv_cpu.append(c)
        mv_wall.append(w)
    mean = statistics.mean
    print("\n== per trajectory (mean)")
    print(f"match_nodes, cold cache        CPU {1e3 * mean(cold_cpu):7.3f} ms")
    print(f"match_nodes, group order       CPU {1e3 * mean(match_cpu):7.3f} ms   wall {1e3 * mean(match_wall):7.3f} ms   "
          f"p95 wall {1e3 * sorted(match_wall)[int(0.95 * len(match_wall))]:.3f} ms")
    print(f"math-verify answer check       CPU {1e3 * mean(mv_cpu):7.3f} ms   wall {1e3 * mean(mv_wall):7.3f} ms")
    print(f"ratio match/math-verify: cold CPU {mean(cold_cpu) / mean(mv_cpu):.3f}, group-order CPU "
          f"{mean(match_cpu) / mean(mv_cpu):.3f}, group-order wall {mean(match_wall) / mean(mv_wall):.3f}   (target <= 0.25)")

    print(f"\n== linearity: {args.long_count} trajectories made {args.long_factor}x longer")
    # Each long text is the trajectory followed by the next (factor - 1) distinct trajectories
    # of other problems, caches cleared: a long, varied text, not a repeated one.
    short = items[: args.long_count]
    base_cpu = 0.0
    for t, n, _ in short:
        clear_caches()
        base_cpu += timed(match_nodes, t, n)[0]
    base_cpu /= sum(len(t) for t, _, _ in short)
    long_cpu, long_chars = 0.0, 0
    for i, (t, n, _) in enumerate(short):
        others = [items[(i * 8 + 8 * j) % len(items)][0] for j in range(1, args.long_factor)]
        long_text = "\n\n".join([t] + others)
        clear_caches()
        long_cpu += timed(lambda: match_nodes(long_text, n, budget_s=None))[0]
        long_chars += len(long_text)
    long_cpu /= long_chars
    print(f"CPU per 1k chars: normal {1e6 * base_cpu:.3f} ms, {args.long_factor}x longer {1e6 * long_cpu:.3f} ms "
          f"(ratio {long_cpu / base_cpu:.2f}; 1.0 = linear, below 1 = the extra text is mostly skipped)")

    print("\n== score_batch throughput (Acc + NCR + TPN, regex pre-tokens)")
    texts = [t for t, _, _ in items]
    nodes = [n for _, n, _ in items]
    golds = [g for _, _, g in items]
    # Fresh pools (processes + sandboxes started and warmed on other items), then one pass over
    # the measured items: no cache of either side has seen them.
    warm, measured = slice(len(texts) - 16, None), slice(0, len(texts) - 16)
    rates = {}
    for workers in (1, 2):
        with ScoringPool(workers=workers) as pool:
            pool.score(texts[warm], nodes[warm], golds[warm])
            t0 = time.perf_counter()
            pool.score(texts[measured], nodes[measured], golds[measured])
            rates[workers] = (len(texts) - 16) / (time.perf_counter() - t0)
    for workers, rate in rates.items():
        print(f"workers={workers}: {rate:7.1f} trajectories/s")
    print(f"speed-up with 2 workers: {rates[2] / rates[1]:.2f}x (2 cores; target close to 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
