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

# Official answers, copied from ../shared/data/raw/aime25/matharena/aime_2025_{I,II}/answers.csv
# (eth-sri/matharena @ 81f103e38b1df076afa65ee0a3ffbe148d42e6d2); the second copy,
# aime_preview/test2025-{I,II}.jsonl (GAIR-NLP/AIME-Preview), agrees. Kept as a literal table
# because the project must not read ../shared at run time.
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
    with pytest.raises(ValueError, match="line 3: P-1 appears twice|problem P-1 appears twice"):
        parse_solutions("# t\n## P-1\n## P-1\n")
    with pytest.raises(ValueError, match="numbered"):
        parse_solutions("# t\n## P-1\nAnswer: 1\n### Solution 2\n$\\boxed{1}$\n")


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
        "$b = 49$", "$b = 21$", "$b + 7 = \\frac{56}{3}$",
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
    )
    assert_stated(
        "2025-I-2", 2, "$[DEGF] = 650\\sin\\theta - 26\\sin\\theta = 624\\sin\\theta$",
        "$\\sin\\theta = \\frac{6}{13}$", "$M = (26\\cos\\theta - 4, 26\\sin\\theta)$",
        "$N = (40 - 65\\cos\\theta, -65\\sin\\theta)$", "$[AFNBCEM] = 1274\\sin\\theta$",
        "$1274 \\cdot \\frac{6}{13} = 588$",
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
        "$(r - s)^2 = 432$", "$r^2 + s^2 = 504$",
    )
    assert_stated(
        "2025-I-6", 2, "$h = 6$", "$r + s = 24$", "$rs = 36$",
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
