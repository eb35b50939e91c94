r"""``python -m consensus_metrics score``: score a file of trajectories without lm-eval.

    python -m consensus_metrics score --data lm_eval_tasks/consensusbench/data/gsm8k.jsonl \
        --samples samples.jsonl --out scores.jsonl [--tokenizer DIR] [--workers 2]

``--data`` holds problems in the docs/SPEC.md §2 schema (``id``, ``answer``, ``nodes``, ``benchmark``);
several files may be given (a problem id defined twice with the same record is reported and the
repeat skipped; defined twice differently, it is an error). ``--samples`` is JSONL with one or many completions per line, in any of these shapes:

* ``{"id": ..., "completion": "..."}`` (also ``text``, ``response``, ``output``); several lines
  may hold samples of one problem: they are numbered in file order, or by their ``sample`` /
  ``response_index`` field,
* ``{"id": ..., "completions": ["...", "..."]}`` (also ``responses``, ``samples``),
* lm-eval ``--log_samples`` lines: ``{"doc": {"id": ...}, "resps": [["...", ...]], ...}`` (all
  repeats of a doc: lm-eval keeps them together in ``resps[0]``).

Scores are appended to ``--out`` as they are computed, one line per completion; each row also
says where the completion leaves the consensus path (``first_error``: the earliest erroneous step
of :func:`consensus_metrics.locate.locate_in_score`, its kind, reason and relative position, or
none). Each row records
what determined it (``inputs``: a hash of the completion and of the problem record, the budget and
the symbolic setting), so a rerun skips exactly the completions already scored from the same
inputs: nothing lost, nothing duplicated after a crash, and never an old score for a changed
completion, problem or setting -- such rows are refused (exit 2) unless ``--rescore`` replaces
them. Rows that timed out are scored again. One run at a time writes an ``--out`` (a lock; a
second run waits, then finds the rows). The command ends with a summary table over the
completions of ``--samples``: Acc (and pass@k with several samples per problem), NCR, TPN and mean
tokens, per benchmark and overall.

Bad input: bad lines are reported as ``FILE:LINE: reason`` and skipped (bytes that are not UTF-8
in a completion are read as U+FFFD and reported; in ``--data`` they make the line bad; so does
JSON nested too deeply to read). Exit status 2 with one line, before any work and without
creating ``--out``: a missing input or one that is not a regular file, an ``--out`` that is an
input, a folder or cannot be written, a ``--tokenizer`` that cannot be loaded offline, a problem
id defined twice with different records, no usable problem or no usable completion, an
out-of-range ``--budget`` or ``--workers``, a bad ``--think-format``. A write that fails later (a
full disk) is one line and exit status 2 as well, the rows written so far kept; Ctrl-C stops
with one line and exit status 130, and the same command goes on where it stopped.

Thinking models: ``--think-format`` says where the final answer is (default ``think,sky-t1``:
after the last ``</think>`` or ``<|end_of_thought|>``, inside a Sky-T1 solution block; see
``consensus_metrics.answer.ThinkFormat``); ``--think-prefilled auto|true|false`` says whether the
chat template opened ``<think>`` for the model (``auto``: detected from ``--tokenizer``'s chat
template), so that a completion without ``</think>`` is an unclosed trace (acc 0). The format is
one of the settings a row records (``inputs.think_format``; rows from before the setting were read
with ``think``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

from .answer import ThinkFormat
from .argtypes import nonnegative_int, positive_float
from .batch import iter_score_batch
from .budget import DEFAULT_BUDGET_S
from .heap import settle
from .locate import locate_in_score
from .metrics import aggregate_scores
from .nodes import coerce_nodes
from .outputs import LockedOutput, OutputPathError, OutputWriteError, check_output_file
from .records import InputFileError, check_answer_field, check_computations, check_input_file, iter_jsonl, loads
from .tokens import load_tokenizer, tokenizer_name

_TEXT_KEYS = ("completion", "text", "response", "output")
LEGACY_THINK_FORMAT = "think"
"""The think format of rows written before the setting existed (only ``<think>`` was read)."""
_LIST_KEYS = ("completions", "responses", "samples", "outputs")


class InputError(Exception):
    """Input the command cannot use at all: one line on stderr, exit status 2."""


def _warn(msg: str) -> None:
    print(msg, file=sys.stderr)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def read_jsonl(path: str, counters: dict, replace_bad_bytes: bool = False):
    """Yield (line number, object) for each valid JSON object line; report and count bad ones.

    Bytes that are not UTF-8 make a line bad, except with ``replace_bad_bytes`` (completions:
    model output), where they are read as U+FFFD and reported."""

    def bad(message: str):
        _warn(message + "; skipped")
        counters["bad_lines"] += 1

    def bad_bytes(lineno: int):
        _warn(f"{path}:{lineno}: bytes that are not UTF-8, read as U+FFFD")
        counters["non_utf8_lines"] += 1

    yield from iter_jsonl(path, on_error=bad, on_bad_bytes=bad_bytes if replace_bad_bytes else None)


def load_problems(paths, counters: dict) -> dict:
    """Problems by id from docs/SPEC.md §2 files; problems with bad nodes or no answer are skipped.

    A problem id defined again with the same answer, nodes and benchmark is skipped with a note;
    defined again differently, it raises :class:`InputError` (completions of one would be graded
    against the other's gold)."""
    problems = {}
    defined_at: dict[str, str] = {}
    for path in paths:
        for lineno, rec in read_jsonl(path, counters):
            pid = rec.get("id")
            if not isinstance(pid, (str, int)) or isinstance(pid, bool):
                _warn(f"{path}:{lineno}: missing problem 'id'; skipped")
                counters["bad_problems"] += 1
                continue
            try:
                answer = check_answer_field(rec.get("answer"), f"{path}:{lineno}: problem {pid!r}")
            except ValueError as exc:
                message = str(exc) if "answer" in rec else f"{path}:{lineno}: problem {pid!r} has no 'answer'"
                _warn(f"{message}; skipped")
                counters["bad_problems"] += 1
                continue
            try:
                nodes = coerce_nodes(rec.get("nodes") or [])
            except (TypeError, ValueError) as exc:
                _warn(f"{path}:{lineno}: problem {pid!r}: {exc}; skipped")
                counters["bad_problems"] += 1
                continue
            try:
                computations = check_computations(rec.get("computations"), f"{path}:{lineno}: problem {pid!r}")
            except ValueError as exc:
                _warn(f"{exc}; skipped")
                counters["bad_problems"] += 1
                continue
            benchmark = str(rec.get("benchmark", os.path.basename(path)))
            inputs = {"answer": answer, "nodes": rec.get("nodes") or [], "benchmark": benchmark}
            if computations:  # they move first_error: a row located without them is another input's
                inputs["computations"] = computations
            identity = _digest(json.dumps(inputs, sort_keys=True, ensure_ascii=False))
            if str(pid) in defined_at:
                first = problems[str(pid)]
                if first["sha"] != identity:
                    raise InputError(f"{path}:{lineno}: problem {pid!r} is already defined at {defined_at[str(pid)]} "
                                     "with another answer, nodes or benchmark: fix --data (which one is meant?)")
                _warn(f"{path}:{lineno}: problem {pid!r} is already defined at {defined_at[str(pid)]} "
                      "(the same record); skipped")
                counters["repeated_problems"] += 1
                continue
            problems[str(pid)] = {"answer": answer, "nodes": nodes, "benchmark": benchmark, "sha": identity,
                                  "computations": computations,
                                  "problem": rec.get("problem") if isinstance(rec.get("problem"), str) else None}
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


def read_completions(path: str, problems: dict, counters: dict) -> list[tuple[str, int, str]]:
    """``(problem id, sample index, text)`` of every usable completion of the samples file, in
    file order; unusable lines and completions are reported with file:line and counted."""
    completions = []
    next_sample: dict[str, int] = {}
    seen: set = set()
    for lineno, obj in read_jsonl(path, counters, replace_bad_bytes=True):
        pid, texts, index = _completions(obj)
        if pid is None or pid not in problems:
            _warn(f"{path}:{lineno}: unknown problem id {pid!r}; skipped")
            counters["unknown_ids"] += 1
            continue
        if texts is None:
            _warn(f"{path}:{lineno}: no completions: expected a string field ({', '.join(_TEXT_KEYS)}), "
                  f"a list of strings ({', '.join(_LIST_KEYS)}) or lm-eval 'resps'; skipped")
            counters["bad_completions"] += 1
            continue
        first = next_sample.get(pid, 0) if index is None else index
        next_sample[pid] = max(next_sample.get(pid, 0), first + len(texts))
        for j, text in enumerate(texts, start=first):
            if not isinstance(text, str):
                _warn(f"{path}:{lineno}: completion {j} of {pid!r} is not a string; skipped")
                counters["bad_completions"] += 1
                continue
            if (pid, j) in seen:
                _warn(f"{path}:{lineno}: sample {j} of {pid!r} was given on an earlier line; skipped")
                counters["repeated_samples"] += 1
                continue
            seen.add((pid, j))
            completions.append((pid, j, text))
    return completions


def _read_out(out_path: str) -> tuple[list[tuple[str, dict | None]], bool]:
    """The lines of ``--out`` as ``(line, row or None)``, and whether a torn last line (a crash
    mid-write) was left out. Lines that are not score rows come back with ``None``."""
    with open(out_path, "rb") as fh:
        data = fh.read()
    torn = bool(data) and not data.endswith(b"\n")
    if torn:
        data = data[: data.rfind(b"\n") + 1]
    lines = []
    # cut at "\n" only: rows are written with ensure_ascii=False, and a completion may hold
    # U+2028, U+0085 and the like, which str.splitlines() would also cut at
    for raw in data.decode("utf-8", "surrogateescape").split("\n"):
        if not raw.strip():
            continue
        try:
            row = loads(raw)
        except json.JSONDecodeError:
            row = None
        ok = isinstance(row, dict) and isinstance(row.get("id"), str) and isinstance(row.get("sample"), int)
        lines.append((raw, row if ok else None))
    return lines, torn


def _mismatch(row: dict, wanted: dict) -> str | None:
    """Why a row of ``--out`` does not belong to the completion ``wanted`` describes, or None."""
    found = row.get("inputs")
    if not isinstance(found, dict):
        return "no input hashes (written by an older version)"
    if found.get("completion_sha256") != wanted["completion_sha256"]:
        return "completion changed"
    if found.get("problem_sha256") != wanted["problem_sha256"]:
        return "problem changed"
    known = {**found, "think_format": found.get("think_format", LEGACY_THINK_FORMAT)}
    changed = [f"{key} {known.get(key)} -> {wanted[key]}" for key in ("budget_s", "symbolic", "think_format")
               if known.get(key) != wanted[key]]
    return f"settings changed: {', '.join(changed)}" if changed else None


def _describe_mismatches(reasons: list[str]) -> str:
    counts: dict[str, int] = {}
    for reason in reasons:
        head, _, detail = reason.partition(": ")
        key = head if not detail else f"{head}: {{}}: {detail}"
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(key.format(n) if "{}" in key else f"{key}: {n}" for key, n in counts.items())


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


def _check_paths(args) -> None:
    """Inputs that exist, an output that can be written and is none of them (:class:`InputError`)."""
    for flag, paths in (("--data", args.data), ("--samples", [args.samples])):
        for path in paths:
            try:
                check_input_file(path, flag)
            except InputFileError as err:
                raise InputError(str(err)) from None
    inputs = [("--data", path) for path in args.data] + [("--samples", args.samples)]
    try:
        check_output_file(args.out, inputs)
    except OutputPathError as err:
        raise InputError(str(err)) from None
    if args.tokenizer is not None:
        try:
            load_tokenizer(args.tokenizer)
        except Exception as err:  # OSError, ValueError, ImportError, ...: all mean "not usable here"
            reason = " ".join(str(err).split())[:300]
            raise InputError(f"--tokenizer {args.tokenizer}: cannot load it offline ({type(err).__name__}: {reason})") from None


def _think_format(args) -> ThinkFormat:
    """The format of ``--think-format`` / ``--think-prefilled`` (``auto`` inspects the chat
    template of ``--tokenizer``); :class:`InputError` on a bad setting."""
    from .chat_template import parse_setting, resolve_think_prefilled

    try:
        fmt = ThinkFormat.parse(args.think_format)
        setting = parse_setting(args.think_prefilled)
    except ValueError as err:
        raise InputError(f"--think-format/--think-prefilled: {err}") from None
    tokenizer = load_tokenizer(args.tokenizer) if setting == "auto" and args.tokenizer else None
    prefilled = resolve_think_prefilled(setting, tokenizer, fmt)
    if prefilled and setting == "auto":
        _warn(f"--think-prefilled auto: the chat template of {args.tokenizer} opens the trace for the model; "
              "a completion without a close marker is an unclosed trace (acc 0)")
    return fmt.with_prefilled(prefilled)


def cmd_score(args) -> int:
    try:
        return _score(args)
    except InputError as err:
        _warn(str(err))
        return 2
    except KeyboardInterrupt:
        _warn(f"interrupted: the rows scored so far are in {args.out}; run the same command again to go on")
        return 130


def _reusable_rows(lines: list, wanted: dict) -> tuple[list, list, int]:
    """Sort the rows already in ``--out`` (``(raw line, parsed row or None)``) into
    ``(keep, stale, retried)``: ``keep`` -- the lines that stay (the last row of each completion;
    rows of other completions and unparsable lines too); ``stale`` -- ``(key, reason)`` of rows
    scored from other inputs than ``wanted`` says; ``retried`` -- how many timed-out rows are
    dropped to be scored again.

    >>> inputs = {"completion_sha256": "c", "problem_sha256": "p", "budget_s": 1.0, "symbolic": True,
    ...           "think_format": "auto"}
    >>> row = {"id": "p", "sample": 0, "inputs": inputs}
    >>> _reusable_rows([("a", row), ("b", dict(row, timed_out=True))], {("p", 0): inputs})
    ([], [], 1)
    """
    last = {}
    for index, (_, row) in enumerate(lines):
        if row is not None:
            last[(row["id"], row["sample"])] = index
    stale, retried, keep = [], 0, []
    for index, (raw, row) in enumerate(lines):
        key = None if row is None else (row["id"], row["sample"])
        if key is not None and last[key] != index:
            continue  # an earlier row of the same completion (a file from before the lock)
        if key in wanted:
            reason = _mismatch(row, wanted[key])
            if reason is not None:
                stale.append((key, reason))
                continue
            if row.get("timed_out"):  # partial scores: try again
                retried += 1
                continue
        keep.append((raw, row))
    return keep, stale, retried


def _score(args) -> int:
    _check_paths(args)
    counters = {"bad_lines": 0, "non_utf8_lines": 0, "bad_problems": 0, "repeated_problems": 0, "unknown_ids": 0,
                "bad_completions": 0, "repeated_samples": 0}
    problems = load_problems(args.data, counters)
    if not problems:
        raise InputError("no usable problems in --data")
    before = dict(counters)
    completions = read_completions(args.samples, problems, counters)
    if not completions:
        skipped = sum(counters[k] - before[k] for k in ("bad_lines", "unknown_ids", "bad_completions", "repeated_samples"))
        raise InputError(f"no usable completion in --samples {args.samples} ({skipped} lines skipped)")
    unit = tokenizer_name(args.tokenizer)
    think_format = _think_format(args)
    settings = {"budget_s": args.budget, "symbolic": not args.no_symbolic, "think_format": think_format.spec()}
    wanted = {(pid, j): {"completion_sha256": _digest(text), "problem_sha256": problems[pid]["sha"], **settings}
              for pid, j, text in completions}

    def waiting():
        _warn(f"--out {args.out}: another run is writing it; waiting for it to finish")

    try:
        return _score_into(args, completions, problems, wanted, counters, unit, think_format, waiting)
    except OutputWriteError as err:  # a full disk, a folder that refuses the rewrite's temporary file
        raise InputError(f"--out {args.out}: cannot write: {err.reason}") from None


def _score_into(args, completions, problems, wanted, counters, unit, think_format, waiting) -> int:
    """Score what ``--out`` lacks, append it, print the summary (:func:`_score`'s second half)."""
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with LockedOutput(args.out, on_wait=waiting) as out:
        lines, torn = _read_out(args.out)
        units = {row.get("tpn_unit") for _, row in lines if row is not None} - {unit}
        if units:
            raise InputError(f"--out {args.out} holds scores whose TPN counts {sorted(map(str, units))}, not {unit}: "
                             "rerun with the same --tokenizer, or write to a new --out")
        keep, stale, retried = _reusable_rows(lines, wanted)
        if stale and not args.rescore:
            (pid, j), _reason = stale[0]
            raise InputError(f"--out {args.out}: {len(stale)} row(s) were scored from other inputs "
                             f"({_describe_mismatches([r for _, r in stale])}), the first {pid!r} sample {j}: "
                             "write to a new --out, or pass --rescore to score them again and replace them")
        if torn or len(keep) != len(lines):
            out.rewrite(raw for raw, _ in keep)
        done = {(row["id"], row["sample"]): row for _, row in keep if row is not None}
        todo = [(pid, j, text) for pid, j, text in completions if (pid, j) not in done]
        settle()  # the inputs stay to the end: keep the collector off them
        items = ((text, problems[pid]["nodes"], problems[pid]["answer"]) for pid, _j, text in todo)
        scores = iter_score_batch(items, total=len(todo), tokenizer=args.tokenizer, workers=args.workers,
                                  budget_s=args.budget, symbolic=not args.no_symbolic, progress=not args.quiet,
                                  think_format=think_format)
        for (pid, j, text), score in zip(todo, scores):
            first_error = locate_in_score(text, problems[pid]["nodes"], score, problems[pid]["problem"],
                                          budget_s=args.budget, gold=problems[pid]["answer"],
                                          computations=problems[pid]["computations"]).to_json()
            row = {"id": pid, "sample": j, "benchmark": problems[pid]["benchmark"], **score,
                   "first_error": first_error, "inputs": wanted[(pid, j)]}
            out.append(json.dumps(row, ensure_ascii=False))
            done[(pid, j)] = row
    rows = [done[(pid, j)] for pid, j, _ in completions]
    already = len(completions) - len(todo)
    print(f"scored {len(todo)} new completions ({already} already in {args.out}"
          + (f", {retried} timed out before" if retried else "")
          + (f", {len(stale)} rescored" if stale else "") + f"); TPN unit: {unit}; answers read with "
          f"think format {think_format.spec()}")
    others = len(done) - len(rows)
    if others:
        print(f"{args.out} also holds {others} row(s) of completions that are not in --samples: kept, not in the table")
    skipped = {k: v for k, v in counters.items() if v}
    if skipped:
        print("skipped: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in skipped.items()))
    print(summary_table(rows))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m consensus_metrics", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="score trajectories against ConsensusBench problems")
    score.add_argument("--data", nargs="+", required=True, help="problem files (docs/SPEC.md §2 JSONL)")
    score.add_argument("--samples", required=True, help="completions JSONL (see module docs)")
    score.add_argument("--out", required=True, help="per-completion scores JSONL (appended, resumable)")
    score.add_argument("--tokenizer", default=None, help="HF tokenizer name/path for TPN (offline); default: regex pre-tokens")
    score.add_argument("--workers", type=nonnegative_int, default=1, help="worker processes (default 1)")
    score.add_argument("--budget", type=positive_float, default=DEFAULT_BUDGET_S,
                       help="seconds per trajectory, > 0 (default %(default)s)")
    score.add_argument("--rescore", action="store_true",
                       help="score again the rows of --out scored from other completions, data or settings")
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
    from .locate_cli import add_parser as add_locate_parser  # python -m consensus_metrics locate

    add_locate_parser(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)
