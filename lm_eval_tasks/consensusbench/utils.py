"""lm-eval hooks for the ConsensusBench tasks: they only adapt lm-eval to ``consensus_metrics``.

Data flow (one task, one problem, ``repeats: n`` generations)::

    data/<benchmark>.jsonl --load_consensusbench--> docs (+ "tpn_tokenizer" from --model_args)
    doc --doc_to_text--> prompt (problem + boxed-answer instruction; chat template optional)
    n generations --keep_all_responses--> process_results --score_trajectory (x n)--> per-problem
    metrics --lm-eval aggregation (mean / total / ...)--> results JSON

Per problem (:func:`score_generations`), with ``c`` = number of correct generations out of ``n``:

* ``acc`` = c / n (docs/SPEC.md §4 Acc; with n > 1 it is also reported as ``pass@1``),
* ``pass@k`` = 1 - C(n-c, k) / C(n, k) for k in 2, 4, 8, ... <= n and k = n (only when n > 1),
* ``ncr`` = mean NCR of the n generations; omitted when the problem has no nodes (undefined),
* ``tpn`` = mean TPN over the generations where it is defined (>= 1 node covered); omitted
  when no generation covers a node,
* ``n_tokens`` = mean trajectory length in TPN units (the evaluated model's tokens), over the
  generations whose length is known (a scoring that ran out of its budget before the count
  leaves it unknown; omitted when no generation's length is known),
* ``ncr_undefined`` / ``tpn_undefined`` / ``think_unclosed`` / ``timed_out`` = how many of the
  n generations had undefined NCR / undefined TPN / an unclosed ``<think>`` / a matcher timeout,
* ``trace_missing`` = ``[generations without any trace marker although the model's chat template
  is a thinking one, n]``: the sign of a server whose reasoning parser split the trace off (see
  :func:`stripped_check`),
* ``trajectories`` = the n full ``score_trajectory`` dicts — ``covered`` node ids, their
  ``positions`` (``{id: [start, end, e]}``: char span of the earliest match and the 1-based
  token index ``e`` TPN uses), ``pred`` (the extracted answer), ``tpn_unit``, ... and
  ``first_error`` (where the generation leaves the consensus path: the earliest erroneous step,
  its kind, reason, relative position and character span, or none;
  :func:`consensus_metrics.locate_in_score`; no table metric),
* ``tpn_unit`` = the tokenizer TPN counted in.

The lm-eval hook :func:`process_results` returns only the **scores** (``acc``, ``ncr``, ``tpn``,
``n_tokens``, ``pass@k``): every key it returns is a row of lm-eval's results table (and of W&B
logs and leaderboards), so the diagnostics go to the per-sample log instead, as the doc's
``consensusbench`` entry (:data:`LOG_KEY`: the counts, ``generations`` and ``trajectories``),
and the task (:class:`lm_eval_tasks.consensusbench.task.ConsensusBenchTask`) says their totals
once, in one warning line, when one is not zero. The TPN tokenizer is recorded in the task's
``metadata`` in the results JSON (``tpn_tokenizer``, ``tpn_unit``, ``think_format``).

Omitting an undefined value (instead of writing NaN or None) is how lm-eval 0.4.13 leaves a
document out of one metric's mean: the mean and its standard error are then taken over the
problems where the metric is defined, and ``ncr_undefined``/``tpn_undefined`` say how many
generations were left out.

Example::

    >>> doc = {"problem": "What is 2+3?", "answer": "5", "tpn_tokenizer": "",
    ...        "nodes": [{"id": "n1", "text": "2+3=5", "kind": "equation", "forms": [],
    ...                   "value": None, "support": 1.0, "position": 0.5}]}
    >>> out = process_results(doc, [["2+3=5, so the answer is \\\\boxed{5}."]])
    >>> out
    {'acc': 1.0, 'ncr': 1.0, 'tpn': 5.0, 'n_tokens': 16.0}
    >>> doc["consensusbench"]["trajectories"][0]["covered"], doc["consensusbench"]["tpn_undefined"]
    (['n1'], 0)
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import consensus_metrics

log = logging.getLogger(__name__)

BOXED_INSTRUCTION = "Please reason step by step, and put your final answer within \\boxed{}."
"""Appended to every problem (the Qwen/DeepSeek convention math-verify extracts best)."""

DATA_DIR_ENV = "CONSENSUSBENCH_DATA_DIR"
PACKAGE_DATA_DIR = Path(__file__).resolve().parent / "data"
PASS_AT_K = (2, 4, 8, 16)
"""pass@k values reported (those < n, plus k = n) when a task runs ``repeats: n`` > 1; each needs a
``metric_list`` entry in the task YAML (the base YAML lists these, for the ``_pass16`` tasks)."""

THINK_FORMAT_KEY = "think_format"
"""Task metadata key: where the final answer is (``consensus_metrics.ThinkFormat`` setting string,
default ``think,sky-t1``), e.g. ``--metadata '{"think_format": "think"}'``."""
THINK_PREFILLED_KEY = "think_prefilled"
"""Task metadata key: ``auto`` (default: detected from the evaluated model's chat template),
``true`` or ``false`` -- the chat template opens ``<think>`` for the model, so a generation
without ``</think>`` is an unclosed trace (acc 0)."""

BUDGET_KEY = "budget_s"
"""Task metadata key: seconds each generation's scoring may take (default
``consensus_metrics.DEFAULT_BUDGET_S``); raise it for very long traces on a loaded machine, where
a timeout counts the undecided parts as not reached (``timed_out``)."""

TOKENIZER_KEYS = ("tpn_tokenizer", "tokenizer", "pretrained", "model")
"""Metadata keys naming TPN's tokenizer, first match wins. ``--model_args`` lands in the
metadata, so ``pretrained=`` (hf, vllm) or ``tokenizer=``/``model=`` (local-*-completions) work;
``--metadata '{"tpn_tokenizer": ...}'`` overrides them."""


# ----------------------------------------------------------------------------- prompt

def doc_to_text(doc: dict) -> str:
    """The prompt: the problem, a blank line, and the boxed-answer instruction.

    With ``--apply_chat_template`` this whole string is the user message.
    """
    return f"{doc['problem'].strip()}\n\n{BOXED_INSTRUCTION}"


# ----------------------------------------------------------------------------- data

def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """Folder with the ``<benchmark>.jsonl`` files: ``data_dir`` (task metadata, e.g.
    ``--metadata '{"data_dir": "..."}'``), else ``$CONSENSUSBENCH_DATA_DIR``, else the data
    shipped inside the package."""
    chosen = data_dir or os.environ.get(DATA_DIR_ENV)
    return Path(chosen).expanduser().resolve() if chosen else PACKAGE_DATA_DIR


def resolve_tokenizer_name(metadata: dict[str, Any]) -> str:
    """The name or path of the evaluated model's tokenizer found in the task metadata, or ``""``."""
    for key in TOKENIZER_KEYS:
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def read_problems(path: Path) -> list[dict[str, Any]]:
    """Read and check one ConsensusBench JSONL file (docs/SPEC.md §2); errors name the file and line."""
    if not path.is_file():
        raise FileNotFoundError(
            f"ConsensusBench data file {path} does not exist. Build it with node_builder, or point "
            f"the tasks at another folder with --metadata '{{\"data_dir\": \"DIR\"}}' or "
            f"${DATA_DIR_ENV}."
        )
    return consensus_metrics.records.read_problem_file(path)


def load_consensusbench(data_file: str, data_dir: str | None = None, **metadata: Any) -> dict:
    """lm-eval ``custom_dataset`` hook: ``{"test": Dataset}`` of one benchmark's problems.

    Args:
        data_file: the file name inside the data folder (set per task in ``dataset_kwargs``).
        data_dir: optional data folder (see :func:`resolve_data_dir`).
        **metadata: the task metadata, which lm-eval merges with ``--model_args``; used to
            find TPN's tokenizer (see :data:`TOKENIZER_KEYS`).

    Every doc gets a ``tpn_tokenizer`` field naming that tokenizer (``""``: none given, TPN
    then counts regex pre-tokens), so the samples file says what TPN was measured in, and a
    ``think_format`` field (see :func:`resolve_think_format`): where the final answer is read,
    and a ``nodes_file`` field naming the file the nodes came from (:func:`display_data_path`).
    """
    import datasets

    path = resolve_data_dir(data_dir) / data_file
    rows = read_problems(path)
    tokenizer_name = resolve_tokenizer_name(metadata)
    if not tokenizer_name:
        log.warning(
            "ConsensusBench: no tokenizer in --model_args (pretrained=/tokenizer=/model=); TPN "
            "and n_tokens will count regex pre-tokens instead of model tokens."
        )
    think_format = resolve_think_format(metadata, tokenizer_name)
    nodes_file = display_data_path(path)
    budget = resolve_budget(metadata)
    for row in rows:
        row["tpn_tokenizer"] = tokenizer_name
        row["think_format"] = think_format
        row["nodes_file"] = nodes_file
        if budget is not None:
            row[BUDGET_KEY] = budget
    try:
        dataset = datasets.Dataset.from_list(rows)
    except Exception as err:  # pyarrow raises several types for inconsistent columns
        raise ValueError(f"{path}: rows have inconsistent field types ({err})") from err
    return {"test": dataset}


def resolve_budget(metadata: dict[str, Any]) -> float | None:
    """The ``budget_s`` of the task metadata as seconds (a number, or a string of one, as
    ``--model_args`` passes it), ``None`` when unset; anything but a finite number > 0 is a
    ``ValueError`` naming the key, before any generation.

    >>> resolve_budget({"budget_s": "2.5"}), resolve_budget({})
    (2.5, None)
    """
    value = metadata.get(BUDGET_KEY)
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            pass
    try:
        return consensus_metrics.budget.check_budget(value, f"task metadata {BUDGET_KEY}")
    except ValueError as err:
        raise ValueError(f"ConsensusBench: {err}") from None


def display_data_path(path: Path) -> str:
    """How a data file is named in the docs: relative to the working directory when inside it,
    else the absolute path.

    >>> display_data_path(Path.cwd() / "lm_eval_tasks" / "consensusbench" / "data" / "math500.jsonl")
    'lm_eval_tasks/consensusbench/data/math500.jsonl'
    """
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())


def resolve_think_format(metadata: dict[str, Any], tokenizer_name: str = "") -> str:
    """The ``think_format`` setting string the docs are scored with.

    ``metadata["think_format"]`` (default ``think,sky-t1``) plus ``+prefilled`` when
    ``metadata["think_prefilled"]`` is ``true``, or is ``auto``/unset and the evaluated model's
    chat template opens a trace for it (:func:`consensus_metrics.chat_template.detect_think_prefilled`;
    ``enable_thinking`` from ``--model_args`` is passed to the template). Auto-detection assumes
    ``--apply_chat_template`` (what thinking models need); without it, set ``think_prefilled``.

    >>> resolve_think_format({"think_prefilled": "true", "think_format": "think"})
    'think+prefilled'
    >>> resolve_think_format({})
    'think,sky-t1'
    """
    from consensus_metrics.chat_template import parse_setting, resolve_think_prefilled

    setting = parse_setting(metadata.get(THINK_PREFILLED_KEY))
    fmt = consensus_metrics.ThinkFormat.parse(metadata.get(THINK_FORMAT_KEY) or None)
    template_kwargs = {}
    if metadata.get("enable_thinking") is not None:
        template_kwargs["enable_thinking"] = str(metadata["enable_thinking"]).strip().lower() in ("true", "1", "yes")
    tokenizer = load_tokenizer(tokenizer_name) if setting == "auto" and tokenizer_name else None
    prefilled = resolve_think_prefilled(setting, tokenizer, fmt, **template_kwargs)
    if prefilled and setting == "auto":
        log.warning("ConsensusBench: the chat template of %s opens the reasoning trace for the model "
                    "(think_prefilled detected): a generation without a close marker (</think>) is an "
                    "unclosed trace, scored acc 0. Set --metadata '{\"think_prefilled\": false}' to "
                    "read such a text as the answer.", tokenizer_name)
    return fmt.with_prefilled(prefilled).spec()


# ----------------------------------------------------------------------------- scoring

@functools.lru_cache(maxsize=4)
def load_tokenizer(name: str):
    """The evaluated model's tokenizer, loaded offline once per process; ``None`` when ``name``
    is empty or cannot be loaded without the network (TPN then falls back to regex pre-tokens
    and its ``tpn_unit`` says so)."""
    if not name:
        return None
    try:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(name, local_files_only=True)
    except Exception as err:  # missing files, unknown model type, no transformers, ...
        log.warning("ConsensusBench: cannot load tokenizer %r offline (%s); TPN counts regex "
                    "pre-tokens instead.", name, err)
        return None


def keep_all_responses(resps: Iterable[list[str]], docs: Iterable[dict]) -> Iterable[list[str]]:
    """lm-eval ``custom`` filter that keeps all ``repeats`` generations of each doc (the default
    filter keeps only the first)."""
    return resps


LOG_KEY = "consensusbench"
"""The doc entry that carries a problem's diagnostics into lm-eval's per-sample log."""
SCORES = ("acc", "ncr", "tpn", "n_tokens")
"""The metrics of the results table (beside ``pass@k``)."""
COUNTS = ("ncr_undefined", "tpn_undefined", "think_unclosed", "timed_out", "trace_missing")
"""Per-problem diagnostic counts (generations), logged per sample and totalled once per task."""


def process_results(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    """lm-eval hook: the scores of one problem's generations (``acc``, ``ncr``, ``tpn``,
    ``n_tokens``, ``pass@k``); the diagnostics -- :data:`COUNTS`, ``generations``,
    ``trajectories`` -- go into ``doc[LOG_KEY]``, which lm-eval writes to the per-sample log.
    See :func:`score_generations` and the module docstring."""
    out = score_generations(doc, results)
    doc[LOG_KEY] = diagnostics(out)
    return scores_of(out)


def scores_of(out: dict[str, Any]) -> dict[str, Any]:
    """The scores of one :func:`score_generations` result (the results-table metrics).

    >>> scores_of({"acc": 1.0, "pass@2": 1.0, "ncr_undefined": 0, "trajectories": []})
    {'acc': 1.0, 'pass@2': 1.0}
    """
    return {key: value for key, value in out.items() if key in SCORES or key.startswith("pass@")}


def diagnostics(out: dict[str, Any]) -> dict[str, Any]:
    """The per-sample log entry of one :func:`score_generations` result.

    >>> diagnostics({"ncr_undefined": 0, "tpn_undefined": 1, "think_unclosed": 0, "timed_out": 0,
    ...              "trace_missing": [0, 1], "trajectories": [{"acc": 0}]})
    {'generations': 1, 'ncr_undefined': 0, 'tpn_undefined': 1, 'think_unclosed': 0, 'timed_out': 0, 'trace_missing': 0, 'trajectories': [{'acc': 0}]}
    """
    entry: dict[str, Any] = {"generations": len(out["trajectories"])}
    for key in COUNTS:
        value = out[key]
        entry[key] = int(value[0] if isinstance(value, (list, tuple)) else value)
    entry["trajectories"] = out["trajectories"]
    return entry


def score_generations(doc: dict, results: Sequence[Any]) -> dict[str, Any]:
    """Score the generations of one problem with ``consensus_metrics.score_trajectory``: scores
    and diagnostics together (keys: module docstring).

    ``results[0]`` holds the doc's generations (a list after :func:`keep_all_responses`, a
    string under lm-eval's default ``take_first`` filter).
    """
    generations = results[0] if isinstance(results[0], (list, tuple)) else [results[0]]
    texts = [text if isinstance(text, str) else "" for text in generations] or [""]  # none: an empty one
    tokenizer = load_tokenizer(doc.get("tpn_tokenizer") or "")
    # Start this thread's matcher sandbox before the clock runs: the first start (about 1 s)
    # would otherwise eat the per-trajectory budget and flag a timeout. A no-op afterwards.
    consensus_metrics.warmup()
    think_format = doc.get("think_format") or None  # docs from before the setting: the default
    budget = doc.get(BUDGET_KEY)
    budget = consensus_metrics.DEFAULT_BUDGET_S if budget is None else float(budget)
    scores = [
        consensus_metrics.score_trajectory(text, doc["nodes"], doc["answer"], tokenizer=tokenizer,
                                           think_format=think_format, budget_s=budget)
        for text in texts
    ]
    for text, score in zip(texts, scores):  # where it leaves the consensus path: the per-sample log only
        score["first_error"] = consensus_metrics.locate_in_score(text, doc["nodes"], score, doc.get("problem"),
                                                                 gold=doc.get("answer"),
                                                                 computations=doc.get("computations")).to_json()
    n = len(scores)
    correct = sum(int(score["acc"]) for score in scores)
    out: dict[str, Any] = {"acc": correct / n}
    if n > 1:
        out["pass@1"] = correct / n
        for k in sorted({k for k in PASS_AT_K if k < n} | {n}):
            out[f"pass@{k}"] = float(consensus_metrics.pass_at_k(n, correct, k))
    ncrs = [score["ncr"] for score in scores if score["ncr"] is not None]
    tpns = [score["tpn"] for score in scores if score["tpn"] is not None]
    if ncrs:
        out["ncr"] = sum(ncrs) / len(ncrs)
    if tpns:
        out["tpn"] = sum(tpns) / len(tpns)
    lengths = [score["n_tokens"] for score in scores if score["n_tokens"] is not None]
    if lengths:  # a generation whose scoring ran out of time has no known length: left out
        out["n_tokens"] = sum(lengths) / len(lengths)
    out["ncr_undefined"] = n - len(ncrs)
    out["tpn_undefined"] = n - len(tpns)
    out["think_unclosed"] = sum(int(bool(score["think_unclosed"])) for score in scores)
    out["timed_out"] = sum(int(bool(score["timed_out"])) for score in scores)
    out["trace_missing"] = [trace_missing(texts, tokenizer, think_format), n]
    out["trajectories"] = scores
    out["tpn_unit"] = scores[0]["tpn_unit"] if scores else ""
    return out


def thinking_template(tokenizer, think_format=None) -> bool:
    """Whether the evaluated model's chat template mentions a trace marker (``<think>``...): a
    thinking model, whose generations should hold a trace.

    >>> class Tok: chat_template = "{{ '<|im_start|>assistant\\n<think>\\n' }}"
    >>> thinking_template(Tok()), thinking_template(None)
    (True, False)
    """
    template = getattr(tokenizer, "chat_template", None) if tokenizer is not None else None
    if isinstance(template, dict):
        template = " ".join(str(t) for t in template.values())
    if not isinstance(template, str) or not template:
        return False
    fmt = consensus_metrics.ThinkFormat.parse(think_format)
    return any(marker in template for pair in fmt.traces for marker in pair)


def trace_missing(texts: Sequence[str], tokenizer, think_format=None) -> int:
    """How many of ``texts`` hold no trace marker although the model's template is a thinking one
    (0 for other models): the sign of a server that split the trace off (see :func:`stripped_check`)."""
    if not thinking_template(tokenizer, think_format):
        return 0
    fmt = consensus_metrics.ThinkFormat.parse(think_format)
    markers = [marker for pair in fmt.traces for marker in pair]
    return sum(1 for text in texts if not any(marker in text for marker in markers))


STRIPPED_WARNING = (
    "ConsensusBench: none of the {n} generations holds a reasoning trace, although the model's chat "
    "template is a thinking one: the responses look STRIPPED, and NCR/TPN are then computed on the final "
    "answer alone. A server started with --reasoning-parser returns the trace in reasoning_content / "
    "reasoning, which lm-eval's local-chat-completions drops: evaluate with --model "
    "consensusbench-chat-completions (same --model_args), which puts it back as <think>...</think>. "
    "(If thinking was switched off on purpose, e.g. enable_thinking=False, ignore this.)")


def stripped_check(missing: int, generations: int) -> bool:
    """Warn loudly when no generation holds a trace although the model thinks (``missing`` of
    ``generations`` lack one); True when it warned.

    >>> stripped_check(0, 2), stripped_check(0, 0)
    (False, False)
    """
    if not generations or missing != generations:
        return False
    message = STRIPPED_WARNING.format(n=generations)
    log.warning(message)
    print("\n" + "!" * 100 + "\n" + message + "\n" + "!" * 100, file=sys.stderr, flush=True)
    return True


# ----------------------------------------------------------------------------- aggregation

COUNT_WORDS = {
    "ncr_undefined": "NCR undefined (problem without nodes)",
    "tpn_undefined": "TPN undefined (no node reached)",
    "think_unclosed": "think_unclosed (trace never closed: acc 0)",
    "timed_out": "timed_out (scoring ran out of its budget)",
    "trace_missing": "trace_missing (no trace although the template thinks)",
}


def diagnostics_line(task: str, totals: dict[str, int]) -> str | None:
    """The one warning line of a task's diagnostic totals (``generations`` and :data:`COUNTS`),
    or ``None`` when every count is zero.

    >>> diagnostics_line("consensusbench_gsm8k", {"generations": 4, "tpn_undefined": 3, "timed_out": 0})
    'ConsensusBench consensusbench_gsm8k: of 4 generations, 3 TPN undefined (no node reached); per generation in the samples log (--log_samples: doc.consensusbench)'
    >>> diagnostics_line("t", {"generations": 4, "tpn_undefined": 0}) is None
    True
    """
    parts = [f"{int(totals[key])} {COUNT_WORDS[key]}" for key in COUNTS if totals.get(key)]
    if not parts:
        return None
    return (f"ConsensusBench {task}: of {int(totals.get('generations', 0))} generations, " + ", ".join(parts)
            + f"; per generation in the samples log (--log_samples: doc.{LOG_KEY})")


def total(items: Sequence[float]) -> int:
    """The sum over problems of a count (``reports import`` totals the diagnostics with it).

    >>> total([0, 2, 1])
    3
    """
    return int(sum(items))
