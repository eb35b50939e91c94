"""The shipped data files: what each is built from and where it goes.

``python -m node_builder build-all --raw RAW --out-dir ROOT`` builds every file of
:data:`SHIPPED` from the raw sources under ``RAW`` (the expected layout:
``node_builder/README.md``, "Raw sources") and writes it to ``ROOT/<its place in the
repository>`` (:data:`DESTINATIONS`): the evaluation sets beside the lm-eval tasks, the training
split beside the training recipes. With ``ROOT`` = the checkout (the default, ``.``) a build
replaces the shipped files; with another folder it mirrors them there, for comparison.

The evaluation sets read every staged model run of their benchmark (:data:`node_builder.run_maps.STAGED_RUNS`:
MATH-500, GSM8K test and AIME 2024; the GSM8K train split has none and stays reference-only;
AIME 2025 has none either).

Example:
    >>> shipped_sources("gsm8k", Path("/raw"))[:2]
    ['gsm8k:/raw/gsm8k/test.jsonl', 'gsm8k-socratic:/raw/gsm8k/test_socratic.jsonl']
    >>> shipped_sources("gsm8k", Path("/raw"))[2]
    'runs.rho-cot:/raw/trajectories/rho/gsm8k'
    >>> shipped_sources("gsm8k_train", Path("/raw"))
    ['gsm8k:/raw/gsm8k/train.jsonl']
    >>> shipped_path("gsm8k_train", Path("/tmp/x")).as_posix()
    '/tmp/x/training_recipes/data/gsm8k_train.jsonl'
"""

from __future__ import annotations

from pathlib import Path

from node_builder.run_maps import STAGED_RUNS, source_spec

AIME25_SOLUTIONS = Path(__file__).resolve().parent / "sources" / "aime25_solutions.md"
"""The maintainer-written AIME 2025 solutions (part of the package, not of ``RAW``)."""

EVAL_DATA_DIR = "lm_eval_tasks/consensusbench/data"
"""Where the evaluation sets live (the lm-eval tasks read them there)."""
TRAIN_DATA_DIR = "training_recipes/data"
"""Where the training split lives (the training recipes' default ``dataset_path``)."""


def _runs(benchmark: str) -> list[str]:
    return [source_spec(map_name, folder) for map_name, folder in STAGED_RUNS[benchmark]]


SHIPPED: dict[str, list[str]] = {
    "math500": ["math500:{raw}/math500/test_ori.jsonl", *_runs("math500")],
    "gsm8k": ["gsm8k:{raw}/gsm8k/test.jsonl", "gsm8k-socratic:{raw}/gsm8k/test_socratic.jsonl", *_runs("gsm8k")],
    "aime24": ["aime24:{raw}/aime24/test.jsonl", *_runs("aime24")],
    "aime25": ["aime25:{raw}/aime25/matharena", "aime25-solutions:{solutions}"],
    "gsm8k_train": ["gsm8k:{raw}/gsm8k/train.jsonl"],
}
"""Benchmark -> its source specs (``KIND:PATH``; ``{raw}`` = ``--raw``, ``{solutions}`` =
:data:`AIME25_SOLUTIONS`), in build order."""

DESTINATIONS: dict[str, str] = {
    **{name: f"{EVAL_DATA_DIR}/{name}.jsonl" for name in ("math500", "gsm8k", "aime24", "aime25")},
    "gsm8k_train": f"{TRAIN_DATA_DIR}/gsm8k_train.jsonl",
}
"""Benchmark -> its file, relative to the repository root."""


def shipped_sources(benchmark: str, raw: Path, solutions: Path = AIME25_SOLUTIONS) -> list[str]:
    """The source specs of ``benchmark`` under ``raw`` (the AIME 2025 solutions only when present)."""
    specs = [s.format(raw=raw, solutions=solutions) for s in SHIPPED[benchmark]]
    if benchmark == "aime25" and not solutions.exists():
        specs = [s for s in specs if not s.startswith("aime25-solutions:")]
    return specs


def shipped_path(benchmark: str, root: Path) -> Path:
    """Where ``build-all --out-dir root`` writes ``benchmark``'s file."""
    return Path(root) / DESTINATIONS[benchmark]
