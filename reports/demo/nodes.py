r"""Build the demo's leave-one-model-out node files (a maintainer script, like ``subset``).

    python -m reports.demo.nodes --raw RAW [--out reports/demo/nodes]      # make demo-nodes

The staged runs vote in the shipped MATH-500 nodes, so no model may be scored on them. For each
model of the demo subset (``math500/subset.json``) this builds the MATH-500 nodes exactly as
``python -m node_builder build-all`` does (same sources, settings, reviewers' verdicts and build-wide finalize), but
without any run of that model (:func:`node_builder.pipeline.without_voice`), and writes the
records of the subset's problems to ``<out>/<model>.jsonl``. Deterministic: the same raw files
give the same bytes (a rebuild takes ~6 minutes here, so the tests check the shipped files'
problems and voices instead: ``tests/test_demo.py``). Every answer is checked once for all builds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

from node_builder.shipped import shipped_sources
from node_builder.filter import filter_problem
from node_builder.importers import load_sources
from node_builder.importers.model_runs import model_voice
from node_builder.pipeline import BuildConfig, build_records, without_voice
from node_builder.signoff import signoffs_of
from node_builder.workdir import write_jsonl_atomic

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "nodes"
SUBSET = HERE / "math500" / "subset.json"


def build(raw: Path, out: Path, subset: Path = SUBSET, quiet: bool = False) -> list[Path]:
    """Write one node file per model of ``subset``; returns their paths."""
    selection = json.loads(subset.read_text(encoding="utf-8"))
    wanted = set(selection["problem_ids"])
    models = sorted({run["model"] for run in selection["runs"]})
    problems = load_sources(shipped_sources("math500", raw), "math500").problems
    for problem in tqdm(problems, desc="acc", disable=quiet, file=sys.stderr):
        filter_problem(problem)
    written = []
    for model in models:
        records = build_records(without_voice(problems, model_voice(model)), BuildConfig(signoffs=signoffs_of("math500")))
        path = out / f"{model}.jsonl"
        write_jsonl_atomic(path, [r for r in records if r["id"] in wanted])
        written.append(path)
        if not quiet:
            print(f"demo nodes: {path} (without {model})", file=sys.stderr)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raw", required=True, help="the raw sources folder (layout: node_builder/README.md, 'Raw sources')")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder of the node files (default %(default)s)")
    args = parser.parse_args(argv)
    raw = Path(args.raw)
    if not raw.is_dir():
        parser.error(f"--raw {raw}: not a directory")
    build(raw, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
