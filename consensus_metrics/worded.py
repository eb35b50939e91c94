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
* holds every number of ``E`` (as a multiset, signs aside; ``p%`` also counts as ``p/100``; a
  number word counts as the numbers it may stand for, :func:`~consensus_metrics.numbers.operand_words`:
  "on sale for half price, so she paid $24" tells ``48 / 2 = 24``) and, after the last of them,
  ``v`` in digits, which is none of ``E``'s numbers,
* says between them that ``v`` follows (a word of :data:`CONSEQUENCE`: "so", "which is", "has",
  "gives", "total"...; "at 3 pm, 10 people and 30 dogs arrived" tells no ``3 * 10 = 30``) and
  neither compares nor computes on after it ("is 12 more than 0", "is 12 times 1": the words
  the prose equalities of :mod:`consensus_metrics.relations` stop at, or an operator),
* holds at most :data:`EXTRA_NUMBERS` numbers besides those (a list of many numbers is no
  statement of one computation), and no count of a set (``2 of 5``, ``3 out of 4``: whole
  numbers joined by "of" pick, they do not multiply; docs/SPEC.md §3 rule 1).

The result may also be the first number of the next sentence, when that sentence opens by
referring back ("... we can multiply 72 by 11/8. This gives us a total of $99": :func:`told_across`),
and one operand may be the number the sentence before ends on, when the sentence refers back to it
("... is 40,000 kilometers. Half of that is 20,000 kilometers": :func:`told_after`).

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

from .normalize import MISC, NUM, OP, REL, WORD
from .numbers import key_value, operand_words
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


#: What joins the two numbers of a count of a set ("2 of 5", "3 out of 4"; not "20 of the 50 shirts
#: have buttons, so that means there are 30": a part of a named whole is taken from it).
_COUNT_LINKS = frozenset((("~of",), ("~out", "~of")))
#: Words that may stand for an operand (``three``, ``twice``, ``half``: :func:`operand_words`), by token key.
WORD_OPERANDS = {"~" + word: values for word, values in operand_words().items()}


def word_anchors(value: Fraction) -> tuple[str, ...]:
    """Anchor alternatives (:mod:`consensus_metrics.anchors`: ``~`` a lower-case word) of the words
    that may stand for ``value``: a sentence holding one of them may tell a computation with it.

    >>> word_anchors(Fraction(2))
    ('~two', '~twice', '~double', '~half', '~halves')
    """
    return _WORD_ANCHORS.get(value, ())


def _anchor_table() -> dict[Fraction, tuple[str, ...]]:
    """value -> the :data:`WORD_OPERANDS` keys that may stand for it, less those another of them
    finds as a substring ("double" finds "doubled": the anchor search is by substring)."""
    keys_of: dict[Fraction, list[str]] = {}
    for key, values in WORD_OPERANDS.items():
        for value in values:
            keys_of.setdefault(value, []).append(key)
    return {value: tuple(k for k in keys if not any(o != k and o[1:] in k for o in keys))
            for value, keys in keys_of.items()}


_WORD_ANCHORS = _anchor_table()


def sentence_numbers(keys, kinds) -> list[tuple[int, tuple[Fraction, ...], bool]] | None:
    """``(token index, values it may stand for, whether it is a word)`` of each number of a
    sentence's tokens, or ``None`` when the sentence writes a relation. A numeral stands for its
    value, and a percentage also for its fraction (``10%``: 10 and 1/10); a number word for the
    values of :data:`WORD_OPERANDS` (an operand only: a result is written in digits).

    >>> from consensus_metrics.normalize import tokenize_form
    >>> sentence_numbers(*tokenize_form("an additional 10% of 2000"))
    [(2, (Fraction(10, 1), Fraction(1, 10)), False), (5, (Fraction(2000, 1),), False)]
    >>> sentence_numbers(*tokenize_form("half of 48"))
    [(0, (Fraction(2, 1), Fraction(1, 2)), True), (2, (Fraction(48, 1),), False)]
    """
    out = []
    for i, (key, kind) in enumerate(zip(keys, kinds)):
        if kind == REL:
            return None
        if kind == NUM:
            value = key_value(key)
            if value is not None:
                percent = i + 1 < len(keys) and keys[i + 1] == "%" and kinds[i + 1] == MISC
                out.append((i, (value, value / 100) if percent else (value,), False))
        elif kind == WORD and key in WORD_OPERANDS:
            out.append((i, WORD_OPERANDS[key], True))
    return out


def _whole(values: tuple[Fraction, ...]) -> bool:
    """Whether a sentence number stands for one whole number only (``3``, ``three``; not ``half``)."""
    return len(values) == 1 and values[0].denominator == 1


def told_at(keys, kinds, operands: Counter, result: Fraction) -> tuple[int, int] | None:
    """Token indices ``(first operand, result)`` where a sentence tells the computation of
    ``operands`` (a multiset of values) giving ``result`` (module doc), else ``None``.

    >>> from consensus_metrics.normalize import tokenize_form
    >>> keys, kinds = tokenize_form("3 boxes of 64 crayons, so she has 192 crayons")
    >>> told_at(keys, kinds, Counter({3: 1, 64: 1}), Fraction(192)) == (0, keys.index("#192"))
    True
    >>> told_at(*tokenize_form("so 2 of 5 is 10"), Counter({2: 1, 5: 1}), Fraction(10)) is None
    True
    >>> told_at(*tokenize_form("half of the 48 cupcakes, so 24"), Counter({48: 1, 2: 1}), Fraction(24))
    (0, 7)
    """
    count = sum(operands.values())
    if count < 2 or result in operands or kinds.count(NUM) > count + 1 + EXTRA_NUMBERS:
        return None  # (the numbers counted first, at C speed: a spam of numbers costs nothing more)
    numbers = sentence_numbers(keys, kinds)
    if numbers is None:
        return None
    for (i, a, _), (j, b, _) in zip(numbers, numbers[1:]):
        if tuple(keys[i + 1:j]) in _COUNT_LINKS and _whole(a) and _whole(b):
            return None  # "2 of 5", "three of 12": a count of a set ("half of 48" halves)
    want = Counter(operands)
    first = last = None
    for i, values, word in numbers:
        if not want:
            if not word and values[0] == result and any(key in CONSEQUENCE for key in keys[last + 1:i]):
                after = i + 1 < len(keys) and (keys[i + 1] in _COMPARING or kinds[i + 1] == OP)
                if not after:  # "is 12 more than 0", "is 12 times 1": no result of its own
                    return first, i
            continue
        for candidate in values:
            if want[candidate] > 0:
                want[candidate] -= 1
                if not want[candidate]:
                    del want[candidate]
                first = i if first is None else first
                last = i
                break
    return None


#: Words by which a sentence refers back to the number the sentence before it ended on ("Half of
#: that is 20,000", "twice as many, so 250", "two seconds slower than Lee, so he ran it in 40").
BACK_REFERENCES = frozenset("~" + w for w in ("that", "this", "it", "its", "them", "these", "those", "as", "than"))


def told_after(first, second, operands: Counter, result: Fraction) -> int | None:
    """The token index in ``second`` of ``result`` where ``second`` tells the computation with one
    operand referred back to: the last number of ``first`` (the sentence before; digits, ``p%``
    also as ``p/100``) is one of ``E``'s numbers, ``second`` holds the others and ``v`` (the tests
    of :func:`told_at`, with that number put in front of it) and, before ``v``, a word of
    :data:`BACK_REFERENCES`; ``None`` otherwise. "The Affenpinscher weighed 10 pounds. The
    Dachshund weighed twice as much, so it weighed 20 pounds." tells ``10 * 2 = 20``.

    >>> from consensus_metrics.normalize import tokenize_form
    >>> a = tokenize_form("The circumference of the earth is 40,000 kilometers.")
    >>> b = tokenize_form("Half of that is 20,000 kilometers.")
    >>> told_after(a, b, Counter({40000: 1, 2: 1}), Fraction(20000))
    4
    >>> told_after(a, tokenize_form("Half of 30,000 is 20,000."), Counter({40000: 1, 2: 1}), Fraction(20000))
    >>> told_after(tokenize_form("He is 40,000 km away, 3 days."), b, Counter({40000: 1, 2: 1}), Fraction(20000))
    >>> told_after(tokenize_form("funding for the first 5 months."), tokenize_form(
    ...     "It takes 10 times that long and after those first 5 took 50% more."), Counter({5: 1, 10: 1}), Fraction(50))
    """
    (keys_a, kinds_a), (keys_b, kinds_b) = first, second
    last = next((i for i in range(len(kinds_a) - 1, -1, -1) if kinds_a[i] == NUM), None)
    if last is None:
        return None
    value = key_value(keys_a[last])
    percent = last + 1 < len(keys_a) and keys_a[last + 1] == "%"
    if value is None or not (operands[value] or percent and operands[value / 100]):
        return None
    numbers_b = sentence_numbers(keys_b, kinds_b)
    if numbers_b is None:
        return None  # a sentence that writes a relation is the token rules' to judge
    if any(value in values or value / 100 in values for _, values, word in numbers_b if not word):
        return None  # the sentence writes that number itself: it refers to nothing before
    keys = [keys_a[last]] + (["%"] if percent else []) + list(keys_b)
    kinds = [NUM] + ([MISC] if percent else []) + list(kinds_b)
    found = told_at(keys, kinds, operands, result)
    if found is None or found[0] != 0:
        return None  # the number referred back to is an operand, the first one read
    shift = 2 if percent else 1
    if not any(key in BACK_REFERENCES for key in keys[shift:found[1]]):
        return None
    return found[1] - shift


#: Words a sentence opens with when it gives the result of the sentence before it ("This gives
#: us a total of $99", "That leaves 30 cats", "So she has 192").
OPENERS = frozenset("~" + w for w in (
    "this", "that", "these", "so", "thus", "therefore", "hence", "altogether", "together",
    "overall", "which", "then"))


def told_across(first, second, operands: Counter, result: Fraction) -> int | None:
    """The token index in ``second`` of ``result`` where two consecutive sentences tell the
    computation: ``first`` (its ``(keys, kinds)``) holds ``E``'s numbers, ``second`` opens with a word of :data:`OPENERS` and writes ``v`` as its first number, after
    a word of consequence ("We can multiply 72 by 11/8. This gives us a total of $99."). Both
    sentences pass :func:`told_at`'s tests as one; ``None`` otherwise.

    >>> from consensus_metrics.normalize import tokenize_form
    >>> a, b = tokenize_form("We can multiply 72 by 11/8."), tokenize_form("This gives us a total of $99.")
    >>> told_across(a, b, Counter({72: 1, Fraction(11, 8): 1}), Fraction(99))
    6
    >>> told_across(a, tokenize_form("Then 3 more gives 99."), Counter({72: 1, Fraction(11, 8): 1}), Fraction(99))
    """
    (keys_a, kinds_a), (keys_b, kinds_b) = first, second
    if not keys_b or keys_b[0] not in OPENERS or NUM not in kinds_b:
        return None
    at = kinds_b.index(NUM)
    if key_value(keys_b[at]) != result:
        return None  # the result is the second sentence's first number
    found = told_at(list(keys_a) + list(keys_b), list(kinds_a) + list(kinds_b), operands, result)
    if found is None or found[1] != len(keys_a) + at:
        return None
    return at

