"""The canonical tokens of one segment and the lookups matching makes in them (:class:`TextIndex`).

A :class:`TextIndex` holds a segment's tokens, its relation chains and their sides, each built on
first use; the matcher (:mod:`consensus_metrics.matching`) and the chain follower
(:mod:`consensus_metrics.chaining`) ask it for token sequences, chain sides equal to a form's
side (exactly or up to term order) and relation pairs. :func:`segment_index` keeps recent
segments' indexes per thread.

>>> from consensus_metrics.relations import split_relation
>>> TextIndex("so t = 144 - 48(2.5) = 24 minutes").find_relation(*split_relation("t = 24"))
(3, 25)
"""

from __future__ import annotations

try:
    import cython
except ImportError:  # Cython is needed to compile, not to run: its declarations are then no-ops
    from . import _cython_shadow as cython

import threading
from collections import OrderedDict
from functools import lru_cache

from .budget import NO_DEADLINE, Deadline
from .normalize import FUNC, NUM, SEGMENT_CACHE_CHARS, Tokens, tokenize_cached
from .relations import SEP, Chain, build_chains, commutative_key, term_chains
from .side_pairs import earliest_pair

_VALUE_LEFT_BLOCK = {"^", "_", "neg"}
_VALUE_RIGHT_BLOCK = {"^", "!", "_"}
_EXPR_LEFT_BLOCK = {"^", "_", "/", "*", "neg", "-", "!"}
_EXPR_RIGHT_BLOCK = {"^", "*", "/", "!", "_"}


_local = threading.local()
#: Segment indexes kept per thread (completions of one prompt share sentences).
SEGMENT_INDEX_CACHE = 4096


def segment_index(segment: str, deadline: Deadline) -> "TextIndex":
    """The :class:`TextIndex` of one segment, offsets relative to it; short segments are cached
    per thread, so a sentence seen in an earlier completion costs nothing to index again."""
    if len(segment) > SEGMENT_CACHE_CHARS:
        return TextIndex(segment, deadline)
    cache = getattr(_local, "segments", None)
    if cache is None:
        cache = _local.segments = OrderedDict()
    index = cache.get(segment)
    if index is None:
        index = TextIndex(segment, deadline)
        cache[segment] = index
        if len(cache) > SEGMENT_INDEX_CACHE:
            cache.popitem(last=False)
    else:
        cache.move_to_end(segment)
        index.deadline = deadline
    return index


@cython.cclass
class TextIndex:
    """Canonical tokens of one text (a segment, in matching) plus the lookup structures matching
    needs, each built on first use.

    Compiled (``consensus_metrics._native``), an extension type with C attributes, and
    :meth:`find_sequence` and :meth:`_boundaries_ok` C calls with ``Py_ssize_t`` indices.
    (``toks`` stays a Python object: no C-level import from ``normalize``, so that a compiled
    ``matching`` loads beside a ``normalize`` that runs from its edited source.)"""

    text = cython.declare(object, visibility="public")
    deadline = cython.declare(object, visibility="public")
    toks = cython.declare(object, visibility="public")
    _joined = cython.declare(object, visibility="public")
    _token_at = cython.declare(object, visibility="public")
    _chains = cython.declare(object, visibility="public")
    _terms = cython.declare(object, visibility="public")
    _numbers = cython.declare(object, visibility="public")
    _sides = cython.declare(object, visibility="public")
    _by_length = cython.declare(object, visibility="public")
    _comm_cache = cython.declare(dict, visibility="public")
    side_ids = cython.declare(dict, visibility="public")

    def __init__(self, text: str, deadline: Deadline = NO_DEADLINE):
        self.text = text
        self.deadline = deadline
        self.toks: Tokens = tokenize_cached(text, deadline)
        self._joined: str | None = None
        self._token_at: dict[int, int] | None = None
        self._chains: list[Chain] | None = None
        self._terms: list[tuple] | None = None  # term chains as _term_entry rows
        self._numbers: frozenset | None = None
        self._sides: dict[str, list[tuple[int, int]]] | None = None
        self._by_length: dict[int, list[tuple[int, int]]] | None = None
        self._comm_cache: dict[tuple[int, int], str] = {}
        #: (lo, hi) of a chain side -> its identifiers (filled by the symbolic step)
        self.side_ids: dict[tuple[int, int], frozenset] = {}

    @property
    def joined(self) -> str:
        """All token keys joined by SEP (with SEP at both ends): sequences are found by str.find."""
        if self._joined is None:
            keys = self.toks.keys
            self._joined = SEP + SEP.join(keys) + SEP
            pos, offset = {}, 1
            for i, key in enumerate(keys):
                pos[offset] = i
                offset += len(key) + 1
            self._token_at = pos
        return self._joined

    @property
    def token_at(self) -> dict[int, int]:
        """Offset in :attr:`joined` -> token index."""
        if self._token_at is None:
            self.joined
        return self._token_at

    @property
    def chains(self) -> list[Chain]:
        if self._chains is None:
            self._chains = build_chains(self.toks, None, self.deadline, keep_segments=True, with_comm=False,
                                        prose=True)
        return self._chains

    def _index_sides(self) -> None:
        by_key: dict[str, list[tuple[int, int]]] = {}
        by_length: dict[int, list[tuple[int, int]]] = {}
        for c, chain in enumerate(self.chains):
            for s, side in enumerate(chain.sides):
                if side.key:
                    by_key.setdefault(side.key, []).append((c, s))
                    by_length.setdefault(side.hi - side.lo, []).append((c, s))
        self._sides, self._by_length = by_key, by_length

    @property
    def sides(self) -> dict[str, list[tuple[int, int]]]:
        """Exact side keys -> [(chain index, side index)]."""
        if self._sides is None:
            self._index_sides()
        return self._sides

    @property
    def sides_by_length(self) -> dict[int, list[tuple[int, int]]]:
        """Token count -> [(chain index, side index)]."""
        if self._by_length is None:
            self._index_sides()
        return self._by_length

    def comm_key(self, c: int, s: int) -> str:
        """Commutative key of side ``s`` of chain ``c`` (:func:`~consensus_metrics.relations.commutative_key`)."""
        return self._comm_key_of(c, s)

    def _comm_key_of(self, c: int, s: int) -> str:
        """Commutative key of one text side (computed once, on demand)."""
        key = self._comm_cache.get((c, s))
        if key is None:
            side = self.chains[c].sides[s]
            self.deadline.check()
            key = commutative_key(self.toks.keys[side.lo:side.hi], self.toks.kinds[side.lo:side.hi])
            self._comm_cache[(c, s)] = key
        return key

    # ------------------------------------------------------------------ sequences
    @cython.ccall
    @cython.locals(keys=tuple, kinds=tuple, i=cython.Py_ssize_t, steps=cython.Py_ssize_t, n=cython.Py_ssize_t, at=cython.Py_ssize_t)
    def find_sequence(self, keys: tuple[str, ...], kinds: tuple[int, ...]) -> tuple[int, int] | None:
        """Earliest occurrence of a token sequence with operand boundaries; char (start, end)."""
        if not keys:
            return None
        if len(keys) == 1:  # one token (a value node): scan the key list, no joined string needed
            key, all_keys = keys[0], self.toks.keys
            is_value = kinds[0] == NUM
            i, steps = -1, 0
            while True:
                try:
                    i = all_keys.index(key, i + 1)
                except ValueError:
                    return None
                steps += 1
                if not steps & 255:
                    self.deadline.check()
                if self._boundaries_ok(i, i + 1, is_value):
                    return self.toks.starts[i], self.toks.ends[i]
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

    @cython.ccall
    @cython.returns(cython.bint)
    @cython.locals(i=cython.Py_ssize_t, j=cython.Py_ssize_t, is_value=cython.bint)
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
        if commutative and len(keys) > 2:
            # reordering terms keeps the token count, up to a leading minus sign (-x+1 ~ 1-x)
            want = _form_commutative_key(tuple(keys), tuple(kinds))
            by_length = self.sides_by_length
            exact = set(found)  # (a set: a repetition loop writes the same side thousands of times)
            for n in (len(keys) - 1, len(keys), len(keys) + 1):
                for hit in by_length.get(n, ()):
                    if hit not in exact and self._comm_key_of(*hit) == want:
                        found.append(hit)
        return found

    def find_relation(self, sides, rels) -> tuple[int, int] | None:
        """Earliest chain holding every adjacent pair of the node's sides, SPEC §3 rule 3."""
        start, end = None, None
        done: dict = {}  # a node ``x = x = ... = x`` asks for the same pair again and again
        for k, rel in enumerate(rels):
            left, right = sides[k], sides[k + 1]
            if not left[0] or not right[0]:
                return None
            self.deadline.check()
            ask = (left, right, rel)
            if ask not in done:
                done[ask] = self._find_pair(left, right, rel, False) or self._find_pair(left, right, rel, True)
            span = done[ask]
            if span is None and rel == "=":
                span = done[ask] = self._find_term_pair(left, right)
            if span is None:
                return None
            start = span[0] if start is None else min(start, span[0])
            end = span[1] if end is None else max(end, span[1])
        return (start, end) if rels else None

    def _find_term_pair(self, left, right) -> tuple[int, int] | None:
        """Span of the earliest rewrite term by term that states ``left = right``
        (:func:`~consensus_metrics.relations.term_chains`, SPEC §3 rule 4; sides equal exactly or
        up to term order). Built on first need, and only for a text that holds every number of
        the node's sides: most equations are found in the chains or not at all."""
        if self._terms is None:
            if self._numbers is None:
                self._numbers = frozenset(k for k, kind in zip(self.toks.keys, self.toks.kinds) if kind == NUM)
            if any(k not in self._numbers for k in (*left[0], *right[0]) if k[0] == "#"):
                return None
            self._terms = [self._term_entry(chain) for chain in term_chains(self.toks, self.chains)]
        if not self._terms:
            return None
        want = {SEP.join(left[0]), SEP.join(right[0])}
        want_comm = {_form_commutative_key(tuple(left[0]), tuple(left[1])),
                     _form_commutative_key(tuple(right[0]), tuple(right[1]))}
        best = None
        for exact, comm, span in self._terms:
            if (exact == want or comm == want_comm) and (best is None or span[1] < best[1]):
                best = span
        return best

    def _term_entry(self, chain: Chain) -> tuple:
        """A term chain as ``(exact side keys, commutative side keys, span)``, computed once per text."""
        a, b = chain.sides
        keys, kinds = self.toks.keys, self.toks.kinds
        self.deadline.check()
        comm = frozenset((commutative_key(keys[a.lo:a.hi], kinds[a.lo:a.hi]),
                          commutative_key(keys[b.lo:b.hi], kinds[b.lo:b.hi])))
        return frozenset((a.key, b.key)), comm, (min(a.start, b.start), max(a.end, b.end))

    def _find_pair(self, left, right, rel, commutative: bool) -> tuple[int, int] | None:
        """Span of the earliest pair of chain sides, one equal to ``left`` and one to ``right``,
        joined by ``rel``: for an equality, sides of one run of ``=``/``≡`` links (an ``≡``
        among them for ``≡``), else adjacent sides joined by ``rel`` (or its flip, reversed)."""
        lhits = self.side_candidates(*left, commutative)
        if not lhits:
            return None
        rhits = self.side_candidates(*right, commutative)
        if not rhits:
            return None
        pair = earliest_pair(self.chains, lhits, rhits, rel, self.deadline)
        if pair is None:
            return None
        c, p, q = pair
        a, b = self.chains[c].sides[p], self.chains[c].sides[q]
        return min(a.start, b.start), max(a.end, b.end)


@lru_cache(maxsize=65536)
def _form_commutative_key(keys: tuple, kinds: tuple) -> str:
    return commutative_key(keys, kinds)
