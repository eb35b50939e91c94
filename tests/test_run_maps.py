"""Every staged model run in (issue 23, part 1): one importer reads each source through its declared
field map (node_builder/run_maps.py). Joins to the benchmark's problems, text cleanup on real rows
(doubled backslashes undone, programs dropped, printed outputs kept, step labels removed), voices
(one per model), the source's own verdicts ignored, and bad input: bad rows with ``file:line``, a run
file that mostly fails to join stops the build, a field map naming a field the file lacks is refused
before any work.

Fixtures: tests/fixtures/node_builder/raw/trajectories/<repository>/<benchmark>/ -- real rows of each
staged run, copied byte for byte (see the fixtures README), for the problems of tests/fixtures/node_builder/raw/."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from node_builder.build import InputError, build_file, check_sources
from node_builder.filter import filter_problem, is_correct
from node_builder.importers import load_sources
from node_builder.importers.runs import RunMap, check_fields, load, parse_path
from node_builder.pipeline import BuildConfig
from node_builder.run_maps import RUN_MAPS, STAGED_RUNS, maps_table, voices_table
from node_builder.shipped import SHIPPED

REPO = Path(__file__).resolve().parents[1]
FIX = REPO / "tests" / "fixtures" / "node_builder"
RUNS = FIX / "raw" / "trajectories"
BASE = {"math500": [f"math500:{FIX}/raw/math500/test_ori.jsonl"],
        "gsm8k": [f"gsm8k:{FIX}/raw/gsm8k/test.jsonl"],
        "aime24": [f"aime24:{FIX}/raw/aime24/test.jsonl"]}


def _merged(benchmark, *runs):
    return load_sources(BASE[benchmark] + [f"runs.{name}:{RUNS / path}" for name, path in runs], benchmark)


def _run_texts(merged, voice=None):
    return [t for p in merged.problems for t in p.trajectories if t.source.startswith("model:")
            and (voice is None or t.voice == voice)]


# ------------------------------------------------------------------------------ joins, per map
@pytest.mark.parametrize("benchmark, name, path, rows, joined, outside, voices", [
    ("math500", "rho-cot", "rho/math500", 8, 8, 0, {"rho-math-7b"}),
    ("math500", "rho-tool", "rho/math500", 8, 8, 0, {"rho-math-7b"}),
    ("math500", "skythought-tools", "skythought_tools/math500", 2, 2, 0, {"Qwen2.5-32B-Instruct"}),
    ("math500", "prmbench-qwq", "prmbench/math500", 3, 3, 0, {"QwQ"}),
    ("math500", "prm800k-gpt4", "prmbench/process", 5, 3, 0, {"gpt-4"}),
    ("math500", "mathcoder-math", "mathcoder/math", 3, 2, 1, {"MathCoder-L-7B"}),
    ("gsm8k", "rho-cot", "rho/gsm8k", 8, 8, 0, {"rho-math-7b"}),
    ("gsm8k", "rho-tool", "rho/gsm8k", 8, 8, 0, {"rho-math-7b"}),
    ("gsm8k", "faithful-cot", "faithful_cot/gsm8k", 16, 8, 0, {"gpt-4", "gpt-3.5-turbo"}),
    ("gsm8k", "rereading-gpt-4o-mini", "rereading/gsm8k", 4, 2, 0, {"gpt-4o-mini"}),
    ("gsm8k", "rereading-gpt-3.5-turbo", "rereading/gsm8k", 2, 2, 0, {"gpt-3.5-turbo"}),
    ("gsm8k", "rereading-text-davinci-003", "rereading/gsm8k", 2, 2, 0, {"text-davinci-003"}),
    ("gsm8k", "llm-reasoners", "llm_reasoners/gsm8k", 8, 8, 0, {"dbrx"}),
    ("gsm8k", "tora", "tora/gsm8k", 8, 8, 0, {"tora-70b"}),
    ("gsm8k", "mathcoder-gsm8k", "mathcoder/gsm8k", 4, 4, 0, {"MathCoder-L-7B"}),
    ("aime24", "skythought-tools", "skythought_tools/aime24", 1, 1, 0, {"Qwen2.5-32B-Instruct"}),
])
def test_each_map_joins_its_real_rows_to_the_benchmark(benchmark, name, path, rows, joined, outside, voices):
    merged = _merged(benchmark, (name, path))
    assert not merged.skipped, merged.skipped[:3]
    counts = list(merged.files.values())
    assert sum(c.rows for c in counts) == rows and sum(c.outside for c in counts) == outside
    assert len(set().union(*(c.joined for c in counts))) == joined
    runs = _run_texts(merged)
    assert {t.voice for t in runs} == voices
    assert all(t.correct is None for t in runs)  # our acc decides later, never the source's verdict
    assert all(t.origin.rsplit(":", 1)[0] in merged.files for t in runs)


def test_a_line_index_joins_through_the_companion_file():
    merged = _merged("gsm8k", ("faithful-cot", "faithful_cot/gsm8k"))
    robe = next(p for p in merged.problems if p.id == "gsm8k/test/1")  # id 1 = line 2 of test@3017843.jsonl
    texts = {t.voice: t.text for t in robe.trajectories}
    assert texts["gpt-4"].startswith("A robe takes 2 bolts of blue fiber and half that much white fiber")
    assert "companion" not in " ".join(merged.files)  # test@3017843.jsonl is not read as a run
    assert not any("test@" in f for f in merged.files)


def test_a_unique_id_joins_by_id_and_rows_outside_the_benchmark_are_counted_not_reported():
    merged = _merged("math500", ("mathcoder-math", "mathcoder/math"))
    (count,) = merged.files.values()
    assert count.outside == 1 and count.skipped == 0 and not merged.skipped
    assert count.joined == {"math500/test/algebra/2584", "math500/test/number_theory/572"} and count.outputs == 2


# ------------------------------------------------------------------------------ text cleanup
def test_rho_cot_doubled_backslashes_are_undone_on_real_rows():
    merged = _merged("math500", ("rho-cot", "rho/math500"))
    by_id = {p.id: p.trajectories[-1].text for p in merged.problems}
    raw = [json.loads(line)["code"][0] for line in (RUNS / "rho/math500/rho-math-7b-v0.1@3296590.jsonl").open()]
    assert "\\\\frac{21}{3}" in raw[5] and "\\\\boxed{42}" in raw[5]  # the dump: \\frac where LaTeX means \frac
    hexagon = by_id["math500/test/prealgebra/1622"]
    assert "$\\frac{21}{3}=7$" in hexagon and "\\\\" not in hexagon and "\\boxed{42}" in hexagon
    lines = by_id["math500/test/precalculus/927"]  # mixed: doubled commands, align line breaks
    assert "\\\\vec" not in lines and "\\vec{v}_1 &= (3,2,-2),\\\\\n" in lines
    assert is_correct("42", hexagon)


def test_tool_integrated_outputs_keep_prose_and_printed_output_not_code():
    for benchmark, name, path in (("math500", "rho-tool", "rho/math500"), ("gsm8k", "rho-tool", "rho/gsm8k"),
                                  ("gsm8k", "tora", "tora/gsm8k")):
        for t in _run_texts(_merged(benchmark, (name, path))):
            assert "```python" not in t.text and "def " not in t.text and "print(" not in t.text, t.text
            assert '"""' not in t.text  # the program's docstring (a copy of the problem) went with it
    robe = next(p for p in _merged("gsm8k", ("tora", "tora/gsm8k")).problems if p.id == "gsm8k/test/1")
    assert robe.trajectories[-1].text == "```output\n3.0\n```\nA robe takes $\\boxed{3}$ bolts in total."


def test_turns_keep_text_and_execution_output_and_drop_code():
    merged = _merged("gsm8k", ("mathcoder-gsm8k", "mathcoder/gsm8k"))
    row = json.loads((RUNS / "mathcoder/gsm8k/MathCoder-L-7b-correct@d6c91fb.jsonl").open().readline())
    code = [turn["content"] for turn in row["debug_result"] if turn["role"] == "code"]
    text = next(p for p in merged.problems if p.id == "gsm8k/test/1").trajectories[-1].text
    assert code and not any(c.strip().splitlines()[0] in text for c in code)
    assert "```output\n3.0\n```" in text and "\\(\\boxed{3}\\)" in text
    assert row["messages"][1]["content"][0]["content"] not in text  # the user turn (the problem) is not an output


def test_step_labels_and_indentation_are_removed_and_the_prm800k_answer_is_boxed():
    qwq = _run_texts(_merged("math500", ("prmbench-qwq", "prmbench/math500")))
    assert qwq and not any("Step 1." in t.text or t.text.startswith(" ") or "\n        " in t.text for t in qwq)
    # QwQ's line 72 states its answer PRM800K's way, unboxed under `# Answer`: boxed, where acc reads it
    raw = [json.loads(line) for line in (RUNS / "prmbench/math500/QwQ@f260a05.jsonl").open()]
    assert raw[2]["original_response"].rstrip().endswith("# Answer\n\n        9")
    divisors = next(t.text for t in qwq if t.origin.endswith("QwQ@f260a05.jsonl:3"))
    assert "# Answer" not in divisors and divisors.endswith("The answer is $\\boxed{9}$.")
    assert is_correct("9", divisors)
    merged = _merged("math500", ("prm800k-gpt4", "prmbench/process"))
    gpt4 = _run_texts(merged)
    assert all("\n# Answer" not in t.text for t in gpt4)
    raw = json.loads((RUNS / "prmbench/process/prm800k_test_p2_4o_confidence.jsonl").open().readline())
    assert raw["original_process"][-2:] == ["# Answer", "p - q"]
    text = next(t.text for t in gpt4 if t.origin.endswith("prm800k_test_p2_4o_confidence.jsonl:1"))
    assert text.startswith(raw["original_process"][0]) and raw["original_process"][1] in text
    assert text.endswith("= p - q.\\]\nThe answer is $\\boxed{p - q}$.")
    assert is_correct("p - q", text)


def test_a_solution_repeated_across_files_is_read_once():
    merged = _merged("math500", ("prm800k-gpt4", "prmbench/process"))
    counts = merged.files
    assert sum(c.duplicates for c in counts.values()) == 5 - sum(c.outputs for c in counts.values())
    texts = [t.text for t in _run_texts(merged)]
    assert len(texts) == len(set(texts)) and sum(c.duplicates for c in counts.values()) >= 1


@pytest.mark.parametrize("encode", [json.dumps, repr])
def test_a_list_stored_as_a_json_or_python_literal_string_reads_as_the_list(tmp_path, encode):
    line = (RUNS / "prmbench/process/prm800k_test_p1_4o_circular.jsonl").read_text().splitlines()[0]
    row = json.loads(line)
    as_list = load(RUNS / "prmbench/process/prm800k_test_p1_4o_circular.jsonl", "math500", RUN_MAPS["prm800k-gpt4"])
    row["original_process"] = encode(row["original_process"])
    (tmp_path / "prm800k_test_x.jsonl").write_text(json.dumps(row) + "\n")
    as_string = load(tmp_path, "math500", RUN_MAPS["prm800k-gpt4"])
    assert [t.text for t in as_string.problems[0].trajectories] == [t.text for t in as_list.problems[0].trajectories]


# ------------------------------------------------------------------------------ voices
def test_one_voice_per_model_across_prompts_passes_fine_tunes_and_repositories():
    gsm8k = _merged("gsm8k", ("rho-cot", "rho/gsm8k"), ("rho-tool", "rho/gsm8k"),
                    ("faithful-cot", "faithful_cot/gsm8k"),
                    ("rereading-gpt-4o-mini", "rereading/gsm8k"), ("rereading-gpt-3.5-turbo", "rereading/gsm8k"))
    problem = next(p for p in gsm8k.problems if p.id == "gsm8k/test/1")
    sources_by_voice = {}
    for t in problem.trajectories:
        sources_by_voice.setdefault(t.voice, set()).add(t.source)
    assert sources_by_voice["rho-math-7b"] == {"model:rho-math-7b-v0.1", "model:rho-math-7b-interpreter-v0.1"}
    assert sources_by_voice["gpt-3.5-turbo"] == {"model:gpt-3.5-turbo_COT", "model:gpt-3.5-turbo"}
    four_o = [t for t in problem.trajectories if t.voice == "gpt-4o-mini"]
    assert len({t.origin.rsplit(":", 1)[0] for t in four_o}) == 2  # read once and read twice: one voice
    gpt4 = RUN_MAPS["prm800k-gpt4"].voice_of("prm800k-gpt-4")
    assert RUN_MAPS["faithful-cot"].voice_of("gpt4_COT") == gpt4 == "gpt-4"
    assert RUN_MAPS["faithful-cot"].voice_of("text003_COT") == RUN_MAPS["rereading-text-davinci-003"].voice_of(
        "text-davinci-003") == "text-davinci-003"
    tools = _merged("aime24", ("skythought-tools", "skythought_tools/aime24"))
    assert {t.voice for t in _run_texts(tools)} == {"Qwen2.5-32B-Instruct"}


def test_the_source_verdict_is_ignored_our_acc_decides(tmp_path):
    lines = (RUNS / "rho/math500/rho-math-7b-interpreter-v0.1@3296590.jsonl").read_text().splitlines()
    row = json.loads(lines[5])  # the hexagon: the run answers 126, the gold is 42
    assert row["score"] == [False]
    row["score"] = [True]
    run = tmp_path / "rho-math-7b-interpreter-v0.1@x.jsonl"
    run.write_text(json.dumps(row) + "\n")
    merged = load_sources(BASE["math500"] + [f"runs.rho-tool:{run}"], "math500")
    (count,) = merged.files.values()
    assert count.verdict_true == 1
    problem = next(p for p in merged.problems if p.id == "math500/test/prealgebra/1622")
    filter_problem(problem)
    assert [t.correct for t in problem.trajectories if t.source.startswith("model:")] == [False]


def test_json_rows_are_named_by_the_line_their_entry_starts_on():
    merged = _merged("math500", ("skythought-tools", "skythought_tools/math500"))
    origins = sorted(int(t.origin.rsplit(":", 1)[1]) for t in _run_texts(merged))
    assert origins == [2, 24]


# ------------------------------------------------------------------------------ bad input
def test_bad_rows_are_skipped_with_file_and_line_and_counted(tmp_path):
    good = (RUNS / "llm_reasoners/gsm8k/dbrx@ff89b95.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in good]
    lines = [good[0],
             '{"question": "torn',
             json.dumps({**rows[1], "gt_answer": "12345"}),
             json.dumps({**rows[2], "question": "What is 1 + 1 in a benchmark we do not have?"}),
             json.dumps({k: v for k, v in rows[3].items() if k != "metadata_generation"}),
             json.dumps({**rows[4], "metadata_generation": "   "}),
             json.dumps({**rows[5], "metadata_generation": 7}),
             good[6], good[7], "[1, 2]"]
    run = tmp_path / "dbrx@x.jsonl"
    run.write_text("\n".join(lines) + "\n")
    merged = load_sources(BASE["gsm8k"] + [f"runs.llm-reasoners:{run}"], "gsm8k")
    reasons = {s.where: s.reason for s in merged.skipped}
    assert set(reasons) == {f"{run}:{n}" for n in (2, 3, 4, 5, 6, 7, 10)}
    assert "malformed JSON" in reasons[f"{run}:2"]
    assert "answer '12345' disagrees" in reasons[f"{run}:3"]
    assert "problem not in the benchmark" in reasons[f"{run}:4"]
    assert "'metadata_generation' missing" in reasons[f"{run}:5"]
    assert "holds no output" in reasons[f"{run}:6"] and "not a string" in reasons[f"{run}:7"]
    assert "expected a JSON object" in reasons[f"{run}:10"]
    count = merged.files[str(run)]
    assert (count.rows, count.skipped, len(count.joined)) == (10, 7, 3)


def test_a_run_file_that_mostly_fails_to_join_stops_the_build(tmp_path):
    run = tmp_path / "dbrx@x.jsonl"
    run.write_bytes((RUNS / "llm_reasoners/gsm8k/dbrx@ff89b95.jsonl").read_bytes())
    with pytest.raises(InputError, match=f"{run}: 8 of 8 rows with an output do not join the math500 problems"):
        build_file("math500", BASE["math500"] + [f"runs.llm-reasoners:{run}"], tmp_path / "out.jsonl",
                   tmp_path / "w", BuildConfig(), quiet=True)
    assert not (tmp_path / "out.jsonl").exists() and not (tmp_path / "w").exists()
    cli = subprocess.run([sys.executable, "-m", "node_builder", "build", "--benchmark", "math500", "--source",
                          BASE["math500"][0], "--source", f"runs.llm-reasoners:{run}", "--out", str(tmp_path / "o.jsonl"),
                          "--workdir", str(tmp_path / "w")], capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert cli.returncode == 2 and len(cli.stderr.strip().splitlines()) == 1, cli.stderr
    assert f"{run}: 8 of 8 rows with an output do not join" in cli.stderr and f"(first: {run}:1: " in cli.stderr


def test_a_run_whose_model_mostly_wrote_nothing_is_not_a_failed_join():
    # real: SkyThought's Llama-3.1-8B AIME 2024 run has 20 of 30 empty outputs; here 6 of 8 rows of DBRX
    rows = [json.loads(line) for line in (RUNS / "llm_reasoners/gsm8k/dbrx@ff89b95.jsonl").open()]
    for row in rows[2:]:
        row["metadata_generation"] = ""
    import tempfile

    run = Path(tempfile.mkdtemp()) / "dbrx@x.jsonl"
    run.write_text("".join(json.dumps(row) + "\n" for row in rows))
    merged = load_sources(BASE["gsm8k"] + [f"runs.llm-reasoners:{run}"], "gsm8k")
    count = merged.files[str(run)]
    assert (count.skipped, count.empty, len(count.joined), count.failed_share()) == (6, 6, 2, 0.0)


def test_a_map_naming_a_field_the_file_lacks_is_refused_before_any_work(tmp_path):
    faithful = RUNS / "faithful_cot/gsm8k/gpt4_COT@3017843.jsonl"
    assert check_fields(faithful, RUN_MAPS["llm-reasoners"]) == (
        f"{faithful}: map 'llm-reasoners' reads field 'question' (problem), which none of its first 8 rows has")
    with pytest.raises(InputError, match="reads field 'question'"):
        check_sources(BASE["gsm8k"] + [f"runs.llm-reasoners:{faithful}"])
    folder = tmp_path / "faithful"
    folder.mkdir()
    (folder / "gpt4_COT@x.jsonl").write_bytes(faithful.read_bytes())  # no companion file beside it
    assert "needs the companion file" in check_fields(folder, RUN_MAPS["faithful-cot"])
    rows = [json.loads(line) for line in (RUNS / "faithful_cot/gsm8k/test@3017843.jsonl").open()]
    (folder / "test@3017843.jsonl").write_text("".join(json.dumps({"problem": r["question"]}) + "\n" for r in rows))
    assert check_fields(folder, RUN_MAPS["faithful-cot"]) == (
        f"{folder / 'test@3017843.jsonl'}: map 'faithful-cot' reads field 'question' (statement), which none of "
        "its first 8 rows has")


def test_the_cli_says_it_in_one_line_with_exit_status_2(tmp_path):
    faithful = RUNS / "faithful_cot/gsm8k/gpt4_COT@3017843.jsonl"
    run = subprocess.run([sys.executable, "-m", "node_builder", "build", "--benchmark", "gsm8k", "--source",
                          BASE["gsm8k"][0], "--source", f"runs.tora:{faithful}", "--out", str(tmp_path / "o.jsonl"),
                          "--workdir", str(tmp_path / "w")], capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "map 'tora' reads field 'question'" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "w").exists()
    bad = subprocess.run([sys.executable, "-m", "node_builder", "build", "--benchmark", "gsm8k", "--source",
                          f"runs.nope:{faithful}", "--out", str(tmp_path / "o.jsonl")], capture_output=True, text=True,
                         timeout=300, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert bad.returncode == 2 and "runs.MAP with MAP one of" in bad.stderr


def test_field_paths():
    assert parse_path("cot.generation[0]") == ("cot", "generation", 0)
    for bad in ("", "a..b", ".a", "a[", "a[x]"):
        with pytest.raises(ValueError):
            parse_path(bad)
    with pytest.raises(ValueError, match="join 'line' and a companion"):
        RunMap(name="x", join="line")


# ------------------------------------------------------------------------------ the build summary
def test_the_build_summary_counts_each_run_file_with_our_acc(tmp_path):
    sources = BASE["gsm8k"] + [f"runs.tora:{RUNS / 'tora/gsm8k'}", f"runs.rho-cot:{RUNS / 'rho/gsm8k'}"]
    summary = build_file("gsm8k", sources, tmp_path / "out.jsonl", tmp_path / "w", BuildConfig(), quiet=True)
    expected = Counter()
    for problem in load_sources(sources, "gsm8k").problems:
        for t in problem.trajectories:
            if t.origin and is_correct(problem.answer, t.text):
                expected[t.origin.rsplit(":", 1)[0]] += 1
    runs = summary["runs"]
    assert set(runs) == {str(RUNS / "tora/gsm8k/tora-70b-v1.0@213c1c9.jsonl"),
                         str(RUNS / "rho/gsm8k/rho-math-7b-v0.1@3296590.jsonl")}
    for file, row in runs.items():
        assert (row["rows"], row["joined"], row["skipped"], row["outputs"]) == (8, 8, 0, 8)
        assert row["correct"] == expected[file] and 0 < row["correct"] <= 8
    # a resumed build reads the counts from its work dir
    again = build_file("gsm8k", sources, tmp_path / "out.jsonl", tmp_path / "w", BuildConfig(), quiet=True)
    assert again["runs"] == runs


# ------------------------------------------------------------------------------ every staged run in
def test_shipped_sets_read_every_staged_run_and_the_readme_tables_are_current():
    for benchmark, runs in STAGED_RUNS.items():
        for map_name, folder in runs:
            kind = "runs" if map_name == "skythought" else f"runs.{map_name}"
            assert f"{kind}:{{raw}}/{folder}" in SHIPPED[benchmark]
    assert not any(s.startswith("runs") for s in SHIPPED["gsm8k_train"] + SHIPPED["aime25"])
    readme = (REPO / "node_builder" / "README.md").read_text()
    assert maps_table() in readme and voices_table() in readme  # python -m node_builder.run_maps prints them


RAW = Path(__import__("os").environ.get("CONSENSUSBENCH_RAW", REPO.parent / "shared" / "data" / "raw"))


@pytest.mark.skipif(not (RAW / "trajectories").is_dir(), reason="needs the raw sources (CONSENSUSBENCH_RAW)")
def test_every_staged_run_file_is_read_by_one_map_of_its_benchmark():
    from node_builder.importers.runs import run_files

    taken = Counter()
    for benchmark, runs in STAGED_RUNS.items():
        for map_name, folder in runs:
            for file in run_files(RAW / folder, RUN_MAPS[map_name].files):
                taken[file.relative_to(RAW).as_posix()] += 1
                assert check_fields(file, RUN_MAPS[map_name]) is None
    staged = {p.relative_to(RAW).as_posix() for p in (RAW / "trajectories").rglob("*") if p.is_file()}
    left_out = {"trajectories/llm_reasoners/process/gsm8k_human_labels@6538cc0.jsonl",  # process labels
                "trajectories/faithful_cot/gsm8k/test@3017843.jsonl"}  # the companion of the Faithful-CoT runs
    assert set(taken) == staged - left_out and set(taken.values()) == {1}


def test_json_nested_deeper_than_the_decoder_goes_costs_its_row_only(tmp_path):
    good = (RUNS / "llm_reasoners/gsm8k/dbrx@ff89b95.jsonl").read_text().splitlines()[0]
    run = tmp_path / "jsonl" / "dbrx@x.jsonl"
    run.parent.mkdir()
    run.write_text("[" * 200_000 + "]" * 200_000 + "\n" + good + "\n")
    loaded = load(run.parent, "gsm8k", RUN_MAPS["llm-reasoners"])
    assert [(s.where, s.reason) for s in loaded.skipped] == [(f"{run}:1", "malformed JSON (nested too deeply at column 1)")]
    assert len(loaded.problems) == 1
    tools = (RUNS / "skythought_tools/aime24/Qwen2.5-32B-Instruct-still2_sys_zero@7d33531.json").read_text()
    deep = tmp_path / "json" / "Qwen2.5-32B-Instruct-x@y.json"
    deep.parent.mkdir()
    deep.write_text(tools.rstrip()[:-1].rstrip() + ',\n    "deep": ' + "[" * 200_000 + "]" * 200_000 + "\n}")
    loaded = load(deep.parent, "aime24", RUN_MAPS["skythought-tools"])
    assert len(loaded.problems) == 1 and loaded.skipped[0].reason.startswith("JSON nested too deeply")
    assert loaded.skipped[0].where == f"{deep}:23"
