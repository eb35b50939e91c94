"""ConsensusPR rewards for verl (the reference DAPO implementation), without importing verl.

verl calls a custom reward as ``compute_score(data_source, solution_str, ground_truth, extra_info,
**reward_kwargs)``. Point it here and pass the reward mode in ``reward_kwargs`` (verl 0.10 reads
``reward.custom_reward_function.*``; older releases used the top-level ``custom_reward_function``,
which 0.10 still migrates)::

    reward.custom_reward_function.path=training_recipes/verl_adapter.py
    reward.custom_reward_function.name=compute_score
    +reward.custom_reward_function.reward_kwargs.mode=linear
    +reward.custom_reward_function.reward_kwargs.alpha=0.5
    algorithm.filter_groups.enable=True algorithm.filter_groups.metric=score   # DAPO dynamic sampling

The nodes travel in ``extra_info["nodes"]`` (a list of node dicts or its JSON string, as written
by :func:`export_parquet`). The returned dict has ``score`` (the reward) plus ``acc``, ``ncr`` (the
node term used: the guarded NCR, or ``acc`` for a problem without nodes), ``has_nodes`` and
``guarded``, which verl keeps as ``reward_extra_info``. For DAPO's dynamic sampling use
``algorithm.filter_groups.metric=score`` (the ConsensusPR reward): with ``metric=acc`` a group whose
answers are all wrong but whose NCR varies is thrown away -- exactly the groups that carry
ConsensusPR's extra signal. With ``+reward.custom_reward_function.reward_kwargs.locate=true`` the
dict also says where the response leaves the consensus path, for the logs only (never in the
score): ``left_path`` (1.0 when a first wrong step is located, else 0.0) and
``left_path_position`` (its relative position, -1.0 when none); see
:func:`consensus_metrics.locate.locate_first_error` (``extra_info["problem"]``, when present,
keeps the problem's numbers from counting as new values). ``cl`` needs the current epoch in ``extra_info["epoch"]`` or
``reward_kwargs.epoch`` (verl passes none by itself; without it the call raises). For a chat
template that opens ``<think>`` for the model (DeepSeek-R1 distills, QwQ) pass
``+reward.custom_reward_function.reward_kwargs.think_prefilled=true``: a response without
``</think>`` is then an unclosed trace, acc 0.

Export the training split to verl's parquet layout::

    python -m training_recipes.verl_adapter --data training_recipes/data/gsm8k_train.jsonl \\
        --out data/consensusbench_gsm8k_train.parquet

Example:
    >>> nodes = [{"id": "n1", "text": "48/2=24"}, {"id": "n2", "text": "48+24=72"}]
    >>> out = compute_score("consensusbench/gsm8k", "48/2 = 24, so \\\\boxed{70}", "72", {"nodes": nodes}, mode="max")
    >>> out["score"], out["acc"], out["ncr"]
    (0.5, 0.0, 0.5)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from training_recipes.data import DEFAULT_PROMPT_TEMPLATE, normalise_nodes, read_records
from training_recipes.guards import GuardConfig
from training_recipes.rewards import MODES, mix_reward
from training_recipes.scoring import score_completions

__all__ = ["compute_score", "export_parquet", "to_verl_rows"]


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                  mode: str = "linear", alpha: float = 0.5, switch_epoch: float = 1.0, guard: bool = True,
                  epoch: float | None = None, think_prefilled: bool = False, think_format: str | None = None,
                  locate: bool = False, **kwargs: Any) -> dict[str, Any]:
    """Score one verl rollout with a ConsensusPR reward (formulas: :mod:`training_recipes.rewards`).

    Args:
        data_source: verl's dataset tag (unused; every source is scored the same way).
        solution_str: the decoded response.
        ground_truth: the gold answer (``reward_model.ground_truth``).
        extra_info: holds ``nodes`` (list or JSON string) and, for ``cl``, ``epoch``.
        mode, alpha, switch_epoch: the ConsensusPR reward (``reward_kwargs`` in verl's config).
        guard: the reward-hacking guard (on by default).
        epoch: current epoch for ``cl`` when not in ``extra_info``.
        think_prefilled: the chat template opened ``<think>`` for the model (a response without
            ``</think>`` has no answer); think_format: trace/answer markers (default
            ``think,sky-t1``, see ``consensus_metrics.ThinkFormat``).
        locate: also return ``left_path`` and ``left_path_position`` (module doc; logs only).
    """
    from consensus_metrics.answer import resolve_think_format
    from consensus_metrics.chat_template import parse_setting

    fmt = resolve_think_format(think_format, parse_setting(think_prefilled) == "true")
    if mode not in MODES:
        raise ValueError(f"verl compute_score: unknown mode {mode!r}; expected one of {MODES}")
    extra_info = extra_info or {}
    nodes = normalise_nodes(extra_info.get("nodes"), where=f"extra_info of {data_source}")
    if mode == "cl":
        epoch = extra_info.get("epoch", epoch)
        if epoch is None:
            raise ValueError("verl compute_score: mode 'cl' needs the current epoch in extra_info['epoch'] "
                             "or reward_kwargs.epoch")
    guard_config = GuardConfig(enabled=bool(guard))
    score = score_completions([solution_str or ""], [str(ground_truth)], [nodes], guard=guard_config,
                              need_nodes=mode != "outcome" or bool(nodes), think_format=fmt)[0]
    reward = mix_reward(mode, score.acc, score.ncr, alpha, float(epoch or 0.0), switch_epoch)
    out = {
        "score": reward,
        "acc": score.acc,
        "ncr": score.acc if score.ncr is None else score.ncr,
        "has_nodes": bool(nodes),
        "guarded": score.guard,
    }
    if str(locate).strip().lower() in ("true", "1", "yes"):  # logs only: where the response leaves the path
        from consensus_metrics.locate import locate_first_error

        problem = extra_info.get("problem")
        loc = locate_first_error(solution_str or "", nodes, answer_correct=None if score.timed_out else bool(score.acc),
                                 problem=problem if isinstance(problem, str) else None)
        out["left_path"] = float(loc.step is not None)
        out["left_path_position"] = -1.0 if loc.position is None else float(loc.position)
    return out


def to_verl_rows(records: list[dict], data_source: str, prompt_template: str = DEFAULT_PROMPT_TEMPLATE) -> list[dict]:
    """docs/SPEC.md §2 records -> verl RL rows (``data_source, prompt, ability, reward_model, extra_info``).

    >>> to_verl_rows([{"id": "a", "problem": "1+1?", "answer": "2", "nodes": []}], "x")[0]["reward_model"]
    {'style': 'rule', 'ground_truth': '2'}
    """
    return [
        {
            "data_source": data_source,
            "prompt": [{"role": "user", "content": prompt_template.format(problem=r["problem"])}],
            "ability": "math",
            "reward_model": {"style": "rule", "ground_truth": str(r["answer"])},
            "extra_info": {"index": i, "id": str(r.get("id", i)), "nodes": json.dumps(r.get("nodes") or [])},
        }
        for i, r in enumerate(records)
    ]


def export_parquet(data: str | Path, out: str | Path, data_source: str | None = None) -> Path:
    """Write a docs/SPEC.md §2 JSONL split as a verl parquet file; nodes are a JSON string in ``extra_info``."""
    import pandas as pd

    records = read_records(data)
    rows = to_verl_rows(records, data_source or f"consensusbench/{Path(data).stem}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    pd.DataFrame(rows).to_parquet(tmp, index=False)
    tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training_recipes.verl_adapter",
                                     description="Export a docs/SPEC.md §2 training split to verl's parquet layout.")
    parser.add_argument("--data", required=True, help="docs/SPEC.md §2 JSONL file")
    parser.add_argument("--out", required=True, help="output .parquet")
    parser.add_argument("--data_source", default=None)
    args = parser.parse_args(argv)
    print(export_parquet(args.data, args.out, args.data_source))
    return 0


if __name__ == "__main__":
    sys.exit(main())
