"""The lexer's fast path (consensus_metrics.lexer.lex): the commonest lexemes are read by a
character test and the others by a regex without the kinds their first character cannot start;
both must give exactly the lexemes of the one lexeme regex scanned over the text."""

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from consensus_metrics.lexer import _LEXEME_RE, GLUED, LINE_BREAK, SPACE, lex

# pieces that sit at the edges of the fast path: digit and letter runs followed by what makes
# them compounds, thousands groups, decimals or runs of words; symbols that start longer ones
PIECES = ["12", "3", "1st", "2nd", "4-pack", "2.5-inch", "x-axis", "a-b", "ab-cd", "1,000", "1{,}000",
          "1\\,000", "0.75", ".5", "...", "x", "ab", "abcd", "apples", " ", "  ", "\n", "\t", "-", "+", "*", "**",
          "=", "==", "<", "<=", "<b>", "</think>", "\\frac", "\\,", "\\", "{", "}", "(", ")", "^", "_", "$", "!",
          "!=", ":", ":=", ".", ",", "'", "²", "٣", "é", "\u2003", "sqrt", "sinh", "th", "st", "%", "|"]


def _reference(text: str):
    """The lexemes of ``_LEXEME_RE.finditer`` (kind, text, start, end, gap), as the lexer read
    them before its fast path."""
    out, prev_end = [], 0
    for m in _LEXEME_RE.finditer(text):
        kind = m.lastindex
        start, end = m.span(kind)
        gap = GLUED if start == prev_end else LINE_BREAK if "\n" in text[prev_end:start] else SPACE
        out.append((kind, text[start:end], start, end, gap))
        prev_end = end
    return out


@settings(max_examples=examples(2000), deadline=None)
@given(text=st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_property_lex_reads_the_lexemes_of_the_one_regex(text):
    lexemes = lex(text, markdown=False)
    assert list(zip(lexemes.kind, lexemes.text, lexemes.start, lexemes.end, lexemes.gap)) == _reference(text)


@settings(max_examples=examples(500), deadline=None)
@given(text=st.text(max_size=60))
def test_property_lex_agrees_on_any_text(text):
    lexemes = lex(text, markdown=False)
    assert list(zip(lexemes.kind, lexemes.text, lexemes.start, lexemes.end, lexemes.gap)) == _reference(text)
