r"""Anchors: cheap necessary conditions for a node form to occur in a text.

Tokenising a whole trajectory in Python costs far more than a C-level substring test, and most
lines of a trajectory cannot contain a given node. Every canonical token of a form has *anchor
alternatives*: raw substrings of which at least one must appear in any text region where the
token occurs, whatever its surface form. The matcher tokenises only the lines in which some
form's anchors all appear (plus the lines a relation chain continues onto, see
:func:`consensus_metrics.matching.plan_segments`).

* integer ``v``: the numeral standing alone (``#v``: not inside ``1v``, ``v.5`` or ``0.v``;
  leading zeros and ``.0`` allowed), or its last three digits when ``v >= 1000`` (so ``1,000``
  and ``1{,}000`` also qualify), or its superscript digits;
* rational ``p/q``: the numerator's numeral, ``frac`` (``\frac34``, mixed numbers), the decimal
  tail when the expansion terminates (``.75`` for ``3/4``), and the Unicode vulgar fractions
  (one anchor for all of them);
* identifiers: their base letter (``x`` for ``x_{1}``), Greek letters as Unicode or command;
* words (case-insensitive) and functions by name; a relation by its signs (``=`` for an
  equation: a sentence without one cannot hold it). Numbers 0 and 1 and operators give no anchor.

>>> form_anchors("x = 3/4")
(('#3', 'frac', '.75', '¼½¾⅓⅔⅛'), ('x',), ('=', '≡', '\\equiv'))
>>> form_anchors("1,250")
(('250', '¹²⁵⁰'),)
>>> form_anchors("2x + 7")
(('#2', '²'), ('#7', '⁷'), ('x',))
>>> [find_anchor(t, "#45") for t in ("145", "4.5", "0.45", "45,000", "x = 45.", "045", "45.0")]
[-1, -1, -1, -1, 4, 1, 0]
>>> text_may_contain("the answer is 0.75", form_anchors("x = 3/4"))
False
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from .normalize import _GREEK, FUNC, ID, NUM, REL, WORD, tokenize_form

_TO_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_FUNC_SYMBOLS = {"angle": ("angle", "∠"), "triangle": ("triangle", "△")}
_VULGAR = ("¾", "½", "¼", "⅓", "⅔", "⅛")
#: One anchor standing for any Unicode vulgar fraction character.
VULGAR_ANCHOR = "¼½¾⅓⅔⅛"
# an equation node is matched in chains joined by = (or a congruence), so its segment has one
_RELATION_ANCHORS = {"=": ("=", "≡", "\\equiv"), "≡": ("≡", "\\equiv")}
_ANY_RELATION = ("=", "<", ">", "\\l", "\\g", "\\n", "\\e", "\\a", "\\m", "\\s", "\\c", "\\i", "\\p",
                 "≤", "≥", "≠", "≡", "≈", "∣", "∤", "∈", "∉", "⊂", "⊆", "≅", "∼", "∥", "⊥", "∝")
_GREEK_NAMES: dict[str, list[str]] = {}
for _name, _char in _GREEK.items():
    _GREEK_NAMES.setdefault(_char, []).append("\\" + _name)


def _integer_anchor(digits: str) -> str:
    """``#45``: the numeral 45 standing alone (``045``, ``45.0`` too; not ``145``, ``4.5``,
    ``0.45``, ``45,000``); for 1000 and more, its last three digits as plain text."""
    return digits[-3:] if len(digits) > 3 else "#" + digits


def _numeral_at(text: str, at: int, n: int) -> bool:
    """Whether the digits ``text[at:at+n]`` are a whole numeral (leading zeros and a ``.000``
    tail allowed; not part of ``145``, ``4.5``, ``0.45`` or ``45,000``)."""
    j = at
    while j and text[j - 1] == "0":
        j -= 1
    if j and (text[j - 1].isdigit() or text[j - 1] == "."):
        return False
    k = at + n
    if k < len(text):
        c = text[k]
        if c.isdigit():
            return False
        if c == ".":
            m = k + 1
            while m < len(text) and text[m] == "0":
                m += 1
            if m < len(text) and text[m].isdigit():
                return False
        elif c == "," and len(text[k + 1:k + 4]) == 3 and text[k + 1:k + 4].isdigit() \
                and not text[k + 4:k + 5].isdigit():
            return False
    return True


def find_anchor(text: str, alt: str, pos: int = 0) -> int:
    """Offset of the first occurrence of anchor ``alt`` at or after ``pos`` (-1 if none)."""
    if alt == VULGAR_ANCHOR:
        found = [at for at in (text.find(ch, pos) for ch in _VULGAR) if at >= 0]
        return min(found) if found else -1
    if alt[0] != "#":
        return text.find(alt, pos)
    digits = alt[1:]
    at = text.find(digits, pos)
    while at >= 0 and not _numeral_at(text, at, len(digits)):
        at = text.find(digits, at + 1)
    return at


def _number_alternatives(key: str) -> tuple[str, ...] | None:
    body = key[1:]
    if body in ("0", "1"):
        return None
    if "/" not in body:
        if not body.isdigit():
            return (body[-3:],) if body else None
        return (_integer_anchor(body), body.translate(_TO_SUPERSCRIPT))
    p, q = body.split("/", 1)
    alts = [_integer_anchor(p), "frac"]  # "frac" also covers \frac34 and mixed numbers
    value = Fraction(int(p), int(q))
    den = value.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den == 1:  # terminating decimal: 3/4 = 0.75 -> ".75"
        k = 0
        while (value.numerator * 10**k) % value.denominator:
            k += 1
        digits = str(value.numerator * 10**k // value.denominator).rjust(k + 1, "0")
        alts.append("." + digits[-k:])
    alts.append(VULGAR_ANCHOR)
    return tuple(dict.fromkeys(alts))


def _identifier_alternatives(key: str) -> tuple[str, ...] | None:
    if key.startswith("\\"):
        return (key[1:],)
    base = key.split("_", 1)[0].rstrip("'")
    if not base:
        return None
    if base[0].isdigit():  # 17_b: a numeral in another base
        return (_integer_anchor(base),)
    if base in _GREEK_NAMES:
        alts = [base] + _GREEK_NAMES[base]
        if base == "∞":
            alts.append("infty")
        return tuple(dict.fromkeys(alts))
    return (base,)


@lru_cache(maxsize=65536)
def form_anchors(form: str) -> tuple[tuple[str, ...], ...]:
    """Anchor groups of a form, most selective first: each group needs one alternative present."""
    keys, kinds = tokenize_form(form)
    groups = []
    for key, kind in zip(keys, kinds):
        if kind == NUM:
            alts = _number_alternatives(key)
        elif kind == ID:
            alts = _identifier_alternatives(key)
        elif kind == WORD:
            alts = ("~" + key[1:],)  # "~" marks a case-insensitive anchor
        elif kind == FUNC:
            name = key.lstrip("@").split("[", 1)[0].split("_", 1)[0]
            if name.startswith("√"):
                alts = ("sqrt", "√", "∛")
            else:
                alts = _FUNC_SYMBOLS.get(name, (name,) if name.isalpha() else None)
        elif kind == REL:
            alts = _RELATION_ANCHORS.get(key, _ANY_RELATION)
        else:
            alts = None
        if alts and alts not in groups:
            groups.append(alts)
    groups.sort(key=_selectivity, reverse=True)
    return tuple(groups)


def _selectivity(group: tuple[str, ...]) -> int:
    """A group is as selective as its commonest alternative: longer anchors are rarer, digits are
    rarer than letters in prose, and non-ASCII symbols (``²``, ``¾``) rarer still."""
    return min(len(a.lstrip("#")) + 2 * any(ch.isdigit() for ch in a) + 3 * (not a.isascii()) for a in group)


def text_may_contain(text: str, groups, lowered: str | None = None) -> bool:
    """True unless some anchor group has no alternative in ``text``."""
    for alts in groups:
        for alt in alts:
            if alt[0] == "~":
                if lowered is None:
                    lowered = text.lower()
                if alt[1:] in lowered:
                    break
            elif alt[0] == "#":
                if find_anchor(text, alt) >= 0:
                    break
            elif alt == VULGAR_ANCHOR:
                if find_anchor(text, alt) >= 0:
                    break
            elif alt in text:
                break
        else:
            return False
    return True
