"""Suspect gold answers: where the strong voices agree on another answer than the gold.

A benchmark's gold answer is occasionally wrong (GSM8K test/814: the text leads to 17, the gold
says 11). Nodes are built from the solutions that reach the gold, so such a record's nodes follow
whatever reached the wrong number. Nothing here changes a gold answer; the record is flagged in
``provenance.suspect_gold`` and the data card lists it (``python -m node_builder stats``).

Per problem, :func:`answers_of` keeps the voices with a correct solution and, for the others, the
answer math-verify read from their solutions (``Trajectory.pred``; a number with a unit word is
the number). Across the build, :func:`flag_suspect_gold` measures each voice's accuracy (problems
it solves / problems it answers); a voice is **strong** at accuracy >= :data:`STRONG_ACCURACY`
on at least :data:`STRONG_COVERAGE` of the problems (a run of correct rows only, or of a few
problems, says nothing of its accuracy; the human reference is no judge of itself). A problem is
flagged when one other answer is given by at least :data:`MIN_AGREEING` strong voices and by
more than twice as many strong voices as reach the gold.

Example:
    >>> answers = [{"correct": ["A", "B", "C"], "wrong": {}} for _ in range(9)]
    >>> answers.append({"correct": ["D"], "wrong": {"17": ["A", "B", "C"]}})
    >>> records = [{"provenance": {"suspect_gold": None}} for _ in answers]
    >>> flag_suspect_gold(records, answers)
    1
    >>> records[-1]["provenance"]["suspect_gold"]
    {'answer': '17', 'voices': ['A', 'B', 'C'], 'gold_voices': 0}
"""

from __future__ import annotations

import re

from node_builder.matcher import number_of
from node_builder.schema import Problem

#: A voice solving at least this share of the problems it answers is a strong voice...
STRONG_ACCURACY = 0.8
#: ... when it answers at least this share of the build's problems.
STRONG_COVERAGE = 0.9
#: Strong voices that must agree on one other answer before a gold answer is suspect.
MIN_AGREEING = 3


def answers_of(problem: Problem) -> dict:
    """``{"correct": [voices with a correct solution], "wrong": {answer: [voices]}}`` of one problem
    whose trajectories have verdicts (a voice with a correct solution is not counted as wrong)."""
    correct = sorted({t.voice for t in problem.trajectories if t.correct})
    wrong: dict[str, set] = {}
    for t in problem.trajectories:
        if t.correct is False and t.voice not in correct and t.pred.strip():
            wrong.setdefault(_plain(t.pred), set()).add(t.voice)
    wrong.pop(_plain(problem.answer), None)  # the gold itself, graded wrong (a unit, a format): no other answer
    return {"correct": correct, "wrong": {answer: sorted(voices) for answer, voices in sorted(wrong.items())}}


def _plain(pred: str) -> str:
    """An answer as a comparable string: its exact number where it is one (``36 quarters`` ->
    ``36``, ``3.50`` -> ``7/2``), else the text with single spaces."""
    text = " ".join(pred.split())
    number = number_of(re.sub(r"(?:\s*[A-Za-z]+)+\.?$", "", text).strip()) if text else None
    return text if number is None else str(number)


def voice_accuracy(answers: list[dict]) -> dict[str, float]:
    """Voice -> share of the problems it attempts (has a graded answer for) that it solves."""
    solved: dict[str, int] = {}
    attempted: dict[str, int] = {}
    for entry in answers:
        if not entry:  # a problem logged by an older build without its answers
            continue
        voices = set(entry["correct"]) | {v for vs in entry["wrong"].values() for v in vs}
        for voice in voices:
            attempted[voice] = attempted.get(voice, 0) + 1
            solved[voice] = solved.get(voice, 0) + (voice in entry["correct"])
    return {voice: solved[voice] / attempted[voice] for voice in attempted}


def strong_voices(answers: list[dict]) -> set:
    """The voices whose accuracy is high and measured on nearly every problem (module doc)."""
    accuracy = voice_accuracy(answers)
    answered: dict[str, int] = {}
    for entry in answers:
        if entry:
            for voice in set(entry["correct"]) | {v for vs in entry["wrong"].values() for v in vs}:
                answered[voice] = answered.get(voice, 0) + 1
    total = sum(1 for entry in answers if entry)
    return {voice for voice, share in accuracy.items() if share >= STRONG_ACCURACY and voice != "reference"
            and answered[voice] >= STRONG_COVERAGE * total}


def suspect(entry: dict, strong: set) -> dict | None:
    """The flag of one problem (see the module doc), or None."""
    gold_voices = len(strong & set(entry["correct"]))
    best = None
    for answer, voices in entry["wrong"].items():
        agreeing = sorted(strong & set(voices))
        if len(agreeing) >= MIN_AGREEING and len(agreeing) > 2 * gold_voices:
            if best is None or len(agreeing) > len(best["voices"]):
                best = {"answer": answer, "voices": agreeing, "gold_voices": gold_voices}
    return best


def flag_suspect_gold(records: list[dict], answers: list[dict]) -> int:
    """Set ``provenance.suspect_gold`` on the records (in the order of ``answers``); how many."""
    strong = strong_voices(answers)
    flagged = 0
    for record, entry in zip(records, answers):
        flag = suspect(entry, strong) if entry else None
        record["provenance"]["suspect_gold"] = flag
        flagged += flag is not None
    return flagged
