r"""A division with remainder told as such (docs/SPEC.md §3 rule 4, a computation told in words).

Number-theory solutions seldom write the division identity ``166 = 6 \cdot 27 + 4`` a node
states; they divide and name the quotient and the remainder: ``166 \div 6 = 27 \text{ remainder }
4``, "999 divided by 6 is 166 with a remainder of 3", ``2250 ÷ 360 = 6 R 90``, or only the
remainder: "the remainder when 78 is divided by 4 is 2", "2002 divided by 3 leaves a remainder
of 1". :func:`statements` reads those (whole numbers, math delimiters and ``\text{}`` aside, only
spaces between the words; a statement counts only where it is true: ``a = b q + r`` with
``0 <= r < b``), and :func:`need_of` says what a node form asks of one:

* the identity ``a = b \cdot q + r`` (either factor or side order; ``0 <= r`` below one factor,
  the divisor): ``a``, both factors and ``r``;
* the floor ``\lfloor a / b \rfloor = q`` (``\frac{a}{b}`` too): ``a``, ``b`` and ``q``;
* the residue ``a \equiv r \pmod{b}`` or ``a \bmod b = r``: ``a``, ``b`` and a remainder
  congruent to ``r`` (``997 \equiv -3 \pmod{1000}`` by a remainder of 997); the quotient may go
  unsaid.

A statement of another division of the same numbers is no match (``166 \div 27 = 6 R 4`` does
not state ``\lfloor 166/6 \rfloor = 27``), and a decimal quotient (``28 / 3 = 9.33``) states no
remainder.

>>> from consensus_metrics import match_nodes
>>> m = match_nodes("Next, 166 divided by 6 is 27 with a remainder of 4.", ["166 = 6 \\cdot 27 + 4", "166 \\equiv 4 \\pmod{6}"])
>>> [(x.covered, x.via) for x in m]
[(True, 'division'), (True, 'division')]
>>> match_nodes("Next, 166 divided by 6 is 27 with a remainder of 5.", ["166 = 6 \\cdot 27 + 4"])[0].covered
False
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

#: Longest text read for statements (characters); a longer one is read up to here.
MAX_TEXT = 200_000


class Division(NamedTuple):
    """``a = b * q + r`` as a text states it (``q`` None where only the remainder is told);
    ``start``/``end`` the statement's characters."""

    a: int
    b: int
    q: int | None
    r: int
    start: int
    end: int


class Need(NamedTuple):
    """What a node form asks of a statement: ``a``; ``divisors`` the numbers that may be ``b``
    (both factors of an identity, whose other factor is ``q``); ``q`` and ``r`` (None: any)."""

    a: int
    divisors: tuple[int, ...]
    q: int | None
    r: int | None
    identity: bool = False


# Math delimiters and spacing commands a statement may be wrapped in, and a number's subscript or
# exponent (``555_{10}``, ``2^{10}``: no number of its own): blanked out (same length, so offsets
# hold) before the statement patterns read the text.
_WRAPPERS = re.compile(r"[_^](?:\{[^{}]{0,20}\}|\w)|\\text\{|\\mbox\{|\\textrm\{|\\mathrm\{|\\[()\[\]]|\\[,;:! ]|"
                       r"\\quad|[$*{}~]")
_NUM = r"(\d{1,3}(?:,\d{3})+|\d+)(?![\d.]\d)"
_DIV = r"(?:\\div|÷|/|divided\s+by)"
_SAYS = r"(?:=|is|equals|gives(?:\s+us)?|yields)"
_WITH_REMAINDER = r"(?:,\s*|\s+)(?:(?:with|and|leaving)\s+)?(?:a\s+|the\s+)?(?:remainder|rem\.?|R|r)(?:\s+of|\s+is|:)?\s*"
#: ``a ÷ b = q remainder r`` (a quotient and its remainder).
_QUOTIENT = re.compile(rf"(?<![\w.,]){_NUM}\s*{_DIV}\s*{_NUM}\s*{_SAYS}\s*(?:a\s+quotient\s+of\s+)?{_NUM}"
                       rf"{_WITH_REMAINDER}{_NUM}(?![\w.]\d)")
#: "the remainder when a is divided by b is r", "a divided by b leaves a remainder of r",
#: "a leaves a remainder of r when divided by b" (the remainder alone).
_REMAINDER_ONLY = (
    (re.compile(rf"remainder\s+(?:when|of)\s+{_NUM}\s+(?:is\s+)?divided\s+by\s+{_NUM}\s*,?\s*(?:is|=)\s*{_NUM}"
                rf"(?![\w.]\d)", re.I), (1, 2, 3)),
    (re.compile(rf"(?<![\w.,]){_NUM}\s*(?:\\div|÷|divided\s+by)\s*{_NUM}\s+(?:leaves|has|gives)\s+"
                rf"(?:a\s+|the\s+)?remainder\s+(?:of\s+)?{_NUM}(?![\w.]\d)", re.I), (1, 2, 3)),
    (re.compile(rf"(?<![\w.,]){_NUM}\s+leaves\s+(?:a\s+)?remainder\s+(?:of\s+)?{_NUM}\s+when\s+(?:it\s+is\s+)?"
                rf"divided\s+by\s+{_NUM}(?![\w.]\d)", re.I), (1, 3, 2)),
)


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def told(text: str) -> list[Division]:
    """Every division with its quotient and remainder ``text`` tells (``a ÷ b = q remainder r``),
    true or not, in text order: the step locator convicts a false one (``9999 \\div 1331 = 7
    \\text{ remainder } 762``: 1331 · 7 + 762 is 10079).

    >>> [(d.a, d.b, d.q, d.r) for d in told("so $555_{10} \\\\div 125 = 4$ R $55$ and 9999 ÷ 1331 = 7 remainder 762")]
    [(555, 125, 4, 55), (9999, 1331, 7, 762)]
    """
    if not isinstance(text, str):
        return []
    return _told(_flat(text))


def _flat(text: str) -> str:
    return _WRAPPERS.sub(lambda m: " " * len(m[0]), text[:MAX_TEXT])


def _told(flat: str) -> list[Division]:
    return [Division(*(_int(m[i]) for i in range(1, 5)), m.start(), m.end()) for m in _QUOTIENT.finditer(flat)]


def statements(text: str) -> list[Division]:
    """The true divisions with remainder ``text`` states, in text order (module doc).

    >>> [(d.a, d.b, d.q, d.r) for d in statements("$999 \\\\div 6 = 166 \\\\text{ remainder } 3$, then 166 ÷ 6 = 27 R 4; "
    ...                                            "the remainder when 78 is divided by 4 is 2; 7 / 2 = 3 R 5")]
    [(999, 6, 166, 3), (166, 6, 27, 4), (78, 4, None, 2)]
    """
    if not isinstance(text, str):
        return []
    flat = _flat(text)
    found = [d for d in _told(flat) if 0 <= d.r < d.b and d.a == d.b * d.q + d.r]
    for pattern, (ia, ib, ir) in _REMAINDER_ONLY:
        for m in pattern.finditer(flat):
            a, b, r = _int(m[ia]), _int(m[ib]), _int(m[ir])
            if 0 <= r < b and a % b == r:
                found.append(Division(a, b, None, r, m.start(), m.end()))
    found.sort(key=lambda d: (d.end, d.start))
    return found


_SPACES = re.compile(r"\s+|\\left|\\right|\\,|\\!|\\;")
_TIMES = re.compile(r"\\cdot|\\times|×|·")
_IDENTITY = (re.compile(r"(\d+)=(\d+)\*(\d+)\+(\d+)"), re.compile(r"(\d+)\*(\d+)\+(\d+)=(\d+)"))
_FLOOR = re.compile(r"\\lfloor(?:\\[dt]?frac\{(\d+)\}\{(\d+)\}|\(?(\d+)/(\d+)\)?)\\rfloor=(\d+)")
_CONGRUENCE = re.compile(r"(\d+)\\equiv(-?\d+)(?:\\pmod\{?(\d+)\}?|\\mod\{?(\d+)\}?|\(\\?mod(\d+)\))")
_RESIDUE = re.compile(r"(\d+)(?:\\bmod|\\mod|mod)\{?(\d+)\}?=(\d+)")


@lru_cache(maxsize=65536)
def need_of(form: str) -> Need | None:
    """What statement a node ``form`` asks for, or None where it is no division (module doc).

    >>> need_of("166 = 6 \\\\cdot 27 + 4"), need_of("\\\\left\\\\lfloor\\\\frac{28}{3}\\\\right\\\\rfloor = 9")
    (Need(a=166, divisors=(6, 27), q=None, r=4, identity=True), Need(a=28, divisors=(3,), q=9, r=None, identity=False))
    >>> need_of("997 \\\\equiv -3 \\\\pmod{1000}"), need_of("x = 7")
    (Need(a=997, divisors=(1000,), q=None, r=-3, identity=False), None)
    """
    flat = _TIMES.sub("*", _SPACES.sub("", form)) if isinstance(form, str) else ""
    if not flat or not flat[0].isdigit() and flat[:7] != "\\lfloor" or len(flat) > 80:
        return None
    m = _IDENTITY[0].fullmatch(flat)
    if m:
        a, x, y, r = (int(g) for g in m.groups())
    else:
        m = _IDENTITY[1].fullmatch(flat)
        if m:
            x, y, r, a = (int(g) for g in m.groups())
    if m:
        return Need(a, (x, y), None, r, True) if a == x * y + r and 0 <= r < max(x, y) else None
    m = _FLOOR.fullmatch(flat)
    if m:
        a, b = (int(m[1]), int(m[2])) if m[1] else (int(m[3]), int(m[4]))
        return Need(a, (b,), int(m[5]), None) if b > 0 and a // b == int(m[5]) else None
    m = _CONGRUENCE.fullmatch(flat)
    if m:
        b = int(next(g for g in m.groups()[2:] if g))
        return Need(int(m[1]), (b,), None, int(m[2])) if b > 1 and (int(m[1]) - int(m[2])) % b == 0 else None
    m = _RESIDUE.fullmatch(flat)
    if m:
        a, b, r = int(m[1]), int(m[2]), int(m[3])
        return Need(a, (b,), None, r) if b > 1 and a % b == r else None
    return None


def states(division: Division, need: Need) -> bool:
    """Whether ``division`` is the one ``need`` asks for.

    >>> states(Division(166, 6, 27, 4, 0, 0), Need(166, (6, 27), None, 4, True))
    True
    >>> states(Division(166, 27, 6, 4, 0, 0), Need(166, (6,), 27, None)), states(Division(78, 4, None, 2, 0, 0), Need(78, (4, 19), None, 2, True))
    (False, False)
    """
    if division.a != need.a or division.b not in need.divisors:
        return False
    if need.identity:
        return division.q is not None and division.q * division.b == need.divisors[0] * need.divisors[1] \
            and division.r == need.r
    if need.q is not None:
        return division.q == need.q
    return (division.r - need.r) % division.b == 0


def first_statement(found: list[Division], needs) -> tuple[int, int, str] | None:
    """``(start, end, form)`` of the earliest of the text's statements ``found``
    (:func:`statements`) that states one of ``needs``, ``(form, need_of(form))`` pairs, or None."""
    for division in found:
        for form, need in needs:
            if states(division, need):
                return division.start, division.end, form
    return None
