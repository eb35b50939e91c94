r"""Relation chains: the equations (and inequalities) written in a text, split into their sides.

A *chain* is a maximal run of math tokens with at least one relation, e.g.
``9s+18-9s = 18 = 1.6s^{2} + 3.2s`` has three sides joined by two ``=``. Chains end at prose
words, sentence punctuation (``.`` always; ``,`` and ``;`` outside brackets), ``\implies``-like
arrows, ``\quad``, a line break (unless the next line continues with a relation, as in
``align``), and a math delimiter between two operands (``$x=3$ $y=4$``).

Equation nodes match sides exactly (docs/SPEC.md §3 rule 3): ``a = b`` is covered when ``a`` and ``b``
are two sides of one chain joined only by ``=`` (either order), so ``t = 24`` is found in
``t = 144 - 48(2.5) = 24`` but not in ``3t = 24``. Sides also compare up to commutativity and
associativity of ``+`` and ``*`` (:func:`commutative_key`): ``2 \cdot 9 = 18`` covers
``9 \times 2 = 18``.

>>> [[s.text for s in c.sides] for c in relation_chains("So $x + 1 = 5$, hence x = 4.")]
[['x + 1', '5'], ['x', '4']]
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import NamedTuple

from .budget import NO_DEADLINE, Deadline
from .normalize import CLOSE, FUNC, ID, NUM, OP, OPEN, PUNCT, REL, WORD, Tokens, tokenize, tokenize_form
from .surds import surd_value
from .vocabulary import CONNECTIVES

SEP = "\x00"
_BREAKING_PUNCT_IN_BRACKETS = {".", "?", "!", "⇒", "—", ":"}


class Side(NamedTuple):
    """Tokens ``lo:hi`` of a chain side, with exact and commutative keys and char span (an
    immutable named tuple: every tokenised sentence builds a few)."""

    lo: int
    hi: int
    key: str
    comm: str
    start: int
    end: int
    text: str = ""


class Chain(NamedTuple):
    sides: tuple[Side, ...]
    rels: tuple[str, ...]


def _trim(keys: list[str], kinds: list[int], lo: int, hi: int) -> tuple[int, int]:
    """Drop edge brackets not closed inside the side (``(x`` -> ``x``, ``18 (`` before a remark in
    brackets -> ``18``) and edge ellipses."""
    unmatched_open: set[int] | tuple = ()
    unmatched_close: set[int] | tuple = ()
    span = kinds[lo:hi]
    if OPEN in span or CLOSE in span:  # pair the brackets (most sides have none)
        stack: list[int] = []
        unmatched_close = set()
        for k in range(lo, hi):
            if kinds[k] == OPEN:
                stack.append(k)
            elif kinds[k] == CLOSE:
                if stack:
                    stack.pop()
                else:
                    unmatched_close.add(k)
        unmatched_open = set(stack)
    while lo < hi and (lo in unmatched_open or lo in unmatched_close or keys[lo] == "…"):
        lo += 1
    while hi > lo and (hi - 1 in unmatched_close or hi - 1 in unmatched_open or keys[hi - 1] == "…"):
        hi -= 1
    return lo, hi


def _side(toks: Tokens, lo: int, hi: int, text: str | None, with_comm: bool) -> Side:
    lo, hi = _trim(toks.keys, toks.kinds, lo, hi)
    keys = toks.keys[lo:hi]
    if lo >= hi:
        return Side(lo, hi, "", "", -1, -1, "")
    start, end = toks.starts[lo], toks.ends[hi - 1]
    comm = commutative_key(keys, toks.kinds[lo:hi]) if with_comm else ""
    return Side(lo, hi, SEP.join(keys), comm, start, end, text[start:end] if text is not None else "")


#: Prose that states an equality between two math runs: ``3^6 is 729``, ``15 \times 4 equals 60``,
#: ``2^{10} is equal to 1024``, ``\frac{6}{8} simplifies to \frac{3}{4}``, ``(u-3)(u+6) expands to
#: u^2 + 3u - 18`` (token keys, longest first).
PROSE_EQUALS = (("~is", "~equal", "~to"), ("~simplifies", "~to"), ("~evaluates", "~to"), ("~expands", "~to"),
                ("~reduces", "~to"), ("~equals",), ("~is",), ("~which", "~is"), ("~which", "~equals"))
#: Prose that states a factorisation: ``x^2 - 5x - 14 factors as (x - 7)(x + 2)``; its right side
#: may start with a letter (``x^2 + 3x factors as x(x + 3)``).
PROSE_FACTORS = (("~can", "~be", "~factored", "~as"), ("~can", "~be", "~factored", "~into"), ("~factors", "~as"),
                 ("~factors", "~into"), ("~factorizes", "~as"), ("~is", "~factored", "~as"))
#: Words before a math run after which a bare ``as`` states its factorisation (``we factor
#: x^2 - 5x - 14 as (x - 7)(x + 2)``).
_FACTOR_VERBS = frozenset(("~factor", "~factored", "~factoring", "~factorize", "~factorizing"))
_PROSE_HEADS = frozenset(phrase[0] for phrase in PROSE_EQUALS + PROSE_FACTORS) | {"~as"}
#: The phrases tried after a math run (with a bare ``as`` after a verb of factoring), and those
#: whose right side may start with a letter.
_PHRASES = PROSE_EQUALS + PROSE_FACTORS
_PHRASES_AFTER_FACTOR = _PHRASES + (("~as",),)
_FACTOR_PHRASES = frozenset(PROSE_FACTORS + (("~as",),))
#: Phrases whose right side may start with a letter or a function (``simplifies to x^2 + 1``,
#: ``is equal to \sqrt{2}``): a verb "to" names a result, where a bare ``is`` may name a word
#: the lexer reads as a letter ("3 + 4 is a prime").
_LETTER_PHRASES = _FACTOR_PHRASES | frozenset(phrase for phrase in PROSE_EQUALS if phrase[-1] == "~to")
#: Most prose words between the computation and the phrase: what its number counts (``2 times 10
#: eggs, which is 20``), none of them a :data:`~consensus_metrics.vocabulary.CONNECTIVES` word.
_UNIT_WORDS = 3


def _prose_equals(keys: list[str], kinds: list[int], lo: int, i: int) -> int:
    r"""Tokens of a prose equality (:data:`PROSE_EQUALS`, :data:`PROSE_FACTORS`) at ``i`` that
    join the math run ``lo:i`` to the math after them, or 0. Only after a *computation* -- a run
    with a number and an operator or a function, its brackets closed (``3^6``, ``5!``,
    ``\frac{96}{8}``, not the bare ``5`` of "choose 2 from 5 is 10" nor ``x`` of "x is 5"; a bare
    number only as "the prime factorization of 6432 is ..."), not the last argument of a phrase
    (``and``, ``of`` but ``the value of``: :data:`_ARGUMENT_OF`) -- and before a number, a bracket
    or a minus sign (not "is greater", "is the"; a factorisation also before a letter) with no
    comparison after it (:data:`_COMPARING`)."""
    if lo < 0 or not (kinds[i - 1] in (NUM, CLOSE, ID) or keys[i - 1] == "!"):
        return 0
    head = i
    if keys[i] == "," and i + 1 < len(keys) and keys[i + 1] == "~which":
        head = i + 1  # "\binom{5}{4}, which is 5"
    elif keys[i] not in _PROSE_HEADS:  # (first the word itself: build_chains asks at every word after math)
        if kinds[i - 1] != NUM:
            return 0
        while (head < len(keys) and head - i < _UNIT_WORDS and kinds[head] == WORD
               and keys[head][1:] not in CONNECTIVES):
            head += 1  # unit words: "2 times 10 eggs which is 20"
        if head + 1 < len(keys) and keys[head] == "," and keys[head + 1] == "~which":
            head += 1
        if head == len(keys) or keys[head] not in _PROSE_HEADS:
            return 0
    before = keys[lo - 1] if lo and kinds[lo - 1] == WORD else ""
    if keys[head] == "~as" and before not in _FACTOR_VERBS:
        return 0  # a bare "as" joins only after a verb of factoring
    named = before == "~of" and lo >= 2 and keys[lo - 2] == "~factorization"
    if before and not named:  # "the product of 5 + √3 and 5 - √3 is 22", "the square root of 3600 is 60"
        word, earlier = before, (keys[lo - 2] if lo >= 2 else "")
        if (word in _ARGUMENT_OF and not (word == "~and" and earlier == ",")) or \
                (word == "~of" and earlier not in _VALUE_OF):
            return 0  # (", and" starts a clause; "the value of" names what follows)
    span = kinds[lo:i]
    if NUM not in span or span.count(OPEN) != span.count(CLOSE):
        return 0
    if OP not in span and FUNC not in span and not (named and len(span) == 1):
        return 0
    for phrase in _PHRASES_AFTER_FACTOR if keys[head] == "~as" else _PHRASES:
        n = head - i + len(phrase)
        if tuple(keys[head:i + n]) == phrase and i + n < len(keys) and \
                (kinds[i + n] in (NUM, OPEN) or keys[i + n] == "neg" or
                 (kinds[i + n] in (ID, FUNC) and phrase in _LETTER_PHRASES)):
            j = i + n
            while j < len(keys) and kinds[j] not in (WORD, PUNCT):
                j += 1
            return 0 if j < len(keys) and keys[j] in _COMPARING else n  # "is 6 more than 2"
    return 0


#: Words before a math run that make it part of a phrase, not the subject of "is": ``and 5 - √3
#: is 22`` (the product of both is); after ``of`` only ``the result of`` / ``the value of`` do not.
_ARGUMENT_OF = frozenset(("~and", "~than", "~plus", "~minus", "~times", "~divided", "~by", "~from", "~between",
                          "~over", "~into", "~with", "~to"))
_VALUE_OF = frozenset(("~result", "~value"))
#: Words after the right side that make a prose "is" no equality (``3 \times 4 is 12 more than 0``).
_COMPARING = frozenset(("~more", "~less", "~greater", "~smaller", "~fewer", "~larger", "~bigger", "~higher",
                        "~lower", "~times", "~percent", "~of", "~short", "~away", "~off", "~apart"))


def build_chains(toks: Tokens, text: str | None = None, deadline: Deadline = NO_DEADLINE,
                 keep_segments: bool = False, with_comm: bool = True, prose: bool = False) -> list[Chain]:
    """All relation chains of a token sequence.

    With ``keep_segments`` math runs without a relation (of two or more tokens) are kept too, as
    one-side chains with no relations: the matcher compares expression nodes with them.
    ``with_comm=False`` leaves ``Side.comm`` empty (the matcher computes it only when needed).
    With ``prose`` a computation stated in words is an equation too (:func:`_prose_equals`):
    ``3^6 is 729`` gives the chain ``3^6 = 729``.

    >>> text = "So 3^6 is 729 ways."
    >>> [[s.text for s in c.sides] for c in build_chains(tokenize(text), text, prose=True)]
    [['3^6', '729']]
    >>> build_chains(tokenize("So 3^6 is 729 ways."))
    []
    """
    keys, kinds, breaks = toks.keys, toks.kinds, toks.breaks
    chains: list[Chain] = []
    bounds: list[tuple[int, int]] = []
    rels: list[str] = []
    side_lo = -1
    depth = 0
    skip = 0
    prose_end = -1  # the token after the last prose "is" read as "="

    def close_chain(at: int):
        nonlocal bounds, rels, side_lo, depth
        if rels:
            if side_lo >= 0:
                bounds.append((side_lo, at))
            else:
                bounds.append((at, at))
            if len(bounds) == len(rels) + 1:
                chains.append(Chain(tuple(_side(toks, lo, hi, text, with_comm) for lo, hi in bounds), tuple(rels)))
        elif keep_segments and side_lo >= 0 and at - side_lo > 1:
            chains.append(Chain((_side(toks, side_lo, at, text, with_comm),), ()))
        bounds, rels, side_lo, depth = [], [], -1, 0

    for i in range(len(keys)):
        if not i & 1023:
            deadline.check()
        if skip:
            skip -= 1
            continue
        kind = kinds[i]
        # before the break: "\( 99^2 \) is"; at a comma: "2 times 10, which is 20"
        if prose and (kind == WORD or keys[i] == ",") and not depth and side_lo >= 0:
            n = _prose_equals(keys, kinds, side_lo, i)
            if n:
                bounds.append((side_lo, i))
                rels.append("=")
                side_lo, skip, prose_end = -1, n - 1, i + n
                continue
        if breaks[i] and kind != REL and i and kinds[i - 1] not in (REL, OP) and i != prose_end:
            close_chain(i)  # (a math delimiter right after a prose "is" continues the chain)
        ellipsis_break = keys[i] == "…" and i and kinds[i - 1] != OP  # "x = 18 ... so" but not "1 + ... + n"
        if kind == WORD or ellipsis_break or (kind == PUNCT and (depth == 0 or keys[i] in _BREAKING_PUNCT_IN_BRACKETS)):
            close_chain(i)
            continue
        if kind == REL:
            bounds.append((side_lo, i) if side_lo >= 0 else (i, i))
            rels.append(keys[i])
            side_lo = -1
            continue
        if side_lo < 0:
            side_lo = i
        if kind == OPEN:
            depth += 1
        elif kind == CLOSE and depth:
            depth -= 1
    close_chain(len(keys))
    return chains


#: Operators a side is cut at into aligned terms (:func:`term_chains`): a sum's, else a product's.
_TERM_OPS = (frozenset(("+", "-")), frozenset(("*", "/")))
#: The operators a cancelled rest may follow (:func:`_aligned_terms`): after them it is a term of
#: its own (not after ``-`` or ``/``); and those that may join the terms cancelled at the end.
_LEADS = frozenset(("+", "*"))
_TAILS = frozenset(("+", "-", "*", "/"))
#: Most sides of one ``=`` run compared pairwise for a root on both (:func:`_root_arguments`).
MAX_ROOT_SIDES = 8


def term_chains(toks: Tokens, chains: list[Chain]) -> list[Chain]:
    r"""The equations a rewrite states term by term (SPEC §3 rule 4). Each is a chain ``A = B``
    of two spans of equal exact value (:func:`~consensus_metrics.surds.surd_value`), one of them a
    computation, read off two sides of one ``=`` run:

    * sums (or products) of as many terms with the same operators pair term by term:
      ``200 + (50 \times 14) = 200 + 700`` states ``50 \times 14 = 700``;
    * else the terms both sides share at their start or end cancel and the rests pair (each rest
      a term, or terms joined by ``+`` / ``*``): ``\frac{1}{3}(30)(6.5) = (10)(6.5)`` states
      ``\frac{1}{3} \cdot 30 = 10``;
    * so do fractions, a product of a numerator and a divisor:
      ``\frac{650}{520 + 650} = \frac{650}{1170}`` states ``520 + 650 = 1170``;
    * square roots pair their arguments, across the whole run:
      ``\sqrt{2^2 + 9^2} = \sqrt{4 + 81} = \sqrt{85}`` states ``2^2 + 9^2 = 85``.

    A pair is taken apart again the same way (:data:`MAX_TERM_DEPTH` times: the roots in a
    fraction), and pairs that share a span join (``A = B`` and ``B = C`` state ``A = C``). A pair
    whose spans are equal, two bare numbers, or of different value states nothing.

    >>> toks = tokenize("so 8 + 18 + 3 * 5 = 8 + 18 + 15 = 41")
    >>> [[s.key.replace(SEP, " ") for s in c.sides] for c in term_chains(toks, build_chains(toks))]
    [['#3 * #5', '#15']]
    >>> toks = tokenize("\\frac{1}{3}(30)(6.5) = (10)(6.5), and \\sqrt{3^2 + 4^2} = \\sqrt{25}")
    >>> [[s.key.replace(SEP, " ") for s in c.sides] for c in term_chains(toks, build_chains(toks))]
    [['#1/3 * #30', '#10'], ['#3 ^ #2 + #4 ^ #2', '#25']]
    """
    keys, kinds = toks.keys, toks.kinds
    pending: deque[tuple[int, int, int, int, int]] = deque()
    for chain in chains:
        sides = chain.sides
        for a, b, rel in zip(sides, sides[1:], chain.rels):
            if rel == "=" and a.hi - a.lo >= 3 and b.hi - b.lo >= 3:  # (most equations end in a number)
                pending += [(*span, *span2, 0) for span, span2 in _aligned_terms(keys, kinds, a, b)]
        pending += [(*span, *span2, 0) for span, span2 in _root_arguments(keys, kinds, chain)]
    pairs: list[tuple[int, int, int, int]] = []
    seen: set = set()
    while pending:
        lo, hi, lo2, hi2, depth = pending.popleft()
        lo, hi = _unwrap(kinds, lo, hi)
        lo2, hi2 = _unwrap(kinds, lo2, hi2)
        if lo >= hi or lo2 >= hi2 or keys[lo:hi] == keys[lo2:hi2] or (lo, hi, lo2, hi2) in seen:
            continue
        seen.add((lo, hi, lo2, hi2))
        if depth < MAX_TERM_DEPTH:
            a, b = _span_side(lo, hi), _span_side(lo2, hi2)
            inner = _aligned_terms(keys, kinds, a, b) + _root_arguments(keys, kinds, Chain((a, b), ("=",)))
            pending += [(*span, *span2, depth + 1) for span, span2 in inner]
        if OP not in kinds[lo:hi] and OP not in kinds[lo2:hi2] and FUNC not in kinds[lo:hi] + kinds[lo2:hi2]:
            continue  # two numbers, no computation between them
        value = surd_value(keys[lo:hi], kinds[lo:hi])
        if value is not None and value == surd_value(keys[lo2:hi2], kinds[lo2:hi2]):
            pairs.append((lo, hi, lo2, hi2))
    return [Chain((_side(toks, lo, hi, None, False), _side(toks, lo2, hi2, None, False)), ("=",))
            for lo, hi, lo2, hi2 in _joined(keys, pairs)]


#: How often a pair of :func:`term_chains` is taken apart again.
MAX_TERM_DEPTH = 3
#: Most spans joined into one class by :func:`_joined` (the pairs of a class grow as its square).
MAX_JOINED = 6


def _span_side(lo: int, hi: int) -> Side:
    return Side(lo, hi, "", "", -1, -1)


def _joined(keys, pairs: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """``pairs`` and the pairs they imply through a shared span (up to its tokens): ``A = B`` and
    ``B = C`` give ``A = C`` (classes of up to :data:`MAX_JOINED` spans)."""
    parent: dict[tuple, tuple] = {}

    def root(key: tuple) -> tuple:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    first: dict[tuple, tuple[int, int]] = {}
    for lo, hi, lo2, hi2 in pairs:
        k1, k2 = tuple(keys[lo:hi]), tuple(keys[lo2:hi2])
        first.setdefault(k1, (lo, hi))
        first.setdefault(k2, (lo2, hi2))
        parent[root(k1)] = root(k2)
    classes: dict[tuple, list[tuple]] = {}
    for key in first:
        classes.setdefault(root(key), []).append(key)
    out = list(pairs)
    done = {(tuple(keys[lo:hi]), tuple(keys[lo2:hi2])) for lo, hi, lo2, hi2 in pairs}
    for members in classes.values():
        if 2 < len(members) <= MAX_JOINED:
            for i, k1 in enumerate(members):
                for k2 in members[i + 1:]:
                    if (k1, k2) not in done and (k2, k1) not in done:
                        out.append((*first[k1], *first[k2]))
    return out


def _aligned_terms(keys, kinds, a: Side, b: Side) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The spans :func:`term_chains` pairs across the neighbouring sides ``a = b`` (cut into the
    terms of a sum, else the factors and divisors of a product, so a fraction is two terms): term
    by term, else the rests after cancelling shared end terms."""
    for ops in _TERM_OPS:
        left = _split_top(keys[a.lo:a.hi], kinds[a.lo:a.hi], ops)
        right = _split_top(keys[b.lo:b.hi], kinds[b.lo:b.hi], ops)
        if len(left) > 1 or len(right) > 1:
            break
    if len(left) == 1 and len(right) == 1:
        return []
    if len(left) == len(right) and all(p[0] == q[0] for p, q in zip(left, right)):
        return [((a.lo + lo, a.lo + hi), (b.lo + lo2, b.lo + hi2)) for (_, lo, hi), (_, lo2, hi2) in zip(left, right)]

    def same(p, q) -> bool:  # one operator before the same tokens
        return p[0] == q[0] and keys[a.lo + p[1]:a.lo + p[2]] == keys[b.lo + q[1]:b.lo + q[2]]

    shorter = min(len(left), len(right))
    head = 0
    while head < shorter - 1 and same(left[head], right[head]):
        head += 1
    tail = 0
    while tail < shorter - head - 1 and same(left[-1 - tail], right[-1 - tail]):
        tail += 1
    rest, rest2 = left[head:len(left) - tail], right[head:len(right) - tail]
    if not (head or tail) or not rest or not rest2:
        return []
    if head and not (rest[0][0] == rest2[0][0] and rest[0][0] in _LEADS):
        return []  # a rest after "-" (or "/") is not a term of its own
    if tail and not (left[len(left) - tail][0] == right[len(right) - tail][0] and left[len(left) - tail][0] in _TAILS):
        return []
    return [((a.lo + rest[0][1], a.lo + rest[-1][2]), (b.lo + rest2[0][1], b.lo + rest2[-1][2]))]


def _root_argument(keys, kinds, side: Side) -> tuple[str, int, int] | None:
    """``(root, lo, hi)`` where the whole side is one root (``√ ( ... )`` or ``√ #89``)."""
    lo, hi = _unwrap(kinds, side.lo, side.hi)
    if hi - lo < 2 or kinds[lo] != FUNC or not keys[lo].startswith("√"):
        return None
    if hi - lo == 2 and kinds[lo + 1] in (NUM, ID):
        return keys[lo], lo + 1, hi
    if kinds[lo + 1] != OPEN or kinds[hi - 1] != CLOSE:
        return None
    inner_lo, inner_hi = _unwrap(kinds, lo + 1, hi)
    return (keys[lo], inner_lo, inner_hi) if (inner_lo, inner_hi) != (lo + 1, hi) else None


def _root_arguments(keys, kinds, chain: Chain) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The arguments of every two sides of one ``=`` run (:func:`equality_runs`) that are each a
    whole root of one kind."""
    out = []
    for lo, hi in sorted({run for run in equality_runs(chain.rels) if run is not None}):
        roots = [r for r in (_root_argument(keys, kinds, s) for s in chain.sides[lo:min(hi + 1, lo + MAX_ROOT_SIDES)])
                 if r is not None]
        for i, (root, lo, hi) in enumerate(roots):
            for root2, lo2, hi2 in roots[i + 1:]:
                if root == root2:
                    out.append(((lo, hi), (lo2, hi2)))
    return out


def equality_runs(rels) -> list:
    """Per side of a chain with relations ``rels``: ``(lo, hi)``, the sides of the run of ``=``
    links it lies in, or ``None`` where no ``=`` is beside it.

    >>> equality_runs(("=", "<", "=", "="))
    [(0, 1), (0, 1), (2, 4), (2, 4), (2, 4)]
    """
    out: list = [None] * (len(rels) + 1)
    lo = 0
    while lo <= len(rels):
        hi = lo
        while hi < len(rels) and rels[hi] == "=":
            hi += 1
        if hi > lo:
            out[lo:hi + 1] = [(lo, hi)] * (hi + 1 - lo)
            lo = hi + 1
        else:
            lo += 1
    return out


def _unwrap(kinds, lo: int, hi: int) -> tuple[int, int]:
    """``lo:hi`` without brackets around the whole of it (``(50 * 14)`` -> ``50 * 14``)."""
    while hi - lo > 2 and kinds[lo] == OPEN and kinds[hi - 1] == CLOSE:
        depth = 0
        for k in range(lo, hi - 1):
            depth += 1 if kinds[k] == OPEN else -1 if kinds[k] == CLOSE else 0
            if depth == 0:
                return lo, hi  # (a)(b): the first bracket closes before the end
        lo, hi = lo + 1, hi - 1
    return lo, hi


def relation_chains(text: str, deadline: Deadline = NO_DEADLINE) -> list[Chain]:
    """The relation chains of a text, with each side's source text (for the node miner)."""
    return build_chains(tokenize(text, deadline), text, deadline)


# ----------------------------------------------------------------------------- commutativity
def _split_top(keys, kinds, seps) -> list[tuple[str, int, int]]:
    """Split ``keys`` at depth-0 operators in ``seps``; returns (operator-before, lo, hi) parts."""
    parts = []
    depth = 0
    lo = 0
    op = ""
    for k, (key, kind) in enumerate(zip(keys, kinds)):
        if kind == OPEN:
            depth += 1
        elif kind == CLOSE:
            depth -= 1
        elif depth == 0 and kind == OP and key in seps and k > lo:
            parts.append((op, lo, k))
            op, lo = key, k + 1
    parts.append((op, lo, len(keys)))
    return parts


def commutative_key(keys, kinds, _depth: int = 0) -> str:
    r"""A key equal for expressions that differ only by order of terms and factors.

    Terms of a depth-0 sum (with their signs) are sorted; a term is a chain of factors joined by
    ``*`` and ``/`` (left to right: ``a / b * c`` is ``a c / b``), whose multiplied factors and
    whose divisors are sorted apart; bracketed groups anywhere are normalised recursively
    (``\sqrt{9 + 16}``, ``(2 + 3)^2``). Only rearrangements that preserve value are performed.

    >>> from consensus_metrics.normalize import tokenize_form
    >>> k = lambda s: commutative_key(*tokenize_form(s))
    >>> k("8s + 4s^2 - 45") == k("4s^2 + 8s - 45"), k("(2s-5)(2s+9)") == k("(2s+9)(2s-5)")
    (True, True)
    >>> k("\\frac{6 \\cdot 4}{2}") == k("4 \\times 6 / 2"), k("\\sqrt{9 + 16}") == k("\\sqrt{16 + 9}")
    (True, True)
    >>> k("x - 1") == k("1 - x"), k("6 / 2") == k("2 / 6"), k("2^3") == k("3^2")
    (False, False, False)
    """
    keys, kinds = list(keys), list(kinds)
    if not keys or _depth > 8:
        return SEP.join(keys)
    if any(kind in (REL, WORD, PUNCT) and key != "," for key, kind in zip(keys, kinds)):
        return SEP.join(keys)
    sign = "+"
    if keys[0] == "neg":
        sign, keys, kinds = "-", keys[1:], kinds[1:]
    terms = []
    for op, lo, hi in _split_top(keys, kinds, ("+", "-")):
        term_sign = sign if not op else ("+" if op == "+" else "-")
        if not op:
            sign = "+"
        factors: list[str] = []
        divisors: list[str] = []
        _factors(keys[lo:hi], kinds[lo:hi], _depth, factors, divisors, False)
        term = "*".join(sorted(factors))
        if divisors:
            term += "/" + "*".join(sorted(divisors))
        terms.append(term_sign + term)
    return "\x01".join(sorted(terms))


def _factors(keys, kinds, depth: int, factors: list, divisors: list, inverted: bool) -> None:
    """The factors and divisors of one term (``inverted``: it divides). A bracketed product or
    power among them is no group of its own: ``(0.6s)(1.5s)`` has the factors of ``0.6s \\cdot
    1.5s``, ``\\pi(4^2)`` those of ``\\pi \\cdot 4^2`` (a leading minus sign keeps its brackets)."""
    for op, lo, hi in _split_top(keys, kinds, ("*", "/")):
        fk, fkinds = keys[lo:hi], kinds[lo:hi]
        divides = (op == "/") != inverted
        if len(fk) >= 2 and fkinds[0] == OPEN and fkinds[-1] == CLOSE and _wrapped(fkinds):
            inner, inner_kinds = fk[1:-1], fkinds[1:-1]
            if (depth < 8 and inner and inner[0] != "neg"
                    and len(_split_top(inner, inner_kinds, ("+", "-"))) == 1):
                _factors(inner, inner_kinds, depth + 1, factors, divisors, divides)
                continue
            factor = "(" + commutative_key(inner, inner_kinds, depth + 1) + ")"
        else:
            factor = _groups_normalised(fk, fkinds, depth)
        (divisors if divides else factors).append(factor)


def _groups_normalised(keys, kinds, depth: int) -> str:
    """``keys`` joined, each depth-0 bracketed group replaced by its :func:`commutative_key`."""
    out: list[str] = []
    k, n = 0, len(keys)
    while k < n:
        if kinds[k] == OPEN:
            level, j = 0, k
            while j < n:
                if kinds[j] == OPEN:
                    level += 1
                elif kinds[j] == CLOSE:
                    level -= 1
                    if not level:
                        break
                j += 1
            if j < n:  # a closed group
                out.append(keys[k] + commutative_key(keys[k + 1:j], kinds[k + 1:j], depth + 1) + keys[j])
                k = j + 1
                continue
        out.append(keys[k])
        k += 1
    return SEP.join(out)


def _wrapped(kinds) -> bool:
    depth = 0
    for k, kind in enumerate(kinds):
        if kind == OPEN:
            depth += 1
        elif kind == CLOSE:
            depth -= 1
            if depth == 0 and k < len(kinds) - 1:
                return False
    return True


@lru_cache(maxsize=65536)
def split_relation(form: str) -> tuple[tuple[tuple[tuple[str, ...], tuple[int, ...]], ...], tuple[str, ...]]:
    """Split a node form at its depth-0 relations: ([(side keys, side kinds), ...], [rel, ...]).

    A form without a relation gives one side and no relations.
    """
    keys, kinds = tokenize_form(form)
    sides, rels = [], []
    lo, depth = 0, 0
    for k, kind in enumerate(kinds):
        if kind == OPEN:
            depth += 1
        elif kind == CLOSE and depth:
            depth -= 1
        elif kind == REL and depth == 0:
            sides.append((keys[lo:k], kinds[lo:k]))
            rels.append(keys[k])
            lo = k + 1
    sides.append((keys[lo:], kinds[lo:]))
    return tuple(sides), tuple(rels)


__all__ = ["Chain", "Side", "build_chains", "relation_chains", "commutative_key", "split_relation"]
