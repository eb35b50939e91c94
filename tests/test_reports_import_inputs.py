"""``python -m reports import`` on bad and hostile input (issue 24): repetition loops, bad lines,
unusable --out and --budget, a full disk, a model name that would leave --out; and ``reports
build`` on results files that are nested too deeply, infinite or written onto a full disk."""

from __future__ import annotations

import errno
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fs_faults import full_disk, read_only_folder
from interrupts import restore_sigint

from reports.build import build_report
from reports.importing import import_run
from reports.loading import ReportInputError, load_runs, sample_diagnostics

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "reports"
DATA = [
    {"id": "g1", "benchmark": "gsm8k", "problem": "Janet's ducks ...", "answer": "18",
     "nodes": [{"id": "n1", "text": "16-3-4=9", "kind": "equation"}, {"id": "n2", "text": "9*2=18", "kind": "equation"}]},
    {"id": "g2", "benchmark": "gsm8k", "problem": "A robe ...", "answer": "3",
     "nodes": [{"id": "n1", "text": "2/2=1", "kind": "equation"}]},
]
LOOP = " = ".join(["16-3-4", "9"] * 1100) + " \\boxed{18}"  # 16 KB: a model caught in a loop


def _files(tmp_path: Path, rows, extra=()) -> tuple[Path, Path]:
    data, trajectories = tmp_path / "data.jsonl", tmp_path / "t.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in DATA))
    trajectories.write_text("".join(json.dumps(r) + "\n" for r in rows) + "".join(line + "\n" for line in extra))
    return data, trajectories


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reports", "import", *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)


def _one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    return line


def test_a_repetition_loop_that_runs_out_of_time_is_imported(tmp_path):
    """Issue 24, item 2: a 16 KB loop ran the scorer out of its budget before the token count,
    and process_results added up the unknown n_tokens (TypeError)."""
    data, trajectories = _files(tmp_path, [{"id": "g1", "completion": LOOP}, {"id": "g2", "completion": "\\boxed{3}"}])
    results, written = import_run(trajectories, data, "m", tmp_path / "out", progress=False, budget_s=0.05)
    assert written
    entry = json.loads(results.read_text())["results"]["consensusbench_gsm8k"]
    (samples,) = results.parent.glob("samples_*.jsonl")
    logged = [sample_diagnostics(json.loads(line)) for line in samples.read_text(encoding="utf-8").split("\n") if line]
    assert entry["acc,none"] in (0.5, 1.0) and sum(d["generations"] for d in logged) == 2
    written = build_report([str(results.parent)], tmp_path / "report")  # and the run reads as a report
    assert written["index.html"].is_file()


def test_a_bad_line_is_reported_and_skipped(tmp_path):
    """Issue 24, item 12: one bad line stopped the import, although bad lines are reported and
    skipped (README); so is a line nested too deeply to read (item 7)."""
    data, trajectories = _files(tmp_path, [{"id": "g1", "completion": "\\boxed{18}"}],
                                extra=["{torn", "[" * 100_000, json.dumps({"id": "g2"}),
                                       json.dumps({"id": "g2", "completion": "\\boxed{3}"})])
    done = _cli(tmp_path, "t.jsonl", "--data", "data.jsonl", "--model", "m", "--out", "out", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "t.jsonl:2: not valid JSON" in done.stderr and "t.jsonl:3: not valid JSON (nested too deeply)" in done.stderr
    assert "t.jsonl:4: no 'completion' (a string) or 'completions' (a list); skipped" in done.stderr
    (samples,) = (tmp_path / "out" / "m").glob("samples_*.jsonl")
    assert [json.loads(line)["doc"]["id"] for line in samples.read_text().split("\n") if line] == ["g1", "g2"]


@pytest.mark.parametrize("budget", [-1, math.nan, 0, math.inf, "soon", None])
def test_a_budget_that_is_no_finite_positive_number_is_refused_up_front(tmp_path, budget):
    """Issue 24, item 9: -1 and NaN crashed after the inputs were read, 0 was recorded while 1 s
    was used, inf wrote Infinity into the results JSON."""
    _files(tmp_path, [{"id": "g1", "completion": "\\boxed{18}"}])
    with pytest.raises(ValueError, match="--budget must be a finite number > 0"):
        import_run(tmp_path / "t.jsonl", tmp_path / "data.jsonl", "m", tmp_path / "out", progress=False,
                   budget_s=budget)
    assert not (tmp_path / "out").exists()


def test_the_command_refuses_such_a_budget_in_one_line(tmp_path):
    _files(tmp_path, [{"id": "g1", "completion": "\\boxed{18}"}])
    done = _cli(tmp_path, "t.jsonl", "--data", "data.jsonl", "--model", "m", "--out", "out", "--budget", "nan")
    assert done.returncode == 2 and "Traceback" not in done.stderr  # argparse: its usage line, then the error
    assert done.stderr.strip().splitlines()[-1].endswith("argument --budget: must be a finite number > 0, got 'nan'")
    assert not (tmp_path / "out").exists()


def test_an_out_that_is_a_file_is_refused_before_reading(tmp_path):
    """Issue 24, item 9: --out a file crashed (NotADirectoryError) after reading the inputs."""
    _files(tmp_path, [{"id": "g1", "completion": "\\boxed{18}"}], extra=["{torn"])
    (tmp_path / "out").write_text("notes")
    line = _one_line(_cli(tmp_path, "t.jsonl", "--data", "data.jsonl", "--model", "m", "--out", "out"))
    assert line.startswith("python -m reports import: error: --out out: ") and "not a folder" in line
    assert (tmp_path / "out").read_text() == "notes"


def test_a_read_only_out_is_refused(tmp_path):
    _files(tmp_path, [{"id": "g1", "completion": "\\boxed{18}"}])
    with read_only_folder(tmp_path, writable_files=False) as folder:
        line = _one_line(_cli(tmp_path, "t.jsonl", "--data", "data.jsonl", "--model", "m", "--out", str(folder)))
        assert f"--out {folder}: cannot create files in {folder}" in line


def test_a_full_disk_is_one_line_and_leaves_no_partial_file(tmp_path):
    """Issue 24, item 8: ENOSPC ended in a traceback and left a partial .samples_*.tmpPID."""
    _files(tmp_path, [{"id": "g1", "completion": "x = 1. " * 40_000 + "\\boxed{18}"}])  # 280 KB of samples
    with full_disk(tmp_path) as full:
        line = _one_line(_cli(tmp_path, "t.jsonl", "--data", "data.jsonl", "--model", "m", "--out", str(full),
                              "--quiet"))
        assert line == f"python -m reports import: error: --out {full}: cannot write: No space left on device"
        assert [p.name for p in (full / "m").iterdir()] == []


def test_a_full_disk_faked_leaves_no_partial_file(tmp_path, monkeypatch):
    """The same where no file system can be mounted: the samples file's write fails half-way
    (a fake: this machine's disks are not full)."""
    data, trajectories = _files(tmp_path, [{"id": "g1", "completion": "\\boxed{18}"}])
    real_write_text = Path.write_text

    def half_then_full(self, text, *args, **kwargs):
        real_write_text(self, text[: len(text) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half_then_full)
    with pytest.raises(ReportInputError, match="cannot write: No space left on device"):
        import_run(trajectories, data, "m", tmp_path / "out", progress=False)
    assert list((tmp_path / "out" / "m").iterdir()) == []


@pytest.mark.parametrize("model", ["..", ".", "../..", "a/../../b"])
def test_a_model_name_never_leads_out_of_out(tmp_path, model):
    """Issue 24, item 12: --model .. wrote the run beside --out instead of inside it."""
    data, trajectories = _files(tmp_path, [{"id": "g1", "completion": "\\boxed{18}"}])
    results, _ = import_run(trajectories, data, model, tmp_path / "out", progress=False)
    assert results.resolve().parent.parent == (tmp_path / "out").resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.jsonl", "out", "t.jsonl"]


# ----------------------------------------------------------------------------- reports build

def _copy_run(tmp_path: Path) -> tuple[Path, Path]:
    run = shutil.copytree(FIXTURES / "greedy-192", tmp_path / "run")
    (results,) = run.rglob("results_*.json")
    return run, results


def test_a_results_file_nested_too_deeply_is_corrupt_json(tmp_path):
    """Issue 24, item 7: a RecursionError out of json.loads."""
    run, results = _copy_run(tmp_path)
    results.write_text("[" * 100_000)
    with pytest.raises(ReportInputError, match="corrupt JSON at line 1 column 1 \\(nested too deeply\\)"):
        load_runs([str(run)])


@pytest.mark.parametrize("key", ["acc,none", "ncr_stderr,none", "pass@16,none"])
def test_an_infinite_metric_is_refused(tmp_path, key):
    """Issue 24, item 12: "acc,none": Infinity was shown as "inf"."""
    run, results = _copy_run(tmp_path)
    data = json.loads(results.read_text())
    data["results"]["consensusbench_gsm8k"][key] = float("inf")
    results.write_text(json.dumps(data))
    with pytest.raises(ReportInputError, match=f"\\[{key!r}\\] must be a finite number, got inf"):
        load_runs([str(run)])


def test_a_full_disk_during_a_build_is_one_line_and_keeps_nothing_half_written(tmp_path):
    """Issue 24, item 8: ENOSPC during `reports build` ended in a traceback."""
    with full_disk(tmp_path) as full:
        done = subprocess.run([sys.executable, "-m", "reports", "build", str(FIXTURES / "greedy-192"),
                               "--out", str(full / "report")], capture_output=True, text=True, cwd=ROOT, timeout=300)
        line = _one_line(done)
        assert line == f"python -m reports: error: --out {full / 'report'}: cannot write: No space left on device"
        assert sorted(p.name for p in full.iterdir()) == [".filler"]


def test_a_full_disk_during_a_build_faked(tmp_path, monkeypatch):
    """The same where no file system can be mounted (a fake: the page's write fails)."""
    from reports import build

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(build, "_write", full)
    with pytest.raises(ReportInputError, match="cannot write: No space left on device"):
        build_report([str(FIXTURES / "greedy-192")], tmp_path / "report")
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_stops_an_import_with_one_line_and_writes_nothing(tmp_path):
    import signal
    import time

    _files(tmp_path, [{"id": "g1", "completions": [f"{i} * 2 = {2 * i}, 16 - 3 - 4 = 9. \\boxed{{{i}}}"
                                                    for i in range(4000)]}])
    proc = subprocess.Popen([sys.executable, "-m", "reports", "import", "t.jsonl", "--data", "data.jsonl", "--model",
                             "m", "--out", "out"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=restore_sigint)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not (tmp_path / "out" / "m").is_dir():
        time.sleep(0.05)
    time.sleep(1.0)  # scoring now
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 130 and "Traceback" not in err, err[-3000:]
    assert err.strip().splitlines()[-1] == "python -m reports import: interrupted: nothing was written"
    assert list((tmp_path / "out" / "m").iterdir()) == []
