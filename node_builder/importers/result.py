"""What every importer returns: problems in file order plus the skipped items (never raised).

Run importers (:mod:`node_builder.importers.runs`) also count, per run file, what became of its
rows (:class:`FileCount`), and mark their problems as ``join_only``: a run names a benchmark
problem, it never adds one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from node_builder.schema import Problem, Skipped


@dataclass
class FileCount:
    """What became of one run file's rows.

    ``rows``: rows read (non-blank lines, or entries of a JSON dict/list); ``empty``: rows
    skipped because they hold no output text (a model that wrote nothing); ``outputs``:
    trajectories taken (from rows that joined); ``duplicates``: outputs dropped as a repeat of an
    earlier one of the same problem (maps with ``dedupe``); ``skipped``: rows skipped with
    ``file:line`` (malformed, no output, a problem the benchmark lacks, a gold answer that
    disagrees); ``outside``: rows of
    problems outside the benchmark in a run that covers more (maps with ``superset``);
    ``joined``: the benchmark problems that got an output; ``verdict_true``: rows the source's own
    grader marks correct (reported, never used).
    """

    rows: int = 0
    empty: int = 0
    outputs: int = 0
    duplicates: int = 0
    skipped: int = 0
    outside: int = 0
    joined: set[str] = field(default_factory=set)
    verdict_true: int = 0

    def failed_share(self) -> float:
        """Rows that failed to join (skipped, but not for an empty output) over the rows that
        should have joined (not outside the benchmark, not empty).

        >>> FileCount(rows=10, skipped=6).failed_share(), FileCount(rows=10, outside=9).failed_share()
        (0.6, 0.0)
        >>> FileCount(rows=30, skipped=20, empty=20).failed_share()  # a model that mostly wrote nothing
        0.0
        """
        considered = self.rows - self.outside - self.empty
        return (self.skipped - self.empty) / considered if considered > 0 else 0.0


@dataclass
class ImportResult:
    problems: list[Problem] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: run file -> its counts (run importers only)
    files: dict[str, FileCount] = field(default_factory=dict)
    #: every problem must join an earlier source's problem (runs never add problems)
    join_only: bool = False
    #: a problem no earlier source has is outside the benchmark, counted but not reported
    outside_ok: bool = False

    def extend(self, other: "ImportResult") -> None:
        self.problems.extend(other.problems)
        self.skipped.extend(other.skipped)
        self.files.update(other.files)
