"""Stage 3b: which candidates of a problem are consensus nodes -- what several voices share.

A **voice** is one solver: a model (its checkpoints, prompts and repeated runs are one voice) or
every human-written source of the problem together (``"reference"``). From a problem's
:class:`~node_builder.evidence.Evidence`, :func:`select` keeps a candidate when, over the ``n``
voices whose correct solutions show their work (state at least one candidate of the problem: a
tool-integrated output that prints only its answer, or an answer-only reply, has no say), the
``k`` voices whose correct solutions state it satisfy the :class:`ConsensusRule`::

    k / n >= min_share   and   k >= min(min_voices, n)   and   k >= 2          (n >= 2)

Where no candidate reaches ``min_share``, the most shared candidates stand for the problem when
two voices, and at least ``fallback_share`` of them, state them. With a single voice (``n == 1``:
AIME 2025's maintainer solutions, a problem only the reference solves) nothing can be agreed on;
its nodes are what two or more of that voice's solutions share (a lone solution keeps its nodes)
and the record is flagged ``single_voice``. The defaults were chosen on leave-one-model-out validity
(``benchmarks/bench_node_validity.py --grid``; the curve is in the data card).

Then, per problem (rules of the audit's rubric that need the voices; each counted in ``stats``):

* **unmatched** -- the matcher must read a rule-mined candidate in at least one trajectory it was
  mined from (a solution that writes it between words, ``20 fruit/cluster * 6 clusters = 120``,
  is not credited, yet the voices the matcher does read still count);
* **the step of an agreed value** -- the computation of a value the voices agree on
  (``10 \\cdot 0.5 = 5`` for ``5``) is kept when two voices write it, agreed or not: where the value
  is a common number, it is that computation that stands for the step
  (:mod:`node_builder.finalize`: one node per step);
* **the writings of a signed value** -- with a reviewer's verdicts, the computations of a value
  signed GOOD and the arithmetic assigned to a bare name (``E = 24``, ``x = 180 / 7.5``), each
  labelled a duplicate or unread, are one step whose voices count together
  (:func:`_pool_value_writings`);
* **route** -- every symbol of a node appears in the problem or in the solutions of two voices
  (``6K = 42`` where only one solution introduced ``K``);
* **check** -- a node holding the answer's number that the voices state only after they state the
  answer verifies the answer rather than leading to it (``36 + 6 = 42``);
* **maximal** -- a node that is a side or a sub-term of another kept node is part of that node.

``support`` = k / n; ``position`` = the median over the supporting voices of where each first
states the node (relative offset); nodes are ordered by position.

Example:
    >>> from node_builder.evidence import gather
    >>> from node_builder.schema import Problem, Trajectory
    >>> texts = {"A": "x + 3 = 10, so x = 7 and 2x = 14. \\\\boxed{14}", "B": "We get x = 7; then 2 \\\\cdot 7 = 14.",
    ...          "C": "x = 10 - 3 = 7. The answer: 14."}
    >>> p = Problem("t/1", "t", "If $x + 3 = 10$, what is $2x$?", "14",
    ...             trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in texts.items()])
    >>> chosen = select(gather(p), ConsensusRule())
    >>> [(n.text, n.support) for n in chosen.nodes], chosen.single_voice
    ([('x = 7', 1.0), ('7', 1.0)], False)
    >>> [n.text for n in select(gather(p), ConsensusRule(), exclude_voice="C").nodes]
    ['x = 7', '7']
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace

from node_builder.evidence import Candidate, Evidence, computed_value
from node_builder.hygiene import is_part_of, symbols_of
from node_builder.matcher import ID, number_of, surd_value, tokenize_form
from node_builder.schema import Node

#: Stats keys of :func:`select`, in the order the provenance lists them.
SELECT_REASONS = ("unmatched", "below_support", "route", "check", "maximal", "rejected", "unsigned")


@dataclass(frozen=True)
class ConsensusRule:
    """When a candidate is a consensus node (see the module doc)."""

    min_share: float = 0.5
    min_voices: int = 2
    #: below ``min_share``, a problem none of whose candidates reaches it keeps its most shared
    #: candidates when they are stated by at least this share (and two) of the voices
    fallback_share: float = 0.2
    #: keep single-voice nodes at all (``--no-fallback`` turns it off)
    fallback: bool = True

    def agrees(self, k: int, n: int) -> bool:
        """``k`` of ``n >= 2`` voices state it."""
        return k >= 2 and k >= min(self.min_voices, n) and k / n >= self.min_share - 1e-9

    def to_json(self) -> dict:
        return {"min_share": self.min_share, "min_voices": self.min_voices}


@dataclass
class Selection:
    """The nodes of one problem under one rule."""

    nodes: list[Node]
    voices: list[str]  # voices with a correct solution (after the exclusion)
    stats: dict[str, int] = field(default_factory=dict)
    single_voice: bool = False
    counted: int = 0  # the voices whose solutions show work: support's denominator


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 4) if values else 0.0


def _voice_positions(candidate: Candidate, kept: list[int], voice_of: list[str]) -> dict[str, float]:
    """Voice -> where it first states the candidate (the earliest of its trajectories)."""
    out: dict[str, float] = {}
    for t in kept:
        if t in candidate.hits:
            v = voice_of[t]
            out[v] = min(out.get(v, 1.0), candidate.hits[t])
    return out


def _is_check(node: Node, positions: dict[str, float], answer_at: dict[str, float], answer_key: str) -> bool:
    """Stated after the answer by most voices that state both, and about the answer: it writes the
    answer's number (``36 + 6 = 42`` after the answer 36 puts it back into the problem)."""
    if not answer_key or answer_key not in tokenize_form(node.text)[0]:
        return False
    after = [positions[v] > answer_at[v] for v in positions if v in answer_at]
    return bool(after) and sum(after) * 2 > len(after)


def _route_ok(node: Node, problem_symbols: frozenset, symbol_voices: dict[str, set], single: bool) -> bool:
    for symbol in symbols_of(node.text):
        if symbol in problem_symbols:
            continue
        if single or len(symbol_voices.get(symbol, ())) < 2:
            return False
    return True


@dataclass
class _Checked:
    """The candidates of a problem that the matcher reads where they were mined, with who states
    them (:func:`select`'s and :func:`signable`'s common first step)."""

    entries: list[tuple[Candidate, dict[str, float], bool]]  # (candidate, voice -> position, agreed)
    voices: list[str]
    n: int  # voices whose solutions show work
    single: bool
    stats: dict[str, int]
    answer_at: dict[str, float]
    symbol_voices: dict[str, set]


def _check(evidence: Evidence, rule: ConsensusRule, exclude_voice: str | None) -> _Checked:
    trajectories = evidence.trajectories
    voice_of = [t.voice for t in trajectories]
    kept_t = [i for i, v in enumerate(voice_of) if v != exclude_voice]
    voices = sorted({voice_of[i] for i in kept_t})
    stats = {reason: 0 for reason in SELECT_REASONS}
    kept_set = set(kept_t)
    speaking = {voice_of[t] for c in evidence.candidates for t in c.hits if t in kept_set} or set(voices)
    n = len(speaking)
    single = len(voices) == 1  # one solver: nothing to agree on (two solvers of which one shows work: no node)
    answer_at: dict[str, float] = {}
    for t in kept_t:
        if evidence.answer_at[t] is not None:
            answer_at[voice_of[t]] = min(answer_at.get(voice_of[t], 1.0), evidence.answer_at[t])
    symbol_voices: dict[str, set] = {}
    for t in kept_t:
        for symbol in symbols_of(trajectories[t].text):
            symbol_voices.setdefault(symbol, set()).add(voice_of[t])

    speakers = sum(1 for t in kept_t if voice_of[t] in speaking)
    entries = []
    for candidate in evidence.candidates:
        own = candidate.mined_from & kept_set
        if candidate.cluster is not None and not own:
            continue  # mined only from the excluded voice: not a candidate of this build
        hit = {t for t in candidate.hits if t in kept_set}
        if not hit or (own and not own & hit):  # the matcher reads it in none of the texts it came from
            stats["unmatched"] += 1
            continue
        positions = _voice_positions(candidate, kept_t, voice_of)
        if single:
            agreed = rule.fallback and (speakers == 1 or len(hit) >= 2)
        else:
            agreed = rule.agrees(len(positions), n)
        entries.append((candidate, positions, agreed))
    return _Checked(entries, voices, n, single, stats, answer_at, symbol_voices)


def signable(evidence: Evidence, rule: ConsensusRule, exclude_voice: str | None = None) -> list[tuple[Candidate, int, int]]:
    """The candidates a reviewer may sign (:mod:`node_builder.signoff`): ``(candidate, k, n)`` for
    every candidate that ``k >= 2`` of the ``n`` voices state (with a single voice: what two of its
    solutions share, or a lone solution's), most shared first, then by position."""
    checked = _check(evidence, rule, exclude_voice)
    out = []
    for candidate, positions, agreed in checked.entries:
        k = len(positions)
        if (checked.single and agreed) or (not checked.single and k >= 2):
            out.append((candidate, k, checked.n, _median(list(positions.values()))))
    out.sort(key=lambda row: (-row[1], row[3], row[0].node.text))
    return [(candidate, k, n) for candidate, k, n, _ in out]


#: Most ``computations`` a record lists (the most shared first).
MAX_COMPUTATIONS = 16


def shared_computations(evidence: Evidence, rule: ConsensusRule) -> list[str]:
    """A record's ``computations`` (docs/SPEC.md §2): the arithmetic steps among the candidates two
    voices state (:func:`signable`; with a single voice, two of its solutions or a lone one's) --
    ``E = v`` with ``E`` free of variables and exactly ``v``
    (:func:`~node_builder.evidence.computed_value`) -- most shared first, at most
    :data:`MAX_COMPUTATIONS`. No reviewer signs them and NCR never
    credits them: they tell the step locator which values correct solutions reach on the way
    (``1.6 * 400 = 640``), so that a wrong solution's correct step is not taken for its error.

    >>> from node_builder.evidence import gather
    >>> from node_builder.schema import Problem, Trajectory
    >>> texts = {"A": "Each box holds 4 * 6 = 24 eggs, so 24 * 3 = 72 eggs. \\boxed{72}",
    ...          "B": "4 * 6 = 24 per box; three boxes: 72.", "C": "6 * 4 = 24 eggs a box, 72 in all."}
    >>> p = Problem("t/1", "t", "A box has 4 rows of 6 eggs. How many eggs are in 3 boxes?", "72",
    ...             trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in texts.items()])
    >>> shared_computations(gather(p), ConsensusRule())
    ['4 * 6 = 24']
    """
    steps = [candidate.node.text for candidate, _k, _n in signable(evidence, rule)
             if computed_value(candidate.node) is not None]
    return list(dict.fromkeys(steps))[:MAX_COMPUTATIONS]


def select(evidence: Evidence, rule: ConsensusRule, exclude_voice: str | None = None,
           signed: dict[str, str] | None = None) -> Selection:
    """The consensus nodes of ``evidence`` under ``rule``, optionally as if ``exclude_voice``
    had never spoken (its solutions neither mine nor vote).

    ``signed`` (a reviewer's verdicts on this problem's candidates, :mod:`node_builder.signoff`:
    text -> label; a candidate whose own text was not read takes the labels of its other
    writings, :func:`node_builder.signoff.signed_label`) replaces the judgement rules: a candidate
    signed ``GOOD`` is a node when two voices (and ``fallback_share`` of them) state it, route and
    check rules aside; every other candidate goes (``rejected`` when the reviewer labelled it
    otherwise, ``unsigned`` when the reviewer never saw it). The computation of a value signed
    GOOD (``8 * 2 = 16`` beside ``16``), which the reviewer labels a duplicate, comes along: of
    the two, :mod:`node_builder.finalize` keeps the rare value or a common value's computation.
    Maximality still applies."""
    checked = _check(evidence, rule, exclude_voice)
    voices, n, single, stats = checked.voices, checked.n, checked.single, checked.stats
    if not voices:
        return Selection([], voices, stats)
    if signed is not None:
        return _select_signed(checked, signed, rule)
    answer_keys = tokenize_form(evidence.problem.answer)[0]
    answer_key = answer_keys[0] if len(answer_keys) == 1 else ""  # the gold's number token (#36)
    problem_symbols = symbols_of(evidence.problem.problem)
    entries = checked.entries
    if not single and entries and not any(agreed for _, _, agreed in entries):
        most = max(len(positions) for _, positions, _ in entries)  # the most shared results, if shared enough
        if most >= 2 and most / n >= rule.fallback_share - 1e-9:
            entries = [(c, positions, len(positions) == most) for c, positions, _ in entries]
    agreed_values = {surd_value(*tokenize_form(c.node.value)) for c, _, agreed in entries
                     if agreed and c.node.kind == "value" and c.node.value}

    nodes: list[Node] = []
    for candidate, positions, agreed in entries:
        if not agreed and not (len(positions) >= 2 and computed_value(candidate.node) in agreed_values):
            stats["below_support"] += 1
            continue
        if not _route_ok(candidate.node, problem_symbols, checked.symbol_voices, single):
            stats["route"] += 1
            continue
        if _is_check(candidate.node, positions, checked.answer_at, answer_key):
            stats["check"] += 1
            continue
        nodes.append(replace(candidate.node, support=round(len(positions) / n, 4),
                             position=_median(list(positions.values()))))
    return _maximal(nodes, checked, stats)


def _select_signed(checked: _Checked, signed: dict[str, str], rule: ConsensusRule) -> Selection:
    from node_builder.signoff import FRAGMENT, GOOD, signed_label, signed_writing, text_key  # signoff imports this

    entries, stats, n = checked.entries, checked.stats, checked.n
    good_values = {surd_value(*tokenize_form(c.node.value)) for c, _, _ in entries
                   if c.node.kind == "value" and c.node.value and signed_label(c, signed) == GOOD}
    widest: dict[str, tuple] = {}  # a proposal that repeats a mined candidate's text is that candidate:
    for entry in entries:          # of the two, the one more voices state (a proposal's written-in forms);
        key = text_key(entry[0].node.text)  # with one solver, the one two of its solutions share
        if key not in widest or (len(entry[1]), entry[2]) > (len(widest[key][1]), widest[key][2]):
            widest[key] = entry
    pooled = _pool_value_writings(widest, signed, good_values)
    nodes: list[Node] = []
    shipped: dict[str, int] = {}  # text -> index in nodes
    for key, (candidate, positions, agreed) in widest.items():
        label = GOOD if key in pooled else signed_label(candidate, signed)
        if label is None:
            stats["unsigned"] += 1
            continue
        if label != GOOD:
            stats["rejected"] += 1
            continue
        k = len(positions)
        if checked.single:
            enough = agreed
        else:
            enough = k >= 2 and k / n >= rule.fallback_share - 1e-9
        if not enough:
            stats["below_support"] += 1
            continue
        text = signed_writing(candidate, signed)  # the writing the reviewer signed names the node
        forms = candidate.node.forms if text == candidate.node.text else \
            (text, *(form for form in candidate.node.forms if form != text))
        node = replace(candidate.node, text=text, forms=forms, support=round(k / n, 4),
                       position=_median(list(positions.values())))
        same = shipped.setdefault(text, len(nodes))
        if same == len(nodes):
            nodes.append(node)
        else:  # a mined writing shipped under a signed proposal's text: one node, the forms of both
            kept = nodes[same]
            wider = kept if kept.support >= node.support else node
            nodes[same] = replace(wider, forms=tuple(dict.fromkeys(kept.forms + node.forms)))
    return _maximal(nodes, checked, stats)


def written_value(node: Node) -> tuple | None:
    """The exact value an equation states for one step: the result of arithmetic
    (:func:`~node_builder.evidence.computed_value`: ``180 / 7.5 = 24``) or the value of the
    arithmetic assigned to a bare name (``E = 24``, ``x = 180 / 7.5``); else None.

    >>> from fractions import Fraction
    >>> [written_value(Node("", t, "equation")) for t in ("E = 24", "x = 180 / 7.5", "2x = 48", "24")]
    [((1, Fraction(24, 1)),), ((1, Fraction(24, 1)),), None, None]
    """
    value = computed_value(node)
    if value is not None or node.kind != "equation" or node.text.count("=") != 1:
        return value
    left, right = node.text.split("=")
    for name, other in ((left, right), (right, left)):
        keys, kinds = tokenize_form(name)
        if len(keys) == 1 and kinds[0] == ID:
            return surd_value(*tokenize_form(other))
    return None


def _pool_value_writings(widest: dict[str, tuple], signed: dict[str, str], good_values: set) -> set[str]:
    """The writings of a value signed GOOD as one step (in place in ``widest``; returns the keys
    of the pooled entries, signed GOOD by the value's signature). Voices write the step that
    finds a key value in their own letters and arithmetic: ``E = 24`` (gpt-4), ``x = 180 / 7.5``
    (four others), ``\\frac{360}{15} = 24``. Every candidate that :func:`written_value` reads as
    the signed value and that the reviewer labelled its duplicate (FRAGMENT) or did not read
    joins one writing of the step, with its voices and forms: the writing of the value signed
    GOOD that most voices state, where there is one (a writing signed GOOD stands on its own);
    else one the reviewer labelled a duplicate that states the value itself (``E = 24``,
    ``180 / 7.5 = 24``: every shipped text carries a verdict, and :mod:`node_builder.finalize`
    reads it as the value's step, so that a rare value stays itself and a common one is this
    step), arithmetic first, then the most stated. A writing labelled otherwise (ROUTE,
    ANSWER, ...) stays out."""
    from node_builder.signoff import FRAGMENT, GOOD, signed_label  # signoff imports this module

    groups: dict[tuple, list[str]] = {}
    for key, (candidate, _, _) in widest.items():
        if candidate.node.kind != "equation":
            continue
        value = written_value(candidate.node)
        if value is not None and value in good_values and signed_label(candidate, signed) in (GOOD, FRAGMENT, None):
            groups.setdefault(value, []).append(key)
    pooled: set[str] = set()
    for keys in groups.values():
        label = {k: signed_label(widest[k][0], signed) for k in keys}
        named = [k for k in keys if label[k] == GOOD] or \
            [k for k in keys if label[k] == FRAGMENT and _states_value(widest[k][0].node)]
        if not named:
            continue  # no read writing states the value: nothing to name the step by
        name = max(named, key=lambda k: (computed_value(widest[k][0].node) is not None, len(widest[k][1]), widest[k][2]))
        joining = [k for k in keys if k != name and label[k] != GOOD]
        if label[name] == GOOD and not joining:
            continue  # a signed writing alone: nothing to pool
        candidate, positions, agreed = widest[name]
        forms, voices = list(candidate.node.forms or (candidate.node.text,)), dict(positions)
        for k in joining:
            other, other_positions, other_agreed = widest.pop(k)
            forms.extend(other.node.forms or (other.node.text,))
            for voice, at in other_positions.items():
                voices[voice] = min(at, voices.get(voice, at))
            agreed = agreed or other_agreed
        node = replace(candidate.node, forms=tuple(dict.fromkeys(forms)))
        widest[name] = (replace(candidate, node=node), voices, agreed)
        pooled.add(name)
    return pooled


def _states_value(node: Node) -> bool:
    """One side of the equation is a number (``E = 24``, ``180 / 7.5 = 24``; not ``x = 180 / 7.5``)."""
    return any(number_of(side) is not None for side in node.text.split("="))


def _maximal(nodes: list[Node], checked: _Checked, stats: dict[str, int]) -> Selection:
    maximal = [node for node in nodes if not any(other is not node and is_part_of(node, other) for other in nodes)]
    stats["maximal"] = len(nodes) - len(maximal)
    maximal.sort(key=lambda node: (node.position, node.text))
    return Selection(maximal, checked.voices, stats, single_voice=checked.single, counted=checked.n)
