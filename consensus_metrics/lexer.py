r"""The lexer: math text (LaTeX, Unicode or plain) cut into raw lexemes, the first step of
:mod:`consensus_metrics.normalize` (the token rules, :mod:`consensus_metrics.token_rules`, read
them into canonical tokens).

One regular expression, :data:`_LEXEME_RE`, defines the lexemes; :func:`lex` reads the text left to
right with it (the commonest lexemes by a character test that gives the same), and each lexeme has

* a ``kind`` -- :data:`TAG` (``<think>``), :data:`COMMAND` (``\frac``), :data:`ESCAPE` (``\,``,
  ``\{``), :data:`COMPOUND` (``2nd``, ``4-pack``, ``x-axis``: prose, not arithmetic),
  :data:`NUMERAL` (``12``, ``0.75``, ``1,000``), :data:`LETTERS` (a run of letters; several long
  lower-case words separated by single spaces come as one run), :data:`SUPERSCRIPT` (``²``),
  :data:`SYMBOL` (an ASCII operator or bracket, ``**``, ``<=``, ``...``) or :data:`OTHER` (any other
  character);
* its ``text``, its ``start`` and ``end`` in the source;
* its ``gap``: what separates it from the lexeme before: :data:`GLUED` (nothing), :data:`SPACE`
  (spaces) or :data:`LINE_BREAK` (whitespace holding a line break).

The lexemes of a text are stored column by column in :class:`Lexemes` (parallel lists, one
entry per lexeme: the token rules read them by index without building an object per lexeme);
``lexemes[j]`` gives one as a :class:`Lexeme` named tuple.

>>> lexemes = lex("Step 2: $x^{2}$ km")
>>> [(KIND_NAMES[kind], text) for kind, text, *_ in lexemes]  # doctest: +NORMALIZE_WHITESPACE
[('LETTERS', 'Step'), ('NUMERAL', '2'), ('SYMBOL', ':'), ('SYMBOL', '$'), ('LETTERS', 'x'),
 ('SYMBOL', '^'), ('SYMBOL', '{'), ('NUMERAL', '2'), ('SYMBOL', '}'), ('SYMBOL', '$'), ('LETTERS', 'km')]
>>> lexemes[1]
Lexeme(kind=6, text='2', start=5, end=6, gap=1)

List markers that open a line and the stars of italics (``*x = 3*``) are layout and are removed
(:func:`lex` with ``markdown=True``: :func:`drop_list_markers`, :func:`drop_emphasis_stars`).
"""

from __future__ import annotations

try:
    import cython
except ImportError:  # Cython is needed to compile, not to run: its declarations are then no-ops
    from . import _cython_shadow as cython

import re
from typing import NamedTuple

from .budget import NO_DEADLINE, Deadline

#: Lexeme kinds: the number of the regular expression's group that matched.
TAG, COMMAND, ESCAPE, COMPOUND, NUMERAL, LETTERS, SUPERSCRIPT, SYMBOL, OTHER = range(2, 11)
KIND_NAMES = {TAG: "TAG", COMMAND: "COMMAND", ESCAPE: "ESCAPE", COMPOUND: "COMPOUND", NUMERAL: "NUMERAL",
              LETTERS: "LETTERS", SUPERSCRIPT: "SUPERSCRIPT", SYMBOL: "SYMBOL", OTHER: "OTHER"}
#: Gaps: what separates a lexeme from the one before it.
GLUED, SPACE, LINE_BREAK = 0, 1, 2

# One lexeme per match: leading whitespace (group 1) is folded into the lexeme that follows.
# Possessive quantifiers (``++``, ``*+``, ``{2,}+``; Python 3.11) never give back what they
# matched: wherever giving back could not lead to a match anyway, they only spare the engine
# the retries (a word is scanned once, not once per shorter prefix). The group of each kind, in
# the order the engine tries them:
_KIND_PATTERNS = {
    "tag": r"</?[A-Za-z]{2,}+[A-Za-z0-9_]*+>",
    "cmd": r"\\[A-Za-z]++",
    "esc": r"\\.",
    "compound": r"\d++(?:st|nd|rd|th)(?![A-Za-z])|\d++(?:\.\d++)?+-[A-Za-z]{3,}+(?:-[A-Za-z]++)*+"
                r"|[A-Za-z]{2,}+(?:-[A-Za-z]{2,}+)++|[A-Za-z]-[A-Za-z]{3,}+(?:-[A-Za-z]++)*+",
    "num": r"\d{1,3}(?:(?:,|\{,\}|\\,)\d{3})+(?:\.\d+)?(?![\d])|\d++(?:\.\d++)?+|\.\d++",
    "word": r"[A-Za-z]{4,}+(?:[ ](?!(?:sqrt|sinh|cosh|tanh|arc[a-z]+)(?![a-z]))[a-z]{4,}+(?![\w\\{(^_$]|-[A-Za-z]))+"
            r"|[A-Za-z]++",
    "sup": r"[⁰¹²³⁴⁵⁶⁷⁸⁹]++",
    "op": r"\*\*|\.\.\.|==|:=|<=|>=|!=|[-+*/^_=<>!(){}\[\]|,;:.%$&?']",
    "other": r"\S",
}


def _lexeme_regex(kinds=tuple(_KIND_PATTERNS)) -> re.Pattern:
    """The lexeme regex; a kind not in ``kinds`` keeps its group (the group numbers, and so the
    lexeme kinds, stay the same) but cannot match."""
    body = "|".join(f"(?P<{kind}>{pattern if kind in kinds else '(?!)'})" for kind, pattern in _KIND_PATTERNS.items())
    return re.compile(rf"(\s*+)(?:{body})", re.DOTALL)


_LEXEME_RE = _lexeme_regex()


def _by_first_character() -> list:
    """For each ASCII character, the lexeme regex without the kinds that cannot start with it
    (a group the engine would try in vain costs as much as a match: a word is read as a
    compound first). Any other character gets the whole regex."""
    table = []
    for code in range(128):
        char = chr(code)
        if "a" <= char.lower() <= "z":
            kinds = ("compound", "word", "other")
        elif "0" <= char <= "9":
            kinds = ("compound", "num", "other")
        elif char == "<":
            kinds = ("tag", "op", "other")
        elif char == "\\":
            kinds = ("cmd", "esc", "other")
        elif char == ".":
            kinds = ("num", "op", "other")
        else:
            kinds = ("op", "other")
        table.append(_lexeme_regex(kinds))
    return table


_BY_FIRST_CHARACTER = _by_first_character()


class Lexeme(NamedTuple):
    """One lexeme (see the module docstring)."""

    kind: int
    text: str
    start: int
    end: int
    gap: int


class Lexemes:
    """The lexemes of one text, column by column: ``kind[j]``, ``text[j]``, ``start[j]``,
    ``end[j]`` and ``gap[j]`` describe lexeme ``j``.

    The columns are edited in place only (the token rules hold them): :meth:`drop` removes the
    layout :func:`lex` finds, and :meth:`split_run` and :meth:`drop_first_character` are the
    edits the token rules make while reading.
    """

    __slots__ = ("kind", "text", "start", "end", "gap")

    def __init__(self, kind: list[int], text: list[str], start: list[int], end: list[int], gap: list[int]):
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end
        self.gap = gap

    def __len__(self) -> int:
        return len(self.kind)

    def __getitem__(self, j: int) -> Lexeme:
        return Lexeme(self.kind[j], self.text[j], self.start[j], self.end[j], self.gap[j])

    def __repr__(self) -> str:
        return f"Lexemes({self.text!r})"

    def drop(self, indices: set) -> None:
        """Remove the lexemes at ``indices``, in one pass over each column (removing them one
        run at a time is quadratic in their number).

        >>> lexemes = lex("a b c d", markdown=False); lexemes.drop({1, 2}); lexemes.text
        ['a', 'd']
        """
        if indices:
            for column in (self.kind, self.text, self.start, self.end, self.gap):
                column[:] = [x for i, x in enumerate(column) if i not in indices]

    def split_run(self, j: int) -> None:
        """Replace the run of prose words at ``j`` (``there must have been``) by one
        :data:`LETTERS` lexeme per word; the first keeps the run's gap.

        >>> lexemes = lex("so there must have been")
        >>> lexemes.split_run(1); lexemes.text, lexemes.start, lexemes.gap
        (['so', 'there', 'must', 'have', 'been'], [0, 3, 9, 14, 19], [0, 1, 1, 1, 1])
        """
        words = self.text[j].split(" ")
        starts, at = [], self.start[j]
        for word in words:
            starts.append(at)
            at += len(word) + 1
        self.kind[j:j + 1] = [LETTERS] * len(words)
        self.text[j:j + 1] = words
        self.start[j:j + 1] = starts
        self.end[j:j + 1] = [s + len(word) for s, word in zip(starts, words)]
        self.gap[j:j + 1] = [self.gap[j]] + [SPACE] * (len(words) - 1)

    def drop_first_character(self, j: int) -> None:
        """What is left of lexeme ``j`` once a command took its first character as an argument
        (``\\frac12``: the ``1`` of ``12``): the rest, glued."""
        self.text[j] = self.text[j][1:]
        self.start[j] += 1
        self.gap[j] = GLUED


@cython.locals(text=str, n=cython.Py_ssize_t, pos=cython.Py_ssize_t, prev_end=cython.Py_ssize_t,
               start=cython.Py_ssize_t, end=cython.Py_ssize_t, code=cython.Py_ssize_t, kind=cython.Py_ssize_t,
               char=cython.Py_UCS4)
def lex(text: str, deadline: Deadline = NO_DEADLINE, markdown: bool = True) -> Lexemes:
    """The lexemes of ``text``; with ``markdown`` (a solution, not a node form), without the list
    markers that open a line, the stars of italics and inch marks (:func:`drop_list_markers`,
    :func:`drop_emphasis_stars`, :func:`drop_inch_marks`). Raises
    :class:`~consensus_metrics.budget.BudgetExceeded` past the deadline (checked every 4,096
    lexemes).

    Each lexeme is read by the regex of its first character (:data:`_BY_FIRST_CHARACTER`):
    the same lexemes as ``_LEXEME_RE.finditer(text)``, whose matches are contiguous."""
    kinds, texts, starts, ends, gaps = [], [], [], [], []
    line_starts = [0]
    n = len(text)
    prev_end = 0
    table = _BY_FIRST_CHARACTER
    while True:
        pos = prev_end
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            break
        # the commonest lexemes are read here, where the regex would read the same: a symbol no
        # longer lexeme starts with, a digit run not followed by what makes it a compound or a
        # longer numeral, a letter run not followed by what makes it a compound or a run of words
        char = text[pos]
        start = pos
        end = pos + 1
        kind = 0
        if char in "(){}[]|,;%$&?'+-/^_":
            kind = SYMBOL
        elif "0" <= char <= "9":
            while end < n and "0" <= text[end] <= "9":
                end += 1
            if end == n or ord(text[end]) < 128 and text[end] not in ",{\\.-" and not text[end].isalpha():
                kind = NUMERAL
        elif "a" <= char <= "z" or "A" <= char <= "Z":
            while end < n and ("a" <= text[end] <= "z" or "A" <= text[end] <= "Z"):
                end += 1
            if end == n or text[end] != "-" and not (text[end] == " " and end - pos >= 4):
                kind = LETTERS
        if not kind:
            code = ord(text[pos])
            m = (table[code] if code < 128 else _LEXEME_RE).match(text, pos)
            kind = m.lastindex
            start, end = m.span(kind)
        if start == prev_end:
            gap = GLUED
        elif text.find("\n", prev_end, start) >= 0:
            gap = LINE_BREAK
            line_starts.append(len(kinds))
        else:
            gap = SPACE
        kinds.append(kind)
        texts.append(text[start:end])
        starts.append(start)
        ends.append(end)
        gaps.append(gap)
        prev_end = end
        if not len(kinds) & 4095:
            deadline.check()
    lexemes = Lexemes(kinds, texts, starts, ends, gaps)
    if markdown:
        drop_list_markers(text, lexemes, line_starts)
        if "*" in text:
            drop_emphasis_stars(lexemes)
        if '"' in text:
            drop_inch_marks(lexemes)
    return lexemes


def drop_inch_marks(lexemes: Lexemes) -> None:
    """Remove a double quote glued to the number before it, in place: an inch mark (``72" - 2" =
    70"``, a unit like ``in``) or the end of a quotation; neither is math, and a quote between two
    operands made the computation unreadable. What followed it is spaced from the number.

    >>> lex('Anne is 2 * 36" = 72" tall').text
    ['Anne', 'is', '2', '*', '36', '=', '72', 'tall']
    >>> lex('he said "5 apples" twice').text  # a quote after a word stays
    ['he', 'said', '"', '5', 'apples', '"', 'twice']
    """
    texts, gaps, kinds = lexemes.text, lexemes.gap, lexemes.kind
    marks = {j for j in range(1, len(texts)) if texts[j] == '"' and gaps[j] == GLUED and kinds[j - 1] == NUMERAL}
    for j in marks:
        if j + 1 < len(gaps):
            gaps[j + 1] = max(gaps[j + 1], SPACE)
    lexemes.drop(marks)


_BULLETS = {"-", "*", "+"}
_ENUMERATOR_RE = re.compile(r"[0-9]{1,2}|[A-Za-z]|[ivx]{2,4}")
# what may follow a list marker: not an operator or relation that would make it math
_MATH_AFTER_MARKER = set("=<>+-*/^_!)]}.,;:")


def drop_list_markers(text: str, lexemes: Lexemes, line_starts: list[int]) -> None:
    """Remove Markdown/enumeration list markers that open a line, in place: ``- ``, ``* ``,
    ``+ `` and ``1) ``, ``b) ``, ``(a) ``, ``(ii) ``, ``12. `` followed by a space. They are
    layout: ``- 24 apples`` is not the number -24, ``(a) x = 5`` is not ``a*x = 5``, the ``2``
    of ``2. Then 12 * 3 = 36`` is no value. The lexeme after a marker keeps a line break.
    ``line_starts``: the indices of the lexemes that open a line (0 and every line break).

    >>> lex("- x = 5\\n(b) y = 2").text
    ['x', '=', '5', 'y', '=', '2']
    >>> lex("- 5", markdown=False).text  # a node form is math, not a list item
    ['-', '5']
    """
    markers = set()
    for j in line_starts:
        n = _list_marker_length(text, lexemes, j)
        if n:
            if j + n < len(lexemes):
                lexemes.gap[j + n] = LINE_BREAK
            markers.update(range(j, j + n))
    lexemes.drop(markers)


#: how far (in lexemes) an italic star looks for its partner on the same line
EMPHASIS_REACH = 64
#: what may follow the star that closes an italic span without a space (``*x = 3*.``)
_AFTER_EMPHASIS = frozenset((".", ",", ";", ":", "!", "?", ")", "]"))
#: what a closing star cannot be glued to: an operator wants its operand (``3 +*``)
_BEFORE_OPERAND = frozenset(("+", "-", "*", "/", "=", "^", "_", "(", "[", "{", "<", ">"))


def drop_emphasis_stars(lexemes: Lexemes) -> None:
    """Remove the stars of Markdown italics, in place: a single ``*`` that opens a span and the
    one that closes it on the same line (within :data:`EMPHASIS_REACH` lexemes). A star opens
    when glued to what follows only, with no operand before it (the text's start, or a space
    after anything but a number or a closing bracket); it closes when glued to what precedes
    only, with no operand after it (the end, punctuation, or a space before anything but a
    number or an opening bracket). A product has operands on both sides, glued or spaced, and
    a lone star pairs with nothing: ``3*4``, ``3 * 4``, ``50 *.2``, ``4 books *200 pages``.
    What followed a removed star is spaced from what preceded it.

    >>> lex("so *f(5) - 1 = 6* here").text
    ['so', 'f', '(', '5', ')', '-', '1', '=', '6', 'here']
    >>> lex("4 books *200 pages/book = <<4*200=800>>800").text[:4], lex("*x = 3*", markdown=False).text[0]
    (['4', 'books', '*', '200'], '*')
    """
    gaps = lexemes.gap
    n = len(gaps)
    candidates = [j for j, t in enumerate(lexemes.text) if t == "*"]  # a lone "*" is a SYMBOL lexeme
    stars, taken = set(), -1
    for i, j in enumerate(candidates):
        if j <= taken or not _opens_emphasis(lexemes, j):
            continue
        last = j
        for m in range(i + 1, len(candidates)):  # the next stars only: a span ends within reach
            k = candidates[m]
            if k > j + EMPHASIS_REACH or LINE_BREAK in gaps[last + 1:k + 1]:
                break
            last = k
            if _closes_emphasis(lexemes, k):
                stars.update((j, k))
                taken = k
                break
    for star in sorted(stars):
        if star + 1 < n:
            gaps[star + 1] = max(gaps[star + 1], gaps[star], SPACE)
    lexemes.drop(stars)


def _opens_emphasis(lexemes: Lexemes, j: int) -> bool:
    """The star at ``j`` can open an italic span."""
    kinds, texts, gaps = lexemes.kind, lexemes.text, lexemes.gap
    if j + 1 >= len(texts) or gaps[j + 1] != GLUED or texts[j + 1] == "*":
        return False
    return j == 0 or gaps[j] != GLUED and kinds[j - 1] != NUMERAL and texts[j - 1] not in (")", "]", "}")


def _closes_emphasis(lexemes: Lexemes, j: int) -> bool:
    """The star at ``j > 0`` can close an italic span."""
    kinds, texts, gaps = lexemes.kind, lexemes.text, lexemes.gap
    if gaps[j] != GLUED or texts[j - 1] in _BEFORE_OPERAND:
        return False
    if j + 1 >= len(texts) or texts[j + 1] in _AFTER_EMPHASIS:
        return True
    return gaps[j + 1] != GLUED and kinds[j + 1] != NUMERAL and texts[j + 1] not in ("(", "[", "{")


def _list_marker_length(text: str, lexemes: Lexemes, j: int) -> int:
    """Number of lexemes of the list marker at ``j`` (0 if there is none)."""
    kinds, texts, gaps = lexemes.kind, lexemes.text, lexemes.gap
    n = len(kinds)
    if j >= n:
        return 0
    kind, s = kinds[j], texts[j]
    if kind == NUMERAL and j + 1 < n and texts[j + 1] == "." and kinds[j + 1] == SYMBOL and not gaps[j + 1]:
        # 12. followed by a space: a numbered item (a sentence cut may leave it alone in its
        # segment; a line holding just "12." ends without the space and stays a number)
        dot_end = lexemes.end[j + 1]
        if not (len(s) <= 2 and s.isdigit() and text[dot_end:dot_end + 1] in (" ", "\t")):
            return 0
        if j + 2 == n:
            return 2
        size = 2
    elif kind == SYMBOL and s in _BULLETS:
        if j and (texts[j - 1] in ("\\[", "\\\\") or texts[j - 1] == "$" and j > 1 and texts[j - 2] == "$"):
            return 0  # "\\[\n- 3x = 6", "x = 1 \\\\\n- 3x = 6": a display formula's minus sign
        size = 1
    elif kind == SYMBOL and s == "(":  # (a) (ii) (1)
        if not (j + 2 < n and texts[j + 2] == ")" and not gaps[j + 1] and not gaps[j + 2]
                and kinds[j + 1] in (NUMERAL, LETTERS) and _ENUMERATOR_RE.fullmatch(texts[j + 1])):
            return 0
        size = 3
    elif kind in (NUMERAL, LETTERS) and _ENUMERATOR_RE.fullmatch(s):  # 1) b) iv)
        if not (j + 1 < n and texts[j + 1] == ")" and kinds[j + 1] == SYMBOL and not gaps[j + 1]):
            return 0
        size = 2
    else:
        return 0
    if j + size >= n:
        return 0
    after = j + size
    if gaps[after] != SPACE or (kinds[after] == SYMBOL and texts[after] in _MATH_AFTER_MARKER):
        return 0
    return size
