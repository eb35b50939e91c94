"""One rule for gold answers in every reader (issue 24, item 6): a non-empty string or a finite
number. None, NaN, infinity, booleans and empty strings are refused with a message naming where:
the TRL rewards accepted ``answer=[None]`` (every completion scored 0) and ``answer=[nan]`` (so
``\\boxed{nan}`` earned 1), verl turned ``ground_truth=None`` into the gold "None", the training
split loader read ``NaN``/``true``/``Infinity`` as "nan"/"True"/"inf"."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from lm_eval_tasks import TASKS_DIR
from training_recipes.data import TrainingDataError, read_records
from training_recipes.rewards import consensus_reward
from training_recipes.verl_adapter import compute_score

RULE = "must be a non-empty string or a finite number"
BAD = [None, math.nan, math.inf, -math.inf, True, False, "", "  "]
JSON_BAD = ["null", "NaN", "Infinity", "-Infinity", "true", "false", '""', '" "']
RECORD = {"id": "a", "problem": "What is 1 + 1?", "nodes": ["1+1=2"]}


@pytest.mark.parametrize("gold", BAD)
def test_the_trl_reward_refuses_it(gold):
    reward = consensus_reward("linear")
    with pytest.raises(ValueError, match=f"row 1, column 'answer': field 'answer' {RULE}"):
        reward(completions=["\\boxed{2}", "\\boxed{nan}"], answer=["2", gold], nodes=[["1+1=2"], ["1+1=2"]])


@pytest.mark.parametrize("gold", BAD)
def test_verl_refuses_it(gold):
    with pytest.raises(ValueError, match=f"field 'ground_truth' {RULE}"):
        compute_score("consensusbench/gsm8k", "\\boxed{None}", gold, {"nodes": []})


@pytest.mark.parametrize("literal", JSON_BAD)
def test_the_training_split_loader_refuses_it(tmp_path, literal):
    path = tmp_path / "train.jsonl"
    path.write_text(json.dumps(RECORD)[:-1] + f', "answer": {literal}}}\n')
    with pytest.raises(TrainingDataError, match=f"train.jsonl:1: field 'answer' {RULE}"):
        read_records(path)


@pytest.mark.parametrize("literal", JSON_BAD)
def test_the_lm_eval_loader_refuses_it_the_same_way(tmp_path, literal):
    spec = importlib.util.spec_from_file_location("consensusbench_utils", Path(TASKS_DIR) / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    (tmp_path / "x.jsonl").write_text(json.dumps(RECORD)[:-1] + f', "answer": {literal}}}\n')
    with pytest.raises(ValueError, match=f"x.jsonl:1: field 'answer' {RULE}"):
        utils.load_consensusbench("x.jsonl", data_dir=str(tmp_path))


@pytest.mark.parametrize("gold, expected", [("72", "72"), (72, "72"), (0.5, "0.5"), (" 1/2 ", " 1/2 ")])
def test_strings_and_finite_numbers_are_read_alike_everywhere(tmp_path, gold, expected):
    import numpy as np

    path = tmp_path / "train.jsonl"
    path.write_text(json.dumps(dict(RECORD, answer=gold)) + "\n")
    assert read_records(path)[0]["answer"] == expected
    right = f"\\boxed{{{expected.strip()}}}"
    assert compute_score("x", right, gold, {"nodes": []}, mode="outcome")["score"] == 1.0
    assert consensus_reward("outcome")(completions=[right], answer=[gold], nodes=[[]]) == [1.0]
    if isinstance(gold, (int, float)):  # a parquet column hands verl NumPy numbers
        assert compute_score("x", right, np.array([gold])[0], {"nodes": []}, mode="outcome")["score"] == 1.0
