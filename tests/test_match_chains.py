r"""Chain following (consensus_metrics.chaining): an equation node reached across sentences.

Positive and negative cases from real model solutions (MATH-500 runs of the SkyThought
evaluation, quoted verbatim), plus the issue's example and GSM8K-style computations. Every rule
keeps the matcher's precision: no credit for 124 when the node is 24, none for a text that only
shares a number, none from a class that states two different values."""

import pytest

from consensus_metrics import match_nodes
from consensus_metrics.normalize import tokenize_form
from consensus_metrics.surds import surd_value

# Qwen2.5-14B-Instruct, MATH-500 precalculus/1303
SIN_D = ("For \\(\\angle D\\):\n   \\[\n   \\sin D = \\frac{\\text{opposite}}{\\text{hypotenuse}} = \\frac{EF}{DF}\n"
         "   \\]\n   Given \\(\\sin D = 0.7\\), we can write:\n   \\[\n   \\frac{7}{DF} = 0.7\n   \\]\n\n"
         "3. **Solve for \\(DF\\):**\n   \\[\n   DF = \\frac{7}{0.7} = 10\n   \\]")
# Qwen2.5-Math-7B, MATH-500 algebra/873
CIRCLE = ("\\[ (x - 5)^2 + (y + 3)^2 = 34 - c \\]\n\nThis is now in the standard form of a circle's equation, where "
          "the radius \\( r \\) is given by \\( r^2 = 34 - c \\). We know the radius \\( r \\) is 1, so:\n"
          "\\[ 1^2 = 34 - c \\]\n\\[ 1 = 34 - c \\]\n\\[ c = 33 \\]")
# Sky-T1-math-correct-5K-32B-short, MATH-500 algebra/567
CASE_1 = ("**Case 1:** $5x-1=x+3$\n\nStarting with the equation:\n\\begin{align*}\n5x - 1 &= x + 3 \\\\\n"
          "\\Rightarrow 5x - x &= 3 + 1 \\\\\n\\Rightarrow 4x &= 4 \\\\\n\\Rightarrow x &= \\frac{4}{4} \\\\\n"
          "\\Rightarrow x &= 1\n\\end{align*}")
# Sky-T1-math-correct-5K-27B, MATH-500 prealgebra/1922
TIMES = ("\\[\nx = 834 \\times \\frac{3}{2}\n\\]\n\nLet's compute that. First, 834 divided by 2 is 417, and then "
         "multiplied by 3 is 1251.\n\n\\[\nx = 417 \\times 3 = 1251\n\\]")
# Qwen2.5-14B-Instruct, MATH-500 intermediate_algebra/991
DIOPHANTINE = ("\\[ 3m + 4n = 100 \\]\n\\[ 3m = 100 - 4n \\]\n\\[ m = \\frac{100 - 4n}{3} \\]\n\n"
               "For \\( m \\) to be an integer, \\( 100 - 4n \\) must be divisible by 3.")


def covered(text, node):
    [m] = match_nodes(text, [node])
    return m.covered, m.via


@pytest.mark.parametrize("text, node", [
    # the example: a product and, a sentence later, its value
    ("So $(5+\\sqrt{3})(5-\\sqrt{3}) = 5^2-(\\sqrt{3})^2$. That is, $25 - 3 = 22$.", "(5+\\sqrt3)(5-\\sqrt3) = 22"),
    # A = B, later B = C (sin D = EF/DF ... 7/DF = 0.7 and sin D = 0.7): sin D = 7/DF
    (SIN_D, "\\sin D = \\frac{7}{DF}"),
    # A = B and B = 1^2 = 1 in later lines: the circle has radius 1
    (CIRCLE, "(x - 5)^2 + (y + 3)^2 = 1"),
    # X = 5 then uses 5
    ("We find $x = 5$. Check: $2(5) + 1 = 11$.", "2x + 1 = 11"),
    # a computation in steps (GSM8K style): 3 + 4 = 7, then 16 - 7 = 9 reaches 16 - 3 - 4 = 9
    ("She eats 3 and bakes with 4, so 3 + 4 = 7 eggs are used. She sells 16 - 7 = 9 eggs.", "16-3-4=9"),
    ("Janet has 16 - 3 = 13 eggs after breakfast and 13 - 4 = 9 after baking.", "16 - 3 - 4 = 9"),
    (CASE_1, "1 + 3 = 4"),
])
def test_an_equation_reached_across_chains_is_covered(text, node):
    assert covered(text, node) == (True, "chain")


@pytest.mark.parametrize("text, node", [
    # a symbol reused across cases links nothing: the class would state 2 and 3
    ("Case 1: x = 2. Case 2: x = 3, and then y = x.", "y = 2"),
    # numeral boundaries hold across chains: t = s and s = 124 do not give s = 24
    ("Let t = s. Then s = 124.", "t = 24"),
    # another computation of the same total, or the same numbers to another total
    ("She eats 3 and bakes 5: 16 - 3 = 13, 13 - 5 = 8.", "16-3-4=9"),
    ("We add 3 + 4 = 7 and 7 + 2 = 9.", "16-3-4=9"),
    # writing the value twice is no computation of it (a number is never a starting point)
    (DIOPHANTINE + " Since 3m + 4n = 100 again,", "3 \\cdot 12 + 4 \\cdot 16 = 100"),
    # reaching the value of an expression is not writing that expression: 834 x 3/2 = 1251 does
    # not state the distributive split 834 x 1 + 834 x 0.5
    (TIMES, "834 \\times 1.5 = 834 \\times 1 + 834 \\times 0.5"),
    # a variable bound to two values is bound to none
    ("Either x = 5 or x = 6. We check 2(5) + 1 = 11.", "2x + 1 = 11"),
    # an unrelated solution that shares numbers
    ("The area is 9 * 2 = 18 and the perimeter 3 + 4 + 5 = 12.", "16-3-4=9"),
])
def test_no_credit_without_a_chain_to_the_node(text, node):
    assert covered(text, node)[0] is False


def test_the_earliest_match_ends_where_the_second_side_is_written():
    text = "So $(5+\\sqrt{3})(5-\\sqrt{3}) = 5^2-(\\sqrt{3})^2$. That is, $25 - 3 = 22$."
    [m] = match_nodes(text, ["(5+\\sqrt3)(5-\\sqrt3) = 22"])
    assert text[m.start:m.start + 7] == "(5+\\sqr" and text[m.end - 2:m.end] == "22"


@pytest.mark.parametrize("a, b", [
    ("(5+\\sqrt3)(5-\\sqrt3)", "22"), ("\\sqrt{27}", "3\\sqrt{3}"), ("\\frac{\\sqrt{8}}{2}", "\\sqrt{2}"),
    ("(\\sqrt{3})^2", "3"), ("\\frac{1}{\\sqrt2}", "\\frac{\\sqrt2}{2}"), ("2^{-3}", "0.125"), ("5!", "120"),
])
def test_exact_values_with_square_roots_agree(a, b):
    assert surd_value(*tokenize_form(a)) == surd_value(*tokenize_form(b)) is not None


@pytest.mark.parametrize("form", ["x + 1", "\\sqrt{-4}", "\\pi", "10^{100}", "0^0", "\\sqrt[3]{8}", "1/0",
                                  "\\sqrt{1 + \\sqrt{2}}", "((((", "2^{2^{2^{2^{2}}}}"])
def test_no_value_is_ever_guessed(form):
    assert surd_value(*tokenize_form(form)) is None


def _follower(text, calls):
    """A ChainFollower over ``text`` wired as ``matching.follow_chains`` wires it; ``calls`` counts
    the anchor searches it makes."""
    from consensus_metrics import segment_plan, text_index
    from consensus_metrics.budget import NO_DEADLINE
    from consensus_metrics.chaining import ChainFollower

    known, indexes = segment_plan._Segments(text), {}

    def segments_with(groups):
        calls.append(groups)
        return segment_plan._anchor_segments(text, None, groups, known, NO_DEADLINE) or {}

    def index_of(start, end, allow_new):
        if start not in indexes and allow_new and end is not None:
            indexes[start] = text_index.segment_index(text[start:end], NO_DEADLINE)
        return indexes.get(start)

    return ChainFollower(segments_with, index_of, NO_DEADLINE)


def test_a_repeated_search_is_remembered_and_charged_as_a_fresh_one():
    text = "So 3 + 4 = 7. Then 7 = 2 + 5. Also 7 = 7 \\cdot 1. And 10 - 3 = 7."
    calls = []
    follower = _follower(text, calls)
    seven = surd_value(*tokenize_form("7"))
    first = follower._value_occurrences(seven)
    charged = follower.tokenised
    # every side worth 7 (3 + 4, 7, 2 + 5, 7 \cdot 1, 10 - 3, ...), four sentences visited
    assert len(first) == 8 and charged == 4 and len(calls) == 1
    assert follower._value_occurrences(seven) == first  # from memory: no second anchor search ...
    assert len(calls) == 1 and follower.tokenised == 2 * charged  # ... but the segment budget pays again


def test_a_search_cut_short_by_the_segment_budget_is_not_remembered(monkeypatch):
    from consensus_metrics import chaining

    monkeypatch.setattr(chaining, "MAX_SEGMENTS", 2)
    text = "So 3 + 4 = 7. Then 7 = 2 + 5. Also 7 = 7 \\cdot 1. And 10 - 3 = 7."
    calls = []
    follower = _follower(text, calls)
    seven = surd_value(*tokenize_form("7"))
    assert len(follower._value_occurrences(seven)) == 4  # the budget stops it after two sentences
    follower._value_occurrences(seven)
    assert len(calls) == 2  # searched again: a partial answer is never reused


# gemma-2-27b-it, MATH-500 prealgebra/951 (SkyThought's run): decimal intermediate results
SQUARES = ("1. **Calculate the squares:**\n   *  2.5² = 6.25\n   *  0.7² = 0.49\n\n2. **Subtract the squares:**\n"
           "   * 6.25 - 0.49 = 5.76\n\n3. **Find the square root:**\n   * √5.76 = 2.4")
# text-davinci-003, GSM8K test/434 (Faithful-CoT's run)
CHIPS = ("George spent $5. He got 3 bags of chips, which cost 3 * 40 cents = $1.20. He had 1% of his money left, "
         "which is $5 * 0.01 = $0.05. He spent $1.20 + $0.05 = $1.25 on chips. He had $5 - $1.25 = $3.75 left.")


def test_a_computation_in_steps_through_fractional_values():
    """``E = v`` is reached by computing ``v`` from ``E``'s numbers in steps, also where a step's
    value or the node's is a fraction or a decimal (found by its anchors like a whole number)."""
    assert covered(SQUARES, "2.5^2 - 0.7^2 = 5.76") == (True, "chain")
    assert covered(CHIPS, "5 - (1.20 + 0.05) = 3.75") == (True, "chain")
    # another intermediate value, or other numbers to the same total, reach nothing
    assert covered(SQUARES.replace("0.49", "0.48").replace("6.25 - 0.48 = 5.76", "6.25 - 0.48 = 5.77"),
                   "2.5^2 - 0.7^2 = 5.76")[0] is False
    assert covered(CHIPS, "5 - (1.20 + 0.5) = 3.75")[0] is False
    assert covered(CHIPS, "5 - 1.2 = 3.8")[0] is False


# Sky-T1-math-correct-5K-32B-short, MATH-500 precalculus/580 (SkyThought's run)
VECTORS = ("- $\\overrightarrow{BA} = \\begin{pmatrix} 1 - 3 \\\\ -11 - (-4) \\\\ 2 - 1 \\end{pmatrix} = "
           "\\begin{pmatrix} -2 \\\\ -7 \\\\ 1 \\end{pmatrix}$")


def test_a_vector_node_is_reached_in_either_notation():
    assert covered(VECTORS, "BA = (-2, -7, 1)")[0] is True
    assert covered("$BA = (-2, -7, 1)$", "BA = \\begin{pmatrix} -2 \\\\ -7 \\\\ 1 \\end{pmatrix}")[0] is True
    assert covered(VECTORS, "BA = (-2, -7, 2)")[0] is False
    assert covered(VECTORS, "BA = (2, 7, -1)")[0] is False
