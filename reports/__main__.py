"""``python -m reports build RUN_DIR [RUN_DIR ...] --out OUT_DIR``: the ConsensusBench report;
``python -m reports import TRAJECTORIES --data NODES --model NAME --out DIR``: score outputs of
another harness into an lm-eval-shaped run (:mod:`reports.importing`).

Exit status 0 on success, 2 on unusable input or output (one line naming the path; ``OUT_DIR``
is left as it was): a missing or corrupt results/samples file, a metric of the wrong type, an
``OUT_DIR`` that is or holds an input, holds files that are not a report's, or cannot be
created, an out-of-range setting.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from consensus_metrics.argtypes import nonnegative_int, positive_int, unit_interval

from .build import ReportOptions, build_report
from .diagnostics import DEFAULT_THRESHOLD
from .loading import ReportInputError

EPILOG = """\
RUN_DIR is the --output_path of an `lm_eval ... --tasks consensusbench_* --log_samples` run (or
any folder above it, or one results_<timestamp>.json). Write LABEL=RUN_DIR to name the row.
Several results files of one model folder are merged when their tasks differ and become
separate rows (#1, #2, ...) when they repeat a task.

examples:
  python -m reports build runs/smollm2 --out report
  python -m reports build base=runs/base grpo=runs/grpo grpo+cpr=runs/grpo_cpr \\
      --baseline base --sort-by gsm8k/ncr --out report
"""


def parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    main = argparse.ArgumentParser(prog="python -m reports",
                                   description="Leaderboard and process–outcome diagnostics "
                                               "from lm-eval ConsensusBench outputs.")
    commands = main.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="build leaderboard.csv/.md and index.html",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    build.add_argument("runs", nargs="+", metavar="RUN_DIR",
                       help="lm-eval output folder, or LABEL=folder")
    build.add_argument("--out", required=True, metavar="OUT_DIR", help="folder to write into")
    build.add_argument("--sort-by", metavar="COLUMN",
                       help="leaderboard column to sort by, e.g. gsm8k/ncr, mean/acc, "
                            "math500/pass@16, tpn (default: mean/acc, else the first "
                            "benchmark's acc)")
    order = build.add_mutually_exclusive_group()
    order.add_argument("--ascending", dest="ascending", action="store_true", default=None,
                       help="sort ascending (default: by the metric, TPN ascending, rates "
                            "descending)")
    order.add_argument("--descending", dest="ascending", action="store_false",
                       help="sort descending")
    build.add_argument("--baseline", metavar="LABEL",
                       help="comparison mode: deltas of every run against this run")
    build.add_argument("--coverage-threshold", type=unit_interval, default=DEFAULT_THRESHOLD,
                       metavar="TAU", help="NCR at or above which coverage counts as high in the "
                                           f"mismatch table (default {DEFAULT_THRESHOLD})")
    build.add_argument("--top-nodes", type=positive_int, default=10, metavar="N",
                       help="most-missed nodes listed per benchmark (default 10)")
    build.add_argument("--examples", type=nonnegative_int, default=2, metavar="N",
                       help="example generations per run and mismatch cell (default 2)")
    build.add_argument("--title", default="ConsensusBench report", help="page title")
    from . import importing

    importing.add_parser(commands)
    return main


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    args = parser().parse_args(argv)
    if args.command == "import":
        from . import importing

        return importing.run(args)
    options = ReportOptions(
        sort_by=args.sort_by, ascending=args.ascending, baseline=args.baseline,
        threshold=args.coverage_threshold, top_nodes=args.top_nodes, examples=args.examples,
        title=args.title,
        command="python -m reports " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:])))
    try:
        written = build_report(args.runs, args.out, options)
    except (ReportInputError, ValueError) as err:
        print(f"python -m reports: error: {err}", file=sys.stderr)
        return 2
    for name in ("index.html", "leaderboard.md", "leaderboard.csv"):
        print(f"wrote {written[name]}")
    print(f"wrote {len(written) - 3} more file(s) into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
