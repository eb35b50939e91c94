"""Training split loading (training_recipes.data) on the real GSM8K-train fixture and bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training_recipes.data import TrainingDataError, load_training_split, normalise_nodes, read_records

FIXTURE = Path(__file__).parent / "fixtures" / "train" / "gsm8k_train_fixture.jsonl"


def test_fixture_loads_with_prompt_answer_nodes():
    ds = load_training_split(FIXTURE)
    assert len(ds) == 8
    row = ds[0]
    assert row["prompt"][0]["role"] == "user"
    assert "Natalia sold clips" in row["prompt"][0]["content"] and "\\boxed{}" in row["prompt"][0]["content"]
    assert row["answer"] == "72"
    assert [n["text"] for n in row["nodes"]] == ["48/2=24", "24"]
    assert ds[7]["nodes"] == []  # the no-node row
    # what the reward's left-path log reads (TRL hands every column to the reward functions)
    assert row["problem"].startswith("Natalia sold clips") and row["computations"] == []


def test_the_records_computations_reach_the_reward_log(tmp_path):
    """The shipped records carry ``computations`` (docs/SPEC.md §2); the training split keeps them
    and the problem text as columns, and the reward's left-path log reads both (TRL hands every
    column to the reward functions). Real case: gsm8k/test/1312 as shipped, and a wrong solution of
    the independently labelled set (benchmarks/data/independent_step_labels.jsonl) whose first step's
    12 meals is right and whose third step is the error."""
    from training_recipes.rewards import consensus_reward

    shipped = Path(__file__).parent.parent / "lm_eval_tasks" / "consensusbench" / "data" / "gsm8k.jsonl"
    record = next(r for r in map(json.loads, shipped.open()) if r["id"] == "gsm8k/test/1312")
    assert "6 * 2 = 12" in record["computations"]
    path = tmp_path / "split.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps({**record, "id": "plain", "computations": None}) + "\n")
    ds = load_training_split(path)
    assert ds["computations"] == [record["computations"], []] and ds["problem"][0] == record["problem"]
    tom = ("Tom's restaurant gets 6 reservations a night, so they serve 6 * 2 = 12 meals a night.\n\n"
           "Each meal costs $5 for 2 meals and $5 for a bottle of wine, so each reservation brings in $15.\n\n"
           "If they are open 2 days a week, they make 12 reservations * $15 per reservation * 2 days = $360 a week. "
           "The answer is \\boxed{360}.")
    positions = []
    for row in ds:
        logged = {}
        consensus_reward("linear", log_first_error=True)(
            completions=[[{"role": "assistant", "content": tom}]], answer=[row["answer"]], nodes=[row["nodes"]],
            problem=[row["problem"]], computations=[row["computations"]], log_metric=logged.__setitem__)
        positions.append(logged["consensus_linear/left_path_position"])
    assert positions == [1.0, 0.0]  # step 3 of 3 with them; without, the right 12 is taken for the error
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**record, "computations": "6 * 2 = 12"}) + "\n")
    with pytest.raises(TrainingDataError, match=f"{bad}:1: field 'computations' must be a list of strings"):
        read_records(bad)


def test_max_samples_and_template():
    ds = load_training_split(FIXTURE, prompt_template="Q: {problem}", max_samples=3)
    assert len(ds) == 3 and ds[1]["prompt"][0]["content"].startswith("Q: Weng earns")


def test_string_nodes_and_json_nodes_are_normalised():
    assert normalise_nodes(["x=2"])[0] == {"id": "n1", "text": "x=2", "kind": "expression", "forms": ["x=2"],
                                           "value": None, "support": 0.0, "position": 0.0, "standalone": True}
    assert normalise_nodes(json.dumps([{"id": "a", "text": "3/4", "value": 0.75}]))[0]["value"] == "0.75"


def test_a_common_node_keeps_its_context_rule_in_training(tmp_path):
    """node_builder marks common nodes ``standalone: false``; the training split must keep it, or
    the reward would credit a bare ``12`` that the benchmark credits only beside a rarer node."""
    from training_recipes.scoring import score_completions

    nodes = [{"id": "n1", "text": "12", "kind": "value", "value": "12", "forms": ["12"], "support": 1.0,
              "position": 0.2, "standalone": False},
             {"id": "n2", "text": "x^2+3x-4 = 0", "kind": "equation", "forms": ["x^2+3x-4 = 0"], "support": 1.0,
              "position": 0.6, "standalone": True}]
    path = tmp_path / "split.jsonl"
    path.write_text(json.dumps({"id": "t/1", "problem": "p", "answer": "1", "nodes": nodes}) + "\n")
    row = load_training_split(path)[0]
    assert [n["standalone"] for n in row["nodes"]] == [False, True]
    texts = ["Ann picks 12 apples in the morning, so the answer is \\boxed{1}.",
             "Ann picks 12 apples in the morning. Writing the condition as a quadratic gives "
             "x^2+3x-4 = 0, whose positive root is \\boxed{1}."]
    scores = score_completions(texts, ["1", "1"], [row["nodes"], row["nodes"]])
    assert [(s.acc, s.ncr) for s in scores] == [(1.0, 0.0), (1.0, 1.0)]  # the bare 12 needs its context
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"problem": "p", "answer": "1", "nodes": [{**nodes[0], "standalone": "no"}]}) + "\n")
    with pytest.raises(TrainingDataError, match=f"{bad}:1: .*standalone"):
        read_records(bad)


@pytest.mark.parametrize("line,message", [
    ("{not json", "not valid JSON"),
    ('["a list"]', "expected a JSON object"),
    ('{"problem": "", "answer": "1", "nodes": []}', "'problem'"),
    ('{"problem": "p", "nodes": []}', "'answer'"),
    ('{"problem": "p", "answer": "1", "nodes": {"a": 1}}', "'nodes' must be a list"),
    ('{"problem": "p", "answer": "1", "nodes": [{"kind": "value"}]}', "nodes\\[0\\] needs"),
    ('{"problem": "p", "answer": "1", "nodes": [{"text": "x", "forms": "y"}]}', "field 'forms' must be a list"),
    ('{"problem": "p", "answer": "1", "nodes": [{"text": "x", "kind": "vibe"}]}', "'kind' must be one of"),
    ('{"problem": "p", "answer": "1", "nodes": [{"text": "x", "kind": "value"}]}', "needs field 'value'"),
])
def test_bad_records_name_file_line_and_field(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"problem": "ok", "answer": "1", "nodes": []}\n' + line + "\n")
    with pytest.raises(TrainingDataError, match=message) as err:
        read_records(path)
    assert f"{path}:2" in str(err.value)


def test_missing_file_says_how_to_fix(tmp_path):
    with pytest.raises(TrainingDataError, match="node_builder"):
        read_records(tmp_path / "nope.jsonl")
