"""The ConsensusPR reward inside real TRL GRPO steps: the DAPO arm's one combined reward (a scoring
timeout leaves the whole row unscorable, the overlong penalty equals TRL's own formula), the
``cl`` curriculum's clock (it switches on TRL's trainer_state), and a thinking completion that
TRL decodes with a response template (the reward reads the trace TRL moves to
``reasoning_content``).

Real generation, reward, loss and optimizer steps of ``GRPOTrainer`` built by the recipe from the
arm YAMLs, on a tiny random Llama with the SmolLM2 tokenizer (``tiny_model_dir``, conftest.py):
seconds per step on CPU.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest

from training_recipes.train import build_trainer, parse_args

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "training_recipes" / "configs"
SPLIT = ROOT / "training_recipes" / "data" / "gsm8k_train.jsonl"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def small_arm(arm: str, model_dir: str, tmp_path, *extra: str):
    """The arm's YAML with what cannot run on this CPU overridden (model, sizes, steps)."""
    return parse_args(["--config", str(CONFIGS / f"{arm}.yaml"), "--bf16", "false", "--use_cpu", "true",
                       "--model_name_or_path", model_dir, "--dtype", "float32", "--dataset_path", str(SPLIT),
                       "--max_train_samples", "8", "--output_dir", str(tmp_path / arm), "--reward_workers", "0",
                       "--per_device_train_batch_size", "4", "--num_generations", "2",
                       "--gradient_accumulation_steps", "1", "--gradient_checkpointing", "false",
                       "--max_completion_length", "12", "--save_strategy", "no", "--report_to", "none",
                       "--seed", "0", *extra])


def recording(trainer) -> list[dict]:
    """Record every scored generation batch the trainer computes (completion ids, advantages)."""
    seen: list[dict] = []
    original = trainer._generate_and_score_completions

    def record(inputs):
        out = original(inputs)
        seen.append(out)
        return out

    trainer._generate_and_score_completions = record
    return seen


@pytest.mark.slow
def test_dapo_arm_overlong_penalty_is_inside_the_reward_and_equals_trls(tiny_model_dir, tmp_path):
    from trl.rewards import get_soft_overlong_punishment

    recipe, args, model = small_arm("dapo_max", tiny_model_dir, tmp_path, "--overlong_buffer", "6",
                                    "--max_steps", "1", "--dynamic_sampling", "false",
                                    "--reward_budget_s", "5")
    trainer = build_trainer(recipe, args, model)
    seen = recording(trainer)
    trainer.train()
    assert trainer.state.global_step == 1
    assert trainer.reward_func_names == ["consensus_max"]  # one function, penalty inside
    logged = trainer._logs["rewards"]["consensus_max"]
    ids = [row[mask.bool()].tolist() for row, mask in zip(seen[0]["completion_ids"], seen[0]["completion_mask"])]
    # mask_truncated_completions zeroes the mask of cut-off completions: count their real length
    lengths = [int(m.numel()) if m.sum() == 0 else len(i) for i, m in zip(ids, seen[0]["completion_mask"])]
    penalties = get_soft_overlong_punishment(12, 6)(completion_ids=[[0] * n for n in lengths])
    # a random model neither answers nor reaches a node: the reward is the penalty alone
    assert list(logged) == pytest.approx(penalties)
    history = [m for m in trainer.state.log_history if "consensus_max/overlong_penalty" in m]
    assert history and history[0]["consensus_max/overlong_penalty"] == pytest.approx(sum(penalties) / len(penalties))


@pytest.mark.slow
def test_dapo_arm_scoring_timeout_leaves_the_rows_unscorable(tiny_model_dir, tmp_path):
    # a budget nothing fits in: every completion's scoring times out (twice) -> None
    recipe, args, model = small_arm("dapo_max", tiny_model_dir, tmp_path, "--overlong_buffer", "6",
                                    "--max_steps", "1", "--dynamic_sampling_max_gen_batches", "1",
                                    "--reward_budget_s", "1e-9")
    trainer = build_trainer(recipe, args, model)
    seen = recording(trainer)
    trainer.train()
    logged = trainer._logs["rewards"]["consensus_max"]
    assert logged and all(math.isnan(r) for r in logged), logged
    # TRL: every reward function returned None -> unscorable -> zero advantage (with a second
    # overlong function the row's reward would have been the penalty alone: a wrong answer)
    assert all(float(a) == 0.0 for batch in seen for a in batch["advantages"])
    history = [m for m in trainer.state.log_history if "consensus_max/timed_out" in m]
    assert history[0]["consensus_max/timed_out"] == 1.0


@pytest.mark.slow
def test_cl_arm_switches_on_the_trainer_clock(tiny_model_dir, tmp_path):
    recipe, args, model = small_arm("grpo_cl", tiny_model_dir, tmp_path, "--switch_step", "1", "--max_steps", "2")
    trainer = build_trainer(recipe, args, model)
    trainer.train()
    phases = [m["consensus_cl/uses_acc"] for m in trainer.state.log_history if "consensus_cl/uses_acc" in m]
    assert phases == [0.0, 1.0]  # step 0: NCR; from global step 1 on: Acc


@pytest.mark.slow
def test_cl_reward_without_trainer_state_fails_loudly(tiny_model_dir, tmp_path):
    # what TRL's async GRPO and verl do: call the reward without a trainer_state
    recipe, args, model = small_arm("grpo_cl", tiny_model_dir, tmp_path, "--max_steps", "1")
    trainer = build_trainer(recipe, args, model)
    reward = trainer.reward_funcs[0]
    with pytest.raises(RuntimeError, match="needs the training epoch"):
        reward(completions=["x"], answer=["1"], nodes=[[]])
    reward.set_clock(epoch=0.0)
    assert reward(completions=["x = 1 so \\boxed{1}"], answer=["1"], nodes=[[]]) == [1.0]


@pytest.mark.slow
def test_grpo_step_with_a_response_template_gives_the_reward_the_trace(tiny_model_dir, tmp_path):
    """The model repository ships TRL's Qwen3 response template, so GRPOTrainer decodes each
    completion with ``parse_response`` and the reward gets ``reasoning_content`` beside the answer.

    The tiny random model cannot think: a real logits processor (transformers' ``sequence_bias``,
    through GRPOConfig's ``generation_kwargs``) steers its sampling to write one thinking
    completion. Everything after generation -- TRL's decoding, the reward call, the logs -- is
    TRL's own. The node is only in the trace, the answer only after it."""
    from transformers import AutoTokenizer
    from trl.chat_template_utils import add_response_schema, qwen3_chat_template

    trace, answer, nodes = "Add them: 3+4=7.", "The answer is \\boxed{7}.", [{"id": "n1", "text": "3+4=7"}]
    model_dir = tmp_path / "thinking_model"
    shutil.copytree(tiny_model_dir, model_dir)
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    tokenizer.chat_template = qwen3_chat_template
    add_response_schema(tokenizer).save_pretrained(model_dir)
    assert AutoTokenizer.from_pretrained(model_dir).response_template is not None
    split = tmp_path / "split.jsonl"
    split.write_text("".join(json.dumps({"id": f"q{i}", "problem": "What is 3 plus 4?", "answer": "7",
                                         "nodes": nodes}) + "\n" for i in range(4)))
    recipe, args, model = small_arm("grpo_linear", str(model_dir), tmp_path, "--max_steps", "1",
                                    "--dataset_path", str(split), "--max_completion_length", "40")
    args.chat_template_kwargs = {}  # the arm switches Qwen3's thinking off; this run thinks
    script = tokenizer(f"<think>\n{trace}\n</think>\n\n{answer}", add_special_tokens=False)["input_ids"]
    script.append(tokenizer.eos_token_id)
    # each next script token gets a bias above every shorter match, so sampling writes the script
    args.generation_kwargs = {"sequence_bias": [[script[: i + 1], 100.0 * (i + 1)] for i in range(len(script))]}
    trainer = build_trainer(recipe, args, model)
    reward = trainer.reward_funcs[0]
    seen: list = []
    original = reward.score

    def record(completions, answers, nodes_column):
        seen.extend(completions)
        return original(completions, answers, nodes_column)

    reward.score = record
    trainer.train()
    assert trainer.state.global_step == 1
    assert seen and all(c[0].get("reasoning_content") == trace and c[0]["content"] == answer for c in seen), seen[:1]
    history = [m for m in trainer.state.log_history if "consensus_linear/ncr" in m]
    assert history[0]["consensus_linear/ncr"] == 1.0 and history[0]["consensus_linear/acc"] == 1.0
    assert list(trainer._logs["rewards"]["consensus_linear"]) == [1.0] * len(seen)
