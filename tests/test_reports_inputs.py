"""reports: unusable or incomplete input — clear errors naming the path, partial reports that
say what they cannot show. Inputs are copies of the real lm-eval fixtures, damaged on purpose."""

from __future__ import annotations

import json
import math
import re
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
    assert done.returncode == 2 and "argument --coverage-threshold: must be a number in [0, 1]" in done.stderr
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


# ----------------------------------------------------------------------------- issue 15

def _edit_results(run: Path, edit) -> Path:
    results = only(run, "results_*.json")
    data = json.loads(results.read_text())
    edit(data)
    results.write_text(json.dumps(data))
    return results


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("key, value, shown", [
    ("acc,none", "high", "'high'"),
    ("ncr,none", None, "None"),
    ("tpn,none", [55.0], "[55.0]"),
    ("acc,none", True, "True"),
    ("acc_stderr,none", "0.1", "'0.1'"),
])
def test_a_metric_of_the_wrong_type_is_refused_with_file_and_key(tmp_path, key, value, shown):
    run = copy_run("greedy-192", tmp_path / "run")
    results = _edit_results(run, lambda d: d["results"]["consensusbench_gsm8k"].__setitem__(key, value))
    with pytest.raises(ReportInputError) as err:
        load_runs([str(run)])
    assert str(err.value) == (f"{results}: results.consensusbench_gsm8k[{key!r}] must be a number"
                              + (" or 'N/A'" if "_stderr" in key else "") + f", got {shown}")


def test_na_stderr_and_text_metrics_stay_accepted(tmp_path):
    run = copy_run("greedy-192", tmp_path / "run")
    _edit_results(run, lambda d: d["results"]["consensusbench_gsm8k"].update(
        {"acc_stderr,none": "N/A", "tpn_unit,none": "some/tokenizer", "acc,strict": 0.25}))
    task = load_runs([str(run)])[0].tasks["gsm8k"]
    assert task.metrics["acc"] == 0.5 and math.isnan(task.metrics["acc_stderr"])
    assert task.text_metrics["tpn_unit"] == "some/tokenizer"


@pytest.mark.parametrize("where", ["same", "parent"])
def test_an_out_folder_that_is_or_holds_an_input_is_refused(tmp_path, where):
    run = copy_run("greedy-192", tmp_path / "runs" / "run")
    before = _tree(tmp_path)
    out = run if where == "same" else tmp_path / "runs"
    done = run_cli(str(run), "--out", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"--out {out} holds the input RUN_DIR {run}" in done.stderr
    assert _tree(tmp_path) == before


def test_a_failed_build_leaves_the_previous_report_untouched(tmp_path):
    out = tmp_path / "report"
    assert run_cli(str(FIXTURES / "greedy-192"), "--out", str(out)).returncode == 0
    before = _tree(out)
    run = copy_run("greedy-64", tmp_path / "run")
    samples = only(run, "samples_consensusbench_gsm8k_*.jsonl")
    samples.write_text(samples.read_text() + "{torn\n")  # fails after the leaderboard was computed
    done = run_cli(str(run), "--out", str(out))
    assert done.returncode == 2 and f"{samples}:" in done.stderr
    assert _tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "run"]  # no temporary folder left


def test_a_rebuild_leaves_no_file_of_the_old_report(tmp_path):
    out = tmp_path / "report"
    assert run_cli(str(FIXTURES / "greedy-192"), "--out", str(out)).returncode == 0
    assert (out / "generations.csv").exists()
    run = copy_run("greedy-64", tmp_path / "run")
    for path in run.rglob("samples_*.jsonl"):
        path.unlink()
    assert run_cli(str(run), "--out", str(out)).returncode == 0
    assert not (out / "generations.csv").exists() and not (out / "figures" / "mismatch.png").exists()
    assert "greedy-192" not in (out / "leaderboard.md").read_text()


def test_an_existing_folder_that_is_not_a_report_is_never_replaced(tmp_path):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "thesis.tex").write_text("months of work")
    done = run_cli(str(FIXTURES / "greedy-192"), "--out", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"--out {out}: holds files that are not part of a report (thesis.tex)" in done.stderr
    assert _tree(out) == {"thesis.tex": b"months of work"}


@pytest.mark.parametrize("out, message", [
    ("/proc/report", "--out /proc/report: cannot create files in /proc"),
    ("FILE/report", "FILE/report: "),
])
def test_an_impossible_out_folder_is_one_line_exit_2(tmp_path, out, message):
    (tmp_path / "FILE").write_text("x")
    out, message = out.replace("FILE", str(tmp_path / "FILE")), message.replace("FILE", str(tmp_path / "FILE"))
    done = run_cli(str(FIXTURES / "greedy-192"), "--out", out)
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["FILE"]


@pytest.mark.parametrize("args, message", [
    (("--top-nodes", "0"), "argument --top-nodes: must be an integer >= 1, got '0'"),
    (("--examples", "-1"), "argument --examples: must be an integer >= 0, got '-1'"),
    (("--coverage-threshold", "nan"), "argument --coverage-threshold: must be a number in [0, 1], got 'nan'"),
])
def test_out_of_range_report_settings_are_refused_up_front(tmp_path, args, message):
    done = run_cli(str(FIXTURES / "greedy-192"), "--out", str(tmp_path / "o"), *args)
    assert done.returncode == 2 and message in done.stderr and not (tmp_path / "o").exists()


def test_markdown_escapes_model_names_and_labels(tmp_path):
    run = copy_run("greedy-192", tmp_path / "run")
    _edit_results(run, lambda d: d.update(model_name="<img src=x onerror=alert(1)>|*x*"))
    out = tmp_path / "report"
    assert run_cli(f"a|<b>={run}", "--out", str(out)).returncode == 0
    markdown = (out / "leaderboard.md").read_text()
    assert "<img" not in markdown and "<b>" not in markdown
    assert "&lt;img src=x onerror=alert(1)&gt;\\|\\*x\\*" in markdown and "a\\|&lt;b&gt;" in markdown
    header, rule, row = markdown.splitlines()[2:5]
    cells = [len(re.findall(r"(?<!\\)\|", line)) for line in (header, rule, row)]
    assert cells[0] == cells[1] == cells[2]  # the cells stay in their columns


def test_a_model_name_with_two_slashes_is_not_mangled_as_a_path(tmp_path):
    run = copy_run("greedy-192", tmp_path / "run")
    _edit_results(run, lambda d: d.update(model_name="accounts/fireworks/models/qwen3-8b"))
    assert load_runs([str(run)])[0].model == "accounts/fireworks/models/qwen3-8b"
    _edit_results(run, lambda d: d.update(model_name=str(tmp_path / "ckpt" / "checkpoint-200")))
    assert load_runs([str(run)])[0].model == "checkpoint-200"  # an absolute path is still shortened
