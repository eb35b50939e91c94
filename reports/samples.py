"""Per-generation and per-node tables from the samples files lm-eval logged (``--log_samples``).

Each line of ``samples_consensusbench_<benchmark>_<ts>.jsonl`` is one problem: lm-eval's
``doc`` (problem, answer, ``nodes``, MATH-500 ``level``/``subject``), ``filtered_resps`` (the
generations) and, from the task's ``process_results``, ``trajectories``: one score dict per
generation (``acc``, ``ncr``, ``tpn``, ``n_tokens``, ``covered``, ``positions``, ``pred``,
``think_unclosed``, ``timed_out``, ``first_error``: see :mod:`.leave_path`) -- in
``doc.consensusbench`` since task version 1.2, at the top level of the line before
(:func:`~reports.loading.sample_diagnostics` reads both). This module flattens them into two pandas frames:

* the generations frame — one row per generation (run, benchmark key, problem, generation
  index, the scores, level/subject, and where its line is: texts are not kept, so memory stays
  small with long thinking traces; :func:`attach_texts` reads back the few shown as examples);
* the nodes frame — one row per (generation, node of its problem): was the node covered, its
  text, kind, support and relative position (docs/SPEC.md §2).

Example::

    >>> gens, nodes = sample_frames(load_runs(["tests/fixtures/reports/greedy-192"]))  # doctest: +SKIP
    >>> gens.groupby("key")["acc"].mean()                                                # doctest: +SKIP
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from .leave_path import first_error_of
from .loading import ReportInputError, Run, TaskResult, iter_jsonl, sample_diagnostics

TEXT_HEAD_CHARS = 6000
TEXT_TAIL_CHARS = 2000
"""A generation longer than head + tail keeps its first and last characters only (enough to
show an example; thinking traces run to 100k characters)."""

GENERATION_COLUMNS = [
    "run", "key", "benchmark", "task", "doc_id", "problem_id", "gen", "n_gen", "acc", "ncr", "tpn",
    "n_tokens", "n_nodes", "n_covered", "covered", "positions", "pred", "gold", "think_unclosed",
    "has_think", "timed_out", "level", "subject", "problem", "text_len", "samples_path", "lineno",
    "first_error",
]
NODE_COLUMNS = [
    "run", "key", "benchmark", "problem_id", "doc_id", "gen", "node_id", "node_index", "n_nodes",
    "node_text", "kind", "support", "position", "covered",
]


def _number(value: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(float(value)):
        return float(value)
    return math.nan


def _generations(record: dict[str, Any]) -> list[str]:
    """The generation texts of one sample line (``filtered_resps`` after our keep-all filter is
    ``[[text, ...]]``; other filters give ``[text]``)."""
    responses = record.get("filtered_resps")
    if responses is None:
        responses = record.get("resps") or []
    texts: list[str] = []
    for item in responses:
        if isinstance(item, (list, tuple)):
            texts.extend(str(text) for text in item)
        elif item is not None:
            texts.append(str(item))
    return texts


def _level(doc: dict[str, Any]) -> float:
    level = doc.get("level")
    if isinstance(level, str):
        level = level.replace("Level", "").strip()
        return float(level) if level.isdigit() else math.nan
    return _number(level)


def _task_rows(run: Run, task: TaskResult) -> tuple[list[dict], list[dict], list[str]]:
    """Rows of one samples file, and notes about lines it could not use."""
    gen_rows: list[dict] = []
    node_rows: list[dict] = []
    without_scores = 0
    assert task.samples_path is not None
    lines = iter_jsonl(task.samples_path)
    for lineno, record in tqdm(lines, desc=f"{run.label}: {task.task}", unit=" problems",
                               leave=False, mininterval=1.0, disable=None):
        doc = record.get("doc")
        if not isinstance(doc, dict):
            raise ReportInputError(
                f"{task.samples_path}:{lineno}: no 'doc' object: not an lm-eval samples line")
        entry = sample_diagnostics(record, f"{task.samples_path}:{lineno}")
        if entry is None:
            without_scores += 1
            continue
        trajectories = entry["trajectories"]
        texts = _generations(record)
        nodes = [node for node in doc.get("nodes") or [] if isinstance(node, dict)]
        problem_id = str(doc.get("id", record.get("doc_id")))
        for gen, score in enumerate(trajectories):
            if not isinstance(score, dict):
                raise ReportInputError(
                    f"{task.samples_path}:{lineno}: trajectories[{gen}] is not an object")
            text = texts[gen] if gen < len(texts) else ""
            covered = [str(node_id) for node_id in score.get("covered") or []]
            positions = score.get("positions") if isinstance(score.get("positions"), dict) else {}
            gen_rows.append({
                "run": run.label, "key": task.key, "benchmark": task.benchmark, "task": task.task,
                "doc_id": record.get("doc_id"), "problem_id": problem_id, "gen": gen,
                "n_gen": len(trajectories), "acc": _number(score.get("acc")),
                "ncr": _number(score.get("ncr")),
                "tpn": _number(score.get("tpn")), "n_tokens": _number(score.get("n_tokens")),
                "n_nodes": len(nodes), "n_covered": len(covered), "covered": covered,
                "positions": positions, "pred": str(score.get("pred") or ""),
                "gold": str(doc.get("answer", record.get("target", ""))),
                "think_unclosed": bool(score.get("think_unclosed")),
                "has_think": "<think>" in text or "</think>" in text,
                "timed_out": bool(score.get("timed_out")),
                "level": _level(doc), "subject": str(doc.get("subject") or ""),
                "problem": str(doc.get("problem") or ""),
                "text_len": len(text), "samples_path": str(task.samples_path), "lineno": lineno,
                "first_error": first_error_of(score, text, nodes, doc.get("problem"), doc.get("answer"),
                                              doc.get("computations")),
            })
            covered_set = set(covered)
            for index, node in enumerate(nodes):
                node_rows.append({
                    "run": run.label, "key": task.key, "benchmark": task.benchmark,
                    "problem_id": problem_id, "doc_id": record.get("doc_id"), "gen": gen,
                    "node_id": str(node.get("id")), "node_index": index, "n_nodes": len(nodes),
                    "node_text": str(node.get("text", "")), "kind": str(node.get("kind") or ""),
                    "support": _number(node.get("support")),
                    "position": _number(node.get("position")),
                    "covered": str(node.get("id")) in covered_set,
                })
    notes = []
    if without_scores:
        notes.append(f"{task.samples_path.name}: {without_scores} line(s) without per-generation "
                     f"'trajectories' (not written by the consensusbench tasks?) were skipped")
    return gen_rows, node_rows, notes


def shorten(text: str) -> tuple[str, str]:
    """``(head, tail)``: the whole text and ``""``, or the first and last characters of a long one.

    >>> shorten("abc")
    ('abc', '')
    """
    if len(text) <= TEXT_HEAD_CHARS + TEXT_TAIL_CHARS:
        return text, ""
    return text[:TEXT_HEAD_CHARS], text[-TEXT_TAIL_CHARS:]


def attach_texts(selected: pd.DataFrame) -> pd.DataFrame:
    """``selected`` generations with ``text_head``/``text_tail`` (see :func:`shorten`), read back
    from their samples files (one pass per file, only the lines needed)."""
    out = selected.copy()
    heads, tails = [""] * len(out), [""] * len(out)
    wanted: dict[str, dict[int, list[tuple[int, int]]]] = {}
    for position, (path, lineno, gen) in enumerate(
            zip(out["samples_path"], out["lineno"], out["gen"])):
        wanted.setdefault(path, {}).setdefault(int(lineno), []).append((position, int(gen)))
    for path, lines in wanted.items():
        for lineno, record in iter_jsonl(Path(path)):
            for position, gen in lines.get(lineno, []):
                texts = _generations(record)
                heads[position], tails[position] = shorten(texts[gen] if gen < len(texts) else "")
    out["text_head"], out["text_tail"] = heads, tails
    return out


def sample_frames(runs: list[Run]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(generations, nodes)`` frames over every samples file of ``runs`` (see module doc).

    Notes about unusable lines are appended to the run's ``notes``.
    """
    gen_rows: list[dict] = []
    node_rows: list[dict] = []
    for run in runs:
        for task in run.tasks.values():
            if task.samples_path is None:
                continue
            gens, nodes, notes = _task_rows(run, task)
            gen_rows.extend(gens)
            node_rows.extend(nodes)
            run.notes.extend(notes)
    generations = pd.DataFrame(gen_rows, columns=GENERATION_COLUMNS)
    nodes = pd.DataFrame(node_rows, columns=NODE_COLUMNS)
    for frame in (generations, nodes):
        for column in ("acc", "ncr", "tpn", "n_tokens", "level", "support", "position"):
            if column in frame:
                frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return generations, nodes
