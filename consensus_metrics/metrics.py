r"""The three ConsensusBench metrics per trajectory, and their aggregates (docs/SPEC.md §4).

* ``acc``: 1 if the final answer verifies against the gold answer (math-verify, gold first).
* ``ncr``: covered nodes / k for a problem with k >= 1 nodes; ``None`` (undefined) when k = 0.
* ``tpn``: with ``e_i`` the 1-based index of the token holding the last character of covered
  node i's earliest match, sorted ``e_1 <= ... <= e_m``, the gaps ``e_1, e_2 - e_1, ...,
  e_m - e_(m-1)`` have mean ``tpn = e_m / m``; ``None`` when no node is covered (m = 0).

>>> s = score_trajectory("9 * 2 = 18, so the answer is \\boxed{18}.", ["9*2=18"], "18")
>>> s["acc"], s["ncr"], s["tpn"], s["covered"]
(1, 1.0, 5.0, ['n1'])
"""

from __future__ import annotations

import math

from . import sandbox
from .answer import AnswerCheck, ThinkFormat
from .budget import DEFAULT_BUDGET_S, BudgetExceeded, Deadline, check_budget
from .matching import match_nodes_ex
from .nodes import coerce_nodes
from .tokens import TokenCounter

#: Share of the budget the answer check may use (it runs in parallel with matching).
ANSWER_SHARE = 0.6
#: Share of the budget kept for counting tokens after matching.
COUNT_SHARE = 0.2


def score_trajectory(text: str, nodes, answer: str, tokenizer=None, budget_s: float | None = DEFAULT_BUDGET_S,
                     symbolic: bool = True, counter: TokenCounter | None = None,
                     think_format: ThinkFormat | str | None = None, count_tokens: bool = True) -> dict:
    """Score one trajectory: Acc, NCR, TPN and what is needed to inspect them.

    Args:
        text: the whole model output (thinking included). Any ``str``.
        nodes: the problem's nodes (docs/SPEC.md §2 dicts, ``Node`` objects, or plain strings).
        answer: the gold final answer (LaTeX or plain).
        tokenizer: HF tokenizer, or a name/path loadable offline; ``None`` counts regex
            pre-tokens (``tpn_unit`` says which).
        budget_s: hard wall-clock budget for this call (``None``: unlimited; else a finite
            number > 0, or ``ValueError``). When it runs out the undecided parts count as not
            achieved and ``timed_out`` is True.
        symbolic: allow the bounded symbolic fallback in node matching.
        think_format: where the final answer is (:class:`~consensus_metrics.answer.ThinkFormat`
            or its setting string); default: after the last ``</think>`` or Sky-T1's
            ``<|end_of_thought|>``, inside a Sky-T1 solution block. ``ThinkFormat(prefilled=True)``
            (a chat template that opens ``<think>`` for the model) makes a text without a close
            marker an unclosed trace (acc 0).
        count_tokens: ``False`` skips tokenising the text: ``n_tokens``, ``tpn`` and every
            position's token index are ``None`` (for callers that need ``acc`` and ``ncr``
            only, such as the RL rewards: on a 4k-token completion the count costs about a
            fifth of the answer check), and matching may use the whole budget.

    Returns:
        ``{"acc", "ncr", "tpn", "n_tokens", "covered", "positions", "n_nodes", "pred",
        "think_unclosed", "tpn_unit", "timed_out"}`` where ``positions`` maps each covered
        node id to ``[start, end, token_index]`` (char slice of its earliest match and ``e``).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    budget_s = check_budget(budget_s)  # -1, NaN or 0 would mean "no time" or "no limit", silently
    nodes = coerce_nodes(nodes)
    sandbox.warmup()  # one-time worker start-up (after a kill too) is not charged to the budget
    counter = counter or TokenCounter(tokenizer)  # neither is loading a tokenizer by name (cached)
    deadline = Deadline(budget_s)
    answer_deadline = deadline.share(ANSWER_SHARE)
    match_deadline = deadline.share(1 - COUNT_SHARE) if count_tokens else deadline  # time to count tokens
    # The answer check runs in the sandbox while the cheap matching rules run here; the symbolic
    # fallback uses the same sandbox, so it waits for the answer (``before_symbolic``).
    check = AnswerCheck(text, answer, answer_deadline, think_format)
    try:
        matches, match_timed_out = match_nodes_ex(text, nodes, symbolic=symbolic, deadline=match_deadline,
                                                  before_symbolic=check.result)
    finally:
        verdict = check.result()
    covered = [m for m in matches if m.covered]
    if count_tokens:
        n_tokens, positions, match_timed_out = _token_positions(text, covered, counter, deadline, match_timed_out)
    else:
        n_tokens, positions = None, {m.node_id: [m.start, m.end, None] for m in covered}
    e_m = max((p[2] for p in positions.values() if p[2] is not None), default=0)
    return {
        "acc": verdict["acc"],
        "ncr": (len(covered) / len(nodes)) if nodes else None,
        "tpn": (e_m / len(covered)) if covered and n_tokens is not None else None,
        "n_tokens": n_tokens,
        "covered": [m.node_id for m in covered],
        "positions": positions,
        "n_nodes": len(nodes),
        "pred": verdict["pred"],
        "think_unclosed": verdict["think_unclosed"],
        "tpn_unit": counter.unit,
        "timed_out": bool(verdict["timed_out"] or match_timed_out),
    }


def _token_positions(text: str, covered, counter: TokenCounter, deadline: Deadline, timed_out: bool):
    """``(n_tokens, positions, timed_out)``: the token count and each covered node's
    ``[start, end, e]``; past ``deadline`` the count (so TPN) is unknown and ``timed_out`` set."""
    try:
        n_tokens = counter.count(text, deadline)
        positions = {m.node_id: [m.start, m.end, counter.token_index(text, m.end - 1)] for m in covered}
        return n_tokens, positions, timed_out
    except BudgetExceeded:  # megabytes of text: the token count is unknown, so TPN is too
        return None, {m.node_id: [m.start, m.end, None] for m in covered}, True


# ----------------------------------------------------------------------------- aggregation
def mean_stderr(values) -> tuple[float | None, float | None]:
    """Mean and standard error of the mean (sample std, ddof=1, / sqrt(n)); ``None`` if empty."""
    values = [float(v) for v in values]
    n = len(values)
    if n == 0:
        return None, None
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples with c correct: ``1 - C(n-c, k) / C(n, k)``.

    >>> pass_at_k(16, 0, 1), pass_at_k(16, 4, 1), round(pass_at_k(16, 4, 8), 4)
    (0.0, 0.25, 0.9615)
    """
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    prob_all_wrong = 1.0
    for i in range(n - c + 1, n + 1):
        prob_all_wrong *= 1.0 - k / i
    return 1.0 - prob_all_wrong


def aggregate_scores(scores, group_ids=None, ks=()) -> dict:
    """Aggregate per-trajectory scores (docs/SPEC.md §4).

    Args:
        scores: dicts from :func:`score_trajectory`.
        group_ids: optional problem id per score; with several samples per problem, pass@k is
            computed per problem (unbiased) for each k in ``ks`` and averaged.

    Returns a dict with ``n``, ``acc``/``acc_stderr``, ``ncr``/``ncr_stderr``/``ncr_undefined``,
    ``tpn``/``tpn_stderr``/``tpn_undefined``, ``n_tokens`` (mean generated tokens),
    ``think_unclosed``, ``timed_out`` and ``pass@k`` entries.
    """
    scores = list(scores)
    acc, acc_se = mean_stderr(s["acc"] for s in scores)
    ncr_values = [s["ncr"] for s in scores if s.get("ncr") is not None]
    tpn_values = [s["tpn"] for s in scores if s.get("tpn") is not None]
    ncr, ncr_se = mean_stderr(ncr_values)
    tpn, tpn_se = mean_stderr(tpn_values)
    tokens, _ = mean_stderr(s["n_tokens"] for s in scores if s.get("n_tokens") is not None)
    out = {
        "n": len(scores),
        "acc": acc, "acc_stderr": acc_se,
        "ncr": ncr, "ncr_stderr": ncr_se, "ncr_undefined": len(scores) - len(ncr_values),
        "tpn": tpn, "tpn_stderr": tpn_se, "tpn_undefined": len(scores) - len(tpn_values),
        "n_tokens": tokens,
        "think_unclosed": sum(1 for s in scores if s.get("think_unclosed")),
        "timed_out": sum(1 for s in scores if s.get("timed_out")),
    }
    if group_ids is not None and ks:
        groups: dict = {}
        for gid, s in zip(group_ids, scores):
            groups.setdefault(gid, []).append(s["acc"])
        for k in ks:
            vals = [pass_at_k(len(v), sum(v), k) for v in groups.values() if len(v) >= k]
            out[f"pass@{k}"] = (sum(vals) / len(vals)) if vals else None
    return out
