r"""Stage 4: a reviewer signs the nodes. Sheets out, verdicts in, signed nodes only.

Rules over the text tell a fragment or a restated given from a result, but not a key result
from one route's step: that takes reading the mathematics. So the last word is a reviewer's.
For each problem the reviewer sees the candidates that two or more voices state
(:func:`node_builder.consensus.signable`, most shared first, at most :data:`SHEET_LIMIT`), with
how many voices state each and where, and labels every one with the audit's rubric
(:data:`LABELS`). The verdicts are a file per benchmark (``node_builder/signoffs/<name>.jsonl``,
one JSON line per verdict)::

    {"id": "test/algebra/1098.json", "text": "x = 7", "label": "GOOD", "reviewer": "r1"}

and the build applies them (:func:`node_builder.consensus.select` with ``signed``): in a problem
with verdicts, a node is a candidate signed ``GOOD`` that two voices state (and
``fallback_share`` of them; a single voice: the usual single-voice rule); everything else goes.
A problem without verdicts keeps the rules' nodes. Verdicts match candidates by their text
(:func:`text_key`), so a rebuild on the same sources applies them identically, and a candidate
new sources bring is ``unsigned`` until someone signs it.

The round trip (``python -m node_builder signoff-sheet`` / ``signoff-import``):

1. :func:`sheet_of` writes a problem's block: problem, gold answer, a reference solution, the
   numbered candidates with ``[k/n]`` voices and a line of one solution around the first match;
2. the reviewer answers one line per problem, ``ID: 1G 2R 3F ...`` (:data:`CODES`; a candidate
   without a code is rejected as unread);
3. :func:`verdicts_from_lines` turns the answers back into verdict lines (by text, not number);
4. proposal sheets (:func:`write_proposal_sheets`: what is signed so far, with one or several
   voices' solutions) take the key results the reviewer writes in (:func:`proposals_from_lines`;
   they add to a problem's earlier proposals), and revision sheets (``write_sheets`` with
   ``revise``: each candidate with its label) take answers that name only the labels they
   change.

Example:
    >>> verdicts_from_lines(["t/1: 1G 2F"], {"t/1": ["x = 7", "7"]}, reviewer="r1")
    [{'id': 't/1', 'text': 'x = 7', 'label': 'GOOD', 'reviewer': 'r1'}, {'id': 't/1', 'text': '7', 'label': 'FRAGMENT', 'reviewer': 'r1'}]
    >>> text_key("x  =\n7")
    'x = 7'
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from node_builder.consensus import ConsensusRule, signable
from node_builder.evidence import Evidence

GOOD = "GOOD"
FRAGMENT = "FRAGMENT"
#: The audit's rubric (issue #23): only GOOD is signed.
LABELS = ("GOOD", "ROUTE", "RESTATE", "DEFINITION", "ANSWER", "FRAGMENT", "WRONG")
#: One-letter codes of the answer lines.
CODES = {"G": "GOOD", "R": "ROUTE", "S": "RESTATE", "D": "DEFINITION", "A": "ANSWER", "F": "FRAGMENT", "W": "WRONG"}
#: Candidates shown per problem (the most shared).
SHEET_LIMIT = 16
#: Where the shipped verdicts live: ``<benchmark>.jsonl``.
SIGNOFF_DIR = Path(__file__).resolve().parent / "signoffs"

_ANSWER_LINE = re.compile(r"^\s*(?P<id>\S+?):\s*(?P<codes>.*)$")
_CODE = re.compile(r"^(?P<n>\d+)(?P<code>[A-Za-z])$")


@dataclass(frozen=True)
class Verdicts:
    """A reviewer's word on one problem: ``labels`` (candidate text key -> label, proposals
    included as GOOD) and ``proposed`` (key results the reviewer wrote in, in file order)."""

    labels: dict[str, str]
    proposed: tuple[str, ...] = ()


class SignoffError(ValueError):
    """A verdict file or an answer line the build cannot use (names the file and line)."""


def _json_lines(lines, where: str):
    """``(line number, parsed object)`` of the non-blank lines; :class:`SignoffError` names
    ``where:line`` of one that is not JSON."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as err:
            raise SignoffError(f"{where}:{number}: not JSON ({err.msg})") from None


def text_key(text: str) -> str:
    """A candidate's identity in a verdict file: its text with runs of whitespace as one space."""
    return " ".join(text.split())


def load_signoffs(path: Path) -> dict[str, Verdicts]:
    """Problem id -> :class:`Verdicts` of a verdict file; :class:`SignoffError` names the
    ``file:line`` of a malformed line, an unknown label, a proposal not labelled GOOD or a
    candidate judged twice differently."""
    labels: dict[str, dict[str, str]] = {}
    proposed: dict[str, list[str]] = {}
    for number, row in _json_lines(Path(path).read_text(encoding="utf-8").splitlines(), str(path)):
        if not isinstance(row, dict) or not all(isinstance(row.get(f), str) for f in ("id", "text", "label")):
            raise SignoffError(f"{path}:{number}: a verdict needs string fields id, text and label")
        if row["label"] not in LABELS:
            raise SignoffError(f"{path}:{number}: label {row['label']!r} is none of {', '.join(LABELS)}")
        verdicts = labels.setdefault(row["id"], {})
        key = text_key(row["text"])
        if not key:
            raise SignoffError(f"{path}:{number}: an empty text")
        if verdicts.get(key, row["label"]) != row["label"]:
            raise SignoffError(f"{path}:{number}: {row['id']} {key!r} is already labelled {verdicts[key]}")
        verdicts[key] = row["label"]
        if row.get("proposed"):
            if row["label"] != GOOD:
                raise SignoffError(f"{path}:{number}: a proposed key result is signed GOOD, not {row['label']}")
            proposed.setdefault(row["id"], []).append(key)
    return {pid: Verdicts(v, tuple(dict.fromkeys(proposed.get(pid, ())))) for pid, v in labels.items()}


def signoffs_of(benchmark: str, folder: Path = SIGNOFF_DIR) -> dict[str, Verdicts] | None:
    """The shipped verdicts of ``benchmark``, or None when it has none."""
    path = Path(folder) / f"{benchmark}.jsonl"
    return load_signoffs(path) if path.exists() else None


def signoffs_digest(signoffs: dict[str, Verdicts] | None) -> str | None:
    """A short fingerprint of verdicts (the work dir pins it: other verdicts, another build)."""
    if signoffs is None:
        return None
    plain = {pid: [v.labels, list(v.proposed)] for pid, v in signoffs.items()}
    return hashlib.sha256(json.dumps(plain, sort_keys=True).encode()).hexdigest()[:16]


def proposed_nodes(verdicts: Verdicts | None) -> list:
    """The reviewer's proposed key results as candidate nodes (kind and forms as the LLM
    extractor's; a text no node can be made of is left out). The build keeps one only where two
    voices' correct solutions state it (the matcher decides), like any other candidate."""
    from node_builder.llm_extractor import node_of_text

    if verdicts is None:
        return []
    return [node for node in map(node_of_text, verdicts.proposed) if node is not None]


def sheet_candidates(evidence: Evidence, rule: ConsensusRule, limit: int = SHEET_LIMIT,
                     read: Verdicts | None = None) -> list[tuple[str, int, int, str]]:
    """``(text, k, n, context)`` of the candidates a reviewer sees, in sheet order; with ``read``,
    only those these verdicts do not label (an unread sheet)."""
    rows = []
    shown = signable(evidence, rule)
    if read is not None:
        shown = [row for row in shown if text_key(row[0].node.text) not in read.labels]
    for candidate, k, n in shown[:limit]:
        first = min(candidate.hits, key=lambda t: candidate.hits[t])
        rows.append((candidate.node.text, k, n, _context(evidence.trajectories[first].text, candidate.hits[first])))
    return rows


def _context(text: str, offset: float, width: int = 90) -> str:
    at = int(offset * len(text))
    return " ".join(text[max(0, at - width // 3): at + width].split())


def sheet_of(evidence: Evidence, rule: ConsensusRule, limit: int = SHEET_LIMIT, reference_chars: int = 900,
             verdicts: Verdicts | None = None, unread: Verdicts | None = None) -> tuple[str, list[str]]:
    """The sheet block of one problem and its candidates' texts in the block's order; with
    ``verdicts`` (a revision sheet) each candidate shows its current label; with ``unread`` (an
    unread sheet) only the candidates those verdicts lack, after what they sign."""
    problem = evidence.problem
    rows = sheet_candidates(evidence, rule, limit, read=unread)
    reference = next((t.text for t in problem.trajectories if t.voice == "reference"), "") or problem.solution or ""
    lines = _header(problem, reference, reference_chars)
    if unread is not None:
        lines.append(_signed_line(unread))
    lines.append(f"CANDIDATES (voices stating it / voices): {'none' if not rows else ''}")
    for i, (text, k, n, context) in enumerate(rows, 1):
        label = f"  <{verdicts.labels.get(text_key(text), 'UNREAD')}>" if verdicts is not None else ""
        lines.append(f"  {i}. [{k}/{n}] {text}{label}    | ...{context}...")
    return "\n".join(lines) + "\n", [text for text, *_ in rows]


def _header(problem, reference: str, chars: int) -> list[str]:
    """The lines every sheet block starts with: id, problem, gold answer, reference (cut)."""
    return [f"### {problem.id}", f"PROBLEM: {' '.join(problem.problem.split())}", f"ANSWER: {problem.answer}",
            f"REFERENCE: {' '.join(reference.split())[:chars]}"]


def _signed_line(verdicts: Verdicts | None) -> str:
    """The ``SIGNED:`` line of a sheet block: the texts these verdicts sign GOOD."""
    signed = [text for text, label in (verdicts.labels.items() if verdicts else ()) if label == GOOD]
    return "SIGNED: " + (" ;; ".join(signed) if signed else "(none)")


def _write_parts(blocks: list[str], out_dir: Path, stem: str, parts: int) -> list[str]:
    """``blocks`` over ``parts`` files ``<stem>1.md..`` in ``out_dir`` (in order, near-equal
    sizes); returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    size = -(-len(blocks) // parts) if blocks else 1
    written = []
    for i in range(parts):
        part = blocks[i * size:(i + 1) * size]
        if part:
            sheet = out_dir / f"{stem}{i + 1}.md"
            sheet.write_text("\n".join(part), encoding="utf-8")
            written.append(str(sheet))
    return written


#: A model solution shorter than this (a tool run's printed result) is shown only where no longer one is.
SHOWN_MIN_CHARS = 300


def proposal_block(problem, verdicts: Verdicts | None, chars: int = 1200, solutions: int = 1) -> str:
    """The proposal sheet block of one problem: the problem, its answer, the reference, the
    shortest correct solution of each of ``solutions`` model voices (the voices with the shortest
    solutions first, those shorter than :data:`SHOWN_MIN_CHARS` last: a proposal ships only where
    two voices state it, so the reviewer sees how several of them write their results) and the key
    results signed so far."""
    correct = problem.correct_trajectories()
    reference = next((t.text for t in correct if t.voice == "reference"), "") or problem.solution or ""
    shortest: dict[str, str] = {}
    for t in sorted((t for t in correct if t.voice != "reference"),
                    key=lambda t: (len(t.text) < SHOWN_MIN_CHARS, len(t.text))):  # terse runs (a printed result) last
        shortest.setdefault(t.voice, t.text)
    models = list(shortest.values())[:solutions]
    lines = _header(problem, reference, chars)
    if solutions == 1:
        lines.append(f"A MODEL'S SOLUTION: {' '.join(models[0].split())[:chars] if models else '(none)'}")
    else:
        lines += [f"SOLUTION OF MODEL {i}: {' '.join(text.split())[:chars]}" for i, text in enumerate(models, 1)]
        if not models:
            lines.append("MODEL SOLUTIONS: (none)")
    lines.append(_signed_line(verdicts))
    return "\n".join(lines) + "\n"


def proposals_from_lines(lines, ids: set[str], reviewer: str, where: str = "proposals") -> list[dict]:
    """Verdict rows (``proposed: true``, GOOD) of JSON lines ``{"id", "propose": [texts]}``;
    :class:`SignoffError` names the line of an unknown id or a malformed entry.

    >>> proposals_from_lines(['{"id": "t/1", "propose": ["$x = 7$"]}'], {"t/1"}, "r")
    [{'id': 't/1', 'text': 'x = 7', 'label': 'GOOD', 'reviewer': 'r', 'proposed': True}]
    """
    out = []
    for number, row in _json_lines(lines, where):
        texts = row.get("propose") if isinstance(row, dict) else None
        if not isinstance(row, dict) or row.get("id") not in ids:
            raise SignoffError(f"{where}:{number}: no sheet problem {row.get('id') if isinstance(row, dict) else row!r}")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise SignoffError(f"{where}:{number}: 'propose' must be a list of texts")
        for text in dict.fromkeys(text_key(t.strip().strip("$")) for t in texts):
            if text:
                out.append({"id": row["id"], "text": text, "label": GOOD, "reviewer": reviewer, "proposed": True})
    return out


def verdicts_from_lines(lines, candidates: dict[str, list[str]], reviewer: str) -> list[dict]:
    """Verdict rows of answer lines ``ID: 1G 2R ...`` against the sheet's candidate lists;
    :class:`SignoffError` names the line of an unknown id, number or code."""
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _ANSWER_LINE.match(line)
        if not match or match["id"] not in candidates:
            raise SignoffError(f"answer line {number}: no sheet problem {line.split(':')[0]!r}")
        texts = candidates[match["id"]]
        for token in match["codes"].replace(",", " ").split():
            code = _CODE.match(token)
            if not code or code["code"].upper() not in CODES or not 1 <= int(code["n"]) <= len(texts):
                raise SignoffError(f"answer line {number}: {token!r} is no NUMBER+CODE of {match['id']}'s "
                                   f"{len(texts)} candidates")
            out.append({"id": match["id"], "text": texts[int(code["n"]) - 1], "label": CODES[code["code"].upper()],
                        "reviewer": reviewer})
    return out


def write_sheets(benchmark: str, sources: list[str], out_dir: Path, parts: int = 1,
                 skip: dict[str, Verdicts] | None = None, quiet: bool = True,
                 revise: dict[str, Verdicts] | None = None, unread: dict[str, Verdicts] | None = None) -> dict:
    """Sheets ``sheet1.md..`` of every problem with signable candidates (not those ``skip`` covers)
    and ``candidates.json`` (problem id -> candidate texts in sheet order) in ``out_dir``; with
    ``revise``, revision sheets of the problems those verdicts cover, each candidate with its label
    (``revise.json`` marks the folder: its answers change only the labels they name); with
    ``unread``, sheets of the candidates of the problems those verdicts cover that they do not label
    (the ones past an earlier sheet's limit, or new), after what is signed (merged like a revision:
    the problem's other verdicts stay)."""
    from tqdm import tqdm

    from node_builder.build import import_problems
    from node_builder.evidence import gather
    from node_builder.filter import filter_problem

    if revise is not None and unread is not None:
        raise ValueError("a sheet is a revision or an unread sheet, not both")
    covered = revise if revise is not None else unread  # the problems on the sheets, where given
    problems = import_problems(sources, benchmark, None).problems
    blocks, candidates = [], {}
    for problem in tqdm(problems, desc=f"{benchmark} sheets", unit="problem", disable=quiet):
        if (skip and problem.id in skip) or (covered is not None and problem.id not in covered):
            continue
        filter_problem(problem)
        mine = covered.get(problem.id) if covered is not None else None
        block, texts = sheet_of(gather(problem, None, proposed_nodes(mine)), ConsensusRule(),
                                verdicts=mine if revise is not None else None,
                                unread=mine if unread is not None else None)
        if texts:
            blocks.append(block)
            candidates[problem.id] = texts
    sheets = _write_parts(blocks, out_dir, "sheet", parts)
    (out_dir / "candidates.json").write_text(json.dumps(candidates, ensure_ascii=False), encoding="utf-8")
    if revise is not None or unread is not None:
        (out_dir / "revise.json").write_text("true", encoding="utf-8")
    return {"problems": len(problems), "on_sheets": len(candidates), "sheets": sheets}


def write_proposal_sheets(benchmark: str, sources: list[str], out_dir: Path, verdicts: dict[str, Verdicts],
                          parts: int = 1, quiet: bool = True, solutions: int = 1,
                          only: set[str] | None = None) -> dict:
    """Proposal sheets ``propose1.md..`` of every problem with a correct solution (or of those in
    ``only``): what is signed so far, for the reviewer to add the key results it misses, with
    ``solutions`` model voices' solutions (:func:`proposal_block`); and ``proposals.json`` (the ids)."""
    from tqdm import tqdm

    from node_builder.build import import_problems
    from node_builder.filter import filter_problem

    problems = import_problems(sources, benchmark, None).problems
    blocks, ids = [], []
    for problem in tqdm(problems, desc=f"{benchmark} proposal sheets", unit="problem", disable=quiet):
        if only is not None and problem.id not in only:
            continue
        filter_problem(problem)
        if problem.correct_trajectories():
            blocks.append(proposal_block(problem, verdicts.get(problem.id), solutions=solutions))
            ids.append(problem.id)
    sheets = _write_parts(blocks, out_dir, "propose", parts)
    (out_dir / "proposals.json").write_text(json.dumps(ids), encoding="utf-8")
    return {"problems": len(problems), "on_sheets": len(ids), "sheets": sheets}


def import_answers(sheet_dir: Path, answers: list[Path], reviewer: str, out: Path) -> dict:
    """Merge the answer files (against ``sheet_dir/candidates.json``) into the verdict file
    ``out``: a problem answered here replaces that problem's earlier verdicts; the others stay.
    A candidate an answer line leaves out gets no verdict (the build drops it as ``unsigned``;
    counted in ``unlabelled``); one labelled twice differently is a :class:`SignoffError`."""
    sheet_dir = Path(sheet_dir)
    if (sheet_dir / "proposals.json").exists():
        return _import_proposals(sheet_dir, answers, reviewer, out)
    candidates = json.loads((sheet_dir / "candidates.json").read_text(encoding="utf-8"))
    new: list[dict] = []
    unlabelled = 0
    for path in answers:
        rows = verdicts_from_lines(Path(path).read_text(encoding="utf-8").splitlines(), candidates, reviewer)
        for problem_id in dict.fromkeys(row["id"] for row in rows):
            labels: dict[str, str] = {}
            for row in rows:
                if row["id"] == problem_id and labels.setdefault(row["text"], row["label"]) != row["label"]:
                    raise SignoffError(f"{path}: {problem_id}: {row['text']!r} labelled twice differently")
            unlabelled += sum(1 for t in candidates[problem_id] if t not in labels)
        seen = set()
        for row in rows:
            if (row["id"], row["text"]) not in seen:
                seen.add((row["id"], row["text"]))
                new.append(row)
    if (sheet_dir / "revise.json").exists():  # a revision names only the labels it changes
        changed = {(row["id"], row["text"]) for row in new}
        rows = _merge(out, new, lambda row: (row["id"], text_key(row["text"])) in changed)
        return {"problems": len({row["id"] for row in new}), "revised": len(new),
                "good": sum(r["label"] == GOOD for r in new), "file_verdicts": len(rows)}
    answered = {row["id"] for row in new}
    rows = _merge(out, new, lambda row: row["id"] in answered and not row.get("proposed"))
    return {"problems": len(answered), "verdicts": len(new), "good": sum(r["label"] == GOOD for r in new),
            "unlabelled": unlabelled, "file_verdicts": len(rows)}


def _import_proposals(sheet_dir: Path, answers: list[Path], reviewer: str, out: Path) -> dict:
    """Proposal files merged into ``out``: proposals add to a problem's earlier ones (a text
    proposed again keeps its first verdict; a reviewer's later revision removes a proposal by
    relabelling it); a proposal whose text the reviewer already labelled otherwise is left out
    (``conflicts``)."""
    ids = set(json.loads((sheet_dir / "proposals.json").read_text(encoding="utf-8")))
    existing = load_signoffs(Path(out)) if Path(out).exists() else {}
    new, conflicts, seen = [], 0, set()
    for path in answers:
        for row in proposals_from_lines(Path(path).read_text(encoding="utf-8").splitlines(), ids, reviewer, str(path)):
            earlier = existing.get(row["id"])
            label = earlier.labels.get(row["text"]) if earlier else None
            if label is not None and label != GOOD:
                conflicts += 1
            elif label is None and (row["id"], row["text"]) not in seen:
                seen.add((row["id"], row["text"]))
                new.append(row)
    rows = _merge(out, new, lambda row: False)
    return {"problems": len({row["id"] for row in new}), "proposed": len(new), "conflicts": conflicts,
            "file_verdicts": len(rows)}


def _merge(out: Path, new: list[dict], replaced) -> list[dict]:
    kept = []
    if Path(out).exists():
        load_signoffs(Path(out))  # refuse to merge into a malformed file
        kept = [json.loads(line) for line in Path(out).read_text(encoding="utf-8").splitlines() if line.strip()]
        kept = [row for row in kept if not replaced(row)]
    rows = sorted(kept + new, key=lambda row: row["id"])  # stable: sheet order within a problem
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return rows
