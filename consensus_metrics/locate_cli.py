r"""``python -m consensus_metrics locate``: find the first wrong step of labelled solutions, score it.

    python -m consensus_metrics locate --data lm_eval_tasks/consensusbench/data/gsm8k.jsonl \
        --solutions processbench/gsm8k.json [--out located.jsonl] [--budget 1.0]

``--solutions`` holds step-split solutions with step labels in ProcessBench's layout (and
PRMBench's and llm-reasoners' AutoRace layouts; see :mod:`consensus_metrics.step_files`).
``--data`` holds the node records (docs/SPEC.md §2); a solution finds its record by the problem
text, compared without whitespace. For each solution :func:`consensus_metrics.locate.locate_first_error`
names the earliest erroneous step or none, and the command prints ProcessBench's metric per
subset (and over all rows):

* accuracy on the erroneous solutions (label ``k >= 0``): the predicted step is exactly ``k``;
* accuracy on the error-free ones (label ``-1``): no step predicted;
* **F1** = their harmonic mean ``2ab / (a + b)``.

Rows that say only *that* a solution is wrong (AutoRace's ``human_label`` false) count as found
when any step is predicted; their subsets get a "chain" line, never mixed with the step F1.

The final-answer verdict the locator needs is the row's ``final_answer_correct`` when it has one;
otherwise the answer is read from the last step that marks one (``\boxed``, ``The answer is``,
``# Answer``, ``####``, ``Answer:``) to the end and checked against the record's gold answer with
math-verify (the ``acc`` of ``score``); a solution with no marked answer has an unknown verdict,
and only the answer-free signals speak for it.

Bad input: a row whose steps are not strings, whose label is outside its steps, that has no
step with text or no problem text, or whose problem is not in ``--data`` is reported as
``FILE:LINE: reason`` and skipped (counted in the summary); a problem whose record has no nodes is
located with the signals that need none (counted), or, with ``--require-nodes``, reported and
skipped too. A file that cannot be read, holds no usable
row, or an ``--out`` that is an input: one line, exit status 2.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter

from .argtypes import positive_float
from .budget import DEFAULT_BUDGET_S, Deadline
from .heap import settle
from .locate import locate_first_error
from .nodes import coerce_nodes
from .outputs import OutputPathError, check_output_file
from .records import check_answer_field, check_computations, iter_jsonl
from .step_files import BadRow, UnusableFile, read_labelled_solutions

_ANSWER_MARK = re.compile(r"\\boxed|answer is|#\s*Answer|####|\bAnswer\s*:", re.I)
_SPACE = re.compile(r"\s+")


class InputError(Exception):
    """Input the command cannot use at all: one line on stderr, exit status 2."""


def problem_key(text: str) -> str:
    """The join key of a problem text: the text without any whitespace.

    >>> problem_key(" What is  2 +\\n2? ") == problem_key("What is 2+2?")
    True
    """
    return _SPACE.sub("", text)


def load_node_records(paths, warn) -> tuple[dict, Counter]:
    """``{problem key: {"answer", "nodes", "benchmark", "computations"}}`` from docs/SPEC.md §2 files; bad lines
    and records are reported through ``warn`` and counted; the first record of a problem text wins."""
    records, counts = {}, Counter()
    for path in paths:
        def bad(message):
            warn(message + "; skipped")
            counts["bad node lines"] += 1

        try:
            lines = list(iter_jsonl(path, on_error=bad))
        except OSError as err:
            raise InputError(f"--data {path}: cannot read it ({err.strerror or err})") from None
        for lineno, rec in lines:
            where = f"{path}:{lineno}"
            problem = rec.get("problem")
            if not isinstance(problem, str) or not problem.strip():
                bad(f"{where}: no 'problem' text")
                continue
            try:
                answer = check_answer_field(rec.get("answer"), where)
                nodes = coerce_nodes(rec.get("nodes") or [])
                computations = check_computations(rec.get("computations"), where)
            except (TypeError, ValueError) as err:
                bad(f"{where}: {err}")
                continue
            key = problem_key(problem)
            if key in records:
                counts["repeated problems in --data"] += 1
                continue
            records[key] = {"answer": answer, "nodes": nodes, "benchmark": str(rec.get("benchmark", "")),
                            "computations": computations}
    return records, counts


def answer_verdict(steps: list, gold: str, budget_s: float) -> bool | None:
    """Whether the marked final answer of ``steps`` verifies against ``gold`` (module doc);
    ``None`` when no step marks an answer or the check ran out of time."""
    marked = [k for k, step in enumerate(steps) if _ANSWER_MARK.search(step)]
    if not marked:
        return None
    from .answer import check_answer

    verdict = check_answer("\n\n".join(steps[marked[-1]:]), gold, Deadline(budget_s), think_format="none")
    return None if verdict["timed_out"] else bool(verdict["acc"])


def f1_of(erroneous_acc: float | None, error_free_acc: float | None) -> float | None:
    """ProcessBench's F1: the harmonic mean of the two accuracies (``None`` if either is missing).

    >>> round(f1_of(0.6, 1.0), 4)
    0.75
    """
    if erroneous_acc is None or error_free_acc is None:
        return None
    total = erroneous_acc + error_free_acc
    return 2 * erroneous_acc * error_free_acc / total if total else 0.0


class Tally:
    """Per-subset counts of the metric (module doc)."""

    def __init__(self):
        self.err = self.err_hit = self.ok = self.ok_hit = self.chain = self.chain_hit = 0

    def add(self, label, predicted) -> None:
        if label is None:
            self.chain += 1
            self.chain_hit += predicted is not None
        elif label == -1:
            self.ok += 1
            self.ok_hit += predicted is None
        else:
            self.err += 1
            self.err_hit += predicted == label

    def figures(self) -> dict:
        a = self.err_hit / self.err if self.err else None
        b = self.ok_hit / self.ok if self.ok else None
        chain = self.chain_hit / self.chain if self.chain else None
        return {"erroneous": self.err, "erroneous_acc": a, "error_free": self.ok, "error_free_acc": b,
                "f1": f1_of(a, b), "wrong_chains": self.chain, "wrong_chains_found": chain,
                "chain_f1": f1_of(chain, b)}


def _pct(value) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def table(tallies: dict) -> str:
    """The summary table: one line per subset (and ``ALL``), ProcessBench's columns."""
    header = ["subset", "erroneous", "acc %", "error-free", "acc %", "F1", "wrong chains", "found %", "chain F1"]
    lines = [header]
    for name, tally in tallies.items():
        f = tally.figures()
        lines.append([name, str(f["erroneous"]), _pct(f["erroneous_acc"]), str(f["error_free"]),
                      _pct(f["error_free_acc"]), _pct(f["f1"]), str(f["wrong_chains"]),
                      _pct(f["wrong_chains_found"]), _pct(f["chain_f1"])])
    widths = [max(len(r[i]) for r in lines) for i in range(len(header))]
    out = []
    for j, row in enumerate(lines):
        out.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def run_locate(solution_paths, records: dict, budget_s: float, warn, progress: bool = False, out=None,
               require_nodes: bool = False):
    """Locate every usable row of ``solution_paths``; returns ``(tallies, counts)``. Each row's
    prediction is written to ``out`` (a text file) as one JSON line when given."""
    tallies: dict = {}
    counts: Counter = Counter()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc="locating", unit="solution", file=sys.stderr)
    try:
        for path in solution_paths:
            try:
                rows = read_labelled_solutions(path)
                for row in rows:
                    if bar:
                        bar.update(1)
                    if isinstance(row, BadRow):
                        warn(f"{row.where}: {row.reason}; skipped")
                        counts["bad rows"] += 1
                        continue
                    record = records.get(problem_key(row.problem))
                    if record is None:
                        warn(f"{row.where}: problem not in --data (joined by its text without whitespace); skipped")
                        counts["problems not in --data"] += 1
                        continue
                    if require_nodes and not record["nodes"]:
                        warn(f"{row.where}: the problem has no nodes (--require-nodes); skipped")
                        counts["problems without nodes, skipped"] += 1
                        continue
                    _locate_row(row, record, budget_s, tallies, counts, out)
            except UnusableFile as err:
                raise InputError(f"--solutions {err}") from None
    finally:
        if bar:
            bar.close()
    return tallies, counts


def _locate_row(row, record, budget_s, tallies, counts, out) -> None:
    verdict = row.answer_correct
    if verdict is None:
        verdict = answer_verdict(row.steps, record["answer"], budget_s)
        counts["answers checked against the gold"] += 1
        if verdict is None:
            counts["answers unknown (no marked answer)"] += 1
    if not record["nodes"]:
        counts["problems without nodes"] += 1
    loc = locate_first_error(row.steps, record["nodes"], answer_correct=verdict, problem=row.problem,
                             budget_s=budget_s, gold=record["answer"], computations=record["computations"])
    if loc.timed_out:
        counts["timed out"] += 1
    for name in (row.subset, "ALL"):
        tallies.setdefault(name, Tally()).add(row.label, loc.step)
    counts["located"] += 1
    if out is not None:
        out.write(json.dumps({"where": row.where, "subset": row.subset, "label": row.label,
                              "final_answer_correct": verdict, "predicted": loc.step, "kind": loc.kind,
                              "reason": loc.reason, "node": loc.node, "n_steps": loc.n_steps,
                              "timed_out": loc.timed_out}, ensure_ascii=False) + "\n")


def cmd_locate(args) -> int:
    def warn(message):
        print(message, file=sys.stderr)

    try:
        for flag, paths in (("--data", args.data), ("--solutions", args.solutions)):
            for path in paths:
                if not os.path.isfile(path):
                    raise InputError(f"{flag} {path}: no such file")
        if args.out:
            try:
                check_output_file(args.out, [("--data", p) for p in args.data] +
                                  [("--solutions", p) for p in args.solutions])
            except OutputPathError as err:
                raise InputError(str(err)) from None
        records, node_counts = load_node_records(args.data, warn)
        if not records:
            raise InputError("--data: no usable node record (docs/SPEC.md §2: 'problem', 'answer', 'nodes')")
        settle()  # the records stay to the end: keep the collector off them
        out = open(args.out, "w", encoding="utf-8") if args.out else None
        try:
            tallies, counts = run_locate(args.solutions, records, args.budget, warn, progress=not args.quiet, out=out,
                                         require_nodes=args.require_nodes)
        finally:
            if out is not None:
                out.close()
        if not counts["located"]:
            raise InputError(f"--solutions: no usable row ({sum(counts.values())} skipped)")
    except InputError as err:
        warn(str(err))
        return 2
    counts.update(node_counts)
    located = counts.pop("located")
    print(f"located the first wrong step of {located} solutions")
    others = {k: v for k, v in counts.items() if v}
    if others:
        print("; ".join(f"{k}: {v}" for k, v in sorted(others.items())))
    ordered = {k: v for k, v in sorted(tallies.items()) if k != "ALL"}
    if len(ordered) > 1:
        ordered["ALL"] = tallies["ALL"]
    print(table(ordered))
    return 0


def add_parser(sub) -> None:
    """The ``locate`` sub-command of ``python -m consensus_metrics``."""
    p = sub.add_parser("locate", help="find the first wrong step of step-labelled solutions; ProcessBench F1")
    p.add_argument("--data", nargs="+", required=True, help="node files (docs/SPEC.md §2 JSONL)")
    p.add_argument("--solutions", nargs="+", required=True,
                   help="step-split solutions with labels (ProcessBench JSON/JSONL, PRMBench, llm-reasoners)")
    p.add_argument("--out", default=None, help="write each row's prediction here (JSONL)")
    p.add_argument("--budget", type=positive_float, default=DEFAULT_BUDGET_S,
                   help="seconds per solution, > 0 (default %(default)s)")
    p.add_argument("--require-nodes", action="store_true",
                   help="skip (and report) rows whose problem has no nodes instead of locating them without")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_locate)
