"""Importers: turn source files into :class:`~node_builder.schema.Problem` lists.

A source is named ``KIND:PATH`` on the command line. Kinds:

==================  =========================================================================
``math500``          MATH-500 JSONL, reference solution per problem
``gsm8k``            GSM8K JSONL (``test.jsonl``, ``train.jsonl``; ``*socratic*`` auto-detected)
``gsm8k-socratic``   GSM8K socratic JSONL (sub-question prefixes stripped)
``aime24``           AIME 2024 JSONL with AoPS pages (split into solutions)
``aime25``           MathArena AIME 2025 folder (problems + answers, no solutions)
``aime25-solutions`` maintainer-written solutions markdown (``## 2025-I-1`` sections)
``jsonl``            generic dump of sampled trajectories (field map, see ``jsonl_dump``)
==================  =========================================================================

:func:`load_sources` loads several sources and merges them by problem id: the first source that
has an id defines the problem; later sources add trajectories, and a later source whose answer
disagrees is rejected for that problem (skipped with the reason, nothing else changes). A later
problem under an id no earlier source has, whose statement (whitespace aside) is that of exactly
one earlier problem, is merged into that problem: ids derived from file names or line numbers
(GSM8K) must not keep renamed copies of one benchmark apart.

Example:
    >>> parse_source_spec("gsm8k-socratic:/raw/gsm8k/test_socratic.jsonl")
    ('gsm8k-socratic', '/raw/gsm8k/test_socratic.jsonl')
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Callable

from node_builder.importers import aime24, aime25, gsm8k, jsonl_dump, math500
from node_builder.importers.result import ImportResult
from node_builder.schema import Problem, Skipped

Loader = Callable[..., ImportResult]

IMPORTERS: dict[str, Loader] = {
    "math500": math500.load,
    "gsm8k": gsm8k.load,
    "gsm8k-socratic": partial(gsm8k.load, socratic=True),
    "aime24": aime24.load,
    "aime25": aime25.load_matharena,
    "aime25-solutions": aime25.load_solutions,
    "jsonl": jsonl_dump.load,
}


def parse_source_spec(spec: str) -> tuple[str, str]:
    kind, sep, path = spec.partition(":")
    if not sep or kind not in IMPORTERS or not path:
        raise ValueError(f"bad --source {spec!r}: expected KIND:PATH with KIND one of {sorted(IMPORTERS)}")
    return kind, path


def load_sources(specs: list[str], benchmark: str, fields: dict[str, str] | None = None) -> ImportResult:
    """Load and merge ``KIND:PATH`` sources (see module doc). A missing file is a clear error."""
    merged = ImportResult()
    by_id = {}
    by_statement: dict[str, Problem | None] = {}  # statement -> its problem (None: several have it)
    for spec in specs:
        kind, path = parse_source_spec(spec)
        if not Path(path).exists():
            raise FileNotFoundError(f"--source {spec}: {path} does not exist")
        kwargs = {"benchmark": benchmark}
        if kind == "jsonl":
            kwargs["fields"] = fields
        loaded = IMPORTERS[kind](path, **kwargs)
        merged.skipped.extend(loaded.skipped)
        earlier = dict(by_statement)
        for problem in loaded.problems:
            statement = " ".join(problem.problem.split())
            base = by_id.get(problem.id) or (earlier.get(statement) if statement else None)
            if base is None:
                by_id[problem.id] = problem
                merged.problems.append(problem)
                if statement:
                    by_statement[statement] = None if statement in by_statement else problem
                continue
            if problem.answer.strip() != base.answer.strip():
                merged.skipped.append(Skipped(
                    problem.origin or spec,
                    f"answer {problem.answer!r} disagrees with {base.answer!r} from {base.origin}; "
                    f"its {len(problem.trajectories)} trajectories are not used", problem.id))
                continue
            base.trajectories.extend(problem.trajectories)
            if not base.solution and problem.solution:
                base.solution = problem.solution
            if not base.problem and problem.problem:
                base.problem = problem.problem
            if problem.note and not base.note:
                base.note = problem.note
    return merged
