"""``python -m node_builder build`` on bad input (issue 15): one bad line costs that line only,
unusable settings and outputs are one line and exit status 2 before any work, no file is left
behind, and sources merge by what they hold, not by their file names."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from node_builder.importers import gsm8k, load_sources
from node_builder.workdir import write_jsonl_atomic

REPO = Path(__file__).resolve().parents[1]
FIX = REPO / "tests" / "fixtures" / "node_builder"
GSM8K = FIX / "raw" / "gsm8k"


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "node_builder", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})


def _build(tmp_path, *sources, out="out.jsonl", extra=()):
    args = ["build", "--benchmark", "gsm8k", "--out", str(out), "--workdir", str(tmp_path / "w"), "--quiet"]
    for source in sources:
        args += ["--source", source]
    return _cli(*args, *extra, cwd=tmp_path)


def _one_line_error(run, message):
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert message in run.stderr, run.stderr


def test_a_line_that_is_not_utf8_is_skipped_and_the_rest_is_built(tmp_path):
    lines = (GSM8K / "test.jsonl").read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"question": "', b'"question": "\xf6', 1)
    source = tmp_path / "test.jsonl"
    source.write_bytes(b"".join(lines))
    run = _build(tmp_path, f"gsm8k:{source}")
    assert run.returncode == 0, run.stderr
    assert f"skipped {source}:3 (gsm8k/test/2): bytes that are not UTF-8 at column 15" in run.stderr
    assert "Traceback" not in run.stderr
    ids = [json.loads(line)["id"] for line in (tmp_path / "out.jsonl").read_bytes().splitlines()]
    assert len(ids) == len(lines) - 1 and "gsm8k/test/2" not in ids


def test_a_bom_and_a_lone_surrogate(tmp_path):
    source = tmp_path / "test.jsonl"
    lines = (GSM8K / "test.jsonl").read_bytes().splitlines(keepends=True)[:3]
    lines[1] = json.dumps({"question": "What is 2+2\ud800?", "answer": "2+2=4\n#### 4"}).encode() + b"\n"
    source.write_bytes(b"\xef\xbb\xbf" + b"".join(lines))
    run = _build(tmp_path, f"gsm8k:{source}")
    assert run.returncode == 0, run.stderr
    assert f"skipped {source}:2 (gsm8k/test/1): not Unicode text: a lone surrogate \\ud800" in run.stderr
    ids = [json.loads(line)["id"] for line in (tmp_path / "out.jsonl").read_bytes().splitlines()]
    assert ids == ["gsm8k/test/0", "gsm8k/test/2"]


def test_renamed_gsm8k_sources_still_merge(tmp_path):
    shutil.copy(GSM8K / "test.jsonl", tmp_path / "a.jsonl")
    shutil.copy(GSM8K / "test_socratic.jsonl", tmp_path / "b.jsonl")
    merged = load_sources([f"gsm8k:{tmp_path}/a.jsonl", f"gsm8k-socratic:{tmp_path}/b.jsonl"], "gsm8k")
    assert len(merged.problems) == 8 and not merged.skipped
    assert all([t.source for t in p.trajectories] == ["reference", "socratic"] for p in merged.problems)
    shutil.copy(GSM8K / "test_socratic.jsonl", tmp_path / "gsm8k-test-socratic-copy.jsonl")
    assert gsm8k.load(tmp_path / "gsm8k-test-socratic-copy.jsonl").problems[0].id == "gsm8k/test/0"
    assert gsm8k.load(GSM8K / "train.jsonl").problems[0].id == "gsm8k/train/0"
    shutil.copy(GSM8K / "test.jsonl", tmp_path / "latest.jsonl")  # "test" inside a word names no split
    assert gsm8k.load(tmp_path / "latest.jsonl").problems[0].id == "gsm8k/latest/0"


def test_an_out_that_is_a_directory_fails_before_any_work_and_leaves_nothing(tmp_path):
    (tmp_path / "outdir").mkdir()
    run = _build(tmp_path, f"gsm8k:{GSM8K}/test.jsonl", out=tmp_path / "outdir")
    _one_line_error(run, f"--out {tmp_path / 'outdir'}: is a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outdir"]
    assert list((tmp_path / "outdir").iterdir()) == []


def test_a_failed_final_write_leaves_no_temporary_file(tmp_path):
    with pytest.raises(TypeError):
        write_jsonl_atomic(tmp_path / "o.jsonl", [{"id": "a"}, {"id": object()}])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("out, message", [
    ("/proc/nb/out.jsonl", "--out /proc/nb/out.jsonl: cannot create files in /proc"),
    ("FILE/out.jsonl", "FILE is not a folder"),
])
def test_an_impossible_out_is_one_line_exit_2_and_leaves_nothing(tmp_path, out, message):
    (tmp_path / "FILE").write_text("x")
    run = _build(tmp_path, f"gsm8k:{GSM8K}/test.jsonl", out=out.replace("FILE", str(tmp_path / "FILE")))
    _one_line_error(run, message.replace("FILE", str(tmp_path / "FILE")))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["FILE"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_a_read_only_out_folder_is_one_line_exit_2(tmp_path):
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o555)
    run = _build(tmp_path, f"gsm8k:{GSM8K}/test.jsonl", out=tmp_path / "ro" / "out.jsonl")
    _one_line_error(run, "cannot create files in")


@pytest.mark.parametrize("which", ["source", "workdir"])
def test_an_out_that_is_an_input_is_refused(tmp_path, which):
    source = tmp_path / "test.jsonl"
    shutil.copy(GSM8K / "test.jsonl", source)
    before = source.read_bytes()
    out = source if which == "source" else tmp_path / "w" / "records.jsonl"
    run = _build(tmp_path, f"gsm8k:{source}", out=out)
    flag = "--source" if which == "source" else "--workdir"
    _one_line_error(run, f"--out {out}")
    assert flag in run.stderr and source.read_bytes() == before and not (tmp_path / "w").exists()


def test_a_missing_source_and_a_workdir_of_other_inputs_are_one_line(tmp_path):
    run = _build(tmp_path, f"gsm8k:{tmp_path}/nope.jsonl")
    _one_line_error(run, f"--source gsm8k:{tmp_path}/nope.jsonl: {tmp_path}/nope.jsonl does not exist")
    assert not (tmp_path / "w").exists()
    run = _build(tmp_path, f"nokind:{GSM8K}/test.jsonl")
    _one_line_error(run, "bad --source 'nokind:")
    assert _build(tmp_path, f"gsm8k:{GSM8K}/test.jsonl").returncode == 0
    run = _build(tmp_path, f"gsm8k:{GSM8K}/train.jsonl")
    _one_line_error(run, "was started with other settings (differs in: sources)")


def test_a_source_where_every_line_is_bad_exits_non_zero(tmp_path):
    source = tmp_path / "test.jsonl"
    source.write_text('{not json\n[1, 2]\n{"question": "q"}\n')
    run = _build(tmp_path, f"gsm8k:{source}")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "no usable problem in the sources (3 skipped)" in run.stderr
    assert not (tmp_path / "out.jsonl").exists() and not (tmp_path / "w").exists()


@pytest.mark.parametrize("args, message", [
    (("--limit", "0"), "argument --limit: must be an integer >= 1, got '0'"),
    (("--max-nodes", "0"), "argument --max-nodes: must be an integer >= 1, got '0'"),
    (("--min-share", "0"), "argument --min-share: must be a number in (0, 1], got '0'"),
    (("--min-share", "1.5"), "argument --min-share: must be a number in (0, 1], got '1.5'"),
    (("--min-share", "nan"), "argument --min-share: must be a number in (0, 1], got 'nan'"),
    (("--n", "0"), "argument --n: must be an integer >= 1, got '0'"),
    (("--top-p", "0"), "argument --top-p: must be a number in (0, 1], got '0'"),
    (("--temperature", "-1"), "argument --temperature: must be a finite number >= 0, got '-1'"),
])
def test_out_of_range_settings_are_refused_up_front(tmp_path, args, message):
    run = _build(tmp_path, f"gsm8k:{GSM8K}/test.jsonl", extra=args)
    assert run.returncode == 2 and message in run.stderr
    assert not (tmp_path / "w").exists() and not (tmp_path / "out.jsonl").exists()
    run = _cli("build-all", "--raw", str(FIX / "raw"), "--out-dir", str(tmp_path / "d"), *args[:2], cwd=tmp_path)
    if args[0] in ("--max-nodes", "--min-share"):
        assert run.returncode == 2 and message in run.stderr and not (tmp_path / "d").exists()


def test_build_all_puts_each_file_in_its_place_under_the_out_dir(tmp_path):
    run = _cli("build-all", "--raw", str(FIX / "raw"), "--out-dir", str(tmp_path / "root"), "--only", "gsm8k",
               "gsm8k_train", "--workdir-root", str(tmp_path / "w"), "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    built = sorted(p.relative_to(tmp_path / "root").as_posix() for p in (tmp_path / "root").rglob("*.jsonl"))
    assert built == ["lm_eval_tasks/consensusbench/data/gsm8k.jsonl", "training_recipes/data/gsm8k_train.jsonl"]
    train = [json.loads(line) for line in (tmp_path / "root" / built[1]).read_bytes().splitlines()]
    assert len(train) == 40 and all(r["benchmark"] == "gsm8k_train" for r in train)  # the fixture's 40 lines


def test_build_all_names_the_missing_raw_file_and_the_layout(tmp_path):
    run = _cli("build-all", "--raw", str(FIX / "raw"), "--out-dir", str(tmp_path / "root"), cwd=tmp_path)
    _one_line_error(run, f"--raw {FIX / 'raw'}: math500: --source runs:{FIX / 'raw'}/trajectories/skythought/math500")
    assert "(layout: node_builder/README.md, 'Raw sources')" in run.stderr
    assert not (tmp_path / "root").exists()


def test_a_parallel_build_writes_the_serial_build_byte_for_byte(tmp_path):
    from node_builder.shipped import shipped_sources

    # the fixture raw folder holds real rows of every staged GSM8K run: several voices per problem
    sources = [spec for spec in shipped_sources("gsm8k", FIX / "raw") if Path(spec.partition(":")[2]).exists()]
    outs = []
    for workers in (1, 2):
        out = tmp_path / f"out{workers}.jsonl"
        args = ["build", "--benchmark", "gsm8k", "--out", str(out), "--workdir", str(tmp_path / f"w{workers}"),
                "--quiet", "--workers", str(workers)]
        for source in sources:
            args += ["--source", source]
        run = _cli(*args, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") >= 5
