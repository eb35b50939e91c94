"""The smoke recipe trains 2 real optimizer steps on CPU with the embedded SmolLM2, through the
real ConsensusPR reward (consensus_metrics), then the saved checkpoint is evaluated with the real
lm-eval CLI on the consensusbench_gsm8k task (1 problem, 16 new tokens): the evaluation feedback
loop end to end. Minutes on 2 CPU cores: marked slow."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from training_recipes.evaluate import checkpoints_of, evaluate_checkpoint, lm_eval_command, main as evaluate_main
from training_recipes.train import build_trainer, parse_args

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "training_recipes" / "configs" / "smoke_cpu.yaml"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def test_lm_eval_command_shape(tmp_path):
    cmd = lm_eval_command(tmp_path / "checkpoint-2", ["consensusbench_gsm8k"], tmp_path / "out", limit=3,
                          max_gen_toks=64, extra_model_args="dtype=bfloat16")
    assert cmd[1:3] == ["-m", "lm_eval"]
    assert f"pretrained={tmp_path / 'checkpoint-2'},dtype=bfloat16" in cmd
    assert cmd[cmd.index("--include_path") + 1].endswith("lm_eval_tasks/consensusbench")
    assert "--log_samples" in cmd and "--apply_chat_template" in cmd and cmd[-2:] == ["--limit", "3"]


def test_checkpoints_of_orders_steps_and_final(tmp_path):
    for name in ("checkpoint-10", "checkpoint-2", "checkpoint-x"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text("{}")
    (tmp_path / "checkpoint-3").mkdir()  # not a saved model
    (tmp_path / "config.json").write_text("{}")
    assert [p.name for p in checkpoints_of(tmp_path)] == ["checkpoint-x", "checkpoint-2", "checkpoint-10",
                                                           tmp_path.name]


def test_evaluate_refuses_a_folder_without_model(tmp_path):
    with pytest.raises(FileNotFoundError, match="config.json"):
        evaluate_checkpoint(tmp_path, ["consensusbench_gsm8k"], tmp_path / "out")
    with pytest.raises(SystemExit):
        evaluate_main(["--run_dir", str(tmp_path)])


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_smoke_trains_two_steps_then_lm_eval_scores_the_checkpoint(tmp_path):
    run = tmp_path / "smoke"
    recipe, args, model = parse_args(["--config", str(SMOKE), "--output_dir", str(run),
                                      "--save_strategy", "steps", "--save_steps", "2"])
    trainer = build_trainer(recipe, args, model)
    trainer.train()
    assert trainer.state.global_step == 2
    # two real AdamW steps: every trained parameter carries optimizer state with step == 2
    steps = {float(state["step"]) for state in trainer.optimizer.state.values()}
    assert steps == {2.0}
    logged = [m for m in trainer.state.log_history if "consensus_linear/acc" in m]
    assert len(logged) == 2 and all("consensus_linear/ncr" in m and "loss" in m for m in logged)
    checkpoint = run / "checkpoint-2"
    assert (checkpoint / "model.safetensors").is_file()

    out = evaluate_checkpoint(checkpoint, ["consensusbench_gsm8k"], run / "lm_eval" / "checkpoint-2", limit=1,
                              max_gen_toks=16)
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    metrics = results["results"]["consensusbench_gsm8k"]
    assert {"acc,none", "ncr,none"} <= set(metrics)  # tpn is undefined when no node is covered
    assert next(out.rglob("samples_consensusbench_gsm8k_*.jsonl")).is_file()
    # a second call finds the results and does not run lm-eval again
    assert evaluate_checkpoint(checkpoint, ["consensusbench_gsm8k"], out, limit=1) == out
