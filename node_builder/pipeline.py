"""One problem through the stages: filter -> evidence (mine, problem rules, matches) -> consensus -> record.

``build_record(problem, config)`` is pure given its inputs (deterministic: same problem, same
record), which is what makes resumed builds identical to uninterrupted ones. Generation
(stage 1a) happens before, in batches (:mod:`node_builder.generate`); :mod:`node_builder.build`
runs a whole file through the stages and the build-wide last steps (:func:`finalize`).

Provenance of every record::

    {"sources": ["reference", ...],   # distinct sources of the correct trajectories, sorted
     "voices": ["reference", ...],    # distinct voices (models; all human sources are one)
     "trajectories": 2, "correct": 2, # counts before / after the math-verify filter
     "rejected_references": 0,        # human solutions that never reach the gold answer
     "extractor": "rules" | "rules+llm", "builder_version": "node_builder 0.2.0",
     "consensus": {"min_share": 0.5, "min_voices": 2,  # the rule (node_builder.consensus) and
                   "voices_counted": 1},              # the voices that showed work: support = k / this
     "single_voice": false,           # one voice: its nodes are not consensus of several solvers
     "suspect_gold": null,            # or {"answer", "voices", "gold_voices"} (node_builder.gold_check)
     "refine": {"candidates": 7, "final_answer": 1, ...},  # drop counts per reason (all keys)
     "llm": {"status": "off" | "ok" | "garbage: ...", "proposed": 0, "invalid": 0, "rewrites": 0},
     "note": ""}                      # e.g. why a problem has no nodes

Example:
    >>> from node_builder.schema import Problem, Trajectory
    >>> p = Problem("toy/1", "toy", "Ann has 5 apples and buys 7 more, then eats 3. How many?", "9",
    ...             trajectories=[Trajectory("5 + 7 = 12, and 12 - 3 = 9.", "reference", True)])
    >>> rec = build_record(p, BuildConfig())
    >>> [n["text"] for n in rec["nodes"]], rec["provenance"]["voices"], rec["provenance"]["single_voice"]
    (['5 + 7 = 12', '12'], ['reference'], True)
    >>> [n["text"] for n in build_records([p], BuildConfig())[0]["nodes"]]  # + finalize: 5 + 7 = 12 is redundant
    ['12']
"""

from __future__ import annotations

import copy
import sys
from dataclasses import asdict, dataclass, field

from node_builder import BUILDER_VERSION
from node_builder.consensus import ConsensusRule, Selection, select, shared_computations
from node_builder.evidence import Evidence, gather
from node_builder.filter import filter_problem
from node_builder.finalize import COMMON_SHARE, finalize_records
from node_builder.gold_check import answers_of, flag_suspect_gold
from node_builder.llm_extractor import ExtractionError
from node_builder.refine import DROP_REASONS, RefineConfig
from node_builder.signoff import Verdicts, proposed_nodes, signoffs_digest
from node_builder.schema import Problem, make_record


@dataclass
class BuildConfig:
    refine: RefineConfig = field(default_factory=RefineConfig)
    consensus: ConsensusRule = field(default_factory=ConsensusRule)
    extractor: str = "rules"
    #: nodes in more than this share of other problems' solutions need context (node_builder.finalize)
    common_share: float = COMMON_SHARE
    #: a reviewer's verdicts, problem id -> node_builder.signoff.Verdicts: in a problem with
    #: verdicts only the candidates signed GOOD (and the key results proposed) are nodes
    signoffs: dict[str, Verdicts] | None = None

    def to_json(self) -> dict:
        return {"refine": asdict(self.refine), "consensus": asdict(self.consensus), "extractor": self.extractor,
                "common_share": self.common_share, "signoffs": signoffs_digest(self.signoffs)}


def build_records(problems: list[Problem], config: BuildConfig, llm_extractor=None, quiet: bool = True) -> list[dict]:
    """Every problem through :func:`build_record`, then the build-wide last steps (:func:`finalize`)."""
    records = [build_record(problem, config, llm_extractor) for problem in problems]
    return finalize(records, problems, config, [answers_of(p) for p in problems], quiet)


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


def finalize(records: list[dict], problems: list[Problem], config: BuildConfig, answers: list[dict] | None = None,
             quiet: bool = True) -> list[dict]:
    """The build-wide last steps on records of :func:`build_record`: suspect gold answers
    (:mod:`node_builder.gold_check`, from each problem's :func:`~node_builder.gold_check.answers_of`)
    and :mod:`node_builder.finalize` (background frequency, context, generic, one node per step,
    cap, order)."""
    if answers is not None:
        flag_suspect_gold(records, answers)
    return finalize_records(records, problems, config.common_share, config.refine.max_nodes, quiet=quiet)


def _note(problem: Problem, correct: list, rejected: list, selection: Selection | None) -> str:
    """Why a record has no nodes (or what to know about its sources); ``""`` when nothing to say."""
    notes = [problem.note] if problem.note else []
    if rejected:
        notes.append(f"{len(rejected)} reference solution(s) never reach the gold answer {problem.answer!r}: "
                     "not used")
    if not problem.trajectories:
        notes.append("no source trajectories")
    elif not correct:
        notes.append("no correct trajectory")
    elif selection is not None and not selection.nodes:
        if selection.stats.get("rejected") or selection.stats.get("unsigned"):
            notes.append(f"the reviewer signed none of its candidates ({selection.stats.get('rejected', 0)} "
                         f"rejected, {selection.stats.get('unsigned', 0)} not on the sheet)")
        elif selection.stats.get("below_support"):
            notes.append(f"no candidate is shared by enough of the {len(selection.voices)} voices "
                         "(consensus rule)")
        else:
            notes.append("no checkable intermediate result in the correct trajectories (candidates "
                         "restate the problem or the answer)")
    return "; ".join(notes)


def record_of(evidence: Evidence, selection: Selection, config: BuildConfig, llm_info: dict | None = None,
              signed: bool = False) -> dict:
    """The docs/SPEC.md §2 record of one problem from its evidence and the chosen nodes (and the
    arithmetic steps two voices share, :func:`~node_builder.consensus.shared_computations`)."""
    problem, correct = evidence.problem, evidence.trajectories
    refine_stats = {"candidates": evidence.stats.get("candidates", 0)}
    refine_stats.update({reason: evidence.stats.get(reason, 0) + selection.stats.get(reason, 0)
                         for reason in DROP_REASONS})
    # AoPS pages hold remarks and partial write-ups beside their solutions: not counted as rejected
    rejected = [t for t in problem.trajectories if t.voice == "reference" and t.correct is False and t.source != "aops"]
    provenance = {
        "sources": sorted({t.source for t in correct}),
        "voices": selection.voices,
        "trajectories": len(problem.trajectories),
        "correct": len(correct),
        "rejected_references": len(rejected),
        "extractor": config.extractor,
        "builder_version": BUILDER_VERSION,
        "consensus": {**config.consensus.to_json(), "voices_counted": selection.counted},
        "single_voice": selection.single_voice,
        "suspect_gold": None,
        "signed": signed,
        "refine": refine_stats,
        "llm": llm_info or {"status": "off", "proposed": 0, "invalid": 0, "rewrites": 0},
        "note": _note(problem, correct, rejected, selection if correct else None),
    }
    computations = shared_computations(evidence, config.consensus) if correct else []
    return make_record(problem, selection.nodes, provenance, computations)


def build_record(problem: Problem, config: BuildConfig, llm_extractor=None) -> dict:
    filter_problem(problem)
    correct = problem.correct_trajectories()
    llm_nodes = []
    if llm_extractor is not None and correct:
        try:
            llm_nodes = llm_extractor.extract(problem, correct)
        except ExtractionError as exc:  # garbage reply: counted, rule-based nodes still built
            print(f"warning: {exc}", file=sys.stderr)
    verdicts = config.signoffs.get(problem.id) if config.signoffs is not None else None
    evidence = gather(problem, config.refine, llm_nodes + proposed_nodes(verdicts, problem, config.refine))
    selection = select(evidence, config.consensus, signed=verdicts.labels if verdicts else None)
    llm_info = None
    if llm_extractor is not None and correct:
        if not llm_extractor.last["status"].startswith("garbage"):
            try:
                llm_extractor.rewrite(problem, selection.nodes)  # extra forms only: coverage can only grow
            except ExtractionError as exc:
                print(f"warning: {exc}", file=sys.stderr)
        llm_info = dict(llm_extractor.last)
    return record_of(evidence, selection, config, llm_info, signed=verdicts is not None)
