"""Evaluation runs in the Qwen2.5-Math harness layout (SkyThought): the ``runs`` source kind.

The layout is the Qwen2.5-Math evaluation harness's (also used by SkyThought):
``{"idx", "question", "gt", "code": [model output, ...], "score": [...], ...}``. A source path
is one run file or a folder of them (``*.jsonl``, read in name order). The file name says which
model wrote the run: ``<model>@<tag>.jsonl`` (the tag, e.g. a commit, is dropped).

``runs`` is the field map :data:`SKYTHOUGHT` read by the one run importer
(:mod:`node_builder.importers.runs`; every other staged layout has its map in
:mod:`node_builder.run_maps`, source kind ``runs.<map>``):

* Each output in ``code`` becomes a :class:`Trajectory` with ``source = "model:<model>"`` and
  ``voice = model_voice(<model>)``; its correctness is left to the metric's own ``acc`` (the
  harness's ``score`` is another grader and is ignored).
* A line names its problem by text, not by id: :func:`node_builder.importers.load_sources` joins
  it to the benchmark's problem with the same text (whitespace-insensitive). A line whose problem
  the benchmark does not have, or whose gold answer disagrees with the benchmark's, is skipped
  with ``file:line`` and counted (see ``load_sources``).

Voices: consensus counts *distinct models*, and training checkpoints of one model are one voice:
:func:`model_voice` drops a trailing ``-checkpoint-N`` / ``-ckpts-checkpoint-N`` / ``-ckpts``.

Example:
    >>> model_voice("Sky-T1-math-correct-5K-32B-ckpts-checkpoint-105"), model_voice("gemma-2-27b-it")
    ('Sky-T1-math-correct-5K-32B', 'gemma-2-27b-it')
    >>> run_model("runs/Qwen2.5-Math-7B@f7bcf0b.jsonl")
    'Qwen2.5-Math-7B'
    >>> SKYTHOUGHT.voice_of("Sky-T1-math-correct-5K-32B-short-ckpts-checkpoint-105")
    'Sky-T1-math-correct-5K-32B-short'
"""

from __future__ import annotations

from pathlib import Path

from node_builder.importers.result import ImportResult
from node_builder.importers.runs import RunMap, model_voice, run_model
from node_builder.importers.runs import load as load_run

__all__ = ["SKYTHOUGHT", "load", "model_voice", "run_model"]

SKYTHOUGHT = RunMap(
    name="skythought", problem="question", outputs=("code",), answer="gt",
    thought=("<|begin_of_thought|>", "<|end_of_thought|>"),
    doc="Qwen2.5-Math harness rows: `question`, `code` (list of outputs), `gt`; Sky-T1 thought markers kept")
"""The ``runs`` kind's field map (the Qwen2.5-Math harness layout)."""


def load(path: str | Path, benchmark: str) -> ImportResult:
    """Problems (joined by text later, ``id == ""``) with the runs' outputs as trajectories."""
    return load_run(path, benchmark, SKYTHOUGHT)
