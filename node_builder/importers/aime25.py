"""AIME 2025: official problems/answers (MathArena layout) and maintainer-written solutions.

``load_matharena(dir)`` reads ``aime_2025_{I,II}/problems/{n}.tex`` and ``answers.csv``
(``id,answer``) below ``dir`` -> problems ``"{benchmark}/2025-I-1"`` with no trajectories.

``load_solutions(md)`` reads the maintainer-written solutions file (``node_builder/sources/
aime25_solutions.md``)::

    ## 2025-I-1            <- one section per problem (text after the key is ignored)
    Answer: 70
    ### Solution 1         <- one subsection per worked solution
    ...
    ### Solution 2
    ...
    ## 2025-I-2
    Answer: 588
    Status: no verified solution — why

Each solution becomes a trajectory with source ``"maintainer-written"`` (checked by the filter, like every reference)
(the solutions are machine-checked by their own tests). A ``Status:`` line is kept as the
problem's note (the record ships with ``nodes: []`` and that reason). Sections without an answer
are skipped and counted; merging with the official problems rejects a disagreeing answer.

Example:
    >>> md = "## 2025-I-1\\nAnswer: 70\\n### Solution 1\\nWe need $b+7 \\\\mid 56$, so $b=21,49$.\\n"
    >>> r = parse_solutions(md, "s.md", benchmark="aime25")
    >>> r.problems[0].id, r.problems[0].answer, len(r.problems[0].trajectories)
    ('aime25/2025-I-1', '70', 1)
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from node_builder.importers.aime24 import normalise_aime_answer
from node_builder.importers.result import ImportResult
from node_builder.schema import BadInput, Problem, Skipped, Trajectory

_SECTION = re.compile(r"^##\s+(\d{4}-(?:I|II)-\d{1,2})\b.*$", re.M)
_SUBSECTION = re.compile(r"^###\s+(.*)$", re.M)
_ANSWER = re.compile(r"^\s*\**\s*Answer\s*\**\s*:\s*\**\s*\$?\s*(\S+?)\s*\$?\s*\**\s*$", re.M | re.I)
_STATUS = re.compile(r"^\s*\**\s*Status\s*\**\s*:\s*\**\s*(.+?)\s*$", re.M | re.I)


def load_matharena(root: str | Path, benchmark: str = "aime25", year: int = 2025) -> ImportResult:
    root = Path(root)
    result = ImportResult()
    for part in ("I", "II"):
        folder = root / f"aime_{year}_{part}"
        answers_csv = folder / "answers.csv"
        if not answers_csv.exists():
            result.skipped.append(Skipped(str(answers_csv), "file not found"))
            continue
        with answers_csv.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        for lineno, row in enumerate(rows, start=2):
            where = f"{answers_csv}:{lineno}"
            number = str(row.get("id", "")).strip()
            pid = f"{benchmark}/{year}-{part}-{number}"
            try:
                if not number.isdigit():
                    raise BadInput(where, f"bad problem id {number!r}")
                answer = normalise_aime_answer(str(row.get("answer", "")), where)
                tex = folder / "problems" / f"{int(number)}.tex"
                if not tex.exists():
                    raise BadInput(where, f"problem file {tex} not found")
                text = tex.read_text(encoding="utf-8").strip()
                if not text:
                    raise BadInput(str(tex), "empty problem file")
            except BadInput as exc:
                result.skipped.append(Skipped(exc.where, exc.reason, pid))
                continue
            result.problems.append(Problem(id=pid, benchmark=benchmark, problem=text,
                                           answer=answer, origin=str(tex)))
    return result


def parse_solutions(markdown: str, where: str, benchmark: str = "aime25") -> ImportResult:
    result = ImportResult()
    starts = list(_SECTION.finditer(markdown))
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(markdown)
        body = markdown[match.end():end]
        line = markdown.count("\n", 0, match.start()) + 1
        loc = f"{where}:{line}"
        pid = f"{benchmark}/{match.group(1)}"
        subs = list(_SUBSECTION.finditer(body))
        head = body[: subs[0].start()] if subs else body
        answer_match = _ANSWER.search(head)
        status_match = _STATUS.search(head)
        try:
            if not answer_match:
                raise BadInput(loc, f"{match.group(1)}: no 'Answer: N' line")
            answer = normalise_aime_answer(answer_match.group(1), loc)
        except BadInput as exc:
            result.skipped.append(Skipped(exc.where, exc.reason, pid))
            continue
        problem = Problem(id=pid, benchmark=benchmark, problem="", answer=answer, origin=loc)
        for j, sub in enumerate(subs):
            if not sub.group(1).strip().lower().startswith("solution"):
                continue
            sub_end = subs[j + 1].start() if j + 1 < len(subs) else len(body)
            text = body[sub.end():sub_end].strip()
            if text:
                problem.trajectories.append(Trajectory(text=text, source="maintainer-written"))
        problem.solution = "\n\n".join(
            f"Solution {k}.\n{t.text}" if len(problem.trajectories) > 1 else t.text
            for k, t in enumerate(problem.trajectories, start=1))
        if status_match:
            problem.note = status_match.group(1)
        if not problem.trajectories and not status_match:
            result.skipped.append(Skipped(loc, f"{match.group(1)}: no '### Solution' and no 'Status:' line", pid))
            continue
        result.problems.append(problem)
    return result


def load_solutions(path: str | Path, benchmark: str = "aime25") -> ImportResult:
    path = Path(path)
    return parse_solutions(path.read_text(encoding="utf-8"), str(path), benchmark=benchmark)
