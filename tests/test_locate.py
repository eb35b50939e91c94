"""The step locator (consensus_metrics.locate): each signal on real text, positive and negative.

Texts are quoted from the development data (RAW, see benchmarks/bench_locate.py): the GSM8K
chains of llm-reasoners' AutoRace human-label file (``gsm8k_human_labels@6538cc0.jsonl``, line
numbers given), PRMBench's process files (``prm800k_test_*_4o_<kind>.jsonl``, ``idx`` given) with
the nodes the shipped data files held for those problems when the tests were written (copied
here, so a rebuild of the data does not change what is tested).
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from consensus_metrics.locate import DENSE_SHARE, Location, locate_first_error, problem_values
from consensus_metrics.step_facts import step_facts
from consensus_metrics.steps import split_steps, steps_from_list

# AutoRace line 3 (gold 70000): step 2 multiplies the total cost instead of the price
HOUSE_PROBLEM = ("Josh decides to try flipping a house.  He buys a house for $80,000 and then puts in $50,000 in "
                 "repairs.  This increased the value of the house by 150%.  How much profit did he make?")
HOUSE = ("\nStep 1 - He bought the house for 80,000 and put 50,000 into repairs so the total cost was 80,000+50,000 = "
         "<<80000+50000=130000>>130,000\nStep 2 - He sold the house for 130,000 and the value went up by 150% so "
         "that's 130,000*150% = $<<130000*150*.01=195000.0>>195,000\nStep 3 - He sold the house for 195,000 and he "
         "spent 130,000 on buying and fixing it so his profit was 195,000-130,000 = $<<195000-130000=65000>>65,000\n"
         "Step 4 - The answer is 65000")
HOUSE_NODES = ["130000", "120000", "200000"]

# AutoRace line 1 (gold 18): a right chain
DUCKS_PROBLEM = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for "
                 "her friends every day with four. She sells the remainder at the farmers' market daily for $2 per "
                 "fresh duck egg. How much in dollars does she make every day at the farmers' market?")
DUCKS = ("\nStep 1 - Janet eats 3 duck eggs for breakfast and bakes 4 into muffins so 3 + 4 = <<3+4=7>>7 duck eggs are "
         "used\nStep 2 - Each day Janet's ducks lay 16 eggs and she uses 7, 16 - 7 = <<16-7=9>>9 duck eggs are for "
         "sale\nStep 3 - She sells her eggs for $2 per egg and has 9 available for sale so 2 * 9 = $<<2*9=18>>18 per "
         "day\nStep 4 - The answer is 18")
DUCKS_NODES = [{"id": "n1", "text": "16-3-4=9", "kind": "equation", "forms": ["9 = 16-3-4", "16-3-4 = 9"]}]

# AutoRace line 21 (gold 15): 10 * (2/3) is not 8
ORANGE = ("\nStep 1 - The orange drink is 2/3 water, so 10 liters of orange drink is 10 * (2/3) = <<10*(2/3)=8>>8 "
          "liters of water.\nStep 2 - The remaining orange drink is 10 liters - 8 liters = <<10-8=2>>2 liters of "
          "orange drink.\nStep 3 - The pineapple drink is 3/5 water, so 15 liters of pineapple drink is 15 * (3/5) = "
          "<<15*(3/5)=12>>12 liters of water.\nStep 4 - The remaining pineapple drink is 15 liters - 12 liters = "
          "<<15-12=3>>3 liters of pineapple drink.\nStep 5 - The total water in the mixture is 3 liters + 2 liters = "
          "<<3+2=5>>5 liters of water.\nStep 6 - The answer is 5")
ORANGE_NODES = ["15*3/5=9", "10-1=9", "9*2/3=6"]

# AutoRace line 141 (gold 20): 4/20 of the cars is 20%, not 25%
CARS = ("\nStep 1 - The total number of cars is 20 cars, so the number of semi-automatic cars is 20 cars - 12 cars - "
        "4 cars = <<20-12-4=4>>4 cars.\nStep 2 - The proportion of semi-automatic cars is 4 cars / 20 cars * 100% = 25%"
        "\nStep 3 - The answer is 25")

# AutoRace line 77: 580/110 = 5.27 rounds; line 3: 130,000 * 150% = 195,000 holds
PUPPY_STEP = "This means, she will need 580/110 = <<580/110=5.2727272727272725>>5.27 bags of dog food in the first year."

# PRMBench prm_test_p2_1763 (step_contradiction, error at step 4): nodes 3 + 1/x = 7/x, 3x = 6
RECIPROCAL_NODES = [{"id": "n1", "text": "3 + \\frac{1}{x} = \\frac{7}{x}"}, {"id": "n2", "text": "3x = 6"}]
RECIPROCAL = ["I need to find a number that satisfies the given equation, so I will call that number x.",
              "I can rewrite the equation using algebraic notation as 3 + 1/x = 7/x.",
              "To eliminate the fractions, I can multiply both sides by x, which gives me 3x + 1 = 7.",
              "Then I incorrectly subtract 1 from both sides: 3x = 8.",
              "I divide by 3 to isolate x, which gives me x = 8/3."]

# PRMBench prm_test_p2_1294 (original, error-free): guess and check around the node A = 5
GUESSES = ["This gives me a system of equations: $AB = 10$, $3A-8B = -1$, and $-24 = -24$.",
           "I notice that $10$ has only a few pairs of factors, so I try to guess and check.",
           "If $A = 1$ and $B = 10$, then $3A-8B = -77$, which is too small.",
           "If $A = 2$ and $B = 5$, then $3A-8B = -34$, which is still too small.",
           "If $A = 5$ and $B = 2$, then $3A-8B = -1$, which is what I want.",
           "So $A = 5$ and $B = 2$ is the solution."]

# PRMBench prm_test_p2_2594 (original, error-free): two roots, one is not the node x = -5
ROOTS_NODES = ["x^2 + 3x - 4 = 0", "x^2 + 9x + 20 = 0", "x = -5"]
ROOTS = ["To solve for $|x^2+3x-4|=0$, I can drop the absolute value signs and get $x^2+3x-4=0$.",
         "It looks like it factors nicely as $(x+4)(x-1)=0$.",
         "So this equation has two solutions: $x=-4$ and $x=1$."]

# PRMBench prm_test_p1_52 (original, "error-free" in PRMBench, but 650 * 90 is 58500) and
# prm_test_p2_1958 (original): a matrix computation that is no scalar equation
PLATES = ["So the total number of ways we can pick the numbers is $10*9=90$",
          "So $676*90=60840$",
          "And the total number of license plates is $650*90=585000$."]
MATRIX = ("&= 6 \\begin{pmatrix} 1 \\\\ -7 \\\\ 18 \\end{pmatrix} - 3 \\begin{pmatrix} 4 \\\\ 7 \\\\ 2 \\end{pmatrix} "
          "\\\\ \n&= \\begin{pmatrix} 6 - 12 - 12 \\\\ -42 - 21 + 14 \\\\ 108 - 6 - 6 \\end{pmatrix} \\\\ \n"
          "&= \\begin{pmatrix} -18 \\\\ -49 \\\\ 96 \\end{pmatrix}.")


# ----------------------------------------------------------------------------- steps
def test_labelled_steps_paragraphs_lines_and_lists():
    assert [s.body for s in split_steps(DUCKS)][-1] == "The answer is 18"
    assert len(split_steps(DUCKS)) == 4
    assert [s.body for s in split_steps("**Step 1:** x = 2\n\n**Step 2:** y = 3")] == ["x = 2", "y = 3"]
    assert [s.body for s in split_steps("Intro.\nStep 1. a\nStep 2. b")] == ["Intro.", "a", "b"]
    assert [s.body for s in split_steps("a\n\nb\nc\n\n\n")] == ["a", "b\nc"]
    assert split_steps("   \n\n ") == []
    text, steps = steps_from_list(["a", "", "b"])
    assert [s.index for s in steps] == [0, 1, 2] and text[steps[2].start:steps[2].end] == "b"
    with pytest.raises(TypeError, match="step 1 must be a string"):
        steps_from_list(["a", 3])


# ----------------------------------------------------------------------------- false computation
def test_false_computation_found_in_real_steps():
    loc = locate_first_error(ORANGE, ORANGE_NODES)  # the answer is not even needed
    assert (loc.step, loc.kind) == (0, "false_computation")
    assert "10 * (2/3) = 8 is false (10 * (2/3) is 20/3)" in loc.reason
    loc = locate_first_error(CARS, [])  # a percentage; a problem without nodes
    assert (loc.step, loc.kind) == (1, "false_computation")
    assert locate_first_error(PLATES, ["26", "25"]).step == 2  # a real slip in a PRM800K solution
    loc = locate_first_error(["Ok. $54 = 2 \\times 3^3$, so the prime factorization is $54$.",
                              "Right. So the square root of 54 is $\\sqrt{54} = \\sqrt{6} \\cdot \\sqrt{9} = 2\\sqrt{27}$."])
    assert loc.step == 1 and "= 2\\sqrt{27} is false" in loc.reason  # surds (PRMBench prm_test_p1_3)


SKATER = [  # PRMBench prm_test_p2_2475 (domain_inconsistency), steps 1-4 of 9; labelled wrong from step 3
    "To solve this problem, I need to figure out how many full rotations the skater makes and what fraction of "
    "a rotation she makes on her last spin.",
    "A full rotation is 360 degrees, so I can divide 2250 by 360 to find out how many full rotations she makes.",
    "2250 divided by 360 is 6 with a remainder of 270.",
    "That means she makes 6 full rotations and then spins another 270 degrees on her last spin.",
]


def test_a_false_division_with_remainder_is_a_false_computation():
    """A division told with its quotient and remainder is a computation the locator checks
    (consensus_metrics.divisions.told); a true one, or a modular step around it, convicts nothing."""
    loc = locate_first_error(SKATER, [])
    assert (loc.step, loc.kind) == (2, "false_computation")
    assert "2250 ÷ 360 = 6 remainder 270 is false (360 · 6 + 270 is 2430)" in loc.reason
    for true in ("2250 divided by 360 is 6 with a remainder of 90.",  # gpt-4, MATH-500 prealgebra/105
                 "\\[166 \\div 6 = 27 \\text{ remainder } 4\\]",  # Qwen2.5-14B-Instruct, number_theory/368
                 "$629 \\div 7 = 89$ remainder $6$, so $629 \\equiv 6 \\pmod{7}$.",
                 "For a 28-day February, dividing by 3 gives us $28 \\div 3 = 9$ with a remainder."):
        assert not step_facts(true).false_computations, true
    assert step_facts("so 166 ÷ 6 = 27 with a remainder of 5, hence 166 \\equiv 5 \\pmod 6").false_computations


def test_true_rounded_and_non_computations_are_not_false():
    assert not step_facts(PUPPY_STEP).false_computations  # 5.27 rounds 580/110
    assert [c.holds for c in step_facts(PUPPY_STEP).computations] == [True]
    house = step_facts("that's 130,000*150% = $<<130000*150*.01=195000.0>>195,000")
    assert [c.holds for c in house.computations] == [True]
    for text in ("One dollar is $1 = 100 cents", MATRIX,
                 "So we get $P(X=4) = 35 \\times \\frac{1}{625} \\times \\frac{64}{125}$.",  # PRMBench prm_test_p1_71
                 "So, if I multiply both sides by 42 * 20/21, I get 42 * 20/21 daps = 42 baps.",  # prm_test_p2_2602
                 "So $\\sqrt{2} \\approx 1.41$"):
        assert not step_facts(text).false_computations, text
    loc = locate_first_error(DUCKS, DUCKS_NODES, answer_correct=True, problem=DUCKS_PROBLEM)
    assert loc.step is None and loc.reason.startswith("no error found")


# right-answer solutions of real model runs (RAW/trajectories: SkyThought MATH-500 runs of
# Qwen2.5-14B-Instruct and gemma-2-27b-it, Rho-Math-7B on GSM8K): every "=" here is fine as meant
MEANT_AS_WRITTEN = [
    "1. **Testing \\(x = 1\\):**\n   \\[\n   3^{2 \\cdot 1} + 19 = 10^1\n   \\]\n   \\[\n   9 + 19 = 10\n   \\]\n"
    "   \\[\n   28 \\neq 10\n   \\]\n   So, \\(x = 1\\) is not a solution.",
    "\\[\n8^4 = (8^2)^2 = 9^2 = 81 \\equiv 81 - 7 \\times 11 = 81 - 77 = 4 \\pmod{11}\n\\]",
    "* **Substitute and simplify:** Substitute 2² for 4 in the equation: \n   2⁸ = (2²)ˣ",
    "(r₁ - 5) + (r₂ - 5) + (r₃ - 5) = r₁ + r₂ + r₃ - 15 = 49 - 15 = 34",
    "$\\frac{7}{30}@\\frac{10}{21} = (7)(10)\\left(\\frac{21}{30}\\right)$",
    "If 6 Pomeranians are girls, then there are 6 / 1/3 = 6 * 3 = 18 Pomeranians.",
    "So each person got 27 + 22 + 11 = 60 seashells / 3 = 20 seashells. The answer is 20.",
    "Team The finders found 60% of the remaining shells, which is 60% of (700 - 280) = 60% of 420, or 0.60 * 420 = 252 shells.",
    "Jerry's share is 0.2 * 100 = 20% of the pie.",
    "the cost is 99.3 * 1.35 = 133.96 dollars, and \\(56 \\times \\frac{3}{7} = 56 \\times 0.42857 = 24\\)",
]


@pytest.mark.parametrize("text", MEANT_AS_WRITTEN)
def test_equalities_meant_otherwise_are_not_false(text):
    assert not step_facts(text).false_computations


def test_slips_in_right_answer_solutions_are_found():
    # Rho-Math-7B, GSM8K: right final answers with a false step on the way
    assert locate_first_error(["So he needs 7/18 * 162 = 56 more."], [], answer_correct=True).kind == "false_computation"
    assert locate_first_error(["The difference is 398 - 540 = 142 dollars."], []).step == 0


# ----------------------------------------------------------------------------- node contradiction
def test_step_contradicting_a_node():
    loc = locate_first_error(RECIPROCAL, RECIPROCAL_NODES)
    assert (loc.step, loc.kind, loc.node) == (3, "contradicts_node", "n2")
    assert loc.reason == "step 4 gives 3x = 8; node n2 says 3x = 6"


def test_suppositions_and_several_roots_contradict_no_node():
    assert locate_first_error(GUESSES, ["A = 5"], answer_correct=True).step is None
    assert locate_first_error(ROOTS, ROOTS_NODES, answer_correct=True).step is None
    # the same claim stated as a fact, and the solution never says A = 5: a contradiction
    assert locate_first_error(["So $A = 2$ and $B = 5$ is the solution."], ["A = 5"]).kind == "contradicts_node"
    # a solution that also states the node's value elsewhere is exploring cases
    assert locate_first_error(["Case one gives $x - 4 = 12$.", "So $x-4 = -12$ too."], ["x - 4 = -12"]).step is None


# ----------------------------------------------------------------------------- leaving the path
def test_wrong_answer_leaves_the_path_at_the_first_new_value():
    loc = locate_first_error(HOUSE, HOUSE_NODES, answer_correct=False, problem=HOUSE_PROBLEM)
    assert (loc.step, loc.kind) == (1, "leaves_path")
    assert loc.reason == ("step 2 states 195000, a value on no node and not in the problem "
                          "(last node reached: n1 at step 1); the final answer is wrong")
    assert loc.trace == [["n1"], ["n1"], ["n1"], ["n1"]]


def test_right_or_unknown_answer_never_leaves_the_path():
    for verdict in (True, None):
        loc = locate_first_error(HOUSE, HOUSE_NODES, answer_correct=verdict, problem=HOUSE_PROBLEM)
        assert loc.step is None and loc.kind is None
    assert "the final answer is unknown" in locate_first_error(HOUSE, HOUSE_NODES).reason


def test_problem_numbers_and_node_values_are_not_new():
    # nodes as a rebuild with more voices gives them: every value of the right chain is then a
    # problem number or a node value, so a wrong verdict (a grader's slip) finds no new value and
    # falls back to the step after the last node reached
    nodes = ["3+4=7", "16-7=9", "9*2=18"]
    loc = locate_first_error(DUCKS, nodes, answer_correct=False, problem=DUCKS_PROBLEM)
    assert (loc.step, loc.kind) == (3, "leaves_path")
    assert loc.reason == "no node is reached after step 3 (n3); the final answer is wrong"
    assert loc.trace == [["n1"], ["n1", "n2"], ["n1", "n2", "n3"], ["n1", "n2", "n3"]]
    # with today's single node, 7 (3 + 4) is a value on no node: the first new value
    assert locate_first_error(DUCKS, DUCKS_NODES, answer_correct=False, problem=DUCKS_PROBLEM).step == 0
    values = {str(v[0][1]) for v in problem_values(DUCKS_PROBLEM) if v}
    assert {"16", "3", "4", "2", "1/2", "1/3", "60"} <= values  # numbers, number words, reciprocals, factors
    # a conversion factor stated is no new value; a result is, even when it is a factor
    chain = ["There are 60 minutes in an hour.", "So 3 * 5 = 15 minutes.", "The answer is 15."]
    assert locate_first_error(chain, [], answer_correct=False, problem="3 times 5 minutes").step == 1


def test_new_values_before_the_last_node_count_only_where_nodes_are_dense():
    # up to its last node (step 3) the solution states 12 and 17 (nodes) and 9 (on none): two
    # thirds, under DENSE_SHARE, so the path is taken to end at the last node and 9 is a detour
    problem = "Tom has 5 apples and buys 3 bags of 4 apples. How many apples does he have?"
    steps = ["The bags hold 3 * 4 = 12 apples.", "He also counts 9 pears.", "So 5 + 12 = 17 apples.",
             "In all 17 + 9 = 26 fruits."]
    assert 2 / 3 < DENSE_SHARE
    loc = locate_first_error(steps, ["3*4=12", "5+12=17"], answer_correct=False, problem=problem)
    assert (loc.step, loc.kind) == (3, "leaves_path") and loc.reason.startswith("step 4 states 26")
    # with one more node value among them (3 of 4) the nodes are dense: the first new value is suspect
    steps = steps[:2] + ["So 5 + 12 = 17 apples, 17 - 2 = 15 after lunch."] + steps[3:]
    loc = locate_first_error(steps, ["3*4=12", "5+12=17", "17-2=15"], answer_correct=False, problem=problem)
    assert (loc.step, loc.kind) == (1, "leaves_path") and loc.reason.startswith("step 2 states 9")


# independent_step_labels.jsonl, gsm8k/test/1312 (gpt-3.5-turbo, Faithful-CoT; gold 180): step 1 is
# right (12 meals a night), step 3 multiplies the meals by the price per reservation
TOM_PROBLEM = ("Tom's restaurant gets 6 reservations a night.  They normally order 2 meals that cost $5 each and a "
               "$5 bottle of wine.  How much do they make a week if they are open 2 days a week?")
TOM = ["Tom's restaurant gets 6 reservations a night, so they serve 6 * 2 = 12 meals a night.",
       "Each meal costs $5 for 2 meals and $5 for a bottle of wine, so each reservation brings in $15.",
       "If they are open 2 days a week, they make 12 reservations * $15 per reservation * 2 days = $360 a week. "
       "The answer is $360."]
TOM_NODES = ["2*5 = 10", "10+5 = 15", "6*15=90"]
TOM_COMPUTATIONS = ["10+5 = 15", "2*5 = 10", "6*15=90", "6 * 2 = 12"]  # the record's, as built


def test_values_correct_solutions_compute_are_on_the_path():
    # without the record's computations, the right 12 is a value on no node: named too early
    assert locate_first_error(TOM, TOM_NODES, answer_correct=False, problem=TOM_PROBLEM, gold="180").step == 0
    loc = locate_first_error(TOM, TOM_NODES, answer_correct=False, problem=TOM_PROBLEM, gold="180",
                             computations=TOM_COMPUTATIONS)
    assert (loc.step, loc.kind) == (2, "leaves_path") and loc.reason.startswith("step 3 states 360")
    # a value no correct solution computes is still new; the computations credit nothing and
    # speak only for a wrong answer
    other = locate_first_error(TOM, TOM_NODES, answer_correct=False, problem=TOM_PROBLEM, gold="180",
                               computations=["6 * 15 = 90", "90 * 2 = 180"])
    assert other.step == 0
    assert locate_first_error(TOM, TOM_NODES, answer_correct=True, computations=TOM_COMPUTATIONS).step is None
    assert loc.trace == locate_first_error(TOM, TOM_NODES, answer_correct=False, problem=TOM_PROBLEM).trace


def test_bad_computations_are_named():
    for bad, message in (("6 * 2 = 12", "computations must be a list of strings, got str"),
                         (["6 * 2 = 12", 12], r"computations\[1\] must be a string, got int")):
        with pytest.raises(TypeError, match=message):
            locate_first_error(TOM, TOM_NODES, answer_correct=False, computations=bad)
    # untrusted text: no computation, an over-long one, or None is read as nothing
    for odd in (None, [], ["", "no numbers here", "1" * 500 + " = 1"]):
        assert locate_first_error(TOM, TOM_NODES, answer_correct=False, problem=TOM_PROBLEM, computations=odd).step == 0


# SkyThought's Qwen2.5-Math-7B run on MATH-500 algebra/2193 (x = sqrt(11 - 2x) + 4; gold 5), a right
# answer: the candidate x = 1 is put to the test and rejected; the chain's first "=" is the claim
# under test, not a false computation
ROOT_CHECK = ["So the solutions are:\n\n\\[ x = \\frac{10}{2} = 5 \\]\n\\[ x = \\frac{2}{2} = 1 \\]",
              "For \\( x = 5 \\):\n\n\\[ 5 = \\sqrt{11 - 2(5)} + 4 = \\sqrt{11 - 10} + 4 = \\sqrt{1} + 4 = 1 + 4 = 5 \\]",
              "For \\( x = 1 \\):",
              "\\[ 1 = \\sqrt{11 - 2(1)} + 4 = \\sqrt{11 - 2} + 4 = \\sqrt{9} + 4 = 3 + 4 = 7 \\]",
              "This is false, so \\( x = 1 \\) is not a valid solution.",
              "Therefore, the only valid solution is \\( x = 5 \\). \\boxed{5}"]


def test_a_candidate_put_to_the_test_is_no_false_computation():
    assert locate_first_error(ROOT_CHECK, ["x = 5"], answer_correct=True).step is None
    facts = step_facts(ROOT_CHECK[3])
    assert [c.holds for c in facts.computations] == [True] * 5
    # a chain that only starts from a number is still read link by link: a false link is named
    wrong = ROOT_CHECK[:3] + ["\\[ 1 = \\sqrt{11 - 2(1)} + 4 = \\sqrt{9} + 4 = 3 + 4 = 8 \\]"]
    loc = locate_first_error(wrong, ["x = 5"], answer_correct=True)
    assert loc.step == 3 and loc.reason == "step 4: 1 = \\sqrt{11 - 2(1)} + 4 is false (\\sqrt{11 - 2(1)} + 4 is 7)"
    assert (3, "false_computation") in loc.signals  # 3 + 4 = 8 too
    # and a two-sided one is a false computation as before (no chain refutes it)
    assert [c.holds for c in step_facts("\\[ 1 = 3 + 4 \\]").computations] == [False]


def test_problem_without_nodes_says_so():
    loc = locate_first_error(HOUSE, [], answer_correct=False, problem=HOUSE_PROBLEM)
    assert loc.step == 0 and "the problem has no nodes" in loc.reason  # 130,000 is not in the problem
    assert "only computations were checked" in locate_first_error(DUCKS, [], answer_correct=True).reason


# ----------------------------------------------------------------------------- contract
def test_location_json_and_position():
    loc = locate_first_error(ORANGE, ORANGE_NODES)
    data = loc.to_json()
    assert data["step"] == 0 and data["position"] == 0.0 and data["n_steps"] == 6 and data["kind"] == "false_computation"
    assert Location(3, "leaves_path", "", n_steps=5).position == 0.75


def test_bad_solutions_and_budget():
    assert locate_first_error("", []).reason == "no step: the solution is empty"
    with pytest.raises(TypeError):
        locate_first_error(["ok", None], [])
    with pytest.raises(TypeError):
        locate_first_error(12, [])
    assert locate_first_error("Step 1 - 3 + 4 = 7", []).step is None  # a lone label is no number
    huge = "\n".join(["so 2 * 3 = 6 and x = 5. " * 250] * 400)  # 400 steps of 6,000 characters
    loc = locate_first_error(huge, ["x = 5"], answer_correct=False, budget_s=0.05)
    assert loc.timed_out and loc.step is None and loc.reason == "out of time"


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.sampled_from(list("0123456789 =+-*/().%\\$x\n{}^_,frac sqrtStep:")), max_size=200),
       verdict=st.sampled_from([True, False, None]))
def test_any_text_gives_a_location(text, verdict):
    loc = locate_first_error(text, ["x = 5", "3*4=12"], answer_correct=verdict, problem="12 apples and 5", budget_s=1.0)
    assert isinstance(loc, Location)
    assert loc.step is None or 0 <= loc.step < loc.n_steps


# ----------------------------------------------------------------------------- round two: rewrites
# PRMBench prm_test_p2_1679 (counterfactual copy, error at step 6): -k + 3k is 2k, not 4k
SIMPLIFY_PROBLEM = "Simplify $(-k + 4) + (-2 + 3k)$."
SIMPLIFY = ["To simplify this expression, I need to combine like terms.",
            "Like terms are terms that have the same variable and exponent.",
            "In this case, the like terms are $-k$ and $3k$, and $4$ and $-2$.",
            "To combine like terms, I can use the distributive property of addition and multiplication.",
            "This means that I can add or subtract the coefficients of the like terms, and keep the same "
            "variable and exponent.",
            "For example, $-k + 3k = (-1 + 3)k = 4k$.",
            "Similarly, $4 + (-2) = 4 - 2 = 2$.",
            "So, the simplified expression is $4k + 2$."]


def test_false_rewrite_in_a_chain():
    loc = locate_first_error(SIMPLIFY, [], problem=SIMPLIFY_PROBLEM)
    assert (loc.step, loc.kind) == (5, "false_computation")
    assert "(-1 + 3)k = 4k is false (at k = 3: 6 and 12)" in loc.reason
    # the original solution's chain holds
    assert not step_facts("For example, $-k + 3k = (-1 + 3)k = 2k$.").false_computations


def test_rewrites_that_hold_by_the_problem_or_apply_a_function():
    # Qwen2.5-14B-Instruct, MATH-500 right answers (SkyThought run): x^2 = x + 1 from the problem
    problem = "If $x^2 - x - 1 = 0$, what is the value of $x^3 - 2x + 1$?"
    step = "\\[\n   x^3 = x \\cdot x^2 = x(x + 1) = x^2 + x\n   \\]"
    assert step_facts(step).false_computations  # read alone, x * x^2 is not x(x + 1)
    assert step_facts(problem).pinned == frozenset({"x"})
    assert locate_first_error(["We know $x^2 = x + 1$.", step], [], answer_correct=True, problem=problem).step is None
    # without the problem's equation the rewrite is false
    assert locate_first_error(["We know $x^2 = x + 1$.", step], [], answer_correct=True).step == 1
    # f(4) is f applied to 4, not f times 4
    assert not step_facts("\\( f(4) = f(3) + 3 + 2 = 8 + 3 + 2 = 13 \\)").false_computations


# ----------------------------------------------------------------------------- round two: one quantity, two values
# PRMBench prm_test_p2_2565 (confidence copy, error at step 13): -25 + 5 * 75 is 350
SEQUENCE_STEP = ("Using the definition of an arithmetic sequence, we can write:\n\na_6 = a_1 + 5d\n\nSubstituting "
                 "a_1 = -25 and d = 75, we get:\n\na_6 = -25 + 5 \\times 75\n\nSimplifying, we get:\n\na_6 = 525")


def test_quantity_computed_then_given_another_value():
    (c,) = step_facts(SEQUENCE_STEP).false_computations
    assert "a_6 = -25 + 5 \\times 75 is 350, then a_6 = 525" in c.witness
    assert not step_facts(SEQUENCE_STEP.replace("525", "350")).false_computations
    # alternatives and rounding are no contradiction
    assert not step_facts("Then $x = \\frac{-1 + 3}{2}$ or $x = 5$.").false_computations
    assert not step_facts("So $r = 22/7$, and $r = 3.14$.").false_computations


# ----------------------------------------------------------------------------- round two: right answers
def test_right_answer_contradicts_no_node():
    # a right final answer: a node's quantity given another value is another quantity of that name
    loc = locate_first_error(RECIPROCAL, RECIPROCAL_NODES, answer_correct=True)
    assert loc.step is None and "with a right answer no claim is held against the nodes" in loc.reason
    assert locate_first_error(RECIPROCAL, RECIPROCAL_NODES, answer_correct=None).kind == "contradicts_node"


# ----------------------------------------------------------------------------- round two: values on the path
# AutoRace line 66 (gold 36): 2/2 = 1 is a part of the node 2 + (2/2) = 3; step 3 (2 + 3) goes astray
JIM_PROBLEM = ("Jim spends 2 hours watching TV and then decides to go to bed and reads for half as long.  He does this "
               "3 times a week.  How many hours does he spend on TV and reading in 4 weeks?")
JIM = ["He reads for half as long as he watches TV so that's 2/2 = <<2/2=1.0>>1 hour",
       "He does this 3 times a week so that's 1*3 = <<3*1=3>>3 hours",
       "He spends 2 hours watching TV and 3 hours reading so that's 2+3 = <<2+3=5>>5 hours",
       "In 4 weeks he does this for 4*5 = <<4*5=20>>20 hours", "The answer is 20"]
JIM_NODES = [{"id": "n1", "text": "2 + 1 = 3"}, {"id": "n2", "text": "2 + (2/2) = 3"},
             {"id": "n3", "text": "2 + 2/2 = 3"}, {"id": "n4", "text": "3 * 3 = 9"}]

# AutoRace line 17 (gold 230): 230 is the answer; halving it leaves the path
TRAINS_PROBLEM = ("Two trains leave San Rafael at the same time. They begin traveling westward, both traveling for 80 "
                  "miles. The next day, they travel northwards, covering 150 miles. What's the distance covered by "
                  "each train in the two days?")
TRAINS = ["The two trains traveled 80+150=<<80+150=230>>230 miles.",
          "So, each train traveled 230/2=<<230/2=115.0>>115 miles in the two days.", "The answer is 115"]


def test_parts_of_nodes_are_on_the_path():
    loc = locate_first_error(JIM, JIM_NODES, answer_correct=False, problem=JIM_PROBLEM, gold="36")
    assert (loc.step, loc.kind) == (2, "leaves_path") and loc.reason.startswith("step 3 states 5")


PLANE_NODES = ["(-4,4,4) - (0,-1,-1) = (-4,5,5)", "(4,5,1) - (0,-1,-1) = (4,6,2)", "n = (-20, 28, -44)"]
PLANE = [  # independent_step_labels.jsonl:122 (Sky-T1-32B-short, MATH-500 precalculus/659), its first three steps
    "To find the equation of the plane containing the points $(0,-1,-1),$ $(-4,4,4),$ and $(4,5,1),$ we first "
    "determine two vectors lying on the plane by subtracting the coordinates of the points.",
    "- For $\\overrightarrow{AB},$ we subtract the coordinates of $A$ from $B$:\n"
    "\\[\\overrightarrow{AB} = B - A = (-4 - 0, 4 - (-1), 4 - (-1)) = (-4, 5, 5).\\]",
    "- For $\\overrightarrow{AC},$ we subtract the coordinates of $A$ from $C$:\n"
    "\\[\\overrightarrow{AC} = C - A = (4 - 0, 5 - (-1), 1 - (-1)) = (4, 6, 2).\\]",
    "So the normal vector is $(-20, 17, -44)$.",
]


def test_members_of_a_node_tuple_and_negative_node_values_are_on_the_path():
    """A vector node's members are values on the path (``(4, 6, 2)`` gives 2: it was the new value
    of step 3 above), and a node's negative value is its numeral read unsigned, as a step's
    numerals are (``x = -5`` then states 5, no new value)."""
    loc = locate_first_error(PLANE, PLANE_NODES, answer_correct=False)
    assert loc.step == 3 and loc.reason.startswith("step 4 states 17")
    nodes = ["a = 2", "b = 3", "c = 4", "x = -5", "y = 6"]  # dense: every value up to the last node is on one
    steps = ["We find $a = 2$, $b = 3$ and $c = 4$.", "So $x = -5$.", "Then $y = 6$.", "Finally $z = 9$."]
    loc = locate_first_error(steps, nodes, answer_correct=False)
    assert loc.step == 3 and loc.reason.startswith("step 4 states 9")


def test_gold_answer_is_on_the_path():
    loc = locate_first_error(TRAINS, ["460"], answer_correct=False, problem=TRAINS_PROBLEM, gold="230")
    assert (loc.step, loc.kind) == (1, "leaves_path") and loc.reason.startswith("step 2 states 115")
    assert locate_first_error(TRAINS, ["460"], answer_correct=False, problem=TRAINS_PROBLEM).step == 0
    for bad in (None, 230, "", "no value"):  # no usable gold: the values of the nodes alone
        assert locate_first_error(TRAINS, ["460"], answer_correct=False, problem=TRAINS_PROBLEM, gold=bad).step == 0


# AutoRace line 25 (gold 26): 75% is the node 0.75 written as a percentage; step 3 is false
BOOK_PROBLEM = ("Kyle bought last year's best-selling book for $19.50. This is with a 25% discount from the original "
                "price. What was the original price of the book?")
BOOK = ["If the discount is 25%, then the original price is 100% - 25% = 75% of the original price.",
        "75% of the original price is (75/100)*original price = $19.50.",
        "Thus, the original price of the book is $19.50 * (100/75) = $23.", "The answer is 23"]

# AutoRace line 182 (gold 5): "1 hamster/cage" states 1, no new value; 110 / 10 rats goes astray
STRAW_PROBLEM = ("Russell works at a pet store and is distributing straw among the rodents. The rats are kept in 3 cages "
                 "in equal groups and each rat is given 6 pieces of straw. There are 10 cages of hamsters that are "
                 "kept alone and each hamster is given 5 pieces of straw. There is also a pen of rabbits where 20 "
                 "pieces of straw are distributed among the rabbits. No straw is used anywhere else in the store. If "
                 "160 pieces of straw have been distributed among the small rodents, how many rats are in each cage?")
STRAW = ["First find the total number of hamsters in the store: 10 cages * 1 hamster/cage = <<10*1=10>>10 hamsters",
         "Then find the total number of pieces of straw used by the hamsters: 5 pieces/hamster * 10 hamsters = "
         "<<5*10=50>>50 pieces",
         "Then subtract that number from the total number of pieces of straw used by all the small rodents to find "
         "the number used by the rats: 160 pieces - 50 pieces = <<160-50=110>>110 pieces",
         "Then divide that number by the number of rats to find the number of rats per cage: 110 pieces / 10 "
         "rats/cage = <<110/10=11.0>>11 rats/cage", "The answer is 11"]


def test_percentages_of_known_values_and_written_ones_are_not_new():
    loc = locate_first_error(BOOK, ["0.75"], answer_correct=False, problem=BOOK_PROBLEM, gold="26")
    assert (loc.step, loc.kind) == (2, "false_computation")
    assert step_facts(BOOK[0]).percents  # 75 written as 75%
    loc = locate_first_error(STRAW, ["50", "160 - 70 = 90"], answer_correct=False, problem=STRAW_PROBLEM, gold="5")
    assert (loc.step, loc.kind) == (2, "leaves_path") and loc.reason.startswith("step 3 states 110")
    # 1 arrived at by a computation is new
    loc = locate_first_error(["So 3 - 2 = 1 bag is left.", "The answer is 1."], [], answer_correct=False,
                             problem="3 bags and 2 friends")
    assert loc.step == 0 and "states 1," in loc.reason


# model-written (benchmarks/data/model_step_labels.json, gold 21; the labelled step is 4): step 3
# computes the gold answer, so the path runs through it and leaves at step 4
SAVED_PROBLEM = ("After Andrea saved some money, she then spent the rest of her money on an $11 sweater and gave her "
                 "brother $4. If she had $36 in the beginning, how much did Andrea save?")
SAVED = ["To find out how much Andrea saved, we start with the information provided:\n\n1. Initial amount of money "
         "Andrea had: $36\n2. Cost of the sweater: $11\n3. Amount given to her brother: $4",
         "Next, we can calculate how much money Andrea spent in total after saving some amount:\n\nTotal spent = Cost "
         "of sweater + Amount given to brother  \nTotal spent = $11 + $4 = $15",
         "Now, we need to figure out how much money Andrea had left after her initial savings and spending:\n\nMoney "
         "left = Initial amount - Total spent  \nMoney left = $36 - $15 = $21",
         "The amount she saved is the difference between her initial amount and the money she has left after her "
         "expenditures:\n\nSavings = Initial amount - Money left  \nSavings = $36 - $21 = $15",
         "Therefore, the amount Andrea saved is:\n\n\\[\n\\boxed{15}\n\\]"]


def test_a_step_that_computes_the_gold_answer_is_on_the_path():
    loc = locate_first_error(SAVED, ["11 + $4 = 15"], answer_correct=False, problem=SAVED_PROBLEM, gold="21")
    assert (loc.step, loc.kind) == (3, "leaves_path")
    assert loc.reason == "no node is reached after step 3 (the gold answer's value); the final answer is wrong"
    assert loc.trace == [[], ["n1"], ["n1"], ["n1"], ["n1"]]  # the trace lists nodes only
    # the gold's number as an operand is no arrival at it (36 is given, never computed here)
    assert locate_first_error(SAVED, ["11 + $4 = 15"], answer_correct=False, problem=SAVED_PROBLEM,
                              gold="36").step == 2
    # without a gold answer the path ends at the last node
    assert locate_first_error(SAVED, ["11 + $4 = 15"], answer_correct=False, problem=SAVED_PROBLEM).step == 2


# PRMBench (MATH-500 "Solve for x: x/2 + x/3 = 5", an inserted counterfactual step 5): 3x + 2x = 30
# gives x = 6, the next step's 5x + 1 = 30 gives 29/5 -- it does not follow
HALVES_PROBLEM = "Solve for $x$: $\\frac{x}2 + \\frac{x}3 = 5$"
HALVES = ["I want to isolate $x$ on one side of the equation, so I need to get rid of the fractions first.",
          "To do that, I can multiply both sides by the least common multiple of 2 and 3, which is 6.",
          "That will give me $6 \\cdot \\frac{x}{2} + 6 \\cdot \\frac{x}{3} = 6 \\cdot 5$.",
          "Simplifying, I get $3x + 2x = 30$.",
          "Combining like terms, I get $5x + 1 = 30$.",
          "Subtract 1 from both sides to get $5x = 29$.",
          "Dividing both sides by 5, the result is $x = \\frac{29}{5}$.", "# Answer: \\frac{29}{5}"]


def test_an_equation_that_does_not_follow_from_the_step_before_is_false():
    loc = locate_first_error(HALVES, [], answer_correct=None, problem=HALVES_PROBLEM)
    assert (loc.step, loc.kind) == (4, "false_computation")
    assert loc.reason == "step 5: 5x + 1 = 30 does not follow from step 4's 3x + 2x = 30 (x = 6 there, 29/5 here)"
    # a wrong answer: the same signal, beside where the path ends
    assert (4, "false_computation") in [(s, k) for s, k in
                                        locate_first_error(HALVES, ["3x + 2x = 30"], answer_correct=False,
                                                           problem=HALVES_PROBLEM).signals]
    # the original solution (3x + 2x = 30, 5x = 30, x = 6) derives every equation from the one before
    right = HALVES[:4] + ["Combining like terms, I get $5x = 30$.", "Dividing both sides by 5, $x = 6$.",
                          "# Answer: 6"]
    assert locate_first_error(right, [], answer_correct=None, problem=HALVES_PROBLEM).step is None
    # with a right answer no derivation is held against the solution (a case split reads the same)
    assert locate_first_error(HALVES, [], answer_correct=True, problem=HALVES_PROBLEM).step is None


def test_cases_quadratics_and_repeating_decimals_are_no_broken_derivation():
    # two values given in a row are cases, and a value then an equation may use the letter anew
    assert locate_first_error(["So $x = 1$.", "Next case: $5x - 1 = -x - 3$."], [],
                              answer_correct=None).step is None
    assert locate_first_error(["If $y = 0$, the point is $(3, 0)$.", "With $y = 1$ we get $(3, 1)$."], [],
                              answer_correct=False).kind != "false_computation"
    # a quadratic has two roots: its linear factors are alternatives
    roots = ["So $x^2 - 5x + 6 = 0$.", "Then $x - 2 = 0$.", "Or $x - 3 = 0$."]
    assert locate_first_error(roots, [], answer_correct=False).kind != "false_computation"
    # PRMBench's original 0.555...: a repeating decimal cut short is no exact side
    decimal = ["So, we can let $x = 0.555555...$", "Then $10x = 5.555555...$",
               "So, $10x - x = 5.555555... - 0.555555...$.", "That gives us $9x = 5$. So $x = \\dfrac{5}{9}$."]
    assert locate_first_error(decimal, [], answer_correct=None).step is None
    # a supposition is no step of the derivation
    assert locate_first_error(["We get $2x = 10$.", "If $3x = 12$, then the other case."], [],
                              answer_correct=None).step is None


# ----------------------------------------------------------------------------- round three: what is no new value
# model-written (benchmarks/data/model_step_labels.json; SkyThought's gemma-2-27b-it run, MATH-500
# "3m + 4n = 100, smallest |m - n|", gold 3): the list item's number "2." states nothing
GEMMA_ITEMS = ["Here's how to solve the problem:\n\n**1. Understand the Problem**\n\nWe need to find the smallest "
               "difference between two integers, *m* and *n*, that satisfy the equation 3*m* + 4*n* = 100.",
               "**2. Rearrange the Equation**\n\nLet's solve the equation for one variable.  We'll solve for *m*:\n\n"
               "3*m* = 100 - 4*n*\n*m* = (100 - 4*n*) / 3",
               "**4. Find the Minimum Difference**\n\nWe found that when *n* = 1, *m* = 32. This gives us a "
               "difference of |32 - 1| = 31."]
GEMMA_PROBLEM = "If $m$ and $n$ are integers such that $3m + 4n = 100$, what is the smallest possible value of $|m - n|$ ?"


def test_list_item_and_heading_numbers_are_no_values():
    assert step_facts(GEMMA_ITEMS[1]).stated == frozenset()  # "2." and the problem's 100 only
    loc = locate_first_error(GEMMA_ITEMS, ["n = 13", "m = 16"], answer_correct=False, problem=GEMMA_PROBLEM)
    assert loc.step == 2 and loc.reason.startswith("step 3 states 31")
    # a number that is no label still counts: "2 cases" opens no list, "Step 2" names one
    assert step_facts("2 cases remain, so 2 * 3 = 6.").stated != frozenset()
    assert step_facts("### Step 2: so x = 5").stated == step_facts("so x = 5").stated


# independent_step_labels.jsonl (Qwen2.5-32B-Instruct, MATH-500 prealgebra: interior angle 6.5 times
# the exterior one): a polygon's exterior angles sum to 360 degrees, known without the problem
def test_angle_sums_are_known_constants():
    problem = ("Each interior angle of a regular polygon measures 6.5 times the measure of each exterior angle. "
               "How many sides does the polygon have?")
    steps = ["Let $x$ be the measure of each exterior angle.",
             "The sum of the measures of the exterior angles of a polygon is $360^\\circ$.",
             "Therefore, $10x=360^\\circ$, and $x=36^\\circ$."]
    loc = locate_first_error(steps, [], answer_correct=False, problem=problem)
    assert loc.step == 2 and loc.reason.startswith("step 3 states 36")


# independent_step_labels.jsonl, GSM8K (gpt-3.5-turbo, Faithful-CoT; the 5000 voters): the share
# that had not voted is the complement of the given 2/5; a 21% drop leaves a multiplier of 0.79
VOTERS = ("At 8:00, 5000 people lined up at a polling station to cast their vote on election day. By midday 2/5 "
          "of the people had voted and by 16:00 2/3 of the remaining people had voted. What's the number of "
          "those who had not voted by 16:00?")


def test_complements_of_given_shares_are_no_new_values():
    values = problem_values(VOTERS)
    assert step_facts("3/5 of the people").stated <= values  # 1 - 2/5
    assert step_facts("1/3 of them").stated <= values  # 1 - 2/3
    assert step_facts("the multiplier is 0.79").stated <= problem_values("Its price decreases by 21% each year.")
    assert step_facts("so 79 people").stated <= problem_values("21% of the 100 people left.")
    assert step_facts("so 3/4 of them").stated <= problem_values("A quarter of them left.")
    assert step_facts("so 2/3 of it").stated <= problem_values("Two-thirds of the drink is water.")
    assert step_facts("so 1/3 of it").stated <= problem_values("two thirds of the drink is water.")
    # a share that is not the complement, and a number that is not a share, stay new
    assert not step_facts("so 4/5 of them").stated <= values
    assert not step_facts("so 79 people").stated <= problem_values("21 people left.")
    steps = ["2/5 of the people had voted by midday, which means 3/5 of the people had not voted yet. So, the "
             "number of people who had not voted by midday was 3/5 * 5000 = 3000.",
             "So 2/3 * 3000 = 2000 voted by 16:00, and 3000 - 2000 = 1000 had not.",
             "Then 1000 + 2000 = 3000 people had voted in all."]
    loc = locate_first_error(steps, ["2/5*5000=2000", "5000 - 2000 = 3000", "2/3*3000=2000"], answer_correct=False,
                             problem=VOTERS, gold="1000")
    assert loc.step == 2  # not step 1 for its 3/5


# Rho-Math-7B's GSM8K chain-of-thought run (RAW/trajectories/rho/gsm8k), a one-line answer: its
# sentences are its steps, and the false one is named (40% of the way is not 40% of the time)
def test_one_line_chain_is_split_into_sentences():
    text = ("Carla can download 2 GB/minute. So she can download 200 GB in 200/2 = 100 minutes. But she has to "
            "restart the download 40% of the way through, which is 40% of 100 minutes, or 40 minutes. So she has "
            "to download 200 GB in 100 + 40 = 140 minutes. 140 minutes is 2 hours and 20 minutes. The answer is "
            "2 hours and 20 minutes.")
    steps = split_steps(text)
    assert len(steps) == 6 and steps[1].body == "So she can download 200 GB in 200/2 = 100 minutes."
    assert all(text[s.start:s.end] == s.body for s in steps)
    problem = ("Carla is downloading a 200 GB file. Normally she can download 2 GB/minute, but 40% of the way "
               "through the download, Windows forces a restart to install updates, which takes 20 minutes. Then "
               "Carla has to restart the download from the beginning. How load does it take to download the file?")
    loc = locate_first_error(text, ["200 * 0.4 = 80", "80 / 2 = 40", "200 / 2 = 100"], answer_correct=False,
                             problem=problem, gold="160")
    assert loc.step is not None and loc.step >= 2
    # abbreviations, decimals and a lower-case start end no sentence; a text with a line break is read by lines
    assert [s.body for s in split_steps("Mr. Li has 2.5 kg. e.g. it is heavy. So 2.5 * 2 = 5.")] == \
        ["Mr. Li has 2.5 kg. e.g. it is heavy.", "So 2.5 * 2 = 5."]
    assert [s.body for s in split_steps("So x = 2. So y = 3.\nThe answer is 5.")] == ["So x = 2. So y = 3.",
                                                                                      "The answer is 5."]
    assert [s.body for s in split_steps("x = 2.")] == ["x = 2."]


# independent_step_labels.jsonl (Sky-T1-32B-short, MATH-500 precalculus: AF^2 + BF^2 + CF^2 in terms
# of a, b, c and R), the labelled step: the three brackets sum to 5/9 (a^2 + b^2 + c^2), not 2/3 of
# it; "\frac{2}{3} (a^2 + ...)" is a product though a space stands before the bracket
CENTROID_STEP = ("By the Distance Formula, we have:\n   \\begin{align*}\n   AG^2 + BG^2 + CG^2 &= \\left( \\frac{b^2}{3} "
                 "+ \\frac{c^2}{3} - \\frac{a^2}{9} \\right) + \\left( \\frac{a^2}{3} + \\frac{c^2}{3} - \\frac{b^2}{9} "
                 "\\right) + \\left( \\frac{a^2}{3} + \\frac{b^2}{3} - \\frac{c^2}{9} \\right) \\\\\n   &= \\frac{2}{3} "
                 "(a^2 + b^2 + c^2).\n   \\end{align*}")


def test_a_number_before_a_bracket_multiplies_it_in_a_rewrite():
    (wrong,) = step_facts(CENTROID_STEP).false_computations
    assert wrong.right == "\\frac{2}{3} (a^2 + b^2 + c^2)" and wrong.witness.startswith("at ")
    right = CENTROID_STEP.replace("\\frac{2}{3} (a^2", "\\frac{5}{9} (a^2")
    assert step_facts(right).false_computations == ()
    assert step_facts("so y = 2 (a + b) + 2 (a - b) = 4 (a) = 4a").false_computations == ()


# independent_step_labels.jsonl, GSM8K test/1165 (gpt-3.5-turbo, Faithful-CoT): "60% bigger" is the
# whole grown by the share, a multiplier of 1.6 the problem gives; the error is the count of step 3
GARBAGE = ("John collects garbage from 3 different apartment complexes.  The first two have 200 apartments each "
           "and the last one is 60% bigger than the other two combined.  He collects garbage 3 times a week from "
           "each place and he gets paid $.40 per collection for each apartment.  How much money does he make in "
           "a week?")


def test_the_whole_grown_by_a_given_share_is_no_new_value():
    assert step_facts("it has 1.6 times as many").stated <= problem_values(GARBAGE)
    assert step_facts("so 160% of them").stated <= problem_values(GARBAGE)
    assert step_facts("so 7/5 of it").stated <= problem_values("2/5 more than the first")
    assert not step_facts("it has 1.7 times as many").stated <= problem_values(GARBAGE)  # another share
    steps = ["The first two apartment complexes have 200 apartments each, so together they have 200 + 200 = 400 "
             "apartments.",
             "The last apartment complex is 60% bigger than the other two combined, which means it has 1.6 times "
             "the number of apartments in the other two combined. So, it has 1.6 * 400 = 640 apartments.",
             "John collects garbage 3 times a week from each place, so he collects garbage from a total of "
             "3 * (400 + 640) = 3720 apartments per week.",
             "He gets paid $.40 per collection for each apartment, so he makes 3720 * $.40 = $1488 per week. "
             "The answer is $1488."]
    loc = locate_first_error(steps, ["200 + 200 = 400", "640", "1040", "3120"], answer_correct=False,
                             problem=GARBAGE, gold="1248")
    assert loc.step == 2 and loc.reason.startswith("step 3 states 3720")


# Re-reading's gpt-4o-mini on GSM8K test/564 (model_step_labels.json): 2 pages in 1.5 minutes is
# 4/3 pages a minute, written 1.33; the error is the product that carries the rounding (139.65)
JUDY = ("In the first week, Judy read for 15 minutes each night before going to sleep. In the second week, she "
        "read a total of 100 pages. If she can read 2 pages per 1.5 minutes, how many pages did she read in two "
        "weeks?")


def test_a_known_value_written_rounded_is_no_new_value():
    steps = ["First, we calculate the total reading time for the first week:\n\n\\[\n15 \\text{ minutes/night} "
             "\\times 7 \\text{ nights} = 105 \\text{ minutes}\n\\]",
             "Since 1.5 minutes allows her to read 2 pages, the rate of reading in pages per minute is:\n\n\\[\n"
             "\\text{Pages per minute} = \\frac{2 \\text{ pages}}{1.5 \\text{ minutes}} = \\frac{2}{1.5} \\approx "
             "1.33 \\text{ pages/minute}\n\\]",
             "Now we can calculate the total number of pages she read in the first week:\n\n\\[\n\\text{Total "
             "pages in Week 1} = 105 \\text{ minutes} \\times 1.33 \\text{ pages/minute} \\approx 139.65 "
             "\\text{ pages}\n\\]",
             "Calculating that gives us:\n\n\\[\n\\text{Total pages in 2 weeks} = 139 + 100 = 239\n\\]"]
    loc = locate_first_error(steps, ["15 * 7 = 105", "140"], answer_correct=False, problem=JUDY, gold="240",
                             computations=["15 * 7 = 105", "2 / 1.5 = 4/3", "105 minutes * 4/3 = 140"])
    assert loc.step == 2 and loc.reason.startswith("step 3 states 2793/20")  # 139.65
    # a decimal that is no rounding of a known value stays new
    steps[1] = steps[1].replace("1.33", "1.43")
    assert locate_first_error(steps, ["15 * 7 = 105", "140"], answer_correct=False, problem=JUDY, gold="240",
                              computations=["2 / 1.5 = 4/3"]).step == 1


# AutoRace GSM8K chain (benchmarks/data/gsm8k_autorace_step_labels.json): the equation is set up
# wrong in step 2 (it counts the games won twice); step 4 is the first to write a new value
FOOTBALL = ["Let x be the number of games they won.", "x+x+8=22", "2x+8=22", "2x=14", "x=7", "They won 7 games.",
            "The answer is 7"]
FOOTBALL_PROBLEM = "A football team played 22 games. They won 8 more than they lost. How many did they win?"
# Sky-T1-math-correct-5K-32B-short, MATH-500 prealgebra (benchmarks/data/independent_step_labels.jsonl)
ANGLES = ["This is interesting because the angles $x^{\\circ}$ and $2x^{\\circ}$ are on a straight line with $PT$ "
          "and $QR$ being parallel. This means that the sum of the angles on a straight line is $180^{\\circ}$. So, "
          "$x^{\\circ} + 2x^{\\circ} = 180^{\\circ}$.",
          "Wait, let me think about this. If we solve for $x$, we get $3x = 180^{\\circ}$, which means $x = 60^{\\circ}$"
          ". This means that $\\angle P = 60^{\\circ}$ and $\\angle T = 120^{\\circ}$."]
ANGLES_PROBLEM = ("In the diagram, $PT$ is parallel to $QR.$ What is the measure of $\\angle PQR$ in degrees? [asy] "
                  "label(\"$x^{\\circ}$\",(-6,10),SE); label(\"$2x^{\\circ}$\",(7,10),SW); "
                  "label(\"$128^{\\circ}$\",(10,0),NE); [/asy]")


def test_a_new_value_solved_from_an_earlier_equation_names_where_it_was_set_up():
    loc = locate_first_error(FOOTBALL, ["L = 7"], answer_correct=False, problem=FOOTBALL_PROBLEM)
    assert loc.step == 1 and loc.reason.startswith("step 2 sets up x+x+8 = 22, which step 4 solves to 14")
    # degree signs and "if we solve" do not hide the equations: 3x = 180 solves step 1's x + 2x = 180
    loc = locate_first_error(ANGLES, ["x = 64"], answer_correct=False, problem=ANGLES_PROBLEM)
    assert loc.step == 0 and loc.reason.startswith("step 1 sets up x^{\\circ} + 2x = 180")
    # an equation that does not follow from the one before is another signal (HALVES); a node reached
    # on the way, or an equation that assigns the value, ends the run back
    steps = FOOTBALL[:2] + ["So the teams played 2x + 8 = 22 games in all"] + FOOTBALL[3:]
    assert locate_first_error(steps, ["2x + 8 = 22"], answer_correct=False, problem=FOOTBALL_PROBLEM).step == 3
    steps = ["Let x be the number of games they won.", "x = 7 + 8", "2x = 30", "x = 15"]
    assert locate_first_error(steps, ["L = 7"], answer_correct=False, problem=FOOTBALL_PROBLEM).step == 2


def test_a_wrong_end_that_is_a_given_is_first_stated_where_the_solution_leaves():
    """text-davinci-003 on GSM8K test/714 (Re-reading, ``gsm_topp1.0_temp0.0_majority1_20230828_141934``
    line 734; benchmarks/data/independent_step_labels.jsonl, whose reviewer labels step 4): its
    totals are said in words, so no node is reached, and its wrong answer 30 is a given, so no step
    states a new value. The step that first states the value it ends on is named. A solution whose
    steps state no value at all still gets no step."""
    problem = ("James decides to pick some blueberries.  It cost $20 to go picking and then another $1.5 per pound.  "
               "He picked 30 pounds of blueberries.  How much did he save compared to buying at the store for $2.5 a "
               "pound?")
    steps = ["First, James spent $20 to go picking.",
             "Then, he paid $1.5 per pound for the blueberries, so he spent $45 in total for the blueberries.",
             "If he had bought the blueberries at the store for $2.5 per pound, he would have spent $75.",
             "Therefore, James saved $30 by picking the blueberries himself.", "\\boxed{30}"]
    nodes, computations = ["30*1.5=45", "45+20=65", "2.5 * 30 = 75"], ["45+20=65", "2.5 * 30 = 75", "30*1.5=45"]
    loc = locate_first_error(steps, nodes, answer_correct=False, problem=problem, gold="10", computations=computations)
    assert (loc.step, loc.kind) == (3, "leaves_path")
    assert loc.reason.startswith("step 4 first states 30, the value the solution ends on")
    assert locate_first_error(steps, nodes, answer_correct=True, problem=problem, gold="10").step is None
    words = ["He spent some money picking.", "The store would cost more.", "So he saved a lot."]
    assert locate_first_error(words, nodes, answer_correct=False, problem=problem, gold="10").step is None


def test_suppositions_and_derivations():
    from consensus_metrics.step_facts import step_facts

    derived = step_facts(ANGLES[1])
    assert [(e.text, e.hypothetical) for e in derived.equations] == [("3x = 180", False), ("x = 60", False)]
    assert [c.hypothetical for c in step_facts("If we substitute x = 3, we get 2x = 6.").claims] == [True, True]
    assert [c.hypothetical for c in step_facts("If x = 3, then 2x = 6.").claims] == [True, True]
