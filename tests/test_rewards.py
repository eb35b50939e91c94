"""ConsensusPR rewards (training_recipes.rewards) through the real consensus_metrics scorer.

Inputs are real GSM8K-train problems (tests/fixtures/train/gsm8k_train_fixture.jsonl) with their
hand-written nodes; completions are the reference solutions, shortened or altered ones, and attacks.
"""

from __future__ import annotations

import json
import math
import pickle
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from training_recipes.guards import GuardConfig
from training_recipes.rewards import MODES, ConsensusReward, consensus_reward, mix_reward
from training_recipes.scoring import completion_text

ROWS = [json.loads(line) for line in
        (Path(__file__).parent / "fixtures" / "train" / "gsm8k_train_fixture.jsonl").read_bytes().splitlines()]
NATALIA = ROWS[0]  # nodes: "48/2=24" (equation), "24" (value); answer 72
NO_NODES = ROWS[7]


def solution(row):
    return re.sub(r"<<[^>]*>>", "", row["solution"]).replace("####", "The answer is \\boxed{") + "}"


def chat(text):
    return [{"role": "assistant", "content": text}]


RIGHT_FULL = solution(NATALIA)                                  # acc 1, ncr 1
WRONG_HALF = "Natalia sold 24 clips in May, so she sold \\boxed{70}."  # acc 0, ncr 1/2 (value 24 only)
WRONG_NONE = "I think it is \\boxed{5}."                        # acc 0, ncr 0


def call(reward, texts, row=NATALIA, **kwargs):
    """The reward as TRL's GRPOTrainer calls it (a trainer_state at epoch 0 unless given)."""
    kwargs.setdefault("trainer_state", SimpleNamespace(epoch=0.0, global_step=0))
    n = len(texts)
    return reward(prompts=[[{"role": "user", "content": row["problem"]}]] * n, completions=[chat(t) for t in texts],
                  answer=[row["answer"]] * n, nodes=[row["nodes"]] * n, **kwargs)


@pytest.mark.parametrize("mode,expected", [
    ("outcome", [1.0, 0.0, 0.0]),
    ("linear", [1.0, 0.25, 0.0]),
    ("max", [1.0, 0.5, 0.0]),
    ("cl", [1.0, 0.5, 0.0]),  # epoch 0 < switch: ncr
])
def test_every_mode_on_real_solutions(mode, expected):
    state = SimpleNamespace(epoch=0.0, global_step=0)
    assert call(consensus_reward(mode), [RIGHT_FULL, WRONG_HALF, WRONG_NONE], trainer_state=state) == expected


def test_linear_alpha():
    assert call(consensus_reward("linear", alpha=0.8), [WRONG_HALF]) == [pytest.approx(0.1)]
    assert call(consensus_reward("linear", alpha=0.0), [WRONG_HALF]) == [0.5]


def test_cl_switches_at_the_epoch():
    reward = consensus_reward("cl", switch_epoch=1.0)
    right_partial = "48/2 = 24. Answer: \\boxed{72}"  # acc 1, ncr 1 (both nodes)
    wrong_partial = WRONG_HALF                         # acc 0, ncr 0.5
    before = call(reward, [right_partial, wrong_partial], trainer_state=SimpleNamespace(epoch=0.99))
    after = call(reward, [right_partial, wrong_partial], trainer_state=SimpleNamespace(epoch=1.0))
    assert before == [1.0, 0.5] and after == [1.0, 0.0]
    assert call(consensus_reward("cl", switch_epoch=2), [wrong_partial],
                trainer_state=SimpleNamespace(epoch=1.5)) == [0.5]


def test_cl_without_a_clock_is_an_error_not_ncr_forever():
    # TRL's async GRPO and verl pass no trainer_state: cl must not silently stay on NCR
    reward = consensus_reward("cl")
    for state in (None, SimpleNamespace(epoch=None), SimpleNamespace()):
        with pytest.raises(RuntimeError, match="needs the training epoch.*set_clock"):
            call(reward, [WRONG_HALF], trainer_state=state)
    # the other modes need no clock
    assert call(consensus_reward("max"), [WRONG_HALF]) == [0.5]


def test_cl_takes_an_explicit_clock():
    reward = consensus_reward("cl", switch_epoch=1.0)
    assert call(reward, [WRONG_HALF], epoch=0.5) == [0.5] and call(reward, [WRONG_HALF], epoch=1.0) == [0.0]
    reward.set_clock(epoch=0.2)
    assert call(reward, [WRONG_HALF], trainer_state=None) == [0.5]
    reward.set_clock(epoch=3)
    assert call(reward, [WRONG_HALF], trainer_state=None) == [0.0]
    # a trainer_state, when there is one, wins over the manual clock
    assert call(reward, [WRONG_HALF], trainer_state=SimpleNamespace(epoch=0.1)) == [0.5]
    by_step = consensus_reward("cl", switch_step=100)
    with pytest.raises(RuntimeError, match="training step"):
        call(by_step, [WRONG_HALF], trainer_state=None)
    assert call(by_step, [WRONG_HALF], trainer_state=SimpleNamespace(epoch=5.0, global_step=99)) == [0.5]
    assert call(by_step, [WRONG_HALF], step=100, trainer_state=None) == [0.0]


def test_overlong_penalty_is_part_of_the_one_reward():
    from trl.rewards import get_soft_overlong_punishment

    trl_penalty = get_soft_overlong_punishment(20, 10)
    lengths = [5, 10, 11, 15, 20, 25]
    ids = [[7] * n for n in lengths]
    ours = consensus_reward("max", overlong_max_length=20, overlong_buffer=10)
    state = SimpleNamespace(epoch=0.0)
    got = call(ours, [WRONG_HALF] * len(lengths), completion_ids=ids, trainer_state=state)
    assert got == pytest.approx([0.5 + p for p in trl_penalty(completion_ids=ids)])
    with pytest.raises(ValueError, match="completion_ids"):
        call(ours, [WRONG_HALF])
    with pytest.raises(ValueError, match="overlong_buffer"):
        consensus_reward("max", overlong_max_length=20, overlong_buffer=20)


def test_a_scoring_timeout_makes_the_whole_reward_none_overlong_included():
    # a budget nothing fits in: every completion times out twice -> None, not "penalty only"
    reward = consensus_reward("max", budget_s=1e-9, overlong_max_length=20, overlong_buffer=10)
    got = call(reward, [RIGHT_FULL, WRONG_HALF], completion_ids=[[1] * 25, [1] * 5])
    assert got == [None, None]


def test_think_prefilled_reads_a_completion_without_close_as_an_unclosed_trace():
    trace_only = "48/2 = 24 in May, 48+24 = 72 so maybe \\boxed{72}"  # cut before </think>
    state = SimpleNamespace(epoch=0.0)
    assert call(consensus_reward("linear"), [trace_only], trainer_state=state) == [1.0]
    prefilled = consensus_reward("linear", think_prefilled=True)
    assert call(prefilled, [trace_only], trainer_state=state) == [0.5]  # acc 0, node credit stays
    assert call(prefilled, [trace_only + "</think>The answer is \\boxed{72}."], trainer_state=state) == [1.0]


@pytest.mark.parametrize("mode", MODES)
def test_problem_without_nodes_falls_back_to_acc(mode):
    right, wrong = solution(NO_NODES), "\\boxed{12345}"
    assert call(consensus_reward(mode), [right, wrong], row=NO_NODES) == [1.0, 0.0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("empty", ["", None, [], [{"role": "assistant", "content": ""}]])
def test_empty_completion_gets_zero(mode, empty):
    reward = consensus_reward(mode)
    assert reward(completions=[empty], answer=["72"], nodes=[NATALIA["nodes"]],
                  trainer_state=SimpleNamespace(epoch=0.0)) == [0.0]


def test_string_and_conversational_and_block_completions_agree():
    reward = consensus_reward("linear")
    as_string = reward(completions=[WRONG_HALF], answer=["72"], nodes=[NATALIA["nodes"]])
    as_chat = reward(completions=[chat(WRONG_HALF)], answer=["72"], nodes=[NATALIA["nodes"]])
    blocks = [{"role": "assistant", "content": [{"type": "text", "text": WRONG_HALF}]}]
    as_blocks = reward(completions=[blocks], answer=["72"], nodes=[NATALIA["nodes"]])
    assert as_string == as_chat == as_blocks == [0.25]


def test_completion_text_keeps_only_assistant_turns():
    convo = [{"role": "user", "content": "48/2=24"}, {"role": "assistant", "content": "x"},
             {"role": "tool", "content": "y"}, {"role": "assistant", "content": "z"}]
    assert completion_text(convo) == "x\nz"
    assert completion_text("plain") == "plain"


def test_nodes_as_json_string_and_plain_strings():
    reward = consensus_reward("max")
    as_json = reward(completions=[WRONG_HALF], answer=["72"], nodes=[json.dumps(NATALIA["nodes"])])
    as_strings = reward(completions=[WRONG_HALF], answer=["72"], nodes=[["48/2=24", "24"]])
    assert as_json == as_strings == [0.5]


def test_logs_acc_and_ncr_separately():
    metrics, extra = {}, {}
    call(consensus_reward("max"), [RIGHT_FULL, WRONG_HALF, WRONG_NONE],
         log_metric=lambda k, v: metrics.setdefault(k, v), log_extra=lambda k, v: extra.setdefault(k, v))
    assert metrics["consensus_max/acc"] == pytest.approx(1 / 3)
    assert metrics["consensus_max/ncr"] == pytest.approx(0.5)
    assert metrics["consensus_max/guarded"] == 0.0
    assert extra == {"acc": [1.0, 0.0, 0.0], "ncr": [1.0, 0.5, 0.0]}


def test_outcome_logs_ncr_unless_mv_only():
    metrics = {}
    call(consensus_reward("outcome"), [WRONG_HALF], log_metric=lambda k, v: metrics.setdefault(k, v))
    assert metrics["consensus_outcome/ncr"] == 0.5
    metrics = {}
    reward = consensus_reward("outcome", track_ncr=False)
    assert reward(completions=[WRONG_HALF], answer=["72"], nodes=None, log_metric=lambda k, v: metrics.setdefault(k, v)) == [0.0]
    assert "consensus_outcome/ncr" not in metrics


def test_reward_is_picklable_and_named():
    for mode in MODES:
        reward = consensus_reward(mode, alpha=0.3)
        clone = pickle.loads(pickle.dumps(reward))
        assert clone.__name__ == reward.__name__ == f"consensus_{mode}"
        assert call(clone, [WRONG_HALF]) == call(reward, [WRONG_HALF])


def test_bad_arguments_are_clear():
    with pytest.raises(ValueError, match="unknown reward mode"):
        consensus_reward("dense")
    with pytest.raises(ValueError, match="alpha"):
        consensus_reward("linear", alpha=1.5)
    reward = consensus_reward("linear")
    with pytest.raises(ValueError, match="column 'nodes'"):
        reward(completions=["a"], answer=["1"], nodes=None)
    with pytest.raises(ValueError, match="2 entries for 1"):
        reward(completions=["a"], answer=["1", "2"], nodes=[[]])


def test_mix_reward_formulas():
    assert mix_reward("linear", 1.0, 0.0, alpha=0.25) == 0.25
    assert mix_reward("max", 0.0, None) == 0.0 and mix_reward("linear", 1.0, None) == 1.0
    with pytest.raises(ValueError):
        mix_reward("nope", 1.0, 1.0)


# --- reward hacking -------------------------------------------------------------------------------

ATTACKS = {
    "count_to_5000": " ".join(str(i) for i in range(5001)),
    "assignments": ", ".join(f"x={i}" for i in range(300)),
    "prose_enumeration": " ".join(f"Maybe {i}." for i in range(600)),
    "pasted_nodes": "48/2=24 ; 24",
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
@pytest.mark.parametrize("mode", ["linear", "max", "cl"])
def test_attacks_earn_no_node_credit(name, mode):
    text = ATTACKS[name] + " \\boxed{70}"
    unguarded = call(consensus_reward(mode, guard=False), [text])[0]
    guarded = call(consensus_reward(mode), [text])[0]
    assert unguarded > 0.0, "the attack must work without the guard, or the test shows nothing"
    assert guarded == 0.0


def test_attack_inside_a_right_solution_keeps_acc_but_not_list_credit():
    listing = " ".join(str(i % 30) for i in range(90))  # 90 numbers, 30 distinct: a list, not spam
    text = f"Candidates: {listing}. She sold 70+2 = 72 clips. \\boxed{{72}}"
    scores = consensus_reward("linear").score([text], ["72"], [NATALIA["nodes"]])
    assert scores[0].acc == 1.0 and scores[0].ncr == 0.0 and scores[0].guard == "number_list"


# a MATH-500 reference (algebra/849) that is one equation chain, and nodes on its links: the
# node matches make up almost all of it, as in a paste
CHAIN = "We have $f(-2) = 5(-2)^2 + 3(-2) + 4 = 5(4) -6 + 4 = \\boxed{18}$."
CHAIN_NODES = [{"id": "n1", "text": "f(-2) = 5(-2)^2 + 3(-2) + 4", "kind": "equation"},
               {"id": "n2", "text": "5(-2)^2 + 3(-2) + 4 = 5(4) -6 + 4", "kind": "equation"},
               {"id": "n3", "text": "5(4) -6 + 4 = 18", "kind": "equation"}]


def test_node_pasting_judges_wrong_answers_only():
    reward = consensus_reward("linear")
    right, = reward.score([CHAIN], ["18"], [CHAIN_NODES])
    assert (right.acc, right.ncr, right.guard) == (1.0, 1.0, "")  # a terse derivation keeps its credit
    pasted = " ; ".join(n["text"] for n in CHAIN_NODES)
    wrong, = reward.score([pasted + " \\boxed{17}"], ["18"], [CHAIN_NODES])
    assert (wrong.acc, wrong.ncr, wrong.guard) == (0.0, 0.0, "node_pasting")
    unguarded, = consensus_reward("linear", guard=False).score([pasted + " \\boxed{17}"], ["18"], [CHAIN_NODES])
    assert unguarded.ncr > 0.5  # the attack works without the guard


@pytest.mark.parametrize("row", ROWS[:7], ids=[r["id"] for r in ROWS[:7]])
def test_honest_reference_solutions_keep_full_credit(row):
    reward = consensus_reward("linear")
    scores = reward.score([chat(solution(row))], [row["answer"]], [row["nodes"]])
    assert scores[0].acc == 1.0 and scores[0].ncr == 1.0 and scores[0].guard == ""


def test_guard_thresholds_are_configurable():
    text = " ".join(str(i) for i in range(40)) + " 24"
    strict = consensus_reward("max", guard=GuardConfig(max_list_run=10, min_distinct_numbers=1000))
    default = consensus_reward("max")
    assert call(default, [text]) == [0.5] and call(strict, [text]) == [0.0]


# --- worker processes -----------------------------------------------------------------------------

@pytest.mark.slow
def test_worker_processes_give_the_same_rewards():
    texts = [RIGHT_FULL, WRONG_HALF, WRONG_NONE, ATTACKS["count_to_5000"], solution(ROWS[3])] * 2
    rows = [NATALIA] * 4 + [ROWS[3]]
    rows = rows * 2
    kwargs = dict(completions=[chat(t) for t in texts], answer=[r["answer"] for r in rows],
                  nodes=[r["nodes"] for r in rows])
    # a generous time budget: this test is about equal results, not about the budget (2 shared cores)
    inline = consensus_reward("linear", budget_s=10)(**kwargs)
    pooled = consensus_reward("linear", workers=2, budget_s=10)(**kwargs)
    assert inline == pooled and not any(math.isnan(x) for x in pooled)
    assert isinstance(consensus_reward("linear", workers=2), ConsensusReward)
