"""Where a node reward's time goes, per completion and stage, next to math-verify's answer check.

:func:`stage_profile` runs the steps of ``training_recipes.scoring`` one by one on each completion
and times each (CPU time of this process, and wall time), with math-verify's check of the same
completion right before or after them (alternating), so that the machine's load hits both alike:

* ``guard`` -- rules 1-2 of the reward-hacking guard (``inspect_completion``);
* ``matching`` -- ``match_nodes_ex`` on the guarded text (symbolic fallback on: its sympy work
  runs in the sandbox process, so it shows in wall time only);
* ``pasting rule`` -- rule 3 (``_node_share``), where the reward runs it: >= 2 nodes covered and
  a wrong final answer;
* ``math-verify`` -- ``verify(parse(gold), parse(answer region))`` as the sandbox runs it, here in
  this process;
* ``TPN count`` -- the regex pre-token count ``score_trajectory`` makes for TPN, which the rewards
  no longer make (shown for reference, not part of the node path).

The *node path* is guard + matching + pasting rule: what a node reward adds to the outcome reward.

:func:`reward_cpu` measures the reward's own code path end to end instead: the scoring process's
CPU time plus its sandbox worker's (Linux ``/proc``), ``linear``-style scoring (``need_nodes``)
and math-verify-only scoring alternating in chunks of 16 completions (text caches cleared first).

    >>> rows = stage_profile([("So 48/2 = 24. \\\\boxed{24}", [{"id": "n1", "text": "48/2=24"}], "24")])
    >>> sorted(rows)[:3]
    ['TPN count', 'guard', 'matching']
"""

from __future__ import annotations

import os
import time

from consensus_metrics.budget import Deadline

__all__ = ["STAGES", "NODE_PATH", "clear_text_caches", "stage_profile", "reward_cpu", "print_profile"]

NODE_PATH = ("guard", "matching", "pasting rule")
STAGES = (*NODE_PATH, "math-verify", "TPN count")


def clear_text_caches() -> None:
    """Forget every tokenised sentence of this thread (node forms stay prepared)."""
    from consensus_metrics import text_index
    from consensus_metrics.normalize import _cached_tokens

    _cached_tokens.cache_clear()
    text_index._local.segments = None


def _timed(totals: dict, name: str, fn, *args, **kwargs):
    c0, w0 = time.process_time(), time.perf_counter()
    try:
        return fn(*args, **kwargs)
    finally:
        cpu, wall = totals.setdefault(name, [0.0, 0.0])
        totals[name] = [cpu + time.process_time() - c0, wall + time.perf_counter() - w0]


def stage_profile(items, budget_s: float = 1.0) -> dict[str, list[float]]:
    """``{stage: [cpu seconds, wall seconds]}`` summed over ``items`` = ``(text, nodes, gold)``
    (see the module docstring); each stage has the budget a completion has in the reward. Every
    problem's gold is parsed and its nodes prepared before the timing, as for the later
    completions of a GRPO group (the caller measures what a group's first one pays)."""
    from consensus_metrics import warmup
    from consensus_metrics.answer import MAX_ANSWER_CHARS, _parse_gold, split_think, verify_in_process
    from consensus_metrics.matching import match_nodes_ex
    from consensus_metrics.tokens import TokenCounter
    from training_recipes.guards import GuardConfig, inspect_completion
    from training_recipes.scoring import _node_share

    warmup()
    verify_in_process("1/2", "so $x = \\boxed{0.5}$", 1)  # math-verify's first calls are slow
    for text, nodes, gold in items:  # each problem's gold parsed, its nodes prepared (no text seen)
        _parse_gold(gold)
        match_nodes_ex("", nodes, symbolic=False)
    guard = GuardConfig()
    totals: dict[str, list[float]] = {name: [0.0, 0.0] for name in STAGES}
    for i, (text, nodes, gold) in enumerate(items):
        region = split_think(text)[0]

        def answer_check():
            if not region or not region.strip():
                return {"acc": 0}
            return verify_in_process(gold, region[-MAX_ANSWER_CHARS:], max(1, round(budget_s)))

        if i % 2:
            verdict = _timed(totals, "math-verify", answer_check)
        report = _timed(totals, "guard", inspect_completion, text, guard, Deadline(budget_s))
        matches, _ = _timed(totals, "matching", match_nodes_ex, report.text, nodes, deadline=Deadline(budget_s))
        if not i % 2:
            verdict = _timed(totals, "math-verify", answer_check)
        covered = [m for m in matches if m.covered]
        if len(covered) >= guard.min_nodes_for_share and not verdict["acc"]:
            _timed(totals, "pasting rule", _node_share, text, nodes, [m.node_id for m in covered],
                   [(m.start, m.end) for m in covered], Deadline(budget_s))
        _timed(totals, "TPN count", TokenCounter(None).count, text)
    return totals


def _process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) of process ``pid`` so far, from ``/proc`` (None elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def reward_cpu(items, budget_s: float = 1.0, chunk: int = 16) -> dict[str, float] | None:
    """Mean CPU seconds per completion of the reward's scoring (``_score_one``), scoring process
    plus sandbox: ``{"mv-only", "nodes"}``; None where ``/proc`` is not there."""
    import consensus_metrics
    from consensus_metrics import sandbox
    from training_recipes.guards import GuardConfig
    from training_recipes.scoring import _as_nodes, _score_one

    consensus_metrics.warmup()
    clear_text_caches()
    pid = sandbox.worker_pid()
    if pid is None or _process_cpu(pid) is None:
        return None
    guard = GuardConfig()
    rows = [(text, _as_nodes(nodes, "nodes"), gold) for text, nodes, gold in items]
    spent = {False: 0.0, True: 0.0}
    for start in range(0, len(rows), chunk):
        order = (False, True) if (start // chunk) % 2 == 0 else (True, False)
        for need_nodes in order:
            pid = sandbox.worker_pid() or pid
            c0, s0 = time.process_time(), _process_cpu(pid) or 0.0
            for text, nodes, gold in rows[start:start + chunk]:
                _score_one(text, nodes, gold, guard, need_nodes, budget_s)
            spent[need_nodes] += time.process_time() - c0 + max(0.0, (_process_cpu(pid) or 0.0) - s0)
    return {"mv-only": spent[False] / len(rows), "nodes": spent[True] / len(rows)}


def print_profile(totals: dict[str, list[float]], n: int, chars: float) -> float:
    """Print the stage table (ms per completion, CPU and wall; µs per 1k characters; share of
    math-verify) and return the node path's CPU over math-verify's."""
    mv_cpu = totals["math-verify"][0] or float("nan")
    print(f"  {'stage':<16}{'CPU ms':>9}{'wall ms':>9}{'CPU µs/1k chars':>17}{'x math-verify':>15}")
    for name in STAGES:
        cpu, wall = totals[name]
        note = "   (not in the reward)" if name == "TPN count" else ""
        print(f"  {name:<16}{1e3 * cpu / n:>9.3f}{1e3 * wall / n:>9.3f}{1e6 * cpu / n / (chars / 1000):>17.1f}"
              f"{cpu / mv_cpu:>15.3f}{note}")
    node_cpu = sum(totals[name][0] for name in NODE_PATH)
    node_wall = sum(totals[name][1] for name in NODE_PATH)
    print(f"  {'node path':<16}{1e3 * node_cpu / n:>9.3f}{1e3 * node_wall / n:>9.3f}"
          f"{1e6 * node_cpu / n / (chars / 1000):>17.1f}{node_cpu / mv_cpu:>15.3f}"
          f"   (wall: {node_wall / (totals['math-verify'][1] or float('nan')):.3f})")
    return node_cpu / mv_cpu
