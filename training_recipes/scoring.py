"""Score completions for the rewards: ``acc`` and guarded ``ncr`` via ``consensus_metrics``.

This module is the only place the rewards touch the metrics library. Per completion:

1. the guard (:mod:`training_recipes.guards`) blanks long number lists and flags number spam;
2. ``consensus_metrics.score_trajectory`` gives ``acc`` (math-verify on the final answer: the
   text after the last ``</think>`` or Sky-T1 ``<|end_of_thought|>``; ``think_format`` says
   which markers and whether the chat template opened the trace, see
   ``consensus_metrics.ThinkFormat``) and ``ncr`` (covered nodes / k) on the guarded text;
3. the node-pasting rule drops node credit when matched node spans make up most of the text.

``acc`` is always computed on the original completion, never on the guarded text. When node
credit is not needed (``need_nodes=False``, the plain ``outcome`` reward) nodes are not matched
at all: the cost is math-verify only. With ``workers > 1`` all three steps run in worker processes.
The node-pasting rule judges only completions whose final answer is wrong (see
:mod:`training_recipes.guards`, rule 3), and no step counts tokens (a reward needs no TPN).

All three steps share one hard time budget per completion (``budget_s``): the guard and the
node-pasting rule check the same deadline as the scorer, so scoring a completion ends within the
budget plus a small constant, whatever the text (``benchmarks/bench_reward_budget.py`` measures
it on hostile and 1 MB completions). A completion that runs out of it is ``timed_out``. Starting
the sandbox process (once, and again after a kill) is not charged, as in ``consensus_metrics``.

Example:
    >>> s = score_completions(["48/2 = 24, so 48+24 = 72. \\\\boxed{72}"], ["72"],
    ...                       [[{"id": "n1", "text": "48/2=24"}]])[0]
    >>> (s.acc, s.ncr, s.guard)
    (1.0, 1.0, '')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from consensus_metrics.budget import BudgetExceeded, Deadline
from training_recipes.guards import GuardConfig, boxed_spans, inspect_completion, node_char_share

__all__ = ["CompletionScore", "completion_text", "score_completions"]


@dataclass
class CompletionScore:
    """``acc`` ∈ {0, 1}; ``ncr`` ∈ [0, 1] after the guard, None when the problem has no nodes
    (or nodes were not scored); ``guard`` names the rule that fired (``""``, ``"number_list"``, ``"number_spam"``,
    ``"node_pasting"``)."""

    acc: float
    ncr: float | None
    guard: str = ""
    covered: list[str] = field(default_factory=list)
    timed_out: bool = False


def completion_text(completion: Any, think_format=None) -> str:
    """The text of one TRL completion: a string, or the assistant messages of a conversation.

    Message ``content`` may be a string or a list of ``{"type": "text", "text": ...}`` blocks. A
    trace the message carries apart from its answer -- ``reasoning_content`` (TRL's Qwen3 and
    DeepSeek-R1 response templates: ``GRPOTrainer`` decodes with ``parse_response`` whenever the
    tokenizer has one), ``thinking`` (LFM2.5, gpt-oss), ``reasoning`` (vLLM) or a thinking content
    block -- goes back before the answer between ``think_format``'s trace markers, so NCR reads the
    reasoning and Acc the answer after it (rules: :mod:`consensus_metrics.messages`).

    >>> completion_text([{"role": "assistant", "content": "x = 2"}])
    'x = 2'
    >>> completion_text([{"role": "assistant", "reasoning_content": "x = 2", "content": "So 2."}])
    '<think>x = 2</think>So 2.'
    >>> completion_text(None)
    ''
    """
    from consensus_metrics.messages import conversation_text

    return conversation_text(completion, think_format)


def _as_nodes(nodes: Any, where: str) -> list:
    """One row's nodes in a documented shape -- a list (or tuple) of node dicts or strings, its
    JSON string, or None -- as node dicts; anything else raises ``TrainingDataError`` naming
    ``where`` (a dict must not become its keys)."""
    from training_recipes.data import normalise_nodes

    return normalise_nodes(list(nodes) if isinstance(nodes, tuple) else nodes, where)


def _as_answer(answer: Any, row: int) -> str:
    """One row's gold answer under the rule of every reader (``consensus_metrics.records``): a
    non-empty string or a finite number; None, NaN, infinity or a boolean raise ``ValueError``
    naming the row (a None gold would score every completion 0, a NaN one reward ``\\boxed{nan}``)."""
    from consensus_metrics.records import check_answer_field

    return check_answer_field(answer, f"row {row}, column 'answer'")


_POOLS: dict[int, Any] = {}


def _warm_worker() -> None:
    import consensus_metrics
    from consensus_metrics.heap import settle

    consensus_metrics.warmup()  # start this process's sandbox before the first timed item
    consensus_metrics.score_trajectory("x = 1, so \\boxed{1}", ["x = 1"], "1", budget_s=None)
    settle()  # the imports and the warm-up live as long as the worker


def _pool(workers: int):
    """A persistent, warmed-up process pool per worker count: RL calls the reward every step, and
    starting processes (imports, sandbox) per call would cost more than the scoring itself."""
    pool = _POOLS.get(workers)
    if pool is None:
        import atexit
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"), initializer=_warm_worker)
        _POOLS[workers] = pool
        atexit.register(pool.shutdown, wait=False, cancel_futures=True)
    return pool


def _score_chunk(items: list[tuple]) -> list[CompletionScore]:
    return [_score_one(*item) for item in items]


def _blank(text: str, spans) -> str:
    """``text`` with the characters of ``spans`` replaced by spaces (offsets unchanged)."""
    pieces, cursor = [], 0
    for start, end in sorted((max(0, int(a)), min(len(text), int(b))) for a, b in spans):
        if end <= cursor:
            continue
        start = max(start, cursor)
        pieces += [text[cursor:start], " " * (end - start)]
        cursor = end
    return "".join(pieces) + text[cursor:]


def _node_share(text: str, nodes: list, covered: list[str], spans: list, deadline: Deadline, rounds: int = 3,
                gate: float = 0.3) -> float:
    """Guard rule 3: share of ``text`` (boxed answer excluded) inside node matches.

    The scorer reports each node's earliest match only; when that alone already makes up more than
    ``gate`` of the text (honest solutions sit far below), the matched spans are blanked and the
    covered nodes matched again, up to ``rounds`` times, so repeated node strings count too. Runs
    within ``deadline``: raises :class:`BudgetExceeded` when a round could not finish (the share
    is then unknown, and an unknown share must not pass the guard).
    """
    from consensus_metrics.matching import match_nodes_ex

    ignore = boxed_spans(text, deadline)
    share = node_char_share(text, spans, ignore=ignore)
    if share <= gate:
        return share
    wanted = [n for n in nodes if (n.get("id") if isinstance(n, dict) else None) in set(covered)] or nodes
    all_spans = list(spans)
    for _ in range(rounds):
        deadline.check()
        matches, timed_out = match_nodes_ex(_blank(text, all_spans), wanted, deadline=deadline)
        if timed_out:
            raise BudgetExceeded()
        more = [(m.start, m.end) for m in matches if m.covered and m.start is not None]
        if not more:
            break
        all_spans += more
    return node_char_share(text, all_spans, ignore=ignore)


#: Share of the time left that node matching on the guarded text may use when a step follows it
#: (the final-answer check on the original text, the node-pasting rule).
MATCH_SHARE = 0.7


def _score_one(text: str, nodes: list, answer: str, guard: GuardConfig, need_nodes: bool,
               budget_s: float | None, think_format=None) -> CompletionScore:
    """One completion, all steps (guard, scoring, node-pasting rule) within one ``budget_s``;
    runs in a worker or inline. Out of time, the completion is ``timed_out`` (reward ``None``)."""
    import consensus_metrics

    consensus_metrics.warmup()  # a sandbox (re)start is not charged to the budget (see sandbox)
    deadline = Deadline(budget_s)
    try:
        return _score_within(text, nodes, answer, guard, need_nodes, deadline, think_format)
    except BudgetExceeded:
        return CompletionScore(acc=0.0, ncr=None if not (need_nodes and nodes) else 0.0, timed_out=True)


def _score_within(text: str, nodes: list, answer: str, guard: GuardConfig, need_nodes: bool,
                  deadline: Deadline, think_format=None) -> CompletionScore:
    import consensus_metrics
    from consensus_metrics.answer import check_answer

    def run(t: str, n: list, share: float) -> dict:
        """``score_trajectory`` on ``share`` of the time left; a partial score ends the completion
        (it would be biased low, and no time is left to score it again)."""
        left = deadline.remaining()
        if left <= 0:
            raise BudgetExceeded()
        budget_s = None if left == float("inf") else left * share
        score = consensus_metrics.score_trajectory(t, n, answer, budget_s=budget_s, think_format=think_format,
                                                   count_tokens=False)  # no TPN here
        if score.get("timed_out"):
            raise BudgetExceeded()
        return score

    if not need_nodes or not nodes:
        score = run(text, [], 1.0)
        return CompletionScore(acc=float(score["acc"]), ncr=None)
    report = inspect_completion(text, guard, deadline)
    if report.number_spam:  # spam gets no node credit: match nothing
        score = run(text, [], 1.0)
        return CompletionScore(acc=float(score["acc"]), ncr=0.0, guard="number_spam")
    score = run(report.text, nodes, MATCH_SHARE)  # nodes are matched on the guarded text
    acc = float(score["acc"])
    covered = list(score.get("covered") or [])
    share_rule = guard.enabled and len(covered) >= guard.min_nodes_for_share
    if report.text != text:  # acc always comes from the original text
        verdict = check_answer(text, answer, deadline.share(0.5) if share_rule else deadline, think_format)
        if verdict["timed_out"]:
            raise BudgetExceeded()
        acc = float(verdict["acc"])
    result = CompletionScore(acc=acc, ncr=float(score["ncr"] or 0.0), covered=covered,
                             guard="number_list" if report.redacted_spans else "")
    if share_rule and not acc:  # rule 3 judges wrong answers only (see guards, "Node pasting")
        spans = [(p[0], p[1]) for p in (score.get("positions") or {}).values()]
        if _node_share(text, nodes, covered, spans, deadline) >= guard.max_node_char_share:
            result.ncr, result.guard = 0.0, "node_pasting"
    return result


def score_completions(
    texts: list[str],
    answers: list[str],
    nodes_list: list,
    guard: GuardConfig | None = None,
    need_nodes: bool = True,
    workers: int = 0,
    budget_s: float = 1.0,
    think_format=None,
) -> list[CompletionScore]:
    """Score each completion (see the module docstring); lists are aligned, one entry per completion.

    Args:
        texts: completion texts.
        answers: gold answers (math-verify gold): non-empty strings or finite numbers; anything
            else (None, NaN, a boolean) raises ``ValueError`` naming the row.
        nodes_list: each problem's nodes (list of node dicts/strings, a JSON string, or None);
            another shape raises ``TrainingDataError`` naming the row.
        guard: reward-hacking guard thresholds; None uses :class:`GuardConfig` defaults.
        need_nodes: False scores ``acc`` only (no node matching at all).
        workers: >1 scores in a persistent pool of that many worker processes (spawned and warmed
            up once per process, reused by every later call); the guard runs there too.
        budget_s: time budget per completion and scoring call (``score_trajectory``).
        think_format: where the final answer is (``consensus_metrics.ThinkFormat`` or its setting
            string, e.g. ``"think+prefilled"`` for a template that opens ``<think>``); default
            ``<think>`` and Sky-T1 markers, not prefilled.
    """
    from consensus_metrics.answer import resolve_think_format

    think_format = resolve_think_format(think_format)
    guard = guard or GuardConfig()
    if not (len(texts) == len(answers) == len(nodes_list)):
        raise ValueError(
            f"score_completions: {len(texts)} texts, {len(answers)} answers, {len(nodes_list)} node lists"
        )
    items = [("" if t is None else str(t), _as_nodes(n, f"row {i}, column 'nodes'"), _as_answer(a, i),
              guard, need_nodes, budget_s, think_format)
             for i, (t, a, n) in enumerate(zip(texts, answers, nodes_list, strict=True))]
    if workers and workers > 1 and len(items) > 1:
        size = max(1, min(16, len(items) // (4 * workers)))
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        return [row for part in _pool(workers).map(_score_chunk, chunks) for row in part]
    return [_score_one(*item) for item in items]
