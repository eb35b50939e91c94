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
from node_builder.finalize import finalize_records
from node_builder.pipeline import BuildConfig, build_record
from node_builder.consensus import ConsensusRule, select
from node_builder.evidence import gather
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


def _voices(statement, answer, *by_voice):
    """A problem whose trajectories come from voices: ``("model A", text, text), ...``."""
    trajectories = [Trajectory(text, f"model:{voice}", True, voice=voice)
                    for voice, *texts in by_voice for text in texts]
    return Problem("t/1", "t", statement, answer, trajectories=trajectories)


def _refined(problem, **rule):
    """``(nodes, drop counts, selection)`` of one problem: its evidence, then the consensus rule."""
    evidence = gather(problem)
    selection = select(evidence, ConsensusRule(**rule))
    stats = {key: evidence.stats.get(key, 0) + selection.stats.get(key, 0)
             for key in set(evidence.stats) | set(selection.stats)}
    return selection.nodes, stats, selection


def test_refine_drops_answer_given_numbers_words_trivial_and_definitions():
    p = _problem("Ann has 16 eggs, eats three and bakes four. She sells the rest at $2 each. Profit?", "18",
                 "Let $S = a + b$. She sells 16 - 3 - 4 = 9 eggs, 2 - 1 = 1, 2 * 8 = 16 and 9 * 2 = 18, so $x = 18$.")
    nodes, stats, _ = _refined(p)
    texts = [n.text for n in nodes]
    assert "9" in texts and "16 - 3 - 4 = 9" in texts  # the computed intermediate value and its computation
    assert "18" not in texts and "x = 18" not in texts  # the answer and "name = answer"
    assert "9 * 2 = 18" not in texts  # the computation of the answer is the answer, not a step
    assert "16" not in texts  # given in the problem
    assert "1" not in texts and "2 - 1 = 1" not in texts  # trivial, and a computation of trivial numbers
    assert "S = a + b" not in texts  # a definition
    assert stats["final_answer"] >= 3 and stats["restates_problem"] >= 1 and stats["trivial"] >= 2
    assert stats["definition"] == 1


def test_refine_keeps_a_trivial_value_computed_from_other_numbers():
    # GSM8K test/1085: the growth rate 8 / 4 = 2 is every solution's first step (a reviewer
    # proposed it); 2 / 2 = 1 (test/1) is made of trivial numbers alone
    rate = _problem("A crocodile grows 8 inches long in 4 years. At this rate, how many inches will it grow in 13 years?",
                    "26", "The crocodile grows 8 / 4 = 2 inches per year, so in 13 years it grows 13 * 2 = 26 inches.")
    nodes, stats, _ = _refined(rate)
    assert "8 / 4 = 2" in [n.text for n in nodes] and stats["trivial"] >= 1  # the bare 2 stays trivial
    half = _problem("A robe takes 2 bolts of blue fiber and half that much white fiber. How many bolts in total?", "3",
                    "It takes 2 / 2 = 1 bolt of white fiber, so the total is 2 + 1 = 3 bolts.")
    nodes, stats, _ = _refined(half)
    assert "2 / 2 = 1" not in [n.text for n in nodes] and stats["trivial"] >= 1


@pytest.mark.parametrize("statement, answer, text, dropped, reason", [
    # a tuple answer's components (MATH-500 intermediate_algebra/47 asks for the pair (a, b))
    ("Enter the ordered pair $(a,b)$.", "(-2,1)", "So $b + 2a = -3$, hence $a = -2$ and $b = 1$; also $a^2 + 2ab = 0$.",
     ["a = -2", "b = 1"], "answer_piece"),
    # AIME: the m, n of "m/n ... find m+n" (2024-I-4 style)
    ("The probability is $\\frac{m}{n}$ where $m$ and $n$ are relatively prime. Find $m+n$.", "116",
     "The probability is $\\frac{1}{115}$, so $m = 1$ and $n = 115$; we found $5 \\cdot 23 = 115$.",
     ["n = 115", "115"], "answer_piece"),
    # a given restated as an equation (the audit's QR = 200), a renaming and a trivial assignment
    ("In triangle PQR, QR = 200 and PQ = 150. Find PR.", "250",
     "Here $QR = 200$ and $PR^2 = 150^2 + 200^2 = 62500$. Let $A = j$ and $k = 2$.",
     ["QR = 200", "A = j", "k = 2"], None),
    # a vector answer's entries, and an answer with its unit (the hand check found both)
    ("Compute $(2b - a) \\times (3c + a)$.", "\\begin{pmatrix} -18 \\\\ -49 \\\\ 96 \\end{pmatrix}",
     "The third entry is $6 \\cdot 16 = 96$, so $z = 96$.", ["96", "z = 96"], "answer_piece"),
    ("What is the total surface area, in square inches, of a cube with a volume of 1 cubic foot?",
     "864 \\mbox{ inches}^2", "Each face is $12 \\cdot 12 = 144$, so $6 \\cdot 144 = 864$ square inches.",
     ["864", "6 \\cdot 144 = 864"], "final_answer"),
    # pieces of notation are no results: a segment name, a coefficient times a name
    ("Find CE.", "104", "Let $x = 3t$ and $y = 4t$; then $CE = DE$ and $DE^2 = 17^2 + 51^2$.", ["3t", "4t", "DE"], "fragment"),
    # no chain across the rows of a matrix: its rows are entries of a tuple, ( 1 = 5 , 2 ), and
    # the pair is not even a candidate (before the matrix reading it was mined, then dropped as
    # false arithmetic)
    ("Find the matrix.", "7", "We get $\\begin{pmatrix} 1 = 5 \\\\ 2 \\end{pmatrix}$ and $3 \\cdot 9 = 27$.",
     ["1 = 5", "5"], None),
    # false arithmetic: a chain read across the lines of an alignment
    ("Find the sum.", "7", "We get $\\begin{align} 1 &= 5 \\\\ 2 \\end{align}$ and $3 \\cdot 9 = 27$.",
     ["1 = 5"], "false_arithmetic"),
])
def test_refine_drops_what_the_audit_found_is_no_intermediate_result(statement, answer, text, dropped, reason):
    nodes, stats, _ = _refined(_problem(statement, answer, text))
    texts = [n.text.replace(" ", "") for n in nodes]
    for item in dropped:
        assert item.replace(" ", "") not in texts, item
    if reason:
        assert stats[reason] >= 1


def test_refine_duplicates_of_one_inequality_are_one_node_and_bare_bounds_are_fragments():
    p = _voices("Find the integer x.", "3", ("A", "By the triangle inequality $2x > 4$ and $x < 4$."),
                ("B", "We need $4 < 2x$ and $4 > x$ here."))
    nodes, stats, _ = _refined(p)
    assert [n.text.replace(" ", "") for n in nodes if n.kind == "proposition"] in (["2x>4"], ["4<2x"])
    assert stats["fragment"] >= 1  # x < 4: a bare bound (a case condition), no result


def test_refine_support_counts_voices_and_needs_a_share_of_two_or_more_voices():
    p = _voices("Multiply 3 by 7, add 5, then double. Result?", "52",
                ("A", "First 3 * 7 = 21 then 21 + 5 = 26 and finally 26 * 2 = 52, so \\boxed{52}.",
                 "Again: 3 * 7 = 21, and 13 * 4 = 52, \\boxed{52}."),  # one model, two samples: one voice
                ("B", "We get 21 from 3 * 7, then 26 (26 - 1 = 25 is too small) and 52 at the end: \\boxed{52}."),
                ("C", "Compute 3 * 7 = 21. Add five: 21 + 5 = 26; double it: \\boxed{52}."),
                ("D", "It is 3 times 7 plus 5, doubled: \\boxed{52}."))
    nodes, stats, selection = _refined(p)
    by_text = {n.text: n.support for n in nodes}
    # D shows no work (no intermediate result at all): it has no say; 3 voices speak
    assert by_text["21"] == by_text["26"] == 1.0  # all 3 pass through them
    assert by_text["3 * 7 = 21"] == 0.6667  # B states 21 in words ("21 from 3 * 7"): 2 of 3 voices
    assert "13 * 4 = 52" not in by_text and stats["final_answer"] >= 1  # it yields the answer
    assert "25" not in by_text and stats["below_support"] >= 1  # one voice's detour
    assert [n.position for n in nodes] == sorted(n.position for n in nodes)
    stricter, _, _ = _refined(p, min_share=0.8)
    # the computations of agreed values stay where two voices write them (one step: finalize keeps one)
    assert {n.text for n in stricter} == {"21", "26", "3 * 7 = 21", "21 + 5 = 26"}
    assert {n.text for n in _refined(p, min_voices=4)[0]} >= {"21", "26"}  # at most all 3 speaking voices
    assert not selection.single_voice and selection.voices == ["A", "B", "C", "D"]


def test_refine_keeps_a_single_voice_nodes_flagged_and_none_without_consensus():
    lone = _problem("Find it.", "7", "First $x = 40 + 2 = 42$ and $y = 3 \\cdot 11 = 33$, so \\boxed{7}.")
    nodes, _, selection = _refined(lone)
    assert {"42", "33"} <= {n.text for n in nodes} and {n.support for n in nodes} == {1.0}  # all it has
    assert selection.single_voice
    assert _refined(lone, fallback=False)[0] == []
    # one voice with several solutions (an AoPS page): what they share
    pages = _problem("Find it.", "7", "First $x = 40 + 2 = 42$, so \\boxed{7}.",
                     "Here $y = 3 \\cdot 11 = 33$ and $z = 6 \\cdot 7 = 42$, \\boxed{7}.")
    assert {n.text for n in _refined(pages)[0] if n.kind == "value"} == {"42"}
    apart = _voices("Find it.", "7", ("A", "First $x = 40 + 2 = 42$, so \\boxed{7}."),
                    ("B", "Here $y = 3 \\cdot 11 = 33$, \\boxed{7}."), ("C", "Also $z = 50 + 5 = 55$ gives \\boxed{7}."))
    assert _refined(apart)[0] == []
    record = build_record(apart, BuildConfig())
    assert record["nodes"] == [] and "no candidate is shared by enough of the 3 voices" in record["provenance"]["note"]
    assert not record["provenance"]["single_voice"]


def test_records_list_the_arithmetic_steps_two_voices_share():
    # computations: what correct solutions compute on the way, for the step locator; not nodes
    p = _voices("A box has 4 rows of 6 eggs. Ann buys 3 boxes and drops 5 eggs. How many are left?", "67",
                ("A", "Each box holds 4 * 6 = 24 eggs, so 3 boxes hold 24 * 3 = 72 eggs; 72 - 5 = 67. \\boxed{67}"),
                ("B", "One box: 4 * 6 = 24. Three boxes: 3 * 24 = 72. Left: \\boxed{67}"),
                ("C", "6 * 4 = 24 eggs a box and 72 in all; she keeps 67. Also 24 / 2 = 12 per half box."))
    record = build_record(p, BuildConfig())
    assert record["computations"][:2] == ["4 * 6 = 24", "24 * 3 = 72"]  # all three voices, then two
    assert not any("24 / 2" in step for step in record["computations"])  # one voice's aside
    assert not any("- 5 = 67" in step for step in record["computations"])  # the answer's own step is none
    assert list(record)[:9] == ["id", "benchmark", "problem", "answer", "solution", "level", "subject", "nodes",
                                "computations"]
    lone = _voices("Find it.", "7", ("A", "First 40 + 2 = 42 apples, so \\boxed{7}."))
    assert build_record(lone, BuildConfig())["computations"] == ["40 + 2 = 42"]  # a lone solution's own steps


def test_every_kept_node_matches_its_own_sources():
    p = _problem("Solve $x^2 - 5x + 6 = 0$ and report the larger root squared.", "9",
                 "Factor: $(x-2)(x-3) = 0$, so $x = 3$ is the larger root, and $3^2 = 9$. \\boxed{9}")
    nodes, _, _ = _refined(p)
    assert nodes
    for node in nodes:
        assert match_nodes(p.trajectories[0].text, [node.to_json() | {"id": "n"}])[0].covered


# ------------------------------------------------------------------ finalize (build-wide)
def _record(pid, *nodes):
    out = []
    for text, kind, value, support, position in nodes:
        out.append({"id": "", "text": text, "kind": kind, "forms": [text], "value": value, "support": support,
                    "position": position, "standalone": True})
    return {"id": pid, "nodes": out, "provenance": {"note": "", "refine": {"too_common": 0, "redundant": 0, "over_cap": 0}}}


def _others(pattern, n=40):
    """``n`` other problems with one solution each: ``pattern(i)`` is what solution i mentions."""
    return [Problem(f"t/{i}", "t", "?", "1", trajectories=[Trajectory(f"so {pattern(i)}, 3 figs and {i + 100} pears",
                                                                      "reference")]) for i in range(n)]


def test_finalize_common_nodes_need_context_redundancy_cap_and_order():
    # 12 and 5 each in 3 of 40 other problems' solutions (7.5%: common), never together; 3 in all of
    # them (too common to be evidence); none mentions 1441 or x^2 = 7
    others = _others(lambda i: "12 apples" if i < 3 else "5 plums" if i < 6 else "some apples")
    recs = [_record("t/a", ("1441", "value", "1441", 1.0, 0.9), ("12", "value", "12", 1.0, 0.1),
                    ("x^2 = 7", "equation", None, 1.0, 0.5), ("1440 + 1 = 1441", "equation", None, 1.0, 0.8),
                    ("5", "value", "5", 1.0, 0.2), ("2 \\cdot 3 - 1 = 5", "equation", None, 1.0, 0.25),
                    ("3", "value", "3", 1.0, 0.3)),
            _record("t/b", ("12", "value", "12", 1.0, 0.3)),
            _record("t/c", *[(f"{100 + k} \\cdot {7 + k}", "expression", None, 1.0 - k / 20, k / 10) for k in range(10)])]
    finalize_records(recs, others)
    a, b, c = recs
    # one node per step: the rare 1441 stays and its computation goes; the common 5 goes and its
    # computation stays (it is the context); the common 12 has no computation: it stays, credited in context
    assert [(n["id"], n["text"], n["standalone"]) for n in a["nodes"]] == [
        ("n1", "12", False), ("n2", "2 \\cdot 3 - 1 = 5", True), ("n3", "x^2 = 7", True), ("n4", "1441", True)]
    assert a["provenance"]["refine"]["redundant"] == 2 and a["provenance"]["refine"]["too_common"] == 1
    assert b["nodes"] == [] and "only a common node (12)" in b["provenance"]["note"]  # nothing can corroborate it
    d = finalize_records([_record("t/d", ("3", "value", "3", 1.0, 0.3))], others)[0]
    assert d["nodes"] == [] and "state too often (3)" in d["provenance"]["note"]
    assert len(c["nodes"]) == 8 and c["provenance"]["refine"]["over_cap"] == 2  # the 2 least supported go
    assert [n["position"] for n in c["nodes"]] == sorted(n["position"] for n in c["nodes"])


def test_finalize_a_value_inside_a_computation_that_gives_way_stays():
    """GSM8K test/87: ``720``, ``2160`` and ``3*720 = 2160`` (its computation) are signed. The rare
    2160 takes its computation's place, so that computation holds no piece: ``720`` stays. Where
    the computation stays (a common value), ``720`` is a piece of it and goes."""
    others = _others(lambda i: "some apples")
    [g] = finalize_records([_record("t/g", ("720", "value", "720", 1.0, 0.3), ("2160", "value", "2160", 1.0, 0.6),
                                    ("3*720 = 2160", "equation", None, 1.0, 0.6))], others)
    assert [n["text"] for n in g["nodes"]] == ["720", "2160"]
    common = _others(lambda i: "2160 pears" if i < 3 else "some apples")
    [h] = finalize_records([_record("t/h", ("720", "value", "720", 1.0, 0.3), ("2160", "value", "2160", 1.0, 0.6),
                                    ("3*720 = 2160", "equation", None, 1.0, 0.6))], common)
    assert [n["text"] for n in h["nodes"]] == ["3*720 = 2160"]


def test_finalize_keeps_no_set_of_nodes_that_credits_unrelated_solutions():
    # 12 and 5 together in 3 of 40 other problems' solutions: as nodes of one record they would credit
    # 7.5% of unrelated solutions (two common nodes corroborate each other): one of them goes
    together = _others(lambda i: "12 apples and 5 plums" if i < 3 else "some apples")
    [e] = finalize_records([_record("t/e", ("12", "value", "12", 1.0, 0.1), ("5", "value", "5", 0.9, 0.2),
                                    ("x^2 = 7", "equation", None, 1.0, 0.5))], together)
    assert [n["text"] for n in e["nodes"]] == ["12", "x^2 = 7"]  # the less supported common node went
    assert e["provenance"]["refine"]["too_common"] == 1
    # rare nodes that together credit too many unrelated solutions (2 + 2 of 100: 4% > 3%): one goes
    rare = _others(lambda i: "x^2 = 7" if i < 2 else "1441 plums" if i < 4 else "some apples", n=100)
    [f] = finalize_records([_record("t/f", ("x^2 = 7", "equation", None, 1.0, 0.5),
                                    ("1441", "value", "1441", 0.9, 0.9))], rare)
    assert [n["text"] for n in f["nodes"]] == ["x^2 = 7"]


def test_matching_credits_a_common_node_only_when_corroborated():
    nodes = [{"id": "n1", "text": "12", "kind": "value", "value": "12", "standalone": False},
             {"id": "n2", "text": "x^2 = 7", "kind": "equation"},
             {"id": "n3", "text": "5", "kind": "value", "value": "5", "standalone": False}]
    assert [m.covered for m in match_nodes("I have 12 apples.", nodes)] == [False, False, False]
    assert [m.covered for m in match_nodes("So $x^2 = 7$ and 12 apples.", nodes)] == [True, True, False]
    assert [m.covered for m in match_nodes("12 apples and 5 pears.", nodes)] == [True, False, True]


# ------------------------------------------------------------------ record
def test_record_schema_types_and_provenance():
    p = _problem("Ann has 5 apples and buys 7 more, then eats 3. How many?", "9", "5 + 7 = 12, and 12 - 3 = 9.")
    record = build_record(p, BuildConfig())
    assert list(record) == ["id", "benchmark", "problem", "answer", "solution", "level", "subject", "nodes",
                            "computations", "provenance"]
    step, node = record["nodes"]
    assert node == {"id": "n2", "text": "12", "kind": "value", "forms": ["12"], "value": "12",
                    "support": 1.0, "position": 0.2963, "standalone": True}  # "5 + 7 = [12]": offset 8 of 27
    assert step["id"] == "n1" and step["text"] == "5 + 7 = 12"  # "12 - 3 = 9" yields the answer: dropped
    prov = record["provenance"]
    assert prov["builder_version"] == BUILDER_VERSION and prov["extractor"] == "rules"
    assert prov["sources"] == ["reference"] and prov["voices"] == ["reference"]
    assert prov["trajectories"] == prov["correct"] == 1 and prov["rejected_references"] == 0
    assert prov["consensus"] == {"min_share": 0.5, "min_voices": 2, "voices_counted": 1}
    assert prov["single_voice"] is True and prov["suspect_gold"] is None  # one voice: nothing to agree on
    assert set(prov["refine"]) >= {"candidates", "final_answer", "answer_piece", "restates_problem", "over_cap"}
    assert prov["llm"] == {"status": "off", "proposed": 0, "invalid": 0, "rewrites": 0} and prov["note"] == ""
    assert build_record(_problem("Ann has 5 apples and buys 7 more, then eats 3. How many?", "9",
                                 "5 + 7 = 12, and 12 - 3 = 9."), BuildConfig()) == record  # deterministic


def test_a_problem_without_trajectories_keeps_empty_nodes_and_says_why():
    record = build_record(Problem("t/2", "t", "?", "1"), BuildConfig())
    assert record["nodes"] == [] and record["provenance"]["note"] == "no source trajectories"


def test_a_reference_that_never_reaches_the_gold_answer_is_flagged_and_skipped():
    # GSM8K test #493: the gold answer is 25 (cents); the reference computes $2.00/8 = $0.25
    text = "She buys 2 packs for a total of 4*2 = 8 razors. Each razor costs $2.00/8 = $0.25 each"
    p = Problem("gsm8k/test/493", "gsm8k", "?", "25", trajectories=[Trajectory(text, "reference", equations=["4*2=8", "2/8=0.25"])])
    record = build_record(p, BuildConfig())
    assert record["nodes"] == [] and record["provenance"]["rejected_references"] == 1
    assert "never reach the gold answer '25'" in record["provenance"]["note"]
    fine = Problem("t/3", "t", "?", "15", trajectories=[Trajectory("9 + 6 = 15 liters out of the 24 liters.", "reference")])
    assert build_record(fine, BuildConfig())["provenance"]["rejected_references"] == 0  # need not end with it


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
    nodes = [Node(id="", text="x = \\frac{3}{4}", kind="equation", forms=("x = \\frac{3}{4}",)),
             Node(id="", text="2^{10}", kind="expression", forms=("2^{10}",))]
    reply = json.dumps({"n1": ["x = 0.75", "\\frac{3}{4} = x", "x = 0.7"], "n2": ["1024", 5, "1000"], "n9": ["?"]})
    assert parse_rewrites(reply, nodes, "p") == 3
    assert nodes[0].forms == ("x = \\frac{3}{4}", "x = 0.75", "\\frac{3}{4} = x")
    assert nodes[1].forms == ("2^{10}", "1024")
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
    records = [json.loads(line) for line in out.read_bytes().splitlines()]
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
