"""MATH-500 (HuggingFaceH4/MATH-500 layout): one reference solution per problem.

Input line: ``{"problem", "solution", "answer", "subject", "level", "unique_id"}``.
Output: ``Problem(id="math500/" + unique_id without ".json", trajectories=[reference])``; the
reference (source ``"reference"``; the filter checks it reaches the answer), Asymptote code removed from the
text nodes are matched against. A line without an answer or id is skipped and counted; a
problem without a solution keeps no trajectory (it ships with ``nodes: []``).

Example:
    >>> import json, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t.jsonl")
    >>> _ = open(p, "w").write(json.dumps({"problem": "1+1?", "solution": "$1+1=\\\\boxed{2}$",
    ...     "answer": "2", "subject": "Algebra", "level": 1, "unique_id": "test/algebra/1.json"}))
    >>> load(p).problems[0].id
    'math500/test/algebra/1'
"""

from __future__ import annotations

from pathlib import Path

from node_builder.importers.jsonl_lines import read_objects, require_str
from node_builder.importers.result import ImportResult
from node_builder.importers.text_cleanup import strip_asy
from node_builder.schema import BadInput, Problem, Skipped, Trajectory


def _level(value, where: str) -> int | None:
    if value is None:
        return None
    text = str(value).replace("Level", "").strip()
    if not text.isdigit():
        raise BadInput(where, f"field 'level' is not an integer: {value!r}")
    return int(text)


def load(path: str | Path, benchmark: str = "math500") -> ImportResult:
    result = ImportResult()
    for where, obj in read_objects(path, result.skipped):
        try:
            uid = require_str(obj, "unique_id", where)
            problem = Problem(
                id=f"{benchmark}/{uid.removesuffix('.json')}",
                benchmark=benchmark,
                problem=require_str(obj, "problem", where),
                answer=require_str(obj, "answer", where),
                solution=str(obj.get("solution") or "").strip(),
                level=_level(obj.get("level"), where),
                subject=str(obj["subject"]) if obj.get("subject") else None,
                origin=where,
            )
        except BadInput as exc:
            result.skipped.append(Skipped(exc.where, exc.reason, obj.get("unique_id")))
            continue
        if problem.solution:
            problem.trajectories.append(
                Trajectory(text=strip_asy(problem.solution).strip(), source="reference"))
        result.problems.append(problem)
    return result
