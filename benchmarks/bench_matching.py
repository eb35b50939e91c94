"""Speed of node matching next to math-verify's answer check, on real trajectories.

    python benchmarks/bench_matching.py --raw RAW [--limit 800]      # RAW: node_builder/README.md, 'Raw sources'

Data: the 100 MATH problems x 8 Qwen2.5-Math sampled solutions of
``qwen25math_math_cot_100/math_cot_100.jsonl``; each problem's nodes are built by the node
builder (rule-based miner + refine) from its reference solution alone. Prints, in one run:

1. ``match_nodes`` time per trajectory (CPU and wall, symbolic fallback on, the default) and
   math-verify's ``verify(parse(gold), parse(text))`` on the same text right after it, in two
   settings, each in a fresh process where neither checker has seen the texts: *cold* (every
   trajectory's text caches cleared) and *group order* (the 8 samples of a problem in a row, as
   in a GRPO group: sentences an earlier sample shared are already tokenised). In both, each
   problem's first sample pays for preparing its node forms, as math-verify's pays for parsing
   the gold;
2. /3. their ratio (target <= 0.25);
4. cost per character on trajectories 50x longer (each followed by 49 other solutions), to
   show the cost is linear in length;
5. scoring throughput (Acc + NCR + TPN) with 1 and 2 worker processes (target: close to 2x),
   with the cores the machine kept busy meanwhile (medians of ``--pool-repeats`` fresh pools
   each, 1- and 2-worker pools alternating). Each worker overlaps its matching with math-verify
   in its own sandbox process, so one worker already keeps more than one core busy.

Rows 1-3 run the installed build (compiled where ``setup.py`` could compile the hot path, see
``consensus_metrics/_native.py``) and, for reference, the pure-Python sources
(``CONSENSUS_PURE_PYTHON=1``).

Measurements interleave the two checkers trajectory by trajectory so that machine load affects
both alike; CPU time (``process_time``) is the headline because this machine is shared.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
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


WARM = 16  # the last two problems' samples warm both checkers up; the rest is measured


def clear_text_caches():
    """Forget every tokenised sentence and every exact value computed (node forms stay prepared)."""
    from consensus_metrics import surds, text_index
    from consensus_metrics.normalize import _cached_tokens

    _cached_tokens.cache_clear()
    text_index._local.segments = None
    surds._VALUES.clear()


def measure_phase(items, phase: str) -> dict:
    """Time both checkers on every measured trajectory, each right after the other on the same
    text, in a process where neither has seen these texts (called in a fresh subprocess).

    ``cold``: every trajectory's text caches are cleared first, so no sentence of it was
    tokenised before (a problem's node forms are still prepared only on its first trajectory);
    ``group``: the 8 samples of a problem in a row, as in a GRPO group, sentences an earlier
    sample shared already tokenised. In both, each problem's first sample pays for preparing its
    node forms here and for parsing the gold in math-verify (cached after that)."""
    from math_verify import parse, verify

    from consensus_metrics import match_nodes, warmup

    warmup()
    for text, nodes, gold in items[-WARM:]:
        match_nodes(text, nodes)
        verify(parse(f"${gold}$"), parse(text))
    out = {"match_cpu": [], "match_wall": [], "mv_cpu": [], "mv_wall": []}
    for text, nodes, gold in items[:-WARM]:
        if phase == "cold":
            clear_text_caches()
        c, w = timed(match_nodes, text, nodes)
        out["match_cpu"].append(c)
        out["match_wall"].append(w)
        c, w = timed(lambda: verify(parse(f"${gold}$"), parse(text)))
        out["mv_cpu"].append(c)
        out["mv_wall"].append(w)
    return out


def run_phase(args, phase: str, pure: bool = False) -> dict:
    """:func:`measure_phase` in a fresh Python process (no cache of either checker is warm);
    ``pure``: with the pure-Python sources instead of the compiled build."""
    cmd = [sys.executable, os.path.abspath(__file__), "--raw", args.raw, "--limit", str(args.limit), "--phase", phase]
    env = dict(os.environ, CONSENSUS_PURE_PYTHON="1" if pure else "0")
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def busy_jiffies() -> int | None:
    """CPU time the whole machine has spent busy (Linux ``/proc/stat``, clock ticks), or None."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = [int(x) for x in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return sum(fields) - fields[3] - (fields[4] if len(fields) > 4 else 0)  # all but idle and iowait


def main() -> int:
    """Parse the options and print each section in turn (a script's table of contents: long, flat)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", required=True, help="the raw sources folder (layout: node_builder/README.md, 'Raw sources')")
    parser.add_argument("--limit", type=int, default=800)
    parser.add_argument("--long-factor", type=int, default=50)
    parser.add_argument("--long-count", type=int, default=40)
    parser.add_argument("--pool-repeats", type=int, default=3, help="fresh pools per worker count (throughput)")
    parser.add_argument("--phase", choices=("cold", "group"), help=argparse.SUPPRESS)  # internal: one fresh-process phase
    args = parser.parse_args()

    items, n_nodes = load(args.raw, args.limit)
    if args.phase:
        print(json.dumps(measure_phase(items, args.phase)))
        return 0

    from consensus_metrics import match_nodes, warmup
    from consensus_metrics._native import COMPILED, native_modules
    from consensus_metrics.batch import ScoringPool

    compiled = native_modules()
    from_source = [name for name in COMPILED if name not in compiled]
    print(f"build: compiled (Cython) {', '.join(compiled) or 'nothing'}; from source {', '.join(from_source) or 'nothing'}")
    chars = statistics.mean(len(t) for t, _, _ in items)
    print(f"{len(items)} trajectories, mean {chars:.0f} characters; nodes per problem: mean "
          f"{statistics.mean(n_nodes):.1f}, problems with nodes {sum(1 for n in n_nodes if n)}/{len(n_nodes)}")
    mean = statistics.mean
    print(f"\n== per trajectory (mean over {len(items) - WARM}; each checker timed right after the other on the same "
          "text, a fresh process per row)")
    rows = [("cold", False, "cold       "), ("group", False, "group order")]
    if compiled:
        rows += [("cold", True, "cold, pure Python source "), ("group", True, "group order, pure Python source")]
    for phase, pure, label in rows:
        r = run_phase(args, phase, pure)
        print(f"{label}  match_nodes CPU {1e3 * mean(r['match_cpu']):6.3f} ms, wall {1e3 * mean(r['match_wall']):6.3f} ms "
              f"(p95 {1e3 * sorted(r['match_wall'])[int(0.95 * len(r['match_wall']))]:.3f})   "
              f"math-verify CPU {1e3 * mean(r['mv_cpu']):6.3f} ms, wall {1e3 * mean(r['mv_wall']):6.3f} ms   "
              f"ratio CPU {mean(r['match_cpu']) / mean(r['mv_cpu']):.3f}, wall {mean(r['match_wall']) / mean(r['mv_wall']):.3f}")
    print("target: ratio <= 0.25 (match_nodes wall time includes symbolic checks waiting on the sandbox process)")

    warmup()
    print(f"\n== linearity: {args.long_count} trajectories made {args.long_factor}x longer")
    # Each long text is the trajectory followed by the next (factor - 1) distinct trajectories
    # of other problems, caches cleared: a long, varied text, not a repeated one.
    short = items[: args.long_count]
    base_cpu = 0.0
    for t, n, _ in short:
        clear_text_caches()
        base_cpu += timed(match_nodes, t, n)[0]
    base_cpu /= sum(len(t) for t, _, _ in short)
    long_cpu, long_chars = 0.0, 0
    for i, (t, n, _) in enumerate(short):
        others = [items[(i * 8 + 8 * j) % len(items)][0] for j in range(1, args.long_factor)]
        long_text = "\n\n".join([t] + others)
        clear_text_caches()
        long_cpu += timed(lambda: match_nodes(long_text, n, budget_s=None))[0]
        long_chars += len(long_text)
    long_cpu /= long_chars
    print(f"CPU per 1k chars: normal {1e6 * base_cpu:.3f} ms, {args.long_factor}x longer {1e6 * long_cpu:.3f} ms "
          f"(ratio {long_cpu / base_cpu:.2f}; 1.0 = linear, below 1 = the extra text is mostly skipped)")

    print(f"\n== score_batch throughput (Acc + NCR + TPN, regex pre-tokens; {args.pool_repeats} fresh pools "
          "per worker count, alternating; medians)")
    texts = [t for t, _, _ in items]
    nodes = [n for _, n, _ in items]
    golds = [g for _, _, g in items]
    # Each pool is fresh (processes + sandboxes started and warmed on other items) and makes one
    # pass over the measured items: no cache of either side has seen them. 1- and 2-worker pools
    # alternate, so that a change in the machine's load hits both.
    warm, measured = slice(len(texts) - 16, None), slice(0, len(texts) - 16)
    rates: dict[int, list[float]] = {1: [], 2: []}
    busy: dict[int, list[float]] = {1: [], 2: []}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for _ in range(args.pool_repeats):
        for workers in (1, 2):
            with ScoringPool(workers=workers) as pool:
                pool.score(texts[warm], nodes[warm], golds[warm])
                j0, t0 = busy_jiffies(), time.perf_counter()
                pool.score(texts[measured], nodes[measured], golds[measured])
                elapsed, j1 = time.perf_counter() - t0, busy_jiffies()
            rates[workers].append((len(texts) - 16) / elapsed)
            if j0 is not None and j1 is not None:
                busy[workers].append((j1 - j0) / tick / elapsed)
    median = statistics.median
    cores = os.cpu_count()
    for workers, rate in rates.items():
        used = f", machine {median(busy[workers]):.2f} of {cores} cores busy" if busy[workers] else ""
        print(f"workers={workers}: {median(rate):7.1f} trajectories/s (runs {', '.join(f'{r:.0f}' for r in rate)}){used}")
    speedups = [two / one for one, two in zip(rates[1], rates[2])]
    print(f"speed-up with 2 workers: {median(speedups):.2f}x (per pair {', '.join(f'{x:.2f}' for x in speedups)}; "
          f"{cores} cores; target close to 2x)")
    if busy[1] and busy[2]:
        per_core = {w: median(r / b for r, b in zip(rates[w], busy[w])) for w in (1, 2)}
        print(f"per busy core: {per_core[1]:.0f} vs {per_core[2]:.0f} trajectories/s: 2 workers use the cores they "
              f"get at {per_core[2] / per_core[1]:.0%} of one worker's efficiency")
    return 0


if __name__ == "__main__":
    sys.exit(main())
