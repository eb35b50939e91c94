"""The staged model runs of the raw data for the reward benchmarks: real long reasoning traces cut
to a token length, and the runs' correct solutions as honest text.

Runs: ``RAW/trajectories/skythought/<benchmark>/<model>@<commit>.jsonl`` (MATH-500, AIME 2024;
long-CoT Sky-T1 models among them) and ``RAW/qwen25math_math_cot_100/math_cot_100.jsonl`` (8
Qwen2.5-Math samples of 100 MATH problems). Each has one row per problem (``question``, the gold
``gt``/``answer``, ``code``: the model's outputs); a row is joined with the shipped record of the
same problem (same statement, whitespace aside) for its nodes and gold answer where there is one.
Correctness is our own ``acc`` (math-verify through ``consensus_metrics.answer.check_answer``),
not the run's ``score``.

    >>> normalise_statement("Find  $x$.\\n")
    'Find $x$.'
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["normalise_statement", "run_outputs", "long_traces", "staged_outputs", "correct_solutions"]


def normalise_statement(text: str) -> str:
    """A problem statement with runs of whitespace as one space (the join key)."""
    return re.sub(r"\s+", " ", text).strip()


def run_outputs(raw: Path, records: list[dict], benchmarks=("aime24", "math500")):
    """``(run file name, shipped record, output text)`` for every output of every staged run
    whose problem is a shipped record (``records``: SPEC §2 dicts with ``problem``)."""
    by_statement = {normalise_statement(r["problem"]): r for r in records if r.get("problem")}
    for bench in benchmarks:
        for path in sorted((raw / "trajectories" / "skythought" / bench).glob("*.jsonl")):
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    if not line.strip():
                        continue
                    row = json.loads(line)
                    record = by_statement.get(normalise_statement(row.get("question", "")))
                    if record is None:
                        continue
                    for text in row.get("code") or []:
                        if isinstance(text, str) and text.strip():
                            yield path.name, record, text


def long_traces(raw: Path, records: list[dict], tokenizer, lengths, limit: int,
                benchmark: str = "aime24") -> dict[int, list[tuple[str, list, str]]]:
    """For each token length in ``lengths``, ``limit`` completions of exactly that many tokens cut
    from the same real long traces.

    The longest staged outputs of ``benchmark`` that hold ``max(lengths)`` tokens (``tokenizer``,
    no special tokens) are taken; each is cut after its ``n``-th token -- the head of a real
    trace, thinking as the model wrote it -- and ends with a boxed answer, right for every second
    one, as in a batch of rollouts (a Sky-T1 trace's thought closed and the answer in a solution
    block, as the model writes it). Returns ``{n: [(text, nodes, gold answer), ...]}``.
    """
    longest = max(lengths)
    begin, end = "<|begin_of_thought|>", "\n<|end_of_thought|>\n\n<|begin_of_solution|>\n"
    candidates = [(len(text), name, record, text) for name, record, text in run_outputs(raw, records, (benchmark,))
                  if len(text) >= 2 * longest]  # fewer characters cannot hold that many tokens
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]["id"]))
    out: dict[int, list] = {n: [] for n in lengths}
    taken = 0
    for _, _name, record, text in candidates:
        if taken >= limit:
            break
        offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        if len(offsets) < longest:
            continue
        answer = record["answer"] if taken % 2 == 0 else record["answer"] + "1"
        for n in lengths:
            head = text[: offsets[n - 1][1]]
            # a cut Sky-T1 trace is closed the way the model closes it, so that the answer is
            # where the metric looks for it (after the thought, in the solution block)
            close = (end, "\n<|end_of_solution|>") if begin in head and end.strip() not in head else ("\n\n", "")
            out[n].append((head + close[0] + f"The answer is \\boxed{{{answer}}}." + close[1], record["nodes"],
                           record["answer"]))
        taken += 1
    return out


def staged_outputs(raw: Path):
    """``(run file name, statement, gold answer, output text)`` of every staged run's outputs."""
    files = sorted((raw / "trajectories" / "skythought").glob("*/*.jsonl"))
    files += sorted((raw / "qwen25math_math_cot_100").glob("*.jsonl"))
    for path in files:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                row = json.loads(line)
                gold = str(row.get("gt") or row.get("answer") or "")
                for text in row.get("code") or []:
                    if isinstance(text, str) and text.strip():
                        yield f"{path.parent.name}/{path.name}", row.get("question", ""), gold, text


def correct_solutions(raw: Path, records: list[dict], budget_s: float = 10.0):
    """``(run file, shipped record or None, gold answer, text)`` for every staged output that our
    ``acc`` finds correct (against the shipped record's answer where the problem is shipped)."""
    from consensus_metrics.answer import check_answer
    from consensus_metrics.budget import Deadline

    by_statement = {normalise_statement(r["problem"]): r for r in records if r.get("problem")}
    for name, statement, gold, text in staged_outputs(raw):
        record = by_statement.get(normalise_statement(statement))
        gold = record["answer"] if record is not None else gold
        if gold and check_answer(text, gold, Deadline(budget_s))["acc"]:
            yield name, record, gold, text
