"""Process–outcome diagnostics over the per-generation and per-node frames (:mod:`.samples`).

* :func:`mismatch_table` — the four outcome/process cells of the paper's mismatch figure, per
  run. With Acc ∈ {0, 1} and NCR compared with a threshold τ (default 0.5, "high" means
  ``ncr >= τ``):

  ===================  ============  =================================
  cell                 Acc           NCR
  ===================  ============  =================================
  right & covered      1             ≥ τ
  right, missing       1             < τ   ("right answer, missing process")
  near miss            0             ≥ τ   ("wrong answer, good process")
  wrong & uncovered    0             < τ
  ===================  ============  =================================

  Generations of problems without nodes (NCR undefined) are counted apart (``no nodes``) and left
  out of the shares.
* :func:`by_level` — Acc and NCR per MATH-500 difficulty level (1–5), mean ± standard error.
* :func:`missed_nodes` — per benchmark, the nodes missed most (each run counts once).
* :func:`coverage_by_position` — the share of nodes reached, by the node's relative position
  in the reference solutions (docs/SPEC.md §2 ``position``, binned), per run and benchmark.

Example::

    >>> import pandas as pd
    >>> gens = pd.DataFrame({"run": ["a", "a", "a"], "acc": [1, 0, 1], "ncr": [0.2, 0.8, None]})
    >>> mismatch_table(gens, 0.5)[["run", "right, missing process", "near miss", "no nodes"]]
      run  right, missing process  near miss  no nodes
    0   a                       1          1         1
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .loading import benchmark_sort_key

CATEGORIES = ("right & covered", "right, missing process", "near miss", "wrong & uncovered")
CATEGORY_HELP = {
    "right & covered": "right answer and the consensus process (NCR ≥ τ)",
    "right, missing process": "right answer but few nodes reached (NCR < τ): lucky guess, "
                              "shortcut or unusual path",
    "near miss": "wrong answer although most nodes were reached (NCR ≥ τ): a late slip",
    "wrong & uncovered": "wrong answer and few nodes reached (NCR < τ)",
}
DEFAULT_THRESHOLD = 0.5
POSITION_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def categorize(acc: float, ncr: float, threshold: float = DEFAULT_THRESHOLD) -> str:
    """The mismatch cell of one generation (``no nodes`` when NCR is undefined).

    >>> categorize(1, 0.25), categorize(0, 0.5), categorize(1, float("nan"))
    ('right, missing process', 'near miss', 'no nodes')
    """
    if ncr is None or (isinstance(ncr, float) and math.isnan(ncr)):
        return "no nodes"
    right = bool(acc) and acc >= 0.5
    covered = ncr >= threshold
    if right:
        return "right & covered" if covered else "right, missing process"
    return "near miss" if covered else "wrong & uncovered"


def with_categories(generations: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """``generations`` with a ``category`` column."""
    out = generations.copy()
    out["category"] = [categorize(a, n, threshold) for a, n in zip(out["acc"], out["ncr"])]
    return out


def mismatch_table(generations: pd.DataFrame, threshold: float = DEFAULT_THRESHOLD,
                   by: tuple[str, ...] = ("run",)) -> pd.DataFrame:
    """Counts per cell and their shares (``share: <cell>``, over generations with nodes), one row
    per ``by`` group, plus ``generations`` and ``no nodes``."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"coverage threshold must lie in [0, 1], got {threshold}")
    if generations.empty:
        return pd.DataFrame(columns=[*by, *CATEGORIES, "no nodes", "generations",
                                     *(f"share: {c}" for c in CATEGORIES)])
    labelled = with_categories(generations, threshold)
    counts = labelled.groupby([*by, "category"], sort=False).size().unstack(fill_value=0)
    for column in (*CATEGORIES, "no nodes"):
        if column not in counts:
            counts[column] = 0
    counts = counts[[*CATEGORIES, "no nodes"]].astype(int)
    with_nodes = counts[list(CATEGORIES)].sum(axis=1)
    counts["generations"] = with_nodes + counts["no nodes"]
    for column in CATEGORIES:
        counts[f"share: {column}"] = (counts[column] / with_nodes.replace(0, np.nan)).astype(float)
    counts.columns.name = None
    return counts.reset_index()


def _mean_se(values: pd.Series) -> pd.Series:
    values = values.dropna()
    n = len(values)
    mean = values.mean() if n else math.nan
    se = values.std(ddof=1) / math.sqrt(n) if n > 1 else (0.0 if n == 1 else math.nan)
    return pd.Series({"mean": mean, "stderr": se, "n": n})


def by_level(generations: pd.DataFrame, benchmark: str = "math500") -> pd.DataFrame:
    """Acc and NCR per difficulty level for one benchmark (MATH-500 records carry ``level``):
    columns ``run, key, level, n, acc, acc_stderr, ncr, ncr_stderr`` (per generation)."""
    subset = generations[(generations["benchmark"] == benchmark) & generations["level"].notna()]
    columns = ["run", "key", "level", "n", "acc", "acc_stderr", "ncr", "ncr_stderr"]
    if subset.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for (run, key, level), group in subset.groupby(["run", "key", "level"], sort=False):
        acc = _mean_se(group["acc"])
        ncr = _mean_se(group["ncr"])
        rows.append({"run": run, "key": key, "level": int(level), "n": int(acc["n"]),
                     "acc": acc["mean"], "acc_stderr": acc["stderr"],
                     "ncr": ncr["mean"], "ncr_stderr": ncr["stderr"]})
    return pd.DataFrame(rows, columns=columns).sort_values(["run", "key", "level"],
                                                           kind="stable").reset_index(drop=True)


def missed_nodes(nodes: pd.DataFrame, top: int = 10) -> pd.DataFrame:
    """Per benchmark, the ``top`` nodes missed most. Each run that saw the problem counts once:
    ``miss_rate`` = mean over those runs of (1 − the share of the run's generations that reached
    the node), so a 16-sample run weighs no more than a greedy one. Ties favour nodes seen by
    more runs, then earlier positions. ``attempts`` = generations over all runs; one
    ``reached: <run>`` column per run (its share of generations reaching the node)."""
    columns = ["benchmark", "problem_id", "node_id", "node_text", "kind", "support", "position",
               "runs", "attempts", "miss_rate"]
    if nodes.empty:
        return pd.DataFrame(columns=columns)
    keys = ["benchmark", "problem_id", "node_id"]
    grouped = nodes.groupby(keys, sort=False).agg(
        node_text=("node_text", "first"), kind=("kind", "first"), support=("support", "first"),
        position=("position", "first"), attempts=("covered", "size"))
    per_run = nodes.groupby([*keys, "run"], sort=False)["covered"].mean().unstack("run")
    grouped["runs"] = per_run.notna().sum(axis=1)
    grouped["miss_rate"] = 1.0 - per_run.mean(axis=1)
    per_run.columns = [f"reached: {run}" for run in per_run.columns]
    table = grouped.join(per_run).reset_index()
    table["order"] = [benchmark_sort_key(b) for b in table["benchmark"]]
    table = table.sort_values(["order", "miss_rate", "runs", "attempts", "position"],
                              ascending=[True, False, False, False, True], kind="stable")
    table = table.groupby("benchmark", sort=False).head(top)
    return table[[*columns, *per_run.columns]].reset_index(drop=True)


def position_bin_labels(bins: tuple[float, ...] = POSITION_BINS) -> list[str]:
    """``['0–0.2', '0.2–0.4', ...]``."""
    return [f"{lo:g}–{hi:g}" for lo, hi in zip(bins[:-1], bins[1:])]


def coverage_by_position(nodes: pd.DataFrame, bins: tuple[float, ...] = POSITION_BINS
                         ) -> pd.DataFrame:
    """Share of nodes reached per (run, key, position bin): columns ``run, key, bin, center,
    reached, nodes, coverage``. A node without ``position`` uses its rank ``(i + 0.5) / k``."""
    columns = ["run", "key", "bin", "center", "reached", "nodes", "coverage"]
    if nodes.empty:
        return pd.DataFrame(columns=columns)
    frame = nodes.copy()
    fallback = (frame["node_index"] + 0.5) / frame["n_nodes"].clip(lower=1)
    frame["pos"] = frame["position"].where(frame["position"].notna(), fallback).clip(0.0, 1.0)
    labels = position_bin_labels(bins)
    frame["bin"] = pd.cut(frame["pos"], bins=list(bins), labels=labels, include_lowest=True)
    grouped = frame.groupby(["run", "key", "bin"], sort=False, observed=True)["covered"] \
        .agg(reached="sum", nodes="size").reset_index()
    centers = {label: (lo + hi) / 2 for label, lo, hi in zip(labels, bins[:-1], bins[1:])}
    grouped["center"] = grouped["bin"].map(centers).astype(float)
    grouped["bin"] = grouped["bin"].astype(str)
    grouped["coverage"] = grouped["reached"] / grouped["nodes"]
    return grouped[columns].sort_values(["run", "key", "center"], kind="stable") \
        .reset_index(drop=True)


def pick_examples(generations: pd.DataFrame, threshold: float, per_cell: int = 3
                  ) -> pd.DataFrame:
    """Up to ``per_cell`` example generations per (run, cell): the clearest cases first (for
    "near miss" the highest NCR, for "right, missing process" and "wrong & uncovered" the
    lowest), taken in turn from each benchmark so that one benchmark does not fill the cell."""
    if generations.empty or per_cell <= 0:
        return generations.assign(category=pd.Series(dtype=str)).iloc[0:0]
    labelled = with_categories(generations, threshold)
    labelled = labelled[labelled["category"] != "no nodes"]
    picked = []
    for (_, category), group in labelled.groupby(["run", "category"], sort=False):
        ascending = category in ("right, missing process", "wrong & uncovered")
        ordered = group.sort_values(["ncr", "key", "doc_id", "gen"],
                                    ascending=[ascending, True, True, True], kind="stable")
        ordered = ordered.assign(turn=ordered.groupby("key", sort=False).cumcount())
        picked.append(ordered.sort_values("turn", kind="stable").head(per_cell)
                      .drop(columns="turn"))
    if not picked:
        return labelled.iloc[0:0]
    return pd.concat(picked).reset_index(drop=True)
