"""The report's section "where models leave the path": the first wrong step of wrong answers.

Each generation's ``first_error`` (:func:`consensus_metrics.locate_in_score`, logged by the
consensusbench task in the samples file; for logs written before it existed, located here from
the logged text, nodes and matches -- wrong answers only) says at which step a solution leaves the
consensus path, why (a false computation, a node contradicted, no node reached after a point) and
where that step sits (0 = first step, 1 = last). Over the *wrong answers* of each run:

* :func:`leave_table` -- how many have a located step (the share), how many per kind of signal,
  and the median relative position of the step;
* :func:`position_counts` -- the distribution of that position, in :data:`POSITION_BINS`;
* :func:`contradicted_nodes` -- the nodes most often contradicted (a step states another value for
  the node's quantity), with their text;
* :func:`pick_examples` -- two wrong answers per run with their step highlighted (a contradicted
  node or a false computation first: a reader checks them at a glance).

Example::

    >>> import pandas as pd
    >>> gens = pd.DataFrame({"run": ["a", "a", "a"], "key": ["gsm8k"] * 3, "acc": [0.0, 0.0, 1.0],
    ...                      "first_error": [{"step": 1, "kind": "false_computation", "position": 0.5},
    ...                                      {"step": None, "kind": None, "position": None}, None]})
    >>> leave_table(gens)[["run", "wrong", "located", "share", "false_computation"]].to_dict("records")
    [{'run': 'a', 'wrong': 2, 'located': 1, 'share': 0.5, 'false_computation': 1}]
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from consensus_metrics.locate import KINDS

POSITION_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
KIND_LABELS = {"false_computation": "false computation", "contradicts_node": "contradicts a node",
               "leaves_path": "leaves the path"}


def first_error_of(score: dict, text: str, nodes: list, problem: str | None, gold: str | None = None,
                   computations=None) -> dict | None:
    """The generation's ``first_error``: as logged, else located now for a wrong answer (``None``
    for a right answer of an old log: the section is about wrong answers); ``gold``: the gold answer,
    ``computations``: the record's (docs/SPEC.md §2), when the logged doc has them."""
    logged = score.get("first_error")
    if isinstance(logged, dict):
        return logged
    if score.get("acc") != 0 or not isinstance(text, str):
        return None
    from consensus_metrics import locate_in_score
    from consensus_metrics.locate import computations_or_none

    try:
        return locate_in_score(text, nodes, score, problem, gold=gold if isinstance(gold, str) else None,
                               computations=computations_or_none(computations)).to_json()
    except (TypeError, ValueError):  # a malformed node of an old log: nothing to say
        return None


def _wrong(generations: pd.DataFrame) -> pd.DataFrame:
    if generations.empty or "first_error" not in generations:
        return generations.iloc[0:0]
    frame = generations[generations["acc"] == 0].copy()
    frame["fe_step"] = frame["first_error"].map(lambda fe: fe.get("step") if isinstance(fe, dict) else None)
    frame["fe_kind"] = frame["first_error"].map(lambda fe: fe.get("kind") if isinstance(fe, dict) else None)
    frame["fe_position"] = frame["first_error"].map(
        lambda fe: fe.get("position") if isinstance(fe, dict) and fe.get("position") is not None else math.nan)
    frame["fe_node"] = frame["first_error"].map(lambda fe: fe.get("node") if isinstance(fe, dict) else None)
    return frame


def leave_table(generations: pd.DataFrame) -> pd.DataFrame:
    """Per run: wrong answers, those with a located step, the share, counts per kind, the median
    relative position (module doc)."""
    rows = []
    wrong = _wrong(generations)
    for run, group in wrong.groupby("run", sort=False):
        located = group[group["fe_step"].notna()]
        row = {"run": run, "wrong": len(group), "located": len(located),
               "share": len(located) / len(group) if len(group) else math.nan,
               "median_position": float(located["fe_position"].median()) if len(located) else math.nan}
        for kind in KINDS:
            row[kind] = int((located["fe_kind"] == kind).sum())
        rows.append(row)
    return pd.DataFrame(rows, columns=["run", "wrong", "located", "share", "median_position", *KINDS])


def position_counts(generations: pd.DataFrame) -> pd.DataFrame:
    """Per run and position bin (``[0, 0.2)`` ... ``[0.8, 1]``): the share of its located steps."""
    wrong = _wrong(generations)
    located = wrong[wrong["fe_step"].notna()]
    labels = [f"{lo:.1f}–{hi:.1f}" for lo, hi in zip(POSITION_BINS, POSITION_BINS[1:])]
    rows = []
    for run, group in located.groupby("run", sort=False):
        bins = pd.cut(group["fe_position"], POSITION_BINS, labels=labels, include_lowest=True, right=False)
        bins = bins.where(group["fe_position"] < 1.0, labels[-1])
        counts = bins.value_counts().reindex(labels, fill_value=0)
        for label, count in counts.items():
            rows.append({"run": run, "bin": label, "share": count / len(group), "count": int(count)})
    return pd.DataFrame(rows, columns=["run", "bin", "share", "count"])


def contradicted_nodes(generations: pd.DataFrame, nodes: pd.DataFrame, top: int = 5) -> pd.DataFrame:
    """Per run: the nodes the first wrong steps contradict most, with their text and problem."""
    wrong = _wrong(generations)
    hits = wrong[(wrong["fe_kind"] == "contradicts_node") & wrong["fe_node"].notna()]
    if hits.empty:
        return pd.DataFrame(columns=["run", "key", "problem_id", "node_id", "node_text", "times"])
    counts = hits.groupby(["run", "key", "problem_id", "doc_id", "fe_node"], sort=False).size().reset_index(name="times")
    texts = {}
    if not nodes.empty:
        for row in nodes.drop_duplicates(["run", "key", "doc_id", "node_id"]).itertuples():
            texts[(row.run, row.key, row.doc_id, row.node_id)] = row.node_text
    counts["node_text"] = [texts.get((r.run, r.key, r.doc_id, r.fe_node), "") for r in counts.itertuples()]
    counts = counts.rename(columns={"fe_node": "node_id"}).sort_values(["run", "times"], ascending=[True, False],
                                                                      kind="stable")
    return counts.groupby("run", sort=False).head(top)[["run", "key", "problem_id", "node_id", "node_text", "times"]]


def pick_examples(generations: pd.DataFrame, per_run: int = 2) -> pd.DataFrame:
    """Up to ``per_run`` wrong answers per run with a located step: a contradicted node or a
    false computation first, then the shortest texts (quickest to read)."""
    wrong = _wrong(generations)
    located = wrong[wrong["fe_step"].notna()].copy()
    if located.empty:
        return located
    located["_order"] = located["fe_kind"].map({"contradicts_node": 0, "false_computation": 1}).fillna(2)
    located = located.sort_values(["run", "_order", "text_len"], kind="stable")
    return located.groupby("run", sort=False).head(per_run).drop(columns=["_order"])


def section_context(table: pd.DataFrame, positions: pd.DataFrame, contradicted: pd.DataFrame,
                    examples: pd.DataFrame) -> dict[str, Any]:
    """The template's ``leave`` section (examples must hold ``text_head``/``text_tail``)."""
    from . import html

    bins = list(dict.fromkeys(positions["bin"])) if not positions.empty else []
    shares = {(r.run, r.bin): r.share for r in positions.itertuples()}
    rows = []
    for r in table.itertuples():
        rows.append({"run": r.run, "wrong": r.wrong, "located": r.located, "share": html.number(r.share, 2),
                     "median": html.number(r.median_position, 2),
                     "kinds": [getattr(r, kind) for kind in KINDS],
                     "bins": [html.number(shares.get((r.run, b), math.nan), 2) for b in bins]})
    nodes = [{"run": r.run, "key": r.key, "problem_id": r.problem_id, "node_id": r.node_id,
              "node_text": r.node_text, "times": r.times} for r in contradicted.itertuples()]
    shown = []
    for _, row in examples.iterrows():
        fe = row["first_error"]
        span = fe.get("span") if isinstance(fe, dict) else None
        marks = {"first wrong step": span} if isinstance(span, list) and len(span) == 2 else {}
        shown.append({"run": row["run"], "key": row["key"], "problem_id": row["problem_id"],
                      "gen": int(row["gen"]), "n_gen": int(row["n_gen"]), "problem": row["problem"],
                      "gold": row["gold"], "pred": row["pred"],
                      "step": int(fe["step"]) + 1, "n_steps": fe.get("n_steps"),
                      "kind": KIND_LABELS.get(fe.get("kind"), fe.get("kind")), "reason": fe.get("reason", ""),
                      "text": html.highlight_spans(row["text_head"], row["text_tail"], int(row["text_len"]), marks)})
    return {"rows": rows, "bins": bins, "kinds": [KIND_LABELS[k] for k in KINDS], "nodes": nodes,
            "examples": shown, "missing": "No wrong answer in the samples." if table.empty else ""}


def position_figure(positions: pd.DataFrame, labels: list[str]):
    """Bars: the share of each run's located steps per relative-position bin (``None``: nothing)."""
    if positions.empty:
        return None
    from matplotlib.figure import Figure

    from .plots import DPI, run_colours

    runs = [run for run in labels if run in set(positions["run"])]
    bins = list(dict.fromkeys(positions["bin"]))
    colours = run_colours(labels)
    fig = Figure(figsize=(7.5, 3.2), dpi=DPI)
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(runs))
    for k, run in enumerate(runs):
        part = positions[positions["run"] == run].set_index("bin").reindex(bins)
        ax.bar([i + k * width for i in range(len(bins))], part["share"].fillna(0), width, label=run,
               color=colours[run])
    ax.set_xticks([i + width * (len(runs) - 1) / 2 for i in range(len(bins))], bins)
    ax.set_xlabel("relative position of the first wrong step (0 = first step, 1 = last)")
    ax.set_ylabel("share of located steps")
    ax.set_title("Where wrong answers leave the consensus path")
    if len(runs) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
