"""The audit's reviewer sheets and the import of their answers (``benchmarks/node_audit.py sheets``
and ``import``), on samples drawn from the shipped data, the way a release's audit runs: draw,
write one folder per benchmark, let the reviewers answer, import, score.

The reviewers here are this test: it writes answer files as a reviewer would (every node GOOD but
the first of each benchmark, ROUTE; every record one key result, found), since no reviewer
session can run in a test."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def audit():
    spec = importlib.util.spec_from_file_location("node_audit_for_sheets", REPO / "benchmarks" / "node_audit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def drawn(audit, tmp_path):
    """Two nodes and one record of each test set (seed 11), as ``sample`` / ``recall-sample`` write them."""
    sheet, recall_sheet = tmp_path / "sheet.jsonl", tmp_path / "recall_sheet.jsonl"
    assert audit.main(["sample", "--per-benchmark", "2", "--seed", "11", "--out", str(sheet)]) == 0
    assert audit.main(["recall-sample", "--per-benchmark", "1", "--seed", "11", "--out", str(recall_sheet)]) == 0
    return sheet, recall_sheet


def _answer(folder: Path, rows: list[dict], records: list[dict]) -> None:
    """Answer files as a reviewer writes them (module doc)."""
    (folder / "answers_precision.jsonl").write_text("".join(
        json.dumps({"record": row["record"], "node": row["node"], "label": "ROUTE" if i == 0 else "GOOD",
                    "why": "one sentence"}) + "\n" for i, row in enumerate(rows)), encoding="utf-8")
    (folder / "answers_recall.jsonl").write_text("".join(
        json.dumps({"record": row["record"], "key_results": [
            {"result": "a key result", "found": bool(row["nodes"]), "node": row["nodes"][0] if row["nodes"] else None}]})
        + "\n" for row in records), encoding="utf-8")


def _sheets(audit, drawn, out: Path) -> tuple[list[dict], list[dict]]:
    sheet, recall_sheet = drawn
    assert audit.main(["sheets", "--sheet", str(sheet), "--recall-sheet", str(recall_sheet), "--out-dir", str(out)]) == 0
    return audit.read_jsonl(sheet), audit.read_jsonl(recall_sheet)


def test_sheets_give_each_reviewer_the_items_and_the_rubric(audit, drawn, tmp_path):
    rows, records = _sheets(audit, drawn, tmp_path / "sheets")
    for name in audit.SETS:
        folder = (tmp_path / "sheets" / name).resolve()
        items = (folder / "items.md").read_text(encoding="utf-8")
        brief = (folder / "BRIEF.md").read_text(encoding="utf-8")
        mine = [row for row in rows if row["benchmark"] == name]
        assert len(mine) == 2 and items.count("NODE TO LABEL: `") == 2
        for row in mine:
            assert f"record {row['record']}" in items and f"NODE TO LABEL: `{row['node']}`" in items
        assert items.count("THE RECORD'S NODES: ") == 1
        assert str(folder / "items.md") in brief and str(folder / "answers_precision.jsonl") in brief
        for label, text in audit.RUBRIC.items():
            assert f"- **{label}**: {text}" in brief
    assert set(audit.RUBRIC) == set(audit.LABELS)


def test_import_appends_the_checked_verdicts_and_report_scores_them(audit, drawn, tmp_path):
    rows, records = _sheets(audit, drawn, tmp_path / "sheets")
    for name in audit.SETS:
        _answer(tmp_path / "sheets" / name, [r for r in rows if r["benchmark"] == name],
                [r for r in records if r["benchmark"] == name])
    verdicts = tmp_path / "verdicts"
    sheet, recall_sheet = drawn
    argv = ["import", "--sheet", str(sheet), "--recall-sheet", str(recall_sheet), "--answers", str(tmp_path / "sheets"),
            "--name", "seed 11", "--verdicts", str(verdicts)]
    assert audit.main(argv) == 0
    precision = audit.read_jsonl(verdicts / "precision.jsonl")
    assert [(v["record"], v["node"]) for v in precision] == [(r["record"], r["node"]) for r in rows]
    assert {v["sample"] for v in precision} == {"seed 11"}
    result = audit.score(precision, audit.read_jsonl(verdicts / "recall.jsonl"), "seed 11")
    for name in audit.SETS:
        assert result[name]["nodes"] == 2 and result[name]["good_pct"] == 50.0
        assert result[name]["labels"]["ROUTE"] == 1
        has_nodes = bool(next(r for r in records if r["benchmark"] == name)["nodes"])
        assert result[name]["recall_pct"] == (100.0 if has_nodes else 0.0)
    # the same name again: refused, nothing appended
    assert audit.main(argv) == 2
    assert len(audit.read_jsonl(verdicts / "precision.jsonl")) == len(rows)


@pytest.mark.parametrize("damage, message", [
    (lambda lines: lines[:-1], "answers for 2 sheet items"),
    (lambda lines: [lines[1], lines[0]], "the sheet has"),
    (lambda lines: [lines[0].replace('"GOOD"', '"GREAT"').replace('"ROUTE"', '"GREAT"'), lines[1]], "is none of"),
    (lambda lines: [lines[0], "{not json\n"], ":2: not JSON"),
])
def test_a_misfit_answer_file_is_named_and_nothing_is_appended(audit, drawn, tmp_path, capsys, damage, message):
    rows, records = _sheets(audit, drawn, tmp_path / "sheets")
    for name in audit.SETS:
        _answer(tmp_path / "sheets" / name, [r for r in rows if r["benchmark"] == name],
                [r for r in records if r["benchmark"] == name])
    broken = tmp_path / "sheets" / "aime25" / "answers_precision.jsonl"  # the last benchmark: earlier ones pass
    broken.write_text("".join(damage(broken.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    sheet, recall_sheet = drawn
    code = audit.main(["import", "--sheet", str(sheet), "--recall-sheet", str(recall_sheet), "--answers",
                       str(tmp_path / "sheets"), "--name", "seed 11", "--verdicts", str(tmp_path / "verdicts")])
    err = capsys.readouterr().err
    assert code == 2 and str(broken) in err and message in err and "nothing was appended" in err
    assert not (tmp_path / "verdicts" / "precision.jsonl").exists()


def test_recall_answers_need_a_yes_or_no_per_key_result(audit, drawn, tmp_path):
    rows, records = _sheets(audit, drawn, tmp_path / "sheets")
    for name in audit.SETS:
        _answer(tmp_path / "sheets" / name, [r for r in rows if r["benchmark"] == name],
                [r for r in records if r["benchmark"] == name])
    path = tmp_path / "sheets" / "gsm8k" / "answers_recall.jsonl"
    row = json.loads(path.read_text(encoding="utf-8"))
    row["key_results"][0]["found"] = "yes"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(audit.AnswerError, match=r"answers_recall\.jsonl:1: key_results must be"):
        audit.read_answers(audit.read_jsonl(drawn[0]), audit.read_jsonl(drawn[1]), tmp_path / "sheets", "seed 11")


def test_sheets_and_import_name_their_missing_flags(audit, capsys):
    with pytest.raises(SystemExit):
        audit.main(["import", "--sheet", "s.jsonl", "--recall-sheet", "r.jsonl"])
    assert "import needs --answers, --name" in capsys.readouterr().err


def test_a_sheet_that_is_no_sample_is_named(audit, tmp_path, capsys):
    sheet = tmp_path / "sheet.jsonl"
    sheet.write_text(json.dumps({"benchmark": "gsm8k", "record": "gsm8k/test/1"}) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        audit.main(["sheets", "--sheet", str(sheet), "--recall-sheet", str(sheet), "--out-dir", str(tmp_path / "out")])
    assert "--sheet, row 1: no 'problem'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
