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
   change;
5. forms sheets (:func:`write_forms_sheets`) show each proposal too few voices state as written
   beside the closest lines of every voice's solution; the reviewer copies the same result as
   the voices write it (:func:`forms_from_lines`), and those ``forms`` join the proposal's
   matcher forms where :func:`form_of` lets them (same kind, a shared side value, not a
   candidate judged on its own, no refine rule against it);
6. dispute sheets (:func:`write_dispute_sheets`) show each signable candidate whose writings two
   verdicts label differently (one GOOD, another a defect that is not a duplicate: a proposal
   signed GOOD that a first sheet's reviewer had labelled ROUTE in the voices' writing, or the
   very text of such a label proposed again, ``contested``) to a third
   reviewer, without the labels; the answer (``ID: 1G 2R``) labels every writing of the candidate
   (:func:`dispute_rows`), so the build reads one verdict where it read the first defect; with
   the audits, also the shipped nodes they label a defect more often than GOOD, once more a
   settled GOOD they overturn by five audits or more, four in five a defect (:func:`reopens`),
   and a reopened GOOD they go on overturning (ten audits or more) to a panel of three fresh
   readers whose majority is final (:func:`panel_hears`);
7. appeal sheets (:func:`write_appeal_sheets`) show, for the records that ship no node, each
   candidate the consensus rule agrees on (two voices and half of them state it) that one
   reviewer labelled ROUTE -- a step most voices take is no one route's by the data -- to two
   fresh reviewers, without the label; both GOOD overturn it (two signatures, ``second``), anything
   else lets it stand (:func:`appeal_rows`); either way it is ``settled``. On request
   (``grounds``) the relations labelled another defect are heard too: an empty record should not
   rest on one reader's call about a statement most voices make.

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
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from node_builder.consensus import ConsensusRule, signable
from node_builder.evidence import Evidence

GOOD = "GOOD"
FRAGMENT = "FRAGMENT"
ROUTE = "ROUTE"
#: The audit's rubric (issue #23): only GOOD is signed.
LABELS = ("GOOD", "ROUTE", "RESTATE", "DEFINITION", "ANSWER", "FRAGMENT", "WRONG")
#: What a reviewer reads for each label (the nodes issue's rubric, as the audit briefs give it:
#: ``benchmarks/node_audit.py sheets``).
RUBRIC = {
    "GOOD": "a key intermediate result that most correct solutions of this problem state in some form.",
    "ROUTE": "correct, but a step of one route only; other natural solutions skip it.",
    "RESTATE": "a given of the problem, or a given substituted into the problem's own definition.",
    "DEFINITION": "a generic formula or identity, not specific to this problem.",
    "ANSWER": "the answer itself, or what trivially yields it (its m/n when m+n is asked, the value before a "
              'final "mod", the answer in another unit or as a percentage, one obvious step away).',
    "FRAGMENT": "meaningless on its own (a dangling piece, a bare list member, a case label, a fresh parameter), "
                "or a duplicate of another node of the record.",
    "WRONG": "false.",
}
#: One-letter codes of the answer lines.
CODES = {"G": "GOOD", "R": "ROUTE", "S": "RESTATE", "D": "DEFINITION", "A": "ANSWER", "F": "FRAGMENT", "W": "WRONG"}
#: Candidates shown per problem (the most shared).
SHEET_LIMIT = 16
#: The longest form a reviewer may write for a proposal (a chain copied whole; each equation
#: :func:`chain_links` reads off it is a node text, of at most the LLM extractor's 200 characters).
MAX_FORM = 400
#: Where the shipped verdicts live: ``<benchmark>.jsonl``.
SIGNOFF_DIR = Path(__file__).resolve().parent / "signoffs"

_ANSWER_LINE = re.compile(r"^\s*(?P<id>\S+?):\s*(?P<codes>.*)$")
_CODE = re.compile(r"^(?P<n>\d+)(?P<code>[A-Za-z])$")


@dataclass(frozen=True)
class Verdicts:
    """A reviewer's word on one problem: ``labels`` (candidate text key -> label, proposals
    included as GOOD), ``proposed`` (key results the reviewer wrote in, in file order),
    ``forms`` (a proposal's text key -> the other ways the voices write that same result, copied
    from their solutions on a forms sheet), ``settled`` (what a third reviewer decided),
    ``second`` (what a second reviewer signed GOOD too), ``reopened`` (a settled GOOD the
    audits overturned, heard once more), ``contested`` (a defect another reviewer proposed as
    a key result) and ``panel`` (what three fresh readers decided by majority)."""

    labels: dict[str, str]
    proposed: tuple[str, ...] = ()
    forms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: text keys a third reviewer labelled on a dispute sheet: settled, never disputed again
    settled: frozenset = frozenset()
    #: text keys a second reviewer also signed GOOD (a second-signature sheet, or proposals
    #: imported with ``second``): their GOOD has two signatures
    second: frozenset = frozenset()
    #: settled text keys a reader heard again because the audits overturned them (:func:`reopens`):
    #: never reopened twice (a GOOD there goes to a panel only if the audits go on overturning it)
    reopened: frozenset = frozenset()
    #: text keys labelled a defect that a later reviewer wrote in as a key result (``contested``:
    #: that reviewer): two readers disagree, so a dispute sheet lists them for a third
    contested: frozenset = frozenset()
    #: text keys a panel of three fresh readers decided by majority (:func:`panel_hears`): final
    panel: frozenset = frozenset()


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


def signed_label(candidate, labels: dict[str, str]) -> str | None:
    r"""The reviewer's label of a :class:`~node_builder.evidence.Candidate`: its own text's; else,
    where the reviewer read it written otherwise (another surface of its cluster, or a form of a
    computation that :func:`node_builder.evidence.merge_computations` merged from several writings:
    the proposal ``6432 = 2^5 \cdot 3 \cdot 67`` signed while the voices' ``6432 = 2^5 \times 3
    \times 67`` stands for the step), what those labels say: GOOD where one is GOOD and no other
    is a defect but a duplicate (FRAGMENT); the first defect where none is GOOD; None where no
    writing was read. Its own text labelled a duplicate counts as one writing among the others:
    a reviewer who signed ``\binom{4}{2} = 6`` and called ``4C2 = 6`` a fragment signed the step,
    whichever writing the miner names it by.

    >>> from node_builder.evidence import Candidate
    >>> from node_builder.schema import Node
    >>> step = Candidate(Node("", "6 \\times 7 = 42", "equation", ("6 \\times 7 = 42", "6 \\cdot 7 = 42", "7 \\cdot 6 = 42")), None)
    >>> signed_label(step, {"6 \\cdot 7 = 42": "GOOD", "7 \\cdot 6 = 42": "FRAGMENT"})
    'GOOD'
    >>> signed_label(step, {"6 \\cdot 7 = 42": "GOOD", "7 \\cdot 6 = 42": "ROUTE"}), signed_label(step, {})
    ('ROUTE', None)
    >>> signed_label(step, {"6 \\times 7 = 42": "FRAGMENT", "6 \\cdot 7 = 42": "GOOD"})
    'GOOD'
    """
    own = labels.get(text_key(candidate.node.text))
    if own is not None and own != FRAGMENT:
        return own
    read = [label for label in (labels.get(text_key(text)) for text in (candidate.node.text, *_writings(candidate)))
            if label is not None]
    defects = [label for label in read if label not in (GOOD, FRAGMENT)]
    if GOOD in read and not defects:
        return GOOD
    return (defects or read or [None])[0]


def _writings(candidate) -> tuple[str, ...]:
    """A candidate's other writings: its forms, then its cluster's surfaces."""
    return (*candidate.node.forms, *(candidate.cluster.surface if candidate.cluster is not None else ()))


def _labelled_writings(candidate, labels: dict[str, str]) -> list[str]:
    """The text keys of the candidate's own text and its other writings that ``labels`` holds,
    own text first, each once."""
    keys = dict.fromkeys(text_key(t) for t in (candidate.node.text, *_writings(candidate)))
    return [key for key in keys if key in labels]


def signed_writing(candidate, labels: dict[str, str]) -> str:
    """The text a signed node ships under: its own where the reviewer read it (unless it was
    called a duplicate, FRAGMENT, and another writing signed), else the first of its other
    writings (forms, then its cluster's surfaces) the reviewer signed GOOD, else one labelled a
    duplicate, so that every shipped text carries its verdict.

    >>> from node_builder.evidence import Candidate
    >>> from node_builder.schema import Node
    >>> step = Candidate(Node("", "3*10=30", "equation", ("3*10=30", "3 hours * 10 = 30")), None)
    >>> signed_writing(step, {"3 hours * 10 = 30": "GOOD"})
    '3 hours * 10 = 30'
    """
    text = candidate.node.text
    own = labels.get(text_key(text))
    if own is not None and not (own == FRAGMENT and signed_label(candidate, labels) == GOOD):
        return text
    writings = _writings(candidate)
    for wanted in (GOOD, FRAGMENT):
        for writing in writings:
            if labels.get(text_key(writing)) == wanted:
                return writing
    return text


def load_signoffs(path: Path) -> dict[str, Verdicts]:
    """Problem id -> :class:`Verdicts` of a verdict file; :class:`SignoffError` names the
    ``file:line`` of a malformed line, an unknown label, a proposal not labelled GOOD or a
    candidate judged twice differently."""
    labels: dict[str, dict[str, str]] = {}
    proposed: dict[str, list[str]] = {}
    forms: dict[str, dict[str, tuple[str, ...]]] = {}
    marked: dict[str, dict[str, set]] = {mark: {} for mark in _MARKS}  # mark -> problem id -> text keys
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
        for mark, (on_good, meaning) in _NAMED_MARKS.items():
            if mark in row and ((row["label"] == GOOD) != on_good or not isinstance(row[mark], str)
                                or not row[mark].strip()):
                raise SignoffError(f"{path}:{number}: {meaning}")
        for mark in _MARKS:
            if row.get(mark):
                marked[mark].setdefault(row["id"], set()).add(key)
        if row.get("proposed"):
            if row["label"] != GOOD:
                raise SignoffError(f"{path}:{number}: a proposed key result is signed GOOD, not {row['label']}")
            proposed.setdefault(row["id"], []).append(key)
        if "forms" in row:
            written = row["forms"]
            if not row.get("proposed") or not isinstance(written, list) or not all(
                    isinstance(f, str) and 0 < len(f.strip()) <= MAX_FORM for f in written):
                raise SignoffError(f"{path}:{number}: 'forms' belong to a proposed key result: a list of texts of "
                                   f"1 to {MAX_FORM} characters")
            mine = forms.setdefault(row["id"], {})
            mine[key] = tuple(dict.fromkeys(mine.get(key, ()) + tuple(text_key(f) for f in written)))
    return {pid: Verdicts(v, tuple(dict.fromkeys(proposed.get(pid, ()))), forms.get(pid, {}),
                          **{mark: frozenset(marked[mark].get(pid, ())) for mark in _MARKS})
            for pid, v in labels.items()}


#: the marks a verdict row may carry, each a :class:`Verdicts` field of text keys
_MARKS = ("settled", "second", "reopened", "contested", "panel")
#: the marks that name a reviewer: on a GOOD verdict or on a defect, and what the name means
_NAMED_MARKS = {"second": (True, "'second' names the reviewer who signed a GOOD verdict too"),
                "contested": (False, "'contested' names the reviewer who proposed a text labelled a defect as a "
                                     "key result")}


def signoffs_of(benchmark: str, folder: Path = SIGNOFF_DIR) -> dict[str, Verdicts] | None:
    """The shipped verdicts of ``benchmark``, or None when it has none."""
    path = Path(folder) / f"{benchmark}.jsonl"
    return load_signoffs(path) if path.exists() else None


def signoffs_digest(signoffs: dict[str, Verdicts] | None) -> str | None:
    """A short fingerprint of verdicts (the work dir pins it: other verdicts, another build)."""
    if signoffs is None:
        return None
    plain = {pid: [v.labels, list(v.proposed)] + ([v.forms] if v.forms else []) for pid, v in signoffs.items()}
    return hashlib.sha256(json.dumps(plain, sort_keys=True).encode()).hexdigest()[:16]


def proposed_nodes(verdicts: Verdicts | None, problem, config=None) -> list:
    """The reviewer's proposed key results as candidate nodes (kind and forms as the LLM
    extractor's; a text no node can be made of is left out). The build keeps one only where two
    voices' correct solutions state it (the matcher decides), like any other candidate.

    A proposal's written-in ``forms`` (how the voices write the same result) join its forms where
    they pass :func:`form_of` against ``problem`` (the refine rules with ``config``)."""
    from node_builder.llm_extractor import node_of_text

    if verdicts is None:
        return []
    nodes = []
    for text in verdicts.proposed:
        node = node_of_text(text)
        if node is None:
            continue
        written = verdicts.forms.get(text, ())
        if computation_chain(text):  # its links are its forms (written in by the reviewer, as it were)
            node = replace(node, kind="equation")
            written = (text, *written)
        if written:
            extra = [form for f in written for link in chain_links(f)
                     for form in form_of(node, link, verdicts, problem, config)]
            node = replace(node, forms=tuple(dict.fromkeys(node.forms + tuple(extra)))[:MAX_NODE_FORMS])
        nodes.append(node)
    return nodes


#: Most forms a proposal with written-in forms carries (its own expansions first).
MAX_NODE_FORMS = 16


def chain_links(form: str) -> list[str]:
    r"""A written-in form as the equations it asserts: a chain ``a = b = c`` (copied as a solution
    writes it) is each earlier side equal to the last, the result it ends in; any other text
    (one ``=``, or a chain with another relation in it) is itself; alignment marks ``&`` go, and
    a form that runs on through an implication (``h^2 + 9 = 25 \Rightarrow h^2 = 16 \Rightarrow h
    = 4``) is each of its statements in turn.

    >>> chain_links("\\sqrt{81^2 + 108^2} = \\sqrt{18225} = 135")
    ['\\sqrt{81^2 + 108^2} = 135', '\\sqrt{18225} = 135']
    >>> chain_links("h^2 + 3^2 = 5^2 => h^2 + 9 = 25 => h^2 = 16 => h = 4")
    ['h^2 + 3^2 = 5^2', 'h^2 + 9 = 25', 'h^2 = 16', 'h = 4']
    """
    form = " ".join(form.replace("&", " ").split())  # an aligned line's marks (``x &= 3``)
    pieces = [piece.strip() for piece in _IMPLIES.split(form)]
    if len(pieces) > 1:
        return [link for piece in pieces if piece for link in chain_links(piece)]
    sides = [side.strip() for side in form.split("=")]
    if len(sides) < 3 or not all(sides) or _OTHER_RELATION.search(form):
        return [form]
    return [f"{side} = {sides[-1]}" for side in sides[:-1] if side != sides[-1]]


#: An implication between two statements of one written-in form.
_IMPLIES = re.compile(r"⇒|⟹|→|=>|\\(?:Rightarrow|implies|Longrightarrow|rightarrow|to)(?![A-Za-z])")


def evaluates_one_number(form: str) -> bool:
    r"""Whether ``form`` only evaluates one number: a power, factorial or root of a single numeral
    equal to a number (``8^2 = 64``, ``6! = 720``, ``\sqrt{16} = 4``). Such a fact holds in any
    text, so it cannot stand for a node written otherwise (:func:`form_of`): the chain ``a^2 = 8^2
    = 64`` is not stated by every solution that squares 8.

    >>> [evaluates_one_number(f) for f in ("8^2 = 64", "64 = 8²", "6! = 720", "\\sqrt{16} = 4", "2^{10} = 1024")]
    [True, True, True, True, True]
    >>> [evaluates_one_number(f) for f in ("(7-1)! = 720", "h = 4", "5 \\cdot 9 + 8 = 53", "\\sin 2 \\theta = \\frac{1}{3}")]
    [False, False, False, False]
    """
    from node_builder.matcher import number_of

    sides = [side.strip() for side in form.split("=")]
    if len(sides) != 2:
        return False
    for side, other in (sides, sides[::-1]):
        if number_of(other) is not None and number_of(side) is None:
            rest = _EXPONENT.sub(" ", side)
            return len(_NUMERAL.findall(rest)) == 1 and not _UNARY.sub("", _NUMERAL.sub("", rest)).strip()
    return False


_NUMERAL = re.compile(r"\d+(?:\.\d+)?")
#: An exponent (``^2``, ``^{10}``, ``²``): part of the evaluation, not a number of its own.
_EXPONENT = re.compile(r"\^\s*(?:\{[^{}]*\}|\d)|[²³]")
#: What may wrap the one numeral of an evaluation: a root, a factorial, brackets.
_UNARY = re.compile(r"\\sqrt|\\left|\\right|[!{}()\[\]\s]")


def computation_chain(text: str) -> bool:
    r"""Whether a proposal is a computation written as a chain: three sides or more joined by
    ``=`` only (at the top level: not inside braces or brackets), the last a number, every
    other side math with an operator or a function (not a bare symbol or number), and no list
    (a top-level comma, ``;`` or ``\quad``). Such a proposal states the result on its last side
    in each of its links (:func:`chain_links`), so a solution that writes one link -- the
    quantity equal to its value, or the computation of it -- states it: ``h = \sqrt{5^2 - 3^2}
    = 4`` by ``h = 4`` or ``\sqrt{5^2 - 3^2} = 4``. A chain of symbols (``a = b = c``, ``AB =
    AC = 8``) says more than any one link and stays whole.

    >>> computation_chain("(7-1)! = 6! = 720"), computation_chain("AB = AC = 8"), computation_chain("x = 7")
    (True, False, False)
    >>> computation_chain("441 = 21^2,\\ 361 = 19^2"), computation_chain("\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}")
    (False, False)
    """
    from node_builder.matcher import number_of

    if _OTHER_RELATION.search(text) or re.search(r"\\quad|;", text):
        return False
    sides, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif depth == 0 and ch == ",":
            return False  # a list
        elif depth == 0 and ch == "=":
            sides.append(text[start:i].strip())
            start = i + 1
    sides.append(text[start:].strip())
    if len(sides) < 3 or not all(sides) or number_of(sides[-1]) is None:
        return False
    return all(_COMPUTES.search(side) and not _BARE.fullmatch(side) for side in sides[1:-1])


#: Math that computes: an operator, a power, a factorial or a command (``\frac``, ``\sqrt``).
_COMPUTES = re.compile(r"[-+*/^!]|\\[A-Za-z]+|\d\s*\(")
#: A bare symbol or number (with a sign): no computation.
_BARE = re.compile(r"-?\s*(?:[A-Za-z]|\d+(?:\.\d+)?)")


_OTHER_RELATION = re.compile(r"[<>]|\\(?:le|ge|leq|geq|neq|ne|equiv|approx|lt|gt)(?![A-Za-z])")


def form_of(node, form: str, verdicts: Verdicts, problem, config=None) -> tuple[str, ...]:
    """The matcher forms a reviewer's written-in ``form`` of proposal ``node`` adds, or ``()``
    where it may not stand for the node: not of the node's kind (an equation's form is an
    equation); a number on a side that none of the node's sides has (a step before or after
    the result, not the result: ``\\frac{10 \\cdot 11}{2} = 55`` may stand for
    ``1 + 2 + \\dots + 10 = 55``, ``10 \\cdot 11 = 110`` may not); a candidate the verdicts
    judge on its own as anything but a FRAGMENT (the label of a duplicate: signed GOOD, it is a
    node of its own; ROUTE, ANSWER and the rest keep their word); or one a refine rule drops (the
    answer in disguise, a restated given, a fragment...)."""
    from node_builder.evidence import Candidate, admitted
    from node_builder.llm_extractor import node_of_text
    from node_builder.refine import RefineConfig

    other = node_of_text(form)
    if other is None or other.kind != node.kind or verdicts.labels.get(text_key(form), FRAGMENT) != FRAGMENT:
        return ()
    if evaluates_one_number(form) and not evaluates_one_number(node.text):
        return ()
    if node.kind == "value" and other.value != node.value:
        return ()
    mine, theirs = _side_numbers(node.text), _side_numbers(other.text)
    if mine and theirs and not mine & theirs:
        return ()
    if not admitted(problem, [Candidate(other, None)], config or RefineConfig(), Counter()):
        return ()
    return other.forms


def _side_numbers(text: str) -> set:
    """The exact numbers that sides of a relation are (``x = 7`` -> {7}); empty for other texts."""
    from node_builder.matcher import number_of

    sides = text.split("=") if "=" in text else []
    return {value for value in map(number_of, sides) if value is not None}


def sheet_candidates(evidence: Evidence, rule: ConsensusRule, limit: int = SHEET_LIMIT,
                     read: Verdicts | None = None, only: set[str] | None = None,
                     labels: dict[str, str] | None = None) -> list[tuple[str, int, int, str, str | None]]:
    """``(text, k, n, context, label)`` of the candidates a reviewer sees, in sheet order; with
    ``read``, only those these verdicts do not label (an unread sheet); with ``only``, only those
    whose text key it holds (a record's shipped nodes); ``label`` is the candidate's label under
    ``labels`` as the build reads it (:func:`signed_label`), None without them or where unread.
    A shipped node may carry another writing of its candidate (a signed proposal's text for the
    step the voices write otherwise, :func:`signed_writing`): the row then shows that text."""
    rows = []
    shown = signable(evidence, rule)
    if read is not None:
        shown = [row for row in shown if signed_label(row[0], read.labels) is None]
    shown = [(candidate, k, n, _shown_text(candidate, only)) for candidate, k, n in shown]
    shown = [row for row in shown if row[3] is not None]
    keys = [text_key(row[3]) for row in shown]  # a proposal that repeats a mined text: one row
    shown = [row for i, row in enumerate(shown) if keys[i] not in keys[:i]]
    for candidate, k, n, text in shown[:limit]:
        first = min(candidate.hits, key=lambda t: candidate.hits[t])
        rows.append((text, k, n, _context(evidence.trajectories[first].text, candidate.hits[first]),
                     signed_label(candidate, labels) if labels is not None else None))
    return rows


def _shown_text(candidate, only: set[str] | None) -> str | None:
    """The text a sheet shows for a candidate: its own; with ``only`` (text keys), the first of
    its own and its other writings that ``only`` holds, or None where none is."""
    if only is None:
        return candidate.node.text
    return next((w for w in (candidate.node.text, *_writings(candidate)) if text_key(w) in only), None)


def _context(text: str, offset: float, width: int = 90) -> str:
    at = int(offset * len(text))
    return " ".join(text[max(0, at - width // 3): at + width].split())


def sheet_of(evidence: Evidence, rule: ConsensusRule, limit: int = SHEET_LIMIT, reference_chars: int = 900,
             verdicts: Verdicts | None = None, unread: Verdicts | None = None,
             only: set[str] | None = None) -> tuple[str, list[str]]:
    """The sheet block of one problem and its candidates' texts in the block's order; with
    ``verdicts`` (a revision sheet) each candidate shows its current label; with ``unread`` (an
    unread sheet) only the candidates those verdicts lack, after what they sign; with ``only``,
    only the candidates of those text keys."""
    problem = evidence.problem
    rows = sheet_candidates(evidence, rule, limit, read=unread, only=only,
                            labels=verdicts.labels if verdicts is not None else None)
    lines = _header(problem, _reference(problem), reference_chars)
    if unread is not None:
        lines.append(_signed_line(unread))
    lines.append(f"CANDIDATES (voices stating it / voices): {'none' if not rows else ''}")
    for i, (text, k, n, context, label) in enumerate(rows, 1):
        shown = f"  <{label or 'UNREAD'}>" if verdicts is not None else ""
        lines.append(f"  {i}. [{k}/{n}] {text}{shown}    | ...{context}...")
    return "\n".join(lines) + "\n", [text for text, *_ in rows]


def _reference(problem) -> str:
    """The reference solution a sheet shows: the human-written trajectory's text, else the problem's."""
    return next((t.text for t in problem.trajectories if t.voice == "reference"), "") or problem.solution or ""


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
    """Verdict rows (``proposed: true``, GOOD) of JSON lines ``{"id", "propose": [entries]}``, an
    entry a text or ``{"text", "forms": [texts]}`` (the result, and the ways the solutions on the
    sheet write it, as a forms sheet takes them); :class:`SignoffError` names the line of an
    unknown id or a malformed entry.

    >>> proposals_from_lines(['{"id": "t/1", "propose": ["$x = 7$"]}'], {"t/1"}, "r")
    [{'id': 't/1', 'text': 'x = 7', 'label': 'GOOD', 'reviewer': 'r', 'proposed': True}]
    >>> proposals_from_lines(['{"id": "t/1", "propose": [{"text": "s = 7", "forms": ["$28 / 4 = 7$"]}]}'], {"t/1"}, "r")[0]["forms"]
    ['28 / 4 = 7']
    """
    out = []
    for number, row in _json_lines(lines, where):
        entries = row.get("propose") if isinstance(row, dict) else None
        if not isinstance(row, dict) or row.get("id") not in ids:
            raise SignoffError(f"{where}:{number}: no sheet problem {row.get('id') if isinstance(row, dict) else row!r}")
        if not isinstance(entries, list) or not all(isinstance(e, (str, dict)) for e in entries):
            raise SignoffError(f"{where}:{number}: 'propose' must be a list of texts")
        seen: set[str] = set()
        for entry in entries:
            written = entry if isinstance(entry, str) else entry.get("text")
            forms = [] if isinstance(entry, str) else entry.get("forms", [])
            if not isinstance(written, str) or not isinstance(forms, list) or not all(
                    isinstance(f, str) and len(f) <= MAX_FORM for f in forms):
                raise SignoffError(f"{where}:{number}: a proposal is a text or {{\"text\", \"forms\": [texts of at "
                                   f"most {MAX_FORM} characters]}}")
            text = text_key(written.strip().strip("$"))
            if not text or text in seen:
                continue
            seen.add(text)
            verdict = {"id": row["id"], "text": text, "label": GOOD, "reviewer": reviewer, "proposed": True}
            forms = [key for key in dict.fromkeys(text_key(f.strip().strip("$")) for f in forms) if key and key != text]
            if forms:
                verdict["forms"] = forms
            out.append(verdict)
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
                 revise: dict[str, Verdicts] | None = None, unread: dict[str, Verdicts] | None = None,
                 shipped: dict[str, list[str]] | None = None, ids: set[str] | None = None) -> dict:
    """Sheets ``sheet1.md..`` of every problem with signable candidates (not those ``skip`` covers;
    with ``ids``, only those problems) and ``candidates.json`` (problem id -> candidate texts in
    sheet order) in ``out_dir``; with
    ``revise``, revision sheets of the problems those verdicts cover, each candidate with its label
    (``revise.json`` marks the folder: its answers change only the labels they name); with
    ``unread``, sheets of the candidates of the problems those verdicts cover that they do not label
    (the ones past an earlier sheet's limit, or new), after what is signed (merged like a revision:
    the problem's other verdicts stay); with ``shipped`` (record id -> its node texts) as well as
    ``revise``, revision sheets of those nodes only, every one shown and without its label (a
    second signature on what ships; ``second.json`` marks the folder: a GOOD answer there is a
    second signature, kept as ``second`` on the verdict)."""
    from tqdm import tqdm

    from node_builder.build import import_problems
    from node_builder.evidence import gather
    from node_builder.filter import filter_problem

    if revise is not None and unread is not None:
        raise ValueError("a sheet is a revision or an unread sheet, not both")
    if shipped is not None and revise is None:
        raise ValueError("sheets of the shipped nodes are revision sheets: give revise too")
    covered = revise if revise is not None else unread  # the problems on the sheets, where given
    problems = import_problems(sources, benchmark, None).problems
    blocks, candidates = [], {}
    for problem in tqdm(problems, desc=f"{benchmark} sheets", unit="problem", disable=quiet):
        if (skip and problem.id in skip) or (covered is not None and problem.id not in covered):
            continue
        if ids is not None and problem.id not in ids:
            continue
        only = {text_key(text) for text in shipped.get(problem.id, ())} if shipped is not None else None
        if only is not None and not only:
            continue
        filter_problem(problem)
        mine = covered.get(problem.id) if covered is not None else None
        block, texts = sheet_of(gather(problem, None, proposed_nodes(mine, problem)), ConsensusRule(),
                                limit=SHEET_LIMIT if only is None else len(only),
                                verdicts=mine if revise is not None and only is None else None,  # a second
                                unread=mine if unread is not None else None, only=only)  # signature reads unbiased
        if texts:
            blocks.append(block)
            candidates[problem.id] = texts
    sheets = _write_parts(blocks, out_dir, "sheet", parts)
    (out_dir / "candidates.json").write_text(json.dumps(candidates, ensure_ascii=False), encoding="utf-8")
    if revise is not None or unread is not None:
        (out_dir / "revise.json").write_text("true", encoding="utf-8")
    if shipped is not None:
        (out_dir / "second.json").write_text("true", encoding="utf-8")
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


#: Lines of each voice's solution a forms sheet shows per proposal, and the voices shown.
FORMS_LINES, FORMS_VOICES = 2, 8
_PIECE = re.compile(r"\n+|(?<=[.!?])\s+(?=[A-Z$\\])")
_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d])")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_PLAIN_COMMANDS = {"\\frac", "\\dfrac", "\\cdot", "\\times", "\\left", "\\right", "\\circ", "\\quad", "\\text"}


def related_lines(text: str, result: str, limit: int = FORMS_LINES, width: int = 240) -> list[tuple[float, str]]:
    """``(score, line)`` of the ``limit`` lines (or sentences) of ``text`` that share most of
    ``result``'s numbers (3 each; 0, 1 and 2 only where it has no other) and commands (1 each:
    ``\\angle``, ``\\sin``), best first, each cut to ``width`` characters around its first
    shared number; lines sharing less than a third of the result's weight are left out.

    >>> related_lines("We have 2^8 = 256.\\nSo 2^8 - 1 = 255. Done.", "2^8 = 256")
    [(6.0, 'We have 2^8 = 256.'), (3.0, 'So 2^8 - 1 = 255.')]
    """
    numbers = set(_NUMBER.findall(result))
    numbers = (numbers - {"0", "1", "2"}) or numbers
    commands = set(_COMMAND.findall(result)) - _PLAIN_COMMANDS
    total = 3 * len(numbers) + len(commands)
    if not total:
        return []
    scored = []
    for piece in _PIECE.split(text):
        found = {m.group() for m in _NUMBER.finditer(piece)} & numbers
        score = 3.0 * len(found) + sum(c in piece for c in commands)
        if score * 3 >= total and score > 0:
            first = min((m.start() for m in _NUMBER.finditer(piece) if m.group() in found), default=0)
            start = max(0, min(first - width // 3, len(piece) - width))
            scored.append((score, " ".join(piece[start:start + width].split())))
    scored.sort(key=lambda row: -row[0])  # stable: ties in text order
    return scored[:limit]


def forms_block(evidence: Evidence, texts: list[str], supports: list[int]) -> str:
    """The forms sheet block of one problem: each proposal ``P1..`` with how many voices the
    matcher finds it in, and per voice (at most :data:`FORMS_VOICES`, the closest first) the lines
    of its solution closest to it, for the reviewer to copy the result as those voices write it."""
    problem, n = evidence.problem, len(evidence.voices)
    lines = [f"### {problem.id}", f"PROBLEM: {' '.join(problem.problem.split())}", f"ANSWER: {problem.answer}"]
    for i, (text, k) in enumerate(zip(texts, supports), 1):
        lines.append(f"P{i}. {text}    [the matcher finds it in {k} of {n} voices]")
        best: dict[str, list[tuple[float, str]]] = {}
        for trajectory in evidence.trajectories:
            found = related_lines(trajectory.text, text)
            if found and sum(s for s, _ in found) > sum(s for s, _ in best.get(trajectory.voice, [])):
                best[trajectory.voice] = found
        ranked = sorted(best.items(), key=lambda item: -item[1][0][0])[:FORMS_VOICES]
        lines += [f"  {voice}: " + " | ".join(line for _, line in found) for voice, found in ranked]
        if not ranked:
            lines.append("  (no solution writes its numbers)")
    return "\n".join(lines) + "\n"


def _signed_evidence(problems: list, verdicts: dict[str, Verdicts], desc: str, quiet: bool,
                     proposing: bool = False):
    """``(problem, its verdicts, its evidence with the reviewer's proposals)`` of every problem
    ``verdicts`` cover (with ``proposing``, that has proposals), filtered, with a progress bar."""
    from tqdm import tqdm

    from node_builder.evidence import gather
    from node_builder.filter import filter_problem

    for problem in tqdm(problems, desc=desc, unit="problem", disable=quiet):
        mine = verdicts.get(problem.id)
        if mine is None or (proposing and not mine.proposed):
            continue
        filter_problem(problem)
        yield problem, mine, gather(problem, None, proposed_nodes(mine, problem))


def write_forms_sheets(benchmark: str, sources: list[str], out_dir: Path, verdicts: dict[str, Verdicts],
                       parts: int = 1, quiet: bool = True) -> dict:
    """Forms sheets ``forms1.md..`` of the proposals of ``verdicts`` that no rule drops but too
    few voices state as written (fewer than two, or under the rule's share), in problems with two
    voices or more (:func:`forms_block`); and ``forms.json`` (problem id -> those proposals' texts
    in sheet order). The reviewer answers JSON lines ``{"id", "forms": {"P1": [texts]}}``: the
    same result as the voices write it (:func:`forms_from_lines`)."""
    from node_builder.build import import_problems

    rule = ConsensusRule()
    problems = import_problems(sources, benchmark, None).problems
    blocks, listed = [], {}
    for problem, _, evidence in _signed_evidence(problems, verdicts, f"{benchmark} forms sheets", quiet,
                                                 proposing=True):
        n = len(evidence.voices)
        if n < 2:
            continue
        texts, supports = [], []
        for candidate in evidence.candidates:
            if candidate.cluster is not None:
                continue
            k = len({evidence.trajectories[t].voice for t in candidate.hits})
            if k < 2 or k / n < rule.fallback_share - 1e-9:
                texts.append(text_key(candidate.node.text))
                supports.append(k)
        if texts:
            blocks.append(forms_block(evidence, texts, supports))
            listed[problem.id] = texts
    sheets = _write_parts(blocks, out_dir, "forms", parts)
    (out_dir / "forms.json").write_text(json.dumps(listed, ensure_ascii=False), encoding="utf-8")
    return {"problems": len(problems), "on_sheets": len(listed), "proposals": sum(map(len, listed.values())),
            "sheets": sheets}


#: the fewest independent audits of a shipped node that may reopen a settled GOOD (:func:`reopens`)
REOPEN_AUDITS = 5


def reopens(votes: list[str]) -> bool:
    """Whether independent audits of a shipped node overturn its settled GOOD so clearly that
    one more reader hears it: at least :data:`REOPEN_AUDITS` of them, four in five or more a
    defect. A third reader's word is final against one dispute, not against every auditor.

    >>> reopens(["RESTATE"] * 7 + ["GOOD"]), reopens(["RESTATE"] * 4), reopens(["ROUTE"] * 16 + ["GOOD"] * 13)
    (True, False, False)
    """
    return len(votes) >= REOPEN_AUDITS and 5 * sum(label != GOOD for label in votes) >= 4 * len(votes)


#: the fewest independent audits of a shipped node that send a reopened GOOD to a panel (:func:`panel_hears`)
PANEL_AUDITS = 2 * REOPEN_AUDITS
#: the readers of a panel: their majority is final
PANEL_READERS = 3


def panel_hears(votes: list[str]) -> bool:
    """Whether a GOOD that one reader already kept when the audits reopened it goes to a panel
    of :data:`PANEL_READERS` fresh readers: the audits go on overturning it, at least
    :data:`PANEL_AUDITS` of them, four in five or more a defect. One reader's word, twice, is
    not final against every auditor either; a panel's majority is.

    >>> panel_hears(["RESTATE"] * 17), panel_hears(["RESTATE"] * 8), panel_hears(["RESTATE"] * 8 + ["GOOD"] * 3)
    (True, False, False)
    """
    return len(votes) >= PANEL_AUDITS and reopens(votes)


def majority_label(labels: list[str]) -> str:
    """The verdict of several readers (a panel) from their ``labels``: GOOD when most sign it,
    else the defect most of them name (the first named among equals).

    >>> majority_label(["GOOD", "RESTATE", "GOOD"]), majority_label(["GOOD", "ROUTE", "RESTATE"]), majority_label(["ROUTE"] * 3)
    ('GOOD', 'ROUTE', 'ROUTE')
    """
    if 2 * labels.count(GOOD) > len(labels):
        return GOOD
    defects = [label for label in labels if label != GOOD]
    return max(dict.fromkeys(defects), key=defects.count)


def disputed(evidence: Evidence, rule: ConsensusRule, labels: dict[str, str],
             audited: dict[str, list[str]] | None = None, settled: frozenset = frozenset(),
             reopened: frozenset = frozenset(), contested: frozenset = frozenset(),
             panel: frozenset = frozenset()) -> list[tuple]:
    r"""``(candidate, k, n, writings)`` of the signable candidates (:func:`node_builder.consensus.signable`)
    two verdicts disagree on, for a third reviewer:

    - its labelled writings (its text, forms and cluster surfaces that ``labels`` holds, as text
      keys) carry GOOD and a defect other than a duplicate (FRAGMENT): the build reads the
      defect (:func:`signed_label`) where a reviewer may have meant the step -- a writing
      ``contested`` (a later reviewer proposed it as a key result) carries both; or
    - it is signed GOOD (or ships as the computation of a value signed GOOD, labelled a
      duplicate) and the audits of the shipped node (``audited``: text key -> the labels
      independent auditors gave it, :func:`audit_labels`) call it something else more often
      than GOOD: the signature and the audits at least tie.

    A writing in ``settled`` (a third reviewer's already) is no dispute, and a candidate with a
    writing settled as a defect is decided: the build reads that defect whatever another writing
    says. A settled GOOD the audits overturn (:func:`reopens`) is heard once more, unless it was
    ``reopened`` before; a reopened GOOD they go on overturning (:func:`panel_hears`) goes to a
    panel (its answers need :data:`PANEL_READERS` readers), unless a ``panel`` decided it
    already. A writing belongs to the first such candidate.

    >>> from node_builder.schema import Problem, Trajectory
    >>> from node_builder.evidence import gather
    >>> texts = ["Morning: 5 x 5 = 25 liters; afternoon 30; 55.", "He gets 5 x 5 = 25, then 6 x 5 = 30: 55.",
    ...          "5 x 5 = 25 and 6 x 5 = 30 liters, so 25 + 30 = 55."]
    >>> p = Problem("t/1", "t", "Baldur gets 5 pails of water every morning and 6 every afternoon, 5 liters each. "
    ...             "How many liters a day?", "55",
    ...             trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in zip("ABC", texts)])
    >>> labels = {"5 x 5 = 25": "ROUTE", "5 \\times 5 = 25": "GOOD"}  # a first sheet's, then a proposal
    >>> evidence = gather(p, None, proposed_nodes(Verdicts(labels, ("5 \\times 5 = 25",)), p))
    >>> [(c.node.text, w) for c, _, _, w in disputed(evidence, ConsensusRule(), labels)]
    [('5 x 5 = 25', ('5 x 5 = 25', '5 \\times 5 = 25'))]
    >>> signed = {"5 x 5 = 25": "GOOD"}
    >>> [c.node.text for c, *_ in disputed(evidence, ConsensusRule(), signed, {"5 x 5 = 25": ["ROUTE"]})]
    ['5 x 5 = 25']
    >>> disputed(evidence, ConsensusRule(), signed, {"5 x 5 = 25": ["ROUTE", "GOOD"]})  # two GOOD to one
    []
    """
    out, claimed = [], set()
    audited = audited or {}
    for candidate, k, n in signable(evidence, rule):
        labelled = [key for key in _labelled_writings(candidate, labels) if key not in claimed]
        writings = tuple(key for key in labelled if key not in settled)
        read = {labels[key] for key in writings} | ({GOOD} if contested.intersection(writings) else set())
        signed = signed_label(candidate, labels)
        votes = [label for key in writings for label in audited.get(key, ())]  # audits: only what shipped
        decided = any(labels[key] not in (GOOD, FRAGMENT) for key in labelled if key in settled)
        disagree = GOOD in read and not decided and bool(read - {GOOD, FRAGMENT} or signed != GOOD)
        outvoted = signed in (GOOD, FRAGMENT) and 2 * sum(label != GOOD for label in votes) > len(votes)
        if not (disagree or outvoted):
            writings = tuple(key for key in labelled if key in settled and key not in panel and labels[key] == GOOD
                             and (panel_hears if key in reopened else reopens)(audited.get(key, [])))
        if writings:
            claimed.update(writings)
            out.append((candidate, k, n, writings))
    return out


def audit_labels(path: Path, benchmark: str | None = None,
                 shipped: dict[str, set[str]] | None = None) -> dict[str, dict[str, list[str]]]:
    """Record id -> shipped node text key -> the labels of an audit verdict file
    (``benchmarks/node_audit/precision.jsonl``: JSON lines with ``record``, ``node`` and
    ``label``, the rubric's :data:`LABELS`), only ``benchmark``'s rows when given and only the
    nodes ``shipped`` holds (record id -> node text keys) when given: an audit of an earlier
    release may have read a node that ships no more. :class:`SignoffError` names the
    ``file:line`` of a malformed row.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
    ...     _ = f.write('{"benchmark": "b", "record": "b/1", "node": "x  = 7", "label": "ROUTE"}\\n')
    >>> audit_labels(Path(f.name)), os.unlink(f.name)
    ({'b/1': {'x = 7': ['ROUTE']}}, None)
    """
    out: dict[str, dict[str, list[str]]] = {}
    for number, row in _json_lines(Path(path).read_text(encoding="utf-8").splitlines(), str(path)):
        if not isinstance(row, dict) or not all(isinstance(row.get(f), str) for f in ("record", "node", "label")):
            raise SignoffError(f"{path}:{number}: an audit verdict needs string fields record, node and label")
        if row["label"] not in LABELS:
            raise SignoffError(f"{path}:{number}: label {row['label']!r} is none of {', '.join(LABELS)}")
        if (benchmark is None or row.get("benchmark", benchmark) == benchmark) and (
                shipped is None or text_key(row["node"]) in shipped.get(row["record"], ())):
            out.setdefault(row["record"], {}).setdefault(text_key(row["node"]), []).append(row["label"])
    return out


def unconfirmed(shipped: dict[str, list[str]], audits: dict[str, dict[str, list[str]]],
                verdicts: dict[str, Verdicts] | None = None) -> dict[str, list[str]]:
    """Record id -> the node texts of ``shipped`` (record id -> its node texts) that carry one
    signature only: no second reviewer signed them GOOD (``Verdicts.second`` of ``verdicts``),
    and the ``audits`` (:func:`audit_labels`) have not confirmed them (no audit read the node, or
    one labelled it something other than GOOD). These go on a second-signature sheet
    (``--revise --shipped --audit``), where a label other than GOOD replaces the first signature.

    >>> unconfirmed({"b/1": ["x = 7", "y  = 2", "z = 1"]}, {"b/1": {"x = 7": ["GOOD"], "y = 2": ["GOOD", "ROUTE"]}})
    {'b/1': ['y  = 2', 'z = 1']}
    >>> unconfirmed({"b/1": ["x = 7", "z = 1"]}, {}, {"b/1": Verdicts({"z = 1": "GOOD"}, second=frozenset({"z = 1"}))})
    {'b/1': ['x = 7']}
    """
    out = {}
    for record, texts in shipped.items():
        labels = audits.get(record, {})
        second = verdicts[record].second if verdicts and record in verdicts else frozenset()
        out[record] = [t for t in texts if text_key(t) not in second
                       and (not labels.get(text_key(t)) or set(labels[text_key(t)]) != {GOOD})]
    return out


def dispute_block(evidence: Evidence, rows: list[tuple], labels: dict[str, str], reference_chars: int = 900,
                  title: str = "DISPUTED") -> str:
    """The dispute sheet block of one problem: its header, what is signed GOOD outside the
    disputes, and each disputed candidate (``rows`` of :func:`disputed`) with ``[k/n]`` voices, its
    other labelled writings and a line of one solution around it -- no label (the third reviewer
    reads unbiased). An appeal sheet's block is the same under ``title`` APPEALED."""
    lines = _header(evidence.problem, _reference(evidence.problem), reference_chars)
    disputed_keys = {key for *_, writings in rows for key in writings}
    lines.append(_signed_line(Verdicts({key: label for key, label in labels.items() if key not in disputed_keys})))
    lines.append(f"{title} (voices stating it / voices):")
    for i, (candidate, k, n, writings) in enumerate(rows, 1):
        first = min(candidate.hits, key=lambda t: candidate.hits[t])
        also = [w for w in writings if w != text_key(candidate.node.text)]
        shown = f"  (also written: {' ;; '.join(also)})" if also else ""
        lines.append(f"  {i}. [{k}/{n}] {candidate.node.text}{shown}    | "
                     f"...{_context(evidence.trajectories[first].text, candidate.hits[first])}...")
    return "\n".join(lines) + "\n"


def write_dispute_sheets(benchmark: str, sources: list[str], out_dir: Path, verdicts: dict[str, Verdicts],
                         parts: int = 1, quiet: bool = True,
                         audits: dict[str, dict[str, list[str]]] | None = None) -> dict:
    """Dispute sheets ``disputes1.md..`` of every problem with :func:`disputed` candidates under
    ``verdicts`` and, where given, the ``audits`` of the shipped nodes (:func:`audit_labels`)
    (:func:`dispute_block`), and ``disputes.json`` (problem id -> each disputed
    candidate's labelled writings, in sheet order). The reviewer answers one line per problem,
    ``ID: 1G 2R`` (:data:`CODES`), and :func:`dispute_rows` turns it into verdicts."""
    from node_builder.build import import_problems

    problems = import_problems(sources, benchmark, None).problems
    blocks, listed = [], {}
    for problem, mine, evidence in _signed_evidence(problems, verdicts, f"{benchmark} dispute sheets", quiet):
        rows = disputed(evidence, ConsensusRule(), mine.labels, (audits or {}).get(problem.id), mine.settled,
                        mine.reopened, mine.contested, mine.panel)
        if rows:
            blocks.append(dispute_block(evidence, rows, mine.labels))
            listed[problem.id] = [list(writings) for *_, writings in rows]
    sheets = _write_parts(blocks, out_dir, "disputes", parts)
    (out_dir / "disputes.json").write_text(json.dumps(listed, ensure_ascii=False), encoding="utf-8")
    return {"problems": len(problems), "on_sheets": len(listed), "disputed": sum(map(len, listed.values())),
            "sheets": sheets}


#: the labels an appeal hears by default: ROUTE (a step most voices take is evidence against it)
APPEAL_GROUNDS = (ROUTE,)
#: node kinds a defect label other than ROUTE is heard on: a relation is a statement whole in
#: itself, while a bare value or expression labelled a fragment is a reading of the rubric
APPEAL_KINDS = ("equation", "proposition")


def appealed(evidence: Evidence, rule: ConsensusRule, labels: dict[str, str],
             settled: frozenset = frozenset(), grounds: tuple[str, ...] = APPEAL_GROUNDS) -> list[tuple]:
    r"""``(candidate, k, n, writings)`` of the signable candidates labelled ROUTE (as the build
    reads them, :func:`signed_label`) that the consensus rule agrees on (``rule.agrees``: two
    voices and ``rule.min_share`` of them state it), for two fresh reviewers: the rubric's ROUTE
    is one route's step, and most voices taking it is evidence against that reading. With other
    ``grounds`` (labels other than GOOD) a relation (:data:`APPEAL_KINDS`) labelled one of them
    is heard too. A candidate with a writing in ``settled`` (heard already) is none; a writing
    belongs to the first.

    >>> from node_builder.schema import Problem, Trajectory
    >>> from node_builder.evidence import gather
    >>> voices = [Trajectory(f"So 5 x 5 = 25 liters, and 55 in all ({v}).", f"model:{v}", True, voice=v) for v in "ABC"]
    >>> evidence = gather(Problem("t/1", "t", "5 pails of 5 liters and 30 liters more: how many liters?", "55",
    ...                           trajectories=voices))
    >>> [(c.node.text, k, n) for c, k, n, _ in appealed(evidence, ConsensusRule(), {"5 x 5 = 25": "ROUTE"})]
    [('5 x 5 = 25', 3, 3)]
    >>> appealed(evidence, ConsensusRule(), {"5 x 5 = 25": "FRAGMENT"})  # a shape defect: no appeal
    []
    >>> appealed(evidence, ConsensusRule(), {"5 x 5 = 25": "ROUTE"}, frozenset({"5 x 5 = 25"}))
    []
    >>> [c.node.text for c, *_ in appealed(evidence, ConsensusRule(), {"5 x 5 = 25": "FRAGMENT"},
    ...                                    grounds=("ROUTE", "FRAGMENT"))]  # a second hearing asked for
    ['5 x 5 = 25']
    """
    out, claimed = [], set()
    for candidate, k, n in signable(evidence, rule):
        label = signed_label(candidate, labels)
        if not rule.agrees(k, n) or label not in grounds or \
                (label != ROUTE and candidate.node.kind not in APPEAL_KINDS):
            continue
        writings = tuple(key for key in _labelled_writings(candidate, labels) if key not in claimed)
        if writings and not any(key in settled for key in writings):
            claimed.update(writings)
            out.append((candidate, k, n, writings))
    return out


def write_appeal_sheets(benchmark: str, sources: list[str], out_dir: Path, verdicts: dict[str, Verdicts],
                        shipped: dict[str, list[str]], parts: int = 1, quiet: bool = True,
                        grounds: tuple[str, ...] = APPEAL_GROUNDS, every_record: bool = False) -> dict:
    """Appeal sheets ``appeal1.md..`` of the problems that ``shipped`` (record id -> its node
    texts) gives no node (with ``every_record``: all its records, a key result a record's nodes
    miss is heard too) and that have :func:`appealed` candidates under ``verdicts``
    (:func:`dispute_block`, titled APPEALED: no label shown), and ``appeal.json`` (problem id ->
    each appealed candidate's labelled writings, in sheet order). Two reviewers answer the same
    sheets, one line per problem (``ID: 1G 2R``); :func:`appeal_rows` combines their answers."""
    from node_builder.build import import_problems

    problems = [p for p in import_problems(sources, benchmark, None).problems
                if p.id in shipped and (every_record or not shipped[p.id])]
    blocks, listed = [], {}
    for problem, mine, evidence in _signed_evidence(problems, verdicts, f"{benchmark} appeal sheets", quiet):
        rows = appealed(evidence, ConsensusRule(), mine.labels, mine.settled, grounds)
        if rows:
            blocks.append(dispute_block(evidence, rows, mine.labels, title="APPEALED"))
            listed[problem.id] = [list(writings) for *_, writings in rows]
    sheets = _write_parts(blocks, out_dir, "appeal", parts)
    (out_dir / "appeal.json").write_text(json.dumps(listed, ensure_ascii=False), encoding="utf-8")
    return {"problems": len(problems), "on_sheets": len(listed), "appealed": sum(map(len, listed.values())),
            "sheets": sheets}


def appeal_rows(first: list[str], second: list[str], listed: dict[str, list[list[str]]], reviewer: str,
                second_reviewer: str) -> tuple[list[dict], set]:
    """``(new verdict rows, (problem id, writing) pairs heard)`` of two reviewers' answers to the
    same appeal sheets: a candidate both label GOOD gets GOOD on every writing, signed by
    ``reviewer`` with ``second: second_reviewer``, and ``settled``; any other pair of answers
    leaves its verdicts as they are (the caller marks them settled). A candidate only one of
    them answered is not heard. :class:`SignoffError` as for :func:`verdicts_from_lines`.

    >>> listed = {"t/1": [["5 x 5 = 25"], ["6 x 5 = 30"]]}
    >>> rows, heard = appeal_rows(["t/1: 1G 2G"], ["t/1: 1G 2R"], listed, "r1", "r2")
    >>> [(r["text"], r["label"], r["second"]) for r in rows], sorted(heard)
    ([('5 x 5 = 25', 'GOOD', 'r2')], [('t/1', '5 x 5 = 25'), ('t/1', '6 x 5 = 30')])
    """
    answers = [{(row["id"], tuple(group)): row["label"] for row, group in _answered_groups(lines, listed, name)}
               for lines, name in ((first, reviewer), (second, second_reviewer))]
    rows, heard = [], set()
    for (pid, group), label in answers[0].items():
        if (pid, group) not in answers[1]:
            continue
        heard.update((pid, writing) for writing in group)
        if label == GOOD and answers[1][(pid, group)] == GOOD:
            rows += [{"id": pid, "text": writing, "label": GOOD, "reviewer": reviewer, "second": second_reviewer,
                      "settled": True} for writing in group]
    return rows, heard


def dispute_rows(lines, listed: dict[str, list[list[str]]], reviewer: str,
                 earlier: dict[str, Verdicts] | None = None) -> list[dict]:
    """Verdict rows of a dispute sheet's answer lines (``ID: 1G 2R``): each answered candidate's
    every labelled writing takes the third reviewer's label, except a proposal signed GOOD where
    the answer is GOOD (it keeps its line and forms, and :func:`_import_disputes` marks it
    settled). Every row is ``settled``: no later dispute sheet lists it again.
    :class:`SignoffError` as for :func:`verdicts_from_lines`.

    >>> [(row["text"], row["label"], row["settled"]) for row in dispute_rows(["t/1: 1G"], {"t/1": [["5 x 5 = 25", "5 \\times 5 = 25"]]}, "r3")]
    [('5 x 5 = 25', 'GOOD', True), ('5 \\times 5 = 25', 'GOOD', True)]
    """
    return [out for row, group in _answered_groups(lines, listed, reviewer)
            for out in _group_rows(row, group, earlier.get(row["id"]) if earlier else None)]


def _answered_groups(lines, listed: dict[str, list[list[str]]], reviewer: str):
    """``(verdict row of the candidate's first writing, all its writings)`` of each answered
    candidate of a dispute sheet."""
    firsts = {pid: [writings[0] for writings in groups] for pid, groups in listed.items()}
    for row in verdicts_from_lines(lines, firsts, reviewer):
        yield row, listed[row["id"]][firsts[row["id"]].index(row["text"])]


def _group_rows(row: dict, group: list[str], mine: Verdicts | None) -> list[dict]:
    """The settled verdict rows an answer ``row`` gives a disputed candidate's writings ``group``
    (a proposal signed GOOD and answered GOOD keeps its own line)."""
    return [{**row, "text": writing, "settled": True} for writing in group
            if not (row["label"] == GOOD and mine is not None and writing in mine.proposed)]


def forms_from_lines(lines, listed: dict[str, list[str]], where: str = "forms") -> list[tuple[str, str, list[str]]]:
    """``(problem id, proposal text, forms)`` of JSON lines ``{"id", "forms": {"P1": [texts]}}``
    against a forms sheet's proposals; :class:`SignoffError` names the line of an unknown id or
    proposal number, or a malformed entry.

    >>> forms_from_lines(['{"id": "t/1", "forms": {"P1": ["$2^{8} = 256$", ""]}}'], {"t/1": ["2^8 = 256"]})
    [('t/1', '2^8 = 256', ['2^{8} = 256'])]
    """
    out = []
    for number, row in _json_lines(lines, where):
        if not isinstance(row, dict) or row.get("id") not in listed:
            raise SignoffError(f"{where}:{number}: no sheet problem {row.get('id') if isinstance(row, dict) else row!r}")
        written = row.get("forms")
        if not isinstance(written, dict):
            raise SignoffError(f"{where}:{number}: 'forms' must map P1, P2, ... to lists of texts")
        texts = listed[row["id"]]
        for name, forms in written.items():
            index = name[1:] if isinstance(name, str) and name[:1] in "Pp" else ""
            if not index.isdigit() or not 1 <= int(index) <= len(texts):
                raise SignoffError(f"{where}:{number}: {name!r} is none of {row['id']}'s P1..P{len(texts)}")
            if not isinstance(forms, list) or not all(isinstance(f, str) and len(f) <= MAX_FORM for f in forms):
                raise SignoffError(f"{where}:{number}: {name} must be a list of texts of at most {MAX_FORM} characters")
            kept = [key for key in dict.fromkeys(text_key(f.strip().strip("$")) for f in forms) if key]
            out.append((row["id"], texts[int(index) - 1], kept))
    return out


def import_answers(sheet_dir: Path, answers: list[Path], reviewer: str, out: Path,
                   second: str | None = None) -> dict:
    """Merge the answer files (against ``sheet_dir/candidates.json``) into the verdict file
    ``out``: a problem answered here replaces that problem's earlier verdicts; the others stay.
    A candidate an answer line leaves out gets no verdict (the build drops it as ``unsigned``;
    counted in ``unlabelled``); one labelled twice differently is a :class:`SignoffError`. On a
    second-signature sheet (``second.json``) a GOOD answer is kept as ``second: reviewer`` on the
    verdict; proposals imported with ``second`` (who signed them GOOD too) carry it likewise."""
    sheet_dir = Path(sheet_dir)
    if (sheet_dir / "appeal.json").exists():
        return _import_appeal(sheet_dir, answers, reviewer, out, second)
    if second is not None and not (sheet_dir / "proposals.json").exists():
        raise SignoffError("a second reviewer of written-in results goes with a proposal sheet's answers "
                           "(a second-signature sheet records its own)")
    if (sheet_dir / "proposals.json").exists():
        return _import_proposals(sheet_dir, answers, reviewer, out, second)
    if (sheet_dir / "forms.json").exists():
        return _import_forms(sheet_dir, answers, reviewer, out)
    if (sheet_dir / "disputes.json").exists():
        return _import_disputes(sheet_dir, answers, reviewer, out)
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
    if (sheet_dir / "revise.json").exists():
        return _import_revision(sheet_dir, new, reviewer, out)
    answered = {row["id"] for row in new}
    rows = _merge(out, new, lambda row: row["id"] in answered and not row.get("proposed"))
    return {"problems": len(answered), "verdicts": len(new), "good": sum(r["label"] == GOOD for r in new),
            "unlabelled": unlabelled, "file_verdicts": len(rows)}


def _import_revision(sheet_dir: Path, new: list[dict], reviewer: str, out: Path) -> dict:
    """Revision answers merged into ``out``: a revision names only the labels it changes, so a
    label restated changes nothing (a proposal stays one), but on a second-signature sheet
    (``second.json``) a GOOD is the second signature: kept as ``second: reviewer`` on the
    verdict, restated or not."""
    before = load_signoffs(Path(out)) if Path(out).exists() else {}
    second_sheet = (sheet_dir / "second.json").exists()

    def restated(row) -> bool:
        return row["id"] in before and before[row["id"]].labels.get(text_key(row["text"])) == row["label"]

    confirmed = {_row_key(row) for row in new
                 if second_sheet and row["label"] == GOOD and restated(row)}
    new = [{**row, "second": reviewer} if second_sheet and row["label"] == GOOD else row
           for row in new if not restated(row)]
    changed = {_row_key(row) for row in new}
    rows = _merge(out, new, lambda row: _row_key(row) in changed,
                  annotate=_marking(confirmed, second=reviewer))
    return {"problems": len({row["id"] for row in new}), "revised": len(new),
            "good": sum(row["label"] == GOOD for row in new),
            "second_signatures": len(confirmed) + sum("second" in row for row in new), "file_verdicts": len(rows)}


def _import_proposals(sheet_dir: Path, answers: list[Path], reviewer: str, out: Path,
                      second: str | None = None) -> dict:
    """Proposal files merged into ``out``: proposals add to a problem's earlier ones (a text
    proposed again keeps its first verdict; a reviewer's later revision removes a proposal by
    relabelling it, and one signed again with forms adds a line that brings them); a proposal
    whose text a reviewer already labelled otherwise is left out (``conflicts``), and where that
    label is not settled its verdict is marked ``contested`` by this reviewer: a dispute sheet
    lists it. With ``second`` (a second reviewer who signed these proposals GOOD too) each one
    carries ``second``, an earlier GOOD verdict of the same text included."""
    ids = set(json.loads((sheet_dir / "proposals.json").read_text(encoding="utf-8")))
    existing = load_signoffs(Path(out)) if Path(out).exists() else {}
    new, conflicts, seen, confirmed, contests = [], 0, set(), set(), {}
    for path in answers:
        for row in proposals_from_lines(Path(path).read_text(encoding="utf-8").splitlines(), ids, reviewer, str(path)):
            earlier = existing.get(row["id"])
            label = earlier.labels.get(row["text"]) if earlier else None
            known = set(earlier.forms.get(row["text"], ())) if earlier and row["text"] in earlier.proposed else set()
            if label is not None and label != GOOD:
                conflicts += 1
                if row["text"] not in earlier.settled:
                    contests.setdefault((row["id"], row["text"]), reviewer)
                continue
            if second is not None:
                row["second"] = second
                confirmed.add((row["id"], row["text"]))
            if (label is None or not set(row.get("forms", ())) <= known) and (row["id"], row["text"]) not in seen:
                seen.add((row["id"], row["text"]))
                new.append(row)
    def annotate(row):
        if _row_key(row) in confirmed and row["label"] == GOOD:
            return {"second": second}
        if _row_key(row) in contests and row["label"] != GOOD:
            return {"contested": contests[_row_key(row)]}  # a third reviewer settles it (--disputes)
        return None

    rows = _merge(out, new, lambda row: False, annotate=annotate)
    return {"problems": len({row["id"] for row in new}), "proposed": len(new), "conflicts": conflicts,
            "contested": len(contests), "file_verdicts": len(rows)}


def _import_forms(sheet_dir: Path, answers: list[Path], reviewer: str, out: Path) -> dict:
    """Forms files merged into ``out``: each proposal's verdict line gains the forms written for
    it (after its earlier ones; ``forms_reviewer`` names who wrote them, ``+``-joined when several
    sheets did: a reviewer whose answer adds no new form is not named). A proposal the verdict
    file no longer holds as a GOOD proposal is left out (``missing``)."""
    listed = json.loads((sheet_dir / "forms.json").read_text(encoding="utf-8"))
    written: dict[tuple[str, str], list[str]] = {}
    for path in answers:
        for problem_id, text, forms in forms_from_lines(Path(path).read_text(encoding="utf-8").splitlines(),
                                                        listed, str(path)):
            written.setdefault((problem_id, text), []).extend(forms)
    if Path(out).exists():
        load_signoffs(Path(out))  # refuse to merge into a malformed file
    rows = _verdict_rows(out)
    added, found = 0, set()
    for row in rows:
        key = _row_key(row)
        if key in written and row.get("proposed") and row["label"] == GOOD:
            found.add(key)
            earlier = row.get("forms", [])
            forms = list(dict.fromkeys(earlier + [f for f in written[key] if f != key[1]]))
            added += len(forms) - len(earlier)
            if len(forms) > len(earlier):
                writers = [w for w in str(row.get("forms_reviewer", "")).split("+") if w]
                row["forms"], row["forms_reviewer"] = forms, "+".join(dict.fromkeys(writers + [reviewer]))
    Path(out).write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return {"proposals": len(found), "forms": added, "missing": len(set(written) - found), "file_verdicts": len(rows)}


def _import_appeal(sheet_dir: Path, answers: list[Path], reviewer: str, out: Path, second: str | None) -> dict:
    """Appeal answers merged into ``out``: two answer files, ``reviewer``'s then ``second``'s
    (:func:`appeal_rows`); an overturned candidate's writings are GOOD with two signatures, and
    every heard writing is ``settled`` (no later appeal sheet lists it)."""
    if len(answers) != 2 or not second:
        raise SignoffError("an appeal is heard by two reviewers: give --answers FIRST SECOND and --second-reviewer")
    listed = json.loads((sheet_dir / "appeal.json").read_text(encoding="utf-8"))
    lines = [Path(path).read_text(encoding="utf-8").splitlines() for path in answers]
    new, heard = appeal_rows(lines[0], lines[1], listed, reviewer, second)
    changed = {_row_key(row) for row in new}
    rows = _merge(out, new, lambda row: _row_key(row) in changed,
                  annotate=_marking(heard, settled=True))
    return {"problems": len({pid for pid, _ in heard}), "heard": len(heard), "overturned": len(new),
            "file_verdicts": len(rows)}


def _import_disputes(sheet_dir: Path, answers: list[Path], reviewer: str, out: Path) -> dict:
    """Dispute answers merged into ``out``: every writing of an answered candidate carries the
    third reviewer's label (:func:`dispute_rows`); a proposal relabelled a defect stops being one;
    a settled writing heard again is marked ``reopened``. A candidate several answer files
    answer takes their majority (:func:`majority_label`); one heard by a panel (a reopened writing,
    :func:`panel_hears`) needs :data:`PANEL_READERS` of them and is marked ``panel``
    (:class:`SignoffError` when fewer answer it)."""
    listed = json.loads((sheet_dir / "disputes.json").read_text(encoding="utf-8"))
    earlier = load_signoffs(Path(out)) if Path(out).exists() else {}
    heard: dict[tuple[str, str], list[tuple[dict, list[str]]]] = {}
    for path in answers:
        for row, group in _answered_groups(Path(path).read_text(encoding="utf-8").splitlines(), listed, reviewer):
            heard.setdefault((row["id"], group[0]), []).append((row, group))
    new, answered, panels, heard_by_panel = [], set(), set(), 0
    for (pid, first), rows in heard.items():
        mine = earlier.get(pid)
        row, group = rows[0]
        if mine is not None and any(writing in mine.reopened for writing in group):
            if len(rows) < PANEL_READERS:
                raise SignoffError(f"{pid} {first!r} was reopened once already: a panel of {PANEL_READERS} readers "
                                   f"hears it (give {PANEL_READERS} answer files; {len(rows)} answer it)")
            panels.update((pid, writing) for writing in group)
            heard_by_panel += 1
        if len(rows) > 1:  # several readers: their majority
            row = {**row, "label": majority_label([r["label"] for r, _ in rows])}
        new += _group_rows(row, group, mine)
        answered.update((row["id"], writing) for writing in group)
    changed = {_row_key(row) for row in new}
    seconds, contests = _named_marks(out, "second"), _named_marks(out, "contested")
    for row in new:  # a GOOD confirmed keeps the second signature it had: two readers signed it
        if row["label"] == GOOD and _row_key(row) in seconds:
            row["second"] = seconds[_row_key(row)]
        elif row["label"] == GOOD and _row_key(row) in contests:
            row["second"] = contests[_row_key(row)]  # the reviewer who proposed it signed it GOOD too
        row.update(_hearing_marks(_row_key(row), row["id"] in earlier and row["text"] in earlier[row["id"]].settled,
                                  panels))
    rows = _merge(out, new, lambda row: _row_key(row) in changed,  # a kept row: a proposal answered GOOD
                  annotate=lambda row: _hearing_marks(_row_key(row), bool(row.get("settled")), panels)
                  if _row_key(row) in answered else None)
    return {"problems": len({pid for pid, _ in changed}), "relabelled": len(new),
            "good": sum(row["label"] == GOOD for row in new), "panel_heard": heard_by_panel, "file_verdicts": len(rows)}


def _hearing_marks(key: tuple[str, str], settled_before: bool, panels: set) -> dict:
    """The marks a dispute answer gives a writing's verdict row, relabelled or kept (a proposal
    signed GOOD and answered GOOD keeps its own line, :func:`_group_rows`): ``settled``;
    ``reopened`` where it was settled before (heard again over the audits, :func:`reopens`);
    ``panel`` where a panel heard it (:func:`panel_hears`: final)."""
    return {"settled": True, **({"reopened": True} if settled_before else {}),
            **({"panel": True} if key in panels else {})}


def _named_marks(out: Path, mark: str) -> dict[tuple[str, str], str]:
    """The reviewers a verdict file's rows name under ``mark`` (``second``: who signed a GOOD
    too; ``contested``: who proposed a defect as a key result), by :func:`_row_key`."""
    if not Path(out).exists():
        return {}
    return {_row_key(row): row[mark] for row in _verdict_rows(out) if row.get(mark)}


def _verdict_rows(out: Path) -> list[dict]:
    """A verdict file's rows as written (one JSON object a line)."""
    return [json.loads(line) for line in Path(out).read_text(encoding="utf-8").splitlines() if line.strip()]


def _row_key(row: dict) -> tuple[str, str]:
    """A verdict row's problem id and text key: what a sheet's answers name."""
    return row["id"], text_key(row["text"])


def _marking(keys: set, **fields):
    """An ``annotate`` hook for :func:`_merge`: ``fields`` on the kept rows whose
    :func:`_row_key` is in ``keys``."""
    return lambda row: fields if _row_key(row) in keys else None


def _merge(out: Path, new: list[dict], replaced, annotate=None) -> list[dict]:
    """``out``'s rows but those ``replaced`` says, plus ``new``, by problem id; a kept row gains
    the fields ``annotate`` returns for it (``settled`` for a proposal a third reviewer confirmed,
    ``second`` for a second signature)."""
    kept = []
    if Path(out).exists():
        load_signoffs(Path(out))  # refuse to merge into a malformed file
        kept = [row for row in _verdict_rows(out) if not replaced(row)]
        if annotate is not None:
            kept = [{**row, **(annotate(row) or {})} for row in kept]
    rows = sorted(kept + new, key=lambda row: row["id"])  # stable: sheet order within a problem
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return rows
