"""Stage 3a: what one problem's correct solutions say about each candidate node (voice-free).

:func:`gather` does the expensive, rule-independent part of refining a problem once:

1. mine candidates from the correct trajectories (:mod:`node_builder.miner`, + LLM nodes);
2. drop what the problem alone rules out (:func:`node_builder.refine.drop_reason`: the answer
   and what trivially yields it, givens, fragments, definitions, false arithmetic, ...) and what
   the matcher finds in the problem statement;
3. merge the arithmetic equations that compute one value into one node whose forms are those
   computations (:func:`merge_computations`), then match every remaining candidate against every correct trajectory
   (:func:`node_builder.matcher.covered`): ``hits[t]`` = relative offset of its earliest match in
   trajectory ``t``;
4. note where each trajectory first states the answer (``answer_at``: a node met only after it
   checks the answer rather than leading to it).

:mod:`node_builder.consensus` then decides, for a consensus rule and optionally without one
voice (leave one model out), which candidates are nodes -- cheaply, from this evidence alone.

Example:
    >>> from node_builder.schema import Problem, Trajectory
    >>> p = Problem("t/1", "t", "Ann has 5 apples and buys 7 more, then eats 3. How many?", "9",
    ...             trajectories=[Trajectory("5 + 7 = 12, and 12 - 3 = 9.", "reference", True)])
    >>> ev = gather(p)
    >>> [(c.node.text, sorted(c.hits)) for c in ev.candidates]
    [('5 + 7 = 12', [0]), ('12', [0])]
    >>> ev.stats["final_answer"], ev.answer_at
    (2, [0.9259])
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from node_builder.expand import expand
from node_builder.matcher import NUM, covered, number_of, surd_value, tokenize_form
from node_builder.miner import WORDY, Cluster, mine
from node_builder.refine import DROP_REASONS, RefineConfig, drop_candidates, readable_statement
from node_builder.schema import Node, Problem, Trajectory


@dataclass
class Candidate:
    """A candidate node of one problem and where the correct trajectories state it."""

    node: Node
    cluster: Cluster | None  # None for an LLM-proposed node
    hits: dict[int, float] = field(default_factory=dict)  # trajectory index -> relative offset of its first match

    @property
    def mined_from(self) -> set[int]:
        """The trajectories the rule-based miner read it from (empty for an LLM node)."""
        return set(self.cluster.trajectories) if self.cluster is not None else set()


@dataclass
class Evidence:
    """Everything :mod:`node_builder.consensus` needs about one problem."""

    problem: Problem
    trajectories: list[Trajectory]  # the correct ones, in source order
    candidates: list[Candidate]
    stats: dict[str, int]  # candidates, and drop counts of the problem-level rules
    answer_at: list[float | None]  # per trajectory: relative offset where the answer is first stated

    @property
    def voices(self) -> list[str]:
        return sorted({t.voice for t in self.trajectories})


def _as_match_nodes(candidates: list[Candidate]) -> list[dict]:
    return [{"id": f"c{i}", "text": c.node.text, "kind": c.node.kind, "forms": c.node.forms, "value": c.node.value}
            for i, c in enumerate(candidates)]


def coverage(text: str, candidates: list[Candidate]) -> dict[int, int]:
    """Candidate index -> start offset of its earliest match in ``text``."""
    return {int(node_id[1:]): start for node_id, start in covered(text, _as_match_nodes(candidates)).items()}


def answer_offset(text: str, answer: str, statement: str = "") -> int | None:
    """Where ``text`` first states the gold answer as a number (``None``: it never writes it so,
    e.g. an expression answer, or the problem statement writes that number too, so that a
    solution restating the problem is no sign of having reached the answer)."""
    number = number_of(answer)
    if number is None:
        return None
    probe = [{"id": "a", "text": answer, "kind": "value", "value": str(number)}]
    if statement and covered(statement, probe):
        return None
    return covered(text, probe).get("a")


#: Most computations one merged node carries as its forms.
MAX_COMPUTATION_FORMS = 8


def computed_value(node: Node) -> tuple | None:
    """The exact result of an arithmetic equation ``E = v`` (``v`` a number, ``E`` variable-free
    with an operator, of the same exact value): the value it computes, else None.

    >>> computed_value(Node("", "16 / 2 = 8", "equation")), computed_value(Node("", "x = 8", "equation"))
    (((1, Fraction(8, 1)),), None)
    """
    if node.kind != "equation" or node.text.count("=") != 1:
        return None
    left, right = node.text.split("=")
    for side, other in ((left, right), (right, left)):
        if number_of(side) is not None and number_of(other) is None:
            value = surd_value(*tokenize_form(other))
            if value is not None and value == surd_value(*tokenize_form(side)):
                return value
    return None


def _operands(candidate: Candidate) -> frozenset:
    """The numbers a computation starts from, ``0``, ``1`` and ``2`` aside."""
    left, right = candidate.node.text.split("=")
    side = right if number_of(left) is not None else left  # the computing side, not the result
    keys, kinds = tokenize_form(side)
    return frozenset(k for k, kind in zip(keys, kinds) if kind == NUM and k not in ("#0", "#1", "#2"))


def _step_key(candidate: Candidate, value, groups: dict) -> tuple:
    """The group of a computation: the same result from a shared starting number (``5 * 0.6 = 3``
    and ``60/100*5 = 3``); ``16 / 2 = 8`` and ``5 + 3 = 8`` are two steps."""
    mine = _operands(candidate)
    for key, members in groups.items():
        if key[0] == value and any(mine & _operands(m) for m in members):
            return key
    return (value, len(groups))


def merge_computations(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per computed step: arithmetic equations with the same result from a shared
    starting number (``16 / 2 = 8``, ``16 \\times 0.5 = 8``, ``\\frac{16}{2} = 8``) become one node whose forms are those
    computations (the most often mined first, at most :data:`MAX_COMPUTATION_FORMS`), so that the
    voices that compute one step in different words agree on it, followed by every form of a
    member that was not mined (a reviewer's proposal: the writings copied from the voices'
    solutions, SPEC §6 step 4). In first-seen order.

    >>> texts = ("16 / 2 = 8", "x = 3", "16 * 0.5 = 8", "5 + 3 = 8")
    >>> cands = [Candidate(Node("", t, "equation", (t,)), None) for t in texts]
    >>> [c.node.forms for c in merge_computations(cands)]
    [('16 / 2 = 8', '16 * 0.5 = 8'), ('x = 3',), ('5 + 3 = 8',)]
    """
    groups: dict[tuple, list[Candidate]] = {}
    for candidate in candidates:
        value = computed_value(candidate.node)
        if value is not None:
            groups.setdefault(_step_key(candidate, value, groups), []).append(candidate)
    group_of = {id(c): key for key, members in groups.items() for c in members}
    out, emitted = [], set()
    for candidate in candidates:
        key = group_of.get(id(candidate))
        if key is None:
            out.append(candidate)
            continue
        if key in emitted:
            continue
        emitted.add(key)
        group = groups[key]
        if len(group) == 1:
            out.append(candidate)
            continue
        ranked = sorted(group, key=lambda c: (-len(c.mined_from), group.index(c)))
        ranked.sort(key=lambda c: bool(WORDY.search(c.node.text)))  # its text: a writing without words
        mined = list(dict.fromkeys(c.node.text for c in ranked))[:MAX_COMPUTATION_FORMS]
        # a proposal's forms are the writings a reviewer copied from the voices: they stay its forms
        written = [form for c in ranked if c.cluster is None for form in c.node.forms]
        forms = list(dict.fromkeys(mined + written))
        clusters = [c.cluster for c in ranked if c.cluster is not None]
        merged = None
        if clusters:
            merged = Cluster(clusters[0].key, "equation", None)
            for cluster in clusters:
                for text, count in cluster.surface.items():
                    merged.surface[text] = merged.surface.get(text, 0) + count
                for t, offset in cluster.trajectories.items():
                    merged.trajectories[t] = min(offset, merged.trajectories.get(t, offset))
                merged.contexts += cluster.contexts
                merged.origins += cluster.origins
        out.append(Candidate(replace(ranked[0].node, forms=tuple(forms)), merged))
    return out


def admitted(problem: Problem, candidates: list[Candidate], config: RefineConfig, stats: dict) -> list[Candidate]:
    """The candidates no refine rule drops and the problem statement does not already state (each
    drop counted in ``stats`` under its reason, ``restates_problem`` for the latter)."""
    kept = drop_candidates(problem, candidates, config, stats)
    in_problem = coverage(readable_statement(problem.problem), kept)
    stats["restates_problem"] += len(in_problem)
    return [c for i, c in enumerate(kept) if i not in in_problem]


def gather(problem: Problem, config: RefineConfig | None = None, llm_nodes: list[Node] | None = None) -> Evidence:
    """The evidence of one problem whose trajectories have verdicts (see the module doc)."""
    config = config or RefineConfig()
    correct = problem.correct_trajectories()
    clusters = mine(correct) if correct else []
    candidates = [Candidate(Node(id="", text=c.text, kind=c.kind, value=c.value,
                                 forms=tuple(expand(c.text, c.kind, c.value))), c) for c in clusters]
    candidates += [Candidate(node, None) for node in llm_nodes or []]
    stats = {"candidates": len(candidates), **{reason: 0 for reason in DROP_REASONS}}
    kept = merge_computations(admitted(problem, candidates, config, stats))
    answer_at = []
    for t_index, trajectory in enumerate(correct):
        length = max(len(trajectory.text), 1)
        for i, start in coverage(trajectory.text, kept).items():
            kept[i].hits[t_index] = round(min(max(start, 0) / length, 1.0), 4)
        where = answer_offset(trajectory.text, problem.answer, problem.problem)
        answer_at.append(None if where is None else round(min(where / length, 1.0), 4))
    return Evidence(problem, correct, kept, stats, answer_at)
