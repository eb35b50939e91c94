"""Read a JSONL file line by line, turning bad lines into :class:`Skipped` entries.

Contract: ``read_jsonl(path)`` yields ``(where, obj)`` for every non-blank line, where ``where``
is ``"path:line"`` (1-based) and ``obj`` is the decoded dict, or a :class:`BadInput` when the
line is not a JSON object (or not UTF-8 text: one bad byte costs its line, not the file). The caller decides how to count it; nothing raises mid-file.

Example:
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.jsonl")
    >>> _ = open(p, "w").write('{"a": 1}\\nnot json\\n')
    >>> [(w.endswith(":1"), type(o).__name__) for w, o in read_jsonl(p)]
    [(True, 'dict'), (False, 'BadInput')]
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from pathlib import Path

from consensus_metrics.records import InputFileError, LineError, describe_line_error, jsonl_values
from node_builder.schema import BadInput, Skipped


def read_jsonl(path: str | Path) -> Iterator[tuple[str, dict | BadInput]]:
    path = Path(path)
    values = jsonl_values(path, encoding_errors="strict")
    try:
        first = next(values, None)  # the file is opened here
    except InputFileError as err:  # a FIFO or device in a folder of runs: never read, the file skipped
        yield str(path), BadInput(str(path), str(err).removeprefix(f"{path}: "))
        return
    for lineno, obj, err in chain([first] if first is not None else [], values):
        where = f"{path}:{lineno}"
        if isinstance(err, LineError):  # bytes that are not UTF-8, a lone surrogate: this line only
            yield where, BadInput(where, describe_line_error(err))
        elif err is not None:
            yield where, BadInput(where, f"malformed JSON ({err.msg} at column {err.colno})")
        elif not isinstance(obj, dict):
            yield where, BadInput(where, f"expected a JSON object, got {type(obj).__name__}")
        else:
            yield where, obj


def read_objects(path: str | Path, skipped: list) -> Iterator[tuple[str, dict]]:
    """Like :func:`read_jsonl`, but bad lines go straight to ``skipped`` (as :class:`Skipped`)."""
    for where, obj in read_jsonl(path):
        if isinstance(obj, BadInput):
            skipped.append(Skipped(where, obj.reason))
        else:
            yield where, obj


def require_str(obj: dict, key: str, where: str, *, allow_empty: bool = False) -> str:
    """Return ``obj[key]`` as a stripped string or raise :class:`BadInput` naming the field."""
    value = obj.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise BadInput(where, f"field {key!r} missing or not a string")
    if not allow_empty and not value.strip():
        raise BadInput(where, f"field {key!r} is empty")
    return value.strip()
