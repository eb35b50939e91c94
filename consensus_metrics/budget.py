"""Time budgets: a deadline that pure-Python code checks cooperatively.

Every public scoring call runs under a hard budget (default 1 s per trajectory). Pure-Python
stages (lexing, matching) poll a :class:`Deadline` and raise :class:`BudgetExceeded` when it has
passed; work that cannot be interrupted cooperatively (sympy, math-verify) runs in a separate
process that is killed at the deadline (see :mod:`consensus_metrics.sandbox`). Neither mechanism
uses ``signal``, so both work off the main thread and inside worker processes.

>>> d = Deadline(0.5)
>>> d.expired()
False
>>> d.remaining() <= 0.5
True
"""

from __future__ import annotations

import math
import time

#: Default wall-clock budget for scoring one trajectory, in seconds.
DEFAULT_BUDGET_S = 1.0


def check_budget(seconds, name: str = "budget_s") -> float | None:
    """``seconds`` as a float if it is a usable budget (finite, > 0) or None (no limit); else a
    ``ValueError`` naming ``name`` (a NaN budget would silently mean "no limit" or "no time").

    >>> check_budget(1), check_budget(None)
    (1.0, None)
    """
    if seconds is None:
        return None
    value = float(seconds) if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {seconds!r}")
    return value


class BudgetExceeded(Exception):
    """Raised inside the scorer when its deadline has passed; callers turn it into ``timed_out``."""


class Deadline:
    """An absolute deadline on the monotonic clock; ``None`` seconds means no limit."""

    __slots__ = ("at",)

    def __init__(self, seconds: float | None):
        self.at = None if seconds is None else time.monotonic() + max(0.0, float(seconds))

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit, never negative)."""
        if self.at is None:
            return float("inf")
        return max(0.0, self.at - time.monotonic())

    def expired(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def check(self) -> None:
        """Raise :class:`BudgetExceeded` if the deadline has passed."""
        if self.at is not None and time.monotonic() >= self.at:
            raise BudgetExceeded()

    def share(self, fraction: float) -> "Deadline":
        """A deadline after ``fraction`` of the time left (no limit stays no limit)."""
        return self if self.at is None else self.sub(self.remaining() * fraction)

    def sub(self, seconds: float) -> "Deadline":
        """A deadline at most ``seconds`` from now and never later than this one."""
        child = Deadline(seconds)
        if self.at is not None and (child.at is None or child.at > self.at):
            child.at = self.at
        return child


NO_DEADLINE = Deadline(None)
