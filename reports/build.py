"""``build_report``: lm-eval run folders -> leaderboard.csv/.md, index.html and the tables behind
the plots, written into one output folder.

Data flow::

    RUN_DIR ... --loading--> runs (results JSON, samples paths)
        --leaderboard--> leaderboard.csv / leaderboard.md            (results JSON only)
        --samples--> per-generation + per-node frames                (samples files, if any)
        --diagnostics--> mismatch.csv, by_level.csv, missed_nodes.csv, coverage_by_position.csv
        --compare--> comparison.csv                                  (with a baseline)
        --plots + html--> figures/*.png, index.html                  (self-contained)

The whole report is built in a temporary folder next to ``OUT_DIR`` and swapped in only when
every file is written: a failed or killed build leaves the previous report as it was (and no
file of an old report survives a rebuild). An existing ``OUT_DIR`` is replaced only when it holds
nothing but report files; an ``OUT_DIR`` that is or holds an input, or cannot be created, is
refused before any work (:func:`consensus_metrics.outputs.check_output_folder`).

Example::

    >>> paths = build_report(["base=runs/base", "grpo=runs/grpo"], "report",
    ...                      ReportOptions(baseline="base"))               # doctest: +SKIP
    >>> sorted(p.name for p in paths.values())                             # doctest: +SKIP
"""

from __future__ import annotations

import datetime as dt
import math
import os
import shlex
import shutil
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from consensus_metrics.outputs import OutputPathError, check_output_folder

from . import diagnostics, html, leave_path, plots
from .compare import compare_to_baseline, compared_metrics, comparison_markdown, resolve_baseline, signed
from .leaderboard import (all_keys, common_keys, direction, display_keys, display_metrics,
                          format_value, leaderboard_frame, markdown_text, metric_label, metrics_long,
                          repeat_summary, resolve_sort, sort_leaderboard, to_markdown)
from .loading import ReportInputError, Run, load_runs, parse_run_spec
from .provenance import run_nodes_summary
from .samples import attach_texts, sample_frames

#: What a report folder holds (plus ``figures/*.png``): an existing ``--out`` with anything else
#: in it is not replaced.
REPORT_FILES = frozenset({"index.html", "leaderboard.csv", "leaderboard.md", "repeats.csv", "comparison.csv",
                          "generations.csv", "mismatch.csv", "by_level.csv", "missed_nodes.csv",
                          "coverage_by_position.csv", "leave_path.csv", "figures"})

CSS_CLASS = {"right & covered": "c-right-covered", "right, missing process": "c-right-missing",
             "near miss": "c-near-miss", "wrong & uncovered": "c-wrong-uncovered"}


@dataclass
class ReportOptions:
    """Options of ``python -m reports build`` (see ``--help``)."""

    sort_by: str | None = None
    ascending: bool | None = None
    baseline: str | None = None
    threshold: float = diagnostics.DEFAULT_THRESHOLD
    top_nodes: int = 10
    examples: int = 2
    title: str = "ConsensusBench report"
    command: str = ""
    intro: tuple[str, ...] = ()
    """Plain sentences shown under the title ("About these runs"), escaped like all text."""


def _write(path: Path, data: str | bytes) -> Path:
    """Write atomically: a temporary file in the same folder, then ``os.replace``."""
    temporary = path.with_name(f".{path.name}.tmp{os.getpid()}")
    if isinstance(data, bytes):
        temporary.write_bytes(data)
    else:
        temporary.write_text(data, encoding="utf-8")
    os.replace(temporary, path)
    return path


def _foreign_entries(folder: Path) -> list[str]:
    """Entries of an existing output folder that a report does not write."""
    foreign = [p.name for p in folder.iterdir() if p.name not in REPORT_FILES]
    figures = folder / "figures"
    if figures.is_dir():
        foreign += [f"figures/{p.name}" for p in figures.iterdir() if p.suffix != ".png" or not p.is_file()]
    elif figures.exists():
        foreign.append("figures")
    return sorted(foreign)


def check_out_dir(out: Path, specs: list[str]) -> None:
    """Refuse (:class:`ReportInputError`) an ``--out`` that cannot be written, is or holds an
    input run folder, or is an existing folder with files that are not part of a report."""
    try:
        check_output_folder(out, [("RUN_DIR", parse_run_spec(spec)[1]) for spec in specs])
    except OutputPathError as err:
        raise ReportInputError(str(err)) from None
    if out.is_dir() and (foreign := _foreign_entries(out)):
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise ReportInputError(f"--out {out}: holds files that are not part of a report ({shown}); "
                               "give a new or empty folder")


@contextmanager
def _staged(out: Path):
    """A temporary folder beside ``out`` to build into; swapped in for ``out`` when the block
    ends without an error, removed otherwise."""
    parent = out.absolute().parent
    anchor = parent
    while not anchor.exists():
        anchor = anchor.parent
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=anchor))
    try:
        yield staging
        parent.mkdir(parents=True, exist_ok=True)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=parent))
            os.replace(out, old / out.name)
            os.replace(staging, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False)


def _anchor(row: Any) -> str:
    run = "".join(ch if ch.isalnum() else "-" for ch in str(row["run"]))
    return f"ex-{run}-{row['key']}-{row['doc_id']}-{row['gen']}"


# ----------------------------------------------------------------------------- context pieces

def _board_context(frame: pd.DataFrame, sorted_by: str, ascending: bool, shared: list[str]
                   ) -> dict[str, Any]:
    columns = [{"label": "Run", "text": True, "direction": "asc", "title": "run label"},
               {"label": "Model", "text": True, "direction": "asc", "title": "model"},
               {"label": "Settings", "text": True, "direction": "asc", "title": "decoding"}]
    sources = ["run", "model", "settings"]
    if "nodes" in frame.columns:
        columns.append({"label": "Nodes scored against", "text": True, "direction": "asc",
                        "title": "node file of the scored problems, what its nodes were built from, and "
                                 "whether this run's model voted in them"})
        sources.append("nodes")
    text_columns = len(sources)
    groups = []
    for key in display_keys(frame):
        metrics = display_metrics(frame, key)
        groups.append({"name": key if key != "mean" else "mean", "span": len(metrics),
                       "title": f"macro average over {', '.join(shared)}" if key == "mean"
                       else f"consensusbench_{key}"})
        for metric in metrics:
            column = f"{key}/{metric}"
            columns.append({"label": metric_label(metric), "text": False,
                            "direction": "asc" if direction(metric) < 0 else "desc",
                            "title": f"{column} (click to sort)"})
            sources.append(column)
    for column, source in zip(columns, sources):
        column["sorted"] = ("asc" if ascending else "desc") if source == sorted_by else ""
    best: dict[str, float] = {}
    for source in sources[text_columns:]:
        values = frame[source].dropna()
        sign = direction(source)
        if len(values) > 1 and sign != 0 and values.nunique() > 1:
            best[source] = values.max() if sign > 0 else values.min()
    rows = []
    for _, record in frame.iterrows():
        cells = []
        for source in sources:
            value = record[source]
            if source in ("run", "model", "settings", "nodes"):
                cells.append({"html": value, "sort": value, "cls": "text" + (" small" if source == "nodes" else "")})
                continue
            metric = source.split("/", 1)[1]
            stderr = record.get(f"{source}_stderr", math.nan)
            if value is None or (isinstance(value, float) and math.isnan(value)):
                cells.append({"html": "–", "sort": "", "cls": ""})
                continue
            main = format_value(value, math.nan, metric)
            shown = html.Markup("{}").format(main)
            if stderr is not None and not (isinstance(stderr, float) and math.isnan(stderr)):
                digits = 1 if metric in ("tpn", "n_tokens") else 3
                shown += html.Markup(' <span class="se">± {}</span>').format(f"{stderr:.{digits}f}")
            cells.append({"html": shown, "sort": f"{value:.10g}",
                          "cls": "best" if source in best and value == best[source] else ""})
        rows.append(cells)
    mean_note = (f"mean: macro average over the benchmarks every run has ({', '.join(shared)})."
                 if "mean" in display_keys(frame) else "")
    return {"columns": columns, "groups": groups, "rows": rows, "sorted_by": sorted_by,
            "ascending": ascending, "mean_note": mean_note, "text_columns": text_columns}


def _repeat_cells(repeats: pd.DataFrame) -> tuple[list[str], list[dict[str, Any]]]:
    metrics = [m for m in ("acc", "ncr", "tpn", "n_tokens") if m in set(repeats["metric"])]
    rows = []
    for (model, key), group in repeats.groupby(["model_runs", "key"], sort=False):
        entries = group.set_index("metric")
        cells = []
        for metric in metrics:
            if metric not in entries.index or entries.loc[metric, "repeats"] == 0:
                cells.append("–")
                continue
            entry = entries.loc[metric]
            digits = 1 if metric in ("tpn", "n_tokens") else 3
            spread = "" if math.isnan(entry["sd"]) else f" (sd {entry['sd']:.{digits}f})"
            cells.append(f"{entry['mean']:.{digits}f}{spread}")
        rows.append({"model": model, "key": key, "repeats": int(group["repeats"].max()),
                     "cells": cells})
    return [metric_label(m) for m in metrics], rows


def _repeats_context(repeats: pd.DataFrame) -> dict[str, Any] | None:
    if repeats.empty:
        return None
    metrics, rows = _repeat_cells(repeats)
    return {"metrics": metrics, "rows": rows}


def _repeats_markdown(repeats: pd.DataFrame) -> str:
    metrics, rows = _repeat_cells(repeats)
    table = pd.DataFrame([{"Model": markdown_text(r["model"]), "Benchmark": r["key"], "Runs": r["repeats"],
                           **dict(zip(metrics, r["cells"]))} for r in rows])
    return ("## Repeated runs\n\n" + table.to_markdown(index=False, disable_numparse=True)
            + "\n\nMean over the repeated runs of one model and the standard deviation between "
              "them.\n")


def _levels_context(levels: pd.DataFrame, has_math: bool, has_math_samples: bool
                    ) -> dict[str, Any]:
    if levels.empty:
        if not has_math:
            missing = "No run evaluated MATH-500 (consensusbench_math500), so there is no " \
                      "difficulty breakdown."
        elif not has_math_samples:
            missing = "The MATH-500 runs have no samples file (run lm_eval with --log_samples): " \
                      "levels are read per problem from it."
        else:
            missing = "The MATH-500 samples carry no difficulty level."
        return {"rows": [], "missing": missing}
    level_values = sorted(int(level) for level in levels["level"].unique())
    rows = []
    for (run, key), group in levels.groupby(["run", "key"], sort=False):
        by = group.set_index("level")
        cells = []
        for level in level_values:
            if level not in by.index:
                cells.append({"text": "–", "title": "not evaluated"})
                continue
            entry = by.loc[level]
            cells.append({"text": f"{html.number(entry['acc'])} / {html.number(entry['ncr'])}",
                          "title": f"n = {int(entry['n'])} generations; Acc "
                                   f"{format_value(entry['acc'], entry['acc_stderr'])}; NCR "
                                   f"{format_value(entry['ncr'], entry['ncr_stderr'])}"})
        rows.append({"run": run if key == "math500" else f"{run} ({key})", "cells": cells})
    return {"rows": rows, "levels": level_values, "missing": ""}


def _mismatch_context(table: pd.DataFrame, by_benchmark: pd.DataFrame, examples: pd.DataFrame
                      ) -> dict[str, Any]:
    cells = [{"name": name, "cls": CSS_CLASS[name], "help": diagnostics.CATEGORY_HELP[name]}
             for name in diagnostics.CATEGORIES]
    anchors: dict[tuple[str, str], list[dict]] = {}
    for _, row in examples.iterrows():
        anchors.setdefault((row["run"], row["category"]), []).append({"anchor": _anchor(row)})
    rows = []
    for _, row in table.iterrows():
        rows.append({
            "run": row["run"],
            "cells": [{"share": html.number(row[f"share: {name}"]), "count": int(row[name]),
                       "examples": anchors.get((row["run"], name), [])}
                      for name in diagnostics.CATEGORIES],
            "no_nodes": int(row["no nodes"]), "generations": int(row["generations"]),
        })
    per_benchmark = [{"run": row["run"], "key": row["key"],
                      "cells": [f"{html.number(row[f'share: {name}'])} ({int(row[name])})"
                                for name in diagnostics.CATEGORIES],
                      "no_nodes": int(row["no nodes"])} for _, row in by_benchmark.iterrows()]
    return {"cells": cells, "rows": rows, "by_benchmark": per_benchmark, "missing": ""}


def _nodes_context(missed: pd.DataFrame) -> list[dict[str, Any]]:
    tables = []
    run_columns = [c for c in missed.columns if c.startswith("reached: ")]
    for key, group in missed.groupby("benchmark", sort=False):
        runs_here = [c for c in run_columns if group[c].notna().any()]
        tables.append({
            "key": key, "runs": [c[len("reached: "):] for c in runs_here],
            "rows": [{"problem_id": r["problem_id"], "node_text": r["node_text"],
                      "kind": r["kind"], "support": html.number(r["support"], 2),
                      "position": html.number(r["position"], 2), "n_runs": int(r["runs"]),
                      "attempts": int(r["attempts"]),
                      "miss_rate": html.number(r["miss_rate"], 2),
                      "runs": [html.number(r[c], 2) for c in runs_here]}
                     for _, r in group.iterrows()],
        })
    return tables


def _comparison_context(table: pd.DataFrame, baseline: str) -> dict[str, Any]:
    metrics = compared_metrics(table)
    rows = []
    for (run, key), group in table.groupby(["run", "key"], sort=False):
        entries = group.set_index("metric")
        cells = []
        for metric in metrics:
            if metric not in entries.index:
                cells.append({"text": "–", "cls": "", "title": ""})
                continue
            entry = entries.loc[metric]
            digits = 1 if metric in ("tpn", "n_tokens") else 3
            se = "" if math.isnan(entry["delta_se"]) else \
                html.Markup(' <span class="se">± {}</span>').format(f"{entry['delta_se']:.{digits}f}")
            cells.append({
                "text": html.Markup("{}").format(signed(entry["delta"], metric)) + se,
                "cls": entry["verdict"] if entry["verdict"] in ("better", "worse", "changed") else "",
                "title": f"{metric_label(metric)}: {html.number(entry['baseline'])} → "
                         f"{html.number(entry['value'])} ({entry['verdict']}"
                         + ("" if math.isnan(entry["z"]) else f", z = {entry['z']:.2f}") + ")",
            })
        rows.append({"run": run, "key": key, "cells": cells})
    return {"baseline": baseline, "metrics": [metric_label(m) for m in metrics], "rows": rows}


def _examples_context(examples: pd.DataFrame, nodes: pd.DataFrame) -> list[dict[str, Any]]:
    from consensus_metrics import split_think

    node_texts = {}
    if not nodes.empty:
        firsts = nodes.drop_duplicates(["run", "key", "doc_id", "node_id"])
        for row in firsts.itertuples():
            node_texts.setdefault((row.run, row.key, row.doc_id), []).append(
                (row.node_id, row.node_text))
    counts = {}
    out = []
    for _, row in examples.iterrows():
        text_for_think = row["text_head"] + row["text_tail"]
        think = ""
        if row["has_think"]:
            _, unclosed = split_think(text_for_think)
            if unclosed or row["think_unclosed"]:
                think = "<think> opened and never closed: no final answer (Acc 0)"
            else:
                think = "closed </think>: Acc read after it; NCR/TPN over the whole trace"
        key = (row["run"], row["key"], row["doc_id"])
        counts[key] = counts.get(key, 0) + 1
        covered = set(row["covered"])
        out.append({
            "anchor": _anchor(row), "category": row["category"], "cls": CSS_CLASS[row["category"]],
            "run": row["run"], "key": row["key"], "problem_id": row["problem_id"],
            "gen": int(row["gen"]), "n_gen": int(row["n_gen"]),
            "problem": row["problem"], "gold": row["gold"], "pred": row["pred"],
            "acc": html.number(row["acc"], 0), "ncr": html.number(row["ncr"], 2),
            "tpn": html.number(row["tpn"], 1), "n_tokens": html.number(row["n_tokens"], 0),
            "level": "" if math.isnan(row["level"]) else int(row["level"]),
            "think": think,
            "nodes": [{"id": node_id, "text": text, "covered": node_id in covered}
                      for node_id, text in node_texts.get(key, [])],
            "text": html.highlight_spans(row["text_head"], row["text_tail"], int(row["text_len"]),
                                         row["positions"]),
        })
    return out


def _figure(fig, name: str, caption: str, figures_dir: Path, written: dict[str, Path]
            ) -> list[dict[str, str]]:
    if fig is None:
        return []
    png = plots.png_bytes(fig)
    written[f"figure:{name}"] = _write(figures_dir / f"{name}.png", png)
    return [{"src": html.data_uri(png), "alt": caption, "caption": caption}]


# ----------------------------------------------------------------------------- main entry

def build_report(specs: list[str], out_dir: str | os.PathLike,
                 options: ReportOptions | None = None) -> dict[str, Path]:
    """Build the whole report for the runs ``specs`` (``PATH`` or ``LABEL=PATH``) into
    ``out_dir`` (built aside and swapped in, see the module docstring); returns ``{name: path}``
    of the files written. Raises :class:`reports.loading.ReportInputError` (naming the path) on
    unusable input or output, leaving ``out_dir`` as it was."""
    options = options or ReportOptions()
    if not 0.0 <= options.threshold <= 1.0:
        raise ValueError(f"--coverage-threshold must lie in [0, 1], got {options.threshold}")
    out = Path(out_dir)
    check_out_dir(out, specs)
    runs = load_runs(specs)
    try:
        with _staged(out) as staging:
            written = _build_into(staging, runs, specs, options)
    except OSError as err:  # a full disk: the staging folder is gone, the old report kept
        raise ReportInputError(f"--out {out}: cannot write: {err.strerror or err}") from None
    return {name: out / path.relative_to(staging) for name, path in written.items()}


@dataclass
class _Board:
    """The leaderboard step's results, which the page reuses."""

    long: pd.DataFrame
    board: pd.DataFrame
    sorted_by: str
    ascending: bool
    shared: list[str]
    node_lines: dict[str, str]
    repeats: pd.DataFrame
    comparison: pd.DataFrame | None


@dataclass
class _SampleViews:
    """The per-sample diagnostics (only when some run has a samples file)."""

    nodes: pd.DataFrame
    mismatch: pd.DataFrame
    mismatch_by_key: pd.DataFrame
    levels: pd.DataFrame
    missed: pd.DataFrame
    coverage: pd.DataFrame
    examples: pd.DataFrame
    leave: dict | None = None  # "where models leave the path" (reports/leave_path.py)


def _build_into(out: Path, runs: list[Run], specs: list[str], options: ReportOptions) -> dict[str, Path]:
    """Write every file of the report into the (empty) folder ``out``, step by step: the
    leaderboard tables, the per-sample tables, the figures, the page."""
    labels = [run.label for run in runs]
    baseline = resolve_baseline(labels, options.baseline) if options.baseline else None
    figures_dir = out / "figures"
    figures_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    board = _write_leaderboard(out, runs, baseline, options, written)
    views = _write_sample_tables(out, runs, options, written)
    figures: dict[str, list] = {"main": _main_figures(board.long, labels, figures_dir, written),
                                "levels": [], "mismatch": [], "nodes": [], "comparison": [], "leave": []}
    context = _page_context(runs, specs, options, board, figures)
    context.update(_sample_sections(views, runs, labels, options.threshold, figures, figures_dir, written))
    if board.comparison is not None:
        figures["comparison"] += _figure(plots.delta_bars(board.comparison, baseline, labels),
                                         "comparison", f"Δ Acc and Δ NCR vs {baseline} "
                                         "(green: better, red: worse), ±1 combined s.e.",
                                         figures_dir, written)
        context["comparison"] = _comparison_context(board.comparison, baseline)
    notes = _global_notes(runs, board.shared) + _own_vote_notes(runs, board.node_lines)
    if views is not None:
        notes.extend(_node_version_notes(views.nodes))
    context["notes"] = notes
    context["run_notes"] = [f"{run.label}: {note}" for run in runs for note in run.notes]
    written["index.html"] = _write(out / "index.html", html.render(context))
    for note in notes + context["run_notes"]:
        print(f"reports: note: {note}", file=sys.stderr)
    return written


def _write_leaderboard(out: Path, runs: list[Run], baseline: str | None, options: ReportOptions,
                       written: dict[str, Path]) -> _Board:
    """leaderboard.csv/.md (+ repeats.csv, comparison.csv): from the results JSON, with the
    node-file column from the samples files' docs."""
    long = metrics_long(runs)
    frame = leaderboard_frame(runs)
    node_lines = {run.label: run_nodes_summary(run) for run in runs}
    if any(node_lines.values()):
        frame.insert(frame.columns.get_loc("settings") + 1, "nodes", frame["run"].map(node_lines).fillna(""))
    sorted_by, ascending = resolve_sort(frame, options.sort_by, options.ascending)
    board = sort_leaderboard(frame, sorted_by, ascending)
    shared = common_keys(runs)
    comparison = compare_to_baseline(long, baseline) if baseline else None
    repeats = repeat_summary(runs)
    markdown = to_markdown(board, shared)
    if not repeats.empty:
        markdown += "\n" + _repeats_markdown(repeats)
        written["repeats.csv"] = _write(out / "repeats.csv", _csv(repeats))
    if comparison is not None:
        markdown += "\n" + comparison_markdown(comparison, baseline)
    written["leaderboard.csv"] = _write(out / "leaderboard.csv", _csv(board))
    written["leaderboard.md"] = _write(out / "leaderboard.md", markdown)
    if comparison is not None:
        written["comparison.csv"] = _write(out / "comparison.csv", _csv(comparison))
    return _Board(long, board, sorted_by, ascending, shared, node_lines, repeats, comparison)


def _write_sample_tables(out: Path, runs: list[Run], options: ReportOptions, written: dict[str, Path]
                         ) -> _SampleViews | None:
    """generations.csv, mismatch.csv, by_level.csv, missed_nodes.csv, coverage_by_position.csv
    from the samples files; ``None`` when no run has one."""
    generations, nodes = sample_frames(runs)
    if generations.empty:
        return None
    threshold = options.threshold
    labelled = diagnostics.with_categories(generations, threshold)
    views = _SampleViews(
        nodes=nodes,
        mismatch=diagnostics.mismatch_table(generations, threshold),
        mismatch_by_key=diagnostics.mismatch_table(generations, threshold, by=("run", "key")),
        levels=diagnostics.by_level(generations),
        missed=diagnostics.missed_nodes(nodes, options.top_nodes),
        coverage=diagnostics.coverage_by_position(nodes),
        examples=attach_texts(diagnostics.pick_examples(generations, threshold, options.examples)))
    views.leave = {"table": leave_path.leave_table(generations), "positions": leave_path.position_counts(generations),
                   "nodes": leave_path.contradicted_nodes(generations, nodes, options.top_nodes),
                   "examples": attach_texts(leave_path.pick_examples(generations, options.examples))}
    written["leave_path.csv"] = _write(out / "leave_path.csv", _csv(views.leave["table"]))
    for field in ("step", "kind", "position"):  # the first wrong step, flat
        labelled[f"first_error_{field}"] = labelled["first_error"].map(
            lambda fe, field=field: fe.get(field) if isinstance(fe, dict) else None)
    export = labelled.drop(columns=["positions", "problem", "samples_path", "lineno", "first_error"])
    export["covered"] = export["covered"].map(";".join)
    written["generations.csv"] = _write(out / "generations.csv", _csv(export))
    written["mismatch.csv"] = _write(out / "mismatch.csv", _csv(
        pd.concat([views.mismatch.assign(key="all"), views.mismatch_by_key], ignore_index=True)
        .assign(threshold=threshold)))
    written["by_level.csv"] = _write(out / "by_level.csv", _csv(views.levels))
    written["missed_nodes.csv"] = _write(out / "missed_nodes.csv", _csv(views.missed))
    written["coverage_by_position.csv"] = _write(out / "coverage_by_position.csv", _csv(views.coverage))
    return views


def _main_figures(long: pd.DataFrame, labels: list[str], figures_dir: Path, written: dict[str, Path]
                  ) -> list[dict[str, str]]:
    """Acc against NCR, then a bar plot per metric (Acc, NCR, TPN, tokens)."""
    figures = _figure(plots.acc_vs_ncr(long, labels), "acc_vs_ncr",
                      "Acc against NCR per run (colour) and benchmark (marker), ±1 s.e.; "
                      "dotted: Acc = NCR.", figures_dir, written)
    bars = [("acc", "Acc (pass@1)", "Final-answer accuracy (higher is better)", "acc",
             "Acc per benchmark and run, ±1 s.e."),
            ("ncr", "NCR (node coverage rate)", "Consensus nodes reached (higher is better)", "ncr",
             "NCR per benchmark and run, ±1 s.e.; n/a: no problem with nodes."),
            ("tpn", "TPN (tokens per node)", "Tokens per node reached (lower is better)", "tpn",
             "TPN per benchmark and run, ±1 s.e.; n/a: no node reached."),
            ("n_tokens", "mean tokens", "Generated tokens", "tokens",
             "Mean generated tokens per benchmark and run, ±1 s.e.")]
    for metric, axis, title, name, caption in bars:
        figures += _figure(plots.metric_bars(long, labels, metric, axis, title), name, caption,
                           figures_dir, written)
    return figures


def _page_context(runs: list[Run], specs: list[str], options: ReportOptions, board: _Board,
                  figures: dict[str, list]) -> dict[str, Any]:
    """The page's header, runs, leaderboard and repeats (sections from samples come after)."""
    return {
        "title": options.title, "built": dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "command": options.command or "python -m reports build " + " ".join(
            shlex.quote(spec) for spec in specs),
        "runs": [_run_context(run) for run in runs], "keys": all_keys(runs),
        "board": _board_context(board.board, board.sorted_by, board.ascending, board.shared),
        "threshold": f"{options.threshold:g}", "examples_per_cell": options.examples,
        "comparison": None, "figures": figures, "repeats": _repeats_context(board.repeats),
        "intro": list(options.intro),
    }


def _sample_sections(views: _SampleViews | None, runs: list[Run], labels: list[str], threshold: float,
                     figures: dict[str, list], figures_dir: Path, written: dict[str, Path]) -> dict[str, Any]:
    """The page's per-sample sections and their figures (levels, mismatch, nodes, examples), or
    what says why they are missing."""
    has_math = any(t.benchmark == "math500" for r in runs for t in r.tasks.values())
    if views is None:
        missing = "No run has a samples file (run lm_eval with --log_samples): the per-sample " \
                  "views (mismatch table, node diagnostics, difficulty levels, examples) " \
                  "cannot be shown."
        return {"levels": _levels_context(pd.DataFrame(), has_math, False),
                "mismatch": {"rows": [], "missing": missing}, "nodes": {"tables": [], "missing": missing},
                "examples": [], "examples_missing": missing, "leave": {"rows": [], "missing": missing}}
    has_math_samples = any(t.benchmark == "math500" and t.samples_path
                           for r in runs for t in r.tasks.values())
    figures["levels"] += _figure(plots.difficulty_lines(views.levels, labels), "math500_levels",
                                 "MATH-500 Acc and NCR by difficulty level (per generation, "
                                 "±1 s.e.).", figures_dir, written)
    figures["mismatch"] += _figure(plots.mismatch_bars(views.mismatch), "mismatch",
                                   f"Share of generations per cell (τ = {threshold:g}).",
                                   figures_dir, written)
    figures["nodes"] += _figure(plots.position_lines(views.coverage, labels), "node_position",
                                "Share of nodes reached by their relative position in the "
                                "reference solutions.", figures_dir, written)
    leave = views.leave
    figures["leave"] += _figure(leave_path.position_figure(leave["positions"], labels), "leave_path",
                                "Where the first wrong step of a wrong answer sits in its solution "
                                "(share of the located steps per run).", figures_dir, written)
    return {"leave": leave_path.section_context(leave["table"], leave["positions"], leave["nodes"],
                                                leave["examples"]),
            "levels": _levels_context(views.levels, has_math, has_math_samples),
            "mismatch": _mismatch_context(views.mismatch, views.mismatch_by_key, views.examples),
            "nodes": {"tables": _nodes_context(views.missed), "missing": "No problem in the samples has nodes."},
            "examples": _examples_context(views.examples, views.nodes),
            "examples_missing": "No generation of a problem with nodes."}


def _global_notes(runs: list[Run], shared: list[str]) -> list[str]:
    notes = []
    keys = all_keys(runs)
    partial = [key for key in keys if key not in shared]
    if partial:
        missing_by = {key: [r.label for r in runs if key not in r.tasks] for key in partial}
        notes.append("Runs cover different benchmarks: " + "; ".join(
            f"{key} missing in {', '.join(labels)}" for key, labels in missing_by.items())
            + (f". The mean columns average only the shared ones ({', '.join(shared)})."
               if len(shared) >= 2 else ". No mean column (fewer than two shared benchmarks)."))
    undefined_tpn, undefined_ncr, unclosed = [], [], []
    for run in runs:
        absent = [t.task for t in run.tasks.values() if t.samples_path is None]
        if absent:
            notes.append(f"{run.label}: no samples file for {', '.join(absent)} — its mismatch "
                         f"cells, node diagnostics, difficulty levels and examples are missing.")
        for key, task in run.tasks.items():
            if math.isnan(task.metrics.get("tpn", math.nan)):
                undefined_tpn.append(f"{run.label} on {key}")
            if math.isnan(task.metrics.get("ncr", math.nan)):
                undefined_ncr.append(f"{run.label} on {key}")
            count = task.metrics.get("think_unclosed", 0)
            if count and not math.isnan(count):
                unclosed.append(f"{run.label} on {key}: {int(count)}")
            missing, generations = task.metrics.get("trace_missing", 0), task.metrics.get("trajectories", 0)
            if generations and missing == generations:
                notes.append(f"{run.label} on {key}: no generation holds a reasoning trace although the model's "
                             f"chat template is a thinking one -- the responses look stripped (a server's "
                             f"--reasoning-parser moves the trace to reasoning_content, which lm-eval's "
                             f"local-chat-completions drops; use --model consensusbench-chat-completions). "
                             f"NCR and TPN then read the final answer alone.")
    if undefined_tpn:
        notes.append("TPN undefined (no generation reached a node): " + "; ".join(undefined_tpn)
                     + ".")
    if undefined_ncr:
        notes.append("NCR undefined (no problem with nodes): " + "; ".join(undefined_ncr) + ".")
    if unclosed:
        notes.append("Generations that opened <think> and never closed it (scored Acc 0; raise "
                     "max_gen_toks): " + "; ".join(unclosed) + ".")
    return notes


def _own_vote_notes(runs: list[Run], node_lines: dict[str, str]) -> list[str]:
    """A note per run whose model voted in the nodes it was scored against."""
    return [f"{run.label}: NCR is optimistic -- {node_lines[run.label]}. Score it against nodes built "
            f"without this model (leave-one-model-out) for a fair comparison."
            for run in runs if "NCR optimistic" in node_lines.get(run.label, "")]


def _node_version_notes(nodes: pd.DataFrame) -> list[str]:
    """A note when one problem carries different node lists in different runs (runs scored
    against different node files -- leave-one-model-out files, or data files that changed between
    the runs): NCR/TPN are then not comparable on those problems."""
    if nodes.empty:
        return []
    lists = nodes.drop_duplicates(["run", "benchmark", "problem_id", "node_id"]) \
        .groupby(["benchmark", "problem_id", "run"], sort=False) \
        .apply(lambda g: tuple(sorted(zip(g["node_id"], g["node_text"]))), include_groups=False)
    variants = lists.groupby(level=["benchmark", "problem_id"], sort=False).nunique()
    changed = variants[variants > 1]
    if changed.empty:
        return []
    examples = ", ".join(problem for _, problem in changed.index[:3])
    return [f"{len(changed)} problem(s) carry different node lists in different runs (the runs were "
            f"scored against different node files: leave-one-model-out files, or data that changed "
            f"between the runs), e.g. {examples}: NCR and TPN compare across runs only as far as "
            f"those node files agree."]


def _run_context(run: Run) -> dict[str, Any]:
    config = run.config
    args = config.get("model_args")
    if isinstance(args, dict):
        args = ",".join(f"{k}={v}" for k, v in args.items())
    return {
        "label": run.label, "model": run.model, "settings": run.settings,
        "backend": f"{config.get('model', '?')}: {args or ''}",
        "tasks": [{"name": t.task, "samples": t.samples_path is not None}
                  for t in run.tasks.values()],
        "paths": [str(p) for p in run.results_paths],
    }
