r"""A computation told in words: ``E = v`` stated by a sentence without an equals sign
(docs/SPEC.md §3 rule 4, its last sentence).

Word-problem solutions often state a step of arithmetic without writing it: "4 boats came and
carried away 5 cats each, so that's 20 cats", "Kate has 3 boxes of 64 crayons, so she has 192
crayons", "Janeth borrowed $2000 with an additional 10%, which is $200". The token rules and
chain following need the computation written out; this last cheap step credits a node
``E = v`` -- ``E`` plain arithmetic of at least two numbers, ``v`` a number that ``E`` really
equals -- when one sentence (a matcher segment)

* holds no relation sign (``=``, ``<``, ``≡``...: a sentence that writes a relation is the token
  rules' to judge),
* holds every number of ``E`` (as a multiset, signs aside; ``p%`` also counts as ``p/100``) and,
  after the last of them, ``v``, which is none of ``E``'s numbers,
* says between them that ``v`` follows (a word of :data:`CONSEQUENCE`: "so", "which is", "has",
  "gives", "total"...; "at 3 pm, 10 people and 30 dogs arrived" tells no ``3 * 10 = 30``) and
  neither compares nor computes on after it ("is 12 more than 0", "is 12 times 1": the words
  the prose equalities of :mod:`consensus_metrics.relations` stop at, or an operator),
* holds at most :data:`EXTRA_NUMBERS` numbers besides those (a list of many numbers is no
  statement of one computation), and no count of a set (``2 of 5``, ``3 out of 4``: whole
  numbers joined by "of" pick, they do not multiply; docs/SPEC.md §3 rule 1).

The operation itself is not read: which numbers a sentence puts together, and the true result
after them, is what it states. Precision rests on the numbers: a sentence of another problem
seldom holds all of them and the result, in that order (measured on unrelated solutions by
``benchmarks/bench_node_validity.py``).

>>> from consensus_metrics import match_nodes
>>> m = match_nodes("Then 4 boats came and carried away 5 cats each, so that's 20 cats.", ["4 * 5 = 20"])
>>> (m[0].covered, m[0].via)
(True, 'words')
>>> [x.covered for x in match_nodes("He has 4 boats. Each holds 5 cats; 20 + 1 = 21.", ["4 * 5 = 20"])]
[False]
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from .normalize import MISC, NUM, OP, REL
from .numbers import key_value
from .relations import _COMPARING

#: Numbers a sentence may hold besides the computation's operands and result.
EXTRA_NUMBERS = 3
#: Words that say a result follows, one of which stands between the last operand and the result
#: (token keys: words are lower-cased with a ``~``).
CONSEQUENCE = frozenset("~" + w for w in (
    "so", "thus", "therefore", "hence", "which", "that", "total", "altogether", "gives", "give", "gave",
    "get", "gets", "got", "getting", "makes", "make", "made", "means", "is", "are", "was", "were", "be",
    "has", "have", "had", "or", "leaves", "leaving", "left", "equals", "comes", "becomes", "yields",
    "results", "giving", "making", "for"))


def sentence_numbers(keys, kinds) -> list[tuple[int, Fraction, Fraction | None]] | None:
    """``(token index, value, value as a percentage or None)`` of each number of a sentence's
    tokens, or ``None`` when the sentence writes a relation.

    >>> from consensus_metrics.normalize import tokenize_form
    >>> sentence_numbers(*tokenize_form("an additional 10% of 2000"))
    [(2, Fraction(10, 1), Fraction(1, 10)), (5, Fraction(2000, 1), None)]
    """
    out = []
    for i, (key, kind) in enumerate(zip(keys, kinds)):
        if kind == REL:
            return None
        if kind == NUM:
            value = key_value(key)
            if value is not None:
                percent = value / 100 if i + 1 < len(keys) and keys[i + 1] == "%" and kinds[i + 1] == MISC else None
                out.append((i, value, percent))
    return out


def told_at(keys, kinds, operands: Counter, result: Fraction) -> tuple[int, int] | None:
    """Token indices ``(first operand, result)`` where a sentence tells the computation of
    ``operands`` (a multiset of values) giving ``result`` (module doc), else ``None``.

    >>> from consensus_metrics.normalize import tokenize_form
    >>> keys, kinds = tokenize_form("3 boxes of 64 crayons, so she has 192 crayons")
    >>> told_at(keys, kinds, Counter({3: 1, 64: 1}), Fraction(192)) == (0, keys.index("#192"))
    True
    >>> told_at(*tokenize_form("so 2 of 5 is 10"), Counter({2: 1, 5: 1}), Fraction(10)) is None
    True
    """
    count = sum(operands.values())
    if count < 2 or result in operands or kinds.count(NUM) > count + 1 + EXTRA_NUMBERS:
        return None  # (the numbers counted first, at C speed: a spam of numbers costs nothing more)
    numbers = sentence_numbers(keys, kinds)
    if numbers is None:
        return None
    for (i, a, _), (j, b, _) in zip(numbers, numbers[1:]):
        if tuple(keys[i + 1:j]) in (("~of",), ("~out", "~of")) and a.denominator == b.denominator == 1:
            return None  # "2 of 5": a count of a set
    want = Counter(operands)
    first = last = None
    for i, value, percent in numbers:
        if not want:
            if value == result and any(key in CONSEQUENCE for key in keys[last + 1:i]):
                after = i + 1 < len(keys) and (keys[i + 1] in _COMPARING or kinds[i + 1] == OP)
                if not after:  # "is 12 more than 0", "is 12 times 1": no result of its own
                    return first, i
            continue
        for candidate in (value, percent):
            if candidate is not None and want[candidate] > 0:
                want[candidate] -= 1
                if not want[candidate]:
                    del want[candidate]
                first = i if first is None else first
                last = i
                break
    return None
