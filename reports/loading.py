"""Read lm-eval output folders into :class:`Run` objects (results JSON + logged samples).

An lm-eval run with ``--output_path OUT`` writes, per model,
``OUT/<model_name_sanitized>/results_<ts>.json`` and, with ``--log_samples``, one
``samples_<task>_<ts>.jsonl`` per task next to it (same ``<ts>``). This module finds those files,
checks them, and groups them into runs:

* every folder holding ``results_*.json`` files is one model;
* its results files, oldest first, are merged into one run while their task sets do not overlap
  (tasks evaluated one call at a time); a file that repeats a task starts a new run (a repeated
  evaluation of the same model, labelled ``#1``, ``#2``, ...).

Only the ConsensusBench tasks (``consensusbench_<benchmark>[_<variant>]``) are read; groups and
other tasks are listed in :attr:`Run.notes` and skipped. Every error names the offending path
(and line for JSONL files) and raises :class:`ReportInputError`.

Both output formats of the tasks are read. Task version 1.2 reports only the scores (``acc``,
``ncr``, ``tpn``, ``n_tokens``, ``pass@k``) and keeps each problem's diagnostics in its samples
line, under ``doc.consensusbench`` (the counts ``ncr_undefined``, ``tpn_undefined``,
``think_unclosed``, ``timed_out``, ``trace_missing``, ``generations``, and ``trajectories``); the
TPN tokenizer is in ``configs.<task>.metadata`` (``tpn_unit``, ``tpn_tokenizer``). Versions 1.0
and 1.1 reported the counts as metrics and wrote them, with ``trajectories``, at the top level of
each samples line. :func:`sample_diagnostics` reads a line of either; for a 1.2 task the counts
are totalled from its samples file into :attr:`TaskResult.metrics`, as 1.1 reported them.

Example::

    >>> runs = load_runs(["tests/fixtures/reports/greedy-192"])      # doctest: +SKIP
    >>> runs[0].label, sorted(runs[0].tasks)                         # doctest: +SKIP
    ('greedy-192', ['gsm8k', 'math500'])
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from consensus_metrics.records import InputFileError, LineError, describe_line_error, jsonl_values, loads

RESULTS_NAME = re.compile(
    r"^(?P<stem>.+)_(?P<ts>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.json$")
"""lm-eval's results file: ``results_<ts>.json``, or ``<stem>_<ts>.json`` when ``--output_path``
was a ``<stem>.json`` file name (its samples files then sit beside it)."""
TASK_PATTERN = re.compile(r"^consensusbench_(?P<benchmark>[A-Za-z0-9]+)(?:_(?P<variant>\w+))?$")
BENCHMARK_ORDER = ("math500", "gsm8k", "aime24", "aime25")
"""Column order of the known benchmarks; others follow alphabetically."""


class ReportInputError(ValueError):
    """Input the report cannot use; the message names the file (and line) at fault."""


@dataclass
class TaskResult:
    """One ConsensusBench task of one run, as lm-eval reported it.

    ``metrics`` maps a metric name (``acc``, ``ncr``, ``pass@16``, ``acc_stderr``, ...) to a float
    (NaN where lm-eval wrote ``"N/A"``); ``text_metrics`` holds the string-valued ones
    (``tpn_unit``). ``key`` is the leaderboard column group: the benchmark name, or
    ``<benchmark>_<variant>`` when the run also has the plain task of that benchmark.
    """

    task: str
    benchmark: str
    variant: str
    key: str
    metrics: dict[str, float]
    text_metrics: dict[str, str]
    n_problems: int | None
    repeats: int
    generation_kwargs: dict[str, Any]
    results_path: Path
    samples_path: Path | None


@dataclass
class Run:
    """One evaluated model (or training checkpoint): one leaderboard row."""

    label: str
    model: str
    folder: Path
    results_paths: list[Path]
    config: dict[str, Any]
    date: str
    tasks: dict[str, TaskResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    repeat_of: str = ""
    """The shared base label when this run is one of several repeats of a model (``#i``)."""

    @property
    def settings(self) -> str:
        """Decoding settings in a few words, e.g. ``greedy, max 192 tok`` or
        ``T=0.6 top-p=0.95, 16 samples, max 48 tok`` (per task when they differ)."""
        described = {key: describe_generation(task.generation_kwargs, task.repeats)
                     for key, task in self.tasks.items()}
        distinct = sorted(set(described.values()))
        if len(distinct) == 1:
            return distinct[0]
        return "; ".join(f"{key}: {text}" for key, text in described.items())


def describe_generation(kwargs: dict[str, Any], repeats: int) -> str:
    """Decoding settings of a task in a few words.

    >>> describe_generation({"do_sample": False, "temperature": 0.0, "max_gen_toks": 96}, 1)
    'greedy, max 96 tok'
    >>> describe_generation({"do_sample": True, "temperature": 0.6, "top_p": 0.95}, 16)
    'T=0.6 top-p=0.95, 16 samples'
    """
    sampled = str(kwargs.get("do_sample", "")).lower() == "true" or (
        _as_float(kwargs.get("temperature")) or 0.0) > 0.0
    parts = []
    if sampled:
        text = f"T={kwargs.get('temperature', '?')}"
        if kwargs.get("top_p") not in (None, 1, 1.0):
            text += f" top-p={kwargs['top_p']}"
        parts.append(text)
    else:
        parts.append("greedy")
    if repeats > 1:
        parts.append(f"{repeats} samples")
    if kwargs.get("max_gen_toks") is not None:
        parts.append(f"max {kwargs['max_gen_toks']} tok")
    return ", ".join(parts)


def benchmark_sort_key(key: str) -> tuple[int, str]:
    """Order column groups: the known benchmarks first (in the order of docs/SPEC.md §1), variants
    after their base.

    >>> sorted(["aime24", "zzz", "gsm8k_pass16", "math500", "gsm8k"], key=benchmark_sort_key)
    ['math500', 'gsm8k', 'gsm8k_pass16', 'aime24', 'zzz']
    """
    base = key.split("_", 1)[0]
    rank = BENCHMARK_ORDER.index(base) if base in BENCHMARK_ORDER else len(BENCHMARK_ORDER)
    return rank, key


# ----------------------------------------------------------------------------- reading files

def read_json(path: Path) -> Any:
    """Parse one JSON file; a clear :class:`ReportInputError` naming ``path`` otherwise."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as err:
        raise ReportInputError(f"{path}: cannot read ({err.strerror or err})") from err
    except UnicodeDecodeError as err:
        raise ReportInputError(f"{path}: not UTF-8 text ({err.reason})") from err
    try:
        return loads(text)
    except json.JSONDecodeError as err:
        raise ReportInputError(
            f"{path}: corrupt JSON at line {err.lineno} column {err.colno} ({err.msg})") from err


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line number, object)`` for each non-empty line of a JSONL file; errors name
    ``path:line`` (corrupt JSON, bytes that are not UTF-8, a lone surrogate)."""
    try:
        for lineno, row, err in jsonl_values(path, encoding_errors="strict"):
            if isinstance(err, LineError):
                raise ReportInputError(f"{path}:{lineno}: {describe_line_error(err)}") from err
            if err is not None:
                raise ReportInputError(f"{path}:{lineno}: corrupt JSON ({err.msg} at column {err.colno})") from err
            if not isinstance(row, dict):
                raise ReportInputError(f"{path}:{lineno}: expected a JSON object, got {type(row).__name__}")
            yield lineno, row
    except InputFileError as err:
        raise ReportInputError(str(err)) from None
    except OSError as err:
        raise ReportInputError(f"{path}: cannot read ({err.strerror or err})") from err


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


#: Metrics the ConsensusBench tasks write as numbers (``pass@k`` too); a value of another type is
#: refused instead of being shown as undefined.
NUMERIC_METRICS = frozenset({"acc", "ncr", "tpn", "n_tokens", "ncr_undefined", "tpn_undefined",
                             "think_unclosed", "timed_out", "trajectories"})
#: Metrics the tasks write as text.
TEXT_METRICS = frozenset({"tpn_unit"})


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_metric(metric: str, value: Any, where: str) -> None:
    """Raise :class:`ReportInputError` when a known metric has a value of the wrong type."""
    if metric.endswith("_stderr"):
        if not (_is_number(value) or value == "N/A"):
            raise ReportInputError(f"{where} must be a number or 'N/A', got {value!r:.80}")
    elif metric in NUMERIC_METRICS or re.fullmatch(r"pass@\d+", metric):
        if not _is_number(value):
            raise ReportInputError(f"{where} must be a number, got {value!r:.80}")
    elif metric in TEXT_METRICS and not isinstance(value, str):
        raise ReportInputError(f"{where} must be a string, got {value!r:.80}")
    else:
        return
    if _is_number(value) and math.isinf(value):  # it would be shown as "inf": no score is infinite
        raise ReportInputError(f"{where} must be a finite number, got {value!r:.80}")


def split_metrics(entry: dict[str, Any], where: str = "results") -> tuple[dict[str, float], dict[str, str]]:
    """lm-eval's ``"metric,filter": value`` entries -> ``({metric: float}, {metric: str})``.

    The ``none`` filter wins when a metric appears under several filters; ``"N/A"`` (lm-eval's
    undefined standard error) becomes NaN. A ConsensusBench metric of the wrong type
    (``"acc,none": "high"``, ``"ncr,none": null``) raises :class:`ReportInputError` naming
    ``where`` and the key: shown as "undefined" it would come with a false explanation.

    >>> split_metrics({"acc,none": 0.5, "acc_stderr,none": "N/A", "tpn_unit,none": "tok", "alias": "x"})
    ({'acc': 0.5, 'acc_stderr': nan}, {'tpn_unit': 'tok'})
    """
    numbers: dict[str, float] = {}
    texts: dict[str, str] = {}
    chosen_filter: dict[str, str] = {}
    for raw_key, value in entry.items():
        if "," not in raw_key:
            continue
        metric, filter_name = raw_key.split(",", 1)
        _check_metric(metric, value, f"{where}[{raw_key!r}]")
        if metric in chosen_filter and chosen_filter[metric] == "none":
            continue
        chosen_filter[metric] = filter_name
        number = None if metric in TEXT_METRICS else _as_float(value)
        if number is not None:
            numbers[metric] = number
        elif value == "N/A" or value is None:
            numbers[metric] = math.nan
        else:
            texts[metric] = str(value)
    return numbers, texts


# ----------------------------------------------------------------------------- finding runs

def timestamp_of(results_path: Path) -> str:
    """The ``<ts>`` of ``results_<ts>.json`` (or ``<stem>_<ts>.json``).

    >>> timestamp_of(Path("results_2026-11-30T00-15-08.978019.json"))
    '2026-11-30T00-15-08.978019'
    >>> timestamp_of(Path("qwen_2026-11-30T00-15-08.978019.json"))
    '2026-11-30T00-15-08.978019'
    """
    match = RESULTS_NAME.match(results_path.name)
    if not match:
        raise ReportInputError(f"{results_path}: not named like an lm-eval results file "
                               f"(results_<timestamp>.json)")
    return match["ts"]


def find_results_files(path: Path) -> list[Path]:
    """All lm-eval results files (``results_<ts>.json``, or ``<stem>_<ts>.json`` from an
    ``--output_path`` ending in ``.json``) under ``path``, searched recursively; ``[path]`` when
    ``path`` is such a file."""
    if not path.exists():
        raise ReportInputError(f"{path}: does not exist")
    if path.is_file():
        if RESULTS_NAME.match(path.name):
            return [path]
        raise ReportInputError(
            f"{path}: not an lm-eval results file (expected results_<timestamp>.json or the "
            f"--output_path folder of an lm_eval run)")
    found = sorted(p for p in path.rglob("*.json") if p.is_file() and RESULTS_NAME.match(p.name))
    if not found:
        raise ReportInputError(
            f"{path}: not an lm-eval output folder: no results_<timestamp>.json inside (give the "
            f"--output_path of an `lm_eval ... --log_samples` run)")
    return found


def parse_run_spec(spec: str) -> tuple[str | None, Path]:
    """``LABEL=PATH`` or ``PATH`` -> ``(label or None, path)``. A spec that exists as a path is
    always a path, even with ``=`` in it.

    >>> parse_run_spec("base=runs/qwen"), parse_run_spec("runs/qwen")
    (('base', PosixPath('runs/qwen')), (None, PosixPath('runs/qwen')))
    """
    if "=" in spec and not Path(spec).exists():
        label, _, path = spec.partition("=")
        if label.strip() and path.strip():
            return label.strip(), Path(path.strip())
    return None, Path(spec)


def short_model_name(results: dict[str, Any], folder: Path) -> str:
    """A readable model name: the name as given (a hub id ``Qwen/Qwen3-8B``, an API model
    ``accounts/fireworks/models/qwen3-8b``), shortened to its last component only when it is
    clearly a local path -- absolute, ``./``/``../``/``~``, or an existing folder
    (``/runs/grpo/checkpoint-200`` -> ``checkpoint-200``); else the folder name.

    >>> short_model_name({"model_name": "Qwen/Qwen3-8B"}, Path("x"))
    'Qwen/Qwen3-8B'
    >>> short_model_name({"model_name": "/runs/grpo/checkpoint-200"}, Path("x"))
    'checkpoint-200'
    >>> short_model_name({"model_name": "accounts/fireworks/models/qwen3-8b"}, Path("x"))
    'accounts/fireworks/models/qwen3-8b'
    >>> short_model_name({"config": {"model_args": "pretrained=gpt2"}}, Path("out/gpt2"))
    'gpt2'
    """
    name = results.get("model_name") or ""
    model_args = (results.get("config") or {}).get("model_args")
    if not name and isinstance(model_args, dict):
        name = model_args.get("pretrained") or model_args.get("model") or ""
    name = str(name).strip()
    if not name:
        return folder.name
    local = name.startswith(("/", "./", "../", "~")) or Path(name).is_dir()
    return (Path(name.rstrip("/")).name or name) if local else name


def _check_results(results: Any, path: Path) -> dict[str, Any]:
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        raise ReportInputError(
            f"{path}: not an lm-eval results file (no 'results' object at the top level)")
    return results


def _task_results(results: dict[str, Any], path: Path) -> tuple[list[TaskResult], list[str]]:
    """The ConsensusBench tasks of one results file, and the names of the entries skipped."""
    groups = set((results.get("group_subtasks") or {}).keys())
    configs = results.get("configs") or {}
    n_samples = results.get("n-samples") or {}
    tasks, skipped = [], []
    for name, entry in results["results"].items():
        match = TASK_PATTERN.match(name)
        if name in groups or not match or not isinstance(entry, dict):
            skipped.append(name)
            continue
        metrics, text_metrics = split_metrics(entry, f"{path}: results.{name}")
        config = configs.get(name) or {}
        metadata = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
        if "tpn_unit" not in text_metrics and isinstance(metadata.get("tpn_unit"), str):
            text_metrics["tpn_unit"] = metadata["tpn_unit"]  # 1.2: run configuration, not a metric
        count = (n_samples.get(name) or {}).get("effective")
        if count is None:
            count = entry.get("sample_len")
        tasks.append(TaskResult(
            task=name, benchmark=match["benchmark"], variant=match["variant"] or "",
            key=match["benchmark"], metrics=metrics, text_metrics=text_metrics,
            n_problems=int(count) if isinstance(count, (int, float)) else None,
            repeats=int(config.get("repeats") or 1),
            generation_kwargs=dict(config.get("generation_kwargs") or {}),
            results_path=path,
            samples_path=None,
        ))
    return tasks, skipped


LOG_KEY = "consensusbench"
"""The doc entry of a samples line (task version >= 1.2) that holds the problem's diagnostics."""
COUNTS = ("ncr_undefined", "tpn_undefined", "think_unclosed", "timed_out", "trace_missing")
"""The per-problem diagnostic counts of the tasks."""


def sample_diagnostics(record: dict[str, Any], where: str = "samples line") -> dict[str, Any] | None:
    """A samples line's diagnostics, ``{"generations", *COUNTS, "trajectories"}``, from either
    format (module docstring); ``None`` when it has none (not written by the consensusbench
    tasks). A count of the wrong type raises :class:`ReportInputError` naming ``where``.

    >>> sample_diagnostics({"doc": {"consensusbench": {"generations": 1, "tpn_undefined": 1,
    ...                                                 "trajectories": [{"acc": 0}]}}})["tpn_undefined"]
    1
    >>> old = {"doc": {}, "trajectories": [{"acc": 1}], "ncr_undefined": 0, "trace_missing": [1, 1]}
    >>> sample_diagnostics(old)["trace_missing"], sample_diagnostics(old)["generations"]
    (1, 1)
    """
    doc = record.get("doc")
    entry = doc.get(LOG_KEY) if isinstance(doc, dict) else None
    if not isinstance(entry, dict):
        if not isinstance(record.get("trajectories"), list):
            return None
        entry = {key: record.get(key, 0) for key in COUNTS}
        entry["trajectories"] = record["trajectories"]
        if isinstance(entry["trace_missing"], list):  # 1.1 logged [missing, generations]
            entry["trace_missing"] = entry["trace_missing"][0] if entry["trace_missing"] else 0
    trajectories = entry.get("trajectories")
    if not isinstance(trajectories, list):
        raise ReportInputError(f"{where}: {LOG_KEY}.trajectories must be a list")
    out: dict[str, Any] = {}
    for key in ("generations", *COUNTS):
        value = entry.get(key, len(trajectories) if key == "generations" else 0)
        if not _is_number(value):
            raise ReportInputError(f"{where}: '{key}' must be a number, got {value!r:.80}")
        out[key] = int(value)
    out["trajectories"] = trajectories
    return out


def _total_diagnostics(task: TaskResult) -> None:
    """Fill a 1.2 task's diagnostic totals (as 1.1 reported them: the counts, ``trajectories`` =
    generations) from its samples file."""
    if task.samples_path is None or "trajectories" in task.metrics:
        return
    totals = {key: 0 for key in ("generations", *COUNTS)}
    for lineno, record in iter_jsonl(task.samples_path):
        entry = sample_diagnostics(record, f"{task.samples_path}:{lineno}")
        if entry is not None:
            for key in totals:
                totals[key] += entry[key]
    for key in COUNTS:
        task.metrics[key] = float(totals[key])
    task.metrics["trajectories"] = float(totals["generations"])


def _attach_samples(task: TaskResult) -> None:
    candidate = task.results_path.with_name(
        f"samples_{task.task}_{timestamp_of(task.results_path)}.jsonl")
    task.samples_path = candidate if candidate.is_file() else None


def _assign_keys(tasks: dict[str, TaskResult]) -> dict[str, TaskResult]:
    """Column group per task: the benchmark, or ``benchmark_variant`` when another task of the
    run already uses the plain benchmark name."""
    by_benchmark: dict[str, list[TaskResult]] = {}
    for task in tasks.values():
        by_benchmark.setdefault(task.benchmark, []).append(task)
    keyed: dict[str, TaskResult] = {}
    for benchmark, group in by_benchmark.items():
        for task in group:
            task.key = benchmark if len(group) == 1 or not task.variant \
                else f"{benchmark}_{task.variant}"
            keyed[task.key] = task
    return dict(sorted(keyed.items(), key=lambda item: benchmark_sort_key(item[0])))


def _runs_of_folder(folder: Path, files: list[Path], base_label: str) -> list[Run]:
    """Group one model folder's results files into runs (see the module docstring)."""
    runs: list[Run] = []
    current: Run | None = None
    current_tasks: dict[str, TaskResult] = {}
    for path in sorted(files, key=timestamp_of):
        results = _check_results(read_json(path), path)
        tasks, skipped = _task_results(results, path)
        if not tasks:
            raise ReportInputError(
                f"{path}: no ConsensusBench task in this results file (it has: "
                f"{', '.join(sorted(results['results'])) or 'nothing'}); run lm_eval with "
                f"--tasks consensusbench_<benchmark>")
        names = {task.task for task in tasks}
        if current is None or names & set(current_tasks):
            if current is not None:
                current.tasks = _assign_keys(current_tasks)
            current = Run(label=base_label, model=short_model_name(results, folder), folder=folder,
                          results_paths=[], config=dict(results.get("config") or {}),
                          date=timestamp_of(path))
            current_tasks = {}
            runs.append(current)
        current.results_paths.append(path)
        for task in tasks:
            _attach_samples(task)
            current_tasks[task.task] = task
        groups = [name for name in skipped if name in (results.get("group_subtasks") or {})]
        others = [name for name in skipped if name not in groups]
        if others:
            current.notes.append(f"{path.name}: skipped non-ConsensusBench tasks: "
                                 f"{', '.join(sorted(others))}")
    if current is not None:
        current.tasks = _assign_keys(current_tasks)
    if len(runs) > 1:
        for index, run in enumerate(runs, start=1):
            run.label = f"{base_label} #{index}"
            run.repeat_of = base_label
    return runs


def load_runs(specs: list[str]) -> list[Run]:
    """Load every run named on the command line (``PATH`` or ``LABEL=PATH``), in order.

    Labels default to the folder name given (``runs/qwen3-8b`` -> ``qwen3-8b``), extended by
    the model name when one folder holds several models, and by ``#i`` for repeated runs;
    duplicates across arguments get `` (2)``, `` (3)``, ...
    """
    if not specs:
        raise ReportInputError("no run folder given")
    runs: list[Run] = []
    for spec in specs:
        label, path = parse_run_spec(spec)
        files = find_results_files(path)
        by_folder: dict[Path, list[Path]] = {}
        for file in files:
            by_folder.setdefault(file.parent, []).append(file)
        for folder, folder_files in by_folder.items():
            if path.is_file():
                base = label or short_model_name(_check_results(read_json(path), path), folder)
            else:
                base = label or path.resolve().name
                if len(by_folder) > 1:
                    first = _check_results(read_json(folder_files[0]), folder_files[0])
                    base = f"{base}/{short_model_name(first, folder)}"
            runs.extend(_runs_of_folder(folder, folder_files, base))
    seen: dict[str, int] = {}
    for run in runs:
        seen[run.label] = seen.get(run.label, 0) + 1
        if seen[run.label] > 1:
            run.label = f"{run.label} ({seen[run.label]})"
    for run in runs:
        for task in run.tasks.values():
            _total_diagnostics(task)
            if task.samples_path is None:
                run.notes.append(
                    f"no samples file for {task.task} (run lm_eval with --log_samples): its "
                    f"mismatch table, node diagnostics, difficulty levels and examples are not shown")
    return runs
