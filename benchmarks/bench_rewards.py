"""Throughput of the ConsensusPR rewards on a batch like one real RL step, and the guard's cost to
honest text.

    python benchmarks/bench_rewards.py                      # 1,024 completions of ~4k tokens
    python benchmarks/bench_rewards.py --n 128 --tokens 1024 --workers 0,2 --modes outcome,linear

**Throughput.** A batch of ``--n`` completions, each ~``--tokens`` tokens (SmolLM2 tokenizer) long,
built from real solution text: the problem's own reference solution, padded in front with other
real solutions as "thinking" until the length is reached, and ending with a boxed answer that is
right for half of them. Nodes are the shipped nodes of the problem. For each reward mode and each
worker count the script times ``reward(completions=..., answer=..., nodes=...)`` on the whole
batch and prints seconds per batch, ms per completion and the mean reward. ``outcome/mv-only`` is
the math-verify-only outcome reward (no node matching); ``outcome`` also matches nodes to log ncr.

**Guard.** Every shipped record with a reference solution (and the honest-solution fixture) is
scored with the guard on and off: the number of honest texts whose NCR changes is printed, then
the NCR that typical attacks get with the guard off and on.

Data: ``lm_eval_tasks/consensusbench/data/*.jsonl`` (SPEC §2 records with ``solution`` and
``nodes``); while those are not built, the GSM8K-train test fixture.
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

DATA_DIR = ROOT / "lm_eval_tasks" / "consensusbench" / "data"
FIXTURES = ROOT / "tests" / "fixtures" / "train"


def load_records() -> list[dict]:
    """Shipped records with a solution (any split), else the fixture."""
    records = []
    files = sorted(DATA_DIR.glob("*.jsonl")) or [FIXTURES / "gsm8k_train_fixture.jsonl"]
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


def honest_fixture_texts() -> list[str]:
    return [json.loads(l)["text"] for l in (FIXTURES / "honest_solutions.jsonl").read_text().splitlines() if l]


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


def throughput(args, tokenizer, records):
    print(f"building {args.n} completions of ~{args.tokens} tokens from {len(records)} records ...", flush=True)
    completions, answers, nodes = build_batch(records, args.n, args.tokens, tokenizer)
    lengths = [len(tokenizer(c[0]["content"], add_special_tokens=False)["input_ids"]) for c in completions]
    chars = [len(c[0]["content"]) for c in completions]
    print(f"batch: {len(completions)} completions, tokens mean {statistics.mean(lengths):.0f} "
          f"(min {min(lengths)}, max {max(lengths)}), chars mean {statistics.mean(chars):.0f}, "
          f"nodes/problem mean {statistics.mean(len(n) for n in nodes):.1f}; CPU cores: {os.cpu_count()}")
    print(f"{'reward':<18}{'workers':>8}{'s/batch':>10}{'ms/compl':>10}{'mean':>8}")
    for mode in args.modes:
        for workers in args.workers:
            label = mode
            if mode == "outcome/mv-only":
                reward = consensus_reward("outcome", track_ncr=False, workers=workers)
            else:
                reward = consensus_reward(mode, workers=workers)
            seconds, rewards = time_reward(reward, completions, answers, nodes, args.repeats)
            print(f"{label:<18}{workers:>8}{seconds:>10.2f}{1000 * seconds / len(completions):>10.2f}"
                  f"{statistics.mean(rewards):>8.3f}", flush=True)


ATTACKS = {
    "list 0..5000": " ".join(str(i) for i in range(5001)),
    "x=0..299": ", ".join(f"x={i}" for i in range(300)),
    "maybe 0..999": " ".join(f"Maybe {i}." for i in range(1000)),
}


def guard_report(records):
    texts = [r["solution"] for r in records]
    nodes = [r["nodes"] for r in records]
    answers = [r["answer"] for r in records]
    t0 = time.perf_counter()
    on = score_completions(texts, answers, nodes, guard=GuardConfig())
    off = score_completions(texts, answers, nodes, guard=GuardConfig(enabled=False))
    changed = [(r, a, b) for r, a, b in zip(records, on, off) if a.ncr != b.ncr]
    fired = sum(1 for s in on if s.guard)
    defined = [(a.ncr, b.ncr) for a, b in zip(on, off) if b.ncr is not None]
    print(f"\nguard on honest reference solutions: {len(records)} records "
          f"({', '.join(sorted({r['_file'] for r in records}))}), {len(defined)} with nodes")
    if defined:
        print(f"  mean ncr guard off {statistics.mean(b for _, b in defined):.4f}, "
              f"guard on {statistics.mean(a for a, _ in defined):.4f}")
    print(f"  guard fired on {fired}, ncr changed on {len(changed)} ({time.perf_counter() - t0:.1f}s)")
    for rec, a, b in changed[:10]:
        print(f"    {rec.get('id')}: ncr {b.ncr} -> {a.ncr} ({a.guard})")
    honest = honest_fixture_texts()
    flagged = [s.guard for s in score_completions(honest, ["0"] * len(honest), [["1"]] * len(honest)) if s.guard]
    print(f"  honest-solution fixture (32 hardest of 8,800+): guard fired on {len(flagged)}")
    rec = max((r for r in records if r["nodes"]), key=lambda r: len(r["nodes"]), default=None)
    if rec is None:
        return
    print(f"\nattacks against {rec.get('id')} ({len(rec['nodes'])} nodes): ncr guard off -> on")
    pasted = " ; ".join(n["text"] for n in rec["nodes"])
    for name, text in {**ATTACKS, "pasted nodes": pasted}.items():
        a = score_completions([text], [rec["answer"]], [rec["nodes"]], guard=GuardConfig())[0]
        b = score_completions([text], [rec["answer"]], [rec["nodes"]], guard=GuardConfig(enabled=False))[0]
        print(f"  {name:<14} {b.ncr:.3f} -> {a.ncr:.3f} ({a.guard or 'not fired'})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1024, help="completions per batch")
    parser.add_argument("--tokens", type=int, default=4096, help="tokens per completion (SmolLM2 tokenizer)")
    parser.add_argument("--modes", default="outcome/mv-only,outcome,linear,max,cl")
    parser.add_argument("--workers", default="0,2", help="comma-separated worker counts (0 = in-process)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--tokenizer", default=None, help="tokenizer folder (default: the embedded SmolLM2)")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-guard", action="store_true")
    args = parser.parse_args(argv)
    args.modes = [m for m in args.modes.split(",") if m]
    args.workers = [int(w) for w in args.workers.split(",") if w]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    records = load_records()
    if not args.skip_throughput:
        from transformers import AutoTokenizer

        if args.tokenizer is None:
            from lm_eval_tasks.embedded_model import ensure_embedded_model

            args.tokenizer = str(ensure_embedded_model())
        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
        throughput(args, tokenizer, records)
    if not args.skip_guard:
        guard_report(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
