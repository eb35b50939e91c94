"""Importers on real excerpts of the raw sources (tests/fixtures/node_builder) and on bad input."""

from pathlib import Path

import pytest

from node_builder.importers import load_sources, parse_source_spec
from node_builder.importers import aime24, aime25, gsm8k, jsonl_dump, math500
from node_builder.importers.aops import split_aops_solutions

FIX = Path(__file__).parent / "fixtures" / "node_builder"
RAW = FIX / "raw"
SOLUTIONS = Path(__file__).resolve().parent.parent / "node_builder" / "sources" / "aime25_solutions.md"


def test_math500_reference_and_metadata():
    result = math500.load(RAW / "math500" / "test_ori.jsonl")
    assert not result.skipped and len(result.problems) == 8
    first = result.problems[0]
    assert first.id == "math500/test/precalculus/807"
    assert first.level == 2 and first.subject == "Precalculus"
    assert first.answer == "\\left( 3, \\frac{\\pi}{2} \\right)"
    [reference] = first.trajectories
    assert reference.source == "reference" and reference.correct is True
    assert "[asy]" in first.solution and "[asy]" not in reference.text  # drawings are not reasoning


def test_math500_bad_lines_are_reported_with_file_and_line_and_the_rest_is_kept():
    result = math500.load(FIX / "bad" / "math500_bad.jsonl")
    assert [p.id for p in result.problems] == ["math500/test/precalculus/807", "math500/test/algebra/2584"]
    reasons = {s.where.rsplit(":", 1)[1]: s.reason for s in result.skipped}
    assert set(reasons) == {"2", "3", "4"}
    assert "malformed JSON" in reasons["2"]
    assert "expected a JSON object" in reasons["3"]
    assert "'answer'" in reasons["4"]
    assert all(s.where.startswith(str(FIX / "bad" / "math500_bad.jsonl")) for s in result.skipped)


def test_gsm8k_annotations_become_equations_and_leave_the_text():
    result = gsm8k.load(RAW / "gsm8k" / "test.jsonl")
    problem = result.problems[0]
    assert problem.id == "gsm8k/test/0" and problem.answer == "18"
    [reference] = problem.trajectories
    assert reference.equations == ["16-3-4=9", "9*2=18"]
    assert "<<" not in reference.text and "####" not in reference.text
    assert reference.text.startswith("Janet sells 16 - 3 - 4 = 9 duck eggs a day.")
    assert "<<16-3-4=9>>" in problem.solution  # the record keeps the source verbatim


def test_gsm8k_thousands_separators_leave_the_answer():
    body, answer = gsm8k.split_final("80,000+50,000=130,000\n#### 1,080", "x")
    assert answer == "1080"


@pytest.mark.parametrize("line, expected", [
    ("How many eggs does Janet sell? ** Janet sells 16 - 3 - 4 = 9 duck eggs a day.",
     "Janet sells 16 - 3 - 4 = 9 duck eggs a day."),
    ("Simplify ** 2*x=80", "2*x=80"),  # prefixes are not always questions
    ("Write an equation ** x+x+30=110", "x+x+30=110"),
])
def test_gsm8k_socratic_prefixes_are_stripped(line, expected):
    assert gsm8k.clean_solution(line, socratic=True)[0] == expected


def test_gsm8k_reference_and_socratic_merge_by_id():
    merged = load_sources([f"gsm8k:{RAW}/gsm8k/test.jsonl", f"gsm8k-socratic:{RAW}/gsm8k/test_socratic.jsonl"], "gsm8k")
    assert len(merged.problems) == 8 and not merged.skipped
    assert [t.source for t in merged.problems[0].trajectories] == ["reference", "socratic"]
    assert "**" not in merged.problems[0].trajectories[1].text


def test_gsm8k_bad_lines():
    result = gsm8k.load(FIX / "bad" / "gsm8k_bad.jsonl")
    assert [p.id for p in result.problems] == ["gsm8k/gsm8k/0", "gsm8k/gsm8k/2", "gsm8k/gsm8k/4"]  # split = file stem
    reasons = sorted(s.reason for s in result.skipped)
    assert any("####" in r for r in reasons) and any("'question'" in r for r in reasons)


def test_aops_pages_split_into_solutions_at_signatures_and_headings():
    result = aime24.load(RAW / "aime24" / "test.jsonl")
    counts = {p.id: len(p.trajectories) for p in result.problems}
    assert counts == {"aime24/2024-I-1": 2, "aime24/2024-I-10": 5, "aime24/2024-I-7": 8, "aime24/2024-I-2": 3}
    first = result.problems[0]
    assert first.trajectories[0].text.endswith("$\\framebox{204}$ minutes")  # "-Failure.net" is gone
    assert first.trajectories[1].text.endswith("$180 + 24 = 204$.")  # trailing "-sepehr2010" is gone
    assert all(t.correct is None for t in first.trajectories)  # the filter decides


@pytest.mark.parametrize("text, n", [
    ("First $x = 3$ so the answer is 9.\n~alice\nSecond: $3^2 = 9$ as well here.\n~bob", 2),
    ("First $x = 3$ so the answer is 9. -alice\nSecond: $3^2 = 9$ as well here.", 2),
    ("First $x = 3$ so the answer is 9.\n== Solution 2 ==\nSecond: $3^2 = 9$ as well here.", 2),
    ("Expanding, $x^2$\n- 10^4 \\left( a + b \\right) + 10^6 = 0 gives 9.", 1),  # math, not a name
    ("First $x = 3$ so the answer is 9.\n~ [cxsmi](https://artofproblemsolving.com/wiki/index.php/User:Cxsmi)", 1),
])
def test_aops_signature_forms(text, n):
    assert len(split_aops_solutions(text)) == n


def test_aime25_matharena_problems_and_answers():
    result = aime25.load_matharena(RAW / "aime25" / "matharena")
    assert [p.id for p in result.problems] == [f"aime25/2025-{part}-{n}" for part in ("I", "II") for n in (1, 2, 3)]
    assert result.problems[0].answer == "70" and "base" in result.problems[0].problem


def test_aime25_solutions_markdown_format_and_its_errors():
    merged = load_sources([f"aime25:{RAW}/aime25/matharena", f"aime25-solutions:{FIX}/aime25_solutions_sample.md"], "aime25")
    by_id = {p.id: p for p in merged.problems}
    first = by_id["aime25/2025-I-1"]
    assert [t.source for t in first.trajectories] == ["maintainer-written"] * 2
    assert all(t.correct for t in first.trajectories)
    assert first.solution.startswith("Solution 1.\nRead both numbers")
    assert by_id["aime25/2025-I-2"].note.startswith("no verified solution")
    assert not by_id["aime25/2025-I-2"].trajectories
    reasons = {s.problem_id: s.reason for s in merged.skipped}
    assert "no 'Answer: N' line" in reasons["aime25/2025-I-3"]
    assert "disagrees" in reasons["aime25/2025-II-1"] and not by_id["aime25/2025-II-1"].trajectories
    assert any(s.where.endswith("aime25_solutions_sample.md:23") for s in merged.skipped)


@pytest.mark.skipif(not SOLUTIONS.exists(), reason="AIME 2025 solutions file not written yet")
def test_the_real_aime25_solutions_file_parses():
    result = aime25.load_solutions(SOLUTIONS)
    assert not result.skipped, result.skipped
    assert result.problems and all(p.id.startswith("aime25/2025-") for p in result.problems)
    assert all(p.trajectories or p.note for p in result.problems)


def test_generic_jsonl_dump_with_a_field_map():
    result = jsonl_dump.load(FIX / "qwen25math_math_cot_sample.jsonl", benchmark="math",
                             fields={"id": "idx", "problem": "question", "trajectories": "code"})
    assert [p.id for p in result.problems] == ["math/0", "math/1", "math/2", "math/6", "math/17", "math/28"]
    assert all(len(p.trajectories) == 8 and all(t.correct is None for t in p.trajectories) for p in result.problems)


def test_generic_jsonl_dump_bad_lines():
    result = jsonl_dump.load(FIX / "bad" / "dump_bad.jsonl", benchmark="toy")
    assert [p.id for p in result.problems] == ["toy/1"]
    reasons = [s.reason for s in result.skipped]
    assert any("'trajectories'" in r for r in reasons)
    assert any("'id' missing" in r for r in reasons)
    assert any("malformed JSON" in r for r in reasons)


def test_source_specs_are_checked():
    with pytest.raises(ValueError, match="KIND:PATH"):
        parse_source_spec("nonsense")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_sources(["math500:/no/such/file.jsonl"], "math500")
