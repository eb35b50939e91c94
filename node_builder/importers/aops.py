"""Split an AoPS-wiki solution page (several solutions in one text) into separate solutions.

AoPS pages concatenate solutions, each normally closed by its author's signature. A solution
ends at:

* a signature line: ``~author``, ``-Author.name``, ``- lackolith``, ``~Steven Chen (Professor
  Chen ...)``, i.e. a short line of name characters led by ``~`` or ``-`` (never math: no ``$``,
  ``\\``, ``=``, and ``- 10^4 ...`` is not a name);
* a signature at the end of a line after the sentence: ``... = 204$. -sepehr2010``;
* a heading line before the next solution: ``Solution 2``, ``== Solution by X ==``.

Asymptote drawings are removed; pieces left without any digit or shorter than
``min_chars`` (e.g. a lone diagram credit) are dropped.

Example:
    >>> text = "Then $x=3$, so $x^2=\\\\boxed{9}$.\\n~alice\\nSolution 2\\nSquaring gives $3^2=9$. -bob"
    >>> split_aops_solutions(text)
    ['Then $x=3$, so $x^2=\\\\boxed{9}$.', 'Squaring gives $3^2=9$.']
"""

from __future__ import annotations

import re

from node_builder.importers.text_cleanup import strip_asy

_NAME = r"[A-Za-z][\w.'<>@]*(?:[ \t]+[\w.()'<>,@:/]+){0,8}"
_SIGNATURE_LINE = re.compile(rf"^\s*(?:~.*|-\s?{_NAME})\s*$")
_TRAILING_SIGNATURE = re.compile(rf"(?<=[.$}})\]])\s+(?:~\s*|-\s?)({_NAME})\s*$")
_HEADING = re.compile(r"^\s*=*\s*(?:solution|sol\.?)(?:\s+\d+)?(?:\s+by\s+.*)?\s*(?:\(.*\))?\s*=*\s*:?\s*$",
                      re.I)


def _is_signature(line: str) -> bool:
    if len(line.strip()) > 160 or any(c in line for c in "$\\"):
        return False
    if "=" in line and "://" not in line:
        return False
    return bool(_SIGNATURE_LINE.match(line))


def split_aops_solutions(text: str, min_chars: int = 20) -> list[str]:
    pieces: list[list[str]] = [[]]
    for raw_line in strip_asy(text).split("\n"):
        line = raw_line.rstrip()
        if _HEADING.match(line):
            pieces.append([])
            continue
        if _is_signature(line):
            pieces.append([])
            continue
        trailing = _TRAILING_SIGNATURE.search(line)
        if trailing and not any(c in trailing.group(1) for c in "$\\="):
            pieces[-1].append(line[: trailing.start()].rstrip())
            pieces.append([])
            continue
        pieces[-1].append(line)
    solutions = []
    for lines in pieces:
        body = "\n".join(lines).strip()
        if len(body) >= min_chars and re.search(r"\d", body):
            solutions.append(body)
    return solutions
