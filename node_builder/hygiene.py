r"""The audit's rubric as rules on a node's text: is it a well-formed, whole, specific result?

Each predicate reads one candidate (with the problem where needed) and answers one question of
the rubric ``benchmarks/node_audit.py`` uses (GOOD, ROUTE, RESTATE, DEFINITION, ANSWER, FRAGMENT,
WRONG); :func:`node_builder.refine.drop_reason` and :mod:`node_builder.consensus` apply them.

* :func:`malformed` -- FRAGMENT: a dangling operator at either end (``7 \times``), unbalanced
  brackets, a congruence without its modulus (``144 \equiv 0``), an empty side, a sentence
  (:func:`is_sentence`: words and no relation, which no matcher can check).
* :func:`is_part_of` -- FRAGMENT: an expression that is an operand of another kept node.
* :func:`symbols_of` -- the symbols a text names (for ROUTE: a symbol in neither the problem nor
  two voices' solutions belongs to one route).
* :func:`is_identity` with :func:`digit_free` -- DEFINITION: an identity with no specific number
  (``a^2 - b^2 = (a-b)(a+b)``).
* :func:`digit_free` -- DEFINITION when also found across other problems (:mod:`node_builder.finalize`):
  an identity or definition without a specific number (``\sin^2\theta + \cos^2\theta = 1``).
* :func:`weakness` -- a consensus node that is a weak key result: a bare value fewer than
  :data:`VALUE_SHARE` of the voices state, an expression in variables without what it equals, the
  problem's setup written in symbols (RESTATE); :mod:`node_builder.finalize` drops such nodes
  where the record keeps another one.

Example:
    >>> malformed("7 \\times"), malformed("144 \\equiv 0"), malformed("x^2 - 1 = (x-1)(x+1)")
    ('dangling operator', 'congruence without modulus', None)
    >>> sorted(symbols_of("Let $6K = 42$, so $K = 7$ and x_1 = \\theta"))
    ['K', 'x_1', 'θ']
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from node_builder.matcher import ID, NUM, OP, REL, covered, exact_equivalent, numbers_in, tokenize_form, values_at_points
from node_builder.miner import balanced
from node_builder.schema import Node

_LEADING_OP = re.compile(r"^\s*(?:[+*/^=<>,]|\\(?:times|cdot|div|pm|mp|le|ge|leq|geq|ne|equiv|approx|cdots?|ldots)\b)")
_TRAILING_OP = re.compile(r"(?:[-+*/^=<>,_(\[{]|\\(?:times|cdot|div|pm|mp|le|ge|leq|geq|ne|neq|equiv|approx|d?t?frac|sqrt"
                          r"|angle|measuredangle|triangle|binom|log|ln|sin|cos|tan|sec|csc|cot|lfloor|lceil|left|overline"
                          r"|text|mathrm|sum|prod|int|lim|in|subset|cup|cap|to|implies|Rightarrow)|\\[cl]?dots)\s*$")
_CONGRUENCE = re.compile(r"\\equiv|≡")
_MODULUS = re.compile(r"\\p?mod\b|\\bmod\b|\bmod\b|\(\s*mod", re.I)


#: A matrix (``pmatrix``, ``bmatrix``, ``vmatrix``...): its ``&`` and ``\\`` separate entries, not
#: the rows of an alignment (the matcher reads it as a tuple, :mod:`consensus_metrics.latex_commands`).
_MATRIX = re.compile(r"\\begin\{([pbBvV]?matrix|smallmatrix)\*?\}.*?\\end\{\1\*?\}", re.S)


def _bars(text: str) -> int:
    r"""Absolute-value bars (``|``, ``\lvert``/``\rvert``; not ``\|`` or ``\mid``)."""
    return len(re.findall(r"(?<!\\)\|", text)) + len(re.findall(r"\\[lr]vert\b", text))


def malformed(text: str) -> str | None:
    """Why ``text`` is not a well-formed statement or term (a FRAGMENT), else ``None``.

    >>> malformed("\\\\frac{1}{2} \\\\times"), malformed("a_1, a_2,"), malformed("(3, 4")
    ('dangling operator', 'dangling operator', 'unbalanced brackets')
    >>> malformed("-5 + 18 = 13"), malformed("n \\\\equiv 3 \\\\pmod{7}"), malformed("|M| + |S| - |M")
    (None, None, 'unbalanced brackets')
    >>> malformed("\\\\mathbf{i} & \\\\mathbf{j} & \\\\mathbf{k}"), malformed("|x - 3| = 5")
    ('a row of an aligned block', None)
    >>> malformed("\\\\mathbf{M} = \\\\begin{pmatrix} 4 & -1 \\\\\\\\ 2 & 1 \\\\end{pmatrix}") is None  # entries
    True
    """
    stripped = text.strip()
    if not stripped:
        return "empty"
    if _LEADING_OP.search(stripped) or _TRAILING_OP.search(stripped):
        return "dangling operator"
    if not balanced(stripped) or _bars(stripped) % 2:
        return "unbalanced brackets"
    if re.search(r"(?<!\\)&|\\\\", _MATRIX.sub(" M ", stripped)):
        return "a row of an aligned block"
    if _CONGRUENCE.search(stripped) and not _MODULUS.search(stripped):
        return "congruence without modulus"
    if any(not side.strip() for side in re.split(r"(?<![<>!:\\])=(?!=)", stripped)):
        return "empty side"
    if is_sentence(stripped):
        return "a sentence"
    return None


#: A relation that makes a text a checkable statement however many words it carries
#: (``3 hours * 10 = 30``, ``N \bmod 25 \in \{...\}``).
_RELATION = re.compile(r"[=<>≤≥≡≠∈]|\\(?:le|ge|leq|geq|lt|gt|ne|neq|equiv|approx|in|mid|sim|cong|parallel|perp)\b")
#: LaTeX commands and what ``\text``-like commands wrap: names, not words of a sentence.
_LATEX_WORDS = re.compile(r"\\(?:text|mathrm|textbf|mbox|operatorname)\s*\{[^{}]*\}|\\[A-Za-z]+")


def is_sentence(text: str, words: int = 3) -> bool:
    r"""``text`` is prose, not a checkable statement: no relation (``=``, ``<``, ``\equiv``,
    ``\in``, ``\mid``...) and at least ``words`` words of three or more letters outside LaTeX commands
    and ``\text{...}``. A matcher finds a sentence only written word for word, so a written-in
    key result such as "the number must end in 00" would credit almost no solution that states it.

    >>> is_sentence("the number must end in 00"), is_sentence("4 choices for hair (3 styles, or bald)")
    (True, True)
    >>> is_sentence("3 hours * 10 = 30"), is_sentence("m_{\\text{softball}} \\cdot a_{\\text{softball}}")
    (False, False)
    >>> is_sentence("2 \\times 12 \\text{ apples per box}"), is_sentence("x + y")
    (False, False)
    """
    if _RELATION.search(text):
        return False
    return len(re.findall(r"[A-Za-z]{3,}", _LATEX_WORDS.sub(" ", text))) >= words


@lru_cache(maxsize=100_000)
def symbols_of(text: str) -> frozenset:
    """The variable names ``text`` uses (canonical identifier tokens: ``x_1``, ``θ``, ``K``)."""
    keys, kinds = tokenize_form(text)
    return frozenset(key for key, kind in zip(keys, kinds) if kind == ID)


def is_part_of(node: Node, other: Node) -> bool:
    """``node`` is an expression that occurs as an operand of ``other`` (``\\frac{16+24a}{20}`` of
    ``\\frac{16+24a}{20} - \\frac{5+15a}{20}``): it is a piece of that node, not a result of its own.
    Values are left to the one-node-per-step rule (:mod:`node_builder.finalize`).

    >>> part = Node("", "\\\\frac{16+24a}{20}", "expression", ("\\\\frac{16+24a}{20}",))
    >>> whole = Node("", "\\\\frac{16+24a}{20}-\\\\frac{5+15a}{20}", "expression", ("\\\\frac{16+24a}{20}-\\\\frac{5+15a}{20}",))
    >>> is_part_of(part, whole), is_part_of(whole, part)
    (True, False)
    """
    if node.kind != "expression" or other.kind == "value" or node.text == other.text:
        return False
    probe = {"id": "p", "text": node.text, "kind": node.kind, "forms": list(node.forms or (node.text,))}
    return any("p" in covered(form, [probe]) for form in (other.forms or (other.text,))[:2])


#: The numbers an identity or a definition may hold and stay "digit-free".
SMALL_CONSTANTS = ("#0", "#1", "#2", "#1/2")


def _assignment(keys, kinds) -> bool:
    """``name = number`` or ``number = name`` (a sign allowed on the number)."""
    if list(kinds).count(REL) != 1 or "=" not in keys:
        return False
    at = list(keys).index("=")
    sides = [(keys[:at], kinds[:at]), (keys[at + 1:], kinds[at + 1:])]
    shapes = []
    for side_keys, side_kinds in sides:
        if len(side_keys) == 1 and side_kinds[0] == ID:
            shapes.append("name")
        elif side_kinds and side_kinds[-1] == NUM and (len(side_keys) == 1 or (len(side_keys) == 2 and side_keys[0] in ("-", "neg"))):
            shapes.append("number")
        else:
            shapes.append("other")
    return sorted(shapes) == ["name", "number"]


def digit_free(text: str, allowed: tuple = SMALL_CONSTANTS) -> bool:
    r"""An identity or definition shape: symbols and an operator or relation, and no number but
    ``0``, ``1``, ``2`` or ``1/2`` (``\sin^2\theta + \cos^2\theta = 1``, ``r = \sqrt{x^2+y^2}``,
    ``A = \frac{1}{2}bh``). Whether it is *generic* -- true in any problem -- is decided across the
    build (:mod:`node_builder.finalize`: found in other problems' solutions too).

    A bare assignment of a number to a name (``a = 1``, ``d = 1``) states a value, not a shape.

    >>> digit_free("\\sin^2\\theta + \\cos^2\\theta = 1"), digit_free("a + b = 8"), digit_free("x")
    (True, False, False)
    >>> digit_free("a = 1"), digit_free("-2 = b"), digit_free("a = b = c")
    (False, False, True)
    """
    keys, kinds = tokenize_form(text)
    if not any(kind == ID for kind in kinds) or not any(kind in (REL, OP) for kind in kinds):
        return False
    if _assignment(keys, kinds):
        return False
    return all(kind != NUM or key in allowed for key, kind in zip(keys, kinds))


def is_identity(text: str) -> bool:
    r"""An equation whose sides are equal whatever its symbols are (exactly, at random rational
    points): ``a^2 - b^2 = (a-b)(a+b)``. Only rational expressions are decided; anything else
    (roots, functions) is not called an identity.

    >>> is_identity("a^2 - b^2 = (a-b)(a+b)"), is_identity("x^2 - 5x + 6 = 0"), is_identity("x + 1 = 1 + x")
    (True, False, True)
    """
    if text.count("=") != 1:
        return False
    left, right = (tokenize_form(side) for side in text.split("="))
    names = sorted({k for k, kind in zip(*left) if kind == ID} | {k for k, kind in zip(*right) if kind == ID})
    return bool(names) and exact_equivalent(left, right, "expr", names) is True


def same_equation(a: str, b: str) -> bool:
    r"""Two equations that are one equation rearranged or multiplied through by a constant or by
    one of their variables (``27 = a^2 + \frac{46}{a}``, ``27a = a^3 + 46``, ``a^3 - 27a + 46 = 0``):
    their differences ``L - R`` are proportional, exactly at random rational points.

    >>> same_equation("27 = a^2 + \\frac{46}{a}", "a^3 - 27a + 46 = 0"), same_equation("x + 1 = 3", "x = 5")
    (True, False)
    """
    if a.count("=") != 1 or b.count("=") != 1 or a == b:
        return False
    sides = [tuple(tokenize_form(side) for side in text.split("=")) for text in (a, b)]
    names = {k for pair in sides for keys, kinds in pair for k, kind in zip(keys, kinds) if kind == ID}
    if not names:
        return False
    order = sorted(names)
    diffs = []
    for left, right in sides:
        lv, rv = values_at_points(left, order), values_at_points(right, order)
        if lv is None or rv is None:
            return False
        diffs.append([x - y for x, y in zip(lv, rv)])
    if any(d == 0 for d in diffs[1]) or all(d == 0 for d in diffs[0]):
        return False
    ratios = [x / y for x, y in zip(*diffs)]
    if len(set(ratios)) == 1:
        return True
    for name in order:  # a factor of one variable, or its inverse
        at = values_at_points(((name,), (ID,)), order)
        if at and (len({r / v for r, v in zip(ratios, at)}) == 1 or len({r * v for r, v in zip(ratios, at)}) == 1):
            return True
    return False


def skeleton(text: str) -> tuple:
    """A node's shape: its canonical tokens with every number alike (``2^3 = 8`` and ``2^4 = 16``
    share one: members of an enumeration)."""
    keys, kinds = tokenize_form(text)
    return tuple("#" if kind == NUM else key for key, kind in zip(keys, kinds))


#: A bare value is a key result only when at least this share of the voices state it. A number is
#: met by coincidence (a coefficient, a case's subtotal, a trial value of one route), so half the
#: voices writing ``36`` or ``989`` is weak evidence: a value needs two voices in three. A relation
#: (``BD = 4``) names what it is about and needs only the consensus rule's share.
VALUE_SHARE = 2 / 3
#: An equation or inequality stated within the first this share of the solutions (the median
#: voice's relative position) whose numbers are all the problem's own is its setup in symbols.
SETUP_BEFORE = 0.3
_SMALL = frozenset({Fraction(0), Fraction(1), Fraction(2)})


def weakness(node: dict, given_numbers: frozenset) -> str | None:
    r"""Why a consensus node (a record's node: ``kind``, ``text``, ``support``, ``position``) is a
    weak key result, else ``None``. ``given_numbers``: the magnitudes of the numbers the problem
    states.

    * ``weak_value`` (ROUTE/FRAGMENT) -- a bare value with ``support <`` :data:`VALUE_SHARE`;
    * ``bare_expression`` (FRAGMENT) -- an expression in variables without what it equals
      (``\frac{5}{2y}``, ``x^2 - 4x + 4``); a tuple (a point) is left alone;
    * ``setup`` (RESTATE) -- an equation or inequality in variables stated before
      :data:`SETUP_BEFORE` of the way whose numbers (but 0, 1, 2) are all the problem's
      (``x(x + 2) = 288`` for "two consecutive even numbers whose product is 288").

    >>> weakness({"kind": "value", "text": "989", "support": 0.57, "position": 0.5}, frozenset())
    'weak_value'
    >>> weakness({"kind": "expression", "text": "\\frac{5}{2y}", "support": 1.0, "position": 0.5}, frozenset())
    'bare_expression'
    >>> given = frozenset({Fraction(288)})
    >>> weakness({"kind": "equation", "text": "x(x + 2) = 288", "support": 0.7, "position": 0.2}, given)
    'setup'
    >>> weakness({"kind": "equation", "text": "x = 16", "support": 0.7, "position": 0.2}, given) is None
    True
    """
    kind, text = node["kind"], node["text"]
    if kind == "value":
        return "weak_value" if node["support"] < VALUE_SHARE - 1e-9 else None
    if not symbols_of(text):
        return None
    if kind == "expression":
        return "bare_expression" if "," not in text else None
    if kind in ("equation", "proposition") and node["position"] < SETUP_BEFORE:
        numbers = {abs(x) for x in numbers_in(text)} - _SMALL
        if numbers <= given_numbers:
            return "setup"
    return None
