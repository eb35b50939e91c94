"""Templates that open ``<think>`` for the model: detection from real chat templates, and the
``think_prefilled`` switch of the lm-eval tasks and the scoring CLI (the rewards: test_rewards.py,
test_verl_adapter.py).

The templates are the originals TRL ships for identity comparison (``trl/chat_templates/*.jinja``:
DeepSeek-R1-Distill, Qwen3, Qwen3.5, Nemotron 3, Llama 3.1, Qwen2.5), set on the embedded
SmolLM2 tokenizer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from consensus_metrics.chat_template import detect_think_prefilled, parse_setting, resolve_think_prefilled
from lm_eval_tasks.consensusbench import utils

trl = pytest.importorskip("trl")
TEMPLATES = Path(trl.__file__).parent / "chat_templates"
NODES = [{"id": "n1", "text": "16-3-4=9", "kind": "equation", "forms": [], "value": None, "support": 1.0,
          "position": 0.5}]
CUT_TRACE = "Okay, 16 - 3 - 4 = 9 eggs left... maybe \\boxed{18}? Let me double-check"  # hit max tokens


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from models.embedded_model import ensure_embedded_model

    return AutoTokenizer.from_pretrained(ensure_embedded_model())


def with_template(tokenizer, name):
    tokenizer.chat_template = (TEMPLATES / f"{name}.jinja").read_text()
    return tokenizer


@pytest.mark.parametrize("name,kwargs,expected", [
    ("deepseek_r1_distill", {}, True),       # '<｜Assistant｜><think>\n'
    ("qwen3_5_think", {}, True),
    ("qwen3_8", {}, True),
    ("nemotron_3_nano", {}, True),
    ("qwen3", {}, False),                    # hybrid Qwen3: the model writes <think> itself
    ("qwen3", {"enable_thinking": False}, False),   # '<think>\n\n</think>\n\n': opened and closed
    ("qwen3_5_nothink", {}, False),
    ("qwen2_5", {}, False),
    ("llama3_1", {}, False),
])
def test_detection_on_real_templates(tokenizer, name, kwargs, expected):
    assert detect_think_prefilled(with_template(tokenizer, name), **kwargs) is expected


def test_no_template_is_unknown_and_auto_then_says_no(tokenizer):
    tokenizer.chat_template = None
    assert detect_think_prefilled(tokenizer) is None
    assert resolve_think_prefilled("auto", tokenizer) is False
    assert resolve_think_prefilled("true", None) is True


def test_setting_values():
    assert [parse_setting(v) for v in ("auto", "TRUE", "no", False, 1)] == ["auto", "true", "false", "false", "true"]
    with pytest.raises(ValueError, match="think_prefilled must be auto, true or false"):
        parse_setting("maybe")


@pytest.fixture
def r1_tokenizer_dir(tokenizer, tmp_path):
    """A tokenizer folder whose chat template is DeepSeek-R1-Distill's (as a distill ships it)."""
    with_template(tokenizer, "deepseek_r1_distill").save_pretrained(tmp_path / "r1")
    return str(tmp_path / "r1")


def test_lm_eval_task_detects_a_prefilled_template_and_scores_a_cut_trace_as_unclosed(r1_tokenizer_dir):
    assert utils.resolve_think_format({"pretrained": r1_tokenizer_dir}, r1_tokenizer_dir) == "think,sky-t1+prefilled"
    assert utils.resolve_think_format({"think_prefilled": "false"}, r1_tokenizer_dir) == "think,sky-t1"
    dataset = utils.load_consensusbench("gsm8k.jsonl", pretrained=r1_tokenizer_dir)["test"]
    assert set(dataset["think_format"]) == {"think,sky-t1+prefilled"}
    doc = {"problem": "...", "answer": "18", "nodes": NODES, "tpn_tokenizer": "", "think_format": dataset[0]["think_format"]}
    out = utils.score_generations(doc, [[CUT_TRACE]])
    assert out["acc"] == 0.0 and out["think_unclosed"] == 1 and out["ncr"] == 1.0
    # the same text under a template that does not open <think>: it is read as the answer
    out = utils.score_generations({**doc, "think_format": "think,sky-t1"}, [[CUT_TRACE]])
    assert out["acc"] == 1.0 and out["think_unclosed"] == 0
    closed = CUT_TRACE + " ... yes.</think>The answer is \\boxed{18}."
    assert utils.process_results(doc, [[closed]])["acc"] == 1.0


def test_scoring_cli_switch(tmp_path, r1_tokenizer_dir):
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "g1", "benchmark": "gsm8k", "answer": "18", "nodes": NODES}) + "\n")
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"id": "g1", "completion": CUT_TRACE}) + "\n")

    def score(out, *flags):
        proc = subprocess.run([sys.executable, "-m", "consensus_metrics", "score", "--data", str(data), "--samples",
                               str(samples), "--out", str(tmp_path / out), "--quiet", *flags],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return json.loads((tmp_path / out).read_text().splitlines()[0]), proc

    row, _ = score("plain.jsonl")
    assert (row["acc"], row["think_unclosed"], row["inputs"]["think_format"]) == (1, False, "think,sky-t1")
    row, _ = score("forced.jsonl", "--think-prefilled", "true")
    assert (row["acc"], row["think_unclosed"], row["ncr"]) == (0, True, 1.0)
    row, proc = score("auto.jsonl", "--tokenizer", r1_tokenizer_dir)
    assert row["think_unclosed"] and row["inputs"]["think_format"] == "think,sky-t1+prefilled"
    assert "opens the trace" in proc.stderr
    # a rerun into the same --out with another setting is refused, not mixed (or rescored on request)
    rerun = [sys.executable, "-m", "consensus_metrics", "score", "--data", str(data), "--samples", str(samples),
             "--out", str(tmp_path / "forced.jsonl"), "--quiet"]
    proc = subprocess.run(rerun, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "think_format think,sky-t1+prefilled -> think,sky-t1" in proc.stderr
    proc = subprocess.run(rerun + ["--rescore"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (row,) = [json.loads(line) for line in (tmp_path / "forced.jsonl").read_bytes().splitlines()]
    assert row["acc"] == 1 and row["inputs"]["think_format"] == "think,sky-t1"
    # --think-format is checked before any work
    proc = subprocess.run(rerun + ["--think-format", "thonk"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "'thonk'" in proc.stderr
