r"""Normalisation: turn math text (LaTeX, Unicode or plain) into canonical tokens.

Matching happens on canonical tokens, never on characters, so that the rules of SPEC §3 hold by
construction: every surface form of the same mathematical content yields the same token keys, and
token boundaries are number/identifier boundaries (``24`` is one token and ``124``, ``2.4``,
``240`` and ``x_{24}`` are different tokens).

What is unified (each token keeps the character span it came from, for positions and TPN):

* multiplication ``\times \cdot × · * \ast`` and implicit juxtaposition (``2x``, ``2(x+1)``,
  ``(a)(b)``, ``2\sqrt3``) -> ``*``; fractions ``\frac{a}{b} \dfrac \tfrac \frac ab a/b`` ->
  ``a / b`` (a reduced integer fraction is one rational number token, so ``\frac{3}{4}`` =
  ``3/4`` = ``0.75``); mixed numbers ``2\frac{1}{2}`` -> ``5/2``;
* powers ``x^{2} x^2 x² x**2`` -> ``x ^ 2``; roots ``\sqrt{2} \sqrt2 √2 sqrt(2)`` -> ``√ 2``;
* minus signs ``− – -`` (unary minus is its own key ``neg``); ``\left \right \! \, $ \( \[``,
  ``\text{} \mathrm{} \boxed{}`` wrappers, degree signs, ``&`` alignment, spacing;
* thousands separators ``1,000 1{,}000 1\,000`` -> ``1000``; numbers as exact rationals;
* variable notation ``x_1 x_{1} x1`` -> ``x_1``; Greek letters ``\alpha α``; ``\le ≤ <=``.

Token keys: numbers ``#3/4``; identifiers ``x``, ``x_1``, ``π``; functions ``@sin``, ``√``;
words (prose) ``~the``; operators and relations as symbols.

>>> canonical_key("4s^{2} + 8 \\cdot s - 45 = 0") == canonical_key("4s² + 8s − 45 = 0")
True
>>> canonical_key("\\frac{3}{4}"), canonical_key("0.75"), canonical_key("x_{1} + 1,000")
('#3/4', '#3/4', 'x_1 + #1000')
"""

from __future__ import annotations

import re
from functools import lru_cache
from fractions import Fraction
from math import gcd

from .budget import NO_DEADLINE, Deadline
from .numbers import number_key, parse_numeral

# ----------------------------------------------------------------------------- token kinds
NUM, ID, FUNC, OP, REL, OPEN, CLOSE, WORD, PUNCT, MISC = range(10)

#: Nesting depth of brace groups handled structurally; deeper braces are read as flat text.
MAX_GROUP_DEPTH = 48

# ----------------------------------------------------------------------------- raw lexer
# One raw lexeme per match: leading whitespace (group 1) is folded into the lexeme that follows.
# Possessive quantifiers (``++``, ``*+``, ``{2,}+``; Python 3.11) never give back what they
# matched: wherever giving back could not lead to a match anyway, they only spare the engine
# the retries (a word is scanned once, not once per shorter prefix).
_RAW_RE = re.compile(
    r"""
    (\s*+)
    (?:
     (?P<tag></?[A-Za-z]{2,}+[A-Za-z0-9_]*+>)
    |(?P<cmd>\\[A-Za-z]++)
    |(?P<esc>\\.)
    |(?P<compound>\d++(?:st|nd|rd|th)(?![A-Za-z])|\d++(?:\.\d++)?+-[A-Za-z]{3,}+(?:-[A-Za-z]++)*+|[A-Za-z]{2,}+(?:-[A-Za-z]{2,}+)++|[A-Za-z]-[A-Za-z]{3,}+(?:-[A-Za-z]++)*+)
    |(?P<num>\d{1,3}(?:(?:,|\{,\}|\\,)\d{3})+(?:\.\d+)?(?![\d])|\d++(?:\.\d++)?+|\.\d++)
    |(?P<word>[A-Za-z]{4,}+(?:[ ](?!(?:sqrt|sinh|cosh|tanh|arc[a-z]+)(?![a-z]))[a-z]{4,}+(?![\w\\{(^_$]|-[A-Za-z]))+|[A-Za-z]++)
    |(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹]++)
    |(?P<op>\*\*|\.\.\.|==|:=|<=|>=|!=|[-+*/^_=<>!(){}\[\]|,;:.%$&?'])
    |(?P<other>\S)
    )
    """,
    re.VERBOSE | re.DOTALL,
)
# raw lexeme types = the regex group numbers above
_TAG, _CMD, _ESC, _COMPOUND, _NUM, _WORD, _SUP, _OPC, _OTHER = range(2, 11)

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")

# ----------------------------------------------------------------------------- vocabularies
_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "θ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "varpi": "π", "rho": "ρ",
    "varrho": "ρ", "sigma": "σ", "varsigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "φ",
    "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ",
    "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Upsilon": "Υ",
    "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "infty": "∞", "ell": "ℓ", "emptyset": "∅",
    "varnothing": "∅",
}
_RELATIONS = {
    "le": "≤", "leq": "≤", "leqslant": "≤", "ge": "≥", "geq": "≥", "geqslant": "≥",
    "ne": "≠", "neq": "≠", "equiv": "≡", "approx": "≈", "simeq": "≈", "lt": "<", "gt": ">",
    "mid": "∣", "nmid": "∤", "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆",
    "cong": "≅", "sim": "∼", "parallel": "∥", "perp": "⊥", "propto": "∝",
}
_BREAK_COMMANDS = {
    "implies", "Rightarrow", "Longrightarrow", "rightarrow", "longrightarrow", "to", "iff",
    "Leftrightarrow", "Longleftrightarrow", "therefore", "because", "quad", "qquad", "newline",
    "impliedby", "Leftarrow", "mapsto",
}
_FUNCTIONS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "log", "ln", "lg", "exp", "gcd", "lcm", "max", "min", "det", "lim", "sum", "prod",
    "int", "deg", "arg", "floor", "ceil", "angle", "triangle", "binom", "mod",
}
#: Functions recognised as plain words (``sin(x)``, ``log 2``) when followed by math.
_WORD_FUNCTIONS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "log", "ln", "exp", "gcd", "lcm", "mod", "sqrt",
}
_MULT_COMMANDS = {"times", "cdot", "ast", "cdotp", "bullet", "centerdot"}
_FRAC_COMMANDS = {"frac", "dfrac", "tfrac", "cfrac"}
_BINOM_COMMANDS = {"binom", "dbinom", "tbinom"}
_NOOP_COMMANDS = {
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
    "biggr", "Biggl", "Biggr", "displaystyle", "textstyle", "scriptstyle", "limits",
    "nolimits", "nonumber", "notag", "hline", "middle", "qed", "square", "blacksquare",
    "allowbreak", "medskip", "smallskip", "bigskip", "noindent", "centering",
}
_PROSE_WRAPPERS = {"text", "textbf", "textit", "textrm", "textnormal", "mbox", "hbox", "emph", "textsf", "texttt", "textup"}
_MATH_WRAPPERS = {
    "mathbf", "mathit", "mathbb", "mathcal", "mathsf", "mathfrak", "boldsymbol", "bm",
    "boxed", "fbox", "framebox", "overline", "underline", "vec", "overrightarrow",
    "overleftrightarrow", "mathring", "cancel", "bcancel", "xcancel", "mathop", "ensuremath",
}
#: Accents that make another variable (the mean x̄, an estimate x̂, a derivative ẋ), kept on a
#: single letter as a combining mark; on anything else they are dropped like the wrappers above.
_ACCENTS = {"bar": "\u0304", "hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
           "dot": "\u0307", "ddot": "\u0308"}
_DROP_ARG_COMMANDS = {"label", "ref", "eqref", "cite", "begin", "end", "hspace", "vspace", "phantom", "hphantom", "vphantom", "tag", "color", "textcolor"}
_DOTS_COMMANDS = {"dots", "ldots", "cdots", "vdots", "ddots", "dotsb", "dotsc", "dotsm"}
_DEGREE_COMMANDS = {"circ", "degree", "degrees"}
_UNICODE = {
    "−": ("op", "-"), "–": ("op", "-"), "—": ("punct", "—"), "×": ("op", "*"), "·": ("op", "*"),
    "⋅": ("op", "*"), "∙": ("op", "*"), "÷": ("op", "/"), "√": ("sqrt", "√"), "∛": ("sqrt", "√[3]"),
    "π": ("id", "π"), "∞": ("id", "∞"), "°": ("degree", ""), "≤": ("rel", "≤"), "≥": ("rel", "≥"),
    "≠": ("rel", "≠"), "≈": ("rel", "≈"), "≡": ("rel", "≡"), "∣": ("rel", "∣"), "±": ("op", "±"),
    "→": ("punct", "⇒"), "⇒": ("punct", "⇒"), "⟹": ("punct", "⇒"), "∴": ("punct", "⇒"),
    "½": ("frac", (1, 2)), "¼": ("frac", (1, 4)), "¾": ("frac", (3, 4)), "⅓": ("frac", (1, 3)),
    "⅔": ("frac", (2, 3)), "⅛": ("frac", (1, 8)), "∠": ("func", "@angle"), "△": ("func", "@triangle"),
    "\u2009": ("space", ""), "\u00a0": ("space", ""), "\u202f": ("space", ""), "′": ("prime", "'"),
}
#: Short English words that are prose, not products of variables (``as`` is not ``a*s``).
_STOPWORDS = frozenset(
    """a an as at be by do go he if in is it me my no of on or so to up us we am are and any but can
    did for get got had has her him his how its let may new not now off old one our out own put say see
    set she the too two use was way who why yes yet you all few per via let lot sum day cm mm km kg mg
    ml ft yd mi hr hrs min sec lb lbs oz mph kph pm am each both then than them they this that with from
    into onto also only just what when will been were have more most some such does done gets made
    make take find know need want next last same ten six top end odd box cat dog car pen cup bag hat
    ok vs eg ie hi mr ms dr st nd rd th oh ah re""".split()
)
#: Operators before which prose words that follow a number are dropped
#: (:meth:`_Builder._drop_unit_words`); ``+`` and ``-`` do it in ``_operator``, before deciding
#: whether they are signs.
_BINARY_OPS = frozenset(("*", "/", "±"))
#: Words between two operands that are an operator (:meth:`_Builder._word_operator`).
_WORD_OPERATORS = {"times": "*", "plus": "+", "minus": "-", "divided": "/", "multiplied": "*"}
#: Words that relate or scale the numbers around them: never dropped as a unit.
_CONNECTIVES = frozenset(
    """is are was were be been being am equals equal equaling gives give gets get got makes make means mean
    so then thus hence therefore and or but nor of to by times plus minus than which that this these those
    it its we you they he she since because when while if from into over under divided multiplied as at
    in on for with not no yes each every all total more less fewer greater smaller percent percentage
    squared cubed dozen dozens hundred hundreds thousand thousands million millions billion billions
    twice thrice half halves double triple quarter quarters""".split()
)
#: Upper-case abbreviations that are units after a number and a space (``5 PM``), not products.
_UPPER_UNITS = frozenset("USD EUR GBP MPH KPH GB KB TB".split())  # not AM, PM, MB: segment names
_TEMPERATURE_SCALES = frozenset(("C", "F", "K", "Celsius", "Fahrenheit", "Kelvin"))
#: Words that number a heading or item with the integer after them (``Step 2:``, ``Case 1.``).
_LABEL_WORDS = frozenset(("~step", "~case", "~part", "~method", "~approach", "~stage"))
_UNITS = frozenset("cm mm km kg mg ml ft yd mi hr hrs min mins sec secs lb lbs oz mph kph sq cents dollars hours minutes seconds".split())
_MATHY_RAW = {_CMD, _ESC, _NUM, _SUP}
_PUNCT_CHARS = set(".,;:?!\"'")
_SIMPLE_PUNCT = {",", ";", ":", "?", "."}


class Tokens:
    """Canonical tokens of one text as parallel lists (fast to build and scan).

    ``keys[i]`` is the canonical key, ``kinds[i]`` one of NUM/ID/FUNC/OP/REL/OPEN/CLOSE/WORD/
    PUNCT/MISC, ``starts[i]:ends[i]`` the source characters (an implicit ``*`` is zero-width),
    ``spaced[i]`` whether whitespace preceded it, ``breaks[i]`` whether a line break or math
    delimiter (``$``) separates it from the previous token, ``implicit[i]`` whether a ``*`` came
    from juxtaposition.
    """

    __slots__ = ("keys", "kinds", "starts", "ends", "spaced", "breaks", "implicit")

    def __init__(self):
        self.keys: list[str] = []
        self.kinds: list[int] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.spaced: list[bool] = []
        self.breaks: list[bool] = []
        self.implicit: list[bool] = []

    def __len__(self) -> int:
        return len(self.keys)

    def __repr__(self) -> str:
        return f"Tokens({' '.join(self.keys)!r})"

    def append(self, key, kind, start, end, spaced=False, brk=False, implicit=False):
        self.keys.append(key)
        self.kinds.append(kind)
        self.starts.append(start)
        self.ends.append(end)
        self.spaced.append(spaced)
        self.breaks.append(brk)
        self.implicit.append(implicit)

    def truncate(self, n: int):
        for lst in (self.keys, self.kinds, self.starts, self.ends, self.spaced, self.breaks, self.implicit):
            del lst[n:]

    def take(self, n: int) -> list[tuple]:
        """Remove and return tokens ``n:`` as tuples (used to post-process an argument)."""
        out = list(zip(self.keys[n:], self.kinds[n:], self.starts[n:], self.ends[n:], self.spaced[n:], self.breaks[n:], self.implicit[n:]))
        self.truncate(n)
        return out


class _Builder:
    """One left-to-right pass over raw lexemes producing :class:`Tokens`."""

    def __init__(self, text: str, deadline: Deadline, markdown: bool = True):
        self.text = text
        self.deadline = deadline
        # (type, lexeme, start, end, ws) with ws 0: glued to the previous lexeme, 1: spaces, 2: a line break
        raw = []
        append = raw.append
        line_starts = [0]
        prev_end = 0  # the matches are contiguous: each starts where the previous one ended
        for m in _RAW_RE.finditer(text):
            typ = m.lastindex
            start, end = m.span(typ)
            if start == prev_end:
                ws = 0
            elif text.find("\n", prev_end, start) >= 0:
                ws = 2
                line_starts.append(len(raw))
            else:
                ws = 1
            append((typ, text[start:end], start, end, ws))
            prev_end = end
            if not len(raw) & 4095:
                deadline.check()
        self.raw = raw
        if markdown:
            _drop_list_markers(text, raw, line_starts)
        self.i = 0
        self.out = Tokens()
        self.spaced = False
        self.brk = False
        self.barrier = False
        self.prose = 0  # >0 inside \text{...}
        self.opens: list[int] = []  # indices of OPEN tokens awaiting their CLOSE
        self.steps = 0
        self.ran_out = False  # a command wanted an argument after the last lexeme
        self.floor = 0  # index of the first token of the argument being read

    # ------------------------------------------------------------------ emission
    def _push(self, key, kind, start, end, no_mult=False, implicit=False):
        out = self.out
        keys, kinds = out.keys, out.kinds
        if keys and kinds[-1] == WORD and (kind == REL or key in _BINARY_OPS):
            self._drop_unit_words(kind == REL)
        spaced, brk = self.spaced, self.brk
        self.spaced = self.brk = False
        if keys and not self.barrier:
            pk = kinds[-1]
            if not no_mult and not brk and pk in _OPERAND_END and _implicit_mult(pk, keys[-1], kind, key, spaced):
                out.append("*", OP, start, start, spaced, False, True)
                spaced = False
            elif kind == NUM and pk == OP and keys[-1] == "/" and not out.implicit[-1] and len(keys) >= 2:
                if self._merge_fraction(key, start, end):
                    return
        self.barrier = False
        keys.append(key)
        kinds.append(kind)
        out.starts.append(start)
        out.ends.append(end)
        out.spaced.append(spaced)
        out.breaks.append(brk)
        out.implicit.append(implicit)

    def _drop_unit_words(self, relation: bool = False):
        """``9 sprints × 60 meters = 540 meters``: up to three prose words on one line between a
        number and an operator or relation say what the number counts (``\\text{ dollars}``,
        ``minutes per hour``); they are dropped, so that the equation stays one chain
        (``9 * 60 = 540``). Not when one of them carries meaning (``5 times 3``, ``x is 4``:
        :data:`_CONNECTIVES`), and before a ``relation`` only after a computation: ``1200 lire
        = $1.50`` and ``3 feet = 1 yard`` convert units, they do not state ``1200 = 1.5``."""
        out = self.out
        keys, kinds, breaks = out.keys, out.kinds, out.breaks
        n = len(keys)
        k = n
        while k and kinds[k - 1] == WORD and n - k < 3:
            k -= 1
        if not k or kinds[k - 1] != NUM or self.brk:
            return
        if relation and (k < 2 or kinds[k - 2] != OP):
            return
        before = self.i - 2  # the lexeme before the operator's: a formula that opens there is new math
        if before >= 0 and self.raw[before][1] in ("$", "\\[", "\\("):
            return
        for j in range(k, n):
            if breaks[j] or keys[j][1:] in _CONNECTIVES:
                return
        out.truncate(k)

    def _merge_fraction(self, key, start, end) -> bool:
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

    def _emit_tokens(self, toks, wrap: bool, start=None, end=None):
        """Emit argument tokens (tuples), in parentheses when ``wrap`` and they are not one atom."""
        if not toks:
            return
        if wrap and _needs_parens(toks):
            s = toks[0][2] if start is None else start
            e = toks[-1][3] if end is None else end
            self._push("(", OPEN, s, s)
            self._append_tuples(toks)
            self.out.append(")", CLOSE, e, e)
            return
        key, kind, s, e, _sp, _bk, imp = toks[0]
        self._push(key, kind, s, e, no_mult=False, implicit=imp)
        self._append_tuples(toks[1:])

    def _append_tuples(self, toks):
        for t in toks:
            self.out.append(*t)

    # ------------------------------------------------------------------ driver
    def run(self) -> Tokens:
        self._sequence(depth=0, in_group=False)
        return self.out

    def _sequence(self, depth: int, in_group: bool):
        raw = self.raw
        n = len(raw)
        out = self.out
        while self.i < n:
            self.steps += 1
            if not self.steps & 255:
                self.deadline.check()
            i = self.i
            typ, s, start, end, ws = raw[i]
            # fast path for the bulk of any text: prose words, and runs of long lowercase prose
            # words (one lexeme "there must have been") that the lexer hands over together
            if typ == _WORD and len(s) >= 4 and not self.prose:
                if " " in s:
                    if self._prose_run(i, s, start, ws):
                        continue
                    typ, s, start, end, ws = raw[i]
                    n = len(raw)
                lw = s.lower()
                if lw not in _WORD_FUNCTIONS and lw not in _UNITS and lw not in _WORD_OPERATORS and not (
                    i and raw[i - 1][3] == start and self._mathy(raw[i - 1])
                    and i + 1 < n and raw[i + 1][2] == end and self._mathy(raw[i + 1])
                ):
                    self.i = i + 1
                    out.keys.append("~" + lw)
                    out.kinds.append(WORD)
                    out.starts.append(start)
                    out.ends.append(end)
                    out.spaced.append(self.spaced or ws > 0)
                    out.breaks.append(self.brk or ws == 2)
                    out.implicit.append(False)
                    self.spaced = self.brk = self.barrier = False
                    continue
            if typ == _OPC:
                if s == "}" and in_group:
                    self.i = i + 1
                    return
                if s in _SIMPLE_PUNCT:  # , ; : ? end a chain and never combine with neighbours
                    self.i = i + 1
                    if ws:
                        self.spaced = True
                        if ws == 2:
                            self.brk = True
                    self._push(s, PUNCT, start, end)
                    continue
            self._one(depth)

    def _prose_run(self, i: int, run: str, start: int, ws: int) -> bool:
        """Emit a run of prose words as WORD tokens; False (after splitting it) if the first
        word needs the general rules (a function name or unit)."""
        words = run.split(" ")
        first = words[0].lower()
        if first in _WORD_FUNCTIONS or first in _UNITS:
            pieces, at = [], start
            for k, w in enumerate(words):
                pieces.append((_WORD, w, at, at + len(w), ws if k == 0 else 1))
                at += len(w) + 1
            self.raw[i:i + 1] = pieces
            return False
        out = self.out
        at = start
        for k, w in enumerate(words):
            out.keys.append("~" + w.lower())
            out.kinds.append(WORD)
            out.starts.append(at)
            out.ends.append(at + len(w))
            out.spaced.append(True if k else (self.spaced or ws > 0))
            out.breaks.append(False if k else (self.brk or ws == 2))
            out.implicit.append(False)
            at += len(w) + 1
        self.spaced = self.brk = self.barrier = False
        self.i = i + 1
        return True

    def _one(self, depth: int):
        """Consume and emit one raw lexeme (plus whatever arguments it takes)."""
        typ, s, start, end, ws = self.raw[self.i]
        self.i += 1
        if ws:
            self.spaced = True
            if ws == 2:
                self.brk = True
        if typ == _NUM:
            self._number(s, start, end)
        elif typ == _WORD:
            self._word(s, start, end, depth)
        elif typ == _CMD:
            self._command(s[1:], start, end, depth)
        elif typ == _OPC:
            self._operator(s, start, end, depth)
        elif typ == _ESC:
            self._escape(s[1], start, end)
        elif typ == _COMPOUND:  # 4-packs, 2nd, x-axis, non-negative: prose, not arithmetic
            self._push("~" + s.lower(), WORD, start, end)
        elif typ == _TAG:  # <think>, </think>, <answer>: markup separates like a sentence end
            self._push(s.lower(), PUNCT, start, end)
        elif typ == _SUP:
            self._push("^", OP, start, start, no_mult=True)
            self._push(number_key(parse_numeral(s.translate(_SUPERSCRIPTS))), NUM, start, end)
        else:
            self._other(s, start, end, depth)

    # ------------------------------------------------------------------ numbers and words
    def _number(self, s, start, end):
        out = self.out
        if s.isascii() and s.isdigit() and len(s) < 400:
            if out.keys and out.keys[-1] in _LABEL_WORDS and self._is_label_number(start):
                self._push("~" + s, WORD, start, end)  # "Step 2:" names a step, it states no 2
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
        self._push(key, NUM, start, end)

    def _repeating_decimal(self, start) -> bool:
        """``0.\\overline{36}`` (4/11), ``1.2\\overline{3}`` (37/30): a period after the decimal
        digits, read as one exact number in place of the digits before it."""
        raw, i, out = self.raw, self.i, self.out  # raw[i - 1] is \overline
        if not (i >= 2 and i + 2 < len(raw) and raw[i][1] == "{" and raw[i + 1][0] == _NUM and raw[i + 2][1] == "}"
                and raw[i + 1][1].isascii() and raw[i + 1][1].isdigit() and raw[i - 2][3] == start):
            return False
        prev = raw[i - 2]
        if prev[0] == _OPC and prev[1] == "." and i >= 3 and raw[i - 3][0] == _NUM and raw[i - 3][3] == prev[2]:
            digits, dropped, first = raw[i - 3][1] + ".", 2, raw[i - 3][2]  # 0.\overline{3}
        elif prev[0] == _NUM and "." in prev[1]:
            digits, dropped, first = prev[1], 1, prev[2]  # 0.1\overline{6}
        else:
            return False
        whole, _, fixed = digits.partition(".")
        if not (whole.isascii() and whole.isdigit() and (not fixed or fixed.isascii() and fixed.isdigit())
                and len(digits) + len(raw[i + 1][1]) < 60 and len(out.keys) >= dropped
                and out.starts[-dropped] == first and out.ends[-1] == prev[3]):
            return False
        period = raw[i + 1][1]
        if not period.strip("0") or not period.strip("9"):
            return False  # 0.\overline{9} is 1: left to the digits (anchors assume a period never ends)
        shift = int("1" + "0" * len(fixed))  # 10^len(fixed), spelt out: exact in both builds
        value = Fraction(int(whole + fixed), shift) + Fraction(int(period), int("9" * len(period)) * shift)
        spaced, brk = out.spaced[-dropped], out.breaks[-dropped]
        out.truncate(len(out.keys) - dropped)
        self.spaced, self.brk = spaced, brk
        self.i = i + 3
        self._push(number_key(value), NUM, first, raw[i + 2][3])
        return True

    def _skip_temperature_unit(self):
        """After a degree sign: skip ``C``, ``F`` or ``K`` (also as ``\\mathrm{C}``, ``\\text{ F}``)
        on the same line, so that ``24°C`` is 24 and not 24 times C."""
        raw, i = self.raw, self.i
        if i >= len(raw) or raw[i][4] == 2:
            return
        typ, s = raw[i][0], raw[i][1]
        if typ == _WORD and s in _TEMPERATURE_SCALES:
            self.i = i + 1
        elif (typ == _CMD and s in ("\\mathrm", "\\text", "\\textrm", "\\rm") and i + 3 < len(raw)
              and raw[i + 1][1] == "{" and raw[i + 2][0] == _WORD and raw[i + 2][1] in _TEMPERATURE_SCALES
              and raw[i + 3][1] == "}"):
            self.i = i + 4

    def _is_label_number(self, start) -> bool:
        """Whether the integer at ``start``, after a label word (``Step``, ``Case``, ``Part``),
        numbers it: one space before it, and after it ``:``, ``.``, ``)``, ``**`` or a line end."""
        if self.out.ends[-1] != start - 1 or self.text[start - 1] != " ":
            return False
        if self.i >= len(self.raw):
            return True
        typ, s, _start, _end, ws = self.raw[self.i]
        return ws == 2 or (not ws and typ == _OPC and s in (":", ".", ")", "**"))

    def _raw_neighbour(self, offset: int):
        j = self.i - 1 + offset
        if 0 <= j < len(self.raw):
            return self.raw[j]
        return None

    def _mathy(self, tok) -> bool:
        if tok is None:
            return False
        typ, s = tok[0], tok[1]
        if typ in _MATHY_RAW:
            return True
        if typ == _OPC:
            return s not in _PUNCT_CHARS
        return False

    def _word(self, w, start, end, depth):
        prev, nxt = self._raw_neighbour(-1), self._raw_neighbour(1)
        ws = self.raw[self.i - 1][4]
        lw = w.lower()
        if " " in w:  # a prose run inside \text{...} (outside, _sequence handles runs)
            at = start
            for piece in w.split(" "):
                self._push("~" + piece.lower(), WORD, at, at + len(piece))
                self.spaced = True
                at += len(piece) + 1
            self.spaced = False
            return
        if self.prose:
            if len(w) == 1 and self.prose < 0:
                self._push(w, ID, start, end)
            else:
                self._push("~" + lw, WORD, start, end)
            return
        if lw in _WORD_OPERATORS and self._word_operator(lw, start, end):
            return
        # function names written as words: sin(x), log 2, sqrt(3), (mod 7)
        if lw in _WORD_FUNCTIONS and nxt is not None:
            follow = nxt
            if follow[0] in (_NUM, _CMD) or (follow[0] == _OPC and follow[1] in "({^_") or (follow[0] == _WORD and len(follow[1]) == 1):
                if lw == "sqrt":
                    self._sqrt(start, end, "√", depth)
                else:
                    self._push("@" + lw, FUNC, start, end, no_mult=lw == "mod")
                return
        glued_l = prev is not None and not ws and prev[3] == start and self._mathy(prev)
        glued_r = nxt is not None and nxt[2] == end and (self._mathy(nxt) or nxt[1] == "(")
        if len(w) == 1:
            if prev is not None and not ws and prev[1] in ("'", "’") and prev[3] == start:
                self._push("~" + lw, WORD, start, end)  # the s of it's, the t of don't
                return
            spaced_l = prev is None or ws > 0
            spaced_r = nxt is None or nxt[4] > 0
            if w in "aAI" and spaced_l and spaced_r and self._next_is_word():
                self._push("~" + lw, WORD, start, end)
                return
            if w == "x" and spaced_l and spaced_r and self._between_numbers():
                self._push("*", OP, start, end)
                return
            self._push(w, ID, start, end)
            return
        if prev is not None and (lw in _UNITS and w.islower() and (prev[0] == _NUM or prev[1] in ("π", "\\pi"))
                                 or w in _UPPER_UNITS and prev[0] == _NUM and ws):
            self._push("~" + lw, WORD, start, end)  # 12 cm, 25π cm², 5 PM, 20 USD
            return
        # "(minutes)", "(the positive root)": prose in brackets, not a product of letters
        remark = w.islower() and prev is not None and prev[1] == "(" and (nxt is None or nxt[1] == ")" or nxt[2] > end)
        split = False
        if len(w) <= 3:
            if (glued_l or glued_r or w.isupper()) and not (remark and lw in _STOPWORDS):
                split = True
            elif len(w) == 2 and lw not in _STOPWORDS and w.islower():  # "xy = 12"; 3 letters are prose
                split = True
        elif glued_l and glued_r and not remark:
            split = True
        if not split:
            self._push("~" + lw, WORD, start, end)
            return
        for k, ch in enumerate(w):  # ab -> a * b (the implicit-product rule inserts the *)
            self._push(ch, ID, start + k, start + k + 1)

    def _word_operator(self, lw, start, end) -> bool:
        """``5 times 3``, ``12 divided by 4``, ``7 plus 2``: an operator between two operands on
        one line (``3 times a week`` is prose)."""
        out, raw = self.out, self.raw
        if not out.keys or out.kinds[-1] not in _OPERAND_END or self.brk:
            return False
        j = self.i
        if lw in ("divided", "multiplied"):  # ... by
            if not (j < len(raw) and raw[j][0] == _WORD and raw[j][1].lower() == "by" and raw[j][4] == 1):
                return False
            j += 1
        if not (j < len(raw) and raw[j][4] == 1 and (raw[j][0] == _NUM or raw[j][1] == "(" or raw[j][1] == "$"
                                                     or raw[j][0] == _WORD and len(raw[j][1]) == 1
                                                     and raw[j][1] not in "aAI")):
            return False
        op_end = raw[j - 1][3] if j > self.i else end  # "divided by" ends after "by"
        self.i = j
        self._push(_WORD_OPERATORS[lw], OP, start, op_end)
        return True

    def _next_is_word(self) -> bool:
        j = self.i
        return j < len(self.raw) and self.raw[j][0] == _WORD and len(self.raw[j][1]) > 1

    def _between_numbers(self) -> bool:
        j, k = self.i, self.i - 2
        return j < len(self.raw) and k >= 0 and self.raw[j][0] == _NUM and self.raw[k][0] == _NUM

    # ------------------------------------------------------------------ arguments
    def _arg(self, depth: int, whole_number: bool, to_brace: bool = True) -> list[tuple]:
        """Read one TeX argument (``{...}`` or a single character/command) and return its tokens.
        ``to_brace``: a braced math argument's last token ends at the ``}`` (``x^{10}``); not for a
        wrapper's (the ``}`` of ``\\boxed{18}`` is not part of 18)."""
        if self.i >= len(self.raw):
            self.ran_out = True
            return []
        typ, s, start, end, _ws = self.raw[self.i]
        if typ == _OPC and s in "})]":
            return []
        mark = len(self.out.keys)
        saved = (self.spaced, self.brk)
        floor, self.floor = self.floor, mark
        self.spaced = self.brk = False
        self.barrier = True
        if typ == _OPC and s == "{" and depth < MAX_GROUP_DEPTH:
            self.i += 1
            opens, self.opens = self.opens, []  # brackets opened in a group close in it
            self._sequence(depth + 1, in_group=True)
            self.opens = opens
            closing = self.raw[self.i - 1]
            if (to_brace and len(self.out.keys) > mark and closing[1] == "}" and closing[0] == _OPC
                    and not any(k in (REL, PUNCT, WORD) for k in self.out.kinds[mark:])):
                self.out.ends[-1] = max(self.out.ends[-1], closing[3])  # x^{10}: the span ends at }
        elif (typ == _NUM and not whole_number and len(s) > 1 and s[0].isdigit()) or (typ == _WORD and len(s) > 1):
            # \frac12 -> {1}{2}, \frac ab -> {a}{b}: TeX takes one character.
            self.raw[self.i] = (typ, s[1:], start + 1, end, 0)
            if typ == _NUM:
                self._push(number_key(parse_numeral(s[0])), NUM, start, start + 1)
            else:
                self._push(s[0], ID, start, start + 1)
        elif depth >= MAX_GROUP_DEPTH:
            # arguments nested too deep to read structurally (\frac\frac\frac...: each takes the
            # next): the lexeme as it stands, so that recursion stays bounded
            self.i += 1
            self._push(s, MISC, start, end)
        else:
            # one lexeme; an opening bracket stays open: sqrt(2), x^(n+1) close it after the
            # caller re-emits it where it stood (_close checks the index is still valid)
            self._one(depth + 1)
        self.barrier = False
        toks = self.out.take(mark)
        self.spaced, self.brk = saved
        self.floor = floor
        return toks

    # ------------------------------------------------------------------ commands
    def _command(self, name, start, end, depth):
        if name in _MULT_COMMANDS:
            self._push("*", OP, start, end)
        elif name in _FRAC_COMMANDS:
            self._fraction(start, depth)
        elif name == "sqrt":
            self._sqrt(start, end, "√", depth)
        elif name in _GREEK:
            self._push(_GREEK[name], ID, start, end)
        elif name in _RELATIONS:
            self._push(_RELATIONS[name], REL, start, end)
        elif name in _NOOP_COMMANDS:
            if name in ("left", "right", "bigl", "bigr", "Bigl", "Bigr", "middle") and self.i < len(self.raw):
                nxt = self.raw[self.i]
                if nxt[0] == _OPC and nxt[1] == ".":
                    self.i += 1
                elif nxt[0] in (_OPC, _ESC) and not nxt[4]:
                    # \left( ... \right): the delimiter's token spans the command too
                    n_before = len(self.out.keys)
                    self._one(depth)
                    if len(self.out.keys) > n_before and self.out.starts[-1] == nxt[2]:
                        self.out.starts[-1] = start
        elif name in _PROSE_WRAPPERS or name in ("mathrm", "operatorname"):
            self._wrapped(depth, prose=1 if name in _PROSE_WRAPPERS else -1, operator=name == "operatorname")
        elif name in _MATH_WRAPPERS or name in _ACCENTS:
            if name == "overline" and self._repeating_decimal(start):
                return
            toks = self._arg(depth, whole_number=True, to_brace=False)
            if name in _ACCENTS and len(toks) == 1 and toks[0][1] == ID:
                self._push(toks[0][0] + _ACCENTS[name], ID, toks[0][2], toks[0][3])
                return
            self._emit_tokens(toks, wrap=False)
        elif name in _BREAK_COMMANDS:
            self._push("⇒", PUNCT, start, end)
        elif name in _DROP_ARG_COMMANDS:
            if name in ("color", "textcolor"):
                self._arg(depth, True)
                if name == "textcolor":
                    self._emit_tokens(self._arg(depth, True, False), wrap=False)
            else:
                self._arg(depth, True)
        elif name in _DEGREE_COMMANDS:
            self._skip_temperature_unit()
        elif name in _DOTS_COMMANDS:
            self._push("…", MISC, start, end)
        elif name in _BINOM_COMMANDS or name == "choose":
            if name == "choose":
                self._push("@choose", FUNC, start, end)
                return
            a = self._arg(depth, whole_number=False)
            b = self._arg(depth, whole_number=False)
            self._push("@binom", FUNC, start, end)
            self.out.append("(", OPEN, end, end)  # the brackets and comma are zero-width, in order
            self._append_tuples(a)
            self.out.append(",", PUNCT, self.out.ends[-1], self.out.ends[-1])
            self._append_tuples(b)
            self.out.append(")", CLOSE, self.out.ends[-1], self.out.ends[-1])
        elif name == "pmod":  # \pmod{7} = (mod 7) = \bmod 7: the modulus of a congruence
            arg = self._arg(depth, whole_number=True)
            self._push("@mod", FUNC, start, end, no_mult=True)
            self._append_tuples(arg)
        elif name in ("bmod", "mod"):
            self._push("@mod", FUNC, start, end, no_mult=True)
        elif name in _FUNCTIONS:
            self._push("@" + name, FUNC, start, end)
        elif name in ("pm",):
            self._push("±", OP, start, end)
        elif name in ("mp",):
            self._push("∓", OP, start, end)
        elif name == "div":
            self._push("/", OP, start, end)
        elif name in ("prime",):
            self._prime(start, end)
        elif name in ("lvert", "rvert", "vert"):  # |x - 3| however written
            self._push("|", MISC, start, end, no_mult=True)
        elif name in ("lVert", "rVert", "Vert"):
            self._push("‖", MISC, start, end)
        elif name in ("lfloor", "rfloor", "lceil", "rceil"):
            self._push(name, MISC, start, end)
        elif name in ("langle", "rangle"):
            self._push("(" if name == "langle" else ")", OPEN if name == "langle" else CLOSE, start, end)
        elif name in ("percent",):
            self._push("%", MISC, start, end)
        elif name in ("neg", "lnot", "land", "lor", "wedge", "vee", "cup", "cap", "setminus"):
            self._push(name, OP, start, end)
        else:
            self._push("\\" + name, ID, start, end)

    def _wrapped(self, depth, prose: int, operator: bool):
        self.prose, saved = prose, self.prose
        try:
            toks = self._arg(depth, whole_number=True, to_brace=False)
        finally:
            self.prose = saved
        if operator and toks and all(t[1] == WORD for t in toks):
            name = "".join(t[0][1:] for t in toks)
            self._push("@" + name, FUNC, toks[0][2], toks[-1][3])
            return
        if len(toks) == 1 and toks[0][0] == "~mod":  # (\text{mod } 7) is (mod 7)
            self._push("@mod", FUNC, toks[0][2], toks[0][3], no_mult=True)
            return
        if prose < 0 and toks and self.out.kinds and self.out.kinds[-1] == NUM and _is_unit(toks):
            # 12\,\mathrm{m}, 3\mathrm{m/s}: a unit, not a variable times the number (named as
            # written, so that the word is an exact anchor)
            first, last = toks[0][2], toks[-1][3]
            self._push("~" + self.text[first:last].lower(), WORD, first, last)
            return
        self._emit_tokens(toks, wrap=False)

    def _fraction(self, start, depth):
        if depth < MAX_GROUP_DEPTH and self._digit_fraction(start):
            return
        num = self._arg(depth, whole_number=False)
        den = self._arg(depth, whole_number=False)
        if not num or not den:
            self._emit_tokens(num + den, wrap=False)
            return
        end = den[-1][3]
        after_operand = bool(self.out.kinds) and self.out.kinds[-1] in _OPERAND_END
        # \frac{-3}{4} and \frac{3}{-4} are -3/4 (not after an operand: 2\frac{-3}{4} is 2 * (-3)/4)
        num_sign = len(num) == 2 and num[0][0] == "neg" and not after_operand
        den_sign = len(den) == 2 and den[0][0] == "neg" and not after_operand
        if len(num) == 1 + num_sign and len(den) == 1 + den_sign and num[-1][1] == NUM and den[-1][1] == NUM:
            try:
                a, b = int(num[-1][0][1:]), int(den[-1][0][1:])
            except ValueError:
                a = b = 0
            if b > 1 and gcd(a, b) == 1:
                if num_sign != den_sign:
                    self._push("neg", OP, start, start)
                self._rational(a, b, start, end)
                return
        # a numerator is a term of a product: \frac{3\sqrt{2}}{2} is 3√2/2, \frac{n(n+1)}{2} is
        # n(n+1)/2; a sum keeps its parentheses: \frac{x+1}{2} is (x+1)/2
        wrap = _has_top_level_sum(num) or (num[0][0] == "neg" and after_operand)
        divided = bool(self.out.keys) and self.out.keys[-1] == "/"  # 12/\frac{6}{2} is 12/(6/2)
        if divided:
            self._push("(", OPEN, start, start, no_mult=True)
        elif not wrap:  # the numerator's span starts at \frac
            num = [(num[0][0], num[0][1], start) + tuple(num[0][3:])] + num[1:]
        self._emit_tokens(num, wrap=wrap, start=start)
        self.out.append("/", OP, num[-1][3], num[-1][3])
        self._emit_den(den)
        if divided:
            self.out.append(")", CLOSE, self.out.ends[-1], self.out.ends[-1])

    def _digit_fraction(self, start) -> bool:
        """The commonest fraction, ``\\frac{3}{4}``: two braced digit strings already in lowest
        terms, read straight from the lexemes (what the general path makes of them, without
        reading each argument as a group)."""
        # (sliced, then unpacked: Cython 3.3 crashes on unpacking raw[i:i + 6] in one statement)
        lexemes = self.raw[self.i:self.i + 6]
        if len(lexemes) < 6:
            return False
        o1, n1, c1, o2, n2, c2 = lexemes
        if not (o1[1] == "{" and c1[1] == "}" and o2[1] == "{" and c2[1] == "}" and n1[0] == _NUM and n2[0] == _NUM):
            return False
        p, q = n1[1], n2[1]
        if not (p.isascii() and p.isdigit() and q.isascii() and q.isdigit() and len(p) < 400 and len(q) < 400):
            return False
        a, b = int(p), int(q)
        if b <= 1 or gcd(a, b) != 1:
            return False
        self.i += 6
        self.barrier = False
        self._rational(a, b, start, c2[3])
        return True

    def _rational(self, a: int, b: int, start: int, end: int):
        """Emit the reduced fraction ``a/b`` written from ``start`` to ``end`` (one number token)."""
        out = self.out
        # 2\frac{1}{2} is the mixed number 5/2
        if (out.keys and out.kinds[-1] == NUM and not self.spaced and out.ends[-1] == start
                and a < b and out.keys[-1][1:].isdigit()):
            whole = int(out.keys[-1][1:])
            out.keys[-1] = f"#{whole * b + a}/{b}"
            out.ends[-1] = end
            return
        self._push(f"#{a}/{b}", NUM, start, end)

    def _emit_den(self, den):
        if _needs_parens(den):
            s = den[0][2]
            self.out.append("(", OPEN, s, s)
            self._append_tuples(den)
            self.out.append(")", CLOSE, den[-1][3], den[-1][3])
        else:
            self._append_tuples(den)

    def _sqrt(self, start, end, key, depth):
        if depth < MAX_GROUP_DEPTH and self.i < len(self.raw) and self.raw[self.i][0] == _OPC and self.raw[self.i][1] == "[":
            # \sqrt[3]{x}: read the index up to the matching ]
            self.i += 1
            mark = len(self.out.keys)
            self.barrier = True
            opens, self.opens = self.opens, []
            while self.i < len(self.raw) and not (self.raw[self.i][0] == _OPC and self.raw[self.i][1] == "]"):
                self._one(depth + 1)
            self.opens = opens
            self.i = min(self.i + 1, len(self.raw))  # past the ], if there is one
            idx = self.out.take(mark)
            key = "√[" + " ".join(t[0] for t in idx) + "]"
        self._push(key, FUNC, start, end)
        arg = self._arg(depth, whole_number=True)
        if arg:
            self.barrier = True
            self._emit_tokens(arg, wrap=True)
            self.barrier = False

    def _prime(self, start, end):
        out = self.out
        if out.keys and out.kinds[-1] in (ID, FUNC):
            out.keys[-1] += "'"
            out.ends[-1] = end
        else:
            self._push("'", MISC, start, end)

    # ------------------------------------------------------------------ operators
    def _operator(self, s, start, end, depth):
        out = self.out
        if s == "{":
            if depth < MAX_GROUP_DEPTH:
                opens, self.opens = self.opens, []
                self._sequence(depth + 1, in_group=True)
                self.opens = opens
            return
        if s == "}" or s == "&" or s == "$":
            if s == "$":
                self.brk = self.brk or _dollar_break(out)
                self.spaced = True
            return
        if s in ("(", "["):
            self._push(s, OPEN, start, end)
            self.opens.append(len(out.keys) - 1)
        elif s in (")", "]"):
            self._close(s, start, end)
        elif s in ("=", "==", ":="):
            self._push("=", REL, start, end)
        elif s in ("<", ">"):
            self._push(s, REL, start, end)
        elif s == "!=" and out.keys and not self.spaced and (out.kinds[-1] in (NUM, CLOSE) or out.keys[-1] in ("n", "k", "m")):
            # 5!=120, n!=120: a factorial, then = (x != y, x!=y stay "not equal")
            self._push("!", OP, start, start + 1, no_mult=True)
            self._push("=", REL, start + 1, end)
        elif s in ("<=", ">=", "!="):
            self._push({"<=": "≤", ">=": "≥", "!=": "≠"}[s], REL, start, end)
        elif s == "+":
            if out.kinds and out.kinds[-1] == WORD:
                self._drop_unit_words()
            if not _unary_context(out, self.brk or len(out.keys) == self.floor):
                self._push("+", OP, start, end)
        elif s == "-":
            if out.kinds and out.kinds[-1] == WORD and self.raw[self.i - 1][4]:
                self._drop_unit_words()  # 12 apples - 3 apples: a binary minus (not a hyphen)
            self._push("neg" if _unary_context(out, self.brk or len(out.keys) == self.floor) else "-", OP, start, end)
        elif s == "*":
            self._push("*", OP, start, end)
        elif s == "**":
            if self._is_power_stars():
                self._exponent(start, end, depth)
            else:  # markdown emphasis (**Step 1:**) is layout
                self.spaced = True
        elif s == "^":
            self._exponent(start, end, depth)
        elif s == "_":
            self._subscript(start, end, depth)
        elif s == "/":
            self._push("/", OP, start, end)
        elif s == "!":
            if out.keys and not self.spaced and out.kinds[-1] in (NUM, ID, CLOSE):
                self._push("!", OP, start, end, no_mult=True)
            else:
                self._push("!", PUNCT, start, end)
        elif s == "'":
            self._prime(start, end) if out.keys and not self.spaced and out.kinds[-1] in (ID, FUNC) else self._push("'", PUNCT, start, end)
        elif s == "...":
            self._push("…", MISC, start, end)
        elif s == "%":
            self._push("%", MISC, start, end, no_mult=True)
        elif s == "|":
            self._push("|", MISC, start, end, no_mult=True)
        else:  # , ; : . ?
            self._push(s, PUNCT, start, end)

    def _is_power_stars(self) -> bool:
        """``x**2`` is a power; ``**Step 1:**`` (markdown bold) is not: a power is glued to
        an operand on both sides."""
        raw, i = self.raw, self.i  # raw[i - 1] is the "**" lexeme
        if raw[i - 1][4] or i < 2 or i >= len(raw) or raw[i][4]:
            return False
        prev, nxt = raw[i - 2], raw[i]
        return (prev[0] in (_NUM, _WORD) or prev[1] in (")", "}")) and (nxt[0] in (_NUM, _WORD) or nxt[1] in ("(", "{", "-"))

    def _close(self, s, start, end):
        out = self.out
        want = "(" if s == ")" else "["
        if self.opens:
            j = self.opens.pop()
            if j < len(out.keys) and out.keys[j] == want:
                inner = len(out.keys) - j - 1
                if want == "(" and inner and out.keys[j + 1] == "@mod":  # (mod 7) is \pmod{7}
                    inside = out.take(j + 1)
                    out.truncate(j)
                    self._append_tuples(inside)
                    return
                if (want == "(" and inner and j and out.kinds[j - 1] == NUM
                        and all(kind == WORD for kind in out.kinds[j + 1:])):
                    # 60 (minutes) / 4 = 15, x = 5 (the positive root): a remark, not a factor
                    out.truncate(j)
                    self.spaced = True
                    return
                # (3) -> 3, (x) -> x : parentheses around one atom carry no structure. The atom
                # is emitted again where the bracket stood, with its spacing, so the usual rules
                # apply to it (\pi (4)^2 and 2 (x) are products; 3 (4) is not).
                if want == "(" and inner == 1 and out.kinds[j + 1] in (NUM, ID):
                    key, kind, atom_start, atom_end, implicit = (
                        out.keys[-1], out.kinds[-1], out.starts[-1], out.ends[-1], out.implicit[-1])
                    self.spaced, self.brk = out.spaced[j], out.breaks[j]
                    out.truncate(j)
                    self._push(key, kind, atom_start, atom_end, no_mult=False, implicit=implicit)
                    return
        self._push(s, CLOSE, start, end)

    def _exponent(self, start, end, depth):
        arg = self._arg(depth, whole_number=True)
        if not arg:  # ^\circ, ^{\circ}: degrees vanish (with a scale after them, see _command)
            if self.raw[self.i - 1][1] == "}" and self.raw[self.i - 2][1] in ("\\circ", "\\degree", "\\degrees"):
                self._skip_temperature_unit()
            return
        self._push("^", OP, start, end, no_mult=True)
        self.barrier = True
        self._emit_tokens(arg, wrap=True)
        self.barrier = False

    def _subscript(self, start, end, depth):
        arg = self._arg(depth, whole_number=True)
        if not arg:
            return
        out = self.out
        if out.keys and out.kinds[-1] in (ID, NUM, FUNC):
            if len(arg) == 1:
                sub = arg[0][0].lstrip("#")
            else:
                sub = "{" + " ".join(t[0].lstrip("#") for t in arg) + "}"
            base = out.keys[-1]
            if out.kinds[-1] == NUM:  # 17_b is a numeral in base b, not the number 17
                base = base[1:]
                out.kinds[-1] = ID
            out.keys[-1] = f"{base}_{sub}"
            out.ends[-1] = arg[-1][3]
            return
        self._push("_", OP, start, end)
        self._emit_tokens(arg, wrap=True)

    def _escape(self, ch, start, end):
        if ch in ",;:! ":
            self.spaced = True
        elif ch == "\\":
            self.spaced = True
            self.brk = True
        elif ch in "()[]":
            self.brk = self.brk or _dollar_break(self.out)
            self.spaced = True
        elif ch == "{":
            self._push("{", OPEN, start, end)
            self.opens.append(len(self.out.keys) - 1)
        elif ch == "}":
            self._push("}", CLOSE, start, end)
        elif ch == "%":
            self._push("%", MISC, start, end, no_mult=True)
        elif ch == "$":
            self.spaced = True
        elif ch == "|":
            self._push("‖", MISC, start, end)
        else:
            self._push(ch, PUNCT, start, end)

    def _other(self, s, start, end, depth):
        entry = _UNICODE.get(s)
        if entry is None:
            if s.isalpha():
                if "α" <= s <= "ω" or "Α" <= s <= "Ω":
                    self._push(s, ID, start, end)
                else:
                    self._push("~" + s.lower(), WORD, start, end)
            elif s in "\u200b\ufeff":
                return
            else:
                self._push(s, PUNCT, start, end)
            return
        kind, val = entry
        if kind == "op":
            self._operator(val, start, end, depth)
        elif kind == "rel":
            self._push(val, REL, start, end)
        elif kind == "id":
            self._push(val, ID, start, end)
        elif kind == "sqrt":
            self._sqrt(start, end, val, depth)
        elif kind == "frac":
            a, b = val
            self._push(f"#{a}/{b}", NUM, start, end)
        elif kind == "func":
            self._push(val, FUNC, start, end)
        elif kind == "punct":
            self._push(val, PUNCT, start, end)
        elif kind == "prime":
            self._prime(start, end)
        elif kind == "space":
            self.spaced = True
        elif kind == "degree":  # degree signs vanish, with the scale after them: 24°C is 24
            self._skip_temperature_unit()


_BULLETS = {"-", "*", "+"}
_ENUMERATOR_RE = re.compile(r"[0-9]{1,2}|[A-Za-z]|[ivx]{2,4}")
# what may follow a list marker: not an operator or relation that would make it math
_MATH_AFTER_MARKER = set("=<>+-*/^_!)]}.,;:")


def _drop_list_markers(text: str, raw: list, line_starts: list[int]) -> None:
    """Remove Markdown/enumeration list markers that open a line, in place: ``- ``, ``* ``,
    ``+ `` and ``1) ``, ``b) ``, ``(a) ``, ``(ii) ``, ``12. `` followed by a space. They are
    layout: ``- 24 apples`` is not the number -24, ``(a) x = 5`` is not ``a*x = 5``, the ``2``
    of ``2. Then 12 * 3 = 36`` is no value. The lexeme after a marker keeps a line break.

    >>> [" ".join(tokenize(line).keys) for line in ("- x = 5", "1) 24 apples", "(b) x = 5", "2. So x = 5")]
    ['x = #5', '#24 ~apples', 'x = #5', '~so x = #5']
    >>> canonical_key("- 5"), canonical_key("12.")  # a node form is math, not a list item
    ('neg #5', '#12 .')
    """
    for i in reversed(line_starts):  # from the end: removing lexemes keeps earlier indices valid
        n = _list_marker_length(text, raw, i)
        if n and i + n < len(raw):
            typ, s, start, end, _ws = raw[i + n]
            raw[i + n] = (typ, s, start, end, 2)
        del raw[i:i + n]


def _list_marker_length(text: str, raw: list, i: int) -> int:
    """Number of lexemes of the list marker at ``raw[i]`` (0 if there is none)."""
    n = len(raw)
    if i >= n:
        return 0
    typ, s = raw[i][0], raw[i][1]
    if typ == _NUM and i + 1 < n and raw[i + 1][1] == "." and raw[i + 1][0] == _OPC and not raw[i + 1][4]:
        # 12. followed by a space: a numbered item (a sentence cut may leave it alone in its
        # segment; a line holding just "12." ends without the space and stays a number)
        dot_end = raw[i + 1][3]
        if not (len(s) <= 2 and s.isdigit() and text[dot_end:dot_end + 1] in (" ", "\t")):
            return 0
        if i + 2 == n:
            return 2
        size = 2
    elif typ == _OPC and s in _BULLETS:
        if i and (raw[i - 1][1] in ("\\[", "\\\\") or raw[i - 1][1] == "$" and i > 1 and raw[i - 2][1] == "$"):
            return 0  # "\\[\n- 3x = 6", "x = 1 \\\\\n- 3x = 6": a display formula's minus sign
        size = 1
    elif typ == _OPC and s == "(":  # (a) (ii) (1)
        if not (i + 2 < n and raw[i + 2][1] == ")" and not raw[i + 1][4] and not raw[i + 2][4]
                and raw[i + 1][0] in (_NUM, _WORD) and _ENUMERATOR_RE.fullmatch(raw[i + 1][1])):
            return 0
        size = 3
    elif typ in (_NUM, _WORD) and _ENUMERATOR_RE.fullmatch(s):  # 1) b) iv)
        if not (i + 1 < n and raw[i + 1][1] == ")" and raw[i + 1][0] == _OPC and not raw[i + 1][4]):
            return 0
        size = 2
    else:
        return 0
    if i + size >= n:
        return 0
    nxt = raw[i + size]
    if nxt[4] != 1 or (nxt[0] == _OPC and nxt[1] in _MATH_AFTER_MARKER):
        return 0
    return size


def _is_unit(toks) -> bool:
    """Whether the tokens of a ``\\mathrm{...}`` after a number spell a unit: letters, with ``/``,
    ``*`` and integer powers between them (``m``, ``km/h``, ``m/s^2``)."""
    previous = None
    for key, kind, *_rest in toks:
        letters = kind == WORD or kind == ID and key.isalpha() and key not in ("e", "i", "d")  # 3\mathrm{i}
        if not letters and key not in ("/", "*", "^") and not (kind == NUM and previous == "^"):
            return False
        previous = key
    return toks[0][1] in (ID, WORD)


_SUM_SIGNS = frozenset(("+", "-", "±", "∓"))


def _has_top_level_sum(toks) -> bool:
    """Whether argument tokens hold a ``+``/``-`` (or a relation, punctuation, a word) outside
    brackets after their first token: a numerator that needs its parentheses."""
    depth = 0
    for k, t in enumerate(toks):
        kind = t[1]
        if kind == OPEN:
            depth += 1
        elif kind == CLOSE:
            depth -= 1
        elif not depth and k and (kind == REL or kind == PUNCT or kind == WORD or t[0] in _SUM_SIGNS):
            return True
    return False



def _needs_parens(toks) -> bool:
    if len(toks) <= 1:
        return False
    if toks[0][1] == OPEN and toks[-1][1] == CLOSE:
        depth = 0
        for k, t in enumerate(toks):
            if t[1] == OPEN:
                depth += 1
            elif t[1] == CLOSE:
                depth -= 1
                if depth == 0 and k < len(toks) - 1:
                    return True
        return False
    if len(toks) == 2 and toks[0][0] == "neg":
        return True
    return True


def _unary_context(out: Tokens, brk: bool) -> bool:
    if not out.keys or brk:
        return True
    return out.kinds[-1] in (OP, REL, OPEN, PUNCT, WORD, FUNC) and out.keys[-1] != "!"


def _dollar_break(out: Tokens) -> bool:
    """A math delimiter between two operands separates them (``$3$ $y=4$``)."""
    return bool(out.keys) and out.kinds[-1] in (NUM, ID, CLOSE)


_OPERAND_END = (NUM, ID, CLOSE)


def _implicit_mult(pk: int, pkey: str, kind: int, key: str, spaced: bool) -> bool:
    """Juxtaposition that means multiplication: ``2x``, ``2(x)``, ``)(``, ``x y``, ``2\\sqrt3``,
    ``\\pi 4``."""
    if pkey == "!" or pkey == "%":
        return False
    if pk == NUM or pk == ID:
        if kind == ID:  # 2x, 2 x, 4 g(x), 2π, x y
            return True
        if kind == FUNC:  # 2\sqrt3, x \sin y
            return key != "@mod"
        if kind == OPEN:  # 2(x+1), f(x); "3 (since ...)" is prose
            return not spaced and key == "("
        if kind == NUM:  # \pi 4^2 is pi times 16; a variable before a number is not a product
            return pkey == "π"
        return False
    if pk == CLOSE and pkey == ")":
        if kind == OPEN:
            return key == "("
        if kind in (ID, NUM, FUNC):
            return not spaced and key != "@mod"
    return False


def tokenize(text: str, deadline: Deadline = NO_DEADLINE, markdown: bool = True) -> Tokens:
    """Canonical tokens of ``text`` (any ``str``; raises :class:`BudgetExceeded` past the deadline).
    ``markdown``: list markers that open a line (``- ``, ``1) ``, ``(a) ``) are layout, as in a
    trajectory; a node form is math (``tokenize_form`` reads it with ``markdown=False``).

    >>> tokenize("- 24 apples").keys, tokenize("- 24 apples", markdown=False).keys
    (['#24', '~apples'], ['neg', '#24', '~apples'])
    """
    return _Builder(plain_str(text), deadline, markdown).run()


def plain_str(text) -> str:
    """``text`` as an exact ``str`` (a subclass such as ``numpy.str_`` is copied: the compiled
    build takes exact ``str``); raises ``TypeError`` for anything that is not a ``str``."""
    if type(text) is str:
        return text
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return str.__str__(text)


#: Texts up to this length (a sentence, a line) are tokenised once and cached: completions of one
#: prompt (a GRPO group, repeated samples) share many sentences. Longer ones are tokenised under
#: the deadline each time.
SEGMENT_CACHE_CHARS = 2000


@lru_cache(maxsize=16384)
def _cached_tokens(text: str) -> Tokens:
    return _Builder(text, NO_DEADLINE).run()


def tokenize_cached(text: str, deadline: Deadline = NO_DEADLINE) -> Tokens:
    """:func:`tokenize`, cached for short texts. The result is shared: do not modify it."""
    if len(text) <= SEGMENT_CACHE_CHARS:
        return _cached_tokens(text)
    return tokenize(text, deadline)


def tokenize_form(form: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Keys and kinds of a node form (cached: node forms repeat across completions).

    An equation ``L = R`` written plainly (one ``=`` with spaces around it, brackets nested on
    each side) is read side by side when every command of ``L`` found its arguments inside
    ``L``: its sides are cached on their own, so the swapped form ``R = L`` that node files list
    next to it costs nothing more. This gives exactly the tokens of reading the whole form.

    >>> tokenize_form("x + 1 = \\\\frac{1}{2}")
    (('x', '+', '#1', '=', '#1/2'), (1, 3, 0, 4, 0))
    """
    keys, kinds, _complete = _read_form(form)
    return keys, kinds


@lru_cache(maxsize=65536)
def _read_form(form: str) -> tuple[tuple[str, ...], tuple[int, ...], bool]:
    """Keys, kinds, and whether no command ran out of text while reading its arguments."""
    halves = _equation_halves(form)
    if halves is not None:
        left, left_kinds, left_complete = _read_form(halves[0])
        right, right_kinds, right_complete = _read_form(halves[1])
        # (words ending the left side may be a unit the = drops: "9 m = 900 cm", read whole)
        if left_complete and left and right and REL not in left_kinds and REL not in right_kinds \
                and left_kinds[-1] != WORD:
            return left + ("=",) + right, left_kinds + (REL,) + right_kinds, right_complete
    builder = _Builder(form, NO_DEADLINE, markdown=False)  # a form is math, not a list item
    toks = builder.run()
    return tuple(toks.keys), tuple(toks.kinds), not builder.ran_out


_LEFT_SIDE_END = re.compile(r"[^\s=<>!:]\s+\Z")
_RIGHT_SIDE_START = re.compile(r"\s+[^\s=]")


def _equation_halves(form: str) -> tuple[str, str] | None:
    """``(L, R)`` of a plainly written ``L = R`` (see :func:`tokenize_form`), else ``None``."""
    at = form.find("=")
    if at <= 0 or form.find("=", at + 1) >= 0:
        return None
    left, right = form[:at], form[at + 1:]
    if not _LEFT_SIDE_END.search(left) or not _RIGHT_SIDE_START.match(right):
        return None
    if not (_nested(left) and _nested(right)):
        return None
    return left.strip(), right.strip()


_SIZED_BRACE = re.compile(r"\\(?:left|right|middle|[bB]igg?[lr]?)\s*[{}]")


def _nested(text: str) -> bool:
    """Whether the brackets ``( ) [ ] { }`` of ``text`` close in order (``\\{`` is no bracket:
    nothing may stay open where a group could run on past the side)."""
    if _SIZED_BRACE.search(text):  # \left} is a delimiter the builder reads as no group end
        return False
    stack = []
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in "([{":
            stack.append(ch)
        elif ch in ")]}":
            if not stack or "([{"[")]}".index(ch)] != stack.pop():
                return False
    return not stack


def canonical_key(form: str) -> str:
    """A readable canonical string of a math form; equal strings mean equal forms under SPEC §3.

    >>> canonical_key("$\\\\dfrac{9}{s+2} + t = 2.4$")
    '#9 / ( s + #2 ) + t = #12/5'
    """
    return " ".join(tokenize_form(form)[0])
