"""AIME 2024 with AoPS-wiki solution pages (Qwen2.5-Math ``evaluation/data/aime24`` layout).

Input line: ``{"id", "problem", "solution", "answer", "url"}``; ``solution`` holds the whole AoPS
page, several solutions concatenated. Output per line:

* id ``"{benchmark}/2024-I-1"`` read from the url (``2024_AIME_I_Problems/Problem_1``), else
  ``"{benchmark}/{id}"``;
* ``answer`` without zero padding (``"025"`` -> ``"25"``: AIME answers are integers 0..999);
* one trajectory per AoPS solution (:func:`node_builder.importers.aops.split_aops_solutions`),
  source ``"aops"``, correctness left to the math-verify filter (some pieces are remarks).

Example:
    >>> problem_key("https://artofproblemsolving.com/wiki/index.php/2024_AIME_II_Problems/Problem_7")
    '2024-II-7'
"""

from __future__ import annotations

import re
from pathlib import Path

from node_builder.importers.aops import split_aops_solutions
from node_builder.importers.jsonl_lines import read_objects, require_str
from node_builder.importers.result import ImportResult
from node_builder.schema import BadInput, Problem, Skipped, Trajectory

_URL = re.compile(r"(\d{4})_AIME_(I{1,2})_Problems/Problem_(\d+)")


def problem_key(url: str) -> str | None:
    match = _URL.search(url or "")
    return f"{match.group(1)}-{match.group(2)}-{int(match.group(3))}" if match else None


def normalise_aime_answer(answer: str, where: str) -> str:
    text = answer.strip()
    if not re.fullmatch(r"\d{1,3}", text):
        raise BadInput(where, f"AIME answer is not an integer 0..999: {answer!r}")
    return str(int(text))


def load(path: str | Path, benchmark: str = "aime24") -> ImportResult:
    result = ImportResult()
    for where, obj in read_objects(path, result.skipped):
        key = problem_key(str(obj.get("url", ""))) or str(obj.get("id", "")).strip()
        pid = f"{benchmark}/{key}" if key else None
        try:
            if not key:
                raise BadInput(where, "no 'url' with an AIME problem reference and no 'id'")
            problem = Problem(
                id=pid, benchmark=benchmark,
                problem=require_str(obj, "problem", where),
                answer=normalise_aime_answer(require_str(obj, "answer", where), where),
                solution=str(obj.get("solution") or "").strip(), origin=where)
        except BadInput as exc:
            result.skipped.append(Skipped(exc.where, exc.reason, pid))
            continue
        for text in split_aops_solutions(problem.solution):
            problem.trajectories.append(Trajectory(text=text, source="aops"))
        result.problems.append(problem)
    return result
