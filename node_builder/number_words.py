"""Numbers a problem states in words ("three", "a dozen", "half", "two-thirds", "twice").

Digits in a problem are found by the matcher (``consensus_metrics.match_nodes``); words are not,
so refine asks this module which values the problem gives in words. Ordinals count both as the
integer and as the unit fraction (``third`` -> 3 and 1/3); ``two-thirds`` -> 2/3; ``twenty-five``
-> 25; ``two hundred`` -> 200. Over-reporting only makes refine a little stricter.

Example:
    >>> sorted(number_words("She eats three and sells two-thirds, twice a dozen."))
    [Fraction(1, 3), Fraction(2, 3), Fraction(2, 1), Fraction(3, 1), Fraction(12, 1)]
"""

from __future__ import annotations

import re
from fractions import Fraction

from node_builder.matcher import CARDINAL_WORDS, MULTIPLIER_WORDS, ORDINAL_WORDS, TENS_WORDS

_SCALES = {"hundred": 100, "thousand": 1000, "million": 10 ** 6, "billion": 10 ** 9}
_SPECIAL = {**{word: Fraction(n) for word, n in MULTIPLIER_WORDS.items()},
            "dozen": Fraction(12), "dozens": Fraction(12), "pair": Fraction(2), "couple": Fraction(2),
            "half": Fraction(1, 2), "quarter": Fraction(1, 4), "score": Fraction(20)}
_WORD = re.compile(r"[a-z]+")


def _cardinal(words: list[str]) -> int | None:
    total, current, seen = 0, 0, False
    for word in words:
        if word in CARDINAL_WORDS:
            current += CARDINAL_WORDS[word]
        elif word in TENS_WORDS:
            current += TENS_WORDS[word]
        elif word in _SCALES:
            current = max(current, 1) * _SCALES[word]
            if _SCALES[word] >= 1000:
                total, current = total + current, 0
        else:
            return None
        seen = True
    return total + current if seen else None


def number_words(text: str) -> set[Fraction]:
    values: set[Fraction] = set()
    tokens = _WORD.findall(text.lower().replace("-", " "))
    run: list[str] = []
    for token in tokens + [""]:
        if token in CARDINAL_WORDS or token in TENS_WORDS or token in _SCALES:
            run.append(token)
            continue
        if run:
            number = _cardinal(run)
            if number is not None:
                values.add(Fraction(number))
                base = token.rstrip("s") if token.endswith("s") and token != "halves" else token
                if token in ORDINAL_WORDS or base in ORDINAL_WORDS:
                    denominator = ORDINAL_WORDS.get(token) or ORDINAL_WORDS[base]
                    values.add(Fraction(number, denominator))
            run = []
        if token in _SPECIAL:
            values.add(_SPECIAL[token])
        singular = token[:-1] if token.endswith("s") else token
        if token in ORDINAL_WORDS or singular in ORDINAL_WORDS:
            n = ORDINAL_WORDS.get(token) or ORDINAL_WORDS[singular]
            values.add(Fraction(1, n))
            if token not in ("half", "halves", "quarter") and singular not in ("quarter",):
                values.add(Fraction(n))
    return values
