"""consensus_metrics.records, the one JSONL reader behind every CLI: a bad line is named by file
and line and never silently changed; task data is refused when it could grade one problem against
another's gold."""

import json

import pytest

from consensus_metrics.records import iter_jsonl, jsonl_values, read_problem_file

GOOD = {"id": "a", "problem": "1+1?", "answer": "2", "nodes": ["1+1=2"]}


def _write(path, *lines: bytes):
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def _line(row) -> bytes:
    return json.dumps(row).encode()


@pytest.mark.parametrize("answer", [float("nan"), float("inf"), "  ", True])
def test_problem_files_refuse_nan_and_empty_answers(tmp_path, answer):
    path = _write(tmp_path / "p.jsonl", _line(GOOD), _line(dict(GOOD, id="b", answer=answer)))
    with pytest.raises(ValueError, match=rf"{path}:2: field 'answer' must be a non-empty string or a finite number"):
        read_problem_file(path)


def test_computations_are_optional_lists_of_strings(tmp_path):
    path = _write(tmp_path / "p.jsonl", _line(GOOD), _line(dict(GOOD, id="b", computations=["1 + 1 = 2"])))
    assert [row["computations"] for row in read_problem_file(path)] == [[], ["1 + 1 = 2"]]
    for bad in ("1 + 1 = 2", ["1 + 1 = 2", 2], {"1": 2}):
        path = _write(tmp_path / "bad.jsonl", _line(GOOD), _line(dict(GOOD, id="b", computations=bad)))
        with pytest.raises(ValueError, match=rf"{path}:2: field 'computations' must be a list of strings"):
            read_problem_file(path)


def test_problem_files_refuse_a_duplicate_id(tmp_path):
    path = _write(tmp_path / "p.jsonl", _line(GOOD), _line(dict(GOOD, id="b")), _line(dict(GOOD, answer="3")))
    with pytest.raises(ValueError, match=rf"{path}:3: problem id 'a' is already defined at line 1"):
        read_problem_file(path)


def test_problem_files_refuse_bytes_that_are_not_utf8(tmp_path):
    path = _write(tmp_path / "p.jsonl", _line(GOOD), b'{"id": "b", "problem": "caf\xe9", "answer": "2", "nodes": []}')
    with pytest.raises(ValueError, match=rf"{path}:2: bytes that are not UTF-8 at column 28"):
        read_problem_file(path)


def test_a_utf8_bom_on_the_first_line_is_read(tmp_path):
    path = _write(tmp_path / "p.jsonl", b"\xef\xbb\xbf" + _line(GOOD), _line(dict(GOOD, id="b")))
    assert [row["id"] for row in read_problem_file(path)] == ["a", "b"]


def test_a_lone_surrogate_is_a_bad_line_in_every_mode(tmp_path):
    path = _write(tmp_path / "s.jsonl", b'{"id": "a\\ud800"}', b'{"id": "\\ud83d\\ude00 ok"}', b'{"id": "\\\\ud800"}')
    for mode in ("replace", "strict"):
        rows = list(jsonl_values(path, encoding_errors=mode))
        assert rows[0][1] is None and "lone surrogate \\ud800" in rows[0][2].msg
        assert rows[1][1] == {"id": "\U0001F600 ok"} and rows[2][1] == {"id": "\\ud800"}
    errors = []
    assert [obj["id"] for _, obj in iter_jsonl(path, on_error=errors.append)] == ["\U0001F600 ok", "\\ud800"]
    assert errors == [f"{path}:1: not Unicode text: a lone surrogate \\ud800 at column 10"]


def test_bad_bytes_are_replaced_only_for_a_caller_that_asks_to_be_told(tmp_path):
    path = _write(tmp_path / "s.jsonl", b'{"t": "caf\xe9"}', b'{"t": "ok"}')
    told = []
    assert [o["t"] for _, o in iter_jsonl(path, on_bad_bytes=told.append)] == ["caf\ufffd", "ok"]
    assert told == [1]
    errors = []
    assert [o["t"] for _, o in iter_jsonl(path, on_error=errors.append)] == ["ok"]
    assert errors == [f"{path}:1: bytes that are not UTF-8 at column 11"]
