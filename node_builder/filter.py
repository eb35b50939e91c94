"""Stage 1b: keep the correct trajectories — the benchmark's own ``acc`` (docs/SPEC.md §4).

``is_correct(gold, text)`` is exactly the metric's answer check
(``consensus_metrics.answer.check_answer``): the final answer is read after the last
``</think>`` (a ``<think>`` never closed has none), then math-verify ``verify(gold, pred)``, gold
first, in the metric's sandbox process with a hard time limit (``budget_s``; a timeout counts as
not correct). So a trajectory kept here is one the metric would score ``acc = 1``.

``filter_problem(problem)`` sets ``Trajectory.correct`` where it is still None and returns how
many trajectories are correct (:func:`check_trajectory`). Human-written references are checked
too, by :func:`reaches_answer` (a reference whose own result disagrees with the gold answer is
not a correct trajectory: about 5 GSM8K test and 20 train references); AoPS pieces with
:func:`states_answer`: human solutions often end with ``\\framebox{204}`` or
``\\textbf{(073)}``, which math-verify does not read, so those markups are rewritten to
``\\boxed{}`` first (this also rejects remarks that are not solutions).

Example:
    >>> is_correct("18", "She makes 9 * 2 = $18. The answer is \\\\boxed{18}.")
    True
    >>> is_correct("18", "<think>9*2 = 18 ...")
    False
    >>> states_answer("73", "so $d = \\\\boxed{\\\\textbf{(073)}}$")
    True
"""

from __future__ import annotations

import re

from node_builder.matcher import Deadline, check_answer, match_nodes, number_of
from node_builder.number_words import number_words
from node_builder.schema import HUMAN_SOURCES, Problem, Trajectory

#: Seconds math-verify may spend on one trajectory.
BUDGET_S = 5.0

_BOX_ALIASES = re.compile(r"\\(?:framebox|fbox)\b")
_BOLD_PAREN = re.compile(r"\\text(?:bf)?\s*\{\s*\(?\s*0*(\d+)\s*\)?\s*\}")


def is_correct(gold: str, text: str, budget_s: float = BUDGET_S) -> bool:
    return bool(check_answer(text, gold, Deadline(budget_s))["acc"])


def graded(gold: str, text: str, budget_s: float = BUDGET_S) -> tuple[bool, str]:
    """The metric's verdict and the answer it read (``pred``, math-verify's reading of it)."""
    verdict = check_answer(text, gold, Deadline(budget_s))
    return bool(verdict["acc"]), str(verdict.get("pred") or "")


def states_answer(gold: str, text: str, budget_s: float = BUDGET_S) -> bool:
    """Lenient check for human-written solutions: AoPS box markups read as ``\\boxed``."""
    cleaned = _BOLD_PAREN.sub(r"\1", _BOX_ALIASES.sub(r"\\boxed", text))
    return is_correct(gold, cleaned, budget_s)


_SPACED_THOUSANDS = re.compile(r"(?<=\d)[ \u202f](?=\d{3}\b)")


def reaches_answer(gold: str, text: str, equations: list[str] = (), budget_s: float = BUDGET_S) -> bool:
    """Does a reference solution arrive at ``gold``? References need not end with the answer
    (``... 15 liters of water out of the 24 liters``), so any of: the metric's ``acc``; ``gold``
    as the result of one of its stated computations (GSM8K ``<<9+6=15>>``); ``gold`` written in it
    as a number (``$118 000``, ``three days``). A reference that never writes its gold answer
    computed something else (``$2.00/8 = $0.25`` for the gold ``25``).

    >>> reaches_answer("15", "9 + 6 = 15 liters of water out of the 24 liters.")
    True
    >>> reaches_answer("25", "each razor costs $2.00/8 = $0.25", ["2/8=0.25"])
    False
    """
    gold_number = number_of(gold)
    if gold_number is not None:
        if any(number_of(eq.rpartition("=")[2]) == gold_number for eq in equations):
            return True
        if gold_number in number_words(text):
            return True
        joined = _SPACED_THOUSANDS.sub("", text)
        node = {"id": "gold", "text": gold, "kind": "value", "value": str(gold_number)}
        if match_nodes(joined, [node], budget_s=budget_s, symbolic=False)[0].covered:
            return True
    return is_correct(gold, text, budget_s)


def check_trajectory(problem: Problem, trajectory: Trajectory) -> bool:
    """The filter's verdict on one trajectory: samples and model runs by the metric's ``acc``,
    AoPS pieces by :func:`states_answer`, other human-written solutions by :func:`reaches_answer`."""
    if trajectory.source == "aops":
        return states_answer(problem.answer, trajectory.text)
    if trajectory.source in HUMAN_SOURCES:
        return reaches_answer(problem.answer, trajectory.text, trajectory.equations)
    return is_correct(problem.answer, trajectory.text)


def filter_problem(problem: Problem) -> int:
    """Set every trajectory's verdict still unknown (models' also its ``pred``); the number correct."""
    for trajectory in problem.trajectories:
        if trajectory.correct is None:
            if trajectory.source in HUMAN_SOURCES:
                trajectory.correct = check_trajectory(problem, trajectory)
            else:
                trajectory.correct, trajectory.pred = graded(problem.answer, trajectory.text)
    return sum(1 for t in problem.trajectories if t.correct)
