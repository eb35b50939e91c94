"""All ConsensusBench tasks, the group and a pass@16 task end to end: the real ``lm_eval`` CLI, the
HF backend, the embedded SmolLM2 (converted by models.embedded_model), no --include_path.

One lm-eval process runs everything (its ~30 s start-up is paid once): the four tasks and the
``consensusbench`` group on one problem each, plus ``consensusbench_aime24_pass16`` (16 sampled
generations of one problem). Data: the small fixture files (CONSENSUSBENCH_DATA_DIR), since the
shipped files are built by node_builder. SmolLM2 answers badly: the test checks the plumbing and
the arithmetic of the reported numbers against the per-sample logs, not the model's accuracy.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from models.embedded_model import ensure_embedded_model

pytestmark = pytest.mark.slow

FIXTURE_DATA = Path(__file__).parent / "fixtures" / "lm_eval" / "data"
LM_EVAL = Path(sys.executable).with_name("lm_eval")
MAX_GEN_TOKS = 32
TASKS = ["consensusbench_math500", "consensusbench_gsm8k", "consensusbench_aime24", "consensusbench_aime25"]
PASS16 = "consensusbench_aime24_pass16"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    model_dir = str(ensure_embedded_model())
    out = tmp_path_factory.mktemp("lm_eval_out")
    env = dict(os.environ)  # no --include_path: the installed hook finds the tasks (of this checkout)
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               CONSENSUSBENCH_DATA_DIR=str(FIXTURE_DATA))
    done = subprocess.run(
        [str(LM_EVAL), "--model", "hf", "--model_args", f"pretrained={model_dir},dtype=bfloat16",
         "--tasks", f"consensusbench,{PASS16}", "--limit", "1", "--batch_size", "16",
         "--apply_chat_template", "--gen_kwargs", f"max_gen_toks={MAX_GEN_TOKS}",
         "--log_samples", "--output_path", str(out), "--seed", "1234"],
        capture_output=True, text=True, env=env, cwd=out, timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    (results_file,) = out.rglob("results_*.json")
    samples = {}
    for path in out.rglob("samples_*.jsonl"):
        task = path.name[len("samples_"):].rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_bytes().splitlines()]
    return {"model_dir": model_dir, "report": json.loads(results_file.read_text()), "samples": samples,
            "stdout": done.stdout, "stderr": done.stderr}


SCORES = {"acc", "ncr", "tpn", "n_tokens"}


def test_every_task_and_the_group_report_the_scores_only(run):
    results = run["report"]["results"]
    assert set(results) == {"consensusbench", *TASKS, PASS16}
    for task in TASKS + [PASS16]:
        metrics = results[task]
        names = {key.split(",")[0].removesuffix("_stderr") for key in metrics if "," in key}
        assert {"acc", "n_tokens"} <= names <= SCORES | {f"pass@{k}" for k in (1, 2, 4, 8, 16)}, (task, names)
        assert 0.0 <= metrics["acc,none"] <= 1.0
        assert 0 < metrics["n_tokens,none"] <= MAX_GEN_TOKS + 2
        assert "acc_stderr,none" in metrics
    for task in ("consensusbench_math500", "consensusbench_gsm8k", "consensusbench_aime24"):
        assert 0.0 <= results[task]["ncr,none"] <= 1.0
    # The AIME 2025 fixture problems have no nodes: NCR undefined, left out of the group NCR.
    assert "ncr,none" not in results["consensusbench_aime25"]
    group = results["consensusbench"]
    ncrs = [results[t]["ncr,none"] for t in TASKS if "ncr,none" in results[t]]
    assert group["ncr,none"] == pytest.approx(sum(ncrs) / len(ncrs))
    assert group["acc,none"] == pytest.approx(sum(results[t]["acc,none"] for t in TASKS) / 4)
    assert "n_tokens,none" in group
    assert run["report"]["higher_is_better"]["consensusbench_gsm8k"]["acc"] is True
    # the printed table: scores only
    table = run["stdout"][re.search(r"^\|\s*Tasks\s*\|", run["stdout"], re.M).start():]
    for word in ("acc", "ncr", "n_tokens", "pass@16"):
        assert re.search(rf"\|\s*{word}\s*\|", table), word
    for word in ("ncr_undefined", "tpn_undefined", "think_unclosed", "timed_out", "trace_missing",
                 "trajectories", "tpn_unit"):
        assert word not in table, word


def test_diagnostics_are_in_the_samples_and_said_once_per_task(run):
    aime25 = run["samples"]["consensusbench_aime25"][0]["doc"]["consensusbench"]
    assert aime25["generations"] == 1 and aime25["ncr_undefined"] == 1 and aime25["tpn_undefined"] == 1
    for task in TASKS + [PASS16]:
        entries = [sample["doc"]["consensusbench"] for sample in run["samples"][task]]
        assert all(e["timed_out"] == 0 for e in entries)
        lines = [line for line in run["stderr"].splitlines() if f"ConsensusBench {task}:" in line]
        if any(e[key] for e in entries for key in ("ncr_undefined", "tpn_undefined", "think_unclosed",
                                                     "timed_out", "trace_missing")):
            assert len(lines) == 1, (task, lines)
        else:
            assert not lines, lines
    (line,) = [line for line in run["stderr"].splitlines() if "ConsensusBench consensusbench_aime25:" in line]
    assert "of 1 generations, 1 NCR undefined (problem without nodes), 1 TPN undefined" in line


def test_pass_at_k_with_repeats(run):
    metrics = run["report"]["results"][PASS16]
    assert run["report"]["configs"][PASS16]["repeats"] == 16
    assert metrics["pass@1,none"] == metrics["acc,none"]
    for k in (2, 4, 8, 16):
        assert f"pass@{k},none" in metrics and f"pass@{k}_stderr,none" in metrics
    assert metrics["pass@2,none"] <= metrics["pass@4,none"] <= metrics["pass@8,none"] <= metrics["pass@16,none"]
    (sample,) = run["samples"][PASS16]
    trajectories = sample["doc"]["consensusbench"]["trajectories"]
    assert sample["doc"]["consensusbench"]["generations"] == 16
    assert len(trajectories) == 16 and len(sample["resps"][0]) == 16
    correct = sum(t["acc"] for t in trajectories)
    assert metrics["pass@16,none"] == (1.0 if correct else 0.0)
    assert metrics["acc,none"] == pytest.approx(correct / 16)
    texts = {t for t in sample["filtered_resps"][0]}
    assert len(texts) > 1  # sampled, not 16 copies of one greedy answer


def test_samples_log_covered_nodes_positions_and_tokenizer(run):
    for task in TASKS:
        (sample,) = run["samples"][task]
        assert sample["doc"]["tpn_tokenizer"] == run["model_dir"]
        (trajectory,) = sample["doc"]["consensusbench"]["trajectories"]
        text = sample["filtered_resps"][0][0]
        assert trajectory["n_nodes"] == len(sample["doc"]["nodes"])
        assert trajectory["tpn_unit"] == run["model_dir"]  # TPN counted in SmolLM2 tokens
        assert set(trajectory["positions"]) == set(trajectory["covered"])
        for start, end, token_index in trajectory["positions"].values():
            assert 0 <= start < end <= len(text) and 1 <= token_index <= trajectory["n_tokens"]
        assert sample["acc"] == trajectory["acc"]
        assert set(sample["metrics"]) <= SCORES
        metrics = run["report"]["results"][task]
        assert metrics["acc,none"] == sample["acc"]
        assert metrics["n_tokens,none"] == trajectory["n_tokens"]
        if trajectory["ncr"] is not None:
            assert metrics["ncr,none"] == pytest.approx(trajectory["ncr"])
        first_error = trajectory["first_error"]  # where it leaves the consensus path: logged, no table metric
        assert first_error["step"] is None or 0 <= first_error["step"] < first_error["n_steps"]
        assert not any(key.startswith(("first_error", "left_path")) for key in metrics)


def test_results_record_the_run_configuration_in_task_metadata(run):
    for task in TASKS + [PASS16]:
        metadata = run["report"]["configs"][task]["metadata"]
        assert metadata["pretrained"] == run["model_dir"] and metadata["version"] == 1.2
        assert metadata["tpn_tokenizer"] == metadata["tpn_unit"] == run["model_dir"]
        assert metadata["think_format"] == "think,sky-t1"
        assert run["report"]["versions"][task] == 1.2
    assert "consensusbench_gsm8k" in run["stdout"]
