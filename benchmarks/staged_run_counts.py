"""What every staged model run brings to the shipped evaluation sets: per run file, its rows, the
problems it joins, the rows skipped, and the outputs our own ``acc`` finds correct; per benchmark,
how many problems have correct solutions from 1, 2, 3 or more distinct voices.

    python benchmarks/staged_run_counts.py --raw RAW [--only math500 gsm8k aime24] [--json counts.json]

The sources are the shipped ones (``node_builder.shipped.SHIPPED``: the benchmark's reference
solutions and every staged run, each read through its field map, ``node_builder/run_maps.py``);
the import and join are the build's own (``load_sources``), correctness is the filter's
(``node_builder.filter.filter_problem``: the metric's ``acc`` for model outputs). No nodes are
built: this is the import and the answer check only. Skipped rows are listed on stderr as
``file:line: reason``.

Columns: ``rows`` (lines, or entries of a JSON file), ``joined`` (benchmark problems with an output
of the file), ``skipped`` (malformed, no output, a problem the benchmark lacks, a gold that
disagrees), ``outside`` (rows of problems beyond the benchmark, in runs that cover more),
``dupl.`` (outputs dropped as a repeat of the same problem's earlier output), ``outputs``,
``correct`` (outputs), ``solved`` (problems with a correct output of the file).
Voices: distinct models with a correct solution of the problem (``reference``, the human-written
solutions, not counted among them; the ``+ref`` line counts it as one more voice).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from node_builder.filter import filter_problem  # noqa: E402
from node_builder.importers import load_sources  # noqa: E402
from node_builder.shipped import SHIPPED, shipped_sources  # noqa: E402

BENCHMARKS = ("math500", "gsm8k", "aime24")


def count(benchmark: str, raw: Path, quiet: bool = False) -> dict:
    """The per-file and per-benchmark counts of one shipped evaluation set (see the module doc)."""
    started = time.perf_counter()
    imported = load_sources(shipped_sources(benchmark, raw), benchmark)
    for skip in imported.skipped:
        print(f"skipped {skip.where}" + (f" ({skip.problem_id})" if skip.problem_id else "") + f": {skip.reason}",
              file=sys.stderr)
    import_s = time.perf_counter() - started
    correct, solved = Counter(), Counter()
    voices_per_problem = []
    for problem in tqdm(imported.problems, desc=f"{benchmark} acc", unit="problem", disable=quiet, file=sys.stderr):
        filter_problem(problem)
        files = Counter()
        for t in problem.trajectories:
            if t.origin and t.correct:
                files[t.origin.rsplit(":", 1)[0]] += 1
        correct.update(files)
        solved.update(files.keys())
        voices_per_problem.append({t.voice for t in problem.trajectories if t.correct})
    files = {}
    for file, c in imported.files.items():
        files[str(Path(file).relative_to(raw)) if Path(file).is_relative_to(raw) else file] = {
            "rows": c.rows, "joined": len(c.joined), "skipped": c.skipped, "outside": c.outside,
            "duplicates": c.duplicates, "outputs": c.outputs, "correct": correct[file], "solved": solved[file]}
    models = [len(v - {"reference"}) for v in voices_per_problem]
    with_ref = [len(v) for v in voices_per_problem]
    coverage = {f">={k}": sum(1 for n in models if n >= k) for k in (1, 2, 3, 5)}
    coverage_ref = {f">={k}": sum(1 for n in with_ref if n >= k) for k in (1, 2, 3, 5)}
    return {"benchmark": benchmark, "problems": len(imported.problems), "files": files,
            "model_voices": coverage, "voices_with_reference": coverage_ref,
            "distinct_model_voices": sorted({v for s in voices_per_problem for v in s} - {"reference"}),
            "seconds": {"import": round(import_s, 1), "total": round(time.perf_counter() - started, 1)}}


def table(result: dict) -> str:
    """One benchmark's counts as a markdown table plus its coverage lines."""
    lines = [f"### {result['benchmark']} ({result['problems']} problems; import {result['seconds']['import']} s, "
             f"import + acc {result['seconds']['total']} s)", "",
             "| run file | rows | joined | skipped | outside | dupl. | outputs | correct | solved |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for file, c in result["files"].items():
        lines.append(f"| `{file}` | {c['rows']} | {c['joined']} | {c['skipped']} | {c['outside']} | {c['duplicates']} "
                     f"| {c['outputs']} | {c['correct']} | {c['solved']} |")
    n = result["problems"]
    cover = ", ".join(f"{k}: {v} ({100 * v / n:.1f}%)" for k, v in result["model_voices"].items())
    cover_ref = ", ".join(f"{k}: {v}" for k, v in result["voices_with_reference"].items())
    lines += ["", f"problems with correct solutions from distinct model voices: {cover}",
              f"+ref (the reference as one more voice): {cover_ref}",
              f"model voices with a correct solution: {len(result['distinct_model_voices'])}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raw", required=True, help="the raw sources folder (node_builder/README.md, Raw sources)")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS))
    parser.add_argument("--json", help="also write the counts as JSON here")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    raw = Path(args.raw).resolve()
    if not raw.is_dir():
        print(f"staged_run_counts: error: --raw {raw}: not a directory", file=sys.stderr)
        return 2
    results = []
    for benchmark in args.only:
        assert benchmark in SHIPPED
        result = count(benchmark, raw, args.quiet)
        results.append(result)
        print(table(result).replace(str(raw), "RAW") + "\n", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
