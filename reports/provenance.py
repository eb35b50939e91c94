"""Which node file each run was scored against, and whether the run's own model voted in it.

Nodes built from several models' solutions (multi-model consensus) make NCR optimistic for a
model whose own solutions voted: it is partly scored on its own words. A fair leaderboard scores
each model against nodes built without it (leave-one-model-out). The report states per run
what it can read from the samples files:

* ``files``: the ``nodes_file`` of the docs (set by the lm-eval tasks and by ``reports import``);
* ``sources``: the union of the scored records' ``provenance.voices`` (one per model, the human
  sources as ``reference``), or of their ``provenance.sources`` where no voices are recorded;
* ``own_votes``: how many scored problems have nodes whose provenance names the run's model among
  its voices -- an entry of ``provenance.sources`` / ``voices`` / ``models`` whose model part
  (after a ``kind:`` prefix and a path, before ``@commit``, without ``-ckpts-checkpoint-N``) is the
  model's -- unless ``provenance.held_out`` names it.

>>> voice("skythought:math500/Sky-T1-math-correct-5K-32B-short@6840eb7")
'Sky-T1-math-correct-5K-32B-short'
>>> voted({"sources": ["reference", "skythought:gemma-2-27b-it@f7bcf0b"]}, "gemma-2-27b-it")
True
>>> voted({"sources": ["reference", "skythought:gemma-2-27b-it"], "held_out": "gemma-2-27b-it"}, "gemma-2-27b-it")
False
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .loading import Run, TaskResult, iter_jsonl

VOICE_KEYS = ("sources", "voices", "models")
_CHECKPOINT = re.compile(r"-ckpts(?:-checkpoint-\d+)?$")


def voice(name: str) -> str:
    """The model a source or model name stands for (one voice per model, checkpoints included)."""
    text = str(name).strip()
    text = text.rsplit(":", 1)[-1].rstrip("/").rsplit("/", 1)[-1]
    text = text.split("@", 1)[0]
    return _CHECKPOINT.sub("", text)


def _entries(provenance: Any, keys: tuple[str, ...] = VOICE_KEYS) -> list[str]:
    """The entries of ``provenance``'s ``keys`` (lists, strings, or dict keys), as strings."""
    if not isinstance(provenance, dict):
        return []
    found: list[str] = []
    for key in keys:
        value = provenance.get(key)
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list):
            found += [str(v) for v in value if isinstance(v, (str, int, float))]
        elif isinstance(value, dict):
            found += [str(k) for k in value]
    return found


def voted(provenance: Any, model: str) -> bool:
    """Whether ``model``'s runs are among the voices of one record's nodes."""
    own = voice(model)
    if not own:
        return False
    held_out = provenance.get("held_out") if isinstance(provenance, dict) else None
    if held_out is not None and own in {voice(h) for h in (held_out if isinstance(held_out, list) else [held_out])}:
        return False
    return any(voice(entry) == own for entry in _entries(provenance))


@dataclass
class NodesInfo:
    """What one run's scored docs say about their nodes (see the module docstring)."""

    files: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    own_votes: int = 0
    problems: int = 0

    def summary(self, model: str) -> str:
        """One line for the leaderboard, e.g. ``math500.jsonl · built from: reference · no votes
        of this model``."""
        files = ", ".join(self.files) or "(not recorded)"
        sources = ", ".join(self.sources) or "not recorded"
        if self.own_votes:
            fairness = (f"{voice(model)} voted in the nodes of {self.own_votes}/{self.problems} problems: "
                        "NCR optimistic")
        elif self.sources:
            fairness = f"no votes of {voice(model)}"
        else:
            fairness = "voices unknown"
        return f"{files} · built from: {sources} · {fairness}"


def nodes_info(run: Run, task: TaskResult) -> NodesInfo | None:
    """The :class:`NodesInfo` of one task of a run, from its samples file (``None`` without one)."""
    if task.samples_path is None:
        return None
    info = NodesInfo()
    files: dict[str, None] = {}
    sources: dict[str, None] = {}
    for _lineno, record in iter_jsonl(Path(task.samples_path)):
        doc = record.get("doc")
        if not isinstance(doc, dict):
            continue
        info.problems += 1
        if doc.get("nodes_file"):
            files[str(doc["nodes_file"])] = None
        provenance = doc.get("provenance")
        # what the nodes were built from: the voices where the builder recorded them (one per
        # model, the human sources as "reference"), else the sources
        shown = _entries(provenance, ("voices",)) or _entries(provenance, ("sources", "models"))
        for entry in shown:
            sources[entry] = None
        if voted(provenance, run.model):
            info.own_votes += 1
    info.files, info.sources = list(files), sorted(sources)
    return info


def run_nodes_summary(run: Run) -> str:
    """The node-file line of a run (per benchmark when it has several); ``""`` without samples."""
    parts = []
    for key, task in run.tasks.items():
        info = nodes_info(run, task)
        if info is not None:
            parts.append((key, info.summary(run.model)))
    if len(parts) == 1:
        return parts[0][1]
    return "; ".join(f"{key}: {text}" for key, text in parts)
