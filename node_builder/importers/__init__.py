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
``runs``             evaluation runs of models, one file per run, Qwen2.5-Math harness layout (``model_runs``)
``runs.MAP``         evaluation runs read through the field map ``MAP`` (``runs``, :mod:`node_builder.run_maps`)
``samples``          a sampling build's ``WORKDIR/samples.jsonl`` (one voice per model, ``samples``)
``dapo``             DAPO-Math-17K, verl parquet: problems and integer answers (``dapo``)
==================  =========================================================================

:func:`load_sources` loads several sources and merges them by problem id: the first source that
has an id defines the problem; later sources add trajectories, and a later source whose answer
disagrees is rejected for that problem (skipped with the reason, nothing else changes). A later
problem under an id no earlier source has, whose statement (whitespace aside) is that of exactly
one earlier problem, is merged into that problem: ids derived from file names or line numbers
(GSM8K) must not keep renamed copies of one benchmark apart. Model runs (``runs``, ``runs.MAP``)
never add a problem: a run row names one by statement or by id, and a row whose problem the
benchmark does not have is skipped with its ``file:line`` (or, for a run that covers more than
the benchmark, counted as outside). A run row without a gold answer takes the benchmark's.
Answers agree when they are the same text up to spacing, ``$`` and leading zeros, or when
math-verify finds them equal (``\\frac{1}{2}`` and ``0.5``). Per run file, the result counts
rows, outputs, joined problems, skipped and outside rows (:class:`~node_builder.importers.result.FileCount`).

Example:
    >>> parse_source_spec("gsm8k-socratic:/raw/gsm8k/test_socratic.jsonl")
    ('gsm8k-socratic', '/raw/gsm8k/test_socratic.jsonl')
    >>> parse_source_spec("runs.rho-cot:/raw/trajectories/rho/math500")
    ('runs.rho-cot', '/raw/trajectories/rho/math500')
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Callable

from node_builder.importers import aime24, aime25, dapo, gsm8k, jsonl_dump, math500, model_runs, runs, samples
from node_builder.importers.result import FileCount, ImportResult
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
    "runs": model_runs.load,
    "samples": samples.load,
    "dapo": dapo.load,
}


RUN_KIND_PREFIX = "runs."


def run_map_of(kind: str):
    """The field map a run source kind reads through (``runs`` or ``runs.MAP``), else None."""
    from node_builder.run_maps import RUN_MAPS  # the maps import the importers: looked up when used

    if kind == "runs":
        return model_runs.SKYTHOUGHT
    if kind.startswith(RUN_KIND_PREFIX):
        return RUN_MAPS.get(kind[len(RUN_KIND_PREFIX):])
    return None


def loader(kind: str) -> Loader:
    """The import function of a source kind (see the module doc)."""
    run_map = run_map_of(kind)
    if run_map is not None:
        return partial(runs.load, run_map=run_map)
    return IMPORTERS[kind]


def parse_source_spec(spec: str) -> tuple[str, str]:
    kind, sep, path = spec.partition(":")
    if not sep or not path or (kind not in IMPORTERS and run_map_of(kind) is None):
        from node_builder.run_maps import RUN_MAPS

        raise ValueError(f"bad --source {spec!r}: expected KIND:PATH with KIND one of {sorted(IMPORTERS)} "
                         f"or runs.MAP with MAP one of {sorted(RUN_MAPS)}")
    return kind, path


def text_key(problem_text: str) -> str:
    """Whitespace-insensitive key of a problem statement (joins ``runs`` lines to problems)."""
    return " ".join(problem_text.split())


def _plain_answer(answer: str) -> str:
    text = re.sub(r"[\s$]", "", answer)
    return (text.lstrip("0") or "0") if text.isdigit() else text


def same_answer(a: str, b: str) -> bool:
    r"""Two gold answers name the same thing (see module doc).

    >>> same_answer("025", "25"), same_answer("\\frac{1}{2}", "0.5"), same_answer("3", "4")
    (True, True, False)
    """
    if _plain_answer(a) == _plain_answer(b):
        return True
    from node_builder.filter import is_correct

    return is_correct(a, f"\\boxed{{{b}}}")


def load_sources(specs: list[str], benchmark: str, fields: dict[str, str] | None = None) -> ImportResult:
    """Load and merge ``KIND:PATH`` sources (see module doc). A missing file is a clear error."""
    merged = ImportResult()
    by_id: dict[str, Problem] = {}
    by_statement: dict[str, Problem | None] = {}  # statement -> its problem (None: several have it)
    for spec in specs:
        kind, path = parse_source_spec(spec)
        if not Path(path).exists():
            raise FileNotFoundError(f"--source {spec}: {path} does not exist")
        kwargs = {"benchmark": benchmark}
        if kind == "jsonl":
            kwargs["fields"] = fields
        loaded = loader(kind)(path, **kwargs)
        merged.skipped.extend(loaded.skipped)
        merged.files.update(loaded.files)
        earlier = dict(by_statement)
        for problem in loaded.problems:
            statement = text_key(problem.problem)
            count = loaded.files.get(problem.origin.rsplit(":", 1)[0]) if loaded.files else None
            base = by_id.get(problem.id) if problem.id else None
            base = base or (earlier.get(statement) if statement else None)
            if base is None and (loaded.join_only or not problem.id):  # a run names a problem, never adds one
                _count(count, "outputs", -len(problem.trajectories))
                if loaded.outside_ok:
                    _count(count, "outside")
                    continue
                named = (f"no {benchmark} problem has the id {problem.id!r}" if problem.id and not statement
                         else f"no single {benchmark} problem has this statement")
                merged.skipped.append(Skipped(problem.origin or spec, f"problem not in the benchmark ({named})"))
                _count(count, "skipped")
                continue
            if base is None:
                by_id[problem.id] = problem
                merged.problems.append(problem)
                if statement:
                    by_statement[statement] = None if statement in by_statement else problem
                continue
            if (problem.answer or not loaded.join_only) and not same_answer(base.answer, problem.answer):
                merged.skipped.append(Skipped(
                    problem.origin or spec,
                    f"answer {problem.answer!r} disagrees with {base.answer!r} from {base.origin}; "
                    f"its {len(problem.trajectories)} trajectories are not used", base.id))
                _count(count, "skipped")
                _count(count, "outputs", -len(problem.trajectories))
                continue
            if count is not None:
                count.joined.add(base.id)
            base.trajectories.extend(problem.trajectories)
            if not base.solution and problem.solution:
                base.solution = problem.solution
            if not base.problem and problem.problem:
                base.problem = problem.problem
            if problem.note and not base.note:
                base.note = problem.note
    return merged


def _count(count: FileCount | None, what: str, add: int = 1) -> None:
    if count is not None:
        setattr(count, what, getattr(count, what) + add)
