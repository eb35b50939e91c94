"""Score completions for the rewards: ``acc`` and guarded ``ncr`` via ``consensus_metrics``.

This module is the only place the rewards touch the metrics library. Per completion:

1. the guard (:mod:`training_recipes.guards`) blanks long number lists and flags number spam;
2. ``consensus_metrics.score_trajectory`` / ``score_batch`` gives ``acc`` (math-verify on the text
   after the last ``</think>``) and ``ncr`` (covered nodes / k) on the guarded text;
3. the node-pasting rule drops node credit when matched node spans make up most of the text.

``acc`` is always computed on the original completion, never on the guarded text. When node
credit is not needed (``need_nodes=False``, the plain ``outcome`` reward) nodes are not matched
at all: the cost is math-verify only.

Example:
    >>> s = score_completions(["48/2 = 24, so 48+24 = 72. \\\\boxed{72}"], ["72"],
    ...                       [[{"id": "n1", "text": "48/2=24"}]])[0]
    >>> (s.acc, s.ncr, s.guard)
    (1.0, 1.0, '')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


def completion_text(completion: Any) -> str:
    """The text of one TRL completion: a string, or the assistant messages of a conversation.

    Message ``content`` may be a string or a list of ``{"type": "text", "text": ...}`` blocks.

    >>> completion_text([{"role": "assistant", "content": "x = 2"}])
    'x = 2'
    >>> completion_text(None)
    ''
    """
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, (list, tuple)):
        has_roles = any(isinstance(m, dict) and "role" in m for m in completion)
        parts = []
        for message in completion:
            if isinstance(message, str):
                parts.append(message)
                continue
            if not isinstance(message, dict) or (has_roles and message.get("role") != "assistant"):
                continue
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts.extend(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
        return "\n".join(p for p in parts if p)
    return str(completion)


def _as_nodes(nodes: Any) -> list:
    if nodes is None:
        return []
    if isinstance(nodes, str):
        from training_recipes.data import normalise_nodes

        return normalise_nodes(nodes)
    return list(nodes)


def _score_many(texts, nodes_list, answers, workers: int, budget_s: float) -> list[dict]:
    import consensus_metrics

    if workers and workers > 1 and len(texts) > 1:
        scores = consensus_metrics.score_batch(texts, nodes_list, answers, workers=workers, budget_s=budget_s)
    else:
        scores = [consensus_metrics.score_trajectory(t, n, a, budget_s=budget_s)
                  for t, n, a in zip(texts, nodes_list, answers, strict=True)]
    # A score that ran out of its time budget is partial (biased low). Score it once more in this
    # process (a cold worker's first item can time out on start-up costs alone); if it times out
    # again it stays marked ``timed_out`` and the reward reports it as unscorable.
    for i, score in enumerate(scores):
        if score.get("timed_out"):
            scores[i] = consensus_metrics.score_trajectory(texts[i], nodes_list[i], answers[i], budget_s=budget_s)
    return scores


def _node_share(text: str, nodes: list, covered: list[str], spans: list, budget_s: float, rounds: int = 3,
                gate: float = 0.3) -> float:
    """Guard rule 3: share of ``text`` (boxed answer excluded) inside node matches.

    The scorer reports each node's earliest match only; when that alone already makes up more than
    ``gate`` of the text (honest solutions sit far below), the matched spans are blanked and the
    covered nodes matched again, up to ``rounds`` times, so repeated node strings count too.
    """
    ignore = boxed_spans(text)
    share = node_char_share(text, spans, ignore=ignore)
    if share <= gate:
        return share
    import consensus_metrics

    wanted = [n for n in nodes if (n.get("id") if isinstance(n, dict) else None) in set(covered)] or nodes
    all_spans, blanked = list(spans), text
    for _ in range(rounds):
        chars = list(blanked)
        for start, end in all_spans:
            chars[start:end] = " " * (end - start)
        blanked = "".join(chars)
        more = [(m.start, m.end) for m in consensus_metrics.match_nodes(blanked, wanted, budget_s=budget_s)
                if m.covered and m.start is not None]
        if not more:
            break
        all_spans += more
    return node_char_share(text, all_spans, ignore=ignore)


def score_completions(
    texts: list[str],
    answers: list[str],
    nodes_list: list,
    guard: GuardConfig | None = None,
    need_nodes: bool = True,
    workers: int = 0,
    budget_s: float = 1.0,
) -> list[CompletionScore]:
    """Score each completion (see the module docstring); lists are aligned, one entry per completion.

    Args:
        texts: completion texts.
        answers: gold answers (math-verify gold).
        nodes_list: each problem's nodes (list of node dicts/strings, a JSON string, or None).
        guard: reward-hacking guard thresholds; None uses :class:`GuardConfig` defaults.
        need_nodes: False scores ``acc`` only (no node matching at all).
        workers: >1 scores through ``consensus_metrics.score_batch`` worker processes.
        budget_s: time budget per completion for ``score_trajectory`` (in-process scoring).
    """
    guard = guard or GuardConfig()
    if not (len(texts) == len(answers) == len(nodes_list)):
        raise ValueError(
            f"score_completions: {len(texts)} texts, {len(answers)} answers, {len(nodes_list)} node lists"
        )
    texts = ["" if t is None else str(t) for t in texts]
    answers = ["" if a is None else str(a) for a in answers]
    nodes_list = [_as_nodes(n) for n in nodes_list]

    if not need_nodes:
        plain = _score_many(texts, [[] for _ in texts], answers, workers, budget_s)
        return [CompletionScore(acc=float(s["acc"]), ncr=None, timed_out=bool(s.get("timed_out"))) for s in plain]

    reports = [inspect_completion(t, guard) for t in texts]
    # Spam gets no node credit: match nothing. Other completions are matched on the guarded text.
    match_nodes = [[] if r.number_spam else n for r, n in zip(reports, nodes_list, strict=True)]
    scores = _score_many([r.text for r in reports], match_nodes, answers, workers, budget_s)
    # acc must come from the original text wherever the guard changed it.
    redo = [i for i, r in enumerate(reports) if r.text != texts[i]]
    if redo:
        redo_scores = _score_many([texts[i] for i in redo], [[] for _ in redo], [answers[i] for i in redo],
                                  workers, budget_s)
        for i, s in zip(redo, redo_scores, strict=True):
            scores[i] = {**scores[i], "acc": s["acc"]}

    out = []
    for text, report, nodes, score in zip(texts, reports, nodes_list, scores, strict=True):
        acc = float(score["acc"])
        covered = list(score.get("covered") or [])
        if not nodes:
            out.append(CompletionScore(acc=acc, ncr=None, timed_out=bool(score.get("timed_out"))))
            continue
        if report.number_spam:
            out.append(CompletionScore(acc=acc, ncr=0.0, guard="number_spam", timed_out=bool(score.get("timed_out"))))
            continue
        ncr = float(score["ncr"]) if score.get("ncr") is not None else 0.0
        result = CompletionScore(acc=acc, ncr=ncr, covered=covered, timed_out=bool(score.get("timed_out")))
        if report.redacted_spans:
            result.guard = "number_list"
        if len(covered) >= guard.min_nodes_for_share and guard.enabled:
            spans = [(p[0], p[1]) for p in (score.get("positions") or {}).values()]
            if _node_share(text, nodes, covered, spans, budget_s) > guard.max_node_char_share:
                result.ncr, result.guard = 0.0, "node_pasting"
        out.append(result)
    return out
