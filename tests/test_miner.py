"""The rule-based miner on real multi-sample data: 6 MATH problems x 8 Qwen2.5-Math solutions
(tests/fixtures/node_builder/qwen25math_math_cot_sample.jsonl), and on its edge cases."""

from pathlib import Path

import pytest

from consensus_metrics import match_nodes
from node_builder.filter import filter_problem
from node_builder.importers import jsonl_dump
from node_builder.matcher import number_of
from node_builder.miner import balanced, clean_side, mine, side_source
from node_builder.matcher import canonical_key
from node_builder.pipeline import BuildConfig, build_record
from node_builder.schema import Trajectory

FIX = Path(__file__).parent / "fixtures" / "node_builder"
FIELDS = {"id": "idx", "problem": "question", "trajectories": "code"}


@pytest.fixture(scope="module")
def built():
    problems = jsonl_dump.load(FIX / "qwen25math_math_cot_sample.jsonl", benchmark="math", fields=FIELDS).problems
    records = [build_record(p, BuildConfig()) for p in problems]
    return problems, records


def test_filter_finds_the_wrong_samples(built):
    problems, records = built
    correct = {r["id"]: r["provenance"]["correct"] for r in records}
    assert correct["math/0"] == correct["math/1"] == correct["math/2"] == 8
    assert all(correct[f"math/{i}"] < 8 for i in (6, 17, 28))


def test_one_model_is_one_voice_and_its_nodes_match_its_samples(built):
    # the 8 samples of one model (the dump's voice) are one voice: nothing to agree on across
    # voices, so every kept node has support 1.0 and is covered by some correct sample
    problems, records = built
    for problem, record in zip(problems, records):
        assert record["provenance"]["voices"] == ["dump"]
        correct = [t.text for t in problem.trajectories if t.correct]
        positions = [n["position"] for n in record["nodes"]]
        assert positions == sorted(positions)
        for node in record["nodes"]:
            assert node["support"] == 1.0
            assert any(match_nodes(text, [node])[0].covered for text in correct), (record["id"], node)


def test_support_is_the_share_of_voices_whose_correct_samples_cover_the_node(built):
    problems, _ = built
    problem = problems[0]
    for i, trajectory in enumerate(problem.trajectories):  # make each sample a model of its own
        trajectory.voice = f"model-{i}"
    record = build_record(problem, BuildConfig())
    correct = [t.text for t in problem.trajectories if t.correct]
    assert record["nodes"] and len(record["provenance"]["voices"]) == len(correct)
    for node in record["nodes"]:
        hits = sum(match_nodes(text, [node])[0].covered for text in correct)
        assert node["support"] == pytest.approx(hits / len(correct), abs=1e-4), node
        assert (hits + 1) / (len(correct) + 2) >= 0.75  # the consensus threshold


def test_no_node_is_the_final_answer_or_a_number_of_the_problem(built):
    _, records = built
    for record in records:
        answer = number_of(record["answer"])
        for node in record["nodes"]:
            if node["kind"] == "value":
                assert number_of(node["value"]) != answer
                assert not match_nodes(record["problem"], [node])[0].covered, (record["id"], node)


def test_surface_forms_cluster_by_canonical_key():
    texts = ["so $4s^{2} + 8s - 45 = 0$ and \\boxed{2.5}", "giving 4s² + 8s − 45 = 0 hence \\boxed{2.5}"]
    clusters = mine([Trajectory(t, "dump", True) for t in texts])
    [equation] = [c for c in clusters if c.kind == "equation"]
    assert set(equation.trajectories) == {0, 1} and len(equation.surface) == 2


def test_a_cluster_is_named_by_a_writing_without_words():
    # GSM8K test/51: most voices write the units into the computation, which matching reads as 3 * 10 = 30
    texts = ["The time is 3 hours * $10/hour = $30 in all.", "It costs 3 hours * $10/hour = $30 in all.",
             "So 3*10 = 30 dollars."]
    clusters = mine([Trajectory(t, "dump", True) for t in texts])
    [equation] = [c for c in clusters if c.kind == "equation"]
    assert len(equation.trajectories) == 3 and equation.text == "3*10 = 30"
    alone = mine([Trajectory(t, "dump", True) for t in texts[:2]])  # no other writing: the words stay
    assert [c.text for c in alone if c.kind == "equation"] == ["3 hours * $10 = 30"]


def test_side_swapped_equations_are_one_candidate():
    clusters = mine([Trajectory("We have $BD = ID$.", "d", True), Trajectory("so $ID = BD$ here", "d", True)])
    assert len([c for c in clusters if c.kind == "equation"]) == 1


def test_identities_are_not_candidates():
    assert not [c for c in mine([Trajectory("$10 \\times 1.5 = 10 \\times \\frac{3}{2}$", "d", True)])
                if c.kind == "equation"]


@pytest.mark.parametrize("side, expected", [
    ("pay 24 + 40", "24 + 40"), ("** x+x+30", "x+x+30"), ("80 GB", "80"), ("15 4-", None),
    ("( x + y \\right)", None), ("\\left( x + y \\right)", "\\left( x + y \\right)"),
])
def test_chain_sides_lose_prose_and_broken_groups(side, expected):
    assert clean_side(side) == expected


def test_side_source_widens_to_whole_brace_groups_and_checks_the_key():
    text = "Thus the original price was $$\\frac{\\$14.40}{.4}=\\boxed{\\$36}$$"
    start = text.index("14.40")
    key = canonical_key("\\frac{14.40}{.4}")
    assert side_source(text, start, start + len("14.40}{.4"), key) == "\\frac{\\$14.40}{.4}"
    assert side_source(text, start, start + 5, "#999") is None


def test_balanced():
    assert balanced("(0, 1]") and balanced("f(x)") and not balanced("x)")


def test_gsm8k_calculator_annotations_are_relations_even_without_a_chain_in_the_text():
    t = Trajectory("Janet sells 9 duck eggs a day.", "reference", True, ["16-3-4=9"])
    kinds = {(c.kind, c.text) for c in mine([t])}
    assert ("equation", "16-3-4=9") in kinds and ("value", "9") in kinds
