"""Comparison mode: every run against a baseline run (e.g. base vs GRPO vs GRPO+ConsensusPR).

For each run ≠ baseline, benchmark key and metric (Acc, pass@k, NCR, TPN, Tokens)::

    delta    = value(run) − value(baseline)
    delta_se = sqrt(se(run)² + se(baseline)²)          (independent samples)
    z        = delta / delta_se                        (NaN when delta_se = 0)
    verdict  = "better" / "worse" by the metric's direction (TPN: lower is better),
               "same" when delta = 0, "changed" for Tokens (no better direction)

Example::

    >>> import pandas as pd
    >>> long = pd.DataFrame({"run": ["base", "rl"], "key": ["gsm8k"] * 2, "metric": ["tpn"] * 2,
    ...                      "value": [40.0, 30.0], "stderr": [3.0, 4.0]})
    >>> row = compare_to_baseline(long, "base").iloc[0]
    >>> float(row["delta"]), float(row["delta_se"]), row["verdict"], signed(row["delta"], "tpn")
    (-10.0, 5.0, 'better', '−10.0 ▼')
"""

from __future__ import annotations

import math

import pandas as pd

from .leaderboard import COUNT_METRICS, direction, markdown_code, markdown_text, metric_label
from .loading import ReportInputError

COMPARED_COLUMNS = ["run", "key", "metric", "baseline", "value", "delta", "delta_se", "z",
                    "verdict"]


def resolve_baseline(labels: list[str], baseline: str) -> str:
    """The run label ``baseline`` names: an exact label, else the only label starting with it."""
    if baseline in labels:
        return baseline
    prefixed = [label for label in labels if label.startswith(baseline)]
    if len(prefixed) == 1:
        return prefixed[0]
    raise ReportInputError(
        f"--baseline {baseline!r} matches {'several runs' if prefixed else 'no run'}; "
        f"runs are: {', '.join(labels)}")


def verdict(delta: float, metric: str) -> str:
    """``better``/``worse``/``same``/``changed``/``n/a`` for a delta of ``metric``.

    >>> verdict(0.1, "acc"), verdict(0.1, "tpn"), verdict(0.0, "ncr"), verdict(3, "n_tokens")
    ('better', 'worse', 'same', 'changed')
    """
    if delta is None or math.isnan(delta):
        return "n/a"
    if delta == 0:
        return "same"
    sign = direction(metric)
    if sign == 0:
        return "changed"
    return "better" if delta * sign > 0 else "worse"


def signed(delta: float, metric: str = "acc") -> str:
    """The delta with an explicit sign and arrow: ``+0.125 ▲``, ``−3.0 ▼``, ``0`` (no change),
    ``–`` (undefined on either side).

    >>> signed(0.125), signed(-0.05), signed(0.0), signed(float("nan"))
    ('+0.125 ▲', '−0.050 ▼', '0', '–')
    """
    if delta is None or math.isnan(delta):
        return "–"
    if delta == 0:
        return "0"
    digits = 1 if metric in ("tpn", "n_tokens") else 3
    magnitude = f"{abs(delta):.{digits}f}"
    return f"+{magnitude} ▲" if delta > 0 else f"−{magnitude} ▼"


def compare_to_baseline(long: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Deltas of every run against ``baseline`` (an exact label) on the keys both have.

    ``long`` is :func:`reports.leaderboard.metrics_long`'s frame; counts and ``n`` are left out.
    """
    data = long[~long["metric"].isin([*COUNT_METRICS, "n"])]
    base = data[data["run"] == baseline].set_index(["key", "metric"])
    rows = []
    for _, row in data[data["run"] != baseline].iterrows():
        index = (row["key"], row["metric"])
        if index not in base.index:
            continue
        reference = base.loc[index]
        delta = row["value"] - reference["value"]
        delta_se = math.sqrt(row["stderr"] ** 2 + reference["stderr"] ** 2)
        rows.append({
            "run": row["run"], "key": row["key"], "metric": row["metric"],
            "baseline": reference["value"], "value": row["value"], "delta": delta,
            "delta_se": delta_se,
            "z": delta / delta_se if delta_se and not math.isnan(delta_se) else math.nan,
            "verdict": verdict(delta, row["metric"]),
        })
    return pd.DataFrame(rows, columns=COMPARED_COLUMNS)


def compared_metrics(table: pd.DataFrame) -> list[str]:
    """The metrics of a comparison table in display order: acc, pass@k by k, ncr, tpn, tokens."""
    present = set(table.metric)
    passes = sorted((m for m in present if m.startswith("pass@")), key=lambda m: int(m[5:]))
    return [m for m in ("acc", *passes, "ncr", "tpn", "n_tokens") if m in present]


def comparison_markdown(table: pd.DataFrame, baseline: str) -> str:
    """A Markdown section: one row per (run, benchmark), ``Δ`` cells with sign and arrow."""
    if table.empty:
        return f"## Compared with {markdown_code(baseline)}\n\nNo benchmark in common with the baseline.\n"
    metrics = compared_metrics(table)
    rows = []
    for (run, key), group in table.groupby(["run", "key"], sort=False):
        cells = group.set_index("metric")
        row = {"Run": markdown_text(run), "Benchmark": key}
        for metric in metrics:
            if metric in cells.index:
                entry = cells.loc[metric]
                mark = {"better": " ✅", "worse": " ❌"}.get(entry["verdict"], "")
                row[f"Δ {metric_label(metric)}"] = signed(entry["delta"], metric) + mark
            else:
                row[f"Δ {metric_label(metric)}"] = "–"
        rows.append(row)
    table_md = pd.DataFrame(rows).to_markdown(index=False, disable_numparse=True)
    return (f"## Compared with {markdown_code(baseline)}\n\n" + table_md
            + "\n\nΔ = run − baseline. ▲/▼: the value went up/down; ✅/❌: better/worse by the "
              "metric's direction (TPN: lower is better).\n")
