"""The reward's time budget bounds a completion's whole scoring (issue 15, item 12): the guard and
the node-pasting rule run on the same deadline as the scorer, and a completion out of time is
``timed_out`` (reward ``None``) instead of being scored again. The speed figures are in
``benchmarks/bench_reward_budget.py``; these tests check the mechanism without timing it, plus
one wall-clock bound with a generous margin."""

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from test_hostile_inputs import loop_text, math_text

import consensus_metrics
from consensus_metrics.budget import BudgetExceeded, Deadline
from training_recipes import scoring
from training_recipes.guards import GuardConfig, boxed_spans, inspect_completion, redact_number_lists
from training_recipes.rewards import consensus_reward
from training_recipes.scoring import score_completions

NODES = [{"id": "n1", "text": "16 - 3 - 4 = 9", "kind": "equation"},
         {"id": "n2", "text": "9 * 2 = 18", "kind": "equation"},
         {"id": "n3", "text": "2x + 1 = 7", "kind": "equation"}]
PASTED = " ; ".join(n["text"] for n in NODES) + " ; "
MB = 1_000_000


def _expired() -> Deadline:
    deadline = Deadline(0.0)
    time.sleep(0.001)
    return deadline


@pytest.mark.parametrize("step", [
    lambda d: inspect_completion("1 2 3 " * 1000, GuardConfig(), d),
    lambda d: redact_number_lists("7 " * 5000, 64, d),
    lambda d: boxed_spans("\\boxed{" + "{}" * 5000, d),
])
def test_the_guard_steps_stop_at_the_deadline(step):
    with pytest.raises(BudgetExceeded):
        step(_expired())
    step(Deadline(None))  # no limit: runs to the end


def test_the_node_pasting_rule_stops_at_the_deadline():
    text = PASTED * 200
    spans = [(0, len(text) * 2 // 5)]  # over the rule's gate: the covered nodes are matched again
    with pytest.raises(BudgetExceeded):
        scoring._node_share(text, NODES, ["n1", "n2", "n3"], spans, _expired())
    assert scoring._node_share(text, NODES, ["n1", "n2", "n3"], spans, Deadline(None)) > 0.4  # no limit: runs to the end


def test_a_completion_out_of_time_is_timed_out_and_not_scored_again(monkeypatch):
    calls = []

    def slow_score(text, nodes, answer, budget_s=None, **kwargs):
        calls.append(budget_s)
        return {"acc": 0, "ncr": 0.0, "covered": [], "positions": {}, "timed_out": True}

    monkeypatch.setattr(consensus_metrics, "score_trajectory", slow_score)
    (score,) = score_completions(["9 * 2 = 18 \\boxed{18}"], ["18"], [NODES], budget_s=0.5)
    assert score.timed_out and len(calls) == 1 and 0 < calls[0] <= 0.5
    reward = consensus_reward("linear", budget_s=0.5)
    assert reward(completions=["x"], answer=["18"], nodes=[NODES]) == [None]


def test_a_megabyte_of_pasted_nodes_ends_near_the_budget():
    consensus_metrics.warmup()  # the sandbox start is not charged to any budget
    # a wrong answer: the node-pasting rule judges wrong answers only, so it runs here
    text = (PASTED * (MB // len(PASTED) + 1))[:MB] + " \\boxed{17}"
    budget = 0.5
    start = time.monotonic()
    (score,) = score_completions([text], ["18"], [NODES], budget_s=budget)
    elapsed = time.monotonic() - start
    assert score.timed_out or score.guard == "node_pasting"
    if elapsed >= budget + 0.75:  # a loaded machine stretches every wall clock (the figures: the benchmark):
        start = time.monotonic()  # then the bound is relative, to scoring the same text without a budget, now
        (full,) = score_completions([text], ["18"], [NODES], budget_s=60)
        unbounded = time.monotonic() - start  # about 2.3 s on an idle core, against 0.4 s with the budget
        assert not full.timed_out and elapsed < 0.6 * unbounded, (elapsed, unbounded)


def test_a_repetition_loop_ends_near_the_budget():
    """Issue 24, item 1: a completion caught in a loop of one equation (the most common failure of
    real models) took 7.7 s with a 1 s budget: chain matching tried every pair of equal sides."""
    consensus_metrics.warmup()
    text = " = ".join(["16-3-4", "9"] * 1500) + " \\boxed{9}"
    reward = consensus_reward("linear", budget_s=1.0)
    start = time.monotonic()
    (value,) = reward(completions=[text], answer=["18"], nodes=[NODES])
    assert time.monotonic() - start < 1.0 + 0.75
    assert value is None or 0.0 <= value <= 1.0


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(math_text, loop_text, st.text(max_size=300)))
def test_property_the_reward_scores_any_completion_within_its_budget(text):
    consensus_metrics.warmup()
    reward = consensus_reward("linear", budget_s=0.5)
    start = time.monotonic()
    (value,) = reward(completions=[text], answer=["18"], nodes=[NODES])
    assert time.monotonic() - start < 0.5 + 0.75 + 1.5  # + a possible sandbox restart after a kill
    assert value is None or 0.0 <= value <= 1.0
