"""Normalisation rules of docs/SPEC.md §3 rule 1, one test per rule, on real-looking solution text."""

import pytest

from consensus_metrics import canonical_key


def same(*forms):
    keys = {canonical_key(f) for f in forms}
    assert len(keys) == 1, keys


def differ(a, b):
    assert canonical_key(a) != canonical_key(b), (a, b)


def test_multiplication_signs_and_juxtaposition():
    same("2 \\times 9 = 18", "2 \\cdot 9 = 18", "2 × 9 = 18", "2 · 9 = 18", "2 * 9 = 18", "2 \\ast 9 = 18")
    same("2x", "2 \\cdot x", "2*x", "2 \\times x")
    same("(x+1)(x-1)", "(x+1)\\cdot(x-1)", "(x+1) \\times (x-1)")
    same("2\\sqrt{3}", "2 \\cdot \\sqrt{3}", "2√3")
    same("3 x 4 = 12", "3 \\times 4 = 12")  # 'x' between numbers in plain text is 'times'


def test_fraction_formats():
    same("\\frac{3}{4}", "\\dfrac{3}{4}", "\\tfrac{3}{4}", "\\frac34", "3/4", "0.75", ".75", "0.750")
    same("\\frac{x+1}{2}", "(x+1)/2", "\\dfrac{x + 1}{2}")
    same("\\frac ab", "a/b")
    same("2\\frac{1}{2}", "5/2", "2.5")  # a mixed number


def test_unreduced_fraction_is_a_division_not_a_number():
    differ("6/8", "3/4")
    differ("18/2", "9")


def test_powers():
    same("x^{2}", "x^2", "x²", "x**2")
    same("4s^{2} + 8s - 45", "4s² + 8s − 45", "4*s**2+8*s-45")
    same("2^{10}", "2^10", "2**10")
    differ("x^{2}", "x_{2}")


def test_roots():
    same("\\sqrt{2}", "\\sqrt2", "√2", "sqrt(2)", "\\sqrt{ 2 }")
    same("\\sqrt{x+1}", "√(x+1)")
    differ("\\sqrt[3]{8}", "\\sqrt{8}")


def test_minus_signs_and_unary_minus():
    same("5 - 3", "5 − 3", "5 – 3")
    same("x = -3", "x = −3", "x=-3")
    differ("-3", "3")


def test_spacing_and_latex_wrappers():
    same("\\left( x + 1 \\right)^{2}", "(x+1)^2", "\\big(x+1\\big)^2")
    same("$x = 5$", "\\(x = 5\\)", "\\[x = 5\\]", "x=5", "x \\! = \\, 5")
    same("\\boxed{204}", "204", "\\text{204}", "\\mathbf{204}")
    same("t = 0.4 \\text{ hours}", "t = 0.4 hours")


def test_thousands_separators():
    same("1,000", "1000", "1{,}000", "1\\,000")
    same("120,000", "120000")
    differ("1,2", "12")  # a list, not a thousands separator


def test_degree_signs_and_currency():
    same("90^\\circ", "90°", "90^{\\circ}", "90")
    same("\\$18", "$18", "18")
    same("50\\%", "50%")


def test_variable_notation():
    same("x_1 + x_2", "x_{1} + x_{2}", "x1 + x2")
    same("a_{n+1}", "a_{n + 1}")
    differ("x_1", "x_{12}")


def test_greek_letters_and_relations():
    same("\\pi r^2", "π r^2", "πr^2")
    same("x \\le 5", "x ≤ 5", "x <= 5", "x \\leq 5")
    same("a \\neq b", "a ≠ b", "a != b")


def test_base_notation_is_not_a_plain_number():
    differ("17_b", "17")
    assert canonical_key("17_{b}") == canonical_key("17_b")


def test_congruences():
    same("9b+7 \\equiv 0 \\pmod{b+7}", "9b+7 ≡ 0 (mod b+7)", "9b + 7 \\equiv 0 \\pmod{b + 7}")


@pytest.mark.parametrize("text", ["", " ", "\\", "{", "}", "$$", "\\frac", "\\sqrt", "^", "_", "\\left(", "x^", "\\frac{1}"])
def test_degenerate_inputs_tokenise(text):
    canonical_key(text)


# --- fast paths must be invisible: the same tokens (keys, kinds, spans, flags) with and without

import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis_profiles import examples  # noqa: E402

from consensus_metrics import normalize  # noqa: E402
from consensus_metrics.budget import NO_DEADLINE  # noqa: E402

_FRACTION_PIECES = ["\\frac", "\\dfrac", "{", "}", "{1}", "{2}", "{4}", "{10}", "{0}", "{ 3 }", "{007}", "12", "1,000",
                    "2.5", " ", "\n", "x", "-", "=", "^", "_", "(", ")", "\\sqrt", "\\left(", "\\text{", "$", "2"]


def _source_module(name):
    """``consensus_metrics/<name>.py`` as written, imported on its own: in the compiled build
    (tests/test_native.py) the builder's methods are C calls that no test can patch."""
    path = Path(normalize.__file__).with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"consensus_metrics._{name}_source", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SOURCE = _source_module("token_rules")
_WITHOUT_FAST_PATH = _source_module("latex_commands")
_WITHOUT_FAST_PATH._digit_fraction = lambda builder, start: False  # every \frac takes the general path


class _WithoutDigitFractionFastPath(_SOURCE.TokenBuilder):
    def _command(self, name, start, end, depth):
        if name in _WITHOUT_FAST_PATH.COMMAND_HANDLERS:
            _WITHOUT_FAST_PATH.COMMAND_HANDLERS[name](self, name, start, end, depth)
        else:
            super()._command(name, start, end, depth)


def _all_fields(text, builder=normalize.TokenBuilder):
    toks = builder(text, NO_DEADLINE).run()
    return toks.keys, toks.kinds, toks.starts, toks.ends, toks.spaced, toks.breaks, toks.implicit


@settings(max_examples=examples(300), deadline=None)
@given(text=st.lists(st.sampled_from(_FRACTION_PIECES), max_size=14).map("".join))
def test_property_digit_fraction_fast_path_is_invisible(text):
    fast = _all_fields(text)
    assert _all_fields(text, _SOURCE.TokenBuilder) == fast
    assert _all_fields(text, _WithoutDigitFractionFastPath) == fast


def test_digit_fraction_fast_path_cases():
    assert canonical_key("2\\frac{1}{2}") == "#5/2"  # mixed number
    assert canonical_key("\\frac{6}{8}") == "#6 / #8"  # not in lowest terms: the general path
    assert canonical_key("\\frac{ 3 }{4} x") == "#3/4 * x"


def test_pi_before_a_number_is_a_product():
    same("\\pi 4^2", "\\pi \\cdot 4^2", "π·4²", "\\pi4^2", "\\pi \\times 4^{2}")
    differ("x 2", "x \\cdot 2")  # a variable before a number is not read as a product
    same("x1", "x_1")  # ...glued, it is a subscript, as before


def test_parenthesised_atom_takes_the_brackets_place():
    same("\\pi (4)^2", "\\pi \\cdot 4^2")
    same("2 (x) = 6", "2x = 6")
    differ("3 (4)", "3 \\cdot 4")  # two numbers side by side are not read as a product


_FORM_PIECES = ["x", "y", "2", "3", "-", "+", "\\frac{1}{2}", "\\frac", "{", "}", "(", ")", "^", "_", "\\cdot", " ",
                "\\pi", "!", "\\text{", "$", "\\sqrt", "1/2", "0.5", "\\left(", "\\right)", "\\left", "\\right.", "ab",
                "sin", "\\sin", "^\\circ", "\\binom", "\\sqrt[", "]", "**", "\\mathrm{", "\\{", "\\}", "\\\\", "\\pmod", "is",
                " apples", " m", "°", "C", "\\lvert", "(mod ", "Step ", "1. "]
_form_side = st.lists(st.sampled_from(_FORM_PIECES), min_size=1, max_size=10).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(left=_form_side, right=_form_side)
def test_property_equation_forms_read_side_by_side_give_the_whole_forms_tokens(left, right):
    form = f"{left} = {right}"
    whole = normalize.TokenBuilder(form, NO_DEADLINE, markdown=False).run()
    assert normalize.tokenize_form(form) == (tuple(whole.keys), tuple(whole.kinds))


def test_equation_forms_share_their_sides():
    normalize._read_form.cache_clear()
    normalize.tokenize_form("2s + 9 = \\frac{1}{2}")
    misses = normalize._read_form.cache_info().misses
    assert normalize.tokenize_form("\\frac{1}{2} = 2s + 9") == (
        ("#1/2", "=", "#2", "*", "s", "+", "#9"), (0, 4, 0, 3, 1, 3, 0))
    assert normalize._read_form.cache_info().misses == misses + 1  # only the swapped form itself is new


def test_parenthesised_numbers_form_one_rational_like_plain_ones():
    same("(1)/(31) * 93", "\\frac{1}{31} \\cdot 93", "1/31 * 93")  # the node builder's plain twin forms


def test_fraction_numerators_read_as_written_inline():
    same("\\frac{\\sqrt{3}}{2}", "√3/2", "\\sqrt{3}/2", "\\sqrt3/2")
    differ("\\sqrt{3}/2", "\\sqrt{3/2}")  # the 3 belongs to the root
    same("\\sqrt{3/2}", "\\sqrt{\\frac{3}{2}}")
    same("\\frac{n(n+1)}{2}", "n(n+1)/2")
    same("\\frac{5\\pi}{4}", "5π/4")
    same("\\frac{3\\sqrt{2}}{2}", "3√2/2")
    same("\\frac{x^2}{4}", "x^2/4")
    differ("\\frac{x+1}{2}", "x+1/2")  # a sum keeps its parentheses
    same("\\frac{x+1}{2}", "(x+1)/2")


def test_signs_inside_arguments():
    same("\\frac{-3}{4}", "-3/4", "-0.75")
    same("x^{-2}", "x^{(-2)}")
    same("x^{3/4}", "x^{\\frac34}")
    differ("2\\frac{-3}{4}", "2 - 3/4")


def test_repeating_decimals_are_exact():
    same("0.\\overline{36}", "4/11", "\\frac{4}{11}")
    same("0.1\\overline{6}", "1/6")
    same("1.2\\overline{3}", "37/30")
    differ("0.\\overline{3}", "0.3")
    assert canonical_key("\\overline{AB} = 5") == "A * B = #5"  # a segment's bar is still dropped


def test_accents_make_another_variable():
    differ("\\bar{x} = 5", "x = 5")
    same("\\bar{x}", "\\bar x")
    differ("\\hat{x}", "\\bar{x}")
    differ("\\dot{x}", "x")
    same("\\vec{v}", "v")  # a vector's arrow is notation for the same letter


def test_a_negative_denominator_and_a_glued_factorial():
    same("\\frac{3}{-4}", "\\frac{-3}{4}", "-3/4")
    same("\\frac{-3}{-4}", "3/4")
    same("5!=120", "5! = 120")
    same("n!=120", "n! = 120")
    same("x!=y", "x \\ne y")  # code-style "not equal" after another letter
    same("x != 3", "x \\neq 3")


def test_markdown_italics_are_layout_in_a_solution_and_a_product_is_not():
    """gemma-2-27b-it writes its steps in italics (SkyThought's MATH-500 run, algebra/346):
    ``*f(5) - 1 = 7 - 1 = 6*``. A solution's star that opens a span and the one that closes it
    on the same line are layout; a product has operands on both sides, glued or spaced, and a
    node form is math (its stars stay)."""
    from consensus_metrics import match_nodes, tokenize

    def keys(text):
        return " ".join(tokenize(text).keys)

    text = ("2. **Calculate f(5) - 1:**\n   *f(5) - 1 = 7 - 1 = 6*\n\n3. **Find g(f(5) - 1), which is g(6):**\n"
            "   Substitute 6 for *x* in the expression for *g(x)*:")
    assert [m.covered for m in match_nodes(text, ["f(5) - 1 = 6", "f(5) = 6", "x = 6"])] == [True, False, False]
    assert keys("so *x = 3*.") == keys("so x = 3.") == "~so x = #3 ."
    assert keys("so *n = 7k + 2* here") == keys("so n = 7k + 2 here")
    for product in ("3*4 = 12", "3 * 4 = 12", "50 *.2 = 10", "4 books *200 pages/book = <<4*200=800>>800"):
        assert "*" in keys(product), product
    assert keys("*x = 3\n* 4") == "* x = #3 #4"  # no partner on its line (the second star is a bullet)
    differ("*x = 3*", "x = 3")  # a node form keeps its stars


def test_a_matrix_reads_as_a_tuple_of_its_entries():
    """A vector is written as a column ``pmatrix`` or a tuple: both read ``(a, b, c)``. Entries
    ``&`` and rows ``\\\\`` are commas; a matrix whose rows hold several entries separates rows
    with ``;``. A determinant (``vmatrix``) and an ``align`` environment are no matrix."""
    same("\\begin{pmatrix} -2 \\\\ -7 \\\\ 1 \\end{pmatrix}", "(-2, -7, 1)", "\\langle -2, -7, 1 \\rangle",
         "\\begin{bmatrix} -2 \\\\ -7 \\\\ 1 \\\\ \\end{bmatrix}", "\\begin{pmatrix} -2 & -7 & 1 \\end{pmatrix}")
    assert canonical_key("\\begin{pmatrix} 4 & -1 \\\\ 2 & 1 \\end{pmatrix}") == "( #4 , neg #1 ; #2 , #1 )"
    differ("\\begin{pmatrix} 4 & -1 \\\\ 2 & 1 \\end{pmatrix}", "\\begin{pmatrix} 4 & 2 \\\\ -1 & 1 \\end{pmatrix}")
    differ("\\begin{pmatrix} -2 \\\\ -7 \\\\ 1 \\end{pmatrix}", "(-2, -7, 2)")
    assert canonical_key("\\begin{vmatrix} 1 & 2 \\\\ 3 & 4 \\end{vmatrix}") == "#1 #2 #3 #4"
    assert canonical_key("\\begin{align*} x &= 2 \\\\ y &= 3 \\end{align*}") == "x = #2 y = #3"
