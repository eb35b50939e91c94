r"""Stage 3a rules: what one problem alone says is no intermediate result (the audit's rubric).

:func:`drop_reason` reads one candidate against the problem and answers why it is no node (a
key of :data:`DROP_REASONS`), or ``None``:

1. **final_answer** (ANSWER) -- the answer in disguise (:mod:`node_builder.asked`: its exact value
   however written, its value in hours or dollars, the ``m/n`` of "find ``m+n``", the value before
   "mod 1000", an expression answer up to term order), and every equation with such a side
   (``xy = 25``, ``21 + 49 = 70``): the answer is ``acc``'s business. Not a computation of the
   answer's value from other numbers where two voices go on to compute the answer from that
   value (:func:`answer_reused`: ``6 + 4 + 2 = 12`` gifts, then ``144 / 12 = 12`` inches; the one
   rule here that reads the correct solutions, asked only where a candidate could use it).
2. **answer_piece** (ANSWER) -- the components of a composite answer (the ``-2`` of ``(-2, 1)``,
   the numbers written in an expression answer), the letters the question combines into the
   answer (``m = 7`` of "find ``m+n``") and the values they take.
3. **trivial** -- the values ``-1, 0, 1, 2`` and computations of them from them alone
   (``2/2 = 1``); a computation of one from other numbers is a result (``8 / 4 = 2``: a rate).
4. **fragment** (FRAGMENT) -- malformed text (:func:`node_builder.hygiene.malformed`: a dangling
   operator, unbalanced brackets, a congruence without modulus); a renaming (``A = j``); a
   trivial assignment (``k = 2``); a case label or trial value (``k = 6`` after "Case", "if",
   "try" for a name the problem does not use); pieces of notation (``DE``, ``3t``, ``r^2``).
5. **restates_problem** (RESTATE) -- numbers the problem writes anywhere (also inside
   expressions, in words, or as a percentage: ``1.35`` for ``135\%``), givens restated as
   assignments (``QR = 200``), a given expression renamed (``y = \frac{2}{x+1}`` for
   ``f(x) = \frac{2}{x+1}``), a given substituted into the problem's own definition
   (``f(3) = 2 \cdot 3^2 - 1`` for ``f(x) = 2x^2 - 1``); nodes the matcher finds in the statement
   (:mod:`node_builder.evidence`).
6. **definition** (DEFINITION) -- ``name = expression`` introduced by *let / define / denote / set
   / write* without a number (``Let $S = a + b$``), a fresh parameter (``y = 4t`` after "let"),
   ``:=``.
7. **false_arithmetic** (WRONG) -- equations between two different exact values (``1 = 5``: a
   chain read across matrix rows or cases).
8. **generic** (DEFINITION) -- no specific number (:func:`node_builder.hygiene.digit_free`) and
   either none of the problem's symbols (``\binom{n}{r} = \frac{n!}{r!(n-r)!}``,
   ``r = \sqrt{x^2+y^2}`` for a problem about the point ``(0, 3)``) or an identity
   (``a^2 - b^2 = (a-b)(a+b)``). A word problem writes no symbols: there a relation with a number
   for a side (``x^2 + x - 2 = 0``) is its own equation, not a formula. A condition is no formula
   either (:func:`_own_condition`: ``x^2 - y^2 = 4``, ``\frac{4}{3}\pi r^3 = 4\pi r^2``), nor an
   identity about the problem's own expression (:func:`_transforms_given`).

Generic formulas that are no rational identity (``\sin^2\theta + \cos^2\theta = 1``,
``c^2 = a^2 + b^2``) are recognised across the build
(:mod:`node_builder.finalize`), and the rules that need the voices (support, one route's symbols,
checks after the answer, maximality) are :mod:`node_builder.consensus`'s.

Example:
    >>> RefineConfig().trivial_values
    ('-1', '0', '1', '2')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction

from node_builder.asked import Asked, asked, is_answer_form, template_parts
from node_builder.hygiene import digit_free, is_identity, malformed, symbols_of
from node_builder.matcher import (ID, NUM, OP, canonical_key, covered, exact_equivalent, key_value, number_of,
                                  numbers_in, rational, relation_chains, split_relation, surd_value, tokenize_form)
from node_builder.number_words import number_words
from node_builder.schema import Node, Problem

DROP_REASONS = ("final_answer", "answer_piece", "trivial", "fragment", "restates_problem", "definition",
                "false_arithmetic", "unmatched", "below_support", "route", "check", "maximal", "too_common",
                "generic", "weak", "redundant", "over_cap", "rejected", "unsigned")
_DEFINITION_CONTEXT = re.compile(r"\b(let|define|denote|set|call|suppose|assume|write|substitut\w*|parametri[sz]\w*)\b"
                                 r"[^.;:\n]*$", re.I)
_CASE_CONTEXT = re.compile(r"\b(case|if|when|for|try|trying|suppose|assume|say|test|check|whether|consider)\b[^.;:\n]{0,40}$",
                           re.I)
#: The numbers a textbook formula holds (``b^2 - 4ac``, ``\frac{1}{2}bh``, ``\frac{4}{3}\pi r^3``).
FORMULA_CONSTANTS = ("#0", "#1", "#2", "#3", "#4", "#1/2", "#4/3", "#1/3")
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")
_PART_REQUEST = re.compile(r"\$([^$]{3,40})\$[^$]*$")


@dataclass
class RefineConfig:
    """Settings of the problem-level rules and of the build's cap (see docs/SPEC.md §6)."""

    max_nodes: int = 8
    trivial_values: tuple[str, ...] = ("-1", "0", "1", "2")


def part_letters(problem_text: str) -> frozenset:
    r"""Letters the question asks to combine into the answer: ``find $m+n$`` -> ``{m, n}``.

    >>> sorted(part_letters("... written as $\\frac{m}{n}$ where m, n are coprime. Find $m+n$."))
    ['m', 'n']
    >>> part_letters("Find $x$ if $2x+1 = 7$.")
    frozenset()
    """
    match = _PART_REQUEST.search(problem_text.strip())
    if not match:
        return frozenset()
    body = match.group(1).replace(" ", "")
    if not re.fullmatch(r"\d*[a-zA-Z](?:[+-]\d*[a-zA-Z])+", body):
        return frozenset()
    letters = frozenset(re.findall(r"[a-zA-Z]", body))
    return letters if len(letters) >= 2 else frozenset()


def _components(answer: str) -> list[str]:
    """The comma, ``\\\\`` or ``&`` separated components of an answer, brackets and matrix
    environments aside (one component for an answer that is no tuple)."""
    body = re.sub(r"\\(?:left|right)\b|\\(?:begin|end)\{[pbv]?matrix\}", "", answer).strip()
    return [part.strip() for part in re.split(r",|\\\\|&", body.strip("()[]{} "))]


def answer_parts(answer: str) -> frozenset:
    r"""Numbers of a composite answer: the components of a tuple or vector (``(-2, 1)`` ->
    ``{-2, 1}``), or every number written in an answer that is not itself a number
    (``\frac{11+9a}{20}`` -> ``{11, 9, 20}``, ``3\sqrt{13}`` -> ``{3, 13}``); ``{}`` for a number.

    >>> sorted(answer_parts("\\left( -2, \\frac{1}{2} \\right)")), answer_parts("12")
    ([Fraction(-2, 1), Fraction(1, 2)], frozenset())
    >>> sorted(answer_parts("\\begin{pmatrix} -18 \\\\ 96 \\end{pmatrix}")), sorted(answer_parts("3\\sqrt{13}"))
    ([Fraction(-18, 1), Fraction(96, 1)], [Fraction(3, 1), Fraction(13, 1)])
    """
    parts = _components(answer)
    if len(parts) >= 2:
        return frozenset(x for x in map(number_of, parts) if x is not None)
    if answer_number(answer) is not None:
        return frozenset()
    return frozenset(numbers_in(answer)) - {Fraction(1), Fraction(2), Fraction(0)}


def answer_part_keys(answer: str) -> frozenset:
    r"""Canonical keys of the components of a tuple or vector answer that are no plain number
    (``\frac{\pi}{2}`` of the polar point ``(3, \frac{\pi}{2})``): a name set to one of them is a
    piece of the answer, as a name set to a numeric component is (:func:`answer_parts`).

    >>> len(answer_part_keys("\\left( 3, \\frac{\\pi}{2} \\right)")), answer_part_keys("\\frac{\\pi}{2}")
    (1, frozenset())
    """
    parts = _components(answer)
    if len(parts) < 2:
        return frozenset()
    return frozenset(canonical_key(part) for part in parts if part and number_of(part) is None)


_UNITS = re.compile(r"\\(?:mbox|text|textnormal|mathrm)\s*\{[^{}]*\}(?:\s*\^\s*\{?\d\}?)?|\^\s*\{?\\circ\}?|\\?%|\\,")


def answer_number(answer: str) -> Fraction | None:
    r"""The number an answer states, units aside (``864 \mbox{ inches}^2``, ``30^\circ``, ``25\%``).

    >>> answer_number("864 \\mbox{ inches}^2"), answer_number("x \\in [-2,7]")
    (Fraction(864, 1), None)
    """
    number = number_of(answer)
    return number if number is not None else number_of(_UNITS.sub("", answer).strip())


@dataclass(frozen=True)
class Facts:
    """What a problem says, for the drop rules."""

    asked: Asked
    answer_parts: frozenset  # numbers of a composite answer
    part_letters: frozenset  # letters the question combines into the answer (m, n of m + n)
    given_numbers: frozenset  # numbers the statement writes (signed) or says in words
    given_digits: frozenset  # every digit string of the statement (6_8, \\frac{57}{160}, B6), unsigned
    problem_symbols: frozenset  # variable names of the statement
    definitions: tuple  # (function name, variable, body keys) of "f(x) = ..." in the statement
    trivial: frozenset
    statement: str = ""
    answer_part_keys: frozenset = frozenset()  # canonical keys of a composite answer's non-numeric parts
    answer_reused: bool = False  # two voices compute the answer from a quantity of its own value (:func:`answer_reused`)


def _definitions(problem_text: str) -> tuple:
    """``f(x) = body`` definitions of the statement: ``(f, x, body tokens without brackets)``."""
    out = []
    for span in re.findall(r"\$([^$]+)\$|\\\[(.+?)\\\]", problem_text, re.S):
        text = span[0] or span[1]
        for piece in re.split(r",|;|\\quad|\\text\{[^}]*\}", text):
            if piece.count("=") != 1:
                continue
            left, right = piece.split("=")
            keys, kinds = tokenize_form(left)
            if len(keys) == 3 and kinds[0] == ID and keys[1] == "*" and kinds[2] == ID:
                body = tuple(k for k in tokenize_form(right)[0] if k not in ("(", ")"))
                out.append((keys[0], keys[2], body))
    return tuple(out)


_OVER = re.compile(r"\{([^{}]*)\\over\b([^{}]*)\}")


def readable_statement(text: str) -> str:
    r"""The statement with TeX's ``{a \over b}`` written ``\frac{a}{b}``, as solutions write it
    (the matcher reads ``\frac``), so that a given copied into a solution is recognised as one.

    >>> readable_statement("\\log_2\\left({x \\over yz}\\right) = {1 \\over 2}")
    '\\log_2\\left(\\frac{x }{ yz}\\right) = \\frac{1 }{ 2}'
    """
    for _ in range(4):
        new = _OVER.sub(r"\\frac{\1}{\2}", text)
        if new == text:
            break
        text = new
    return text


def stated_numbers(statement: str) -> frozenset:
    """Every number a (readable) statement writes, in digits or in words, signed as written."""
    return frozenset(number_words(statement) | numbers_in(statement))


def facts_of(problem: Problem, config: RefineConfig) -> Facts:
    statement = readable_statement(problem.problem)
    symbols = frozenset(k for k, kind in zip(*tokenize_form(statement)) if kind == ID)
    return Facts(asked(statement, problem.answer), answer_parts(problem.answer), part_letters(statement),
                 stated_numbers(statement),
                 frozenset(Fraction(d.replace(",", "")) for d in _DIGITS.findall(statement)),
                 symbols, _definitions(statement), frozenset(Fraction(v) for v in config.trivial_values), statement,
                 answer_part_keys(problem.answer))


def _sides(text: str) -> list[str]:
    return [s.strip() for s in text.split("=")] if text.count("=") == 1 else []


def _is_bare_name(side: str) -> bool:
    """One identifier-like token (``x``, ``QR``, ``a_1``, ``\\theta``): no operator, no number. A
    numeral in another base (``1556_7``, which the matcher reads as one token) is a number.

    >>> _is_bare_name("a_1"), _is_bare_name("1556_7"), _is_bare_name("QR")
    (True, False, True)
    """
    key = canonical_key(side)
    return (bool(key) and "#" not in key and len(key.split()) == 1 and not key[0].isdigit()) or _is_segment(key)


def _is_segment(key: str) -> bool:
    parts = key.split()
    return len(parts) == 3 and parts[1] == "*" and all(p.isalpha() and p.isupper() and len(p) == 1 for p in parts[::2])


def _is_name(side: str) -> bool:
    key = canonical_key(side)
    return bool(key) and "#" not in key and not key[0].isdigit()


def _exact(side: str):
    """The exact value of a variable-free side (square roots included), else None."""
    return surd_value(*tokenize_form(side))


def _is_fragment(expression: str) -> bool:
    """A name or a coefficient times a name (``DE``, ``3t``, ``r^2``): a piece of notation, no result."""
    keys, kinds = tokenize_form(expression)
    return len(keys) <= 3 and ID in kinds


def _simple_comparison(text: str) -> bool:
    r"""A comparison of a bare name with a bare name or a number: ``x < y``, ``N \ge 25``, ``0 < b``.

    >>> _simple_comparison("x < y"), _simple_comparison("N \\ge 25"), _simple_comparison("a^2 - 2a - 3 \\ge 0")
    (True, True, False)
    """
    sides, rels = split_relation(text)
    if len(rels) != 1 or len(sides) != 2:
        return False
    def simple(side) -> bool:
        keys, kinds = side
        keys = [k for k in keys if k != "neg"]
        return len(keys) == 1 or _is_segment(" ".join(keys))
    return all(simple(side) for side in sides)


def _contexts(cluster) -> list[str]:
    return list(cluster.contexts) if cluster is not None else []


def _substitutes_definition(left: str, right: str, facts: Facts) -> bool:
    """``f(3) = 2 \\cdot 3^2 - 1`` where the statement defines ``f(x) = 2x^2 - 1``."""
    keys, kinds = tokenize_form(left)
    if len(keys) != 3 or kinds[0] != ID or keys[1] != "*" or kinds[2] != NUM:
        return False
    written = tuple(k for k in tokenize_form(right)[0] if k not in ("(", ")"))
    for name, variable, body in facts.definitions:
        if name == keys[0] and tuple(keys[2] if k == variable else k for k in body) == written:
            return True
    return False


def _assignment_reason(name: str, other: str, facts: Facts, contexts: list[str]) -> str | None:
    """Why ``name = other`` (``name`` a bare name) is no result, or None."""
    value = number_of(other)
    key = canonical_key(name)
    if key in facts.part_letters or (value is not None and value in facts.answer_parts):
        return "answer_piece"
    if value is None and canonical_key(other) in facts.answer_part_keys:
        return "answer_piece"  # theta = pi/2 of the answer (3, pi/2)
    fresh = not (set(key.split()) & facts.problem_symbols)
    if _is_bare_name(other) or (value is not None and value in facts.trivial and fresh):
        return "fragment"  # a renaming (A = j) or a trivial assignment (k = 2); a = 1 of the problem's a is a result
    if value is not None and value in facts.given_numbers and value not in facts.trivial:
        return "restates_problem"  # a given restated (QR = 200)
    if value is not None and fresh and contexts and all(_CASE_CONTEXT.search(c or "") for c in contexts):
        return "fragment"  # a case label or a trial value (Case k = 6, try n = 3)
    if value is None and contexts and all(_DEFINITION_CONTEXT.search(c or "") for c in contexts):
        new = {k for k, kind in zip(*tokenize_form(other)) if kind == ID} - facts.problem_symbols
        if new:
            return "definition"  # a fresh parameter (let y = 4t)
    if value is None and covered_in(facts, other):
        return "restates_problem"  # a given expression renamed (y = 2/(x+1))
    return None


def covered_in(facts: Facts, expression: str) -> bool:
    """The statement writes ``expression`` (as an operand, by the matcher's rules)."""
    return bool(facts.statement) and "e" in covered(facts.statement, [{"id": "e", "text": expression, "kind": "expression"}])


def drop_reason(node: Node, cluster, facts: Facts, pieces: set) -> str | None:
    """Why a candidate is not a checkable intermediate result (a key of DROP_REASONS), or None."""
    if "\\boxed" in node.text or "\\fbox" in node.text:
        return "final_answer"  # what a solution boxes is its answer
    bad = malformed(node.text)
    if bad:
        return "fragment"
    q = facts.asked
    if node.kind == "value":
        number = number_of(node.value)
        if is_answer_form(node.value or node.text, q) or is_answer_form(node.text, q):
            return "final_answer"
        if number is None:
            return None
        if number in facts.answer_parts or number in pieces:
            return "answer_piece"
        if number in facts.trivial:
            return "trivial"
        if (number in facts.given_numbers or abs(number) in facts.given_digits
                or number * 100 in facts.given_numbers or number / 100 in facts.given_numbers):
            return "restates_problem"  # also a base-8 digit, a fraction's part, 1.35 for 135%
        return None
    if node.kind == "proposition" and _simple_comparison(node.text):
        return "fragment"  # a case condition or a bound (x < y, N < 25, b \ne 0)
    if node.kind == "expression":
        if is_answer_form(node.text, q):
            return "final_answer"
        if _is_fragment(node.text):
            return "fragment"
    sides = _sides(node.text) if node.kind == "equation" else []
    if sides and (any(is_answer_form(side, q) for side in sides) or solves_to_answer(sides, q)):
        if not (facts.answer_reused and computes_from_others(sides, q)):
            return "final_answer"
    if len(sides) == 2 and any(number_of(side) in pieces for side in sides if number_of(side) is not None):
        return "answer_piece"  # 2^8 = 256, the n of m/n
    if len(sides) == 2:
        left, right = sides
        for name, other in ((left, right), (right, left)):
            if _is_bare_name(name):
                reason = _assignment_reason(name, other, facts, _contexts(cluster))
                if reason:
                    return reason
            if _substitutes_definition(name, other, facts):
                return "restates_problem"
        lv, rv = _exact(left), _exact(right)
        if lv is not None and rv is not None:
            if lv != rv:
                return "false_arithmetic"  # read across rows or cases (1 = 5)
            if rational(lv) in facts.trivial and numbers_in(node.text) <= facts.trivial:
                return "trivial"  # trivial numbers only (2/2 = 1, 2 \times 1 = 2); 8 / 4 = 2 is a result
    if _is_definition(node, cluster):
        return "definition"
    if node.kind != "value" and digit_free(node.text, FORMULA_CONSTANTS):
        if (not symbols_of(node.text) & facts.problem_symbols and not _word_problem_equation(node, facts)
                and not _own_condition(node)):
            return "generic"  # a formula in symbols the problem does not have (r = \sqrt{x^2+y^2}, b^2 - 4ac)
    if node.kind != "value" and digit_free(node.text, FORMULA_CONSTANTS):
        if node.kind == "equation" and is_identity(node.text) and not _transforms_given(node, facts):
            return "generic"  # an identity any problem may use (a^2 - b^2 = (a-b)(a+b))
    return None


def _word_problem_equation(node: Node, facts: Facts) -> bool:
    r"""In a problem that writes no symbol of its own (a word problem: its solutions name the
    unknowns), a relation with a number for one side is the problem's own equation, not a
    textbook formula: ``x^2 + x - 2 = 0`` for "the number one less than twice its reciprocal",
    ``2 < n < 4``, ``d = 4``. (``\binom{n}{r} = \frac{n!}{r!(n-r)!}`` has no such side.)"""
    if facts.problem_symbols:
        return False
    sides, relations = split_relation(node.text)
    return bool(relations) and any(keys and all(kind == NUM or key == "neg" for key, kind in zip(keys, kinds))
                                   for keys, kinds in sides)


#: The values a formula's or an identity's whole side may take (``\sin^2\theta + \cos^2\theta = 1``,
#: ``V - E + F = 2``, ``a^2 - b^2 - (a-b)(a+b) = 0``); any other constant side makes a condition.
_FORMULA_SIDE_VALUES = frozenset(Fraction(v) for v in (0, 1, -1, 2))


def _own_condition(node: Node) -> bool:
    r"""An equation in symbols that no textbook formula is, though it writes no specific number: a
    side that is a rational constant other than 0, ±1 or 2 (``x^2 - y^2 = 4``, ``2^{2x} = 2^3``;
    ``\cos\theta = \frac{\sqrt{2}}{2}`` is a table value, not a condition), or, with
    no bare name for a side, a symbol on both sides for which the two sides are decidedly not
    equal everywhere (``\frac{4}{3}\pi r^3 = 4\pi r^2``: the sphere whose volume is its area). A
    formula names what it gives (``V = \pi r^2 h``, ``a_n = a_1 + (n-1)d``) or holds for every
    value (``(a+b)^2 = a^2 + 2ab + b^2``); both stay generic.

    >>> [_own_condition(Node("", t, "equation")) for t in ("x^2 - y^2 = 4", "\\frac{4}{3}\\pi r^3 = 4\\pi r^2")]
    [True, True]
    >>> [_own_condition(Node("", t, "equation")) for t in ("V = \\pi r^2 h", "(n-1) + n + (n+1) = 3n", "c^2 = a^2 + b^2")]
    [False, False, False]
    """
    sides = _sides(node.text) if node.kind == "equation" else []
    if len(sides) != 2:
        return False
    for side in sides:
        value = rational(_exact(side))
        if value is not None and value not in _FORMULA_SIDE_VALUES:
            return True
    if any(_is_bare_name(side) for side in sides):
        return False
    (lk, lt), (rk, rt) = (tokenize_form(side) for side in sides)
    left, right = {k for k, kind in zip(lk, lt) if kind == ID}, {k for k, kind in zip(rk, rt) if kind == ID}
    if not left & right - {"π"}:
        return False
    return exact_equivalent((lk, lt), (rk, rt), "expr", sorted(left | right)) is False


def _transforms_given(node: Node, facts: Facts) -> bool:
    r"""An identity about this problem's own expressions rather than a textbook identity: one of
    its sides is written in the problem (``a(2a+b) - 2a^2 + ab = 2ab`` where the problem asks to
    simplify that expression; a side must be more than a name or a coefficient times one,
    :func:`_is_fragment`), or it is in one symbol only, the problem's variable: a polynomial of
    the problem factored or expanded (``x^4 + 4 = (x^2 + 2x + 2)(x^2 - 2x + 2)`` in factoring
    ``x^8 + 3x^4 - 4``). ``a^2 - b^2 = (a-b)(a+b)`` in symbols the problem does not write stays
    generic."""
    symbols = symbols_of(node.text)
    if len(symbols) == 1 and symbols <= facts.problem_symbols:
        return True
    return any(covered_in(facts, side) for side in _sides(node.text) if not _is_fragment(side))


def _is_definition(node: Node, cluster) -> bool:
    if node.kind != "equation" or cluster is None:
        return False
    if ":=" in node.text or "\\coloneqq" in node.text:
        return True
    sides = _sides(node.text)
    if len(sides) != 2 or not all(_is_name(s) for s in sides):
        return False
    return all(_DEFINITION_CONTEXT.search(ctx or "") for ctx in cluster.contexts)


def _named_numbers(candidates) -> dict[str, set]:
    """``{letter: numbers}`` the candidate equations ``letter = number`` assign."""
    out: dict[str, set] = {}
    for candidate in candidates:
        node = candidate.node
        sides = _sides(node.text) if node.kind == "equation" else []
        for side, other in (sides, sides[::-1]) if sides else ():
            number = number_of(other)
            if number is not None and _is_bare_name(side):
                out.setdefault(canonical_key(side), set()).add(number)
    return out


def answer_form_parts(candidates, q: Asked) -> set:
    """The numbers with which a candidate fills the answer's requested form: the ``115`` and
    ``256`` of ``115/256`` when the question asks for ``m+n = 371`` -- pieces of the answer."""
    if q.request is None:
        return set()
    out = set()
    for candidate in candidates:
        node = candidate.node
        for text in ([node.value] if node.kind == "value" and node.value else _sides(node.text) or [node.text]):
            parts = template_parts(_exact(text), text, q)
            if parts:
                out |= {Fraction(v) for v in parts.values() if v > 1}
    return out


def _computation_numbers(side: str, gold: Fraction) -> list[Fraction | None] | None:
    """The numbers of a variable-free computation ``side`` (an operator, no name) whose exact value
    is ``gold`` (``None`` for a numeral too long to read), else None."""
    keys, kinds = tokenize_form(side)
    if not keys or ID in kinds or OP not in kinds or rational(surd_value(keys, kinds)) != gold:
        return None
    return [key_value(k) for k, kind in zip(keys, kinds) if kind == NUM]


def computes_from_others(sides: list[str], q: Asked) -> bool:
    """``E = v`` with ``v`` the gold number and ``E`` a computation of it from other numbers
    (``6 + 4 + 2 = 12``), not from ``v`` itself (``144 / 12 = 12``)."""
    gold = rational(q.gold_value)
    if gold is None or len(sides) != 2:
        return False
    for side, other in (sides, sides[::-1]):
        numbers = _computation_numbers(side, gold)
        if numbers is not None and number_of(other) == gold and gold not in numbers:
            return True
    return False


def answer_reused(problem: Problem, q: Asked, voices_needed: int = 2) -> bool:
    r"""Whether ``voices_needed`` voices compute the answer from an earlier quantity of the same
    value: a correct solution equates the gold number to one operation of the gold number and
    another number (:func:`_reuses`: ``20 - 10 = 10``, the change from $20
    after crayons that cost $10; ``144 / 12 = 12``: inches of ribbon per bow for 12 gifts). The
    answer's value then also names that earlier quantity, and the computation of it from other
    numbers (``5 \times 2 = 10``, ``6 + 4 + 2 = 12``) is a step that only shares the answer's value,
    not the answer in disguise.

    >>> from node_builder.schema import Trajectory
    >>> p = Problem("t/1", "t", "Crayons cost $2 each. She buys 5 with $20. What change?", "10",
    ...             trajectories=[Trajectory("5 x 2 = 10 dollars, so 20 - 10 = 10.", "a", True, voice="a"),
    ...                           Trajectory("She pays 5*2 = 10 and gets 20-10 = 10 back.", "b", True, voice="b")])
    >>> answer_reused(p, asked(p.problem, p.answer))
    True
    """
    gold = rational(q.gold_value)
    if not gold:  # no number, or 0, which any product with 0 gives again
        return False
    voices = set()
    for trajectory in problem.correct_trajectories():
        if trajectory.voice in voices:
            continue
        for chain in relation_chains(trajectory.text):
            sides = chain.sides
            if any(rel == "=" and _reuses(sides[i].text, sides[i + 1].text, gold)
                   for i, rel in enumerate(chain.rels)):
                voices.add(trajectory.voice)
                break
        if len(voices) >= voices_needed:
            return True
    return False


def _reuses(left: str, right: str, gold: Fraction) -> bool:
    r"""``w - v = v`` or ``w / v = v`` for the gold number ``v``: one operation of ``v`` and
    another number (``84 \cdot 0 + 49 = 49`` only writes ``49`` again)."""
    for side, other in ((left, right), (right, left)):
        numbers = _computation_numbers(side, gold)
        if numbers is not None and len(tokenize_form(side)[0]) == 3 and number_of(other) == gold \
                and gold in numbers and any(n not in (0, 1, gold) for n in numbers):
            return True
    return False


def drop_candidates(problem: Problem, candidates: list, config: RefineConfig, stats: dict) -> list:
    """The candidates no rule drops (each drop counted in ``stats`` under its reason)."""
    facts = facts_of(problem, config)
    if any(computes_from_others(_sides(c.node.text), facts.asked) for c in candidates if c.node.kind == "equation"):
        facts = replace(facts, answer_reused=answer_reused(problem, facts.asked))
    named = _named_numbers(candidates)
    pieces = {x for letter in facts.part_letters for x in named.get(letter, ())}
    pieces |= answer_form_parts(candidates, facts.asked)
    kept = []
    for candidate in candidates:
        reason = drop_reason(candidate.node, candidate.cluster, facts, pieces)
        if reason:
            stats[reason] += 1
        else:
            kept.append(candidate)
    return kept


def is_arithmetic_for(text: str, values: set) -> bool:
    """``16-3-4=9`` or ``x = 9`` with ``9`` in ``values``: a kept value on one side and pure
    arithmetic or a bare name on the other (``2x = 18`` mixes both and is not redundant)."""
    sides = _sides(text)
    if len(sides) != 2:
        return False
    for side, other in (sides, sides[::-1]):
        number = number_of(side)
        if number is not None and number in values:
            other_key = canonical_key(other)
            if ("#" in other_key) != _has_identifier(other):  # pure arithmetic or a bare name
                return True
    return False


def solves_to_answer(sides: list[str], q: Asked) -> bool:
    """The last step before the answer: ``3d = 219``, ``x^2 = 81``, ``\\frac{n}{4} = 5`` -- one side a
    number, the other one variable with a coefficient or a power (at most five tokens), and the
    gold answer makes both sides equal.

    >>> solves_to_answer(["3d", "219"], asked("... Find $d$.", "73")), solves_to_answer(["2x + 30", "110"], asked("?", "40"))
    (True, False)
    """
    gold = q.gold_value
    if len(sides) != 2 or gold is None or len(gold) != 1 or gold[0][0] != 1:
        return False
    for side, other in (sides, sides[::-1]):
        value = _exact(other)
        keys, kinds = tokenize_form(side)
        names = {k for k, kind in zip(keys, kinds) if kind == ID}
        if value is None or len(names) != 1 or len(keys) > 5 or sum(kind == ID for kind in kinds) != 1:
            continue
        if any(k in ("+", "-") for k in keys):
            continue
        number = gold[0][1]
        filled = tuple(f"#{abs(number)}" if kind == ID else k for k, kind in zip(keys, kinds))
        filled_kinds = tuple(NUM if kind == ID else kind for kind in kinds)
        if number < 0 or number.denominator != 1:
            continue
        if surd_value(filled, filled_kinds) == value:
            return True
    return False


def is_side_of_relation(text: str, value) -> bool:
    """``value`` is one side of the equation ``text`` and the other side is an expression with a
    variable, not a bare name: ``x - 4 = -12`` for ``-12``, not ``x = -12`` or ``16 - 4 = 12``.

    >>> from fractions import Fraction
    >>> is_side_of_relation("x - 4 = -12", Fraction(-12)), is_side_of_relation("x = -12", Fraction(-12))
    (True, False)
    """
    sides = _sides(text)
    if len(sides) != 2:
        return False
    for side, other in (sides, sides[::-1]):
        if number_of(side) == value and _has_identifier(other) and not _is_bare_name(other):
            return True
    return False


def _has_identifier(side: str) -> bool:
    return any(tok and (tok[0].isalpha() or tok[0] in "\\αβγδεθλμπσφωΓΔΘΛΠΣΦΩ")
               for tok in canonical_key(side).split())
