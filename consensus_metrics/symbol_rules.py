r"""Token rules for symbols: ASCII operators, brackets and signs, powers and subscripts, roots,
primes, degree signs and Unicode symbols -- functions of the builder ``b``
(:class:`consensus_metrics.token_rules.TokenBuilder`), called with each symbol's lexeme, that
emit tokens through its reading API (described in :mod:`consensus_metrics.latex_commands`); and
the predicates of juxtaposition: when two operands side by side are a product, when a sign is
unary, when a math delimiter separates, when argument tokens need brackets.

>>> from consensus_metrics.normalize import canonical_key
>>> [canonical_key(t) for t in ("x^{10}", "x_{1}", "17_b", "\\sqrt[3]{x}", "24°C", "f'(x)", "(3)", "x**2")]
['x ^ #10', 'x_1', '17_b', '√[#3] x', '#24', "f' * x", '#3', 'x ^ #2']
>>> [canonical_key(t) for t in ("3 - -2", "5!=120", "x != y", "**Step 1:**", "60 (minutes) / 4")]
['#3 - neg #2', '#5 ! = #120', 'x ≠ y', '~step ~1 :', '#60 / #4']
>>> implicit_mult(NUM, "#2", ID, "x", spaced=False), implicit_mult(ID, "x", NUM, "#2", spaced=True)
(True, False)
"""

from __future__ import annotations

from .lexer import COMMAND, LETTERS, LINE_BREAK, NUMERAL, SYMBOL
from .vocabulary import (CLOSE, FUNC, ID, INVISIBLE, MAX_GROUP_DEPTH, MISC, NUM, OP, OPEN, PUNCT, REL,
                         TEMPERATURE_SCALES, UNICODE_OPERATORS, UNICODE_ROOTS, UNICODE_SPACES, UNICODE_TOKENS,
                         UNITS, VULGAR_FRACTIONS, WORD, unit_phrase)

#: ASCII symbols that are one token: ``{symbol: (key, kind, no_mult)}`` (the others have rules:
#: :func:`symbol`).
_SYMBOL_TOKENS = {"=": ("=", REL, False), "==": ("=", REL, False), ":=": ("=", REL, False), "<": ("<", REL, False),
                  ">": (">", REL, False), "<=": ("≤", REL, False), ">=": ("≥", REL, False), "!=": ("≠", REL, False),
                  "*": ("*", OP, False), "/": ("/", OP, False), "...": ("…", MISC, False),
                  "%": ("%", MISC, True), "|": ("|", MISC, True)}


# ----------------------------------------------------------------------------- operators, brackets and scripts
def symbol(b, s, start, end, depth):
    """An ASCII operator, bracket or punctuation lexeme (or a Unicode operator read as one,
    :data:`~consensus_metrics.vocabulary.UNICODE_OPERATORS`)."""
    token = _SYMBOL_TOKENS.get(s)
    out = b.out
    if token is not None:
        if s == "!=" and out.keys and not b.spaced and (out.kinds[-1] in (NUM, CLOSE) or out.keys[-1] in ("n", "k", "m")):
            # 5!=120, n!=120: a factorial, then = (x != y, x!=y stay "not equal")
            b.push("!", OP, start, start + 1, True)
            b.push("=", REL, start + 1, end)
        else:
            b.push(token[0], token[1], start, end, token[2])
    elif s == "{":
        if depth < MAX_GROUP_DEPTH:
            b.group(depth)
    elif s == "&":
        if b.matrix_rows:  # a matrix's next entry (latex_commands.environment)
            b.push(",", PUNCT, start, end)
    elif s == "}":
        pass
    elif s == "$":
        b.brk = b.brk or dollar_break(out)
        b.spaced = True
    elif s == "(" or s == "[":
        b.push(s, OPEN, start, end)
        b.opens.append(len(out.keys) - 1)
    elif s == ")" or s == "]":
        close_bracket(b, s, start, end)
    elif s == "+" or s == "-":
        sign(b, s, start, end)
    elif s == "**":
        if is_power_stars(b):
            exponent(b, start, end, depth)
        else:  # markdown emphasis (**Step 1:**) is layout
            b.spaced = True
    elif s == "^":
        exponent(b, start, end, depth)
    elif s == "_":
        subscript(b, start, end, depth)
    elif s == "!":
        if out.keys and not b.spaced and out.kinds[-1] in (NUM, ID, CLOSE):
            b.push("!", OP, start, end, True)
        else:
            b.push("!", PUNCT, start, end)
    elif s == "'":
        if out.keys and not b.spaced and out.kinds[-1] in (ID, FUNC):
            prime(b, start, end)
        else:
            b.push("'", PUNCT, start, end)
    else:  # , ; : . ?
        b.push(s, PUNCT, start, end)


def sign(b, s, start, end):
    """``+`` or ``-``: binary after an operand; otherwise a sign (``neg``; a unary plus
    vanishes). Unit words before it are dropped first (``12 apples - 3 apples``; not before
    a hyphen glued to the word)."""
    out = b.out
    if out.kinds and out.kinds[-1] == WORD and (s == "+" or b.lex_gap[b.i - 1]):
        b.drop_unit_words()
    unary = unary_context(out, b.brk or len(out.keys) == b.floor)
    if s == "-":
        b.push("neg" if unary else "-", OP, start, end)
    elif not unary:
        b.push("+", OP, start, end)


def _after_number(out, j) -> bool:
    """Whether the bracket opened at token ``j`` follows a number, or a number and up to three
    prose words saying what it counts (``24 dollars (adult tickets)``)."""
    k = j
    while k and out.kinds[k - 1] == WORD and j - k < 3:
        k -= 1
    return k > 0 and out.kinds[k - 1] == NUM


def close_bracket(b, s, start, end):
    """A closing bracket. ``(mod 7)`` is ``\\pmod{7}``; a remark in brackets after a number
    (``60 (minutes)``, ``24 dollars (adult tickets)``, ``20 (mother's beads)``) is left out; in a
    bracketed factor, the words after its number go (``4 * (12 inches)``); brackets around one
    atom are dropped (``(3)`` is ``3``)."""
    out = b.out
    want = "(" if s == ")" else "["
    if b.opens:
        j = b.opens.pop()
        if j < len(out.keys) and out.keys[j] == want:
            inner = len(out.keys) - j - 1
            if want == "(" and inner and out.keys[j + 1] == "@mod":  # (mod 7) is \pmod{7}
                inside = out.take(j + 1)
                out.truncate(j)
                b.append_tokens(inside)
                return
            if want == "(" and inner and _after_number(out, j) and out.kinds[j + 1] == WORD and all(
                    kind == WORD or key == "'" for key, kind in zip(out.keys[j + 1:], out.kinds[j + 1:])):
                # 60 (minutes) / 4 = 15, x = 5 (the positive root), 24 dollars (adult tickets),
                # 2 × 20 (mother's beads): a remark, not a factor
                out.truncate(j)
                b.spaced = True
                return
            if (want == "(" and inner >= 2 and j and out.keys[j - 1] == "*" and not out.implicit[j - 1]
                    and out.kinds[j + 1] == NUM and all(kind == WORD for kind in out.kinds[j + 2:])
                    and unit_phrase(out.keys[j + 2:])):
                out.truncate(j + 2)  # 4 * (12 inches): a factor and what it counts
                inner = 1
            # (3) -> 3, (x) -> x : parentheses around one atom carry no structure. The atom
            # is emitted again where the bracket stood, with its spacing, so the usual rules
            # apply to it (\pi (4)^2 and 2 (x) are products; 3 (4) is not).
            if want == "(" and inner == 1 and out.kinds[j + 1] in (NUM, ID):
                key, kind, atom_start, atom_end, implicit = (
                    out.keys[-1], out.kinds[-1], out.starts[-1], out.ends[-1], out.implicit[-1])
                b.spaced, b.brk = out.spaced[j], out.breaks[j]
                out.truncate(j)
                b.push(key, kind, atom_start, atom_end, False, implicit)
                return
    b.push(s, CLOSE, start, end)


def exponent(b, start, end, depth):
    """``^`` (or ``**``) and its argument: ``^`` then the power, bracketed unless one atom;
    ``^\\circ`` is a degree sign (nothing)."""
    arg = b.arg(depth, True)
    if not arg:  # ^\circ, ^{\circ}: degrees vanish (with a scale after them: skip_temperature_unit)
        if b.lex_text[b.i - 1] == "}" and b.lex_text[b.i - 2] in ("\\circ", "\\degree", "\\degrees"):
            skip_temperature_unit(b)
        return
    if len(arg) == 1 and unit_power(b.out, arg[0][0]):
        return
    b.push("^", OP, start, end, True)
    b.barrier = True
    b.emit(arg, True)
    b.barrier = False


def unit_power(out, power_key) -> bool:
    """Whether the power ``power_key`` about to follow the tokens ``out`` squares or cubes a unit
    word that counts a number (``20 ft^2``, ``1400 ft^3``, ``5 \\text{ cm}^2``, ``20 ft²``): it is part
    of the unit, and goes with it (:meth:`~consensus_metrics.token_rules.TokenBuilder.drop_unit_words`)."""
    n = len(out.keys)
    return (power_key in ("#2", "#3") and n >= 2 and out.kinds[n - 1] == WORD and out.kinds[n - 2] == NUM
            and out.keys[n - 1][1:] in UNITS)


def subscript(b, start, end, depth):
    """``_`` and its argument: part of the name of the identifier, number or function before
    it (``x_{1}`` is ``x_1``, ``17_b`` a numeral in base b, ``629_{10}`` the number 629); else
    ``_`` and the argument."""
    arg = b.arg(depth, True)
    if not arg:
        return
    out = b.out
    if (len(arg) == 1 and arg[0][0] == "#10" and out.keys and out.kinds[-1] == NUM
            and out.keys[-1][1:].isdigit()):  # base ten: the numeral is the number
        out.ends[-1] = arg[-1][3]
        return
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
    b.push("_", OP, start, end)
    b.emit(arg, True)


def is_power_stars(b) -> bool:
    """``x**2`` is a power; ``**Step 1:**`` (markdown bold) is not: a power is glued to
    an operand on both sides."""
    kinds, texts, gaps, i = b.lex_kind, b.lex_text, b.lex_gap, b.i  # i - 1 is the "**" lexeme
    if gaps[i - 1] or i < 2 or i >= len(kinds) or gaps[i]:
        return False
    prev, nxt = i - 2, i
    return ((kinds[prev] in (NUMERAL, LETTERS) or texts[prev] in (")", "}"))
            and (kinds[nxt] in (NUMERAL, LETTERS) or texts[nxt] in ("(", "{", "-")))


# ----------------------------------------------------------------------------- roots, primes, degrees, Unicode
def square_root(b, start, end, key, depth):
    """A root (``\\sqrt``, ``√``, the word ``sqrt``): the function token ``key``
    (``\\sqrt[3]{x}``: ``√[#3]``), then its argument, bracketed unless one atom."""
    kinds, texts = b.lex_kind, b.lex_text
    if depth < MAX_GROUP_DEPTH and b.i < len(kinds) and kinds[b.i] == SYMBOL and texts[b.i] == "[":
        # \sqrt[3]{x}: read the index up to the matching ]
        b.i += 1
        mark = len(b.out.keys)
        b.barrier = True
        opens, b.opens = b.opens, []
        while b.i < len(kinds) and not (kinds[b.i] == SYMBOL and texts[b.i] == "]"):
            b.read_one(depth + 1)
        b.opens = opens
        b.i = min(b.i + 1, len(kinds))  # past the ], if there is one
        idx = b.out.take(mark)
        key = "√[" + " ".join([t[0] for t in idx]) + "]"
    b.push(key, FUNC, start, end)
    arg = b.arg(depth, True)
    if arg:
        b.barrier = True
        b.emit(arg, True)
        b.barrier = False


def prime(b, start, end):
    """``'``, ``′``, ``\\prime`` after a function or identifier: part of its name (``f'``)."""
    out = b.out
    if out.keys and out.kinds[-1] in (ID, FUNC):
        out.keys[-1] += "'"
        out.ends[-1] = end
    else:
        b.push("'", MISC, start, end)


def skip_temperature_unit(b):
    """After a degree sign: skip ``C``, ``F`` or ``K`` (also as ``\\mathrm{C}``, ``\\text{ F}``)
    on the same line, so that ``24°C`` is 24 and not 24 times C."""
    kinds, texts, i = b.lex_kind, b.lex_text, b.i
    if i >= len(kinds) or b.lex_gap[i] == LINE_BREAK:
        return
    kind, s = kinds[i], texts[i]
    if kind == LETTERS and s in TEMPERATURE_SCALES:
        b.i = i + 1
    elif (kind == COMMAND and s in ("\\mathrm", "\\text", "\\textrm", "\\rm") and i + 3 < len(kinds)
          and texts[i + 1] == "{" and kinds[i + 2] == LETTERS and texts[i + 2] in TEMPERATURE_SCALES
          and texts[i + 3] == "}"):
        b.i = i + 4


def unicode_symbol(b, s, start, end, depth):
    """Any other character: a Unicode symbol of the vocabulary, a Greek letter (an
    identifier), another letter (a word), nothing (zero-width) or punctuation."""
    token = UNICODE_TOKENS.get(s)
    if token is not None:
        b.push(token[0], token[1], start, end)
    elif s in UNICODE_OPERATORS:
        symbol(b, UNICODE_OPERATORS[s], start, end, depth)
    elif s in UNICODE_ROOTS:
        square_root(b, start, end, UNICODE_ROOTS[s], depth)
    elif s in VULGAR_FRACTIONS:
        p, q = VULGAR_FRACTIONS[s]
        b.push(f"#{p}/{q}", NUM, start, end)
    elif s == "′":
        prime(b, start, end)
    elif s in UNICODE_SPACES:
        b.spaced = True
    elif s == "°":  # degree signs vanish, with the scale after them: 24°C is 24
        skip_temperature_unit(b)
    elif s.isalpha():
        if "α" <= s <= "ω" or "Α" <= s <= "Ω":
            b.push(s, ID, start, end)
        else:
            b.push("~" + s.lower(), WORD, start, end)
    elif s not in INVISIBLE:
        b.push(s, PUNCT, start, end)


# ----------------------------------------------------------------------------- juxtaposition
def needs_parens(toks) -> bool:
    """Whether argument tokens need brackets to stay one operand: more than one token, unless
    already bracketed as a whole."""
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
    return True


def unary_context(out, brk: bool) -> bool:
    """Whether a sign here is unary: at the start, after a break, an operator, a relation, an
    opening bracket, punctuation, a word or a function (not after a factorial)."""
    if not out.keys or brk:
        return True
    return out.kinds[-1] in (OP, REL, OPEN, PUNCT, WORD, FUNC) and out.keys[-1] != "!"


def dollar_break(out) -> bool:
    """A math delimiter between two operands separates them (``$3$ $y=4$``)."""
    return bool(out.keys) and out.kinds[-1] in (NUM, ID, CLOSE)


def implicit_mult(pk: int, pkey: str, kind: int, key: str, spaced: bool) -> bool:
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
