"""Stage 1b: keep the correct trajectories — the benchmark's own ``acc`` (SPEC §4).

``is_correct(gold, text)`` is exactly the metric's answer check
(``consensus_metrics.answer.check_answer``): the final answer is read after the last
``</think>`` (a ``<think>`` never closed has none), then math-verify ``verify(gold, pred)``, gold
first, in the metric's sandbox process with a hard time limit (``budget_s``; a timeout counts as
not correct). So a trajectory kept here is one the metric would score ``acc = 1``.

``filter_problem(problem)`` sets ``Trajectory.correct`` where it is still None and returns how
many trajectories are correct. Imported references arrive with ``correct=True`` (correct by
provenance); AoPS pieces are checked with :func:`states_answer`: human solutions often end with
``\\framebox{204}`` or ``\\textbf{(073)}``, which math-verify does not read, so those markups
are rewritten to ``\\boxed{}`` first (this also rejects remarks that are not solutions).

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

from consensus_metrics.answer import check_answer
from consensus_metrics.budget import Deadline

from node_builder.schema import Problem

#: Seconds math-verify may spend on one trajectory.
BUDGET_S = 5.0

_BOX_ALIASES = re.compile(r"\\(?:framebox|fbox)\b")
_BOLD_PAREN = re.compile(r"\\text(?:bf)?\s*\{\s*\(?\s*0*(\d+)\s*\)?\s*\}")


def is_correct(gold: str, text: str, budget_s: float = BUDGET_S) -> bool:
    return bool(check_answer(text, gold, Deadline(budget_s))["acc"])


def states_answer(gold: str, text: str, budget_s: float = BUDGET_S) -> bool:
    """Lenient check for human-written solutions: AoPS box markups read as ``\\boxed``."""
    cleaned = _BOLD_PAREN.sub(r"\1", _BOX_ALIASES.sub(r"\\boxed", text))
    return is_correct(gold, cleaned, budget_s)


def filter_problem(problem: Problem) -> int:
    for trajectory in problem.trajectories:
        if trajectory.correct is None:
            check = states_answer if trajectory.source == "aops" else is_correct
            trajectory.correct = check(problem.answer, trajectory.text)
    return sum(1 for t in problem.trajectories if t.correct)
