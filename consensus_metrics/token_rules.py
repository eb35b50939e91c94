r"""Token rules: the raw lexemes of a text (:mod:`consensus_metrics.lexer`) read left to right
into canonical tokens (:class:`Tokens`), the second step of :mod:`consensus_metrics.normalize`.

:class:`TokenBuilder` holds the state of one reading (the next lexeme, the tokens so far, whether
whitespace or a line break came before) and applies the rules that do not depend on a LaTeX
command: numbers, words and letters, operators and brackets, powers and subscripts, escapes and
Unicode symbols, and the rules of emission every token goes through (implicit products, unit
words dropped before an operator, ``3 / 4`` read as one rational). LaTeX commands are looked up in
:data:`~consensus_metrics.vocabulary.COMMAND_TOKENS` (one token) and in
:data:`~consensus_metrics.latex_commands.COMMAND_HANDLERS` (commands with arguments).

The ``cython`` decorators and declarations are the compiled build's (``consensus_metrics._native``):
where ``setup.py`` compiles this module with Cython, :class:`Tokens` and :class:`TokenBuilder`
become extension types, their attributes C fields and their methods C calls; the source runs
unchanged without Cython (they are then no-ops) and gives the same tokens.

>>> toks = TokenBuilder("so $2x = 3/4$").run()
>>> toks.keys, toks.kinds
(['~so', '#2', '*', 'x', '=', '#3/4'], [7, 0, 3, 1, 4, 0])
>>> toks.starts, toks.ends, toks.implicit
([0, 4, 5, 5, 7, 9], [2, 5, 5, 6, 8, 12], [False, False, True, False, False, False])
"""

from __future__ import annotations

try:
    import cython
except ImportError:  # Cython is needed to compile, not to run: its declarations are then no-ops
    from . import _cython_shadow as cython

from math import gcd

from .budget import NO_DEADLINE, Deadline
from .latex_commands import COMMAND_HANDLERS
from .lexer import (COMMAND, COMPOUND, ESCAPE, LETTERS, LINE_BREAK, NUMERAL, SPACE, SUPERSCRIPT, SYMBOL, TAG,
                    lex)
from .numbers import number_key, parse_numeral
from .symbol_rules import dollar_break, implicit_mult, needs_parens, square_root, symbol, unicode_symbol, unit_power
from .vocabulary import (CLOSE, COMMAND_TOKENS, FUNC, ID, LABEL_WORDS, LINKED_UNIT_WORDS, MAX_GROUP_DEPTH, MISC, NUM,
                         OP, OPEN, OPERAND_END, PUNCT, REL, STOPWORDS, SUPERSCRIPT_DIGITS, UNITS, UPPER_UNITS, WORD,
                         WORD_FUNCTIONS, WORD_OPERATORS, unit_phrase)

#: Operators before which prose words that follow a number are dropped
#: (:meth:`TokenBuilder.drop_unit_words`); ``+`` and ``-`` do it in ``symbol_rules.sign``, before deciding
#: whether they are signs.
_BINARY_OPS = frozenset(("*", "/", "±"))
#: Lexemes that are math when a word is glued to them on both sides (``2ab3``: letters, not prose).
_MATHY_KINDS = {COMMAND, ESCAPE, NUMERAL, SUPERSCRIPT}
_PUNCT_CHARS = set(".,;:?!\"'")
#: Punctuation that ends a chain and never combines with its neighbours.
_SIMPLE_PUNCT = {",", ";", ":", "?", "."}


@cython.cclass
class Tokens:
    """Canonical tokens of one text as parallel lists (fast to build and scan).

    ``keys[i]`` is the canonical key, ``kinds[i]`` one of NUM/ID/FUNC/OP/REL/OPEN/CLOSE/WORD/
    PUNCT/MISC (:mod:`consensus_metrics.vocabulary`), ``starts[i]:ends[i]`` the source characters
    (an implicit ``*`` is zero-width), ``spaced[i]`` whether whitespace preceded it,
    ``breaks[i]`` whether a line break or math delimiter (``$``) separates it from the previous
    token, ``implicit[i]`` whether a ``*`` came from juxtaposition.
    """

    keys = cython.declare(list, visibility="public")
    kinds = cython.declare(list, visibility="public")
    starts = cython.declare(list, visibility="public")
    ends = cython.declare(list, visibility="public")
    spaced = cython.declare(list, visibility="public")
    breaks = cython.declare(list, visibility="public")
    implicit = cython.declare(list, visibility="public")

    def __init__(self):
        self.keys = []
        self.kinds = []
        self.starts = []
        self.ends = []
        self.spaced = []
        self.breaks = []
        self.implicit = []

    def __len__(self) -> int:
        return len(self.keys)

    def __repr__(self) -> str:
        return f"Tokens({' '.join(self.keys)!r})"

    @cython.ccall
    def append(self, key, kind, start, end, spaced=False, brk=False, implicit=False):
        self.keys.append(key)
        self.kinds.append(kind)
        self.starts.append(start)
        self.ends.append(end)
        self.spaced.append(spaced)
        self.breaks.append(brk)
        self.implicit.append(implicit)

    @cython.ccall
    @cython.locals(n=cython.Py_ssize_t)
    def truncate(self, n):
        for lst in (self.keys, self.kinds, self.starts, self.ends, self.spaced, self.breaks, self.implicit):
            del lst[n:]

    @cython.ccall
    @cython.returns(list)
    @cython.locals(n=cython.Py_ssize_t)
    def take(self, n):
        """Remove and return tokens ``n:`` as tuples (used to post-process an argument)."""
        out = list(zip(self.keys[n:], self.kinds[n:], self.starts[n:], self.ends[n:], self.spaced[n:], self.breaks[n:], self.implicit[n:]))
        self.truncate(n)
        return out


@cython.final
@cython.cclass
class TokenBuilder:
    """One left-to-right reading of the lexemes of ``text`` into :class:`Tokens` (:meth:`run`).

    ``markdown``: list markers that open a line are layout (a trajectory), not math (a node
    form). The lexemes are the columns ``lex_kind``, ``lex_text``, ``lex_start``, ``lex_end``,
    ``lex_gap`` (:class:`~consensus_metrics.lexer.Lexemes`); ``i`` is the next one to read,
    ``out`` the tokens so far. ``spaced`` and ``brk`` say whether whitespace or a line break
    came before the next token; ``barrier`` that the next token starts an argument (no product
    with the token before it); ``prose`` is 1 inside ``\\text{}``, -1 inside ``\\mathrm{}``;
    ``opens`` the indices of the brackets awaiting their closing bracket; ``matrix_rows`` what
    separates the rows of each matrix being read (:func:`~consensus_metrics.latex_commands.environment`);
    ``floor`` the index of
    the first token of the argument being read; ``ran_out`` that a command wanted an argument
    after the last lexeme.
    """

    text = cython.declare(object, visibility="public")
    deadline = cython.declare(object, visibility="public")
    lexemes = cython.declare(object, visibility="public")
    lex_kind = cython.declare(list, visibility="public")
    lex_text = cython.declare(list, visibility="public")
    lex_start = cython.declare(list, visibility="public")
    lex_end = cython.declare(list, visibility="public")
    lex_gap = cython.declare(list, visibility="public")
    opens = cython.declare(list, visibility="public")
    matrix_rows = cython.declare(list, visibility="public")
    out = cython.declare(Tokens, visibility="public")
    spaced = cython.declare(cython.bint, visibility="public")
    brk = cython.declare(cython.bint, visibility="public")
    barrier = cython.declare(cython.bint, visibility="public")
    ran_out = cython.declare(cython.bint, visibility="public")
    i = cython.declare(cython.Py_ssize_t, visibility="public")
    steps = cython.declare(cython.Py_ssize_t, visibility="public")
    floor = cython.declare(cython.Py_ssize_t, visibility="public")
    prose = cython.declare(cython.int, visibility="public")

    def __init__(self, text: str, deadline: Deadline = NO_DEADLINE, markdown: bool = True):
        self.text = text
        self.deadline = deadline
        lexemes = lex(text, deadline, markdown)
        self.lexemes = lexemes
        self.lex_kind, self.lex_text, self.lex_start = lexemes.kind, lexemes.text, lexemes.start
        self.lex_end, self.lex_gap = lexemes.end, lexemes.gap
        self.i = 0
        self.out = Tokens()
        self.spaced = False
        self.brk = False
        self.barrier = False
        self.prose = 0
        self.opens = []
        self.matrix_rows = []
        self.steps = 0
        self.ran_out = False
        self.floor = 0

    def run(self) -> Tokens:
        """Read every lexeme; the tokens."""
        self._sequence(0, False)
        return self.out

    # ------------------------------------------------------------------ emission
    @cython.ccall
    def push(self, key, kind, start, end, no_mult=False, implicit=False):
        """Emit one token: after an operand, juxtaposition may insert an implicit ``*``
        (:func:`_implicit_mult`; not when ``no_mult``); a number after ``/`` may merge into one
        rational (:meth:`_merge_fraction`); unit words before an operator may be dropped."""
        out = self.out
        keys, kinds = out.keys, out.kinds
        if keys and kinds[-1] == WORD and (kind == REL or key in _BINARY_OPS):
            self.drop_unit_words(kind == REL)
        elif kind == WORD and self._per_unit():
            out.truncate(len(keys) - 1)  # $10/hour, 10 minutes/puzzle: the unit of a rate, as in "10 mph"
        spaced, brk = self.spaced, self.brk
        self.spaced = self.brk = False
        if keys and not self.barrier:
            pk = kinds[-1]
            if not no_mult and not brk and pk in OPERAND_END and implicit_mult(pk, keys[-1], kind, key, spaced):
                out.append("*", OP, start, start, spaced, False, True)
                spaced = False
            elif kind == NUM and pk == OP and keys[-1] == "/" and not out.implicit[-1] and len(keys) >= 2:
                if self._merge_fraction(key, start, end):
                    return
        self.barrier = False
        out.append(key, kind, start, end, spaced, brk, implicit)

    @cython.cfunc
    @cython.returns(cython.bint)
    def _per_unit(self):
        """Whether a prose word after a ``/`` after a number (``$10/hour``, ``400 miles / hour``;
        ``10 minutes/puzzle`` once :meth:`drop_unit_words` took ``minutes``) is the unit of a
        rate, not a divisor: the ``/`` goes and the word stays a unit word (``10 ~hour``), so that
        ``5 hours * $10/hour = $50`` reads ``5 * 10 = 50``. Not a letter (``2/x``) or a function
        (``1/sqrt 2``): those are no prose word; not across a line break."""
        out = self.out
        n = len(out.keys)
        return (n >= 2 and not self.brk and out.keys[n - 1] == "/" and out.kinds[n - 2] == NUM
                and not out.implicit[n - 1])

    @cython.ccall
    @cython.locals(relation=cython.bint)
    def drop_unit_words(self, relation=False):
        """``9 sprints × 60 meters = 540 meters``: the prose words on one line between a number
        and an operator or relation that say what the number counts (``\\text{ dollars}``,
        ``minutes per hour``, ``3 packs of water balloons * $3``, ``12 slices each = 60``:
        :func:`~consensus_metrics.vocabulary.unit_phrase`) are dropped, so that the equation
        stays one chain (``9 * 60 = 540``). Not when one of them carries meaning (``5 times 3``,
        ``x is 4``, ``5 more than``: :data:`~consensus_metrics.vocabulary.CONNECTIVES`), and
        before a ``relation`` only after a computation: ``1200 lire = $1.50`` and ``3 feet = 1
        yard`` convert units, they do not state ``1200 = 1.5``."""
        k = self._counted_words()
        if k < 0 or self.brk:
            return
        if relation and (k < 2 or self.out.kinds[k - 2] != OP):
            return
        before = self.i - 2  # the lexeme before the operator's: a formula that opens there is new math
        if before >= 0 and self.lex_text[before] in ("$", "\\[", "\\("):
            return
        self.out.truncate(k)

    @cython.cfunc
    @cython.returns(cython.Py_ssize_t)
    @cython.locals(k=cython.Py_ssize_t, n=cython.Py_ssize_t)
    def _counted_words(self):
        """Where the prose words that end the tokens so far start, when they follow a number on
        its line and only say what it counts (:func:`~consensus_metrics.vocabulary.unit_phrase`:
        ``3 packs of water balloons``); -1 otherwise (no such words, or no number before them)."""
        out = self.out
        kinds, breaks = out.kinds, out.breaks
        n = len(kinds)
        k = n
        while k and kinds[k - 1] == WORD and n - k < LINKED_UNIT_WORDS and not breaks[k - 1]:
            k -= 1
        if k == n or not k or kinds[k - 1] != NUM or not unit_phrase(out.keys[k:]):
            return -1
        return k

    @cython.cfunc
    @cython.returns(cython.bint)
    def _merge_fraction(self, key, start, end):
        """``3 / 4`` (integers, reduced, not an exponent or denominator) -> one rational ``#3/4``."""
        out = self.out
        n = len(out.keys)
        num_key = out.keys[n - 2]
        if out.kinds[n - 2] != NUM or "/" in num_key or "/" in key or "_" in num_key:
            return False
        if n - 3 >= self.floor and (out.keys[n - 3] in ("/", "^", "_") or out.keys[n - 3][0] == "√"):
            return False  # a/3/4, x^3/4, \sqrt{3}/4: the 3 belongs to what is before it
        try:
            a, b = int(num_key[1:]), int(key[1:])
        except ValueError:
            return False
        if b <= 1 or gcd(a, b) != 1:
            return False
        s = out.starts[n - 2]
        sp, bk = out.spaced[n - 2], out.breaks[n - 2]
        out.truncate(n - 2)
        out.append(f"#{a}/{b}", NUM, s, end, sp, bk, False)
        return True

    @cython.ccall
    @cython.locals(wrap=cython.bint)
    def emit(self, toks, wrap, start=None, end=None):
        """Emit argument tokens (tuples), in parentheses when ``wrap`` and they are not one atom;
        the first goes through :meth:`push`."""
        if not toks:
            return
        if wrap and needs_parens(toks):
            s = toks[0][2] if start is None else start
            e = toks[-1][3] if end is None else end
            self.push("(", OPEN, s, s)
            self.append_tokens(toks)
            self.out.append(")", CLOSE, e, e)
            return
        key, kind, s, e, _sp, _bk, imp = toks[0]
        self.push(key, kind, s, e, False, imp)
        self.append_tokens(toks[1:])

    @cython.ccall
    def append_tokens(self, toks):
        """Append argument tokens (tuples) as they are."""
        for t in toks:
            self.out.append(*t)

    @cython.ccall
    def append_group(self, toks):
        """Append argument tokens as they are, in zero-width parentheses unless they are one atom
        (a denominator)."""
        if needs_parens(toks):
            s = toks[0][2]
            self.out.append("(", OPEN, s, s)
            self.append_tokens(toks)
            self.out.append(")", CLOSE, toks[-1][3], toks[-1][3])
        else:
            self.append_tokens(toks)

    # ------------------------------------------------------------------ driver
    @cython.cfunc
    @cython.locals(depth=cython.int, in_group=cython.bint, i=cython.Py_ssize_t, n=cython.Py_ssize_t)
    def _sequence(self, depth, in_group):
        """Read lexemes up to the end of the text or, ``in_group``, past the ``}`` closing the
        group. Prose words and ``, ; : ? .`` take a fast path; everything else :meth:`read_one`.
        (``n`` is the number of lexemes when the loop started or last split a run of words
        itself: a group read inside may split one and add lexemes this loop does not reach.)"""
        kinds, texts, starts, ends, gaps = self.lex_kind, self.lex_text, self.lex_start, self.lex_end, self.lex_gap
        n = len(kinds)
        out = self.out
        while self.i < n:
            self.steps += 1
            if not self.steps & 255:
                self.deadline.check()
            i = self.i
            kind, s = kinds[i], texts[i]
            # fast path for the bulk of any text: prose words, and runs of long lowercase prose
            # words (one lexeme "there must have been") that the lexer hands over together
            if kind == LETTERS and len(s) >= 4 and not self.prose:
                if " " in s:
                    if self._prose_run(i):
                        continue
                    s = texts[i]
                    n = len(kinds)
                start, end = starts[i], ends[i]
                lw = s.lower()
                if lw not in WORD_FUNCTIONS and lw not in UNITS and lw not in WORD_OPERATORS and lw != "choose" and not (
                    i and ends[i - 1] == start and self._mathy(i - 1)
                    and i + 1 < n and starts[i + 1] == end and self._mathy(i + 1)
                ):
                    gap = gaps[i]
                    if gap != LINE_BREAK and self._per_unit():
                        out.truncate(len(out.keys) - 1)  # $10/hour (:meth:`_per_unit`)
                    self.i = i + 1
                    out.keys.append("~" + lw)
                    out.kinds.append(WORD)
                    out.starts.append(start)
                    out.ends.append(end)
                    out.spaced.append(self.spaced or gap > 0)
                    out.breaks.append(self.brk or gap == LINE_BREAK)
                    out.implicit.append(False)
                    self.spaced = self.brk = self.barrier = False
                    continue
            if kind == SYMBOL:
                if s == "}" and in_group:
                    self.i = i + 1
                    return
                if s in _SIMPLE_PUNCT:  # , ; : ? end a chain and never combine with neighbours
                    self.i = i + 1
                    gap = gaps[i]
                    if gap:
                        self.spaced = True
                        if gap == LINE_BREAK:
                            self.brk = True
                    self.push(s, PUNCT, starts[i], ends[i])
                    continue
            self.read_one(depth)

    @cython.cfunc
    @cython.returns(cython.bint)
    @cython.locals(i=cython.Py_ssize_t)
    def _prose_run(self, i):
        """Emit the run of prose words at lexeme ``i`` as WORD tokens; False (after splitting
        it into one lexeme per word) if the first word needs the general rules (a function name
        or unit)."""
        run = self.lex_text[i]
        words = run.split(" ")
        first = words[0].lower()
        if first in WORD_FUNCTIONS or first in UNITS:
            self.lexemes.split_run(i)
            return False
        out = self.out
        at, gap = self.lex_start[i], self.lex_gap[i]
        for k, w in enumerate(words):
            out.keys.append("~" + w.lower())
            out.kinds.append(WORD)
            out.starts.append(at)
            out.ends.append(at + len(w))
            out.spaced.append(True if k else (self.spaced or gap > 0))
            out.breaks.append(False if k else (self.brk or gap == LINE_BREAK))
            out.implicit.append(False)
            at += len(w) + 1
        self.spaced = self.brk = self.barrier = False
        self.i = i + 1
        return True

    @cython.ccall
    @cython.locals(depth=cython.int)
    def group(self, depth):
        """Read the rest of a ``{...}`` group (the ``{`` read) up to its ``}``; brackets opened in
        it close in it."""
        opens, self.opens = self.opens, []
        self._sequence(depth + 1, True)
        self.opens = opens

    @cython.ccall
    @cython.locals(depth=cython.int)
    def read_one(self, depth):
        """Consume and emit one raw lexeme (plus whatever arguments it takes)."""
        i = self.i
        kind, s, start, end, gap = self.lex_kind[i], self.lex_text[i], self.lex_start[i], self.lex_end[i], self.lex_gap[i]
        self.i += 1
        if gap:
            self.spaced = True
            if gap == LINE_BREAK:
                self.brk = True
        if kind == NUMERAL:
            self._number(s, start, end)
        elif kind == LETTERS:
            self._word(s, start, end, depth)
        elif kind == COMMAND:
            self._command(s[1:], start, end, depth)
        elif kind == SYMBOL:
            symbol(self, s, start, end, depth)
        elif kind == ESCAPE:
            self._escape(s[1], start, end)
        elif kind == COMPOUND:  # 4-packs, 2nd, x-axis, non-negative: prose, not arithmetic
            self.push("~" + s.lower(), WORD, start, end)
        elif kind == TAG:  # <think>, </think>, <answer>: markup separates like a sentence end
            self.push(s.lower(), PUNCT, start, end)
        elif kind == SUPERSCRIPT:
            power = number_key(parse_numeral(s.translate(SUPERSCRIPT_DIGITS)))
            if not unit_power(self.out, power):  # 20 ft²: part of the unit
                self.push("^", OP, start, start, True)
                self.push(power, NUM, start, end)
        else:
            unicode_symbol(self, s, start, end, depth)

    # ------------------------------------------------------------------ numbers
    @cython.cfunc
    def _number(self, s, start, end):
        """A numeral: an exact number (``#3/4``); glued to a single letter, a subscript
        (``x1`` is ``x_1``); after ``Step``, ``Case``..., a label (a word)."""
        out = self.out
        if s.isascii() and s.isdigit() and len(s) < 400:
            if out.keys and out.keys[-1] in LABEL_WORDS and self._is_label_number(start):
                self.push("~" + s, WORD, start, end)  # "Step 2:" names a step, it states no 2
                return
            key = "#" + (s.lstrip("0") or "0")
        else:
            key = number_key(parse_numeral(s), s)
        # x1 -> x_1 : a single-letter identifier glued to an integer is a subscripted variable
        # (not the constant pi: \pi4 is pi times 4).
        if (
            out.keys and not self.spaced and not self.brk and out.kinds[-1] == ID and out.ends[-1] == start
            and len(out.keys[-1]) == 1 and out.keys[-1].isalpha() and out.keys[-1] != "π" and "." not in s and "," not in s
        ):
            out.keys[-1] = f"{out.keys[-1]}_{s}"
            out.ends[-1] = end
            self.spaced = False
            return
        self.push(key, NUM, start, end)

    @cython.cfunc
    @cython.returns(cython.bint)
    def _is_label_number(self, start):
        """Whether the integer at ``start``, after a label word (``Step``, ``Case``, ``Part``),
        numbers it: one space before it, and after it ``:``, ``.``, ``)``, ``**`` or a line end."""
        if self.out.ends[-1] != start - 1 or self.text[start - 1] != " ":
            return False
        i = self.i
        if i >= len(self.lex_kind):
            return True
        gap = self.lex_gap[i]
        return gap == LINE_BREAK or (not gap and self.lex_kind[i] == SYMBOL and self.lex_text[i] in (":", ".", ")", "**"))

    # ------------------------------------------------------------------ words
    @cython.cfunc
    @cython.returns(cython.bint)
    @cython.locals(j=cython.Py_ssize_t)
    def _mathy(self, j):
        """Whether lexeme ``j`` is math a word glued to it belongs to (not punctuation)."""
        kind = self.lex_kind[j]
        if kind in _MATHY_KINDS:
            return True
        if kind == SYMBOL:
            return self.lex_text[j] not in _PUNCT_CHARS
        return False

    @cython.cfunc
    @cython.locals(depth=cython.int, prev=cython.Py_ssize_t, nxt=cython.Py_ssize_t)
    def _word(self, w, start, end, depth):
        """A run of letters: prose (``~the``), an operator (``5 times 3``), a function (``sin(x)``,
        ``log 2``), one letter (an identifier; ``a``/``I`` before a word and the ``s`` of ``it's``
        are prose, ``x`` between numbers a times sign) or more letters (:meth:`_letters`)."""
        lw = w.lower()
        if " " in w:  # a prose run inside \text{...} (outside, _sequence handles runs)
            at = start
            for piece in w.split(" "):
                self.push("~" + piece.lower(), WORD, at, at + len(piece))
                self.spaced = True
                at += len(piece) + 1
            self.spaced = False
            return
        if self.prose:
            if len(w) == 1 and self.prose < 0:
                self.push(w, ID, start, end)
            else:
                self.push("~" + lw, WORD, start, end)
            return
        if lw in WORD_OPERATORS and self._word_operator(lw, start, end):
            return
        prev, nxt = self.i - 2, self.i  # the lexemes around the word (-1: none)
        if nxt >= len(self.lex_kind):
            nxt = -1
        # function names written as words: sin(x), log 2, sqrt(3), (mod 7)
        if lw in WORD_FUNCTIONS and nxt >= 0:
            follow, text = self.lex_kind[nxt], self.lex_text[nxt]
            if follow in (NUMERAL, COMMAND) or (follow == SYMBOL and text in "({^_") or (follow == LETTERS and len(text) == 1):
                if lw == "sqrt":
                    square_root(self, start, end, "√", depth)
                else:
                    self.push("@" + lw, FUNC, start, end, lw == "mod")
                return
        if lw == "of" and self._fraction_of(nxt):
            self.push("*", OP, start, end)  # 3/4 of 4000: a product
            return
        if (lw == "choose" or w == "C") and self._binomial(w, start, end, nxt):
            return
        if len(w) > 1:
            self._letters(w, lw, start, end, prev, nxt)
            return
        gap = self.lex_gap[self.i - 1]
        if prev >= 0 and not gap and self.lex_text[prev] in ("'", "’") and self.lex_end[prev] == start:
            self.push("~" + lw, WORD, start, end)  # the s of it's, the t of don't
            return
        spaced_l = prev < 0 or gap > 0
        spaced_r = nxt < 0 or self.lex_gap[nxt] > 0
        if w in "aAI" and spaced_l and spaced_r and self._next_is_word():
            self.push("~" + lw, WORD, start, end)
        elif w == "x" and spaced_l and spaced_r and self._between_numbers():
            self.push("*", OP, start, end)
        else:
            self.push(w, ID, start, end)

    @cython.cfunc
    @cython.locals(prev=cython.Py_ssize_t, nxt=cython.Py_ssize_t)
    def _letters(self, w, lw, start, end, prev, nxt):
        """Two letters or more that are no operator or function (:meth:`_word`; ``prev`` and
        ``nxt`` the lexemes around them, -1 for none): a unit after a number is a word; two or
        three letters glued to math, or capitals, are a product of identifiers (``xy``,
        ``ABC``); a longer word is one only when glued to math on both sides, not in brackets
        (``(minutes)``); anything else is a prose word."""
        gap = self.lex_gap[self.i - 1]
        kinds, texts = self.lex_kind, self.lex_text
        if prev >= 0 and (lw in UNITS and w.islower() and (kinds[prev] == NUMERAL or texts[prev] in ("π", "\\pi"))
                          or w in UPPER_UNITS and kinds[prev] == NUMERAL and gap):
            self.push("~" + lw, WORD, start, end)  # 12 cm, 25π cm², 5 PM, 20 USD
            return
        glued_l = prev >= 0 and not gap and self.lex_end[prev] == start and self._mathy(prev)
        glued_r = nxt >= 0 and self.lex_start[nxt] == end and (self._mathy(nxt) or texts[nxt] == "(")
        # "(minutes)", "(the positive root)", "(first day)": prose in brackets, not a product of letters
        remark = w.islower() and prev >= 0 and (
            texts[prev] == "(" and (nxt < 0 or texts[nxt] == ")" or self.lex_start[nxt] > end)
            or not glued_l and kinds[prev] == LETTERS and len(texts[prev]) >= 3 and nxt >= 0 and texts[nxt] == ")")
        if glued_l and w.islower() and texts[prev] == "/" and prev and kinds[prev - 1] == LETTERS \
                and len(texts[prev - 1]) >= 3 and self.lex_end[prev - 1] == self.lex_start[prev]:
            self.push("~" + lw, WORD, start, end)  # pounds/day, bananas/day: the unit of a rate
            return
        split = False
        if len(w) <= 3:
            if (glued_l or glued_r or w.isupper()) and not (remark and lw in STOPWORDS):
                split = True
            elif len(w) == 2 and lw not in STOPWORDS and w.islower():  # "xy = 12"; 3 letters are prose
                split = True
        elif glued_l and glued_r and not remark:
            split = True
        if not split:
            self.push("~" + lw, WORD, start, end)
            return
        for k, ch in enumerate(w):  # ab -> a * b (the implicit-product rule inserts the *)
            self.push(ch, ID, start + k, start + k + 1)

    @cython.cfunc
    @cython.returns(cython.bint)
    @cython.locals(nxt=cython.Py_ssize_t, n=cython.Py_ssize_t)
    def _binomial(self, w, start, end, nxt):
        """A binomial coefficient written as ``C(5, 4)``, ``5C4`` or ``5 choose 4``: the tokens of
        ``\\binom{5}{4}`` (``@binom ( #5 , #4 )``); whole numbers only."""
        out, kinds, texts = self.out, self.lex_kind, self.lex_text
        if nxt < 0:
            return False
        if w == "C" and texts[nxt] == "(" and self.lex_start[nxt] == end:  # C(5, 4): the C is the function
            if (nxt + 4 < len(kinds) and kinds[nxt + 1] == NUMERAL and texts[nxt + 1].isdigit()
                    and texts[nxt + 2] == "," and kinds[nxt + 3] == NUMERAL and texts[nxt + 3].isdigit()
                    and texts[nxt + 4] == ")"):
                self.push("@binom", FUNC, start, end)
                return True
            return False
        n = len(out.keys)
        if not n or out.kinds[n - 1] != NUM or not out.keys[n - 1][1:].isdigit() or self.brk:
            return False
        if kinds[nxt] != NUMERAL or not texts[nxt].isdigit():
            return False
        if w == "C":  # 5C4: glued on both sides
            if self.i < 2 or self.lex_gap[self.i - 1] or self.lex_gap[nxt] or self.lex_end[self.i - 2] != start:
                return False
        elif self.lex_gap[self.i - 1] != SPACE or self.lex_gap[nxt] != SPACE:  # 5 choose 4
            return False
        top, top_start, top_end = out.keys[n - 1], out.starts[n - 1], out.ends[n - 1]
        out.truncate(n - 1)
        self.push("@binom", FUNC, top_start, top_start)
        self.push("(", OPEN, top_start, top_start)
        self.push(top, NUM, top_start, top_end)
        self.push(",", PUNCT, start, end)
        self.push(number_key(parse_numeral(texts[nxt])), NUM, self.lex_start[nxt], self.lex_end[nxt])
        self.push(")", CLOSE, self.lex_end[nxt], self.lex_end[nxt])
        self.i = nxt + 1
        return True

    @cython.cfunc
    @cython.returns(cython.bint)
    def _word_operator(self, lw, start, end):
        """``5 times 3``, ``12 divided by 4``, ``7 plus 2``: an operator between two operands on
        one line (``3 times a week`` is prose)."""
        out, kinds, texts, gaps = self.out, self.lex_kind, self.lex_text, self.lex_gap
        if not out.keys or out.kinds[-1] not in OPERAND_END or self.brk:
            return False
        j = self.i
        if lw in ("divided", "multiplied"):  # ... by
            if not (j < len(kinds) and kinds[j] == LETTERS and texts[j].lower() == "by" and gaps[j] == SPACE):
                return False
            j += 1
        if not (j < len(kinds) and gaps[j] == SPACE and (kinds[j] == NUMERAL or texts[j] == "(" or texts[j] == "$"
                                                         or kinds[j] == LETTERS and len(texts[j]) == 1
                                                         and texts[j] not in "aAI")):
            return False
        op_end = self.lex_end[j - 1] if j > self.i else end  # "divided by" ends after "by"
        self.i = j
        self.push(WORD_OPERATORS[lw], OP, start, op_end)
        return True

    @cython.cfunc
    @cython.returns(cython.bint)
    def _next_is_word(self):
        j = self.i
        return j < len(self.lex_kind) and self.lex_kind[j] == LETTERS and len(self.lex_text[j]) > 1

    @cython.cfunc
    @cython.returns(cython.Py_ssize_t)
    @cython.locals(j=cython.Py_ssize_t)
    def _numeral_at(self, j):
        """The numeral lexeme at ``j``, or after a ``$`` there (``$0.50``); -1 where there is none."""
        kinds = self.lex_kind
        if j < len(kinds) and self.lex_text[j] in ("$", "\\$"):
            j += 1
        return j if j < len(kinds) and kinds[j] == NUMERAL else -1

    @cython.cfunc
    @cython.returns(cython.bint)
    @cython.locals(nxt=cython.Py_ssize_t)
    def _fraction_of(self, nxt):
        """Whether ``of`` between a fraction and a number on one line is a product: ``3/4 of
        4000``, ``\\frac{1}{3} of $66`` (a number of words, not a fraction, counts them: ``2 of 5``)."""
        out = self.out
        if self.brk or not out.keys or out.kinds[-1] != NUM or "/" not in out.keys[-1] or nxt < 0:
            return False
        nxt = self._numeral_at(nxt)
        return nxt >= 0 and self.lex_gap[nxt] != LINE_BREAK

    @cython.cfunc
    @cython.returns(cython.bint)
    def _between_numbers(self):
        """Whether an ``x`` stands between two numbers, so a product: ``4 x 2``, ``6 x $0.50``,
        ``4 pounds x $2``, ``4 grades in the middle school x 10`` (what the left number counts,
        :func:`~consensus_metrics.vocabulary.unit_phrase`, which the ``*`` then drops)."""
        k = self.i - 2
        if k < 0 or self._numeral_at(self.i) < 0:
            return False
        if self.lex_kind[k] == NUMERAL:
            return True
        return self._counted_words() > 0

    # ------------------------------------------------------------------ arguments and commands
    @cython.ccall
    @cython.returns(list)
    @cython.locals(depth=cython.int, whole_number=cython.bint, to_brace=cython.bint)
    def arg(self, depth, whole_number, to_brace=True):
        """Read one TeX argument (``{...}`` or a single character/command) and return its tokens
        (removed from :attr:`out`). ``whole_number``: a numeral is one argument (``x^{12}``, not
        ``\\frac12``). ``to_brace``: a braced math argument's last token ends at the ``}``
        (``x^{10}``); not for a wrapper's (the ``}`` of ``\\boxed{18}`` is not part of 18)."""
        kinds, texts = self.lex_kind, self.lex_text
        i = self.i
        if i >= len(kinds):
            self.ran_out = True
            return []
        kind, s = kinds[i], texts[i]
        if kind == SYMBOL and s in "})]":
            return []
        out = self.out
        mark = len(out.keys)
        saved = (self.spaced, self.brk)
        floor, self.floor = self.floor, mark
        self.spaced = self.brk = False
        self.barrier = True
        if kind == SYMBOL and s == "{" and depth < MAX_GROUP_DEPTH:
            self.i += 1
            self.group(depth)
            closing = self.i - 1
            if (to_brace and len(out.keys) > mark and texts[closing] == "}" and kinds[closing] == SYMBOL
                    and not any([k in (REL, PUNCT, WORD) for k in out.kinds[mark:]])):  # (a cpdef holds no generator)
                out.ends[-1] = max(out.ends[-1], self.lex_end[closing])  # x^{10}: the span ends at }
        elif (kind == NUMERAL and not whole_number and len(s) > 1 and s[0].isdigit()) or (kind == LETTERS and len(s) > 1):
            # \frac12 -> {1}{2}, \frac ab -> {a}{b}: TeX takes one character.
            start = self.lex_start[i]
            self.lexemes.drop_first_character(i)
            if kind == NUMERAL:
                self.push(number_key(parse_numeral(s[0])), NUM, start, start + 1)
            else:
                self.push(s[0], ID, start, start + 1)
        elif depth >= MAX_GROUP_DEPTH:
            # arguments nested too deep to read structurally (\frac\frac\frac...: each takes the
            # next): the lexeme as it stands, so that recursion stays bounded
            self.i += 1
            self.push(s, MISC, self.lex_start[i], self.lex_end[i])
        else:
            # one lexeme; an opening bracket stays open: sqrt(2), x^(n+1) close it after the
            # caller re-emits it where it stood (_close checks the index is still valid)
            self.read_one(depth + 1)
        self.barrier = False
        toks = out.take(mark)
        self.spaced, self.brk = saved
        self.floor = floor
        return toks

    @cython.cfunc
    @cython.locals(depth=cython.int)
    def _command(self, name, start, end, depth):
        """A LaTeX command (without its backslash): one token
        (:data:`~consensus_metrics.vocabulary.COMMAND_TOKENS`), a handler that reads its
        arguments (:data:`~consensus_metrics.latex_commands.COMMAND_HANDLERS`), or else an
        identifier ``\\name``."""
        token = COMMAND_TOKENS.get(name)
        if token is not None:
            self.push(token[0], token[1], start, end, token[2])
            return
        handler = COMMAND_HANDLERS.get(name)
        if handler is not None:
            handler(self, name, start, end, depth)
        else:
            self.push("\\" + name, ID, start, end)

    @cython.cfunc
    def _escape(self, ch, start, end):
        """A backslash and one character: spacing (``\\,``), a line break (``\\\\``), a math
        delimiter (``\\(``, ``\\[``), an escaped brace, ``\\%``, ``\\|``, or punctuation."""
        if ch in ",;:! ":
            self.spaced = True
        elif ch == "\\":
            if self.matrix_rows:  # a matrix's next row: a tuple's comma (latex_commands.environment)
                self.push(self.matrix_rows[-1], PUNCT, start, end)
                return
            self.spaced = True
            self.brk = True
        elif ch in "()[]":
            self.brk = self.brk or dollar_break(self.out)
            self.spaced = True
        elif ch == "{":
            self.push("{", OPEN, start, end)
            self.opens.append(len(self.out.keys) - 1)
        elif ch == "}":
            self.push("}", CLOSE, start, end)
        elif ch == "%":
            self.push("%", MISC, start, end, True)
        elif ch == "$":
            self.spaced = True
        elif ch == "|":
            self.push("‖", MISC, start, end)
        else:
            self.push(ch, PUNCT, start, end)


