r"""Text cleanup of model-run outputs, each step a declared option of a field map (``runs.RunMap``).

These only undo how a dump stored or formatted an output; they never judge it.

* :func:`unescape_doubled_latex` — a dump that escaped its backslashes twice writes ``\\frac``
  where LaTeX means ``\frac`` (Rho-Math's MATH-500 chain-of-thought runs, in some rows and
  even in parts of one row). Per run of ``n`` backslashes: ``n`` even and >= 4 becomes ``n/2``
  (``\\\\`` is a doubled line break ``\\``); ``n == 2`` before a letter, ``$`` or ``%`` becomes 1
  (a doubled command or escaped sign). A single ``\frac``, a line break ``\\`` before a space or
  newline and ``\\\hline`` (a line break and a command) are left as they are.
* :func:`drop_code` — tool-integrated outputs (prose, a fenced program, its printed output):
  every fenced block except an ````` ```output ````` block is removed, an unclosed fence to the
  end of the text; prose and printed outputs stay. Code lines are never read as reasoning.
* :func:`turns_text` — a list of turns (``{"role": "text" | "code" | "execution", ...}``):
  prose turns as they are, output turns as ````` ```output ````` blocks, every other role
  (system, user, code) dropped.
* :func:`strip_line_prefix` — a declared pattern removed at the start of every line (step
  labels such as ``Step 3.`` or ``3.``, indentation).
* :func:`rewrite_thought` — a source's own thinking-trace markers rewritten to
  ``<think>``/``</think>`` (markers the metric already reads are kept as they are).
* :func:`box_final_answer` — a solution that states its answer after a heading line (PRM800K's
  ``# Answer``) gets it as ``\boxed{...}``, where the metric looks for it; a heading with
  nothing after it (a solution cut before its answer) is removed.

Example:
    >>> unescape_doubled_latex(r"$\\sqrt{2}\\cdot 2$ and \sin x \\ next")
    '$\\sqrt{2}\\cdot 2$ and \\sin x \\\\ next'
    >>> drop_code("Let us compute.\n```python\nprint(6*7)\n```\n```output\n42\n```\nSo $\\boxed{42}$.")
    'Let us compute.\n```output\n42\n```\nSo $\\boxed{42}$.'
"""

from __future__ import annotations

import re

from node_builder.matcher import DEFAULT_THINK_FORMAT

_BACKSLASHES = re.compile(r"\\+")
_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$\n?|\Z)", re.S | re.M)
#: Thinking-trace markers the metric's default ``ThinkFormat`` reads as they are (``<think>``, Sky-T1's).
KNOWN_THOUGHT_MARKERS = DEFAULT_THINK_FORMAT.traces
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
OUTPUT_FENCE = "output"
#: Longest answer :func:`box_final_answer` boxes (longer text after the heading stays prose).
MAX_BOXED_ANSWER = 200


def _halve(match: re.Match) -> str:
    run = match.group(0)
    n = len(run)
    following = match.string[match.end():match.end() + 1]
    if n >= 4 and n % 2 == 0:
        return "\\" * (n // 2)
    if n == 2 and (following.isalpha() or following in "$%"):
        return "\\"
    return run


def unescape_doubled_latex(text: str) -> str:
    r"""Undo doubled backslashes (see the module doc). ``\\\\`` -> ``\\``; ``\\frac`` -> ``\frac``.

    >>> unescape_doubled_latex(r"\\begin{align*} x &= 1\\\\ y &= \\frac{1}{2} \\end{align*}")
    '\\begin{align*} x &= 1\\\\ y &= \\frac{1}{2} \\end{align*}'
    >>> unescape_doubled_latex(r"a \\ b \\\hline c")   # a line break, a line break and a command
    'a \\\\ b \\\\\\hline c'
    """
    return _BACKSLASHES.sub(_halve, text) if "\\\\" in text else text


def drop_code(text: str) -> str:
    """Remove fenced code blocks, keep ```output blocks and everything outside fences."""
    if "```" not in text:
        return text

    def keep_output(match: re.Match) -> str:
        return match.group(0) if match.group(1).lower() == OUTPUT_FENCE else ""

    return _FENCE.sub(keep_output, text)


def output_block(content: str) -> str:
    """A program's printed output as the tool-integrated runs write it.

    >>> output_block("3.0\\n")
    '```output\\n3.0\\n```'
    """
    return f"```{OUTPUT_FENCE}\n{content.rstrip()}\n```"


def turns_text(turns: list[dict], role_key: str, content_key: str, prose: tuple[str, ...],
               output: tuple[str, ...]) -> str:
    """One text from a list of turns: prose turns, output turns as ```output blocks; the rest
    (system, user, code) dropped; parts separated by a blank line.

    >>> turns_text([{"role": "user", "content": "2+2?"}, {"role": "text", "content": "We add."},
    ...             {"role": "code", "content": "2+2"}, {"role": "execution", "content": "4"},
    ...             {"role": "text", "content": "So \\\\boxed{4}."}], "role", "content", ("text",), ("execution",))
    'We add.\\n\\n```output\\n4\\n```\\n\\nSo \\\\boxed{4}.'
    """
    parts = []
    for turn in turns:
        role, content = turn.get(role_key), turn.get(content_key)
        if not isinstance(content, str) or not content.strip():
            continue
        if role in prose:
            parts.append(content.strip())
        elif role in output:
            parts.append(output_block(content))
    return "\n\n".join(parts)


def strip_line_prefix(text: str, pattern: str) -> str:
    r"""Remove ``pattern`` (a regular expression) at the start of every line.

    >>> strip_line_prefix("    Step 1. Let p be the price.\n    Step 2. Then 3p = 87.", r"[ \t]*(?:Step \d+\.[ \t]*)?")
    'Let p be the price.\nThen 3p = 87.'
    """
    return re.sub(f"^(?:{pattern})", "", text, flags=re.M)


def rewrite_thought(text: str, markers: tuple[str, str]) -> str:
    """A trace delimited by a source's own ``(open, close)`` markers, rewritten to ``<think>``
    and ``</think>`` (the metric reads the answer after the close); markers the metric reads
    already (``<think>``, Sky-T1's) are left alone.

    >>> rewrite_thought("<reasoning>2+2=4</reasoning> so 4", ("<reasoning>", "</reasoning>"))
    '<think>2+2=4</think> so 4'
    """
    if not markers or tuple(markers) in KNOWN_THOUGHT_MARKERS:
        return text
    opening, closing = markers
    return text.replace(opening, THINK_OPEN).replace(closing, THINK_CLOSE)


def box_final_answer(text: str, heading: str) -> str:
    r"""The answer written after the line ``heading`` as ``The answer is $\boxed{...}$.``
    (``$`` around it dropped); the heading alone at the end is removed.

    >>> box_final_answer("So x = 4.\n# Answer\n\n$4$", "# Answer")
    'So x = 4.\nThe answer is $\\boxed{4}$.'
    >>> box_final_answer("So x = 4.\n# Answer", "# Answer")
    'So x = 4.'
    """
    lines = text.split("\n")
    marks = [i for i, line in enumerate(lines) if line.strip() == heading]
    if not marks:
        return text
    head, tail = lines[:marks[-1]], "\n".join(lines[marks[-1] + 1:]).strip()
    answer = tail.strip("$ \t\n").strip()
    if answer and "\n" not in answer and len(answer) <= MAX_BOXED_ANSWER:
        head.append(f"The answer is $\\boxed{{{answer}}}$.")
    elif tail:
        head.append(tail)
    return "\n".join(head).rstrip()
