r"""Chain following: an equation node reached across sentences (docs/SPEC.md §3 rule 4).

A solution seldom writes a node's equation ``L = R`` as one chain. It writes
``(5+\sqrt{3})(5-\sqrt{3}) = 5^2-(\sqrt{3})^2`` and, a sentence later, ``25 - 3 = 22``; or
``x = 5`` and later ``2(5) + 1 = 11``. The token rules only look inside one chain; this step,
run after them for equation nodes they leave uncovered, follows equalities through the text:

* **linked chains** — two equality runs (sides joined by ``=`` only) are linked when they share a
  side (the same canonical key, or equal up to the order of terms and factors) or hold sides of
  the same exact value (:mod:`consensus_metrics.surds`: ``5^2-(\sqrt{3})^2`` and ``25 - 3`` are
  both 22). The node is covered when a side equal to ``L`` and a side equal to ``R`` lie in
  linked runs (for a number ``R``: that number written as a side, ``22`` or ``\frac{44}{2}``);
* **consistency** — the runs linked to ``L`` (at most :data:`MAX_RUNS`) must not hold two
  different exact values: a symbol reused across cases (``x = 2`` ... ``x = 3``) or a slip links
  nothing, and a class that grows past the limit gives no credit either;
* **substitution** — a variable of ``L`` or ``R`` that the text binds to one number (``x = 5``,
  and no other value for ``x``) may stand replaced by that number: ``2(5) + 1`` counts as
  ``2x + 1``.

The earliest match ends at the later of the two sides. Chains are found the matcher's way: only
the sentences holding a side's anchors are tokenised (at most :data:`MAX_SEGMENTS` per text),
so the step costs little on texts that never mention the node.

>>> from consensus_metrics import match_nodes
>>> text = "So $(5+\\sqrt{3})(5-\\sqrt{3}) = 5^2-(\\sqrt{3})^2$. That is, $25 - 3 = 22$."
>>> match_nodes(text, ["(5+\\sqrt3)(5-\\sqrt3) = 22"])[0].via
'chain'
>>> [m.covered for m in match_nodes("Case 1: x = 2. Case 2: x = 3, and y = x.", ["y = 2"])]
[False]
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from .anchors import token_anchors
from .budget import Deadline
from .normalize import ID, NUM
from .numbers import number_key
from .relations import SEP, equality_runs
from .side_pairs import best_pair
from .text_index import _form_commutative_key
from .surds import rational, surd_value
from .worded import BACK_REFERENCES, OPENERS, told_across, told_after, told_at, word_anchors

#: Equality runs one node may link (a larger class gives no credit).
MAX_RUNS = 24
#: Sentences the follower may tokenise per text, over all nodes.
MAX_SEGMENTS = 64
#: Computation steps followed back from a result (``computation``), and sides kept per number.
MAX_STEPS = 3
MAX_PRODUCERS = 4
_EQUALITY_ANCHORS = ("=",)
_OPENER_ANCHORS = tuple(OPENERS)  # word anchors of a sentence that gives the result of the one before
_BACK_ANCHORS = tuple(BACK_REFERENCES)  # word anchors of a sentence that refers back to the one before


class _Run(NamedTuple):
    """Sides ``lo..hi`` (inclusive) of chain ``c`` of the segment at ``k``, joined by ``=``."""

    k: int
    c: int
    lo: int
    hi: int


class ChainFollower:
    """Equality runs of one text, found on demand, and what they link (module doc).

    ``segments_with(groups)`` returns the ``{start: end}`` segments holding every anchor group;
    ``index_of(start, end)`` their :class:`~consensus_metrics.text_index.TextIndex` (the matcher's
    own, shared with its token rules); ``segment_before(start, groups)`` the ``(start, end)`` of
    the segment before the one at ``start`` where it holds every anchor group, else ``None``
    (optional: without it a computation told in words is read within one sentence).
    """

    def __init__(self, segments_with, index_of, deadline: Deadline, segment_before=None):
        self.segments_with = segments_with
        self.index_of = index_of
        self.segment_before = segment_before
        self.deadline = deadline
        self.tokenised = 0
        self._bindings: dict[str, object] = {}
        self._produced: dict = {}
        self._found: dict = {}  # search -> (its sides, segments it visited): see _remembered
        self._cut = False  # the last _indexes stopped at the segment budget
        self._segment_values: dict[int, dict] = {}
        self._runs: dict[tuple[int, int], list] = {}  # (segment, chain) -> run of each side

    # ------------------------------------------------------------------ finding sides
    def _indexes(self, groups):
        self._cut = False
        for start, end in sorted(self.segments_with(groups).items()):
            index = self.index_of(start, end, self.tokenised < MAX_SEGMENTS)
            if index is None:
                self._cut = True
                return
            self.tokenised += 1
            yield start, index

    def _remembered(self, search: tuple, find) -> list[tuple[_Run, int]]:
        """``find()`` (one pass of :meth:`_indexes`), done once per text and ``search``: the
        value of a common number and the sides of a long chain are asked for again and again.
        A repeat is charged the segments the first pass visited -- a fresh pass would visit the
        same ones, all tokenised by then -- so the budget, and every later result, is what it
        would be without the memo. A pass the budget cut short is not kept."""
        known = self._found.get(search)
        if known is not None:
            self.tokenised += known[1]
            return known[0]
        before = self.tokenised
        found = find()
        if not self._cut:
            self._found[search] = (found, self.tokenised - before)
        return found

    def _run_of(self, start: int, index, c: int, s: int) -> tuple[int, int] | None:
        """Sides ``(lo, hi)`` of the run of ``=`` links holding side ``s`` of chain ``c`` of the
        segment at ``start`` (``None``: no ``=`` beside it); each chain's runs are found once."""
        runs = self._runs.get((start, c))
        if runs is None:
            runs = self._runs[(start, c)] = equality_runs(index.chains[c].rels)
        return runs[s]

    def occurrences(self, keys: tuple, kinds: tuple) -> list[tuple[_Run, int]]:
        """``(run, side)`` of every side equal to ``keys`` (exactly or up to term order)."""
        return self._remembered(("sides", tuple(keys), tuple(kinds)), lambda: self._find_sides(keys, kinds))

    def _find_sides(self, keys: tuple, kinds: tuple) -> list[tuple[_Run, int]]:
        out = []
        for start, index in self._indexes((*_anchors_of(keys, kinds), _EQUALITY_ANCHORS)):
            for c, s in index.side_candidates(keys, kinds, commutative=True):
                run = self._run_of(start, index, c, s)
                if run:
                    out.append((_Run(start, c, *run), s))
        return out

    def _value_occurrences(self, value: tuple) -> list[tuple[_Run, int]]:
        """Sides whose exact value is ``value`` (found by the anchors of its rational part)."""
        number = rational(value)
        if number is None:
            return []  # an irrational value has no cheap anchor: linked by key only
        return self._remembered(("value", value), lambda: self._find_value(value, number))

    def _find_value(self, value: tuple, number) -> list[tuple[_Run, int]]:
        keys = (number_key(abs(number)),)
        out = []
        for start, index in self._indexes((*_anchors_of(keys, (NUM,)), _EQUALITY_ANCHORS)):
            for c, s in self._values_of(start, index).get(value, ()):
                run = self._run_of(start, index, c, s)
                if run:
                    out.append((_Run(start, c, *run), s))
        return out

    def _values_of(self, start: int, index) -> dict:
        """Exact value -> ``[(chain, side)]`` of one segment's sides, in text order (computed
        once per segment: every value search of the text visits the same few sentences)."""
        values = self._segment_values.get(start)
        if values is None:
            values = self._segment_values[start] = {}
            for c, chain in enumerate(index.chains):
                for s, side in enumerate(chain.sides):
                    if side.key:
                        value = self._side_value(index, side)
                        if value is not None:
                            values.setdefault(value, []).append((c, s))
        return values

    @staticmethod
    def _side_value(index, side):
        return surd_value(index.toks.keys[side.lo:side.hi], index.toks.kinds[side.lo:side.hi])

    # ------------------------------------------------------------------ substitution
    def binding(self, name: str):
        """The one number the text gives a variable (``x = 5``), as tokens, or ``None``."""
        if name not in self._bindings:
            values = set()
            runs = set()
            for run, s in self.occurrences((name,), (ID,)):
                if run in runs:  # a loop writes the name many times in one run: its values are known
                    continue
                runs.add(run)
                self.deadline.check()
                index = self.index_of(run.k, None, True)
                for side in index.chains[run.c].sides[run.lo:run.hi + 1]:
                    number = rational(self._side_value(index, side)) if side.key else None
                    if number is not None:
                        values.add(number)
            self._bindings[name] = _number_tokens(values.pop()) if len(values) == 1 else None
        return self._bindings[name]

    def substituted(self, keys: tuple, kinds: tuple) -> tuple[tuple, tuple] | None:
        """``keys`` with every bound variable replaced by its number; ``None`` if none is bound."""
        out_keys, out_kinds, changed = [], [], False
        for key, kind in zip(keys, kinds):
            bound = self.binding(key) if kind == ID else None
            if bound is None:
                out_keys.append(key)
                out_kinds.append(kind)
            else:
                out_keys.extend(bound[0])
                out_kinds.extend(bound[1])
                changed = True
        return (tuple(out_keys), tuple(out_kinds)) if changed else None

    # ------------------------------------------------------------------ following
    def follow(self, left, right) -> tuple[int, int] | None:
        """``(start, end)`` where ``left = right`` is reached across chains, or ``None``."""
        if _plain_number(*left):
            return None  # starting from a number links every sentence that writes it
        starts = self._forms(*left)
        if not starts:
            return None
        targets = [(SEP.join(k), kd) for k, kd in self._variants(*right)]
        # a number is reached where the text writes it; an expression only as itself
        target_values = {_node_value(*right)} if _plain_number(*right) else set()
        best = None
        seen_runs: set = set()
        for run, s in starts:
            if run in seen_runs:
                continue
            reached = self._reach(run, s, targets, target_values, seen_runs)
            if reached is not None and (best is None or reached[1] < best[1]):
                best = reached
        return best

    def computation(self, left, right) -> tuple[int, int] | None:
        """``E = v`` with ``E`` plain arithmetic, reached by computing ``v`` from ``E``'s numbers in
        steps: a side of value ``v`` whose numbers -- each number that is not one of ``E``'s
        replaced by the numbers of a side computing it (at most :data:`MAX_STEPS` deep) -- are
        exactly ``E``'s numbers (``16 - 3 = 13`` then ``13 - 4 = 9`` reaches ``16 - 3 - 4 = 9``)."""
        arithmetic = _arithmetic(left, right)
        if arithmetic is None:
            return None
        value, want = arithmetic
        failed: set = set()
        # A side t computes the value for an occurrence s of it when t != s: the pair of them
        # ending first is wanted (the first in occurrence order, then t order, of those). A loop
        # writes the value thousands of times in one run, so the pairs are not enumerated: each
        # side is checked once, where a check of every pair would first have checked it (the
        # checks find sides and so use the segment budget: their order counts), and
        # best_pair picks the pair.
        occurrences, computing = [], []
        firsts: dict = {}  # run -> its first occurrence (then True once a second one was seen)
        for run, s in self._value_occurrences(value):
            index = self.index_of(run.k, None, True)
            chain = index.chains[run.c]
            occurrences.append((run, s, run.k + chain.sides[s].end, (index, chain)))
            first = firsts.get(run)
            if first is None:
                firsts[run] = s
                todo = [t for t in range(run.lo, run.hi + 1) if t != s]
            elif first is not True:
                firsts[run] = True
                todo = [first]
            else:
                continue
            for t in todo:
                self.deadline.check()
                side = chain.sides[t]
                if not side.key or side.hi - side.lo < 3:
                    continue
                if self._expands_to(_leaves(*_side_tokens(index, side)), want, MAX_STEPS, failed):
                    computing.append((run, t, run.k + side.end, None))
        computing.sort(key=lambda entry: entry[1])  # in side order within each run
        pair = best_pair(occurrences, computing)
        if pair is None:
            return None
        (run, s, _, (_, chain)), (_, t, end, _) = pair
        return run.k + min(chain.sides[t].start, chain.sides[s].start), run.k + max(chain.sides[t].end, chain.sides[s].end)

    def in_words(self, left, right) -> tuple[int, int] | None:
        """``E = v`` with ``E`` plain arithmetic of two numbers or more, told by one sentence that
        writes no relation: ``E``'s numbers, then ``v`` (:mod:`consensus_metrics.worded`)."""
        arithmetic = _arithmetic(left, right)
        if arithmetic is None or right[0][0] == "neg":
            return None
        result, operands = rational(arithmetic[0]), arithmetic[1]
        result_groups = _anchors_of(*right)
        groups = list(result_groups)
        for number in operands:  # a fraction may be written as a percentage ("10%" for 0.1): no anchor
            if isinstance(number, int):  # or in words ("three boxes", "twice as many", "half price")
                digits = _anchors_of(*_number_tokens(Fraction(number)))
                words = word_anchors(Fraction(number))
                groups += (digits[0] + words, *digits[1:]) if words and len(digits) == 1 else digits
        for start, index in self._indexes(tuple(groups)):
            self.deadline.check()
            toks = index.toks
            found = told_at(toks.keys, toks.kinds, operands, result)
            if found is not None:
                return start + toks.starts[found[0]], start + toks.ends[found[1]]
        if self.segment_before is None or len(result_groups) != 1:
            return None
        # the result in the sentence after the operands' ("... by 11/8. This gives us $99.")
        span = self._told_with_sentence_before((result_groups[0], _OPENER_ANCHORS), tuple(groups[1:]),
                                               told_across, operands, result)
        if span is not None:
            return span
        # one operand referred back to: the number the sentence before ends on ("... 40,000
        # kilometers. Half of that is 20,000.")
        operand_anchors = groups[len(result_groups):]
        if len(operand_anchors) != sum(operands.values()):
            return None  # (an operand with no anchor of its own: a percentage of a fraction)
        for k in range(len(operand_anchors)):
            rest = operand_anchors[:k] + operand_anchors[k + 1:]
            span = self._told_with_sentence_before((result_groups[0], _BACK_ANCHORS, *rest), (operand_anchors[k],),
                                                   told_after, operands, result)
            if span is not None:
                return span
        return None

    def _told_with_sentence_before(self, groups, before_groups, tell, operands: Counter,
                                   result: Fraction) -> tuple[int, int] | None:
        """The span from the sentence before to the result where a sentence holding the anchor
        ``groups`` and the one before it (holding ``before_groups``) tell the computation:
        ``tell`` is :func:`~consensus_metrics.worded.told_across` or
        :func:`~consensus_metrics.worded.told_after` (the result's token index in the sentence,
        or ``None``). Each pair tokenised counts against :data:`MAX_SEGMENTS`."""
        if self.tokenised >= MAX_SEGMENTS:
            return None
        for start, index in self._indexes(groups):
            self.deadline.check()
            if self.tokenised >= MAX_SEGMENTS:
                break
            before = self.segment_before(start, before_groups)
            if before is None:
                continue
            first = self.index_of(before[0], before[1], True)
            if first is None:
                continue
            self.tokenised += 1
            toks, prev = index.toks, first.toks
            at = tell((prev.keys, prev.kinds), (toks.keys, toks.kinds), operands, result)
            if at is not None:
                return before[0] + (prev.starts[0] if prev.starts else 0), start + toks.ends[at]
        return None

    def _expands_to(self, leaves: Counter, want: Counter, depth: int, failed: set | None = None) -> bool:
        """Whether replacing numbers of ``leaves`` by their producers, at most ``depth`` times,
        gives ``want``. ``failed`` holds the ``(leaves, depth)`` already explored in vain for this
        ``want`` (orders of replacement meet in the same multisets)."""
        if leaves == want:
            return True
        if depth == 0:
            return False
        seen = (frozenset(leaves.items()), depth)
        if failed is None:
            failed = set()
        elif seen in failed:
            return False
        self.deadline.check()
        for number in leaves - want:
            for producer in self._producers(number):
                if self._expands_to(leaves - Counter({number: 1}) + producer, want, depth - 1, failed):
                    return True
        failed.add(seen)
        return False

    def _producers(self, number) -> list[Counter]:
        """The numbers of each side of the text that computes ``number`` (``3 + 4`` for 7)."""
        if number not in self._produced:
            found = []
            for run, _ in self._value_occurrences(((1, number),)):
                index = self.index_of(run.k, None, True)
                for side in index.chains[run.c].sides[run.lo:run.hi + 1]:
                    if side.key and side.hi - side.lo >= 3 and rational(self._side_value(index, side)) == number:
                        leaves = _leaves(*_side_tokens(index, side))
                        if leaves not in found:
                            found.append(leaves)
            self._produced[number] = found[:MAX_PRODUCERS]
        return self._produced[number]

    def _variants(self, keys, kinds):
        out = [(tuple(keys), tuple(kinds))]
        sub = self.substituted(tuple(keys), tuple(kinds)) if ID in kinds else None
        if sub is not None:
            out.append(sub)
        return out

    def _forms(self, keys, kinds):
        found = []
        for k, kd in self._variants(keys, kinds):
            found.extend(self.occurrences(k, kd))
        return found

    def _reach(self, run0: _Run, s0: int, targets, target_values, seen_runs) -> tuple[int, int] | None:
        """Explore the class of ``run0``; the span from the ``L`` side to the earliest target side."""
        index0 = self.index_of(run0.k, None, True)
        side0 = index0.chains[run0.c].sides[s0]
        l_start, l_end = run0.k + side0.start, run0.k + side0.end
        todo, runs, values, hit = [run0], {run0}, set(), None
        expanded_keys: set = set()
        while todo:
            self.deadline.check()
            run = todo.pop()
            index = self.index_of(run.k, None, True)
            chain = index.chains[run.c]
            for s in range(run.lo, run.hi + 1):
                side = chain.sides[s]
                if not side.key:
                    continue
                if not s & 255:
                    self.deadline.check()
                value = self._side_value(index, side)
                if value is not None:
                    values.add(value)
                    if len(values) > 1:
                        return None  # the class states two different numbers: nothing is linked
                end = run.k + side.end
                if (run, s) != (run0, s0) and self._is_target(index, run.c, s, value, targets, target_values):
                    if hit is None or end < hit:
                        hit = end
                links = []
                if side.key not in expanded_keys:
                    expanded_keys.add(side.key)
                    keys = tuple(index.toks.keys[side.lo:side.hi])
                    kinds = tuple(index.toks.kinds[side.lo:side.hi])
                    links.extend(self.occurrences(keys, kinds))
                if value is not None and ("value", value) not in expanded_keys:
                    expanded_keys.add(("value", value))
                    links.extend(self._value_occurrences(value))
                for other, _ in links:
                    if other not in runs:
                        runs.add(other)
                        if len(runs) > MAX_RUNS:
                            return None
                        todo.append(other)
        seen_runs.update(runs)
        if hit is None:
            return None
        return min(l_start, hit), max(l_end, hit)

    @staticmethod
    def _is_target(index, c: int, s: int, value, targets, target_values) -> bool:
        side = index.chains[c].sides[s]
        if value is not None and value in target_values and side.hi - side.lo <= 2:
            return True  # the number itself is written (a side of that value only links)
        key = side.key
        for target_key, target_kinds in targets:
            if key == target_key:
                return True
            if len(target_kinds) > 2 and index.comm_key(c, s) == _target_comm(target_key, target_kinds):
                return True
        return False


@lru_cache(maxsize=65536)
def _anchors_of(keys: tuple, kinds: tuple) -> tuple:
    """:func:`~consensus_metrics.anchors.token_anchors`, remembered (the same sides and numbers are
    looked for in every completion of a problem)."""
    return token_anchors(keys, kinds)


@lru_cache(maxsize=65536)
def _node_value(keys: tuple, kinds: tuple):
    """:func:`~consensus_metrics.surds.surd_value` of a side of a node form, remembered with the
    problem's prepared forms (not with the text caches, which a new text may clear)."""
    return surd_value(keys, kinds)


def _arithmetic(left, right) -> tuple[tuple, Counter] | None:
    """``(value, numbers)`` of a true arithmetic node ``left = right``: ``right`` one rational
    number, ``left`` plain arithmetic of that value combining two numbers or more (their multiset,
    :func:`_leaves`); else ``None``. What :meth:`ChainFollower.computation` and
    :meth:`ChainFollower.in_words` reach."""
    if not _plain_number(*right):
        return None
    value = _node_value(*right)
    if rational(value) is None or _node_value(*left) != value:
        return None
    numbers = _leaves(*left)
    return (value, numbers) if sum(numbers.values()) >= 2 else None


def _plain_number(keys, kinds) -> bool:
    """One number token, possibly negated (``22``, ``-4``, ``\\frac{3}{4}``)."""
    return (len(keys) == 1 and kinds[0] == NUM) or (len(keys) == 2 and keys[0] == "neg" and kinds[1] == NUM)


def _side_tokens(index, side) -> tuple[tuple, tuple]:
    return tuple(index.toks.keys[side.lo:side.hi]), tuple(index.toks.kinds[side.lo:side.hi])


def _leaves(keys, kinds) -> Counter:
    """The numbers an arithmetic expression combines, as a multiset (signs aside)."""
    out: Counter = Counter()
    for key, kind in zip(keys, kinds):
        if kind == NUM and key[1:].replace("/", "", 1).isdigit():
            body = key[1:]  # an int where it is one: equal to its Fraction, and far cheaper to hash
            out[Fraction(body) if "/" in body else int(body)] += 1
    return out


def _target_comm(key: str, kinds: tuple) -> str:
    return _form_commutative_key(tuple(key.split(SEP)), kinds)


def _number_tokens(number) -> tuple[tuple, tuple]:
    """Canonical tokens of a rational number (a negative one in brackets: ``(-3)``)."""
    body = number_key(abs(number))
    if number < 0:
        from .normalize import CLOSE, OPEN, OP

        return ("(", "neg", body, ")"), (OPEN, OP, NUM, CLOSE)
    return (body,), (NUM,)
