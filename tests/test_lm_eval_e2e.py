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
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
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
            "stdout": done.stdout}


def test_every_task_and_the_group_report_the_metrics(run):
    results = run["report"]["results"]
    assert set(results) == {"consensusbench", *TASKS, PASS16}
    for task in TASKS + [PASS16]:
        metrics = results[task]
        for key in ("acc", "n_tokens", "ncr_undefined", "tpn_undefined", "think_unclosed", "timed_out",
                    "trajectories", "tpn_unit"):
            assert f"{key},none" in metrics, (task, key)
        assert 0.0 <= metrics["acc,none"] <= 1.0
        assert 0 < metrics["n_tokens,none"] <= MAX_GEN_TOKS + 2
        assert metrics["tpn_unit,none"] == run["model_dir"]  # TPN counted in SmolLM2 tokens
        assert metrics["timed_out,none"] == 0
        assert "acc_stderr,none" in metrics
    for task in ("consensusbench_math500", "consensusbench_gsm8k", "consensusbench_aime24"):
        assert 0.0 <= results[task]["ncr,none"] <= 1.0 and results[task]["ncr_undefined,none"] == 0
    # The AIME 2025 fixture problems have no nodes: NCR undefined, counted, left out of the group NCR.
    assert "ncr,none" not in results["consensusbench_aime25"]
    assert results["consensusbench_aime25"]["ncr_undefined,none"] == 1
    group = results["consensusbench"]
    ncrs = [results[t]["ncr,none"] for t in TASKS if "ncr,none" in results[t]]
    assert group["ncr,none"] == pytest.approx(sum(ncrs) / len(ncrs))
    assert group["acc,none"] == pytest.approx(sum(results[t]["acc,none"] for t in TASKS) / 4)
    assert "n_tokens,none" in group
    assert run["report"]["higher_is_better"]["consensusbench_gsm8k"]["acc"] is True


def test_pass_at_k_with_repeats(run):
    metrics = run["report"]["results"][PASS16]
    assert run["report"]["configs"][PASS16]["repeats"] == 16
    assert metrics["trajectories,none"] == 16
    assert metrics["pass@1,none"] == metrics["acc,none"]
    for k in (2, 4, 8, 16):
        assert f"pass@{k},none" in metrics
    assert metrics["pass@2,none"] <= metrics["pass@4,none"] <= metrics["pass@8,none"] <= metrics["pass@16,none"]
    (sample,) = run["samples"][PASS16]
    assert len(sample["trajectories"]) == 16 and len(sample["resps"][0]) == 16
    correct = sum(t["acc"] for t in sample["trajectories"])
    assert metrics["pass@16,none"] == (1.0 if correct else 0.0)
    assert metrics["acc,none"] == pytest.approx(correct / 16)
    texts = {t for t in sample["filtered_resps"][0]}
    assert len(texts) > 1  # sampled, not 16 copies of one greedy answer


def test_samples_log_covered_nodes_positions_and_tokenizer(run):
    for task in TASKS:
        (sample,) = run["samples"][task]
        assert sample["doc"]["tpn_tokenizer"] == run["model_dir"]
        (trajectory,) = sample["trajectories"]
        text = sample["filtered_resps"][0][0]
        assert trajectory["n_nodes"] == len(sample["doc"]["nodes"])
        assert set(trajectory["positions"]) == set(trajectory["covered"])
        for start, end, token_index in trajectory["positions"].values():
            assert 0 <= start < end <= len(text) and 1 <= token_index <= trajectory["n_tokens"]
        assert sample["acc"] == trajectory["acc"]
        metrics = run["report"]["results"][task]
        assert metrics["acc,none"] == sample["acc"]
        assert metrics["n_tokens,none"] == trajectory["n_tokens"]
        if trajectory["ncr"] is not None:
            assert metrics["ncr,none"] == pytest.approx(trajectory["ncr"])
        first_error = trajectory["first_error"]  # where it leaves the consensus path: logged, no table metric
        assert first_error["step"] is None or 0 <= first_error["step"] < first_error["n_steps"]
        assert not any(key.startswith(("first_error", "left_path")) for key in metrics)


def test_results_record_the_model_args_in_task_metadata(run):
    metadata = run["report"]["configs"]["consensusbench_gsm8k"]["metadata"]
    assert metadata["pretrained"] == run["model_dir"] and metadata["version"] == 1.1
    assert "consensusbench_gsm8k" in run["stdout"] and "tpn_unit" in run["stdout"]
