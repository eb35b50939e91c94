r"""Answer checking: ``acc`` with math-verify, gold first (docs/SPEC.md §4), and where the answer is.

A trajectory may hold a reasoning *trace* before its final answer. Which markers delimit the
trace (and, for some models, the answer) is a setting, :class:`ThinkFormat`; the default
recognises both conventions in use:

* ``<think> ... </think>`` (DeepSeek-R1, Qwen3, QwQ, ...): the answer is the text after the
  last ``</think>``;
* Sky-T1 / SkyThought: ``<|begin_of_thought|> ... <|end_of_thought|>`` is the trace, and
  ``<|begin_of_solution|> ... <|end_of_solution|>`` holds the answer.

Rules (:meth:`ThinkFormat.split`): the answer region is the text after the last trace close
marker of any pair; inside it, the text of the last answer block when there is one (an answer
block also counts without any trace). A trajectory that opens a trace and never closes it has no
answer (``acc = 0``, ``think_unclosed = True``); so has one *without any close marker* when the
chat template opened the trace for the model (``prefilled=True``: DeepSeek-R1 distills, QwQ,
Qwen3 "Thinking" models -- the generation starts inside the trace). Otherwise the whole text is
the answer region. Only the last :data:`MAX_ANSWER_CHARS` characters of the region are parsed
(the answer sits at the end; this bounds parsing of megabyte outputs). NCR and TPN always read
the whole trajectory, trace and markers included.

As a setting the format is a short string (:meth:`ThinkFormat.parse`), e.g. for
``--think-format`` of the scoring CLI or ``think_format=`` in the lm-eval task metadata:
``default`` (= ``think,sky-t1``), ``think``, ``sky-t1``, ``none`` (no markers: the whole text
is the answer), or custom pairs ``trace:OPEN:CLOSE`` / ``answer:OPEN:CLOSE``, comma-separated.

math-verify runs in the sandbox worker (:mod:`consensus_metrics.sandbox`) so that its time limit
is hard on any thread. Three writings it misreads are read as meant (docs/SPEC.md §4): a line
break's spacing is dropped first (:func:`drop_row_spacing`); when ``verify`` says no, a percentage
is compared by its number against a gold without ``%`` (:func:`_percent_number`), and a number
followed by unit words by the number (:func:`_number_before_words`).

>>> split_think("<think>let me see</think> The answer is $\\boxed{5}$.")
(' The answer is $\\boxed{5}$.', False)
>>> split_think("<think>still thinking...")
(None, True)
>>> sky = "<|begin_of_thought|>2+3=5<|end_of_thought|>\n<|begin_of_solution|>\\boxed{5}<|end_of_solution|>"
>>> split_think(sky)
('\\boxed{5}', False)
>>> split_think("so 2+3=5 and \\boxed{5}", ThinkFormat(prefilled=True))   # trace never closed
(None, True)
>>> ThinkFormat.parse("sky-t1").spec()
'sky-t1'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple

from .budget import Deadline
from . import sandbox

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
SKY_THOUGHT_OPEN = "<|begin_of_thought|>"
SKY_THOUGHT_CLOSE = "<|end_of_thought|>"
SKY_SOLUTION_OPEN = "<|begin_of_solution|>"
SKY_SOLUTION_CLOSE = "<|end_of_solution|>"
MAX_ANSWER_CHARS = 20_000

PRESETS: dict[str, tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]] = {
    "think": (((THINK_OPEN, THINK_CLOSE),), ()),
    "sky-t1": (((SKY_THOUGHT_OPEN, SKY_THOUGHT_CLOSE),), ((SKY_SOLUTION_OPEN, SKY_SOLUTION_CLOSE),)),
}
"""Named marker sets: ``name -> (trace pairs, answer pairs)``."""
DEFAULT_SPEC = "think,sky-t1"


class ThinkSplit(NamedTuple):
    """A trajectory cut by :meth:`ThinkFormat.split`.

    ``trace``: the text inside the trace markers ("" when there is no trace); ``answer``: the
    answer region (markers removed), ``None`` when the trace was never closed; ``unclosed``:
    whether it was never closed.
    """

    trace: str
    answer: str | None
    unclosed: bool


@dataclass(frozen=True)
class ThinkFormat:
    """Which markers delimit a reasoning trace and a final answer (picklable, hashable).

    Args:
        traces: ``(open, close)`` pairs of trace markers; any of them counts.
        answers: ``(open, close)`` pairs around the final answer (Sky-T1's solution block).
        prefilled: the chat template opened the trace before the generation, so a text with
            no close marker is an unclosed trace (no answer) rather than an answer.

    >>> ThinkFormat().split("<think>a</think>b")
    ThinkSplit(trace='a', answer='b', unclosed=False)
    >>> ThinkFormat.parse("none").split("<think>a")
    ThinkSplit(trace='', answer='<think>a', unclosed=False)
    >>> ThinkFormat.parse("trace:<reasoning>:</reasoning>", prefilled=True).spec()
    'trace:<reasoning>:</reasoning>+prefilled'
    """

    traces: tuple[tuple[str, str], ...] = PRESETS["think"][0] + PRESETS["sky-t1"][0]
    answers: tuple[tuple[str, str], ...] = PRESETS["sky-t1"][1]
    prefilled: bool = False

    def __post_init__(self):
        for field_name in ("traces", "answers"):
            pairs = getattr(self, field_name)
            if not isinstance(pairs, tuple) or not all(
                    isinstance(p, tuple) and len(p) == 2 and all(isinstance(m, str) and m for m in p) for p in pairs):
                raise ValueError(f"ThinkFormat.{field_name} must be a tuple of (open, close) pairs of non-empty "
                                 f"strings, got {pairs!r}")
        if not isinstance(self.prefilled, bool):
            raise TypeError(f"ThinkFormat.prefilled must be a bool, got {type(self.prefilled).__name__}")

    # ------------------------------------------------------------------ settings as strings
    @classmethod
    def parse(cls, spec: "str | ThinkFormat | None" = None, prefilled: bool | None = None) -> "ThinkFormat":
        """A format from its setting string (see the module docstring); ``None``/``""``/
        ``default``: both ``<think>`` and Sky-T1. A trailing ``+prefilled`` (or ``prefilled=``)
        sets :attr:`prefilled`. Raises ``ValueError`` naming the bad item."""
        if isinstance(spec, ThinkFormat):
            return spec if prefilled is None else spec.with_prefilled(prefilled)
        if spec is not None and not isinstance(spec, str):
            raise TypeError(f"think format must be a str or ThinkFormat, got {type(spec).__name__}")
        text = (spec or "").strip()
        spec_prefilled = False
        if text.endswith("+prefilled"):
            text, spec_prefilled = text[: -len("+prefilled")].strip(), True
        traces: list[tuple[str, str]] = []
        answers: list[tuple[str, str]] = []
        items = [item.strip() for item in (text or "default").split(",")]
        for item in items:
            if item == "default":
                for name in DEFAULT_SPEC.split(","):
                    traces += PRESETS[name][0]
                    answers += PRESETS[name][1]
            elif item in PRESETS:
                traces += PRESETS[item][0]
                answers += PRESETS[item][1]
            elif item == "none":
                continue
            elif item.startswith(("trace:", "answer:")):
                kind, _, rest = item.partition(":")
                open_, sep, close = rest.partition(":")
                if not sep or not open_ or not close:
                    raise ValueError(f"think format item {item!r}: expected {kind}:OPEN:CLOSE")
                (traces if kind == "trace" else answers).append((open_, close))
            else:
                raise ValueError(f"think format item {item!r}: expected one of default, "
                                 f"{', '.join(PRESETS)}, none, trace:OPEN:CLOSE, answer:OPEN:CLOSE")
        if "none" in items and len(items) > 1:
            raise ValueError(f"think format {spec!r}: 'none' cannot be combined with other items")
        return cls(tuple(dict.fromkeys(traces)), tuple(dict.fromkeys(answers)),
                   spec_prefilled if prefilled is None else bool(prefilled))

    def spec(self) -> str:
        """The setting string that :meth:`parse` turns back into this format."""
        items: list[str] = []
        traces, answers = list(self.traces), list(self.answers)
        for name, (preset_traces, preset_answers) in PRESETS.items():
            if all(p in traces for p in preset_traces) and all(p in answers for p in preset_answers):
                items.append(name)
                traces = [p for p in traces if p not in preset_traces]
                answers = [p for p in answers if p not in preset_answers]
        items += [f"trace:{o}:{c}" for o, c in traces] + [f"answer:{o}:{c}" for o, c in answers]
        text = ",".join(items) or "none"
        return text + ("+prefilled" if self.prefilled else "")

    def with_prefilled(self, prefilled: bool) -> "ThinkFormat":
        """This format with :attr:`prefilled` set."""
        return replace(self, prefilled=bool(prefilled))

    @property
    def markers(self) -> tuple[str, ...]:
        """Every marker string of this format."""
        return tuple(m for pair in self.traces + self.answers for m in pair)

    # ------------------------------------------------------------------ cutting a text
    def split(self, text: str) -> ThinkSplit:
        """Cut ``text`` into its trace and its answer region (rules: module docstring)."""
        close_end, close_start = -1, -1
        for _open, close in self.traces:
            at = text.rfind(close)
            if at >= 0 and at + len(close) > close_end:
                close_start, close_end = at, at + len(close)
        if close_end >= 0:
            head = text[:close_start]
            opened = [(head.find(open_), open_) for open_, _close in self.traces if open_ in head]
            if opened:  # the trace starts after its earliest open marker (none: it was prefilled)
                at, open_ = min(opened)
                head = head[at + len(open_):]
            return ThinkSplit(head, self._answer_block(text[close_end:]), False)
        opened = [(text.find(open_), open_) for open_, _close in self.traces if open_ in text]
        if opened:
            at, open_ = min(opened)
            return ThinkSplit(text[at + len(open_):], None, True)
        if self.prefilled and self.traces:
            return ThinkSplit(text, None, True)
        return ThinkSplit("", self._answer_block(text), False)

    def _answer_block(self, region: str) -> str:
        best = -1
        chosen = None
        for open_, close in self.answers:
            at = region.rfind(open_)
            if at > best:
                best, chosen = at, (open_, close)
        if chosen is None:
            return region
        block = region[best + len(chosen[0]):]
        end = block.find(chosen[1])
        return block if end < 0 else block[:end]

    def strip(self, text: str) -> str:
        """``text`` with every marker replaced by a blank line (for miners and importers that
        want the words without the markup).

        >>> ThinkFormat().strip("<|begin_of_thought|>x = 5<|end_of_thought|>")
        '\\n\\nx = 5\\n\\n'
        """
        for marker in sorted(self.markers, key=len, reverse=True):
            text = text.replace(marker, "\n\n")
        return text


DEFAULT_THINK_FORMAT = ThinkFormat()
"""``<think>`` and Sky-T1 markers, not prefilled."""


def resolve_think_format(think_format=None, prefilled: bool | None = None) -> ThinkFormat:
    """A :class:`ThinkFormat` from a format, a setting string or ``None`` (the default), with
    ``prefilled`` overriding when given.

    >>> resolve_think_format("think", prefilled=True).spec()
    'think+prefilled'
    """
    if think_format is None and prefilled is None:
        return DEFAULT_THINK_FORMAT
    return ThinkFormat.parse(think_format, prefilled)


def split_think(text: str, think_format: "ThinkFormat | str | None" = None) -> tuple[str | None, bool]:
    """Return (answer region, think_unclosed) of ``text`` under ``think_format`` (default: both
    ``<think>`` and Sky-T1 markers). The region is ``None`` when there is no answer."""
    parts = resolve_think_format(think_format).split(text)
    return parts.answer, parts.unclosed


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


#: ``\\[8pt]``: a LaTeX line break with extra space (matrices, aligned rows). math-verify reads the
#: optional length as a product (``8*p*t``) inside the entry that follows it.
_ROW_SPACING = re.compile(r"\\\\[ \t]*\[[ \t]*[-+]?(?:\d+\.?\d*|\.\d+)[ \t]*(?:pt|em|ex|mm|cm|in|bp|pc|dd|cc|sp|mu)[ \t]*\]")


def drop_row_spacing(text: str) -> str:
    r"""``text`` with the optional length of every LaTeX line break removed (``\\[8pt]`` becomes
    ``\\``): layout, not mathematics.

    >>> drop_row_spacing(r"\begin{pmatrix} \frac{16}{49} \\[8pt] \frac{48}{49} \end{pmatrix}")
    '\\begin{pmatrix} \\frac{16}{49} \\\\ \\frac{48}{49} \\end{pmatrix}'
    >>> drop_row_spacing(r"a \\[2mm] b, \[ x^2 \]")   # a display, \[ ... \], is no line break
    'a \\\\ b, \\[ x^2 \\]'
    """
    return _ROW_SPACING.sub(lambda _: "\\\\", text) if "[" in text else text


def verify_in_process(gold: str, pred_text: str, timeout_s: int = 1) -> dict:
    """math-verify ``verify(parse(gold), parse(pred))`` in this process (sandbox worker only)."""
    from math_verify import parse, verify

    gold_parsed = _parse_gold(gold)
    pred_parsed = parse(pred_text, parsing_timeout=timeout_s)
    if not gold_parsed or not pred_parsed:
        return {"acc": 0, "pred": str(pred_parsed[-1]) if pred_parsed else ""}
    ok = verify(gold_parsed, pred_parsed, timeout_seconds=timeout_s)
    if not ok:  # the readings math-verify misses (module doc), tried only on a "no"
        percent = _percent_number(pred_parsed[0]) if "%" not in gold else None
        number = _number_before_words(str(pred_parsed[-1]))
        if percent is not None:
            ok = verify(gold_parsed, [percent], timeout_seconds=timeout_s)
        elif number is not None:
            ok = verify(gold_parsed, parse(f"${number}$", parsing_timeout=timeout_s), timeout_seconds=timeout_s)
    return {"acc": int(bool(ok)), "pred": str(pred_parsed[-1])[:200]}


#: A number followed only by words, ``10 miles per hour``, ``$1,200 dollars``, ``72Mb/hour``: the
#: words are a unit (math-verify multiplies their letters as variables). A word has two letters or
#: more, so ``3 x`` (a product) is no number with a unit.
_NUMBER_BEFORE_WORDS = re.compile(
    r"\$?\s*(?P<number>-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)\s*(?:\\[,;! ]\s*)?"
    r"(?P<word>[A-Za-z]{2,})[A-Za-z /.'-]*")


#: Words that write mathematics, not a unit: ``2 pi`` is no 2.
_MATH_WORDS = frozenset({"pi", "sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "sqrt", "mod", "i"})


def _number_before_words(answer: str) -> str | None:
    r"""The number of an extracted answer that is a number and unit words (commas dropped), else ``None``.

    >>> _number_before_words("10 miles per hour"), _number_before_words("1,200 dollars"), _number_before_words("3 x")
    ('10', '1200', None)
    >>> _number_before_words("Seth is 16 years old"), _number_before_words(r"2 \sqrt{3}"), _number_before_words("2 pi")
    (None, None, None)
    """
    match = _NUMBER_BEFORE_WORDS.fullmatch(answer.strip())
    if match is None or match["word"].lower() in _MATH_WORDS:
        return None
    return match["number"].replace(",", "")


def _percent_number(expr):
    """The number before the sign of a percentage as math-verify parses it (``20.0\\%`` is
    ``Mul(20.0, UnevaluatedExpr(1/100))``), else ``None``. A gold without ``%`` that counts in
    percent ("What percentage of the puppies have spots?" -- ``35``) is met by ``35.0\\%``; math-verify
    itself accepts ``35\\%`` there but not the decimal. Only the percent sign is dropped: ``0.35``
    stays another answer than ``35``."""
    from sympy import Mul, Rational, UnevaluatedExpr

    if not isinstance(expr, Mul):
        return None
    rest = [arg for arg in expr.args if not (isinstance(arg, UnevaluatedExpr) and arg.args[0] == Rational(1, 100))]
    return Mul(*rest) if len(rest) == len(expr.args) - 1 else None


class AnswerCheck:
    """An answer check started in the sandbox; :meth:`result` collects it (by its deadline)."""

    def __init__(self, text: str, gold: str, deadline: Deadline, think_format: ThinkFormat | str | None = None):
        if not isinstance(gold, str):
            raise TypeError(f"answer must be a str, got {type(gold).__name__}")
        region, unclosed = split_think(text, think_format)
        self.verdict = {"acc": 0, "pred": "", "think_unclosed": unclosed, "timed_out": False}
        self.pending = None
        if region is None or not region.strip() or not gold.strip():
            return
        timeout = deadline.remaining()
        if timeout <= 0:
            self.verdict["timed_out"] = True
            return
        try:
            pred = drop_row_spacing(region[-MAX_ANSWER_CHARS:])
            self.pending = sandbox.submit("verify", {"gold": gold, "pred": pred}, timeout)
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


def check_answer(text: str, gold: str, deadline: Deadline, think_format: ThinkFormat | str | None = None) -> dict:
    """Score the final answer of ``text`` against ``gold`` (blocking form of :class:`AnswerCheck`);
    ``think_format`` says where the answer is (default: after ``</think>`` or in Sky-T1's
    solution block, see :class:`ThinkFormat`).

    Returns ``{"acc": 0|1, "pred": extracted answer, "think_unclosed": bool, "timed_out": bool}``.
    """
    return AnswerCheck(text, gold, deadline, think_format).result()
