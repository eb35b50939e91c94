"""argparse types that refuse out-of-range settings up front (exit status 2, one line naming the
flag), shared by the project's command-line tools.

>>> positive_float("0.5"), positive_int("3"), fraction("1"), unit_interval("0")
(0.5, 3, 1.0, 0.0)
>>> positive_float("nan")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a finite number > 0, got 'nan'
"""

from __future__ import annotations

import argparse
import math


def _number(text: str, requirement: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be {requirement}, got {text!r}")
    return value


def _integer(text: str, requirement: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {requirement}, got {text!r}") from None


def positive_float(text: str) -> float:
    """A finite number > 0 (a time budget, a temperature scale)."""
    value = _number(text, "a finite number > 0")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


def nonnegative_float(text: str) -> float:
    """A finite number >= 0 (a sampling temperature)."""
    value = _number(text, "a finite number >= 0")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def fraction(text: str) -> float:
    """A number in (0, 1] (a support threshold, top-p)."""
    value = _number(text, "a number in (0, 1]")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}")
    return value


def unit_interval(text: str) -> float:
    """A number in [0, 1] (a coverage threshold)."""
    value = _number(text, "a number in [0, 1]")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1], got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (a count, a limit)."""
    value = _integer(text, "an integer >= 1")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return value


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (worker processes where 0 means in-process, examples to show)."""
    value = _integer(text, "an integer >= 0")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return value
