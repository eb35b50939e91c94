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


def assert_stated(problem_id: str, *snippets: str) -> None:
    """Fail unless every snippet (a computed value written as LaTeX) occurs in the section text."""
    body = sections()[problem_id]["body"]
    missing = [snippet for snippet in snippets if snippet not in body]
    assert not missing, f"{problem_id}: the solution does not state {missing}"


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
        "2025-I-1", "$17_b = b + 7$", "$97_b = 9b + 7$", "$9b + 7 = 9(b + 7) - 56$",
        "$b + 7 \\mid 56$", "$b + 7 = 28$", "$b + 7 = 56$", "$b = 21$", "$b = 49$",
        "$k = 9 - \\frac{56}{b + 7}$", "$21 + 49 = 70$",
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
        "2025-I-2", "$\\frac{AD}{AB} = \\frac{AF}{AC} = \\frac{1}{7}$",
        "$\\frac{AE}{AB} = \\frac{AG}{AC} = \\frac{5}{7}$", "$[DEGF] = \\frac{24}{49}[ABC]$",
        "$[ABC] = 588$", "$[ADF] = 12$", "$[AFM] = [ADF] = 12$", "$[NEMF] = [DEGF] = 288$",
        "$[NBCE] = [EBCG] = 288$", "$[DEGF] = 650\\sin\\theta - 26\\sin\\theta = 624\\sin\\theta$",
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
        "2025-I-3", "$c > v > s \\ge 1$", "$c + v + s = 9$", "$(c, v, s) = (6, 2, 1)$",
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
        "2025-I-4", "$12x^2 - xy - 6y^2 = (3x + 2y)(4x - 3y)$", "$2 \\cdot 33 + 1 = 67$",
        "$2 \\cdot 25 + 1 = 51$", "$67 + 51 - 1 = 117$", "$y^2 + 288y^2 = 289y^2$",
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
        "2025-I-5", "$O + E = 36$", "$O - E = 0$", "$O = E = 18$", "$\\{1,2,7,8\\}$",
        "$\\{3,4,5,6\\}$", "$\\sum_S e(S) = 16$", "$N = 16 \\cdot 3! \\cdot 4! = 2304$",
        "$N - 2025 = 279$",
    )
