"""reports: the leaderboard, diagnostics and comparison built from real lm-eval output folders.

The fixtures in tests/fixtures/reports/ are untouched `lm_eval --log_samples` outputs of the
embedded SmolLM2-135M-Instruct with different settings (see make_fixtures.sh there). Expected
values are recomputed here straight from those JSON files, independently of `reports`.
``scores-only`` is a run of the current task version (1.2: scores in the results, diagnostics in
the samples' ``doc.consensusbench``); the others are older versions (1.0/1.1), read alike.
"""

from __future__ import annotations

import doctest
import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import reports
from reports import build as build_module
from reports import compare, diagnostics, html, leaderboard, loading, samples
from reports.build import ReportOptions, build_report

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "reports"
RUN_NAMES = ("greedy-192", "greedy-64", "sampled", "pass16", "think", "think-traces", "scores-only")
SPECS = [str(FIXTURES / name) for name in RUN_NAMES]


def results_files(name: str) -> list[Path]:
    return sorted((FIXTURES / name).rglob("results_*.json"))


def raw_results(name: str, index: int = 0) -> dict:
    return json.loads(results_files(name)[index].read_text())


def scores_of(line: dict) -> list[dict]:
    """The per-generation scores of a samples line: ``doc.consensusbench.trajectories`` (task
    version 1.2) or the line's ``trajectories`` (1.0/1.1)."""
    return line["trajectories"] if "trajectories" in line else line["doc"]["consensusbench"]["trajectories"]


def raw_samples(name: str, task: str, index: int = 0) -> list[dict]:
    stamp = results_files(name)[index].name[len("results_"):-len(".json")]
    path = next((FIXTURES / name).rglob(f"samples_{task}_{stamp}.jsonl"))
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    written = build_report(SPECS, out, ReportOptions(baseline="greedy-192"))
    return out, written


@pytest.fixture(scope="module")
def board(report):
    out, _ = report
    return pd.read_csv(out / "leaderboard.csv").set_index("run")


def test_fixtures_are_real_lm_eval_outputs_and_small():
    total = 0
    for name in RUN_NAMES:
        files = results_files(name)
        assert files, name
        for path in files:
            data = json.loads(path.read_text())
            assert data["lm_eval_version"] and data["config"]["model"] == "hf"
        total += sum(p.stat().st_size for p in (FIXTURES / name).rglob("*") if p.is_file())
    assert total < 700_000, f"fixtures grew to {total} bytes"


def test_one_row_per_run_with_repeats_split(board):
    assert sorted(board.index) == sorted(
        ["greedy-192", "greedy-64", "sampled #1", "sampled #2", "pass16", "think", "think-traces",
         "scores-only"])
    assert board.loc["sampled #1", "date"] < board.loc["sampled #2", "date"]
    assert board.loc["pass16", "settings"].startswith("T=0.6 top-p=0.95, 16 samples")
    assert board.loc["greedy-192", "settings"] == "greedy, max 192 tok"


def test_values_match_the_results_json(board):
    for name, label in (("greedy-192", "greedy-192"), ("greedy-64", "greedy-64"),
                        ("think", "think"), ("scores-only", "scores-only")):
        for task, entry in raw_results(name)["results"].items():
            key = task.removeprefix("consensusbench_")
            for metric in ("acc", "ncr", "tpn", "n_tokens"):
                expected = entry.get(f"{metric},none")
                value = board.loc[label, f"{key}/{metric}"]
                if expected is None:
                    assert math.isnan(value), (label, key, metric)
                else:
                    assert value == pytest.approx(expected), (label, key, metric)
                    stderr = entry.get(f"{metric}_stderr,none")
                    if isinstance(stderr, float):
                        assert board.loc[label, f"{key}/{metric}_stderr"] == pytest.approx(stderr)
            assert board.loc[label, f"{key}/n"] == raw_results(name)["n-samples"][task]["effective"]
    # the second repeat of the sampled model comes from the second results file
    second = raw_results("sampled", 1)["results"]["consensusbench_gsm8k"]
    assert board.loc["sampled #2", "gsm8k/acc"] == pytest.approx(second["acc,none"])


def test_pass_at_k_columns_for_the_sampled_tasks(board):
    entry = raw_results("pass16")["results"]["consensusbench_gsm8k_pass16"]
    assert board.loc["pass16", "gsm8k/pass@16"] == pytest.approx(entry["pass@16,none"])
    assert board.loc["pass16", "gsm8k/acc"] == pytest.approx(entry["pass@1,none"])
    assert "gsm8k/pass@1" not in board.columns  # identical to acc, not repeated
    assert math.isnan(board.loc["greedy-192", "gsm8k/pass@16"])


def test_different_task_subsets_and_the_shared_mean(board, report):
    out, _ = report
    assert math.isnan(board.loc["greedy-192", "aime24/acc"])
    assert not math.isnan(board.loc["greedy-64", "aime24/acc"])
    assert math.isnan(board.loc["greedy-64", "aime25/acc"])  # only the think runs have AIME 2025
    # mean over the benchmarks every run has (math500 and gsm8k), not over aime24/aime25
    for label in board.index:
        expected = (board.loc[label, "math500/acc"] + board.loc[label, "gsm8k/acc"]) / 2
        assert board.loc[label, "mean/acc"] == pytest.approx(expected)
    md = (out / "leaderboard.md").read_text()
    assert "macro average over the benchmarks every run has (math500, gsm8k)" in md
    page = (out / "index.html").read_text()
    assert "aime24 missing in" in page and "aime25 missing in" in page


def test_markdown_table(report, board):
    md = (report[0] / "leaderboard.md").read_text()
    lines = md.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    table = lines[start:lines.index("", start)]
    assert len(table) == 2 + len(board)
    header = [cell.strip() for cell in table[0].strip("|").split("|")]
    assert header[:3] == ["Run", "Model", "Settings"]
    for column in ("math500 Acc", "math500 NCR", "math500 TPN", "math500 Tokens", "gsm8k pass@16",
                   "aime24 Acc", "aime25 NCR"):
        assert column in header
    for label in board.index:
        assert f"| {label} " in md
    assert "±" in md
    assert "## Compared with `greedy-192`" in md


def test_sorting_by_any_column(tmp_path):
    frame = leaderboard.leaderboard_frame(loading.load_runs(SPECS))
    by_ncr = leaderboard.sort_leaderboard(frame, "gsm8k/ncr")
    values = by_ncr["gsm8k/ncr"].dropna().tolist()
    assert values == sorted(values, reverse=True)
    by_tpn = leaderboard.sort_leaderboard(frame, "tpn")  # bare metric -> mean/tpn, ascending
    present = by_tpn["mean/tpn"].dropna().tolist()
    assert present == sorted(present)
    assert by_tpn["mean/tpn"].isna().tolist() == sorted(by_tpn["mean/tpn"].isna().tolist())
    by_run = leaderboard.sort_leaderboard(frame, "run", ascending=False)
    assert by_run["run"].tolist() == sorted(frame["run"], reverse=True)
    with pytest.raises(loading.ReportInputError, match="no such column; choose one of: .*gsm8k/acc"):
        leaderboard.sort_leaderboard(frame, "gsm8k/bogus")
    # through the CLI: the CSV comes out in that order
    out = tmp_path / "sorted"
    done = subprocess.run([sys.executable, "-m", "reports", "build", *SPECS, "--out", str(out),
                           "--sort-by", "math500/n_tokens", "--ascending"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    tokens = pd.read_csv(out / "leaderboard.csv")["math500/n_tokens"].tolist()
    assert tokens == sorted(tokens)


def _category(acc: float, ncr: float | None, tau: float) -> str:
    if ncr is None:
        return "no nodes"
    if acc == 1:
        return "right & covered" if ncr >= tau else "right, missing process"
    return "near miss" if ncr >= tau else "wrong & uncovered"


def test_mismatch_table_matches_the_samples(report):
    out, _ = report
    table = pd.read_csv(out / "mismatch.csv")
    table = table[table["key"] == "all"].set_index("run")
    for name, label, tasks in (
            ("greedy-192", "greedy-192", ["consensusbench_gsm8k", "consensusbench_math500"]),
            ("pass16", "pass16", ["consensusbench_gsm8k_pass16", "consensusbench_math500_pass16"]),
            ("think", "think", ["consensusbench_gsm8k", "consensusbench_math500",
                                "consensusbench_aime25"])):
        expected: dict[str, int] = {}
        for task in tasks:
            for line in raw_samples(name, task):
                for score in scores_of(line):
                    cell = _category(score["acc"], score["ncr"], 0.5)
                    expected[cell] = expected.get(cell, 0) + 1
        for cell in (*diagnostics.CATEGORIES, "no nodes"):
            assert table.loc[label, cell] == expected.get(cell, 0), (label, cell)
        with_nodes = sum(v for k, v in expected.items() if k != "no nodes")
        assert table.loc[label, "share: near miss"] == pytest.approx(
            expected.get("near miss", 0) / with_nodes)
    assert (table["threshold"] == 0.5).all()
    page = (out / "index.html").read_text()
    assert "threshold <strong>τ = 0.5</strong>" in page


def test_examples_are_linked_from_the_mismatch_table(report):
    page = (report[0] / "index.html").read_text()
    mismatch = page[page.index('id="mismatch-table"'):page.index('id="nodes"')]
    links = set(__import__("re").findall(r'href="#(ex-[^"]+)"', mismatch))
    assert links
    for anchor in links:
        assert f'<div class="example" id="{anchor}">' in page


def test_difficulty_levels_from_math500_samples(report):
    levels = pd.read_csv(report[0] / "by_level.csv")
    mine = levels[levels["run"] == "greedy-192"]
    docs = raw_samples("greedy-192", "consensusbench_math500")
    expected = {}
    for line in docs:
        expected.setdefault(line["doc"]["level"], []).append(scores_of(line)[0]["acc"])
    assert sorted(mine["level"]) == sorted(expected)
    for row in mine.itertuples():
        assert row.acc == pytest.approx(sum(expected[row.level]) / len(expected[row.level]))
        assert row.n == len(expected[row.level])


def test_node_diagnostics(report):
    out, _ = report
    missed = pd.read_csv(out / "missed_nodes.csv")
    assert set(missed["benchmark"]) >= {"gsm8k", "math500"}
    assert missed.groupby("benchmark").size().max() <= 10
    # recompute one node's miss rate from the samples files: each run counts once
    row = missed[missed["benchmark"] == "gsm8k"].iloc[-1]
    attempts, per_run = 0, []
    for name in RUN_NAMES:
        for index in range(len(results_files(name))):
            reached = seen = 0
            for task in ("consensusbench_gsm8k", "consensusbench_gsm8k_pass16"):
                try:
                    lines = raw_samples(name, task, index)
                except StopIteration:
                    continue
                for line in lines:
                    if line["doc"]["id"] != row["problem_id"] or \
                            row["node_id"] not in {n["id"] for n in line["doc"]["nodes"]}:
                        continue  # (a run scored against other nodes of the problem does not count)
                    for score in scores_of(line):
                        seen += 1
                        reached += row["node_id"] in score["covered"]
            if seen:
                attempts += seen
                per_run.append(reached / seen)
    assert row["attempts"] == attempts and row["runs"] == len(per_run)
    assert row["miss_rate"] == pytest.approx(1 - sum(per_run) / len(per_run))
    rates = missed[missed["benchmark"] == "gsm8k"]["miss_rate"].tolist()
    assert rates == sorted(rates, reverse=True)
    coverage = pd.read_csv(out / "coverage_by_position.csv")
    assert ((coverage["coverage"] >= 0) & (coverage["coverage"] <= 1)).all()
    assert set(coverage["bin"]) <= set(diagnostics.position_bin_labels())
    assert "most-missed nodes" in (out / "index.html").read_text()


def test_comparison_against_a_baseline(report, board):
    out, _ = report
    table = pd.read_csv(out / "comparison.csv")
    assert "greedy-192" not in set(table["run"])
    row = table[(table["run"] == "greedy-64") & (table["key"] == "gsm8k")
                & (table["metric"] == "acc")].iloc[0]
    assert row["delta"] == pytest.approx(board.loc["greedy-64", "gsm8k/acc"]
                                         - board.loc["greedy-192", "gsm8k/acc"])
    assert row["verdict"] == compare.verdict(row["delta"], "acc")
    assert set(table["key"]) <= {"math500", "gsm8k"}  # only benchmarks the baseline has
    page = (out / "index.html").read_text()
    section = page[page.index('id="comparison"'):page.index('id="examples"')]
    assert "▲" in section or "▼" in section
    assert 'class="better"' in section or 'class="worse"' in section
    with pytest.raises(loading.ReportInputError, match="--baseline 'nope' matches no run"):
        build_report(SPECS[:1], out / "x", ReportOptions(baseline="nope"))


def test_problem_without_nodes_counts_apart(report, board):
    # MATH-500 row 65 ships with no nodes: NCR undefined, counted, left out of the shares
    entry = raw_results("think")["results"]["consensusbench_math500"]
    assert entry["ncr_undefined,none"] == 1
    assert board.loc["think", "math500/ncr_undefined"] == 1
    table = pd.read_csv(report[0] / "mismatch.csv")
    row = table[(table["run"] == "think") & (table["key"] == "math500")].iloc[0]
    assert row["no nodes"] == 1 and row["generations"] == 7
    shares = [row[f"share: {c}"] for c in diagnostics.CATEGORIES]
    assert sum(shares) == pytest.approx(1.0)


def test_a_scores_only_run_reads_its_diagnostics_from_the_samples(board):
    """Task version 1.2: the results hold only the scores; the counts come from the samples'
    doc.consensusbench, TPN's tokenizer from the task metadata."""
    results = raw_results("scores-only")
    assert set(results["versions"].values()) == {1.2}
    for task, entry in results["results"].items():
        names = {key.split(",")[0].removesuffix("_stderr") for key in entry if "," in key}
        assert names <= {"acc", "ncr", "tpn", "n_tokens"}, names
        key = task.removeprefix("consensusbench_")
        lines = raw_samples("scores-only", task)
        for count in ("ncr_undefined", "tpn_undefined", "think_unclosed", "timed_out"):
            assert board.loc["scores-only", f"{key}/{count}"] == sum(
                line["doc"]["consensusbench"][count] for line in lines), (key, count)
        metadata = results["configs"][task]["metadata"]
        assert metadata["tpn_unit"] == metadata["tpn_tokenizer"] == results["config"]["model_args"]["pretrained"]
    assert board.loc["scores-only", "math500/ncr_undefined"] >= 1  # row 65 has no nodes
    (run,) = loading.load_runs([str(FIXTURES / "scores-only")])
    task = run.tasks["math500"]
    assert task.text_metrics["tpn_unit"] == results["configs"]["consensusbench_math500"]["metadata"]["tpn_unit"]
    assert task.metrics["trajectories"] == 7


def test_node_lists_changed_between_runs(report):
    # The data files were rebuilt between the fixture runs: the report says so when the same
    # problem carries different node lists in different runs (computed here from the samples).
    lists: dict[str, set] = {}
    for name in RUN_NAMES:
        for index in range(len(results_files(name))):
            for task in ("consensusbench_gsm8k", "consensusbench_math500", "consensusbench_aime24",
                         "consensusbench_aime25", "consensusbench_gsm8k_pass16",
                         "consensusbench_math500_pass16"):
                try:
                    lines = raw_samples(name, task, index)
                except StopIteration:
                    continue
                for line in lines:
                    nodes = tuple(sorted((n["id"], n["text"]) for n in line["doc"]["nodes"]))
                    if nodes:  # a run without nodes for the problem has no list to compare
                        lists.setdefault(line["doc"]["id"], set()).add(nodes)
    changed = sum(len(variants) > 1 for variants in lists.values())
    page = (report[0] / "index.html").read_text()
    if changed:
        assert f"{changed} problem(s) carry different node lists in different runs" in page
    else:
        assert "carry different node lists" not in page


def test_real_run_with_a_thinking_prompt(board):
    # SmolLM2-135M was asked for <think> tags (system prompt) and ignored it: a real case too.
    assert "<think>" in raw_results("think")["system_instruction"]
    assert board.loc["think", "gsm8k/think_unclosed"] == 0


def test_thinking_traces(report, board):
    """think-traces/ is the one edited fixture: the think/ generations rewritten as <think>
    traces (closed or cut off) and re-scored with the task's real code (derive_thinking.py),
    because no thinking model runs offline here."""
    out, _ = report
    assert "derived from think/" in raw_results("think-traces")["consensusbench_fixture_note"]
    entry = raw_results("think-traces")["results"]
    unclosed = sum(e.get("think_unclosed,none", 0) for e in entry.values())
    assert unclosed >= 3
    assert sum(board.loc["think-traces", f"{key}/think_unclosed"]
               for key in ("gsm8k", "math500", "aime25")) == unclosed
    gens = pd.read_csv(out / "generations.csv")
    mine = gens[gens["run"] == "think-traces"]
    assert mine["think_unclosed"].sum() == unclosed
    assert mine["has_think"].all()
    assert (mine[mine["think_unclosed"]]["acc"] == 0).all()
    page = (out / "index.html").read_text()
    assert "opened &lt;think&gt; and never closed it (scored Acc 0" in page
    assert "think-traces on gsm8k: 2" in page
    assert "<think>" not in page
    alone = build_report([str(FIXTURES / "think-traces")], out / "alone",
                         ReportOptions(examples=8))
    page = alone["index.html"].read_text()
    assert page.count("&lt;think&gt; opened and never closed: no final answer (Acc 0)") == unclosed
    assert "closed &lt;/think&gt;: Acc read after it" in page
    assert "\n&lt;/think&gt;\n\nFinal answer: \\boxed{" in page  # the trace, escaped


def test_labels_merging_and_variant_keys(tmp_path):
    # Two results files of one model folder with disjoint tasks (greedy and pass16) are one run.
    folder = tmp_path / "merged" / "model"
    folder.mkdir(parents=True)
    for name in ("greedy-192", "pass16"):
        for path in (FIXTURES / name).rglob("*"):
            if path.is_file():
                (folder / path.name).write_bytes(path.read_bytes())
    runs = loading.load_runs([f"mine={tmp_path / 'merged'}", str(FIXTURES / "greedy-192")])
    assert [run.label for run in runs] == ["mine", "greedy-192"]
    assert list(runs[0].tasks) == ["math500", "math500_pass16", "gsm8k", "gsm8k_pass16"]
    assert len(runs[0].results_paths) == 2
    # the same folder twice gets a distinct label
    twice = loading.load_runs([str(FIXTURES / "greedy-192"), str(FIXTURES / "greedy-192")])
    assert [run.label for run in twice] == ["greedy-192", "greedy-192 (2)"]
    # a results file given directly
    single = loading.load_runs([str(results_files("greedy-64")[0])])
    assert single[0].label == "SmolLM2-135M-Instruct" and "aime24" in single[0].tasks


def test_html_escapes_model_text():
    text = "<script>alert(1)</script> so x = 4 & done"
    rendered = str(html.highlight_spans(text, "", len(text), {"n1": [29, 34, 9]}))
    assert "<script>" not in rendered and "&lt;script&gt;" in rendered
    assert '<mark title="n1">x = 4</mark>' in rendered and "&amp; done" in rendered
    long_head, long_tail = "a" * 10, "b = 2"
    shortened = str(html.highlight_spans(long_head, long_tail, 100, {"n2": [95, 100]}))
    assert "85 characters not shown" in shortened and '<mark title="n2">b = 2</mark>' in shortened


def test_cli_prints_written_files(tmp_path):
    done = subprocess.run([sys.executable, "-m", "reports", "build", str(FIXTURES / "greedy-64"),
                           "--out", str(tmp_path / "r"), "--examples", "1", "--top-nodes", "3"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"wrote {tmp_path / 'r' / 'index.html'}" in done.stdout
    assert pd.read_csv(tmp_path / "r" / "missed_nodes.csv").groupby("benchmark").size().max() <= 3
    for name in ("acc_vs_ncr", "tokens"):
        assert (tmp_path / "r" / "figures" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("module", [reports, build_module, compare, diagnostics, html,
                                    leaderboard, loading, samples])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
