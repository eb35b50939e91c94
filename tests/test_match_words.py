r"""A computation told in words (consensus_metrics.worded): a sentence without an equals sign
that holds a computation node's numbers, a word saying a result follows, then the result.

The positive sentences are verbatim from correct GSM8K and MATH-500 solutions of the shipped
runs whose node the matcher missed, each read by a reviewer who judged it states the node
(ConsensusBench's miss audit); the negative ones keep the matcher's precision: the numbers
without a word of consequence, the result before its operands, a sentence that writes a
relation, a bare enumeration, a false computation, 124 for 24."""

import pytest

from consensus_metrics import match_nodes

POSITIVE = [
    # GSM8K test (Faithful-CoT / Re-reading / DBRX runs)
    ("Then, 4 boats came and carried away 5 cats each, so that's 20 cats in total.", "4 * 5 = 20"),
    ("She makes $10 an hour from wages and $15 an hour from tips, so her total income per hour is $25.",
     "10 + 15 = 25"),
    ("Janeth borrowed $2000 and promised to return it with an additional 10%, which is $200.",
     "2000 * 0.10 = 200"),
    ("Kate has 3 boxes of 64 crayons, so she has 192 crayons in total.", "3 * 64 = 192"),
    ("Carmen spent 10 minutes on each of the 3 crossword puzzles, so that's 30 minutes.", "3 \\times 10 = 30"),
    ("For the first 6 months, Bill paid $8 a month, so for 6 months he paid a total of $48.", "6*8=48"),
    ("Since 40% of the 220 castles are ruins, we can calculate that there are 88 ruined castles in Scotland.",
     "220 * 0.4 = 88"),
    # MATH-500 (gpt-4, PRM800K)
    ("we can multiply $6$ and $7$ in base $10$ to get $42$", "6 \\cdot 7 = 42"),
]

NEGATIVE = [
    ("At 3 pm, 10 people and 30 dogs arrived.", "3 * 10 = 30"),  # no word of consequence
    ("So that's 20 cats: 4 boats came and carried away 5 cats each.", "4 * 5 = 20"),  # result first
    ("He has 4 boats. Each holds 5 cats; so 20 + 1 = 21.", "4 * 5 = 20"),  # writes a relation
    ("The total weight of all the books is 2 + 2 + 4 + 3 + 6 = 17 pounds.", "2*2 = 4"),
    ("He bought 3, 10, 12, 14, 15 and 16 apples, so 30 in all.", "3 * 10 = 30"),  # an enumeration
    ("Kate has 3 boxes of 64 crayons, so she has 191 crayons in total.", "3 * 64 = 192"),  # another value
    ("Kate has 3 boxes of 64 crayons, so she has 1192 crayons in total.", "3 * 64 = 192"),  # 1192 is not 192
    ("Kate has 3 boxes of 64 crayons, so she has 193 crayons in total.", "3 * 64 = 193"),  # a false node
    ("He walked 3 miles, so he is 3 miles from home.", "3 * 1 = 3"),  # the result is an operand
    ("3 \\times 4 is 12 more than 0", "3 \\times 4 = 12"),  # a comparison follows the result
    ("so 2 of 5 is 10", "2 * 5 = 10"),  # whole numbers joined by "of" count, they do not multiply
    ("3 out of 4 students passed, so 12 passed.", "3 * 4 = 12"),
]


@pytest.mark.parametrize("text, node", POSITIVE)
def test_a_computation_told_in_words_is_covered(text, node):
    match = match_nodes(text, [node])[0]
    assert match.covered and match.via == "words"
    assert text[match.start:match.end].endswith(node.split("=")[-1].strip())  # it ends at the result


@pytest.mark.parametrize("text, node", NEGATIVE)
def test_no_credit_for_numbers_that_tell_no_computation(text, node):
    assert not match_nodes(text, [node])[0].covered


def test_the_match_spans_the_first_operand_to_the_result():
    text = "Then, 4 boats came and carried away 5 cats each, so that's 20 cats in total."
    match = match_nodes(text, ["4 * 5 = 20"])[0]
    assert text[match.start:match.end] == "4 boats came and carried away 5 cats each, so that's 20"


def test_a_written_computation_is_still_found_by_the_token_rules():
    match = match_nodes("So she has 3 * 64 = 192 crayons.", ["3 * 64 = 192"])[0]
    assert match.covered and match.via != "words"
