"""Value nodes: exact rationals with number boundaries (docs/SPEC.md §3 rule 2)."""

import pytest

from consensus_metrics import match_nodes


def covered(text, form):
    return match_nodes(text, [form], symbolic=False)[0].covered


@pytest.mark.parametrize("text", [
    "Janet has 24 eggs left.",
    "So the total is $24$.",
    "Multiplying, $2 \\times 24 = 48$.",
    "The remainder is 24, which we carry.",
    "\\boxed{24}",
    "24 + 6 = 30",
    "We get $x = 24$.",
])
def test_value_found(text):
    assert covered(text, "24")


@pytest.mark.parametrize("text", [
    "There are 124 pages.",      # digits of a longer number
    "The rate is 2.4 per hour.",  # decimal
    "He paid 240 dollars.",
    "Let $x_{24}$ be the last term.",
    "Let x_24 be the last term.",
    "So $y = -24$.",              # a different number
    "Compute $24^2 = 576$.",      # the base of a power is not the value
    "There are $24!$ orders.",
    "It equals $\\sqrt{24}$.",
    "The coefficient: $24x + 1$.",
    "The probability is $1/24$.",  # a reduced fraction is one number
    "Write $2^{24}$.",
    "The numeral $17_{24}$ equals 31.",
    "Total: 1,024 bytes.",
])
def test_value_not_found_in_near_misses(text):
    assert not covered(text, "24")


@pytest.mark.parametrize("text", ["so $s = 2.5$", "s = 5/2", "s=\\frac{5}{2}", "s = 2.50 km/h", "s = \\dfrac52", "s = 2\\frac{1}{2}"])
def test_rational_value_all_formats(text):
    assert covered(text, "2.5")
    assert covered(text, "\\frac{5}{2}")


def test_decimal_vs_fraction_exact():
    assert covered("the ratio is 0.75", "3/4")
    assert not covered("the ratio is 0.76", "3/4")
    assert not covered("the ratio is 0.7", "3/4")


def test_negative_value_nodes_need_unary_minus():
    assert covered("so $x = -3$", "-3")
    assert not covered("so $5 - 3 = 2$", "-3")


def test_thousands_separator_in_text():
    assert covered("The house cost 80,000 + 50,000 = $130,000 in total.", "130000")
    assert covered("The house cost 80,000 + 50,000 = $130,000 in total.", "130,000")


def test_percent_and_units_do_not_block():
    assert covered("It grew by 150%.", "150")
    assert covered("The angle is 90°.", "90")
    assert covered("She walks 12 km.", "12")


def test_numbered_items_and_step_labels_state_no_value():
    text = "1. First we compute 5 + 7 = 12.\n2. Then 12 * 6 = 72.\n**Step 3:** add them. Case 4. Done"
    for label in ("1", "2", "3", "4"):
        assert not covered(text, label), label
    assert covered(text, "72") and covered(text, "12")
    assert covered("The answer is:\n12.", "12")  # a number alone on its line is no list item
    assert covered("Step 2: 24 / 2 = 12 cookies each.", "12")
    assert covered("In step 2 we get 3 more.", "2")  # "step 2 we": no label


def test_temperature_scales_and_unit_abbreviations_after_numbers():
    for text in ("It is 24°C outside.", "It is $24^\\circ C$.", "$24^{\\circ}\\mathrm{C}$", "about 24 °F"):
        assert covered(text, "24"), text
    assert covered("So it is $12\\,\\mathrm{m}$ long.", "12")
    assert covered("The speed is $12\\,\\mathrm{m/s}$.", "12")
    assert not covered("So $AB = 5 PM$.", "5")  # PM, AM, MB are segment names: no units
    assert covered("The file is 80 GB.", "80")
    assert covered("It costs 20 USD.", "20")
    assert covered("The area is 25π cm².", "25\\pi")
    assert not covered("Let $C = 24x$.", "24")  # a coefficient stays a coefficient


def test_a_repeating_decimal_is_its_value_not_its_digits():
    text = "Let $x = 0.\\overline{36}$, then $100x - x = 36$."
    assert covered(text, "4/11") and covered(text, "36")  # 36 is stated in the second formula
    assert not covered("Let $x = 0.\\overline{36}$.", "36")
    assert covered("So $0.1\\overline{6} = 1/6$.", "1/6")
