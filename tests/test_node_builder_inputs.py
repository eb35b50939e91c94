"""``python -m node_builder`` on inputs that are no files, bad settings and bad data files
(issue 24, item 10): one line naming the input, exit status 2, and never a read of unbounded
input (a FIFO would block forever, /dev/zero would fill memory)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fs_faults import full_disk
from interrupts import restore_sigint

REPO = Path(__file__).resolve().parents[1]
GSM8K = REPO / "tests" / "fixtures" / "node_builder" / "raw" / "gsm8k"
SHIPPED = REPO / "lm_eval_tasks" / "consensusbench" / "data" / "gsm8k.jsonl"


def _cli(*args, cwd, timeout=120):
    return subprocess.run([sys.executable, "-m", "node_builder", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})


def _build(tmp_path, *sources, extra=(), out="out.jsonl"):
    args = ["build", "--benchmark", "gsm8k", "--out", out, "--workdir", str(tmp_path / "w"), "--quiet"]
    for source in sources:
        args += ["--source", source]
    return _cli(*args, *extra, cwd=tmp_path)


def _one_line(run) -> str:
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.strip().splitlines()
    return lines[-1] if lines[0].startswith("usage:") else (lines[0] if len(lines) == 1 else run.stderr)


@pytest.mark.parametrize("what", ["folder", "fifo", "/dev/zero"])
def test_a_source_that_is_no_regular_file_is_refused_unread(tmp_path, what):
    """A folder gave a traceback, a FIFO hung forever, /dev/zero was read until memory ran out."""
    if what == "folder":
        path = tmp_path / "gsm8k"
        path.mkdir()
        message = f"--source gsm8k:{path}: is a folder, not a file"
    elif what == "fifo":
        path = tmp_path / "fifo.jsonl"
        os.mkfifo(path)
        message = f"--source gsm8k:{path}: not a regular file"
    else:
        path = Path("/dev/zero")
        message = "--source gsm8k:/dev/zero: not a regular file"
    line = _one_line(_build(tmp_path, f"gsm8k:{path}"))
    assert line == f"python -m node_builder: error: {message}" or message in line, line
    assert not (tmp_path / "out.jsonl").exists()


def test_a_source_kind_that_takes_a_folder_still_does(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(GSM8K / "test.jsonl", tmp_path / "test.jsonl")
    run = _build(tmp_path, f"gsm8k:{tmp_path / 'test.jsonl'}", f"runs:{runs}")
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("arg, message", [
    (("--map", "idx"), "argument --map: must be FIELD=NAME, got 'idx'"),
    (("--map", "colour=x"), "argument --map: unknown field 'colour'"),
    (("--engine-arg", "foo"), "argument --engine-arg: must be KEY=VALUE, got 'foo'"),
])
def test_a_bad_map_or_engine_arg_is_refused_up_front(tmp_path, arg, message):
    """--map idx raised a ValueError traceback; --engine-arg foo exited 1."""
    shutil.copy(GSM8K / "test.jsonl", tmp_path / "test.jsonl")
    line = _one_line(_build(tmp_path, f"gsm8k:{tmp_path / 'test.jsonl'}", extra=arg))
    assert message in line, line


@pytest.mark.parametrize("case, message", [
    ("missing", "no.jsonl: no such file"),
    ("folder", "sub: is a folder, not a file"),
    ("bad json", "d.jsonl:2: not valid JSON"),
    ("nested", "d.jsonl:2: not valid JSON (nested too deeply)"),
    ("no nodes", "d.jsonl:2: field 'nodes' must be a list"),
    ("bad provenance", "d.jsonl:2: field 'provenance' must be an object"),
])
def test_stats_on_a_missing_or_malformed_file_is_one_line(tmp_path, case, message):
    lines = SHIPPED.read_text(encoding="utf-8").split("\n")[:3]
    second = json.loads(lines[1])
    if case == "bad json":
        lines[1] = lines[1][:-5]
    elif case == "nested":
        lines[1] = "[" * 100_000
    elif case == "no nodes":
        lines[1] = json.dumps({**second, "nodes": "n1"})
    elif case == "bad provenance":
        lines[1] = json.dumps({**second, "provenance": ["reference"]})
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "sub").mkdir()
    name = {"missing": "no.jsonl", "folder": "sub"}.get(case, "d.jsonl")
    line = _one_line(_cli("stats", name, cwd=tmp_path))
    assert message in line, line


def test_stats_of_the_shipped_file_is_unchanged_by_the_checks(tmp_path):
    from node_builder.stats import file_stats

    stats = file_stats(str(SHIPPED))
    assert stats["problems"] == 1319 and stats["nodes"] > 0


def test_a_corrupt_work_dir_is_one_line(tmp_path):
    shutil.copy(GSM8K / "test.jsonl", tmp_path / "test.jsonl")
    assert _build(tmp_path, f"gsm8k:{tmp_path / 'test.jsonl'}").returncode == 0
    records = tmp_path / "w" / "records.jsonl"
    records.write_text("[" * 100_000 + "\n" + records.read_text())
    line = _one_line(_build(tmp_path, f"gsm8k:{tmp_path / 'test.jsonl'}"))
    assert f"{records}:1: corrupt work-dir line" in line


def test_a_full_disk_is_one_line(tmp_path):
    shutil.copy(GSM8K / "test.jsonl", tmp_path / "test.jsonl")
    with full_disk(tmp_path) as full:
        run = _cli("build", "--benchmark", "gsm8k", "--source", f"gsm8k:{tmp_path / 'test.jsonl'}", "--out",
                   str(tmp_path / "out.jsonl"), "--workdir", str(full / "w"), "--quiet", cwd=tmp_path)
        line = _one_line(run)
        assert "cannot write" in line and "No space left on device" in line, line


def test_a_source_line_nested_too_deeply_is_skipped_and_the_rest_built(tmp_path):
    """Issue 24, item 7: a line of 100,000 '[' raised RecursionError out of the importer."""
    lines = (GSM8K / "test.jsonl").read_bytes().splitlines(keepends=True)
    source = tmp_path / "test.jsonl"
    source.write_bytes(lines[0] + b"[" * 100_000 + b"\n" + b"".join(lines[1:]))
    run = _build(tmp_path, f"gsm8k:{source}")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert f"skipped {source}:2" in run.stderr and "nested too deeply" in run.stderr
    assert len((tmp_path / "out.jsonl").read_bytes().splitlines()) == len(lines)


def test_ctrl_c_stops_a_build_with_one_line_and_the_rerun_goes_on(tmp_path):
    import signal
    import time

    row = {"question": "Tom has 3 apples and buys {n} more. How many apples does he have?",
           "answer": "He has 3+{n}=<<3+{n}={m}>>{m} apples.\n#### {m}"}
    source = tmp_path / "test.jsonl"
    source.write_text("".join(json.dumps({k: v.format(n=n, m=n + 3) for k, v in row.items()}) + "\n"
                              for n in range(4000)))
    argv = [sys.executable, "-m", "node_builder", "build", "--benchmark", "gsm8k", "--source", f"gsm8k:{source}",
            "--out", "out.jsonl", "--workdir", str(tmp_path / "w"), "--quiet"]
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=restore_sigint)
    records = tmp_path / "w" / "records.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (not records.exists() or records.stat().st_size < 20_000):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 130 and "Traceback" not in err, err[-3000:]
    assert err.strip().splitlines()[-1].startswith("python -m node_builder: interrupted: ")
    done = len(records.read_bytes().splitlines())
    assert 0 < done < 4000 and not (tmp_path / "out.jsonl").exists()
    again = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert len((tmp_path / "out.jsonl").read_bytes().splitlines()) == 4000
