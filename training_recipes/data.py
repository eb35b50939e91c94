"""Training split (docs/SPEC.md §2 JSONL) -> a ``datasets.Dataset`` that TRL's ``GRPOTrainer`` consumes.

Each line holds at least ``problem``, ``answer`` and ``nodes`` (a list of node dicts or strings).
The dataset gets the columns GRPO and the ConsensusPR rewards need:

* ``prompt`` — a conversation ``[{"role": "user", "content": PROMPT_TEMPLATE.format(problem=...)}]``
  (TRL applies the model's chat template);
* ``answer`` — the gold answer string (math-verify gold);
* ``nodes`` — the node list, normalised to one Arrow schema
  ``{id, text, kind, forms, value, support, position, standalone}`` (plain-string nodes become
  ``kind="expression"``; ``standalone`` defaults to true, and a common node of a node_builder
  build keeps its ``false``: the reward credits it only beside a covered standalone node, as the
  benchmark does), each node checked by ``consensus_metrics``' own node validation;
* ``id`` — the problem id (``file:line`` when the record has none);
* ``problem`` — the problem text and ``computations`` — the record's arithmetic steps that correct
  solutions share (docs/SPEC.md §2; ``[]`` where it has none): not rewarded, they are what the
  reward's "where the wrong completions leave the path" log reads (TRL hands every dataset column
  to the reward functions), so that the problem's numbers and a right intermediate value are not
  taken for a wrong step.

Example:
    >>> ds = load_training_split("tests/fixtures/train/gsm8k_train_fixture.jsonl")
    >>> sorted(ds.column_names)
    ['answer', 'computations', 'id', 'nodes', 'problem', 'prompt']
    >>> ds[0]["prompt"][0]["role"]
    'user'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from consensus_metrics.nodes import coerce_node
from consensus_metrics.records import (InputFileError, check_answer_field, check_computations, check_input_file,
                                       iter_jsonl, loads)

__all__ = ["DEFAULT_PROMPT_TEMPLATE", "TrainingDataError", "load_training_split", "normalise_nodes", "read_records"]

DEFAULT_PROMPT_TEMPLATE = "{problem}\nPlease reason step by step, and put your final answer within \\boxed{{}}."


class TrainingDataError(ValueError):
    """A training record that cannot be used; the message names ``file:line`` and the field."""


def _fail(message: str):
    raise TrainingDataError(message)


def normalise_nodes(nodes: Any, where: str = "<nodes>") -> list[dict[str, Any]]:
    """Return ``nodes`` as a list of dicts with the docs/SPEC.md §2 keys and fixed JSON types.

    Accepts node dicts (``text`` required), plain strings, a JSON string of either, or None.

    >>> normalise_nodes(["48/2=24"])[0]["text"], normalise_nodes(None)
    ('48/2=24', [])
    """
    if nodes is None:
        return []
    if isinstance(nodes, str):
        try:
            nodes = loads(nodes)
        except json.JSONDecodeError as err:
            raise TrainingDataError(f"{where}: field 'nodes' is a string but not JSON ({err})") from err
    if not isinstance(nodes, list):
        raise TrainingDataError(f"{where}: field 'nodes' must be a list, got {type(nodes).__name__}")
    out = []
    for i, node in enumerate(nodes):
        if isinstance(node, str):
            node = {"text": node}
        if isinstance(node, dict) and node.get("id") in (None, ""):  # numbered n1, n2, ... as by the scorer
            node = {key: value for key, value in node.items() if key != "id"}
        if not isinstance(node, dict) or not isinstance(node.get("text"), str) or not node["text"].strip():
            raise TrainingDataError(f"{where}: nodes[{i}] needs a non-empty string 'text', got {node!r}")
        try:  # the scorer's own checks (kinds, exact values, sizes), reported with file:line
            out.append(coerce_node(node, i).to_json())
        except (TypeError, ValueError) as err:
            raise TrainingDataError(f"{where}: {err}") from err
    return out


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Read and check a docs/SPEC.md §2 JSONL file; raise :class:`TrainingDataError` naming ``file:line``."""
    path = Path(path)
    if not path.exists():
        raise TrainingDataError(
            f"training split {path} does not exist (build it with node_builder, or set --dataset_path)"
        )
    try:
        check_input_file(path, "training split")
    except InputFileError as err:
        raise TrainingDataError(str(err)) from None
    records = []
    for line_no, row in iter_jsonl(path, on_error=_fail):
        where = f"{path}:{line_no}"
        problem = row.get("problem")
        if not isinstance(problem, str) or not problem.strip():
            raise TrainingDataError(f"{where}: field 'problem' must be a non-empty string, got {problem!r:.80}")
        try:  # the gold answer and computations rules of every reader (consensus_metrics.records)
            answer = check_answer_field(row.get("answer"), where)
            computations = check_computations(row.get("computations"), where)
        except ValueError as err:
            raise TrainingDataError(str(err)) from None
        records.append(
            {
                "id": str(row.get("id") or where),
                "problem": problem,
                "answer": answer,
                "nodes": normalise_nodes(row.get("nodes"), where),
                "computations": computations,
            }
        )
    if not records:
        raise TrainingDataError(f"{path}: no records")
    return records


def load_training_split(
    path: str | Path,
    prompt_template: str = DEFAULT_PROMPT_TEMPLATE,
    max_samples: int | None = None,
):
    """Load a docs/SPEC.md §2 JSONL training split as a ``datasets.Dataset`` (see the module docstring)."""
    from datasets import Dataset

    records = read_records(path)
    if max_samples is not None:
        records = records[: max(0, int(max_samples))]
    rows = [
        {
            "id": r["id"],
            "prompt": [{"role": "user", "content": prompt_template.format(problem=r["problem"])}],
            "answer": r["answer"],
            "nodes": r["nodes"],
            "problem": r["problem"],
            "computations": r["computations"],
        }
        for r in records
    ]
    return Dataset.from_list(rows)
