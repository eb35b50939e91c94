r"""Does a model's chat template open the reasoning trace for it? (the ``think_prefilled`` switch)

Some chat templates end the assistant turn's opening with ``<think>\n`` (DeepSeek-R1 distills,
QwQ, Qwen3 "Thinking" and Qwen3.5/3.6 thinking templates, Nemotron 3): the generation then
starts *inside* the trace and holds no ``<think>``. A trace cut off by the token limit has no
``</think>`` either, and without this knowledge the whole trace would be read as the final answer
(a stray ``\boxed{}`` in it can score acc = 1). With ``prefilled`` set
(:class:`~consensus_metrics.answer.ThinkFormat`), a text without a close marker is an unclosed
trace: no answer, ``think_unclosed``.

:func:`detect_think_prefilled` renders the template for one user message with and without the
generation prompt and looks at what the generation prompt adds: a trace marker opened there and
not closed means prefilled (Qwen3's ``enable_thinking=False`` adds ``<think>\n\n</think>``: closed,
so not prefilled). The template is rendered by ``transformers`` (a sandboxed Jinja environment);
nothing is generated.

:func:`resolve_think_prefilled` turns the user-facing setting (``auto``, ``true``, ``false``)
into a bool; ``auto`` detects from the tokenizer when there is one, else says no.

>>> class Template:  # any object with apply_chat_template, e.g. an HF tokenizer
...     def apply_chat_template(self, messages, tokenize=False, add_generation_prompt=False, **kw):
...         text = "".join(f"<|user|>{m['content']}" for m in messages)
...         return text + ("<|assistant|><think>\n" if add_generation_prompt else "")
>>> detect_think_prefilled(Template())
True
>>> resolve_think_prefilled("false", Template()), resolve_think_prefilled("auto", None)
(False, False)
"""

from __future__ import annotations

import logging

from .answer import ThinkFormat, resolve_think_format

log = logging.getLogger(__name__)

PROBE_MESSAGES = [{"role": "user", "content": "What is 1 + 1?"}]
"""The conversation rendered to inspect a template (its text never reaches a model)."""
SETTINGS = ("auto", "true", "false")
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off", "none", ""}


def generation_prompt(tokenizer, **template_kwargs) -> str | None:
    """The text the chat template adds to open the assistant turn, or ``None`` when the tokenizer
    has no chat template (or it cannot be rendered). ``template_kwargs`` go to the template (e.g.
    ``enable_thinking=False`` for Qwen3)."""
    apply = getattr(tokenizer, "apply_chat_template", None)
    if apply is None or (hasattr(tokenizer, "chat_template") and not getattr(tokenizer, "chat_template", None)):
        return None
    try:
        with_prompt = apply(PROBE_MESSAGES, tokenize=False, add_generation_prompt=True, **template_kwargs)
        without = apply(PROBE_MESSAGES, tokenize=False, add_generation_prompt=False, **template_kwargs)
    except Exception as err:  # templates raise anything (missing variables, raise_exception(...))
        log.warning("cannot render the chat template to check for a prefilled <think> (%s: %s)",
                    type(err).__name__, err)
        return None
    if not isinstance(with_prompt, str) or not isinstance(without, str):
        return None
    # Templates that render the last turn differently with a generation prompt (Phi-3) do not
    # share a prefix: then the tail of the whole prompt is what the model continues from.
    return with_prompt[len(without):] if with_prompt.startswith(without) else with_prompt[-200:]


def detect_think_prefilled(tokenizer, think_format: ThinkFormat | str | None = None,
                           **template_kwargs) -> bool | None:
    """``True`` when the chat template opens a trace (any trace marker of ``think_format``,
    default ``<think>`` and Sky-T1) for the model and does not close it; ``False`` when it does not;
    ``None`` when there is no chat template to inspect."""
    suffix = generation_prompt(tokenizer, **template_kwargs)
    if suffix is None:
        return None
    fmt = resolve_think_format(think_format)
    last_open = max((suffix.rfind(open_) for open_, _close in fmt.traces), default=-1)
    last_close = max((suffix.rfind(close) for _open, close in fmt.traces), default=-1)
    return last_open >= 0 and last_open > last_close


def parse_setting(value) -> str:
    """``auto``, ``true`` or ``false`` from a bool or a string (``yes``/``no``/``1``/``0`` too);
    ``ValueError`` naming the value otherwise.

    >>> parse_setting(True), parse_setting("Yes"), parse_setting(None), parse_setting("auto")
    ('true', 'true', 'auto', 'auto')
    """
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value).strip().lower()
    if text == "auto":
        return "auto"
    if text in _TRUE:
        return "true"
    if text in _FALSE:
        return "false"
    raise ValueError(f"think_prefilled must be auto, true or false, got {value!r}")


def resolve_think_prefilled(setting, tokenizer=None, think_format: ThinkFormat | str | None = None,
                            **template_kwargs) -> bool:
    """The ``think_prefilled`` setting as a bool: ``true``/``false`` as given; ``auto`` (or
    ``None``) detects from ``tokenizer``'s chat template and is ``False`` without one."""
    choice = parse_setting(setting)
    if choice != "auto":
        return choice == "true"
    if tokenizer is None:
        return False
    return bool(detect_think_prefilled(tokenizer, think_format, **template_kwargs))
