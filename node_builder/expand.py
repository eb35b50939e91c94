"""Stage 2b: programmatic equivalent forms of a node (exact rewrites only, never approximations).

* value ``3/4`` -> ``\\frac{3}{4}``, ``0.75`` (a decimal only when it terminates, at most
  ``MAX_DECIMALS`` digits); value ``2.5`` -> ``5/2``, ``\\frac{5}{2}``; integers stay as they are
  (the matcher already reads ``1,000`` and ``1000.0``).
* equation ``L = R`` -> ``R = L`` (side swap), plus the plain/LaTeX twin of each side.
* LaTeX <-> plain: ``\\frac{a}{b}`` <-> ``(a)/(b)``, ``\\cdot``/``\\times`` <-> ``*``, ``^{2}`` <->
  ``^2``, ``\\left(``/``\\right)`` dropped. A simple ``a/b`` of numbers or symbols becomes
  ``\\frac{a}{b}``.

Forms are distinct strings, the node text first, at most ``MAX_FORMS``.

Example:
    >>> value_forms("3/4")
    ['3/4', '\\\\frac{3}{4}', '0.75']
    >>> equation_forms("\\\\frac{9}{s} + t = 4")
    ['\\\\frac{9}{s} + t = 4', '4 = \\\\frac{9}{s} + t', '(9)/(s) + t = 4', '4 = (9)/(s) + t']
"""

from __future__ import annotations

import re
from fractions import Fraction

from consensus_metrics.numbers import MAX_DECIMALS, exact_decimal  # noqa: F401 (MAX_DECIMALS: the module doc)
from node_builder.matcher import parse_value

MAX_FORMS = 6

_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_POWER_BRACED = re.compile(r"\^\{(-?\w)\}")
#: ``a/b`` of two numbers (decimals whole: ``180 / 7.5``) or symbols, nothing glued on either side
_SIMPLE_SLASH = re.compile(r"(?<![\w)}.])(-?\w+(?:\.\d+)?)\s*/\s*(\w+(?:\.\d+)?)(?![\w(.])")


def value_text(value: Fraction) -> str:
    """Canonical ``value`` field text: ``'9'``, ``'-3/4'``."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def value_forms(value: str) -> list[str]:
    number = parse_value(value)
    forms = [value]
    if number.denominator != 1:
        sign = "-" if number < 0 else ""
        forms.append(f"{sign}\\frac{{{abs(number.numerator)}}}{{{number.denominator}}}")
        forms.append(f"{sign}{abs(number.numerator)}/{number.denominator}")
        decimal = exact_decimal(number)
        if decimal:
            forms.append(decimal)
    return _distinct(forms)


def latex_to_plain(text: str) -> str:
    out = text.replace("\\left", "").replace("\\right", "")
    for _ in range(4):  # nested fractions, innermost first
        new = _FRAC.sub(r"(\1)/(\2)", out)
        if new == out:
            break
        out = new
    out = re.sub(r"\s*\\(?:cdot|times)\s*", " * ", out)
    out = _POWER_BRACED.sub(r"^\1", out)
    return re.sub(r"\s+", " ", out).strip()


def plain_to_latex(text: str) -> str:
    """The LaTeX twin of a plain text: ``a/b`` typeset, ``*`` as ``\\cdot``.

    >>> plain_to_latex("x = 180 / 7.5"), plain_to_latex("111/1.5 * 2 = 148")
    ('x = \\\\frac{180}{7.5}', '\\\\frac{111}{1.5} \\\\cdot 2 = 148')
    """
    out = _SIMPLE_SLASH.sub(r"\\frac{\1}{\2}", text)
    out = re.sub(r"\s*\*\s*", " \\\\cdot ", out)
    return re.sub(r"\s+", " ", out).strip()


def twin(text: str) -> str:
    """The plain twin of a LaTeX text, or the LaTeX twin of a plain one."""
    return latex_to_plain(text) if ("\\" in text or "^{" in text) else plain_to_latex(text)


def equation_forms(text: str) -> list[str]:
    left, sep, right = text.partition("=")
    if not sep or "=" in right:
        return [text]
    left, right = left.strip(), right.strip()
    forms = [text, f"{right} = {left}", f"{twin(left)} = {twin(right)}", f"{twin(right)} = {twin(left)}"]
    return _distinct(forms)


def expression_forms(text: str) -> list[str]:
    return _distinct([text, twin(text)])


def expand(text: str, kind: str, value: str | None = None) -> list[str]:
    """All forms of a node (text first)."""
    if kind == "value" and value is not None:
        forms = [text] + value_forms(value)
    elif kind == "equation":
        forms = equation_forms(text)
    elif kind == "expression":
        forms = expression_forms(text)
    else:
        forms = [text]
    return _distinct(forms)[:MAX_FORMS]


def _distinct(forms: list[str]) -> list[str]:
    seen: list[str] = []
    for form in forms:
        form = form.strip()
        if form and form not in seen:
            seen.append(form)
    return seen
