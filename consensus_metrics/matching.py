r"""Node matching: is a consensus node covered by a trajectory, and where first?

A node is covered when one of its forms occurs in the text under SPEC §3 (the whole text counts,
thinking included). Both sides are canonicalised by :mod:`consensus_metrics.normalize`; then

* a form with a relation (``=``, ``≡``, ``<``, ...) is an equation: each of its sides must equal
  a side of one relation chain of the text, joined only by ``=`` (either order), see
  :mod:`consensus_metrics.relations`;
* any other form is a token sequence that must occur with operand boundaries respected: a value
  node ``24`` is not covered by ``124``, ``2.4``, ``240``, ``x_{24}``, ``-24``, ``24^2``,
  ``24!``, ``\sqrt{24}`` or the coefficient in ``24x``; an expression ``x+1`` is not covered by
  ``2x+1``, ``5-x+1`` or ``2^{x+1}``; sums and products also match up to the order of their
  terms and factors (``(2s+9)(2s-5)`` covers ``(2s-5)(2s+9)``);
* only when these cheap rules fail, equation/expression forms with variables get a bounded
  symbolic check against a few candidate chain sides (see :mod:`consensus_metrics.symbolic`).

The *earliest match* is the occurrence whose last character comes first; ``NodeMatch.start`` /
``.end`` are slice offsets into the text.

A node with ``standalone`` false (a common number) is covered only when it is corroborated: some
standalone node of the same list is covered as well, or another non-standalone one is. Alone it
is no evidence that the text solves this problem.

>>> [m.covered for m in match_nodes("so t = 144 - 48(2.5) = 24 minutes", ["t = 24", "24", "4"])]
[True, True, False]
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from . import sandbox
from .budget import BudgetExceeded, Deadline, check_budget
from .anchors import text_may_contain
from .chaining import ChainFollower
from .divisions import first_statement, need_of, statements
from .nodes import Node, coerce_nodes
from .normalize import ID, plain_str
from .numbers import exact_decimal
from .relations import SEP, split_relation
from .segment_plan import SegmentPlan, _anchor_segments, _Segments
from .side_pairs import EQUALITY as _EQUALITY
from .symbolic import SymbolicChecker
from .text_index import TextIndex, segment_index


class NodeMatch(NamedTuple):
    """Result for one node: ``covered``, and the earliest match as ``text[start:end]`` (an
    immutable named tuple: cheap to create on every completion)."""

    node_id: str
    covered: bool
    start: int | None = None
    end: int | None = None
    form: str | None = None
    via: str | None = None  # "tokens", "relation", "commutative", "chain", "words", "division" or "symbolic"




def _has_variable(kinds) -> bool:
    return any(k == ID for k in kinds)


def match_form(index: TextIndex, form: str, symbolic=None, cheap: bool = True) -> tuple[int, int, str] | None:
    """Earliest match of one form: (start, end, via) or ``None``; ``cheap=False`` skips straight
    to the ``symbolic`` check (the matcher's second pass, where the cheap rules already failed)."""
    sides, rels = split_relation(form)
    if cheap:
        hit = _match_cheap(index, sides, rels)
        if hit is not None:
            return hit
    if symbolic is not None and any(_has_variable(side_kinds) for _, side_kinds in sides):
        span = symbolic(index, sides, rels)
        if span is not None:
            return span[0], span[1], "symbolic"
    return None


def _match_cheap(index: TextIndex, sides, rels) -> tuple[int, int, str] | None:
    """The token rules: a relation in a chain, a token sequence, or a side up to term order."""
    if rels:
        span = index.find_relation(sides, rels)
        return None if span is None else (span[0], span[1], "relation")
    keys, kinds = sides[0]
    span = index.find_sequence(keys, kinds)
    if span is not None:
        return span[0], span[1], "tokens"
    if len(keys) > 1:
        hits = index.side_candidates(keys, kinds, commutative=True)
        if hits:
            c, s = min(hits, key=lambda h: index.chains[h[0]].sides[h[1]].end)
            side = index.chains[c].sides[s]
            return side.start, side.end, "commutative"
    return None


#: A decimal of one or two places (a whole percentage: ``0.8``, ``.25``, ``1.05``), and a percentage.
_DECIMAL_RE = re.compile(r"(?<![\d.,])(\d*)\.(\d{1,2})(?![\d.])")
_PERCENT_RE = re.compile(r"(?<![\d.,])(\d+)(?:\.(\d+))?\s*\\?%")


@lru_cache(maxsize=65536)
def percent_forms(form: str) -> tuple[str, ...]:
    r"""A relation form with its numbers read as percentages the other way (SPEC §3 rule 2:
    ``p%`` is ``p/100``): every decimal of one or two places written as a percentage, and every
    percentage written as a decimal -- the forms a node's computation takes in a text that counts
    in percent or in fractions. None for a form without a relation or without such a number.

    >>> percent_forms("0.8 * 80 = 64"), percent_forms("20\\% \\times 30 = 6"), percent_forms("0.125 = 1/8")
    (('80\\% * 80 = 64',), ('0.2 \\times 30 = 6',), ())
    """
    if "=" not in form:
        return ()
    out = []
    as_percent = _DECIMAL_RE.sub(lambda m: f"{int(m[1] or 0) * 100 + int(m[2].ljust(2, '0'))}\\%", form)
    as_decimal = _PERCENT_RE.sub(lambda m: _as_decimal(Fraction(f"{m[1]}.{m[2] or 0}") / 100), form)
    for variant in (as_percent, as_decimal):
        if variant != form and variant not in out:
            out.append(variant)
    return tuple(out)


def _as_decimal(value: Fraction) -> str:
    decimal = exact_decimal(value)
    return decimal if decimal is not None else f"{value.numerator}/{value.denominator}"


_CONGRUENCE_RE = re.compile(r"^\s*(\d+)\s*\\equiv\s*(\d+)\s*(?:\\pmod\s*\{?\s*(\d+)\s*\}?|\\mod\s*\{?\s*(\d+)\s*\}?"
                            r"|\(\s*mod\s*(\d+)\s*\))\s*$")
_REMAINDER_RE = re.compile(r"^\s*(\d+)\s*(?:\\bmod|\\mod|mod)\s*\{?\s*(\d+)\s*\}?\s*=\s*(\d+)\s*$")


@lru_cache(maxsize=65536)
def modulo_forms(form: str) -> tuple[str, ...]:
    r"""A number's residue written the other way: ``a \equiv r \pmod{n}`` as ``a mod n = r``
    (where ``0 <= r < n``: the remainder), and ``a mod n = r`` as the congruence. None for any
    other form.

    >>> modulo_forms("129 \\equiv 8 \\mod 11"), modulo_forms("100 mod 6 = 4"), modulo_forms("97 \\equiv 7 \\pmod{5}")
    (('129 \\bmod 11 = 8',), ('100 \\equiv 4 \\pmod{6}',), ())
    """
    m = _CONGRUENCE_RE.match(form)
    if m:
        a, r, n = m[1], m[2], next(x for x in m.groups()[2:] if x)
        return (f"{a} \\bmod {n} = {r}",) if int(r) < int(n) else ()
    m = _REMAINDER_RE.match(form)
    return (f"{m[1]} \\equiv {m[3]} \\pmod{{{m[2]}}}",) if m else ()


#: A power of two plain numbers (``5^2``, ``7^{3}``), not part of a longer numeral or exponent.
_POWER_RE = re.compile(r"(?<![\w.^}])(\d{1,3})\^\{?(\d)\}?(?![\w.{])")
#: Largest value a power is written out as.
MAX_POWER_VALUE = 10 ** 6


@lru_cache(maxsize=65536)
def power_forms(form: str) -> tuple[str, ...]:
    r"""A relation form with its powers of plain numbers evaluated, the form a solution that
    computes them first writes (``1 + 5 + 5^2 + 5^3 = 156`` as ``1 + 5 + 25 + 125 = 156``,
    ``\pi\cdot 7^2 - \pi\cdot 6^2 = 13\pi`` as ``\pi\cdot 49 - \pi\cdot 36 = 13\pi``). None where
    a side would become the bare number of the other (``2^3 = 8`` is no ``8 = 8``) or a value
    exceeds :data:`MAX_POWER_VALUE`.

    >>> power_forms("1 + 5 + 5^2 + 5^3 = 156"), power_forms("2^3 = 8"), power_forms("x^2 = 16")
    (('1 + 5 + 25 + 125 = 156',), (), ())
    """
    if "=" not in form or "^" not in form:
        return ()
    too_big = []

    def value(m: re.Match) -> str:
        v = int(m[1]) ** int(m[2])
        too_big.append(v > MAX_POWER_VALUE)
        return str(v)

    variant = _POWER_RE.sub(value, form)
    if variant == form or any(too_big):
        return ()
    sides = [side.strip() for side in variant.split("=")]
    if len(set(sides)) < len(sides):  # a side became the other: a true power, no computation left
        return ()
    return (variant,)


def equivalent_forms(form: str) -> tuple[str, ...]:
    """The other writings of one node form that state the same (:func:`percent_forms`,
    :func:`modulo_forms`, :func:`power_forms`)."""
    return (*percent_forms(form), *modulo_forms(form), *power_forms(form))


@lru_cache(maxsize=65536)
def _form_meaning(form: str) -> str:
    """Forms equal under SPEC §3 share this key (side order of an equation does not count)."""
    sides, rels = split_relation(form)
    keys = [SEP.join(k) for k, _ in sides]
    if rels and all(r in _EQUALITY for r in rels) and len(set(rels)) == 1:
        keys.sort()
    return "\x02".join(keys) + "\x03" + "".join(rels)


def distinct_forms(forms) -> list[str]:
    """The forms that differ after canonicalisation (``1/2`` and ``0.5`` are one form)."""
    seen, out = set(), []
    for form in forms:
        meaning = _form_meaning(form)
        if meaning not in seen:
            seen.add(meaning)
            out.append(form)
    return out


@lru_cache(maxsize=4096)
def _prepared(forms_per_node: tuple[tuple[str, ...], ...]) -> tuple[tuple[tuple[int, str], ...], tuple[str, ...]]:
    """``(node index, form)`` for the distinct forms of each node, with its forms read in percent
    and its residues written the other way (:func:`equivalent_forms`), and those forms (cached:
    the same nodes are matched against every completion of a problem)."""
    flat = tuple((n, form) for n, forms in enumerate(forms_per_node)
                 for form in distinct_forms((*forms, *(v for f in forms for v in equivalent_forms(f)))))
    return flat, tuple(form for _, form in flat)


def _best_in(index: TextIndex, forms, symbolic):
    """Earliest (by end, then start) match of any of ``forms``: ((start, end, via), form) or
    None. With ``symbolic`` only that check runs, and the first form it confirms is taken."""
    best = None
    for form in forms:
        hit = match_form(index, form, symbolic, cheap=symbolic is None)
        if hit is not None and (best is None or (hit[1], hit[0]) < (best[0][1], best[0][0])):
            best = (hit, form)
            if symbolic is not None:
                break
    return best


def _as_match(node: Node, best, offset: int = 0) -> NodeMatch:
    if best is None:
        return NodeMatch(node.id, False)
    (start, end, via), form = best
    return NodeMatch(node.id, True, start + offset, end + offset, form, via)


def match_text(text: str, nodes: list[Node], deadline: Deadline, symbolic=None, before_symbolic=None,
               results: list | None = None) -> list[NodeMatch]:
    """Match validated nodes against ``text`` segment by segment, in text order.

    Only segments where some uncovered node's anchors occur are tokenised; a node is settled by
    the first segment holding one of its forms (that is its earliest match: segments are
    disjoint and ordered), and the scan stops once every node is covered. The symbolic fallback
    then looks at the segments of the nodes still uncovered. ``results`` is filled in place, so
    a caller catching :class:`BudgetExceeded` sees the nodes settled so far.
    """
    flat, forms = _prepared(tuple(node.forms for node in nodes))
    planner = SegmentPlan(text, forms, deadline)  # segments found as the scan reaches them
    bounds, plan = planner.bounds, planner.plan
    results = [] if results is None else results
    results.extend(NodeMatch(node.id, False) for node in nodes)
    open_nodes = set(range(len(nodes)))
    indexes: dict[int, TextIndex] = {}

    def scan(checker, eligible) -> None:
        for k in planner.walk(lambda f: flat[f][0] in eligible):
            pending: dict[int, list[str]] = {}
            for f in plan[k]:
                n, form = flat[f]
                if n in eligible:
                    pending.setdefault(n, []).append(form)
            if not pending:
                continue
            if k not in indexes:
                indexes[k] = segment_index(text[k:bounds[k]], deadline)
            for n, forms in pending.items():
                best = _best_in(indexes[k], forms, checker)
                if best is not None:
                    results[n] = _as_match(nodes[n], best, k)
                    open_nodes.discard(n)
                    eligible.discard(n)
            if not eligible:
                return

    scan(None, set(open_nodes))
    follow_chains(text, nodes, flat, open_nodes, indexes, results, deadline, planner.known)
    if open_nodes:
        settle_divisions(text, nodes, flat, open_nodes, results)
    if before_symbolic is not None:
        before_symbolic()
    if symbolic is not None:
        scan(symbolic, {n for n in open_nodes if nodes[n].kind in ("equation", "expression")})
    return results


def follow_chains(text: str, nodes: list[Node], flat, open_nodes: set, indexes: dict, results: list,
                  deadline: Deadline, known: _Segments | None = None) -> None:
    """The chain-following step (:mod:`consensus_metrics.chaining`) for the equation nodes the
    token rules left open; it shares their segment indexes (and ``known``, the segments they
    delimited). Settles nodes in place."""
    todo: dict[int, list[str]] = {}
    for n, form in flat:
        if n in open_nodes and nodes[n].kind in ("equation", "expression"):
            todo.setdefault(n, []).append(form)
    if not todo:
        return
    known = _Segments(text) if known is None else known
    lowered: list[str] = []

    def segments_with(groups) -> dict[int, int]:
        if not lowered and any(alt[0] == "~" for group in groups for alt in group):
            lowered.append(text.lower())
        return _anchor_segments(text, lowered[0] if lowered else None, groups, known, deadline) or {}

    def index_of(start: int, end: int | None, allow_new: bool):
        index = indexes.get(start)
        if index is None and allow_new and end is not None:
            index = indexes[start] = segment_index(text[start:end], deadline)
        return index

    def segment_before(start: int, groups) -> tuple[int, int] | None:
        at = start - 1
        while at >= 0 and text[at] in " \t\r\n.?!":  # back over the cut: around() reads a segment's own text
            at -= 1
        if at < 0:
            return None
        before = known.around(at)
        return before if before[1] <= start and text_may_contain(text[before[0]:before[1]], groups) else None

    follower = ChainFollower(segments_with, index_of, deadline, segment_before)
    for n, node_forms in todo.items():
        equations = []
        for form in node_forms:
            sides, rels = split_relation(form)
            if rels == ("=",) and sides[0][0] and sides[1][0]:
                equations.append((form, sides[0], sides[1]))
        best = None
        # chain following first; the computation told in words (consensus_metrics.worded) last
        for via, steps in (("chain", (follower.follow, follower.computation)), ("words", (follower.in_words,))):
            for form, left, right in equations:
                span = next(filter(None, (step(a, b) for step in steps for a, b in ((left, right), (right, left)))),
                            None)
                if span is not None and (best is None or (span[1], span[0]) < (best[0][1], best[0][0])):
                    best = ((span[0], span[1], via), form)
            if best is not None:
                break
        if best is not None:
            results[n] = _as_match(nodes[n], best)
            open_nodes.discard(n)


def settle_divisions(text: str, nodes: list[Node], flat, open_nodes: set, results: list) -> None:
    """The identity, floor and residue nodes the rules before left open, settled by a division
    with remainder the text tells as such (:mod:`consensus_metrics.divisions`: ``166 \\div 6 = 27
    \\text{ remainder } 4`` states ``166 = 6 \\cdot 27 + 4``). The text is read only where an
    open node is such a division."""
    asks = [(n, needs) for n, needs in _division_forms(flat) if n in open_nodes]
    if not asks:
        return
    found = statements(text)
    for n, needs in asks:
        hit = first_statement(found, needs)
        if hit is not None:
            results[n] = _as_match(nodes[n], ((hit[0], hit[1], "division"), hit[2]))
            open_nodes.discard(n)


@lru_cache(maxsize=65536)
def _division_forms(flat) -> tuple[tuple[int, tuple], ...]:
    """``(node, ((form, need), ...))`` of the nodes with a division form (:func:`need_of`), once
    per node list (``flat`` is :func:`_prepared`'s, itself cached): most lists have none, and
    matching then looks no further."""
    asks: dict[int, list] = {}
    for n, form in flat:
        need = need_of(form)
        if need is not None:
            asks.setdefault(n, []).append((form, need))
    return tuple((n, tuple(needs)) for n, needs in asks.items())


def match_nodes(text: str, nodes, budget_s: float | None = 1.0, symbolic: bool = True) -> list[NodeMatch]:
    """Match consensus nodes against a trajectory (SPEC §3).

    Args:
        text: the whole trajectory (thinking included); any ``str``.
        nodes: node dicts in the SPEC §2 schema, :class:`~consensus_metrics.nodes.Node` objects,
            or plain strings (one form each). Malformed nodes raise ``TypeError``/``ValueError``
            naming the node and field.
        budget_s: hard time limit in seconds (``None``: unlimited; else a finite number > 0, or
            ``ValueError``). Nodes not decided when it runs out are reported uncovered; see
            :func:`match_nodes_ex` to learn whether it did.
        symbolic: allow the bounded symbolic fallback for equation/expression nodes.

    Returns:
        One :class:`NodeMatch` per node, in input order.

    >>> m = match_nodes("We get $(2s-5)(2s+9) = 0$, so $s = 2.5$.", ["s=5/2", "24"])
    >>> [(x.covered, x.start, x.end) for x in m]
    [(True, 31, 38), (False, None, None)]
    """
    return match_nodes_ex(text, nodes, budget_s, symbolic)[0]


def match_nodes_ex(text: str, nodes, budget_s: float | None = 1.0, symbolic: bool = True,
                   deadline: Deadline | None = None, before_symbolic=None) -> tuple[list[NodeMatch], bool]:
    """Like :func:`match_nodes` and also return ``timed_out`` (see :func:`match_text`).

    ``before_symbolic()`` is called once, after the cheap rules and before the symbolic step
    (the scorer collects the answer check there: both use the sandbox)."""
    text = plain_str(text)
    nodes = coerce_nodes(nodes)
    if deadline is None:
        budget_s = check_budget(budget_s)
    if symbolic and deadline is None:
        sandbox.warmup()  # one-time worker start-up is not charged to the budget
    deadline = deadline or Deadline(budget_s)
    results: list[NodeMatch] = []
    checker = SymbolicChecker(deadline) if symbolic else None
    called = []

    def once():
        if before_symbolic is not None and not called:
            called.append(True)
            before_symbolic()

    try:
        match_text(text, nodes, deadline, checker, once, results)
        return in_context(nodes, results), False
    except BudgetExceeded:
        once()
        done = {m.node_id: m for m in results}
        return in_context(nodes, [done.get(n.id, NodeMatch(n.id, False)) for n in nodes]), True


def in_context(nodes: list[Node], results: list[NodeMatch]) -> list[NodeMatch]:
    """Uncover the non-standalone nodes unless they are corroborated: a standalone node is
    covered too, or at least two non-standalone ones are (module doc).

    >>> nodes = coerce_nodes([{"id": "a", "text": "x^2 = 9"}, {"id": "b", "text": "12", "kind": "value",
    ...                        "value": "12", "standalone": False}, {"id": "c", "text": "5", "kind": "value",
    ...                        "value": "5", "standalone": False}])
    >>> [m.covered for m in in_context(nodes, [NodeMatch("a", False), NodeMatch("b", True, 0, 2), NodeMatch("c", False)])]
    [False, False, False]
    >>> [m.covered for m in in_context(nodes, [NodeMatch("a", False), NodeMatch("b", True, 0, 2), NodeMatch("c", True, 5, 6)])]
    [False, True, True]
    """
    if all(n.standalone for n in nodes) or any(m.covered for n, m in zip(nodes, results) if n.standalone):
        return results
    if sum(1 for n, m in zip(nodes, results) if m.covered) >= 2:
        return results
    return [m if n.standalone or not m.covered else NodeMatch(n.id, False) for n, m in zip(nodes, results)]