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
    # a number in words: "half price", "half a cup", "half of that"
    ("Crista has 4 plants that need half a cup of water, so that's 2 cups of water.", "0.5 \\times 4 = 2"),
    ("a pair of tennis shoes that were originally $48 but were on sale for half price, so she paid $24 for them.",
     "48 / 2 = 24"),
    ("We know that the circumference of the earth is 40,000 kilometers, so half of that is 20,000 kilometers.",
     "40,000/2 = 20,000"),
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
    ("Two of 5 boxes are red, so 10 are left.", "2 * 5 = 10"),  # a count in words too
    ("At two pm, 10 people and 20 dogs arrived.", "2 * 10 = 20"),
    ("Crista has 4 plants that need half a cup of water, so that's 3 cups of water.", "0.5 \\times 4 = 2"),
]

# The result in the sentence after the operands', which opens by referring to it (GSM8K runs,
# the miss audit's sentences verbatim).
ACROSS = [
    ("To calculate 11/8 of $72, we can multiply 72 by 11/8. This gives us a total of \\boxed{$99}.", "11/8 * $72 = 99"),
    ("We know that there are 9 red sticks, and that there are 5 more blue sticks than red. That means there are 14 "
     "blue sticks.", "9 + 5 = 14"),
    ("Emma has already made 18 vlogs for the first week, 21 vlogs for the second week, and 15 vlogs for the third "
     "week. That means she has already made 54 vlogs.", "18 + 21 + 15 = 54"),
    ("4 sunflowers need 12 pounds of soil, and 10 carnations need 15 pounds of soil. That's a total of 27 pounds of "
     "soil.", "12 + 15 = 27"),
]

NOT_ACROSS = [
    ("She had 50 cats and 20 ran away. Then 30 cats came.", "50 - 20 = 30"),  # no word of consequence
    ("She had 50 cats and 20 ran away. The next day, 30 cats left.", "50 - 20 = 30"),  # no opener
    ("She had 50 cats and 20 ran away. So 3 dogs and 30 birds stayed.", "50 - 20 = 30"),  # not its first number
    ("She had 50 cats and 20 ran away. It rained. That leaves 30 cats.", "50 - 20 = 30"),  # not the next sentence
    ("She had 50 cats and 20 ran away. So 30 + 1 = 31 cats.", "50 - 20 = 30"),  # it writes a relation
    ("She had 50 cats and 20 ran away. That leaves 31 cats.", "50 - 20 = 30"),  # another value
    # an operand only after the result (GSM8K test/339, text-davinci-003; read NO by a reviewer)
    ("Farmer Brown has 60 animals on his farm, and he has twice as many chickens as cows. That means he has 40 "
     "chickens and 20 cows.", "2 * 20 = 40"),
]


# one operand referred back to: the number the sentence before ends on (verbatim from correct GSM8K
# solutions of text-davinci-003, Faithful-CoT / Re-reading runs, whose node the matcher missed)
BACK = [
    ("The circumference of the earth is 40,000 kilometers. Half of that is 20,000 kilometers.", "40,000/2 = 20,000"),
    ("The Affenpinscher weighed 10 pounds. The Dachshund weighed twice as much, so it weighed 20 pounds.",
     "10 * 2 = 20"),
    ("Lee runs the 400-meter hurdles in 38 seconds. Gerald used to be two seconds slower than Lee, so he used to "
     "run it in 40 seconds.", "38 + 2 = 40"),
    ("Ray had 25 lollipops. He kept 5 lollipops, so that leaves 20 lollipops.", "25 - 5 = 20"),
    # the sentence before is found by itself, not only where another node's search delimited it
    ("John takes 5 minutes to get to the first side. The second and third sides each take twice as long, so that's "
     "10 minutes.", "2 \\times 5 = 10"),
    ("The car in the fast lane is traveling at 60 miles/hour. The car in the slow lane is traveling at half that "
     "speed, which is 30 miles/hour.", "60 / 2 = 30"),
]

NOT_BACK = [
    ("Ray had 25 lollipops. He kept 5 lollipops, so Tom has 20 lollipops.", "25 - 5 = 20"),  # no word refers back
    ("Ray had 25 lollipops and 3 pears. He kept 5 lollipops, so that leaves 20.", "25 - 5 = 20"),  # 25 does not end it
    ("Ray had 25 lollipops. It rained. He kept 5 lollipops, so that leaves 20.", "25 - 5 = 20"),  # not the sentence before
    ("Ray had 25 lollipops. He kept 5 lollipops, so that leaves 21 lollipops.", "25 - 5 = 20"),  # another value
    ("Ray had 25 lollipops. So that is 20, and he kept 5.", "25 - 5 = 20"),  # an operand after the result
    ("Ray had 25 lollipops. He kept 5, so that is 20 more than 0.", "25 - 5 = 20"),  # it compares on
    # the sentence writes the number itself (GSM8K test/611's problem statement: no 5 * 10 = 50 told)
    ("He gets initial funding of $100,000 for the first 5 months of research.  His research ends up taking 10 times "
     "that long and every month after those first 5 took 50% more funding per month.", "5*10=50"),
]


@pytest.mark.parametrize("text, node", POSITIVE)
def test_a_computation_told_in_words_is_covered(text, node):
    match = match_nodes(text, [node])[0]
    assert match.covered and match.via == "words"
    assert text[match.start:match.end].endswith(node.split("=")[-1].strip())  # it ends at the result


@pytest.mark.parametrize("text, node", NEGATIVE)
def test_no_credit_for_numbers_that_tell_no_computation(text, node):
    assert not match_nodes(text, [node])[0].covered


@pytest.mark.parametrize("text, node", ACROSS + BACK)
def test_a_computation_told_across_two_sentences_is_covered(text, node):
    """The result opening the next sentence (ACROSS), or an operand the sentence before ends on
    (BACK): the match runs from the sentence before to the result."""
    match = match_nodes(text, [node])[0]
    assert match.covered and match.via == "words"
    assert match.start == 0 and text[match.start:match.end].endswith(node.split("=")[-1].strip().lstrip("$"))


@pytest.mark.parametrize("text, node", NOT_ACROSS + NOT_BACK)
def test_no_credit_across_sentences_that_do_not_tell_the_computation(text, node):
    assert not match_nodes(text, [node])[0].covered


def test_the_match_spans_the_first_operand_to_the_result():
    text = "Then, 4 boats came and carried away 5 cats each, so that's 20 cats in total."
    match = match_nodes(text, ["4 * 5 = 20"])[0]
    assert text[match.start:match.end] == "4 boats came and carried away 5 cats each, so that's 20"


def test_a_written_computation_is_still_found_by_the_token_rules():
    match = match_nodes("So she has 3 * 64 = 192 crayons.", ["3 * 64 = 192"])[0]
    assert match.covered and match.via != "words"
