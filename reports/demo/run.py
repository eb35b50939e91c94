r"""``python -m reports.demo.run prepare|report``: the two halves of ``make demo`` around its lm_eval run.

    python -m reports.demo.run prepare --out runs/demo --tokenizer .cache/models/SmolLM2-135M-Instruct
    lm_eval --model hf ... --tasks consensusbench_math500 --limit 5 \
        --metadata '{"data_dir": "runs/demo/data"}' --log_samples --output_path runs/demo/embedded
    python -m reports.demo.run report --out runs/demo

``prepare``
  1. writes ``OUT/data/math500.jsonl``: the shipped MATH-500 records of the demo's 100 problems,
     in the subset's order (level, then id), for the embedded model's lm_eval run;
  2. scores every shipped run (``reports/demo/math500/<model>@<commit>.jsonl``) with
     ``python -m reports import`` into ``OUT/real/<model>/``, against the node file of its model:
     ``--nodes-dir/<model>.jsonl`` when it exists (docs/SPEC.md §2 records with the ids of
     ``math500.jsonl``, nodes built *without* that model's runs: leave-one-model-out), else the
     shipped ``lm_eval_tasks/consensusbench/data/math500.jsonl``. Already imported runs are skipped.

``report``
  builds ``OUT/report/index.html`` from the imported runs and ``OUT/embedded`` (when it holds an
  lm_eval run); the leaderboard's "Nodes scored against" column names each row's node file, what
  its nodes were built from, and whether the row's model voted in them.

TPN: the real models' tokenizers are not available offline, so every row counts TPN and tokens in
one tokenizer (``--tokenizer``, the embedded SmolLM2's), which makes the rows comparable.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from consensus_metrics.records import read_problem_file

from ..importing import import_run
from ..loading import ReportInputError, sample_diagnostics

HERE = Path(__file__).resolve().parent
SUBSET_DIR = HERE / "math500"
NODES_DIR = HERE / "nodes"
SHIPPED = HERE.parents[1] / "lm_eval_tasks" / "consensusbench" / "data" / "math500.jsonl"
EMBEDDED_LABEL = "SmolLM2-135M-Instruct (lm_eval here)"


def _relative(path: Path) -> Path:
    """``path`` relative to the working directory when inside it (as the page shows paths)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def manifest(subset_dir: Path = SUBSET_DIR) -> dict:
    """The shipped subset's ``subset.json``."""
    path = subset_dir / "subset.json"
    if not path.is_file():
        raise ReportInputError(f"{path}: no demo subset (build it with python -m reports.demo.subset --raw ...)")
    return json.loads(path.read_text(encoding="utf-8"))


def node_file_for(model: str, nodes_dir: Path = NODES_DIR, shipped: Path = SHIPPED) -> Path:
    """The node file a model is scored against: its leave-one-model-out file, else the shipped one."""
    own = nodes_dir / f"{model}.jsonl"
    return own if own.is_file() else shipped


def write_embedded_data(out: Path, subset: dict, shipped: Path = SHIPPED) -> Path:
    """``OUT/data/math500.jsonl``: the shipped records of the subset's problems, in its order."""
    records = {row["id"]: row for row in read_problem_file(shipped)}
    missing = [pid for pid in subset["problem_ids"] if pid not in records]
    if missing:
        raise ReportInputError(f"{shipped}: the demo's problems {missing[:3]} are missing")
    target = out / "data" / "math500.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(records[pid], ensure_ascii=False) for pid in subset["problem_ids"]]
    temporary = target.with_suffix(".jsonl.tmp")
    temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
    temporary.replace(target)
    return target


def prepare(out: Path, tokenizer: str | None, nodes_dir: Path = NODES_DIR, workers: int = 1,
            subset_dir: Path = SUBSET_DIR, shipped: Path = SHIPPED) -> list[Path]:
    """Step 1 and 2 of the module docstring; returns the imported results files."""
    subset = manifest(subset_dir)
    print(f"demo: node file for the embedded model: {_relative(write_embedded_data(out, subset, shipped))}")
    written = []
    for run in subset["runs"]:
        nodes = node_file_for(run["model"], nodes_dir, shipped)
        kind = "leave-one-model-out" if nodes.parent == nodes_dir else "shipped"
        print(f"demo: {run['file']}: scoring against {_relative(nodes)} ({kind})")
        path, fresh = import_run(
            subset_dir / run["file"], _relative(nodes), run["model"], out / "real", "math500", tokenizer,
            think_prefilled="false", workers=workers,
            source=f"{subset['source']['repository']} ({subset['source']['license']}): {run['original_path']} "
                   f"@ {run['commit']}",
            generation=subset["source"]["decoding"])
        print(f"demo:   {'scored' if fresh else 'already scored'}: {_relative(path)}")
        written.append(path)
    return written


def harness_agreement(out: Path, subset: dict) -> tuple[int, int]:
    """``(agreeing, total)``: imported generations whose ConsensusBench ``acc`` equals the
    generating harness's own verdict (``harness_score``, kept in the doc's ``import``)."""
    agree = total = 0
    for model in dict.fromkeys(run["model"] for run in subset["runs"]):
        for path in sorted((out / "real" / model).glob("samples_*.jsonl")):
            for line in path.read_text(encoding="utf-8").split("\n"):  # "\n" only: rows may hold U+2028
                if not line.strip():
                    continue
                record = json.loads(line)
                verdict = (record["doc"].get("import") or {}).get("harness_score")
                if verdict is None:
                    continue
                total += 1
                (trajectory,) = sample_diagnostics(record, f"{path}")["trajectories"]
                agree += int(bool(verdict) == bool(trajectory["acc"]))
    return agree, total


def intro(out: Path, subset: dict, embedded: bool) -> list[str]:
    """The "About these runs" lines of the demo page."""
    agree, total = harness_agreement(out, subset)
    runs = subset["runs"]
    models = list(dict.fromkeys(run["model"] for run in runs))
    lines = [
        f"{len(models)} real models, {len(runs)} runs ({', '.join(r['model'] + '@' + r['commit'] for r in runs)}): "
        f"{subset['source']['decoding']}, from the evaluation outputs of {subset['source']['repository']} "
        f"({subset['source']['license']}). {subset['size']} MATH-500 problems, {subset['selection']} "
        f"(per level: {', '.join(f'L{k} {v}' for k, v in subset['per_level'].items())}); shipped in "
        f"reports/demo/math500/.",
        "Every answer is re-scored with ConsensusBench's own Acc (math-verify, answer after </think> or in "
        "Sky-T1's <|begin_of_solution|> block; a thought never closed scores 0) through the lm-eval task's "
        f"process_results: it agrees with the generating harness's own verdict on {agree} of {total} "
        "generations.",
        "TPN and tokens count SmolLM2-135M-Instruct tokens in every row (the real models' tokenizers are not "
        "available offline): comparable across rows, not the models' own token counts.",
        "Nodes: each row names the node file it was scored against, what its nodes were built from, and "
        "whether the row's model voted in them (a model scored on its own votes gets an optimistic NCR; "
        "reports/demo/nodes/<model>.jsonl, nodes built without that model, is used when present).",
    ]
    if embedded:
        lines.append(f"{EMBEDDED_LABEL}: a real `lm_eval --model hf` run of the embedded 135M model on the "
                     "first problems of the same subset (the easiest: level 1) with a short token budget; "
                     "it is there to show the pipeline end to end, not a result.")
    return lines


def report(out: Path, subset_dir: Path = SUBSET_DIR) -> Path:
    """Step ``report``: the page over the imported runs and the embedded lm_eval run."""
    from ..build import ReportOptions, build_report

    subset = manifest(subset_dir)
    specs = []
    for model in dict.fromkeys(run["model"] for run in subset["runs"]):
        folder = out / "real" / model
        if not folder.is_dir():
            raise ReportInputError(f"{folder}: not imported yet (run: python -m reports.demo.run prepare --out {out})")
        specs.append(f"{model}={_relative(folder)}")
    embedded = out / "embedded"
    has_embedded = embedded.is_dir() and any(embedded.rglob("results_*.json"))
    if has_embedded:
        specs.append(f"{EMBEDDED_LABEL}={_relative(embedded)}")
    else:
        print(f"demo: no lm_eval run in {embedded}: the report shows the imported runs only", file=sys.stderr)
    models = len(dict.fromkeys(run["model"] for run in subset["runs"]))
    options = ReportOptions(
        title=f"ConsensusBench demo: MATH-500, {subset['size']} problems, {models} real models"
              + (" and the embedded SmolLM2" if has_embedded else ""),
        sort_by="math500/acc", intro=tuple(intro(out, subset, has_embedded)),
        command="make demo  (python -m reports.demo.run report --out " + str(_relative(out)) + ")")
    written = build_report(specs, out / "report", options)
    return written["index.html"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.demo.run", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    first = commands.add_parser("prepare", help="the embedded run's data file; score the shipped real runs")
    first.add_argument("--out", type=Path, default=Path("runs/demo"))
    first.add_argument("--tokenizer", default=None, help="tokenizer TPN counts in for every row")
    first.add_argument("--nodes-dir", type=Path, default=NODES_DIR,
                       help="folder of leave-one-model-out node files <model>.jsonl (default reports/demo/nodes)")
    first.add_argument("--workers", type=int, default=1)
    second = commands.add_parser("report", help="build the report")
    second.add_argument("--out", type=Path, default=Path("runs/demo"))
    args = parser.parse_args(argv)
    try:
        if args.command == "prepare":
            prepare(args.out, args.tokenizer, args.nodes_dir, args.workers)
        else:
            print(f"report: {_relative(report(args.out))}")
    except (ReportInputError, ValueError) as err:
        print(f"python -m reports.demo.run: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
