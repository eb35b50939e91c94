"""The samples of an earlier sampling build as a source: ``--source samples:WORKDIR/samples.jsonl``.

A build with ``--backend`` keeps what it generated in its work dir, one line per problem::

    {"id": "gsm8k/test/0", "backend": "vllm:Qwen/Qwen2.5-Math-7B-Instruct", "samples": [TEXT, ...],
     "problem": "...", "answer": "18"}

Each sample becomes a :class:`Trajectory` exactly as in the build that generated it: ``source =
"sample:<backend>"``, ``voice = sample_voice(<backend>)``, correctness left to the metric's own
``acc``. So one model's samples are one voice however many there are, and the samples of two
models (two sampling builds, two work dirs) merged into one build are two voices: consensus
counts models, not samples (:mod:`node_builder.refine`). The voice is the model's name without
its organisation or folder (``Qwen/Qwen2.5-Math-7B`` and ``/models/Qwen2.5-Math-7B`` are one
voice, and the same voice as the ``runs`` file ``Qwen2.5-Math-7B@f7bcf0b.jsonl``); a folder named
``checkpoint-N`` is named after its parent, and checkpoints of one model are one voice
(:func:`node_builder.importers.model_runs.model_voice`).

Lines join problems by id (the sampling build used the same importers), and the line's answer
must agree with the earlier source's (see :func:`node_builder.importers.load_sources`); a line
whose id no earlier source has is a problem of its own (its ``problem`` and ``answer``). A torn or
malformed line, a line without ``problem`` or ``answer`` (a work dir of a builder before these
fields were written) or without samples is skipped with its ``file:line``.

Example:
    >>> sample_voice("vllm:Qwen/Qwen2.5-Math-7B-Instruct"), sample_voice("hf:/ckpt/Sky-T1-32B-ckpts/checkpoint-105/")
    ('Qwen2.5-Math-7B-Instruct', 'Sky-T1-32B')
    >>> import json, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "samples.jsonl")
    >>> _ = open(p, "w").write(json.dumps({"id": "toy/1", "backend": "hf:/models/M-1.5B", "problem": "2+2?",
    ...                                    "answer": "4", "samples": ["2+2 = \\\\boxed{4}", "5"]}) + "\\n")
    >>> [(t.source, t.voice) for t in load(p, "toy").problems[0].trajectories]
    [('sample:hf:/models/M-1.5B', 'M-1.5B'), ('sample:hf:/models/M-1.5B', 'M-1.5B')]
"""

from __future__ import annotations

import re
from pathlib import Path

from node_builder.importers.jsonl_lines import read_objects, require_str
from node_builder.importers.model_runs import model_voice
from node_builder.importers.result import ImportResult
from node_builder.schema import BadInput, Problem, Skipped, Trajectory

_CHECKPOINT_DIR = re.compile(r"checkpoint-\d+")


def sample_model(backend: str) -> str:
    """The model name in a backend label ``KIND:MODEL`` (``Backend.describe()``): the last part of
    a hub name or path, ``PARENT-checkpoint-N`` for a ``checkpoint-N`` folder."""
    model = backend.split(":", 1)[1] if ":" in backend else backend
    parts = [p for p in re.split(r"[\\/]", model) if p]
    if not parts:
        return model
    name = parts[-1]
    if _CHECKPOINT_DIR.fullmatch(name) and len(parts) > 1:
        name = f"{parts[-2]}-{name}"
    return name


def sample_voice(backend: str) -> str:
    """Who solved a sample, for consensus: its model (checkpoints of one model are one voice)."""
    return model_voice(sample_model(backend))


def trajectories(backend: str, texts: list[str]) -> list[Trajectory]:
    """The :class:`Trajectory` list of one problem's samples (used by the CLI and by :func:`load`)."""
    voice = sample_voice(backend)
    return [Trajectory(text=t, source=f"sample:{backend}", voice=voice) for t in texts]


def load(path: str | Path, benchmark: str) -> ImportResult:
    """Problems of a ``samples.jsonl`` with their samples as trajectories (see the module doc)."""
    result = ImportResult()
    path = Path(path)
    if path.is_dir():
        result.skipped.append(Skipped(str(path), "a folder: name the work dir's samples file "
                                                 f"(--source samples:{path / 'samples.jsonl'})"))
        return result
    for where, obj in read_objects(path, result.skipped):
        pid = obj.get("id") if isinstance(obj.get("id"), str) else None
        try:
            if not pid:
                raise BadInput(where, "field 'id' missing or not a string")
            backend = require_str(obj, "backend", where)
            problem = Problem(id=pid, benchmark=benchmark, problem=require_str(obj, "problem", where),
                              answer=require_str(obj, "answer", where), origin=where)
            texts = obj.get("samples")
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise BadInput(where, "field 'samples' is not a list of strings")
        except BadInput as exc:
            result.skipped.append(Skipped(exc.where, exc.reason, pid))
            continue
        problem.trajectories = trajectories(backend, texts)
        result.problems.append(problem)
    return result
