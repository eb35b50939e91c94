"""Exact numbers: parse the numerals found in math text into rationals.

Numbers compare as exact rationals (docs/SPEC.md §3 rule 2): ``0.75``, ``.75``, ``0.750``, ``3/4`` and
``\\frac{3}{4}`` all become ``Fraction(3, 4)``; thousands separators are removed (``1,000`` ->
``1000``). Each number is written as a canonical *key* so that equality of numbers is string
equality of keys, which is what makes matching fast:

>>> number_key(parse_numeral("0.750"))
'#3/4'
>>> number_key(parse_numeral("1,024"))
'#1024'
>>> parse_value("-2.5")
Fraction(-5, 2)
"""

from __future__ import annotations

import re
from fractions import Fraction

#: Longest numeral we turn into a Fraction; longer digit runs stay opaque strings (no big-int work).
MAX_DIGITS = 400

_VALUE_RE = re.compile(
    r"^\s*(?P<sign>[-+−]?)\s*(?:(?P<num>\d[\d,]*(?:\.\d*)?|\.\d+)(?:\s*/\s*(?P<den>\d+))?)\s*$"
)
_LATEX_FRAC_RE = re.compile(r"^\s*(?P<sign>[-+−]?)\s*\\[dt]?frac\s*\{\s*(?P<num>\d+)\s*\}\s*\{\s*(?P<den>\d+)\s*\}\s*$")


def parse_numeral(raw: str) -> Fraction | None:
    """Parse one unsigned numeral (``12``, ``1,000``, ``3.50``, ``.5``) into a Fraction.

    Returns ``None`` for numerals too long to be worth exact arithmetic (more than
    :data:`MAX_DIGITS` characters); callers then compare them as opaque strings.
    """
    if raw.isascii() and raw.isdigit():  # the common case, without building a Fraction from a string
        return Fraction(int(raw)) if len(raw) <= MAX_DIGITS else None
    digits = raw.replace("\\,", "").replace("{,}", "").replace(",", "")
    if len(digits) > MAX_DIGITS or not digits.replace(".", "", 1).isdigit():
        return None  # too long for exact arithmetic, or a fragment such as "," (kept opaque)
    if "." in digits:
        whole, _, frac = digits.partition(".")
        whole = whole or "0"
        if not frac:
            return Fraction(int(whole))
        return Fraction(int(whole + frac), 10 ** len(frac))
    return Fraction(int(digits))


def number_key(value: Fraction | None, raw: str = "") -> str:
    """The canonical token key of a number: ``'#3/4'``, ``'#12'``; opaque ``'#raw'`` if unparsed."""
    if value is None:
        return "#" + raw
    if value.denominator == 1:
        return f"#{value.numerator}"
    return f"#{value.numerator}/{value.denominator}"


def parse_value(text: str) -> Fraction:
    """Parse a node's ``value`` field (``"3/4"``, ``"-2.5"``, ``"1,000"``, ``"\\frac{3}{4}"``).

    Raises ``ValueError`` when the text is not a plain rational number.

    >>> parse_value("\\\\frac{3}{4}")
    Fraction(3, 4)
    """
    if not isinstance(text, str):
        text = str(text)
    m = _VALUE_RE.match(text) or _LATEX_FRAC_RE.match(text)
    if not m:
        raise ValueError(f"not a rational number: {text[:60]!r}")
    num = parse_numeral(m.group("num"))
    if num is None:
        raise ValueError(f"number too long: {text[:60]!r}")
    den = m.group("den")
    if den is not None:
        d = int(den)
        if d == 0:
            raise ValueError(f"zero denominator: {text[:60]!r}")
        num = num / d
    if m.group("sign") in ("-", "−"):
        num = -num
    return num


#: Most decimal places :func:`exact_decimal` writes.
MAX_DECIMALS = 6


def exact_decimal(value: Fraction, max_decimals: int = MAX_DECIMALS) -> str | None:
    """``'0.75'`` when ``value`` has a terminating expansion of at most ``max_decimals`` digits.

    >>> exact_decimal(Fraction(1, 5)), exact_decimal(Fraction(1, 3))
    ('0.2', None)
    """
    for digits in range(1, max_decimals + 1):
        scaled = value * 10 ** digits
        if scaled.denominator == 1:
            sign = "-" if scaled < 0 else ""
            n = str(abs(scaled.numerator)).rjust(digits + 1, "0")
            return f"{sign}{n[:-digits]}.{n[-digits:]}"
    return None


def key_value(key: str) -> Fraction | None:
    """The value of a number token's canonical key (``'#12'`` -> 12, ``'#3/4'`` -> 3/4), or
    ``None`` for an opaque one (a numeral too long for exact arithmetic).

    >>> key_value("#3/4"), key_value("#" + "9" * 70)
    (Fraction(3, 4), None)
    """
    body = key[1:]
    num, _, den = body.partition("/")
    if not num.isdigit() or (den and not den.isdigit()) or len(body) > 60:
        return None
    return Fraction(int(num), int(den)) if den else Fraction(int(num))


#: Cardinal number words and their values (one word each; ``node_builder.number_words`` reads runs
#: of them, ``two hundred``, in problem statements).
CARDINAL_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
TENS_WORDS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
              if w != "_"}
#: Ordinals and the denominator each names as a fraction (``a third``, ``two-fifths``).
ORDINAL_WORDS = {"third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
                 "tenth": 10, "twelfth": 12, "quarter": 4, "half": 2, "halves": 2}
#: Words that multiply: ``twice`` the number, ``triple`` it.
MULTIPLIER_WORDS = {"twice": 2, "double": 2, "doubled": 2, "doubles": 2, "triple": 3, "tripled": 3,
                    "triples": 3, "thrice": 3, "quadruple": 4, "quadrupled": 4}


def operand_words() -> dict[str, tuple[Fraction, ...]]:
    """The single words a sentence may use for a number it computes with, and the values each may
    stand for: a cardinal (``three`` -> 3, from ``two``: ``one`` and ``zero`` are pronouns and
    nothing), a multiplier (``twice`` -> 2), ``dozen`` -> 12, and an ordinal as its integer or
    its unit fraction (``half`` -> 2 or 1/2: "half price" halves, "half a cup" is 1/2).

    >>> words = operand_words()
    >>> words["three"], words["twice"], words["half"]
    ((Fraction(3, 1),), (Fraction(2, 1),), (Fraction(2, 1), Fraction(1, 2)))
    >>> "one" in words
    False
    """
    words: dict[str, tuple[Fraction, ...]] = {}
    for word, value in {**CARDINAL_WORDS, **TENS_WORDS, **MULTIPLIER_WORDS, "dozen": 12}.items():
        if value >= 2:
            words[word] = (Fraction(value),)
    for word, n in ORDINAL_WORDS.items():
        words[word] = (Fraction(n), Fraction(1, n))
        if not word.endswith("s") and word != "half":  # (its plural is "halves")
            words[word + "s"] = (Fraction(n), Fraction(1, n))  # "two thirds" is read as its parts
    return words
