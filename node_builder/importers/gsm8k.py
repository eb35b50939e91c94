"""GSM8K (openai/grade-school-math): reference and "socratic" solutions with calculator notes.

Input line: ``{"question", "answer"}`` where ``answer`` is the worked solution ending in
``#### <final>`` with ``<<16-3-4=9>>`` calculator annotations. For each line (0-based index i):

* id ``"gsm8k/{split}/{i}"``: split = ``test`` or ``train`` when the file name says so as a word
  (``test.jsonl``, ``test_socratic.jsonl``, ``gsm8k-train.jsonl``), else the stem before ``_``
  (a renamed file still merges with the others: :func:`node_builder.importers.load_sources`
  also merges by problem statement);
* ``answer`` = text after ``####`` with thousands separators removed (``1,080`` -> ``1080``);
* one trajectory whose text is the solution without annotations and without the ``####`` line;
  the annotations become ``Trajectory.equations`` (the miner reads them as relations);
* the socratic variant additionally drops each line's sub-question prefix ``How many ...? ** ``
  (up to the first `` ** ``; some prefixes are not questions: ``Simplify ** 2*x=80``).

Example:
    >>> clean_solution("How many? ** Janet sells 16 - 3 = <<16-3=13>>13 eggs\\n#### 13", socratic=True)
    ('Janet sells 16 - 3 = 13 eggs', ['16-3=13'])
"""

from __future__ import annotations

import re
from pathlib import Path

from node_builder.importers.jsonl_lines import read_jsonl, require_str
from node_builder.importers.result import ImportResult
from node_builder.importers.text_cleanup import strip_calculator_annotations
from node_builder.schema import BadInput, Problem, Skipped, Trajectory

_SPLIT_WORD = re.compile(r"(?<![a-z])(test|train)(?![a-z])")
_SOCRATIC_PREFIX = re.compile(r"^[^\n]*?\s\*\*\s+")
_FINAL = re.compile(r"\n?####\s*(.*?)\s*$", re.S)


def split_of(path: Path) -> str:
    """The split a GSM8K file holds, from its name (see the module docstring).

    >>> split_of(Path("test_socratic.jsonl")), split_of(Path("gsm8k-train.jsonl")), split_of(Path("latest.jsonl"))
    ('test', 'train', 'latest')
    """
    found = set(_SPLIT_WORD.findall(path.stem.lower()))
    return found.pop() if len(found) == 1 else path.stem.split("_")[0]


def split_final(solution: str, where: str) -> tuple[str, str]:
    match = _FINAL.search(solution)
    if not match or not match.group(1).strip():
        raise BadInput(where, "solution has no '#### <answer>' line")
    answer = re.sub(r"(?<=\d),(?=\d{3}\b)", "", match.group(1).strip())
    return solution[: match.start()].rstrip(), answer


def strip_socratic_prefixes(body: str) -> str:
    """Drop each line's sub-question prefix (``How many ...? ** ``); annotations stay."""
    return "\n".join(_SOCRATIC_PREFIX.sub("", line) for line in body.split("\n"))


def clean_solution(body: str, socratic: bool = False) -> tuple[str, list[str]]:
    body = _FINAL.sub("", body) if "####" in body else body
    if socratic:
        body = strip_socratic_prefixes(body)
    text, annotations = strip_calculator_annotations(body)
    return text.strip(), annotations


def load(path: str | Path, benchmark: str = "gsm8k", socratic: bool | None = None,
         split: str | None = None) -> ImportResult:
    path = Path(path)
    socratic = ("socratic" in path.stem) if socratic is None else socratic
    split = split or split_of(path)
    source = "socratic" if socratic else "reference"
    result = ImportResult()
    index = -1
    for where, obj in read_jsonl(path):
        index += 1
        pid = f"gsm8k/{split}/{index}"
        if isinstance(obj, BadInput):
            result.skipped.append(Skipped(where, obj.reason, pid))
            continue
        try:
            question = require_str(obj, "question", where)
            body, answer = split_final(require_str(obj, "answer", where), where)
        except BadInput as exc:
            result.skipped.append(Skipped(exc.where, exc.reason, pid))
            continue
        text, annotations = clean_solution(body, socratic=socratic)
        problem = Problem(id=pid, benchmark=benchmark, problem=question, answer=answer,
                          solution=obj["answer"].strip(), origin=where)
        problem.trajectories.append(
            Trajectory(text=text, source=source, correct=True, equations=annotations))
        result.problems.append(problem)
    return result
