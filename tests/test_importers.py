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
    assert reference.source == "reference" and reference.voice == "reference"
    assert reference.correct is None  # the filter checks that a reference reaches its gold answer
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
    assert all(t.voice == "reference" and t.correct is None for t in first.trajectories)
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


# --- DAPO-Math-17K (verl parquet) -------------------------------------------------------------

DAPO_ROWS = FIX / "dapo_rows.jsonl"  # real rows 10689, 2, 35, 1, 179, 4395, 14376 of the raw file


def _dapo_rows():
    import json

    return [json.loads(line) for line in DAPO_ROWS.read_bytes().splitlines()]


def _write_parquet(path, rows):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _broken_dapo_rows(real):
    """Rows a real file could hold, each broken in one field (indexes 90001.. are new)."""
    row = real[1]  # index 2, ground truth -3

    def variant(index, **fields):
        return {**row, "extra_info": {**row["extra_info"], "index": index}, **fields}

    return [
        variant(90001, reward_model={"ground_truth": "-3/2", "style": "rule"}),
        variant(90002, reward_model=None),
        variant(90003, prompt=[{"role": "system", "content": "You are a helpful assistant."}]),
        variant(2, prompt=[{"role": "user", "content": "Compute $1+1$."}]),  # index 2 is taken
        {**row, "extra_info": None},
        variant(90005, prompt=[{"role": "user", "content": "   "}]),
    ]


def test_dapo_rows_become_problems_and_bad_rows_are_named_by_file_and_row(tmp_path):
    from node_builder.importers import dapo

    real = _dapo_rows()
    path = _write_parquet(tmp_path / "dapo.parquet", real + _broken_dapo_rows(real))
    result = dapo.load(path)
    assert [(p.id, p.answer) for p in result.problems] == [
        ("dapo/10689", "225"), ("dapo/2", "-3"), ("dapo/1", "113"), ("dapo/14376", "1")]
    first = result.problems[0]
    assert first.problem == "Compute $\\gcd(6^210^2,15^4)$." and first.benchmark == "dapo"
    assert first.origin == f"{path}:row 0" and not first.trajectories and not first.solution
    reasons = {s.where: s.reason for s in result.skipped}
    at = lambda n: f"{path}:row {n}"  # noqa: E731
    assert reasons == {
        at(2): "ambiguous gold: the same statement at row 4 has another answer (6 vs 64)",
        at(4): "ambiguous gold: the same statement at row 2 has another answer (6 vs 64)",
        at(5): "duplicate of row 3 (dapo/1): same statement and answer",
        at(7): "ground truth '-3/2' is not an integer",
        at(8): "field reward_model.ground_truth missing",
        at(9): reasons[at(9)],
        at(10): "index already used by " + at(1) + " (dapo/2)",
        at(11): "field extra_info.index missing",
        at(12): "field prompt: the user message is empty",
    }
    assert reasons[at(9)].startswith("field prompt: expected one user message with a string content")
    assert len(result.skipped) == 9  # each bad row once


def test_dapo_folder_of_files_strips_the_upstream_instruction_template(tmp_path):
    """The upstream file keeps DAPO's instruction around each problem and names rows by a UUID;
    a repeat in another file is reported with that file's name."""
    from node_builder.importers import dapo

    real = _dapo_rows()
    _write_parquet(tmp_path / "a.parquet", real[:2])
    wrapped = (dapo.TEMPLATE_PREFIX + "\n\n" + real[0]["prompt"][0]["content"] + "\n\n" + dapo.TEMPLATE_SUFFIX)
    upstream = [{**real[6], "extra_info": {"index": "9a84dd1e-8f2c-4c1d-a0c2-2b5a0c0e7c11"}},
                {**real[0], "prompt": [{"role": "user", "content": wrapped}],
                 "extra_info": {"index": "0b7e4f8a-5c3d-4e2f-9a1b-7c6d5e4f3a2b"}}]
    _write_parquet(tmp_path / "b.parquet", upstream)
    result = dapo.load(tmp_path)
    assert [p.id for p in result.problems] == ["dapo/10689", "dapo/2", "dapo/9a84dd1e-8f2c-4c1d-a0c2-2b5a0c0e7c11"]
    [repeat] = result.skipped
    assert repeat.where == f"{tmp_path / 'b.parquet'}:row 1"
    assert repeat.reason == f"duplicate of {tmp_path / 'a.parquet'}:row 0 (dapo/10689): same statement and answer"


def test_dapo_a_file_that_is_not_parquet_or_not_verl_is_one_line(tmp_path):
    from node_builder.importers import dapo

    text = tmp_path / "dapo.parquet"
    text.write_text('{"prompt": "not parquet"}\n')
    result = dapo.load(text)
    assert not result.problems and len(result.skipped) == 1
    assert result.skipped[0].where == str(text)
    assert result.skipped[0].reason.startswith("not a readable parquet file (")
    other = _write_parquet(tmp_path / "other.parquet", [{"question": "1+1?", "answer": "2"}] * 3)
    [skip] = dapo.load(other).skipped
    assert skip.where == str(other)
    assert skip.reason == "not verl's layout: no column prompt, reward_model, extra_info (columns: question, answer)"
    (tmp_path / "empty").mkdir()
    assert [s.reason for s in dapo.load(tmp_path / "empty").skipped] == ["folder holds no *.parquet file"]


def test_dapo_a_row_group_that_cannot_be_decoded_costs_its_rows_only(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from node_builder.importers import dapo

    real = _dapo_rows()
    path = tmp_path / "dapo.parquet"
    pq.write_table(pa.Table.from_pylist([real[0], real[1], real[6]]), path, row_group_size=1, compression="snappy")
    chunk = pq.ParquetFile(path).metadata.row_group(1).column(1)  # row 1's prompt column: garbage bytes
    data = bytearray(path.read_bytes())
    start, size = chunk.data_page_offset, chunk.total_compressed_size
    data[start:start + size] = b"\xff" * size
    path.write_bytes(bytes(data))
    result = dapo.load(path)
    assert [p.id for p in result.problems] == ["dapo/10689", "dapo/14376"]
    [skip] = result.skipped
    assert skip.where == f"{path}:row 1" and skip.reason.startswith("row 1 unreadable (row group 1: ")
    assert skip.reason.endswith("the other rows are kept")


# --- samples of earlier sampling builds (WORKDIR/samples.jsonl) --------------------------------

def _samples_file(path, backend, problems, texts):
    """A work dir's samples.jsonl as a sampling build writes it (one line per problem)."""
    import json

    lines = [json.dumps({"id": p.id, "backend": backend, "samples": list(texts), "problem": p.problem,
                         "answer": p.answer}) for p in problems]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_samples_of_several_models_are_one_voice_per_model(tmp_path):
    problems = gsm8k.load(RAW / "gsm8k" / "test.jsonl").problems[:2]
    qwen = _samples_file(tmp_path / "qwen.jsonl", "vllm:Qwen/Qwen2.5-Math-7B-Instruct", problems,
                         ["So she sells 9 eggs and makes \\boxed{18}."] * 3)
    ckpt_a = _samples_file(tmp_path / "a.jsonl", "hf:/ckpt/Sky-T1-32B-ckpts/checkpoint-105", problems, ["\\boxed{18}"])
    ckpt_b = _samples_file(tmp_path / "b.jsonl", "openai:/ckpt/Sky-T1-32B-ckpts/checkpoint-140/", problems, ["18"])
    merged = load_sources([f"gsm8k:{RAW}/gsm8k/test.jsonl", f"samples:{qwen}", f"samples:{ckpt_a}",
                           f"samples:{ckpt_b}"], "gsm8k")
    assert len(merged.problems) == 8 and not merged.skipped
    first = merged.problems[0].trajectories
    assert [t.source for t in first] == ["reference"] + ["sample:vllm:Qwen/Qwen2.5-Math-7B-Instruct"] * 3 + [
        "sample:hf:/ckpt/Sky-T1-32B-ckpts/checkpoint-105", "sample:openai:/ckpt/Sky-T1-32B-ckpts/checkpoint-140/"]
    # five model samples, two models (checkpoints of one model are one voice), plus the reference
    assert [t.voice for t in first] == ["reference"] + ["Qwen2.5-Math-7B-Instruct"] * 3 + ["Sky-T1-32B"] * 2
    assert all(t.correct is None for t in first[1:])  # samples are checked by the metric, not trusted
    assert not merged.problems[2].trajectories[1:]  # problems the sampling builds did not reach


def test_samples_bad_lines_and_answers_that_disagree_are_named(tmp_path):
    import json

    from node_builder.importers import samples

    problems = gsm8k.load(RAW / "gsm8k" / "test.jsonl").problems[:2]
    path = _samples_file(tmp_path / "samples.jsonl", "hf:/m/Tiny-1B", problems, ["\\boxed{18}"])
    good = path.read_text()
    legacy = json.dumps({"id": "gsm8k/test/5", "backend": "hf:/m/Tiny-1B", "samples": ["x"]})  # older builder
    wrong = json.dumps({"id": "gsm8k/test/3", "backend": "hf:/m/Tiny-1B", "samples": "x", "problem": "q",
                        "answer": "1"})
    other = json.dumps({"id": problems[1].id, "backend": "hf:/m/Tiny-1B", "samples": ["y"],
                        "problem": problems[1].problem, "answer": "4"})
    path.write_text(good + legacy + "\n" + wrong + "\n" + other + '\n{"id": "gsm8k/te', encoding="utf-8")
    loaded = samples.load(path, "gsm8k")
    assert [p.id for p in loaded.problems] == [problems[0].id, problems[1].id, problems[1].id]
    reasons = {s.where: s.reason for s in loaded.skipped}
    assert reasons[f"{path}:3"] == "field 'problem' missing or not a string"
    assert reasons[f"{path}:4"] == "field 'samples' is not a list of strings"
    assert reasons[f"{path}:6"].startswith("malformed JSON")
    merged = load_sources([f"gsm8k:{RAW}/gsm8k/test.jsonl", f"samples:{path}"], "gsm8k")
    assert [len(p.trajectories) for p in merged.problems[:2]] == [2, 2]  # the reference and one sample each
    [disagrees] = [s for s in merged.skipped if s.where == f"{path}:5"]
    assert disagrees.reason.startswith("answer '4' disagrees with '3' from ")
    assert samples.load(tmp_path, "gsm8k").skipped[0].reason == (
        f"a folder: name the work dir's samples file (--source samples:{tmp_path / 'samples.jsonl'})")


def test_samples_only_drops_imported_solutions_but_keeps_earlier_samples(tmp_path):
    from node_builder.generate import attach_samples

    problems = gsm8k.load(RAW / "gsm8k" / "test.jsonl").problems[:1]
    earlier = _samples_file(tmp_path / "a.jsonl", "vllm:org/Alpha-7B", problems, ["\\boxed{18}"])
    [problem] = load_sources([f"gsm8k:{RAW}/gsm8k/test.jsonl", f"gsm8k-socratic:{RAW}/gsm8k/test_socratic.jsonl",
                              f"samples:{earlier}"], "gsm8k").problems[:1]
    attach_samples(problem, {"backend": "hf:/models/Beta-1B", "samples": ["18", "17"]}, samples_only=True)
    assert [(t.source, t.voice) for t in problem.trajectories] == [
        ("sample:vllm:org/Alpha-7B", "Alpha-7B"), ("sample:hf:/models/Beta-1B", "Beta-1B"),
        ("sample:hf:/models/Beta-1B", "Beta-1B")]
