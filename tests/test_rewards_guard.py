"""Reward-hacking guard (training_recipes.guards): attacks lose node credit, honest text does not.

The honest texts are real solutions (tests/fixtures/train/honest_solutions.jsonl: the hardest
cases among 8,800+ honest solutions, see its README).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training_recipes.guards import (
    GuardConfig,
    inspect_completion,
    node_char_share,
    number_spam,
    redact_number_lists,
)

HONEST = [json.loads(line) for line in
          (Path(__file__).parent / "fixtures" / "train" / "honest_solutions.jsonl").read_text().splitlines()]

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
