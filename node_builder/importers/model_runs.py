"""Evaluation runs of real models: one JSONL file per run, one line per problem.

The layout is the Qwen2.5-Math evaluation harness's (also used by SkyThought):
``{"idx", "question", "gt", "code": [model output, ...], "score": [...], ...}``. A source path
is one run file or a folder of them (``*.jsonl``, read in name order). The file name says which
model wrote the run: ``<model>@<tag>.jsonl`` (the tag, e.g. a commit, is dropped).

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
"""

from __future__ import annotations

import re
from pathlib import Path

from node_builder.importers.jsonl_lines import read_objects, require_str
from node_builder.importers.result import ImportResult
from node_builder.schema import BadInput, Problem, Skipped, Trajectory

_CHECKPOINT = re.compile(r"(?:-ckpts)?(?:-checkpoint-\d+)?$")
#: Field names of the harness layout: the problem text, the gold answer, the outputs.
FIELDS = {"problem": "question", "answer": "gt", "outputs": "code"}


def run_model(path: str | Path) -> str:
    """The model a run file belongs to: its name up to ``@`` (``Qwen2.5-Math-7B@f7bcf0b.jsonl``)."""
    return Path(path).name.removesuffix(".jsonl").split("@", 1)[0]


def model_voice(model: str) -> str:
    """One voice per model: training checkpoints of a model are not independent solvers."""
    return _CHECKPOINT.sub("", model) or model


def run_files(path: str | Path) -> list[Path]:
    """The run files of a source path: the file itself, or a folder's ``*.jsonl`` by name."""
    path = Path(path)
    return sorted(path.glob("*.jsonl")) if path.is_dir() else [path]


def load(path: str | Path, benchmark: str) -> ImportResult:
    """Problems (joined by text later, ``id == ""``) with the runs' outputs as trajectories."""
    result = ImportResult()
    files = run_files(path)
    if not files:
        result.skipped.append(Skipped(str(path), "folder holds no *.jsonl run file"))
    for file in files:
        model = run_model(file)
        voice = model_voice(model)
        for where, obj in read_objects(file, result.skipped):
            try:
                question = require_str(obj, FIELDS["problem"], where)
                answer = require_str(obj, FIELDS["answer"], where)
                outputs = obj.get(FIELDS["outputs"])
                if isinstance(outputs, str):
                    outputs = [outputs]
                if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
                    raise BadInput(where, f"field {FIELDS['outputs']!r} is not a string or a list of strings")
                if not any(o.strip() for o in outputs):
                    raise BadInput(where, f"field {FIELDS['outputs']!r} holds no output")
            except BadInput as exc:
                result.skipped.append(Skipped(exc.where, exc.reason))
                continue
            problem = Problem(id="", benchmark=benchmark, problem=question, answer=answer, origin=where)
            problem.trajectories = [Trajectory(text=o, source=f"model:{model}", voice=voice)
                                    for o in outputs if o.strip()]
            result.problems.append(problem)
    return result
