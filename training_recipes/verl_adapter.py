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
node term used: the guarded NCR, or ``acc`` for a problem without nodes), ``has_nodes``,
``guarded`` and ``timed_out``, which verl keeps as ``reward_extra_info`` (every result has every
key: verl stacks them into columns).

**A completion whose scoring runs out of its budget** (``budget_s``, per completion) is not
scored as wrong: the TRL reward returns ``None`` for it (zero advantage), and verl has no such
value. Here it is ``timed_out: True``, and its ``score`` is its *outcome alone*: the reward of the
mode with the node term taken as ``acc`` (as for a problem without nodes), ``acc`` from an answer
check with a budget of its own -- never the node credit a cut-off matching would have
understated. With verl's batch reward manager, :func:`compute_score_batch` gives such a
completion the mean score of the other completions of its problem in the batch instead, so its
advantage is exactly zero, TRL's meaning (a problem all of whose completions time out scores 0.0
for each: equal scores, zero advantage, and DAPO's group filter drops it). Only if even the
answer check runs out of time is a per-completion score 0.0, as any outcome reward scores an
answer it cannot verify; ``timed_out`` says so either way. For DAPO's dynamic sampling use
``algorithm.filter_groups.metric=score`` (the ConsensusPR reward): with ``metric=acc`` a group whose
answers are all wrong but whose NCR varies is thrown away -- exactly the groups that carry
ConsensusPR's extra signal. With ``+reward.custom_reward_function.reward_kwargs.locate=true`` the
dict also says where the response leaves the consensus path, for the logs only (never in the
score): ``left_path`` (1.0 when a first wrong step is located, else 0.0) and
``left_path_position`` (its relative position, -1.0 when none); see
:func:`consensus_metrics.locate.locate_first_error` (``extra_info["problem"]``, when present,
keeps the problem's numbers from counting as new values, and ``extra_info["computations"]``, the
record's list of arithmetic steps, the values correct solutions reach). ``cl`` needs the current epoch in ``extra_info["epoch"]`` or
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
    >>> out["score"], out["acc"], out["ncr"], out["timed_out"]
    (0.5, 0.0, 0.5, False)
"""

from __future__ import annotations

import argparse
import json
import math
import numbers
import sys
from pathlib import Path
from typing import Any

from training_recipes.data import DEFAULT_PROMPT_TEMPLATE, TrainingDataError, normalise_nodes, read_records
from training_recipes.guards import GuardConfig
from training_recipes.rewards import MODES, mix_reward
from training_recipes.scoring import completion_text, score_completions

__all__ = ["compute_score", "compute_score_batch", "export_parquet", "response_text", "to_verl_rows"]


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                  mode: str = "linear", alpha: float = 0.5, switch_epoch: float = 1.0, guard: bool = True,
                  epoch: float | None = None, think_prefilled: bool = False, think_format: str | None = None,
                  budget_s: float = 1.0, locate: bool = False, **kwargs: Any) -> dict[str, Any]:
    """Score one verl rollout with a ConsensusPR reward (formulas: :mod:`training_recipes.rewards`).

    Args:
        data_source: verl's dataset tag (unused; every source is scored the same way).
        solution_str: the decoded response (or the chat message / message list, see
            :func:`response_text`).
        ground_truth: the gold answer (``reward_model.ground_truth``): a non-empty string or a
            finite number; None, NaN or a boolean raise ``ValueError`` (the rule of every reader).
        extra_info: a dict holding ``nodes`` (list or JSON string), for ``cl`` ``epoch``, and a
            trace the rollout kept apart from ``solution_str`` (``reasoning_content``/``reasoning``/``thinking``).
        mode, alpha, switch_epoch: the ConsensusPR reward (``reward_kwargs`` in verl's config).
        guard: the reward-hacking guard (on by default).
        epoch: current epoch for ``cl`` when not in ``extra_info``.
        think_prefilled: the chat template opened ``<think>`` for the model (a response without
            ``</think>`` has no answer); think_format: trace/answer markers (default
            ``think,sky-t1``, see ``consensus_metrics.ThinkFormat``).
        budget_s: scoring time per completion (finite, > 0); out of it, see the module docstring.
        locate: also return ``left_path`` and ``left_path_position`` (module doc; logs only).
    """
    return _score_rows([(data_source, solution_str, ground_truth, extra_info)], mode, alpha, switch_epoch, guard,
                       epoch, think_prefilled, think_format, budget_s, locate=locate)[0]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, mode: str = "linear",
                        alpha: float = 0.5, switch_epoch: float = 1.0, guard: bool = True, epoch: float | None = None,
                        think_prefilled: bool = False, think_format: str | None = None, budget_s: float = 1.0,
                        workers: int = 0, locate: bool = False, **kwargs: Any) -> list[dict[str, Any]]:
    """:func:`compute_score` of a whole batch (verl's batch reward manager passes the columns), one
    dict per rollout; ``workers`` > 1 scores in a pool of processes. A rollout that timed out gets
    the mean score of the rollouts of its problem (``extra_info["id"]``, else ``"index"``) that did
    not: zero advantage in its group (module docstring).

    >>> nodes = {"id": "a", "nodes": [{"id": "n1", "text": "48/2=24"}]}
    >>> [r["score"] for r in compute_score_batch(["x", "x"], ["48/2 = 24 \\boxed{72}", "\\boxed{7}"],
    ...                                          ["72", "72"], [nodes, nodes], mode="max")]
    [1.0, 0.0]
    """
    rows = list(zip(data_sources, solution_strs, ground_truths, extra_infos, strict=True))
    results = _score_rows(rows, mode, alpha, switch_epoch, guard, epoch, think_prefilled, think_format, budget_s,
                          workers, per_completion_fallback=False, locate=locate)
    groups: dict[Any, list[int]] = {}
    for i, (_, _, ground_truth, extra_info) in enumerate(rows):
        info = extra_info if isinstance(extra_info, dict) else {}
        key = info.get("id", info.get("index"))
        groups.setdefault(("id", str(key)) if key is not None else ("gold", str(ground_truth)), []).append(i)
    for members in groups.values():
        scored = [results[i]["score"] for i in members if not results[i]["timed_out"]]
        for i in members:
            if results[i]["timed_out"]:
                results[i]["score"] = sum(scored) / len(scored) if scored else 0.0
    return results


def _extra_info(extra_info: Any, data_source: str) -> dict:
    if extra_info is None:
        return {}
    if not isinstance(extra_info, dict):
        raise ValueError(f"verl compute_score: extra_info of {data_source} must be a dict (with 'nodes'), "
                         f"got {type(extra_info).__name__} {extra_info!r:.80}")
    return extra_info


def _score_rows(rows, mode, alpha, switch_epoch, guard, epoch, think_prefilled, think_format, budget_s, workers=0,
                per_completion_fallback=True, locate=False) -> list[dict[str, Any]]:
    """Results of ``(data_source, solution_str, ground_truth, extra_info)`` rows (see
    :func:`compute_score`); ``per_completion_fallback``: a timed-out row is scored on its outcome
    alone, else its score is left for the caller (0.0)."""
    from consensus_metrics.answer import resolve_think_format
    from consensus_metrics.budget import check_budget
    from consensus_metrics.chat_template import parse_setting
    from consensus_metrics.locate import computations_or_none
    from consensus_metrics.records import check_answer_field

    fmt = resolve_think_format(think_format, parse_setting(think_prefilled) == "true")
    if mode not in MODES:
        raise ValueError(f"verl compute_score: unknown mode {mode!r}; expected one of {MODES}")
    budget_s = check_budget(budget_s, "verl compute_score: budget_s")
    if budget_s is None:
        raise ValueError("verl compute_score: budget_s must be a finite number > 0, got None")
    texts, golds, node_lists, clocks = [], [], [], []
    for data_source, solution_str, ground_truth, extra_info in rows:
        extra_info = _extra_info(extra_info, data_source)
        golds.append(check_answer_field(ground_truth, f"verl compute_score: {data_source}", "ground_truth"))
        node_lists.append(normalise_nodes(extra_info.get("nodes"), where=f"extra_info of {data_source}"))
        texts.append(response_text(solution_str, extra_info, fmt))
        clock = extra_info.get("epoch", epoch) if mode == "cl" else 0.0
        if clock is None:
            raise ValueError("verl compute_score: mode 'cl' needs the current epoch in extra_info['epoch'] "
                             "or reward_kwargs.epoch")
        if isinstance(clock, bool) or not isinstance(clock, numbers.Real) or not math.isfinite(clock):
            raise ValueError(f"verl compute_score: the epoch must be a finite number, got {clock!r}")
        clocks.append(float(clock))
    guard_config = GuardConfig(enabled=bool(guard))
    need_nodes = mode != "outcome" or any(node_lists)
    scores = score_completions(texts, golds, node_lists, guard=guard_config, need_nodes=need_nodes,
                               think_format=fmt, budget_s=budget_s, workers=workers)
    results = []
    extras = [_extra_info(extra_info, source) for source, _, _, extra_info in rows]
    problems = [extra.get("problem") for extra in extras]
    steps = [computations_or_none(extra.get("computations")) for extra in extras]
    for text, gold, nodes, clock, score, problem, computations in zip(texts, golds, node_lists, clocks, scores,
                                                                      problems, steps):
        acc, ncr = score.acc, score.ncr
        if score.timed_out:  # the outcome alone: never a node credit cut short by the budget
            acc = _outcome_alone(text, gold, fmt, budget_s) if per_completion_fallback else 0.0
            ncr = None
        results.append({
            "score": mix_reward(mode, acc, ncr, alpha, clock, switch_epoch),
            "acc": acc,
            "ncr": acc if ncr is None else ncr,
            "has_nodes": bool(nodes),
            "guarded": score.guard,
            "timed_out": score.timed_out,
        })
        if str(locate).strip().lower() in ("true", "1", "yes"):  # logs only: where the response leaves the path
            from consensus_metrics.locate import locate_first_error

            loc = locate_first_error(text, nodes, answer_correct=None if score.timed_out else bool(score.acc),
                                     problem=problem if isinstance(problem, str) else None, gold=gold,
                                     computations=computations)
            results[-1]["left_path"] = float(loc.step is not None)
            results[-1]["left_path_position"] = -1.0 if loc.position is None else float(loc.position)
    return results


def _outcome_alone(text: str, gold: str, think_format, budget_s: float) -> float:
    """``acc`` of a completion whose full scoring ran out of time, from the answer check alone
    under a budget of its own (0.0 when even that cannot decide)."""
    from consensus_metrics.answer import check_answer
    from consensus_metrics.budget import Deadline

    verdict = check_answer(text, gold, Deadline(budget_s), think_format)
    return 0.0 if verdict["timed_out"] else float(verdict["acc"])


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
    try:
        pd.DataFrame(rows).to_parquet(tmp, index=False)
        tmp.replace(out)
    except BaseException:  # a full disk: no partial file is left
        tmp.unlink(missing_ok=True)
        raise
    return out


def main(argv: list[str] | None = None) -> int:
    """The export command; bad input or output is one line on stderr and exit status 2: a missing
    or bad ``--data`` (its ``file:line``), an ``--out`` that is the input, a folder or cannot be
    written, a disk that fills up (no partial file is left)."""
    from consensus_metrics.outputs import OutputPathError, check_output_file

    parser = argparse.ArgumentParser(prog="python -m training_recipes.verl_adapter",
                                     description="Export a docs/SPEC.md §2 training split to verl's parquet layout.")
    parser.add_argument("--data", required=True, help="docs/SPEC.md §2 JSONL file")
    parser.add_argument("--out", required=True, help="output .parquet")
    parser.add_argument("--data_source", default=None)
    args = parser.parse_args(argv)
    try:
        check_output_file(args.out, [("--data", args.data)])
        print(export_parquet(args.data, args.out, args.data_source))
    except (TrainingDataError, OutputPathError) as err:
        print(f"python -m training_recipes.verl_adapter: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"python -m training_recipes.verl_adapter: error: --out {args.out}: cannot write: "
              f"{err.strerror or err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
