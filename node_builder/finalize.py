r"""Stage 3b, across the whole build: context for common nodes, redundancy, cap, order.

:func:`node_builder.refine.refine` decides each problem's consensus nodes on its own. Whether a
node is *distinctive* can only be measured against the other problems, so the last steps run
once the records of the whole build exist (deterministic: same records and sources, same
output):

1. **background frequency** — for every node, the share of sampled trajectories of the build's
   *other* problems that cover it (``consensus_metrics.match_nodes``, the scoring rules; the
   problem's own trajectories are left out)::

       df(node, p) = #{sampled texts of problems != p covering node} / #{sampled texts of problems != p}

   Sampling is deterministic (:data:`BACKGROUND_TEXTS` texts ordered by a hash of problem id and
   trajectory index).
2. **context** — a node with ``df > common_share`` (default 0.02; a bare ``12`` or ``\sqrt{2}``)
   gets ``standalone: false``: the matcher credits it only when corroborated, by a covered
   standalone node of the same problem (an equation, a rare number) or a second covered common
   one. A node with ``df >`` :data:`VERY_COMMON_SHARE` (0.10: a ``3`` or ``6`` in MATH) is no
   evidence even so and is dropped (``too_common``). A record whose only node is common loses it
   (it could never be credited); its note says why.
   A digit-free node (:func:`node_builder.hygiene.digit_free`) that solutions of
   :data:`GENERIC_PROBLEMS` other problems state is an identity or definition any problem may use
   (``\sin^2\theta + \cos^2\theta = 1``, ``r = \sqrt{x^2+y^2}``): dropped (``generic``).
   **weak** — a weak key result (:func:`node_builder.hygiene.weakness`: a bare value fewer than
   two thirds of the voices state, an expression in variables without what it equals, the problem's
   setup in symbols) goes where the record keeps a node that is not weak; a record of weak nodes
   only keeps them (coverage before precision there). Nodes a reviewer signed
   (:mod:`node_builder.signoff`) are exempt, here and from the enumeration rule of step 3.
3. **redundant** — one node per result (equations that are one equation rearranged, expressions
   equal up to their variables' names: the best supported stays; three or more nodes of one shape
   around one shared number are the members of an enumeration and go); a value and the arithmetic equation (or bare assignment) that computes it
   are one step (``9`` and ``16-3-4=9``): a rare value stays and its equation goes; a common
   value goes and its equation stays (it carries the value's context: the computation).
4. **cap** — at most ``max_nodes`` (8): rank by support, then standalone before common, then
   equations and values before expressions and propositions; where the cut falls inside a tie,
   keep nodes spread evenly over the solution. NCR keeps a resolution of 1/8 without rewarding
   one path's incidental detail.
5. **order** by position (ties by text); ids ``n1..nk``.

Example:
    >>> from node_builder.schema import Problem, Trajectory
    >>> probs = [Problem(f"t/{i}", "t", "?", "1", trajectories=[Trajectory(f"so x = {12 if i % 20 == 1 else i} and 3", "reference")])
    ...          for i in range(40)]  # 12 in 2 other problems' solutions of 39 (5%), 3 in all of them
    >>> rec = {"id": "t/0", "nodes": [
    ...     {"id": "n1", "text": "12", "kind": "value", "value": "12", "forms": ["12"], "support": 1.0, "position": 0.1},
    ...     {"id": "n2", "text": "3", "kind": "value", "value": "3", "forms": ["3"], "support": 1.0, "position": 0.2},
    ...     {"id": "n3", "text": "x^2 = 7", "kind": "equation", "value": None, "forms": ["x^2 = 7"], "support": 1.0,
    ...      "position": 0.5}], "provenance": {"note": "", "refine": {"too_common": 0, "redundant": 0, "over_cap": 0}}}
    >>> [(n["text"], n["standalone"]) for n in finalize_records([rec], probs)[0]["nodes"]]
    [('12', False), ('x^2 = 7', True)]
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from tqdm import tqdm

from node_builder.matcher import ID, NUM, form_anchors, match_nodes, number_of, text_may_contain, tokenize_form
from node_builder.hygiene import digit_free, same_equation, skeleton, weakness
from node_builder.refine import is_arithmetic_for, is_side_of_relation, readable_statement, stated_numbers
from node_builder.schema import Problem

#: A node covered by more than this share of other problems' solutions needs context.
COMMON_SHARE = 0.02
#: A node covered by more than this share carries no evidence, even corroborated (3, 4, 6 in MATH):
#: two such numbers meet in an unrelated solution too often. Dropped.
VERY_COMMON_SHARE = 0.25
#: The most a record's nodes may credit other problems' solutions: the share of background texts
#: of other problems that would earn any credit under the context rule (docs/SPEC.md §3 rule 5).
MAX_FALSE_CREDIT = 0.03
#: Background texts sampled (the estimate's resolution is 1 / this).
BACKGROUND_TEXTS = 600
#: A digit-free node (an identity's shape) covered by solutions of this many other problems is generic.
GENERIC_PROBLEMS = 2
#: Cap rank of a kind (lower first) among nodes of equal support and standalone-ness.
KIND_RANK = {"equation": 0, "value": 0, "expression": 1, "proposition": 1}


def background_sample(problems: Iterable[Problem], size: int = BACKGROUND_TEXTS) -> list[tuple[str, str]]:
    """``(problem id, text)`` of up to ``size`` trajectories, chosen by a hash (deterministic)."""
    pool = [(hashlib.sha1(f"{p.id}\x00{i}".encode()).hexdigest(), p.id, t.text)
            for p in problems for i, t in enumerate(p.trajectories) if t.text.strip()]
    pool.sort()
    return [(pid, text) for _, pid, text in pool[:size]]


def _probe_key(node: dict) -> tuple:
    return (node["kind"], node["value"], *node["forms"])


def background_hits(records: list[dict], sample: list[tuple[str, str]], quiet: bool = True) -> dict[tuple, list[int]]:
    """``{node key: [index in sample of every text covering it]}`` for every node of ``records``.

    Each text is matched only against the nodes whose anchors it holds (a necessary condition,
    :mod:`consensus_metrics.anchors`; anchor groups are tested once per text), so the cost grows
    with what the texts share, not with texts x nodes."""
    probes: dict[tuple, dict] = {}
    for record in records:
        for node in record["nodes"]:
            probes.setdefault(_probe_key(node), {"id": f"p{len(probes)}", "text": node["text"], "kind": node["kind"],
                                                 "value": node["value"], "forms": node["forms"]})
    hits: dict[tuple, list[int]] = {key: [] for key in probes}
    by_id = {probe["id"]: key for key, probe in probes.items()}
    anchored = [(probe, [form_anchors(form) for form in probe["forms"]]) for probe in probes.values()]
    for index, (_pid, text) in enumerate(tqdm(sample, desc="background", unit="text", disable=quiet)):
        present: dict[tuple, bool] = {}
        lowered = text.lower()

        def has(group) -> bool:
            if group not in present:
                present[group] = text_may_contain(text, (group,), lowered)
            return present[group]

        candidates = [probe for probe, per_form in anchored
                      if any(all(has(group) for group in groups) for groups in per_form)]
        if candidates:
            for match in match_nodes(text, candidates, budget_s=None, symbolic=False):
                if match.covered:
                    hits[by_id[match.node_id]].append(index)
    return hits


def _spread(nodes: list[dict], m: int) -> list[dict]:
    """``m`` nodes evenly spaced over ``nodes`` sorted by position."""
    ordered = sorted(nodes, key=lambda n: (n["position"], n["text"]))
    if m >= len(ordered):
        return ordered
    step = len(ordered) / m
    return [ordered[int(i * step + step / 2)] for i in range(m)] if m > 0 else []


def _cap(nodes: list[dict], max_nodes: int) -> list[dict]:
    def rank(n: dict) -> tuple:
        return (-round(n["support"], 6), not n["standalone"], KIND_RANK.get(n["kind"], 1))

    if len(nodes) <= max_nodes:
        return nodes
    ordered = sorted(nodes, key=lambda n: (rank(n), n["position"], n["text"]))
    cut = rank(ordered[max_nodes - 1])
    sure = [n for n in ordered if rank(n) < cut]
    tied = [n for n in ordered if rank(n) == cut]
    return sure + _spread(tied, max_nodes - len(sure))


def _holds_number(text: str, value) -> bool:
    """``text`` writes the number ``value`` (its absolute value, as one token) somewhere."""
    if value is None:
        return False
    magnitude = abs(value)
    key = f"#{magnitude.numerator}" + (f"/{magnitude.denominator}" if magnitude.denominator != 1 else "")
    return key in tokenize_form(text)[0]


def _renamed(text: str) -> tuple:
    """Canonical tokens with the variables numbered in order of appearance (``x^{13} - 1`` and
    ``z^{13} - 1`` are one expression)."""
    keys, kinds = tokenize_form(text)
    names: dict[str, str] = {}
    return tuple(names.setdefault(k, f"v{len(names)}") if kind == ID else k for k, kind in zip(keys, kinds))


def _without_duplicates(nodes: list[dict], enumerations: bool = True) -> list[dict]:
    """One node per result: of equations that are one equation rearranged or multiplied through
    (:func:`node_builder.hygiene.same_equation`) and of expressions equal up to the names of their
    variables, the best supported (then the earliest) stays; three or more nodes of one shape
    around one shared number (``2^2 = 4``, ``2^3 = 8``, ``2^4 = 16``; ``n \\equiv 0, 1, 2 \\pmod 5``:
    members of an enumeration) all go, unless ``enumerations`` is false (a reviewer signed them:
    the cases are the key results)."""
    shapes: dict[tuple, list[tuple]] = {}
    for node in nodes:
        if node["kind"] != "value":
            keys, kinds = tokenize_form(node["text"])
            numbers = tuple(k for k, kind in zip(keys, kinds) if kind == NUM)
            shapes.setdefault(skeleton(node["text"]), []).append(numbers)
    listed = {shape for shape, members in shapes.items()
              if enumerations and len(members) >= 3 and any(len({m[i] for m in members}) == 1 for i in range(len(members[0])))}
    ranked = sorted(nodes, key=lambda n: (-n["support"], n["position"], n["text"]))
    out: list[dict] = []
    for node in ranked:
        if node["kind"] != "value" and skeleton(node["text"]) in listed:
            continue
        if node["kind"] == "equation" and any(o["kind"] == "equation" and same_equation(o["text"], node["text"])
                                              for o in out):
            continue
        if node["kind"] == "expression" and any(o["kind"] == "expression" and _renamed(o["text"]) == _renamed(node["text"])
                                                for o in out):
            continue
        out.append(node)
    return [n for n in nodes if any(n is o for o in out)]


def _one_node_per_step(nodes: list[dict]) -> list[dict]:
    """A value and the equation that computes it (``9`` and ``16-3-4=9``, ``x = 9``) are one
    step: keep the value when it is standalone (rare), else the equation, which carries its
    context; a common value without such an equation stays, non-standalone. A value that is a side
    of an equation relating it to an expression in the problem's quantities (``-12`` and
    ``x - 4 = -12``, ``15`` and ``5x = 15``), or a number another node writes (the ``-20`` of
    ``-4x^2 - 20x + 56``, the ``1/8`` of the point ``C = (1/8, 3\\sqrt{3}/8)``) is a piece of it: that
    node stays. Only a node that stays holds a piece: the ``720`` of ``3*720 = 2160`` stays where
    the rare ``2160`` replaces that computation."""
    values = {number_of(n["value"]): n for n in nodes if n["kind"] == "value"}
    computed = {v for v in values if any(n["kind"] == "equation" and is_arithmetic_for(n["text"], {v}) for n in nodes)}
    replaced = {id(n) for n in nodes if n["kind"] == "equation" and  # the rare value stays in its place
                any(values[v]["standalone"] and is_arithmetic_for(n["text"], {v}) for v in computed)}
    holders = [n for n in nodes if n["kind"] != "value" and id(n) not in replaced]
    solved = {v for v in values if any(n["kind"] == "equation" and is_side_of_relation(n["text"], v) for n in holders)}
    inside = {v for v in values if v not in computed and any(_holds_number(n["text"], v) for n in holders)}
    out = []
    for node in nodes:
        if node["kind"] == "value" and number_of(node["value"]) in solved | inside:
            continue  # a piece of another node (-12 of x - 4 = -12, the -20 of -4x^2 - 20x + 56): it says more
        if node["kind"] == "value" and number_of(node["value"]) in computed and not node["standalone"]:
            continue  # its equation stays
        if id(node) in replaced:
            continue  # the rare value stays
        out.append(node)
    return out


def given_numbers(problem_text: str) -> frozenset:
    """The magnitudes of the numbers a problem statement writes, in digits or in words."""
    return frozenset(abs(x) for x in stated_numbers(readable_statement(problem_text)))


def without_weak(nodes: list[dict], texts: list[set], problem_text: str) -> tuple[list[dict], list[set]]:
    """``nodes`` (with their background ``texts``) less the weak ones
    (:func:`node_builder.hygiene.weakness`), unless every node is weak: then all stay."""
    given = given_numbers(problem_text)
    strong = [i for i, node in enumerate(nodes) if weakness(node, given) is None]
    if not strong:
        return nodes, texts
    return [nodes[i] for i in strong], [texts[i] for i in strong]


def _add_note(record: dict, note: str) -> None:
    prov = record["provenance"]
    prov["note"] = f"{prov['note']}; {note}" if prov.get("note") else note


def credited_texts(nodes: list[dict], texts: list[set]) -> set:
    """The background texts that would earn credit from ``nodes`` under the context rule: any
    text covering a standalone node, or two common ones (``texts[i]``: the texts covering node i)."""
    out: set = set()
    common_seen: set = set()
    for node, covering in zip(nodes, texts):
        if node["standalone"]:
            out |= covering
        else:
            out |= common_seen & covering
            common_seen |= covering
    return out


def prune_false_credit(nodes: list[dict], texts: list[set], others: int, limit: float = MAX_FALSE_CREDIT):
    """Drop nodes, the one whose removal spares the most background texts first (then the least
    supported), until the record credits at most ``limit`` of the ``others`` texts of other
    problems. Returns ``(kept nodes, kept texts)``."""
    nodes, texts = list(nodes), list(texts)
    while nodes and others and len(credited_texts(nodes, texts)) > limit * others:
        best = None
        for i in range(len(nodes)):
            rest = credited_texts(nodes[:i] + nodes[i + 1:], texts[:i] + texts[i + 1:])
            key = (len(rest), nodes[i]["support"], -len(texts[i]), nodes[i]["text"])
            if best is None or key < best[0]:
                best = (key, i)
        i = best[1]
        del nodes[i], texts[i]
    return nodes, texts


def lone_share(node: dict, nodes: list[dict], shares_of: dict) -> float:
    """The background share of a record's last node."""
    return shares_of.get(id(node), 1.0)


def _settle(nodes: list[dict], texts: list[set], others: int, max_nodes: int, common_share: float,
            shares_of: dict, signed: bool = False) -> tuple[list[dict], dict, list[str]]:
    """Steps 2 (false credit) to 4 for a record's screened ``nodes``: ``(kept nodes, stats counts,
    notes on why nothing is left)``; nothing is written to the record."""
    counts, notes = {}, []
    pruned, _ = prune_false_credit(nodes, texts, others)
    dropped = [n["text"] for n in nodes if not any(n is kept for kept in pruned)]
    counts["too_common"] = len(dropped)
    if dropped and not pruned:
        notes.append(f"only nodes that other problems' solutions state too often ({', '.join(dropped)}): "
                     "no evidence of this problem")
    kept = _one_node_per_step(_without_duplicates(pruned, enumerations=not signed))
    counts["redundant"] = len(pruned) - len(kept)
    if pruned and not kept:
        notes.append(f"only duplicates or members of one enumeration ({', '.join(n['text'] for n in pruned)}): "
                     "no single key result")
    capped = _cap(kept, max_nodes)
    counts["over_cap"] = len(kept) - len(capped)
    if len(capped) == 1 and not capped[0]["standalone"] and lone_share(capped[0], pruned, shares_of) <= MAX_FALSE_CREDIT:
        capped[0]["standalone"] = True  # the problem's one step: credited on its own, rare enough still
    if len(capped) == 1 and not capped[0]["standalone"]:  # nothing could ever corroborate it
        notes.append(f"only a common node ({capped[0]['text']}), covered by more than {common_share:.0%} of other "
                     "problems' solutions, and no other node to corroborate it")
        capped = []
    return capped, counts, notes


def finalize_record(record: dict, shares: list[float], common_share: float, max_nodes: int,
                    elsewhere: list[int] | None = None, texts: list[set] | None = None, others: int = 0) -> dict:
    """Steps 2-5 for one record, given each node's background share, the number of other
    problems whose sampled solutions cover it and which of the ``others`` background texts of
    other problems cover it (in node order). Weak nodes go only where the record keeps a node
    without them."""
    stats = record["provenance"]["refine"]
    texts = texts if texts is not None else [set() for _ in record["nodes"]]
    nodes, node_texts, too_common, generic = [], [], [], []
    shares_of: dict[int, float] = {}
    for i, (node, share) in enumerate(zip(record["nodes"], shares)):
        if share > VERY_COMMON_SHARE:
            too_common.append(node["text"])  # in one unrelated solution in four: no evidence at all
            continue
        if elsewhere is not None and elsewhere[i] >= GENERIC_PROBLEMS and digit_free(node["text"]):
            stats["generic"] = stats.get("generic", 0) + 1  # an identity any problem may use
            generic.append(node["text"])
            continue
        node["standalone"] = share <= common_share
        shares_of[id(node)] = share
        nodes.append(node)
        node_texts.append(texts[i])
    signed = bool(record["provenance"].get("signed"))
    if signed:  # a reviewer signed them key results: neither weakness nor enumeration rule second-guesses
        strong, strong_texts = nodes, node_texts
    else:
        strong, strong_texts = without_weak(nodes, node_texts, record.get("problem", ""))
    capped, counts, notes = _settle(strong, strong_texts, others, max_nodes, common_share, shares_of, signed)
    if not capped and len(strong) < len(nodes):  # nothing left without the weak nodes: they stay
        strong = nodes
        capped, counts, notes = _settle(nodes, node_texts, others, max_nodes, common_share, shares_of)
    stats["weak"] = stats.get("weak", 0) + len(nodes) - len(strong)
    stats["too_common"] += len(too_common) + counts["too_common"]
    stats["redundant"] += counts["redundant"]
    stats["over_cap"] += counts["over_cap"]
    if generic and not nodes:
        _add_note(record, f"only statements too generic to tell this problem apart ({', '.join(generic)}), "
                          f"stated by {GENERIC_PROBLEMS}+ other problems' solutions too")
    if too_common and not nodes:
        _add_note(record, f"only nodes that other problems' solutions state too often ({', '.join(too_common)}): "
                          "no evidence of this problem")
    for note in notes:
        _add_note(record, note)
    capped.sort(key=lambda n: (n["position"], n["text"]))
    for i, node in enumerate(capped, start=1):
        node["id"] = f"n{i}"
    record["nodes"] = capped
    return record


class Background:
    """How often other problems' sampled solutions cover each node (step 1), measured once for
    the nodes of ``records`` (which may be a superset of the records finalized with it: the
    validity benchmark measures the nodes of several consensus rules in one pass)."""

    def __init__(self, records: list[dict], problems: Iterable[Problem], size: int = BACKGROUND_TEXTS,
                 quiet: bool = True):
        sample = background_sample(problems, size)
        self.pids = [pid for pid, _ in sample]
        self.hits = background_hits(records, sample, quiet)
        self.total = len(sample)
        self.per_problem: dict[str, int] = {}
        for pid in self.pids:
            self.per_problem[pid] = self.per_problem.get(pid, 0) + 1

    def others(self, record: dict) -> int:
        """Background texts of problems other than ``record``'s."""
        return self.total - self.per_problem.get(record["id"], 0)

    def context(self, record: dict) -> tuple[list[float], list[int], list[set]]:
        """Per node of ``record``: its background share, how many other problems' texts cover it,
        and which background texts of other problems cover it."""
        others = self.others(record)
        shares, elsewhere, texts = [], [], []
        for node in record["nodes"]:
            covering = {i for i in self.hits.get(_probe_key(node), []) if self.pids[i] != record["id"]}
            texts.append(covering)
            shares.append(len(covering) / others if others else 0.0)
            elsewhere.append(len({self.pids[i] for i in covering}))
        return shares, elsewhere, texts


def finalize_records(records: list[dict], problems: Iterable[Problem], common_share: float = COMMON_SHARE,
                     max_nodes: int = 8, size: int = BACKGROUND_TEXTS, quiet: bool = True,
                     background: Background | None = None) -> list[dict]:
    """Steps 1-5 for every record (in place; also returned); see module doc. ``background``: an
    already measured :class:`Background` holding every node of ``records``."""
    background = background or Background(records, problems, size, quiet)
    for record in records:
        shares, elsewhere, texts = background.context(record)
        finalize_record(record, shares, common_share, max_nodes, elsewhere, texts, background.others(record))
    return records
