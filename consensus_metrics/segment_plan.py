r"""Segments of a text: the sentences and lines that matching tokenises, found around anchors.

Chains and token sequences never cross a segment boundary (a sentence end, or a line break that
does not continue a relation chain, see :data:`_SEGMENT_CUT_RE`). The matcher tokenises only the
segments where some form's anchors occur (:mod:`consensus_metrics.anchors`), and finds them on
demand (:class:`SegmentPlan`): a covered node's later segments are never delimited.

>>> segments("So 5! = 120. Then\n&= 7\nx")
[0, 13, 23]
"""

from __future__ import annotations

try:
    import cython
except ImportError:  # Cython is needed to compile, not to run: its declarations are then no-ops
    from . import _cython_shadow as cython

import re
from bisect import bisect_right, insort
from functools import lru_cache
from heapq import heappop, heappush

from .anchors import find_anchor, form_anchors, non_ascii_chars, present_alternatives, text_may_contain
from .budget import NO_DEADLINE, Deadline


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
