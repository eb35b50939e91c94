r"""Normalisation: turn math text (LaTeX, Unicode or plain) into canonical tokens.

Matching happens on canonical tokens, never on characters, so that the rules of SPEC §3 hold by
construction: every surface form of the same mathematical content yields the same token keys, and
token boundaries are number/identifier boundaries (``24`` is one token and ``124``, ``2.4``,
``240`` and ``x_{24}`` are different tokens).

What is unified (each token keeps the character span it came from, for positions and TPN):

* multiplication ``\times \cdot × · * \ast`` and implicit juxtaposition (``2x``, ``2(x+1)``,
  ``(a)(b)``, ``2\sqrt3``) -> ``*``; fractions ``\frac{a}{b} \dfrac \tfrac \frac ab a/b`` ->
  ``a / b`` (a reduced integer fraction is one rational number token, so ``\frac{3}{4}`` =
  ``3/4`` = ``0.75``); mixed numbers ``2\frac{1}{2}`` -> ``5/2``;
* powers ``x^{2} x^2 x² x**2`` -> ``x ^ 2``; roots ``\sqrt{2} \sqrt2 √2 sqrt(2)`` -> ``√ 2``;
* a matrix ``\begin{pmatrix} -2 \\ 7 \end{pmatrix}`` (also ``bmatrix``, ``Bmatrix``, ``matrix``,
  ``smallmatrix``) -> the tuple ``( neg #2 , #7 )``, rows of several entries separated by ``;``;
* minus signs ``− – -`` (unary minus is its own key ``neg``); ``\left \right \! \, $ \( \[``,
  ``\text{} \mathrm{} \boxed{}`` wrappers, degree signs, ``&`` alignment, spacing;
* thousands separators ``1,000 1{,}000 1\,000`` -> ``1000``; numbers as exact rationals;
* units: a rate's unit after ``/`` is a word, not a divisor (``$10/hour`` -> ``#10 ~hour``);
  ``x`` between two numbers (``6 x $0.50``) and ``of`` after a fraction (``3/4 of 4000``) -> ``*``;
* variable notation ``x_1 x_{1} x1`` -> ``x_1``; Greek letters ``\alpha α``; ``\le ≤ <=``.

Token keys: numbers ``#3/4``; identifiers ``x``, ``x_1``, ``π``; functions ``@sin``, ``√``;
words (prose) ``~the``; operators and relations as symbols.

Two steps, each its own module: :mod:`~consensus_metrics.lexer` cuts the text into raw lexemes,
:mod:`~consensus_metrics.token_rules` reads them into :class:`Tokens`, looking LaTeX commands up
in :mod:`~consensus_metrics.vocabulary` (commands that are one token, Unicode symbols, special
words, the token kinds) and :mod:`~consensus_metrics.latex_commands` (commands with arguments).
This module is the API: :func:`tokenize` for a text, :func:`tokenize_form` and
:func:`canonical_key` for a node form, :func:`tokenize_cached` for the sentences of a
trajectory.

>>> canonical_key("4s^{2} + 8 \\cdot s - 45 = 0") == canonical_key("4s² + 8s − 45 = 0")
True
>>> canonical_key("\\frac{3}{4}"), canonical_key("0.75"), canonical_key("x_{1} + 1,000")
('#3/4', '#3/4', 'x_1 + #1000')
"""

from __future__ import annotations

import re
from functools import lru_cache

from .budget import NO_DEADLINE, Deadline
from .token_rules import TokenBuilder, Tokens
from .vocabulary import CLOSE, FUNC, ID, MAX_GROUP_DEPTH, MISC, NUM, OP, OPEN, PUNCT, REL, WORD

__all__ = ["tokenize", "tokenize_cached", "tokenize_form", "canonical_key", "plain_str", "Tokens", "TokenBuilder",
           "SEGMENT_CACHE_CHARS", "MAX_GROUP_DEPTH", "NUM", "ID", "FUNC", "OP", "REL", "OPEN", "CLOSE", "WORD",
           "PUNCT", "MISC"]


def tokenize(text: str, deadline: Deadline = NO_DEADLINE, markdown: bool = True) -> Tokens:
    """Canonical tokens of ``text`` (any ``str``; raises :class:`BudgetExceeded` past the deadline).
    ``markdown``: list markers that open a line (``- ``, ``1) ``, ``(a) ``) are layout, as in a
    trajectory; a node form is math (``tokenize_form`` reads it with ``markdown=False``).

    >>> tokenize("- 24 apples").keys, tokenize("- 24 apples", markdown=False).keys
    (['#24', '~apples'], ['neg', '#24', '~apples'])
    """
    return TokenBuilder(plain_str(text), deadline, markdown).run()


def plain_str(text) -> str:
    """``text`` as an exact ``str`` (a subclass such as ``numpy.str_`` is copied: the compiled
    build takes exact ``str``); raises ``TypeError`` for anything that is not a ``str``."""
    if type(text) is str:
        return text
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return str.__str__(text)


#: Texts up to this length (a sentence, a line) are tokenised once and cached: completions of one
#: prompt (a GRPO group, repeated samples) share many sentences. Longer ones are tokenised under
#: the deadline each time.
SEGMENT_CACHE_CHARS = 2000


@lru_cache(maxsize=16384)
def _cached_tokens(text: str) -> Tokens:
    return TokenBuilder(text, NO_DEADLINE).run()


def tokenize_cached(text: str, deadline: Deadline = NO_DEADLINE) -> Tokens:
    """:func:`tokenize`, cached for short texts. The result is shared: do not modify it."""
    if len(text) <= SEGMENT_CACHE_CHARS:
        return _cached_tokens(text)
    return tokenize(text, deadline)


def tokenize_form(form: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Keys and kinds of a node form (cached: node forms repeat across completions).

    An equation ``L = R`` written plainly (one ``=`` with spaces around it, brackets nested on
    each side) is read side by side when every command of ``L`` found its arguments inside
    ``L``: its sides are cached on their own, so the swapped form ``R = L`` that node files list
    next to it costs nothing more. This gives exactly the tokens of reading the whole form.

    >>> tokenize_form("x + 1 = \\\\frac{1}{2}")
    (('x', '+', '#1', '=', '#1/2'), (1, 3, 0, 4, 0))
    """
    keys, kinds, _complete = _read_form(form)
    return keys, kinds


@lru_cache(maxsize=65536)
def _read_form(form: str) -> tuple[tuple[str, ...], tuple[int, ...], bool]:
    """Keys, kinds, and whether no command ran out of text while reading its arguments."""
    halves = _equation_halves(form)
    if halves is not None:
        left, left_kinds, left_complete = _read_form(halves[0])
        right, right_kinds, right_complete = _read_form(halves[1])
        # (words ending the left side may be a unit the = drops: "9 m = 900 cm", read whole)
        if left_complete and left and right and REL not in left_kinds and REL not in right_kinds \
                and left_kinds[-1] != WORD:
            return left + ("=",) + right, left_kinds + (REL,) + right_kinds, right_complete
    builder = TokenBuilder(form, NO_DEADLINE, False)  # a form is math, not a list item
    toks = builder.run()
    return tuple(toks.keys), tuple(toks.kinds), not builder.ran_out


_LEFT_SIDE_END = re.compile(r"[^\s=<>!:]\s+\Z")
_RIGHT_SIDE_START = re.compile(r"\s+[^\s=]")


def _equation_halves(form: str) -> tuple[str, str] | None:
    """``(L, R)`` of a plainly written ``L = R`` (see :func:`tokenize_form`), else ``None``."""
    at = form.find("=")
    if at <= 0 or form.find("=", at + 1) >= 0:
        return None
    left, right = form[:at], form[at + 1:]
    if not _LEFT_SIDE_END.search(left) or not _RIGHT_SIDE_START.match(right):
        return None
    if not (_nested(left) and _nested(right)):
        return None
    return left.strip(), right.strip()


_SIZED_BRACE = re.compile(r"\\(?:left|right|middle|[bB]igg?[lr]?)\s*[{}]")


def _nested(text: str) -> bool:
    """Whether the brackets ``( ) [ ] { }`` of ``text`` close in order (``\\{`` is no bracket:
    nothing may stay open where a group could run on past the side)."""
    if _SIZED_BRACE.search(text):  # \left} is a delimiter the builder reads as no group end
        return False
    stack = []
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in "([{":
            stack.append(ch)
        elif ch in ")]}":
            if not stack or "([{"[")]}".index(ch)] != stack.pop():
                return False
    return not stack


def canonical_key(form: str) -> str:
    """A readable canonical string of a math form; equal strings mean equal forms under SPEC §3.

    >>> canonical_key("$\\\\dfrac{9}{s+2} + t = 2.4$")
    '#9 / ( s + #2 ) + t = #12/5'
    """
    return " ".join(tokenize_form(form)[0])
