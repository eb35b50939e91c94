"""consensusbench-chat-completions without a server: response parsing, registration, the stripped
warning. The real server case is tests/test_vllm_reasoning.py."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("lm_eval")

from lm_eval_tasks.consensusbench import utils  # noqa: E402
from lm_eval_tasks.reasoning_api import ReasoningChatCompletion, rejoin  # noqa: E402

# the shape of a vLLM 0.32 /v1/chat/completions reply with --reasoning-parser deepseek_r1
REPLY = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [
    {"index": 0, "finish_reason": "stop",
     "message": {"role": "assistant", "content": " The answer is 12.", "reasoning": "16-3-4=9, 9*2=18? no",
                 "tool_calls": []}},
]}


def test_rejoin_keeps_the_trace_before_the_answer():
    assert rejoin(REPLY["choices"][0]["message"]) == "<think>16-3-4=9, 9*2=18? no</think> The answer is 12."
    # older vLLM, SGLang, the DeepSeek API; Ollama
    assert rejoin({"content": "x", "reasoning_content": "t"}) == "<think>t</think>x"
    assert rejoin({"content": "x", "thinking": "t"}) == "<think>t</think>x"
    # a trace that never closed: no answer part
    assert rejoin({"content": None, "reasoning": "t"}) == "<think>t"
    # no reasoning parser on the server: unchanged
    assert rejoin({"content": "<think>t</think>x"}) == "<think>t</think>x"
    assert rejoin({"content": None}) is None
    assert rejoin({"content": "x", "reasoning": "t"}, "<|begin_of_thought|>", "<|end_of_thought|>") == \
        "<|begin_of_thought|>t<|end_of_thought|>x"


def model():
    return ReasoningChatCompletion(model="m", base_url="http://127.0.0.1:9/v1/chat/completions",
                                   tokenized_requests=False)


def test_parse_generations_of_a_reply_and_counts():
    lm = model()
    assert lm.parse_generations([REPLY, {"choices": [{"index": 0, "message": {"content": "5"}}]}]) == [
        "<think>16-3-4=9, 9*2=18? no</think> The answer is 12.", "5"]
    assert (lm.responses, lm.with_reasoning) == (2, 1)


def test_think_end_token_is_refused():
    with pytest.raises(ValueError, match="think_end_token"):
        ReasoningChatCompletion(model="m", base_url="http://127.0.0.1:9/v1/chat/completions",
                                think_end_token="</think>")


def test_registered_by_the_package():
    import lm_eval.evaluator  # noqa: F401  (loads lm_eval.tasks.manager: the task hook runs)
    from lm_eval.api.registry import get_model

    from lm_eval_tasks.discovery import register_models

    register_models()  # what the hook does (also when lm-eval was imported before the hook)
    assert get_model("consensusbench-chat-completions") is ReasoningChatCompletion
    assert get_model("reasoning-chat-completions") is ReasoningChatCompletion
    assert get_model("hf").__name__ == "HFLM"  # the built-in models are still there


def test_stripped_warning_when_no_generation_of_a_thinking_model_has_a_trace(caplog, capsys):
    class ThinkingTokenizer:
        chat_template = "{{ '<|im_start|>assistant\\n<think>\\n' }}"

    assert utils.trace_missing(["The answer is 5."], ThinkingTokenizer()) == 1
    assert utils.trace_missing(["<think>2+3=5</think>5"], ThinkingTokenizer()) == 0
    assert utils.trace_missing(["The answer is 5."], None) == 0  # not a thinking model
    with caplog.at_level(logging.WARNING):
        assert utils.stripped_check(3, 3) is True
    assert "responses look STRIPPED" in capsys.readouterr().err
    assert utils.stripped_check(1, 4) is False
    assert "STRIPPED" not in capsys.readouterr().err
