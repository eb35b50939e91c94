"""reports: a leaderboard and process–outcome diagnostics from lm-eval ConsensusBench outputs.

``python -m reports build RUN_DIR [RUN_DIR ...] --out OUT_DIR`` writes ``leaderboard.csv``,
``leaderboard.md``, a self-contained ``index.html`` (plots embedded), the tables behind the
plots and ``figures/*.png``.

Modules, one job each: ``loading`` (find and check lm-eval results/samples files, group them
into runs), ``leaderboard`` (the per-run table, sorting, Markdown), ``samples`` (per-generation
and per-node frames from the samples files), ``diagnostics`` (mismatch cells, MATH-500 levels,
most-missed nodes, coverage by node position), ``compare`` (deltas against a baseline run),
``plots`` (matplotlib figures), ``html`` (the page template), ``build`` (writes everything).

>>> from reports import build_report, ReportOptions
>>> build_report(["tests/fixtures/reports/greedy-192"], "/tmp/report")  # doctest: +SKIP
"""

from .build import ReportOptions, build_report
from .leaderboard import leaderboard_frame, sort_leaderboard
from .loading import ReportInputError, Run, load_runs

__all__ = ["build_report", "ReportOptions", "load_runs", "Run", "ReportInputError",
           "leaderboard_frame", "sort_leaderboard"]
