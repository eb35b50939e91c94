"""node_builder stages on real text: filter (the metric's acc), expand, refine rules, pipeline,
records, LLM-reply parsing and the CLI's handling of bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from consensus_metrics import match_nodes
from node_builder import BUILDER_VERSION
from node_builder.expand import equation_forms, exact_decimal, expand, latex_to_plain, value_forms
from node_builder.filter import filter_problem, is_correct, states_answer
from node_builder.llm_extractor import ExtractionError, parse_reply, parse_rewrites
from node_builder.schema import Node
from node_builder.miner import mine
from node_builder.pipeline import BuildConfig, build_record
from node_builder.refine import RefineConfig, refine
from node_builder.schema import Problem, Trajectory

REPO = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "fixtures" / "node_builder"


# ------------------------------------------------------------------ filter
@pytest.mark.parametrize("gold, text, ok", [
    ("18", "She makes 9 * 2 = $18 a day. \\boxed{18}", True),
    ("18", "<think>9 * 2 = 18</think> The answer is \\boxed{18}.", True),
    ("18", "<think>9 * 2 = 18, so \\boxed{18}", False),  # never closed: no answer
    ("\\frac{3}{4}", "so the probability is \\boxed{0.75}", True),
    ("18", "The answer is \\boxed{19}.", False),
])
def test_filter_is_the_metrics_acc(gold, text, ok):
    assert is_correct(gold, text) is ok


def test_aops_box_markups_count_as_stated_answers():
    assert states_answer("204", "$\\frac{9}{3} + 0.4 = 3.4$ hours, or $\\framebox{204}$ minutes")
    assert states_answer("73", "so $d = \\boxed{\\textbf{(073)}}.$")
    assert not states_answer("104", "Note: 1 mm is the best unit to use for drawing the figure.")


def test_filter_keeps_known_verdicts_and_decides_the_rest():
    p = Problem("t/1", "t", "2+3?", "5", trajectories=[
        Trajectory("ref", "reference", True), Trajectory("2+3=5, \\boxed{5}", "dump"),
        Trajectory("\\boxed{6}", "dump")])
    assert filter_problem(p) == 2
    assert [t.correct for t in p.trajectories] == [True, True, False]


# ------------------------------------------------------------------ expand
def test_value_forms_are_exact():
    assert value_forms("3/4") == ["3/4", "\\frac{3}{4}", "0.75"]
    assert value_forms("1/3") == ["1/3", "\\frac{1}{3}"]  # no rounded decimal
    assert exact_decimal.__call__(__import__("fractions").Fraction(1, 3)) is None
    assert value_forms("-5/2") == ["-5/2", "-\\frac{5}{2}", "-2.5"]


def test_equation_forms_swap_sides_and_convert_latex():
    forms = equation_forms("\\frac{9}{s} + t = 4")
    assert forms[:2] == ["\\frac{9}{s} + t = 4", "4 = \\frac{9}{s} + t"]
    assert "(9)/(s) + t = 4" in forms
    assert latex_to_plain("x^{2} \\cdot \\left(y\\right)") == "x^2 * (y)"


def test_every_expanded_form_is_matched_as_the_same_node():
    text = "so $4s^{2} + 8s - 45 = 0$ and $s = \\frac{5}{2}$"
    for node_text, kind, value in [("4s^{2} + 8s - 45 = 0", "equation", None), ("5/2", "value", "5/2")]:
        for form in expand(node_text, kind, value):
            assert match_nodes(text, [form])[0].covered, form


# ------------------------------------------------------------------ refine rules
def _problem(statement, answer, *texts):
    return Problem("t/1", "t", statement, answer,
                   trajectories=[Trajectory(t, "reference", True) for t in texts])


def _refined(problem, **config):
    correct = problem.correct_trajectories()
    return refine(problem, mine(correct), correct, RefineConfig(**config))


def test_refine_drops_answer_given_numbers_words_trivial_and_definitions():
    p = _problem("Ann has 16 eggs, eats three and bakes four. She sells the rest at $2 each. Profit?", "18",
                 "Let $S = a + b$. She sells 16 - 3 - 4 = 9 eggs, 9 - 8 = 1, 2 * 8 = 16 and 9 * 2 = 18, so $x = 18$.")
    nodes, stats, _ = _refined(p)
    texts = [n.text for n in nodes]
    assert "9" in texts  # the computed intermediate value
    assert "18" not in texts and "x = 18" not in texts  # the answer and "name = answer"
    assert "16" not in texts  # given in the problem
    assert "1" not in texts  # trivial
    assert "S = a + b" not in texts  # a definition
    assert stats["final_answer"] >= 2 and stats["restates_problem"] >= 1 and stats["trivial"] >= 1
    assert stats["definition"] == 1
    assert "9 * 2 = 18" in texts  # the computation yielding the answer is a process step


def test_refine_support_threshold_redundancy_cap_and_order():
    texts = ["First 3 * 7 = 21 then 21 + 5 = 26 and finally 26 * 2 = 52, so \\boxed{52}.",
             "We get 21 from 3 * 7, then 26 and 52 at the end: \\boxed{52}.",
             "Compute 3 * 7 = 21. Add five: 21 + 5 = 26; double it: \\boxed{52}.",
             "Totally different: 13 * 4 = 52, \\boxed{52}."]
    p = _problem("Multiply 3 by 7, add 5, then double. Result?", "52", *texts)
    nodes, stats, threshold = _refined(p)
    assert threshold == 0.5
    assert [n.text for n in nodes] == ["21", "26"]  # 13*4 has support 1/4 < 0.5
    assert [n.support for n in nodes] == [0.75, 0.75]
    assert stats["redundant"] >= 2  # "3 * 7 = 21" and "21 + 5 = 26" are the same checkpoints as 21, 26
    assert nodes[0].position < nodes[1].position
    capped, stats, _ = _refined(p, max_nodes=1)
    assert len(capped) == 1 and stats["over_cap"] == 1


def test_refine_falls_back_to_the_best_supported_nodes_when_none_reaches_the_threshold():
    p = _problem("Find it.", "7", "First $x = 40 + 2 = 42$, so \\boxed{7}.", "Here $y = 3 \\cdot 11 = 33$, \\boxed{7}.",
                 "Also $z = 50 + 5 = 55$ gives \\boxed{7}.")
    nodes, _, threshold = _refined(p)
    assert threshold == pytest.approx(1 / 3) and nodes
    assert _refined(p, fallback=False)[0] == []


def test_every_kept_node_matches_its_own_sources():
    p = _problem("Solve $x^2 - 5x + 6 = 0$ and report the larger root squared.", "9",
                 "Factor: $(x-2)(x-3) = 0$, so $x = 3$ is the larger root, and $3^2 = 9$. \\boxed{9}")
    nodes, _, _ = _refined(p)
    assert nodes
    for node in nodes:
        assert match_nodes(p.trajectories[0].text, [node.to_json() | {"id": "n"}])[0].covered


# ------------------------------------------------------------------ record
def test_record_schema_types_and_provenance():
    p = _problem("Ann has 5 apples and buys 7 more, then eats 3. How many?", "9", "5 + 7 = 12, and 12 - 3 = 9.")
    record = build_record(p, BuildConfig())
    assert list(record) == ["id", "benchmark", "problem", "answer", "solution", "level", "subject", "nodes", "provenance"]
    node, step = record["nodes"]
    assert node == {"id": "n1", "text": "12", "kind": "value", "forms": ["12"], "value": "12",
                    "support": 1.0, "position": 0.2963}  # "5 + 7 = [12]": offset 8 of 27
    assert step["id"] == "n2" and step["text"] == "12 - 3 = 9"  # the step that yields the answer
    prov = record["provenance"]
    assert prov["builder_version"] == BUILDER_VERSION and prov["extractor"] == "rules"
    assert prov["sources"] == ["reference"] and prov["trajectories"] == prov["correct"] == 1
    assert set(prov["refine"]) >= {"candidates", "final_answer", "restates_problem", "over_cap"}
    assert prov["llm"] == {"status": "off", "proposed": 0, "invalid": 0, "rewrites": 0} and prov["note"] == ""
    assert build_record(_problem("Ann has 5 apples and buys 7 more, then eats 3. How many?", "9",
                                 "5 + 7 = 12, and 12 - 3 = 9."), BuildConfig()) == record  # deterministic


def test_a_problem_without_trajectories_keeps_empty_nodes_and_says_why():
    record = build_record(Problem("t/2", "t", "?", "1"), BuildConfig())
    assert record["nodes"] == [] and record["provenance"]["note"] == "no source trajectories"


# ------------------------------------------------------------------ LLM replies (untrusted)
def test_llm_reply_json_is_found_inside_chatter_and_validated():
    reply = ('Sure! Here you go:\n```json\n{"nodes": [{"kind": "value", "text": "3/4"}, '
             '{"kind": "equation", "text": "4s^2+8s-45=0", "forms": ["(2s-5)(2s+9)=0"]}, '
             '{"text": 7}, {"kind": "value", "text": "many"}, "junk"]}\n```')
    nodes, invalid = parse_reply(reply, "p1")
    assert [(n.kind, n.text, n.value) for n in nodes] == [("value", "3/4", "3/4"), ("equation", "4s^2+8s-45=0", None)]
    assert invalid == 3


@pytest.mark.parametrize("reply", ["", "no json here", "{'nodes': [unquoted]}", "[1, 2", "{\"other\": 1}", "\x00" * 10])
def test_garbage_llm_replies_raise_a_clear_error_naming_the_problem(reply):
    with pytest.raises(ExtractionError, match="p7"):
        parse_reply(reply, "p7")


def test_llm_rewrites_are_kept_only_when_math_verify_confirms_them():
    reply = json.dumps({"nodes": [{"kind": "expression", "text": "\\frac{1}{2}+\\frac{1}{3}",
                                   "forms": ["\\frac{5}{6}", "\\frac{2}{3}"]}]})
    [node], _ = parse_reply(reply, "p", check_forms=True)
    assert "\\frac{5}{6}" in node.forms and "\\frac{2}{3}" not in node.forms


def test_llm_rewrites_of_kept_nodes_are_verified_and_garbage_adds_nothing():
    nodes = [Node(text="x = \\frac{3}{4}", kind="equation", forms=["x = \\frac{3}{4}"]),
             Node(text="2^{10}", kind="expression", forms=["2^{10}"])]
    reply = json.dumps({"n1": ["x = 0.75", "\\frac{3}{4} = x", "x = 0.7"], "n2": ["1024", 5, "1000"], "n9": ["?"]})
    assert parse_rewrites(reply, nodes, "p") == 3
    assert nodes[0].forms == ["x = \\frac{3}{4}", "x = 0.75", "\\frac{3}{4} = x"]
    assert nodes[1].forms == ["2^{10}", "1024"]
    with pytest.raises(ExtractionError, match="p3: LLM rewrite reply has no JSON"):
        parse_rewrites("I think n1 is fine.", nodes, "p3")


# ------------------------------------------------------------------ CLI on bad input
def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "node_builder", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})


def test_cli_reports_bad_lines_with_file_and_line_skips_them_and_keeps_the_rest(tmp_path):
    out = tmp_path / "out.jsonl"
    run = _cli("build", "--benchmark", "math500", "--source", f"math500:{FIX}/bad/math500_bad.jsonl",
               "--out", str(out), "--workdir", str(tmp_path / "w"), "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"skipped {FIX}/bad/math500_bad.jsonl:2: malformed JSON" in run.stderr
    assert f"skipped {FIX}/bad/math500_bad.jsonl:4" in run.stderr and "'answer'" in run.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in records] == ["math500/test/precalculus/807", "math500/test/algebra/2584"]
    strict = _cli("build", "--benchmark", "math500", "--source", f"math500:{FIX}/bad/math500_bad.jsonl",
                  "--out", str(out), "--workdir", str(tmp_path / "w"), "--quiet", "--strict", cwd=tmp_path)
    assert strict.returncode == 1


def test_cli_refuses_a_workdir_of_other_inputs_and_rebuilds_records_for_other_build_settings(tmp_path):
    out = tmp_path / "o.jsonl"
    common = ["--benchmark", "gsm8k", "--out", str(out), "--workdir", str(tmp_path / "w"), "--quiet"]
    test_source = f"gsm8k:{FIX}/raw/gsm8k/test.jsonl"
    assert _cli("build", "--source", test_source, *common, cwd=tmp_path).returncode == 0
    first = out.read_text()
    run = _cli("build", "--source", f"gsm8k:{FIX}/raw/gsm8k/train.jsonl", *common, cwd=tmp_path)
    assert run.returncode != 0 and "other settings (differs in: sources)" in run.stderr
    run = _cli("build", "--source", test_source, "--max-nodes", "1", *common, cwd=tmp_path)
    assert run.returncode == 0 and "old records moved to records.stale-" in run.stderr
    assert all(len(json.loads(line)["nodes"]) <= 1 for line in out.read_text().splitlines())
    assert out.read_text() != first
