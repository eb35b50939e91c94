r"""A division with remainder told as such (consensus_metrics.divisions) states the division
identity, floor and residue nodes of number-theory problems.

The positive sentences are verbatim from correct MATH-500 solutions of the shipped runs (the
record and voice in each comment) whose node or signed proposal the matcher missed before; the
negative ones keep its precision: a false remainder, another division of the same numbers, a
decimal quotient, a remainder not below the divisor, 124 for 24, and a node that is no division."""

import pytest

from consensus_metrics import match_nodes
from consensus_metrics.divisions import need_of, statements

POSITIVE = [
    # number_theory/368 (Qwen2.5-14B-Instruct, Sky-T1-27B, QwQ)
    ("166 \\div 6 = 27 \\text{ remainder } 4", "166 = 6 \\cdot 27 + 4"),
    ("Then, 166 divided by 6 is 27 with a remainder of 4.", "166 = 6 \\cdot 27 + 4"),
    ("166 ÷ 6 = 27 with a remainder of 4.", "166 = 27 \\times 6 + 4"),
    # prealgebra/105 (gpt-4): the spins past whole turns
    ("2250 divided by 360 is 6 with a remainder of 90. That means she makes 6 full rotations",
     "2250 = 6 \\cdot 360 + 90"),
    # number_theory/483 (gpt-4): "gives a quotient of ... and a remainder of"
    ("100 divided by 6 gives a quotient of 16 and a remainder of 4.", "6 \\cdot 16 + 4 = 100"),
    # number_theory/239 (Qwen2.5-32B-Instruct): math delimiters around the numbers
    ("\\( 78 \\div 4 = 19 \\) with a remainder of 2.", "78 \\equiv 2 \\pmod{4}"),
    # number_theory/928 (Qwen2.5-32B-Instruct)
    ("$629 \\div 7 = 89$ remainder $6$", "629 \\bmod 7 = 6"),
    # algebra/661 (Sky-T1-math-correct-5K-32B-short): the floor of a quotient
    ("For a 28-day February, dividing by 3 gives us $28 \\div 3 = 9$ with a remainder.", None),
    ("28 ÷ 3 = 9 with a remainder of 1", "\\left\\lfloor\\frac{28}{3}\\right\\rfloor = 9"),
    # the remainder alone (number_theory/686, Qwen2.5-32B-Instruct; a residue node)
    ("$6 \\div 4$ has a remainder of 2.", "6 \\equiv 2 \\pmod{4}"),
    ("The remainder when 2002 is divided by 3 is 1.", "2002 \\equiv 1 \\pmod{3}"),
    # a residue written below zero: 997 leaves 997
    ("1000 divided by 997 is 1 with a remainder of 3, and 997 divided by 1000 is 0 with a remainder of 997.",
     "997 \\equiv -3 \\pmod{1000}"),
]

NEGATIVE = [
    ("Then, 166 divided by 6 is 27 with a remainder of 5.", "166 = 6 \\cdot 27 + 4"),  # false
    ("166 divided by 27 is 6 with a remainder of 4.", "\\lfloor 166/6 \\rfloor = 27"),  # another division
    ("28 / 3 = 9.33, so about 9 walks.", "\\left\\lfloor\\frac{28}{3}\\right\\rfloor = 9"),  # a decimal quotient
    ("7 divided by 2 is 2 with a remainder of 3.", "7 = 2 \\cdot 2 + 3"),  # the remainder is not below 2
    ("1166 divided by 6 is 194 with a remainder of 2.", "166 \\equiv 4 \\pmod{6}"),  # 166 is inside 1166
    ("The remainder when 78 is divided by 4 is 2.", "78 = 4 \\cdot 19 + 2"),  # the identity needs its quotient
    ("Then, 166 divided by 6 is 27 with a remainder of 4.", "x \\equiv 4 \\pmod{6}"),  # no division node
]


@pytest.mark.parametrize("text, node", [row for row in POSITIVE if row[1]])
def test_a_division_told_with_its_remainder_states_the_node(text, node):
    m, = match_nodes(text, [node])
    assert m.covered, (text, node)
    assert text[m.start:m.end].strip()[:1].isdigit() or text[m.start:m.end].lower().startswith(("the", "remainder"))


@pytest.mark.parametrize("text, node", NEGATIVE)
def test_no_credit_for_another_division_or_a_false_one(text, node):
    assert not match_nodes(text, [node])[0].covered, (text, node)


def test_a_remainder_left_unsaid_is_no_statement():
    assert statements(POSITIVE[7][0]) == []


def test_what_a_node_asks_for():
    assert need_of("166 = 6 \\cdot 27 + 4").identity and need_of("166 = 6 \\cdot 27 + 5") is None  # false identity
    assert need_of("\\lfloor \\frac{42}{5} \\rfloor = 8").q == 8
    assert need_of("x = 6 \\cdot 27 + 4") is None and need_of("2^{10} \\equiv 24 \\pmod{1000}") is None
    assert need_of(None) is None and need_of("") is None


def test_a_long_text_of_divisions_is_read_whole_and_fast():
    text = " ".join(f"{6 * k + 4} divided by 6 is {k} with a remainder of 4." for k in range(2000))
    found = statements(text)
    assert len(found) == 2000 and all(d.a == 6 * d.q + d.r for d in found)
    m, = match_nodes(text, ["11998 = 6 \\cdot 1999 + 4"])
    assert m.covered and text[m.start:m.end].startswith("11998")
