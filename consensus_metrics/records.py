"""Reading docs/SPEC.md §2 problem files and other JSONL inputs, with errors that name file and line.

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
import math
import numbers
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

from .nodes import coerce_nodes

#: A byte that is not UTF-8, as ``errors="surrogateescape"`` reads it.
_UNDECODED_BYTE = re.compile("[\udc80-\udcff]")
#: A surrogate code unit written as an escape (quick test before :func:`_lone_surrogate`).
_SURROGATE_IN_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
#: One backslash escape of a raw JSON line (``\\uXXXX`` or a one-character escape).
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)")
#: Fields every problem record needs, with the type a reader may rely on.
PROBLEM_FIELDS = {"id": str, "problem": str, "answer": str, "nodes": list}


class InputFileError(ValueError):
    """An input path that is no regular file (a folder, a FIFO, a device such as ``/dev/zero``):
    the message is one line naming it. Such a path is never read: a FIFO would block forever,
    a device would be read until memory runs out."""


def open_regular(path: str | os.PathLike, flag: str | None = None, **text_options):
    """``open(path, **text_options)`` for a regular file; :class:`InputFileError` for anything else
    (found without blocking: a FIFO is opened non-blocking, then checked), ``FileNotFoundError``
    / ``PermissionError`` as ``open`` raises them. ``flag`` names the path in the message.

    >>> open_regular("/dev/zero", "--source")
    Traceback (most recent call last):
    consensus_metrics.records.InputFileError: --source /dev/zero: not a regular file (a device, FIFO or socket is never read)
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        shown = f"{flag} {os.fspath(path)}" if flag else os.fspath(path)
        if stat.S_ISDIR(mode):
            raise InputFileError(f"{shown}: is a folder, not a file")
        if not stat.S_ISREG(mode):
            raise InputFileError(f"{shown}: not a regular file (a device, FIFO or socket is never read)")
        return os.fdopen(fd, "rb" if not text_options else "r", **text_options)
    except BaseException:
        os.close(fd)
        raise


def check_input_file(path: str | os.PathLike, flag: str | None = None) -> Path:
    """``path`` if it is a regular file that can be opened, else :class:`InputFileError` with one
    line naming ``flag`` and the path (no such file, a folder, a FIFO or device, unreadable).

    >>> check_input_file("/nonexistent.jsonl", "--data")
    Traceback (most recent call last):
    consensus_metrics.records.InputFileError: --data /nonexistent.jsonl: no such file
    """
    shown = f"{flag} {os.fspath(path)}" if flag else os.fspath(path)
    try:
        open_regular(path, flag).close()
    except FileNotFoundError:
        raise InputFileError(f"{shown}: no such file") from None
    except OSError as err:
        raise InputFileError(f"{shown}: cannot read it ({err.strerror or err})") from None
    return Path(path)


def loads(text: str):
    """``json.loads`` for untrusted text: JSON nested too deeply for Python's recursion (a line of
    100,000 ``[``) or holding an integer longer than Python converts (``sys.get_int_max_str_digits``,
    4300 digits; its ``ValueError`` would advise raising the limit) is a
    :class:`json.JSONDecodeError` like any other text that is not JSON.

    >>> loads("[" * 100_000)
    Traceback (most recent call last):
    json.decoder.JSONDecodeError: nested too deeply: line 1 column 1 (char 0)
    >>> loads("[" + "7" * 5000 + "]")
    Traceback (most recent call last):
    json.decoder.JSONDecodeError: a number of more than 4300 digits: line 1 column 1 (char 0)
    """
    doc = text if isinstance(text, str) else ""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", doc, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # the only other one json raises: an integer past the conversion limit
        raise json.JSONDecodeError(f"a number of more than {sys.get_int_max_str_digits()} digits", doc, 0) from None


class LineError(ValueError):
    """Why one line cannot be read as text: ``msg`` (a phrase) and ``colno`` (1-based), as on
    :class:`json.JSONDecodeError`, so callers word both kinds of bad line the same way."""

    def __init__(self, msg: str, lineno: int, colno: int):
        super().__init__(f"line {lineno} column {colno}: {msg}")
        self.msg, self.lineno, self.colno = msg, lineno, colno


def _lone_surrogate(line: str) -> tuple[str, int] | None:
    """The first ``\\uD800``-style escape of ``line`` that is not half of a surrogate pair, as
    ``(escape, 1-based column)``, or None (the common case: no surrogate escape at all)."""
    if "\\u" not in line or not _SURROGATE_IN_ESCAPE.search(line):
        return None
    high = None  # (escape, column) of a high surrogate waiting for its low half
    previous_end = -1
    for match in _ESCAPE.finditer(line):
        code = int(match.group(1), 16) if match.group(1) else None
        adjacent = match.start() == previous_end
        previous_end = match.end()
        if high is not None and not (adjacent and code is not None and 0xDC00 <= code <= 0xDFFF):
            return high
        if high is not None:
            high = None
            continue
        if code is not None and 0xD800 <= code <= 0xDBFF:
            high = (match.group().lower(), match.start() + 1)
        elif code is not None and 0xDC00 <= code <= 0xDFFF:
            return match.group().lower(), match.start() + 1
    return high


def jsonl_values(path: str | Path, encoding_errors: str = "replace",
                 on_bad_bytes: Callable[[int], None] | None = None
                 ) -> Iterator[tuple[int, Any, json.JSONDecodeError | LineError | None]]:
    """The one JSONL line reader: ``(line number, decoded value, None)`` per non-empty line, or
    ``(line number, None, error)`` when the line is not JSON text. Callers word their own messages
    from ``error.msg`` and ``error.colno``; the reader never raises for one bad line.

    * A UTF-8 byte order mark at the start of the file is skipped.
    * Bytes that are not UTF-8: ``encoding_errors="replace"`` reads them as U+FFFD (and tells
      ``on_bad_bytes(line number)``); ``"strict"`` makes the line a :class:`LineError`.
    * A lone surrogate (``"\\ud800"``: valid JSON, but no Unicode text, so it could never be
      written out again) makes the line a :class:`LineError` in both modes.
    * JSON nested too deeply to read is a bad line (:func:`loads`); a path that is no regular
      file (a folder, FIFO or device) is never read: :class:`InputFileError`.
    """
    if encoding_errors not in ("replace", "strict"):
        raise ValueError(f"encoding_errors must be 'replace' or 'strict', got {encoding_errors!r}")
    with open_regular(path, encoding="utf-8-sig", errors="surrogateescape") as handle:
        # a text file's lines end at "\n" (and "\r", which JSON text never holds unescaped),
        # not at U+2028 and the like: rows written with ensure_ascii=False may hold those
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            bad = _UNDECODED_BYTE.search(line)
            if bad and encoding_errors == "strict":
                yield lineno, None, LineError("bytes that are not UTF-8", lineno, bad.start() + 1)
                continue
            if bad:
                line = _UNDECODED_BYTE.sub("\ufffd", line)
                if on_bad_bytes is not None:
                    on_bad_bytes(lineno)
            try:
                value = loads(line)
            except json.JSONDecodeError as err:
                yield lineno, None, err
                continue
            except RecursionError:  # brackets nested deeper than the decoder goes: this line only
                yield lineno, None, LineError("JSON nested too deeply", lineno, 1)
                continue
            lone = _lone_surrogate(line)
            if lone is not None:
                yield lineno, None, LineError(f"a lone surrogate {lone[0]}", lineno, lone[1])
                continue
            yield lineno, value, None


def describe_line_error(err: json.JSONDecodeError | LineError) -> str:
    """One phrase for a bad line: ``not valid JSON (...)``, ``bytes that are not UTF-8 at column
    N`` or ``not Unicode text: a lone surrogate \\ud800 at column N``."""
    if isinstance(err, LineError):
        where = f" at column {err.colno}"
        if err.msg.startswith("a lone surrogate"):
            return f"not Unicode text: {err.msg}{where}"
        return err.msg + where
    return f"not valid JSON ({err.msg})"


def iter_jsonl(path: str | Path, on_error: Callable[[str], None] | None = None,
               on_bad_bytes: Callable[[int], None] | None = None) -> Iterator[tuple[int, dict]]:
    """Yield ``(line number, object)`` for each non-empty line of a JSONL file.

    A line that is not a JSON object raises ``ValueError("FILE:LINE: reason")``; with
    ``on_error`` the message is passed to it instead and the line skipped. Bytes that are not
    UTF-8 make the line bad, unless ``on_bad_bytes`` is given: then they are read as U+FFFD and
    ``on_bad_bytes(line number)`` is told (see :func:`jsonl_values`).
    """
    mode = "strict" if on_bad_bytes is None else "replace"
    for lineno, obj, err in jsonl_values(path, encoding_errors=mode, on_bad_bytes=on_bad_bytes):
        if err is not None:
            problem = describe_line_error(err)
        else:
            problem = None if isinstance(obj, dict) else f"expected a JSON object, got {type(obj).__name__}"
        if problem is None:
            yield lineno, obj
            continue
        message = f"{path}:{lineno}: {problem}"
        if on_error is None:
            raise ValueError(message)
        on_error(message)


def check_answer_field(value: Any, where: str, field: str = "answer") -> str:
    """A gold answer as a string: a non-empty string, or a finite number (``18``, ``0.5``, a NumPy
    number from a parquet column); anything else (NaN, infinity, ``true``, ``""``, null) raises
    ``ValueError`` naming ``where`` and ``field``. The one rule of every reader of gold answers:
    the lm-eval tasks, the ``score`` command, the training split, the TRL rewards and verl.

    >>> check_answer_field(18, "f:1"), check_answer_field(" 1/2 ", "f:1")
    ('18', ' 1/2 ')
    >>> check_answer_field(float("nan"), "row 0", "ground_truth")
    Traceback (most recent call last):
    ValueError: row 0: field 'ground_truth' must be a non-empty string or a finite number, got nan
    """
    if isinstance(value, numbers.Real) and type(value).__name__ not in ("bool", "bool_") and math.isfinite(value):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value
    raise ValueError(f"{where}: field {field!r} must be a non-empty string or a finite number, got {value!r:.80}")


def check_problem(row: dict[str, Any], where: str) -> dict[str, Any]:
    """Validate one docs/SPEC.md §2 record in place and return it; nodes become plain, Arrow-friendly
    dicts (``value`` a string or None, ``forms`` a list of strings)."""
    for field, kind in PROBLEM_FIELDS.items():
        value = row.get(field)
        if field == "answer":
            row[field] = value = check_answer_field(value, where)
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
    row["computations"] = check_computations(row.get("computations"), where)
    return row


def check_computations(value, where: str) -> list[str]:
    """A record's optional ``computations`` (docs/SPEC.md §2: arithmetic steps two voices' correct
    solutions write; the step locator reads their values): a list of strings, ``[]`` when the
    field is absent or null; anything else raises ``ValueError`` naming ``where`` and the field.

    >>> check_computations(["4 * 6 = 24"], "f:1"), check_computations(None, "f:1")
    (['4 * 6 = 24'], [])
    >>> check_computations(["4 * 6 = 24", 24], "f:3")
    Traceback (most recent call last):
    ValueError: f:3: field 'computations' must be a list of strings, got item 24
    """
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{where}: field 'computations' must be a list of strings, got {value!r:.80}")
    for item in value:
        if not isinstance(item, str):
            raise ValueError(f"{where}: field 'computations' must be a list of strings, got item {item!r:.80}")
    return value


def read_problem_file(path: str | Path) -> list[dict[str, Any]]:
    """All records of a docs/SPEC.md §2 problem file, validated; raises ``ValueError`` naming FILE:LINE.

    Every problem id must be unique in the file (a scorer keyed by id would otherwise grade one
    problem's completions against another's gold), and bytes that are not UTF-8 are refused.
    """
    rows, first_line = [], {}
    for lineno, row in iter_jsonl(path):
        rows.append(check_problem(row, f"{path}:{lineno}"))
        if row["id"] in first_line:
            raise ValueError(f"{path}:{lineno}: problem id {row['id']!r} is already defined at line "
                             f"{first_line[row['id']]}")
        first_line[row["id"]] = lineno
    if not rows:
        raise ValueError(f"{path}: no problems in the file")
    return rows
