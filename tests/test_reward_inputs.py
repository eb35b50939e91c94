"""The reward's inputs (issue 15): a ``nodes`` entry of a shape the reward does not document is a
TrainingDataError naming the row and column, never a silent reinterpretation; out-of-range
budgets are refused when the reward is built."""

import json

import pytest

from training_recipes.data import TrainingDataError
from training_recipes.rewards import consensus_reward

NODES = [{"id": "n1", "text": "48/2=24"}, {"id": "n2", "text": "48+24=72"}]
WRONG_WITH_THE_WORD_TEXT = "The text says 70. \\boxed{70}"


@pytest.mark.parametrize("bad, shape", [
    ({"id": "n1", "text": "48/2=24"}, "dict"),  # one node dict instead of a list: its keys would be nodes
    ({"n1": "48/2=24"}, "dict"),
    (24, "int"),
    ({"48/2=24", "24"}, "set"),
    (json.dumps({"text": "48/2=24"}), "dict"),  # a JSON string of the wrong shape
])
def test_a_nodes_value_of_another_shape_names_row_and_column(bad, shape):
    reward = consensus_reward("max")
    with pytest.raises(TrainingDataError, match=rf"row 1, column 'nodes': field 'nodes' must be a list, got {shape}"):
        reward(completions=["\\boxed{72}", WRONG_WITH_THE_WORD_TEXT], answer=["72", "72"], nodes=[NODES, bad])


@pytest.mark.parametrize("bad, message", [
    ([{"id": "n1"}], "nodes\\[0\\] needs a non-empty string 'text'"),
    ([24], "nodes\\[0\\] needs a non-empty string 'text'"),
    ([["48/2=24"]], "nodes\\[0\\] needs a non-empty string 'text'"),
])
def test_a_bad_node_inside_the_list_names_row_and_column(bad, message):
    with pytest.raises(TrainingDataError, match=rf"row 0, column 'nodes': {message}"):
        consensus_reward("linear")(completions=[WRONG_WITH_THE_WORD_TEXT], answer=["72"], nodes=[bad])


def test_the_documented_shapes_agree():
    reward = consensus_reward("max")
    shapes = [NODES, tuple(NODES), json.dumps(NODES), [n["text"] for n in NODES]]
    rewards = reward(completions=["48/2 = 24, so \\boxed{70}"] * 4, answer=["72"] * 4, nodes=shapes)
    assert rewards == [0.5] * 4
    assert reward(completions=["\\boxed{72}"], answer=["72"], nodes=[None]) == [1.0]


@pytest.mark.parametrize("budget", [0, -1.0, float("nan"), float("inf")])
def test_an_out_of_range_budget_is_refused_when_the_reward_is_built(budget):
    with pytest.raises(ValueError, match="budget_s must be a finite number > 0"):
        consensus_reward("linear", budget_s=budget)
