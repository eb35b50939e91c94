r"""Chat messages as one trajectory text: a split-off reasoning trace goes back before the answer.

Trainers, servers and APIs hand a thinking model's output over as a chat message whose trace is
*not* in ``content``: TRL 1.16's ``GRPOTrainer`` decodes completions with the tokenizer's
``parse_response`` whenever a response template is set (Qwen3 / DeepSeek-R1 templates:
``reasoning_content``; LFM2.5, gpt-oss: ``thinking``), vLLM's ``--reasoning-parser`` returns
``reasoning`` (>= 0.10) or ``reasoning_content``, SGLang and the DeepSeek API
``reasoning_content``, and Anthropic-style content blocks carry ``{"type": "thinking"}``. NCR and
TPN read the whole trajectory, trace included (docs/SPEC.md §3-§4), and Acc reads the answer after
the trace: so the trace is written back **before** the answer, between the first trace marker
pair of the metric's :class:`~consensus_metrics.answer.ThinkFormat` (``<think>``/``</think>`` by
default)::

    {"reasoning_content": T, "content": A}   ->   <think>T</think>A

* a trace without an answer -- ``content`` missing, ``null`` or empty, in the final message
  and without a tool call (TRL's ``parse_response`` turns the missing answer of a trace cut by
  ``max_completion_length`` into ``""``) -- is an unclosed trace, ``<think>T``: Acc 0,
  ``think_unclosed`` (the answer is empty either way, so Acc is 0 as well when the model did close
  its trace and then wrote nothing);
* a message without a reasoning field is its ``content`` unchanged (a trace the model wrote
  inline stays where it is);
* under a format without trace markers (``none``) the trace comes first and a blank line
  separates it from the answer (the whole text is the answer region there).

Fields read, first non-empty string wins: :data:`REASONING_FIELDS`; content blocks of a type in
:data:`REASONING_BLOCK_TYPES` count as trace too, ``{"type": "text"}`` blocks as the answer.

>>> message_text({"role": "assistant", "reasoning_content": "2+3=5", "content": "\\boxed{5}"})
'<think>2+3=5</think>\\boxed{5}'
>>> message_text({"role": "assistant", "thinking": "2+3=5, so", "content": ""})
'<think>2+3=5, so'
>>> message_text({"role": "assistant", "content": "<think>2+3=5</think>\\boxed{5}"})
'<think>2+3=5</think>\\boxed{5}'
>>> conversation_text([{"role": "assistant", "reasoning": "x = 2", "content": "2"}], "sky-t1")
'<|begin_of_thought|>x = 2<|end_of_thought|>2'
"""

from __future__ import annotations

from typing import Any

from .answer import ThinkFormat, resolve_think_format

__all__ = ["REASONING_FIELDS", "REASONING_BLOCK_TYPES", "reasoning_of", "join_trace", "message_text",
           "conversation_text"]

REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking")
"""Message fields that hold a split-off trace: ``reasoning_content`` (TRL's Qwen3 / DeepSeek-R1 /
Qwen3.5 / Nemotron 3 / Gemma 4 response templates, SGLang, the DeepSeek API, vLLM < 0.10),
``reasoning`` (vLLM >= 0.10, OpenRouter) and ``thinking`` (TRL's LFM2.5 and gpt-oss templates,
Ollama)."""

REASONING_BLOCK_TYPES = ("thinking", "reasoning", "reasoning_content")
"""Content-block types that hold trace text (in the block's ``thinking``, ``reasoning``,
``reasoning_content`` or ``text`` key), e.g. Anthropic's ``{"type": "thinking", "thinking": ...}``."""

_BLOCK_TEXT_KEYS = ("thinking", "reasoning", "reasoning_content", "text")


def _blocks(content: list) -> tuple[list[str], list[str]]:
    """``(trace pieces, answer pieces)`` of a list of content blocks."""
    traces, answers = [], []
    for block in content:
        if isinstance(block, str):
            answers.append(block)
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            answers.append(block["text"])
        elif kind in REASONING_BLOCK_TYPES:
            text = next((block[k] for k in _BLOCK_TEXT_KEYS if isinstance(block.get(k), str) and block[k]), "")
            if text:
                traces.append(text)
    return traces, answers


def reasoning_of(message: Any) -> str | None:
    """The trace a message carries beside its answer (a reasoning field, or reasoning content
    blocks), or ``None``.

    >>> reasoning_of({"content": "5", "reasoning": "2+3=5"}), reasoning_of({"content": "5"})
    ('2+3=5', None)
    >>> reasoning_of({"content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "5"}]})
    'hm'
    """
    if not isinstance(message, dict):
        return None
    pieces = [next((message[f] for f in REASONING_FIELDS if isinstance(message.get(f), str) and message[f]), "")]
    if isinstance(message.get("content"), list):
        pieces += _blocks(message["content"])[0]
    pieces = [p for p in pieces if p]
    return "\n".join(pieces) if pieces else None


def _content_of(message: dict) -> str | None:
    """The answer text of a message: ``content`` as a string, its text blocks joined, or
    ``None`` when there is none."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        answers = _blocks(content)[1]
        return "".join(answers) if answers else None
    return None


def join_trace(trace: str, answer: str | None, think_format: "ThinkFormat | str | None" = None) -> str:
    """``trace`` and ``answer`` as one trajectory under ``think_format``: the trace between the
    format's first trace marker pair, then the answer; ``answer=None`` leaves the trace unclosed.

    >>> join_trace("a", "b"), join_trace("a", None), join_trace("a", "b", "none")
    ('<think>a</think>b', '<think>a', 'a\\n\\nb')
    """
    fmt = resolve_think_format(think_format)
    if not fmt.traces:
        return trace if answer is None else f"{trace}\n\n{answer}"
    open_, close = fmt.traces[0]
    return f"{open_}{trace}" if answer is None else f"{open_}{trace}{close}{answer}"


def message_text(message: Any, think_format: "ThinkFormat | str | None" = None, final: bool = True) -> str | None:
    """One chat message as the metrics read it (rules: module docstring); ``None`` when it holds
    neither an answer nor a trace. ``final``: the message ends the completion (an empty answer
    beside a trace then means the trace never closed; before a tool call it does not)."""
    if isinstance(message, str):
        return message
    if not isinstance(message, dict):
        return None
    content = _content_of(message)
    trace = reasoning_of(message)
    if trace is None:
        return content
    if not content:  # no answer: the trace never closed, unless a tool call followed it
        return join_trace(trace, "" if not final or message.get("tool_calls") else None, think_format)
    return join_trace(trace, content, think_format)


def conversation_text(completion: Any, think_format: "ThinkFormat | str | None" = None) -> str:
    """The text of a completion: a string, one message, or a list of messages (only the
    assistant ones when roles are given), each through :func:`message_text`, joined by newlines.

    >>> conversation_text([{"role": "assistant", "content": "x = 2"}, {"role": "tool", "content": "ok"}])
    'x = 2'
    >>> conversation_text(None)
    ''
    """
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if not isinstance(completion, (list, tuple)):
        return str(completion)
    has_roles = any(isinstance(m, dict) and "role" in m for m in completion)
    kept = [m for m in completion
            if isinstance(m, str) or (isinstance(m, dict) and (not has_roles or m.get("role") == "assistant"))]
    parts = [message_text(m, think_format, final=i == len(kept) - 1) for i, m in enumerate(kept)]
    return "\n".join(p for p in parts if p)
