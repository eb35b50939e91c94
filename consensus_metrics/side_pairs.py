"""Pairs of chain sides: which two sides a relation node's two sides are found at.

A relation node ``L rel R`` is covered where a chain side equal to ``L`` and one equal to ``R``
are joined by ``rel`` (docs/SPEC.md §3 rule 3); :func:`earliest_pair` picks, of all such pairs,
the one the earliest match is made of. Repetition loops (a model writing ``a = b = a = b ...``
thousands of times) give thousands of equal sides, so the pairs are never enumerated: the search
is linear in the sides (:func:`best_pair`). The chain follower
(:mod:`consensus_metrics.chaining`) picks its sides with the same :func:`best_pair`.
"""

from __future__ import annotations

from .budget import NO_DEADLINE, Deadline

#: Relations that link sides into one run (``a = b ≡ c``): an equality node may span several.
EQUALITY = frozenset({"=", "≡"})
#: A relation read from right to left (``a < b`` is ``b > a``).
FLIP = {"<": ">", ">": "<", "≤": "≥", "≥": "≤", "=": "=", "≡": "≡", "≠": "≠", "≈": "≈"}


def earliest_pair(chains, lhits, rhits, rel: str, deadline: Deadline = NO_DEADLINE) -> tuple[int, int, int] | None:
    """``(chain, p, q)``: of the pairs ``(c, p)`` in ``lhits`` and ``(c, q)`` in ``rhits`` (one
    chain, ``p != q``) whose sides ``rel`` joins, the one whose later side ends first; of several,
    the first in ``lhits`` order, then in ``rhits`` order. An equality joins the sides of one run
    of ``=``/``≡`` links (with an ``≡`` among the links between them, for ``≡``); any other
    relation joins sides one link of it apart, read from left to right (``p < q``) or flipped,
    through ``=`` links beside it (:func:`_through_equalities`).

    That is the pair a search through every ``lhits`` x ``rhits`` pair would keep, found in time
    linear in the hits and chain lengths: a repetition loop (``a = b = a = b ...``, thousands of
    sides) gives thousands of hits on each side, and the pairs of them, each with the links
    between them to check, took a cubic time. For an equality the valid pairs are those of one
    run of equality links whose *keys* differ (the side index for ``=``; for ``≡`` the number of
    ``≡`` before the side: an ``≡`` lies between two sides exactly when those differ).

    >>> from consensus_metrics.relations import relation_chains
    >>> chains = relation_chains("a < b = a = b")
    >>> earliest_pair(chains, [(0, 1), (0, 3)], [(0, 0), (0, 2)], "=")
    (0, 1, 2)
    >>> earliest_pair(chains, [(0, 1), (0, 3)], [(0, 0), (0, 2)], ">")
    (0, 1, 0)
    """
    if rel not in EQUALITY:  # one link of rel, and "=" links beside it: a few partners per hit
        flipped = FLIP.get(rel)
        where = {hit: j for j, hit in enumerate(rhits)}
        best = None
        for i, (c, p) in enumerate(lhits):
            if not i & 1023:
                deadline.check()
            chain = chains[c]
            for q in _through_equalities(chain.rels, p, rel, flipped):
                j = where.get((c, q))
                if j is None:
                    continue
                order = (max(chain.sides[p].end, chain.sides[q].end), i, j)
                if best is None or order < best[0]:
                    best = (order, (c, p, q))
        return None if best is None else best[1]
    by_index = rel == "="
    groups: dict[int, tuple[list, list]] = {}  # chain -> (run of each side, key of each side)
    entries = []
    for hits in (lhits, rhits):
        found = []  # (group, key, end, side index) in hit order
        for n, (c, s) in enumerate(hits):
            if not n & 1023:
                deadline.check()
            runs_keys = groups.get(c)
            if runs_keys is None:
                runs_keys = groups[c] = _runs_and_keys(chains[c].rels)
            found.append(((c, runs_keys[0][s]), s if by_index else runs_keys[1][s], chains[c].sides[s].end, s))
        entries.append(found)
    pair = best_pair(*entries)
    return None if pair is None else (pair[0][0][0], pair[0][3], pair[1][3])


#: How many ``=`` links an inequality is read through on each side of it (``a < b = c`` is ``a < c``).
THROUGH_EQUALITIES = 3


def _through_equalities(rels, p: int, rel: str, flipped: str | None) -> list[int]:
    """The sides ``q`` that side ``p`` of a chain with links ``rels`` is joined to by ``rel``
    (read from ``p`` to ``q``): exactly one link between them is ``rel`` (``flipped`` where ``q``
    comes first) and the others are ``=``, at most :data:`THROUGH_EQUALITIES` of them on each side
    of it. ``x - 2 < 10^2 = 100`` states ``x - 2 < 100``; ``a < b < c`` states no ``a < c`` here
    (two links of the relation), nor does ``a < b \\le c``.

    >>> _through_equalities(("<", "="), 0, "<", ">"), _through_equalities(("=", "<", "="), 3, ">", "<")
    ([1, 2], [1, 0])
    """
    out = []
    for step, wanted in ((1, rel), (-1, flipped)):
        seen, equalities, q = False, [0, 0], p
        while True:
            link = q if step > 0 else q - 1
            if link < 0 or link >= len(rels):
                break
            if rels[link] == "=":
                if equalities[seen] == THROUGH_EQUALITIES:
                    break
                equalities[seen] += 1
            elif rels[link] == wanted and not seen:
                seen = True
            else:
                break
            q += step
            if seen:
                out.append(q)
    return out


def best_pair(left, right):
    """``(left entry, right entry)``: of the pairs of one group with different keys, the one whose
    later entry ends first; of several, the first in ``left`` order, then in ``right`` order --
    or ``None``. Entries are ``(group, key, end, item)``; time linear in their number.

    >>> best_pair([("g", 1, 5, "a"), ("g", 2, 3, "b")], [("g", 2, 4, "c"), ("g", 1, 9, "d")])
    (('g', 1, 5, 'a'), ('g', 2, 4, 'c'))
    """
    # the smallest end of a valid pair: in each group, the two smallest ends with different keys
    firsts = _two_smallest(left), _two_smallest(right)
    best_end = None
    for group, (l1, l2) in firsts[0].items():
        r1, r2 = firsts[1].get(group, (None, None))
        for a, b in ((l1, r1), (l1, r2), (l2, r1)):
            if a is not None and b is not None and a[1] != b[1]:
                end = max(a[2], b[2])
                if best_end is None or end < best_end:
                    best_end = end
    if best_end is None:
        return None
    # the first pair in lhits x rhits order whose later side ends at best_end
    upto = _first_two(right, best_end, False)
    at = _first_two(right, best_end, True)
    for group, key, end, p in left:
        if end > best_end:
            continue
        r1, r2 = (upto if end == best_end else at).get(group, (None, None))
        partner = r1 if r1 is not None and r1[1] != key else r2
        if partner is not None:
            return (group, key, end, p), partner
    return None  # not reached: best_end is the end of a valid pair


def _runs_and_keys(rels) -> tuple[list[int], list[int]]:
    """Per side of a chain: which run of equality links holds it, and how many ``≡`` precede it."""
    runs, keys = [0], [0]
    run = congruences = 0
    for r in rels:
        if r not in EQUALITY:
            run += 1
        elif r == "≡":
            congruences += 1
        runs.append(run)
        keys.append(congruences)
    return runs, keys


def _two_smallest(found) -> dict:
    """Per group of the entries ``(group, key, end, side)``: the one with the smallest end, and the
    one with the smallest end among those with another key (or ``None``)."""
    out: dict = {}
    for entry in found:
        group, key, end = entry[0], entry[1], entry[2]
        pair = out.get(group)
        if pair is None:
            out[group] = (entry, None)
            continue
        first, second = pair
        if end < first[2]:
            out[group] = (entry, first if first[1] != key else second)
        elif key != first[1] and (second is None or end < second[2]):
            out[group] = (first, entry)
    return out


def _first_two(found, end: int, exactly: bool) -> dict:
    """Per group, the first entry of ``found`` (in its order) that ends at ``end`` (``exactly``) or
    not after it, and the first after that one with another key (or ``None``)."""
    out: dict = {}
    for entry in found:
        if entry[2] > end or (exactly and entry[2] != end):
            continue
        pair = out.get(entry[0])
        if pair is None:
            out[entry[0]] = (entry, None)
        elif pair[1] is None and entry[1] != pair[0][1]:
            out[entry[0]] = (pair[0], entry)
    return out


__all__ = ["EQUALITY", "FLIP", "best_pair", "earliest_pair"]
