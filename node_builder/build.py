"""One benchmark file through the whole pipeline, resumable: what ``build`` and ``build-all`` run.

:func:`build_file` chains the stages in small steps::

    check inputs/output -> import (importers/) -> open the work dir (pins the settings)
      -> per batch of problems not built yet: [generate: sample + attach (generate.py)]
                                              -> build_record each (pipeline.py) -> records log
      -> finalize (the whole build) -> write OUT atomically -> summary

A rerun with the same work dir continues where the last one stopped and writes the identical
file (records are pure functions of their problem; samples are kept, never regenerated). One bad
problem is logged as skipped and never stops the run. Unusable inputs raise :class:`InputError`
before any work (the CLI prints it as one line, exit status 2): a source that is missing or
malformed, a run source whose field map names a field its files lack
(:func:`node_builder.importers.runs.check_fields`), a run file most of whose rows fail to join
the benchmark (:data:`MAX_FAILED_SHARE`), no usable problem at all.

The summary counts, per run file (``runs``: :func:`run_file_summary`), its rows, the problems
joined, the rows skipped (each listed on stderr as ``file:line: reason``), the rows outside the
benchmark, the repeats dropped, and the correct outputs by the metric's own ``acc``.

Example:
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> source = root / "test.jsonl"
    >>> _ = source.write_text('{"question": "Ann has 5 apples and buys 7 more, then eats 3. How many?", '
    ...                       '"answer": "5 + 7 = <<5+7=12>>12 and 12 - 3 = <<12-3=9>>9.\\\\n#### 9"}\\n')
    >>> summary = build_file("toy", [f"gsm8k:{source}"], root / "toy.jsonl", root / "work", BuildConfig(), quiet=True)
    >>> summary["problems"], summary["with_nodes"]
    (1, 1)
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import sys
import traceback
from pathlib import Path

from tqdm import tqdm

from consensus_metrics.outputs import OutputPathError, check_output_file
from consensus_metrics.records import InputFileError, check_input_file
from node_builder import BUILDER_VERSION
from node_builder.generate import Generation, GenerationConfig
from node_builder.gold_check import answers_of
from node_builder.importers import load_sources, parse_source_spec, run_map_of
from node_builder.importers.result import ImportResult
from node_builder.importers.runs import check_fields
from node_builder.llm_extractor import LLMExtractor
from node_builder.pipeline import BuildConfig, build_record, finalize
from node_builder.schema import Problem
from node_builder.workdir import Workdir, code_fingerprint, write_jsonl_atomic


#: A run file with more than this share of its rows skipped (malformed, not in the benchmark, gold
#: disagrees) stops the build: it is most likely a run of another benchmark or another layout.
MAX_FAILED_SHARE = 0.5


class InputError(Exception):
    """Input or settings the build cannot use (nothing was done)."""


#: Source kinds whose PATH may be a folder (of run files, parquet files, the MathArena layout).
FOLDER_KINDS = frozenset({"aime25", "runs", "dapo"})


def check_sources(specs: list[str]) -> None:
    """Every ``KIND:PATH`` well-formed and present, a regular file (or a folder, for the kinds of
    :data:`FOLDER_KINDS`), and every run source's field map naming fields its files have, else
    :class:`InputError`. A FIFO or a device is never opened for reading: it could block forever
    or never end."""
    for spec in specs:
        try:
            kind, path = parse_source_spec(spec)
        except ValueError as err:
            raise InputError(str(err)) from None
        if not Path(path).exists():
            raise InputError(f"--source {spec}: {path} does not exist")
        if kind.split(".", 1)[0] in FOLDER_KINDS and Path(path).is_dir():
            continue
        try:
            check_input_file(path)
        except InputFileError as err:
            raise InputError(f"--source {kind}:{err}") from None
    for spec in specs:
        kind, path = parse_source_spec(spec)
        run_map = run_map_of(kind)
        problem = check_fields(path, run_map) if run_map is not None else None
        if problem:
            raise InputError(f"--source {spec}: {problem}")


def check_out(out: Path, sources: list[str], workdir: Path, flag: str = "--out") -> None:
    """``out`` writable and none of the inputs (a source, inside a source folder or the work
    dir), else :class:`InputError`."""
    try:
        check_output_file(out, [("--source", parse_source_spec(spec)[1]) for spec in sources], flag,
                          folders=[("--workdir", workdir)])
    except OutputPathError as err:
        raise InputError(str(err)) from None


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        digest.update(file.relative_to(path).as_posix().encode() if path.is_dir() else b"")
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def source_fingerprints(specs: list[str]) -> list[str]:
    """``KIND:basename@sha`` per source: settings identity independent of where RAW lives."""
    out = []
    for spec in specs:
        kind, path = parse_source_spec(spec)
        p = Path(path)
        out.append(f"{kind}:{p.name}@{_file_digest(p) if p.exists() else 'missing'}")
    return out


def import_problems(sources: list[str], benchmark: str, fields: dict | None) -> ImportResult:
    """Load and merge the sources; skipped lines go to stderr; no usable problem is an :class:`InputError`."""
    imported = load_sources(sources, benchmark, fields=fields)
    for file, count in imported.files.items():  # before the skipped lines: the error is the one line
        if count.failed_share() > MAX_FAILED_SHARE:
            first = next((s for s in imported.skipped if s.where.rsplit(":", 1)[0] == file
                          and not s.reason.endswith("holds no output")), None)
            raise InputError(f"{file}: {count.skipped - count.empty} of {count.rows - count.outside - count.empty} "
                             f"rows with an output do not join the "
                             f"{benchmark} problems" + (f" (first: {first.where}: {first.reason})" if first else "")
                             + "; is it a run of this benchmark, read through the right map?")
    for skip in imported.skipped:
        print(f"skipped {skip.where}" + (f" ({skip.problem_id})" if skip.problem_id else "")
              + f": {skip.reason}", file=sys.stderr)
    if not imported.problems:
        raise InputError(f"no usable problem in the sources ({len(imported.skipped)} skipped): "
                         + ", ".join(sources))
    return imported


def open_workdir(workdir: Path, benchmark: str, sources: list[str], config: BuildConfig,
                 generation: GenerationConfig | None, limit: int | None, fields: dict | None) -> Workdir:
    """The work dir pinned to these inputs (refused if it holds others) and build settings."""
    inputs = {"benchmark": benchmark, "sources": source_fingerprints(sources),
              "backend": generation.identity() if generation else None, "limit": limit, "fields": fields or {}}
    build = {"config": config.to_json(), "builder_version": BUILDER_VERSION,
             "code": code_fingerprint("node_builder", "consensus_metrics")}
    return Workdir(workdir, inputs, build)


def correct_by_file(problem: Problem) -> dict[str, int]:
    """``{run file: correct outputs}`` of a built problem (trajectories read from a run file)."""
    counts: dict[str, int] = {}
    for trajectory in problem.trajectories:
        if trajectory.origin and trajectory.correct:
            file = trajectory.origin.rsplit(":", 1)[0]
            counts[file] = counts.get(file, 0) + 1
    return counts


def build_entry(problem: Problem, config: BuildConfig, extractor=None) -> dict:
    """The records-log line of one problem: ``{"id", "record", "answers", "correct_by_file"}``
    (answers: :func:`node_builder.gold_check.answers_of`; the last only when run files gave it outputs), or ``{"id", "skipped": why}`` when building it raised
    (reported on stderr with a short traceback)."""
    try:
        entry = {"id": problem.id, "record": build_record(problem, config, extractor), "answers": answers_of(problem)}
        by_file = correct_by_file(problem)
        if by_file:
            entry["correct_by_file"] = by_file
        return entry
    except Exception as exc:  # one bad problem never stops the run
        print(f"error building {problem.id} ({problem.origin or problem.id}): {type(exc).__name__}: {exc}",
              file=sys.stderr)
        traceback.print_exc(limit=3, file=sys.stderr)
        return {"id": problem.id, "skipped": f"{type(exc).__name__}: {exc}"[:500]}


_WORKER_CONFIG: BuildConfig | None = None


def _init_worker(config: BuildConfig) -> None:
    global _WORKER_CONFIG
    _WORKER_CONFIG = config


def _build_in_worker(problem: Problem) -> dict:
    return build_entry(problem, _WORKER_CONFIG)


def default_workers() -> int:
    """Worker processes of a build without generation: the machine's cores, at most 8."""
    return max(1, min(8, os.cpu_count() or 1))


def build_parallel(todo: list[Problem], work: Workdir, done: dict, config: BuildConfig, bar: tqdm,
                   workers: int) -> None:
    """Build ``todo`` in ``workers`` forked processes (each with its own answer-check sandbox);
    the parent logs every line in problem order, so the records are those of a serial build."""
    context = multiprocessing.get_context("fork")
    with context.Pool(workers, initializer=_init_worker, initargs=(config,)) as pool:
        for problem, entry in zip(todo, pool.imap(_build_in_worker, todo, chunksize=2)):
            work.records.append(entry)
            done[problem.id] = entry
            bar.update(1)


def build_problems(todo: list[Problem], work: Workdir, done: dict, config: BuildConfig,
                   stage: Generation | None, bar: tqdm, workers: int = 1) -> None:
    """Build ``todo`` in batches (``stage``: sample and attach each batch first), logging each
    problem's line as soon as it is built; ``done`` gains the lines. Without generation or an
    LLM extractor, ``workers > 1`` builds in parallel (:func:`build_parallel`)."""
    if stage is None and config.extractor == "rules" and workers > 1 and len(todo) > 1:
        build_parallel(todo, work, done, config, bar, workers)
        return
    backend = extractor = None
    if todo and stage is not None:
        backend = stage.config.make_backend()
        if config.extractor == "rules+llm":
            extractor = LLMExtractor(backend)
    try:
        chunk = stage.config.batch_size if stage is not None else len(todo) or 1
        for start in range(0, len(todo), chunk):
            batch = todo[start:start + chunk]
            if stage is not None:
                stage.sample(batch, backend)
                for problem in batch:
                    stage.attach(problem)
            for problem in batch:
                entry = build_entry(problem, config, extractor)
                work.records.append(entry)
                done[problem.id] = entry
                bar.update(1)
    finally:
        if backend is not None:
            backend.close()


def run_file_summary(imported: ImportResult, problems: list[Problem], done: dict) -> dict[str, dict]:
    """Per run file: ``rows``, ``joined`` (problems), ``skipped`` (rows, listed on stderr),
    ``outside`` (rows of problems outside the benchmark), ``duplicates`` (repeated outputs
    dropped), ``outputs`` (trajectories), ``correct`` (outputs our ``acc`` accepts),
    ``correct_problems`` (problems with one), counted over ``problems`` (``--limit`` aside), and
    ``source_verdict_correct`` (rows the source's own grader marks correct, where its map reads one:
    for comparison only)."""
    ids = {p.id for p in problems}
    correct: dict[str, int] = {}
    solved: dict[str, int] = {}
    for problem in problems:
        for file, n in done.get(problem.id, {}).get("correct_by_file", {}).items():
            correct[file] = correct.get(file, 0) + n
            solved[file] = solved.get(file, 0) + 1
    out = {}
    for file, count in imported.files.items():
        out[file] = {"rows": count.rows, "joined": len(count.joined & ids), "skipped": count.skipped,
                     "outside": count.outside, "duplicates": count.duplicates, "outputs": count.outputs,
                     "correct": correct.get(file, 0), "correct_problems": solved.get(file, 0),
                     "source_verdict_correct": count.verdict_true}
    return out


def summarize(benchmark: str, out: Path, workdir: Path, problems: list[Problem], records: list[dict],
              done: dict, imported: ImportResult) -> dict:
    """The run's summary (counts of problems, records, nodes, skips, LLM replies that were garbage;
    per run file: :func:`run_file_summary`)."""
    skipped_builds = [p for p in problems if "skipped" in done.get(p.id, {})]
    summary = {"benchmark": benchmark, "out": str(out), "problems": len(problems),
               "records": len(records), "with_nodes": sum(1 for r in records if r["nodes"]),
               "nodes": sum(len(r["nodes"]) for r in records),
               "skipped_inputs": len(imported.skipped), "skipped_problems": len(skipped_builds),
               "llm_garbage_replies": sum(1 for r in records if r["provenance"]["llm"]["status"].startswith("garbage")),
               "workdir": str(workdir)}
    if imported.files:
        summary["runs"] = run_file_summary(imported, problems, done)
    return summary


def build_file(benchmark: str, sources: list[str], out: Path, workdir: Path, config: BuildConfig,
               generation: GenerationConfig | None = None, limit: int | None = None,
               fields: dict | None = None, quiet: bool = False, workers: int = 1) -> dict:
    """Build one file (see the module docstring); returns the summary dict (also printed unless ``quiet``).

    ``sources``: ``KIND:PATH`` specs (:mod:`node_builder.importers`); ``generation``: sample
    with a backend too (:mod:`node_builder.generate`); ``limit``: the first N problems only;
    ``fields``: the ``jsonl`` importer's field map; ``workers``: processes building problems
    (rule-based builds; the output is the same for any number).
    """
    check_sources(sources)
    check_out(out, sources, workdir)
    imported = import_problems(sources, benchmark, fields)
    problems = imported.problems[:limit] if limit else imported.problems
    work = open_workdir(workdir, benchmark, sources, config, generation, limit, fields)
    done = work.records.load()
    todo = [p for p in problems if p.id not in done]
    stage = Generation(generation, work.samples) if generation else None
    bar = tqdm(total=len(problems), initial=len(problems) - len(todo), desc=benchmark,
               unit="problem", disable=quiet, file=sys.stderr)
    try:
        build_problems(todo, work, done, config, stage, bar, workers)
    finally:  # also on Ctrl-C: the bar ends its line before the command's last word
        bar.close()
    if stage is not None:  # problems built in an earlier run: their samples join the background too
        stage.attach_kept(problems, skip={p.id for p in todo})
    entries = [done[p.id] for p in problems if "record" in done.get(p.id, {})]
    records = [entry["record"] for entry in entries]
    finalize(records, problems, config, [entry.get("answers") for entry in entries], quiet=quiet)
    write_jsonl_atomic(out, records)
    summary = summarize(benchmark, out, workdir, problems, records, done, imported)
    if not quiet:
        print(json.dumps(summary), file=sys.stderr)
    return summary
