r"""What the question asks, worked out from the problem and its gold answer: the answer in disguise.

A node equal to the answer adds nothing to ``acc``; the audit counts it as ANSWER, and so is
"what trivially yields it". From the problem statement and the gold answer, :func:`asked` works
out every value that *is* the answer under another name:

* the gold's exact value, however written (``\sqrt{117}`` for ``3\sqrt{13}``, ``0.35625`` for
  ``.35625``), and for a number of two digits or more its square (``900`` before the answer
  ``30 = \sqrt{900}``), units and ``%`` aside (``25\%`` also as ``1/4``); an answer in minutes also in
  hours, in cents also in dollars (a factor 60 or 100), and a count asked in dozens also counted
  in items (a factor 12: "how many dozens of eggs" with gold 2 makes ``48/2 = 24`` the answer);
* **the parts of a requested form** -- "written as $\frac{m}{n}$ ... Find $m+n$": a node whose
  value can be written in that form with integers whose requested combination is the gold is the
  answer (``192/5`` where ``m + n = 197``; ``\frac{20\sqrt{21}}{63}`` where ``m+n+p = 104``);
* **the value before a final reduction to its last digits** -- "the remainder when ... is divided
  by 1000", "the last three digits": an integer congruent to the gold modulo that power of ten
  (``8321`` for ``321``). Reading off digits is no step; reducing by another number is one, so
  before "the modulo 4 remainder of $1 + 2 + \dots + 12$" the sum ``78`` is a key result, not the
  answer (a quarter of all integers are congruent to the gold modulo 4);
* each value of an answer with ``\pm`` or of a list of values (``x = 2\sqrt{2} + 3`` for
  ``3 \pm 2\sqrt{2}``; ``1 - \sqrt{5}`` for ``\{1\pm\sqrt{5},-2\}``);
* an expression answer up to the order of terms and factors (``\frac{9a + 11}{20}`` for
  ``\frac{11+9a}{20}``); the steps of a simplification are equal to its answer by definition and
  stay (``\frac{16+24a}{20} - \frac{5+15a}{20}``).

:func:`is_answer_value` and :func:`is_answer_form` answer "is this (side of a) node the answer?".
Everything is exact (rationals and square roots, :mod:`consensus_metrics.surds`); nothing is
evaluated as code.

Example:
    >>> q = asked("The inradius can be expressed as $\\frac{m}{n}$, where $m$ and $n$ are relatively "
    ...           "prime positive integers. Find $m+n$.", "197")
    >>> q.request, is_answer_form("192/5", q), is_answer_form("38.4", q), is_answer_form("5", q)
    ({'m': 1, 'n': 1}, True, True, False)
    >>> q = asked("Find the remainder when $N$ is divided by $1000$.", "321")
    >>> q.modulus, is_answer_form("8321", q), is_answer_form("321", q), is_answer_form("320", q)
    (1000, True, True, False)
    >>> q = asked("Determine the modulo 4 remainder of the following sum: $$ 1 + 2 + 3 + \\dots + 12. $$", "2")
    >>> q.modulus, is_answer_form("78", q), is_answer_form("2", q)
    (4, False, True)
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from fractions import Fraction

from node_builder.matcher import ID, NUM, canonical_key, order_free_key, surd_value, tokenize_form

#: Unit conversions an answer is often also stated in, and the words that make them likely:
#: minutes and hours (or seconds), cents and dollars.
UNIT_FACTORS = ((60, re.compile(r"\b(?:minutes?|hours?|seconds?)\b", re.I)),
                (100, re.compile(r"\b(?:cents?|dollars?|percent)\b|\\?\$|%", re.I)))
#: Counts asked in a unit of several items, and the question that asks in it: an answer of
#: 2 dozen is 24 eggs (``48/2 = 24`` before ``24/12 = 2`` is the answer counted in eggs).
ASKED_IN_GROUPS = ((12, re.compile(r"\bhow\s+many\s+dozens?\b|\bin\s+dozens\b|\bnumber\s+of\s+dozens\b", re.I)),)
#: Most letter assignments tried for one requested form.
MAX_ASSIGNMENTS = 20_000

_UNITS = re.compile(r"\\(?:mbox|text|textnormal|mathrm|textbf)\s*\{[^{}]*\}(?:\s*\^\s*\{?\d\}?)?|\^\s*\{?\\circ\}?"
                    r"|\\?%|\\[,;!]|\\\$|\$|\\(?:dfrac|tfrac)")
_MATH_SPAN = re.compile(r"\$\$?([^$]{1,120})\$\$?|\\\((.{1,120}?)\\\)")
_REQUEST = re.compile(r"^\s*((?:\d*\s*[a-zA-Z])(?:\s*[+-]\s*\d*\s*[a-zA-Z])+)\s*[.?]?\s*$")
_MODULUS = [re.compile(p, re.I | re.S) for p in (
    r"remainder\s+when\b.{0,400}?\bdivided\s+by\s*\$?\s*(\d+)",
    r"\\pmod\s*\{?\s*(\d+)", r"\bmodulo\s*\$?\s*(\d+)", r"\bmod\s*\$?\s*(\d+)\s*\$?\s*[.?]?\s*$")]
_LAST_DIGITS = re.compile(r"last\s+(two|three|four)\s+digits", re.I)


@dataclass(frozen=True)
class Asked:
    """The answer's exact values and the forms that hide it (see the module doc)."""

    gold: str
    gold_value: tuple | None  # the gold's exact value (units aside)
    values: frozenset  # exact values (surd tuples, see consensus_metrics.surds) that are the answer
    gold_key: str  # order-free canonical key of the gold (expression answers)
    request: dict | None  # part letter -> coefficient of the requested combination (m+n -> {m: 1, n: 1})
    template: tuple | None  # (keys, kinds) of the form the parts fill ($\frac{m}{n}$)
    modulus: int | None


def _exact(text: str):
    return surd_value(*tokenize_form(text))


def _gold_number(gold: str):
    """The gold's exact value with units and ``%`` aside, and whether it was a percentage."""
    value = _exact(gold)
    percent = "%" in gold
    if value is None:
        value = _exact(_UNITS.sub(" ", gold).strip())
    return value, percent


_PLUS_MINUS = re.compile(r"\\pm\b|±")


def member_values(gold: str) -> set:
    r"""The exact values of an answer that is several numbers: a list (``\{1, -2\}``, ``2, 5``) and
    ``a \pm b`` (both ``a + b`` and ``a - b``); empty for a single value or a vector.

    >>> sorted(member_values("3 \\pm 2 \\sqrt{2}")) == sorted([((1, 3), (2, 2)), ((1, 3), (2, -2))])
    True
    >>> len(member_values("\\{1\\pm\\sqrt{5},-2\\}")), member_values("\\frac{1}{2}")
    (3, set())
    """
    if "matrix" in gold:
        return set()
    body = re.sub(r"\\(?:left|right)\b|\\[{}]", "", gold).strip().strip("{} ")
    parts = [part.strip() for part in body.split(",")]
    if len(parts) < 2 and not _PLUS_MINUS.search(body):
        return set()
    out = set()
    for part in parts:
        for sign in ("+", "-"):
            value = _exact(_PLUS_MINUS.sub(sign, part))
            if value is not None:
                out.add(value)
    return out


def _scaled(value, factor: Fraction):
    return tuple((r, c * factor) for r, c in value)


def request_of(problem: str) -> dict | None:
    """The requested combination of the last ``$...$`` span: ``Find $m+n$`` -> ``{m: 1, n: 1}``,
    ``$100a+b$`` -> ``{a: 100, b: 1}``; ``None`` when the question asks for no combination.

    >>> request_of("... Find $m+n+p$."), request_of("What is $100a - b$?"), request_of("Find $x$.")
    ({'m': 1, 'n': 1, 'p': 1}, {'a': 100, 'b': -1}, None)
    """
    spans = [m.group(1) or m.group(2) for m in _MATH_SPAN.finditer(problem)]
    if not spans:
        return None
    match = _REQUEST.match(spans[-1])
    if not match:
        return None
    out: dict[str, int] = {}
    for sign, coef, letter in re.findall(r"([+-]?)\s*(\d*)\s*([a-zA-Z])", match.group(1)):
        out[letter] = out.get(letter, 0) + (-1 if sign == "-" else 1) * int(coef or 1)
    return out if len(out) >= 2 else None


def template_of(problem: str, letters) -> tuple | None:
    """The last ``$...$`` span before the request that holds two or more of ``letters`` and some
    structure (a fraction, a root, an operator): the form the parts fill, as canonical tokens."""
    spans = [m.group(1) or m.group(2) for m in _MATH_SPAN.finditer(problem)][:-1]
    for span in reversed(spans):
        keys, kinds = tokenize_form(span)
        named = {k for k, kind in zip(keys, kinds) if kind == ID}
        if len(named & set(letters)) >= 2 and named <= set(letters) and len(keys) > len(named):
            return keys, kinds
    return None


def modulus_of(problem: str) -> int | None:
    """The number the question reduces its answer by (remainder, ``\\pmod``, last digits)."""
    last = _LAST_DIGITS.search(problem)
    if last:
        return 10 ** {"two": 2, "three": 3, "four": 4}[last.group(1).lower()]
    for pattern in _MODULUS:
        found = pattern.search(problem)
        if found:
            return int(found.group(1))
    return None


def asked(problem: str, gold: str) -> Asked:
    """Work out what ``problem`` asks given its ``gold`` answer (see the module doc)."""
    value, percent = _gold_number(gold)
    values = set()
    if value is not None:
        values.add(value)
        if percent:
            values.add(_scaled(value, Fraction(1, 100)))
        number = value[0][1] if len(value) == 1 and value[0][0] == 1 else None
        if number is not None and abs(number) >= 10:
            values.add(((1, number * number),))  # its square: the step before a final root (QM^2 = 900)
        for factor, words in UNIT_FACTORS:
            if words.search(problem):
                values.update((_scaled(value, Fraction(factor)), _scaled(value, Fraction(1, factor))))
        for size, question in ASKED_IN_GROUPS:
            if question.search(problem):
                values.add(_scaled(value, Fraction(size)))
    values |= member_values(gold)
    request = request_of(problem)
    template = template_of(problem, request) if request else None
    return Asked(gold, value, frozenset(values), order_free_key(gold) if gold.strip() else "", request,
                 template, modulus_of(problem))


def _part_candidates(value, text: str) -> list[int]:
    found = {1}
    for r, c in value:
        found.update((r, abs(c.numerator), c.denominator))
    for key, kind in zip(*tokenize_form(text)):
        if kind == NUM and key[1:].isdigit() and len(key) < 12:
            found.add(int(key[1:]))
    return sorted(found)[:12]


def _fills_template(value, text: str, q: Asked) -> bool:
    """``value`` written in the requested form with integers whose combination is the gold."""
    return template_parts(value, text, q) is not None


def template_parts(value, text: str, q: Asked) -> dict | None:
    """The integers (``{letter: integer}``) with which ``value`` fills the requested form so that
    their requested combination is the gold (``192/5``: ``{m: 192, n: 5}`` for ``m+n = 197``), or None.

    >>> template_parts(_exact("192/5"), "192/5", asked("Write it as $m/n$ in lowest terms. Find $m+n$.", "197"))
    {'m': 192, 'n': 5}
    """
    gold = q.gold_value
    if value is None or gold is None or q.request is None or len(gold) != 1 or gold[0][0] != 1:
        return None
    target = gold[0][1]
    letters = sorted(q.request)
    keys, kinds = q.template if q.template else (None, None)
    candidates = _part_candidates(value, text)
    tried = 0
    for assignment in itertools.product(candidates, repeat=len(letters)):
        tried += 1
        if tried > MAX_ASSIGNMENTS:
            return None
        parts = dict(zip(letters, assignment))
        if sum(q.request[letter] * parts[letter] for letter in letters) != target:
            continue
        if keys is None:  # no written form: "m/n" for two letters
            if len(letters) == 2 and len(value) == 1 and value[0][0] == 1:
                c = value[0][1]
                if (c.numerator, c.denominator) in ((parts[letters[0]], parts[letters[1]]),
                                                    (parts[letters[1]], parts[letters[0]])):
                    return parts
            continue
        filled = [f"#{parts[k]}" if kind == ID and k in parts else k for k, kind in zip(keys, kinds)]
        filled_kinds = [NUM if kind == ID and k in parts else kind for k, kind in zip(keys, kinds)]
        if surd_value(tuple(filled), tuple(filled_kinds)) == value:
            return parts
    return None


def is_answer_value(value, text: str, q: Asked) -> bool:
    """Is the exact ``value`` (written as ``text``) the answer in disguise?"""
    if value is None:
        return False
    if value in q.values:
        return True
    integer = len(value) == 1 and value[0][0] == 1 and value[0][1].denominator == 1
    if q.modulus and _is_power_of_ten(q.modulus) and integer:
        gold = q.gold_value[0][1] if q.gold_value and len(q.gold_value) == 1 and q.gold_value[0][0] == 1 else None
        number = value[0][1]
        if gold is not None and gold.denominator == 1 and abs(number) > gold and (number - gold) % q.modulus == 0:
            return True
    return q.request is not None and _fills_template(value, text, q)


def _is_power_of_ten(n: int) -> bool:
    """``10``, ``100``, ``1000``, ...: a remainder by it is the last digits."""
    return n >= 10 and str(n).rstrip("0") == "1"


def is_answer_form(text: str, q: Asked) -> bool:
    """Is ``text`` (a value or an expression) the answer in disguise?

    >>> q = asked("Write $\\\\frac{4+6a}{5}-\\\\frac{1+3a}{4}$ as a single fraction.", "\\\\frac{11+9a}{20}")
    >>> is_answer_form("\\\\frac{9a + 11}{20}", q), is_answer_form("\\\\frac{16 + 24a}{20}", q)
    (True, False)
    """
    if not text.strip():
        return False
    if is_answer_value(_exact(text), text, q):
        return True
    if q.gold_key and order_free_key(text) == q.gold_key:
        return True
    return canonical_key(text) == canonical_key(q.gold)
