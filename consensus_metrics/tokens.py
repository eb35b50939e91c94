r"""Token positions for TPN: which model token holds a given character.

TPN (SPEC §4) counts tokens of the evaluated model's tokenizer over the trajectory text alone (no
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

_PRETOKEN_RE = re.compile(r"\w+|[^\w\s]")
PRETOKEN_UNIT = "regex-pretokens"


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

    def _prepare(self, text: str):
        if text is self._text:
            return
        self._text = text
        if self.tokenizer is None:
            self._ends = [m.end() for m in _PRETOKEN_RE.finditer(text)]
            self._n = len(self._ends)
            return
        try:
            enc = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
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
            self._n = len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def count(self, text: str) -> int:
        """Number of tokens of ``text``."""
        self._prepare(text)
        return self._n

    def token_index(self, text: str, char_pos: int) -> int:
        """1-based index of the token that holds character ``char_pos`` of ``text``."""
        self._prepare(text)
        if self._ends:
            k = bisect.bisect_right(self._ends, char_pos)
            return min(k + 1, len(self._ends))
        if self.tokenizer is None:
            return 0
        prefix = text[: char_pos + 1]
        return len(self.tokenizer(prefix, add_special_tokens=False)["input_ids"])
