"""Stage 2a: rule-based candidate nodes from correct trajectories, clustered across them.

Candidates in one trajectory:

* **relation chains** read by the matcher's own reader (``relation_chains``). For an equality
  chain ``s0 = s1 = ... = sn``: each consecutive pair ``s_i = s_(i+1)`` and, when ``n >= 2``,
  the ends ``s0 = sn`` are *equation* candidates; every side after the first that is a plain
  number (its canonical key is one number) is a *value* candidate. A chain with another
  relation (``x - 1 \\ge 0``, ``n \\equiv 3 \\pmod 7``) gives one *proposition* per pair
  (``\\equiv`` counts as an equation, as in docs/SPEC.md §2).
* **stated relations** outside the text (``Trajectory.equations``, GSM8K ``<<16-3-4=9>>``): the
  equation and its result as a value.
* **standalone numbers** in prose or math (``the lcm is 12``) of at least ``MIN_PROSE_VALUE``
  or non-integer: *value* candidates ranked below computed ones (refine), useful where a
  solution states its results in words.

Side texts are cut from the trajectory around the reader's token span, widened to whole brace
groups (``\\frac{\\$14.40}{.4}``), and used only when their canonical key equals the reader's key
for the side; prose words and dangling operators at the ends are trimmed (``pay 24 + 40`` ->
``24 + 40``) and sides that still hold prose are dropped.

Candidates are clustered by canonical key (``4s^{2}+8s`` and ``4s²+8s`` are one cluster;
equations up to the order of their sides and terms, as the matcher compares them). A
cluster keeps every surface form seen, the trajectories it was mined from and the text before
its first occurrences; the most frequent surface form is its text. Support is *not* decided here:
refine re-matches every node against every correct trajectory.

Example:
    >>> from node_builder.schema import Trajectory
    >>> t = Trajectory("Janet sells 16 - 3 - 4 = 9 eggs.", "reference", True, ["16-3-4=9"])
    >>> [(c.kind, c.text) for c in mine([t])]
    [('equation', '16-3-4=9'), ('value', '9')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from node_builder.expand import value_text
from node_builder.matcher import (DEFAULT_THINK_FORMAT, canonical_key, commutative_key, number_of, order_free_key,
                                  rational, relation_chains, split_relation, standalone_numbers, surd_value,
                                  tokenize_form)
from node_builder.schema import Trajectory

#: Longest side (characters) taken into a relation candidate: longer spans are derivations.
MAX_SIDE_CHARS = 80
#: Smallest integer taken from prose as a value candidate (single digits occur by chance).
MIN_PROSE_VALUE = 10

_PLAIN_NUMBER = re.compile(r"^-?\d[\d,]*(?:\.\d+)?$")
_LEADING_PROSE = re.compile(r"^(?:[*/^+=\s]+|(?:[A-Za-z’']{2,}|[A-Za-z])\s+(?=[\d.(\\$-]))+")
_TRAILING_PROSE = re.compile(r"(?:[\s*/^+=-]+|\s+[A-Za-z’']{2,})+$")
_ADJACENT_NUMBERS = re.compile(r"#\S+ #")
_COMMAND_BEFORE = re.compile(r"\\[A-Za-z]+\s*$")
_REL_LATEX = {"=": "=", "≡": "\\equiv", "<": "<", ">": ">", "≤": "\\le", "≥": "\\ge", "≠": "\\ne",
              "∣": "\\mid", "≈": "\\approx"}
_EQUATION_RELS = {"=", "≡"}
_ORIENT = {">": "<", "≥": "≤", "<": "<", "≤": "≤"}
#: Most tokens of a chain's last side taken as an expression candidate.
MAX_RESULT_TOKENS = 24


#: A writing with words in it: ``\\text{...}``, ``\\mathrm{...}`` or three letters that are no
#: command's (``pots``, ``miles/hour``).
WORDY = re.compile(r"\\(?:text|mathrm)\b|(?<![\\a-zA-Z])[a-zA-Z]{3,}")


@dataclass
class Cluster:
    """Candidates with one canonical key, across trajectories."""

    key: str
    kind: str
    value: str | None
    surface: dict[str, int] = field(default_factory=dict)  # surface form -> count
    trajectories: dict[int, int] = field(default_factory=dict)  # trajectory index -> first offset
    contexts: list[str] = field(default_factory=list)  # text before the first occurrences
    origins: list[str] = field(default_factory=list)  # "chain", "annotation", "prose"

    @property
    def text(self) -> str:
        """The writing most trajectories use, the shortest of those; one without prose words
        first (``12 * 3 = 36``, not ``12 \\text{ pots} \\times 3 = 36``, which matching reads the
        same)."""
        return max(self.surface.items(), key=lambda kv: (not WORDY.search(kv[0]), kv[1], -len(kv[0])))[0]


def clean_side(side: str) -> str | None:
    """A side without prose words or dangling operators at its ends; None when unusable.

    >>> clean_side("pay 24 + 40"), clean_side("** x+x+30"), clean_side("80 GB"), clean_side("15 4-")
    ('24 + 40', 'x+x+30', '80', None)
    """
    out = _TRAILING_PROSE.sub("", _LEADING_PROSE.sub("", side.strip())).strip()
    key = canonical_key(out) if out else ""
    if not key or _ADJACENT_NUMBERS.search(key) or "~" in key or len(out) > MAX_SIDE_CHARS:
        return None
    return out if balanced(out) else None


def balanced(text: str) -> bool:
    """Brackets and ``\\left``/``\\right`` pair up (a side cut inside a group is unusable).

    >>> balanced("( x + y \\\\right)"), balanced("\\\\left( x \\\\right)"), balanced("f(x)")
    (False, True, True)
    """
    if text.count("\\left") != text.count("\\right"):
        return False
    stack = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for ch in text.replace("\\{", "").replace("\\}", ""):
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if ch == "]" and not stack:  # half-open intervals like (0, 1] are fine
                continue
            if not stack or stack[-1] != pairs[ch]:
                if ch == "]" and stack and stack[-1] == "(":
                    stack.pop()
                    continue
                if ch == ")" and stack and stack[-1] == "[":
                    stack.pop()
                    continue
                return False
            stack.pop()
    return not stack


def side_source(text: str, start: int, end: int, key: str) -> str | None:
    """The source text of a side whose tokens span ``text[start:end]``, widened to whole brace
    groups (and the command owning an opened group); None unless its key is ``key``.

    >>> t = "price was $$\\\\frac{\\\\$14.40}{.4}=36$$"
    >>> side_source(t, 20, 28, canonical_key("\\\\frac{14.40}{.4}"))
    '\\\\frac{\\\\$14.40}{.4}'
    """
    if start < 0 or end < start:
        return None
    depth = low = 0
    for ch in text[start:end]:
        depth += (ch == "{") - (ch == "}")
        low = min(low, depth)
    s, need = start, -low
    while need > 0 and s > 0:
        s -= 1
        need += (text[s] == "}") - (text[s] == "{")
    if need > 0:
        return None
    command = _COMMAND_BEFORE.search(text, 0, s) if -low > 0 else None
    if command:
        s = command.start()
    e, depth = end, sum((ch == "{") - (ch == "}") for ch in text[s:end])
    while depth > 0 and e < len(text):
        depth += (text[e] == "{") - (text[e] == "}")
        e += 1
    lefts = len(re.findall(r"\\left\b", text[s:e])) - len(re.findall(r"\\right\b", text[s:e]))
    if lefts < 0:  # the reader starts a side after its ``\left``: take it back
        before = re.search(r"\\left\s*$", text[:s])
        if before:
            s = before.start()
    candidate = text[s:e].strip()
    return candidate if candidate and canonical_key(candidate) == key else None


def _is_result(side: str) -> bool:
    """A chain's last side worth a node of its own: a closed form or an algebraic result of a few
    tokens (``\\sqrt{21}``, ``-2 + 7i``, ``(x-3)(x+2)``), not a bare name nor a rational number
    however written (``1^2``, ``\\frac{6}{2}``: those are value candidates)."""
    keys, kinds = tokenize_form(side)
    return 2 <= len(keys) <= MAX_RESULT_TOKENS and rational(surd_value(keys, kinds)) is None


def relation_key(text: str, kind: str) -> str:
    """Cluster key: for an equation the matcher's order-free keys of its two sides, sorted
    (``ID = BD`` ~ ``BD = ID``; ``67 + 51 - 1 = 117`` ~ ``51 + 67 - 1 = 117``: the matcher
    accepts either order of sides and of terms); otherwise the canonical key."""
    if kind == "equation" and text.count("=") == 1:
        left, right = text.split("=")
        sides = sorted((order_free_key(left), order_free_key(right)))
        return f"{sides[0]} = {sides[1]}"
    if kind == "proposition":  # x > 2 ~ 2 < x: one orientation, terms in any order
        sides, rels = split_relation(text)
        if len(rels) == 1 and rels[0] in _ORIENT:
            (left, right), rel = (sides[1], sides[0]) if rels[0] in (">", "≥") else sides, _ORIENT[rels[0]]
            return f"{commutative_key(*left)} {rel} {commutative_key(*right)}"
    return canonical_key(text)


class _Collector:
    def __init__(self):
        self.clusters: dict[str, Cluster] = {}

    def add(self, text: str, kind: str, value: str | None, t_index: int, start: int,
            context: str, origin: str) -> None:
        text = text.strip()
        key = f"value:{value}" if kind == "value" else relation_key(text, kind)
        if not text or not key:
            return
        cluster = self.clusters.get(key)
        if cluster is None:
            cluster = self.clusters[key] = Cluster(key, kind, value)
        cluster.surface[text] = cluster.surface.get(text, 0) + 1
        if t_index not in cluster.trajectories:
            cluster.trajectories[t_index] = start
            cluster.contexts.append(context)
            cluster.origins.append(origin)

    def value(self, side: str, t_index: int, start: int, context: str, origin: str) -> None:
        number = number_of(side)
        if number is not None:
            surface = side.replace(",", "") if _PLAIN_NUMBER.match(side) else value_text(number)
            self.add(surface, "value", value_text(number), t_index, start, context, origin)

    def relation(self, sides: list[tuple[str | None, int]], rels: list[str], t_index: int,
                 text: str, origin: str) -> None:
        sides = [(clean_side(s) if s else None, start) for s, start in sides]
        start0 = next((start for _, start in sides if start >= 0), -1)
        context = text[max(0, start0 - 60):start0] if start0 >= 0 else ""
        if len(rels) > 1 and all(r == "=" for r in rels):
            # an equality chain claims its ends equal; its middle sides are one route's rewriting
            pairs = [(sides[0][0], "=", sides[-1][0])]
        else:
            pairs = [(sides[i][0], rels[i], sides[i + 1][0]) for i in range(len(rels))]
        for left, rel, right in pairs:
            if not left or not right or rel not in _REL_LATEX:
                continue
            if rel in _EQUATION_RELS and canonical_key(left) == canonical_key(right):
                continue  # an identity (the same thing written twice) checks nothing
            kind = "equation" if rel in _EQUATION_RELS else "proposition"
            joiner = f" {_REL_LATEX[rel]} " if origin == "chain" else _REL_LATEX[rel]
            self.add(f"{left}{joiner}{right}", kind, None, t_index, start0, context, origin)
        for i, (side, start) in enumerate(sides[1:], start=1):
            if side and rels[i - 1] == "=":
                self.value(side, t_index, start if start >= 0 else start0, context, origin)
        last, start = sides[-1]
        if last and len(rels) and all(r == "=" for r in rels) and number_of(last) is None and _is_result(last):
            self.add(last, "expression", None, t_index, start if start >= 0 else start0, context, origin)


def _chain_candidates(collector: _Collector, text: str, t_index: int) -> None:
    for chain in relation_chains(text):
        rels = list(getattr(chain, "rels", ()))
        if not rels:
            continue
        sides = []
        for side in chain.sides:
            key = getattr(side, "key", "").replace("\x00", " ")
            source = side_source(text, side.start, side.end, key) if key else None
            sides.append((source, side.start))
        collector.relation(sides, rels, t_index, text, "chain")


def _prose_candidates(collector: _Collector, text: str, t_index: int) -> None:
    for key, start, end in standalone_numbers(text):
        if "," in text[start:end]:  # "200,240,300": a list or thousands? ambiguous, skip
            continue
        number = number_of(key.replace("#", ""))
        if number is None or (number.denominator == 1 and abs(number) < MIN_PROSE_VALUE):
            continue
        collector.value(text[start:end], t_index, start, text[max(0, start - 60):start], "prose")


def mining_text(text: str) -> str:
    """The part of a trajectory candidates are read from: after a closed thinking trace
    (``<think>...</think>``, Sky-T1's ``<|begin_of_thought|>...``: the metric's default
    :class:`~consensus_metrics.answer.ThinkFormat`), the written solution -- the trace's detours
    and rejected cases are no candidates; every node is still matched against the whole text.

    >>> mining_text("<think>try x = 3? no.</think> So x = 4.")
    ' So x = 4.'
    >>> mining_text("<|begin_of_thought|>x = 3?<|end_of_thought|><|begin_of_solution|>x = 4<|end_of_solution|>")
    'x = 4'
    """
    parts = DEFAULT_THINK_FORMAT.split(text)
    if parts.trace and parts.answer and parts.answer.strip():
        return parts.answer
    return text


def mine(trajectories: list[Trajectory]) -> list[Cluster]:
    """Clusters of candidates from the given (correct) trajectories, in first-seen order."""
    collector = _Collector()
    for index, trajectory in enumerate(trajectories):
        text = mining_text(trajectory.text)
        for equation in trajectory.equations:
            parts = equation.split("=")
            collector.relation([(p, -1) for p in parts], ["="] * (len(parts) - 1), index, text, "annotation")
        _chain_candidates(collector, text, index)
        _prose_candidates(collector, text, index)
    return list(collector.clusters.values())
