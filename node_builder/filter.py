"""Stage 1b: keep the correct trajectories (math-verify, gold first, SPEC §4 answer rules).

``is_correct(gold, text)``: the final answer is read from the text after the last ``</think>``
(a ``<think>`` never closed has no answer -> False), then ``verify(parse(gold), parse(answer))``.
Both run under math-verify's own timeouts (``signal.alarm``: main thread only; off the main
thread they are disabled rather than crashing).

``filter_problem(problem)`` sets ``Trajectory.correct`` where it is still None and returns how
many trajectories are correct. Imported references arrive with ``correct=True`` (correct by
provenance); AoPS pieces are checked with ``states_answer`` (human solutions often end with
``\\framebox{204}`` or ``\\textbf{(073)}``, which math-verify does not read: those markups are
rewritten to ``\\boxed{}`` first).

Example:
    >>> is_correct("18", "She makes 9 * 2 = $18. The answer is \\\\boxed{18}.")
    True
    >>> is_correct("18", "<think>9*2 = 18 ...")
    False
"""

from __future__ import annotations

import re
import threading

from math_verify import parse, verify

from node_builder.schema import Problem

_BOX_ALIASES = re.compile(r"\\(?:framebox|fbox)\b")
_BOLD_PAREN = re.compile(r"\\text(?:bf|bf)?\s*\{\s*\(?\s*0*(\d+)\s*\)?\s*\}")


def _timeouts() -> dict:
    main = threading.current_thread() is threading.main_thread()
    return {"timeout": 5 if main else None}


def final_answer_text(text: str) -> str | None:
    """Text after the last ``</think>``; None when ``<think>`` is opened and never closed."""
    if "</think>" in text:
        return text.rsplit("</think>", 1)[1]
    if "<think>" in text:
        return None
    return text


def parse_gold(gold: str):
    t = _timeouts()["timeout"]
    return parse(f"\\boxed{{{gold}}}", parsing_timeout=t)


def is_correct(gold: str, text: str) -> bool:
    answer = final_answer_text(text)
    if answer is None or not answer.strip():
        return False
    t = _timeouts()["timeout"]
    try:
        return bool(verify(parse_gold(gold), parse(answer, parsing_timeout=t), timeout_seconds=t))
    except Exception:  # math-verify raises on some pathological inputs even with raise_on_error off
        return False


def states_answer(gold: str, text: str) -> bool:
    """Lenient check for human-written solutions: AoPS box markups read as ``\\boxed``."""
    cleaned = _BOLD_PAREN.sub(r"\1", _BOX_ALIASES.sub(r"\\boxed", text))
    return is_correct(gold, cleaned)


def filter_problem(problem: Problem) -> int:
    for trajectory in problem.trajectories:
        if trajectory.correct is None:
            check = states_answer if trajectory.source == "aops" else is_correct
            trajectory.correct = check(problem.answer, trajectory.text)
    return sum(1 for t in problem.trajectories if t.correct)
