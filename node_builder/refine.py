"""Stage 3: from candidate clusters to the final ordered node list of one problem.

Steps, with the defaults of :class:`RefineConfig` and why:

1. **final answer** — drop a value equal to the answer, a form equal to it, and ``name = answer``
   equations (``xy = 25``): the answer is already ``acc``. A computation that *yields* the answer
   (``21 + 49 = 70``) is a process step and stays, ranked last.
2. **trivial** — drop the values ``-1, 0, 1, 2``: they occur in almost any text.
3. **restates the problem** — drop nodes the matcher finds in the problem statement (given
   relations), values the problem writes anywhere — also inside expressions: the ``242`` of
   ``\\sqrt{242}``, the ``26`` of ``26^2`` — and values it gives in words (``three``, ``a dozen``).
4. **definitions** — drop ``name = expression-without-numbers`` equations introduced by
   *let / define / denote / set / call* (``Let $S = a + b$``) and ``:=`` definitions.
5. **re-match** — match every remaining node against every correct trajectory
   (``consensus_metrics.match_nodes``): ``support`` = covered / correct trajectories,
   ``position`` = mean relative start offset where covered. A rule-mined node that does not match
   all of the trajectories it was mined from is dropped (``unmatched``): every kept node matches
   its own sources by construction.
6. **support threshold** — keep ``support >= min_support`` (0.5: a majority of the correct
   trajectories passes through it — the consensus). If nothing passes and ``fallback`` is on,
   keep the best-supported nodes and record that threshold (a problem whose solutions share no
   intermediate result still gets the nodes of its best path, with their honest support).
7. **redundant** — drop an arithmetic equation or a bare assignment whose result is a kept value
   node (``16-3-4=9``, ``x = 9`` when ``9`` is kept): the value is the same checkpoint, matched
   more leniently. Set-ups mixing variables and numbers (``3p + e = 124``) stay.
8. **cap** — keep at most ``max_nodes`` (8): rank by support, then kind (computed value,
   equation, proposition such as an inequality, value only stated in prose, answer-step
   equation, expression: numbers and formulas are the checkable ones);
   where the cut falls inside a tie, keep nodes spread evenly over the solution. Eight keeps NCR
   a fine-grained score (steps of 1/8) without rewarding one path's incidental detail.
9. **order** by position (ties by text).

Example:
    >>> RefineConfig().max_nodes, RefineConfig().min_support
    (8, 0.5)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from node_builder.matcher import canonical_key, covered, numbers_in

from node_builder.expand import expand
from node_builder.miner import Cluster, number_of
from node_builder.number_words import number_words
from node_builder.schema import Node, Problem

DROP_REASONS = ("final_answer", "trivial", "restates_problem", "definition", "unmatched",
                "below_support", "redundant", "over_cap")
KIND_RANK = {"value": 0, "equation": 1, "proposition": 2, "prose_value": 3, "answer_step": 4,
             "expression": 5}
_DEFINITION_CONTEXT = re.compile(r"\b(let|define|denote|set|call|suppose|assume|write)\b[^.;:\n]*$", re.I)


@dataclass
class RefineConfig:
    min_support: float = 0.5
    max_nodes: int = 8
    fallback: bool = True
    trivial_values: tuple[str, ...] = ("-1", "0", "1", "2")


@dataclass
class _Item:
    node: Node
    cluster: Cluster | None
    origin_llm: bool = False
    answer_step: bool = False
    covered: tuple[int, ...] = ()


def _sides(text: str) -> list[str]:
    return [s.strip() for s in text.split("=")] if text.count("=") == 1 else []


def _is_name(side: str) -> bool:
    key = canonical_key(side)
    return bool(key) and "#" not in key


def _answer_facts(answer: str) -> tuple[Fraction | None, str]:
    return number_of(answer), canonical_key(answer)


def _is_final_answer(item: _Item, answer_number, answer_key) -> bool:
    node = item.node
    if node.kind == "value":
        return answer_number is not None and number_of(node.value) == answer_number
    if canonical_key(node.text) == answer_key:
        return True
    sides = _sides(node.text)
    if node.kind == "equation" and len(sides) == 2:
        for side, other in (sides, sides[::-1]):
            same = (number_of(side) == answer_number) if answer_number is not None else False
            if same or canonical_key(side) == answer_key:
                if _is_name(other):
                    return True
                item.answer_step = True
    return False


def _is_arithmetic_for(text: str, values: set) -> bool:
    """``16-3-4=9`` or ``x = 9`` with ``9`` in ``values``: a kept value on one side and pure
    arithmetic or a bare name on the other (``2x = 18`` mixes both and is not redundant)."""
    sides = _sides(text)
    if len(sides) != 2:
        return False
    for side, other in (sides, sides[::-1]):
        number = number_of(side)
        if number is not None and number in values:
            other_key = canonical_key(other)
            if ("#" in other_key) != _has_identifier(other):  # pure arithmetic or a bare name
                return True
    return False


def _has_identifier(side: str) -> bool:
    return any(tok and (tok[0].isalpha() or tok[0] in "\\αβγδεθλμπσφωΓΔΘΛΠΣΦΩ")
               for tok in canonical_key(side).split())


def _is_definition(item: _Item) -> bool:
    node = item.node
    if node.kind != "equation" or item.cluster is None:
        return False
    if ":=" in node.text or "\\coloneqq" in node.text:
        return True
    sides = _sides(node.text)
    if len(sides) != 2 or not all(_is_name(s) for s in sides):
        return False
    return all(_DEFINITION_CONTEXT.search(ctx or "") for ctx in item.cluster.contexts)


def _as_match_nodes(items: list[_Item]) -> list[dict]:
    return [{"id": f"c{i}", "text": it.node.text, "kind": it.node.kind, "forms": it.node.forms,
             "value": it.node.value} for i, it in enumerate(items)]


def _covered(text: str, items: list[_Item]) -> dict[int, int]:
    """Candidate index -> start offset of its earliest match in ``text``."""
    return {int(node_id[1:]): start for node_id, start in covered(text, _as_match_nodes(items)).items()}


def _spread(items: list[_Item], m: int) -> list[_Item]:
    """``m`` items evenly spaced over ``items`` sorted by position."""
    if m <= 0:
        return []
    ordered = sorted(items, key=lambda it: (it.node.position, it.node.text))
    if m >= len(ordered):
        return ordered
    step = len(ordered) / m
    return [ordered[int(i * step + step / 2)] for i in range(m)]


def refine(problem: Problem, clusters: list[Cluster], trajectories: list, config: RefineConfig,
           llm_nodes: list[Node] | None = None) -> tuple[list[Node], dict[str, int], float]:
    """Return ``(nodes, drop counts, support threshold used)`` for one problem."""
    stats = {reason: 0 for reason in DROP_REASONS}
    items = [_Item(Node(text=c.text, kind=c.kind, value=c.value,
                        forms=expand(c.text, c.kind, c.value)), c) for c in clusters]
    for node in llm_nodes or []:
        items.append(_Item(node, None, origin_llm=True))
    stats["candidates"] = len(items)
    answer_number, answer_key = _answer_facts(problem.answer)
    given_numbers = number_words(problem.problem) | numbers_in(problem.problem)
    trivial = {Fraction(v) for v in config.trivial_values}

    kept = []
    for item in items:
        if _is_final_answer(item, answer_number, answer_key):
            stats["final_answer"] += 1
        elif item.node.kind == "value" and number_of(item.node.value) in trivial:
            stats["trivial"] += 1
        elif item.node.kind == "value" and number_of(item.node.value) in given_numbers:
            stats["restates_problem"] += 1
        elif _is_definition(item):
            stats["definition"] += 1
        else:
            kept.append(item)
    in_problem = _covered(problem.problem, kept)
    stats["restates_problem"] += len(in_problem)
    kept = [it for i, it in enumerate(kept) if i not in in_problem]

    # re-match against every correct trajectory
    n = len(trajectories)
    hits: list[dict[int, float]] = [{} for _ in kept]
    for t_index, trajectory in enumerate(trajectories):
        length = max(len(trajectory.text), 1)
        for i, start in _covered(trajectory.text, kept).items():
            hits[i][t_index] = min(max(start, 0) / length, 1.0)
    matched = []
    for item, where in zip(kept, hits):
        own = set(item.cluster.trajectories) if item.cluster else set()
        if not where or not own.issubset(where):
            stats["unmatched"] += 1
            continue
        item.covered = tuple(sorted(where))
        item.node.support = len(where) / n if n else 0.0
        item.node.position = sum(where.values()) / len(where)
        matched.append(item)

    threshold = config.min_support
    passing = [it for it in matched if it.node.support >= threshold - 1e-9]
    if not passing and matched and config.fallback:
        threshold = max(it.node.support for it in matched)
        passing = [it for it in matched if it.node.support >= threshold - 1e-9]
    stats["below_support"] += len(matched) - len(passing)

    values = {number_of(it.node.value) for it in passing if it.node.kind == "value"}
    final = []
    for item in passing:
        if item.node.kind == "equation" and _is_arithmetic_for(item.node.text, values):
            stats["redundant"] += 1
        else:
            final.append(item)

    def rank(it: _Item):
        kind = "answer_step" if it.answer_step else it.node.kind
        if kind == "value" and it.cluster is not None and set(it.cluster.origins) == {"prose"}:
            kind = "prose_value"
        return (-round(it.node.support, 6), KIND_RANK.get(kind, 5))

    if len(final) > config.max_nodes:
        final.sort(key=lambda it: (rank(it), it.node.position, it.node.text))
        cut_rank = rank(final[config.max_nodes - 1])
        sure = [it for it in final if rank(it) < cut_rank]
        tied = [it for it in final if rank(it) == cut_rank]
        chosen = sure + _spread(tied, config.max_nodes - len(sure))
        stats["over_cap"] += len(final) - len(chosen)
        final = chosen
    final.sort(key=lambda it: (it.node.position, it.node.text))
    return [it.node for it in final], stats, threshold
