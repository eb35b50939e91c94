"""Generic JSONL dump of sampled trajectories (earlier runs, other tools' outputs).

One line per problem. A field map names the columns (defaults below); ``trajectories`` may be a
string or a list of strings. Samples are never trusted: ``correct`` stays None so the math-verify
filter decides. Example for the Qwen2.5-Math ``math_cot_100.jsonl`` dump::

    load(path, benchmark="math", fields={"id": "idx", "problem": "question", "trajectories": "code"})

Example:
    >>> import json, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "d.jsonl")
    >>> _ = open(p, "w").write(json.dumps({"id": 7, "problem": "2+2?", "answer": "4",
    ...                                    "trajectories": ["2+2=4", "5"]}) + "\\n")
    >>> [t.text for t in load(p, benchmark="toy").problems[0].trajectories]
    ['2+2=4', '5']
"""

from __future__ import annotations

from pathlib import Path

from node_builder.importers.jsonl_lines import read_objects, require_str
from node_builder.importers.result import ImportResult
from node_builder.schema import BadInput, Problem, Skipped, Trajectory

DEFAULT_FIELDS = {"id": "id", "problem": "problem", "answer": "answer",
                  "trajectories": "trajectories", "solution": "solution"}


def load(path: str | Path, benchmark: str, fields: dict[str, str] | None = None,
         source: str = "dump") -> ImportResult:
    names = {**DEFAULT_FIELDS, **(fields or {})}
    result = ImportResult()
    for where, obj in read_objects(path, result.skipped):
        raw_id = obj.get(names["id"])
        pid = f"{benchmark}/{raw_id}" if raw_id not in (None, "") else None
        try:
            if pid is None:
                raise BadInput(where, f"field {names['id']!r} missing")
            problem = Problem(id=pid, benchmark=benchmark,
                              problem=require_str(obj, names["problem"], where),
                              answer=require_str(obj, names["answer"], where),
                              solution=str(obj.get(names["solution"]) or "").strip(), origin=where)
            samples = obj.get(names["trajectories"])
            if isinstance(samples, str):
                samples = [samples]
            if not isinstance(samples, list) or not all(isinstance(s, str) for s in samples):
                raise BadInput(where, f"field {names['trajectories']!r} is not a string or a list of strings")
        except BadInput as exc:
            result.skipped.append(Skipped(exc.where, exc.reason, pid))
            continue
        problem.trajectories = [Trajectory(text=s, source=source) for s in samples if s.strip()]
        result.problems.append(problem)
    return result
