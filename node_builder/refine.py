"""Stage 3a: from candidate clusters to one problem's consensus nodes.

Steps, with the defaults of :class:`RefineConfig` and why (:func:`drop_reason` holds 1-6):

1. **final answer** — drop a value equal to the answer, a form equal to it, and every equation
   with the answer as a side (``xy = 25``, ``21 + 49 = 70``): the answer is already ``acc``.
2. **answer pieces** — drop the components of a composite answer (the ``-2`` and ``1`` of
   ``(-2, 1)``, a vector's entries) and the letters the question combines into the answer (the ``m``, ``n`` of
   "find ``m+n``": ``m = 7``, and the values they take).
3. **trivial, fragments** — drop the values ``-1, 0, 1, 2`` and computations of them
   (``2/2 = 1``), renamings (``A = j``), trivial assignments (``k = 2``) and pieces of notation
   (``DE``, ``3t``, ``r^2``).
4. **restates the problem** — drop nodes the matcher finds in the problem statement (given
   relations), values the problem writes anywhere (also inside expressions: the ``242`` of
   ``\\sqrt{242}``, the parts of ``\\frac{57}{160}`` or ``6_8``, any digit string, sign aside)
   or gives in words (``three``, ``a dozen``), and givens restated as assignments (``QR = 200``).
5. **definitions** — drop ``name = expression-without-numbers`` equations introduced by
   *let / define / denote / set / call* (``Let $S = a + b$``) and ``:=`` definitions.
6. **false arithmetic** — drop equations between two different numbers (``1 = 5``: a chain read
   across matrix rows or cases the solution rules out).
7. **re-match** — match every remaining node against every correct trajectory
   (``consensus_metrics.match_nodes``, cheap rules and chain following, no symbolic step):
   ``support`` = share of the problem's *voices* (distinct models; every human source together
   is one voice) with a correct trajectory covering it; ``position`` = mean relative start
   offset where covered. A rule-mined node that does not match all of the trajectories it was
   mined from is dropped (``unmatched``).
8. **consensus** — keep a node with ``support >= min_support`` (0.5) whose rule-of-succession
   estimate that one more voice agrees, ``(k + 1) / (n + 2)`` for ``k`` of ``n`` voices, is at
   least ``min_consensus`` (0.75): all of 2-5 voices, 5 of 6. Measured on held-out models
   (leave-one-model-out on MATH-500) nodes all voices share are found in 92-95% of a new
   model's correct solutions, nodes one voice lacks in about 70%. With a single voice
   (``fallback``) the same rule runs over its solutions: several human solutions of one problem
   (AoPS, maintainers) keep what they share -- on AIME 2024 the nodes shared by the AoPS
   solutions are found in 85% of models' correct solutions, all nodes of the AoPS page in 27% --
   and a lone solution keeps all its nodes; support is 1.0 (one voice).
9. **order** by position (ties by text). Redundancy, the cap and context for common nodes are
   decided across the whole build (:mod:`node_builder.finalize`).

Example:
    >>> RefineConfig().min_consensus, RefineConfig().min_support
    (0.75, 0.5)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction

from node_builder.expand import expand
from node_builder.matcher import ID, canonical_key, covered, number_of, numbers_in, rational, surd_value, tokenize_form
from node_builder.miner import Cluster
from node_builder.number_words import number_words
from node_builder.schema import Node, Problem

DROP_REASONS = ("final_answer", "answer_piece", "trivial", "fragment", "restates_problem", "definition",
                "false_arithmetic", "unmatched", "below_support", "too_common", "redundant", "over_cap")
_DEFINITION_CONTEXT = re.compile(r"\b(let|define|denote|set|call|suppose|assume|write)\b[^.;:\n]*$", re.I)


@dataclass
class RefineConfig:
    min_support: float = 0.5
    min_consensus: float = 0.75
    max_nodes: int = 8
    fallback: bool = True
    trivial_values: tuple[str, ...] = ("-1", "0", "1", "2")


@dataclass
class _Item:
    node: Node
    cluster: Cluster | None
    origin_llm: bool = False
    answer_step: bool = False
    covered: tuple[int, ...] = ()


def _sides(text: str) -> list[str]:
    return [s.strip() for s in text.split("=")] if text.count("=") == 1 else []


def _is_name(side: str) -> bool:
    key = canonical_key(side)
    return bool(key) and "#" not in key


def _is_bare_name(side: str) -> bool:
    """One identifier-like token (``x``, ``QR``, ``a_1``, ``\\theta``): no operator, no number."""
    key = canonical_key(side)
    return bool(key) and "#" not in key and len(key.split()) == 1


@dataclass(frozen=True)
class _Facts:
    """What a problem says, for the drop rules."""

    answer_number: Fraction | None
    answer_key: str
    answer_parts: frozenset  # numbers of a composite answer's components
    part_letters: frozenset  # letters the question combines into the answer (m, n of m + n)
    given_numbers: frozenset
    given_digits: frozenset  # every digit string of the statement (6_8, \\frac{57}{160}, B6), unsigned
    trivial: frozenset


_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")
_PART_REQUEST = re.compile(r"\$([^$]{3,40})\$[^$]*$")


def part_letters(problem_text: str) -> frozenset:
    r"""Letters the question asks to combine into the answer: ``find $m+n$`` -> ``{m, n}``.

    The last ``$...$`` span of the statement when it is a sum of two or more single letters
    (with integer coefficients): ``$m+n$``, ``$100a+b$``, ``$p+q+r$``.

    >>> sorted(part_letters("... written as $\\frac{m}{n}$ where m, n are coprime. Find $m+n$."))
    ['m', 'n']
    >>> part_letters("Find $x$ if $2x+1 = 7$.")
    frozenset()
    """
    match = _PART_REQUEST.search(problem_text.strip())
    if not match:
        return frozenset()
    body = match.group(1).replace(" ", "")
    if not re.fullmatch(r"\d*[a-zA-Z](?:[+-]\d*[a-zA-Z])+", body):
        return frozenset()
    letters = frozenset(re.findall(r"[a-zA-Z]", body))
    return letters if len(letters) >= 2 else frozenset()


def answer_parts(answer: str) -> frozenset:
    r"""Numbers of a composite answer's components: ``(-2, 1)`` -> ``{-2, 1}``, a vector's entries
    (``\begin{pmatrix} -18 \\ 96 \end{pmatrix}``); ``{}`` otherwise.

    >>> sorted(answer_parts("\\left( -2, \\frac{1}{2} \\right)")), answer_parts("12")
    ([Fraction(-2, 1), Fraction(1, 2)], frozenset())
    >>> sorted(answer_parts("\\begin{pmatrix} -18 \\\\ 96 \\end{pmatrix}"))
    [Fraction(-18, 1), Fraction(96, 1)]
    """
    body = re.sub(r"\\(?:left|right)\b|\\(?:begin|end)\{[pbv]?matrix\}", "", answer).strip()
    body = body.strip("()[]{} ")
    parts = [part.strip() for part in re.split(r",|\\\\|&", body)]
    if len(parts) < 2:
        return frozenset()
    return frozenset(x for x in map(number_of, parts) if x is not None)


_UNITS = re.compile(r"\\(?:mbox|text|textnormal|mathrm)\s*\{[^{}]*\}(?:\s*\^\s*\{?\d\}?)?|\^\s*\{?\\circ\}?|\\?%|\\,")


def answer_number(answer: str) -> Fraction | None:
    r"""The number an answer states, units aside (``864 \mbox{ inches}^2``, ``30^\circ``, ``25\%``).

    >>> answer_number("864 \\mbox{ inches}^2"), answer_number("x \\in [-2,7]")
    (Fraction(864, 1), None)
    """
    number = number_of(answer)
    return number if number is not None else number_of(_UNITS.sub("", answer).strip())


def _facts(problem: Problem, config: "RefineConfig") -> _Facts:
    return _Facts(answer_number(problem.answer), canonical_key(problem.answer), answer_parts(problem.answer),
                  part_letters(problem.problem),
                  frozenset(number_words(problem.problem) | numbers_in(problem.problem)),
                  frozenset(Fraction(d.replace(",", "")) for d in _DIGITS.findall(problem.problem)),
                  frozenset(Fraction(v) for v in config.trivial_values))


def _is_final_answer(item: _Item, answer_number, answer_key) -> bool:
    node = item.node
    if node.kind == "value":
        return answer_number is not None and number_of(node.value) == answer_number
    if canonical_key(node.text) == answer_key:
        return True
    sides = _sides(node.text)
    if node.kind == "equation" and len(sides) == 2:
        for side, other in (sides, sides[::-1]):
            same = (number_of(side) == answer_number) if answer_number is not None else False
            if same or canonical_key(side) == answer_key:
                if _is_name(other):
                    return True
                item.answer_step = True
    return False


def _named_numbers(items: list[_Item]) -> dict[str, set]:
    """``{letter: numbers}`` the candidate equations ``letter = number`` assign."""
    out: dict[str, set] = {}
    for item in items:
        sides = _sides(item.node.text) if item.node.kind == "equation" else []
        for side, other in (sides, sides[::-1]) if sides else ():
            number = number_of(other)
            if number is not None and _is_bare_name(side):
                out.setdefault(canonical_key(side), set()).add(number)
    return out


def _exact(side: str) -> tuple | None:
    """The exact value of a variable-free side (square roots included), else None."""
    return surd_value(*tokenize_form(side))


def _is_fragment(expression: str) -> bool:
    """A name or a coefficient times a name (``DE``, ``3t``, ``r^2``): a piece of notation, no result."""
    keys, kinds = tokenize_form(expression)
    return len(keys) <= 3 and ID in kinds


def drop_reason(item: _Item, facts: _Facts, pieces: set) -> str | None:
    """Why a candidate is not a checkable intermediate result (a key of DROP_REASONS), or None."""
    node = item.node
    if _is_final_answer(item, facts.answer_number, facts.answer_key) or item.answer_step:
        return "final_answer"
    number = number_of(node.value) if node.kind == "value" else None
    sides = _sides(node.text) if node.kind == "equation" else []
    if node.kind == "expression" and _is_fragment(node.text):
        return "fragment"
    if number is not None:
        if number in facts.answer_parts or number in pieces:
            return "answer_piece"
        if number in facts.trivial:
            return "trivial"
        if number in facts.given_numbers or abs(number) in facts.given_digits:
            return "restates_problem"  # also a base-8 digit, a fraction's part: 6_8, \\frac{57}{160}
        return None
    if len(sides) == 2:
        left, right = sides
        for name, other in ((left, right), (right, left)):
            if not _is_bare_name(name):
                continue
            value = number_of(other)
            if canonical_key(name) in facts.part_letters or value in facts.answer_parts:
                return "answer_piece"
            if _is_bare_name(other) or value in facts.trivial:
                return "fragment"  # a renaming (A = j) or a trivial assignment (k = 2)
            if value is not None and value in facts.given_numbers:
                return "restates_problem"  # a given restated (QR = 200)
        lv, rv = _exact(left), _exact(right)
        if lv is not None and rv is not None and lv != rv:
            return "false_arithmetic"  # read across rows or cases (1 = 5)
        if lv is not None and rv is not None and rational(lv) in facts.trivial:
            return "trivial"  # a computation of a trivial number (2/2 = 1, 4 - 2 = 2)
    if _is_definition(item):
        return "definition"
    return None


def is_arithmetic_for(text: str, values: set) -> bool:
    """``16-3-4=9`` or ``x = 9`` with ``9`` in ``values``: a kept value on one side and pure
    arithmetic or a bare name on the other (``2x = 18`` mixes both and is not redundant)."""
    sides = _sides(text)
    if len(sides) != 2:
        return False
    for side, other in (sides, sides[::-1]):
        number = number_of(side)
        if number is not None and number in values:
            other_key = canonical_key(other)
            if ("#" in other_key) != _has_identifier(other):  # pure arithmetic or a bare name
                return True
    return False


def _has_identifier(side: str) -> bool:
    return any(tok and (tok[0].isalpha() or tok[0] in "\\αβγδεθλμπσφωΓΔΘΛΠΣΦΩ")
               for tok in canonical_key(side).split())


def _is_definition(item: _Item) -> bool:
    node = item.node
    if node.kind != "equation" or item.cluster is None:
        return False
    if ":=" in node.text or "\\coloneqq" in node.text:
        return True
    sides = _sides(node.text)
    if len(sides) != 2 or not all(_is_name(s) for s in sides):
        return False
    return all(_DEFINITION_CONTEXT.search(ctx or "") for ctx in item.cluster.contexts)


def _as_match_nodes(items: list[_Item]) -> list[dict]:
    return [{"id": f"c{i}", "text": it.node.text, "kind": it.node.kind, "forms": it.node.forms,
             "value": it.node.value} for i, it in enumerate(items)]


def _covered(text: str, items: list[_Item]) -> dict[int, int]:
    """Candidate index -> start offset of its earliest match in ``text``."""
    return {int(node_id[1:]): start for node_id, start in covered(text, _as_match_nodes(items)).items()}


def refine(problem: Problem, clusters: list[Cluster], trajectories: list, config: RefineConfig,
           llm_nodes: list[Node] | None = None) -> tuple[list[Node], dict[str, int], float]:
    """Return ``(nodes, drop counts, support threshold used)`` for one problem."""
    stats = {reason: 0 for reason in DROP_REASONS}
    items = [_Item(Node(id="", text=c.text, kind=c.kind, value=c.value,
                        forms=tuple(expand(c.text, c.kind, c.value))), c) for c in clusters]
    for node in llm_nodes or []:
        items.append(_Item(node, None, origin_llm=True))
    stats["candidates"] = len(items)
    facts = _facts(problem, config)
    named = _named_numbers(items)
    pieces = {x for letter in facts.part_letters for x in named.get(letter, ())}
    kept = []
    for item in items:
        reason = drop_reason(item, facts, pieces)
        if reason:
            stats[reason] += 1
        else:
            kept.append(item)
    in_problem = _covered(problem.problem, kept)
    stats["restates_problem"] += len(in_problem)
    kept = [it for i, it in enumerate(kept) if i not in in_problem]

    # re-match against every correct trajectory; support counts voices, not trajectories
    voices = {t.voice for t in trajectories}
    hits: list[dict[int, float]] = [{} for _ in kept]
    for t_index, trajectory in enumerate(trajectories):
        length = max(len(trajectory.text), 1)
        for i, start in _covered(trajectory.text, kept).items():
            hits[i][t_index] = min(max(start, 0) / length, 1.0)
    matched = []
    for item, where in zip(kept, hits):
        own = set(item.cluster.trajectories) if item.cluster else set()
        if not where or not own.issubset(where):
            stats["unmatched"] += 1
            continue
        item.covered = tuple(sorted(where))
        item.node = replace(item.node, support=len({trajectories[t].voice for t in where}) / len(voices),
                            position=sum(where.values()) / len(where))
        matched.append(item)

    threshold = config.min_support
    n_voices = len(voices)

    def agreed(it: _Item) -> bool:  # docs/SPEC.md §6 stage 3: support floor, and a new voice likely to agree
        k = round(it.node.support * n_voices)
        return it.node.support >= threshold - 1e-9 and (k + 1) / (n_voices + 2) >= config.min_consensus - 1e-9

    if n_voices > 1:
        passing = [it for it in matched if agreed(it)]
    elif not config.fallback:
        passing = []
    else:  # one voice: what its several solutions share (AoPS, maintainers), else all it has
        n = len(trajectories)
        passing = [it for it in matched if n == 1 or (len(it.covered) + 1) / (n + 2) >= config.min_consensus - 1e-9]
    stats["below_support"] += len(matched) - len(passing)

    final = passing
    final.sort(key=lambda it: (it.node.position, it.node.text))
    return [it.node for it in final], stats, threshold
