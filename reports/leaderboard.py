"""The leaderboard: one row per run, per benchmark Acc (pass@1), pass@k, NCR, TPN, tokens.

Built from the results JSON alone (lm-eval's aggregates with their standard errors), so it works
without samples files. Columns are ``<key>/<metric>`` and ``<key>/<metric>_stderr`` where
``<key>`` is the benchmark (``math500``, ``gsm8k``, ``aime24``, ``aime25``, or e.g.
``gsm8k_pass16`` next to a plain ``gsm8k`` in the same run) and ``<metric>`` is one of

* ``acc`` — mean final-answer accuracy; with ``repeats: k`` it is pass@1 (mean over samples),
* ``pass@k`` — unbiased pass@k (sampled tasks only; ``pass@1`` is left out: it equals ``acc``),
* ``ncr`` — mean Node Coverage Rate, ``tpn`` — mean Tokens per Node, ``n_tokens`` — mean
  generated tokens (in the evaluated model's tokenizer),
* ``n`` (problems), ``ncr_undefined``, ``tpn_undefined``, ``think_unclosed``, ``timed_out``
  (counts of generations).

When several benchmarks are present in every run, ``mean/<metric>`` is their macro average
(each benchmark counts once), computed only over the benchmarks all runs share so that rows
stay comparable.

Example::

    >>> frame = leaderboard_frame(load_runs(["tests/fixtures/reports/greedy-192"]))  # doctest: +SKIP
    >>> list(frame.columns[:6])                                                       # doctest: +SKIP
    ['run', 'model', 'settings', 'date', 'mean/acc', 'mean/ncr']
"""

from __future__ import annotations

import html
import math
import re

import pandas as pd

from .loading import ReportInputError, Run, benchmark_sort_key

MAIN_METRICS = ("acc", "ncr", "tpn", "n_tokens")
COUNT_METRICS = ("ncr_undefined", "tpn_undefined", "think_unclosed", "timed_out")
PASS_PATTERN = re.compile(r"^pass@(\d+)$")
LABELS = {"acc": "Acc", "ncr": "NCR", "tpn": "TPN", "n_tokens": "Tokens", "n": "n"}
META_COLUMNS = ["run", "model", "settings", "nodes", "date"]


def direction(metric: str) -> int:
    """+1 when higher is better, -1 when lower is better, 0 when neither.

    >>> direction("acc"), direction("pass@16"), direction("tpn"), direction("n_tokens")
    (1, 1, -1, 0)
    """
    metric = metric.split("/")[-1].removesuffix("_stderr")
    if metric in ("acc", "ncr") or PASS_PATTERN.match(metric):
        return 1
    if metric in ("tpn", "think_unclosed", "timed_out"):
        return -1
    return 0


def metric_label(metric: str) -> str:
    """Display name: ``Acc``, ``NCR``, ``TPN``, ``Tokens``, ``pass@16``."""
    return LABELS.get(metric, metric)


def _pass_metrics(metrics: dict[str, float]) -> list[str]:
    found = [(int(m[1]), name) for name in metrics if (m := PASS_PATTERN.match(name))]
    return [name for k, name in sorted(found) if k > 1]


def metrics_long(runs: list[Run]) -> pd.DataFrame:
    """One row per (run, benchmark key, metric) with ``value`` and ``stderr`` (NaN if none)."""
    rows = []
    for run in runs:
        for key, task in run.tasks.items():
            names = ["acc", *_pass_metrics(task.metrics), "ncr", "tpn", "n_tokens"]
            for name in names:
                rows.append({"run": run.label, "key": key, "metric": name,
                             "value": task.metrics.get(name, math.nan),
                             "stderr": task.metrics.get(f"{name}_stderr", math.nan)})
            rows.append({"run": run.label, "key": key, "metric": "n",
                         "value": float(task.n_problems) if task.n_problems is not None else math.nan,
                         "stderr": math.nan})
            for name in COUNT_METRICS:
                rows.append({"run": run.label, "key": key, "metric": name,
                             "value": task.metrics.get(name, math.nan), "stderr": math.nan})
    return pd.DataFrame(rows, columns=["run", "key", "metric", "value", "stderr"])


def repeat_summary(runs: list[Run]) -> pd.DataFrame:
    """Spread across repeated runs of one model (``label #1``, ``#2``, ...): per model, benchmark
    and metric (Acc, pass@k, NCR, TPN, Tokens) the mean and sample standard deviation of the
    runs' values; columns ``model_runs, key, metric, repeats, mean, sd, min, max``."""
    long = metrics_long(runs)
    groups = {run.label: run.repeat_of for run in runs if run.repeat_of}
    columns = ["model_runs", "key", "metric", "repeats", "mean", "sd", "min", "max"]
    if not groups:
        return pd.DataFrame(columns=columns)
    long = long[long["run"].isin(groups) & ~long["metric"].isin([*COUNT_METRICS, "n"])].copy()
    long["model_runs"] = long["run"].map(groups)
    table = long.groupby(["model_runs", "key", "metric"], sort=False)["value"].agg(
        repeats="count", mean="mean", sd="std", min="min", max="max").reset_index()
    return table[columns]


def common_keys(runs: list[Run]) -> list[str]:
    """The benchmark keys every run has, in column order."""
    if not runs:
        return []
    shared = set(runs[0].tasks)
    for run in runs[1:]:
        shared &= set(run.tasks)
    return sorted(shared, key=benchmark_sort_key)


def all_keys(runs: list[Run]) -> list[str]:
    """Every benchmark key of any run, in column order."""
    return sorted({key for run in runs for key in run.tasks}, key=benchmark_sort_key)


def _metric_order(metric: str) -> tuple[int, int]:
    if metric == "n":
        return 0, 0
    if metric == "acc":
        return 1, 0
    if match := PASS_PATTERN.match(metric):
        return 2, int(match[1])
    order = {"ncr": 3, "tpn": 4, "n_tokens": 5}
    if metric in order:
        return order[metric], 0
    return 6 + list(COUNT_METRICS).index(metric) if metric in COUNT_METRICS else 20, 0


def leaderboard_frame(runs: list[Run]) -> pd.DataFrame:
    """The wide leaderboard (the CSV): run metadata, ``mean/*`` macro averages over the shared
    benchmarks (when there are two or more), then ``<key>/<metric>[_stderr]`` per benchmark."""
    long = metrics_long(runs)
    table = pd.DataFrame({
        "run": [run.label for run in runs],
        "model": [run.model for run in runs],
        "settings": [run.settings for run in runs],
        "date": [run.date for run in runs],
    }).set_index("run", drop=False)
    shared = common_keys(runs)
    if len(shared) >= 2:
        for metric in MAIN_METRICS:
            subset = long[(long.metric == metric) & long.key.isin(shared)]
            # NaN in any shared benchmark leaves the mean undefined (no silent re-weighting).
            means = subset.groupby("run")["value"].agg(
                lambda values: values.mean() if values.notna().all() else math.nan)
            table[f"mean/{metric}"] = means
    for key in all_keys(runs):
        subset = long[long.key == key]
        for metric in sorted(subset.metric.unique(), key=_metric_order):
            rows = subset[subset.metric == metric].set_index("run")
            table[f"{key}/{metric}"] = rows["value"]
            if metric not in COUNT_METRICS and metric != "n":
                table[f"{key}/{metric}_stderr"] = rows["stderr"]
    return table.reset_index(drop=True)


def resolve_sort(frame: pd.DataFrame, by: str | None = None,
                 ascending: bool | None = None) -> tuple[str, bool]:
    """The column and direction to sort by.

    ``by`` is a column (``gsm8k/acc``, ``mean/ncr``, ``run``, ...) or a bare metric (``acc``:
    ``mean/acc`` if present, else the first benchmark's). Default: ``mean/acc``, else the first
    benchmark's ``acc``. The default direction follows the metric: TPN ascending, Acc/NCR/pass@k
    descending, text columns ascending.

    >>> frame = pd.DataFrame({"run": ["a"], "gsm8k/acc": [0.5], "gsm8k/tpn": [30.0]})
    >>> resolve_sort(frame), resolve_sort(frame, "tpn"), resolve_sort(frame, "run", False)
    (('gsm8k/acc', False), ('gsm8k/tpn', True), ('run', False))
    """
    columns = [c for c in frame.columns if not c.endswith("_stderr")]
    if by is None:
        by = next((c for c in columns if c == "mean/acc"), None) or \
            next((c for c in columns if c.endswith("/acc")), "run")
    elif by not in frame.columns:
        candidates = [c for c in columns if c == f"mean/{by}"] + \
            [c for c in columns if c.endswith(f"/{by}")]
        if not candidates:
            raise ReportInputError(
                f"--sort-by {by!r}: no such column; choose one of: {', '.join(columns)}")
        by = candidates[0]
    if ascending is None:
        ascending = direction(by) < 0 or by in META_COLUMNS
    return by, ascending


def sort_leaderboard(frame: pd.DataFrame, by: str | None = None,
                     ascending: bool | None = None) -> pd.DataFrame:
    """Rows sorted by :func:`resolve_sort`'s column; missing values last, ties keep input order."""
    by, ascending = resolve_sort(frame, by, ascending)
    return frame.sort_values(by, ascending=ascending, na_position="last",
                             kind="stable").reset_index(drop=True)


def display_metrics(frame: pd.DataFrame, key: str) -> list[str]:
    """The metrics shown for one key in the Markdown/HTML tables: Acc, the largest pass@k, NCR,
    TPN, Tokens (those present; for ``mean``, those defined for some run)."""
    present = {c.split("/", 1)[1] for c in frame.columns
               if c.startswith(f"{key}/") and not c.endswith("_stderr")}
    passes = sorted((int(m[1]), m[0]) for name in present if (m := PASS_PATTERN.match(name)))
    shown = ["acc"] + ([passes[-1][1]] if passes else []) + ["ncr", "tpn", "n_tokens"]
    shown = [metric for metric in shown if metric in present]
    if key == "mean":  # a mean that no run has (e.g. TPN undefined somewhere) is only clutter
        shown = [metric for metric in shown if frame[f"mean/{metric}"].notna().any()]
    return shown


def display_keys(frame: pd.DataFrame) -> list[str]:
    """Column groups in order: ``mean`` first (when present), then the benchmarks."""
    keys = []
    for column in frame.columns:
        if "/" in column:
            key = column.split("/", 1)[0]
            if key not in keys:
                keys.append(key)
    return keys


def format_value(value: float, stderr: float = math.nan, metric: str = "acc") -> str:
    """``0.333 ± 0.272`` (3 decimals for rates, 1 for token counts); ``–`` when undefined.

    >>> format_value(1/3, 0.2722), format_value(95.0, 1.25, "n_tokens"), format_value(math.nan)
    ('0.333 ± 0.272', '95.0 ± 1.2', '–')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    digits = 1 if metric in ("tpn", "n_tokens") else 3
    text = f"{value:.{digits}f}"
    if stderr is not None and not (isinstance(stderr, float) and math.isnan(stderr)):
        text += f" ± {stderr:.{digits}f}"
    return text


_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]|~])")


def markdown_text(value) -> str:
    r"""``value`` as Markdown that renders as exactly that text, also inside a table cell: HTML
    special characters become entities (a model name ``<img onerror=...>`` stays text), Markdown
    punctuation is backslash-escaped (``|`` cannot split a cell), line breaks become spaces.

    >>> markdown_text("<img src=x onerror=alert(1)>|*x*")
    '&lt;img src=x onerror=alert(1)&gt;\\|\\*x\\*'
    >>> markdown_text("Qwen/Qwen2.5-Math-7B")
    'Qwen/Qwen2.5-Math-7B'
    """
    text = html.escape(" ".join(str(value).splitlines()), quote=False)
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def markdown_code(value) -> str:
    """``value`` as a Markdown code span (shown verbatim, nothing inside is interpreted), with a
    backtick fence longer than any run of backticks in it.

    >>> markdown_code("greedy-192"), markdown_code("a`b")
    ('`greedy-192`', '``a`b``')
    """
    text = " ".join(str(value).splitlines())
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def display_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The human table (Markdown): run, model, settings (as :func:`markdown_text`), the node file
    when known, then ``<key> <Metric>`` cells as ``mean ± se``."""
    out = pd.DataFrame({"Run": frame["run"].map(markdown_text), "Model": frame["model"].map(markdown_text),
                        "Settings": frame["settings"].map(markdown_text)})
    if "nodes" in frame.columns:
        out["Nodes scored against"] = frame["nodes"].map(markdown_text)
    for key in display_keys(frame):
        for metric in display_metrics(frame, key):
            column = f"{key}/{metric}"
            stderr = frame.get(f"{column}_stderr", pd.Series(math.nan, index=frame.index))
            out[f"{key} {metric_label(metric)}"] = [
                format_value(v, s, metric) for v, s in zip(frame[column], stderr)]
    return out


def to_markdown(frame: pd.DataFrame, shared: list[str], notes: list[str] = ()) -> str:
    """``leaderboard.md``: the display table plus a legend (``shared``: the benchmarks every
    run has, which ``mean`` averages; ``notes``: extra lines)."""
    keys = [key for key in display_keys(frame) if key != "mean"]
    lines = [
        "# ConsensusBench leaderboard", "",
        display_frame(frame).to_markdown(index=False, disable_numparse=True), "",
        "Acc: final-answer accuracy (pass@1 = mean over samples when sampled); pass@k: unbiased "
        "estimator; NCR: node coverage rate; TPN: tokens per node reached (lower is better); "
        "Tokens: mean generated tokens. Values are mean ± standard error over problems.",
    ]
    if "mean" in display_keys(frame):
        lines.append(f"`mean`: macro average over the benchmarks every run has "
                     f"({', '.join(shared)}).")
    missing = [key for key in keys if f"{key}/acc" in frame and frame[f"{key}/acc"].isna().any()]
    if missing:
        lines.append(f"`–`: not evaluated or undefined (not run by every run: "
                     f"{', '.join(missing)}).")
    lines.extend(notes)
    return "\n".join(lines) + "\n"
