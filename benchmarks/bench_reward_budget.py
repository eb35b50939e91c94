"""Does the reward's time budget hold? Wall time of scoring one completion (guard, scoring and the
node-pasting rule together) on hostile and 1 MB completions, against ``budget_s``.

    python benchmarks/bench_reward_budget.py                  # budgets 0.2 and 1.0 s, in-process
    python benchmarks/bench_reward_budget.py --budgets 0.5 --repeats 3 --workers 2

For each budget and each text the script calls ``score_completions([text], ...)`` — what one
completion costs inside ``ConsensusReward`` — ``--repeats`` times and prints the slowest wall
time, its ratio to the budget, the overrun (seconds past the budget, 0 when within it), whether
the completion was marked timed out (reward ``None``) and how many times the call killed the
sandbox worker (an answer check past its deadline). The last lines give the largest overrun per
budget -- the "small constant" the budget may be exceeded by -- and the cost of restarting a
killed worker: as everywhere in ``consensus_metrics``, starting the sandbox is not charged to a
budget (it is paid once, by the next call, before its clock starts), so the benchmark restarts it
before each timed call and reports it on its own line.

With ``--workers N`` the same texts are scored as one batch in the persistent pool of N processes
(each text still has its own budget); the batch time over the number of texts must stay below
budget + constant as well.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from training_recipes.guards import GuardConfig  # noqa: E402
from training_recipes.scoring import score_completions  # noqa: E402

MB = 1_000_000
NODES = [{"id": "n1", "text": "16 - 3 - 4 = 9", "kind": "equation"},
         {"id": "n2", "text": "9 * 2 = 18", "kind": "equation"},
         {"id": "n3", "text": "12", "kind": "value", "value": "12"},
         {"id": "n4", "text": "2x + 1 = 7", "kind": "equation"},
         {"id": "n5", "text": "x = 3", "kind": "equation"}]
ANSWER = "18"
PROSE = ("Janet's ducks lay 16 eggs per day. She eats three and bakes with four, so she sells "
         "16 - 3 - 4 = 9 eggs. At $2 each she makes 9 * 2 = 18 dollars every day. ")


def _fill(piece: str, size: int = MB) -> str:
    return (piece * (size // len(piece) + 1))[:size]


def texts() -> dict[str, str]:
    """Hostile and large completions, each a few characters to 1 MB long."""
    pasted = " ; ".join(n["text"] for n in NODES) + " ; "
    return {
        "exponent tower": "so the answer is $\\boxed{9^{9^{9^{9^{9}}}}}$",
        "huge factorial": "answer \\boxed{100000!} and \\boxed{(10^{100})!}",
        "1 MB prose": _fill(PROSE) + " \\boxed{18}",
        "1 MB number list": " ".join(str(i) for i in range(200_000))[:MB],
        "1 MB x=i list": ", ".join(f"x={i}" for i in range(150_000))[:MB],
        # a wrong answer: the node-pasting rule judges only those, so it runs on these two
        "1 MB pasted nodes": _fill(pasted) + " \\boxed{17}",
        "1 MB half pasted": _fill(pasted + PROSE) + " \\boxed{17}",
        "1 MB equations": "\n".join(f"{i} + {i} = {2 * i}" for i in range(80_000))[:MB],
        "1 MB one number": "9" * MB,
        "1 MB braces": "{" * (MB // 2) + "}" * (MB // 2),
        "1 MB unclosed boxed": "\\boxed{" + _fill("1+", MB),
        "1 MB boxed answers": _fill("\\boxed{18} "),
        "1 MB latex soup": _fill("&= \\frac{\\partial}{\\partial x} \\\\ "),
        "1 MB spaces": " " * MB,
    }


def time_inline(text: str, budget: float, repeats: int) -> tuple[float, bool, int, float]:
    """Slowest of ``repeats`` calls, whether one timed out, how many sandbox kills the calls
    caused, and the slowest sandbox restart that followed a kill."""
    from consensus_metrics import sandbox

    worst, timed_out, kills, restart = 0.0, False, 0, 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        sandbox.warmup()  # restart a worker an earlier call killed: paid once, charged to no budget
        restart = max(restart, time.perf_counter() - start)
        before = sandbox.kills()
        start = time.perf_counter()
        score = score_completions([text], [ANSWER], [NODES], guard=GuardConfig(), budget_s=budget)[0]
        worst = max(worst, time.perf_counter() - start)
        timed_out = timed_out or score.timed_out
        kills += sandbox.kills() - before
    return worst, timed_out, kills, restart


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", default="0.2,1.0", help="comma-separated budgets in seconds")
    parser.add_argument("--repeats", type=int, default=2, help="calls per text (the slowest counts)")
    parser.add_argument("--workers", type=int, default=0, help="also score all texts as one pooled batch")
    args = parser.parse_args(argv)
    budgets = [float(b) for b in args.budgets.split(",") if b]
    import consensus_metrics

    consensus_metrics.warmup()
    score_completions(["x = 1, so \\boxed{1}"], ["1"], [NODES], budget_s=None)  # imports, caches
    cases = texts()
    width = max(map(len, cases)) + 2
    print(f"{'text':<{width}}{'chars':>9}{'budget s':>10}{'wall s':>9}{'ratio':>7}{'over s':>8}  timed out  kills")
    worst: dict[float, tuple[float, str]] = {}
    restarts, restart_s = 0, 0.0
    for budget in budgets:
        for name, text in cases.items():
            seconds, timed_out, kills, restart = time_inline(text, budget, args.repeats)
            restart_s = max(restart_s, restart) if restarts else restart_s
            restarts += kills
            over = max(0.0, seconds - budget)
            if over >= worst.get(budget, (-1.0, ""))[0]:
                worst[budget] = (over, name)
            print(f"{name:<{width}}{len(text):>9}{budget:>10.2f}{seconds:>9.3f}{seconds / budget:>7.2f}"
                  f"{over:>8.3f}  {'yes' if timed_out else 'no':<9}  {kills}", flush=True)
    for budget, (over, name) in worst.items():
        print(f"budget {budget:.2f} s: largest overrun {over:.3f} s ({name})")
    if restarts:
        from consensus_metrics import sandbox

        start = time.perf_counter()
        sandbox.warmup()
        restart_s = max(restart_s, time.perf_counter() - start)
        print(f"sandbox kills: {restarts} (an answer check past its deadline); each costs one worker restart of "
              f"at most {restart_s:.3f} s, paid by the next call before its clock starts")
    if args.workers > 1:
        for budget in budgets:
            batch = list(cases.values())
            score_completions(batch[:2], [ANSWER] * 2, [NODES] * 2, budget_s=budget, workers=args.workers)
            start = time.perf_counter()
            score_completions(batch, [ANSWER] * len(batch), [NODES] * len(batch), budget_s=budget,
                              workers=args.workers)
            seconds = time.perf_counter() - start
            print(f"pooled, {args.workers} workers, budget {budget:.2f} s: {len(batch)} texts in {seconds:.2f} s "
                  f"({seconds * args.workers / len(batch):.3f} s per text and worker)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
