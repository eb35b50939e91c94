"""Matplotlib figures of the report, rendered to PNG bytes (no pyplot, no display needed).

Each function takes a frame from :mod:`.leaderboard` / :mod:`.diagnostics` and returns a
``matplotlib.figure.Figure`` (``None`` when there is nothing to draw); :func:`png_bytes` renders
one with the Agg canvas. Colours follow the run order (``tab10``), markers the benchmark.

Example::

    >>> fig = acc_vs_ncr(metrics_long(runs))          # doctest: +SKIP
    >>> png_bytes(fig)[:8]                            # doctest: +SKIP
    b'\\x89PNG\\r\\n\\x1a\\n'
"""

from __future__ import annotations

import io
import math

import matplotlib
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .diagnostics import CATEGORIES, position_bin_labels
from .loading import benchmark_sort_key

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
CATEGORY_COLOURS = {"right & covered": "#2b8a3e", "right, missing process": "#f59f00",
                    "near miss": "#4dabf7", "wrong & uncovered": "#c92a2a"}
DPI = 110


def run_colours(runs: list[str]) -> dict[str, tuple]:
    """A distinct colour per run, in order."""
    cmap = matplotlib.colormaps["tab10" if len(runs) <= 10 else "tab20"]
    return {run: cmap(index % cmap.N) for index, run in enumerate(runs)}


def png_bytes(fig: Figure) -> bytes:
    """Render ``fig`` to PNG with the Agg canvas."""
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return buffer.getvalue()


def _values(long: pd.DataFrame, metric: str) -> pd.DataFrame:
    return long[long["metric"] == metric].set_index(["run", "key"])[["value", "stderr"]]


def _legend_outside(ax, **kwargs) -> None:
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, **kwargs)


def acc_vs_ncr(long: pd.DataFrame, runs: list[str]) -> Figure | None:
    """Scatter: NCR (x) against Acc (y), one point per (run, benchmark), ±1 stderr bars."""
    acc, ncr = _values(long, "acc"), _values(long, "ncr")
    points = pd.merge(acc, ncr, left_index=True, right_index=True, how="inner",
                      suffixes=("_acc", "_ncr")).dropna(
        subset=["value_acc", "value_ncr"])
    if points.empty:
        return None
    colours = run_colours(runs)
    keys = sorted({key for _, key in points.index}, key=benchmark_sort_key)
    markers = {key: MARKERS[i % len(MARKERS)] for i, key in enumerate(keys)}
    fig = Figure(figsize=(7.5, 4.6))
    ax = fig.add_subplot()
    for (run, key), row in points.iterrows():
        ax.errorbar(row["value_ncr"], row["value_acc"],
                    xerr=0 if math.isnan(row["stderr_ncr"]) else row["stderr_ncr"],
                    yerr=0 if math.isnan(row["stderr_acc"]) else row["stderr_acc"],
                    fmt=markers[key], color=colours[run], markersize=8, capsize=3, alpha=0.85)
    ax.plot([0, 1], [0, 1], color="#adb5bd", linestyle=":", linewidth=1)
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("NCR (node coverage rate)")
    ax.set_ylabel("Acc (pass@1)")
    ax.set_title("Outcome vs process, per run and benchmark")
    ax.grid(alpha=0.3)
    handles = [Line2D([], [], color=colours[r], marker="o", linestyle="",
                                       label=r) for r in runs if r in {i[0] for i in points.index}]
    handles += [Line2D([], [], color="#495057", marker=markers[k], linestyle="",
                                        label=k) for k in keys]
    _legend_outside(ax, handles=handles)
    return fig


def _grouped_bars(ax, table: pd.DataFrame, runs: list[str], keys: list[str]) -> None:
    colours = run_colours(runs)
    width = 0.8 / max(len(runs), 1)
    for index, run in enumerate(runs):
        for position, key in enumerate(keys):
            if (run, key) not in table.index:
                continue
            value, stderr = table.loc[(run, key), ["value", "stderr"]]
            x = position - 0.4 + width * (index + 0.5)
            if math.isnan(value):
                ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=7, rotation=90,
                        color="#868e96")
                continue
            ax.bar(x, value, width=width * 0.92, color=colours[run],
                   yerr=None if math.isnan(stderr) else stderr, capsize=2,
                   label=run if position == 0 else None)
    ax.set_xticks(range(len(keys)), keys)
    ax.grid(axis="y", alpha=0.3)


def metric_bars(long: pd.DataFrame, runs: list[str], metric: str, ylabel: str,
                title: str) -> Figure | None:
    """Grouped bars of one metric per benchmark (x) and run (colour), ±1 stderr; ``n/a`` where
    the run has the benchmark but the metric is undefined (e.g. TPN when no node was reached)."""
    table = _values(long, metric)
    if table.empty or table["value"].isna().all():
        return None
    keys = sorted({key for _, key in table.index}, key=benchmark_sort_key)
    fig = Figure(figsize=(7.5, 3.8))
    ax = fig.add_subplot()
    _grouped_bars(ax, table, runs, keys)
    # One legend entry per run, even when its first benchmark is n/a.
    colours = run_colours(runs)
    handles = [Patch(color=colours[r], label=r) for r in runs
               if r in {i[0] for i in table.index}]
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    _legend_outside(ax, handles=handles)
    return fig


def difficulty_lines(levels: pd.DataFrame, runs: list[str]) -> Figure | None:
    """Two panels, Acc and NCR against MATH-500 level (1–5), one line per run (±1 stderr)."""
    if levels.empty:
        return None
    colours = run_colours(runs)
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2, sharex=True)
    for ax, metric, label in ((axes[0], "acc", "Acc"), (axes[1], "ncr", "NCR")):
        for (run, key), group in levels.groupby(["run", "key"], sort=False):
            name = run if key == "math500" else f"{run} ({key})"
            ax.errorbar(group["level"], group[metric], yerr=group[f"{metric}_stderr"].fillna(0),
                        marker="o", capsize=3, color=colours.get(run), label=name)
        ax.set_xticks([1, 2, 3, 4, 5])
        ax.set_xlabel("MATH-500 level")
        ax.set_ylabel(label)
        ax.set_ylim(-0.03, 1.03)
        ax.grid(alpha=0.3)
    axes[0].set_title("Acc by difficulty")
    axes[1].set_title("NCR by difficulty")
    _legend_outside(axes[1])
    return fig


def mismatch_bars(table: pd.DataFrame) -> Figure | None:
    """Horizontal stacked bars: the share of each outcome/process cell per run."""
    if table.empty or table[[f"share: {c}" for c in CATEGORIES]].isna().all().all():
        return None
    fig = Figure(figsize=(8, 0.55 * len(table) + 1.4))
    ax = fig.add_subplot()
    left = pd.Series(0.0, index=table.index)
    labels = table["run"].tolist()
    for category in CATEGORIES:
        share = table[f"share: {category}"].fillna(0.0)
        ax.barh(labels, share, left=left, color=CATEGORY_COLOURS[category], label=category)
        left = left + share
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("share of generations (problems with nodes)")
    ax.set_title("Process–outcome cells")
    _legend_outside(ax)
    return fig


def position_lines(coverage: pd.DataFrame, runs: list[str]) -> Figure | None:
    """Node coverage by relative node position, one panel per benchmark, one line per run."""
    if coverage.empty:
        return None
    keys = sorted(coverage["key"].unique(), key=benchmark_sort_key)
    colours = run_colours(runs)
    ncols = min(len(keys), 2)
    nrows = math.ceil(len(keys) / ncols)
    fig = Figure(figsize=(4.2 * ncols + 1.8, 3.2 * nrows))
    axes = fig.subplots(nrows, ncols, sharey=True, squeeze=False).ravel()
    for spare in axes[len(keys):]:
        spare.set_visible(False)
    labels = position_bin_labels()
    centers = [0.1, 0.3, 0.5, 0.7, 0.9]
    for ax, key in zip(axes, keys):
        for run, group in coverage[coverage["key"] == key].groupby("run", sort=False):
            ax.plot(group["center"], group["coverage"], marker="o", color=colours.get(run),
                    label=run)
        ax.set_title(key)
        ax.set_xticks(centers, labels, fontsize=7)
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("node position in reference solutions")
        ax.grid(alpha=0.3)
    for ax in axes[::ncols]:
        ax.set_ylabel("share of nodes reached")
    handles = [Line2D([], [], color=colours[r], marker="o", label=r) for r in runs
               if r in set(coverage["run"])]
    _legend_outside(axes[ncols - 1], handles=handles)
    fig.tight_layout()
    return fig


def delta_bars(table: pd.DataFrame, baseline: str, runs: list[str]) -> Figure | None:
    """Deltas vs the baseline for Acc and NCR per benchmark: green bars when better, red when
    worse (``table`` from :func:`reports.compare.compare_to_baseline`)."""
    subset = table[table["metric"].isin(["acc", "ncr"])].dropna(subset=["delta"])
    if subset.empty:
        return None
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, metric in zip(axes, ("acc", "ncr")):
        part = subset[subset["metric"] == metric]
        labels = [f"{r} · {k}" for r, k in zip(part["run"], part["key"])]
        colours = ["#2b8a3e" if v == "better" else "#c92a2a" if v == "worse" else "#868e96"
                   for v in part["verdict"]]
        ax.barh(labels, part["delta"], color=colours,
                xerr=part["delta_se"].fillna(0), capsize=2)
        ax.axvline(0, color="#212529", linewidth=1)
        ax.set_title(f"Δ {'Acc' if metric == 'acc' else 'NCR'} vs {baseline}")
        ax.grid(axis="x", alpha=0.3)
        ax.invert_yaxis()
    return fig
