"""``python -m training_recipes.train`` on unusable settings and data (issue 24: every entry point):
one line and exit status 2 before any model is trained, not a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "training_recipes" / "configs" / "grpo_linear.yaml"
FIXTURE = REPO / "tests" / "fixtures" / "train" / "gsm8k_train_fixture.jsonl"
CPU = ("--bf16", "false", "--use_cpu", "true")


@pytest.mark.parametrize("args, message", [
    (("--config", "no.yaml"), "No such file or directory: 'no.yaml'"),
    (("--config", str(CONFIG), "--reward_mode", "dense"), "reward_mode must be one of"),
    (("--config", str(CONFIG), *CPU, "--dataset_path", "no.jsonl"), "training split no.jsonl does not exist"),
    (("--config", str(CONFIG), *CPU, "--dataset_path", "."), "training split .: is a folder, not a file"),
    (("--config", str(CONFIG), *CPU, "--dataset_path", str(FIXTURE), "--reward_budget_s", "-1"),
     "budget_s must be a finite number > 0, got -1.0"),
    (("--config", str(CONFIG), *CPU, "--dataset_path", str(FIXTURE), "--switch_epoch", "nan"),
     "switch_epoch must be a finite number, got nan"),
])
def test_bad_settings_and_data_are_one_line_exit_2(tmp_path, capsys, args, message):
    from training_recipes.train import main

    cwd = os.getcwd()
    os.chdir(tmp_path)  # in this process: one import of TRL for all cases
    try:
        assert main([*args, "--output_dir", str(tmp_path / "o")]) == 2
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("python -m training_recipes.train: error: ") and message in last, last
