"""In-memory types of the node builder and the docs/SPEC.md §2 record they become.

A :class:`Problem` carries the benchmark item and its :class:`Trajectory` list (imported reference
solutions or generated samples). The pipeline turns it into one JSON record::

    {"id", "benchmark", "problem", "answer", "solution", "level", "subject",
     "nodes": [{"id", "text", "kind", "forms", "value", "support", "position", "standalone"}],
     "computations": ["4 * 6 = 24", ...],   # arithmetic steps two voices share (not nodes)
     "provenance": {"sources", "trajectories", "correct", "extractor", "builder_version", ...}}

Every record has exactly these keys with the same JSON types in every row (``level`` int or null,
``subject`` str or null, ``value`` str or null), so ``datasets.load_dataset("json", ...)`` infers
one schema for a whole file.

Example:
    >>> t = Trajectory(text="16-3-4 = 9 eggs", source="reference", correct=True)
    >>> p = Problem(id="gsm8k/test/0", benchmark="gsm8k", problem="...", answer="18",
    ...             trajectories=[t])
    >>> p.correct_trajectories()[0].source
    'reference'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from consensus_metrics.nodes import NODE_KINDS, Node  # the one node type (re-exported for the builder)

__all__ = ["HUMAN_SOURCES", "NODE_KINDS", "BadInput", "Node", "Problem", "Skipped", "Trajectory", "make_record"]
#: Sources written by people (benchmark references, AoPS, maintainers): together one voice.
HUMAN_SOURCES = frozenset({"reference", "socratic", "aops", "maintainer-written"})


@dataclass
class Trajectory:
    """One solution text of a problem.

    ``text`` is what nodes are matched against (e.g. GSM8K calculator annotations removed);
    ``equations`` are extra relations the source states outside ``text`` (GSM8K ``<<a*b=c>>``);
    ``correct`` is True/False once known, None until the math-verify filter has run.
    ``voice`` is who solved it, for consensus: a model (its checkpoints are one voice) or
    ``"reference"`` for every human-written source; it defaults from ``source``.
    ``origin`` is the ``file:line`` it was read from (model runs; the build counts per file).
    """

    text: str
    source: str
    correct: bool | None = None
    equations: list[str] = field(default_factory=list)
    voice: str = ""
    origin: str = ""  # "file:line" of a run's row
    pred: str = ""  # the final answer math-verify read from it (set by the filter; "" for references)
    tool: bool = False  # a tool-integrated output (programs dropped): its prose states little

    def __post_init__(self):
        if not self.voice:
            self.voice = "reference" if self.source in HUMAN_SOURCES else self.source


@dataclass
class Problem:
    """A benchmark item plus the trajectories nodes are built from."""

    id: str
    benchmark: str
    problem: str
    answer: str
    solution: str = ""
    level: int | None = None
    subject: str | None = None
    trajectories: list[Trajectory] = field(default_factory=list)
    origin: str = ""  # "file:line" of the item, for error messages
    note: str = ""  # e.g. why a problem has no trajectories ("no verified solution — ...")

    def correct_trajectories(self) -> list[Trajectory]:
        return [t for t in self.trajectories if t.correct]


class BadInput(ValueError):
    """A source item that cannot be used; ``where`` names the file:line or the problem id."""

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


@dataclass
class Skipped:
    """A problem or source line that was skipped, with the reason (reported, counted, kept)."""

    where: str
    reason: str
    problem_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def make_record(problem: Problem, nodes: list[Node], provenance: dict[str, Any],
                computations: list[str] = ()) -> dict[str, Any]:
    """Assemble the docs/SPEC.md §2 record; node ids are ``n1..nk`` in stored (position) order."""
    out_nodes = [replace(node, id=f"n{i}").to_json() for i, node in enumerate(nodes, start=1)]
    return {
        "id": problem.id,
        "benchmark": problem.benchmark,
        "problem": problem.problem,
        "answer": problem.answer,
        "solution": problem.solution,
        "level": problem.level,
        "subject": problem.subject,
        "nodes": out_nodes,
        "computations": list(computations),
        "provenance": provenance,
    }
