"""Reward-hacking guard (training_recipes.guards): attacks lose node credit, honest text does not.

The honest texts are real solutions (tests/fixtures/train/honest_solutions.jsonl: the hardest
cases among 8,800+ honest solutions, see its README).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from consensus_metrics.budget import BudgetExceeded, Deadline
from training_recipes.guards import (
    _LIST_SEPARATOR_RE,
    NUMBER_RE,
    GuardConfig,
    _non_space_chars,
    distinct_numbers,
    distinct_numbers_bound,
    inspect_completion,
    node_char_share,
    number_spam,
    redact_number_lists,
)

HONEST = [json.loads(line) for line in
          (Path(__file__).parent / "fixtures" / "train" / "honest_solutions.jsonl").read_bytes().splitlines()]

ATTACKS = {
    "integers_0_to_5000": " ".join(str(i) for i in range(5001)),
    "comma_list": "The answer is one of " + ", ".join(str(i) for i in range(300)) + ".",
    "latex_list": "$" + ", \\ldots, ".join(str(i) for i in range(0, 1000, 7)) + "$",
    "assignments": ", ".join(f"x={i}" for i in range(150)),
    "prose_enumeration": " ".join(f"Maybe {i}." for i in range(400)),
    "step_enumeration": " ".join(f"Step {i} gives {i}." for i in range(200)),
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attacks_are_caught(name):
    report = inspect_completion(ATTACKS[name], GuardConfig())
    assert report.number_spam or report.redacted_numbers >= 64, (name, report.distinct_numbers, report.number_density)


def test_number_list_is_blanked_but_offsets_and_prose_kept():
    listing = " ".join(str(i) for i in range(100))
    text = f"First 48/2 = 24. Now guess: {listing}. So the answer is \\boxed{{72}}."
    redacted, spans, n = redact_number_lists(text, 64)
    assert len(redacted) == len(text) and n == 100 and len(spans) == 1
    assert "48/2 = 24" in redacted and "\\boxed{72}" in redacted
    assert " 57 " not in redacted


def test_short_lists_and_computations_are_untouched():
    text = "The divisors of 24 are 1, 2, 3, 4, 6, 8, 12, 24, so 1+2+3+4+6+8+12+24 = 60."
    assert redact_number_lists(text, GuardConfig().max_list_run)[1] == []
    assert not number_spam(text, GuardConfig())[0]


@pytest.mark.parametrize("row", HONEST, ids=[f"{r['source']}:{r['where']}" for r in HONEST])
def test_honest_solutions_pass_the_guard(row):
    report = inspect_completion(row["text"], GuardConfig())
    assert report.redacted_spans == [] and report.text == row["text"]
    assert not report.number_spam, (report.distinct_numbers, report.number_density)


def test_honest_fixture_holds_the_hard_cases():
    # the fixture really contains the extremes the thresholds were set against
    assert max(r["longest_list"] for r in HONEST) == 42
    assert max(r["distinct_numbers"] for r in HONEST) == 95


def test_node_char_share_merges_overlaps_and_ignores_spaces():
    assert node_char_share("x=5 so y=7", [(0, 3), (7, 10)]) == 0.75
    assert node_char_share("abcdef", [(0, 4), (2, 6)]) == 1.0
    assert node_char_share("", []) == 0.0
    assert node_char_share("abc", [(0, 99)]) == 1.0


def test_disabled_guard_changes_nothing():
    text = ATTACKS["integers_0_to_5000"]
    report = inspect_completion(text, GuardConfig(enabled=False))
    assert report.text == text and not report.number_spam and report.redacted_spans == []


@pytest.mark.parametrize("text", ["", "   ", "\x00\x01", "−5 −6", "1" * 10000, "٣ ٤ ٥", "3.5.6.7", ",,,1,,,"])
def test_odd_strings_never_crash(text):
    report = inspect_completion(text, GuardConfig())
    assert len(report.text) == len(text)


def test_guard_config_validates():
    with pytest.raises(ValueError, match="max_list_run"):
        GuardConfig(max_list_run=1)
    with pytest.raises(ValueError, match="max_node_char_share"):
        GuardConfig(max_node_char_share=0.0)


# --- the fast guard computes what the plain scans computed ------------------------------------------
# The reference implementations below are the guard's earlier code (one regex scan of the whole
# text, number by number); the guard now skips text that cannot hold a list run and starts its
# number regex with a character class. Results must not change.

REFERENCE_NUMBER_RE = re.compile(r"(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\w)|(?<![\w.])\.\d+(?!\w)")


def reference_redact(text: str, min_run: int):
    spans, n_redacted, first, previous, run = [], 0, None, None, 0
    for match in REFERENCE_NUMBER_RE.finditer(text):
        if previous is not None and _LIST_SEPARATOR_RE.match(text[previous.end() : match.start()]):
            run += 1
        else:
            if first is not None and run >= min_run:
                spans.append((first.start(), previous.end()))
                n_redacted += run
            first, run = match, 1
        previous = match
    if first is not None and run >= min_run:
        spans.append((first.start(), previous.end()))
        n_redacted += run
    return spans, n_redacted


# the characters that decide numbers and separators, some that look like them, and a few words
LIST_PIECES = ["1", "2", "0", "12", "345", "1,000", "2.5", ".75", "-", "−", ".", ",", ";", "|", "&", " ", "\n",
               "\t", "\\\\", "\\,", "\\quad", "\\ldots", "\\cdots", "...", "…", "and", "or", "x", "x_2", "a1", "=",
               "+", "{,}", "٣", "\u2003", "\xa0", "é", "\ud800", "sand", "dots", "²", "_", "(", ")"]
NUMBERS = ["1", "2", "0", "12", "345", "1,000", "2.5", ".75", "-3", "−4", "007", "1.", "٣"]
SEPARATORS = [" ", ", ", ";", " | ", " & ", "\\\\", "\\,", "\\quad ", "\\qquad", "\\ldots", "\\dots",
              "\\cdots", "...", "…", " and ", " or ", "\n", "\u2003", ", \\ldots, "]
# runs of numbers joined by one separator, between random pieces
a_run = st.builds(lambda numbers, sep: sep.join(numbers), st.lists(st.sampled_from(NUMBERS), min_size=1, max_size=12),
                  st.sampled_from(SEPARATORS))
list_text = st.lists(st.one_of(a_run, st.sampled_from(LIST_PIECES)), max_size=120).map("".join)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=list_text, min_run=st.integers(1, 8))
def test_number_regex_and_list_runs_equal_the_plain_scans(text, min_run):
    assert [m.span() for m in NUMBER_RE.finditer(text)] == [m.span() for m in REFERENCE_NUMBER_RE.finditer(text)]
    redacted, spans, n = redact_number_lists(text, min_run)
    assert (spans, n) == reference_redact(text, min_run)
    assert (spans, n) == redact_number_lists(text, min_run, Deadline(None))[1:]
    assert len(redacted) == len(text)


@settings(max_examples=examples(100), deadline=None)
@given(text=list_text)
def test_non_space_count_equals_removing_whitespace(text):
    assert _non_space_chars(text) == len(re.sub(r"\s+", "", text))
    assert _non_space_chars(text, 2, 9) == len(re.sub(r"\s+", "", text[2:9]))


@pytest.mark.parametrize("row", HONEST, ids=[f"{r['source']}:{r['where']}" for r in HONEST])
def test_fast_scans_equal_the_plain_scans_on_honest_text(row):
    text = row["text"]
    assert [m.span() for m in NUMBER_RE.finditer(text)] == [m.span() for m in REFERENCE_NUMBER_RE.finditer(text)]
    for min_run in (4, 16, 64):
        assert redact_number_lists(text, min_run)[1:] == reference_redact(text, min_run)


def test_a_long_list_is_found_across_unicode_text_and_windows():
    listing = ", ".join(str(i) for i in range(5000))  # longer than one scan window
    text = "Ünïcödé prose ✓ " * 50 + listing + " — and €5 more " * 50
    redacted, spans, n = redact_number_lists(text, 64, Deadline(None))
    assert (spans, n) == reference_redact(text, 64) and n == 5000
    assert redacted[spans[0][0] - 1 : spans[0][0] + 5] == "      " and "€5" in redacted


# words, Greek letters, accents, Unicode digits and minus signs, surrogates: every class the
# number regex tells apart
BOUND_PIECES = LIST_PIECES + ["π", "α2", "2π", "x−3", "−", "٣", "١٢", "_", "é5", "5é", "’", "\u2003", "\xa0",
                              "1.5.6"]
# the same few literals in every kind of context (a literal's fate depends on its neighbours)
CORES = ["-2", "−2", "2", "-2.5", "2.5", "1,000", "1,000.5", ".5", "12", "-.5", "3.4.5"]
CONTEXTS = ["", " ", "π", "a", "_", "é", ".", ",", "-", "’", "x", "٣", "\u2003", "1"]
in_contexts = st.lists(st.tuples(st.sampled_from(CONTEXTS), st.sampled_from(CORES), st.sampled_from(CONTEXTS))
                       .map("".join), max_size=4).map(" ".join)
bound_text = st.one_of(in_contexts,
                       st.lists(st.one_of(a_run, st.sampled_from(BOUND_PIECES)), max_size=120).map("".join))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=bound_text)
def test_the_distinct_number_bound_is_an_upper_bound(text):
    bound = distinct_numbers_bound(text)
    exact = len({m.group().replace(",", "").replace("−", "-") for m in REFERENCE_NUMBER_RE.finditer(text)})
    assert distinct_numbers(text) == exact
    assert bound is None or bound >= exact
    if bound is None:
        assert any(c.isdecimal() and not c.isascii() for c in text)


@pytest.mark.parametrize("row", HONEST, ids=[f"{r['source']}:{r['where']}" for r in HONEST])
def test_the_bound_spares_the_count_on_honest_text_and_decides_alike(row):
    fast = number_spam(row["text"], GuardConfig())
    assert distinct_numbers(row["text"]) == row["distinct_numbers"]
    exact_spam = row["distinct_numbers"] >= 64 and 1000 * row["distinct_numbers"] / _non_space_chars(row["text"]) > 60
    assert fast[0] == exact_spam is False


@pytest.mark.parametrize("core", CORES)
def test_the_bound_holds_for_a_literal_in_two_contexts(core):
    # a piece's literals change with its neighbours ("a-2" holds 2, " -2" holds -2): the bound
    # must see the neighbours' classes
    for left in CONTEXTS:
        for other_left in CONTEXTS:
            for right, other_right in ((" ", " "), (left, other_left)):
                text = f"{left}{core}{right} {other_left}{core}{other_right}"
                bound = distinct_numbers_bound(text)
                assert bound is None or bound >= distinct_numbers(text), text


def test_the_bound_holds_window_by_window_on_long_text():
    # longer than one scan window: bounded piece by piece, the sum still bounds the whole
    pieces = [f"{left}{core}{right}" for core in CORES for left in CONTEXTS if left != "٣"
              for right in (" ", "a", ".")]
    text = " ".join(pieces * 8) + " " + ", ".join(f"x={i}" for i in range(3000)) + " " + "9" * 40_000
    assert len(text) > 5 * (1 << 14)
    assert distinct_numbers_bound(text, Deadline(None)) >= distinct_numbers(text)
    # stopping early once the bound exceeds what must be ruled out still returns more than that
    assert distinct_numbers_bound(text, Deadline(None), stop_above=100) > 100


def test_a_megabyte_number_list_is_spam_and_its_count_stops_at_the_deadline():
    text = " ".join(str(i) for i in range(200_000))
    assert number_spam(text, GuardConfig(), Deadline(None))[0]
    expired = Deadline(0.0)
    with pytest.raises(BudgetExceeded):
        number_spam(text, GuardConfig(), expired)
