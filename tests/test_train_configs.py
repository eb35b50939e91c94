"""Experiment-arm configs: every YAML parses with TRL's parser; every arm builds a real trainer.

The eight arms are GPU recipes (bf16, Qwen3-1.7B). On this CPU-only machine the tests override
what cannot run here — ``--bf16 false --use_cpu true`` (transformers refuses bf16 without a GPU),
the model (the embedded SmolLM2 instead of a hub download) and, while the shipped split is not
built, the dataset (the GSM8K-train fixture) — and build the trainer without training. The
multi-GPU launch configs (accelerate + DeepSpeed ZeRO-3, vLLM colocate/server) cannot run here at
all: they are parsed and checked, not executed.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
import yaml

from training_recipes.train import RecipeArguments, build_trainer, parse_args

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "training_recipes" / "configs"
ARMS = [f"{algo}_{mode}" for algo in ("grpo", "dapo") for mode in ("outcome", "linear", "max", "cl")]
FIXTURE = ROOT / "tests" / "fixtures" / "train" / "gsm8k_train_fixture.jsonl"
SHIPPED = ROOT / "training_recipes" / "data" / "gsm8k_train.jsonl"
CPU = ["--bf16", "false", "--use_cpu", "true"]


def cpu_overrides(tmp_path):
    dataset = SHIPPED if SHIPPED.is_file() else FIXTURE
    return CPU + ["--model_name_or_path", "embedded", "--dtype", "float32", "--dataset_path", str(dataset),
                  "--max_train_samples", "8", "--output_dir", str(tmp_path / "run"), "--reward_workers", "0"]


def test_all_arm_configs_exist_and_no_strays():
    names = sorted(p.stem for p in CONFIGS.glob("*.yaml"))
    assert names == sorted(ARMS + ["smoke_cpu"])


@pytest.mark.parametrize("arm", ARMS)
def test_arm_parses_with_its_algorithm_and_reward(arm):
    algo, mode = arm.split("_")
    recipe, args, model = parse_args(["--config", str(CONFIGS / f"{arm}.yaml")] + CPU)
    assert recipe.reward_mode == mode and recipe.hacking_guard
    assert recipe.dataset_path == "training_recipes/data/gsm8k_train.jsonl"
    assert args.num_generations > 1 and args.beta == 0.0
    if algo == "grpo":
        assert args.loss_type == "grpo" and args.epsilon == 0.2 and args.epsilon_high in (None, 0.2)
        assert not args.mask_truncated_completions and not recipe.dynamic_sampling
        assert not recipe.overlong_punishment
    else:
        assert args.loss_type == "dapo" and args.epsilon == 0.2 and args.epsilon_high == 0.28
        assert args.mask_truncated_completions and recipe.overlong_punishment and recipe.dynamic_sampling
        assert 0 < recipe.overlong_buffer < args.max_completion_length
    per_rank = args.per_device_train_batch_size * args.steps_per_generation
    assert per_rank % args.num_generations == 0  # whole groups per rank (dynamic sampling needs it)
    assert args.output_dir.endswith(arm)
    assert recipe.eval_tasks and all(t.startswith("consensusbench_") for t in recipe.eval_tasks)


def test_arms_differ_only_where_they_should():
    def load(arm):
        return yaml.safe_load((CONFIGS / f"{arm}.yaml").read_text())

    base = load("grpo_outcome")
    for arm in ARMS:
        algo, mode = arm.split("_")
        diff = {k for k in set(base) | set(load(arm)) if base.get(k) != load(arm).get(k)}
        allowed = {"reward_mode", "output_dir"}
        if algo == "dapo":
            allowed |= {"loss_type", "epsilon_high", "mask_truncated_completions", "overlong_punishment",
                        "overlong_buffer", "dynamic_sampling", "dynamic_sampling_max_gen_batches"}
        assert diff <= allowed, (arm, diff - allowed)


@pytest.mark.parametrize("mode", ["colocate", "server"])
@pytest.mark.parametrize("arm", ["grpo_linear", "dapo_linear"])
def test_vllm_overrides_parse(arm, mode):
    # The vLLM modes need GPUs and TRL's vLLM extra: here only the arguments are checked.
    _, args, _ = parse_args(["--config", str(CONFIGS / f"{arm}.yaml"), "--use_vllm", "true", "--vllm_mode", mode]
                            + CPU)
    assert args.use_vllm and args.vllm_mode == mode


@pytest.mark.parametrize("name,processes", [("zero3.yaml", 8), ("zero3_vllm_server.yaml", 7)])
def test_accelerate_deepspeed_configs_parse(name, processes):
    from accelerate.commands.config.config_args import load_config_from_file

    config = load_config_from_file(str(CONFIGS / "accelerate" / name))
    assert str(config.distributed_type).endswith("DEEPSPEED")
    assert config.deepspeed_config["zero_stage"] == 3 and config.deepspeed_config["zero3_init_flag"]
    assert config.num_processes == processes and str(config.mixed_precision).endswith("bf16")


def test_smoke_config_is_cpu_sized():
    recipe, args, model = parse_args(["--config", str(CONFIGS / "smoke_cpu.yaml")])
    assert args.use_cpu and not args.bf16 and args.max_steps == 2
    assert model.model_name_or_path == "embedded" and args.max_completion_length <= 32
    assert not args.mask_truncated_completions  # would mask every completion at this length
    assert Path(ROOT / recipe.dataset_path).is_file() or Path(recipe.dataset_path).is_file()


def test_unknown_reward_mode_is_refused():
    with pytest.raises(ValueError, match="reward_mode"):
        RecipeArguments(reward_mode="dense")


@pytest.mark.slow
@pytest.mark.parametrize("arm", ARMS)
def test_arm_builds_a_trainer(arm, tmp_path):
    algo, mode = arm.split("_")
    recipe, args, model = parse_args(["--config", str(CONFIGS / f"{arm}.yaml")] + cpu_overrides(tmp_path))
    trainer = build_trainer(recipe, args, model)
    try:
        # one reward function: DAPO's overlong penalty is inside it (a None stays None, TRL #5902)
        assert trainer.reward_func_names == [f"consensus_{mode}"]
        assert trainer.loss_type == algo
        assert trainer.epsilon_high == (0.28 if algo == "dapo" else 0.2)
        assert (trainer.dynamic_sampling is not None) == (algo == "dapo")
        if algo == "dapo":
            reward = trainer.reward_funcs[0]
            assert (reward.overlong_max_length, reward.overlong_buffer) == (args.max_completion_length,
                                                                            recipe.overlong_buffer)
            assert trainer.mask_truncated_completions
        assert len(trainer.train_dataset) == 8 and "nodes" in trainer.train_dataset.column_names
    finally:
        del trainer
        gc.collect()
