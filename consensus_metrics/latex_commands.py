r"""What the LaTeX commands that take arguments or look around them become: the
``{command: handler}`` table of the token rules.

A command that is one token whatever follows (``\cdot``, ``\le``, ``\alpha``, ``\sin``) is data,
:data:`consensus_metrics.vocabulary.COMMAND_TOKENS`. The others have a handler here, called by
the token rules (:class:`consensus_metrics.token_rules.TokenBuilder`) as
``handler(builder, name, start, end, depth)`` right after the command's lexeme (``start:end``
its span, ``depth`` the nesting of groups around it). A handler reads the command's arguments
and emits tokens through the builder: ``builder.arg()`` reads one TeX argument and returns its
tokens (tuples ``(key, kind, start, end, spaced, breaks, implicit)``), ``builder.push()`` emits a
token under the rules of juxtaposition, ``builder.emit()``, ``builder.append_tokens()`` and
``builder.append_group()`` emit argument tokens; ``builder.i`` is the index of the next lexeme
(``builder.lex_kind[i]``, ``builder.lex_text[i]``, ...), ``builder.out`` the tokens so far. A
command missing from both tables is an identifier (``\foo`` -> ``\foo``).

>>> from consensus_metrics.normalize import canonical_key
>>> [canonical_key(t) for t in ("\\frac{3}{4}", "2\\frac{1}{2}", "\\frac{x+1}{2}", "\\binom{5}{2}")]
['#3/4', '#5/2', '( x + #1 ) / #2', '@binom ( #5 , #2 )']
>>> [canonical_key(t) for t in ("\\bar{x}", "\\text{mod } 7", "12\\,\\mathrm{m/s}", "0.\\overline{36}")]
['x̄', '@mod #7', '#12 ~m/s', '#4/11']
"""

from __future__ import annotations

import re
from fractions import Fraction
from math import gcd

from .lexer import ESCAPE, NUMERAL, SYMBOL
from .numbers import number_key
from .symbol_rules import close_bracket, prime, skip_temperature_unit, square_root
from .vocabulary import (ACCENTS, BINOM_COMMANDS, CLOSE, DEGREE_COMMANDS, DROP_ARG_COMMANDS, FRAC_COMMANDS, FUNC,
                         ID, MATH_WRAPPERS, MAX_GROUP_DEPTH, NOOP_COMMANDS, NUM, OP, OPEN, OPERAND_END,
                         PROSE_WRAPPERS, PUNCT, REL, SIZED_DELIMITERS, WORD, unit_phrase)


# ----------------------------------------------------------------------------- fractions
def fraction(b, name, start, end, depth):
    r"""``\frac{a}{b}``, ``\dfrac``, ``\tfrac``, ``\cfrac``, ``\frac12``: a reduced fraction of two
    integers is one number (``\frac{-3}{4}`` too, but not after an operand: ``2\frac{-3}{4}`` is
    ``2 * (-3)/4``); otherwise the numerator reads as written inline (``\frac{3\sqrt2}{2}`` is
    ``3√2/2``, a sum keeps its brackets), then ``/`` and the denominator."""
    if depth < MAX_GROUP_DEPTH and _digit_fraction(b, start):
        return
    num = b.arg(depth, False)
    den = b.arg(depth, False)
    num, den = _like_quantities(b.text, num, den)
    if not num or not den:
        b.emit(num + den, False)
        return
    end = den[-1][3]
    out = b.out
    after_operand = bool(out.kinds) and out.kinds[-1] in OPERAND_END
    num_sign = len(num) == 2 and num[0][0] == "neg" and not after_operand
    den_sign = len(den) == 2 and den[0][0] == "neg" and not after_operand
    if len(num) == 1 + num_sign and len(den) == 1 + den_sign and num[-1][1] == NUM and den[-1][1] == NUM:
        try:
            p, q = int(num[-1][0][1:]), int(den[-1][0][1:])
        except ValueError:
            p = q = 0
        if q > 1 and gcd(p, q) == 1:
            if num_sign != den_sign:
                b.push("neg", OP, start, start)
            _rational(b, p, q, start, end)
            return
    wrap = _has_top_level_sum(num) or (num[0][0] == "neg" and after_operand)
    divided = bool(out.keys) and out.keys[-1] == "/"  # 12/\frac{6}{2} is 12/(6/2)
    if divided:
        b.push("(", OPEN, start, start, True)
    elif not wrap:  # the numerator's span starts at \frac
        num = [(num[0][0], num[0][1], start) + tuple(num[0][3:])] + num[1:]
    b.emit(num, wrap, start)
    out.append("/", OP, num[-1][3], num[-1][3])
    b.append_group(den)
    if divided:
        out.append(")", CLOSE, out.ends[-1], out.ends[-1])


def _like_quantities(text: str, num: list, den: list) -> tuple[list, list]:
    r"""A fraction's parts without the words that say what their numbers count, where both
    count the same thing (the denominator's text names the numerator's unit) or only one counts
    anything: a ratio of like quantities is a pure number (``\frac{64 \text{ ounces}}{16
    \text{ ounces per can}}`` is ``64/16``, ``\frac{15 \text{ days}}{3 \text{ days/arm}}`` is
    ``15/3``). Unlike units stay: ``\frac{1 \text{ km}}{9000 \text{ s}} = \frac{1000 \text{
    m}}{9000 \text{ s}}`` converts a unit, it states no false equation ``1/9000 = 1000/9000``."""
    n_cut, d_cut = _unit_cut(num), _unit_cut(den)
    if n_cut is None or d_cut is None or (n_cut == len(num) and d_cut == len(den)):
        return num, den
    if n_cut < len(num) and d_cut < len(den):
        unit = num[n_cut][0][1:].rstrip("s")
        if not unit or unit not in text[den[0][2]:den[-1][3]].lower():
            return num, den
    return num[:n_cut], den[:d_cut]


def _unit_cut(arg: list):
    """Where the words that end a fraction part after its number start (``len(arg)`` when it
    has none), or None where words stand elsewhere or say more than what the number counts
    (:func:`~consensus_metrics.vocabulary.unit_phrase`)."""
    k = len(arg)
    while k and arg[k - 1][1] == WORD:
        k -= 1
    if any(t[1] == WORD for t in arg[:k]):
        return None
    if k < len(arg) and (not k or arg[k - 1][1] != NUM or not unit_phrase([t[0] for t in arg[k:]])):
        return None
    return k


def _digit_fraction(b, start) -> bool:
    """The commonest fraction, ``\\frac{3}{4}``: two braced digit strings already in lowest
    terms, read straight from the lexemes (what the general path makes of them, without
    reading each argument as a group)."""
    i, texts = b.i, b.lex_text
    if i + 6 > len(texts):
        return False
    kinds = b.lex_kind
    if not (texts[i] == "{" and texts[i + 2] == "}" and texts[i + 3] == "{" and texts[i + 5] == "}"
            and kinds[i + 1] == NUMERAL and kinds[i + 4] == NUMERAL):
        return False
    p, q = texts[i + 1], texts[i + 4]
    if not (p.isascii() and p.isdigit() and q.isascii() and q.isdigit() and len(p) < 400 and len(q) < 400):
        return False
    a, d = int(p), int(q)
    if d <= 1 or gcd(a, d) != 1:
        return False
    b.i = i + 6
    b.barrier = False
    _rational(b, a, d, start, b.lex_end[i + 5])
    return True


def _rational(b, p: int, q: int, start, end) -> None:
    """Emit the reduced fraction ``p/q`` written from ``start`` to ``end`` (one number token);
    glued to an integer before it, a mixed number (``2\\frac{1}{2}`` is 5/2)."""
    out = b.out
    if (out.keys and out.kinds[-1] == NUM and not b.spaced and out.ends[-1] == start
            and p < q and out.keys[-1][1:].isdigit()):
        whole = int(out.keys[-1][1:])
        out.keys[-1] = f"#{whole * q + p}/{q}"
        out.ends[-1] = end
        return
    b.push(f"#{p}/{q}", NUM, start, end)


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


def binomial(b, name, start, end, depth):
    r"""``\binom{n}{k}`` (``\dbinom``, ``\tbinom``): ``@binom ( n , k )``, the brackets and comma
    zero-width, in order."""
    upper = b.arg(depth, False)
    lower = b.arg(depth, False)
    b.push("@binom", FUNC, start, end)
    out = b.out
    out.append("(", OPEN, end, end)
    b.append_tokens(upper)
    out.append(",", PUNCT, out.ends[-1], out.ends[-1])
    b.append_tokens(lower)
    out.append(")", CLOSE, out.ends[-1], out.ends[-1])


# ----------------------------------------------------------------------------- wrappers
def prose_wrapper(b, name, start, end, depth):
    r"""``\text{...}`` and its kin read their argument as prose words; ``\mathrm{...}`` as
    letters (an identifier, or a unit after a number: ``12\,\mathrm{m/s}``);
    ``\operatorname{lcm}`` is the function ``@lcm``; ``\text{mod } 7`` is ``\bmod 7``."""
    prose = 1 if name in PROSE_WRAPPERS else -1
    b.prose, saved = prose, b.prose
    try:
        toks = b.arg(depth, True, False)
    finally:
        b.prose = saved
    if name == "operatorname" and toks and all(t[1] == WORD for t in toks):
        b.push("@" + "".join(t[0][1:] for t in toks), FUNC, toks[0][2], toks[-1][3])
        return
    if len(toks) == 1 and toks[0][0] == "~mod":  # (\text{mod } 7) is (mod 7)
        b.push("@mod", FUNC, toks[0][2], toks[0][3], True)
        return
    out = b.out
    if prose < 0 and toks and out.kinds and out.kinds[-1] == NUM and _is_unit(toks):
        # 12\,\mathrm{m}, 3\mathrm{m/s}: a unit, not a variable times the number (named as
        # written, so that the word is an exact anchor)
        first, last = toks[0][2], toks[-1][3]
        b.push("~" + b.text[first:last].lower(), WORD, first, last)
        return
    b.emit(toks, False)


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


def math_wrapper(b, name, start, end, depth):
    r"""``\boxed{...}``, ``\mathbf{...}``, ``\vec{v}``, ``\overline{AB}``...: the argument as it
    stands. An accent on a single letter makes another variable (``\bar{x}`` is ``x̄``), and
    ``0.\overline{36}`` is the repeating decimal 4/11."""
    if name == "overline" and _repeating_decimal(b, start):
        return
    toks = b.arg(depth, True, False)
    if name in ACCENTS and len(toks) == 1 and toks[0][1] == ID:
        b.push(toks[0][0] + ACCENTS[name], ID, toks[0][2], toks[0][3])
        return
    b.emit(toks, False)


def _repeating_decimal(b, start) -> bool:
    """``0.\\overline{36}`` (4/11), ``1.2\\overline{3}`` (37/30): a period after the decimal
    digits, read as one exact number in place of the digits before it."""
    i, kinds, texts, starts, ends = b.i, b.lex_kind, b.lex_text, b.lex_start, b.lex_end  # i - 1 is \overline
    if not (i >= 2 and i + 2 < len(kinds) and texts[i] == "{" and kinds[i + 1] == NUMERAL and texts[i + 2] == "}"
            and texts[i + 1].isascii() and texts[i + 1].isdigit() and ends[i - 2] == start):
        return False
    prev = i - 2
    if kinds[prev] == SYMBOL and texts[prev] == "." and i >= 3 and kinds[i - 3] == NUMERAL and ends[i - 3] == starts[prev]:
        digits, dropped, first = texts[i - 3] + ".", 2, starts[i - 3]  # 0.\overline{3}
    elif kinds[prev] == NUMERAL and "." in texts[prev]:
        digits, dropped, first = texts[prev], 1, starts[prev]  # 0.1\overline{6}
    else:
        return False
    whole, _, fixed = digits.partition(".")
    out = b.out
    if not (whole.isascii() and whole.isdigit() and (not fixed or fixed.isascii() and fixed.isdigit())
            and len(digits) + len(texts[i + 1]) < 60 and len(out.keys) >= dropped
            and out.starts[-dropped] == first and out.ends[-1] == ends[prev]):
        return False
    period = texts[i + 1]
    if not period.strip("0") or not period.strip("9"):
        return False  # 0.\overline{9} is 1: left to the digits (anchors assume a period never ends)
    shift = int("1" + "0" * len(fixed))  # 10^len(fixed), spelt out: exact in both builds
    value = Fraction(int(whole + fixed), shift) + Fraction(int(period), int("9" * len(period)) * shift)
    spaced, brk = out.spaced[-dropped], out.breaks[-dropped]
    out.truncate(len(out.keys) - dropped)
    b.spaced, b.brk = spaced, brk
    b.i = i + 3
    b.push(number_key(value), NUM, first, ends[i + 2])
    return True


# ----------------------------------------------------------------------------- the rest
def sized_delimiter(b, name, start, end, depth):
    r"""``\left(``, ``\right]``, ``\bigl|``...: the delimiter after the command, its token
    spanning the command too; ``\left.`` is nothing. (``\big``, ``\displaystyle`` and the other
    sizes and layout commands are nothing: :func:`nothing`.)"""
    i = b.i
    if i >= len(b.lex_kind):
        return
    kind = b.lex_kind[i]
    if kind == SYMBOL and b.lex_text[i] == ".":
        b.i = i + 1
    elif kind in (SYMBOL, ESCAPE) and not b.lex_gap[i]:
        out = b.out
        n_before, delimiter_start = len(out.keys), b.lex_start[i]
        b.read_one(depth)
        if len(out.keys) > n_before and out.starts[-1] == delimiter_start:
            out.starts[-1] = start


def nothing(b, name, start, end, depth):
    """Layout (``\\displaystyle``, ``\\big``, ``\\hline``...): no token."""


def dropped_argument(b, name, start, end, depth):
    r"""``\label{...}``, ``\hspace{...}``, ``\color{red}``...: the argument is no math and is
    dropped; ``\textcolor{red}{x}`` keeps its second argument."""
    b.arg(depth, True)
    if name == "textcolor":
        b.emit(b.arg(depth, True, False), False)


#: The environments that are a matrix (a bracket of entries); ``vmatrix`` is a determinant.
MATRIX_ENVIRONMENT = re.compile(r"\s*\{\s*(?:[pbB]?matrix|smallmatrix)\*?\s*\}")


def environment(b, name, start, end, depth):
    r"""``\begin{...}``, ``\end{...}``: the environment's name is no math and goes, but a matrix
    (``pmatrix``, ``bmatrix``, ``Bmatrix``, ``matrix``, ``smallmatrix``) is a bracket whose entries
    are separated like a tuple's: ``&`` and a row break ``\\`` are commas, except that a matrix
    whose rows hold several entries separates rows with ``;``. A vector reads the same written
    either way: ``\begin{pmatrix} -2 \\ 7 \end{pmatrix}`` is ``(-2, 7)``, ``\begin{pmatrix} 4 & -1
    \\ 2 & 1 \end{pmatrix}`` is ``(4, -1; 2, 1)``."""
    at = MATRIX_ENVIRONMENT.match(b.text, end)
    b.arg(depth, True)
    if at is None:
        return
    out = b.out
    if name == "begin":
        close = b.text.find("\\end", at.end())
        body = b.text[at.end():close if close >= 0 else len(b.text)]
        b.matrix_rows.append(";" if "&" in body else ",")
        b.push("(", OPEN, start, end)
        b.opens.append(len(out.keys) - 1)
    elif b.matrix_rows:
        b.matrix_rows.pop()
        if out.keys and out.keys[-1] in (",", ";"):  # a row break before \end
            out.truncate(len(out.keys) - 1)
        close_bracket(b, ")", start, end)


def modulus(b, name, start, end, depth):
    r"""``\pmod{7}``: the modulus of a congruence, ``@mod #7`` as ``(mod 7)`` and ``\bmod 7``."""
    arg = b.arg(depth, True)
    b.push("@mod", FUNC, start, end, True)
    b.append_tokens(arg)


def root(b, name, start, end, depth):
    r"""``\sqrt{2}``, ``\sqrt2``, ``\sqrt[3]{x}`` (:func:`~consensus_metrics.symbol_rules.square_root`)."""
    square_root(b, start, end, "√", depth)


def degrees(b, name, start, end, depth):
    r"""``\circ``, ``\degree``: degree signs vanish, with the scale after them (``24^\circ C`` is 24)."""
    skip_temperature_unit(b)


def prime_command(b, name, start, end, depth):
    r"""``\prime``: ``f'`` after a function or identifier."""
    prime(b, start, end)


#: The commands with a rule of their own (the others are :data:`~consensus_metrics.vocabulary.COMMAND_TOKENS`
#: or identifiers).
COMMAND_HANDLERS = {
    **{name: fraction for name in FRAC_COMMANDS},
    **{name: binomial for name in BINOM_COMMANDS},
    **{name: nothing for name in NOOP_COMMANDS},
    **{name: sized_delimiter for name in SIZED_DELIMITERS},
    **{name: prose_wrapper for name in PROSE_WRAPPERS | {"mathrm", "operatorname"}},
    **{name: math_wrapper for name in MATH_WRAPPERS | set(ACCENTS)},
    **{name: dropped_argument for name in DROP_ARG_COMMANDS},
    **{name: degrees for name in DEGREE_COMMANDS},
    "pmod": modulus, "sqrt": root, "prime": prime_command, "begin": environment, "end": environment,
}
