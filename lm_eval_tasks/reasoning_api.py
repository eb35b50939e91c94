r"""lm-eval model ``consensusbench-chat-completions``: ``local-chat-completions`` that keeps the trace.

A vLLM server started with ``--reasoning-parser`` (or SGLang, or the DeepSeek API) returns a
thinking model's trace apart from its answer: ``message.reasoning`` (vLLM >= 0.10; older releases
and other servers: ``message.reasoning_content``) and ``message.content``. lm-eval's
``local-chat-completions`` keeps only ``content``, so NCR and TPN would be computed on the final
answer alone -- silently. This subclass puts the trace back where ConsensusBench reads it::

    <think>{reasoning}</think>{content}

and, when the server gave a trace but no answer (``content`` is null: the trace was cut by
``max_gen_toks`` or never closed), ``<think>{reasoning}`` -- an unclosed trace, scored acc 0 and
counted in ``think_unclosed``. (A model that closes its trace and then writes nothing looks the
same to the client, as the server turns an empty answer into null; its acc is 0 either way.)
Responses without a reasoning field pass through unchanged, so the model also works against a
server without a reasoning parser. The markers are settings (``think_open``, ``think_close``).

Registered by this package: the lm-eval task hook (``lm_eval_tasks.discovery``) registers the
name when lm-eval loads, so after ``pip install`` the plain CLI knows it::

    lm_eval --model consensusbench-chat-completions \
        --model_args model=Qwen/Qwen3-8B,base_url=http://127.0.0.1:8000/v1/chat/completions,num_concurrent=32 \
        --tasks consensusbench_aime24 --apply_chat_template --log_samples --output_path runs/served

Everything else is ``local-chat-completions`` (same ``--model_args``). Do not pass
``think_end_token``: it cuts the trace this model exists to keep (refused).

>>> rejoin({"content": "The answer is 5.", "reasoning": "2+3=5"})
'<think>2+3=5</think>The answer is 5.'
>>> rejoin({"content": None, "reasoning_content": "2+3=5, so"})
'<think>2+3=5, so'
>>> rejoin({"content": "5"})
'5'
"""

from __future__ import annotations

import logging
from typing import Any

from lm_eval.api.registry import register_model
from lm_eval.models.openai_completions import LocalChatCompletion

from consensus_metrics.messages import REASONING_FIELDS as _REASONING_FIELDS

log = logging.getLogger(__name__)

MODEL_NAMES = ("consensusbench-chat-completions", "reasoning-chat-completions")
"""The names this model is registered under (``--model``)."""
REASONING_FIELDS = _REASONING_FIELDS
"""Where servers put the trace: ``reasoning_content`` (DeepSeek API, SGLang, vLLM < 0.10),
``reasoning`` (vLLM >= 0.10) and ``thinking`` (Ollama); the fields the TRL reward reads too
(``consensus_metrics.messages``)."""


def reasoning_of(message: dict[str, Any]) -> str | None:
    """The trace a server returned beside the answer, or ``None``."""
    for field in REASONING_FIELDS:
        value = message.get(field)
        if isinstance(value, str) and value:
            return value
    return None


def rejoin(message: dict[str, Any], think_open: str = "<think>", think_close: str = "</think>") -> str | None:
    """One chat message as ConsensusBench reads it: the trace between the markers, then the
    answer (rules: module docstring). ``None`` when the message has neither."""
    content = message.get("content")
    reasoning = reasoning_of(message)
    if reasoning is None:
        return content
    if content is None:  # no answer part: the trace never closed (cut, or stopped inside it)
        return f"{think_open}{reasoning}"
    return f"{think_open}{reasoning}{think_close}{content}"


@register_model(*MODEL_NAMES)
class ReasoningChatCompletion(LocalChatCompletion):
    """``local-chat-completions`` that rejoins the server's reasoning field as ``<think>...</think>``
    (see the module docstring). Extra ``--model_args``: ``think_open``, ``think_close``."""

    def __init__(self, *args, think_open: str = "<think>", think_close: str = "</think>", **kwargs):
        if kwargs.get("think_end_token"):
            raise ValueError("consensusbench-chat-completions keeps the whole trace for NCR and TPN: do not pass "
                             "think_end_token (ConsensusBench reads the answer after </think> itself)")
        super().__init__(*args, **kwargs)
        self.think_open, self.think_close = think_open, think_close
        self.responses = 0
        self.with_reasoning = 0

    def parse_generations(self, outputs: dict | list[dict], **kwargs) -> list[str]:
        res: list[str | None] = []
        if not isinstance(outputs, list):
            outputs = [outputs]
        for out in outputs:
            try:
                texts: list[str | None] = [None] * len(out["choices"])
                for choice in out["choices"]:
                    message = choice.get("message") or {}
                    self.responses += 1
                    if reasoning_of(message) is not None:
                        self.with_reasoning += 1
                    texts[choice["index"]] = rejoin(message, self.think_open, self.think_close)
            except (IndexError, KeyError, TypeError) as err:
                log.warning("consensusbench-chat-completions: could not parse a response (%s)", err)
                texts = [""]
            res += texts
        return res  # type: ignore[return-value]
