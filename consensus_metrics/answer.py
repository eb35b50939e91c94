r"""Answer checking: ``acc`` with math-verify, gold first (SPEC §4).

The final answer is read from the text after the last ``</think>`` when the trajectory has one; a
trajectory that opens ``<think>`` and never closes it has no answer (``acc = 0``,
``think_unclosed = True``). Otherwise the whole text is the answer region. Only the last
:data:`MAX_ANSWER_CHARS` characters of the region are parsed (the answer sits at the end; this
bounds parsing of megabyte outputs).

math-verify runs in the sandbox worker (:mod:`consensus_metrics.sandbox`) so that its time limit
is hard on any thread.

>>> split_think("<think>let me see</think> The answer is $\\boxed{5}$.")
(' The answer is $\\boxed{5}$.', False)
>>> split_think("<think>still thinking...")
(None, True)
"""

from __future__ import annotations

import re
from functools import lru_cache

from .budget import Deadline
from . import sandbox

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
MAX_ANSWER_CHARS = 20_000


def split_think(text: str) -> tuple[str | None, bool]:
    """Return (answer region, think_unclosed). The region is ``None`` when there is no answer."""
    close = text.rfind(THINK_CLOSE)
    if close >= 0:
        return text[close + len(THINK_CLOSE):], False
    if THINK_OPEN in text:
        return None, True
    return text, False


@lru_cache(maxsize=8192)
def _parse_gold(gold: str):
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse

    configs = [LatexExtractionConfig(), ExprExtractionConfig()]
    gold = gold.replace("\\$", "")  # MATH's currency sign (\$18.90) is not a math delimiter
    delimited = re.search(r"(?<!\\)\$", gold) or "\\boxed" in gold or "\\(" in gold
    wrapped = gold if delimited else f"${gold}$"
    parsed = parse(wrapped, extraction_config=configs, parsing_timeout=None)
    if not parsed:
        parsed = parse(gold, extraction_config=configs, parsing_timeout=None)
    return parsed


def verify_in_process(gold: str, pred_text: str, timeout_s: int = 1) -> dict:
    """math-verify ``verify(parse(gold), parse(pred))`` in this process (sandbox worker only)."""
    from math_verify import parse, verify

    gold_parsed = _parse_gold(gold)
    pred_parsed = parse(pred_text, parsing_timeout=timeout_s)
    if not gold_parsed or not pred_parsed:
        return {"acc": 0, "pred": str(pred_parsed[-1]) if pred_parsed else ""}
    ok = verify(gold_parsed, pred_parsed, timeout_seconds=timeout_s)
    return {"acc": int(bool(ok)), "pred": str(pred_parsed[-1])[:200]}


class AnswerCheck:
    """An answer check started in the sandbox; :meth:`result` collects it (by its deadline)."""

    def __init__(self, text: str, gold: str, deadline: Deadline):
        if not isinstance(gold, str):
            raise TypeError(f"answer must be a str, got {type(gold).__name__}")
        region, unclosed = split_think(text)
        self.verdict = {"acc": 0, "pred": "", "think_unclosed": unclosed, "timed_out": False}
        self.pending = None
        if region is None or not region.strip() or not gold.strip():
            return
        timeout = deadline.remaining()
        if timeout <= 0:
            self.verdict["timed_out"] = True
            return
        try:
            self.pending = sandbox.submit("verify", {"gold": gold, "pred": region[-MAX_ANSWER_CHARS:]}, timeout)
        except sandbox.SandboxError:
            self.pending = None

    def result(self) -> dict:
        """``{"acc": 0|1, "pred": extracted answer, "think_unclosed": bool, "timed_out": bool}``."""
        if self.pending is not None:
            pending, self.pending = self.pending, None
            try:
                reply = pending.result()
                self.verdict["acc"] = int(reply.get("acc", 0))
                self.verdict["pred"] = reply.get("pred", "")
            except sandbox.SandboxTimeout:
                self.verdict["timed_out"] = True
            except sandbox.SandboxError:
                pass
        return self.verdict


def check_answer(text: str, gold: str, deadline: Deadline) -> dict:
    """Score the final answer of ``text`` against ``gold`` (blocking form of :class:`AnswerCheck`).

    Returns ``{"acc": 0|1, "pred": extracted answer, "think_unclosed": bool, "timed_out": bool}``.
    """
    return AnswerCheck(text, gold, deadline).result()
