r"""Anchors: cheap necessary conditions for a node form to occur in a text.

Tokenising a whole trajectory in Python costs far more than a C-level substring test, and most
lines of a trajectory cannot contain a given node. Every canonical token of a form has *anchor
alternatives*: raw substrings of which at least one must appear in any text region where the
token occurs, whatever its surface form. The matcher tokenises only the lines in which some
form's anchors all appear (plus the lines a relation chain continues onto, see
:func:`consensus_metrics.segment_plan.plan_segments`).

* integer ``v``: the numeral standing alone (``#v``: not inside ``1v``, ``v.5`` or ``0.v``;
  leading zeros and ``.0`` allowed), for ``v >= 1000`` also a thousands separator and its last
  three digits (``1,000``, ``1{,}000``), or its superscript digits;
* rational ``p/q``: two groups. The numerator's numeral (for an improper fraction also that of
  its mixed number: ``2\frac{1}{4}`` is 9/4), the decimal tail when the expansion terminates
  (``.75`` for ``3/4``; else ``\overline``, as in ``0.\overline{36}`` = 4/11), or a Unicode
  vulgar fraction (one anchor for all of them); and the denominator's digits (their last three
  from 1000 on), the decimal tail or ``\overline``, or a vulgar fraction;
* identifiers: their base letter (``x`` for ``x_{1}``), Greek letters as Unicode or command;
* words (case-insensitive) and functions by name; a relation by its signs (``=`` for an
  equation, or the prose ``is``/``equals``/``expands to``/``factors as`` that states one: a
  sentence without them cannot hold it). Numbers 0 and 1 and operators give no anchor.

>>> form_anchors("x = 3/4")[:3]
(('#3', '.75', '¼½¾⅓⅔⅛'), ('4', '.75', '¼½¾⅓⅔⅛'), ('x',))
>>> form_anchors("x = 3/4")[3]
('=', '≡', '\\equiv', ' is ', 'equals', 'simplifies to', 'evaluates to', 'expands to', 'reduces to', 'factor')
>>> form_anchors("1,250")
(('#1250', ',250', '{,}250', '\\,250', '¹²⁵⁰'),)
>>> form_anchors("2x + 7")
(('#2', '²'), ('#7', '⁷'), ('x',))
>>> [find_anchor(t, "#45") for t in ("145", "4.5", "0.45", "45,000", "x = 45.", "045", "45.0")]
[-1, -1, -1, -1, 4, 1, 0]
>>> text_may_contain("the answer is 0.75", form_anchors("x = 3/4"))
False

The ``cython`` decorators are the compiled build's (``consensus_metrics._native``): compiled,
the searches below are C functions over an exact ``str`` with ``Py_ssize_t`` offsets, so that
the character tests of :func:`_is_numeral` run in C (a ``str`` subclass such as ``numpy.str_``
is copied to a plain ``str`` where text enters the package, ``matching.match_nodes_ex``); run
as Python they are no-ops.
"""

from __future__ import annotations

try:
    import cython
except ImportError:  # Cython is needed to compile, not to run: its declarations are then no-ops
    from . import _cython_shadow as cython

import re
from fractions import Fraction
from functools import lru_cache

from .normalize import FUNC, ID, NUM, REL, WORD, tokenize_form
from .vocabulary import ACCENTS, GREEK

_TO_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_FUNC_SYMBOLS = {"angle": ("angle", "∠"), "triangle": ("triangle", "△"), "binom": ("binom", "choose", "C")}
_VULGAR = ("¾", "½", "¼", "⅓", "⅔", "⅛")
#: One anchor standing for any Unicode vulgar fraction character.
VULGAR_ANCHOR = "¼½¾⅓⅔⅛"
# an equation node is matched in chains joined by = (or a congruence), or by the prose of
# relations.PROSE_EQUALS ("3^6 is 729", "equals", "simplifies to", "expands to") or
# PROSE_FACTORS ("factors as"), so its segment has one of these
_RELATION_ANCHORS = {"=": ("=", "≡", "\\equiv", " is ", "equals", "simplifies to", "evaluates to", "expands to",
                           "reduces to", "factor"),
                     "≡": ("≡", "\\equiv")}
_ANY_RELATION = ("=", "<", ">", "\\l", "\\g", "\\n", "\\e", "\\a", "\\m", "\\s", "\\c", "\\i", "\\p",
                 "≤", "≥", "≠", "≡", "≈", "∣", "∤", "∈", "∉", "⊂", "⊆", "≅", "∼", "∥", "⊥", "∝")
_GREEK_NAMES: dict[str, list[str]] = {}
for _name, _char in GREEK.items():
    _GREEK_NAMES.setdefault(_char, []).append("\\" + _name)


def _integer_anchors(digits: str) -> tuple[str, ...]:
    """``#45``: the numeral 45 standing alone (``045``, ``45.0`` too; not ``145``, ``4.5``,
    ``0.45``, ``45,000``); from 1000 on also a thousands separator and the last three digits
    (``5,400``, ``5{,}400``, ``5\\,400``: every way the lexer reads a grouped numeral)."""
    if len(digits) <= 3:
        return ("#" + digits,)
    last = digits[-3:]
    return ("#" + digits, "," + last, "{,}" + last, "\\," + last)


_DIGITS = frozenset("0123456789")
_DIGITS_AND_POINT = frozenset("0123456789.")
_THOUSANDS_AFTER = re.compile(r",[0-9]{3}(?![0-9])")
_DECIMAL_TAIL = re.compile(r"\.0*[1-9]")
_CONTINUED = re.compile(r"[0-9]|\.0*[1-9]")
# \frac and \binom take one character (or command) per unbraced argument, so digits split:
# \frac3424 is \frac{3}{4}24, \frac\pi23 is \frac{\pi}{2}3. Anchors stay necessary conditions by
# accepting digits a short way after such a command (or right after a "}" or an escaping "\")
# as possible one-digit arguments or numeral starts (the "$" of these patterns is the search's
# endpos, the digits).
_ARGS_BEFORE = re.compile(r"(?:frac|binom)[^\n]{0,16}$")
_ONE_ARG_BEFORE = re.compile(r"[}\\]\s*$")


@cython.ccall
@cython.returns(cython.bint)
@cython.locals(text=str, at=cython.Py_ssize_t, end=cython.Py_ssize_t, j=cython.Py_ssize_t, d=cython.Py_ssize_t, dots=cython.Py_ssize_t, k=cython.Py_ssize_t)
def _is_numeral(text: str, at: int, end: int) -> bool:
    r"""Whether the digits ``text[at:end]`` (not followed by a digit or a decimal tail) are a
    whole numeral: only zeros between them and a non-digit, non-``.``, and no thousands group
    after a run of at most three digits (``45,000``; but ``0045,000`` is 45 and 0); or they
    follow digits that ``\frac``/``\binom`` took as arguments."""
    j = at
    while j and text[j - 1] == "0":
        j -= 1
    prev = text[j - 1] if j else ""
    if prev == ".":  # a decimal point, unless the lexer reads the dots as ... or \.
        d = j - 1
        while d and text[d - 1] == ".":
            d -= 1
        dots = j - d - (1 if d and text[d - 1] == "\\" else 0)
        if dots % 3 == 0:
            prev = ""
    if prev not in _DIGITS_AND_POINT:  # ASCII: "²3" is a power and the numeral 3
        after = text[end] if end < len(text) else ""  # (each regex below needs its first character)
        if after in _DIGITS or after == "." and _DECIMAL_TAIL.match(text, end):
            # only one digit was searched for (\frac34, \binom2.5): a TeX argument?
            return _after_tex_command(text, at, one_arg=True)
        return not (end - j <= 3 and after == "," and _THOUSANDS_AFTER.match(text, end))
    k = j
    while k and text[k - 1] in _DIGITS:
        k -= 1
    return j - k <= 2 and _after_tex_command(text, k, one_arg=j - k == 1)


@cython.ccall
@cython.returns(cython.bint)
@cython.locals(text=str, at=cython.Py_ssize_t, one_arg=cython.bint, lo=cython.Py_ssize_t, k=cython.Py_ssize_t)
def _after_tex_command(text: str, at: int, one_arg: bool) -> bool:
    """Whether ``text[at]`` may come a short way after ``\\frac``/``\\binom`` or, with
    ``one_arg``, right after a first argument's ``}`` or an escaping backslash."""
    lo = max(0, at - 24)
    # the regexes only where they can match: a command name in reach, a "}" or "\\" before the spaces
    if (text.find("frac", lo, at) >= 0 or text.find("binom", lo, at) >= 0) and _ARGS_BEFORE.search(text, lo, at):
        return True
    if not one_arg:
        return False
    k = at
    while k > lo and text[k - 1].isspace():
        k -= 1
    return k > lo and text[k - 1] in "}\\" and _ONE_ARG_BEFORE.search(text, lo, at) is not None


@cython.ccall
@cython.returns(cython.Py_ssize_t)
@cython.locals(text=str, alt=str, pos=cython.Py_ssize_t, size=cython.Py_ssize_t, at=cython.Py_ssize_t, end=cython.Py_ssize_t)
def find_anchor(text: str, alt: str, pos: int = 0) -> int:
    """Offset of the first occurrence of anchor ``alt`` at or after ``pos`` (-1 if none)."""
    if alt == VULGAR_ANCHOR:
        return _find_vulgar(text, pos)
    if alt[0] != "#":
        return text.find(alt, pos)
    digits = alt[1:]
    size = len(digits)
    at = text.find(digits, pos)
    while at >= 0:
        end = at + size
        # more digits or a nonzero decimal tail (.000 is fine) make another numeral; for one
        # digit _is_numeral decides (a one-digit TeX argument may be glued to more: \frac34)
        if (size == 1 or not (end < len(text) and (text[end] in _DIGITS or text[end] == "." and _CONTINUED.match(text, end)))) \
                and _is_numeral(text, at, end):
            return at
        at = text.find(digits, at + 1)
    return -1


@cython.ccall
@cython.returns(cython.Py_ssize_t)
@cython.locals(text=str, pos=cython.Py_ssize_t, first=cython.Py_ssize_t, at=cython.Py_ssize_t)
def _find_vulgar(text: str, pos: int) -> int:
    """Offset of the first Unicode vulgar fraction at or after ``pos`` (-1 if none)."""
    first = -1
    for ch in _VULGAR:
        at = text.find(ch, pos)
        if at >= 0 and (first < 0 or at < first):
            first = at
    return first


def _number_groups(key: str) -> list[tuple[str, ...]]:
    """Anchor groups of a number token (each group needs one alternative present)."""
    body = key[1:]
    if body in ("0", "1"):
        return []
    if "/" not in body:
        if not body.isdigit():
            return [(body[-3:],)] if body else []
        return [(*_integer_anchors(body), body.translate(_TO_SUPERSCRIPT))]
    p, q = body.split("/", 1)
    num, den = int(p), int(q)
    tail = _decimal_tail(Fraction(num, den))
    # a terminating decimal shows its tail; another may be written with a period (0.\overline{36})
    extra = (tail if tail else "\\overline", VULGAR_ANCHOR)
    # numerator: its numeral, or for an improper fraction the numerator of the mixed number
    # (2\frac{1}{4} is 9/4: 9 mod 4 = 1)
    mixed = _integer_anchors(str(num % den)) if num > den else ()
    numerator = tuple(dict.fromkeys((*_integer_anchors(p), *mixed, *extra)))
    # denominator: every written fraction shows its digits (\frac14 glues them to the numerator,
    # \frac{1}{1,000} groups them), a decimal its tail, a vulgar fraction itself
    denominator = ((q if len(q) <= 3 else q[-3:]), *extra)
    return [numerator, denominator]


def _decimal_tail(value: Fraction) -> str | None:
    """``.75`` for 3/4: the digits after the point when the decimal expansion terminates."""
    den = value.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den != 1:
        return None
    k = 0
    while (value.numerator * 10**k) % value.denominator:
        k += 1
    digits = str(value.numerator * 10**k // value.denominator).rjust(k + 1, "0")
    return "." + digits[-k:]


def _identifier_alternatives(key: str) -> tuple[str, ...] | None:
    # x_{1}, x', \bar{x} (x̄), \foo_0: the base is what is written
    base = key.split("_", 1)[0].rstrip("'" + "".join(ACCENTS.values()))
    if base.startswith("\\"):
        return (base[1:],) if len(base) > 1 else None
    if not base:
        return None
    if base[0].isdigit():  # 17_b: a numeral in another base (0.75_0 is odd: no anchor)
        groups = _number_groups("#" + base)  # like the number itself (0 and 1 have none)
        return groups[0] if len(groups) == 1 else None
    if base in _GREEK_NAMES:
        alts = [base] + _GREEK_NAMES[base]
        if base == "∞":
            alts.append("infty")
        return tuple(dict.fromkeys(alts))
    return (base,)


def _token_groups(key: str, kind: int) -> list[tuple[str, ...]]:
    """Anchor groups of one canonical token (none for operators, 0 and 1)."""
    if kind == NUM:
        return _number_groups(key)
    if kind == ID:
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
    return [alts] if alts else []


@lru_cache(maxsize=65536)
def form_anchors(form: str) -> tuple[tuple[str, ...], ...]:
    """Anchor groups of a form, most selective first: each group needs one alternative present."""
    return token_anchors(*tokenize_form(form))


def token_anchors(keys, kinds) -> tuple[tuple[str, ...], ...]:
    """Anchor groups of canonical tokens (a chain side), most selective first, as
    :func:`form_anchors` gives them for a form.

    >>> token_anchors(("#2", "*", "x"), (0, 3, 1)) == form_anchors("2x")
    True
    """
    groups: list[tuple[str, ...]] = []
    for key, kind in zip(keys, kinds):
        for alts in _token_groups(key, kind):
            if alts not in groups:
                groups.append(alts)
    groups.sort(key=_selectivity, reverse=True)
    return tuple(groups)


def _selectivity(group: tuple[str, ...]) -> int:
    """A group is as selective as its commonest alternative: longer anchors are rarer, digits are
    rarer than letters in prose, and non-ASCII symbols (``²``, ``¾``) rarer still."""
    return min(len(a.lstrip("#")) + 2 * any(ch.isdigit() for ch in a) + 3 * (not a.isascii()) for a in group)


_ASCII_BYTES = bytes(range(128))
_LAST_VIEW: tuple = (None, b"", frozenset())


def utf8_view(text: str) -> tuple[bytes, frozenset]:
    """``text`` as UTF-8 (lone surrogates kept) and the set of its non-ASCII characters, both at
    C speed (the second from the bytes left when the ASCII ones are deleted). The last text's are
    kept (by identity): the reward's guard and the matcher ask for the same completion's in turn.

    >>> utf8_view("x² = 1")
    (b'x\\xc2\\xb2 = 1', frozenset({'²'}))
    """
    global _LAST_VIEW
    last = _LAST_VIEW
    if last[0] is text:
        return last[1], last[2]
    data = text.encode("utf-8", "surrogatepass")
    others = frozenset() if len(data) == len(text) else frozenset(
        data.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass"))
    _LAST_VIEW = (text, data, others)
    return data, others


def non_ascii_chars(text: str) -> frozenset:
    """The non-ASCII characters ``text`` holds (:func:`utf8_view`): an anchor with a character
    outside them cannot occur, so neither counting nor searching it is needed (superscripts,
    vulgar fractions, ``≡`` are anchors of most numbers and equations and absent from most texts).

    >>> sorted(non_ascii_chars("x² = ¾ of 4")), non_ascii_chars("plain")
    (['²', '¾'], frozenset())
    """
    if text.isascii():
        return frozenset()
    return utf8_view(text)[1]


def present_alternatives(alts: tuple, others: frozenset) -> tuple:
    """The alternatives of an anchor group that can occur in a text whose non-ASCII characters
    are ``others`` (:func:`non_ascii_chars`); word anchors are kept (they are searched in the
    lower-cased text, which may hold other characters).

    >>> present_alternatives(("#24", "²⁴"), frozenset("²")), present_alternatives((VULGAR_ANCHOR,), frozenset("½"))
    (('#24',), ('¼½¾⅓⅔⅛',))
    """
    kept = []
    for alt in alts:
        if alt.isascii() or alt[0] == "~":
            kept.append(alt)
        elif alt == VULGAR_ANCHOR:
            if any(ch in others for ch in alt):
                kept.append(alt)
        elif all(ch.isascii() or ch in others for ch in alt):
            kept.append(alt)
    return tuple(kept)


@cython.ccall
@cython.returns(cython.bint)
@cython.locals(text=str)
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
