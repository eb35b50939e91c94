"""The one bridge from node_builder to the consensus_metrics core (`docs/SPEC.md` §3 matching; no
second matcher here).

Rule: every node_builder module that needs what the core decides about a text -- its canonical
tokens, numbers, relation chains, matches, anchors, exact surd values, the final answer and the
time budget that bounds it -- imports it from here, never from ``consensus_metrics`` itself, so
the builder's view of the core is this one file. (What every package shares with the core and
that decides nothing about a text is imported directly: the node schema,
``consensus_metrics.nodes``; ``consensus_metrics.records`` for JSONL input with ``file:line``
errors; ``consensus_metrics.outputs`` for output-path checks; ``consensus_metrics.argtypes`` for
CLI argument types.)

Defined here, on top of the core:

* :func:`covered` — which nodes a text covers and where, with the build's matching settings:
  no symbolic step (cheap rules only, so a node that matches here matches at evaluation time
  too, where the symbolic step can only add coverage) and a generous, explicit time budget: a
  text that exhausts it raises :class:`MatchBudgetExceeded` instead of silently reporting
  nodes uncovered, which would make builds depend on machine load;
* :func:`number_of` — the exact number a form states, when it is a plain number;
* :func:`order_free_key` — the key the matcher compares chain sides with, up to commutativity
  and associativity of ``+`` and ``*`` (``67 + 51 - 1`` ~ ``51 + 67 - 1``): clustering;
* :func:`numbers_in`, :func:`standalone_numbers` — the numbers a text writes.

Passed through from the core: :func:`canonical_key` (clustering, number detection),
:func:`relation_chains` / :func:`split_relation` (the miner's equation chains), ``tokenize_form``,
``commutative_key``, ``match_nodes`` (the scoring matcher: filter, finalize), ``form_anchors`` /
``text_may_contain`` (finalize's prefilter), ``surd_value`` / ``rational`` (exact values),
``parse_value`` (numerals), ``key_value`` (a number token's value), the number-word tables
``CARDINAL_WORDS``, ``TENS_WORDS``, ``ORDINAL_WORDS``,
``MULTIPLIER_WORDS`` (:mod:`node_builder.number_words`), ``exact_equivalent`` (two rational expressions equal at random
rational points: the answer in another order), ``check_answer`` / ``Deadline`` / ``DEFAULT_THINK_FORMAT`` (the
metric's ``acc`` and where a trajectory's answer is).

Example:
    >>> covered("so t = 144 - 48(2.5) = 24 minutes", [{"id": "a", "text": "t = 24"}, {"id": "b", "text": "4"}])
    {'a': 3}
    >>> number_of("\\\\frac{3}{4}"), number_of("$18"), number_of("x + 1")
    (Fraction(3, 4), Fraction(18, 1), None)
"""

from __future__ import annotations

import re
from fractions import Fraction

from consensus_metrics.anchors import form_anchors, text_may_contain
from consensus_metrics.answer import DEFAULT_THINK_FORMAT, check_answer
from consensus_metrics.budget import Deadline
from consensus_metrics.matching import match_nodes, match_nodes_ex
from consensus_metrics.normalize import ID, NUM, OP, REL, canonical_key, tokenize, tokenize_form
from consensus_metrics.numbers import (CARDINAL_WORDS, MULTIPLIER_WORDS, ORDINAL_WORDS, TENS_WORDS, key_value,
                                       parse_value)
from consensus_metrics.relations import commutative_key, relation_chains, split_relation
from consensus_metrics.surds import rational, surd_value
from consensus_metrics.symbolic import exact_equivalent, values_at_points

_NUMBER_KEY = re.compile(r"^(neg )?#(\d+)(?:/(\d+))?$")

#: Seconds one text may take to match all candidate nodes of a problem.
BUDGET_S = 60.0


class MatchBudgetExceeded(RuntimeError):
    """Matching one text ran past :data:`BUDGET_S` (pathological input)."""


def covered(text: str, nodes: list[dict], budget_s: float = BUDGET_S) -> dict[str, int]:
    """``{node_id: start offset of the earliest match}`` for the covered nodes."""
    if not nodes:
        return {}
    matches, timed_out = match_nodes_ex(text, nodes, budget_s=budget_s, symbolic=False)
    if timed_out:
        raise MatchBudgetExceeded(f"matching {len(nodes)} nodes against a {len(text)}-character text "
                                  f"took more than {budget_s} s")
    return {m.node_id: m.start for m in matches if m.covered}


def number_of(form: str | None) -> Fraction | None:
    """The exact number a form denotes when it is a plain number (``'\\\\frac{3}{4}'``, ``'$18'``)."""
    if not form:
        return None
    match = _NUMBER_KEY.match(canonical_key(form))
    if not match:
        return None
    value = Fraction(int(match.group(2)), int(match.group(3) or 1))
    return -value if match.group(1) else value


def order_free_key(form: str) -> str:
    """``commutative_key`` of a side: ``order_free_key("9 \\times 2") == order_free_key("2 \\cdot 9")``."""
    return commutative_key(*tokenize_form(form))


def numbers_in(text: str) -> set:
    r"""Every number the text writes, wherever it stands (``x^{2}``, ``\sqrt{242}``, ``17_b``),
    signed when a unary minus precedes it, as exact Fractions.

    >>> sorted(numbers_in("Simplify $\\sqrt{242}$ and $x^2 - 0.5 = -3$"))
    [Fraction(-3, 1), Fraction(1, 2), Fraction(2, 1), Fraction(242, 1)]
    """
    toks = tokenize(text)
    out = set()
    for i, (key, kind) in enumerate(zip(toks.keys, toks.kinds)):
        if kind != NUM or not key.startswith("#"):
            continue
        num, _, den = key[1:].partition("/")
        if not num.isdigit() or (den and not den.isdigit()):
            continue
        value = Fraction(int(num), int(den or 1))
        out.add(-value if i and toks.keys[i - 1] == "neg" else value)
    return out


def standalone_numbers(text: str) -> list[tuple[str, int, int]]:
    """Numbers that stand alone in ``text`` — no operator or relation on either side — as
    ``(canonical number key, start, end)``: ``"the lcm is 12, so"`` -> ``[("#12", 11, 13)]``;
    the ``2`` of ``x^2`` or ``2x``, the numbers of ``3 + 4 = 7`` and the members of an enumeration
    (``31, 37, 41 and 43``) are not standalone.

    >>> standalone_numbers("The lcm is $12$, and 2x + 3 = 7 at 4.5 km.")
    [('#12', 12, 14), ('#9/2', 35, 38)]
    >>> standalone_numbers("The primes are 31, 37 and 41; there are 3 of them.")
    [('#3', 40, 41)]
    """
    toks = tokenize(text)
    keys, kinds = toks.keys, toks.kinds
    out = []
    for i, kind in enumerate(kinds):
        if kind != NUM:
            continue
        neighbours = [kinds[j] for j in (i - 1, i + 1) if 0 <= j < len(kinds)]
        if any(k in (OP, REL) for k in neighbours) or (i + 1 < len(kinds) and toks.implicit[i + 1]):
            continue
        if i and keys[i - 1] in ("neg", "^", "_"):
            continue
        if _listed(toks, i):
            continue
        out.append((keys[i], toks.starts[i], toks.ends[i]))
    return out


def _listed(toks, i: int) -> bool:
    """The number at ``i`` is a member of an enumeration (``31, 37, 41``, ``17, 53 and 71``): a
    comma, "and" or "or" stands between it and another number that is not part of a computation."""
    keys, kinds = toks.keys, toks.kinds

    def bare_number(j: int) -> bool:
        if 0 <= j < len(keys) and keys[j] == "neg":
            j += 1
        if not (0 <= j < len(keys) and kinds[j] == NUM):
            return False
        after = j + 1
        return after >= len(keys) or (kinds[after] not in (OP, REL) and not toks.implicit[after])

    for step in (-1, 1):
        j = i + step
        if 0 <= j < len(keys) and keys[j] in (",", "~and", "~or"):
            k = j + step
            if 0 <= k < len(keys) and keys[k] in (",", "~and", "~or"):
                k += step
            if bare_number(k):
                return True
    return False


__all__ = ["CARDINAL_WORDS", "DEFAULT_THINK_FORMAT", "Deadline", "ID", "MatchBudgetExceeded", "canonical_key", "check_answer",
           "commutative_key", "covered", "exact_equivalent", "form_anchors", "key_value", "MULTIPLIER_WORDS", "ORDINAL_WORDS", "TENS_WORDS", "match_nodes", "number_of", "numbers_in", "order_free_key",
           "parse_value", "rational", "relation_chains", "split_relation", "standalone_numbers", "surd_value",
           "text_may_contain", "tokenize_form", "values_at_points"]
