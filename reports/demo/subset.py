r"""Build the demo's shipped MATH-500 subset from the staged SkyThought runs (a maintainer script).

    python -m reports.demo.subset --raw RAW [--size 100] [--out reports/demo/math500]      # make demo-data

Reads ``<raw>/math500/test_ori.jsonl`` (problem ids and levels) and every
``<raw>/trajectories/skythought/math500/<model>@<commit>.jsonl`` run (NovaSky-AI/SkyThought,
Apache-2.0: one greedy solution per problem, in benchmark order; ``<raw>/SOURCES.md`` names each
file's original path), and writes into ``--out``:

* ``<model>@<commit>.jsonl`` per run: ``{"id", "completion", "harness_pred", "harness_score"}``
  for the selected problems (``completion`` is the model's whole output, markers included; the
  ``harness_*`` fields are the Qwen2.5-Math harness's own verdict, kept for reference: the demo
  re-scores every answer with ConsensusBench's ``acc``);
* ``subset.json``: the selection (rule, seed, per-level counts, problem ids in order) and, per
  run, its model, commit, original path and the SHA-256 of the raw file it was cut from.

Selection (deterministic, no randomness beyond a fixed seed string): ``size`` problems stratified
by MATH level -- each level gets its share of ``size`` by the largest-remainder rule (ties to the
lower level), and within a level the problems whose ``sha256(SEED + id)`` is smallest. Problems
are written sorted by level, then id, so ``lm_eval --limit N`` on them takes the easiest first.
A problem is matched to its run rows by the problem text (the runs are in benchmark order; the
script checks that every run has exactly the 500 problems of ``test_ori.jsonl``), and its id is
``math500/<unique_id without .json>``, the id of ``lm_eval_tasks/consensusbench/data/math500.jsonl``.

>>> allocate({1: 43, 2: 90, 3: 105, 4: 128, 5: 134}, 100)
{1: 9, 2: 18, 3: 21, 4: 25, 5: 27}
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from fractions import Fraction
from pathlib import Path

SEED = "consensusbench-demo-v1"
DEFAULT_OUT = Path(__file__).resolve().parent / "math500"
SHIPPED = Path(__file__).resolve().parents[2] / "lm_eval_tasks" / "consensusbench" / "data" / "math500.jsonl"
REPOSITORY = "NovaSky-AI/SkyThought"
LICENSE = "Apache-2.0"


class SubsetError(ValueError):
    """The raw files are not what this script expects; the message names the file."""


def allocate(counts: dict[int, int], size: int) -> dict[int, int]:
    """Largest-remainder allocation of ``size`` over the levels, proportional to ``counts``."""
    total = sum(counts.values())
    if not 0 < size <= total:
        raise SubsetError(f"--size must be in 1..{total}, got {size}")
    exact = {level: Fraction(size * n, total) for level, n in counts.items()}  # exact: ties are real ties
    quota = {level: math.floor(value) for level, value in exact.items()}
    left = size - sum(quota.values())
    for level in sorted(exact, key=lambda lv: (-(exact[lv] - quota[lv]), lv))[:left]:
        quota[level] += 1
    return dict(sorted(quota.items()))


def _rank(problem_id: str) -> str:
    return hashlib.sha256(f"{SEED}:{problem_id}".encode()).hexdigest()


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise SubsetError(f"{path}:{lineno}: not JSON ({err.msg})") from err
    return rows


def _sources(raw: Path) -> dict[str, str]:
    """``{file name: original path}`` from the math500 rows of ``<raw>/SOURCES.md`` (may be empty)."""
    path = raw / "SOURCES.md"
    if not path.is_file():
        return {}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0] == "math500" and cells[1].endswith(".jsonl"):
            found[cells[1]] = cells[2]
    return found


def select(problems: list[dict], size: int) -> list[dict]:
    """The stratified selection (rule: module docstring), sorted by level, then id."""
    by_level: dict[int, list[dict]] = {}
    for problem in problems:
        by_level.setdefault(int(problem["level"]), []).append(problem)
    quota = allocate({level: len(rows) for level, rows in by_level.items()}, size)
    chosen = []
    for level, rows in sorted(by_level.items()):
        chosen += sorted(rows, key=lambda p: _rank(p["id"]))[:quota[level]]
    return sorted(chosen, key=lambda p: (int(p["level"]), p["id"]))


def build(raw: Path, out: Path, size: int = 100, shipped: Path = SHIPPED) -> dict:
    """Write the subset into ``out``; returns the manifest (``subset.json``). A maintainer script's
    one linear pass (read, pick, write), left in one piece."""
    bench = raw / "math500" / "test_ori.jsonl"
    runs_dir = raw / "trajectories" / "skythought" / "math500"
    if not bench.is_file() or not runs_dir.is_dir():
        raise SubsetError(f"--raw {raw}: expected math500/test_ori.jsonl and trajectories/skythought/math500/ in it")
    problems = [{"id": "math500/" + str(r["unique_id"]).removesuffix(".json"), "level": int(r["level"]),
                 "problem": r["problem"]} for r in _read_jsonl(bench)]
    if shipped.is_file():
        known = {json.loads(line)["id"] for line in shipped.read_text(encoding="utf-8").split("\n") if line.strip()}
        unknown = [p["id"] for p in problems if p["id"] not in known]
        if unknown:
            raise SubsetError(f"{bench}: {len(unknown)} problem id(s) not in {shipped}, e.g. {unknown[:3]}")
    chosen = select(problems, size)
    index = {p["problem"].strip(): i for i, p in enumerate(problems)}
    sources = _sources(raw)
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    for path in sorted(runs_dir.glob("*@*.jsonl")):
        rows = _read_jsonl(path)
        if len(rows) != len(problems):
            raise SubsetError(f"{path}: {len(rows)} rows, expected {len(problems)}")
        by_problem = {}
        for lineno, row in enumerate(rows, 1):
            at = index.get(str(row.get("question", "")).strip())
            if at is None:
                raise SubsetError(f"{path}:{lineno}: question not found in {bench}")
            code = row.get("code")
            if not isinstance(code, list) or len(code) != 1 or not isinstance(code[0], str):
                raise SubsetError(f"{path}:{lineno}: 'code' is not a list of one output")
            by_problem[problems[at]["id"]] = row
        lines = []
        for problem in chosen:
            row = by_problem[problem["id"]]
            lines.append(json.dumps({"id": problem["id"], "completion": row["code"][0],
                                     "harness_pred": (row.get("pred") or [None])[0],
                                     "harness_score": bool((row.get("score") or [False])[0])},
                                    ensure_ascii=False))
        target = out / path.name
        tmp = target.with_suffix(".jsonl.tmp")
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
        tmp.replace(target)
        model, _, commit = path.stem.partition("@")
        runs.append({"file": path.name, "model": model, "commit": commit,
                     "original_path": sources.get(path.name, ""),
                     "raw_sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
    if not runs:
        raise SubsetError(f"{runs_dir}: no <model>@<commit>.jsonl run")
    manifest = {
        "benchmark": "math500", "size": len(chosen),
        "selection": "stratified by MATH level (largest-remainder shares); within a level the smallest "
                     "sha256(seed:id); sorted by level, then id",
        "seed": SEED, "per_level": {str(k): v for k, v in allocate(
            {lv: sum(1 for p in problems if p["level"] == lv) for lv in sorted({p["level"] for p in problems})},
            size).items()},
        "problem_ids": [p["id"] for p in chosen],
        "source": {"repository": REPOSITORY, "license": LICENSE,
                   "folder": "skythought/Qwen2.5-Math/evaluation/outputs/ (Jan 2025 commits)",
                   "decoding": "greedy (t = 0), one solution per problem, Qwen2.5-Math evaluation harness"},
        "runs": runs,
    }
    (out / "subset.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.demo.subset", description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", type=Path, required=True, help="the raw sources folder (layout: node_builder/README.md, 'Raw sources')")
    parser.add_argument("--size", type=int, default=100, help="problems to keep (default 100)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: the shipped one)")
    args = parser.parse_args(argv)
    try:
        manifest = build(args.raw, args.out, args.size)
    except (SubsetError, OSError) as err:
        print(f"python -m reports.demo.subset: error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {len(manifest['runs'])} runs x {manifest['size']} problems into {args.out} "
          f"(per level: {manifest['per_level']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
