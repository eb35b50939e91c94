"""The normaliser gives, token for token, what the snapshot recorded (``tests/token_snapshot.py``):
keys, kinds, spans and flags on the shipped data, the shipped model runs, every text of the tests
and 20,000 generated texts. The snapshot was written by the normaliser before it was split into
lexer and token rules (issue 18), so this is the proof that the split changed nothing."""

import json

import pytest
from token_snapshot import SNAPSHOT, buckets, corpus, token_digest

from consensus_metrics.normalize import tokenize, tokenize_form


@pytest.fixture(scope="module")
def recorded():
    with open(SNAPSHOT, encoding="utf-8") as handle:
        return json.load(handle)


def _tokenize(text, markdown):
    return tokenize(text, markdown=markdown)


def test_tokens_are_the_recorded_ones_on_every_family_of_texts(recorded):
    texts = corpus()
    compared, differ = {}, []
    for family, digests in recorded["digests"].items():
        current = buckets(family, texts[family])
        shared = [key for key in digests if key in current]
        compared[family] = (len(shared), len(digests))
        differ += [f"{family} bucket {key}" for key in shared
                   if token_digest(current[key], _tokenize, tokenize_form) != digests[key]]
    assert not differ, f"tokens changed in {len(differ)} buckets: {differ[:10]}"
    # the stable families are compared in full; the data families as far as their texts are unchanged
    assert compared["generated"][0] == compared["generated"][1] == recorded["buckets"]["generated"]
    assert all(found >= total // 4 for found, total in compared.values()), compared
