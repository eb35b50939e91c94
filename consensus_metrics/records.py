"""Reading SPEC §2 problem files and other JSONL inputs, with errors that name file and line.

Every reader of the project's JSONL files (the lm-eval tasks, the training split loader, the
``score`` CLI) goes through here, so a malformed line reads the same everywhere::

    data/gsm8k.jsonl:17: field 'answer' must be a string, got None

>>> import json, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "p.jsonl")
>>> _ = open(path, "w").write(json.dumps({"id": "a", "problem": "1+1?", "answer": "2", "nodes": ["1+1=2"]}) + "\\n")
>>> [row["nodes"][0]["text"] for row in read_problem_file(path)]
['1+1=2']
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Iterator

from .nodes import coerce_nodes

#: A byte that is not UTF-8, as ``errors="surrogateescape"`` reads it.
_UNDECODED_BYTE = re.compile("[\udc80-\udcff]")
#: Fields every problem record needs, with the type a reader may rely on.
PROBLEM_FIELDS = {"id": str, "problem": str, "answer": str, "nodes": list}


def jsonl_values(path: str | Path, encoding_errors: str = "replace",
                 on_bad_bytes: Callable[[int], None] | None = None) -> Iterator[tuple[int, Any, json.JSONDecodeError | None]]:
    """The one JSONL line reader: ``(line number, decoded value, None)`` per non-empty line, or
    ``(line number, None, error)`` when the line is not JSON. Callers word their own messages.

    Bytes that are not UTF-8 are read as U+FFFD (``on_bad_bytes(line number)`` is told); with
    ``encoding_errors="strict"`` a non-UTF-8 file raises ``UnicodeDecodeError`` instead.
    """
    errors = "surrogateescape" if encoding_errors == "replace" else encoding_errors
    with open(path, encoding="utf-8", errors=errors) as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if errors == "surrogateescape" and _UNDECODED_BYTE.search(line):
                line = _UNDECODED_BYTE.sub("\ufffd", line)
                if on_bad_bytes is not None:
                    on_bad_bytes(lineno)
            try:
                yield lineno, json.loads(line), None
            except json.JSONDecodeError as err:
                yield lineno, None, err


def iter_jsonl(path: str | Path, on_error: Callable[[str], None] | None = None,
               on_bad_bytes: Callable[[int], None] | None = None) -> Iterator[tuple[int, dict]]:
    """Yield ``(line number, object)`` for each non-empty line of a JSONL file.

    A line that is not a JSON object raises ``ValueError("FILE:LINE: reason")``; with
    ``on_error`` the message is passed to it instead and the line skipped. ``on_bad_bytes``: see
    :func:`jsonl_values`.
    """
    for lineno, obj, err in jsonl_values(path, on_bad_bytes=on_bad_bytes):
        if err is not None:
            problem = f"not valid JSON ({err.msg})"
        else:
            problem = None if isinstance(obj, dict) else f"expected a JSON object, got {type(obj).__name__}"
        if problem is None:
            yield lineno, obj
            continue
        message = f"{path}:{lineno}: {problem}"
        if on_error is None:
            raise ValueError(message)
        on_error(message)


def check_problem(row: dict[str, Any], where: str) -> dict[str, Any]:
    """Validate one SPEC §2 record in place and return it; nodes become plain, Arrow-friendly
    dicts (``value`` a string or None, ``forms`` a list of strings)."""
    for field, kind in PROBLEM_FIELDS.items():
        value = row.get(field)
        if field == "answer" and isinstance(value, (int, float)) and not isinstance(value, bool):
            row[field] = value = str(value)
        if not isinstance(value, kind):
            raise ValueError(f"{where}: field {field!r} must be a {kind.__name__}, got {value!r:.80}")
    try:
        nodes = coerce_nodes(row["nodes"])
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: {err}") from None
    row["nodes"] = [
        {"id": n.id, "text": n.text, "kind": n.kind, "forms": list(n.forms[1:]), "value": n.value,
         "support": n.support, "position": n.position}
        for n in nodes
    ]
    return row


def read_problem_file(path: str | Path) -> list[dict[str, Any]]:
    """All records of a SPEC §2 problem file, validated; raises ``ValueError`` naming FILE:LINE."""
    rows = [check_problem(row, f"{path}:{lineno}") for lineno, row in iter_jsonl(path)]
    if not rows:
        raise ValueError(f"{path}: no problems in the file")
    return rows
