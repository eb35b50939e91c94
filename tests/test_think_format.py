"""Where the final answer is: ``<think>``, Sky-T1 markers, prefilled templates (ThinkFormat)."""

import pytest

from consensus_metrics import DEFAULT_THINK_FORMAT, ThinkFormat, score_batch, score_trajectory, split_think

NODES = [{"id": "n1", "text": "16 - 3 - 4 = 9", "kind": "equation"},
         {"id": "n2", "text": "9 * 2 = 18", "kind": "equation"}]

# The shape of a SkyThought Sky-T1 MATH-500 output (trajectories/skythought, Apache-2.0).
SKY_T1 = ("<|begin_of_thought|>\n\nOkay, so 16 - 3 - 4 = 9 eggs are left, and maybe \\boxed{20}?\n"
          "No: 9 * 2 = 18.\n\n<|end_of_thought|>\n\n<|begin_of_solution|>\n\nShe makes "
          "$9 \\times 2 = 18$ dollars.\n\n\\[\n\\boxed{18}\n\\]\n\n<|end_of_solution|>")


def test_sky_t1_answer_is_the_solution_block():
    assert split_think(SKY_T1) == ("\n\nShe makes $9 \\times 2 = 18$ dollars.\n\n\\[\n\\boxed{18}\n\\]\n\n", False)
    s = score_trajectory(SKY_T1, NODES, "18")
    assert s["acc"] == 1 and s["ncr"] == 1.0 and not s["think_unclosed"]
    # the \boxed{20} inside the thought is no answer
    wrong = SKY_T1.replace("\\boxed{18}", "\\boxed{17}")
    assert score_trajectory(wrong, NODES, "18")["acc"] == 0


def test_sky_t1_thought_never_closed_has_no_answer():
    cut = SKY_T1[: SKY_T1.index("<|end_of_thought|>")]
    s = score_trajectory(cut, NODES, "18")
    assert s["acc"] == 0 and s["think_unclosed"] and s["ncr"] == 1.0


def test_solution_block_without_a_thought_and_a_cut_solution():
    assert split_think("<|begin_of_solution|>so \\boxed{4}<|end_of_solution|> junk \\boxed{5}") == ("so \\boxed{4}", False)
    assert split_think("<|begin_of_solution|>so \\boxed{4}") == ("so \\boxed{4}", False)


def test_prefilled_template_makes_a_text_without_close_unclosed():
    text = "16 - 3 - 4 = 9 and 9*2 = 18, so \\boxed{18}"   # cut before </think>: it is all trace
    assert score_trajectory(text, NODES, "18")["acc"] == 1   # read as an answer by default
    s = score_trajectory(text, NODES, "18", think_format=ThinkFormat(prefilled=True))
    assert s["acc"] == 0 and s["think_unclosed"] and s["ncr"] == 1.0
    closed = "16 - 3 - 4 = 9 ... \\boxed{20}</think>The answer is \\boxed{18}."
    s = score_trajectory(closed, NODES, "18", think_format="default+prefilled")
    assert s["acc"] == 1 and not s["think_unclosed"]


def test_setting_strings_round_trip_and_errors():
    for spec in ("think", "sky-t1", "think,sky-t1", "none", "think+prefilled",
                 "trace:<reasoning>:</reasoning>,answer:<answer>:</answer>"):
        assert ThinkFormat.parse(spec).spec() == spec
        assert ThinkFormat.parse(ThinkFormat.parse(spec).spec()) == ThinkFormat.parse(spec)
    assert ThinkFormat.parse("default") == ThinkFormat.parse(None) == DEFAULT_THINK_FORMAT
    assert ThinkFormat.parse("think", prefilled=True).prefilled
    with pytest.raises(ValueError, match="'thonk'"):
        ThinkFormat.parse("think,thonk")
    with pytest.raises(ValueError, match="trace:OPEN:CLOSE"):
        ThinkFormat.parse("trace:<r>")
    with pytest.raises(ValueError, match="cannot be combined"):
        ThinkFormat.parse("none,think")


def test_custom_markers_and_only_think():
    fmt = ThinkFormat.parse("trace:<reasoning>:</reasoning>,answer:<answer>:</answer>")
    assert fmt.split("<reasoning>2+2=4</reasoning><answer>4</answer>") == ("2+2=4", "4", False)
    # with only <think>, Sky-T1 markers are plain text: the whole text is the answer region
    only_think = ThinkFormat.parse("think")
    assert only_think.split(SKY_T1).answer == SKY_T1


def test_strip_removes_every_marker():
    stripped = DEFAULT_THINK_FORMAT.strip(SKY_T1)
    assert "<|" not in stripped and "16 - 3 - 4 = 9" in stripped


def test_think_format_reaches_worker_processes():
    texts = ["9 * 2 = 18 so \\boxed{18}", SKY_T1]
    rows = score_batch(texts, [NODES, NODES], ["18", "18"], workers=2, think_format="think,sky-t1+prefilled")
    assert [(r["acc"], r["think_unclosed"]) for r in rows] == [(0, True), (1, False)]
