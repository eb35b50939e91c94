"""``python -m consensus_metrics score`` on real files: table, bad lines, resume after a crash."""

import json
import os
import subprocess
import sys

import pytest
from fs_faults import full_disk, no_space_left, read_only_folder
from interrupts import restore_sigint

from consensus_metrics import cli

DATA = [
    {"id": "g1", "benchmark": "gsm8k", "problem": "Janet's ducks ...", "answer": "18",
     "nodes": [{"id": "n1", "text": "16-3-4=9", "kind": "equation"}, {"id": "n2", "text": "9*2=18", "kind": "equation"}]},
    {"id": "g2", "benchmark": "gsm8k", "problem": "A robe ...", "answer": "3",
     "nodes": [{"id": "n1", "text": "2/2=1", "kind": "equation"}]},
    {"id": "m1", "benchmark": "math500", "problem": "...", "answer": "\\frac{1}{2}", "nodes": []},
]
SAMPLES = [
    {"id": "g1", "completions": ["She sells 16 - 3 - 4 = 9 eggs and makes 9 * 2 = $18. \\boxed{18}", "\\boxed{20}"]},
    {"id": "g2", "completion": "It takes 2/2 = 1 bolt, 2 + 1 = 3 in total. \\boxed{3}"},
    {"doc": {"id": "m1"}, "resps": [["so the answer is \\boxed{0.5}"]]},
]


def write_jsonl(path, rows, extra=()):
    with open(path, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
        for line in extra:
            fh.write(line + "\n")


def run(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "consensus_metrics", "score", *args], capture_output=True, text=True, cwd=tmp_path, timeout=120)


@pytest.fixture
def files(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA, extra=["{not json"])
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES, extra=["[1, 2]", json.dumps({"id": "nope", "completion": "x"})])
    return tmp_path


def test_score_command_end_to_end(files):
    out = files / "scores.jsonl"
    proc = run(files, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "scores.jsonl", "--quiet")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_bytes().splitlines()]
    assert [(r["id"], r["sample"], r["acc"]) for r in rows] == [("g1", 0, 1), ("g1", 1, 0), ("g2", 0, 1), ("m1", 0, 1)]
    assert rows[0]["ncr"] == 1.0 and rows[1]["ncr"] == 0.0 and rows[3]["ncr"] is None
    assert "data.jsonl:4: not valid JSON" in proc.stderr
    assert "samples.jsonl:4: expected a JSON object" in proc.stderr
    assert "unknown problem id 'nope'" in proc.stderr
    for word in ("benchmark", "Acc %", "NCR %", "TPN", "tokens", "gsm8k", "math500", "ALL", "pass@2"):
        assert word in proc.stdout


def test_rerun_after_crash_loses_and_duplicates_nothing(files):
    out = files / "scores.jsonl"
    proc = run(files, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "scores.jsonl", "--quiet")
    full = out.read_text().splitlines()
    # simulate a crash: keep the first two rows and a torn third line
    out.write_text("\n".join(full[:2]) + "\n" + full[2][:25])
    proc = run(files, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "scores.jsonl", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "scored 2 new completions (2 already" in proc.stdout
    rows = [json.loads(line) for line in out.read_bytes().splitlines() if line.startswith(b"{") and line.endswith(b"}")]
    keys = [(r["id"], r["sample"]) for r in rows]
    assert sorted(set(keys)) == sorted(keys) and len(keys) == 4


def test_no_usable_problems_is_an_error(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", [{"id": "x"}])
    write_jsonl(tmp_path / "samples.jsonl", [])
    proc = run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "o.jsonl")
    assert proc.returncode == 2 and "has no 'answer'" in proc.stderr


def _rows(path):
    """The rows of a JSONL file, lines cut at "\\n" only (rows may hold U+2028 and the like)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def test_every_repeat_of_an_lm_eval_doc_and_every_line_of_a_problem_is_scored(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", [
        {"doc": {"id": "m1"}, "resps": [["\\boxed{0.5}", "\\boxed{2}", "\\boxed{1/2}"]]},  # lm-eval, repeats: 3
        {"id": "g2", "completion": "\\boxed{3}"},  # one line per completion: numbered in file order
        {"id": "g2", "completion": "\\boxed{4}"},
        {"id": "g1", "completion": "\\boxed{18}", "response_index": 1},  # or by their own index
        {"id": "g1", "completion": "\\boxed{17}", "response_index": 1},  # ... which may not repeat
    ])
    proc = run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "o.jsonl", "--quiet")
    assert proc.returncode == 0, proc.stderr
    got = [(r["id"], r["sample"], r["acc"]) for r in _rows(tmp_path / "o.jsonl")]
    assert got == [("m1", 0, 1), ("m1", 1, 0), ("m1", 2, 1), ("g2", 0, 1), ("g2", 1, 0), ("g1", 1, 1)]
    assert "samples.jsonl:5: sample 1 of 'g1' was given on an earlier line; skipped" in proc.stderr
    assert "scored 6 new completions" in proc.stdout and "pass@3" in proc.stdout
    assert "pass@k is averaged over the problems with at least k samples -- 1 of 3 for pass@3" in proc.stdout


def test_bad_inputs_are_named_by_file_and_line(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA + [DATA[0]])
    with open(tmp_path / "samples.jsonl", "wb") as fh:
        fh.write(json.dumps({"id": "g1", "answer_text": "\\boxed{18}"}).encode() + b"\n")
        fh.write(json.dumps({"id": "g1", "completions": "\\boxed{18}"}).encode() + b"\n")
        fh.write(b'{"id": "g2", "completion": "caf\xe9 \\\\boxed{3}"}\n')
    proc = run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "o.jsonl", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "data.jsonl:4: problem 'g1' is already defined at data.jsonl:1 (the same record); skipped" in proc.stderr
    assert "samples.jsonl:1: no completions" in proc.stderr and "samples.jsonl:2: no completions" in proc.stderr
    assert "samples.jsonl:3: bytes that are not UTF-8, read as U+FFFD" in proc.stderr
    (row,) = _rows(tmp_path / "o.jsonl")
    assert (row["id"], row["acc"]) == ("g2", 1)
    for args, message in ((("--data", "missing.jsonl"), "--data missing.jsonl: no such file"),
                          (("--samples", "missing.jsonl"), "--samples missing.jsonl: no such file"),
                          (("--out", "."), "--out .: is a directory")):
        argv = dict(zip(("--data", "--samples", "--out"), ("data.jsonl", "samples.jsonl", "o.jsonl")))
        argv.update(dict([args]))
        proc = run(tmp_path, *[x for kv in argv.items() for x in kv], "--quiet")
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_a_rerun_never_mixes_tpn_units(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES[:1])
    first = run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "sub/o.jsonl", "--quiet")
    assert first.returncode == 0, first.stderr
    rows = _rows(tmp_path / "sub" / "o.jsonl")
    for row in rows:
        row["tpn_unit"] = "some/tokenizer"
    write_jsonl(tmp_path / "sub" / "o.jsonl", rows)
    again = run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "sub/o.jsonl", "--quiet")
    assert again.returncode == 2 and "rerun with the same --tokenizer" in again.stderr


# ----------------------------------------------------------------------------- issue 15: no stale
# numbers, no lost input, one clear line for every bad input

def _score(tmp_path, *extra, out="o.jsonl"):
    return run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", out, "--quiet", *extra)


def test_a_rerun_with_other_completions_data_or_budget_never_serves_old_scores(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", [{"id": "g1", "completion": "9 * 2 = 18, \\boxed{18}"}])
    assert _score(tmp_path).returncode == 0
    before = (tmp_path / "o.jsonl").read_bytes()
    write_jsonl(tmp_path / "samples.jsonl", [{"id": "g1", "completion": "I do not know \\boxed{7}"}])
    refused = _score(tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "1 row(s) were scored from other inputs (completion changed: 1)" in refused.stderr
    assert "--rescore" in refused.stderr and "Acc" not in refused.stdout
    assert (tmp_path / "o.jsonl").read_bytes() == before
    rescored = _score(tmp_path, "--rescore")
    assert rescored.returncode == 0, rescored.stderr
    assert [(r["id"], r["sample"], r["acc"]) for r in _rows(tmp_path / "o.jsonl")] == [("g1", 0, 0)]
    assert "0.0" in rescored.stdout.splitlines()[-1]  # the table shows the new Acc, not 100
    write_jsonl(tmp_path / "data.jsonl", [dict(DATA[0], answer="7")] + DATA[1:])
    other_data = _score(tmp_path)
    assert other_data.returncode == 2 and "(problem changed: 1)" in other_data.stderr
    write_jsonl(tmp_path / "data.jsonl", DATA)
    other_budget = _score(tmp_path, "--budget", "2.5")
    assert other_budget.returncode == 2 and "(settings changed: 1: budget_s 1.0 -> 2.5)" in other_budget.stderr


def test_rows_that_timed_out_are_scored_again_and_replaced(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES[:2])
    assert _score(tmp_path).returncode == 0
    rows = _rows(tmp_path / "o.jsonl")
    rows[0].update(acc=0, ncr=0.0, timed_out=True)
    write_jsonl(tmp_path / "o.jsonl", rows)
    again = _score(tmp_path)
    assert again.returncode == 0, again.stderr
    assert "scored 1 new completions (2 already" in again.stdout and "1 timed out before" in again.stdout
    rows = _rows(tmp_path / "o.jsonl")
    assert sorted((r["id"], r["sample"]) for r in rows) == [("g1", 0), ("g1", 1), ("g2", 0)]
    assert [r["acc"] for r in rows if (r["id"], r["sample"]) == ("g1", 0)] == [1]
    assert not any(r["timed_out"] for r in rows)


@pytest.mark.parametrize("flag", ["--samples", "--data"])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(tmp_path, flag):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    (tmp_path / "link.jsonl").hardlink_to(tmp_path / "samples.jsonl")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    target = "data.jsonl" if flag == "--data" else "./sub/../samples.jsonl"
    (tmp_path / "sub").mkdir()
    for out in (target, "link.jsonl") if flag == "--samples" else (target,):
        proc = _score(tmp_path, out=out)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert f"--out {out} is also the input {flag}" in proc.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


def test_two_runs_into_one_out_at_once_score_each_completion_once(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", [{"id": "g1", "completion": f"16 - 3 - 4 = 9, {i} * 2 = {2 * i}. \\boxed{{{i}}}"}
                                             for i in range(150)])
    argv = [sys.executable, "-m", "consensus_metrics", "score", "--data", "data.jsonl", "--samples", "samples.jsonl",
            "--out", "o.jsonl", "--quiet"]
    procs = [subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    keys = [(r["id"], r["sample"]) for r in _rows(tmp_path / "o.jsonl")]
    assert len(keys) == 150 and len(set(keys)) == 150
    assert sorted(int(o.split("scored ")[1].split()[0]) for o, _ in outputs) == [0, 150]


@pytest.mark.parametrize("out, message", [
    ("/proc/scores/o.jsonl", "--out /proc/scores/o.jsonl: cannot create files in /proc"),
    ("data.jsonl/o.jsonl", "data.jsonl/o.jsonl: "),
])
def test_an_impossible_out_is_one_line_exit_2_and_leaves_nothing(tmp_path, out, message):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    proc = _score(tmp_path, out=out)
    assert proc.returncode == 2 and message in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.jsonl", "samples.jsonl"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_a_read_only_out_folder_is_one_line_exit_2(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o555)
    proc = _score(tmp_path, out="ro/o.jsonl")
    assert proc.returncode == 2 and "--out ro/o.jsonl: cannot create files in" in proc.stderr
    assert list((tmp_path / "ro").iterdir()) == []


def test_a_missing_tokenizer_is_one_line_exit_2(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    proc = _score(tmp_path, "--tokenizer", str(tmp_path / "no-such-tokenizer"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"--tokenizer {tmp_path / 'no-such-tokenizer'}: cannot load it offline" in proc.stderr
    assert not (tmp_path / "o.jsonl").exists()


def test_lone_surrogates_bom_and_all_bad_samples(tmp_path):
    with open(tmp_path / "data.jsonl", "wb") as fh:
        fh.write(b"\xef\xbb\xbf" + json.dumps(DATA[0]).encode() + b"\n")  # a BOM before the first line
        fh.write(json.dumps(dict(DATA[1], id="g2\ud800"), ensure_ascii=True).encode() + b"\n")
    with open(tmp_path / "samples.jsonl", "wb") as fh:
        fh.write(b"\xef\xbb\xbf" + json.dumps({"id": "g1", "completion": "\\boxed{18}"}).encode() + b"\n")
        fh.write(json.dumps({"id": "g1\udc00", "completion": "\\boxed{18}"}).encode() + b"\n")
    proc = _score(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "data.jsonl:2: not Unicode text: a lone surrogate \\ud800" in proc.stderr
    assert "samples.jsonl:2: not Unicode text: a lone surrogate \\udc00" in proc.stderr
    assert [(r["id"], r["acc"]) for r in _rows(tmp_path / "o.jsonl")] == [("g1", 1)]
    write_jsonl(tmp_path / "samples.jsonl", [], extra=["{not json", "[1]", json.dumps({"id": "nope", "completion": "x"})])
    bad = _score(tmp_path, out="o2.jsonl")
    assert bad.returncode == 2 and "no usable completion in --samples samples.jsonl (3 lines skipped)" in bad.stderr
    assert not (tmp_path / "o2.jsonl").exists()


def test_data_bytes_that_are_not_utf8_are_refused_not_replaced(tmp_path):
    with open(tmp_path / "data.jsonl", "wb") as fh:
        fh.write(json.dumps(DATA[0]).encode() + b"\n")
        fh.write(json.dumps(dict(DATA[1], answer="3\u00e9")).encode().replace(b"\\u00e9", b"\xe9") + b"\n")
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES[:2])
    proc = _score(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "data.jsonl:2: bytes that are not UTF-8 at column" in proc.stderr
    assert [r["id"] for r in _rows(tmp_path / "o.jsonl")] == ["g1", "g1"]


def test_a_problem_defined_twice_differently_is_refused(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "more.jsonl", [DATA[1], dict(DATA[0], answer="19")])
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    proc = run(tmp_path, "--data", "data.jsonl", "more.jsonl", "--samples", "samples.jsonl", "--out", "o.jsonl")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "more.jsonl:2: problem 'g1' is already defined at data.jsonl:1 with another answer, nodes or benchmark" \
        in proc.stderr
    assert "more.jsonl:1: problem 'g2' is already defined at data.jsonl:2 (the same record); skipped" in proc.stderr
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("args, message", [
    (("--budget", "0"), "argument --budget: must be a finite number > 0, got '0'"),
    (("--budget", "-1"), "argument --budget: must be a finite number > 0, got '-1'"),
    (("--budget", "nan"), "argument --budget: must be a finite number > 0, got 'nan'"),
    (("--workers", "-2"), "argument --workers: must be an integer >= 0, got '-2'"),
])
def test_out_of_range_settings_are_refused_up_front(tmp_path, args, message):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    proc = _score(tmp_path, *args)
    assert proc.returncode == 2 and message in proc.stderr and not (tmp_path / "o.jsonl").exists()


def test_a_rewrite_of_out_keeps_every_line_it_does_not_replace(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES[:2])
    assert _score(tmp_path).returncode == 0
    rows = _rows(tmp_path / "o.jsonl")
    rows[0]["timed_out"] = True  # forces a rewrite of the file
    foreign = json.dumps({"id": "m1", "sample": 5, "acc": 1, "tpn_unit": rows[0]["tpn_unit"]}).encode()
    with open(tmp_path / "o.jsonl", "wb") as fh:
        for row in rows:
            fh.write(json.dumps(row).encode() + b"\n")
        fh.write(b"a note in caf\xe9 latin-1\n" + foreign + b"\n")
    (tmp_path / "o.jsonl").chmod(0o600)
    proc = _score(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "also holds 1 row(s) of completions that are not in --samples: kept, not in the table" in proc.stdout
    data = (tmp_path / "o.jsonl").read_bytes()
    assert b"a note in caf\xe9 latin-1\n" + foreign + b"\n" in data and len(data.splitlines()) == 5
    assert (tmp_path / "o.jsonl").stat().st_mode & 0o777 == 0o600


# ----------------------------------------------------------------------------- issue 24

SEPARATORS = "\u2028\u2029\u0085\x1c\x1d\x1e\x0b\x0c"  # str.splitlines() cuts at each of them


def _score_here(tmp_path, *extra, out="o.jsonl"):
    """The command in this process (for the fakes below, and faster than a subprocess)."""
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        return cli.main(["score", "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", out, "--quiet",
                         *extra])
    finally:
        os.chdir(cwd)


def test_a_resume_reads_rows_holding_line_separators_whole(tmp_path):
    """Issue 24, item 3: rows are written with ensure_ascii=False, and the resume split --out with
    str.splitlines(), which also cuts at U+2028, U+2029, U+0085...: each rerun appended the
    completion again, and a rewrite split a good row into lines that are not JSON."""
    write_jsonl(tmp_path / "data.jsonl", DATA)
    with open(tmp_path / "samples.jsonl", "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "g1", "completion": f"\\boxed{{yes{SEPARATORS}no}}"}, ensure_ascii=False) + "\n")
    for _ in range(3):
        assert _score_here(tmp_path) == 0
    (row,) = _rows(tmp_path / "o.jsonl")
    assert SEPARATORS in row["pred"] or row["acc"] == 0
    with open(tmp_path / "o.jsonl", "ab") as fh:  # a crash mid-write: a torn last line, then a rewrite
        fh.write(b'{"id": "g1", "sample": 1, "acc"')
    assert _score_here(tmp_path) == 0
    assert _rows(tmp_path / "o.jsonl") == [row]


@pytest.mark.parametrize("flag", ["--samples", "--data"])
def test_deeply_nested_json_is_a_bad_line(tmp_path, flag, capsys):
    """Issue 24, item 7: a line of 100,000 '[' raised RecursionError out of json.loads."""
    write_jsonl(tmp_path / "data.jsonl", DATA, extra=["[" * 100_000] if flag == "--data" else ())
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES[:1], extra=["[" * 100_000] if flag == "--samples" else ())
    assert _score_here(tmp_path) == 0
    line = len(DATA) + 1 if flag == "--data" else 2
    name = "data.jsonl" if flag == "--data" else "samples.jsonl"
    assert f"{name}:{line}: not valid JSON (nested too deeply)" in capsys.readouterr().err
    assert len(_rows(tmp_path / "o.jsonl")) == 2


def test_a_full_disk_is_one_line_exit_2_and_keeps_the_rows_written(tmp_path):
    """Issue 24, item 8: ENOSPC while appending rows ended in a traceback (a real full tmpfs)."""
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    with full_disk(tmp_path) as full:
        proc = run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", str(full / "o.jsonl"),
                   "--quiet")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.strip().splitlines()[-1] == f"--out {full / 'o.jsonl'}: cannot write: No space left on device"


def test_a_full_disk_faked_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    """The same where no file system can be mounted (not root): os.write fails as on a full disk
    (a fake: this machine's disks are not full)."""
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    monkeypatch.setattr(os, "write", no_space_left)
    assert _score_here(tmp_path) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == "--out o.jsonl: cannot write: No space left on device"


def test_a_resume_into_a_read_only_folder_with_a_torn_line_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    """Issue 24, item 8: the torn last line makes the resume rewrite --out through a temporary
    file beside it, which a read-only folder refuses: a PermissionError traceback. (Faked: as
    root, a folder that refuses new files but not writes to its files needs a normal user.)"""
    import tempfile

    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    assert _score_here(tmp_path) == 0
    with open(tmp_path / "o.jsonl", "ab") as fh:
        fh.write(b'{"id": "g1", "sa')
    before = (tmp_path / "o.jsonl").read_bytes()

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path))

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    capsys.readouterr()
    assert _score_here(tmp_path) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"--out o.jsonl: cannot write: Permission denied: {tmp_path}"]
    assert (tmp_path / "o.jsonl").read_bytes() == before


def test_a_resume_into_a_real_read_only_folder_is_one_line_exit_2(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    assert _score(tmp_path).returncode == 0
    rows = (tmp_path / "o.jsonl").read_bytes() + b'{"id": "g1", "sa'
    with read_only_folder(tmp_path, {"o.jsonl": rows}) as folder:
        proc = run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", str(folder / "o.jsonl"),
                   "--quiet")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and f"--out {folder / 'o.jsonl'}" in proc.stderr
        assert (folder / "o.jsonl").read_bytes() == rows


@pytest.mark.parametrize("flag", ["--samples", "--data"])
def test_an_input_that_is_a_folder_says_so(tmp_path, flag):
    """Issue 24, item 12: --samples DIR said 'no such file'."""
    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    (tmp_path / "dir").mkdir()
    args = {"--data": "data.jsonl", "--samples": "samples.jsonl", flag: "dir"}
    proc = run(tmp_path, "--data", args["--data"], "--samples", args["--samples"], "--out", "o.jsonl")
    assert proc.returncode == 2 and proc.stderr.strip() == f"{flag} dir: is a folder, not a file"


def test_ctrl_c_stops_with_one_line_and_keeps_the_rows(tmp_path):
    """Issue 24, item 12: Ctrl-C during scoring printed a traceback (the data were intact)."""
    import signal
    import time

    write_jsonl(tmp_path / "data.jsonl", DATA)
    write_jsonl(tmp_path / "samples.jsonl", [{"id": "g1", "completion": f"16 - 3 - 4 = 9, {i} * 2 = {2 * i}. "
                                                                         f"\\boxed{{{i}}}"} for i in range(3000)])
    proc = subprocess.Popen([sys.executable, "-m", "consensus_metrics", "score", "--data", "data.jsonl", "--samples",
                             "samples.jsonl", "--out", "o.jsonl", "--quiet"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=restore_sigint)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not (tmp_path / "o.jsonl").exists()
                                           or (tmp_path / "o.jsonl").stat().st_size < 2000):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("interrupted: ")
    rows = _rows(tmp_path / "o.jsonl")  # every line whole
    assert 0 < len(rows) < 3000
    again = _score(tmp_path)  # the rerun goes on where it stopped
    assert again.returncode == 0 and f"({len(rows)} already in o.jsonl" in again.stdout
