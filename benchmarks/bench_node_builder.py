"""Build speed of the rule-based pipeline: problems per second for each shipped file.

    python benchmarks/bench_node_builder.py --raw RAW [--only gsm8k math500]      # RAW: node_builder/README.md

Runs ``node_builder build-all`` stages in-process per file (fresh temporary work dirs, fsync on,
as in real builds) and prints seconds, problems/s and nodes for each, plus the total. The full
data build is meant to fit CI: a minute or two on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from node_builder.build import build_file
from node_builder.pipeline import BuildConfig
from node_builder.shipped import SHIPPED, shipped_sources


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raw", required=True)
    parser.add_argument("--only", nargs="+", choices=list(SHIPPED))
    args = parser.parse_args(argv)
    total_s = total_n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or list(SHIPPED):
            start = time.perf_counter()
            summary = build_file(name, shipped_sources(name, Path(args.raw)), Path(tmp) / f"{name}.jsonl",
                                 Path(tmp) / "w" / name, BuildConfig(), quiet=True)
            seconds = time.perf_counter() - start
            total_s, total_n = total_s + seconds, total_n + summary["problems"]
            print(f"{name:12s} {summary['problems']:5d} problems {seconds:7.1f} s "
                  f"{summary['problems'] / seconds:7.1f} problems/s  {summary['nodes']:6d} nodes")
    print(f"{'total':12s} {total_n:5d} problems {total_s:7.1f} s {total_n / total_s:7.1f} problems/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
