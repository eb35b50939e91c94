"""Consensus nodes: the :class:`Node` type and validation of the docs/SPEC.md §2 schema.

A node with ``standalone: false`` (a common number such as ``12``: it occurs in many unrelated
solutions) counts as covered only when corroborated -- a standalone node of the same list is
covered too, or another non-standalone one is; see
:func:`consensus_metrics.matching.match_nodes`. ``standalone`` defaults to true.

A node file is untrusted input (it may come from an LLM extractor). :func:`coerce_nodes` turns a
list of node dicts -- or plain strings, one form each -- into validated :class:`Node` objects and
raises ``TypeError``/``ValueError`` naming the node and the field when something is wrong.

>>> [n.forms for n in coerce_nodes(["x = 3", {"id": "k", "text": "9b+7", "forms": ["7+9b"]}])]
[('x = 3',), ('9b+7', '7+9b')]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .numbers import parse_value as _parse_value

parse_value = lru_cache(maxsize=65536)(_parse_value)

NODE_KINDS = ("value", "equation", "expression", "proposition")

#: Longest node form accepted (characters). Longer "forms" are not checkable intermediate results.
MAX_FORM_CHARS = 2000
#: Most forms per node.
MAX_FORMS = 64


@dataclass(frozen=True)
class Node:
    """One consensus node -- the one node type of the project (the scorer, the node builder and the
    training recipes all use it; docs/SPEC.md §2).

    ``forms`` starts with ``text`` once validated (:func:`coerce_node`); ``value`` is the exact
    number of a value node; ``support`` (share of voices) and ``position`` (mean relative offset)
    are set by the node builder, ``None`` where unknown. Frozen: the builder derives changed nodes
    with :func:`dataclasses.replace`.

    >>> Node(id="n1", text="x = 3", kind="equation", forms=("x = 3", "3 = x"), support=0.66667).to_json()
    {'id': 'n1', 'text': 'x = 3', 'kind': 'equation', 'forms': ['x = 3', '3 = x'], 'value': None, \
'support': 0.6667, 'position': 0.0, 'standalone': True}
    """

    id: str
    text: str
    kind: str = "expression"
    forms: tuple[str, ...] = field(default=())
    value: str | None = None
    support: float | None = None
    position: float | None = None
    standalone: bool = True

    def to_json(self) -> dict:
        """The node as a record stores it: every key, in this order, with one JSON type each
        (``support`` and ``position`` rounded to 4 places, 0.0 where unknown), so that
        ``datasets`` infers one schema for a whole file."""
        return {"id": self.id, "text": self.text, "kind": self.kind, "forms": list(self.forms),
                "value": self.value, "support": round(float(self.support or 0.0), 4),
                "position": round(float(self.position or 0.0), 4), "standalone": self.standalone}


def _where(index: int, raw) -> str:
    node_id = raw.get("id") if isinstance(raw, dict) else None
    return f"node {index}" + (f" (id {node_id!r})" if isinstance(node_id, str) else "")


def _check_form(where: str, field_name: str, form) -> str:
    if not isinstance(form, str):
        raise TypeError(f"{where}: field {field_name!r} must be a string, got {type(form).__name__}")
    if not form.strip():
        raise ValueError(f"{where}: field {field_name!r} is empty")
    if len(form) > MAX_FORM_CHARS:
        raise ValueError(f"{where}: field {field_name!r} is longer than {MAX_FORM_CHARS} characters")
    return form


def _check_unit_interval(where: str, name: str, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: field {name!r} must be a number, got {type(value).__name__}")
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{where}: field {name!r} must be in [0, 1], got {value}")
    return float(value)


_VALIDATED: dict = {}
_VALIDATED_MAX = 100_000


def coerce_node(raw, index: int = 0) -> Node:
    """Validate one node (a dict in the SPEC §2 schema, a :class:`Node`, or a plain string).

    Validated dicts are remembered by content, so the same nodes scored against many
    completions (every RL step) are checked once.
    """
    if isinstance(raw, dict):
        try:
            key = (index if "id" not in raw else -1, raw.get("id"), raw.get("text"), raw.get("kind"),
                   tuple(raw.get("forms") or ()), raw.get("value"), raw.get("support"), raw.get("position"),
                   raw.get("standalone"))
            hit = _VALIDATED.get(key)
        except TypeError:  # unhashable field values: validate (and fail) the slow way
            key = hit = None
        if hit is not None:
            return hit
        node = _coerce_node(raw, index)
        if key is not None:
            if len(_VALIDATED) >= _VALIDATED_MAX:
                _VALIDATED.clear()
            _VALIDATED[key] = node
        return node
    return _coerce_node(raw, index)


def _coerce_node(raw, index: int) -> Node:
    if isinstance(raw, Node):
        return raw
    if isinstance(raw, str):
        text = _check_form(f"node {index}", "text", raw)
        return Node(id=f"n{index + 1}", text=text, forms=(text,))
    if not isinstance(raw, dict):
        raise TypeError(f"node {index}: expected a dict or a string, got {type(raw).__name__}")
    where = _where(index, raw)
    node_id = raw.get("id", f"n{index + 1}")
    if not isinstance(node_id, str) or not node_id:
        raise TypeError(f"{where}: field 'id' must be a non-empty string")
    if "text" not in raw:
        raise ValueError(f"{where}: missing field 'text'")
    text = _check_form(where, "text", raw["text"])
    kind = raw.get("kind", "expression")
    if kind not in NODE_KINDS:
        raise ValueError(f"{where}: field 'kind' must be one of {NODE_KINDS}, got {kind!r}")
    forms_raw = raw.get("forms") or []
    if not isinstance(forms_raw, (list, tuple)):
        raise TypeError(f"{where}: field 'forms' must be a list of strings")
    if len(forms_raw) > MAX_FORMS:
        raise ValueError(f"{where}: field 'forms' has more than {MAX_FORMS} entries")
    forms = [text]
    for j, form in enumerate(forms_raw):
        form = _check_form(where, f"forms[{j}]", form)
        if form not in forms:
            forms.append(form)
    value = raw.get("value")
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise TypeError(f"{where}: field 'value' must be a string or a number")
        try:
            parse_value(str(value))
        except ValueError as exc:
            raise ValueError(f"{where}: field 'value': {exc}") from None
        value = str(value)
    elif kind == "value":
        raise ValueError(f"{where}: a 'value' node needs field 'value'")
    standalone = raw.get("standalone", True)
    if not isinstance(standalone, bool):
        raise TypeError(f"{where}: field 'standalone' must be true or false, got {type(standalone).__name__}")
    return Node(
        id=node_id,
        text=text,
        kind=kind,
        forms=tuple(forms),
        value=value,
        support=_check_unit_interval(where, "support", raw.get("support")),
        position=_check_unit_interval(where, "position", raw.get("position")),
        standalone=standalone,
    )


def coerce_nodes(nodes) -> list[Node]:
    """Validate a node list; ``None`` means no nodes. Node ids must be unique."""
    if nodes is None:
        return []
    if isinstance(nodes, (str, dict)) or not hasattr(nodes, "__iter__"):
        raise TypeError(f"nodes must be a list of node dicts or strings, got {type(nodes).__name__}")
    result = [coerce_node(raw, i) for i, raw in enumerate(nodes)]
    seen: set[str] = set()
    for i, node in enumerate(result):
        if node.id in seen:
            raise ValueError(f"node {i}: duplicate id {node.id!r}")
        seen.add(node.id)
    return result
