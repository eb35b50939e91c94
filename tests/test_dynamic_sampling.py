"""DAPO dynamic sampling on TRL's GRPOTrainer (training_recipes.dynamic_sampling).

The trainer tests run real TRL generation, scoring and optimizer steps on a tiny *random* Llama that
uses the embedded SmolLM2 tokenizer (about 1 s a step on CPU; ``tiny_model_dir`` in conftest.py).
The reward here is a test reward chosen to control group variance exactly: "flat" prompts give
every completion 1.0 (zero variance, no learning signal), "varied" prompts give
sum(completion_ids) % 7 (different random tokens differ).
"""

from __future__ import annotations

import os

import pytest
import torch

from training_recipes.dynamic_sampling import (
    DynamicSamplingConfig,
    DynamicSamplingGRPOTrainer,
    concat_scored_batches,
    informative_rows,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


# --- pure functions -------------------------------------------------------------------------------

def test_informative_rows_marks_whole_groups():
    rewards = torch.tensor([1.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.2, 0.9])
    assert informative_rows(rewards, 2, 1e-6).tolist() == [False, False, True, True, False, False, True, True]
    assert informative_rows(rewards, 4, 1e-6).tolist() == [True] * 8


def test_informative_rows_threshold_and_nan():
    rewards = torch.tensor([0.5, 0.5 + 1e-9, float("nan"), 1.0, float("nan"), float("nan")])
    keep = informative_rows(rewards, 2, 1e-6).tolist()
    # tiny float noise is not variance; a group with one scorable completion has no variance either
    assert keep == [False, False, False, False, False, False]


def test_concat_scored_batches_pads_each_side_and_drops_scalars():
    a = {"prompt_ids": torch.tensor([[5, 6]]), "prompt_mask": torch.tensor([[1, 1]]),
         "completion_ids": torch.tensor([[7]]), "completion_mask": torch.tensor([[1]]),
         "advantages": torch.tensor([1.0]), "num_items_in_batch": torch.tensor(1), "old_per_token_logps": None}
    b = {"prompt_ids": torch.tensor([[6]]), "prompt_mask": torch.tensor([[1]]),
         "completion_ids": torch.tensor([[8, 9]]), "completion_mask": torch.tensor([[1, 1]]),
         "advantages": torch.tensor([2.0]), "num_items_in_batch": torch.tensor(2), "old_per_token_logps": None}
    out = concat_scored_batches([a, b], pad_token_id=0)
    assert out["prompt_ids"].tolist() == [[5, 6], [0, 6]]
    assert out["prompt_mask"].tolist() == [[1, 1], [0, 1]]
    assert out["completion_ids"].tolist() == [[7, 0], [8, 9]]
    assert out["completion_mask"].tolist() == [[1, 0], [1, 1]]
    assert out["advantages"].tolist() == [1.0, 2.0]
    assert out["old_per_token_logps"] is None
    assert "num_items_in_batch" not in out


def test_concat_refuses_images():
    a = {"advantages": torch.tensor([1.0]), "pixel_values": torch.zeros(1, 3)}
    with pytest.raises(ValueError, match="text-only"):
        concat_scored_batches([a, a], pad_token_id=0)


@pytest.mark.parametrize("kwargs", [{"max_gen_batches": 0}, {"fallback": "skip"}, {"min_std": -1.0}])
def test_config_rejects_bad_values(kwargs):
    with pytest.raises(ValueError, match="dynamic sampling"):
        DynamicSamplingConfig(**kwargs)


# --- real trainer ---------------------------------------------------------------------------------

class FlatOrVariedReward:
    """Test reward: 1.0 for 'flat' prompts; sum(completion_ids) % 7 for 'varied' ones."""

    __name__ = "flat_or_varied"

    def __call__(self, completions, completion_ids, kind, **kwargs):
        return [1.0 if k == "flat" else float(sum(ids) % 7) for k, ids in zip(kind, completion_ids)]


def make_trainer(model_dir, tmp_path, kinds, dynamic, max_steps=3, recorder=None):
    from datasets import Dataset
    from trl import GRPOConfig

    dataset = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": f"Problem {i}: what is {i} + {i}?"}], "kind": k}
         for i, k in enumerate(kinds)]
    )
    args = GRPOConfig(output_dir=str(tmp_path / "out"), use_cpu=True, bf16=False, per_device_train_batch_size=4,
                      num_generations=2, max_completion_length=8, max_steps=max_steps, learning_rate=1e-3,
                      report_to="none", save_strategy="no", logging_steps=1, seed=0, loss_type="dapo",
                      epsilon_high=0.28)
    cls = DynamicSamplingGRPOTrainer
    if recorder is not None:
        class Recording(DynamicSamplingGRPOTrainer):
            def _generate_and_score_completions(self, inputs):
                out = super()._generate_and_score_completions(inputs)
                recorder.append(out)
                return out
        cls = Recording
    return cls(model=model_dir, reward_funcs=[FlatOrVariedReward()], args=args, train_dataset=dataset,
               dynamic_sampling=dynamic)


def group_informative(batch, num_generations=2):
    adv = batch["advantages"].view(-1, num_generations)
    return (adv.abs().sum(dim=1) > 0).tolist()


@pytest.mark.slow
def test_dynamic_sampling_trains_only_on_informative_groups(tiny_model_dir, tmp_path):
    seen = []
    kinds = ["flat"] * 6 + ["varied"] * 6
    trainer = make_trainer(tiny_model_dir, tmp_path, kinds, DynamicSamplingConfig(max_gen_batches=16), recorder=seen)
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    trainer.train()
    assert trainer.state.global_step == 3
    # informative groups carry advantages, so the policy really moved
    assert any(not torch.equal(before[n], p.detach()) for n, p in trainer.model.named_parameters())
    assert len(seen) == 3
    for batch in seen:
        assert batch["advantages"].shape == (4,)
        assert batch["completion_ids"].shape[0] == batch["prompt_ids"].shape[0] == 4
        assert all(group_informative(batch)), batch["advantages"]
        assert int(batch["num_items_in_batch"]) == int(batch["completion_mask"].sum())
    metrics = trainer.state.log_history
    rounds = [m["dynamic_sampling/gen_batches"] for m in metrics if "dynamic_sampling/gen_batches" in m]
    assert len(rounds) == 3 and max(rounds) > 1  # half the prompts are flat: refills happened
    assert all(m.get("dynamic_sampling/filled_zero_std", 0) == 0 for m in metrics)


@pytest.mark.slow
def test_dynamic_sampling_fill_fallback_when_nothing_is_informative(tiny_model_dir, tmp_path):
    seen = []
    trainer = make_trainer(tiny_model_dir, tmp_path, ["flat"] * 8, DynamicSamplingConfig(max_gen_batches=2),
                           max_steps=1, recorder=seen)
    trainer.train()
    assert trainer.state.global_step == 1
    assert seen[0]["advantages"].abs().sum() == 0
    logged = [m for m in trainer.state.log_history if "dynamic_sampling/filled_zero_std" in m]
    assert logged[0]["dynamic_sampling/filled_zero_std"] == 1.0
    assert logged[0]["dynamic_sampling/gen_batches"] == 2.0


@pytest.mark.slow
def test_dynamic_sampling_error_fallback(tiny_model_dir, tmp_path):
    trainer = make_trainer(tiny_model_dir, tmp_path, ["flat"] * 8,
                           DynamicSamplingConfig(max_gen_batches=2, fallback="error"), max_steps=1)
    with pytest.raises(RuntimeError, match="non-zero reward variance"):
        trainer.train()


@pytest.mark.slow
def test_without_dynamic_sampling_zero_variance_groups_stay(tiny_model_dir, tmp_path):
    seen = []
    trainer = make_trainer(tiny_model_dir, tmp_path, ["flat"] * 8, None, max_steps=1, recorder=seen)
    trainer.train()
    assert not any("dynamic_sampling/gen_batches" in m for m in trainer.state.log_history)
    assert seen[0]["advantages"].abs().sum() == 0
