r"""Reading files of step-split solutions with their step labels, in three public layouts.

Each row becomes a :class:`LabelledSolution`: the problem text, the steps (a list of ``str``), the
label (``-1``: no erroneous step; ``k``: the earliest erroneous step, 0-based; ``None``: the row
says *that* the solution is wrong, not where) and the final-answer verdict when the row has one.

* **ProcessBench** (``problem``, ``steps``, ``label``, ``final_answer_correct``; also ``id``,
  ``generator``) -- a JSON array or JSONL; the subset is the row's ``subset`` field, else the
  file name without extension (``gsm8k.json`` -> ``gsm8k``).
* **PRMBench** process files (``question``/``original_question``, ``original_process``,
  ``modified_process``, ``error_steps``; 1-based) -- each line gives two rows: the original
  solution (label -1) and the modified one (label ``min(error_steps) - 1``); a step list may be a
  JSON string of a list, and a literal ``\n`` inside a step (two characters: the files escape
  their line breaks twice) is read as a line break, except before a LaTeX command (``\neq``).
* **llm-reasoners** AutoRace human labels (``question``, ``gpt``: a chain ``Step 1 - ...``,
  ``human_label``: whether the chain is right) -- the chain is split at its step labels
  (:func:`consensus_metrics.steps.split_steps`); the label is ``-1`` for a right chain and
  ``None`` (wrong, step not given) otherwise, unless the row has an integer ``label``.

A row that cannot be used is not an exception: :func:`read_labelled_solutions` yields a
:class:`BadRow` with the file, line and a reason (steps that are not strings, a label outside
the steps, an empty solution, no problem text), which the caller counts and skips.

>>> import json, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "gsm8k.json")
>>> _ = open(path, "w").write(json.dumps([{"problem": "2+2?", "steps": ["2+2=4", "so 4"], "label": -1,
...                                         "final_answer_correct": True}]))
>>> [(r.subset, r.steps, r.label, r.answer_correct) for r in read_labelled_solutions(path)]
[('gsm8k', ['2+2=4', 'so 4'], -1, True)]
"""

from __future__ import annotations

import json
import os
import re
from typing import Iterator, NamedTuple

from .records import describe_line_error, jsonl_values
from .steps import split_steps


class LabelledSolution(NamedTuple):
    """One usable row: ``where`` is ``FILE:LINE`` (``FILE:LINE:original`` for PRMBench's second row)."""

    where: str
    subset: str
    problem: str
    steps: list
    label: int | None
    answer_correct: bool | None
    layout: str


class BadRow(NamedTuple):
    where: str
    reason: str


class UnusableFile(Exception):
    """A file no row can be read from: one line for the user, exit status 2."""


#: A literal backslash-n that is a line break, not the start of a LaTeX command (``\neq``, ``\nu``).
_ESCAPED_BREAK = re.compile(r"\\n(?!(?:u|eq|e|eg|ot|i|abla|ewline|mid|leq|geq|atural|earrow|warrow|oindent|olimits"
                            r"|exists|subseteq|supseteq|parallel|sim|cong|less|gtr|vdash|ormalsize|prec|succ)(?![A-Za-z]))")
#: Largest JSON-array file read whole (bytes); JSONL files are read line by line at any size.
MAX_ARRAY_BYTES = 512 * 1024 * 1024


def unescape_breaks(text: str) -> str:
    r"""PRMBench's twice-escaped line breaks as line breaks (module doc).

    >>> unescape_breaks(r"# Answer\n\n83, and x \neq 5")
    '# Answer\n\n83, and x \\neq 5'
    """
    return _ESCAPED_BREAK.sub("\n", text) if "\\n" in text else text


def _rows(path: str) -> Iterator[tuple[str, object]]:
    """``(where, value)`` of every record: the items of a JSON array, or the lines of a JSONL file
    (``value`` is an error phrase string wrapped in :class:`BadRow` for a bad line)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError as err:
        raise UnusableFile(f"{path}: cannot read it ({err.strerror or err})") from None
    if head.startswith(b"["):
        if os.path.getsize(path) > MAX_ARRAY_BYTES:
            raise UnusableFile(f"{path}: a JSON array larger than {MAX_ARRAY_BYTES >> 20} MiB; write it as JSONL")
        try:
            with open(path, encoding="utf-8-sig") as handle:
                items = json.load(handle)
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise UnusableFile(f"{path}: not a JSON array nor JSONL ({err})") from None
        for k, item in enumerate(items):
            yield f"{path}:item {k}", item
        return
    for lineno, value, err in jsonl_values(path, encoding_errors="strict"):
        yield f"{path}:{lineno}", (BadRow(f"{path}:{lineno}", describe_line_error(err)) if err is not None else value)


def read_labelled_solutions(path: str) -> Iterator[LabelledSolution | BadRow]:
    """The rows of one file (module doc), in file order. Raises :class:`UnusableFile` when the
    file cannot be read at all; a bad row is yielded as :class:`BadRow`."""
    subset_default = os.path.splitext(os.path.basename(path))[0]
    for where, obj in _rows(path):
        if isinstance(obj, BadRow):
            yield obj
            continue
        if not isinstance(obj, dict):
            yield BadRow(where, f"expected a JSON object, got {type(obj).__name__}")
            continue
        if "steps" in obj:
            yield _processbench(where, obj, subset_default)
        elif "modified_process" in obj or "original_process" in obj:
            yield from _prmbench(where, obj, subset_default)
        elif "gpt" in obj and "question" in obj:
            yield _autorace(where, obj, subset_default)
        else:
            yield BadRow(where, "unknown layout: expected 'steps' (ProcessBench), 'modified_process' (PRMBench) "
                                "or 'gpt' (llm-reasoners)")


def _problem(obj: dict, *keys: str) -> str | None:
    for key in keys:
        value = obj.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _check_steps(steps, where: str) -> list | BadRow:
    if isinstance(steps, str):  # PRMBench stores some step lists as a JSON string
        try:
            steps = json.loads(steps)
        except json.JSONDecodeError:
            return BadRow(where, "'steps' is a string that is not a JSON list")
    if not isinstance(steps, list):
        return BadRow(where, f"'steps' must be a list of strings, got {type(steps).__name__}")
    for k, step in enumerate(steps):
        if not isinstance(step, str):
            return BadRow(where, f"step {k} is not a string (got {type(step).__name__})")
    if not steps or not any(step.strip() for step in steps):
        return BadRow(where, "empty solution: no step with text")
    return steps


def _check_label(label, n: int, where: str) -> int | BadRow:
    if isinstance(label, bool) or not isinstance(label, int):
        return BadRow(where, f"'label' must be an integer (-1 or a step index), got {label!r:.40}")
    if not -1 <= label < n:
        return BadRow(where, f"label {label} is outside the {n} steps (expected -1 .. {n - 1})")
    return label


def _subset(obj: dict, default: str) -> str:
    value = obj.get("subset")
    return value if isinstance(value, str) and value.strip() else default


def _processbench(where: str, obj: dict, subset: str) -> LabelledSolution | BadRow:
    problem = _problem(obj, "problem", "question")
    if problem is None:
        return BadRow(where, "no problem text ('problem')")
    steps = _check_steps(obj.get("steps"), where)
    if isinstance(steps, BadRow):
        return steps
    label = _check_label(obj.get("label"), len(steps), where)
    if isinstance(label, BadRow):
        return label
    verdict = obj.get("final_answer_correct")
    return LabelledSolution(where, _subset(obj, subset), problem, steps, label,
                            verdict if isinstance(verdict, bool) else None, "processbench")


def _prmbench(where: str, obj: dict, subset: str) -> Iterator[LabelledSolution | BadRow]:
    problem = _problem(obj, "question", "original_question", "modified_question")
    if problem is None:
        yield BadRow(where, "no problem text ('question')")
        return
    subset = _subset(obj, subset)
    if "original_process" in obj:
        steps = _check_steps(obj["original_process"], where + ":original")
        if isinstance(steps, BadRow):
            yield steps
        else:
            yield LabelledSolution(where + ":original", subset, problem, [unescape_breaks(s) for s in steps], -1,
                                   None, "prmbench")
    if "modified_process" not in obj:
        return
    steps = _check_steps(obj["modified_process"], where)
    if isinstance(steps, BadRow):
        yield steps
        return
    errors = obj.get("error_steps")
    if not isinstance(errors, list) or not errors or not all(isinstance(e, int) and not isinstance(e, bool)
                                                             for e in errors):
        yield BadRow(where, f"'error_steps' must be a non-empty list of 1-based step numbers, got {errors!r:.40}")
        return
    label = _check_label(min(errors) - 1, len(steps), where)
    if isinstance(label, BadRow):
        yield BadRow(where, f"error step {min(errors)} is outside the {len(steps)} steps (1-based)")
        return
    yield LabelledSolution(where, subset, problem, [unescape_breaks(s) for s in steps], label, None, "prmbench")


def _autorace(where: str, obj: dict, subset: str) -> LabelledSolution | BadRow:
    problem = _problem(obj, "question")
    if problem is None:
        return BadRow(where, "no problem text ('question')")
    chain = obj.get("gpt")
    if not isinstance(chain, str):
        return BadRow(where, f"'gpt' must be a string, got {type(chain).__name__}")
    steps = [s.body for s in split_steps(chain)]
    if not steps:
        return BadRow(where, "empty solution: no step with text")
    if "label" in obj:
        label = _check_label(obj["label"], len(steps), where)
        if isinstance(label, BadRow):
            return label
    else:
        verdict = obj.get("human_label")
        if not isinstance(verdict, bool):
            return BadRow(where, f"'human_label' must be true or false, got {verdict!r:.40}")
        label = -1 if verdict else None
    return LabelledSolution(where, _subset(obj, subset), problem, steps, label, None, "llm-reasoners")


__all__ = ["LabelledSolution", "BadRow", "UnusableFile", "read_labelled_solutions", "unescape_breaks"]
