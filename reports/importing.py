r"""``python -m reports import``: score trajectories generated elsewhere into an lm-eval-shaped run.

Outputs of other harnesses (a SkyThought / Qwen2.5-Math evaluation dump, an API batch, a
colleague's JSONL) go through exactly the scoring of the ``consensusbench_*`` lm-eval tasks --
each problem becomes the task's doc (the docs/SPEC.md §2 record plus ``tpn_tokenizer``, ``think_format``
and ``nodes_file``, as ``load_consensusbench`` makes it) and is scored by the task's own
``process_results`` -- and the run is written as lm-eval writes one::

    OUT/<model>/results_<ts>.json                          (aggregates + standard errors)
    OUT/<model>/samples_consensusbench_<benchmark>_<ts>.jsonl   (doc, resps, trajectories)

so ``python -m reports build OUT/<model>`` shows it beside real lm-eval runs. The aggregation is
lm-eval's for these tasks: the mean over problems with its closed-form standard error (sample
std / sqrt(n)) for ``acc``, ``ncr``, ``tpn``, ``n_tokens`` (and ``pass@k``), a problem left out of
a metric where ``process_results`` leaves it out; the diagnostics go to the samples file
(``doc.consensusbench``) and their totals to one line on stderr, as the tasks (version 1.2) do.

Input: JSONL, one problem per line, ``{"id": ..., "completion": "..."}`` or ``{"id": ...,
"completions": [...]}`` (several samples: pass@k as the ``_pass16`` tasks report it); ids are the
ids of ``--data`` (a docs/SPEC.md §2 file, e.g. a leave-one-model-out node file). A completion may
also be a chat message (or a list of them) whose trace a server or trainer split off
(``reasoning_content``, ``reasoning``, ``thinking``), or the row may carry that trace beside a
string completion: it goes back before the answer in ``--think-format``'s markers
(``<think>…</think>`` by default), as the tasks read it. Other fields are kept in the doc under
``import``.

Bad input: a bad line of the trajectories file (not a JSON object, no id or completions, a
problem given again) is reported as ``FILE:LINE: reason; skipped``. One line and exit status 2,
before any scoring: a missing input or one that is no regular file, a ``--data`` line that is
not a problem record, ids that are not in ``--data``, an ``--out`` that is a file or cannot be
written, a ``--budget`` that is not a finite number > 0; and a disk that fills up while the run is
written (no partial file is left).

Idempotent: the results file records a fingerprint of the inputs and settings (SHA-256 of the
trajectories and node files, tokenizer, think format, the task version written); importing the
same thing into the same folder again is skipped, so a rerun of ``make demo`` costs nothing, and
importing the same trajectories with a new node file or settings replaces the earlier import. A second, different
run of one model into the same folder becomes its repeat (rows ``#1``, ``#2`` of the report).

Example::

    python -m reports import reports/demo/math500/gemma-2-27b-it@f7bcf0b.jsonl \
        --data lm_eval_tasks/consensusbench/data/math500.jsonl --model gemma-2-27b-it \
        --out runs/demo/real --tokenizer .cache/models/SmolLM2-135M-Instruct
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import multiprocessing as mp
import os
import re
import sys
from pathlib import Path
from typing import Any

from consensus_metrics.argtypes import positive_float
from consensus_metrics.budget import check_budget
from consensus_metrics.metrics import mean_stderr
from consensus_metrics.outputs import OutputPathError, check_output_folder
from consensus_metrics.records import InputFileError, check_input_file, iter_jsonl, loads, read_problem_file

from .loading import ReportInputError

MEAN_METRICS = ("acc", "ncr", "tpn", "n_tokens")
VERSION = 1.2
"""The task version the imported runs are written as (``lm_eval_tasks/consensusbench`` YAMLs)."""
IMPORT_KEY = "consensusbench_import"
"""Top-level key of an imported results file: where the run came from and how it was scored."""
_SAFE = re.compile(r"[^A-Za-z0-9._@+-]+")


def sanitize(name: str) -> str:
    """A folder name for a model name (lm-eval style: unsafe characters become ``__``).

    >>> sanitize("Qwen/Qwen2.5-14B-Instruct"), sanitize(".."), sanitize("../x")
    ('Qwen__Qwen2.5-14B-Instruct', 'model', '..__x')
    """
    name = _SAFE.sub("__", name).strip("_")
    return "model" if name.strip(".") == "" else name  # "." or ".." would name --out or its parent


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _report(message: str) -> None:
    print(message, file=sys.stderr)


def read_trajectories(path: Path, think_format: str | None = None, on_bad_line=_report) -> list[dict[str, Any]]:
    """``[{"id", "texts": [...], "extra": {...}}]`` from the input JSONL. A bad line (not a JSON
    object, no id, no completions, a problem given again) is reported as ``FILE:LINE: reason;
    skipped`` through ``on_bad_line`` and skipped; no usable line at all is an error naming the
    first bad one.

    A completion is a string, or a chat message (``{"role": "assistant", "content": ...}``, or a
    list of messages) whose split-off trace (``reasoning_content``, ``reasoning``, ``thinking``)
    goes back before the answer between ``think_format``'s markers
    (:mod:`consensus_metrics.messages`); a row may also carry the trace beside ``completion`` in
    such a field (a string; a list aligned with ``completions``), as API dumps keep it.
    """
    from consensus_metrics.messages import REASONING_FIELDS, conversation_text, message_text

    rows, seen, bad = [], {}, []

    def skip(message: str) -> None:
        bad.append(message)
        on_bad_line(message + "; skipped")

    for lineno, row in iter_jsonl(path, on_error=skip):
        pid = row.get("id")
        if not isinstance(pid, (str, int)) or isinstance(pid, bool):
            skip(f"{path}:{lineno}: no problem 'id'")
            continue
        if "completions" in row:
            items = row["completions"]
        elif "completion" in row:
            items = [row["completion"]]
        else:
            skip(f"{path}:{lineno}: no 'completion' (a string) or 'completions' (a list)")
            continue
        if not isinstance(items, list) or not items or not all(_is_completion(t) for t in items):
            skip(f"{path}:{lineno}: the completions of {pid!r} must be strings or chat messages")
            continue
        field = next((f for f in REASONING_FIELDS if row.get(f) is not None), None)
        traces: list = [None] * len(items)
        if field is not None:
            traces = row[field] if "completions" in row else [row[field]]
            if not isinstance(traces, list) or len(traces) != len(items) or not all(
                    t is None or isinstance(t, str) for t in traces):
                skip(f"{path}:{lineno}: '{field}' of {pid!r} must be "
                     + ("a list of strings, one per completion" if "completions" in row else "a string"))
                continue
        if field is not None and any(trace and not isinstance(item, str) for item, trace in zip(items, traces)):
            skip(f"{path}:{lineno}: '{field}' of {pid!r} goes with string completions; "
                 "a chat message carries its own")
            continue
        texts = []
        for item, trace in zip(items, traces):
            text = item if isinstance(item, str) else conversation_text(item, think_format)
            if trace:
                text = message_text({"content": item, field: trace}, think_format) or ""
            texts.append(text)
        if str(pid) in seen:
            skip(f"{path}:{lineno}: problem {pid!r} is already given on line {seen[str(pid)]}")
            continue
        seen[str(pid)] = lineno
        extra = {k: v for k, v in row.items() if k not in ("id", "completion", "completions", field)}
        rows.append({"id": str(pid), "texts": texts, "extra": extra})
    if not rows:
        raise ReportInputError(f"{path}: no usable trajectories" + (f" (the first bad line: {bad[0]})" if bad else ""))
    return rows


def _is_completion(item: Any) -> bool:
    """A string, a chat message (a dict with ``content`` or a reasoning field) or a list of them."""
    from consensus_metrics.messages import REASONING_FIELDS

    if isinstance(item, str):
        return True
    if isinstance(item, dict):
        return "content" in item or any(f in item for f in REASONING_FIELDS)
    return isinstance(item, list) and bool(item) and all(isinstance(m, dict) and _is_completion(m) for m in item)


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when inside it (what the page shows)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())


def _score_doc(args: tuple[dict, list[str]]) -> dict:
    """The task's scoring of one problem: scores and diagnostics (``utils.score_generations``)."""
    from lm_eval_tasks.consensusbench import utils

    doc, texts = args
    return utils.score_generations(doc, [texts])


def _aggregate(per_doc: list[dict], repeats: int) -> dict[str, Any]:
    """The results-table entry: the scores' means and standard errors, as lm-eval aggregates the
    tasks (the diagnostics stay in the samples file, ``doc.consensusbench``)."""
    entry: dict[str, Any] = {}
    names = list(MEAN_METRICS) + sorted({k for out in per_doc for k in out if k.startswith("pass@")},
                                        key=lambda k: int(k.split("@")[1]))
    for name in names:
        values = [out[name] for out in per_doc if name in out]
        mean, stderr = mean_stderr(values)
        if mean is None:
            continue
        entry[f"{name},none"] = mean
        entry[f"{name}_stderr,none"] = stderr if len(values) > 1 else "N/A"
    return entry


def _say_diagnostics(task: str, per_doc: list[dict]) -> None:
    """The task's one warning line of diagnostic totals (and the stripped-trace alarm), on stderr."""
    from lm_eval_tasks.consensusbench import utils

    entries = [utils.diagnostics(out) for out in per_doc]
    totals = {key: utils.total([e[key] for e in entries]) for key in ("generations", *utils.COUNTS)}
    utils.stripped_check(totals["trace_missing"], totals["generations"])
    line = utils.diagnostics_line(task, totals)
    if line:
        print(line, file=sys.stderr)


def _imports(folder: Path) -> list[tuple[Path, dict]]:
    """``(results path, its import record)`` of every imported run in ``folder``."""
    found = []
    for path in sorted(folder.glob("results_*.json")):
        try:
            record = loads(path.read_text(encoding="utf-8")).get(IMPORT_KEY)
        except (OSError, ValueError, AttributeError):  # not ours: unreadable, not JSON, no object
            continue
        if isinstance(record, dict):
            found.append((path, record))
    return found


def _existing(folder: Path, fingerprint: str) -> Path | None:
    return next((path for path, record in _imports(folder) if record.get("fingerprint") == fingerprint), None)


def _drop_stale(folder: Path, trajectories_sha256: str, fingerprint: str) -> list[Path]:
    """Remove earlier imports of the same trajectories with other settings or nodes (else a new
    node file would leave the old scores beside the new ones, as a repeat of the run)."""
    removed = []
    for path, record in _imports(folder):
        if record.get("trajectories_sha256") == trajectories_sha256 and record.get("fingerprint") != fingerprint:
            stamp = path.name[len("results_"):-len(".json")]
            for stale in [path, *folder.glob(f"samples_*_{stamp}.jsonl")]:
                stale.unlink(missing_ok=True)
                removed.append(stale)
    return removed


def import_run(trajectories: str | os.PathLike, data: str | os.PathLike, model: str, out: str | os.PathLike,
               benchmark: str | None = None, tokenizer: str | None = None, think_format: str | None = None,
               think_prefilled: str = "false", workers: int = 1, source: str = "", generation: str = "",
               progress: bool = True, budget_s: float = 5.0) -> tuple[Path, bool]:
    """Score ``trajectories`` against the problems of ``data`` and write the run into
    ``out/<model>/``; returns ``(results path, written)`` (``written`` is False when the same
    import was already there). Raises :class:`ReportInputError` naming the file on bad input.

    ``think_prefilled`` defaults to ``false`` here: ``auto`` would inspect ``tokenizer``'s chat
    template, which is only right when it is the generating model's own tokenizer. ``budget_s``:
    the scoring time per generation (the tasks' ``budget_s`` metadata; generous by default, so a
    busy machine does not turn long traces into timeouts).

    Steps: read and check the inputs (:func:`_read_inputs`), skip an import already there, score
    every problem's completions as the task does (:func:`_score_all`), write the samples file and
    the results file (:func:`_write_run`).
    """
    from lm_eval_tasks.consensusbench import utils

    budget_s = check_budget(budget_s, "--budget")  # recorded as used: a finite number > 0
    if budget_s is None:
        raise ValueError("--budget must be a finite number > 0, got None")
    trajectories, data = Path(trajectories), Path(data)
    folder = Path(out) / sanitize(model)
    try:  # before reading anything: an --out that is a file or cannot be written
        check_output_folder(folder, flag="--out")
    except OutputPathError as err:
        raise ReportInputError(str(err).replace(f"--out {folder}", f"--out {out}", 1)) from None
    tokenizer_name = tokenizer or ""
    fmt = utils.resolve_think_format({"think_format": think_format, "think_prefilled": think_prefilled},
                                     tokenizer_name)
    problems, rows, benchmark, repeats = _read_inputs(trajectories, data, benchmark, fmt)
    fingerprint = hashlib.sha256(json.dumps(
        [file_sha256(trajectories), file_sha256(data), tokenizer_name, fmt, benchmark, model, budget_s, VERSION],
        sort_keys=True).encode()).hexdigest()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ReportInputError(f"--out {out}: cannot write: {err.strerror or err}") from None
    done = _existing(folder, fingerprint)
    if done is not None:
        return done, False
    _drop_stale(folder, file_sha256(trajectories), fingerprint)
    settings = {"tpn_tokenizer": tokenizer_name, "think_format": fmt, "nodes_file": display_path(data),
                "budget_s": float(budget_s)}
    docs = [_doc(problems[row["id"]], row, settings) for row in rows]
    per_doc = _score_all([(doc, row["texts"]) for doc, row in zip(docs, rows)], workers,
                         f"scoring {model}" if progress else None)
    meta = {"fingerprint": fingerprint, "source": source, "generation": generation, "model": model}
    try:
        return _write_run(folder, trajectories, data, benchmark, repeats, docs, rows, per_doc, settings, meta), True
    except OSError as err:  # a full disk: no partial file is left (_write), the scores are lost
        raise ReportInputError(f"--out {out}: cannot write: {err.strerror or err}") from None


def _read_inputs(trajectories: Path, data: Path, benchmark: str | None,
                 think_format: str | None = None) -> tuple[dict, list[dict], str, int]:
    """``(problems by id, trajectory rows, benchmark, completions per problem)``, checked:
    both files exist, every row's id is a problem of ``data``, one benchmark, the same number of
    completions per problem; else :class:`ReportInputError`."""
    for flag, path in (("trajectories", trajectories), ("--data", data)):
        try:
            check_input_file(path, flag)
        except InputFileError as err:
            raise ReportInputError(str(err)) from None
    try:
        problems = {row["id"]: row for row in read_problem_file(data)}
    except ValueError as err:
        raise ReportInputError(str(err)) from err
    rows = read_trajectories(trajectories, think_format)
    unknown = [row["id"] for row in rows if row["id"] not in problems]
    if unknown:
        raise ReportInputError(f"{trajectories}: {len(unknown)} problem id(s) not in {data}, e.g. {unknown[:3]}")
    benchmarks = {str(problems[row["id"]].get("benchmark") or "") for row in rows}
    benchmark = benchmark or (benchmarks.pop() if len(benchmarks) == 1 else "")
    if not re.fullmatch(r"[A-Za-z0-9]+", benchmark or ""):
        raise ReportInputError(f"{data}: give --benchmark (the problems name {sorted(benchmarks)})")
    repeats = max(len(row["texts"]) for row in rows)
    if any(len(row["texts"]) != repeats for row in rows):
        raise ReportInputError(f"{trajectories}: every problem needs the same number of completions")
    return problems, rows, benchmark, repeats


def _doc(problem: dict, row: dict, settings: dict) -> dict:
    """The task's doc of one problem: its record plus the scoring settings (and the row's extra fields)."""
    doc = dict(problem)
    doc.update(settings)
    if row["extra"]:
        doc["import"] = row["extra"]
    return doc


def _ignore_ctrl_c() -> None:
    """Pool workers leave Ctrl-C to the parent (which stops the pool and says so in one line)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _score_all(items: list[tuple[dict, list[str]]], workers: int, progress: str | None) -> list[dict]:
    """``process_results`` of every ``(doc, completions)``, in order; ``workers`` > 1 spawns a
    pool; ``progress``: the progress bar's label (no bar when None)."""
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), desc=progress, unit=" problems")
    per_doc: list[dict] = []
    try:
        if workers and workers > 1:
            with mp.get_context("spawn").Pool(workers, initializer=_ignore_ctrl_c) as pool:
                for result in pool.imap(_score_doc, items, chunksize=4):
                    per_doc.append(result)
                    if bar:
                        bar.update(1)
        else:
            for item in items:
                per_doc.append(_score_doc(item))
                if bar:
                    bar.update(1)
    finally:  # also on Ctrl-C: the bar ends its line before the command's own last word
        if bar:
            bar.close()
    return per_doc


def _write_run(folder: Path, trajectories: Path, data: Path, benchmark: str, repeats: int, docs: list[dict],
               rows: list[dict], per_doc: list[dict], settings: dict, meta: dict) -> Path:
    """Write ``samples_<task>_<stamp>.jsonl`` and ``results_<stamp>.json`` as lm-eval would; the
    results path."""
    task = f"consensusbench_{benchmark}"
    stamp = dt.datetime.now().strftime("%Y-%m-%dT%H-%M-%S.%f")
    prompt_note = f"(imported: generated outside lm-eval{'; ' + meta['generation'] if meta['generation'] else ''})"
    from lm_eval_tasks.consensusbench import utils

    lines = []
    for index, (doc, row, out) in enumerate(zip(docs, rows, per_doc)):
        scores = utils.scores_of(out)
        doc = {**doc, utils.LOG_KEY: utils.diagnostics(out)}
        line = {"doc_id": index, "doc": doc, "target": doc["answer"],
                "arguments": {"gen_args_0": {"arg_0": prompt_note, "arg_1": {}}},
                "resps": [row["texts"]], "filtered_resps": [row["texts"]], "filter": "none",
                "metrics": sorted(scores), **scores}
        lines.append(json.dumps(line, ensure_ascii=False))
    samples_path = folder / f"samples_{task}_{stamp}.jsonl"
    _write(samples_path, "\n".join(lines) + "\n")
    _say_diagnostics(task, per_doc)
    results_path = folder / f"results_{stamp}.json"
    try:
        _write(results_path, json.dumps(_results(task, trajectories, data, repeats, rows, per_doc, settings, meta),
                                         indent=1, ensure_ascii=False, allow_nan=False) + "\n")
    except BaseException:
        samples_path.unlink(missing_ok=True)  # a samples file without its results file is no run
        raise
    return results_path


def _results(task: str, trajectories: Path, data: Path, repeats: int, rows: list[dict], per_doc: list[dict],
             settings: dict, meta: dict) -> dict:
    """The results JSON of an imported run, shaped like lm-eval's (``IMPORT_KEY`` says what it came from)."""
    version = VERSION
    fmt, tokenizer_name, nodes_file = settings["think_format"], settings["tpn_tokenizer"], settings["nodes_file"]
    units = sorted({str(t.get("tpn_unit")) for out in per_doc for t in out["trajectories"] if t.get("tpn_unit")})
    return {
        "results": {task: {"alias": task, **_aggregate(per_doc, repeats)}},
        "group_subtasks": {},
        "configs": {task: {
            "task": task, "dataset_kwargs": {"data_file": data.name}, "repeats": repeats,
            "generation_kwargs": {"do_sample": False, "temperature": 0.0} if repeats == 1 else {"do_sample": True},
            "metadata": {"version": version, "data_dir": display_path(data.parent), "think_format": fmt,
                         "tpn_tokenizer": tokenizer_name, "tpn_unit": ", ".join(units),
                         "budget_s": settings["budget_s"]},
        }},
        "versions": {task: version},
        "n-shot": {task: 0},
        "higher_is_better": {task: {"acc": True, "ncr": True, "tpn": False}},
        "n-samples": {task: {"original": len(rows), "effective": len(rows)}},
        "config": {"model": "imported", "model_args": {"source": meta["source"] or display_path(trajectories),
                                                        "nodes": nodes_file}},
        "model_name": meta["model"],
        "date": dt.datetime.now().timestamp(),
        IMPORT_KEY: {"fingerprint": meta["fingerprint"], "trajectories": display_path(trajectories),
                     "trajectories_sha256": file_sha256(trajectories), "nodes_file": nodes_file,
                     "nodes_sha256": file_sha256(data), "think_format": fmt, "tpn_tokenizer": tokenizer_name,
                     "source": meta["source"], "generation": meta["generation"]},
    }


def _write(path: Path, text: str) -> None:
    """Write atomically (a temporary file beside ``path``, then ``os.replace``); a failed write
    (a full disk) removes the temporary file and raises."""
    temporary = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def add_parser(commands) -> None:
    """The ``import`` subcommand of ``python -m reports``."""
    sub = commands.add_parser("import", help="score trajectories from elsewhere into an lm-eval-shaped run",
                              description=__doc__.split("\n\n")[0])
    sub.add_argument("trajectories", help="JSONL: {id, completion} or {id, completions} per problem (strings or chat messages)")
    sub.add_argument("--data", required=True, help="docs/SPEC.md §2 problem file the ids refer to (the nodes scored against)")
    sub.add_argument("--model", required=True, help="model name (the folder and the report's model column)")
    sub.add_argument("--out", required=True, help="output folder; the run goes to OUT/<model>/")
    sub.add_argument("--benchmark", default=None, help="benchmark name (default: the problems' 'benchmark')")
    sub.add_argument("--tokenizer", default=None, help="tokenizer for TPN (offline); default regex pre-tokens")
    sub.add_argument("--think-format", default=None, help="trace/answer markers (default think,sky-t1)")
    sub.add_argument("--think-prefilled", default="false", metavar="auto|true|false",
                     help="the generating template opened <think> (default false; auto reads --tokenizer's template)")
    sub.add_argument("--source", default="", help="where the trajectories come from (shown on the page)")
    sub.add_argument("--generation", default="", help="how they were generated (e.g. 'greedy, Qwen2.5-Math harness')")
    sub.add_argument("--workers", type=int, default=1, help="scoring processes (default 1)")
    sub.add_argument("--budget", type=positive_float, default=5.0,
                     help="scoring seconds per generation, > 0 (default 5)")
    sub.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args) -> int:
    """Run the ``import`` subcommand."""
    try:
        path, written = import_run(args.trajectories, args.data, args.model, args.out, args.benchmark,
                                   args.tokenizer, args.think_format, args.think_prefilled, args.workers,
                                   args.source, args.generation, progress=not args.quiet, budget_s=args.budget)
    except (ReportInputError, ValueError) as err:
        print(f"python -m reports import: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("python -m reports import: interrupted: nothing was written", file=sys.stderr)
        return 130
    print(f"{'wrote' if written else 'already imported:'} {path}")
    return 0
