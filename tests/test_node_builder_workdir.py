"""Resumable work dir: torn last lines, settings checks, and a REAL kill of a running build."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from node_builder.workdir import JsonlLog, Workdir, WorkdirMismatch, code_fingerprint, write_jsonl_atomic

REPO = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "fixtures" / "node_builder"


def test_a_torn_last_line_is_dropped_and_reported(tmp_path, capsys):
    path = tmp_path / "records.jsonl"
    path.write_text('{"id": "a", "x": 1}\n{"id": "b", "x"')
    log = JsonlLog(path)
    assert "dropping a torn last line" in capsys.readouterr().err
    assert list(log.load()) == ["a"]
    log.append({"id": "b", "x": 2})
    assert path.read_text() == '{"id": "a", "x": 1}\n{"id": "b", "x": 2}\n'


def test_a_corrupt_middle_line_is_an_error_naming_file_and_line(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text('{"id": "a"}\nGARBAGE\n{"id": "c"}\n')
    with pytest.raises(RuntimeError, match="records.jsonl:2"):
        JsonlLog(path).load()


def test_inputs_are_pinned_and_build_changes_set_old_records_aside(tmp_path, capsys):
    Workdir(tmp_path, {"benchmark": "x", "n": 8}, {"k": 8}).records.append({"id": "a"})
    assert list(Workdir(tmp_path, {"benchmark": "x", "n": 8}, {"k": 8}).records.load()) == ["a"]
    with pytest.raises(WorkdirMismatch, match="differs in: n"):
        Workdir(tmp_path, {"benchmark": "x", "n": 3}, {"k": 8})
    work = Workdir(tmp_path, {"benchmark": "x", "n": 8}, {"k": 3})
    assert work.records.load() == {} and "old records moved" in capsys.readouterr().err
    assert len(list(tmp_path.glob("records.stale-*.jsonl"))) == 1


def test_code_fingerprint_changes_with_the_code():
    assert len(code_fingerprint("node_builder")) == 16
    assert code_fingerprint("node_builder") != code_fingerprint("node_builder", "consensus_metrics")


def test_atomic_write_leaves_no_temp_file(tmp_path):
    write_jsonl_atomic(tmp_path / "o.jsonl", [{"a": 1}])
    assert os.listdir(tmp_path) == ["o.jsonl"]


def _big_source(tmp_path: Path, copies: int) -> Path:
    """A GSM8K-format file large enough that a build takes many seconds (real train lines)."""
    lines = (FIX / "raw" / "gsm8k" / "train.jsonl").read_text().splitlines()
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(lines * copies) + "\n")
    return path


def _build_cmd(source: Path, out: Path, workdir: Path) -> list[str]:
    return [sys.executable, "-m", "node_builder", "build", "--benchmark", "gsm8k_train",
            "--source", f"gsm8k:{source}", "--out", str(out), "--workdir", str(workdir)]


def _lines(path: Path) -> int:
    return len(path.read_bytes().splitlines()) if path.exists() else 0


def test_kill_mid_run_then_rerun_gives_the_identical_file_with_nothing_lost_or_duplicated(tmp_path):
    source = _big_source(tmp_path, copies=40)  # 1600 problems
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    reference = tmp_path / "reference.jsonl"
    subprocess.run(_build_cmd(source, reference, tmp_path / "w_ref") + ["--quiet"], check=True, env=env,
                   timeout=600)

    out, workdir = tmp_path / "out.jsonl", tmp_path / "w"
    proc = subprocess.Popen(_build_cmd(source, out, workdir), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    records = workdir / "records.jsonl"
    deadline = time.time() + 300
    while _lines(records) < 200 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the build finished before it could be killed; make the input bigger"
    os.killpg(proc.pid, signal.SIGKILL)  # a real, unannounced kill
    proc.wait(timeout=30)
    done_at_kill = _lines(records)
    assert 200 <= done_at_kill < 1600 and not out.exists()

    rerun = subprocess.run(_build_cmd(source, out, workdir), env=env, capture_output=True, text=True,
                           timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert out.read_bytes() == reference.read_bytes()
    ids = [json.loads(line)["id"] for line in records.read_bytes().splitlines()]
    assert len(ids) == len(set(ids)) == 1600  # nothing lost, nothing built twice
    first_progress = int(re.search(r"(\d+)/1600", rerun.stderr).group(1))
    assert first_progress >= done_at_kill - 1  # the rerun started where the kill left it
