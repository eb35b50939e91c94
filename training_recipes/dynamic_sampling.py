r"""DAPO dynamic sampling for TRL's ``GRPOTrainer`` (TRL 1.16 has none).

DAPO (Yu et al., 2025, arXiv 2503.14476, §3.2) over-samples and filters: a group of $G$ completions
of one prompt whose rewards all agree has zero advantage and gives no gradient, so it is dropped
and more prompts are sampled until the batch is full again:

$$
\text{keep group } g \iff \operatorname{std}(r_{g,1..G}) > \texttt{min\_std}
$$

Hook: :class:`DynamicSamplingGRPOTrainer` overrides ``_generate_and_score_completions`` (the one
method of ``GRPOTrainer`` that turns a generation batch into scored, advantage-carrying tensors)
and, in training only, calls the parent repeatedly:

1. score the incoming generation batch (parent method, unchanged: generation, rewards,
   group-normalised advantages);
2. keep the rows of informative groups (reward std > ``min_std``, reading the rewards the parent
   gathered in ``_calculate_rewards``);
3. while fewer than the batch's rows are kept, draw another generation batch of fresh prompts from
   a second sampler over the training set (``RepeatSampler``, its own seed) and repeat, at most
   ``max_gen_batches`` rounds in all;
4. concatenate the kept rows (re-padding prompts on the left and completions on the right), cut
   to the original batch size, recompute ``num_items_in_batch``.

If the rounds run out, the batch is filled with zero-variance groups (their advantage is 0, so they
add no gradient; logged as ``dynamic_sampling/filled_zero_std``) — or an error is raised with
``fallback="error"``. Evaluation is untouched. With several processes the keep decision is made on
the gathered rewards, identically on every rank, so all ranks run the same number of rounds; each
rank's generation batch must hold whole groups (``per_device_train_batch_size *
steps_per_generation`` divisible by ``num_generations``). Text-only: image inputs are refused.

Logged: ``dynamic_sampling/gen_batches`` (rounds per step), ``dynamic_sampling/kept_group_frac``
(informative groups / groups generated), ``dynamic_sampling/filled_zero_std``.

TRL versions: the two hooks are *private* ``GRPOTrainer`` methods, so a TRL release may rename or
reshape them and the override would then silently never run. ``setup.cfg`` bounds ``trl`` to the
tested minor releases (:data:`TESTED_TRL`); :func:`check_trl_compat` (run when a dynamic-sampling
trainer is built, and by ``tests/test_trl_compat.py``) refuses a TRL whose hooks are missing or
have other parameters and warns on an untested version.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass

import torch
import trl
from trl import GRPOTrainer
from trl.trainer.grpo_trainer import RepeatSampler

__all__ = ["DynamicSamplingConfig", "DynamicSamplingGRPOTrainer", "concat_scored_batches", "informative_rows",
           "TESTED_TRL", "check_trl_compat", "untested_trl_message"]

TESTED_TRL = ("1.16",)
"""TRL minor releases this module's private hooks were checked against (keep in step with the
``trl`` bound in ``setup.cfg``)."""
PRIVATE_HOOKS = {
    "_generate_and_score_completions": ("self", "inputs"),
    "_calculate_rewards": ("self", "inputs", "prompts", "completions", "completion_ids_list"),
}
"""The private ``GRPOTrainer`` methods overridden here, with the parameters they are called with."""


def untested_trl_message(version: str) -> str | None:
    """Why ``version`` of TRL is untested here, or ``None`` when it is one of :data:`TESTED_TRL`.

    >>> untested_trl_message("1.16.0") is None, untested_trl_message("1.17.0")[:40]
    (True, 'TRL 1.17.0 is not a release dynamic_samp')
    """
    minor = ".".join(str(version).split(".")[:2])
    if minor in TESTED_TRL:
        return None
    return (f"TRL {version} is not a release dynamic_sampling.py was tested with ({', '.join(TESTED_TRL)}.x): "
            f"it overrides the private GRPOTrainer methods {', '.join(PRIVATE_HOOKS)}, which TRL may change "
            "without notice. Re-run tests/test_dynamic_sampling.py and tests/test_trl_compat.py with this TRL, then "
            "add its minor version to TESTED_TRL and widen the trl bound in setup.cfg; or install a tested "
            f"release (pip install 'trl>={TESTED_TRL[0]},<{_next_minor(TESTED_TRL[-1])}').")


def _next_minor(minor: str) -> str:
    major, sub = minor.split(".")
    return f"{major}.{int(sub) + 1}"


def check_trl_compat(trainer_cls=GRPOTrainer, version: str | None = None) -> None:
    """Raise ``RuntimeError`` when ``trainer_cls`` lacks a hook of :data:`PRIVATE_HOOKS` or calls
    it with other parameters (the override would silently never run); log a warning when the TRL
    ``version`` is not one of :data:`TESTED_TRL`."""
    for name, params in PRIVATE_HOOKS.items():
        method = getattr(trainer_cls, name, None)
        if method is None:
            raise RuntimeError(f"dynamic sampling: trl {version or trl.__version__} GRPOTrainer has no {name}(); "
                               "the DAPO dynamic-sampling override cannot work with this TRL. "
                               + (untested_trl_message(version or trl.__version__) or ""))
        found = tuple(inspect.signature(method).parameters)
        if found != params:
            raise RuntimeError(f"dynamic sampling: trl {version or trl.__version__} GRPOTrainer.{name} takes "
                               f"{found}, this override expects {params}. "
                               + (untested_trl_message(version or trl.__version__) or ""))
    message = untested_trl_message(version or trl.__version__)
    if message:
        logger.warning(message)

logger = logging.getLogger(__name__)

_LEFT_PADDED = ("prompt_ids", "prompt_mask")
_UNSUPPORTED = ("pixel_values", "image_grid_thw", "num_images", "num_tiles", "pixel_attention_mask", "image_sizes")


@dataclass(frozen=True)
class DynamicSamplingConfig:
    """``min_std``: a group with reward std ≤ this is uninformative; ``max_gen_batches``: rounds of
    generation allowed per step (1 = no refill); ``fallback``: ``"fill"`` or ``"error"`` when the
    rounds run out; ``seed_offset``: added to ``args.seed`` for the refill sampler."""

    min_std: float = 1e-6
    max_gen_batches: int = 4
    fallback: str = "fill"
    seed_offset: int = 1

    def __post_init__(self):
        if self.max_gen_batches < 1:
            raise ValueError(f"dynamic sampling: max_gen_batches must be >= 1, got {self.max_gen_batches}")
        if self.fallback not in ("fill", "error"):
            raise ValueError(f"dynamic sampling: fallback must be 'fill' or 'error', got {self.fallback!r}")
        if self.min_std < 0:
            raise ValueError(f"dynamic sampling: min_std must be >= 0, got {self.min_std}")


def informative_rows(rewards: torch.Tensor, num_generations: int, min_std: float) -> torch.Tensor:
    """Boolean mask over rows: True where the row's group has reward std > ``min_std``.

    ``rewards`` is the (N,) total reward, grouped in consecutive blocks of ``num_generations``.
    NaN rewards (unscorable completions) are ignored inside a group.

    >>> informative_rows(torch.tensor([1., 1., 0., 1.]), 2, 1e-6).tolist()
    [False, False, True, True]
    """
    groups = rewards.view(-1, num_generations)
    valid = ~torch.isnan(groups)
    counts = valid.sum(dim=1).clamp(min=1)
    filled = torch.where(valid, groups, torch.zeros_like(groups))
    mean = filled.sum(dim=1, keepdim=True) / counts.unsqueeze(1)
    var = torch.where(valid, (groups - mean) ** 2, torch.zeros_like(groups)).sum(dim=1) / (counts - 1).clamp(min=1)
    keep = (var.sqrt() > min_std) & (valid.sum(dim=1) > 1)
    return keep.repeat_interleave(num_generations)


def concat_scored_batches(batches: list[dict], pad_token_id: int) -> dict:
    """Concatenate the row tensors of several ``_generate_and_score_completions`` outputs.

    Prompt tensors are re-padded on the left, other 2-D tensors on the right (token ids with
    ``pad_token_id``, ``tool_mask`` with 1, the rest with 0); 0-d tensors (``num_items_in_batch``)
    are dropped, to be recomputed by the caller.

    >>> a = {"prompt_ids": torch.tensor([[5, 6]]), "completion_ids": torch.tensor([[7]]), "advantages": torch.tensor([1.])}
    >>> b = {"prompt_ids": torch.tensor([[6]]), "completion_ids": torch.tensor([[8, 9]]), "advantages": torch.tensor([2.])}
    >>> out = concat_scored_batches([a, b], pad_token_id=0)
    >>> out["prompt_ids"].tolist(), out["completion_ids"].tolist()
    ([[5, 6], [0, 6]], [[7, 0], [8, 9]])
    """
    out: dict = {}
    for key in batches[0]:
        values = [b.get(key) for b in batches]
        if key in _UNSUPPORTED and any(v is not None for v in values):
            raise ValueError(f"dynamic sampling supports text-only batches; got '{key}'")
        if all(v is None for v in values):
            out[key] = None
            continue
        if any(not isinstance(v, torch.Tensor) for v in values):
            raise ValueError(f"dynamic sampling: cannot concatenate '{key}' ({type(values[0]).__name__})")
        if values[0].ndim == 0:
            continue
        if values[0].ndim == 1:
            out[key] = torch.cat(values, dim=0)
            continue
        width = max(v.size(1) for v in values)
        pad_value = pad_token_id if key in ("prompt_ids", "completion_ids") else (1 if key == "tool_mask" else 0)
        padded = []
        for v in values:
            extra = width - v.size(1)
            if extra:
                filler = torch.full((v.size(0), extra, *v.shape[2:]), pad_value, dtype=v.dtype, device=v.device)
                v = torch.cat([filler, v] if key in _LEFT_PADDED else [v, filler], dim=1)
            padded.append(v)
        out[key] = torch.cat(padded, dim=0)
    return out


class DynamicSamplingGRPOTrainer(GRPOTrainer):
    """``GRPOTrainer`` with DAPO dynamic sampling (see the module docstring).

    Args:
        dynamic_sampling: a :class:`DynamicSamplingConfig`; ``None`` behaves exactly like ``GRPOTrainer``.
        *args, **kwargs: passed to ``GRPOTrainer``.
    """

    def __init__(self, *args, dynamic_sampling: DynamicSamplingConfig | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.dynamic_sampling = dynamic_sampling
        self._ds_last_rewards: torch.Tensor | None = None
        self._ds_iterator = None
        self._ds_epoch = 0
        if dynamic_sampling is not None:
            check_trl_compat(GRPOTrainer)
            local = self.args.per_device_train_batch_size * self.args.steps_per_generation
            if local % self.num_generations != 0:
                raise ValueError(
                    "dynamic sampling needs whole groups per process: per_device_train_batch_size * "
                    f"steps_per_generation = {local} is not divisible by num_generations = {self.num_generations}"
                )
            from torch.utils.data import IterableDataset

            if isinstance(self.train_dataset, IterableDataset):
                raise ValueError("dynamic sampling needs a map-style training dataset (not an IterableDataset)")

    # The parent gathers every reward function's output here; keep it to decide which groups to keep.
    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._ds_last_rewards = rewards_per_func
        return rewards_per_func

    def _refill_generation_batch(self) -> list[dict]:
        """The next generation batch of fresh prompts from the refill sampler (reshuffled each pass)."""
        while True:
            if self._ds_iterator is None:
                sampler = RepeatSampler(
                    data_source=self.train_dataset,
                    mini_repeat_count=self.num_generations,
                    batch_size=self.args.generation_batch_size // self.num_generations,
                    repeat_count=1,
                    shuffle=True,
                    seed=self.args.seed + self.dynamic_sampling.seed_offset + self._ds_epoch,
                )
                loader = torch.utils.data.DataLoader(
                    self.train_dataset,
                    batch_size=self._train_batch_size * self.args.steps_per_generation,
                    sampler=sampler,
                    collate_fn=self.data_collator,
                    drop_last=True,
                )
                self._ds_iterator = iter(self.accelerator.prepare(loader))
            try:
                return next(self._ds_iterator)
            except StopIteration:
                self._ds_iterator = None
                self._ds_epoch += 1

    def _generate_and_score_completions(self, inputs):
        """TRL's step with DAPO's dynamic sampling: regenerate until the batch holds enough groups
        whose rewards differ (see the class docstring). Longer than 60 lines because it follows
        TRL's method it overrides step by step (generate, gather rewards, keep or regenerate,
        assemble the batch), which keeps the two easy to compare when TRL changes."""
        if self.dynamic_sampling is None or not self.model.training:
            return super()._generate_and_score_completions(inputs)
        cfg = self.dynamic_sampling
        n_local = len(inputs)
        rank, world = self.accelerator.process_index, self.accelerator.num_processes
        weights = self.reward_weights.to(self.accelerator.device)

        kept_parts, spare_parts = [], []  # (output, local row indices)
        kept_per_rank = [0] * world
        groups_seen = groups_kept = rounds = 0
        batch = inputs
        while True:
            output = super()._generate_and_score_completions(batch)
            rounds += 1
            rewards = (self._ds_last_rewards * weights.unsqueeze(0)).nansum(dim=1)
            rewards[torch.isnan(self._ds_last_rewards).all(dim=1)] = torch.nan
            keep = informative_rows(rewards, self.num_generations, cfg.min_std).cpu()
            groups_seen += keep.numel() // self.num_generations
            groups_kept += int(keep.sum()) // self.num_generations
            for r in range(world):  # same decision on every rank: the rewards are gathered
                kept_per_rank[r] += int(keep[r * n_local : (r + 1) * n_local].sum())
            local_keep = keep[rank * n_local : (rank + 1) * n_local]
            kept_parts.append((output, local_keep.nonzero().flatten()))
            spare_parts.append((output, (~local_keep).nonzero().flatten()))
            if min(kept_per_rank) >= n_local or rounds >= cfg.max_gen_batches:
                break
            batch = self._refill_generation_batch()

        filled = 0
        if min(kept_per_rank) < n_local:
            if cfg.fallback == "error":
                raise RuntimeError(
                    f"dynamic sampling: only {min(kept_per_rank)} of {n_local} rows have non-zero reward variance "
                    f"after {rounds} generation batches (max_gen_batches={cfg.max_gen_batches})"
                )
            filled = max(0, n_local - kept_per_rank[rank])
            if filled:
                logger.warning("dynamic sampling: filled %d rows with zero-variance groups after %d rounds", filled, rounds)

        round_outputs = [out for out, _ in kept_parts]
        merged = concat_scored_batches(round_outputs, self._tokenizer.pad_token_id)
        offsets, total = [], 0
        for out in round_outputs:
            offsets.append(total)
            total += out["advantages"].size(0)
        rows = [off + i for off, (_, idx) in zip(offsets, kept_parts) for i in idx.tolist()]
        rows += [off + i for off, (_, idx) in zip(offsets, spare_parts) for i in idx.tolist()]
        selection = torch.tensor(rows[:n_local], dtype=torch.long, device=merged["advantages"].device)
        result = {k: (v.index_select(0, selection) if isinstance(v, torch.Tensor) else v) for k, v in merged.items()}

        loss_mask = result["completion_mask"]
        if result.get("tool_mask") is not None:
            loss_mask = loss_mask * result["tool_mask"]
        result["num_items_in_batch"] = self.accelerator.gather(loss_mask.sum()).sum()

        metrics = self._metrics["train"]
        metrics["dynamic_sampling/gen_batches"].append(float(rounds))
        metrics["dynamic_sampling/kept_group_frac"].append(groups_kept / max(1, groups_seen))
        metrics["dynamic_sampling/filled_zero_std"].append(float(filled) / n_local)
        return result
