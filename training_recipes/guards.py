"""Reward-hacking guard for node credit (ConsensusPR).

A node reward pays for *mentioning* checkable intermediate results, so a policy can try to earn it
without doing the work: list every integer up to 5000 (any value node is then "covered"), enumerate
candidate equations (``x=1, x=2, ...``), or paste node-like strings with no reasoning around them.
The guard sits between the completion and the node matcher; the final-answer check (``acc``) never
sees it. It has three rules, each a plain function with a measured threshold:

1. **Number-list redaction** (:func:`redact_number_lists`). A *list run* is a maximal sequence of
   numeric literals separated only by list separators (whitespace, ``, ; |``, ``&``, ``\\\\``,
   ``...``/``\\ldots``/``\\dots``/``\\cdots``, ``\\quad``, "and"/"or"). Runs of at least
   ``max_list_run`` numbers are blanked (replaced by spaces, so character offsets stay valid)
   before node matching: ``"0 1 2 ... 5000"`` covers nothing, while the rest of the completion
   still counts.
2. **Number spam** (:func:`number_spam`). With ``D`` = distinct numeric literals and ``C`` =
   non-whitespace characters, a completion is spam when ``D >= min_distinct_numbers`` and
   ``1000·D/C > max_number_density``. Spam gets no node credit (``ncr = 0``). This catches
   enumerations that slip past rule 1 by putting words or ``=`` between the numbers
   (``"x=1, x=2, ..."``, ``"maybe 1. maybe 2. ..."``).
3. **Node pasting** (:func:`node_char_share`). The share of the completion's non-whitespace
   characters that lie inside node matches (all occurrences; the boxed final answer counts on
   neither side). A completion whose final answer is wrong (``acc = 0``) and that is little more
   than node strings (share >= ``max_node_char_share``, with at least ``min_nodes_for_share``
   covered nodes) gets no node credit. A completion with a verified answer is never judged by
   this rule: node strings leading to the right answer are a terse derivation, not a paste
   (before this gate the rule zeroed 14 honest MATH-500 references that are one equation chain,
   ``f(-2) = 5(-2)^2 + 3(-2) + 4 = 5(4) - 6 + 4 = \\boxed{18}``), and such a completion already
   earns ``acc``. A paste pays only where node credit is all the reward there is, a wrong
   answer, and there the rule holds: whatever the node file, no right answer loses node credit.

Thresholds were set on honest text (see ``training_recipes/README.md``, "Reward-hacking guard"):
the longest list run in 10,122 honest solutions (800 Qwen2.5-Math CoT samples, 7,473 GSM8K train
and 1,319 GSM8K socratic test answers, 500 MATH-500 and 30 AIME 2024 reference solutions) is 42
numbers (a LaTeX table); the most distinct numbers in one solution is 95, at a density of 39.7
per 1000 characters (no solution with 64 or more distinct numbers exceeds 40).

Example:
    >>> from training_recipes.guards import GuardConfig, inspect_completion
    >>> report = inspect_completion(" ".join(str(i) for i in range(200)), GuardConfig())
    >>> report.redacted_numbers, report.number_spam
    (200, True)
    >>> inspect_completion("So 48/2 = 24 clips in May.", GuardConfig()).number_spam
    False
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from consensus_metrics.anchors import utf8_view
from consensus_metrics.budget import Deadline

__all__ = [
    "GuardConfig",
    "GuardReport",
    "NUMBER_RE",
    "boxed_spans",
    "distinct_numbers",
    "distinct_numbers_bound",
    "inspect_completion",
    "node_char_share",
    "number_spam",
    "redact_number_lists",
]

#: A numeric literal: ``12``, ``-3``, ``1,000``, ``2.5``, ``.75``; not the digits of ``x_24`` or ``a1``.
#: The language of ``(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\w)|(?<![\w.])\.\d+(?!\w)``,
#: written to start with one character class (a sign, a point or a digit) so that the regex
#: engine skips every other character at C speed; the look-behind then tests the character
#: before it (same matches, a property test checks it; about 2x faster).
NUMBER_RE = re.compile(
    r"[-−.\d](?<![\w.][-−.\d])"
    r"(?:(?<=[-−])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"  # a sign, then the number
    r"|(?<=\d)(?:\d{0,2}(?:,\d{3})+|\d*)(?:\.\d+)?"  # a digit was read: the rest of the number
    r"|(?<=\.)\d+)(?!\w)"  # .75
)

#: What may stand between two numbers of one list: separators only, no operator, no word.
_LIST_SEPARATOR_RE = re.compile(
    r"^(?:\s|[,;|&]|\\\\|\\[,;:! ]|\\quad|\\qquad|\\ldots|\\dots|\\cdots|\.\.\.|…|\band\b|\bor\b)*$"
)
#: Every character a list run can hold: those of numeric literals and of separators. A run of
#: ``k`` numbers lies inside a stretch of these of at least ``2k - 1`` characters (two numbers
#: are never adjacent: the second would have to start with a sign or a point right after a
#: digit, which ``NUMBER_RE``'s look-behind refuses), so only such stretches are scanned number
#: by number; in honest text there are few.
_LIST_CHARS = r"\d\s.,;:!|&\\\-−…acdlnoqrstu"
_LIST_CHAR_RE = re.compile(f"[{_LIST_CHARS}]")
#: UTF-8 bytes -> 1 where the character may belong to a list run (:data:`_LIST_CHARS`; every
#: byte of a non-ASCII character, conservatively), else 0.
_LIST_BYTES = bytes(1 if b >= 0x80 or _LIST_CHAR_RE.match(chr(b)) else 0 for b in range(256))

@dataclass(frozen=True)
class GuardConfig:
    """Thresholds of the three guard rules; ``enabled=False`` turns the guard off.

    Defaults sit well above what honest solutions reach (see the module docstring).
    """

    enabled: bool = True
    max_list_run: int = 64
    min_distinct_numbers: int = 64
    max_number_density: float = 60.0
    max_node_char_share: float = 0.75
    min_nodes_for_share: int = 2

    def __post_init__(self):
        if self.max_list_run < 2:
            raise ValueError(f"GuardConfig.max_list_run must be >= 2, got {self.max_list_run}")
        if not 0.0 < self.max_node_char_share <= 1.0:
            raise ValueError(f"GuardConfig.max_node_char_share must be in (0, 1], got {self.max_node_char_share}")


@dataclass
class GuardReport:
    """What the guard saw in one completion.

    ``text`` is the completion with long number lists blanked (same length as the input);
    ``redacted_spans`` are their ``(start, end)`` character offsets. ``distinct_numbers`` and
    ``number_density`` are ``None`` when rule 2 did not need to count (see :func:`number_spam`).
    """

    text: str
    redacted_spans: list[tuple[int, int]] = field(default_factory=list)
    redacted_numbers: int = 0
    distinct_numbers: int | None = 0
    number_density: float | None = 0.0
    number_spam: bool = False


#: The ASCII characters ``str.isspace`` (and ``re``'s ``\s``, the same Unicode test) calls whitespace.
_ASCII_SPACES = "".join(c for c in map(chr, range(128)) if c.isspace())
_ASCII_SPACE_BYTES = _ASCII_SPACES.encode()
#: Characters a regex scans between two deadline checks; a window then extends to just after
#: the next character that cannot touch a match (see :func:`_finditer`), so no match is cut.
_WINDOW = 1 << 14
#: A character that is no part of a numeric literal and does not change whether one next to it
#: matches (``NUMBER_RE``'s look-arounds test for ``\w`` and ``.``): a safe place to cut.
_NUMBER_CUT = re.compile(r"[^\w.,\-−]")
#: Any character: braces are single characters, every place is a safe cut.
_ANY_CUT = re.compile(r"[\s\S]")


#: ``text`` as UTF-8 and the set of its non-ASCII characters, at C speed; the matcher asks for the
#: same completion's next, and gets them again without encoding it twice.
_utf8 = utf8_view


def _non_space_chars(text: str, start: int = 0, end: int | None = None) -> int:
    """Non-whitespace characters of ``text[start:end]``, counted at C speed: its length less the
    ASCII whitespace bytes of its UTF-8 form and a count of each non-ASCII space it holds.

    >>> _non_space_chars("x = 5\\n y"), _non_space_chars("a\\u2003b c", 1)
    (4, 2)
    """
    part = text if start == 0 and end is None else text[start:end]
    data, others = _utf8(part)
    spaces = len(data) - len(data.translate(None, _ASCII_SPACE_BYTES))
    for char in others:
        if char.isspace():
            spaces += part.count(char)
    return len(part) - spaces


def _windows(text: str, deadline: Deadline | None, pos: int = 0, cut: re.Pattern = _NUMBER_CUT,
             endpos: int | None = None):
    """``(start, end)`` windows covering ``text[pos:endpos]``, with a ``deadline`` check before
    each, so a megabyte is not one long uninterruptible scan. Each window ends just after a
    character ``cut`` matches: one that no match contains and whose neighbours match the same way
    with or without it (scanning window by window finds what one scan finds)."""
    length = len(text) if endpos is None else endpos
    if deadline is None:
        if pos < length:
            yield pos, length
        return
    while pos < length:
        deadline.check()
        end = min(length, pos + _WINDOW)
        if end < length:
            safe = cut.search(text, end, length)
            end = safe.start() + 1 if safe else length
        yield pos, end
        pos = end


def _finditer(pattern: re.Pattern, text: str, deadline: Deadline | None, pos: int = 0,
              cut: re.Pattern = _NUMBER_CUT, endpos: int | None = None):
    """``pattern.finditer(text, pos, endpos)``, scanned window by window (:func:`_windows`)."""
    for start, end in _windows(text, deadline, pos, cut, endpos):
        yield from pattern.finditer(text, start, end)


def _list_stretches(text: str, min_chars: int, deadline: Deadline | None):
    """``(start, end)`` of the maximal stretches of ``text`` that may hold a list run and are at
    least ``min_chars`` long (every run lies inside one; a stretch may also hold non-ASCII
    characters that no run has). Found on the UTF-8 bytes at C speed: one translation to 0/1
    flags and substring searches, then character offsets counted stretch by stretch."""
    data = _utf8(text)[0]
    flags = data.translate(_LIST_BYTES)
    need = b"\x01" * max(1, min_chars)
    same = len(data) == len(text)  # ASCII: byte and character offsets agree
    pos = char_pos = 0  # a byte offset (a character boundary) and its character offset
    while True:
        if deadline is not None:
            deadline.check()
        at = flags.find(need, pos)
        if at < 0:
            return
        # a stretch starts and ends at an ASCII byte (a 0 flag) or an end: character boundaries
        start = max(pos, flags.rfind(b"\x00", pos, at) + 1)
        end = flags.find(b"\x00", at)
        end = len(flags) if end < 0 else end
        if same:
            yield start, end
        else:
            char_start = char_pos + len(data[pos:start].decode("utf-8", "surrogatepass"))
            char_pos = char_start + len(data[start:end].decode("utf-8", "surrogatepass"))
            yield char_start, char_pos
        pos = end


def redact_number_lists(text: str, min_run: int, deadline: Deadline | None = None
                        ) -> tuple[str, list[tuple[int, int]], int]:
    """Blank every list run of at least ``min_run`` numbers (within ``deadline``, if given).

    Returns ``(redacted_text, spans, n_numbers_redacted)``; ``redacted_text`` has the input's length.
    Only the stretches that can hold such a run (see :data:`_LIST_CHARS`) are scanned number by
    number; the rest of the text costs one C-level scan.

    >>> redact_number_lists("a 1, 2, 3, 4 b", 4)
    ('a            b', [(2, 12)], 4)
    >>> redact_number_lists("1 + 2 = 3", 3)[1]
    []
    """
    spans: list[tuple[int, int]] = []
    n_redacted = 0
    for start, end in _list_stretches(text, 2 * min_run - 1, deadline):
        # one character past the stretch, so that a number's look-ahead sees what follows it
        n_redacted += _list_runs(text, start, min(len(text), end + 1), min_run, deadline, spans)
    if not spans:
        return text, spans, 0
    pieces, cursor = [], 0
    for start, end in spans:
        pieces.append(text[cursor:start])
        pieces.append(" " * (end - start))
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), spans, n_redacted


def _list_runs(text: str, pos: int, endpos: int, min_run: int, deadline: Deadline | None,
               spans: list[tuple[int, int]]) -> int:
    """Append the list runs of at least ``min_run`` numbers in ``text[pos:endpos]`` to ``spans``;
    return how many numbers they hold."""
    n_redacted = 0
    first = previous = None  # the first and the last number of the current run
    run = 0
    for match in _finditer(NUMBER_RE, text, deadline, pos, endpos=endpos):  # streamed: a stopped scan frees little
        if previous is not None and _LIST_SEPARATOR_RE.match(text[previous.end() : match.start()]):
            run += 1
        else:
            if first is not None and run >= min_run:
                spans.append((first.start(), previous.end()))
                n_redacted += run
            first, run = match, 1
        previous = match
    if first is not None and run >= min_run:
        spans.append((first.start(), previous.end()))
        n_redacted += run
    return n_redacted


def number_spam(text: str, config: GuardConfig, deadline: Deadline | None = None
                ) -> tuple[bool, int | None, float | None]:
    """Rule 2: ``(is_spam, distinct_numbers, density per 1000 non-space chars)``.

    The exact count (:func:`distinct_numbers`, a regex scan) runs only when spam is possible:
    when :func:`distinct_numbers_bound` already keeps the count below the thresholds, the answer
    is ``(False, None, None)`` (honest text, nearly always).

    >>> spam, distinct, density = number_spam(", ".join(f"x={i}" for i in range(100)), GuardConfig())
    >>> spam, distinct, round(density, 1)
    (True, 100, 204.5)
    >>> number_spam("So 48/2 = 24 clips in May.", GuardConfig())
    (False, None, None)
    """
    if deadline is not None:
        deadline.check()
    non_space = max(1, _non_space_chars(text))
    # spam needs more distinct numbers than this: a bound that reaches it settles nothing
    needed = max(config.min_distinct_numbers - 1, config.max_number_density * non_space / 1000.0)
    bound = distinct_numbers_bound(text, deadline, stop_above=needed)
    if bound is not None and bound <= needed:
        return False, None, None
    distinct = distinct_numbers(text, deadline)
    density = 1000.0 * distinct / non_space
    return distinct >= config.min_distinct_numbers and density > config.max_number_density, distinct, density


def distinct_numbers(text: str, deadline: Deadline | None = None) -> int:
    """How many different numeric literals (:data:`NUMBER_RE`) ``text`` holds, thousands
    separators dropped and ``−`` read as ``-`` (``1,000`` and ``1000`` are one number).

    >>> distinct_numbers("x = 1,000 or 1000, y = −2 and -2; z = 2.5")
    3
    """
    literals: set[str] = set()
    for start, end in _windows(text, deadline):
        literals.update(NUMBER_RE.findall(text, start, end))  # strings, no match objects: C speed
    return len({literal.replace(",", "").replace("−", "-") for literal in literals})


#: UTF-8 bytes -> themselves for the characters of a numeric literal (``0-9 . , -``), else a space.
_RUN_BYTES = bytes(c if chr(c) in "0123456789.,-" else 0x20 for c in range(256))
#: ... and those characters -> their class: a digit ``1``, ``.`` ``p``, ``,`` ``c``, ``-`` ``m``.
_RUN_CLASS_BYTES = bytes(
    0x31 if 0x30 <= c <= 0x39 else {0x2E: 0x70, 0x2C: 0x63, 0x2D: 0x6D}.get(c, 0x20) for c in range(256))


@lru_cache(maxsize=4096)
def _literal_spans(shape: bytes) -> int:
    """How many ``(start, end)`` pairs of a run of that shape (see :func:`distinct_numbers_bound`)
    can delimit a literal: a start at a digit, or at ``-``/``.`` before a digit, that is the run's
    first character or follows ``,`` or ``-``; an end after a digit that is the run's last or
    precedes a non-digit.

    >>> _literal_spans(b"11"), _literal_spans(b"1p1"), _literal_spans(b"m1"), _literal_spans(b"11c111")
    (1, 2, 2, 3)
    """
    n = len(shape)
    starts = [i for i in range(n)
              if (shape[i] == 0x31 or shape[i] in (0x6D, 0x70) and i + 1 < n and shape[i + 1] == 0x31)
              and (i == 0 or shape[i - 1] in (0x63, 0x6D))]
    ends = [j for j in range(1, n + 1) if shape[j - 1] == 0x31 and (j == n or shape[j] != 0x31)]
    return sum(1 for i in starts for j in ends if j > i)


def distinct_numbers_bound(text: str, deadline: Deadline | None = None, stop_above: float | None = None
                           ) -> int | None:
    """An upper bound on :func:`distinct_numbers` at C speed, or ``None`` when the text holds
    non-ASCII digits (a literal may contain them).

    With ``−`` read as ``-``, a literal is made of ``0-9 . , -`` only, so it lies inside one
    maximal *run* of those characters, starting where a literal may start and ending where one
    may end -- places that depend on the run alone, except at its two ends, which count as
    possible whatever stands outside (:func:`_literal_spans`). So the distinct literals number at
    most, over the distinct runs, the pairs of such places. The runs are found by translating the
    UTF-8 bytes and splitting, their shapes counted with ``collections.Counter``: no regex.

    A text longer than one scan window is bounded window by window (cut between runs; the sum
    is a bound too), with a ``deadline`` check before each, and the count stops once it exceeds
    ``stop_above`` (what the caller would have to rule out).

    >>> text = ", ".join(f"x={i}" for i in range(100))
    >>> distinct_numbers_bound(text) >= distinct_numbers(text) == 100
    True
    >>> distinct_numbers_bound("Step 1: x = 2. Step 2: x = -2.5.")  # 1, 2, -2.5; -2.5 might also be 2.5, -2 or 2
    7
    """
    data, others = _utf8(text)
    if others and any(char.isdecimal() for char in others):  # re's \\d is Unicode's Nd, str.isdecimal
        return None
    if len(text) <= _WINDOW:
        return _bound_of(data, "−" in others)
    total = 0
    for start, end in _windows(text, deadline, cut=_RUN_CUT):
        total += _bound_of(text[start:end].encode("utf-8", "surrogatepass"), "−" in others)
        if stop_above is not None and total > stop_above:
            break
    return total


#: A character no run of literal characters holds: windows of the bound are cut after one.
_RUN_CUT = re.compile(r"[^0-9.,\-−]")


def _bound_of(data: bytes, minus: bool) -> int:
    """:func:`distinct_numbers_bound` of one piece of UTF-8 text."""
    if minus:  # UTF-8 is self-synchronising: replacing the bytes of − replaces the character
        data = data.replace("−".encode(), b"-")
    runs = set(data.translate(_RUN_BYTES).split())
    shapes = b" ".join(runs).translate(_RUN_CLASS_BYTES)
    while b"11" in shapes:  # a digit group's length changes nothing: one digit stands for it
        shapes = shapes.replace(b"1111", b"1").replace(b"11", b"1")
    total = 0
    for shape, count in Counter(shapes.split()).items():
        # a long shape (a megabyte of 1,2,3,...): at most two starts per digit group, one end each
        groups = shape.count(b"1")
        total += count * (_literal_spans(shape) if len(shape) <= 64 else groups * (groups + 1))
    return total


_BRACE_RE = re.compile(r"[{}]")


def boxed_spans(text: str, deadline: Deadline | None = None) -> list[tuple[int, int]]:
    r"""Character spans of every ``\boxed{...}`` (braces matched; an unclosed one runs to the end).

    >>> boxed_spans("so \\boxed{\\frac{1}{2}} done")
    [(3, 22)]
    """
    spans, start = [], text.find("\\boxed{")
    while start != -1:
        depth, end = 0, len(text)
        for brace in _finditer(_BRACE_RE, text, deadline, start + len("\\boxed"), _ANY_CUT):
            depth += 1 if brace.group() == "{" else -1
            if depth == 0:
                end = brace.end()
                break
        spans.append((start, end))
        start = text.find("\\boxed{", end)
    return spans


def node_char_share(text: str, spans, ignore=()) -> float:
    r"""Rule 3: share of non-whitespace characters of ``text`` inside the union of ``spans``.

    ``spans`` are ``(start, end)`` character offsets (e.g. the ``positions`` of a score dict);
    characters inside ``ignore`` spans (the boxed final answer) count on neither side.

    >>> node_char_share("x=5 so y=7", [(0, 3), (7, 10)])
    0.75
    >>> node_char_share("x=5 \\boxed{5}", [(0, 3)], ignore=[(4, 13)])
    1.0
    """
    ignored = _union(ignore, len(text))
    total = _non_space_chars(text) - sum(_non_space_chars(text, a, b) for a, b in ignored)
    if not total:
        return 0.0
    covered = _union(((a, b) for a, b in spans if a is not None and b is not None), len(text))
    inside = sum(_non_space_chars(text, a, b) for a, b in covered)
    inside -= sum(_non_space_chars(text, a, b) for a, b in _intersect(covered, ignored))
    return inside / total


def _union(spans, length: int) -> list[tuple[int, int]]:
    """Disjoint, sorted ``(start, end)`` intervals covering ``spans`` clipped to ``[0, length]``."""
    merged: list[list[int]] = []
    for start, end in sorted((max(0, int(a)), min(length, int(b))) for a, b in spans):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def _intersect(first: list[tuple[int, int]], second: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Intersection of two disjoint sorted interval lists."""
    out, i, j = [], 0, 0
    while i < len(first) and j < len(second):
        start, end = max(first[i][0], second[j][0]), min(first[i][1], second[j][1])
        if start < end:
            out.append((start, end))
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return out


def inspect_completion(text: str, config: GuardConfig, deadline: Deadline | None = None) -> GuardReport:
    """Apply rules 1 and 2 to one completion (rule 3 needs the matcher's spans; see rewards).

    With ``deadline`` the work stops (``BudgetExceeded``) when it has passed: the guard is part
    of a completion's scoring budget."""
    if not config.enabled:
        return GuardReport(text=text)
    redacted, spans, n_redacted = redact_number_lists(text, config.max_list_run, deadline)
    spam, distinct, density = number_spam(text, config, deadline)
    return GuardReport(
        text=redacted,
        redacted_spans=spans,
        redacted_numbers=n_redacted,
        distinct_numbers=distinct,
        number_density=density,
        number_spam=spam,
    )
