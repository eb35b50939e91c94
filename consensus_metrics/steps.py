r"""Splitting a solution into steps, for the step locator (:mod:`consensus_metrics.locate`).

A step is a span ``text[start:end]`` of the solution; ``body`` is that span without its label
(``Step 2 -``). The split, in this order of preference:

1. **a given list** -- ProcessBench, PRMBench and similar files already hold the steps; each
   string is one step (:func:`steps_from_list`, joined by a blank line into one text);
2. **labelled steps** -- two or more lines that open with ``Step k`` (``Step 1 -``, ``Step 2:``,
   ``**Step 3.**``, ``### Step 4``): each label starts a step; text before the first label is a
   step of its own when it holds anything;
3. **paragraphs** -- blocks separated by a blank line (ProcessBench's own split of model output);
4. **lines** -- every non-empty line, when the text has no blank line;
5. **sentences** -- when the text is one line (few-shot chains of thought often are: ``He buys 16
   / 2 = 8 pairs. Each pair costs 5 + 3 = 8 dollars. The answer is 64.``): each sentence, cut
   after ``.``, ``!`` or ``?`` and the spaces that follow, where the next sentence opens with a
   capital letter, ``$`` or ``\(``, or with a digit after a word (``... or 40 minutes. 140 minutes
   is ...``; not after a number: ``$2. 5``); not after an abbreviation (``Mr.``, ``e.g.``; a
   decimal point has no space after it).

A step label that opens a paragraph or a line is left out of its body too (``Step 1 - 3 + 4 = 7``
states ``3 + 4 = 7``, not ``1 - 3 + 4 = 7``).

Whitespace-only pieces are never steps; a text without any non-space character has no step.

>>> [s.body for s in split_steps("Step 1 - 3 + 4 = 7\nStep 2 - The answer is 7")]
['3 + 4 = 7', 'The answer is 7']
>>> [s.body for s in split_steps("First, x = 2.\n\nThen y = 3.\nSo x + y = 5.")]
['First, x = 2.', 'Then y = 3.\nSo x + y = 5.']
>>> [s.body for s in split_steps("a = 1\nb = 2")]
['a = 1', 'b = 2']
>>> [s.body for s in split_steps("Mr. Li pays 2.5 * 4 = 10 dollars. So he has 20 - 10 = 10 left.")]
['Mr. Li pays 2.5 * 4 = 10 dollars.', 'So he has 20 - 10 = 10 left.']
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: A line that opens with a step label: ``Step 2 -``, ``**Step 2:**``, ``## Step 2.``, ``Step 2)``.
_LABEL_RE = re.compile(r"(?im)^[ \t>#*_]*step[ \t]*(\d{1,4})[ \t]*(?:\*\*|__)?[ \t]*(?:[-–—:.)]|\*\*|$)[ \t*_]*")
_PARAGRAPH_RE = re.compile(r"\n[ \t]*\n\s*")
#: The end of a sentence in a one-line text: ``.``/``!``/``?`` after a word, a number or a closing
#: mark, then spaces, then a capital letter, ``$`` or ``\(``; or after a word, then a digit (rule 5).
_SENTENCE_RE = re.compile(r"(?<=[\w)\]$%*])[.!?][\"')]?[ \t]+(?=[A-Z$]|\\\()|(?<=[A-Za-z])[.!?][ \t]+(?=\d)")
#: Words whose period ends no sentence.
_ABBREVIATIONS = frozenset("mr mrs ms dr st vs etc no e.g i.e approx jr sr prof".split())
#: Most steps one solution is split into (the rest joins the last step): bounds the work.
MAX_STEPS = 400


class Step(NamedTuple):
    """One step: ``text[start:end]`` is the whole step, ``text[body_start:end]`` its body (no label)."""

    index: int
    start: int
    end: int
    body_start: int
    body: str


def split_steps(text: str) -> list[Step]:
    """The steps of a solution text (module doc: labelled steps, else paragraphs, else lines)."""
    if not isinstance(text, str):
        raise TypeError(f"solution must be a str, got {type(text).__name__}")
    labels = list(_LABEL_RE.finditer(text))
    if len(labels) >= 2:
        spans = []
        if text[:labels[0].start()].strip():
            spans.append((0, labels[0].start(), 0))
        for k, m in enumerate(labels):
            end = labels[k + 1].start() if k + 1 < len(labels) else len(text)
            spans.append((m.start(), end, m.end()))
        return _steps(text, spans)
    cuts = [m.span() for m in _PARAGRAPH_RE.finditer(text)]
    if not cuts:
        cuts = [m.span() for m in re.finditer(r"\n", text)] if "\n" in text.strip() else _sentence_cuts(text)
    spans, at = [], 0
    for lo, hi in cuts + [(len(text), len(text))]:
        label = _LABEL_RE.match(text, at, lo)  # a lone "Step 1 -" still labels its step
        spans.append((at, lo, label.end() if label else at))
        at = hi
    return _steps(text, spans)


def _sentence_cuts(text: str) -> list[tuple[int, int]]:
    """Where a one-line text's sentences end (module doc, rule 5): ``(lo, hi)`` of the spaces
    between two sentences, the end mark kept with the sentence before."""
    cuts = []
    for m in _SENTENCE_RE.finditer(text):
        word = re.search(r"([A-Za-z.]+)$", text[max(0, m.start() - 8):m.start()])
        if word and word.group(1).lower().strip(".") in _ABBREVIATIONS:
            continue
        end_mark = m.start() + len(m.group().rstrip(" \t"))
        cuts.append((end_mark, m.end()))
    return cuts


def _steps(text: str, spans) -> list[Step]:
    out: list[Step] = []
    for start, end, body_start in spans:
        if len(out) == MAX_STEPS:  # the rest joins the last step
            last_end = max((e for s_, e, b in spans if text[b:e].strip()), default=out[-1].end)
            last = out[-1]
            out[-1] = last._replace(end=max(last.end, last_end), body=text[last.body_start:max(last.end, last_end)].strip())
            break
        piece = text[body_start:end]
        body = piece.strip()
        if not body:
            continue
        out.append(Step(len(out), start, end, body_start + len(piece) - len(piece.lstrip()), body))
    return out


def steps_from_list(steps) -> tuple[str, list[Step]]:
    r"""``(text, steps)`` for a given list of step strings: the steps joined by a blank line, each
    one step even when it is empty (an empty step still has an index: a file's labels count it).

    >>> text, steps = steps_from_list(["x = 2", "so y = 4"])
    >>> text, [(s.start, s.end) for s in steps]
    ('x = 2\n\nso y = 4', [(0, 5), (7, 15)])
    """
    if isinstance(steps, (str, bytes)) or not isinstance(steps, (list, tuple)):
        raise TypeError(f"steps must be a list of strings, got {type(steps).__name__}")
    parts, out, at = [], [], 0
    for k, step in enumerate(steps):
        if not isinstance(step, str):
            raise TypeError(f"step {k} must be a string, got {type(step).__name__}")
        if k:
            at += 2
        parts.append(step)
        out.append(Step(k, at, at + len(step), at, step.strip()))
        at += len(step)
    return "\n\n".join(parts), out


def step_of(steps: list[Step], offset: int) -> int | None:
    r"""Index of the step whose span holds character ``offset`` (``None`` between steps).

    >>> step_of(split_steps("a = 1\nb = 2"), 7)
    1
    """
    lo, hi = 0, len(steps)
    while lo < hi:
        mid = (lo + hi) // 2
        if steps[mid].end <= offset:
            lo = mid + 1
        else:
            hi = mid
    if lo < len(steps) and steps[lo].start <= offset < steps[lo].end:
        return lo
    return None


__all__ = ["Step", "split_steps", "steps_from_list", "step_of", "MAX_STEPS"]
