"""verl adapter (training_recipes.verl_adapter) as a plain function: verl itself is not installed
here; the signature and return shape follow verl's custom_reward_function contract."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from training_recipes.data import normalise_nodes
from training_recipes.verl_adapter import compute_score, export_parquet, to_verl_rows
from training_recipes.rewards import consensus_reward

FIXTURE = Path(__file__).parent / "fixtures" / "train" / "gsm8k_train_fixture.jsonl"
ROWS = [json.loads(line) for line in FIXTURE.read_bytes().splitlines()]
NATALIA = ROWS[0]
WRONG_HALF = "Natalia sold 24 clips in May, so she sold \\boxed{70}."


@pytest.mark.parametrize("mode,expected", [("outcome", 0.0), ("linear", 0.25), ("max", 0.5), ("cl", 0.5)])
def test_modes_match_the_trl_reward(mode, expected):
    out = compute_score("consensusbench/gsm8k_train", WRONG_HALF, "72", {"nodes": NATALIA["nodes"], "epoch": 0},
                        mode=mode)
    trl = consensus_reward(mode)(completions=[WRONG_HALF], answer=["72"], nodes=[NATALIA["nodes"]], epoch=0)[0]
    assert out["score"] == expected == trl
    assert out["acc"] == 0.0 and out["ncr"] == 0.5 and out["has_nodes"] and out["guarded"] == ""


def test_nodes_as_json_string_from_parquet():
    out = compute_score("x", WRONG_HALF, "72", {"nodes": json.dumps(NATALIA["nodes"])}, mode="max")
    assert out["score"] == 0.5


def test_no_nodes_falls_back_to_acc():
    right = re.sub(r"<<[^>]*>>", "", ROWS[7]["solution"]).replace("####", "\\boxed{") + "}"
    for extra in (None, {}, {"nodes": []}, {"nodes": "[]"}):
        out = compute_score("x", right, ROWS[7]["answer"], extra, mode="linear")
        assert out == {"score": 1.0, "acc": 1.0, "ncr": 1.0, "has_nodes": False, "guarded": "", "timed_out": False}


def test_cl_needs_an_epoch_and_switches():
    with pytest.raises(ValueError, match="epoch"):
        compute_score("x", WRONG_HALF, "72", {"nodes": NATALIA["nodes"]}, mode="cl")
    assert compute_score("x", WRONG_HALF, "72", {"nodes": NATALIA["nodes"]}, mode="cl", epoch=0.5)["score"] == 0.5
    assert compute_score("x", WRONG_HALF, "72", {"nodes": NATALIA["nodes"], "epoch": 1}, mode="cl")["score"] == 0.0


def test_guard_applies_and_can_be_disabled():
    attack = " ".join(str(i) for i in range(3000)) + " \\boxed{7}"
    guarded = compute_score("x", attack, "72", {"nodes": NATALIA["nodes"]}, mode="max")
    unguarded = compute_score("x", attack, "72", {"nodes": NATALIA["nodes"]}, mode="max", guard=False)
    assert guarded["score"] == 0.0 and guarded["guarded"] == "number_spam" and unguarded["score"] > 0


def test_empty_and_bad_input():
    assert compute_score("x", "", "72", {"nodes": NATALIA["nodes"]}, mode="linear")["score"] == 0.0
    assert compute_score("x", None, "72", {"nodes": NATALIA["nodes"]}, mode="linear")["score"] == 0.0
    with pytest.raises(ValueError, match="unknown mode"):
        compute_score("x", "a", "1", {}, mode="dense")


def test_export_parquet_round_trip(tmp_path):
    import pandas as pd

    out = export_parquet(FIXTURE, tmp_path / "train.parquet")
    frame = pd.read_parquet(out)
    assert len(frame) == 8 and set(frame.columns) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    row = frame.iloc[0]
    assert row["data_source"] == "consensusbench/gsm8k_train_fixture"
    assert row["reward_model"]["ground_truth"] == "72"
    nodes = json.loads(row["extra_info"]["nodes"])
    # what verl would hand back to compute_score
    score = compute_score(row["data_source"], WRONG_HALF, row["reward_model"]["ground_truth"],
                          dict(row["extra_info"]), mode="max")
    assert nodes == normalise_nodes(NATALIA["nodes"]) and score["score"] == 0.5  # the record's node dicts


def test_to_verl_rows_prompt_is_a_chat():
    rows = to_verl_rows([{"problem": "1+1?", "answer": "2", "nodes": []}], "src")
    assert rows[0]["prompt"][0]["role"] == "user" and "\\boxed{}" in rows[0]["prompt"][0]["content"]


def test_think_prefilled_reward_kwarg():
    trace_only = "Natalia sold 48/2 = 24 clips in May, 48+24 = 72 so \\boxed{72}"
    plain = compute_score("x", trace_only, "72", {"nodes": NATALIA["nodes"]}, mode="outcome")
    prefilled = compute_score("x", trace_only, "72", {"nodes": NATALIA["nodes"]}, mode="outcome", think_prefilled=True)
    assert plain["acc"] == 1.0 and prefilled["acc"] == 0.0
