"""One problem through the stages: filter -> mine (+ LLM extractor) -> expand/refine -> record.

``build_record(problem, config)`` is pure given its inputs (deterministic: same problem, same
record), which is what makes resumed builds identical to uninterrupted ones. Generation
(stage 1a) happens before, in batches (:mod:`node_builder.generate`); :mod:`node_builder.build`
runs a whole file through the stages.

Provenance of every record::

    {"sources": ["reference", ...],   # distinct sources of the correct trajectories, sorted
     "voices": ["reference", ...],    # distinct voices (models; all human sources are one)
     "trajectories": 2, "correct": 2, # counts before / after the math-verify filter
     "rejected_references": 0,        # human solutions that never reach the gold answer
     "extractor": "rules" | "rules+llm", "builder_version": "node_builder 0.1.0",
     "support_threshold": 0.5,        # the support floor (share of voices)
     "consensus_threshold": 0.75,     # (k+1)/(n+2) floor; null with a single voice (see refine)
     "refine": {"candidates": 7, "final_answer": 1, ...},  # drop counts per reason (all keys)
     "llm": {"status": "off" | "ok" | "garbage: ...", "proposed": 0, "invalid": 0, "rewrites": 0},
     "note": ""}                      # e.g. why a problem has no nodes

Example:
    >>> from node_builder.schema import Problem, Trajectory
    >>> p = Problem("toy/1", "toy", "Ann has 5 apples and buys 7 more, then eats 3. How many?", "9",
    ...             trajectories=[Trajectory("5 + 7 = 12, and 12 - 3 = 9.", "reference", True)])
    >>> rec = build_record(p, BuildConfig())
    >>> [n["text"] for n in rec["nodes"]], rec["provenance"]["voices"]
    (['5 + 7 = 12', '12'], ['reference'])
    >>> [n["text"] for n in build_records([p], BuildConfig())[0]["nodes"]]  # + finalize: 5 + 7 = 12 is redundant
    ['12']
"""

from __future__ import annotations

import copy
import sys
from dataclasses import asdict, dataclass, field

from node_builder import BUILDER_VERSION
from node_builder.finalize import COMMON_SHARE, finalize_records
from node_builder.filter import filter_problem
from node_builder.llm_extractor import ExtractionError
from node_builder.miner import mine
from node_builder.refine import DROP_REASONS, RefineConfig, refine
from node_builder.schema import Problem, make_record


@dataclass
class BuildConfig:
    refine: RefineConfig = field(default_factory=RefineConfig)
    extractor: str = "rules"
    #: nodes in more than this share of other problems' solutions need context (node_builder.finalize)
    common_share: float = COMMON_SHARE

    def to_json(self) -> dict:
        return {"refine": asdict(self.refine), "extractor": self.extractor, "common_share": self.common_share}


def build_records(problems: list[Problem], config: BuildConfig, llm_extractor=None, quiet: bool = True) -> list[dict]:
    """Every problem through :func:`build_record`, then the build-wide last steps
    (:func:`node_builder.finalize.finalize_records`: context, redundancy, cap, order)."""
    records = [build_record(problem, config, llm_extractor) for problem in problems]
    return finalize(records, problems, config, quiet)


def without_voice(problems: list[Problem], voice: str) -> list[Problem]:
    """Shallow copies of ``problems`` with none of ``voice``'s trajectories (leave one model out:
    its solutions then serve neither as votes nor as background). Verdicts already set stay.

    >>> from node_builder.schema import Trajectory
    >>> p = Problem("t/1", "t", "?", "1", trajectories=[Trajectory("a", "model:M", voice="M"), Trajectory("b", "reference")])
    >>> [t.voice for t in without_voice([p], "M")[0].trajectories]
    ['reference']
    """
    out = []
    for problem in problems:
        kept = copy.copy(problem)
        kept.trajectories = [t for t in problem.trajectories if t.voice != voice]
        out.append(kept)
    return out


def finalize(records: list[dict], problems: list[Problem], config: BuildConfig, quiet: bool = True) -> list[dict]:
    """The build-wide last steps on records of :func:`build_record` (see :mod:`node_builder.finalize`)."""
    return finalize_records(records, problems, config.common_share, config.refine.max_nodes, quiet=quiet)


def _note(problem: Problem, correct: list, rejected: list, nodes: list, stats: dict) -> str:
    """Why a record has no nodes (or what to know about its sources); ``""`` when nothing to say."""
    notes = [problem.note] if problem.note else []
    if rejected:
        notes.append(f"{len(rejected)} reference solution(s) never reach the gold answer {problem.answer!r}: "
                     "not used")
    if not problem.trajectories:
        notes.append("no source trajectories")
    elif not correct:
        notes.append("no correct trajectory")
    elif not nodes:
        if stats.get("below_support"):
            notes.append(f"no candidate is shared by enough of the {len({t.voice for t in correct})} voices "
                         "(consensus threshold)")
        else:
            notes.append("no checkable intermediate result in the correct trajectories (candidates "
                         "restate the problem or the answer)")
    return "; ".join(notes)


def build_record(problem: Problem, config: BuildConfig, llm_extractor=None) -> dict:
    n_correct = filter_problem(problem)
    correct = problem.correct_trajectories()
    clusters = mine(correct) if correct else []
    llm_nodes, llm_info = [], {"status": "off", "proposed": 0, "invalid": 0, "rewrites": 0}
    if llm_extractor is not None and correct:
        try:
            llm_nodes = llm_extractor.extract(problem, correct)
        except ExtractionError as exc:  # garbage reply: counted, rule-based nodes still built
            print(f"warning: {exc}", file=sys.stderr)
    nodes, stats, threshold = (refine(problem, clusters, correct, config.refine, llm_nodes)
                               if correct else ([], {"candidates": 0}, config.refine.min_support))
    if llm_extractor is not None and correct:
        if not llm_extractor.last["status"].startswith("garbage"):
            try:
                llm_extractor.rewrite(problem, nodes)  # extra forms only: coverage can only grow
            except ExtractionError as exc:
                print(f"warning: {exc}", file=sys.stderr)
        llm_info = dict(llm_extractor.last)
    refine_stats = {"candidates": stats.get("candidates", 0)}
    refine_stats.update({reason: stats.get(reason, 0) for reason in DROP_REASONS})
    # AoPS pages hold remarks and partial write-ups beside their solutions: not counted as rejected
    rejected = [t for t in problem.trajectories if t.voice == "reference" and t.correct is False and t.source != "aops"]
    voices = sorted({t.voice for t in correct})
    provenance = {
        "sources": sorted({t.source for t in correct}),
        "voices": voices,
        "trajectories": len(problem.trajectories),
        "correct": n_correct,
        "rejected_references": len(rejected),
        "extractor": config.extractor,
        "builder_version": BUILDER_VERSION,
        "support_threshold": round(float(threshold), 4),
        "consensus_threshold": config.refine.min_consensus if len(voices) > 1 else None,
        "refine": refine_stats,
        "llm": llm_info,
        "note": _note(problem, correct, rejected, nodes, stats),
    }
    return make_record(problem, nodes, provenance)
