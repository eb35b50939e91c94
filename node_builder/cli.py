"""Command line: ``python -m node_builder {build, build-all, stats}``.

``build`` — one benchmark file::

    python -m node_builder build --benchmark gsm8k \\
        --source gsm8k:RAW/gsm8k/test.jsonl --source gsm8k-socratic:RAW/gsm8k/test_socratic.jsonl \\
        --out data/gsm8k.jsonl [--workdir runs/node_builder/gsm8k] \\
        [--backend vllm|openai|hf --model M --n 16 [--samples-only] [--extractor llm]]

Problems come from the ``--source`` importers (``KIND:PATH``, see :mod:`node_builder.importers`);
with ``--backend`` each problem also gets ``--n`` sampled trajectories (kept in the work dir, so
a rerun never regenerates them). The work dir makes the build resumable: kill it at any moment,
rerun the same command, get the identical output.

``build-all --raw RAW_DIR --out-dir DATA_DIR`` — every shipped file (:data:`SHIPPED`), rule-based,
no model: ``math500, gsm8k, aime24, gsm8k_train, aime25``.

``stats DATA.jsonl ...`` — node statistics (the data card's figures) as JSON.

Bad input (malformed lines, bytes that are not UTF-8, missing answers, unusable problems) is
reported with file:line or problem id, skipped, counted in the summary, and the run goes on; exit
status 0 unless ``--strict``. Exit status 2 with one line, before any work and without leaving a
file behind: a missing or malformed ``--source``, a source with no usable problem, an ``--out``
that is a folder, an input (a source, a file of the work dir) or cannot be written, a work dir
of other inputs, an out-of-range setting.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import traceback
from pathlib import Path

from tqdm import tqdm

from consensus_metrics.argtypes import fraction, nonnegative_float, positive_int
from consensus_metrics.outputs import OutputPathError, check_output_file
from node_builder import BUILDER_VERSION
from node_builder.backends import BACKENDS, SamplingConfig, make_backend, solve_messages
from node_builder.importers import load_sources, parse_source_spec
from node_builder.llm_extractor import LLMExtractor
from node_builder.pipeline import BuildConfig, build_record
from node_builder.refine import RefineConfig
from node_builder.schema import Trajectory
from node_builder.workdir import Workdir, WorkdirMismatch, code_fingerprint, write_jsonl_atomic

PACKAGE_DIR = Path(__file__).resolve().parent
AIME25_SOLUTIONS = PACKAGE_DIR / "sources" / "aime25_solutions.md"

#: The shipped data files: benchmark -> source specs ({raw} = the raw data dir).
SHIPPED: dict[str, list[str]] = {
    "math500": ["math500:{raw}/math500/test_ori.jsonl"],
    "gsm8k": ["gsm8k:{raw}/gsm8k/test.jsonl", "gsm8k-socratic:{raw}/gsm8k/test_socratic.jsonl"],
    "aime24": ["aime24:{raw}/aime24/test.jsonl"],
    "aime25": ["aime25:{raw}/aime25/matharena", "aime25-solutions:{solutions}"],
    "gsm8k_train": ["gsm8k:{raw}/gsm8k/train.jsonl"],
}


class CliError(Exception):
    """Input or settings the command cannot use: one line on stderr, exit status 2."""


def check_sources(specs: list[str]) -> None:
    """Every ``KIND:PATH`` well-formed and present, else :class:`CliError`."""
    for spec in specs:
        try:
            _kind, path = parse_source_spec(spec)
        except ValueError as err:
            raise CliError(str(err)) from None
        if not Path(path).exists():
            raise CliError(f"--source {spec}: {path} does not exist")


def check_out(out: Path, sources: list[str], workdir: Path, flag: str = "--out") -> None:
    """``out`` writable and none of the inputs (a source, inside a source folder or the work
    dir), else :class:`CliError`."""
    try:
        check_output_file(out, [("--source", parse_source_spec(spec)[1]) for spec in sources], flag,
                          folders=[("--workdir", workdir)])
    except OutputPathError as err:
        raise CliError(str(err)) from None


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        digest.update(file.relative_to(path).as_posix().encode() if path.is_dir() else b"")
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def _source_fingerprints(specs: list[str]) -> list[str]:
    """``KIND:basename@sha`` per source: settings identity independent of where RAW lives."""
    out = []
    for spec in specs:
        kind, path = parse_source_spec(spec)
        p = Path(path)
        out.append(f"{kind}:{p.name}@{_file_digest(p) if p.exists() else 'missing'}")
    return out


def _sampling(args) -> SamplingConfig:
    return SamplingConfig(max_tokens=args.max_tokens, temperature=args.temperature,
                          top_p=args.top_p, seed=args.seed)


def _backend_options(args) -> dict:
    if args.backend == "openai":
        return {"base_url": args.base_url, "max_concurrency": args.max_concurrency}
    if args.backend == "hf":
        return {"dtype": args.dtype, "device": args.device, "batch_size": args.hf_batch_size}
    if args.backend == "vllm":
        options = {"tensor_parallel_size": args.tensor_parallel_size}
        if args.distributed_executor_backend:
            options["distributed_executor_backend"] = args.distributed_executor_backend
        options.update(engine_args(args.engine_arg or []))
        return options
    return {}


def engine_args(pairs: list[str]) -> dict:
    """``["data_parallel_size=2", "enable_prefix_caching=true"]`` -> ``{..: 2, ..: True}`` (JSON values,
    else strings), passed to ``vllm.LLM``.

    >>> engine_args(["data_parallel_size=2", "gpu_memory_utilization=0.85", "quantization=fp8"])
    {'data_parallel_size': 2, 'gpu_memory_utilization': 0.85, 'quantization': 'fp8'}
    """
    out = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--engine-arg {pair!r}: expected KEY=VALUE")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def run_build(benchmark: str, sources: list[str], out: Path, workdir: Path, config: BuildConfig,
              args=None, limit: int | None = None, fields: dict | None = None,
              quiet: bool = False) -> dict:
    """Build one file; returns the summary dict (also printed)."""
    check_sources(sources)
    check_out(out, sources, workdir)
    imported = load_sources(sources, benchmark, fields=fields)
    for skip in imported.skipped:
        print(f"skipped {skip.where}" + (f" ({skip.problem_id})" if skip.problem_id else "")
              + f": {skip.reason}", file=sys.stderr)
    if not imported.problems:
        raise CliError(f"no usable problem in the sources ({len(imported.skipped)} skipped): "
                       + ", ".join(sources))
    problems = imported.problems[:limit] if limit else imported.problems
    backend_cfg = None
    if args is not None and getattr(args, "backend", None):
        backend_cfg = {"backend": args.backend, "model": args.model, "n": args.n,
                       "sampling": vars(_sampling(args)), "samples_only": args.samples_only}
    inputs = {"benchmark": benchmark, "sources": _source_fingerprints(sources), "backend": backend_cfg,
              "limit": limit, "fields": fields or {}}
    build = {"config": config.to_json(), "builder_version": BUILDER_VERSION,
             "code": code_fingerprint("node_builder", "consensus_metrics")}
    work = Workdir(workdir, inputs, build)
    done = work.records.load()
    todo = [p for p in problems if p.id not in done]
    backend = extractor = None
    if todo and backend_cfg:
        backend = make_backend(args.backend, args.model, _sampling(args), **_backend_options(args))
        if config.extractor == "rules+llm":
            extractor = LLMExtractor(backend)
    build_errors = 0
    try:
        samples = work.samples.load() if backend_cfg else {}
        bar = tqdm(total=len(problems), initial=len(problems) - len(todo), desc=benchmark,
                   unit="problem", disable=quiet, file=sys.stderr)
        chunk = max(1, getattr(args, "batch_size", 64) or 64) if backend_cfg else len(todo) or 1
        for start in range(0, len(todo), chunk):
            batch = todo[start:start + chunk]
            if backend_cfg:
                need = [p for p in batch if p.id not in samples]
                if need:
                    texts = backend.generate([solve_messages(p.problem) for p in need], n=args.n)
                    for problem, outs in zip(need, texts):
                        entry = {"id": problem.id, "backend": backend.describe(), "samples": outs}
                        work.samples.append(entry)
                        samples[problem.id] = entry
                for problem in batch:
                    if args.samples_only:
                        problem.trajectories = []
                    entry = samples[problem.id]
                    problem.trajectories.extend(
                        Trajectory(text=t, source=f"sample:{entry['backend']}") for t in entry["samples"])
            for problem in batch:
                try:
                    entry = {"id": problem.id, "record": build_record(problem, config, extractor)}
                except Exception as exc:  # one bad problem never stops the run
                    build_errors += 1
                    where = problem.origin or problem.id
                    print(f"error building {problem.id} ({where}): {type(exc).__name__}: {exc}",
                          file=sys.stderr)
                    traceback.print_exc(limit=3, file=sys.stderr)
                    entry = {"id": problem.id, "skipped": f"{type(exc).__name__}: {exc}"[:500]}
                work.records.append(entry)
                done[problem.id] = entry
                bar.update(1)
        bar.close()
    finally:
        if backend is not None:
            backend.close()
    records = [done[p.id]["record"] for p in problems if "record" in done.get(p.id, {})]
    write_jsonl_atomic(out, records)
    skipped_builds = [done[p.id] for p in problems if "skipped" in done.get(p.id, {})]
    summary = {"benchmark": benchmark, "out": str(out), "problems": len(problems),
               "records": len(records), "with_nodes": sum(1 for r in records if r["nodes"]),
               "nodes": sum(len(r["nodes"]) for r in records),
               "skipped_inputs": len(imported.skipped), "skipped_problems": len(skipped_builds),
               "llm_garbage_replies": sum(1 for r in records
                                          if r["provenance"]["llm"]["status"].startswith("garbage")),
               "workdir": str(workdir)}
    if not quiet:
        print(json.dumps(summary), file=sys.stderr)
    return summary


def _config_from_args(args) -> BuildConfig:
    refine = RefineConfig(min_support=args.min_support, max_nodes=args.max_nodes,
                          fallback=not args.no_fallback)
    return BuildConfig(refine=refine, extractor="rules+llm" if args.extractor == "llm" else "rules")


def cmd_build(args) -> int:
    if args.extractor == "llm" and not args.backend:
        raise CliError("--extractor llm needs a --backend (and --model) to prompt")
    if args.backend and not args.model:
        raise CliError(f"--backend {args.backend} needs --model")
    fields = dict(kv.split("=", 1) for kv in args.map) if args.map else None
    workdir = Path(args.workdir or f"runs/node_builder/{args.benchmark}")
    summary = run_build(args.benchmark, args.source, Path(args.out), workdir, _config_from_args(args),
                        args=args, limit=args.limit, fields=fields, quiet=args.quiet)
    bad = summary["skipped_inputs"] + summary["skipped_problems"]
    return 1 if (args.strict and bad) else 0


def shipped_sources(benchmark: str, raw: Path, solutions: Path = AIME25_SOLUTIONS) -> list[str]:
    specs = [s.format(raw=raw, solutions=solutions) for s in SHIPPED[benchmark]]
    if benchmark == "aime25" and not solutions.exists():
        specs = [s for s in specs if not s.startswith("aime25-solutions:")]
    return specs


def cmd_build_all(args) -> int:
    raw, out_dir = Path(args.raw), Path(args.out_dir)
    if not raw.is_dir():
        raise CliError(f"--raw {raw}: not a directory (the raw sources, see SOURCES.md)")
    config = _config_from_args(args)
    names = args.only or list(SHIPPED)
    for name in names:  # every input and output checked before the first build starts
        check_sources(shipped_sources(name, raw))
        check_out(out_dir / f"{name}.jsonl", shipped_sources(name, raw), Path(args.workdir_root) / name, "--out-dir")
    bad = 0
    for name in names:
        specs = shipped_sources(name, raw)
        workdir = Path(args.workdir_root) / name
        try:
            summary = run_build(name, specs, out_dir / f"{name}.jsonl", workdir, config, quiet=args.quiet)
        except WorkdirMismatch as exc:  # the raw sources changed: keep the old dir, start a new one
            aside = workdir.with_name(f"{name}.old-{time.strftime('%Y%m%d-%H%M%S')}")
            workdir.rename(aside)
            print(f"build-all: {exc}; moved it to {aside}", file=sys.stderr)
            summary = run_build(name, specs, out_dir / f"{name}.jsonl", workdir, config, quiet=args.quiet)
        bad += summary["skipped_inputs"] + summary["skipped_problems"]
    return 1 if (args.strict and bad) else 0


def cmd_stats(args) -> int:
    from node_builder.stats import file_stats

    report = {Path(p).name: file_stats(p) for p in args.data}
    print(json.dumps(report, indent=2))
    return 0


def _add_refine_args(p: argparse.ArgumentParser) -> None:
    d = RefineConfig()
    p.add_argument("--min-support", type=fraction, default=d.min_support,
                   help="keep nodes in at least this fraction (0, 1] of correct trajectories (default %(default)s)")
    p.add_argument("--max-nodes", type=positive_int, default=d.max_nodes, help="cap k, >= 1 (default %(default)s)")
    p.add_argument("--no-fallback", action="store_true",
                   help="no nodes for a problem when none reaches --min-support")
    p.add_argument("--strict", action="store_true", help="exit 1 when anything was skipped")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m node_builder", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    b = sub.add_parser("build", help="build one benchmark file")
    b.add_argument("--benchmark", required=True, help="benchmark name (record field and id prefix)")
    b.add_argument("--source", action="append", required=True, metavar="KIND:PATH",
                   help="an importer and its file; repeat to merge sources by problem id")
    b.add_argument("--out", required=True, help="output JSONL (written atomically at the end)")
    b.add_argument("--workdir", help="resumable work dir (default runs/node_builder/BENCHMARK)")
    b.add_argument("--limit", type=positive_int, help="only the first N problems (N >= 1)")
    b.add_argument("--map", action="append", metavar="FIELD=NAME",
                   help="jsonl importer field names, e.g. --map id=idx --map trajectories=code")
    g = b.add_argument_group("generation (stage 1)")
    g.add_argument("--backend", choices=BACKENDS, help="sample trajectories with this backend")
    g.add_argument("--model", help="model name or path")
    g.add_argument("--n", type=positive_int, default=16, help="samples per problem (default %(default)s)")
    g.add_argument("--samples-only", action="store_true", help="ignore imported trajectories")
    g.add_argument("--max-tokens", type=positive_int, default=SamplingConfig.max_tokens)
    g.add_argument("--temperature", type=nonnegative_float, default=SamplingConfig.temperature)
    g.add_argument("--top-p", type=fraction, default=SamplingConfig.top_p)
    g.add_argument("--seed", type=int, default=SamplingConfig.seed)
    g.add_argument("--batch-size", type=positive_int, default=64, help="problems per generation call")
    g.add_argument("--base-url", default="http://127.0.0.1:8000/v1", help="openai: server URL")
    g.add_argument("--max-concurrency", type=positive_int, default=8, help="openai: parallel requests")
    g.add_argument("--tensor-parallel-size", type=positive_int, default=1, help="vllm: GPUs per model")
    g.add_argument("--distributed-executor-backend", choices=("mp", "ray"), help="vllm: e.g. ray")
    g.add_argument("--engine-arg", action="append", metavar="KEY=VALUE",
                   help="vllm: any vllm.LLM argument, e.g. data_parallel_size=4 (repeatable)")
    g.add_argument("--dtype", default="bfloat16", help="hf: torch dtype")
    g.add_argument("--device", default="cpu", help="hf: torch device")
    g.add_argument("--hf-batch-size", type=positive_int, default=4, help="hf: prompts per forward batch")
    g.add_argument("--extractor", choices=("rules", "llm"), default="rules",
                   help="llm: also ask the backend's model for nodes (JSON)")
    _add_refine_args(b)
    b.set_defaults(func=cmd_build)

    a = sub.add_parser("build-all", help="rebuild every shipped data file from the raw sources")
    a.add_argument("--raw", required=True, help="raw sources dir (see SOURCES.md)")
    a.add_argument("--out-dir", default="lm_eval_tasks/consensusbench/data")
    a.add_argument("--workdir-root", default="runs/node_builder")
    a.add_argument("--only", nargs="+", choices=list(SHIPPED), help="a subset of the files")
    a.add_argument("--extractor", choices=("rules",), default="rules", help=argparse.SUPPRESS)
    _add_refine_args(a)
    a.set_defaults(func=cmd_build_all)

    s = sub.add_parser("stats", help="node statistics of data files (JSON)")
    s.add_argument("data", nargs="+")
    s.set_defaults(func=cmd_stats)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CliError, WorkdirMismatch) as err:
        print(f"python -m node_builder: error: {err}", file=sys.stderr)
        return 2
