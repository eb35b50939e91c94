r"""Token positions for TPN: which model token holds a given character.

TPN (docs/SPEC.md §4) counts tokens of the evaluated model's tokenizer over the trajectory text alone (no
special tokens). ``tokenizer`` may be a Hugging Face tokenizer object, or a name/path that
``AutoTokenizer`` loads offline (cached per process). Without a tokenizer, TPN counts
*regex pre-tokens* -- runs of word characters and single non-space symbols (``\w+|[^\w\s]``) --
and results say so (``tpn_unit = "regex-pretokens"``): comparable across runs, not across
tokenizers.

>>> counter = TokenCounter(None)
>>> counter.count("x = 12 apples")
4
>>> counter.token_index("x = 12 apples", 5)   # the '2' of '12' is in the 3rd pre-token
3
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from .budget import NO_DEADLINE, Deadline

_PRETOKEN_RE = re.compile(r"\w+|[^\w\s]")
PRETOKEN_UNIT = "regex-pretokens"
#: Pre-tokens are counted in chunks of this many characters, checking the deadline in between.
CHUNK_CHARS = 1 << 16


@lru_cache(maxsize=8)
def load_tokenizer(name_or_path: str):
    """Load a tokenizer offline (``local_files_only``); raises ``OSError`` if it is not available."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(name_or_path, local_files_only=True)


def tokenizer_name(tokenizer) -> str:
    if tokenizer is None:
        return PRETOKEN_UNIT
    if isinstance(tokenizer, str):
        return tokenizer
    return getattr(tokenizer, "name_or_path", None) or type(tokenizer).__name__


_WORD_CHAR = re.compile(r"\w")


def _merge_cut_pretokens(text: str, ends: list[int]) -> list[int]:
    """Re-join word pre-tokens that a chunk boundary cut in two (``ab|cd`` -> ``abcd``)."""
    if len(text) <= CHUNK_CHARS:
        return ends
    merged: list[int] = []
    for e in ends:
        cut = merged[-1] if merged else 0
        if (merged and cut % CHUNK_CHARS == 0 and cut < len(text)
                and _WORD_CHAR.match(text, cut - 1) and _WORD_CHAR.match(text, cut)):
            merged[-1] = e
        else:
            merged.append(e)
    return merged


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _encodable(text: str) -> str:
    """``text`` with lone surrogates (not encodable, Hugging Face tokenizers reject them) as
    U+FFFD: one character for one, so character offsets stay those of ``text``."""
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


class TokenCounter:
    """Tokenises a text once and maps character offsets to 1-based token indices."""

    def __init__(self, tokenizer=None):
        if isinstance(tokenizer, str):
            tokenizer = load_tokenizer(tokenizer)
        self.tokenizer = tokenizer
        self.unit = tokenizer_name(tokenizer)
        self._text: str | None = None
        self._ends: list[int] = []
        self._n = 0

    def _prepare(self, text: str, deadline: Deadline = NO_DEADLINE):
        if text is self._text:
            return
        self._text = None
        if self.tokenizer is None:
            ends: list[int] = []
            for a in range(0, max(len(text), 1), CHUNK_CHARS):
                deadline.check()
                # pre-tokens never span whitespace, so chunks cut at a space are exact
                b = min(len(text), a + CHUNK_CHARS)
                ends.extend(m.end() for m in _PRETOKEN_RE.finditer(text, a, b))
            self._ends = _merge_cut_pretokens(text, ends)
            self._n = len(self._ends)
            self._text = text
            return
        deadline.check()
        encodable = _encodable(text)
        try:
            enc = self.tokenizer(encodable, add_special_tokens=False, return_offsets_mapping=True)
            offsets = enc["offset_mapping"]
            self._n = len(enc["input_ids"])
            ends = []
            last = 0
            for _s, e in offsets:
                last = max(last, e)
                ends.append(last)
            self._ends = ends
        except (NotImplementedError, TypeError, ValueError, KeyError):
            # slow tokenizers have no offsets: count tokens of each prefix instead (exact, slower)
            self._ends = []
            self._n = len(self.tokenizer(encodable, add_special_tokens=False)["input_ids"])
        self._text = text

    def count(self, text: str, deadline: Deadline = NO_DEADLINE) -> int:
        """Number of tokens of ``text`` (raises BudgetExceeded past ``deadline``)."""
        self._prepare(text, deadline)
        return self._n

    def token_index(self, text: str, char_pos: int) -> int:
        """1-based index of the token that holds character ``char_pos`` of ``text``."""
        self._prepare(text)
        if self._ends:
            k = bisect.bisect_right(self._ends, char_pos)
            return min(k + 1, len(self._ends))
        if self.tokenizer is None:
            return 0
        prefix = _encodable(text[: char_pos + 1])
        return len(self.tokenizer(prefix, add_special_tokens=False)["input_ids"])
