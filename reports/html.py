"""``index.html``: one self-contained page (inline CSS, PNG figures as base64 data URIs, a few
lines of inline JavaScript to sort the leaderboard by any column; nothing fetched).

Rendered with the Jinja2 template ``index.html.j2`` beside this module, autoescaping on: model
outputs and node texts are untrusted and always escaped; the only markup added to them is
:func:`highlight_spans`' ``<mark>`` around node matches, built from escaped pieces.

Example::

    >>> str(highlight_spans("x = 4 so 4", "", 10, {"n1": [0, 5, 3]}))
    '<mark title="n1">x = 4</mark> so 4'
"""

from __future__ import annotations

import base64
import math
from importlib.resources import files
from typing import Any

from jinja2 import Environment
from markupsafe import Markup, escape

TEMPLATE_NAME = "index.html.j2"
"""The page's Jinja2 template, a file beside this module (package data)."""



def data_uri(png: bytes) -> str:
    """``data:image/png;base64,...`` for an inline ``<img src>``."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _merge_spans(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    merged: list[tuple[int, int, str]] = []
    for start, end, name in sorted(spans):
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), f"{last[2]}, {name}")
        else:
            merged.append((start, end, name))
    return merged


def _mark_segment(text: str, offset: int, spans: list[tuple[int, int, str]]) -> Markup:
    """Escape ``text`` (which starts at ``offset`` of the generation), wrapping spans in
    ``<mark>``."""
    out = Markup("")
    cursor = 0
    for start, end, name in spans:
        lo, hi = max(start - offset, 0), min(end - offset, len(text))
        if hi <= lo or lo < cursor:
            continue
        out += escape(text[cursor:lo]) + Markup('<mark title="{}">').format(name) \
            + escape(text[lo:hi]) + Markup("</mark>")
        cursor = hi
    return out + escape(text[cursor:])


def highlight_spans(head: str, tail: str, length: int, positions: dict[str, Any]) -> Markup:
    """The (possibly shortened) generation as escaped HTML, node matches in ``<mark>``.

    ``positions`` maps node id -> ``[start, end, ...]`` (character span in the full text, end
    exclusive). ``head``/``tail`` are the first/last characters kept when the text was long.
    """
    spans = []
    for name, value in (positions or {}).items():
        if isinstance(value, (list, tuple)) and len(value) >= 2 \
                and all(isinstance(v, (int, float)) for v in value[:2]):
            spans.append((int(value[0]), int(value[1]), str(name)))
    spans = _merge_spans(spans)
    html = _mark_segment(head, 0, spans)
    if tail:
        omitted = length - len(head) - len(tail)
        html += Markup('\n<span class="muted">[… {} characters not shown …]</span>\n').format(omitted)
        html += _mark_segment(tail, length - len(tail), spans)
    return html


def number(value: Any, digits: int = 3) -> str:
    """``0.333``; ``–`` for NaN/None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def template_source() -> str:
    """The text of :data:`TEMPLATE_NAME` (read from the installed package, wheel or checkout)."""
    return files(__package__).joinpath(TEMPLATE_NAME).read_text(encoding="utf-8")


def render(context: dict[str, Any]) -> str:
    """Fill the template (autoescaped) with ``context``."""
    environment = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return environment.from_string(template_source()).render(**context)
