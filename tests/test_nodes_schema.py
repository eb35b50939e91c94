"""Node files are untrusted: malformed nodes raise errors that name the node and the field."""

import pytest

from consensus_metrics import coerce_nodes, match_nodes, score_batch


@pytest.mark.parametrize("nodes, exc, words", [
    ([{"id": "n1"}], ValueError, ["n1", "text"]),
    ([{"id": "n1", "text": 5}], TypeError, ["n1", "text"]),
    ([{"id": "n1", "text": "x=1", "kind": "guess"}], ValueError, ["n1", "kind"]),
    ([{"id": "n1", "text": "x=1", "forms": "x = 1"}], TypeError, ["n1", "forms"]),
    ([{"id": "n1", "text": "x=1", "forms": ["ok", 3]}], TypeError, ["n1", "forms[1]"]),
    ([{"id": "n1", "text": "3/4", "kind": "value"}], ValueError, ["n1", "value"]),
    ([{"id": "n1", "text": "3/4", "kind": "value", "value": "three quarters"}], ValueError, ["n1", "value"]),
    ([{"id": "n1", "text": "x=1", "support": 2}], ValueError, ["n1", "support"]),
    ([{"id": "n1", "text": "x=1", "position": "early"}], TypeError, ["n1", "position"]),
    ([{"id": "n1", "text": "   "}], ValueError, ["n1", "text"]),
    ([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}], ValueError, ["duplicate", "a"]),
    ([42], TypeError, ["node 0"]),
    ("x = 1", TypeError, ["list"]),
    ([{"id": 7, "text": "x"}], TypeError, ["id"]),
])
def test_malformed_nodes_name_node_and_field(nodes, exc, words):
    with pytest.raises(exc) as info:
        coerce_nodes(nodes)
    for w in words:
        assert w in str(info.value)
    with pytest.raises(exc):
        match_nodes("x = 1", nodes)


def test_strings_and_dicts_mix():
    nodes = coerce_nodes(["x = 3", {"id": "k", "text": "3/4", "kind": "value", "value": "0.75", "forms": ["0.75"]}])
    assert [n.id for n in nodes] == ["n1", "k"] and nodes[1].forms == ("3/4", "0.75")


def test_score_batch_names_the_bad_list():
    with pytest.raises(ValueError, match=r"nodes_list\[1\]"):
        score_batch(["a", "b"], [[], [{"id": "n"}]], ["1", "2"])
