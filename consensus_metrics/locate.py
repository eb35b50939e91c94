r"""Where a solution leaves the consensus path: the earliest erroneous step, found without a model.

NCR says how much of the consensus path a solution walks; this module says *where it leaves
it*. :func:`locate_first_error` splits a solution into steps (:mod:`consensus_metrics.steps`),
reads what each step states (:mod:`consensus_metrics.step_facts`), matches the problem's nodes
(:mod:`consensus_metrics.matching`), and returns the first step that one of these signals
convicts, or none:

1. **false computation** -- two sides joined by ``=`` whose exact values differ
   (``10 \cdot (2/3) = 8``; rounding a value that has no exact short decimal is allowed:
   ``580/110 = 5.27``; a chain that puts a candidate to the test and refutes it, ``1 = \sqrt{9} + 4
   = 7``, convicts nothing). Needs no node and no answer. Also false: a *rewrite* in a chain of three
   or more sides whose neighbouring sides are in the same variables and differ at two test points
   (``-k + 3k = (-1 + 3)k = 4k``: at ``k = 3``, 6 and 12), unless an equation of the problem pins
   a variable (``x^2 - x - 1 = 0``: ``x \cdot x^2 = x(x + 1)`` uses it) or a letter is applied as
   a function (``f(4) = f(3) + 5``); and a quantity a step computes once and then writes with
   another bare value (``a_6 = -25 + 5 \times 75``, then ``a_6 = 525``); and a division told with
   its quotient and remainder that does not hold (``2250 divided by 360 is 6 with a remainder of
   270``: :func:`consensus_metrics.divisions.told`), even in a step that computes modulo n. With
   the answer not known to be right, also a linear equation in one variable whose root differs
   from that of the equation in the same variable one step before (``3x + 2x = 30``, then ``5x + 1 = 30``: it
   does not follow); a pair where either equation gives the variable a value (``y = 0``, then
   ``y = 1``: cases; ``x = 1``, then ``5x - 1 = -x - 3``: the letter used anew), a variable a
   quadratic pins or a step gives two roots, and a side cut short by ``...`` are left alone.
2. **contradicts a node** -- the step states a value for a node's quantity other than the
   node's (node ``p = 0.29``, step ``p = 0.30``); a supposition (``if x = 3``, ``try a = 2``),
   several values for one quantity in a step (``x = -4`` or ``x = 1``) and a solution that also
   states the node's value somewhere are not contradictions. Only when the final answer is not
   known to be right: with a right answer, a node's quantity given another value is another
   quantity of the same name.
3. **leaves the path** -- only when the final answer is known to be wrong (``answer_correct``
   false): the solution reached nodes up to some step (the *trace*), then went elsewhere. The
   step is the first that states a *new value*: a number that is on no node (no node's value,
   nor a part of a node's first form: ``20 + (80/2) = 60`` holds 20, 40 and 60, ``(4, 6, 2)`` 4, 6 and 2; nor the gold
   answer, :func:`path_values`; nor a value of the record's ``computations``, the arithmetic
   steps two voices' correct solutions write, parts included: :func:`computation_values`), not
   in the problem (numbers, number words and fractions in words, their reciprocals and
   percentages, the complement of a share and the whole grown by it: ``2/5`` gives 3/5 and 7/5,
   ``21%`` gives 79, 0.79 and 1.21; conversion factors and constants such as 60, 365 and 180:
   :func:`problem_values`) and in no earlier step (the number of a list item or a heading, ``2.``
   or ``Step 2``, is no value); a percentage ``p%`` whose ``p/100`` is known is not new, nor a decimal that writes a known value rounded
   (``1.33`` for 4/3: :func:`rounds_a_known_value`), nor 0 or 1 written but not computed -- counted
   from the start when the nodes account for at least :data:`DENSE_SHARE` of the values the
   solution states up to its last node (dense nodes: a value on none of them is suspect), else
   counted after the last step that reaches a node. With no new value there, the
   step after the last node reached; a step whose computation arrives at the gold answer's value
   counts as reaching the path (``Money left = $36 - $15 = $21`` with gold 21, then
   ``Savings = $36 - $21 = $15``: the step after it). A step that finds its new value by solving a
   linear equation that the steps right before it state with the same root passes the blame to
   the first of them, where the equation was set up (``x+x+8=22``, ``2x+8=22``, then ``2x=14``:
   :func:`_set_up`). Where no step reaches a node and none states a new value, the first step that
   states the value the solution ends on (:func:`_first_statement_of_the_end`: a wrong answer that
   is a given or a value of the path, put in the wrong place). Small integers and problem numbers that a computation
   *arrives at* still count as new (``4 - 2 = 2``), numbers inside a computation (its operands)
   never do.

The earliest convicted step wins. With the answer unknown only signals 1 and 2 speak, with it right
only signal 1.
A problem without nodes gets signals 1 and 3 (new values are then those not in the problem nor
in its ``computations``); the reason says so.

The result (:class:`Location`) names the step (0-based), the kind of signal, a reason a person
can check (the false computation, the node contradicted, where the path ends), the node, and the
*trace*: for each step the ids of the nodes reached up to it.

>>> loc = locate_first_error(["2 + 3 = 5 apples", "so 5 * 4 = 24 apples in all"], ["2+3=5"])
>>> loc.step, loc.kind, loc.reason
(1, 'false_computation', 'step 2: 5 * 4 = 24 is false (5 * 4 is 20)')
>>> loc.trace
[['n1'], ['n1']]
>>> locate_first_error(["2 + 3 = 5 apples", "5 * 3 = 15 in all"], ["2+3=5"], answer_correct=False).reason
'step 2 states 15, a value on no node and not in the problem (last node reached: n1 at step 1); the final answer is wrong'

Same safety contract as matching (docs/SPEC.md §3 rule 6): no ``eval``/``sympify``/``parse_expr``,
a hard time budget (:mod:`consensus_metrics.budget`; out of time, the result says ``timed_out``
and names no step), and no crash on any ``str`` or list of ``str``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from .budget import DEFAULT_BUDGET_S, BudgetExceeded, Deadline
from .matching import NodeMatch, match_nodes_ex
from .nodes import Node, coerce_nodes
from .normalize import CLOSE, NUM, OP, OPEN, REL, WORD, tokenize_cached, tokenize_form
from .relations import commutative_key, split_relation
from .step_facts import EMPTY, StepFacts, number_value, rounds, side_value, step_facts
from .steps import Step, split_steps, step_of, steps_from_list
from .surds import rational

#: Share of the values a solution states up to its last node that must lie on nodes or in the
#: problem for any new value to be suspect (see the module doc, signal 3).
DENSE_SHARE = 0.7
#: Longest node form (tokens) whose parts are valued for :func:`path_values`.
MAX_PART_TOKENS = 80
#: Longest problem text read for the equations that pin a variable.
MAX_PROBLEM_CHARS = 4000
#: Signals kept in :attr:`Location.signals` (the first ones).
MAX_SIGNALS = 16
#: Most ``computations`` read per problem (the first ones), and their longest text (characters).
MAX_COMPUTATIONS = 64
MAX_COMPUTATION_CHARS = 200

KINDS = ("false_computation", "contradicts_node", "leaves_path")


class Location(NamedTuple):
    """Where a solution first goes wrong (module doc). ``step`` is 0-based, ``None`` when no step
    is convicted; ``span`` its ``(start, end)`` characters in the solution text (for a list of
    steps: in the steps joined by blank lines); ``position`` its relative place (0 = first
    step, 1 = last); ``trace`` the ids of the nodes reached up to each step; ``signals`` every
    ``(step, kind)`` found (the first :data:`MAX_SIGNALS`)."""

    step: int | None
    kind: str | None
    reason: str
    node: str | None = None
    n_steps: int = 0
    trace: list = []
    signals: list = []
    timed_out: bool = False
    span: tuple | None = None

    @property
    def position(self) -> float | None:
        if self.step is None:
            return None
        return self.step / (self.n_steps - 1) if self.n_steps > 1 else 0.0

    def reached(self) -> dict:
        """``{node id: step}``: where each node was first reached (the trace, compactly)."""
        out: dict = {}
        for k, ids in enumerate(self.trace):
            for node_id in ids:
                out.setdefault(node_id, k)
        return out

    def to_json(self, trace: bool = False) -> dict:
        """The fields as JSON types, for logs and score rows: ``position``, ``span`` and
        ``reached`` (:meth:`reached`) included, the per-step ``trace`` only when asked (it grows
        with the number of steps).

        >>> loc = Location(1, "false_computation", "...", n_steps=3, trace=[[], ["n1"], ["n1"]], span=(6, 12))
        >>> loc.to_json()["position"], loc.to_json()["reached"], loc.to_json()["span"]
        (0.5, {'n1': 1}, [6, 12])
        """
        out = {"step": self.step, "kind": self.kind, "reason": self.reason, "node": self.node,
               "n_steps": self.n_steps, "position": None if self.position is None else round(self.position, 4),
               "span": None if self.span is None else list(self.span), "reached": self.reached(),
               "signals": [list(s) for s in self.signals], "timed_out": self.timed_out}
        if trace:
            out["trace"] = self.trace
        return out


_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
                 "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
                 "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
                 "thousand": 1000, "half": 2, "halves": 2, "twice": 2, "double": 2, "triple": 3, "thrice": 3,
                 "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4, "fifth": 5,
                 "fifths": 5, "sixth": 6, "sixths": 6, "eighth": 8, "eighths": 8, "tenth": 10, "tenths": 10,
                 "dozen": 12, "dozens": 12}
#: The words of :data:`_WORD_NUMBERS` that name a fraction's denominator, and the counts that may
#: stand before one (``two thirds``, ``two-thirds``).
_FRACTION_WORDS = frozenset("half halves third thirds quarter quarters fourth fourths fifth fifths sixth sixths "
                            "eighth eighths tenth tenths".split())
_COUNT_WORDS = frozenset("one two three four five six seven eight nine ten".split())


#: Conversion factors and constants a solution may state without the problem giving them (days of a
#: week, months, hours, days of a month, weeks, minutes, a right angle, percent, a triangle's angles
#: in degrees, a full turn, days of a year, thousands, seconds of an hour).
COMMON_FACTORS = (7, 12, 24, 30, 52, 60, 90, 100, 180, 360, 365, 1000, 3600)


def _value(x) -> tuple:
    x = Fraction(x)
    return ((1, x),) if x else ()


def _fraction_word(word: str, before: str | None) -> Fraction | None:
    """The value of a fraction written in words: ``two-thirds``, ``thirds`` after ``two``, ``a
    quarter`` (no count word before it: one); ``None`` for a word that names no fraction."""
    if "-" in word:
        before, word = word.split("-", 1)
    if word not in _FRACTION_WORDS:
        return None
    return Fraction(_WORD_NUMBERS[before] if before in _COUNT_WORDS else 1, _WORD_NUMBERS[word])


@lru_cache(maxsize=4096)
def problem_values(problem: str) -> frozenset:
    """The values a problem gives: its numbers and number words (``two-thirds`` is 2/3), each
    also as a reciprocal and as a percentage (``25%`` gives 25, 1/4 and 1/25); the complement of
    a share (``2/5`` gives 3/5, ``21%`` gives 79 and 79/100: the part that is left) and the whole
    grown by it (``2/5`` gives 7/5, ``60%`` gives 160 and 8/5: "60% bigger"); and the
    :data:`COMMON_FACTORS`.

    >>> sorted(str(rational(v)) for v in problem_values("half of 29 apples") if rational(v) not in COMMON_FACTORS)
    ['1/2', '1/200', '1/29', '1/50', '2', '29', '29/100', '3/2']
    >>> sorted(str(rational(v)) for v in problem_values("two-thirds are red, 40% are big") if rational(v) not in COMMON_FACTORS)
    ['1/150', '1/3', '1/40', '140', '2/3', '2/5', '3/2', '3/5', '40', '5/3', '7/5']
    """
    toks = tokenize_cached(problem[:20000])
    found, shares = set(), set()
    keys, kinds = toks.keys, toks.kinds
    for k, (key, kind) in enumerate(zip(keys, kinds)):
        if kind == NUM:
            value = number_value(key)
            if value is not None:
                found.add(value)
                r = rational(value)
                if r is not None and k + 1 < len(keys) and keys[k + 1] == "%" and 0 < r:
                    shares |= {_value(100 + r), _value((100 + r) / 100)}  # the whole grown by it
                    if r < 100:
                        shares |= {_value(100 - r), _value((100 - r) / 100)}
        elif kind == WORD:
            word = key[1:]
            if word in _WORD_NUMBERS:
                found.add(_value(_WORD_NUMBERS[word]))
            share = _fraction_word(word, keys[k - 1][1:] if k and kinds[k - 1] == WORD else None)
            if share is not None:
                found.add(_value(share))
    out = set(found) | shares | {_value(x) for x in COMMON_FACTORS}
    for v in found:
        r = rational(v)
        if r:
            out.add(_value(1 / r))
            out.add(_value(r / 100))
            if 0 < r < 1:
                out |= {_value(1 - r), _value(1 + r)}
    return frozenset(out)


class _NodeFacts(NamedTuple):
    values: frozenset  # every value a node states: a value node's value, each side of its forms
    claims: tuple  # (key, value, node id, form): a side with a variable and the value it is given


@lru_cache(maxsize=4096)
def node_facts(nodes: tuple[Node, ...]) -> _NodeFacts:
    """The values and the claims (``x = 5``: key, value) of a problem's nodes."""
    values, claims = set(), []
    for node in nodes:
        if node.value is not None:
            try:
                values.add(_value(Fraction(str(node.value).replace(",", ""))))
            except (ValueError, ZeroDivisionError):
                pass
        for form in node.forms:
            sides, rels = split_relation(form)
            side_values = [side_value(keys, kinds) for keys, kinds in sides]
            values.update(v for v in side_values if v is not None)
            if rels != ("=",):
                continue
            for (keys, kinds), value in ((sides[0], side_values[1]), (sides[1], side_values[0])):
                if value is not None and keys and side_value(keys, kinds) is None and WORD not in kinds:
                    claims.append((commutative_key(keys, kinds), value, node.id, form))
    return _NodeFacts(frozenset(values), tuple(claims))


def locate_first_error(solution, nodes=(), answer_correct: bool | None = None, problem: str | None = None,
                       matches=None, budget_s: float | None = DEFAULT_BUDGET_S, gold: str | None = None,
                       computations=()) -> Location:
    """The earliest erroneous step of ``solution`` (module doc), or none.

    Args:
        solution: the solution text (split by :func:`consensus_metrics.steps.split_steps`) or
            its list of steps (each a ``str``; the list is the split).
        nodes: the problem's nodes (docs/SPEC.md §2 dicts, :class:`~consensus_metrics.nodes.Node`
            objects or plain strings); may be empty.
        answer_correct: whether the final answer is right (``acc``); ``None``: unknown.
        problem: the problem text (its numbers are not new values); optional.
        gold: the gold answer (its value is on the consensus path); optional.
        matches: :class:`~consensus_metrics.matching.NodeMatch` results already computed for
            this very text (the score path passes them; ``None``: match here, without the
            symbolic fallback).
        budget_s: hard time limit in seconds (``None``: unlimited).
        computations: the record's ``computations`` (docs/SPEC.md §2: arithmetic steps that two
            voices' correct solutions write, such as ``1.6 * 400 = 640``); their values are on
            the path for signal 3, and nothing else reads them. Optional.

    Returns:
        A :class:`Location`. Raises ``TypeError`` when ``solution`` is neither a ``str`` nor a
        list of ``str`` (naming the step), ``TypeError``/``ValueError`` for a malformed node or
        a computation that is not a string.
    """
    if isinstance(solution, str):
        text, steps = solution, split_steps(solution)
    else:
        text, steps = steps_from_list(solution)
    nodes = tuple(coerce_nodes(nodes))
    computed = computation_values(tuple(_checked_computations(computations)))
    deadline = Deadline(budget_s)
    try:
        return _locate(text, steps, nodes, answer_correct, problem if isinstance(problem, str) else "",
                       matches, deadline, gold if isinstance(gold, str) else "", computed)
    except BudgetExceeded:
        return Location(None, None, "out of time", n_steps=len(steps), timed_out=True)


def _locate(text: str, steps: list[Step], nodes: tuple, answer_correct, problem: str, matches,
            deadline: Deadline, gold: str = "", computed: frozenset = frozenset()) -> Location:
    n = len(steps)
    if not n:
        return Location(None, None, "no step: the solution is empty")
    facts = []
    need_values = answer_correct is False  # signal 3 reads every step's numbers; 1 and 2 a computation
    for step in steps:
        deadline.check()
        computes = "=" in step.body or "remainder" in step.body  # a relation, or a division told in words
        facts.append(step_facts(step.body, deadline) if need_values or computes else EMPTY)
    timed_out = False
    if matches is None and nodes:
        matches, timed_out = match_nodes_ex(text, list(nodes), symbolic=False, deadline=deadline)
    reached: list[list[str]] = [[] for _ in steps]
    for m in matches or ():
        if isinstance(m, NodeMatch) and m.covered and m.end is not None:
            k = step_of(steps, max(0, m.end - 1))
            if k is not None:
                reached[k].append(m.node_id)
    trace, so_far = [], []
    for ids in reached:
        so_far = so_far + ids
        trace.append(list(so_far))
    known = node_facts(nodes)
    given = problem_values(problem) if problem else frozenset()
    pinned = step_facts(problem[:MAX_PROBLEM_CHARS]).pinned if "=" in problem else frozenset()
    # with a right answer a node's quantity given another value is another quantity of the same name
    signals = _strong_signals(facts, known if answer_correct is not True else None, pinned)
    if answer_correct is not True:
        signals += _broken_equations(facts)
    if answer_correct is False:
        path = _leaves_path(facts, _with_gold(facts, reached, gold), path_values(nodes, gold) | computed, given,
                            bool(nodes), n)
        if path is not None:
            signals.append(path)
    signals.sort(key=lambda s: s[0])
    base = Location(None, None, _no_error_reason(answer_correct, nodes), n_steps=n, trace=trace,
                    signals=[(s[0], s[1]) for s in signals[:MAX_SIGNALS]], timed_out=timed_out)
    if not signals:
        return base
    step, kind, reason, node = signals[0]
    return base._replace(step=step, kind=kind, reason=reason, node=node, span=(steps[step].start, steps[step].end))


def locate_in_score(text: str, nodes, score: dict, problem: str | None = None,
                    budget_s: float | None = DEFAULT_BUDGET_S, gold: str | None = None,
                    computations=()) -> Location:
    """:func:`locate_first_error` for a trajectory already scored by
    :func:`~consensus_metrics.metrics.score_trajectory`: its node matches (``positions``) and
    its answer verdict (``acc``; unknown when the scoring timed out without a right answer) are
    reused, nothing is matched again. The steps are the paragraphs of the whole text, thinking
    included, as NCR reads it; ``gold`` is the gold answer (its value is on the path), and
    ``computations`` the record's (docs/SPEC.md §2).

    >>> from consensus_metrics import score_trajectory
    >>> text = "3 + 4 = 7 eggs are used.\\n\\n16 - 7 = 8 are sold, so \\\\boxed{16}"
    >>> score = score_trajectory(text, ["3+4=7"], "18", count_tokens=False)
    >>> loc = locate_in_score(text, ["3+4=7"], score)
    >>> loc.step, loc.kind, loc.trace
    (1, 'false_computation', [['n1'], ['n1']])
    """
    positions = score.get("positions") if isinstance(score, dict) else None
    matches = [NodeMatch(str(node_id), True, int(p[0]), int(p[1]))
               for node_id, p in (positions or {}).items()
               if isinstance(p, (list, tuple)) and len(p) >= 2 and all(isinstance(v, int) for v in p[:2])]
    acc = score.get("acc") if isinstance(score, dict) else None
    verdict = None if acc is None or (score.get("timed_out") and not acc) else bool(acc)
    return locate_first_error(text, nodes, answer_correct=verdict, problem=problem, matches=matches,
                              budget_s=budget_s, gold=gold, computations=computations)


def wrong_answer_summary(texts, nodes_list, problems=None, budget_s: float | None = DEFAULT_BUDGET_S,
                         golds=None, computations_list=None) -> dict:
    """Where wrong-answer solutions leave the path, for training logs (never a reward):
    ``left_path`` -- the share of ``texts`` (all with a wrong final answer) with a located step;
    ``left_path_position`` -- the mean relative position of those steps (``None`` when none).
    ``golds``: the gold answers, one per text; ``computations_list``: each record's
    ``computations`` (both optional).

    >>> wrong_answer_summary(["3 + 4 = 7.\\n\\n16 - 7 = 8 are sold.", "I give up."], [["3+4=7"], ["3+4=7"]])
    {'left_path': 0.5, 'left_path_position': 1.0}
    """
    texts = list(texts)
    problems = list(problems) if problems is not None else [None] * len(texts)
    golds = list(golds) if golds is not None else [None] * len(texts)
    computations_list = list(computations_list) if computations_list is not None else [()] * len(texts)
    located = [locate_first_error(text, nodes, answer_correct=False, problem=problem, budget_s=budget_s, gold=gold,
                                  computations=computations or ())
               for text, nodes, problem, gold, computations in zip(texts, nodes_list, problems, golds,
                                                                    computations_list)]
    positions = [loc.position for loc in located if loc.step is not None]
    return {"left_path": len(positions) / len(texts) if texts else 0.0,
            "left_path_position": sum(positions) / len(positions) if positions else None}


@lru_cache(maxsize=4096)
def path_values(nodes: tuple, gold: str = "") -> frozenset:
    """The values on the consensus path (module doc, signal 3): every value a node states, the
    values of its parts (each bracket group, each member of a tuple and each term of a side: node
    ``20 + (80/2) = 60`` gives 60, 20 and 40), and the gold answer's value (``gold``, when it has one).

    >>> from consensus_metrics.nodes import coerce_nodes
    >>> sorted(str(rational(v)) for v in path_values(tuple(coerce_nodes(["20 + (80/2) = 60"])), "75"))
    ['20', '40', '60', '75']
    >>> sorted(int(rational(v)) for v in path_values(tuple(coerce_nodes(["(4,5,1) - (0,-1,-1) = (4,6,2)"]))))
    [-1, 0, 1, 2, 4, 5, 6]
    """
    out = set(node_facts(nodes).values)
    for node in nodes:
        if node.forms:
            out |= _part_values(*tokenize_form(node.forms[0]))
    if gold:
        value = side_value(*tokenize_form(gold[:200]))
        if value is not None:
            out.add(value)
    return frozenset(out)


def _checked_computations(computations) -> list[str]:
    """The first :data:`MAX_COMPUTATIONS` of a record's ``computations`` (a list or tuple of
    ``str``; ``None`` is none); a longer text is left out. ``TypeError`` names an item that is not
    a string."""
    if computations is None:
        return []
    if isinstance(computations, str) or not isinstance(computations, (list, tuple)):
        raise TypeError(f"computations must be a list of strings, got {type(computations).__name__}")
    out = []
    for i, text in enumerate(computations[:MAX_COMPUTATIONS]):
        if not isinstance(text, str):
            raise TypeError(f"computations[{i}] must be a string, got {type(text).__name__}")
        if text.strip() and len(text) <= MAX_COMPUTATION_CHARS:
            out.append(text)
    return out


def computations_or_none(value) -> list[str] | None:
    """A ``computations`` value read leniently, for callers that only log the locator's result
    (training rewards, the report of old logs): the list when it is a list of ``str``, else None.

    >>> computations_or_none(["6 * 2 = 12"]), computations_or_none("6 * 2 = 12"), computations_or_none([12])
    (['6 * 2 = 12'], None, None)
    """
    return value if isinstance(value, list) and all(isinstance(x, str) for x in value) else None


@lru_cache(maxsize=4096)
def computation_values(computations: tuple[str, ...]) -> frozenset:
    """The values on the path that a record's ``computations`` give (signal 3): each one's sides
    and parts (bracket groups, terms), as :func:`path_values` reads a node's first form.

    >>> sorted(str(rational(v)) for v in computation_values(("1.6 * 400 = 640", "40 - 36 = 4")))
    ['36', '4', '40', '640']
    """
    out: set = set()
    for text in computations:
        keys, kinds = tokenize_form(text)
        out |= _part_values(keys, kinds)
        value = side_value(keys, kinds)
        if value is not None:
            out.add(value)
    return frozenset(out)


def _part_values(keys, kinds) -> set:
    """Values of the parts of a node form: its sides, their bracket groups, the members of a
    tuple or list (split at a comma outside brackets) and the terms (split at a ``+``/``-``
    outside brackets) of each. Forms over :data:`MAX_PART_TOKENS` tokens give none."""
    if len(keys) > MAX_PART_TOKENS:
        return set()
    spans, stack, lo = [], [], 0
    for i, kind in enumerate(kinds):
        if kind == OPEN:
            stack.append(i)
        elif kind == CLOSE and stack:
            spans.append((stack.pop() + 1, i))
        elif kind == REL and not stack:
            spans.append((lo, i))
            lo = i + 1
    spans.append((lo, len(keys)))
    out = set()
    for a, b in list(spans):
        depth, start = 0, a
        for i in range(a, b + 1):  # the members of a tuple or list: (4, 6, 2) gives 4, 6 and 2
            if i < b and kinds[i] == OPEN:
                depth += 1
            elif i < b and kinds[i] == CLOSE:
                depth -= 1
            elif (i == b and start > a) or (i < b and not depth and keys[i] == ","):
                spans.append((start, i))
                start = i + 1
    for a, b in spans:
        out.add(side_value(keys[a:b], kinds[a:b]))
        depth, term = 0, a
        for i in range(a, b + 1):
            if i < b and kinds[i] == OPEN:
                depth += 1
            elif i < b and kinds[i] == CLOSE:
                depth -= 1
            if i == b or (not depth and i > term and kinds[i] == OP and keys[i] in ("+", "-")):
                if term > a or i < b:
                    out.add(side_value(keys[term:i], kinds[term:i]))
                term = i + 1
    out.discard(None)
    return out


def _no_error_reason(answer_correct, nodes) -> str:
    answer = {True: "the final answer is right", False: "the final answer is wrong",
              None: "the final answer is unknown"}[answer_correct]
    if not nodes:
        checked = "no false computation (the problem has no nodes: only computations were checked)"
    elif answer_correct is True:
        checked = "no false computation (with a right answer no claim is held against the nodes)"
    else:
        checked = "no false computation, no node contradicted"
    return f"no error found: {checked}; {answer}"


def _strong_signals(facts: list[StepFacts], known: _NodeFacts | None,
                    pinned: frozenset = frozenset()) -> list[tuple]:
    r"""``(step, kind, reason, node)`` of every false computation and node contradiction (none when
    ``known`` is ``None``); a false rewrite in a variable that an equation of the problem pins
    (``pinned``) is none: it may use the equation (``x \cdot x^2 = x(x + 1)`` when ``x^2 - x - 1 = 0``)."""
    out = []
    stated = {(c.key, c.value) for f in facts for c in f.claims}
    for i, f in enumerate(facts):
        for c in f.false_computations:
            if c.names & pinned:
                continue
            left = _show(c.left_value)
            why = c.witness or (f"{c.left} is {left}" if left != c.left.strip() else f"{c.right} is {_show(c.value)}")
            out.append((i, "false_computation", f"step {i + 1}: {c.left} = {c.right} is false ({why})", None))
        for claim in f.claims if known is not None else ():
            if claim.hypothetical:
                continue
            for key, value, node_id, form in known.claims:
                if key == claim.key and value != claim.value and (key, value) not in stated:
                    out.append((i, "contradicts_node", f"step {i + 1} gives {claim.text} = {_show(claim.value)}; "
                                                       f"node {node_id} says {form}", node_id))
                    break
    return out


def _with_gold(facts: list[StepFacts], reached: list[list[str]], gold: str) -> list[list[str]]:
    """``reached`` with ``"the gold answer's value"`` added at each step whose computation arrives at the
    gold answer's value (a wrong answer that got there walked the path that far; signal 3 only, the
    trace lists nodes)."""
    value = side_value(*tokenize_form(gold[:200])) if gold else None
    if value is None:
        return reached
    return [ids + ["the gold answer's value"] if value in f.results else ids for ids, f in zip(reached, facts)]


def _case_variables(facts: list[StepFacts]) -> set:
    """The variables no single root can be followed for: one that an equation of the solution pins
    without being linear (a quadratic), or that one step gives several roots (cases)."""
    several = set().union(*(f.nonlinear for f in facts))
    for f in facts:
        roots: dict = {}
        for e in f.equations:
            roots.setdefault(e.key, set()).add(e.value)
        several |= {name for name, values in roots.items() if len(values) > 1}
    return several


def _broken_equations(facts: list[StepFacts]) -> list[tuple]:
    r"""``(step, kind, reason, node)`` of each linear equation in one variable whose root differs
    from the root of the equation in that variable the step before states: it does not follow
    (``15 \cdot \frac{x}{5} \cdot \frac{1}{3} = 15 \cdot 6`` gives 90, the next step's ``3x = 90``
    gives 30). Left alone: a pair where either equation gives the variable a value
    (``assigns``: the variable alone on one side; beside another equation in that letter it may
    be a case or a new use of the letter, no derivation), a variable that an equation of the
    solution pins without being linear (a quadratic: several roots), or that one step gives
    several roots (cases)."""
    several = _case_variables(facts)
    out, last = [], {}
    for i, f in enumerate(facts):
        for e in f.equations:
            if e.key in several:
                continue
            before = last.get(e.key)
            if before is not None and before[1].value != e.value and before[0] == i - 1 and \
                    not (before[1].assigns or e.assigns):
                j, earlier = before
                out.append((i, "false_computation", f"step {i + 1}: {e.text} does not follow from step {j + 1}'s "
                                                    f"{earlier.text} ({e.key} = {_show(earlier.value)} there, "
                                                    f"{_show(e.value)} here)", None))
            last[e.key] = (i, e)
    return out


def _negated(value: tuple) -> tuple:
    """``-value`` (a value as :mod:`consensus_metrics.surds` writes it: ``(radicand, coefficient)`` terms)."""
    return tuple((radicand, -coefficient) for radicand, coefficient in value)


def _leaves_path(facts: list[StepFacts], reached: list[list[str]], node_values: frozenset, given: frozenset,
                 has_nodes: bool, n: int) -> tuple | None:
    """Signal 3 (module doc) for a wrong final answer."""
    node_steps = [i for i in range(n) if reached[i]]
    last = node_steps[-1] if node_steps else -1
    upto = set().union(*(f.stated for f in facts[:last + 1])) if last >= 0 else set()
    node_values = node_values | {_negated(v) for v in node_values}  # a step's numerals are read unsigned
    dense = not upto or sum(1 for v in upto if v in node_values or v in given) >= DENSE_SHARE * len(upto)
    seen = set(node_values)
    for i, f in enumerate(facts):
        candidates = [v for v in f.stated if v not in seen and (v not in given or v in f.results)
                      and not (v in _ZERO_ONE and v not in f.results)]
        known = seen | given if candidates else frozenset()
        new = [v for v in candidates if not (v in f.percents and _percent_of(v) in known)
               and not rounds_a_known_value(v, known)]
        seen |= f.stated
        if new and (dense or i > last):
            where = f"last node reached: {reached[last][-1]} at step {last + 1}" if last >= 0 else \
                ("no node reached before" if has_nodes else "the problem has no nodes")
            on = "on no node and not in the problem" if has_nodes else "not in the problem"
            value = _shortest(new)
            setup = _set_up(facts, reached, i)
            if setup is not None:
                j, equation = setup
                return (j, "leaves_path", f"step {j + 1} sets up {equation.text}, which step {i + 1} solves to "
                                          f"{_show(value)}, a value {on} ({where}); the final answer is wrong", None)
            return (i, "leaves_path", f"step {i + 1} states {_show(value)}, a value {on} ({where}); "
                                      "the final answer is wrong", None)
    if last < 0:
        return _first_statement_of_the_end(facts)
    k = min(last + 1, n - 1)
    return (k, "leaves_path", f"no node is reached after step {last + 1} ({reached[last][-1]}); "
                              "the final answer is wrong", None)


def _first_statement_of_the_end(facts: list[StepFacts]) -> tuple | None:
    """Signal 3's last resort, for a wrong final answer where no step reaches a node and none states
    a new value: the first step that states a value the solution ends on (what the last step that
    states a value arrives at, else what it states). The wrong answer is then a given or a value
    of the path put in the wrong place, and the step that first says it is where the solution
    leaves (``he would have spent $75``, then ``James saved $30``, a given amount, where he saved
    $10). ``None`` when no step states a value."""
    end = next((f.results or f.stated for f in reversed(facts) if f.results or f.stated), frozenset())
    for i, f in enumerate(facts):
        common = (f.stated | f.results) & end
        if common:
            return (i, "leaves_path", f"step {i + 1} first states {_show(_shortest(common))}, the value the solution "
                                      "ends on; no step reaches a node or states a new value before it, and the final "
                                      "answer is wrong", None)
    return None


def _shortest(values):
    """The value of ``values`` a reason names: the shortest written, then the first in text order."""
    return min(values, key=lambda v: (len(_show(v)), _show(v)))


def _set_up(facts: list[StepFacts], reached: list[list[str]], i: int) -> tuple | None:
    r"""``(step, equation)`` where the linear equation that step ``i`` solves was set up: the first
    of the steps right before ``i`` that each state an equation in the same variable with the same
    root, none giving the variable a value (``assigns``) and none reaching a node; ``None`` when
    step ``i`` solves no equation of an earlier step. The new value a solution arrives at by
    solving (``2x = 14``) comes from the equation it solves (``x + x + 8 = 22``): that is the step
    that left the path. A variable with no single root (:func:`_case_variables`) is left alone."""
    several = _case_variables(facts)
    best = None
    for e in facts[i].equations:
        if e.key in several:
            continue
        j, first = i, None
        while j > 0 and not reached[j - 1]:
            earlier = [p for p in facts[j - 1].equations if p.key == e.key and p.value == e.value and not p.assigns]
            if not earlier:
                break
            j, first = j - 1, earlier[0]
        if first is not None and (best is None or j < best[0]):
            best = (j, first)
    return best


#: Decimal places up to which a stated decimal may be a known value rounded (``1.33`` for 4/3).
ROUNDING_PLACES = 4


def rounds_a_known_value(value, known) -> bool:
    """Whether ``value`` is a decimal (1 to :data:`ROUNDING_PLACES` places, not a whole number) that
    writes a known value rounded to its places (:func:`~consensus_metrics.step_facts.rounds`, within
    half a unit): ``1.33`` or ``1.3`` for 4/3, ``0.67`` for 2/3. A value that is itself exact at
    those places is no rounding of it (``2.5`` is not 2.4).

    >>> third, half = _value(Fraction(4, 3)), _value(Fraction(1, 2))
    >>> rounds_a_known_value(_value(Fraction("1.33")), {third}), rounds_a_known_value(_value(Fraction("1.34")), {third})
    (True, False)
    >>> rounds_a_known_value(_value(Fraction("0.5")), {third, half}), rounds_a_known_value(_value(1), {third})
    (False, False)
    """
    r = rational(value)
    if r is None or r.denominator == 1:
        return False
    places = next((d for d in range(1, ROUNDING_PLACES + 1) if 10 ** d % r.denominator == 0), None)
    return places is not None and any(other != value and rounds(value, places, other, units=0.5) for other in known)


#: 0 and 1: written everywhere (``= 0``, a coefficient, a root), new only where a computation
#: arrives at them.
_ZERO_ONE = frozenset({(), ((1, Fraction(1)),)})


def _percent_of(value) -> tuple | None:
    """``p/100`` of a value ``p`` (a numeral written ``p%``)."""
    r = rational(value)
    return _value(r / 100) if r is not None else None


def _show(value) -> str:
    if value is None:
        return "?"
    r = rational(value)
    if r is not None:
        return str(r)
    return " + ".join(f"{c}√{k}" if k != 1 else str(c) for k, c in value)


__all__ = ["Location", "locate_first_error", "locate_in_score", "wrong_answer_summary", "problem_values", "node_facts", "DENSE_SHARE", "KINDS"]
