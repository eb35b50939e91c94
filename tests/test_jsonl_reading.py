"""The one JSONL reader (``consensus_metrics.records``) on hostile files (issue 24): lines are cut
at "\\n" only, JSON too deep or with numbers too long is a bad line with its own message, and a
path that is no regular file is refused without being read."""

from __future__ import annotations

import json
import os
import threading

import pytest

from consensus_metrics.records import (InputFileError, check_input_file, describe_line_error, jsonl_values,
                                       read_problem_file)

SEPARATORS = "\u2028\u2029\u0085\x1c\x1d\x1e\x0b\x0c"


def _values(path):
    return [(n, v, None if e is None else describe_line_error(e)) for n, v, e in jsonl_values(path)]


def test_lines_end_at_newline_only(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"t": f"a{SEPARATORS}b"}, ensure_ascii=False) + "\n" + json.dumps({"t": 2}) + "\n",
                    encoding="utf-8")
    assert _values(path) == [(1, {"t": f"a{SEPARATORS}b"}, None), (2, {"t": 2}, None)]


def test_deep_nesting_and_long_numbers_are_bad_lines_with_a_reason(tmp_path):
    """Issue 24, items 7 and 12: a RecursionError, and Python's advice to raise its int limit
    as the message of a node value of 5,000 digits."""
    path = tmp_path / "x.jsonl"
    path.write_text("[" * 100_000 + "\n" + '{"value": ' + "1" * 5000 + "}\n" + '{"ok": 1}\n')
    assert _values(path) == [(1, None, "not valid JSON (nested too deeply)"),
                             (2, None, "not valid JSON (a number of more than 4300 digits)"),
                             (3, {"ok": 1}, None)]


def test_a_problem_file_with_a_huge_number_names_file_and_line(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"id": "a", "problem": "p", "answer": "1", "nodes": [{"text": "12", "kind": "value", '
                    '"value": ' + "1" * 5000 + "}]}\n")
    with pytest.raises(ValueError) as err:
        read_problem_file(path)
    assert str(err.value) == f"{path}:1: not valid JSON (a number of more than 4300 digits)"


@pytest.mark.parametrize("what", ["folder", "fifo", "/dev/zero"])
def test_a_path_that_is_no_regular_file_is_refused_unread(tmp_path, what):
    if what == "folder":
        path = tmp_path
        message = "is a folder, not a file"
    elif what == "fifo":
        path = tmp_path / "f.jsonl"
        os.mkfifo(path)
        message = "not a regular file"
    else:
        path, message = "/dev/zero", "not a regular file"
    result = {}

    def read():
        try:
            list(jsonl_values(path))
        except InputFileError as err:
            result["error"] = str(err)

    reader = threading.Thread(target=read, daemon=True)  # a FIFO read would block: never joined then
    reader.start()
    reader.join(10)
    assert not reader.is_alive() and result["error"].startswith(f"{path}: {message}")
    with pytest.raises(InputFileError, match=f"--data {path}: {message}"):
        check_input_file(path, "--data")
