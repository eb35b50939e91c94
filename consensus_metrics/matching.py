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

>>> [m.covered for m in match_nodes("so t = 144 - 48(2.5) = 24 minutes", ["t = 24", "24", "4"])]
[True, True, False]
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from .budget import NO_DEADLINE, BudgetExceeded, Deadline
from .nodes import Node, coerce_nodes
from .anchors import form_anchors, text_may_contain
from .normalize import FUNC, ID, NUM, Tokens, tokenize_windows
from .relations import SEP, Chain, build_chains, commutative_key, split_relation


@dataclass(frozen=True)
class NodeMatch:
    """Result for one node: ``covered``, and the earliest match as ``text[start:end]``."""

    node_id: str
    covered: bool
    start: int | None = None
    end: int | None = None
    form: str | None = None
    via: str | None = None  # "tokens", "relation", "commutative" or "symbolic"


_VALUE_LEFT_BLOCK = {"^", "_", "neg"}
_VALUE_RIGHT_BLOCK = {"^", "!", "_"}
_EXPR_LEFT_BLOCK = {"^", "_", "/", "*", "neg", "-", "!"}
_EXPR_RIGHT_BLOCK = {"^", "*", "/", "!", "_"}
_EQUALITY = {"=", "≡"}
_FLIP = {"<": ">", ">": "<", "≤": "≥", "≥": "≤", "=": "=", "≡": "≡", "≠": "≠", "≈": "≈"}


_CONTINUATION_RE = re.compile(r"[ \t&]*(?:=|<|>|≤|≥|≡|\\le|\\ge|\\equiv|\\approx|\\neq)")


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    at = find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


def relevant_windows(text: str, forms, deadline: Deadline = NO_DEADLINE) -> list[tuple[int, int]]:
    """The regions of ``text`` that can hold a match of one of ``forms``, as ``(start, end)``.

    A region is a line holding every anchor group of some form (found from occurrences of the
    form's most selective anchor), extended over neighbouring lines that continue a relation
    chain (``&= ...`` in ``align``) or that the relation continues onto; overlapping or touching
    regions merge. Matches never span two lines unless a relation continues across them.
    """
    groups = [g for g in dict.fromkeys(form_anchors(f) for f in forms)]
    live = [g for g in groups if text_may_contain(text, g)]
    if not live:
        return []
    if "\n" not in text or any(not g for g in live):  # one line, or a form without anchors
        return [(0, len(text))]
    starts = _line_starts(text)
    n_lines = len(starts)
    chosen: set[int] = set()
    for g in live:
        lines: set[int] = set()
        for alt in g[0]:
            if alt[0] == "~":  # a word anchor: this form needs case-insensitive search
                return [(0, len(text))]
            at = text.find(alt)
            steps = 0
            while at >= 0:
                steps += 1
                if not steps & 1023:
                    deadline.check()
                lines.add(bisect_right(starts, at) - 1)
                at = text.find(alt, at + 1)
        for line in lines:
            deadline.check()
            if line in chosen:
                continue
            lo = line
            while lo > 0 and _CONTINUATION_RE.match(text, starts[lo]):
                lo -= 1
            hi = line
            while hi + 1 < n_lines and _CONTINUATION_RE.match(text, starts[hi + 1]):
                hi += 1
            a, b = starts[lo], (starts[hi + 1] - 1 if hi + 1 < n_lines else len(text))
            if len(g) == 1 or text_may_contain(text[a:b], g[1:]):
                chosen.update(range(lo, hi + 1))
    windows: list[tuple[int, int]] = []
    for line in sorted(chosen):
        a = starts[line]
        b = starts[line + 1] - 1 if line + 1 < n_lines else len(text)
        if windows and windows[-1][1] >= a - 1:
            windows[-1] = (windows[-1][0], b)
        else:
            windows.append((a, b))
    return windows


class TextIndex:
    """Canonical tokens of one trajectory plus the lookup structures matching needs (built once).

    With ``forms``, only the lines that can hold one of them are tokenised
    (:func:`relevant_windows`, :mod:`consensus_metrics.anchors`); without, the whole text.
    """

    def __init__(self, text: str, deadline: Deadline = NO_DEADLINE, forms=None):
        self.text = text
        self.deadline = deadline
        windows = [(0, len(text))] if forms is None else relevant_windows(text, forms, deadline)
        self.toks: Tokens = tokenize_windows(text, windows, deadline)
        keys = self.toks.keys
        self.joined = SEP + SEP.join(keys) + SEP
        pos = {}
        offset = 1
        for i, key in enumerate(keys):
            pos[offset] = i
            offset += len(key) + 1
        self.token_at = pos
        self._chains: list[Chain] | None = None
        self._sides: dict[str, list[tuple[int, int]]] | None = None
        self._comm_sides: dict[str, list[tuple[int, int]]] | None = None

    @property
    def chains(self) -> list[Chain]:
        if self._chains is None:
            self._chains = build_chains(self.toks, None, self.deadline, keep_segments=True, with_comm=False)
        return self._chains

    @property
    def sides(self) -> dict[str, list[tuple[int, int]]]:
        """Exact side keys -> [(chain index, side index)]."""
        if self._sides is None:
            index: dict[str, list[tuple[int, int]]] = {}
            for c, chain in enumerate(self.chains):
                for s, side in enumerate(chain.sides):
                    if side.key:
                        index.setdefault(side.key, []).append((c, s))
            self._sides = index
        return self._sides

    @property
    def comm_sides(self) -> dict[str, list[tuple[int, int]]]:
        """Commutative side keys -> [(chain index, side index)] (built on first use)."""
        if self._comm_sides is None:
            index: dict[str, list[tuple[int, int]]] = {}
            keys, kinds = self.toks.keys, self.toks.kinds
            for c, chain in enumerate(self.chains):
                for s, side in enumerate(chain.sides):
                    if side.key:
                        self.deadline.check()
                        index.setdefault(commutative_key(keys[side.lo:side.hi], kinds[side.lo:side.hi]), []).append((c, s))
            self._comm_sides = index
        return self._comm_sides

    # ------------------------------------------------------------------ sequences
    def find_sequence(self, keys: tuple[str, ...], kinds: tuple[int, ...]) -> tuple[int, int] | None:
        """Earliest occurrence of a token sequence with operand boundaries; char (start, end)."""
        if not keys:
            return None
        pattern = SEP + SEP.join(keys) + SEP
        joined, token_at = self.joined, self.token_at
        is_value = len(keys) == 1 and kinds[0] == NUM or len(keys) == 2 and keys[0] == "neg" and kinds[1] == NUM
        n = len(keys)
        at = joined.find(pattern)
        steps = 0
        while at >= 0:
            steps += 1
            if not steps & 255:
                self.deadline.check()
            i = token_at[at + 1]
            if self._boundaries_ok(i, i + n, is_value):
                return self.toks.starts[i], self.toks.ends[i + n - 1]
            at = joined.find(pattern, at + 1)
        return None

    def _boundaries_ok(self, i: int, j: int, is_value: bool) -> bool:
        toks = self.toks
        keys, kinds = toks.keys, toks.kinds
        if i > 0 and not toks.breaks[i]:
            left, lkind = keys[i - 1], kinds[i - 1]
            if is_value:
                if left in _VALUE_LEFT_BLOCK or lkind == FUNC or (left == "*" and toks.implicit[i - 1]):
                    return False
            elif left in _EXPR_LEFT_BLOCK or lkind == FUNC:
                return False
        if j < len(keys) and not toks.breaks[j]:
            right = keys[j]
            if is_value:
                if right in _VALUE_RIGHT_BLOCK or (right == "*" and toks.implicit[j]):
                    return False
            elif right in _EXPR_RIGHT_BLOCK:
                return False
        return True

    # ------------------------------------------------------------------ relations
    def side_candidates(self, keys, kinds, commutative: bool = False) -> list[tuple[int, int]]:
        """Chain sides equal to ``keys`` (exactly, or with ``commutative`` up to term/factor order)."""
        found = list(self.sides.get(SEP.join(keys), ()))
        if commutative:
            for hit in self.comm_sides.get(commutative_key(keys, kinds), ()):
                if hit not in found:
                    found.append(hit)
        return found

    def find_relation(self, sides, rels) -> tuple[int, int] | None:
        """Earliest chain holding every adjacent pair of the node's sides, SPEC §3 rule 3."""
        start, end = None, None
        for k, rel in enumerate(rels):
            left, right = sides[k], sides[k + 1]
            if not left[0] or not right[0]:
                return None
            span = self._find_pair(left, right, rel, False) or self._find_pair(left, right, rel, True)
            if span is None:
                return None
            start = span[0] if start is None else min(start, span[0])
            end = span[1] if end is None else max(end, span[1])
        return (start, end) if rels else None

    def _find_pair(self, left, right, rel, commutative: bool) -> tuple[int, int] | None:
        lhits = self.side_candidates(*left, commutative)
        if not lhits:
            return None
        rhits = self.side_candidates(*right, commutative)
        best = None
        chains = self.chains
        for c, p in lhits:
            for c2, q in rhits:
                if c2 != c or p == q:
                    continue
                chain = chains[c]
                lo, hi = min(p, q), max(p, q)
                between = chain.rels[lo:hi]
                if rel in _EQUALITY:
                    ok = all(r in _EQUALITY for r in between) and (rel == "=" or rel in between)
                else:
                    ok = hi - lo == 1 and between[0] == (rel if p < q else _FLIP.get(rel))
                if not ok:
                    continue
                a, b = chain.sides[p], chain.sides[q]
                span = (min(a.start, b.start), max(a.end, b.end))
                if best is None or span[1] < best[1]:
                    best = span
        return best


def _has_variable(kinds) -> bool:
    return any(k == ID for k in kinds)


def match_form(index: TextIndex, form: str, symbolic=None) -> tuple[int, int, str] | None:
    """Earliest match of one form: (start, end, via) or ``None``."""
    sides, rels = split_relation(form)
    if rels:
        span = index.find_relation(sides, rels)
        if span is not None:
            return span[0], span[1], "relation"
    else:
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
    if symbolic is not None and any(_has_variable(side_kinds) for _, side_kinds in sides):
        span = symbolic(index, sides, rels)
        if span is not None:
            return span[0], span[1], "symbolic"
    return None


def match_nodes_in(index: TextIndex, nodes: list[Node], symbolic=None, results: list | None = None,
                   before_symbolic=None) -> list[NodeMatch]:
    """Match validated nodes against a prepared :class:`TextIndex`, filling ``results``.

    Two passes: the cheap token/relation rules for every node, then (if ``symbolic``) the
    symbolic fallback for the nodes still uncovered; ``before_symbolic()`` is called between
    them. Raises :class:`BudgetExceeded` past the deadline; ``results`` then holds the nodes
    decided so far.
    """
    results = [] if results is None else results
    for node in nodes:
        best = None
        for form in node.forms:
            hit = match_form(index, form, None)
            if hit is not None and (best is None or (hit[1], hit[0]) < (best[0][1], best[0][0])):
                best = (hit, form)
        if best is None:
            results.append(NodeMatch(node.id, False))
        else:
            (start, end, via), form = best
            results.append(NodeMatch(node.id, True, start, end, form, via))
    if before_symbolic is not None:
        before_symbolic()
    if symbolic is None:
        return results
    for k, node in enumerate(nodes):
        if results[k].covered or node.kind not in ("equation", "expression"):
            continue
        for form in node.forms:
            hit = match_form(index, form, symbolic)
            if hit is not None:
                results[k] = NodeMatch(node.id, True, hit[0], hit[1], form, hit[2])
                break
    return results


def match_nodes(text: str, nodes, budget_s: float | None = 1.0, symbolic: bool = True) -> list[NodeMatch]:
    """Match consensus nodes against a trajectory (SPEC §3).

    Args:
        text: the whole trajectory (thinking included); any ``str``.
        nodes: node dicts in the SPEC §2 schema, :class:`~consensus_metrics.nodes.Node` objects,
            or plain strings (one form each). Malformed nodes raise ``TypeError``/``ValueError``
            naming the node and field.
        budget_s: hard time limit in seconds (``None``: unlimited). Nodes not decided when it
            runs out are reported uncovered; see :func:`match_nodes_ex` to learn whether it did.
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
    """Like :func:`match_nodes` and also return ``timed_out`` (see :func:`match_nodes_in`)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    nodes = coerce_nodes(nodes)
    if symbolic and deadline is None:
        from . import sandbox

        sandbox.warmup()  # one-time worker start-up is not charged to the budget
    deadline = deadline or Deadline(budget_s)
    results: list[NodeMatch] = []
    checker = None
    if symbolic:
        from .symbolic import SymbolicChecker

        checker = SymbolicChecker(deadline)
    try:
        index = TextIndex(text, deadline, forms=[form for node in nodes for form in node.forms])
        match_nodes_in(index, nodes, checker, results, before_symbolic)
        return results, False
    except BudgetExceeded:
        done = {m.node_id: m for m in results}
        if before_symbolic is not None:
            before_symbolic()
        return [done.get(n.id, NodeMatch(n.id, False)) for n in nodes], True
