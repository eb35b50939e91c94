"""Train with ConsensusPR rewards on TRL's ``GRPOTrainer`` (GRPO or DAPO), configured by YAML.

    python -m training_recipes.train --config training_recipes/configs/dapo_linear.yaml [--key value ...]

One script, three argument groups parsed by TRL's ``TrlParser`` from the YAML file and the command
line (the command line wins): :class:`RecipeArguments` (data, reward, guard, DAPO extras,
evaluation), TRL's ``GRPOConfig`` (the RL algorithm: ``loss_type``, ``epsilon``/``epsilon_high``,
``mask_truncated_completions``, lengths, batch sizes, vLLM) and TRL's ``ModelConfig``.

Data flow::

    docs/SPEC.md §2 JSONL (problem, answer, nodes) --load_training_split--> prompt/answer/nodes (+ problem, computations) columns
      --GRPOTrainer / DynamicSamplingGRPOTrainer--> completions --consensus_reward(mode)--> rewards
      (+ DAPO soft overlong punishment, inside the same reward function) --> advantages --> policy update
      --checkpoints--> training_recipes.evaluate (lm-eval consensusbench tasks)

``model_name_or_path: embedded`` means the project's embedded SmolLM2-135M-Instruct folder
(created on first use by ``models.embedded_model``).
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field

__all__ = ["RecipeArguments", "build_trainer", "main", "make_parser", "resolve_model_path"]

logger = logging.getLogger(__name__)

EMBEDDED_MODEL = "embedded"


@dataclass
class RecipeArguments:
    """Arguments of the ConsensusPR recipe (everything that is not TRL's ``GRPOConfig``/``ModelConfig``)."""

    dataset_path: str = field(
        default="training_recipes/data/gsm8k_train.jsonl",
        metadata={"help": "docs/SPEC.md §2 JSONL training split (problem, answer, nodes)."},
    )
    max_train_samples: int | None = field(default=None, metadata={"help": "Use only the first N problems."})
    prompt_template: str = field(
        default="{problem}\nPlease reason step by step, and put your final answer within \\boxed{{}}.",
        metadata={"help": "User message; '{problem}' is replaced by the problem text."},
    )
    reward_mode: str = field(default="linear", metadata={"help": "outcome | linear | max | cl (docs/SPEC.md §5)."})
    alpha: float = field(default=0.5, metadata={"help": "Weight of acc in the linear reward."})
    switch_epoch: float = field(default=1.0, metadata={"help": "cl: ncr before this epoch, acc from it on."})
    switch_step: int | None = field(
        default=None, metadata={"help": "cl: switch at this global step instead of switch_epoch."})
    think_prefilled: str = field(
        default="auto",
        metadata={"help": "auto | true | false: the chat template opens <think> for the model, so a completion "
                          "without </think> is an unclosed trace (acc 0); auto detects it from the template."})
    think_format: str = field(
        default="", metadata={"help": "Trace/answer markers (consensus_metrics.ThinkFormat; default think,sky-t1)."})
    track_ncr: bool = field(default=True, metadata={"help": "outcome: still match nodes to log ncr."})
    hacking_guard: bool = field(default=True, metadata={"help": "Reward-hacking guard on node credit."})
    guard_max_list_run: int = field(default=64, metadata={"help": "Guard: blank number lists this long."})
    guard_min_distinct_numbers: int = field(default=64, metadata={"help": "Guard: spam needs this many numbers."})
    guard_max_number_density: float = field(default=60.0, metadata={"help": "Guard: distinct numbers/1000 chars."})
    guard_max_node_char_share: float = field(default=0.75, metadata={"help": "Guard: max share of node text."})
    reward_workers: int = field(default=0, metadata={"help": "Worker processes for reward scoring (0 = inline)."})
    reward_budget_s: float = field(default=1.0, metadata={"help": "Scoring time budget per completion (s)."})
    log_first_error: bool = field(default=False, metadata={
        "help": "Also log where wrong completions leave the consensus path (left_path); never rewarded."})
    overlong_punishment: bool = field(default=False, metadata={"help": "DAPO soft overlong punishment reward."})
    overlong_buffer: int = field(default=0, metadata={"help": "DAPO L_cache: punished tail of max_completion_length."})
    dynamic_sampling: bool = field(default=False, metadata={"help": "DAPO dynamic sampling (drop zero-std groups)."})
    dynamic_sampling_min_std: float = field(default=1e-6, metadata={"help": "Groups with reward std <= this drop."})
    dynamic_sampling_max_gen_batches: int = field(default=4, metadata={"help": "Generation rounds per step."})
    dynamic_sampling_fallback: str = field(default="fill", metadata={"help": "fill | error when rounds run out."})
    eval_tasks: list[str] = field(
        default_factory=list,
        metadata={"help": "lm-eval tasks run on every saved checkpoint (e.g. consensusbench_gsm8k); empty = none."},
    )
    eval_limit: int | None = field(default=None, metadata={"help": "lm-eval --limit for checkpoint evaluation."})
    eval_max_gen_toks: int = field(default=2048, metadata={"help": "lm-eval max_gen_toks for checkpoints."})
    eval_model_args: str = field(default="", metadata={"help": "Extra lm-eval --model_args (e.g. dtype=bfloat16)."})

    def __post_init__(self):
        from training_recipes.rewards import MODES

        if self.reward_mode not in MODES:
            raise ValueError(f"reward_mode must be one of {MODES}, got {self.reward_mode!r}")
        if isinstance(self.eval_tasks, str):
            self.eval_tasks = [t for t in self.eval_tasks.split(",") if t]


def make_parser():
    """``TrlParser`` over (RecipeArguments, GRPOConfig, ModelConfig)."""
    from trl import GRPOConfig, ModelConfig, TrlParser

    return TrlParser((RecipeArguments, GRPOConfig, ModelConfig))


def parse_args(argv: list[str] | None = None):
    """Parse ``--config FILE`` plus overrides into ``(recipe, training_args, model_args)``."""
    return make_parser().parse_args_and_config(args=argv)


def resolve_model_path(name: str | None) -> str:
    """``embedded`` (or unset) -> the embedded SmolLM2 folder, created on first use; else ``name``."""
    if not name or name == EMBEDDED_MODEL:
        from models.embedded_model import ensure_embedded_model

        return str(ensure_embedded_model())
    return name


def resolve_think_prefilled(recipe: RecipeArguments, training_args, model_path: str | None) -> bool:
    """``recipe.think_prefilled`` as a bool: ``auto`` renders the model's chat template (with the
    run's ``chat_template_kwargs``, e.g. Qwen3's ``enable_thinking``) and checks whether it opens
    ``<think>`` for the model."""
    from consensus_metrics.chat_template import parse_setting, resolve_think_prefilled as resolve

    setting = parse_setting(recipe.think_prefilled)
    tokenizer = None
    if setting == "auto" and model_path:
        from transformers import AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(model_path)
        except (OSError, ValueError) as err:
            logger.warning("think_prefilled auto: cannot load the tokenizer of %s (%s); assuming no prefilled "
                           "<think>", model_path, err)
    kwargs = dict(getattr(training_args, "chat_template_kwargs", None) or {})
    prefilled = resolve(setting, tokenizer, recipe.think_format or None, **kwargs)
    if prefilled and setting == "auto":
        logger.warning("the chat template of %s opens <think> for the model: a completion without </think> "
                       "is an unclosed trace and earns acc 0 (think_prefilled: false to turn this off)", model_path)
    return prefilled


def reward_settings(recipe: RecipeArguments, training_args) -> dict:
    """The keyword arguments of :func:`~training_recipes.rewards.consensus_reward` for this arm,
    less ``think_prefilled`` (it needs the model's chat template). Every setting is checked here,
    so a bad one is refused before a model or tokenizer is fetched: ``ValueError``."""
    from training_recipes.guards import GuardConfig
    from training_recipes.rewards import consensus_reward

    guard = GuardConfig(
        enabled=recipe.hacking_guard,
        max_list_run=recipe.guard_max_list_run,
        min_distinct_numbers=recipe.guard_min_distinct_numbers,
        max_number_density=recipe.guard_max_number_density,
        max_node_char_share=recipe.guard_max_node_char_share,
    )
    overlong = {}
    if recipe.overlong_punishment:
        if not 0 < recipe.overlong_buffer < training_args.max_completion_length:
            raise ValueError(
                f"overlong_buffer must be in (0, max_completion_length={training_args.max_completion_length}), "
                f"got {recipe.overlong_buffer}"
            )
        overlong = {"overlong_max_length": training_args.max_completion_length,
                    "overlong_buffer": recipe.overlong_buffer}
    settings = dict(mode=recipe.reward_mode, alpha=recipe.alpha, switch_epoch=recipe.switch_epoch, guard=guard,
                    track_ncr=recipe.track_ncr, workers=recipe.reward_workers, budget_s=recipe.reward_budget_s,
                    think_format=recipe.think_format or None, switch_step=recipe.switch_step,
                    log_first_error=recipe.log_first_error, **overlong)
    consensus_reward(**settings)  # raises on a bad setting; builds nothing expensive (no pool yet)
    return settings


def build_trainer(recipe: RecipeArguments, training_args, model_args, train_dataset=None):
    """Build the (dynamic-sampling) GRPO trainer of one experiment arm; does not train."""
    from training_recipes.data import load_training_split
    from training_recipes.dynamic_sampling import DynamicSamplingConfig, DynamicSamplingGRPOTrainer
    from training_recipes.rewards import consensus_reward

    reward = reward_settings(recipe, training_args)  # bad reward settings: refused before anything is fetched
    model_path = resolve_model_path(model_args.model_name_or_path)
    model_init_kwargs = dict(training_args.model_init_kwargs or {})
    model_init_kwargs.setdefault("dtype", model_args.dtype)
    if model_args.attn_implementation:
        model_init_kwargs.setdefault("attn_implementation", model_args.attn_implementation)
    training_args.model_init_kwargs = model_init_kwargs

    if train_dataset is None:
        train_dataset = load_training_split(recipe.dataset_path, recipe.prompt_template, recipe.max_train_samples)
    dynamic = None
    if recipe.dynamic_sampling:
        dynamic = DynamicSamplingConfig(min_std=recipe.dynamic_sampling_min_std,
                                        max_gen_batches=recipe.dynamic_sampling_max_gen_batches,
                                        fallback=recipe.dynamic_sampling_fallback)
    callbacks = []
    if recipe.eval_tasks:
        from training_recipes.evaluate import LmEvalOnSaveCallback

        callbacks.append(LmEvalOnSaveCallback(tasks=recipe.eval_tasks, limit=recipe.eval_limit,
                                              max_gen_toks=recipe.eval_max_gen_toks,
                                              extra_model_args=recipe.eval_model_args))
    peft_config = None
    if model_args.use_peft:
        from trl import get_peft_config

        peft_config = get_peft_config(model_args)
    return DynamicSamplingGRPOTrainer(
        model=model_path,
        # one function, DAPO's soft overlong punishment inside it: a scoring timeout (None) leaves
        # the whole row unscorable in TRL
        reward_funcs=[consensus_reward(**reward, think_prefilled=resolve_think_prefilled(recipe, training_args,
                                                                                          model_path))],
        args=training_args,
        train_dataset=train_dataset,
        peft_config=peft_config,
        callbacks=callbacks or None,
        dynamic_sampling=dynamic,
    )


def main(argv: list[str] | None = None) -> int:
    """Train one arm. Unusable settings, config file, training split or model path are one line
    on stderr and exit status 2, before any training step."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        recipe, training_args, model_args = parse_args(argv)
        trainer = build_trainer(recipe, training_args, model_args)
    except (ValueError, OSError) as err:  # TrainingDataError is a ValueError; a missing file an OSError
        print(f"python -m training_recipes.train: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.save_model(training_args.output_dir)
    trainer.accelerator.print(f"Model saved to {training_args.output_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
