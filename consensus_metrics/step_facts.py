r"""What one step of a solution states: computations (true or false), claimed values, numbers.

The step locator (:mod:`consensus_metrics.locate`) reads each step through this module. A step's
text becomes canonical tokens (:mod:`consensus_metrics.normalize`) and relation chains
(:mod:`consensus_metrics.relations`); every side without a variable gets its exact value
(:mod:`consensus_metrics.surds`: rationals and square roots; ``p%`` reads as ``p/100``). Then:

* a **computation** is two neighbouring sides of one chain joined by ``=``, both with an exact
  value, at least one of them not a bare number. It **holds** when the values are equal, or when
  one side is a written decimal that rounds the other (``580/110 = 5.27``, ``350/15 = 23``: the
  other value cannot be written with that many decimals, and lies within one unit of the last
  place). A false computation is one that does not hold (``10 \cdot (2/3) = 8``).
  Two bare numbers (``$1 = 100`` cents) are a conversion, not a computation; a first side that
  is a bare number right after a word is the end of a phrase (``20% of 50 = 0.2 \cdot 50``), not
  a side;
* a **claim** is a side with a variable joined by ``=`` to a side with an exact value
  (``p = 0.29``, ``2x + 1 = 11``, ``f(3) = 7``), keyed by the commutative key of the symbolic side;
* a **rewrite** is two neighbouring sides of a chain of three or more, both in the same
  variables and no exact value: compared at fixed test points with exact arithmetic, false when
  two points differ (``-k + 3k = (-1 + 3)k = 4k``); a letter applied as a function (``f(4)``),
  vectors, matrices and ``i`` are no rewrite;
* a quantity **computed once and then written with another value** in the same step
  (``a_6 = -25 + 5 \times 75``, then ``a_6 = 525``) is a false computation, unless a word makes
  it another case (``or``, ``if``, ``now``...), the step has ``±``, or it is rounding;
* an **equation** is a pair of sides in one variable whose difference is linear, kept with its
  root (``3x + 2x = 30``: 6; not in a supposition or a step that checks a candidate); a
  variable such a pair pins without being linear (``x^2 = 9``) is **nonlinear**;
* **numbers** are the values of every numeral of the step, **results** the values a
  computation of the step arrives at (its last bare-number side).

Calculator annotations ``<<3*4=12>>`` (GSM8K style) are left out: the text around them states the
same computation.

>>> f = step_facts("So 10 * (2/3) = 8 litres, and p = 0.29.")
>>> [(c.left, c.right, c.holds) for c in f.computations], [(c.text, str(rational(c.value))) for c in f.claims]
([('10 * (2/3)', '8', False)], [('p', '29/100')])
>>> [c.holds for c in step_facts("she will need 580/110 = 5.27 bags; 4/20 * 100% = 20%").computations]
[True, True]
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from .budget import NO_DEADLINE, Deadline
from .divisions import told
from .numbers import key_value
from .normalize import CLOSE, FUNC, ID, MISC, NUM, OP, OPEN, SEGMENT_CACHE_CHARS, WORD, Tokens, tokenize
from .relations import build_chains, commutative_key
from .surds import rational, surd_value

#: Longest step text read (characters); the rest of a longer step is not read.
MAX_STEP_CHARS = 6000
_ANNOTATION_RE = re.compile(r"<<[^<>\n]{0,400}>>")
_MATRIX_RE = re.compile(r"\\begin\{([pbvBV]?matrix|array|smallmatrix|cases)\}.{0,4000}?\\end\{\1\}", re.S)
_WORD_RE = re.compile(r"[A-Za-z]{2,}")
#: The number of a list item or a heading (``2. Use the given condition``, ``**3)**``, ``(1)`` at
#: the start of a line; ``Step 2``, ``Case 3``, ``Part 1`` anywhere): a label, not a value.
_ITEM_LABEL_RE = re.compile(r"(?m)^[ \t>]*(?:[-*+][ \t]+)?(?:\*\*|__|#{1,6}[ \t]*)?\(?(\d{1,2})[.)](?=[ \t*_])")
_NAMED_LABEL_RE = re.compile(r"\b(?:[Ss]tep|[Cc]ase|[Pp]art|[Mm]ethod|[Aa]pproach|[Ss]olution)[ \t]+(\d{1,2})\b")
#: Cheap test before :data:`_NAMED_LABEL_RE` (a scan for six words is slow).
_LABEL_WORD_ENDS = ("tep ", "ase ", "art ", "ethod ", "pproach ", "olution ")
#: A step that checks a candidate (its ``=`` may be the claim under test: ``1 = \sqrt{9} + 4``,
#: ``1 \neq 7``) or computes modulo n (``(8^2)^2 = 9^2``): its computations are not convicted.
_CHECKING_RE = re.compile(r"≠|\\neq?(?![a-z])|\\not\s*=|\\pmod|\\bmod|\\mod(?![a-z])|≡|\\equiv|\bmod(?:ulo)?\b|"
                          r"\b(?:check|checking|test|testing|verify|verifying|try|trying|plug|plugging|"
                          r"substitut(?:e|ing)|extraneous|not\s+a\s+solution|not\s+valid)\b", re.I)
#: Characters that, touching a side, show the side is a piece of a longer expression the
#: tokenizer did not read (``2⁸ = (2²)ˣ``, ``r₁ + r₂ - 15``, ``7/30 @ 10/21 = ...``).
_GLUED = re.compile(r"[^\s$.,;:!?()\[\]{}=<>]")
#: Words that make a claim after them in the same sentence a supposition, not a statement.
SUPPOSING = frozenset("""if when whenever suppose supposing assume assuming let try trying pick picking choose
    test testing check checking verify consider considering plug plugging substitute substituting set setting
    case cases example instance say either or whether unless otherwise root roots solutions possible
    possibilities could would might""".split())

_PERCENT = ("*", "#1/100")
#: Relative difference allowed between the sides of a computation that writes a decimal fraction.
DECIMAL_TOLERANCE = 0.01
_DECIMAL_RE = re.compile(r"\d\.\d")
_NO_DIGIT = re.compile(r"\D*\Z")


class Computation(NamedTuple):
    """Two sides joined by ``=`` with exact values; ``holds``: they are equal (or rounded).
    ``value``: the value of the right side; ``operands``: the values of the numbers written in
    the sides that are not a bare number. A *rewrite* (``witness`` set) is two sides in the same
    variables, both in the middle of a chain; ``value`` and ``left_value`` are then ``None`` and
    ``witness`` shows the point where the sides differ (``a = 2: 1/2 and -1/2``)."""

    left: str
    right: str
    holds: bool
    start: int
    end: int
    value: tuple | None = ()
    operands: frozenset = frozenset()
    left_value: tuple | None = ()
    witness: str = ""
    names: frozenset = frozenset()


class Claim(NamedTuple):
    """``text = value``: a side with a variable (``key``: its commutative key) given a value.
    ``hypothetical``: the sentence puts it as a supposition (``if x = 3``, ``try a = 2``), or the
    step gives the same side several values (``x = -4 or x = 1``); ``hypothetical_word``: the
    first reason alone. ``computed``: the value side is no bare number (``a_6 = -25 + 5 \times 75``);
    ``value_text``: that side as written. ``assigns``: for an equation (:attr:`StepFacts.equations`,
    ``value`` its root), the variable stands alone on one side (``x = 3``, ``b = 35 - 26``)."""

    key: str
    text: str
    value: tuple
    start: int
    end: int
    hypothetical: bool = False
    computed: bool = False
    value_text: str = ""
    hypothetical_word: bool = False
    assigns: bool = False


class StepFacts(NamedTuple):
    """What a step states. ``stated``: values of the numbers written outside a computation's
    operands; ``percents``: those written ``p%`` (the value ``p``); ``pinned``: variables that an
    equation in one variable of the text pins (``x^2 - x - 1 = 0``, ``x = 3``)."""

    computations: tuple[Computation, ...]
    claims: tuple[Claim, ...]
    numbers: frozenset
    results: frozenset
    stated: frozenset
    percents: frozenset = frozenset()
    pinned: frozenset = frozenset()
    #: linear equations in one variable, each as a :class:`Claim` of its root (``key``: the
    #: variable; ``text``: the equation as written); :func:`nonlinear`: variables an equation of
    #: the step pins that is not linear (a quadratic: several roots)
    equations: tuple = ()
    nonlinear: frozenset = frozenset()

    @property
    def false_computations(self) -> tuple[Computation, ...]:
        return tuple(c for c in self.computations if not c.holds)


EMPTY = StepFacts((), (), frozenset(), frozenset(), frozenset())


def clean_text(text: str) -> str:
    r"""The step text as read (offsets kept): calculator annotations ``<<...>>`` and the numbers
    of list items and headings (``2.`` opening a line, ``Step 2``, ``Case 3``) blanked out, a
    matrix, array or ``cases`` environment read as one symbol ``M`` (its rows are no equations).

    >>> clean_text("3 + 4 = <<3+4=7>>7 eggs")
    '3 + 4 =          7 eggs'
    >>> clean_text(r"2 \begin{pmatrix} 1 \\ 2 \end{pmatrix}").rstrip()
    '2 M'
    >>> clean_text("**2. Use the condition** in Case 3: 2.5 = 5/2")
    '** . Use the condition** in Case  : 2.5 = 5/2'
    """
    text = _ANNOTATION_RE.sub(lambda m: " " * len(m.group()), text)
    text = _ITEM_LABEL_RE.sub(_blank_label, text)
    if any(end in text for end in _LABEL_WORD_ENDS):
        text = _NAMED_LABEL_RE.sub(_blank_label, text)
    if "\\begin" in text:
        text = _MATRIX_RE.sub(lambda m: "M" + " " * (len(m.group()) - 1), text)
    return text


def _blank_label(m: re.Match) -> str:
    """The match with its label number blanked out (offsets kept)."""
    a, b = m.start(1) - m.start(), m.end(1) - m.start()
    whole = m.group()
    return whole[:a] + " " * (b - a) + whole[b:]


def side_value(keys, kinds) -> tuple | None:
    """Exact value (:func:`consensus_metrics.surds.surd_value`) of a side, ``p%`` read as ``p/100``.

    >>> from consensus_metrics.normalize import tokenize_form
    >>> rational(side_value(*tokenize_form("130000 * 150%")))
    Fraction(195000, 1)
    """
    if "%" in keys:
        k2, n2 = [], []
        for key, kind in zip(keys, kinds):
            if key == "%" and kind == MISC:
                if not n2 or n2[-1] not in (NUM, CLOSE):
                    return None
                k2.extend(_PERCENT)
                n2.extend((OP, NUM))
            else:
                k2.append(key)
                n2.append(kind)
        keys, kinds = k2, n2
    return surd_value(tuple(keys), tuple(kinds))


def _bare_number(keys, kinds) -> bool:
    """A side that is one numeral (signed, or a percentage): ``12``, ``-3``, ``25%``."""
    k = 1 if keys and keys[0] == "neg" else 0
    rest = len(keys) - k
    return (rest == 1 and kinds[k] == NUM) or (rest == 2 and kinds[k] == NUM and keys[k + 1] == "%")


def _decimals(raw: str) -> int | None:
    """Decimal places written in a numeral (``5.27`` -> 2, ``23`` -> 0), ``None`` for a fraction."""
    raw = raw.strip().rstrip("%").strip()
    if "/" in raw or "frac" in raw:
        return None
    digits = raw.replace(",", "").replace("{,}", "")
    return len(digits.split(".", 1)[1]) if "." in digits else 0


def _to_float(value: tuple) -> float | None:
    try:
        return float(sum(float(c) * (r ** 0.5) for r, c in value))
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


def rounds(written: tuple, places: int, other: tuple, scale: int = 1, units: float = 1.0) -> bool:
    """Whether ``written`` (a numeral with ``places`` decimals, times ``1/scale``: a percentage
    has scale 100) rounds ``other``: ``other`` has no exact ``places``-decimal form and lies
    within ``units`` units of the last place (one: rounded or cut off; a half: rounded only)."""
    exact = rational(other)
    if exact is not None and (exact * scale * 10 ** places).denominator == 1:
        return False  # it can be written exactly with these places: rounding is no excuse
    w, o = _to_float(written), _to_float(other)
    return w is not None and o is not None and abs(w - o) * scale <= units * 10.0 ** -places * 1.000001


def step_facts(text: str, deadline: Deadline = NO_DEADLINE) -> StepFacts:
    """The computations, claims, numbers and results of one step's text (module doc). Raises
    :class:`~consensus_metrics.budget.BudgetExceeded` past ``deadline``; steps up to
    :data:`~consensus_metrics.normalize.SEGMENT_CACHE_CHARS` characters are remembered."""
    if not isinstance(text, str) or _NO_DIGIT.match(text):
        return EMPTY  # no numeral: no value, so no computation, claim or number (the common prose step)
    deadline.check()
    text = text[:MAX_STEP_CHARS]
    if len(text) <= SEGMENT_CACHE_CHARS:
        return _cached_facts(text)
    text = clean_text(text)
    return _read(text, tokenize(text, deadline), deadline)


@lru_cache(maxsize=8192)
def _cached_facts(text: str) -> StepFacts:
    """:func:`step_facts` of a short step, remembered by its raw text (its cleaning included:
    :func:`clean_text` keeps the length, so the cached and the uncached path read the same)."""
    text = clean_text(text)
    return _read(text, tokenize(text), NO_DEADLINE)


def _read(text: str, toks: Tokens, deadline: Deadline) -> StepFacts:
    keys, kinds = toks.keys, toks.kinds
    computations, claims, results, equations = [], [], set(), []
    operand, pinned, nonlinear = set(), set(), set()
    lenient = _CHECKING_RE.search(text) is not None  # a candidate checked, modular arithmetic: = may not hold
    for chain in build_chains(toks, text, deadline, with_comm=False):
        sides = chain.sides
        if "=" not in chain.rels:  # an inequality: its sides state no value, a variable's numbers are operands
            for s in sides:
                if ID in kinds[s.lo:s.hi]:
                    operand.update(range(s.lo, s.hi))
            continue
        values = [side_value(keys[s.lo:s.hi], kinds[s.lo:s.hi]) if NUM in kinds[s.lo:s.hi] else None for s in sides]
        bare = [s.hi > s.lo and _bare_number(keys[s.lo:s.hi], kinds[s.lo:s.hi]) for s in sides]
        for s, value, is_bare in zip(sides, values, bare):
            if (value is not None and not is_bare) or ID in kinds[s.lo:s.hi]:
                operand.update(range(s.lo, s.hi))
        if bare[0] and sides[0].lo > 0 and kinds[sides[0].lo - 1] == WORD:
            values[0] = None  # "20% of 50 = 0.2 * 50": the 50 ends a phrase, it is no side
        tested = _tests_a_candidate(values, bare, chain.rels)
        for i, rel in enumerate(chain.rels):
            if rel != "=":
                continue
            a, b = sides[i], sides[i + 1]
            va, vb = values[i], values[i + 1]
            if ID in kinds[a.lo:a.hi] or ID in kinds[b.lo:b.hi]:
                pin = _pins(keys, kinds, a, b)
                if pin is not None:
                    pinned.add(pin)
                    root = _linear_root(text, toks, a, b, pin)
                    if root is None:
                        nonlinear.add(pin)
                    elif root is not _NO_ROOT:
                        equations.append(Claim(pin, f"{_whole(text, a)} = {_whole(text, b)}", root,
                                               a.start, b.end, assigns=_alone(keys, kinds, a, pin) or
                                               _alone(keys, kinds, b, pin)))
            if va is None and vb is None:
                if len(sides) >= 3 and not lenient:
                    rewrite = _rewrite(text, toks, a, b)
                    if rewrite is not None:
                        computations.append(rewrite)
                continue
            if va is not None and vb is not None:
                if bare[i] and bare[i + 1]:
                    continue  # "$1 = 100 cents": a conversion or a label, not a computation
                if not _plain_pair(text, toks, a, b) or _conversion(text, toks, a, b) or _fragment(text, toks, a, b):
                    continue
                holds = va == vb or _approximately(text, toks, a, va, bare[i], b, vb, bare[i + 1]) or \
                    _running(keys, kinds, b, va) or lenient or (tested and i == 0)
                ops = frozenset(v for s, is_bare in ((a, bare[i]), (b, bare[i + 1])) if not is_bare
                                for v in (number_value(keys[t]) for t in range(s.lo, s.hi) if kinds[t] == NUM) if v is not None)
                computations.append(Computation(_whole(text, a), _whole(text, b), holds, a.start, b.end, vb, ops, va))
                if bare[i + 1]:
                    results.add(vb)
                continue
            sym, value = (a, vb) if va is None else (b, va)
            other, other_bare = (b, bare[i + 1]) if va is None else (a, bare[i])
            if sym.hi > sym.lo and _symbolic(kinds[sym.lo:sym.hi]):
                claims.append(Claim(commutative_key(keys[sym.lo:sym.hi], kinds[sym.lo:sym.hi]), _whole(text, sym), value,
                                    min(a.start, b.start), max(a.end, b.end), False, not other_bare,
                                    _whole(text, other)))
    numbers, stated, percents = set(), set(), set()
    for k, (key, kind) in enumerate(zip(keys, kinds)):
        if kind == NUM:
            value = number_value(key)
            if value is not None:
                numbers.add(value)
                if k not in operand:
                    stated.add(value)
                    if k + 1 < len(keys) and keys[k + 1] == "%" and kinds[k + 1] == MISC:
                        percents.add(value)
    if claims:
        claims = _mark_suppositions(text, claims)
        computations.extend(_inconsistent(text, claims))
    computations.extend(_false_divisions(text))
    if equations:
        equations = [e for e in _mark_suppositions(text, equations) if not (e.hypothetical or lenient)]
    return StepFacts(tuple(computations), tuple(claims), frozenset(numbers), frozenset(results), frozenset(stated),
                     frozenset(percents), frozenset(pinned), tuple(equations), frozenset(nonlinear))


def _false_divisions(text: str) -> list[Computation]:
    r"""A division told with its quotient and remainder that does not hold (``9999 \div 1331 = 7
    \text{ remainder } 762``: 1331 · 7 + 762 is 10079; :func:`consensus_metrics.divisions.told`),
    a false computation even in a step that computes modulo n. A remainder not below the divisor
    with the sum right (``17 \div 5 = 2 R 7``) is a division not carried through, left alone.

    >>> [(c.left, c.right, c.witness) for c in _false_divisions("so 2250 ÷ 360 = 6 remainder 270, and 166 ÷ 6 = 27 R 4")]
    [('2250 ÷ 360', '6 remainder 270', '360 · 6 + 270 is 2430')]
    """
    if "remainder" not in text and " R" not in text and " r" not in text:
        return []
    return [Computation(f"{d.a} ÷ {d.b}", f"{d.q} remainder {d.r}", False, d.start, d.end, None, frozenset(), None,
                        f"{d.b} · {d.q} + {d.r} is {d.b * d.q + d.r}")
            for d in told(text) if d.a != d.b * d.q + d.r]


def _tests_a_candidate(values: list, bare: list, rels) -> bool:
    r"""A chain that puts a candidate to the test: ``1 = \sqrt{11 - 2(1)} + 4 = \sqrt{9} + 4 = 7``
    (is 1 a root?). Its first side is a bare number, its last a bare number that differs from it,
    and every link after the first holds: the first ``=`` is the claim under test, which the chain
    itself refutes, not a false computation.

    >>> _tests_a_candidate([1, 7, 7, 7], [True, False, False, True], ("=", "=", "="))
    True
    >>> _tests_a_candidate([24, 21], [True, True], ("=",)), _tests_a_candidate([24, 21, 22], [True, False, True], ("=", "="))
    (False, False)
    """
    if len(values) < 3 or not (bare[0] and bare[-1]) or any(r != "=" for r in rels):
        return False
    if values[0] is None or values[-1] is None or values[0] == values[-1]:
        return False
    rest = values[1:]
    return all(v is not None for v in rest) and len(set(rest)) == 1


def _inconsistent(text: str, claims: list) -> list:
    """A quantity computed once and then stated with another value in the same step (``a_8 =
    \\frac{125}{9} \\cdot \\frac{2187}{78125}``, then ``a_8 = \\frac{27343}{703125}``): the later value,
    as a false :class:`Computation`. Only when the step computes that quantity once (two roots
    ``x = \\frac{-1 + 3}{2}``, ``x = \\frac{-1 - 3}{2}`` are alternatives), states the other value as a
    bare number, and no word between them makes it another case (``or``, ``if``, ``now``...); a
    decimal within one unit of its last place, or within :data:`DECIMAL_TOLERANCE` when the text
    writes decimals, is rounding."""
    computed: dict = {}
    for claim in claims:
        if claim.computed and not claim.hypothetical_word:
            computed.setdefault(claim.key, []).append(claim)
    out = []
    for claim in claims:
        firsts = computed.get(claim.key)
        if claim.computed or not firsts or len({c.value for c in firsts}) != 1:
            continue
        first = firsts[0]
        if first.start >= claim.start or claim.value == first.value or claim.hypothetical_word or _close(first, claim):
            continue
        if _ALTERNATIVE_RE.search(text[first.end:claim.start]) or "±" in text or "\\pm" in text:
            continue
        out.append(Computation(first.value_text, claim.value_text, False, claim.start, claim.end, claim.value,
                               frozenset(), first.value,
                               f"{first.text} = {first.value_text} is {_show_value(first.value)}, "
                               f"then {claim.text} = {claim.value_text}"))
    return out


_ALTERNATIVE_RE = re.compile(r"\bor\b|\bif\b|\bcase\b|\belse\b|\botherwise\b|\bwhen\b|\bnew\b|\bnow\b|"
                             r"\bagain\b|\bupdat|\bthen\b.*\bbecomes\b", re.I)


def _close(first, later) -> bool:
    a, b = _to_float(first.value), _to_float(later.value)
    if a is None or b is None:
        return False
    places = _decimals(later.value_text)
    if places is not None and "." in later.value_text and abs(a - b) <= 10.0 ** -places * 1.000001:
        return True
    written = first.value_text + later.value_text
    return bool(_DECIMAL_RE.search(written)) and abs(a - b) <= DECIMAL_TOLERANCE * max(abs(a), abs(b))


#: "If we solve for x, we get 3x = 180": an operation on what is known, no supposition.
_DERIVING_RE = re.compile(r"\b(?:if|when)\s+(?:we|I|you)\s+(?:solve|simplify|combine|expand|factor|rearrange|"
                          r"divide|multiply|subtract|add|isolate|collect)\b", re.IGNORECASE)


def _mark_suppositions(text: str, claims: list) -> list:
    """Mark the hypothetical claims (:class:`Claim`): a supposing word earlier in the sentence
    (not the ``if`` of an operation on what is known, :data:`_DERIVING_RE`), or another value for
    the same side in the step."""
    values: dict = {}
    for claim in claims:
        values.setdefault(claim.key, set()).add(claim.value)
    out = []
    for claim in claims:
        head = text[max(0, claim.start - 300):claim.start]
        cut = max(head.rfind(". "), head.rfind("\n"), head.rfind("? "), head.rfind("! "), head.rfind("; "))
        words = {w.lower() for w in _WORD_RE.findall(_DERIVING_RE.sub(" ", head[cut + 1:]))}
        out.append(claim._replace(hypothetical=bool(words & SUPPOSING) or len(values[claim.key]) > 1,
                                  hypothetical_word=bool(words & SUPPOSING)))
    return out


def _balanced(kinds) -> bool:
    depth = 0
    for kind in kinds:
        depth += (kind == OPEN) - (kind == CLOSE)
        if depth < 0:
            return False
    return depth == 0


def _plain_pair(text, toks, a, b) -> bool:
    """Two sides that are whole: each balanced in brackets, nothing but the relation between
    them (``P(X=4) = 35/625``: the ``4`` closes a bracket, it is no side of the second ``=``)."""
    kinds = toks.kinds
    return a.hi < b.lo and _balanced(kinds[a.lo:a.hi]) and _balanced(kinds[b.lo:b.hi]) and \
        all(kinds[t] not in (OPEN, CLOSE) for t in range(a.hi, b.lo))


#: A degree sign after a number (``180^{\circ}``, ``60°``): the tokenizer drops it, no glued text.
_DEGREE_RE = re.compile(r"\A\s*(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree\b)")


def _fragment(text, toks, a, b) -> bool:
    """A pair that is part of a larger statement: a side glued to characters the tokenizer left
    out (:data:`_GLUED`, reading past math delimiters), an ambiguous ``a / b / c``, or a side
    next to "of" (``60% of (700 - 280) = 60% of 420``)."""
    keys, kinds = toks.keys, toks.kinds
    before = text[max(0, toks.starts[a.lo] - 12):toks.starts[a.lo]]
    before = re.sub(r"(?:\\[\[(]|\$)+\s*\Z", "", before.rstrip())
    end = toks.ends[b.hi - 1]
    after = re.sub(r"\A\s*(?:\\[\])]|\$)+", "", _DEGREE_RE.sub("", text[end:end + 20], 1))
    if (before[-1:] and not before[-1].isspace() and _GLUED.match(before[-1])
            and not (before[-1].isalpha() and before[-1].isascii())) or (after[:1] and _GLUED.match(after[0])):
        return True
    if (a.lo > 0 and keys[a.lo - 1] == "~of") or (b.hi < len(keys) and keys[b.hi] == "~of"):
        return True
    for s in (a, b):
        ks = keys[s.lo:s.hi]
        if any(ks[t] == "/" and ks[t + 2] == "/" for t in range(len(ks) - 2)):
            return True
    return False


def _running(keys, kinds, b, left_value) -> bool:
    """``27 + 22 + 11 = 60 / 3 = 20``: the right side goes on from the left side's value (``=`` as
    "then"), so the pair states no equality."""
    k = b.lo
    return k + 1 < b.hi and kinds[k] == NUM and kinds[k + 1] == OP and number_value(keys[k]) == left_value


def _conversion(text, toks, a, b) -> bool:
    r"""``42 \cdot 20/21 daps = 42 baps``: a word between the left side and ``=`` and another word
    after the right side -- two units, a conversion rather than arithmetic."""
    before = _WORD_RE.findall(text[toks.ends[a.hi - 1]:toks.starts[b.lo]])
    after = _WORD_RE.match(text[toks.ends[b.hi - 1]:toks.ends[b.hi - 1] + 40].lstrip(" $"))
    if not before or not after:
        return False
    return _stem(before[-1]) != _stem(after.group())


def _stem(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") else word


def _whole(text: str, side) -> str:
    """A side's text with the closing brackets its last token left out (``(2/3`` -> ``(2/3)``)."""
    end = side.end
    opened = sum(text.count(c, side.start, end) for c in "([{") - sum(text.count(c, side.start, end) for c in ")]}")
    while opened > 0 and end < len(text) and text[end] in ")]} ":
        opened -= text[end] != " "
        end += 1
    return text[side.start:end].strip()


def _approximately(text, toks, a, va, a_bare, b, vb, b_bare) -> bool:
    r"""Rounding (module doc); a percentage written for its number (``0.2 \cdot 100 = 20\%``); and,
    when a side writes a decimal fraction, values within :data:`DECIMAL_TOLERANCE` of each other
    (a rounded value carried on: ``99.3 \cdot 1.35 = 133.96``, ``56 \cdot 3/7 = 56 \cdot 0.42857``)."""
    for side, value, is_bare, other in ((b, vb, b_bare, va), (a, va, a_bare, vb)):
        if is_bare:
            raw = text[toks.starts[side.lo]:toks.ends[side.hi - 1]].lstrip("-−")
            places = _decimals(raw)
            percent = raw.rstrip().endswith("%")
            if places is not None and rounds(value, places, other, 100 if percent else 1):
                return True
            if percent and rational(value) is not None and rational(other) == rational(value) * 100:
                return True
    written = text[toks.starts[a.lo]:toks.ends[b.hi - 1]]
    if _DECIMAL_RE.search(written):
        x, y = _to_float(va), _to_float(vb)
        if x is not None and y is not None and abs(x - y) <= DECIMAL_TOLERANCE * max(abs(x), abs(y)):
            return True
    return False


#: Points at which a rewrite's sides are compared: each variable (in order of first appearance)
#: takes the next value of the list. Two integer points (integer powers stay exact) and one with
#: fractions; a rewrite is false only when every point where both sides have a value shows a
#: difference, and at least two such points exist.
REWRITE_POINTS = ((3, 5, 7, 11, 13, 17, 19, 23), (4, 9, 6, 10, 14, 15, 21, 22),
                  (Fraction(5, 3), Fraction(7, 4), Fraction(11, 5), Fraction(13, 6), Fraction(17, 7),
                   Fraction(19, 8), Fraction(23, 9), Fraction(29, 10)))
#: Tokens that make a side no plain expression of numbers and variables: the imaginary unit,
#: vectors (their products need not commute) and matrices.
_NOT_SCALAR = frozenset({"i", "M", "π"})
#: Letters that name functions: ``f(3)``, ``P(x)`` written right before a bracket are no products.
_FUNCTION_NAMES = frozenset("f g h F G H P Q p q".split())
_VECTOR_RE = re.compile(r"\\(?:mathbf|vec|overrightarrow|boldsymbol|bm)\b|\\times")


def _rewrite(text, toks, a, b) -> Computation | None:
    r"""A rewrite (:class:`Computation`) of two neighbouring sides of a chain of three or more
    sides, both in the same variables (``\frac{1}{1 - \frac{1}{1 - a}} = \frac{1 - a}{1 - 1 + a}``),
    compared at :data:`REWRITE_POINTS` with exact arithmetic; ``None`` when the pair is no
    rewrite or a side has no value there (a function, an unknown exponent)."""
    keys, kinds = toks.keys, toks.kinds
    ka, na = keys[a.lo:a.hi], kinds[a.lo:a.hi]
    kb, nb = keys[b.lo:b.hi], kinds[b.lo:b.hi]
    if not ka or not kb or WORD in na or WORD in nb or MISC in na or MISC in nb:
        return None
    names_a = [k for k, n in zip(ka, na) if n == ID]
    names_b = [k for k, n in zip(kb, nb) if n == ID]
    if not names_a or set(names_a) != set(names_b) or _NOT_SCALAR & set(names_a) or len(set(names_a)) > 8:
        return None
    if not _plain_pair(text, toks, a, b) or _fragment(text, toks, a, b):
        return None
    if _VECTOR_RE.search(text[max(0, a.start - 200):b.end]):
        return None
    for s_ in (a, b):
        for t in range(s_.lo, s_.hi):
            if kinds[t] == ID and keys[t] in _FUNCTION_NAMES and text[toks.ends[t]:toks.ends[t] + 1] == "(":
                return None  # f(4) = f(3) + 5: a function applied, not a product
    same, differ, witness = _compare(ka, na, kb, nb, list(dict.fromkeys(names_a)))
    names = frozenset(names_a)
    if same:
        return Computation(_whole(text, a), _whole(text, b), True, a.start, b.end, None, frozenset(), None, "", names)
    if differ < 2:
        return None
    return Computation(_whole(text, a), _whole(text, b), False, a.start, b.end, None, frozenset(), None, witness, names)


def _compare(ka, na, kb, nb, order, enough: int = 2) -> tuple[int, int, str]:
    """``(points where both sides have the same value, points where they differ, the first
    difference shown)`` over :data:`REWRITE_POINTS` (each variable of ``order`` takes the next
    value of a point); stops at the first point with the same value, or after ``enough``
    points that differ."""
    same = differ = 0
    witness = ""
    for point in REWRITE_POINTS:
        assign = {name: _value_key(point[k]) for k, name in enumerate(order)}
        va = _value_at(ka, na, assign)
        if va is None:
            continue
        vb = _value_at(kb, nb, assign)
        if vb is None:
            continue
        if va == vb:
            return same + 1, differ, witness
        differ += 1
        if not witness:
            at = ", ".join(f"{name} = {point[k]}" for k, name in enumerate(order))
            witness = f"at {at}: {_show_value(va)} and {_show_value(vb)}"
        if differ >= enough:
            break
    return same, differ, witness


def _pins(keys, kinds, a, b) -> str | None:
    """The variable an equation in one variable pins (``x^2 - x - 1 = 0``, ``x = 3``,
    ``x^2 = x + 1``), or ``None`` (several variables, none, or an identity)."""
    na, nb = kinds[a.lo:a.hi], kinds[b.lo:b.hi]
    names = {k for s_ in (a, b) for k, n in zip(keys[s_.lo:s_.hi], kinds[s_.lo:s_.hi]) if n == ID}
    if len(names) != 1 or not na or not nb:
        return None
    (name,) = names
    if ID not in na or ID not in nb:
        return name
    same, differ, _ = _compare(keys[a.lo:a.hi], na, keys[b.lo:b.hi], nb, [name], enough=1)
    return name if differ and not same else None


#: :func:`_linear_root` of an equation that states no root of its own: a function applied, a
#: vector, an identity, a side without a value at the test points
_NO_ROOT = object()
#: the points a one-variable equation is read at (its sides' difference must be linear there)
LINEAR_POINTS = (Fraction(3), Fraction(5), Fraction(7), Fraction(11, 2))
_ELLIPSIS_RE = re.compile(r"\s*(?:\.\.\.|…|\\[lc]?dots)")


def _linear_root(text, toks, a, b, name: str):
    r"""The root of an equation in one variable ``name`` whose sides differ by a linear function
    (``15 \cdot \frac{x}{5} \cdot \frac{1}{3} = 15 \cdot 6``: 90), read with exact arithmetic at
    :data:`LINEAR_POINTS`; ``None`` when the difference is not linear there (``x^2 = 9``: it has
    several roots), :data:`_NO_ROOT` when the pair states no root (a function applied, a
    vector, ``i``, a prose word, an identity, no value at a point).

    >>> from consensus_metrics.normalize import tokenize
    >>> from consensus_metrics.relations import build_chains
    >>> def root(t):
    ...     toks = tokenize(t); s = next(iter(build_chains(toks, t, with_comm=False))).sides
    ...     return _linear_root(t, toks, s[0], s[1], "x")
    >>> [str(rational(root(t))) for t in ("3x = 90", "(x/5) * (1/3) = 6", "x - 4 = 4 - x")]
    ['30', '90', '4']
    >>> root("x^2 = 9") is None, root("2x + 3 = 2x + 3") is _NO_ROOT, rational(root("2x = 0"))
    (True, True, Fraction(0, 1))
    >>> root("10x = 5.555...") is _NO_ROOT
    True
    """
    keys, kinds = toks.keys, toks.kinds
    ka, na = keys[a.lo:a.hi], kinds[a.lo:a.hi]
    kb, nb = keys[b.lo:b.hi], kinds[b.lo:b.hi]
    if not ka or not kb or name in _NOT_SCALAR or any(n in (WORD, MISC, FUNC) for n in na + nb):
        return _NO_ROOT
    if not _plain_pair(text, toks, a, b) or _fragment(text, toks, a, b) or \
            _VECTOR_RE.search(text[max(0, a.start - 200):b.end]) or \
            any(_ELLIPSIS_RE.match(text, end) for end in (a.end, b.end)):
        return _NO_ROOT  # 10x = 5.555...: a repeating decimal cut short is no exact side
    if name in _FUNCTION_NAMES and any(text[toks.ends[t]:toks.ends[t] + 1] == "("
                                       for s_ in (a, b) for t in range(s_.lo, s_.hi) if kinds[t] == ID):
        return _NO_ROOT
    diffs = []
    for x in LINEAR_POINTS:
        at = {name: _value_key(x)}
        va, vb = _value_at(ka, na, at), _value_at(kb, nb, at)
        ra, rb = rational(va) if va is not None else None, rational(vb) if vb is not None else None
        if ra is None or rb is None:
            return _NO_ROOT
        diffs.append(ra - rb)
    slope = (diffs[1] - diffs[0]) / (LINEAR_POINTS[1] - LINEAR_POINTS[0])
    if slope == 0:
        return _NO_ROOT if len(set(diffs)) == 1 else None
    if any(d != diffs[0] + slope * (x - LINEAR_POINTS[0]) for x, d in zip(LINEAR_POINTS, diffs)):
        return None
    root = LINEAR_POINTS[0] - diffs[0] / slope
    return ((1, root),) if root else ()


def _alone(keys, kinds, side, name: str) -> bool:
    """Whether ``side`` is the variable ``name`` alone (brackets aside: ``x``, ``{x}``)."""
    return [(k, n) for k, n in zip(keys[side.lo:side.hi], kinds[side.lo:side.hi])
            if n not in (OPEN, CLOSE)] == [(name, ID)]


def _value_at(keys, kinds, assign: dict) -> tuple | None:
    r"""The exact value of a side with each variable of ``assign`` replaced by its number token; a
    number or a closing bracket before an opening one multiplies it (``\frac{2}{3} (a + b)``: the
    tokenizer reads a product there only where no space is written).

    >>> from consensus_metrics.normalize import tokenize_form
    >>> _value_at(*tokenize_form(r"\frac{2}{3} (a + b)"), {"a": "#1", "b": "#2"})
    ((1, Fraction(2, 1)),)
    """
    k2, n2 = [], []
    for key, kind in zip(keys, kinds):
        if kind == OPEN and n2 and n2[-1] in (NUM, CLOSE):
            k2.append("*")
            n2.append(OP)
        k2.append(assign.get(key, key) if kind == ID else key)
        n2.append(NUM if kind == ID else kind)
    return surd_value(tuple(k2), tuple(n2))


def _value_key(x: Fraction) -> str:
    return f"#{x.numerator}/{x.denominator}" if x.denominator != 1 else f"#{x.numerator}"


def _show_value(value: tuple) -> str:
    r = rational(value)
    if r is not None:
        return str(r)
    return " + ".join(f"{c}√{k}" if k != 1 else str(c) for k, c in value)


def _symbolic(kinds) -> bool:
    """A side with a variable or a function and no prose word in it."""
    return (ID in kinds or FUNC in kinds) and WORD not in kinds


@lru_cache(maxsize=65536)
def number_value(key: str) -> tuple | None:
    """The value (:mod:`consensus_metrics.surds` form) of a number token key (``#3/4``), or ``None``."""
    value = key_value(key)
    if value is None:
        return None
    return ((1, value),) if value else ()


__all__ = ["Computation", "Claim", "StepFacts", "step_facts", "side_value", "number_value", "clean_text", "EMPTY"]
