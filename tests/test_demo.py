"""The demo leaderboard: the shipped MATH-500 subset of real runs, its rebuild from the raw files,
``python -m reports import`` (the lm-eval task's scoring path), and the per-row node files.

The page itself is rendered in headless Chromium by tests/test_reports_browser.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from consensus_metrics.records import read_problem_file
from reports.build import ReportOptions, build_report
from reports.demo import run as demo
from reports.demo.subset import SubsetError, allocate, build
from reports.importing import import_run
from reports.loading import ReportInputError, load_runs
from reports.provenance import nodes_info, voted

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_RAW = ROOT / "tests" / "fixtures" / "demo" / "raw"
SUBSET = ROOT / "reports" / "demo" / "math500"
SHIPPED = ROOT / "lm_eval_tasks" / "consensusbench" / "data" / "math500.jsonl"
RAW = Path(os.environ.get("CONSENSUSBENCH_RAW", ROOT.parent / "shared" / "data" / "raw"))


# --- the subset -----------------------------------------------------------------------------------

def test_subset_from_raw_is_stratified_sorted_and_reproducible(tmp_path):
    first = build(FIXTURE_RAW, tmp_path / "a", size=6)
    second = build(FIXTURE_RAW, tmp_path / "b", size=6)
    for name in ["subset.json"] + [run["file"] for run in first["runs"]]:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    # 12 problems: level 2 x3, 3 x5, 4 x1, 5 x3 -> exact shares of 6: 1.5, 2.5, 0.5, 1.5; the two
    # seats left go by remainder, all 0.5 here: a real tie, to the lower levels
    assert first["per_level"] == {"2": 2, "3": 3, "4": 0, "5": 1} == {str(k): v for k, v in allocate(
        {2: 3, 3: 5, 4: 1, 5: 3}, 6).items()}
    levels = {json.loads(line)["unique_id"].removesuffix(".json"): json.loads(line)["level"]
              for line in (FIXTURE_RAW / "math500" / "test_ori.jsonl").read_bytes().splitlines()}
    keys = [(levels[pid.removeprefix("math500/")], pid) for pid in first["problem_ids"]]
    assert keys == sorted(keys)
    assert [run["model"] for run in first["runs"]] == ["Sky-T1-math-correct-5K-27B", "gemma-2-27b-it"]
    assert first["runs"][1]["original_path"].startswith("google/gemma-2-27b-it/math500_eval/")
    assert first["source"]["license"] == "Apache-2.0"
    rows = [json.loads(line) for line in (tmp_path / "a" / "gemma-2-27b-it@f7bcf0b.jsonl").read_bytes().splitlines()]
    assert [r["id"] for r in rows] == first["problem_ids"]
    assert all(r["completion"] and isinstance(r["harness_score"], bool) for r in rows)


def test_subset_refuses_raw_files_it_does_not_understand(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(FIXTURE_RAW, raw)
    run = raw / "trajectories" / "skythought" / "math500" / "gemma-2-27b-it@f7bcf0b.jsonl"
    run.write_text("\n".join(run.read_text().splitlines()[:-1]) + "\n")
    with pytest.raises(SubsetError, match="gemma-2-27b-it@f7bcf0b.jsonl: 11 rows, expected 12"):
        build(raw, tmp_path / "out", size=6)
    with pytest.raises(SubsetError, match="expected math500/test_ori.jsonl"):
        build(tmp_path / "nowhere", tmp_path / "out", size=6)
    with pytest.raises(SubsetError, match="--size"):
        allocate({1: 3}, 5)


def test_shipped_subset_is_consistent():
    manifest = json.loads((SUBSET / "subset.json").read_text())
    ids = manifest["problem_ids"]
    assert len(ids) == len(set(ids)) == manifest["size"] == 100
    assert sum(manifest["per_level"].values()) == 100
    shipped = {row["id"]: row for row in read_problem_file(SHIPPED)}
    assert set(ids) <= set(shipped)
    assert [str(shipped[pid]["level"]) for pid in ids] == sorted(str(shipped[pid]["level"]) for pid in ids)
    models = {run["model"] for run in manifest["runs"]}
    assert len(manifest["runs"]) == 6 and len(models) == 5
    for run in manifest["runs"]:
        rows = [json.loads(line) for line in (SUBSET / run["file"]).read_bytes().splitlines()]
        assert [r["id"] for r in rows] == ids, run["file"]
        assert all(isinstance(r["completion"], str) and r["completion"].strip() for r in rows)
        assert run["original_path"] and len(run["raw_sha256"]) == 64
    readme = (ROOT / "reports" / "demo" / "README.md").read_text()
    assert "Apache License 2.0" in readme and "NovaSky-AI/SkyThought" in readme


@pytest.mark.skipif(not (RAW / "trajectories" / "skythought" / "math500").is_dir(),
                    reason=f"raw SkyThought runs not at {RAW} (set CONSENSUSBENCH_RAW)")
def test_shipped_subset_is_what_the_script_builds_from_the_raw_files(tmp_path):
    build(RAW, tmp_path, size=100)
    for path in sorted(SUBSET.glob("*.json*")):
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), (
            f"{path.name} differs from a fresh build: rerun `python -m reports.demo.subset --raw RAW`")


# --- import: the lm-eval task's scoring path ------------------------------------------------------

def two_problems(tmp_path, model="gemma-2-27b-it@f7bcf0b"):
    rows = (SUBSET / f"{model}.jsonl").read_text().splitlines()[:2]
    path = tmp_path / f"{model}.jsonl"
    path.write_text("\n".join(rows) + "\n")
    return path, [json.loads(r) for r in rows]


def test_import_scores_like_the_lm_eval_task_and_loads_as_a_run(tmp_path):
    from lm_eval_tasks.consensusbench import utils

    trajectories, rows = two_problems(tmp_path)
    results, written = import_run(trajectories, SHIPPED, "gemma-2-27b-it", tmp_path / "out", progress=False)
    assert written and results.parent == tmp_path / "out" / "gemma-2-27b-it"
    samples = [json.loads(line) for line in next(results.parent.glob("samples_consensusbench_math500_*.jsonl"))
               .read_text().splitlines()]
    shipped = {row["id"]: row for row in read_problem_file(SHIPPED)}
    for sample, row in zip(samples, rows):
        # exactly what the task's process_results gives for the same doc and text
        doc = {**shipped[row["id"]], "tpn_tokenizer": "", "think_format": "think,sky-t1", "budget_s": 5.0}
        expected = utils.process_results(doc, [[row["completion"]]])
        assert {k: sample[k] for k in sample["metrics"]} == expected  # the scores, as the task reports them
        assert sample["doc"]["consensusbench"] == doc["consensusbench"]  # the diagnostics, as the task logs them
        assert sample["doc"]["nodes_file"] == "lm_eval_tasks/consensusbench/data/math500.jsonl" or \
            sample["doc"]["nodes_file"].endswith("lm_eval_tasks/consensusbench/data/math500.jsonl")
        assert sample["doc"]["import"]["harness_score"] == row["harness_score"]
    run = load_runs([str(results.parent)])[0]
    task = run.tasks["math500"]
    assert run.model == "gemma-2-27b-it" and task.n_problems == 2
    assert task.metrics["acc"] == sum(s["acc"] for s in samples) / 2
    # the same import again is skipped; another node file replaces it (no stale repeat is left)
    assert import_run(trajectories, SHIPPED, "gemma-2-27b-it", tmp_path / "out", progress=False) == (results, False)
    other = loo_file(tmp_path / "other_nodes.jsonl", [r["id"] for r in rows], [])
    again, written = import_run(trajectories, other, "gemma-2-27b-it", tmp_path / "out", progress=False)
    assert written and again != results and not results.exists()
    assert len(list(results.parent.glob("results_*.json"))) == len(list(results.parent.glob("samples_*.jsonl"))) == 1


def test_import_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "math500/nope", "completion": "x"}) + "\n")
    with pytest.raises(ReportInputError, match="bad.jsonl: 1 problem id"):
        import_run(bad, SHIPPED, "m", tmp_path / "out", progress=False)
    bad.write_text(json.dumps({"id": "math500/test/algebra/1214"}) + "\n")
    with pytest.raises(ReportInputError, match="bad.jsonl:1: no 'completion'"):
        import_run(bad, SHIPPED, "m", tmp_path / "out", progress=False)
    proc = subprocess.run([sys.executable, "-m", "reports", "import", str(bad), "--data", str(SHIPPED),
                           "--model", "m", "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2 and "no 'completion'" in proc.stderr


# --- node files per row ---------------------------------------------------------------------------

def test_voices_in_provenance():
    assert voted({"sources": ["reference", "skythought:Sky-T1-math-correct-5K-32B-short@dff54f1"]},
                 "Sky-T1-math-correct-5K-32B-short")
    assert voted({"voices": ["Sky-T1-math-correct-5K-32B-short-ckpts-checkpoint-105"]},
                 "Sky-T1-math-correct-5K-32B-short")
    assert not voted({"sources": ["reference"]}, "gemma-2-27b-it")
    assert not voted({"sources": ["gemma-2-27b-it-v2"]}, "gemma-2-27b-it")
    assert not voted({"sources": ["skythought:gemma-2-27b-it"], "held_out": ["gemma-2-27b-it"]}, "gemma-2-27b-it")


def test_shipped_leave_one_model_out_files_hold_the_subset_without_their_model():
    """``reports/demo/nodes/<model>.jsonl`` (``make demo-nodes``): one per model of the subset,
    the subset's problems in the shipped file's order, valid records, and no node voted by that
    model, while the other models do vote (the files are not the shipped nodes copied)."""
    from reports.demo.nodes import DEFAULT_OUT, SUBSET

    selection = json.loads(SUBSET.read_text(encoding="utf-8"))
    models = sorted({run["model"] for run in selection["runs"]})
    assert sorted(p.stem for p in DEFAULT_OUT.glob("*.jsonl")) == models
    shipped_order = [row["id"] for row in read_problem_file(SHIPPED)]
    wanted = [pid for pid in shipped_order if pid in set(selection["problem_ids"])]
    for model in models:
        rows = read_problem_file(DEFAULT_OUT / f"{model}.jsonl")  # the task's own reader: valid records
        assert [row["id"] for row in rows] == wanted, model
        assert not any(voted(row["provenance"], model) for row in rows), model
        others = [m for m in models if m != model]
        assert any(voted(row["provenance"], m) for row in rows for m in others), model


def loo_file(path: Path, ids: list[str], voices: list[str], held_out: str | None = None) -> Path:
    """A node file like the leave-one-model-out build would write (records of the shipped file,
    provenance naming the voices)."""
    shipped = {row["id"]: row for row in read_problem_file(SHIPPED)}
    with path.open("w") as fh:
        for pid in ids:
            record = dict(shipped[pid])
            record["provenance"] = {**record["provenance"], "sources": ["reference", *voices]}
            if held_out:
                record["provenance"]["held_out"] = held_out
            fh.write(json.dumps(record) + "\n")
    return path


def test_each_model_is_scored_against_its_own_node_file_and_the_page_says_which(tmp_path):
    trajectories, rows = two_problems(tmp_path)
    ids = [r["id"] for r in rows]
    nodes_dir = tmp_path / "nodes"
    nodes_dir.mkdir()
    assert demo.node_file_for("gemma-2-27b-it", nodes_dir) == demo.SHIPPED
    fair = loo_file(nodes_dir / "gemma-2-27b-it.jsonl", ids, ["skythought:Qwen2.5-Math-7B@f7bcf0b"],
                    held_out="gemma-2-27b-it")
    assert demo.node_file_for("gemma-2-27b-it", nodes_dir) == fair
    unfair = loo_file(tmp_path / "with_own_votes.jsonl", ids, ["skythought:gemma-2-27b-it@f7bcf0b"])
    import_run(trajectories, fair, "gemma-2-27b-it", tmp_path / "fair", progress=False)
    import_run(trajectories, unfair, "gemma-2-27b-it", tmp_path / "unfair", progress=False)
    runs = load_runs([f"fair={tmp_path / 'fair'}", f"unfair={tmp_path / 'unfair'}"])
    fair_info, unfair_info = (nodes_info(run, run.tasks["math500"]) for run in runs)
    assert fair_info.own_votes == 0 and fair_info.files[0].endswith("nodes/gemma-2-27b-it.jsonl")
    assert unfair_info.own_votes == 2 and unfair_info.problems == 2
    written = build_report([f"fair={tmp_path / 'fair'}", f"unfair={tmp_path / 'unfair'}"], tmp_path / "report",
                           ReportOptions())
    page = written["index.html"].read_text()
    assert "Nodes scored against" in page and "no votes of gemma-2-27b-it" in page
    assert "gemma-2-27b-it voted in the nodes of 2/2 problems: NCR optimistic" in page
    assert "unfair: NCR is optimistic" in page
    board = written["leaderboard.csv"].read_text()
    assert "nodes/gemma-2-27b-it.jsonl" in board


def test_demo_prepare_writes_the_embedded_data_file(tmp_path):
    manifest = demo.manifest()
    target = demo.write_embedded_data(tmp_path, manifest)
    rows = read_problem_file(target)
    assert [r["id"] for r in rows] == manifest["problem_ids"]
    shipped = {row["id"]: row for row in read_problem_file(SHIPPED)}
    assert all(r["nodes"] == shipped[r["id"]]["nodes"] for r in rows)
    with pytest.raises(ReportInputError, match="not imported yet"):
        demo.report(tmp_path)
