"""Stage 3a: what one problem's correct solutions say about each candidate node (voice-free).

:func:`gather` does the expensive, rule-independent part of refining a problem once:

1. mine candidates from the correct trajectories (:mod:`node_builder.miner`, + LLM nodes);
2. drop what the problem alone rules out (:func:`node_builder.refine.drop_reason`: the answer
   and what trivially yields it, givens, fragments, definitions, false arithmetic, ...) and what
   the matcher finds in the problem statement;
3. match every remaining candidate against every correct trajectory
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

from dataclasses import dataclass, field

from node_builder.expand import expand
from node_builder.matcher import covered
from node_builder.miner import Cluster, mine
from node_builder.refine import DROP_REASONS, RefineConfig, drop_candidates
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


def answer_offset(text: str, answer: str) -> int | None:
    """Where ``text`` first states the gold answer as a number (``None``: it never writes it so,
    e.g. an expression answer)."""
    from node_builder.matcher import number_of

    number = number_of(answer)
    if number is None:
        return None
    found = covered(text, [{"id": "a", "text": answer, "kind": "value", "value": str(number)}])
    return found.get("a")


def gather(problem: Problem, config: RefineConfig | None = None, llm_nodes: list[Node] | None = None) -> Evidence:
    """The evidence of one problem whose trajectories have verdicts (see the module doc)."""
    config = config or RefineConfig()
    correct = problem.correct_trajectories()
    clusters = mine(correct) if correct else []
    candidates = [Candidate(Node(id="", text=c.text, kind=c.kind, value=c.value,
                                 forms=tuple(expand(c.text, c.kind, c.value))), c) for c in clusters]
    candidates += [Candidate(node, None) for node in llm_nodes or []]
    stats = {"candidates": len(candidates), **{reason: 0 for reason in DROP_REASONS}}
    kept = drop_candidates(problem, candidates, config, stats)
    in_problem = coverage(problem.problem, kept)
    stats["restates_problem"] += len(in_problem)
    kept = [c for i, c in enumerate(kept) if i not in in_problem]
    answer_at = []
    for t_index, trajectory in enumerate(correct):
        length = max(len(trajectory.text), 1)
        for i, start in coverage(trajectory.text, kept).items():
            kept[i].hits[t_index] = round(min(max(start, 0) / length, 1.0), 4)
        where = answer_offset(trajectory.text, problem.answer)
        answer_at.append(None if where is None else round(min(where / length, 1.0), 4))
    return Evidence(problem, correct, kept, stats, answer_at)
