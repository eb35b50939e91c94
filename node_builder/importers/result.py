"""What every importer returns: problems in file order plus the skipped items (never raised)."""

from __future__ import annotations

from dataclasses import dataclass, field

from node_builder.schema import Problem, Skipped


@dataclass
class ImportResult:
    problems: list[Problem] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def extend(self, other: "ImportResult") -> None:
        self.problems.extend(other.problems)
        self.skipped.extend(other.skipped)
