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
ConsensusPR's extra signal. ``cl`` needs the current epoch in ``extra_info["epoch"]`` or
``reward_kwargs.epoch`` (verl passes none by itself; without it the call raises). For a chat
template that opens ``<think>`` for the model (DeepSeek-R1 distills, QwQ) pass
``+reward.custom_reward_function.reward_kwargs.think_prefilled=true``: a response without
``</think>`` is then an unclosed trace, acc 0.

verl decodes the response tokens into ``solution_str``, so a trace the model wrote stays inside
it (as long as its markers are not special tokens, which verl skips). A rollout that keeps the
trace apart -- a server-based agent loop behind a ``--reasoning-parser``, a custom reward manager
passing the chat message -- may pass ``solution_str`` as that message (or message list), or the
trace in ``extra_info`` under ``reasoning_content`` / ``reasoning`` / ``thinking``: it goes back
before the answer between the think format's markers (:mod:`consensus_metrics.messages`), as the
TRL reward does.

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
from training_recipes.scoring import completion_text, score_completions

__all__ = ["compute_score", "export_parquet", "response_text", "to_verl_rows"]


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                  mode: str = "linear", alpha: float = 0.5, switch_epoch: float = 1.0, guard: bool = True,
                  epoch: float | None = None, think_prefilled: bool = False, think_format: str | None = None,
                  **kwargs: Any) -> dict[str, Any]:
    """Score one verl rollout with a ConsensusPR reward (formulas: :mod:`training_recipes.rewards`).

    Args:
        data_source: verl's dataset tag (unused; every source is scored the same way).
        solution_str: the decoded response (or the chat message / message list, see
            :func:`response_text`).
        ground_truth: the gold answer (``reward_model.ground_truth``).
        extra_info: holds ``nodes`` (list or JSON string), for ``cl`` ``epoch``, and a trace the
            rollout kept apart from ``solution_str`` (``reasoning_content``/``reasoning``/``thinking``).
        mode, alpha, switch_epoch: the ConsensusPR reward (``reward_kwargs`` in verl's config).
        guard: the reward-hacking guard (on by default).
        epoch: current epoch for ``cl`` when not in ``extra_info``.
        think_prefilled: the chat template opened ``<think>`` for the model (a response without
            ``</think>`` has no answer); think_format: trace/answer markers (default
            ``think,sky-t1``, see ``consensus_metrics.ThinkFormat``).
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
    text = response_text(solution_str, extra_info, fmt)
    score = score_completions([text], [str(ground_truth)], [nodes], guard=guard_config,
                              need_nodes=mode != "outcome" or bool(nodes), think_format=fmt)[0]
    reward = mix_reward(mode, score.acc, score.ncr, alpha, float(epoch or 0.0), switch_epoch)
    return {
        "score": reward,
        "acc": score.acc,
        "ncr": score.acc if score.ncr is None else score.ncr,
        "has_nodes": bool(nodes),
        "guarded": score.guard,
    }


def response_text(solution: Any, extra_info: dict | None = None, think_format=None) -> str:
    """The text a verl rollout is scored on: ``solution`` (a string, or a chat message or message
    list through :func:`~training_recipes.scoring.completion_text`), with a trace kept apart in
    ``extra_info`` (``reasoning_content``, ``reasoning``, ``thinking``) put back before it.

    >>> response_text("So 5.", {"reasoning_content": "2+3=5"})
    '<think>2+3=5</think>So 5.'
    >>> response_text({"role": "assistant", "reasoning": "2+3=5", "content": "5"}, None, "sky-t1")
    '<|begin_of_thought|>2+3=5<|end_of_thought|>5'
    >>> response_text(None)
    ''
    """
    from consensus_metrics.messages import REASONING_FIELDS, message_text

    if solution is not None and not isinstance(solution, str):
        return completion_text(solution, think_format)
    text = solution or ""
    for field in REASONING_FIELDS:
        trace = (extra_info or {}).get(field)
        if isinstance(trace, str) and trace:
            return message_text({"content": text, field: trace}, think_format) or ""
    return text


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
