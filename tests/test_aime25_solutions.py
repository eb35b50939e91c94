"""Machine checks for the maintainer-written AIME 2025 solutions.

The source file ``node_builder/sources/aime25_solutions.md`` holds one section per problem::

    ## 2025-I-1
    Answer: 70

    ### Solution 1
    ... $b + 7 \\mid 56$ ... $\\boxed{70}$

(or ``Status: no verified solution — <reason>`` and no solution headings).

For every problem a test recomputes the key intermediate values independently (enumeration,
exact fractions, sympy on our own expressions — never on text read from the file) and then
checks that the solution states exactly those values (``assert_stated``), so a wrong step in
the text fails a test. Format tests check the 30 sections, the stated answers against the
official answer key and the last ``\\boxed{}`` of every solution.

Example::

    .venv/bin/pytest tests/test_aime25_solutions.py -q
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

SOLUTIONS_MD = Path(__file__).resolve().parents[1] / "node_builder" / "sources" / "aime25_solutions.md"

# Official answers, copied from RAW/aime25/matharena/aime_2025_{I,II}/answers.csv (node_builder/README.md)
# (eth-sri/matharena @ 81f103e38b1df076afa65ee0a3ffbe148d42e6d2); the second copy,
# aime_preview/test2025-{I,II}.jsonl (GAIR-NLP/AIME-Preview), agrees. Kept as a literal table
# because the tests must not need the raw folder at run time.
OFFICIAL_ANSWERS = {
    "2025-I-1": 70, "2025-I-2": 588, "2025-I-3": 16, "2025-I-4": 117, "2025-I-5": 279,
    "2025-I-6": 504, "2025-I-7": 821, "2025-I-8": 77, "2025-I-9": 62, "2025-I-10": 81,
    "2025-I-11": 259, "2025-I-12": 510, "2025-I-13": 204, "2025-I-14": 60, "2025-I-15": 735,
    "2025-II-1": 468, "2025-II-2": 49, "2025-II-3": 82, "2025-II-4": 106, "2025-II-5": 336,
    "2025-II-6": 293, "2025-II-7": 237, "2025-II-8": 610, "2025-II-9": 149, "2025-II-10": 907,
    "2025-II-11": 113, "2025-II-12": 19, "2025-II-13": 248, "2025-II-14": 104, "2025-II-15": 240,
}
PROBLEM_IDS = [f"2025-{part}-{n}" for part in ("I", "II") for n in range(1, 16)]

PROBLEM_HEADING = re.compile(r"^## (\S+)\s*$", re.MULTILINE)
SOLUTION_HEADING = re.compile(r"^### Solution (\d+)\s*$", re.MULTILINE)
ANSWER_LINE = re.compile(r"^Answer: (\S+)\s*$", re.MULTILINE)
STATUS_LINE = re.compile(r"^Status: (.+)$", re.MULTILINE)
BOXED = re.compile(r"\\boxed\{([^{}]*)\}")


def parse_solutions(text: str) -> dict[str, dict]:
    """Split the solutions file into ``{problem_id: section}``.

    Each section is ``{"answer": str | None, "status": str | None, "solutions": [str, ...],
    "body": str}``; ``solutions`` holds the text under each ``### Solution k`` heading in order,
    ``body`` the whole section. Raises ``ValueError`` (naming the line) on a repeated problem id
    or solutions numbered out of order.

    >>> parse_solutions("# t\\n## P-1\\nAnswer: 3\\n### Solution 1\\nso $\\\\boxed{3}$\\n")["P-1"]["answer"]
    '3'
    """
    sections: dict[str, dict] = {}
    headings = list(PROBLEM_HEADING.finditer(text))
    for index, heading in enumerate(headings):
        problem_id = heading.group(1)
        line_no = text.count("\n", 0, heading.start()) + 1
        if problem_id in sections:
            raise ValueError(f"line {line_no}: problem {problem_id} appears twice")
        end = headings[index + 1].start() if index + 1 < len(headings) else len(text)
        body = text[heading.end():end]
        answer = ANSWER_LINE.search(body)
        status = STATUS_LINE.search(body)
        solution_heads = list(SOLUTION_HEADING.finditer(body))
        numbers = [int(m.group(1)) for m in solution_heads]
        if numbers != list(range(1, len(numbers) + 1)):
            raise ValueError(f"line {line_no}: {problem_id} has solutions numbered {numbers}")
        solutions = [
            body[m.end():(solution_heads[i + 1].start() if i + 1 < len(solution_heads) else len(body))]
            for i, m in enumerate(solution_heads)
        ]
        sections[problem_id] = {
            "answer": answer.group(1) if answer else None,
            "status": status.group(1).strip() if status else None,
            "solutions": solutions,
            "body": body,
        }
    return sections


@functools.lru_cache(maxsize=1)
def sections() -> dict[str, dict]:
    return parse_solutions(SOLUTIONS_MD.read_text(encoding="utf-8"))


def assert_stated(problem_id: str, solution_number: int, *snippets: str) -> None:
    """Fail unless every snippet (a computed value written as LaTeX) occurs in that solution.

    Checking each solution separately means a wrong value in one solution is not masked by the
    right value written in another.
    """
    solution = sections()[problem_id]["solutions"][solution_number - 1]
    missing = [snippet for snippet in snippets if snippet not in solution]
    assert not missing, f"{problem_id} solution {solution_number} does not state {missing}"


# ----------------------------------------------------------------------------- format checks


def test_file_has_exactly_the_30_problems_in_order():
    text = SOLUTIONS_MD.read_text(encoding="utf-8")
    assert text.startswith("# AIME 2025 worked solutions (maintainer-written)\n")
    assert [m.group(1) for m in PROBLEM_HEADING.finditer(text)] == PROBLEM_IDS


@pytest.mark.parametrize("problem_id", PROBLEM_IDS)
def test_section_answer_and_boxes(problem_id):
    section = sections()[problem_id]
    assert section["answer"] == str(OFFICIAL_ANSWERS[problem_id])
    if section["status"] is not None:
        assert section["status"].startswith("no verified solution")
        assert section["solutions"] == []
        return
    assert 1 <= len(section["solutions"]) <= 3
    for number, solution in enumerate(section["solutions"], start=1):
        boxed = BOXED.findall(solution)
        assert boxed, f"{problem_id} solution {number} has no \\boxed{{}}"
        assert boxed[-1] == str(OFFICIAL_ANSWERS[problem_id]), f"{problem_id} solution {number}"
        # Math delimiters are balanced (an odd number of $ would garble the miner's spans).
        assert solution.replace("\\$", "").count("$") % 2 == 0, f"{problem_id} solution {number}"


def test_every_problem_has_a_verified_solution():
    """The target is all 30; a section left without solutions must say why (see its Status)."""
    verified = [pid for pid in PROBLEM_IDS if sections()[pid]["solutions"]]
    assert len(verified) == 30


def test_parser_reports_bad_input():
    with pytest.raises(ValueError, match="line 3: problem P-1 appears twice"):
        parse_solutions("# t\n## P-1\n## P-1\n")
    with pytest.raises(ValueError, match="numbered"):
        parse_solutions("# t\n## P-1\nAnswer: 1\n### Solution 2\n$\\boxed{1}$\n")


# ----------------------------------------------------------------------------- arithmetic in the text

ARITHMETIC_TOKEN = re.compile(r"\s*(\\frac|\\cdot|\\sqrt|\\binom|\d+|[-+(){}^!,=])")
ARITHMETIC_SPAN = re.compile(r"^(?:\s|\\frac|\\cdot|\\sqrt|\\binom|\d|[-+(){}^!,=])+$")
INLINE_MATH = re.compile(r"\$([^$]+)\$")


class _ArithmeticParser:
    """Exact value of a purely numeric LaTeX expression (our own file only; nothing is eval'd).

    Grammar: sums of products (``\\cdot`` or juxtaposition) of powers of atoms; atoms are
    integers, ``( )``, ``{ }``, ``\\frac{a}{b}``, ``\\sqrt{a}``, ``\\binom{n}{k}`` and the
    multinomial ``\\binom{n}{a, b, c}``, with postfix ``!``.

    >>> _ArithmeticParser(r"2 \\cdot \\frac{73}{8}").parse()
    73/4
    """

    def __init__(self, text: str):
        self.tokens, position = [], 0
        text = text.strip()
        while position < len(text):
            match = ARITHMETIC_TOKEN.match(text, position)
            if not match:
                raise ValueError(f"cannot read {text[position:]!r}")
            self.tokens.append(match.group(1))
            position = match.end()
        self.index = 0

    def peek(self):
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError(f"expected {expected!r}, found {token!r}")
        self.index += 1
        return token

    def parse(self):
        value = self.expr()
        if self.peek() is not None:
            raise ValueError(f"unexpected {self.peek()!r}")
        return value

    def expr(self):
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def term(self):
        value = self.unary()
        while True:
            if self.peek() == "\\cdot":
                self.take()
                value *= self.unary()
            elif self.peek() is not None and (self.peek().isdigit() or self.peek() in ("(", "{", "\\frac", "\\sqrt", "\\binom")):
                value *= self.unary()
            else:
                return value

    def unary(self):
        if self.peek() == "-":
            self.take()
            return -self.unary()
        return self.power()

    def power(self):
        base = self.postfix()
        if self.peek() == "^":
            self.take()
            if self.peek() == "{":
                exponent = self.group()
            else:
                token = self.take()
                if not token.isdigit():
                    raise ValueError(f"bad exponent {token!r}")
                exponent = sp.Integer(token[0])
                if len(token) > 1:  # x^23 means x^2 * 3 in LaTeX; never written in our file
                    raise ValueError("ambiguous exponent")
            base = base**exponent
        return base

    def postfix(self):
        value = self.atom()
        while self.peek() == "!":
            self.take()
            value = sp.factorial(value)
        return value

    def group(self):
        self.take("{")
        value = self.expr()
        self.take("}")
        return value

    def atom(self):
        token = self.peek()
        if token is not None and token.isdigit():
            return sp.Integer(self.take())
        if token == "(":
            self.take()
            value = self.expr()
            self.take(")")
            return value
        if token == "{":
            return self.group()
        if token == "\\frac":
            self.take()
            numerator = self.group()
            return numerator / self.group()
        if token == "\\sqrt":
            self.take()
            return sp.sqrt(self.group())
        if token == "\\binom":
            self.take()
            top = self.group()
            self.take("{")
            parts = [self.expr()]
            while self.peek() == ",":
                self.take()
                parts.append(self.expr())
            self.take("}")
            if len(parts) == 1:
                return sp.binomial(top, parts[0])
            assert sum(parts) == top, "multinomial parts must add up to the top"
            return sp.factorial(top) / sp.prod([sp.factorial(part) for part in parts])
        raise ValueError(f"unexpected {token!r}")


def arithmetic_equations(text: str) -> list[str]:
    """The inline math spans of ``text`` that are chains of purely numeric equalities."""
    return [span for span in INLINE_MATH.findall(text) if "=" in span and ARITHMETIC_SPAN.match(span)]


def test_arithmetic_parser_examples():
    assert _ArithmeticParser("\\binom{9}{6, 2, 1}").parse() == 252
    assert _ArithmeticParser("(2^2 - 1)(2^4 - 1) \\cdot 2^8").parse() == 11520
    assert _ArithmeticParser("\\frac{-1 + 5\\sqrt{185}}{68}").parse() == (-1 + 5 * sp.sqrt(185)) / 68
    assert _ArithmeticParser("(3!)^6").parse() == 6**6 and _ArithmeticParser("2^{16}").parse() == 65536
    with pytest.raises(ValueError):
        _ArithmeticParser("2 + ").parse()
    assert arithmetic_equations("so $b = 21$ and $21 + 49 = 70$ and $7 > 3$") == ["21 + 49 = 70"]


@pytest.mark.parametrize("problem_id", PROBLEM_IDS)
def test_arithmetic_in_the_text_is_right(problem_id):
    """Every purely numeric equality written in a solution holds exactly (e.g. $2 \\cdot 33 + 1 = 67$)."""
    for number, solution in enumerate(sections()[problem_id]["solutions"], start=1):
        for span in arithmetic_equations(solution):
            sides = [_ArithmeticParser(side).parse() for side in span.split("=")]
            assert all(sp.simplify(side - sides[0]) == 0 for side in sides), f"{problem_id} solution {number}: ${span}$"


def test_arithmetic_check_covers_many_equations():
    checked = sum(len(arithmetic_equations(sol)) for sec in sections().values() for sol in sec["solutions"])
    assert checked >= 60


# ----------------------------------------------------------------------------- AIME 2025 I


def test_2025_I_1_bases():
    b = sp.symbols("b")
    assert sp.expand(9 * (b + 7) - 56 - (9 * b + 7)) == 0
    assert [d for d in sp.divisors(56) if d >= 17] == [28, 56]
    # Brute force well past the bound b + 7 <= 56 from the divisibility argument.
    bases = [base for base in range(10, 5000) if (9 * base + 7) % (base + 7) == 0]
    assert bases == [21, 49]
    assert {base: 9 - Fraction(56, base + 7) for base in bases} == {21: 7, 49: 8}
    assert Fraction(56, 17) < 4 and Fraction(56, 3) - 7 != int(Fraction(56, 3) - 7)
    assert sum(bases) == OFFICIAL_ANSWERS["2025-I-1"]
    assert_stated(
        "2025-I-1", 1, "$17_b = b + 7$", "$97_b = 9b + 7$", "$9b + 7 = 9(b + 7) - 56$",
        "$b + 7 \\mid 56$", "$b + 7 = 28$", "$b + 7 = 56$", "$b = 21$", "$b = 49$", "$21 + 49 = 70$",
    )
    assert_stated(
        "2025-I-1", 2, "$k = 9 - \\frac{56}{b + 7}$", "$\\frac{56}{b + 7} \\in \\{1, 2, 3\\}$",
        "$b = 49$", "$b = 21$", "$b + 7 = \\frac{56}{3}$", "$b + 7 \\mid 56$",
    )


def test_2025_I_2_heptagon():
    AB, AC = 4 + 16 + 8, 13 + 52 + 26
    assert (AB, AC) == (28, 91)
    assert Fraction(4, AB) == Fraction(13, AC) == Fraction(1, 7)
    assert Fraction(20, AB) == Fraction(65, AC) == Fraction(5, 7)
    ratio_DEGF = Fraction(5, 7) ** 2 - Fraction(1, 7) ** 2
    assert ratio_DEGF == Fraction(24, 49)
    ABC = 288 / ratio_DEGF
    assert ABC == 588 and ABC / 49 == 12 and ABC * (1 - Fraction(25, 49)) == 288

    c, s = sp.symbols("c s")  # cos(theta), sin(theta)
    P = lambda x, y: sp.Matrix([x, y])  # noqa: E731
    A, B, C = P(0, 0), P(28, 0), P(91 * c, 91 * s)
    D, E, F, G = P(4, 0), P(20, 0), P(13 * c, 13 * s), P(65 * c, 65 * s)
    M, N = 2 * F - D, 2 * E - G
    assert list(M) == [26 * c - 4, 26 * s] and list(N) == [40 - 65 * c, -65 * s]
    cross = lambda p, q: sp.expand(p[0] * q[1] - q[0] * p[1])  # noqa: E731

    def signed_area(*pts):
        return sp.expand(sum(cross(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))) / 2)

    heptagon = [A, F, N, B, C, E, M]
    terms = [cross(heptagon[i], heptagon[(i + 1) % 7]) for i in range(7)]
    assert terms == [0, -520 * s, 1820 * s, 2548 * s, -1820 * s, 520 * s, 0]
    assert signed_area(*heptagon) == 1274 * s == signed_area(A, B, C)
    assert signed_area(D, E, G, F) == 624 * s
    sin_theta = sp.Rational(288, 624)
    assert sin_theta == sp.Rational(6, 13)
    cos_theta = sp.sqrt(1 - sin_theta**2)
    values = {s: sin_theta, c: cos_theta}
    # Solution 1's decomposition: AFM, the trapezoids NEMF and NBCE (the figure's shading).
    pieces = [signed_area(A, F, M), signed_area(N, E, M, F), signed_area(N, B, C, E)]
    assert [sp.simplify(abs(p.subs(values))) for p in pieces] == [12, 288, 288]
    assert sp.simplify(signed_area(*heptagon).subs(values)) == OFFICIAL_ANSWERS["2025-I-2"]
    assert_stated(
        "2025-I-2", 1, "$\\frac{AD}{AB} = \\frac{AF}{AC} = \\frac{1}{7}$",
        "$\\frac{AE}{AB} = \\frac{AG}{AC} = \\frac{5}{7}$", "$[DEGF] = \\frac{24}{49}[ABC]$",
        "$[ABC] = 588$", "$[ADF] = 12$", "$[EBCG] = 588 - 300 = 288$", "$[AFM] = [ADF] = 12$",
        "$[NEMF] = [DEGF] = 288$", "$[NBCE] = [EBCG] = 288$", "$[AFNBCEM] = 12 + 288 + 288 = 588$",
        "$[AFNBCEM] = [ABC]$",
    )
    assert_stated(
        "2025-I-2", 2, "$[DEGF] = 650\\sin\\theta - 26\\sin\\theta = 624\\sin\\theta$",
        "$\\sin\\theta = \\frac{6}{13}$", "$M = (26\\cos\\theta - 4, 26\\sin\\theta)$",
        "$N = (40 - 65\\cos\\theta, -65\\sin\\theta)$", "$[AFNBCEM] = 1274\\sin\\theta$",
        "$1274 \\cdot \\frac{6}{13} = 588$", "$[AFNBCEM] = [ABC]$",
    )


def test_2025_I_3_ice_cream():
    triples = [(c, v, s) for s in range(1, 10) for v in range(1, 10) for c in range(1, 10)
               if c > v > s and c + v + s == 9]
    assert sorted(triples, reverse=True) == [(6, 2, 1), (5, 3, 1), (4, 3, 2)]
    multinomials = [math.factorial(9) // (math.factorial(c) * math.factorial(v) * math.factorial(s))
                    for c, v, s in sorted(triples, reverse=True)]
    assert multinomials == [252, 504, 1260]
    # Independent count over all 3^9 assignments of flavours to the nine players.
    count = sum(1 for flavours in itertools.product(range(3), repeat=9)
                if flavours.count(0) > flavours.count(1) > flavours.count(2) >= 1)
    assert count == sum(multinomials) == 2016
    assert count % 1000 == OFFICIAL_ANSWERS["2025-I-3"]
    assert_stated(
        "2025-I-3", 1, "$c > v > s \\ge 1$", "$c + v + s = 9$", "$(c, v, s) = (6, 2, 1)$",
        "$(5, 3, 1)$", "$(4, 3, 2)$", "$\\binom{9}{6, 2, 1} = 252$", "$\\binom{9}{5, 3, 1} = 504$",
        "$\\binom{9}{4, 3, 2} = 1260$", "$N = 252 + 504 + 1260 = 2016$", "$N \\bmod 1000 = 16$",
    )


def test_2025_I_4_lattice_points():
    x, y = sp.symbols("x y")
    assert sp.expand((3 * x + 2 * y) * (4 * x - 3 * y)) == 12 * x**2 - x * y - 6 * y**2
    assert sp.expand(y**2 + 4 * 12 * 6 * y**2) == 289 * y**2
    assert set(sp.solve(12 * x**2 - x * y - 6 * y**2, x)) == {3 * y / 4, -2 * y / 3}
    line1 = {(2 * t, -3 * t) for t in range(-33, 34)}
    line2 = {(3 * t, 4 * t) for t in range(-25, 26)}
    assert (len(line1), len(line2), line1 & line2) == (67, 51, {(0, 0)})
    brute = {(a, b) for a in range(-100, 101) for b in range(-100, 101)
             if 12 * a * a - a * b - 6 * b * b == 0}
    assert brute == line1 | line2
    assert len(brute) == 67 + 51 - 1 == OFFICIAL_ANSWERS["2025-I-4"]
    assert_stated(
        "2025-I-4", 1, "$12x^2 - xy - 6y^2 = (3x + 2y)(4x - 3y)$", "$2 \\cdot 33 + 1 = 67$",
        "$2 \\cdot 25 + 1 = 51$", "$67 + 51 - 1 = 117$",
    )
    assert_stated(
        "2025-I-4", 2, "$y^2 + 288y^2 = 289y^2$", "$51 + 67 - 1 = 117$",
        "$x = \\frac{y \\pm 17y}{24}$", "$x = \\frac{3y}{4}$", "$x = -\\frac{2y}{3}$",
        "$12x^2 - xy - 6y^2 = (3x + 2y)(4x - 3y)$", "$2 \\cdot 25 + 1 = 51$", "$2 \\cdot 33 + 1 = 67$",
    )


def test_2025_I_5_divisible_by_22():
    subsets = [set(c) for c in itertools.combinations(range(1, 9), 4) if sum(c) == 18]
    assert subsets == [{1, 2, 7, 8}, {1, 3, 6, 8}, {1, 4, 5, 8}, {1, 4, 6, 7},
                       {2, 3, 5, 8}, {2, 3, 6, 7}, {2, 4, 5, 7}, {3, 4, 5, 6}]
    assert all(set(range(1, 9)) - s in subsets for s in subsets)
    evens = sum(sum(1 for d in s if d % 2 == 0) for s in subsets)
    assert evens == 16
    # Only O - E = 0 is possible: O - E = 2O - 36 with 10 <= O <= 26.
    assert [2 * o - 36 for o in range(10, 27) if (2 * o - 36) % 11 == 0] == [0]
    brute = sum(1 for p in itertools.permutations("12345678") if int("".join(p)) % 22 == 0)
    assert brute == evens * math.factorial(3) * math.factorial(4) == 2304
    assert brute - 2025 == OFFICIAL_ANSWERS["2025-I-5"]
    assert_stated(
        "2025-I-5", 1, "$O + E = 36$", "$O - E = 0$", "$O = E = 18$", "$\\{1,2,7,8\\}$",
        "$\\{3,4,5,6\\}$", "$\\sum_S e(S) = 16$", "$N = 16 \\cdot 3! \\cdot 4! = 2304$",
        "$N - 2025 = 279$",
    )


def test_2025_I_6_tangential_trapezoid():
    r, s = sp.symbols("r s", positive=True)
    h, area, radius = 6, 72, 3
    assert h == 2 * radius
    total = sp.Rational(2 * area, h)
    assert total == 24
    leg = total / 2
    assert leg == 12
    diff_sq = 4 * (leg**2 - h**2)
    assert diff_sq == 432
    assert (total**2 + diff_sq) / 2 == 504
    assert sp.expand(((r + s) / 2) ** 2 - ((r - s) / 2) ** 2) == r * s
    assert total**2 - 2 * h**2 == 576 - 72 == 504
    assert total**2 - 432 == 4 * h**2 == 144  # 4rs = (r + s)^2 - (r - s)^2, Solution 1
    roots = sp.solve([r + s - 24, r * s - 36], [r, s], dict=True)
    assert {sp.nsimplify(sol[r]) for sol in roots} == {12 - 6 * sp.sqrt(3), 12 + 6 * sp.sqrt(3)}
    # Build the trapezoid and check the circle of radius 3 really touches all four sides.
    big, small = 12 + 6 * sp.sqrt(3), 12 - 6 * sp.sqrt(3)
    p, q = sp.Matrix([big / 2, 0]), sp.Matrix([small / 2, 6])
    leg_vec = q - p
    centre = sp.Matrix([0, 3])
    distance = abs((leg_vec[0] * (centre[1] - p[1]) - leg_vec[1] * (centre[0] - p[0]))) / leg_vec.norm()
    assert sp.simplify(distance - 3) == 0 and sp.simplify(leg_vec.norm() - 12) == 0
    assert sp.simplify((big + small) / 2 * 6) == 72
    assert sp.expand(big**2 + small**2) == OFFICIAL_ANSWERS["2025-I-6"]
    assert_stated(
        "2025-I-6", 1, "$r + s = 2\\ell$", "$h = 6$", "$r + s = 24$", "$\\ell = 12$",
        "$(r - s)^2 = 432$", "$4rs = (r + s)^2 - (r - s)^2 = 576 - 432 = 144$", "$rs = 36$",
        "$r^2 + s^2 = 504$",
    )
    assert_stated(
        "2025-I-6", 2, "$h = 6$", "$r + s = 24$", "$\\ell = \\frac{r + s}{2} = 12$", "$rs = 36$",
        "$r^2 + s^2 = (r + s)^2 - 2rs = 576 - 72 = 504$", "$r, s = 12 \\pm 6\\sqrt{3}$",
    )


def _pairings(letters):
    if not letters:
        yield []
        return
    first, rest = letters[0], letters[1:]
    for i, partner in enumerate(rest):
        for tail in _pairings(rest[:i] + rest[i + 1:]):
            yield [(first, partner)] + tail


def test_2025_I_7_last_word():
    letters = "ABCDEFGHIJKL"
    all_pairings = list(_pairings(letters))
    assert len(all_pairings) == 11 * 945 == 10395
    case1 = case2 = 0
    for pairing in all_pairings:
        last = max("".join(sorted(pair)) for pair in pairing)
        if "G" in last:
            if last[0] == "G":
                case1 += 1
            else:
                assert last == "FG"
                case2 += 1
    assert (case1, case2) == (5 * 360, 120)
    assert Fraction(5, 11) * Fraction(360, 945) == Fraction(40, 231)
    assert Fraction(1, 11) * Fraction(120, 945) == Fraction(8, 693)
    probability = Fraction(case1 + case2, len(all_pairings))
    assert probability == Fraction(40, 231) + Fraction(8, 693) == Fraction(128, 693)
    assert 6 * 5 * 4 * 3 == 360 and math.factorial(5) == 120 and 9 * 7 * 5 * 3 == 945
    assert probability.numerator + probability.denominator == OFFICIAL_ANSWERS["2025-I-7"]
    assert_stated(
        "2025-I-7", 1, "$9 \\cdot 7 \\cdot 5 \\cdot 3 \\cdot 1 = 945$", "$\\frac{5}{11}$",
        "$\\frac{5}{11} \\cdot \\frac{360}{945} = \\frac{5}{11} \\cdot \\frac{8}{21} = \\frac{40}{231}$",
        "$5! = 120$", "$\\frac{1}{11} \\cdot \\frac{120}{945} = \\frac{8}{693}$",
        "$\\frac{40}{231} + \\frac{8}{693} = \\frac{128}{693}$",
    )


def test_2025_I_8_tangent_line():
    x, y, k, u, c = sp.symbols("x y k u c", real=True)
    z = x + sp.I * y
    bisector = sp.expand(sp.Abs(z - 4 - k) ** 2 - sp.Abs(z - 3 * sp.I - k) ** 2)
    line = 4 * x - 3 * y - 4 * k - sp.Rational(7, 2)
    assert sp.simplify(bisector + 2 * line) == 0  # same line up to a factor
    distance_eq = sp.Eq(sp.Abs(line.subs({x: 25, y: 20})) / 5, 5)
    ks = sorted(sp.solve(sp.Eq(sp.Rational(73, 2) - 4 * k, 25), k) + sp.solve(sp.Eq(sp.Rational(73, 2) - 4 * k, -25), k))
    assert ks == [sp.Rational(23, 8), sp.Rational(123, 8)]
    assert all(distance_eq.subs(k, value) for value in ks)
    # Solution 2: shifted line 4u - 3v = c, substitution and discriminant.
    assert sp.expand(line.subs({x: u + 25, y: y + 20}) - (4 * u - 3 * y - (4 * k - sp.Rational(73, 2)))) == 0
    quadratic = sp.expand(9 * (u**2 + ((4 * u - c) / 3) ** 2 - 25))
    assert quadratic == 25 * u**2 - 8 * c * u + c**2 - 225
    disc = sp.discriminant(quadratic, u)
    assert sp.expand(disc - (64 * c**2 - 100 * (c**2 - 225))) == 0 and sp.expand(disc) == 22500 - 36 * c**2
    assert sorted(sp.solve(disc, c)) == [-25, 25]
    # Direct check: exactly one intersection point for these k, two for a k in between.
    for value, expected in ((ks[0], 1), (ks[1], 1), (sp.Rational(73, 8), 2)):
        points = sp.solve([(x - 25) ** 2 + (y - 20) ** 2 - 25, line.subs(k, value)], [x, y], dict=True)
        assert len(points) == expected
    total = sum(ks)
    assert total == sp.Rational(73, 4) == 2 * sp.Rational(73, 8)
    assert total.p + total.q == OFFICIAL_ANSWERS["2025-I-8"]
    assert_stated(
        "2025-I-8", 1, "$4x - 3y - 4k - \\frac{7}{2} = 0$", "$\\left|\\frac{73}{2} - 4k\\right| = 25$",
        "$k = \\frac{23}{8}$", "$k = \\frac{123}{8}$", "$\\frac{23}{8} + \\frac{123}{8} = \\frac{73}{4}$",
    )
    assert_stated(
        "2025-I-8", 2, "$2 \\cdot \\frac{73}{8} = \\frac{73}{4}$",
        "$4u - 3v = 4k - \\frac{73}{2}$", "$25u^2 - 8cu + c^2 - 225 = 0$",
        "$64c^2 - 100(c^2 - 225) = 22500 - 36c^2 = 0$", "$c = \\pm 25$",
    )


def test_2025_I_9_rotated_parabola():
    x = sp.symbols("x", real=True)
    r3 = sp.sqrt(3)
    X, Y = x, x**2 - 4
    x_rot, y_rot = X / 2 + r3 / 2 * Y, -r3 / 2 * X + Y / 2
    quartic = 3 * x**4 + 2 * r3 * x**3 - 25 * x**2 - 6 * r3 * x + 40
    assert sp.expand(-4 * (y_rot - (x_rot**2 - 4)) - quartic) == 0
    assert sp.expand((x**2 + r3 * x - 4) * (3 * x**2 - r3 * x - 10) - quartic) == 0
    roots = sp.solve(quartic, x)
    fourth_quadrant = [root for root in roots if 0 < float(root) < 2]
    assert len(fourth_quadrant) == 1
    root = fourth_quadrant[0]
    assert sp.simplify(root - (sp.sqrt(19) - r3) / 2) == 0
    other = (r3 + sp.sqrt(123)) / 6
    assert sp.simplify(3 * other**2 - r3 * other - 10) == 0 and other > 2
    assert sp.expand(root**2) == sp.expand((11 - sp.sqrt(57)) / 2)
    y_value = sp.expand(root**2 - 4)
    assert y_value == sp.expand((3 - sp.sqrt(57)) / 2) == sp.expand(-r3 * root)
    # Solution 1: rotating by 60 degrees equals reflecting in y = -sqrt(3) x after the y-axis.
    reflect = lambda a: sp.Matrix([[sp.cos(2 * a), sp.sin(2 * a)], [sp.sin(2 * a), -sp.cos(2 * a)]])  # noqa: E731
    rotation = sp.Matrix([[sp.cos(sp.pi / 3), -sp.sin(sp.pi / 3)], [sp.sin(sp.pi / 3), sp.cos(sp.pi / 3)]])
    assert sp.simplify(reflect(2 * sp.pi / 3) * reflect(sp.pi / 2) - rotation) == sp.zeros(2)
    assert sp.expand(root**2 + r3 * root - 4) == 0 and root > 0  # on y = -sqrt(3) x, fourth quadrant
    a, b, c = 3, 57, 2
    assert math.gcd(a, c) == 1 and a + b + c == OFFICIAL_ANSWERS["2025-I-9"]
    assert_stated(
        "2025-I-9", 1, "$y = -\\sqrt{3}x$", "$x^2 + \\sqrt{3}x - 4 = 0$",
        "$x = \\frac{\\sqrt{19} - \\sqrt{3}}{2}$", "$y = -\\sqrt{3}x = \\frac{3 - \\sqrt{57}}{2}$",
    )
    assert_stated(
        "2025-I-9", 2, "$x = \\frac{\\sqrt{19} - \\sqrt{3}}{2}$",
        "$3x^4 + 2\\sqrt{3}x^3 - 25x^2 - 6\\sqrt{3}x + 40 = 0$",
        "$(x^2 + \\sqrt{3}x - 4)(3x^2 - \\sqrt{3}x - 10) = 0$", "$x = \\frac{\\sqrt{3} + \\sqrt{123}}{6} > 2$",
        "$x^2 = \\frac{11 - \\sqrt{57}}{2}$", "$y = x^2 - 4 = \\frac{3 - \\sqrt{57}}{2}$",
    )


def test_2025_I_10_sudoku_band():
    digits = frozenset(range(1, 10))
    R = [frozenset({1, 2, 3}), frozenset({4, 5, 6}), frozenset({7, 8, 9})]
    valid = 0
    by_a = {}
    for s1 in itertools.combinations(sorted(digits - R[0]), 3):
        for s2 in itertools.combinations(sorted(digits - R[1] - set(s1)), 3):
            s3 = digits - set(s1) - set(s2)
            S = [frozenset(s1), frozenset(s2), frozenset(s3)]
            if S[2] & R[2]:
                continue
            T = [digits - R[i] - S[i] for i in range(3)]
            assert all(len(t) == 3 for t in T) and frozenset().union(*T) == digits  # forced third block
            valid += 1
            a = len(S[0] & R[1])
            by_a[a] = by_a.get(a, 0) + 1
    assert by_a == {a: math.comb(3, a) ** 3 for a in range(4)} == {0: 1, 1: 27, 2: 27, 3: 1}
    assert valid == 56
    total = math.factorial(9) * 56 * 6**6
    assert sp.factorint(math.factorial(9)) == {2: 7, 3: 4, 5: 1, 7: 1}
    assert sp.factorint(56) == {2: 3, 7: 1} and sp.factorint(6**6) == {2: 6, 3: 6}
    factors = sp.factorint(total)
    assert factors == {2: 16, 3: 10, 5: 1, 7: 2}
    assert sum(p * e for p, e in factors.items()) == OFFICIAL_ANSWERS["2025-I-10"]
    # The example grid in the problem is one of the counted grids.
    example = ["428963175", "379521684", "561847923"]
    assert all(set(row) == set("123456789") for row in example)
    assert all(len({example[r][c] for r in range(3) for c in range(3 * blk, 3 * blk + 3)}) == 9 for blk in range(3))
    assert_stated(
        "2025-I-10", 1, "$9!$", "$\\binom{3}{a}^3$", "$\\sum_{a=0}^{3} \\binom{3}{a}^3 = 1 + 27 + 27 + 1 = 56$",
        "$(3!)^6 = 6^6$", "$9! \\cdot 56 \\cdot 6^6$", "$9! = 2^7 \\cdot 3^4 \\cdot 5 \\cdot 7$",
        "$9! \\cdot 56 \\cdot 6^6 = 2^{16} \\cdot 3^{10} \\cdot 5 \\cdot 7^2$",
        "$2 \\cdot 16 + 3 \\cdot 10 + 5 \\cdot 1 + 7 \\cdot 2 = 81$",
    )


def test_2025_I_11_sawtooth_parabola():
    y = sp.symbols("y", real=True)
    total, count = 0, 0
    rising_sums, falling_sums = [], []
    for k in range(0, 12):  # pieces beyond k = 8 lie at x > 34 and must contribute nothing
        rising = [r for r in sp.solve(34 * y**2 - y - 4 * k, y) if -1 <= r < 1]
        falling = [r for r in sp.solve(34 * y**2 + y - (4 * k + 2), y) if -1 < r <= 1]
        assert k <= 8 or not rising + falling
        # x = 34 y^2 must lie on the x-interval of the piece (equivalent to the y-range).
        assert all(4 * k - 1 <= 34 * r**2 < 4 * k + 1 for r in rising)
        assert all(4 * k + 1 <= 34 * r**2 < 4 * k + 3 for r in falling)
        rising_sums.append(sp.nsimplify(sum(rising)))
        falling_sums.append(sp.nsimplify(sum(falling)))
        total += sum(rising) + sum(falling)
        count += len(rising) + len(falling)
    assert rising_sums[:9] == [sp.Rational(1, 34)] * 9
    assert falling_sums[:8] == [-sp.Rational(1, 34)] * 8
    assert sp.simplify(falling_sums[8] - (-1 + 5 * sp.sqrt(185)) / 68) == 0
    assert sp.sqrt(4353) < 67 and sp.sqrt(4081) < 67 and sp.sqrt(4625) > 67
    assert sp.sqrt(4625) == 5 * sp.sqrt(185) and 1 + 544 * 8 == 4353 and 273 + 544 * 7 == 4081
    assert count == 35
    assert sp.simplify(total - (1 + 5 * sp.sqrt(185)) / 68) == 0
    # Independent check in x: solve x = 34 f(x)^2 piece by piece on the x-axis, numerically.
    x = sp.symbols("x", real=True)
    numeric = 0.0
    for k in range(0, 9):
        for piece, lo, hi in ((x - 4 * k, 4 * k - 1, 4 * k + 1), (4 * k + 2 - x, 4 * k + 1, 4 * k + 3)):
            for root in sp.Poly(34 * piece**2 - x, x).nroots():
                if abs(sp.im(root)) < 1e-12 and lo <= sp.re(root) < hi:
                    numeric += float(piece.subs(x, sp.re(root)))
    assert abs(numeric - float((1 + 5 * sp.sqrt(185)) / 68)) < 1e-9
    assert sp.factorint(185) == {5: 1, 37: 1} and math.gcd(1, 5, 68) == 1
    assert 1 + 5 + 185 + 68 == OFFICIAL_ANSWERS["2025-I-11"]
    assert_stated(
        "2025-I-11", 1, "$34y^2 - y - 4k = 0$", "$\\frac{9}{34}$", "$34y^2 + y - (4k + 2) = 0$",
        "$-\\frac{8}{34}$", "$y = \\frac{-1 + 5\\sqrt{185}}{68}$", "$35$",
        "$\\frac{9}{34} - \\frac{8}{34} + \\frac{-1 + 5\\sqrt{185}}{68} = \\frac{1 + 5\\sqrt{185}}{68}$",
    )


def test_2025_I_12_finite_region():
    x, y, z = sp.symbols("x y z", real=True)
    assert sp.expand((x - y * z) - (y - z * x) - (x - y) * (1 + z)) == 0
    assert sp.expand((y - z * x) - (z - x * y) - (y - z) * (1 + x)) == 0
    plane = x + y + z - 75
    vertices = [sp.solve([plane, x + 1, x - y], [x, y, z]), sp.solve([plane, x + 1, y - z], [x, y, z]),
                sp.solve([plane, x - y, y - z], [x, y, z])]
    points = [sp.Matrix([v[x], v[y], v[z]]) for v in vertices]
    assert [tuple(p) for p in points] == [(-1, -1, 77), (-1, 38, 38), (25, 25, 25)]
    e1, e2 = points[1] - points[0], points[2] - points[0]
    assert tuple(e1) == (0, 39, -39) and tuple(e2) == (26, 26, -52)
    cross = e1.cross(e2)
    assert tuple(cross) == (-1014, -1014, -1014)
    area = cross.norm() / 2
    assert area == 507 * sp.sqrt(3)
    # Grid check on the plane: the points satisfying the original inequalities with x > -1 and
    # z > -1 are exactly those of the triangle -1 < x < y < z, and the case x > y, z < -1,
    # y > z, x < -1 never occurs. The grid estimate of the projected area is 507.
    inside = 0
    for i in range(-200, 200):
        for j in range(-200, 200):
            px, py = i + 0.5, j + 0.5  # unit-cell centres (exact in binary), off the boundary lines
            pz = 75 - px - py
            original = px - py * pz < py - pz * px < pz - px * py
            triangle = -1 < px < py < pz
            if original and px > -1 and pz > -1:
                assert triangle
            if triangle:
                assert original
                inside += 1
            assert not (original and px > py and pz < -1 and py > pz and px < -1)
    assert abs(inside - 507) < 0.05 * 507
    assert 507 + 3 == OFFICIAL_ANSWERS["2025-I-12"]
    assert_stated(
        "2025-I-12", 1, "$(x - yz) - (y - zx) = (x - y)(1 + z)$", "$(y - zx) - (z - xy) = (y - z)(1 + x)$",
        "$(x - y)(1 + z) < 0$", "$(y - z)(1 + x) < 0$", "$-1 < x < y < z$", "$(-1, -1, 77)$",
        "$(-1, 38, 38)$", "$(25, 25, 25)$", "$(0, 39, -39)$", "$(26, 26, -52)$",
        "$(-1014, -1014, -1014)$", "$1014\\sqrt{3}$", "$\\frac{1}{2} \\cdot 1014\\sqrt{3} = 507\\sqrt{3}$",
    )


def _chords_cross(p, q, r, s):
    """Chords pq and rs (points given by their order around the circle) cross iff they alternate."""
    lo, hi = min(p, q), max(p, q)
    return (lo < r < hi) != (lo < s < hi)


def _cross_probability(chord_a, chord_b):
    """Exact crossing probability of two random chords with given quadrants.

    Points in different quadrants are ordered by quadrant; points sharing a quadrant are in a
    uniformly random order (each endpoint is uniform in its quadrant). A chord given as ``None``
    is the horizontal diameter from angle 0 to angle 180 degrees (between Q2/Q3 and Q4/Q1).
    """
    points = [(quadrant, name) for name, quadrant in zip("pqrs", chord_a + chord_b)]
    by_quadrant = {}
    for quadrant, name in points:
        by_quadrant.setdefault(quadrant, []).append(name)
    groups = [by_quadrant[q] for q in sorted(by_quadrant)]
    crossings = total = 0
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        position = {name: i for i, name in enumerate(itertools.chain(*orders))}
        total += 1
        crossings += _chords_cross(position["p"], position["q"], position["r"], position["s"])
    return Fraction(crossings, total)


def test_2025_I_13_expected_regions():
    quadrant_pairs = [(a, b) for a in range(4) for b in range(4) if a != b]  # 12 equally likely
    opposite = {(0, 2), (2, 0), (1, 3), (3, 1)}
    # Chord versus the horizontal diameter: points at 0 and 180 degrees, i.e. between quadrants.
    # Use half-quadrant positions: Q1 -> 1, Q2 -> 3, Q3 -> 5, Q4 -> 7; the diameter ends at 0 and 4.
    p_diameter = Fraction(sum(_chords_cross(0, 4, 2 * a + 1, 2 * b + 1) for a, b in quadrant_pairs), 12)
    assert p_diameter == Fraction(2, 3)
    given = {"opposite": [], "adjacent": []}
    for a in quadrant_pairs:
        kind = "opposite" if a in opposite else "adjacent"
        given[kind].append(sum(_cross_probability(a, b) for b in quadrant_pairs) / 12)
    assert set(given["opposite"]) == {Fraction(7, 12)} and set(given["adjacent"]) == {Fraction(5, 12)}
    p_chords = sum(_cross_probability(a, b) for a in quadrant_pairs for b in quadrant_pairs) / 144
    assert p_chords == Fraction(1, 3) * Fraction(7, 12) + Fraction(2, 3) * Fraction(5, 12) == Fraction(17, 36)
    expected_crossings = 1 + 25 * 2 * p_diameter + math.comb(25, 2) * p_chords
    assert expected_crossings == 1 + Fraction(100, 3) + Fraction(425, 3) == 176
    regions = 1 + 27 + expected_crossings
    assert regions == OFFICIAL_ANSWERS["2025-I-13"]
    # R = 1 + L + I by Euler's formula for chords of a circle (V = 2L + I, E = 2L + L + 2I).
    for L, I in ((3, 2), (27, 176)):
        V, E = 2 * L + I, 2 * L + (L + 2 * I)
        assert E - V + 1 == 1 + L + I
    assert_stated(
        "2025-I-13", 1, "$R = 1 + L + I$", "$\\frac{4}{6} = \\frac{2}{3}$",
        "$P(\\text{chord crosses a given diameter}) = \\frac{2}{3}$",
        "$P(\\text{cross} \\mid \\text{opposite}) = \\frac{1}{6} \\cdot 1 + \\frac{1}{6} \\cdot \\frac{1}{2} + \\frac{4}{6} \\cdot \\frac{1}{2} = \\frac{7}{12}$",
        "$P(\\text{cross} \\mid \\text{adjacent}) = \\frac{1}{6} \\cdot 0 + \\frac{1}{6} \\cdot \\frac{1}{2} + \\frac{4}{6} \\cdot \\frac{1}{2} = \\frac{5}{12}$",
        "$\\frac{1}{3} \\cdot \\frac{7}{12} + \\frac{2}{3} \\cdot \\frac{5}{12} = \\frac{17}{36}$",
        "$\\binom{25}{2} = 300$", "$E[I] = 1 + 50 \\cdot \\frac{2}{3} + 300 \\cdot \\frac{17}{36}$",
        "$E[I] = 1 + \\frac{100}{3} + \\frac{425}{3} = 176$", "$1 + 27 + 176 = 204$",
    )


def _weiszfeld(points, start, iterations=3000):
    """Geometric median of points (floats) by Weiszfeld's iteration."""
    x, y = start
    for _ in range(iterations):
        weights = [1 / max(math.hypot(x - px, y - py), 1e-15) for px, py in points]
        x = sum(w * px for w, (px, py) in zip(weights, points)) / sum(weights)
        y = sum(w * py for w, (px, py) in zip(weights, points)) / sum(weights)
    return x, y


def test_2025_I_14_pentagon_minimum():
    r3 = sp.sqrt(3)
    AC2 = 14**2 + 7**2 - 2 * 14 * 7 * sp.cos(sp.pi / 3)
    AD2 = 26**2 + 13**2 - 2 * 26 * 13 * sp.cos(sp.pi / 3)
    assert (AC2, AD2) == (147, 507) and AC2 + 49 == 196 and AD2 + 169 == 676
    AC, AD, CD = sp.sqrt(AC2), sp.sqrt(AD2), 24
    assert (AC, AD) == (7 * r3, 13 * r3)
    cos_cad = sp.nsimplify((AC2 + AD2 - CD**2) / (2 * AC * AD))
    assert cos_cad == sp.Rational(1, 7)
    sin_cad = sp.sqrt(1 - cos_cad**2)
    assert sin_cad == 4 * r3 / 7
    area_acd = sp.simplify(AC * AD * sin_cad / 2)
    assert area_acd == 78 * r3
    fermat_sq = sp.simplify(sp.Rational(AC2 + CD**2 + AD2, 2) + 2 * r3 * area_acd)
    assert sp.Rational(AC2 + CD**2 + AD2, 2) == 615 and sp.simplify(2 * r3 * area_acd) == 468
    assert fermat_sq == 1083 and sp.sqrt(fermat_sq) == 19 * r3
    cos_adc = sp.nsimplify((AD2 + CD**2 - AC2) / (2 * AD * CD))
    assert cos_adc == r3 / 2  # angle ADC = 30 degrees
    cos_bae = sp.Rational(1, 2) * cos_cad - r3 / 2 * sin_cad
    assert sp.simplify(cos_bae) == -sp.Rational(11, 14)
    BE2 = sp.simplify(14**2 + 26**2 - 2 * 14 * 26 * cos_bae)
    assert BE2 == 1444 and sp.sqrt(BE2) == 38

    # Coordinates of the convex pentagon; numeric minimum of f and the Fermat point of ACD.
    def rotate(v, degrees):
        t = math.radians(degrees)
        return (v[0] * math.cos(t) - v[1] * math.sin(t), v[0] * math.sin(t) + v[1] * math.cos(t))

    A, B = (0.0, 0.0), (14.0, 0.0)
    C = tuple(b + d for b, d in zip(B, rotate((-7.0, 0.0), -60)))  # |BC| = 7, angle B = 60
    t_c = math.atan2(C[1], C[0])
    t_d = t_c + math.acos(1 / 7)  # angle CAD, turning the same way as from AB to AC
    D = (13 * math.sqrt(3) * math.cos(t_d), 13 * math.sqrt(3) * math.sin(t_d))
    t_e = t_d + math.radians(30)
    E = (26 * math.cos(t_e), 26 * math.sin(t_e))
    dist = lambda p, q: math.hypot(p[0] - q[0], p[1] - q[1])  # noqa: E731
    assert [round(dist(*pair), 9) for pair in ((A, B), (B, C), (C, D), (D, E), (E, A))] == [14, 7, 24, 13, 26]
    pentagon = [A, B, C, D, E]
    turns = [(pentagon[(i + 1) % 5][0] - pentagon[i][0]) * (pentagon[(i + 2) % 5][1] - pentagon[(i + 1) % 5][1])
             - (pentagon[(i + 1) % 5][1] - pentagon[i][1]) * (pentagon[(i + 2) % 5][0] - pentagon[(i + 1) % 5][0])
             for i in range(5)]
    assert all(t < 0 for t in turns) or all(t > 0 for t in turns)  # convex
    assert abs(dist(B, E) - 38) < 1e-9
    P = _weiszfeld([A, C, D], start=(1.0, -1.0))
    assert abs(sum(dist(P, q) for q in (A, C, D)) - 19 * math.sqrt(3)) < 1e-9
    assert abs(dist(B, P) + dist(P, E) - dist(B, E)) < 1e-9  # P lies on segment BE
    X = _weiszfeld(pentagon, start=(5.0, -5.0))
    minimum = sum(dist(X, q) for q in pentagon)
    assert abs(minimum - (38 + 19 * math.sqrt(3))) < 1e-9
    assert 38 + 19 + 3 == OFFICIAL_ANSWERS["2025-I-14"]
    assert_stated(
        "2025-I-14", 1, "$AC^2 = 14^2 + 7^2 - 14 \\cdot 7 = 147$", "$AC = 7\\sqrt{3}$", "$\\angle ACB = 90^\\circ$",
        "$AD^2 = 26^2 + 13^2 - 26 \\cdot 13 = 507$", "$AD = 13\\sqrt{3}$", "$\\angle ADE = 90^\\circ$",
        "$\\cos\\angle CAD = \\frac{147 + 507 - 576}{2 \\cdot 7\\sqrt{3} \\cdot 13\\sqrt{3}} = \\frac{1}{7}$",
        "$\\sin\\angle CAD = \\frac{4\\sqrt{3}}{7}$",
        "$[ACD] = \\frac{1}{2} \\cdot 7\\sqrt{3} \\cdot 13\\sqrt{3} \\cdot \\frac{4\\sqrt{3}}{7} = 78\\sqrt{3}$",
        "$615 + 468 = 1083$", "$PA + PC + PD = 19\\sqrt{3}$", "$\\angle APB = 90^\\circ$",
        "$\\angle APE = 90^\\circ$", "$\\angle BPE = 180^\\circ$",
        "$\\cos\\angle BAE = \\frac{1}{2} \\cdot \\frac{1}{7} - \\frac{\\sqrt{3}}{2} \\cdot \\frac{4\\sqrt{3}}{7} = -\\frac{11}{14}$",
        "$BE^2 = 14^2 + 26^2 + 2 \\cdot 14 \\cdot 26 \\cdot \\frac{11}{14} = 1444$", "$BE = 38$",
        "$f(P) = 38 + 19\\sqrt{3}$",
    )


def test_2025_I_15_cubes_mod_3_7():
    modulus, limit = 3**7, 3**6
    by_class = {0: [], 1: [], 2: [], 3: []}
    for a in range(1, limit + 1):
        v = 0
        while a % 3 ** (v + 1) == 0 and v < 3:
            v += 1
        by_class[v].append(a)
    assert {v: len(nums) for v, nums in by_class.items()} == {0: 486, 1: 162, 2: 54, 3: 27}
    assert {pow(u, 3, 9) for u in range(1, 9) if u % 3} == {1, 8}
    # (F1): distinct cubes, exactly the residues = +-1 mod 9.
    unit_cubes = {pow(a, 3, modulus) for a in by_class[0]}
    assert unit_cubes == {r for r in range(modulus) if r % 9 in (1, 8)} and len(unit_cubes) == 486
    assert sorted(x for x in range(1, modulus) if pow(x, 3, modulus) == 1) == [1, 1 + 3**6, 1 + 2 * 3**6]
    # (F2): u^3 mod 81 over units u <= 243 hits each residue = +-1 mod 9 exactly 9 times.
    hits = {}
    for u in range(1, 244):
        if u % 3:
            hits[pow(u, 3, 81)] = hits.get(pow(u, 3, 81), 0) + 1
    assert set(hits) == {r for r in range(81) if r % 9 in (1, 8)} and set(hits.values()) == {9}

    cube_counts = {v: {} for v in by_class}
    for v, nums in by_class.items():
        for a in nums:
            r = pow(a, 3, modulus)
            cube_counts[v][r] = cube_counts[v].get(r, 0) + 1

    def count(classes):
        """Ordered triples with the given classes (positions fixed) and cube sum = 0 mod 3^7."""
        c1, c2, c3 = (cube_counts[v] for v in classes)
        return sum(n1 * n2 * c3.get((-r1 - r2) % modulus, 0) for r1, n1 in c1.items() for r2, n2 in c2.items())

    patterns = {}
    for classes in itertools.product(range(4), repeat=3):
        patterns[classes] = count(classes)
    low = lambda cls: min(cls)  # noqa: E731
    subtotal = {m: sum(n for cls, n in patterns.items() if low(cls) == m) for m in range(4)}
    assert subtotal[3] == 27**3 == 19683
    assert patterns[(2, 2, 3)] * 3 == 3 * 54 * 27 * 27 == 118098 and patterns[(2, 2, 2)] == 2 * 27**3 == 39366
    assert subtotal[2] == 118098 + 39366 == 157464
    assert patterns[(1, 1, 1)] == 0 and patterns[(0, 0, 0)] == 0
    assert subtotal[1] == 3 * 162 * 9 * 81 == 354294
    assert subtotal[0] == 3 * 486 * 243 == 354294
    N = sum(subtotal.values())
    assert N == 19683 + 157464 + 354294 + 354294 == 885735
    assert N % 1000 == OFFICIAL_ANSWERS["2025-I-15"]
    assert_stated(
        "2025-I-15", 1, "$486$", "$162$", "$54$", "$27$", "$u^3 \\equiv \\pm 1 \\pmod 9$",
        "$1 + 3^6$", "$1 + 2 \\cdot 3^6$", "$27^3 = 19683$", "$3 \\cdot 54 \\cdot 27 \\cdot 27 = 118098$",
        "$2 \\cdot 27^3 = 39366$", "$118098 + 39366 = 157464$", "$3 \\cdot 162 \\cdot 9 \\cdot 81 = 354294$",
        "$3 \\cdot 486 \\cdot 243 = 354294$", "$N = 19683 + 157464 + 354294 + 354294 = 885735$",
        "$N \\bmod 1000 = 735$",
    )


# ----------------------------------------------------------------------------- AIME 2025 II


def test_2025_II_1_triangle_area():
    A, C, F = 0, 26, 73
    D, E = F - 33, C + 31
    B = D - 22
    assert (B, C, D, E) == (18, 26, 40, 57) and E - B == 39 and D - C == 14
    assert D - B == 22 and F - A == 73  # the remaining givens hold
    s = (14 + 30 + 40) // 2
    assert s == 42 and s * (s - 14) * (s - 30) * (s - 40) == 168**2
    h = Fraction(2 * 168, 14)
    assert h == 24
    x, hh = sp.symbols("x h", real=True)
    solutions = sp.solve([(x - 26) ** 2 + hh**2 - 1600, (x - 40) ** 2 + hh**2 - 900], [x, hh], dict=True)
    assert {(sol[x], abs(sol[hh])) for sol in solutions} == {(58, 24)}
    assert sp.expand((x - 26) ** 2 - (x - 40) ** 2) == 28 * x - 924 and 1600 - 900 == 700
    area = Fraction(39) * h / 2
    assert area == OFFICIAL_ANSWERS["2025-II-1"]
    assert_stated(
        "2025-II-1", 1, "$BE = 57 - 18 = 39$", "$CD = 40 - 26 = 14$",
        "$[CDG] = \\sqrt{42 \\cdot 28 \\cdot 12 \\cdot 2} = 168$", "$h = \\frac{2 \\cdot 168}{14} = 24$",
        "$[BGE] = \\frac{1}{2} \\cdot 39 \\cdot 24 = 468$",
    )
    assert_stated(
        "2025-II-1", 2, "$(x - 26)^2 + h^2 = 1600$", "$(x - 40)^2 + h^2 = 900$", "$28x - 924 = 700$",
        "$x = 58$", "$h = 24$", "$BE = 57 - 18 = 39$", "$CD = 40 - 26 = 14$",
    )


def test_2025_II_2_divisibility():
    n = sp.symbols("n")
    assert sp.rem(sp.expand(3 * (n + 3) * (n**2 + 9)), n + 2, n) == 39
    assert sp.divisors(39) == [1, 3, 13, 39]
    found = [m for m in range(1, 10000) if (3 * (m + 3) * (m * m + 9)) % (m + 2) == 0]
    assert found == [1, 11, 37]
    assert [3 * (m + 3) * (m * m + 9) for m in found] == [120, 5460, 165360]
    assert sum(found) == OFFICIAL_ANSWERS["2025-II-2"]
    assert_stated(
        "2025-II-2", 1, "$3(n + 3)(n^2 + 9) \\equiv 3 \\cdot 1 \\cdot 13 = 39 \\pmod{n + 2}$",
        "$n + 2 \\mid 39$", "$n + 2 \\in \\{3, 13, 39\\}$", "$n = 1$", "$n = 11$", "$n = 37$",
        "$1 + 11 + 37 = 49$",
    )


def test_2025_II_3_grid_colourings():
    # Segments of the 2x2 grid: 0..3 inner (up, right, down, left of the centre), 4..11 outer.
    squares = {  # square -> (its two inner segments, its two outer segments)
        "TL": ((0, 3), (4, 5)), "TR": ((0, 1), (6, 7)), "BR": ((1, 2), (8, 9)), "BL": ((2, 3), (10, 11)),
    }
    brute = 0
    by_inner = {}
    for colours in itertools.product((0, 1), repeat=12):  # 1 = red
        if all(sum(colours[i] for i in inner + outer) == 2 for inner, outer in squares.values()):
            brute += 1
            by_inner[colours[:4]] = by_inner.get(colours[:4], 0) + 1
    assert brute == OFFICIAL_ANSWERS["2025-II-3"]
    for inner_colours, ways in by_inner.items():
        one_red = sum(1 for inner, _ in squares.values() if sum(inner_colours[i] for i in inner) == 1)
        changes = sum(inner_colours[i] != inner_colours[(i + 1) % 4] for i in range(4))
        assert ways == 2**one_red and one_red == changes
    by_j = {}
    for inner_colours, ways in by_inner.items():
        j = int(math.log2(ways))
        by_j[j] = by_j.get(j, 0) + 1
    assert by_j == {0: 2, 2: 12, 4: 2} and math.comb(4, 2) * 2 == 12
    by_r = {}
    for inner_colours, ways in by_inner.items():
        r = sum(inner_colours)
        by_r[r] = by_r.get(r, 0) + ways
    assert by_r == {0: 1, 1: 16, 2: 48, 3: 16, 4: 1}
    opposite = by_inner[(1, 0, 1, 0)] + by_inner[(0, 1, 0, 1)]
    assert (opposite, by_r[2] - opposite) == (32, 16)
    assert_stated(
        "2025-II-3", 1, "$2^{j}$", "$\\binom{4}{2} \\cdot 2 = 12$", "$2 \\cdot 1 + 12 \\cdot 4 + 2 \\cdot 16 = 82$",
    )
    assert_stated(
        "2025-II-3", 2, "$4 \\cdot 2^2 = 16$", "$4 \\cdot 4 = 16$", "$2 \\cdot 16 = 32$",
        "$1 + 16 + (16 + 32) + 16 + 1 = 82$",
    )


def test_2025_II_4_log_product():
    k = sp.symbols("k", integer=True, positive=True)
    term = sp.log(5 ** (k**2 - 1)) / sp.log(k) / (sp.log(5 ** (k**2 - 4)) / sp.log(k + 1))
    claimed = (k**2 - 1) / (k**2 - 4) * (sp.log(k + 1) / sp.log(5)) / (sp.log(k) / sp.log(5))
    for value in (4, 17, 63):
        assert sp.simplify(sp.expand_log(term.subs(k, value) - claimed.subs(k, value), force=True)) == 0
    rational = math.prod(Fraction(j * j - 1, j * j - 4) for j in range(4, 64))
    assert math.prod(Fraction(j - 1, j - 2) for j in range(4, 64)) == 31
    assert math.prod(Fraction(j + 1, j + 2) for j in range(4, 64)) == Fraction(1, 13)
    assert rational == Fraction(31, 13)
    logs = sp.log(64) / sp.log(4)
    assert sp.simplify(logs) == 3
    total = rational * 3
    assert total == Fraction(93, 13)
    # Numeric check of the whole product as printed in the problem.
    numeric = math.prod(math.log(5 ** (j * j - 1), j) / math.log(5 ** (j * j - 4), j + 1) for j in range(4, 64))
    assert abs(numeric - 93 / 13) < 1e-9
    assert total.numerator + total.denominator == OFFICIAL_ANSWERS["2025-II-4"]
    assert_stated(
        "2025-II-4", 1,
        "$\\frac{\\log_k(5^{k^2 - 1})}{\\log_{k+1}(5^{k^2 - 4})} = \\frac{k^2 - 1}{k^2 - 4} \\cdot \\frac{\\log_5(k + 1)}{\\log_5 k}$",
        "$\\prod_{k=4}^{63} \\frac{\\log_5(k + 1)}{\\log_5 k} = \\frac{\\log_5 64}{\\log_5 4} = 3$",
        "$\\prod_{k=4}^{63} \\frac{k - 1}{k - 2} = \\frac{62}{2} = 31$",
        "$\\prod_{k=4}^{63} \\frac{k + 1}{k + 2} = \\frac{5}{65} = \\frac{1}{13}$",
        "$3 \\cdot 31 \\cdot \\frac{1}{13} = \\frac{93}{13}$",
    )


def test_2025_II_5_nine_point_circle_arcs():
    rad = math.radians
    B, C = (0.0, 0.0), (1.0, 0.0)
    AB = math.sin(rad(36)) / math.sin(rad(84))  # law of sines with BC = 1
    A = (AB * math.cos(rad(60)), AB * math.sin(rad(60)))
    mid = lambda p, q: ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)  # noqa: E731
    D, E, F = mid(B, C), mid(A, C), mid(A, B)

    def foot(p, q, r):
        """Foot of the perpendicular from p to line qr."""
        dx, dy = r[0] - q[0], r[1] - q[1]
        t = ((p[0] - q[0]) * dx + (p[1] - q[1]) * dy) / (dx * dx + dy * dy)
        return (q[0] + t * dx, q[1] + t * dy), t

    (G, tG), (H, tH), (J, tJ) = foot(A, B, D), foot(B, A, E), foot(C, A, F)
    assert 0 < tG < 1 and 0 < tH < 1 and 0 < tJ < 1  # G on BD, H on AE, J on AF
    # Centre of the circle through D, E, F.
    (x1, y1), (x2, y2), (x3, y3) = D, E, F
    det = 2 * (x1 * (y2 - y3) + x2 * (y3 - y1) + x3 * (y1 - y2))
    ux = ((x1**2 + y1**2) * (y2 - y3) + (x2**2 + y2**2) * (y3 - y1) + (x3**2 + y3**2) * (y1 - y2)) / det
    uy = ((x1**2 + y1**2) * (x3 - x2) + (x2**2 + y2**2) * (x1 - x3) + (x3**2 + y3**2) * (x2 - x1)) / det
    radius = math.hypot(x1 - ux, y1 - uy)
    named = {"G": G, "D": D, "E": E, "H": H, "J": J, "F": F}
    assert all(abs(math.hypot(p[0] - ux, p[1] - uy) - radius) < 1e-12 for p in named.values())
    angle = {n: math.degrees(math.atan2(p[1] - uy, p[0] - ux)) % 360 for n, p in named.items()}
    order = sorted(named, key=angle.get)
    start = order.index("G")
    cyclic = order[start:] + order[:start]
    assert cyclic in (["G", "D", "E", "H", "J", "F"], ["G", "F", "J", "H", "E", "D"])

    def arc(p, q):
        return min((angle[p] - angle[q]) % 360, (angle[q] - angle[p]) % 360)

    assert abs(arc("D", "E") - 72) < 1e-9 and abs(arc("F", "G") - 72) < 1e-9 and abs(arc("H", "J") - 24) < 1e-9
    assert abs(sum(arc(cyclic[i], cyclic[(i + 1) % 6]) for i in range(6)) - 360) < 1e-9

    def vertex_angle(p, v, q):
        a1 = math.atan2(p[1] - v[1], p[0] - v[0])
        a2 = math.atan2(q[1] - v[1], q[0] - v[0])
        return math.degrees(abs((a1 - a2 + math.pi) % (2 * math.pi) - math.pi))

    assert abs(vertex_angle(D, F, E) - 36) < 1e-9 and abs(vertex_angle(F, D, G) - 36) < 1e-9
    assert abs(vertex_angle(A, F, H) - 12) < 1e-9 and abs(vertex_angle(F, H, A) - 84) < 1e-9
    total = arc("D", "E") + 2 * arc("H", "J") + 3 * arc("F", "G")
    assert round(total, 9) == 72 + 48 + 216 == OFFICIAL_ANSWERS["2025-II-5"]
    assert_stated(
        "2025-II-5", 1, "$\\angle DFE = \\angle ACB = 36^\\circ$", "$\\wideparen{DE} = 2 \\cdot 36^\\circ = 72^\\circ$",
        "$\\angle FDG = \\angle ACB = 36^\\circ$", "$\\wideparen{FG} = 72^\\circ$",
        "$\\angle FHA = \\angle FAH = 84^\\circ$", "$\\angle AFH = 180^\\circ - 2 \\cdot 84^\\circ = 12^\\circ$",
        "$\\wideparen{HJ} = 2 \\cdot 12^\\circ = 24^\\circ$",
        "$\\wideparen{DE} + 2 \\cdot \\wideparen{HJ} + 3 \\cdot \\wideparen{FG} = 72 + 48 + 216 = 336$",
    )


def test_2025_II_6_rectangle():
    a, b, yd = sp.symbols("a b y_D", positive=True)
    A, B = (0, 0), (6, 0)
    O2 = (B[0] - 15, 0)
    C = (O2[0] - 15, 0)
    assert O2 == (-9, 0) and C == (-24, 0) and B[0] - A[0] == 6 and abs(O2[0] - A[0]) == 15 - 6
    assert sp.solve(9**2 + yd**2 - 15**2, yd) == [12]
    D = (0, 12)
    E, F, G, H = (a, -b), (a, b), (-a, b), (-a, -b)

    def tri_area(p, q, r):
        return sp.Abs(sp.expand((q[0] - p[0]) * (r[1] - p[1]) - (r[0] - p[0]) * (q[1] - p[1]))) / 2

    dgf, chg = tri_area(D, G, F), tri_area(C, H, G)
    solution = sp.solve([a**2 + b**2 - 36, a - 2 * b], [a, b], dict=True)
    assert len(solution) == 1
    values = solution[0]
    assert values[b] ** 2 == sp.Rational(36, 5) and values[a] == 2 * values[b]
    assert sp.simplify(dgf.subs(values) - chg.subs(values)) == 0
    # On the relevant range (b < 12, a < 24) the areas are a(12 - b) and b(24 - a).
    assert sp.simplify(dgf.subs(values) - (a * (12 - b)).subs(values)) == 0
    assert sp.simplify(chg.subs(values) - (b * (24 - a)).subs(values)) == 0
    assert sp.solve(sp.Eq(a * (12 - b), b * (24 - a)), a) == [2 * b]
    # C is closer to GH (x = -a) than to EF (x = a); D closer to FG (y = b) than to EH (y = -b).
    av, bv = values[a], values[b]
    assert abs(C[0] + av) < abs(C[0] - av) and abs(D[1] - bv) < abs(D[1] + bv)
    area = sp.nsimplify(4 * values[a] * values[b])
    assert area == sp.Rational(288, 5) == 8 * values[b] ** 2
    assert area.p + area.q == OFFICIAL_ANSWERS["2025-II-6"]
    assert_stated(
        "2025-II-6", 1, "$O_2 = (-9, 0)$", "$C = (-24, 0)$", "$D = (0, 12)$", "$a^2 + b^2 = 36$",
        "$[DGF] = a(12 - b)$", "$[CHG] = b(24 - a)$", "$a = 2b$", "$b^2 = \\frac{36}{5}$",
        "$2a \\cdot 2b = 8b^2 = \\frac{288}{5}$",
    )


def test_2025_II_7_lcm_subsets():
    divisors = sp.divisors(2025)
    assert len(divisors) == 15 and sp.factorint(2025) == {3: 4, 5: 2}
    assert [d for d in divisors if d % 81 == 0] == [81, 405, 2025]
    assert [d for d in divisors if d % 25 == 0] == [25, 75, 225, 675, 2025]
    # Brute force over all 2^15 subsets (bitmasks).
    good = 0
    for mask in range(1, 1 << 15):
        lcm = 1
        for i, d in enumerate(divisors):
            if mask >> i & 1:
                lcm = lcm * d // math.gcd(lcm, d)
        good += lcm == 2025
    assert good == 2**15 - 2**12 - 2**10 + 2**8 == 27904
    assert 2**14 == 16384 and (2**2 - 1) * (2**4 - 1) * 2**8 == 11520 and 16384 + 11520 == good
    probability = Fraction(good, 2**15)
    assert probability == Fraction(109, 128)
    assert probability.numerator + probability.denominator == OFFICIAL_ANSWERS["2025-II-7"]
    assert_stated(
        "2025-II-7", 1, "$2^{15} - 2^{12} - 2^{10} + 2^{8} = 27904$", "$\\frac{27904}{32768} = \\frac{109}{128}$",
    )
    assert_stated(
        "2025-II-7", 2, "$2025 = 3^4 \\cdot 5^2$", "$(4 + 1)(2 + 1) = 15$", "$2^{14} = 16384$", "$(2^2 - 1)(2^4 - 1) \\cdot 2^8 = 11520$", "$16384 + 11520 = 27904$",
    )


def test_2025_II_8_greedy_coins():
    limit = 1000 + 25 * 3
    best = [0] + [math.inf] * limit
    for amount in range(1, limit + 1):
        best[amount] = 1 + min(best[amount - c] for c in (1, 10, 25) if c <= amount)

    def greedy(amount):
        coins = 0
        for c in (25, 10, 1):
            coins += amount // c
            amount %= c
        return coins

    def g(m):
        return m // 10 + m % 10

    assert all(g(m) == best[m] for m in range(25))  # dimes and pennies: greedy is optimal below 25
    for r in range(25):
        assert g(r + 50) == g(r) + 5
        assert g(r + 25) == (g(r) + 7 if r % 10 <= 4 else g(r) - 2)
    failures = [n for n in range(1, 1001) if greedy(n) != best[n]]
    assert failures == [n for n in range(25, 1001) if n % 25 in {5, 6, 7, 8, 9, 15, 16, 17, 18, 19}]
    assert all(greedy(n) - best[n] == 3 for n in failures)
    assert len(failures) == 10 * 39 == 390
    assert 25 * 39 + 19 == 994 and 25 * 40 + 5 > 1000
    assert 1000 - len(failures) == OFFICIAL_ANSWERS["2025-II-8"]
    assert_stated(
        "2025-II-8", 1, "$N = 25q + r$", "$g(M) = \\lfloor M/10 \\rfloor + (M \\bmod 10)$",
        "$g(r + 50) = g(r) + 5$", "$g(r + 25) = g(r) + 7$", "$g(r + 25) = g(r) - 2$",
        "$N \\bmod 25 \\in \\{5, 6, 7, 8, 9, 15, 16, 17, 18, 19\\}$", "$10 \\cdot 39 = 390$", "$1000 - 390 = 610$",
    )


def test_2025_II_9_zeros_and_tangency():
    x = sp.symbols("x", real=True)
    f = sp.sin(7 * sp.pi * sp.sin(5 * x))
    assert sp.simplify(sp.diff(f, x) - 35 * sp.pi * sp.cos(5 * x) * sp.cos(7 * sp.pi * sp.sin(5 * x))) == 0
    zeros_by_k = {}
    for k in range(-7, 8):
        c = k / 7
        base = math.asin(c)
        thetas = set()
        for period in range(-1, 7):
            for theta in (base + 2 * math.pi * period, math.pi - base + 2 * math.pi * period):
                if 1e-9 < theta < 10 * math.pi - 1e-9:
                    thetas.add(round(theta, 9))
        zeros_by_k[k] = sorted(thetas)
    counts = {k: len(v) for k, v in zeros_by_k.items()}
    assert counts[7] == counts[-7] == 5 and counts[0] == 9
    assert all(counts[k] == 10 for k in range(-6, 7) if k != 0)
    n = sum(counts.values())
    assert n == 10 + 9 + 120 == 139
    fprime = lambda xv: 35 * math.pi * math.cos(5 * xv) * math.cos(7 * math.pi * math.sin(5 * xv))  # noqa: E731
    tangent = [theta / 5 for v in zeros_by_k.values() for theta in v if abs(fprime(theta / 5)) < 1e-6]
    assert all(abs(math.sin(7 * math.pi * math.sin(5 * xv))) < 1e-9 for xv in tangent)
    t = len(tangent)
    assert t == 10 and {round(math.sin(5 * xv)) for xv in tangent} == {-1, 1}
    assert n + t == OFFICIAL_ANSWERS["2025-II-9"]
    assert_stated(
        "2025-II-9", 1, "$\\sin 5x = \\frac{k}{7}$", "$n = 10 + 9 + 120 = 139$",
        "$f'(x) = 35\\pi\\cos(5x)\\cos(7\\pi\\sin 5x)$", "$t = 10$",
    )


def test_2025_II_10_chairs():
    brute = sum(1 for chairs in itertools.combinations(range(16), 8)
                if not any(c + 1 in chairs and c + 2 in chairs for c in chairs))
    terms = [math.comb(9, j) * math.comb(9 - j, 8 - 2 * j) for j in range(5)]
    assert terms == [9, 252, 1260, 1260, 126]
    assert brute == sum(terms) == 2907
    assert brute % 1000 == OFFICIAL_ANSWERS["2025-II-10"]
    assert_stated(
        "2025-II-10", 1, "$\\binom{9}{j}\\binom{9 - j}{8 - 2j}$", "$\\binom{9}{0}\\binom{9}{8} = 9$",
        "$\\binom{9}{1}\\binom{8}{6} = 252$", "$\\binom{9}{2}\\binom{7}{4} = 1260$",
        "$\\binom{9}{3}\\binom{6}{2} = 1260$", "$\\binom{9}{4}\\binom{5}{0} = 126$",
        "$N = 9 + 252 + 1260 + 1260 + 126 = 2907$", "$N \\bmod 1000 = 907$",
    )


def _perfect_matchings(vertices, edges):
    """Number of perfect matchings of the graph (small graphs only)."""
    if not vertices:
        return 1
    first = min(vertices)
    return sum(_perfect_matchings(vertices - {first, other}, edges)
               for other in vertices if other != first and frozenset((first, other)) in edges)


def test_2025_II_11_equal_segments():
    per_step = {}
    for k in range(1, 13):
        edges = {frozenset((i, (i + k) % 24)) for i in range(24)}
        per_step[k] = _perfect_matchings(frozenset(range(24)), edges)
        d = math.gcd(k, 24)
        formula = 1 if k == 12 else (2**d if (24 // d) % 2 == 0 else 0)
        assert per_step[k] == formula
    assert per_step == {1: 2, 2: 4, 3: 8, 4: 16, 5: 2, 6: 64, 7: 2, 8: 0, 9: 8, 10: 4, 11: 2, 12: 1}
    # Chord length depends only on the step (and different steps give different lengths).
    lengths = [round(2 * math.sin(math.pi * k / 24), 12) for k in range(1, 13)]
    assert len(set(lengths)) == 12
    assert sum(per_step.values()) == OFFICIAL_ANSWERS["2025-II-11"]
    assert_stated(
        "2025-II-11", 1, "$d = \\gcd(k, 24)$", "$2^{\\gcd(k, 24)}$", "$2^2 = 4$", "$2^3 = 8$", "$2^4 = 16$",
        "$2^6 = 64$", "$2 + 4 + 8 + 16 + 2 + 64 + 2 + 0 + 8 + 4 + 2 + 1 = 113$",
    )


def _segments_cross(p1, p2, p3, p4):
    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    d1, d2 = orient(p3, p4, p1), orient(p3, p4, p2)
    d3, d4 = orient(p1, p2, p3), orient(p1, p2, p4)
    return d1 * d2 < 0 and d3 * d4 < 0


def test_2025_II_12_fan_polygon():
    u = sp.symbols("u", positive=True)
    cos_t = sp.Rational(12, 13)
    sin_t = sp.sqrt(1 - cos_t**2)
    assert sin_t == sp.Rational(5, 13)
    product = 2 / sin_t
    assert product == sp.Rational(26, 5)
    assert 2 * product * cos_t == sp.Rational(48, 5) and 2 * product == sp.Rational(52, 5)
    side_sq = u**2 - 2 * product - 2 * product * cos_t
    assert side_sq == u**2 - 20
    assert sp.expand(81 * (u**2 - 20) - (20 - u) ** 2) == sp.expand(20 * (4 * u**2 + 2 * u - 101))
    roots = sp.solve(4 * u**2 + 2 * u - 101, u)
    assert len(roots) == 1
    value = roots[0]
    assert sp.simplify(value - (-2 + sp.sqrt(1620)) / 8) == 0 and sp.sqrt(1620) == 18 * sp.sqrt(5)
    assert sp.simplify(value - (9 * sp.sqrt(5) - 1) / 4) == 0
    assert sp.simplify(value + 9 * sp.sqrt(value**2 - 20) - 20) == 0 and value < 20
    assert value**2 >= 4 * product and 4 * product == sp.Rational(104, 5)
    # Build the polygon and check every condition numerically.
    uf = float(value)
    x = (uf + math.sqrt(uf * uf - 4 * 26 / 5)) / 2
    y = 26 / 5 / x
    theta = math.acos(12 / 13)
    assert math.pi < 9 * theta < 2 * math.pi
    pts = [(0.0, 0.0)] + [((x if i % 2 == 0 else y) * math.cos((i - 2) * theta),
                           (x if i % 2 == 0 else y) * math.sin((i - 2) * theta)) for i in range(2, 12)]
    for i in range(1, 10):  # triangles A_i A_1 A_{i+1}, i = 2..10
        (ax, ay), (bx, by) = pts[i], pts[i + 1]
        assert abs(abs(ax * by - ay * bx) / 2 - 1) < 1e-12
        assert abs((ax * bx + ay * by) / (math.hypot(ax, ay) * math.hypot(bx, by)) - 12 / 13) < 1e-12
    perimeter = sum(math.dist(pts[i], pts[(i + 1) % 11]) for i in range(11))
    assert abs(perimeter - 20) < 1e-12
    edges = [(pts[i], pts[(i + 1) % 11]) for i in range(11)]
    assert not any(_segments_cross(*edges[i], *edges[j]) for i in range(11) for j in range(i + 2, 11)
                   if not (i == 0 and j == 10))  # simple
    assert abs(math.dist(pts[0], pts[1]) + math.dist(pts[0], pts[10]) - uf) < 1e-12
    assert 9 + 5 + 1 + 4 == OFFICIAL_ANSWERS["2025-II-12"]
    assert_stated(
        "2025-II-12", 1, "$\\sin\\theta = \\frac{5}{13}$", "$r_i r_{i+1} = \\frac{26}{5}$", "$xy = \\frac{26}{5}$",
        "$A_iA_{i+1}^2 = x^2 + y^2 - 2xy \\cdot \\frac{12}{13} = x^2 + y^2 - \\frac{48}{5}$",
        "$x^2 + y^2 = u^2 - \\frac{52}{5}$", "$A_iA_{i+1}^2 = u^2 - 20$", "$u + 9\\sqrt{u^2 - 20} = 20$",
        "$81(u^2 - 20) = (20 - u)^2$", "$4u^2 + 2u - 101 = 0$", "$u = \\frac{-2 + \\sqrt{1620}}{8}$",
        "$u = \\frac{9\\sqrt{5} - 1}{4}$", "$u^2 \\ge 4xy = \\frac{104}{5}$",
    )


def test_2025_II_13_rational_sequence():
    m, n = sp.symbols("m n")
    assert sp.simplify((m / n + n / m - 1) / 3 - (m**2 - m * n + n**2) / (3 * m * n)) == 0
    assert sp.expand((m + n) ** 2 - 3 * m * n) == sp.expand(m**2 - m * n + n**2)
    x = Fraction(25, 11)
    sums = []
    for k in range(1, 9):
        sums.append(x.numerator + x.denominator)
        assert sums[-1] == 3 * 12 ** (2 ** (k - 1))  # s_k = 3 * w_k with w_k = 12^(2^(k-1))
        if k == 2:
            assert x == Fraction(157, 275)
        x = (x + 1 / x - 1) / 3
    assert sums[:2] == [36, 432] and all(sums[i + 1] * 3 == sums[i] ** 2 for i in range(len(sums) - 1))
    assert pow(2, 20, 25) == 1 and 2024 % 20 == 4 and pow(2, 2024, 100) == 16
    assert [pow(12, e, 125) for e in (2, 4, 8, 16)] == [19, 111, 71, 41]
    assert 144 % 8 == 0 and 3 * 41 % 125 == 123
    answer = 3 * pow(12, 2**2024, 1000) % 1000
    assert answer % 8 == 0 and answer % 125 == 123
    assert answer == OFFICIAL_ANSWERS["2025-II-13"]
    assert_stated(
        "2025-II-13", 1, "$x_{k+1} = \\frac{m_k^2 - m_k n_k + n_k^2}{3m_k n_k}$",
        "$m_{k+1} = \\frac{m_k^2 - m_k n_k + n_k^2}{3}$", "$n_{k+1} = m_k n_k$",
        "$s_{k+1} = \\frac{(m_k + n_k)^2 - 3m_k n_k}{3} + m_k n_k = \\frac{s_k^2}{3}$", "$s_1 = 25 + 11 = 36$",
        "$x_2 = \\frac{157}{275}$", "$s_2 = 432$", "$w_{k+1} = w_k^2$", "$w_k = 12^{2^{k-1}}$",
        "$m + n = s_{2025} = 3 \\cdot 12^{2^{2024}}$", "$2^{2024} \\equiv 16 \\pmod{100}$",
        "$12^{16} \\equiv 41 \\pmod{125}$", "$s_{2025} \\equiv 3 \\cdot 41 = 123 \\pmod{125}$", "$m + n \\equiv 248 \\pmod{1000}$",
    )


def test_2025_II_14_points_k_and_l():
    r3 = sp.sqrt(3)
    t = sp.symbols("t", real=True)
    assert sp.Rational(38**2, 28**2) == sp.Rational(361, 196)
    assert 2 * (sp.Rational(361, 196) - 1) == sp.Rational(165, 98)
    assert sp.simplify(sp.cos(2 * t) + sp.cos(sp.pi / 3 - 2 * t) - 2 * sp.cos(sp.pi / 6) * sp.cos(2 * t - sp.pi / 6)) == 0
    cos_shift = sp.Rational(165, 98) / r3
    assert sp.radsimp(cos_shift) == 55 * r3 / 98 and sp.sqrt(1 - cos_shift**2) == sp.Rational(23, 98)
    cos2 = sorted(sp.nsimplify(r3 / 2 * cos_shift - sign * sp.Rational(23, 98) / 2) for sign in (1, -1))
    assert cos2 == [sp.Rational(71, 98), sp.Rational(47, 49)]
    cos_theta = sorted(sp.sqrt((1 + c) / 2) for c in cos2)
    assert cos_theta == [sp.Rational(13, 14), 4 * r3 / 7]
    assert {28 * c for c in cos_theta} == {26, 16 * r3}
    # Numeric search over AB confirms these are the only two configurations.
    def kl_gap(ab):
        ac = math.sqrt(38**2 - ab * ab)
        K = (ab / 2, math.sqrt(196 - ab * ab / 4))
        L = (math.sqrt(196 - ac * ac / 4), ac / 2)
        return math.dist(K, L) - 14
    lo = math.sqrt(38**2 - 28**2)
    grid = [lo + (28 - lo) * i / 20000 for i in range(1, 20000)]
    sign_changes = [(a, b) for a, b in zip(grid, grid[1:]) if kl_gap(a) * kl_gap(b) < 0]
    assert len(sign_changes) == 2
    assert any(a < 26 < b for a, b in sign_changes) and any(a < 16 * math.sqrt(3) < b for a, b in sign_changes)
    A, B, C = (0, 0), (16 * r3, 0), (0, 26)
    K, L = (8 * r3, 2), (3 * r3, 13)
    d2 = lambda p, q: sp.expand((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2)  # noqa: E731
    assert [d2(*pair) for pair in ((A, K), (A, L), (B, K), (C, L), (K, L))] == [196] * 5
    assert d2(B, C) == 38**2
    assert sp.Rational(1, 7) ** 2 + (4 * r3 / 7) ** 2 == 1 and K[1] == 14 * sp.Rational(1, 7)
    assert L[0] == 14 * 3 * r3 / 14
    quad = [B, K, L, C]
    shoelace = sp.expand(sum(quad[i][0] * quad[(i + 1) % 4][1] - quad[(i + 1) % 4][0] * quad[i][1] for i in range(4)) / 2)
    assert abs(shoelace) == 104 * r3
    pieces = [sp.Rational(1, 2) * 16 * r3 * 26, sp.Rational(1, 2) * 16 * r3 * 14 / 7,
              sp.Rational(1, 2) * 26 * 14 * 3 * r3 / 14, r3 / 4 * 14**2]
    assert pieces == [208 * r3, 16 * r3, 39 * r3, 49 * r3]
    assert pieces[0] - pieces[1] - pieces[2] - pieces[3] == 104 * r3
    assert 104 == OFFICIAL_ANSWERS["2025-II-14"]
    assert_stated(
        "2025-II-14", 1, "$\\angle LAC = 30^\\circ - \\theta$", "$AB = 28\\cos\\theta$",
        "$AC = 28\\cos(30^\\circ - \\theta)$", "$\\cos^2\\theta + \\cos^2(30^\\circ - \\theta) = \\frac{361}{196}$",
        "$\\cos 2\\theta + \\cos(60^\\circ - 2\\theta) = \\frac{165}{98}$",
        "$\\cos(2\\theta - 30^\\circ) = \\frac{55\\sqrt{3}}{98}$", "$\\sin(2\\theta - 30^\\circ) = \\pm\\frac{23}{98}$",
        "$\\cos 2\\theta = \\frac{47}{49}$", "$\\cos 2\\theta = \\frac{71}{98}$", "$\\cos\\theta = \\frac{4\\sqrt{3}}{7}$",
        "$\\cos\\theta = \\frac{13}{14}$", "$AB = 16\\sqrt{3}$", "$AC = 26$",
        "$\\sin(30^\\circ - \\theta) = \\frac{3\\sqrt{3}}{14}$",
        "$[ABC] = \\frac{1}{2} \\cdot 16\\sqrt{3} \\cdot 26 = 208\\sqrt{3}$",
        "$[ABK] = \\frac{1}{2} \\cdot 16\\sqrt{3} \\cdot 14 \\cdot \\frac{1}{7} = 16\\sqrt{3}$",
        "$[ALC] = \\frac{1}{2} \\cdot 26 \\cdot 14 \\cdot \\frac{3\\sqrt{3}}{14} = 39\\sqrt{3}$",
        "$[AKL] = \\frac{\\sqrt{3}}{4} \\cdot 14^2 = 49\\sqrt{3}$",
        "$[BKLC] = 208\\sqrt{3} - 16\\sqrt{3} - 39\\sqrt{3} - 49\\sqrt{3} = 104\\sqrt{3}$",
        "$K = (8\\sqrt{3}, 2)$", "$L = (3\\sqrt{3}, 13)$",
    )


def test_2025_II_15_two_minima():
    x, k, t, s, P, m = sp.symbols("x k t s P m")
    N = sp.expand((x - 18) * (x - 72) * (x - 98) * (x - k))
    assert N.coeff(x, 3) == -(188 + k) and N.coeff(x, 2) == 10116 + 188 * k and N.coeff(x, 0) == 127008 * k
    assert sp.expand((x**2 - s * x + P) ** 2) == sp.expand(x**4 - 2 * s * x**3 + (s**2 + 2 * P) * x**2 - 2 * s * P * x + P**2)
    assert 252**2 * 2 == 127008
    quartic = sp.expand((94 + t**2) ** 2 + 1008 * t - 10116 - 376 * t**2)
    assert quartic == t**4 - 188 * t**2 + 1008 * t - 1280
    assert sp.expand((t - 2) * (t - 4) * (t - 10) * (t + 16)) == quartic
    ks = [2 * root**2 for root in (2, 4, 10)]
    assert ks == [8, 32, 200]
    for kv, sv, Pv, gap in ((8, 98, 1008, 5572), (32, 110, 2016, 4036), (200, 194, 5040, 17476)):
        assert 2 * sv == 188 + kv and Pv**2 == 127008 * kv and sv**2 + 2 * Pv == 10116 + 188 * kv
        assert sv**2 - 4 * Pv == gap > 0
        p_, q_ = sorted(sp.solve(x**2 - sv * x + Pv, x))
        assert p_ > 0 and q_ > p_
        # N(x) - m x is the square (x - p)^2 (x - q)^2 for the right m, so f - m >= 0 with equality at p, q.
        diff = sp.expand(N.subs(k, kv) - sp.expand((x - p_) ** 2 * (x - q_) ** 2))
        assert sp.Poly(diff, x).degree() == 1 and diff.coeff(x, 0) == 0
        minimum = diff.coeff(x, 1)
        f_k = sp.lambdify(x, N.subs(k, kv) / x)
        assert min(f_k(i / 8) for i in range(1, 2400)) >= float(minimum) - 1e-6
        assert abs(f_k(float(p_)) - float(minimum)) < 1e-6 and abs(f_k(float(q_)) - float(minimum)) < 1e-6
    # A value of k not in the list has a single minimiser: e.g. k = 100.
    f100 = sp.lambdify(x, N.subs(k, 100) / x)
    values = [f100(i / 100) for i in range(1, 30000)]
    best = min(values)
    near = [i for i, v in enumerate(values) if v - best < 1e-3 * abs(best)]
    assert max(near) - min(near) < 500  # all near-minimal points sit in one place
    assert sum(ks) == OFFICIAL_ANSWERS["2025-II-15"]
    assert_stated(
        "2025-II-15", 1, "$N(x) - mx = (x - p)^2(x - q)^2$",
        "$(x^2 - sx + P)^2 = x^4 - 2sx^3 + (s^2 + 2P)x^2 - 2sPx + P^2$",
        "$2s = 188 + k$", "$s^2 + 2P = 10116 + 188k$", "$P^2 = 127008k$", "$P = 252\\sqrt{2k}$",
        "$s = 94 + t^2$", "$P = 504t$", "$t^4 - 188t^2 + 1008t - 1280 = 0$",
        "$(t - 2)(t - 4)(t - 10)(t + 16) = 0$", "$k = 8$", "$k = 32$", "$k = 200$",
        "$s^2 - 4P = 5572 > 0$", "$s^2 - 4P = 4036 > 0$", "$s^2 - 4P = 17476 > 0$", "$8 + 32 + 200 = 240$",
    )
