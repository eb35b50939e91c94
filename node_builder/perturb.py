"""Programmatic wrong solutions for measuring node validity (never used to build nodes).

* :func:`gsm8k_slip` — an arithmetic slip propagated through a GSM8K solution: one calculator
  step's result is changed, every later step that uses a changed number is recomputed (exact
  rationals, a tiny evaluator for ``+ - * / ( )`` on numbers: no ``eval``), the visible numbers
  are rewritten, and the final answer follows. Returns ``None`` when the slip does not reach the
  final answer (then the variant would not be wrong).
* :func:`substitute_slip` — for free-form solutions (AIME): the solution derails after a random
  point in its middle (20%..80% of the text): every computed result (right side of an
  equation) from there on is replaced by a wrong number wherever it occurs later, and the final
  answer too. The numbers change consistently but the arithmetic is not redone: a textual
  model of "right start, slip, everything after it off".

Both end with ``The answer is \\boxed{...}.`` so the metric reads the (wrong) final answer.

Example:
    >>> import random
    >>> sol = "She sells 16 - 3 - 4 = <<16-3-4=9>>9 eggs.\\nShe makes 9 * 2 = $<<9*2=18>>18.\\n#### 18"
    >>> text, final = gsm8k_slip(sol, random.Random(0), step=0, delta=1)
    >>> print(text); final
    She sells 16 - 3 - 4 = 10 eggs.
    She makes 10 * 2 = $20.
    The answer is \\boxed{20}.
    '20'
"""

from __future__ import annotations

import ast
import random
import re
from fractions import Fraction

_ANNOTATION = re.compile(r"<<([^<>=]*)=([^<>]*)>>")
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?![\w]|\.\d)")


def _value(token: str) -> Fraction:
    return Fraction(token.replace(",", ""))


def _fmt(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    for digits in range(1, 7):
        scaled = value * 10 ** digits
        if scaled.denominator == 1:
            return f"{float(value):.{digits}f}"
    return f"{value.numerator}/{value.denominator}"


def arithmetic(expr: str) -> Fraction:
    """Exact value of ``+ - * / ( )`` over decimal numbers; anything else raises ValueError.

    >>> arithmetic("80000*1.5"), arithmetic("(3+4)/2")
    (Fraction(120000, 1), Fraction(7, 2))
    """
    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return Fraction(str(node.value))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            if right == 0:
                raise ValueError("division by zero")
            return left / right
        raise ValueError(f"not plain arithmetic: {ast.dump(node)[:60]}")

    if len(expr) > 200 or not re.fullmatch(r"[\d.+\-*/() ]+", expr):
        raise ValueError(f"not plain arithmetic: {expr!r}")
    return walk(ast.parse(expr, mode="eval"))


def _replace_numbers(segment: str, changed: dict[Fraction, Fraction]) -> str:
    def sub(match):
        try:
            value = _value(match.group(1))
        except (ValueError, ZeroDivisionError):
            return match.group(0)
        return _fmt(changed[value]) if value in changed else match.group(0)
    return _NUMBER.sub(sub, segment)


def gsm8k_slip(solution: str, rng: random.Random, step: int | None = None,
               delta: int | None = None) -> tuple[str, str] | None:
    """``(wrong trajectory text, its final answer)`` or None (see module doc)."""
    body, _, final = solution.partition("####")
    final_value = _value(final.strip()) if final.strip() else None
    steps = list(_ANNOTATION.finditer(body))
    if not steps or final_value is None:
        return None
    i = rng.randrange(len(steps)) if step is None else step
    try:
        old = _value(steps[i].group(2).strip())
    except (ValueError, ZeroDivisionError):
        return None
    if old.denominator == 1:
        new = old + (delta if delta is not None else rng.choice([1, 2, 3, 10]))
    else:
        new = old * 2
    if new == old or new < 0:
        return None
    changed: dict[Fraction, Fraction] = {}
    out, cursor = [], 0
    for j, match in enumerate(steps):
        segment = body[cursor:match.start()]
        out.append(_replace_numbers(segment, changed) if j > i else segment)
        expr, result = match.group(1), match.group(2).strip()
        try:
            result_value = _value(result)
            if j == i:
                new_result = new
            elif j > i:
                new_expr = _replace_numbers(expr, changed)
                new_result = arithmetic(new_expr) if new_expr != expr else result_value
            else:
                new_result = result_value
        except (ValueError, ZeroDivisionError):
            return None
        cursor = match.end()
        visible = _NUMBER.match(body, cursor) or re.compile(r"\$?(\d[\d,]*(?:\.\d+)?)").match(body, cursor)
        if new_result != result_value:
            changed[result_value] = new_result
        if visible and _value(visible.group(1)) == result_value:
            prefix = body[cursor:visible.start(1)]
            out.append(prefix + _fmt(new_result))
            cursor = visible.end(1)
    out.append(_replace_numbers(body[cursor:], changed))
    new_final = changed.get(final_value, final_value)
    if new_final == final_value:
        return None
    text = "".join(out).rstrip()
    return f"{text}\nThe answer is \\boxed{{{_fmt(new_final)}}}.", _fmt(new_final)


_BOXED = re.compile(r"\\boxed\s*\{")


def substitute_slip(text: str, answer: str, rng: random.Random, candidates: list[tuple[int, str]]
                    ) -> str | None:
    """Derail a solution after a random point: from a computed result in the middle of the text
    (``candidates``: ``(offset, surface)`` of equation results; one between 20% and 80% of the
    text is drawn) every later computed result is replaced by a wrong number wherever it occurs
    from there on, and the final answer by a wrong answer (see module doc).

    >>> t = "We get $x = 12$. Then $y = 2x = 24$ and $z = y + 1 = 25$, so 25."
    >>> print(substitute_slip(t, "25", random.Random(1), [(11, "12"), (30, "24"), (50, "25")]))
    We get $x = 12$. Then $y = 2x = 27$ and $z = y + 1 = 27$, so 27.
    The answer is \\boxed{27}.
    """
    n = max(len(text), 1)
    numeric = [(pos, s.strip()) for pos, s in candidates if re.fullmatch(r"\d+(?:\.\d+)?", s.strip())]
    middle = [pos for pos, s in numeric if 0.2 * n <= pos <= 0.8 * n]
    if not middle or not answer.isdigit():
        return None
    start = rng.choice(middle)
    wrong_of: dict[str, str] = {}
    for pos, surface in numeric:
        if pos >= start and surface not in wrong_of:
            value = _value(surface)
            wrong_of[surface] = _fmt(value + rng.choice([1, 2, 3]))
    wrong_of[answer] = str((int(answer) + rng.choice([1, 2, 3])) % 1000)
    pattern = re.compile(r"(?<![\d.])(" + "|".join(re.escape(k) for k in sorted(wrong_of, key=len, reverse=True))
                         + r")(?![\d]|\.\d)")
    tail = pattern.sub(lambda m: wrong_of[m.group(1)], text[start:])
    changed = _BOXED.sub("{", text[:start] + tail)
    return f"{changed.rstrip()}\nThe answer is \\boxed{{{wrong_of[answer]}}}."
