"""Model runs as a source (issue: consensus from real models): the `runs` importer, joining run
lines to the benchmark's problems by statement, voices, and what a build records about them.

Fixture: tests/fixtures/node_builder/runs/math500 -- real lines of 4 SkyThought evaluation runs
(3 models; Sky-T1-math-correct-5K-32B-short ran twice) for the 8 MATH-500 problems of raw/."""

import json
from pathlib import Path

import pytest

from node_builder.filter import filter_problem
from node_builder.importers import load_sources, same_answer
from node_builder.importers.model_runs import model_voice, run_model
from node_builder.pipeline import BuildConfig, build_records

FIX = Path(__file__).parent / "fixtures" / "node_builder"
RUNS = FIX / "runs" / "math500"
BASE = f"math500:{FIX}/raw/math500/test_ori.jsonl"


def test_voices_fold_checkpoints_and_runs_of_one_model():
    assert run_model("x/Sky-T1-math-correct-5K-32B-short@6840eb7.jsonl") == "Sky-T1-math-correct-5K-32B-short"
    assert model_voice("Sky-T1-math-correct-5K-32B-short-ckpts-checkpoint-105") == "Sky-T1-math-correct-5K-32B-short"
    assert model_voice("Sky-T1-math-correct-5K-32B-ckpts-checkpoint-21") == "Sky-T1-math-correct-5K-32B"
    assert model_voice("gemma-2-27b-it") == "gemma-2-27b-it"


def test_run_lines_join_the_benchmark_problems_by_statement():
    merged = load_sources([BASE, f"runs:{RUNS}"], "math500")
    assert not merged.skipped and len(merged.problems) == 8
    for problem in merged.problems:
        sources = [t.source for t in problem.trajectories]
        assert sources[0] == "reference" and len(sources) == 5
        voices = {t.voice for t in problem.trajectories}
        assert voices == {"reference", "Qwen2.5-14B-Instruct", "gemma-2-27b-it", "Sky-T1-math-correct-5K-32B-short"}
        assert all(t.correct is None for t in problem.trajectories[1:])  # the harness's score is not trusted


def test_bad_run_lines_are_reported_with_file_and_line_and_skipped(tmp_path):
    good = [json.loads(line) for line in (RUNS / "gemma-2-27b-it@f7bcf0b.jsonl").open()]
    lines = [json.dumps(good[0]),
             '{"question": "torn',
             json.dumps({**good[1], "gt": "12345"}),  # disagrees with the benchmark's gold
             json.dumps({**good[2], "question": "What is 1 + 1 in a benchmark we do not have?"}),
             json.dumps({k: v for k, v in good[3].items() if k != "code"}),
             json.dumps({**good[4], "code": [""]})]
    run = tmp_path / "runs" / "Some-Model@abc.jsonl"
    run.parent.mkdir()
    run.write_text("\n".join(lines) + "\n")
    merged = load_sources([BASE, f"runs:{run.parent}"], "math500")
    reasons = {s.where.rsplit(":", 1)[1]: s.reason for s in merged.skipped}
    assert set(reasons) == {"2", "3", "4", "5", "6"}
    assert "malformed JSON" in reasons["2"]
    assert "answer '12345' disagrees" in reasons["3"]
    assert "problem not in the benchmark" in reasons["4"]
    assert "'code'" in reasons["5"] and "holds no output" in reasons["6"]
    assert sum(len(p.trajectories) for p in merged.problems) == 8 + 1


def test_gold_answers_agree_up_to_notation():
    assert same_answer("\\frac{14}{3}", "\\dfrac{14}{3}") and same_answer("073", "73")
    assert not same_answer("\\frac{14}{3}", "\\frac{3}{14}")


@pytest.fixture(scope="module")
def built():
    problems = load_sources([BASE, f"runs:{RUNS}"], "math500").problems
    return problems, build_records(problems, BuildConfig())


def test_a_build_from_runs_records_voices_and_counts_them_for_support(built):
    problems, records = built
    for problem, record in zip(problems, records):
        prov = record["provenance"]
        correct_voices = sorted({t.voice for t in problem.trajectories if t.correct})
        assert prov["voices"] == correct_voices and prov["single_voice"] == (len(correct_voices) == 1)
        counted = prov["consensus"]["voices_counted"]  # the voices whose solutions show work
        assert counted <= len(correct_voices)
        for node in record["nodes"]:
            k = round(node["support"] * counted)
            assert node["support"] == pytest.approx(k / counted, abs=1e-4)
            assert prov["single_voice"] or k >= 2
        assert record["nodes"] or prov["note"], record["id"]  # an empty record says why
