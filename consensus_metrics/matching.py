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

try:
    import cython
except ImportError:  # Cython is needed to compile, not to run: its declarations are then no-ops
    from . import _cython_shadow as cython

import re
import threading
from bisect import bisect_right, insort
from collections import OrderedDict
from functools import lru_cache
from heapq import heappop, heappush
from typing import NamedTuple

from . import sandbox
from .anchors import (find_anchor, form_anchors, non_ascii_chars, present_alternatives,
                      text_may_contain)
from .budget import NO_DEADLINE, BudgetExceeded, Deadline, check_budget
from .chaining import ChainFollower
from .nodes import Node, coerce_nodes
from .normalize import FUNC, ID, NUM, SEGMENT_CACHE_CHARS, Tokens, plain_str, tokenize_cached
from .relations import SEP, Chain, build_chains, commutative_key, split_relation
from .side_pairs import EQUALITY as _EQUALITY, earliest_pair
from .symbolic import SymbolicChecker


class NodeMatch(NamedTuple):
    """Result for one node: ``covered``, and the earliest match as ``text[start:end]`` (an
    immutable named tuple: cheap to create on every completion)."""

    node_id: str
    covered: bool
    start: int | None = None
    end: int | None = None
    form: str | None = None
    via: str | None = None  # "tokens", "relation", "commutative", "chain" or "symbolic"


_VALUE_LEFT_BLOCK = {"^", "_", "neg"}
_VALUE_RIGHT_BLOCK = {"^", "!", "_"}
_EXPR_LEFT_BLOCK = {"^", "_", "/", "*", "neg", "-", "!"}
_EXPR_RIGHT_BLOCK = {"^", "*", "/", "!", "_"}


# A segment ends after a sentence end (". ", "? ", and "! " after a word -- after a number it is a
# factorial -- followed by more text on the line that does not continue the math: "n! = 120" and
# "1 + 2 + ... + 10" go on) or at a line break, unless the next line continues a relation chain
# ("&= 9" in align) or the line break follows the opening \[ or $$ of a display formula or a
# LaTeX line break \\ (the next row: its tokens still start after a break). Chains and token
# sequences never cross either.
_AFTER_LINE_BREAK = r"(?<!\\\[\n)(?<!\$\$\n)(?<!\\\\\n)(?![ \t&]*(?:=|<|>|≤|≥|≡|\\le|\\ge|\\equiv|\\approx|\\neq))"
_MATH_GOES_ON = r"[=<>≤≥≠≈≡+*/^×·÷−-]|\\(?:cdot|times|div|pm|leq?|geq?|neq?|approx|equiv)(?![A-Za-z])"
_AFTER_SENTENCE_END = rf"(?<![^A-Za-z]!)(?<!\A!)[ \t]+(?=\S)(?!{_MATH_GOES_ON})"
_LINE_CUT = r"\n" + _AFTER_LINE_BREAK
_SENTENCE_CUT = "[.?!]" + _AFTER_SENTENCE_END
# either cut, written to start with one character class: the regex engine then skips to the next
# line break or ".?!" at C speed instead of trying both branches at every character
_SEGMENT_CUT_RE = re.compile(rf"[\n.?!](?:(?<=\n){_AFTER_LINE_BREAK}|(?<=[.?!]){_AFTER_SENTENCE_END})")
_CUT_LOOKAHEAD = 16  # characters past a sentence cut its lookahead may read (at most 9: "\\approx" + 1)
_LINE_CUT_RE = re.compile(_LINE_CUT)
_SENTENCE_CUT_RE = re.compile(_SENTENCE_CUT)


def segments(text: str) -> list[int]:
    r"""Start offsets of the sentences/lines of ``text`` (see :data:`_SEGMENT_CUT_RE`).

    >>> segments("So 5! = 120. Then\n&= 7\nx")
    [0, 13, 23]
    """
    return [0, *map(re.Match.end, _SEGMENT_CUT_RE.finditer(text))]


def segment_around(text: str, at: int, lo: int = 0) -> tuple[int, int]:
    r"""``(start, end)`` of the segment holding ``text[at]`` -- the one :func:`segments` gives --
    found from ``at``: only the lines of that segment are scanned, not the whole text. ``lo`` is
    a known segment start at or before ``at`` (the search backwards stops there). ``text[at]``
    must not lie inside a cut (whitespace, a sentence-ending ``.?!``); no anchor does.

    >>> text = "So 5! = 120. Then\n&= 7\nx"
    >>> segment_around(text, text.index("7")), segment_around(text, text.index("5"))
    ((13, 23), (0, 13))
    """
    cut = _SEGMENT_CUT_RE.search(text, at)
    end = cut.end() if cut else len(text)
    upto, stop = at, at + 1  # look for the last line break before upto, sentence ends before stop
    while True:
        line = max(text.rfind("\n", lo, upto), lo - 1)
        start = _last_sentence_cut(text, line + 1, stop)
        if start >= 0:
            return start, end
        if line < lo or _LINE_CUT_RE.match(text, line):
            return line + 1, end
        upto = stop = line  # this line break continues a chain ("&= 9"): look on the line before


@cython.locals(lo=cython.Py_ssize_t, stop=cython.Py_ssize_t, p=cython.Py_ssize_t)
def _last_sentence_cut(text: str, lo: int, stop: int) -> int:
    """End of the last sentence cut (``_SENTENCE_CUT_RE``) that starts at or after ``lo`` and ends
    before ``stop``, or -1: the sentence ends are tried from ``stop`` backwards (cuts never
    overlap: one is a ``.?!`` and the blanks after it), the nearest first. The regex may read a
    little past ``stop``, where a cut's lookahead ("not followed by math") looks."""
    p = stop
    while True:
        p = max(text.rfind(".", lo, p), text.rfind("?", lo, p), text.rfind("!", lo, p))
        if p < 0:
            return -1
        cut = _SENTENCE_CUT_RE.match(text, p, stop + _CUT_LOOKAHEAD)
        if cut is not None and cut.end() < stop:
            return cut.end()


class _Segments:
    """The segments of one text delimited so far (by :func:`segment_around`), found again by
    offset: the anchors of a problem's forms mostly sit in the same few sentences."""

    def __init__(self, text: str):
        self.text = text
        self.starts: list[int] = []  # ascending
        self.ends: dict[int, int] = {}

    def around(self, at: int) -> tuple[int, int]:
        k = bisect_right(self.starts, at) - 1
        lo = 0
        if k >= 0:
            start = self.starts[k]
            if at < self.ends[start]:
                return start, self.ends[start]
            lo = self.ends[start]  # the nearest known segment ends before at: a segment start
        start, end = segment_around(self.text, at, lo)
        insort(self.starts, start)
        self.ends[start] = end
        return start, end


def _anchor_segments(text: str, lowered: str | None, groups, known: _Segments,
                     deadline: Deadline) -> dict[int, int] | None:
    """The segments holding every anchor group of one form, as ``{start: end}``; ``None`` for a
    form without anchors (every segment)."""
    if not groups:
        return None
    first = groups[0]
    hay = text
    if any(alt[0] == "~" for alt in first):  # word anchors are case-insensitive
        if lowered is None or len(lowered) != len(text):
            return None
        hay = lowered
    hit: dict[int, int] = {}
    for alt in first:
        needle = alt[1:] if alt[0] == "~" else alt
        at = find_anchor(hay, needle)
        steps = 0
        while at >= 0:
            steps += 1
            if not steps & 1023:
                deadline.check()
            start, end = known.around(at)
            hit[start] = end
            at = find_anchor(hay, needle, end)  # the rest of this segment is already counted
    if len(groups) == 1:
        return hit
    return {start: end for start, end in hit.items() if text_may_contain(text[start:end], groups[1:])}


@lru_cache(maxsize=4096)
def _anchor_plan(forms: tuple[str, ...]) -> tuple[tuple[tuple, tuple[int, ...], bool], ...]:
    """Forms grouped by their anchor groups: ``(groups, form indices, any word anchor)`` (cached:
    the same nodes are matched against every completion of a problem)."""
    by_groups: dict[tuple, list[int]] = {}
    for f, form in enumerate(forms):
        by_groups.setdefault(form_anchors(form), []).append(f)
    return tuple((groups, tuple(ids), any(alt[0] == "~" for g in groups for alt in g))
                 for groups, ids in by_groups.items())


def plan_segments(text: str, forms, deadline: Deadline = NO_DEADLINE):
    """Where each form can occur: ``(bounds, plan)``, ``bounds`` = ``{segment start: end}`` of the
    candidate segments and ``plan`` = ``{segment start: [form indices]}``.

    Segments are the sentences/lines of the text (:func:`segments`); a form is a candidate in a
    segment only if all its anchor groups occur there (:mod:`consensus_metrics.anchors`). Only
    the segments around anchor occurrences are delimited, not the whole text. This is
    :class:`SegmentPlan` walked to the end (the matcher walks it only as far as it needs).
    """
    planner = SegmentPlan(text, forms, deadline)
    for _ in planner.walk():
        pass
    return planner.bounds, planner.plan


def _form_segments(text: str, lowered: str | None, groups, known: _Segments, deadline: Deadline):
    """The segments holding every anchor group of one form, ``(start, end)`` in text order, found
    one at a time (the lazy form of :func:`_anchor_segments`; every segment for a form without
    anchors)."""
    hay = text
    if groups and any(alt[0] == "~" for alt in groups[0]):  # word anchors are case-insensitive
        hay = lowered if lowered is not None and len(lowered) == len(text) else None
    if not groups or hay is None:  # no anchor to go by: every segment
        starts = segments(text)
        yield from zip(starts, starts[1:] + [len(text)])
        return
    rest = groups[1:]
    needles = [alt[1:] if alt[0] == "~" else alt for alt in groups[0]]
    ahead = [find_anchor(hay, needle) for needle in needles]  # each alternative's next occurrence
    steps = 0
    while True:
        at = -1
        for pos in ahead:
            if pos >= 0 and (at < 0 or pos < at):
                at = pos
        if at < 0:
            return
        steps += 1
        if not steps & 255:
            deadline.check()
        start, end = known.around(at)
        for i, pos in enumerate(ahead):
            if 0 <= pos < end:  # the rest of this segment is counted now
                ahead[i] = find_anchor(hay, needles[i], end)
        if not rest or text_may_contain(text[start:end], rest):
            yield start, end


def _has_digit(group: tuple) -> bool:
    return any(ch.isdigit() for alt in group for ch in alt)


def _choose_first(text: str, lowered: str | None, keys: list, groups: list, occurs: dict) -> bool:
    """Put first the group of ``groups`` (a form's present anchor groups, most selective first,
    ``keys`` their cache keys) whose occurrences are the segments to look in: the most selective
    numeral group (a numeral is rarer than a letter or a sign, a longer one rarer still), or the
    most selective group when there is none. False when one group does not occur at all (the
    form cannot occur): each group's first occurrence is searched at C speed, once per text.
    Which group goes first changes only the work, never the segments found (all must occur)."""
    for k, group in enumerate(groups):
        seen = occurs.get(keys[k])
        if seen is None:
            seen = occurs[keys[k]] = any(
                find_anchor(lowered if alt[0] == "~" and lowered is not None else text,
                            alt[1:] if alt[0] == "~" else alt) >= 0 for alt in group)
        if not seen:
            return False
    best = next((k for k, group in enumerate(groups) if _has_digit(group)), 0)
    if best:
        groups.insert(0, groups.pop(best))
    return True


class SegmentPlan:
    """:func:`plan_segments` found on demand: the candidate segments of one text for a problem's
    forms, in text order, each found only when the scan reaches it.

    The matcher settles a node at the first segment holding one of its forms, so on a long text
    most candidate segments of a covered node need never be delimited: every group of forms
    (forms with the same anchor groups) is a stream of its segments (:func:`_form_segments`),
    the streams are merged by segment start, and a stream whose forms are no longer wanted
    (their nodes are covered) is not followed further. ``bounds`` and ``plan`` hold what was
    found so far, with the dicts of :func:`plan_segments`; a form whose stream was followed to
    its end has all its segments there.

    >>> planner = SegmentPlan("x = 2. Then y = 7. And 2 + 5 = 7.", ["x = 2", "7"])
    >>> next(planner.walk()), planner.plan
    (0, {0: [0]})
    >>> list(planner.walk()), planner.plan
    ([0, 7, 19], {0: [0], 7: [1], 19: [1]})
    """

    def __init__(self, text: str, forms, deadline: Deadline = NO_DEADLINE):
        self.deadline = deadline
        self.bounds: dict[int, int] = {}
        self.plan: dict[int, list[int]] = {}
        lowered = None
        others = non_ascii_chars(text)
        present: dict[tuple, tuple] = {}  # group -> its alternatives that can occur in this text
        occurs: dict[tuple, bool] = {}
        known = self.known = _Segments(text)  # shared by every stream (and the chain follower)
        self._streams = []  # (segments of one group of forms, its form indices)
        for all_groups, form_ids, has_word in _anchor_plan(tuple(forms)):
            if has_word and lowered is None:
                lowered = text.lower()
            groups = []
            for group in all_groups:
                here = present.get(group)
                if here is None:  # alternatives with a character the text lacks are never looked for
                    here = present[group] = present_alternatives(group, others)
                if not here:
                    break
                groups.append(here)
            else:
                if len(groups) > 1 and not _choose_first(text, lowered, all_groups, groups, occurs):
                    continue
                self._streams.append((_form_segments(text, lowered, tuple(groups), known, deadline), form_ids))
        self._heap: list[tuple[int, int, int]] | None = None  # (start, end, stream) of each stream's next segment
        self._advance: list[int] = []  # streams whose segment was handed out: move them on when asked again

    def _follow(self, stream: int, wanted) -> None:
        segments_of, form_ids = self._streams[stream]
        if wanted is None or any(wanted(f) for f in form_ids):
            found = next(segments_of, None)
            if found is not None:
                heappush(self._heap, (found[0], found[1], stream))

    def walk(self, wanted=None):
        """Starts of the candidate segments, ascending: those found by earlier walks, then new
        ones. ``wanted(form index)`` (asked again before each step) says which forms still matter;
        a segment none of whose forms matter is skipped and their streams are dropped. Each
        segment's forms are in ``plan`` and its end in ``bounds`` when its start is yielded."""
        yield from sorted(self.plan)
        if self._heap is None:
            self._heap = []
            for stream in range(len(self._streams)):
                self._follow(stream, wanted)
        heap, plan = self._heap, self.plan
        while True:
            for stream in self._advance:
                self._follow(stream, wanted)
            self._advance.clear()
            if not heap:
                return
            start = heap[0][0]
            ids: list[int] = []
            while heap and heap[0][0] == start:
                _, end, stream = heappop(heap)
                form_ids = self._streams[stream][1]
                if wanted is None or any(wanted(f) for f in form_ids):
                    self.bounds[start] = end
                    ids.extend(form_ids)
                    self._advance.append(stream)
            self.deadline.check()
            if ids:
                plan[start] = ids
                yield start


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
            self._chains = build_chains(self.toks, None, self.deadline, keep_segments=True, with_comm=False)
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
            if span is None:
                return None
            start = span[0] if start is None else min(start, span[0])
            end = span[1] if end is None else max(end, span[1])
        return (start, end) if rels else None

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


@lru_cache(maxsize=65536)
def _form_commutative_key(keys: tuple, kinds: tuple) -> str:
    return commutative_key(keys, kinds)


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
    """``(node index, form)`` for the distinct forms of each node, and those forms (cached: the
    same nodes are matched against every completion of a problem)."""
    flat = tuple((n, form) for n, forms in enumerate(forms_per_node) for form in distinct_forms(forms))
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

    follower = ChainFollower(segments_with, index_of, deadline)
    for n, node_forms in todo.items():
        best = None
        for form in node_forms:
            sides, rels = split_relation(form)
            if rels != ("=",) or not sides[0][0] or not sides[1][0]:
                continue
            span = (follower.follow(sides[0], sides[1]) or follower.follow(sides[1], sides[0])
                    or follower.computation(sides[0], sides[1]) or follower.computation(sides[1], sides[0]))
            if span is not None and (best is None or (span[1], span[0]) < (best[0][1], best[0][0])):
                best = ((span[0], span[1], "chain"), form)
        if best is not None:
            results[n] = _as_match(nodes[n], best)
            open_nodes.discard(n)


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