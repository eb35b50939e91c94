"""reports: unusable or incomplete input — clear errors naming the path, partial reports that
say what they cannot show. Inputs are copies of the real lm-eval fixtures, damaged on purpose."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from reports.build import ReportOptions, build_report
from reports.loading import ReportInputError, load_runs

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "reports"


def copy_run(name: str, dest: Path) -> Path:
    shutil.copytree(FIXTURES / name, dest)
    return dest


def only(folder: Path, pattern: str) -> Path:
    found = sorted(folder.rglob(pattern))
    assert len(found) == 1, found
    return found[0]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reports", "build", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def test_missing_path(tmp_path):
    missing = tmp_path / "nowhere"
    done = run_cli(str(missing), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert f"error: {missing}: does not exist" in done.stderr
    assert "Traceback" not in done.stderr


def test_folder_that_is_not_an_lm_eval_output(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    done = run_cli(str(tmp_path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert f"{tmp_path}: not an lm-eval output folder: no results_<timestamp>.json inside" in done.stderr
    with pytest.raises(ReportInputError, match="not an lm-eval results file"):
        load_runs([str(tmp_path / "notes.txt")])


def test_corrupt_results_json(tmp_path):
    run = copy_run("greedy-192", tmp_path / "run")
    results = only(run, "results_*.json")
    results.write_text(results.read_text()[:500])
    done = run_cli(str(run), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert f"error: {results}: corrupt JSON at line" in done.stderr
    assert not (tmp_path / "out" / "index.html").exists()


def test_results_json_of_another_kind(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results_2026-01-01T00-00-00.json").write_text(json.dumps([1, 2]))
    with pytest.raises(ReportInputError, match=r"results_2026-01-01T00-00-00\.json: not an lm-eval "
                                               r"results file \(no 'results' object"):
        load_runs([str(run)])
    (run / "results_2026-01-01T00-00-00.json").write_text(json.dumps(
        {"results": {"gsm8k": {"exact_match,strict-match": 0.1}}, "configs": {}}))
    with pytest.raises(ReportInputError, match="no ConsensusBench task in this results file "
                                               r"\(it has: gsm8k\)"):
        load_runs([str(run)])


def test_corrupt_samples_line_names_file_and_line(tmp_path):
    run = copy_run("greedy-192", tmp_path / "run")
    samples = only(run, "samples_consensusbench_gsm8k_*.jsonl")
    lines = samples.read_text().splitlines()
    lines[2] = lines[2][:40]
    samples.write_text("\n".join(lines) + "\n")
    done = run_cli(str(run), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert f"error: {samples}:3: corrupt JSON" in done.stderr


def test_samples_line_that_is_not_lm_eval(tmp_path):
    run = copy_run("greedy-192", tmp_path / "run")
    samples = only(run, "samples_consensusbench_math500_*.jsonl")
    samples.write_text('{"hello": 1}\n')
    with pytest.raises(ReportInputError, match=rf"{samples.name}:1: no 'doc' object"):
        build_report([str(run)], tmp_path / "out")


def test_missing_samples_files_are_reported_not_fatal(tmp_path):
    run = copy_run("greedy-64", tmp_path / "run")
    for path in run.rglob("samples_*.jsonl"):
        path.unlink()
    out = tmp_path / "out"
    written = build_report([str(run)], out)
    board = pd.read_csv(out / "leaderboard.csv")
    assert board.loc[0, "gsm8k/acc"] == pytest.approx(
        json.loads(only(run, "results_*.json").read_text())["results"]["consensusbench_gsm8k"]
        ["acc,none"])
    page = (out / "index.html").read_text()
    assert "What this report cannot show" in page
    assert "no samples file for consensusbench_math500, consensusbench_gsm8k, consensusbench_aime24" \
        in page
    assert "No run has a samples file (run lm_eval with --log_samples)" in page
    assert "mismatch.csv" not in written and "generations.csv" not in written
    assert 'id="leaderboard-table"' in page


def test_one_missing_samples_file_among_others(tmp_path):
    run = copy_run("greedy-192", tmp_path / "run")
    only(run, "samples_consensusbench_math500_*.jsonl").unlink()
    out = tmp_path / "out"
    build_report([str(run), str(FIXTURES / "greedy-64")], out)
    page = (out / "index.html").read_text()
    assert "run: no samples file for consensusbench_math500" in page
    gens = pd.read_csv(out / "generations.csv")
    assert set(gens[gens["run"] == "run"]["key"]) == {"gsm8k"}
    assert set(gens[gens["run"] == "greedy-64"]["key"]) == {"gsm8k", "math500", "aime24"}


def test_no_math500_means_no_difficulty_breakdown(tmp_path):
    out = tmp_path / "out"
    run = copy_run("greedy-192", tmp_path / "gsm-only")
    for path in run.rglob("*math500*"):
        path.unlink()
    results = only(run, "results_*.json")
    data = json.loads(results.read_text())
    del data["results"]["consensusbench_math500"]
    results.write_text(json.dumps(data))
    build_report([str(run)], out)
    page = (out / "index.html").read_text()
    assert "No run evaluated MATH-500 (consensusbench_math500)" in page
    assert list(pd.read_csv(out / "leaderboard.csv").filter(regex="/acc$").columns) == ["gsm8k/acc"]


def test_bad_threshold_and_unknown_sort_column(tmp_path):
    done = run_cli(str(FIXTURES / "greedy-192"), "--out", str(tmp_path / "o"),
                   "--coverage-threshold", "1.5")
    assert done.returncode == 2 and "must lie in [0, 1]" in done.stderr
    done = run_cli(str(FIXTURES / "greedy-192"), "--out", str(tmp_path / "o"), "--sort-by", "xyz")
    assert done.returncode == 2 and "--sort-by 'xyz': no such column" in done.stderr


def test_threshold_changes_the_cells(tmp_path):
    low = build_report([str(FIXTURES / "greedy-192")], tmp_path / "low", ReportOptions(threshold=0.0))
    table = pd.read_csv(low["mismatch.csv"])
    row = table[table["key"] == "all"].iloc[0]
    # with tau = 0 every generation of a problem with nodes counts as covered
    assert row["right, missing process"] == 0 and row["wrong & uncovered"] == 0
    assert row["right & covered"] + row["near miss"] == row["generations"] - row["no nodes"]


def test_output_path_given_as_a_json_file_name(tmp_path):
    # `lm_eval --output_path out/qwen.json` writes out/qwen_<ts>.json and out/samples_*_<ts>.jsonl
    # (lm_eval/loggers/evaluation_tracker.py); the fixture files renamed that way stand in for it.
    folder = tmp_path / "out"
    folder.mkdir()
    for path in (FIXTURES / "greedy-192").rglob("*"):
        if path.is_file():
            name = path.name.replace("results_", "qwen_") if path.suffix == ".json" else path.name
            (folder / name).write_bytes(path.read_bytes())
    runs = load_runs([str(folder)])
    assert len(runs) == 1 and runs[0].label == "out"
    assert all(task.samples_path is not None for task in runs[0].tasks.values())
    (folder / "notes_2026.json").write_text("{}")  # an unrelated JSON file is not a results file
    assert len(load_runs([str(folder)])) == 1
