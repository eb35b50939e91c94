"""``python -m consensus_metrics score`` on real files: table, bad lines, resume after a crash."""

import json
import subprocess
import sys

import pytest

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
    rows = [json.loads(line) for line in out.read_text().splitlines()]
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
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.startswith("{") and line.endswith("}")]
    keys = [(r["id"], r["sample"]) for r in rows]
    assert sorted(set(keys)) == sorted(keys) and len(keys) == 4


def test_no_usable_problems_is_an_error(tmp_path):
    write_jsonl(tmp_path / "data.jsonl", [{"id": "x"}])
    write_jsonl(tmp_path / "samples.jsonl", [])
    proc = run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "o.jsonl")
    assert proc.returncode == 2 and "has no 'answer'" in proc.stderr


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


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
    write_jsonl(tmp_path / "data.jsonl", DATA + [dict(DATA[0], answer="999")])
    with open(tmp_path / "samples.jsonl", "wb") as fh:
        fh.write(json.dumps({"id": "g1", "answer_text": "\\boxed{18}"}).encode() + b"\n")
        fh.write(json.dumps({"id": "g1", "completions": "\\boxed{18}"}).encode() + b"\n")
        fh.write(b'{"id": "g2", "completion": "caf\xe9 \\\\boxed{3}"}\n')
    proc = run(tmp_path, "--data", "data.jsonl", "--samples", "samples.jsonl", "--out", "o.jsonl", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "data.jsonl:4: problem 'g1' is already defined at data.jsonl:1; skipped" in proc.stderr
    assert "samples.jsonl:1: no completions" in proc.stderr and "samples.jsonl:2: no completions" in proc.stderr
    assert "samples.jsonl:3: bytes that are not UTF-8, read as U+FFFD" in proc.stderr
    (row,) = _rows(tmp_path / "o.jsonl")
    assert (row["id"], row["acc"]) == ("g2", 1)  # scored with the first definition's answer
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
