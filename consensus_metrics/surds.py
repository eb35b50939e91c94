r"""Exact values of variable-free canonical tokens, square roots included.

A value is a finite sum ``sum_r c_r * sqrt(r)`` with rational ``c_r`` and square-free integers
``r >= 1`` (``r = 1`` is the rational part): the numbers a solution computes by hand
(``(5 + \sqrt3)(5 - \sqrt3) = 22``, ``\sqrt{27} = 3\sqrt3``, ``(\sqrt 3)^2 = 3``). It is returned
as a hashable canonical tuple ``((r, c), ...)`` sorted by ``r``, so two spellings of one number
compare equal. Anything else -- a variable, a function, pi, ``i``, a root of a sum of roots, a
cube root, a number too large -- gives ``None``: the caller learns nothing, never a wrong value.

Grammar over the tokens of :func:`consensus_metrics.normalize.tokenize_form`: sums, products,
quotients, unary minus, integer powers (``|n| <= MAX_EXPONENT``), factorials (``<= 30``),
brackets, and ``√`` applied to the next atom (``√ #3 ^ #2`` is ``(√3)^2``, as ``\sqrt{3}^2``).

>>> from consensus_metrics.normalize import tokenize_form
>>> value = lambda s: surd_value(*tokenize_form(s))
>>> value("(5+\\sqrt3)(5-\\sqrt3)") == value("25 - 3") == value("22")
True
>>> value("\\sqrt{27}") == value("3\\sqrt{3}"), value("\\frac{\\sqrt{8}}{2}") == value("\\sqrt 2")
(True, True)
>>> value("x + 1"), value("\\sqrt{-4}"), value("\\pi")
(None, None, None)
"""

from __future__ import annotations

import math
from fractions import Fraction

from .normalize import CLOSE, FUNC, NUM, OPEN

Surd = dict  # {square-free radicand: rational coefficient}, no zero coefficients

MAX_EXPONENT = 64
MAX_FACTORIAL = 30
MAX_DIGITS = 60  # of any numerator or denominator met along the way
MAX_TERMS = 8  # distinct radicands in one value
MAX_TOKENS = 160


class _Unsupported(Exception):
    pass


def _check(c: Fraction) -> Fraction:
    if c.numerator.bit_length() > MAX_DIGITS * 3.33 or c.denominator.bit_length() > MAX_DIGITS * 3.33:
        raise _Unsupported()
    return c


def _square_free(n: int) -> tuple[int, int]:
    """``n = k^2 * r``, square factors of primes up to 1000 moved into ``k`` (bounded work; a larger
    square factor stays in ``r``, so such a number may fail to compare equal, never compare wrongly)."""
    if n > 10**12:
        raise _Unsupported()
    k, r, p = 1, n, 2
    while p * p <= r and p <= 1000:
        while r % (p * p) == 0:
            r //= p * p
            k *= p
        p += 1 if p == 2 else 2
    return k, r


def _clean(s: Surd) -> Surd:
    out = {r: _check(c) for r, c in s.items() if c}
    if len(out) > MAX_TERMS:
        raise _Unsupported()
    return out


def _add(a: Surd, b: Surd, sign: int = 1) -> Surd:
    out = dict(a)
    for r, c in b.items():
        out[r] = out.get(r, Fraction(0)) + sign * c
    return _clean(out)


def _mul(a: Surd, b: Surd) -> Surd:
    out: dict = {}
    for r1, c1 in a.items():
        for r2, c2 in b.items():
            k, r = _square_free(r1 * r2)
            out[r] = out.get(r, Fraction(0)) + c1 * c2 * k
    return _clean(out)


def _inverse(a: Surd) -> Surd:
    if len(a) != 1:  # 1/(a + b sqrt r) would need conjugates: not needed for hand computations
        raise _Unsupported()
    (r, c), = a.items()
    if not c:
        raise ZeroDivisionError
    return {r: _check(1 / (c * r))}  # 1/(c sqrt r) = sqrt r / (c r)


def _sqrt(a: Surd) -> Surd:
    if not a:
        return {}
    if set(a) != {1} or a[1] < 0:
        raise _Unsupported()
    q = a[1]
    k, r = _square_free(q.numerator * q.denominator)  # sqrt(p/q) = sqrt(pq) / q
    return {r: _check(Fraction(k, q.denominator))}


def _power(base: Surd, n: int) -> Surd:
    if abs(n) > MAX_EXPONENT:
        raise _Unsupported()
    result: Surd = {1: Fraction(1)}
    for _ in range(abs(n)):
        result = _mul(result, base)
    return _inverse(result) if n < 0 else result


def _as_int(a: Surd) -> int | None:
    if not a:
        return 0
    if set(a) == {1} and a[1].denominator == 1:
        return int(a[1])
    return None


class _Parser:
    def __init__(self, keys, kinds):
        self.keys, self.kinds, self.i = keys, kinds, 0

    def _peek(self):
        return self.keys[self.i] if self.i < len(self.keys) else None

    def run(self) -> Surd:
        value = self.expr()
        if self.i != len(self.keys):
            raise _Unsupported()
        return value

    def expr(self) -> Surd:
        value = self.term()
        while self._peek() in ("+", "-"):
            sign = 1 if self.keys[self.i] == "+" else -1
            self.i += 1
            value = _add(value, self.term(), sign)
        return value

    def term(self) -> Surd:
        value = self.factor()
        while self._peek() in ("*", "/"):
            op = self.keys[self.i]
            self.i += 1
            rhs = self.factor()
            value = _mul(value, rhs if op == "*" else _inverse(rhs))
        return value

    def factor(self) -> Surd:
        if self._peek() == "neg":
            self.i += 1
            return {r: -c for r, c in self.factor().items()}
        base = self.atom()
        while self._peek() == "!":
            self.i += 1
            n = _as_int(base)
            if n is None or not 0 <= n <= MAX_FACTORIAL:
                raise _Unsupported()
            base = {1: Fraction(math.factorial(n))}
        if self._peek() == "^":
            self.i += 1
            n = _as_int(self.factor())
            if n is None:
                raise _Unsupported()
            if not base and n <= 0:
                raise ZeroDivisionError
            return _power(base, n)
        return base

    def atom(self) -> Surd:
        if self.i >= len(self.keys):
            raise _Unsupported()
        key, kind = self.keys[self.i], self.kinds[self.i]
        self.i += 1
        if kind == NUM:
            body = key[1:]
            if not body.replace("/", "", 1).isdigit():
                raise _Unsupported()
            return _clean({1: Fraction(body)})
        if kind == FUNC and key == "√":
            return _sqrt(self.atom())
        if kind == OPEN and key in "([":
            value = self.expr()
            if self.i >= len(self.keys) or self.kinds[self.i] != CLOSE or self.keys[self.i] not in ")]":
                raise _Unsupported()
            self.i += 1
            return value
        raise _Unsupported()


def surd_value(keys, kinds) -> tuple | None:
    """The canonical exact value of the tokens (module doc), or ``None``. Remembered per token
    sequence (:data:`_CACHE_MAX` of them): chain following asks for the same sides' values for
    every node of a text."""
    if not keys or len(keys) > MAX_TOKENS:
        return None
    key = (tuple(keys), tuple(kinds))
    if key in _VALUES:
        return _VALUES[key]
    try:
        value = tuple(sorted(_Parser(list(keys), list(kinds)).run().items()))
    except (_Unsupported, ZeroDivisionError, OverflowError, RecursionError, ValueError):
        value = None
    if len(_VALUES) >= _CACHE_MAX:
        _VALUES.clear()
    _VALUES[key] = value
    return value


#: Values remembered by :func:`surd_value` (cleared when full).
_CACHE_MAX = 50_000
_VALUES: dict = {}


def rational(value: tuple | None) -> Fraction | None:
    """The value as a Fraction when it is rational (``()`` is 0), else ``None``."""
    if value is None:
        return None
    if not value:
        return Fraction(0)
    if len(value) == 1 and value[0][0] == 1:
        return value[0][1]
    return None
