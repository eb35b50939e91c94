r"""``python -m consensus_metrics score``: score a file of trajectories without lm-eval.

    python -m consensus_metrics score --data lm_eval_tasks/consensusbench/data/gsm8k.jsonl \
        --samples samples.jsonl --out scores.jsonl [--tokenizer DIR] [--workers 2]

``--data`` holds problems in the SPEC §2 schema (``id``, ``answer``, ``nodes``, ``benchmark``);
several files may be given (a problem id defined twice is reported; the first definition
counts). ``--samples`` is JSONL with one or many completions per line, in any of these shapes:

* ``{"id": ..., "completion": "..."}`` (also ``text``, ``response``, ``output``); several lines
  may hold samples of one problem: they are numbered in file order, or by their ``sample`` /
  ``response_index`` field,
* ``{"id": ..., "completions": ["...", "..."]}`` (also ``responses``, ``samples``),
* lm-eval ``--log_samples`` lines: ``{"doc": {"id": ...}, "resps": [["...", ...]], ...}`` (all
  repeats of a doc: lm-eval keeps them together in ``resps[0]``).

Scores are appended to ``--out`` as they are computed, one line per completion; a rerun skips
the completions already scored (nothing lost, nothing duplicated after a crash). The command
ends with a summary table: Acc (and pass@k with several samples per problem), NCR, TPN and mean
tokens, per benchmark and overall. Bad lines are reported as ``FILE:LINE: reason`` and skipped.

Thinking models: ``--think-format`` says where the final answer is (default ``think,sky-t1``:
after the last ``</think>`` or ``<|end_of_thought|>``, inside a Sky-T1 solution block; see
``consensus_metrics.answer.ThinkFormat``); ``--think-prefilled auto|true|false`` says whether the
chat template opened ``<think>`` for the model (``auto``: detected from ``--tokenizer``'s chat
template), so that a completion without ``</think>`` is an unclosed trace (acc 0).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .answer import DEFAULT_THINK_FORMAT
from .batch import iter_score_batch
from .budget import DEFAULT_BUDGET_S
from .metrics import aggregate_scores
from .nodes import coerce_nodes
from .records import iter_jsonl, jsonl_values
from .tokens import tokenizer_name

_TEXT_KEYS = ("completion", "text", "response", "output")
_LIST_KEYS = ("completions", "responses", "samples", "outputs")


def _warn(msg: str) -> None:
    print(msg, file=sys.stderr)


def read_jsonl(path: str, counters: dict):
    """Yield (line number, object) for each valid JSON object line; report and count bad ones
    (and lines whose bytes are not UTF-8: they are read with U+FFFD in place of those bytes)."""

    def bad(message: str):
        _warn(message + "; skipped")
        counters["bad_lines"] += 1

    def bad_bytes(lineno: int):
        _warn(f"{path}:{lineno}: bytes that are not UTF-8, read as U+FFFD")
        counters["non_utf8_lines"] += 1

    yield from iter_jsonl(path, on_error=bad, on_bad_bytes=bad_bytes)


def load_problems(paths, counters: dict) -> dict:
    """Problems by id from SPEC §2 files; problems with bad nodes or no answer are skipped."""
    problems = {}
    defined_at: dict[str, str] = {}
    for path in paths:
        for lineno, rec in read_jsonl(path, counters):
            pid = rec.get("id")
            if not isinstance(pid, (str, int)):
                _warn(f"{path}:{lineno}: missing problem 'id'; skipped")
                counters["bad_problems"] += 1
                continue
            if str(pid) in defined_at:
                _warn(f"{path}:{lineno}: problem {pid!r} is already defined at {defined_at[str(pid)]}; skipped")
                counters["bad_problems"] += 1
                continue
            answer = rec.get("answer")
            if not isinstance(answer, (str, int, float)) or isinstance(answer, bool):
                _warn(f"{path}:{lineno}: problem {pid!r} has no 'answer'; skipped")
                counters["bad_problems"] += 1
                continue
            try:
                nodes = coerce_nodes(rec.get("nodes") or [])
            except (TypeError, ValueError) as exc:
                _warn(f"{path}:{lineno}: problem {pid!r}: {exc}; skipped")
                counters["bad_problems"] += 1
                continue
            problems[str(pid)] = {"answer": str(answer), "nodes": nodes, "benchmark": str(rec.get("benchmark", os.path.basename(path)))}
            defined_at[str(pid)] = f"{path}:{lineno}"
    return problems


def _completions(obj) -> tuple[str | None, list | None, int | None]:
    """``(problem id, completions, explicit sample index)`` of one samples line; completions is
    ``None`` when the line has no completion field in a known shape."""
    lm_eval = isinstance(obj.get("doc"), dict) and "resps" in obj  # an lm-eval samples line
    pid = obj["doc"].get("id") if lm_eval else obj.get("id", obj.get("problem_id"))
    pid = str(pid) if pid is not None else None
    if lm_eval:
        resps = obj["resps"]
        if not isinstance(resps, list):
            return pid, None, None
        # one entry per request (one for generate_until), each with the doc's k repeats
        return pid, [t for r in resps for t in (r if isinstance(r, list) else [r])], None
    for key in _LIST_KEYS:
        if key in obj:
            return pid, (obj[key] if isinstance(obj[key], list) else None), None
    for key in _TEXT_KEYS:
        if key in obj:
            index = obj.get("sample", obj.get("response_index"))
            return pid, [obj[key]], (index if isinstance(index, int) and not isinstance(index, bool) and index >= 0 else None)
    return pid, None, None


def _drop_torn_tail(out_path: str) -> None:
    """A crash can leave a half-written last line: cut it so appended rows start on a new line."""
    with open(out_path, "rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        block = min(size, 1 << 20)
        while True:
            fh.seek(size - block)
            data = fh.read(block)
            cut = data.rfind(b"\n")
            if cut >= 0 or block == size:
                fh.truncate(size - block + cut + 1 if cut >= 0 else 0)
                return
            block = min(size, block * 2)


def _scored_rows(out_path: str) -> dict:
    """Rows already in ``--out`` by (problem id, sample index); a torn last line is cut first."""
    rows: dict = {}
    if not os.path.exists(out_path):
        return rows
    _drop_torn_tail(out_path)
    for _lineno, row, err in jsonl_values(out_path):
        if err is None and isinstance(row, dict) and "id" in row and "sample" in row:
            rows[(row["id"], row["sample"])] = row
    return rows


def _fmt(value, se=None, pct=True) -> str:
    if value is None:
        return "—"
    if pct:
        return f"{100 * value:.1f}" + (f" ± {100 * se:.1f}" if se else "")
    return f"{value:.1f}" + (f" ± {se:.1f}" if se else "")


def summary_table(rows: list[dict]) -> str:
    """Plain-text table per benchmark and overall."""
    by_bench: dict[str, list[dict]] = {}
    for row in rows:
        by_bench.setdefault(row.get("benchmark", "?"), []).append(row)
    if len(by_bench) > 1:
        by_bench["ALL"] = rows
    per_problem = {}
    for row in rows:
        per_problem.setdefault(row["id"], 0)
        per_problem[row["id"]] += 1
    k_max = max(per_problem.values(), default=1)
    ks = sorted({1, k_max}) if k_max > 1 else []
    header = ["benchmark", "samples", "Acc %", *[f"pass@{k} %" for k in ks], "NCR %", "TPN", "tokens", "ncr undef", "tpn undef"]
    lines = [header]
    for bench, group in by_bench.items():
        agg = aggregate_scores(group, [r["id"] for r in group], ks)
        lines.append([
            bench, str(agg["n"]), _fmt(agg["acc"], agg["acc_stderr"]),
            *[_fmt(agg.get(f"pass@{k}")) for k in ks],
            _fmt(agg["ncr"], agg["ncr_stderr"]), _fmt(agg["tpn"], agg["tpn_stderr"], pct=False),
            _fmt(agg["n_tokens"], pct=False), str(agg["ncr_undefined"]), str(agg["tpn_undefined"]),
        ])
    widths = [max(len(r[i]) for r in lines) for i in range(len(header))]
    out = []
    for j, r in enumerate(lines):
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths)))
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    counts = sorted(set(per_problem.values()))
    if ks and len(counts) > 1:
        full = sum(1 for n in per_problem.values() if n >= k_max)
        out.append(f"(problems have {counts[0]} to {counts[-1]} samples: pass@k is averaged over the problems with at "
                   f"least k samples -- {full} of {len(per_problem)} for pass@{k_max} -- and pass@1 over problems, "
                   "Acc over samples)")
    return "\n".join(out)


def _check_paths(args) -> str | None:
    """What is wrong with the command's file arguments, or None."""
    for flag, paths in (("--data", args.data), ("--samples", [args.samples])):
        for path in paths:
            if not os.path.isfile(path):
                return f"{flag} {path}: no such file"
    if os.path.isdir(args.out):
        return f"--out {args.out}: is a directory (give a file name)"
    return None


def _think_format(args):
    """The ThinkFormat of ``--think-format`` / ``--think-prefilled`` (``auto`` inspects the
    chat template of ``--tokenizer``)."""
    from .answer import ThinkFormat
    from .chat_template import parse_setting, resolve_think_prefilled
    from .tokens import load_tokenizer

    fmt = ThinkFormat.parse(args.think_format)
    setting = parse_setting(args.think_prefilled)
    tokenizer = args.tokenizer
    if setting == "auto" and isinstance(tokenizer, str):
        tokenizer = load_tokenizer(tokenizer)
    prefilled = resolve_think_prefilled(setting, tokenizer if setting == "auto" else None, fmt)
    if prefilled and setting == "auto":
        _warn(f"--think-prefilled auto: the chat template of {args.tokenizer} opens the trace for the model; "
              "a completion without a close marker is an unclosed trace (acc 0)")
    return fmt.with_prefilled(prefilled)


def cmd_score(args) -> int:
    problem = _check_paths(args)
    if problem:
        _warn(problem)
        return 2
    counters = {"bad_lines": 0, "non_utf8_lines": 0, "bad_problems": 0, "unknown_ids": 0, "bad_completions": 0,
                "repeated_samples": 0}
    problems = load_problems(args.data, counters)
    if not problems:
        _warn("no usable problems in --data")
        return 2
    unit = tokenizer_name(args.tokenizer)
    try:
        think_format = _think_format(args)
    except (ValueError, OSError) as exc:
        _warn(f"--think-format/--think-prefilled: {exc}")
        return 2
    scored = _scored_rows(args.out)
    units = {row.get("tpn_unit") for row in scored.values()} - {unit}
    if units:
        _warn(f"--out {args.out} holds scores whose TPN counts {sorted(map(str, units))}, not {unit}: "
              "rerun with the same --tokenizer, or write to a new --out")
        return 2
    formats = {row.get("think_format", DEFAULT_THINK_FORMAT.spec()) for row in scored.values()} - {think_format.spec()}
    if formats:
        _warn(f"--out {args.out} holds scores whose answers were read with think format {sorted(map(str, formats))}, "
              f"not {think_format.spec()}: rerun with the same --think-format/--think-prefilled, or write to a new --out")
        return 2
    done = set(scored)
    todo = []
    next_sample: dict[str, int] = {}
    seen: set = set()
    for lineno, obj in read_jsonl(args.samples, counters):
        pid, texts, index = _completions(obj)
        if pid is None or pid not in problems:
            _warn(f"{args.samples}:{lineno}: unknown problem id {pid!r}; skipped")
            counters["unknown_ids"] += 1
            continue
        if texts is None:
            _warn(f"{args.samples}:{lineno}: no completions: expected a string field ({', '.join(_TEXT_KEYS)}), "
                  f"a list of strings ({', '.join(_LIST_KEYS)}) or lm-eval 'resps'; skipped")
            counters["bad_completions"] += 1
            continue
        first = next_sample.get(pid, 0) if index is None else index
        next_sample[pid] = max(next_sample.get(pid, 0), first + len(texts))
        for j, text in enumerate(texts, start=first):
            if not isinstance(text, str):
                _warn(f"{args.samples}:{lineno}: completion {j} of {pid!r} is not a string; skipped")
                counters["bad_completions"] += 1
                continue
            if (pid, j) in seen:
                _warn(f"{args.samples}:{lineno}: sample {j} of {pid!r} was given on an earlier line; skipped")
                counters["repeated_samples"] += 1
                continue
            seen.add((pid, j))
            if (pid, j) not in done:
                todo.append((pid, j, text))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "a", encoding="utf-8") as out:
        items = ((text, problems[pid]["nodes"], problems[pid]["answer"]) for pid, _j, text in todo)
        scores = iter_score_batch(items, total=len(todo), tokenizer=args.tokenizer, workers=args.workers,
                                  budget_s=args.budget, symbolic=not args.no_symbolic, progress=not args.quiet,
                                  think_format=think_format)
        for (pid, j, _text), score in zip(todo, scores):
            row = {"id": pid, "sample": j, "benchmark": problems[pid]["benchmark"], **score,
                   "think_format": think_format.spec()}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
    rows = list(_scored_rows(args.out).values())
    print(f"scored {len(todo)} new completions ({len(done)} already in {args.out}); TPN unit: {unit}; "
          f"answer read with think format {think_format.spec()}")
    skipped = {k: v for k, v in counters.items() if v}
    if skipped:
        print("skipped: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in skipped.items()))
    if rows:
        print(summary_table(rows))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m consensus_metrics", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="score trajectories against ConsensusBench problems")
    score.add_argument("--data", nargs="+", required=True, help="problem files (SPEC §2 JSONL)")
    score.add_argument("--samples", required=True, help="completions JSONL (see module docs)")
    score.add_argument("--out", required=True, help="per-completion scores JSONL (appended, resumable)")
    score.add_argument("--tokenizer", default=None, help="HF tokenizer name/path for TPN (offline); default: regex pre-tokens")
    score.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    score.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, help="seconds per trajectory (default %(default)s)")
    score.add_argument("--no-symbolic", action="store_true", help="disable the symbolic matching fallback")
    score.add_argument("--think-format", default=None, metavar="SPEC",
                       help="where the final answer is: default (= think,sky-t1), think, sky-t1, none, "
                            "trace:OPEN:CLOSE, answer:OPEN:CLOSE, comma-separated")
    score.add_argument("--think-prefilled", default="auto", metavar="auto|true|false",
                       help="the chat template opens <think> for the model, so a completion without "
                            "</think> is an unclosed trace (acc 0); auto: detect from --tokenizer's template "
                            "(default auto; without --tokenizer: false)")
    score.add_argument("--quiet", action="store_true", help="no progress bar")
    score.set_defaults(func=cmd_score)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)
