"""Optional stage 2a': ask an open LLM for the recurring key formulas/values, as JSON.

The model sees the problem and up to ``max_solutions`` correct solutions and must answer with
``{"nodes": [{"kind", "text", "value", "forms"}]}``. Its output is untrusted:

* the first JSON object/array anywhere in the reply is used (code fences and chatter around it
  are fine); no JSON at all -> :class:`ExtractionError` naming the problem id (the caller counts
  it and keeps the rule-based nodes of that problem);
* each proposed node is validated (string ``text`` of at most ``MAX_TEXT`` characters, known
  ``kind`` or one inferred, ``value`` only when it is an exact number); invalid entries are
  counted and dropped;
* LLM rewrites (``forms`` of its own nodes, and :meth:`LLMExtractor.rewrite` for the nodes kept
  after refine) are kept only when math-verify's LaTeX parser (no ``eval``) confirms they equal
  the node text (both sides, for equations), within math-verify's timeout;
* nothing is trusted for support: refine re-matches every LLM node against the correct
  trajectories, so an invented node has support 0 and is dropped.

Example:
    >>> parse_reply('Sure! ```json\\n{"nodes": [{"kind": "value", "text": "3/4"}, {"text": 7}]}\\n```')
    ([Node(id='', text='3/4', kind='value', forms=('3/4', '\\\\frac{3}{4}', '0.75'), value='3/4', support=None, position=None, standalone=True)], 1)
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace

from node_builder.expand import expand, value_text
from node_builder.matcher import number_of
from node_builder.schema import NODE_KINDS, Node, Problem

MAX_TEXT = 200
MAX_NODES = 20

PROMPT = """You are given a math problem and several correct solutions to it.
List the key intermediate results that most of the solutions share: equations they set up, values
they compute, factorisations or simplified expressions. Do not list the final answer, numbers or
relations stated in the problem, or definitions of variables. Use LaTeX without dollar signs.

Reply with JSON only, in this format:
{{"nodes": [{{"kind": "value", "text": "9", "value": "9", "forms": []}},
            {{"kind": "equation", "text": "4s^2+8s-45=0", "value": null, "forms": ["(2s-5)(2s+9)=0"]}}]}}
kind is one of "value", "equation", "expression", "proposition"; "value" holds the exact number
(like "3/4") for value nodes and null otherwise; "forms" are equivalent ways to write the node.

Problem:
{problem}

{solutions}
"""


REWRITE_PROMPT = """Here are key intermediate results from solutions of a math problem, as JSON.
For each, give up to 3 other ways a solution might write exactly the same thing (equivalent
LaTeX or plain forms: other fraction/decimal notation, rearranged equation, expanded or factored
form). Use LaTeX without dollar signs. Reply with JSON only: {{"n1": ["...", "..."], "n2": [...]}}

Problem:
{problem}

Results:
{nodes}
"""


class ExtractionError(ValueError):
    """The model's reply held no usable JSON."""


def _first_json(reply: str):
    decoder = json.JSONDecoder()
    for i, ch in enumerate(reply):
        if ch in "{[":
            try:
                obj, _ = decoder.raw_decode(reply, i)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, list) or (isinstance(obj, dict) and "nodes" in obj):
                return obj
    return None


def _equivalent(a: str, b: str) -> bool:
    from math_verify import parse, verify
    from math_verify.parser import LatexExtractionConfig

    timeout = 3 if threading.current_thread() is threading.main_thread() else None
    config = [LatexExtractionConfig()]
    try:
        left, right = parse(f"${a}$", config, parsing_timeout=timeout), parse(f"${b}$", config, parsing_timeout=timeout)
        return bool(left and right and verify(left, right, timeout_seconds=timeout))
    except Exception:
        return False


def _forms_equal(text: str, form: str, kind: str) -> bool:
    if kind == "equation":
        a, b = text.split("=", 1) if text.count("=") == 1 else (None, None)
        c, d = form.split("=", 1) if form.count("=") == 1 else (None, None)
        if a is None or c is None:
            return False
        return (_equivalent(a, c) and _equivalent(b, d)) or (_equivalent(a, d) and _equivalent(b, c))
    return _equivalent(text, form)


def _node_from(entry, check_forms: bool) -> Node | None:
    if not isinstance(entry, dict):
        return None
    text = entry.get("text")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        return None
    text = text.strip().strip("$").strip()
    kind = entry.get("kind")
    number = number_of(text)
    if kind not in NODE_KINDS:
        kind = "value" if number is not None else ("equation" if text.count("=") == 1 else "expression")
    value = None
    if kind == "value":
        if number is None:
            raw = entry.get("value")
            number = number_of(raw) if isinstance(raw, str) and len(raw) <= MAX_TEXT else None
        if number is None:
            return None
        value = value_text(number)
    forms = expand(text, kind, value)
    extra = entry.get("forms")
    if check_forms and isinstance(extra, list):
        for form in extra[:4]:
            if isinstance(form, str) and 0 < len(form) <= MAX_TEXT and form not in forms:
                if _forms_equal(text, form.strip().strip("$"), kind):
                    forms.append(form.strip().strip("$"))
    return Node(id="", text=text, kind=kind, value=value, forms=tuple(forms))


def node_of_text(text: str) -> Node | None:
    """A candidate node of a key result written as text (kind inferred, forms expanded), or None.

    >>> node_of_text("$x = 7$").forms[:1], node_of_text("0.75").value
    (('x = 7',), '3/4')
    """
    return _node_from({"text": text}, False)


def parse_reply(reply: str, problem_id: str = "?", check_forms: bool = False) -> tuple[list[Node], int]:
    """``(valid nodes, number of invalid entries)``; raises :class:`ExtractionError` without JSON."""
    obj = _first_json(reply if isinstance(reply, str) else "")
    if obj is None:
        raise ExtractionError(f"{problem_id}: LLM extractor reply has no JSON node list: {str(reply)[:120]!r}")
    entries = obj if isinstance(obj, list) else obj.get("nodes")
    if not isinstance(entries, list):
        raise ExtractionError(f"{problem_id}: LLM extractor JSON has no 'nodes' list")
    nodes, invalid = [], 0
    for entry in entries[:MAX_NODES]:
        node = _node_from(entry, check_forms)
        if node is None:
            invalid += 1
        else:
            nodes.append(node)
    return nodes, invalid + max(0, len(entries) - MAX_NODES)


def parse_rewrites(reply: str, nodes: list[Node], problem_id: str = "?") -> int:
    """Add the verified rewrites of ``reply`` (``{"n1": [forms]}``) to the forms of ``nodes``
    (ids ``n1..``, in order): each node with new forms is replaced in the list by a copy that has
    them; returns how many forms were added. No JSON -> :class:`ExtractionError`.

    >>> nodes = [Node(id="", text="\\\\frac{1}{2}+\\\\frac{1}{3}", kind="expression", forms=("\\\\frac{1}{2}+\\\\frac{1}{3}",))]
    >>> parse_rewrites('{"n1": ["\\\\\\\\frac{5}{6}", "\\\\\\\\frac{2}{3}"]}', nodes), nodes[0].forms[-1]
    (1, '\\\\frac{5}{6}')
    """
    decoder = json.JSONDecoder()
    obj = None
    text = reply if isinstance(reply, str) else ""
    for i, ch in enumerate(text):
        if ch == "{":
            try:
                obj, _ = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                break
            obj = None
    if not isinstance(obj, dict):
        raise ExtractionError(f"{problem_id}: LLM rewrite reply has no JSON object: {str(reply)[:120]!r}")
    added = 0
    for index, node in enumerate(nodes):
        proposals = obj.get(f"n{index + 1}")
        if not isinstance(proposals, list):
            continue
        forms = list(node.forms)
        for form in proposals[:3]:
            if not isinstance(form, str) or not 0 < len(form) <= MAX_TEXT or len(forms) >= 8:
                continue
            form = form.strip().strip("$").strip()
            if form and form not in forms and _forms_equal(node.text, form, node.kind):
                forms.append(form)
                added += 1
        if len(forms) > len(node.forms):
            nodes[index] = replace(node, forms=tuple(forms))
    return added


class LLMExtractor:
    """Prompts a backend once per problem for nodes (and, after refine, once for rewrites of the
    kept nodes); ``self.last`` holds the counts for the record's provenance."""

    def __init__(self, backend, max_solutions: int = 4, max_solution_chars: int = 3000):
        self.backend = backend
        self.max_solutions = max_solutions
        self.max_solution_chars = max_solution_chars
        self.last: dict = {"status": "off", "proposed": 0, "invalid": 0, "rewrites": 0}

    def prompt(self, problem: Problem, trajectories) -> list[dict]:
        shown = [t.text[: self.max_solution_chars] for t in trajectories[: self.max_solutions]]
        solutions = "\n\n".join(f"Solution {i}:\n{s}" for i, s in enumerate(shown, start=1))
        return [{"role": "user", "content": PROMPT.format(problem=problem.problem, solutions=solutions)}]

    def extract(self, problem: Problem, trajectories) -> list[Node]:
        reply = self.backend.generate([self.prompt(problem, trajectories)], n=1)[0][0]
        try:
            nodes, invalid = parse_reply(reply, problem.id, check_forms=True)
        except ExtractionError as exc:
            self.last = {"status": f"garbage: {exc}"[:300], "proposed": 0, "invalid": 0, "rewrites": 0}
            raise
        self.last = {"status": "ok", "proposed": len(nodes) + invalid, "invalid": invalid, "rewrites": 0}
        return nodes

    def rewrite(self, problem: Problem, nodes: list[Node]) -> None:
        """Ask for equivalent forms of the kept nodes; only math-verify-confirmed ones are added.
        A garbage reply adds nothing (and raises :class:`ExtractionError` for the caller to log)."""
        if not nodes:
            return
        listing = json.dumps({f"n{i}": n.text for i, n in enumerate(nodes, start=1)}, ensure_ascii=False)
        prompt = [{"role": "user", "content": REWRITE_PROMPT.format(problem=problem.problem, nodes=listing)}]
        reply = self.backend.generate([prompt], n=1)[0][0]
        self.last["rewrites"] = parse_rewrites(reply, nodes, problem.id)
