"""Source-format cleanup shared by importers (not matching: only removes non-solution markup).

* ``strip_asy``: Asymptote ``[asy]...[/asy]`` drawing code (its coordinates are not reasoning).
* ``strip_calculator_annotations``: GSM8K ``<<16-3-4=9>>`` -> removed; returns the annotations.

Example:
    >>> strip_calculator_annotations("sells 16 - 3 - 4 = <<16-3-4=9>>9 eggs")
    ('sells 16 - 3 - 4 = 9 eggs', ['16-3-4=9'])
"""

from __future__ import annotations

import re

_ASY = re.compile(r"\[asy\].*?\[/asy\]", re.S | re.I)
_CALC = re.compile(r"<<([^<>]*)>>")


def strip_asy(text: str) -> str:
    return _ASY.sub(" ", text)


def strip_calculator_annotations(text: str) -> tuple[str, list[str]]:
    annotations = [a.strip() for a in _CALC.findall(text) if a.strip()]
    return _CALC.sub("", text), annotations
