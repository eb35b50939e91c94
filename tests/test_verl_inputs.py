"""The verl adapter on bad input and out of time (issue 24): a timed-out completion is flagged and
not punished, the export refuses to overwrite its input and reports bad input in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fs_faults import full_disk

from consensus_metrics.budget import BudgetExceeded
from training_recipes import scoring
from training_recipes.verl_adapter import compute_score, compute_score_batch

FIXTURE = Path(__file__).parent / "fixtures" / "train" / "gsm8k_train_fixture.jsonl"
NATALIA = json.loads(FIXTURE.read_text().split("\n")[0])
RIGHT = "Natalia sold 48/2 = 24 clips in May and 48+24 = 72 in all: \\boxed{72}"
WRONG = "Natalia sold 48/2 = 24 clips in May, so she sold \\boxed{70}."
LOOP = " = ".join(["48/2", "24"] * 2000) + " \\boxed{70}"  # the most common way a real model runs long


def _export(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training_recipes.verl_adapter", *args], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)


def _one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    return line


def _time_out_on(monkeypatch, texts):
    """Scoring of ``texts`` runs out of its budget (a fake of a slow completion: the real loops
    of issue 24 are fast now, and no real text is slow on every machine)."""
    real = scoring._score_within

    def slow(text, *args, **kwargs):
        if text in texts:
            raise BudgetExceeded()
        return real(text, *args, **kwargs)

    monkeypatch.setattr(scoring, "_score_within", slow)


@pytest.mark.parametrize("mode", ["outcome", "linear", "max", "cl"])
def test_every_result_has_the_timed_out_flag(mode):
    out = compute_score("x", WRONG, "72", {"nodes": NATALIA["nodes"], "epoch": 0}, mode=mode)
    assert out["timed_out"] is False
    assert set(out) == {"score", "acc", "ncr", "has_nodes", "guarded", "timed_out"}


def test_a_timed_out_completion_is_flagged_and_scored_on_its_outcome(monkeypatch):
    """Issue 24, item 4: verl scored a timed-out completion 0.0 with no flag (TRL: None)."""
    _time_out_on(monkeypatch, {RIGHT, WRONG})
    right = compute_score("x", RIGHT, "72", {"nodes": NATALIA["nodes"]}, mode="linear")
    wrong = compute_score("x", WRONG, "72", {"nodes": NATALIA["nodes"]}, mode="linear")
    assert right == {"score": 1.0, "acc": 1.0, "ncr": 1.0, "has_nodes": True, "guarded": "", "timed_out": True}
    assert wrong["timed_out"] and wrong["score"] == 0.0 and wrong["acc"] == 0.0


def test_in_a_batch_a_timed_out_completion_gets_zero_advantage(monkeypatch):
    _time_out_on(monkeypatch, {LOOP})
    extra = {"id": "natalia", "nodes": NATALIA["nodes"]}
    other = {"id": "other", "nodes": NATALIA["nodes"]}
    out = compute_score_batch(["x"] * 5, [RIGHT, WRONG, LOOP, LOOP, "\\boxed{1}"], ["72"] * 5,
                              [extra, extra, extra, other, other], mode="linear")
    assert [r["timed_out"] for r in out] == [False, False, True, True, False]
    group = [out[0]["score"], out[1]["score"]]
    assert out[2]["score"] == sum(group) / 2  # the mean of its group: its advantage is 0
    assert out[3]["score"] == out[4]["score"] == 0.0


def test_a_real_repetition_loop_stays_within_the_budget():
    import time

    start = time.monotonic()
    out = compute_score("x", LOOP, "72", {"nodes": NATALIA["nodes"]}, mode="linear", budget_s=1.0)
    assert time.monotonic() - start < 1.0 + 0.75 + 1.0  # + the outcome check of a timeout
    assert out["score"] <= 0.5 and set(out) >= {"timed_out"}


@pytest.mark.parametrize("extra", ['{"nodes": []}', "nodes", 3, ["a"]])
def test_extra_info_that_is_no_dict_is_a_clear_error(extra):
    """Issue 24, item 12: extra_info as a string gave an AttributeError."""
    with pytest.raises(ValueError, match="extra_info of x must be a dict"):
        compute_score("x", WRONG, "72", extra)


@pytest.mark.parametrize("kwargs, message", [
    ({"epoch": float("nan")}, "the epoch must be a finite number, got nan"),
    ({"epoch": "late"}, "the epoch must be a finite number, got 'late'"),
    ({"epoch": 0.5, "switch_epoch": float("nan")}, "switch_epoch must be a finite number"),
])
def test_a_nan_clock_is_refused(kwargs, message):
    """Issue 24, item 12: switch_epoch=nan and a NaN epoch were accepted (cl then used acc from
    the first step: a NaN compares false)."""
    with pytest.raises(ValueError, match=message):
        compute_score("x", WRONG, "72", {"nodes": NATALIA["nodes"]}, mode="cl", **kwargs)


def test_the_export_refuses_to_overwrite_its_input(tmp_path):
    """Issue 24, item 5: --out equal to --data replaced the input with parquet and exited 0."""
    data = tmp_path / "t.jsonl"
    data.write_bytes(FIXTURE.read_bytes())
    (tmp_path / "link.jsonl").hardlink_to(data)
    for out in ("t.jsonl", "./sub/../t.jsonl", "link.jsonl"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        line = _one_line(_export(tmp_path, "--data", "t.jsonl", "--out", out))
        assert f"--out {out} is also the input --data t.jsonl" in line
    assert data.read_bytes() == FIXTURE.read_bytes()


@pytest.mark.parametrize("case, message", [
    ("missing", "training split no.jsonl does not exist"),
    ("bad line", "t.jsonl:2: not valid JSON"),
    ("folder", "training split sub: is a folder, not a file"),
    ("nan gold", "t.jsonl:1: field 'answer' must be a non-empty string or a finite number, got nan"),
])
def test_bad_export_input_is_one_line_exit_2(tmp_path, case, message):
    """Issue 24, item 11: the right file:line message came inside a traceback, exit 1."""
    (tmp_path / "sub").mkdir()
    lines = FIXTURE.read_text().split("\n")
    if case == "bad line":
        lines.insert(1, "{torn")
    if case == "nan gold":
        lines[0] = lines[0].replace('"answer": "72"', '"answer": NaN')
    (tmp_path / "t.jsonl").write_text("\n".join(lines))
    data = {"missing": "no.jsonl", "folder": "sub"}.get(case, "t.jsonl")
    line = _one_line(_export(tmp_path, "--data", data, "--out", "o.parquet"))
    assert line == f"python -m training_recipes.verl_adapter: error: {message}" or message in line, line
    assert not (tmp_path / "o.parquet").exists()


def test_a_full_disk_is_one_line_and_leaves_no_partial_file(tmp_path):
    (tmp_path / "t.jsonl").write_text(FIXTURE.read_text() * 1)
    with full_disk(tmp_path) as full:
        line = _one_line(_export(tmp_path, "--data", "t.jsonl", "--out", str(full / "o.parquet")))
        assert "cannot write: " in line and "No space left on device" in line
        assert sorted(p.name for p in full.iterdir()) == [".filler"]
