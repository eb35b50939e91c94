"""Command line: ``python -m node_builder {build, build-all, stats}``.

``build`` — one benchmark file::

    python -m node_builder build --benchmark gsm8k \\
        --source gsm8k:RAW/gsm8k/test.jsonl --source gsm8k-socratic:RAW/gsm8k/test_socratic.jsonl \\
        --out data/gsm8k.jsonl [--workdir runs/node_builder/gsm8k] \\
        [--backend vllm|openai|hf --model M --n 16 [--samples-only] [--extractor llm]]

Problems come from the ``--source`` importers (``KIND:PATH``, see :mod:`node_builder.importers`);
with ``--backend`` each problem also gets ``--n`` sampled trajectories (kept in the work dir's
``samples.jsonl``, so a rerun never regenerates them). The samples of one model are one voice
(the model's name); ``--source samples:WORKDIR/samples.jsonl`` brings an earlier sampling build's
samples into another build, so several models' samples become several voices. The work dir
makes the build resumable: kill it at any moment, rerun the same command, get the identical
output.

``build-all --raw RAW_DIR [--out-dir ROOT]`` — every shipped file (:mod:`node_builder.shipped`),
rule-based, no model: ``math500, gsm8k, aime24, aime25`` to ``ROOT/lm_eval_tasks/consensusbench/data/``
and ``gsm8k_train`` to ``ROOT/training_recipes/data/`` (``ROOT`` defaults to ``.``, the checkout).
``RAW_DIR`` holds the raw sources in the layout of ``node_builder/README.md`` ("Raw sources").

``stats DATA.jsonl ...`` — node statistics (the data card's figures) as JSON.

``signoff-sheet --raw RAW --benchmark NAME --out-dir DIR [--parts N]`` and
``signoff-import --sheet-dir DIR --answers FILE ... --reviewer NAME --out VERDICTS.jsonl`` — the
reviewer's round trip (:mod:`node_builder.signoff`): sheets of every problem's signable
candidates out, one answer line per problem in, verdicts merged into the benchmark's file
(``node_builder/signoffs/NAME.jsonl``, which ``build-all`` applies; ``build --signoff FILE``).

This module only parses the command line into typed settings (:class:`~node_builder.pipeline.BuildConfig`,
:class:`~node_builder.generate.GenerationConfig`) and calls :func:`node_builder.build.build_file`.

Bad input (malformed lines, bytes that are not UTF-8, missing answers, unusable problems) is
reported with file:line or problem id, skipped, counted in the summary, and the run goes on; exit
status 0 unless ``--strict``. Exit status 2 with one line, before any work and without leaving a
file behind: a missing or malformed ``--source``, one that is no regular file (a folder, except
for the kinds that read one: ``aime25``, ``runs``, ``dapo``; a FIFO or device is never read), a
source with no usable problem, an ``--out`` that is a folder, an input (a source, a file of the
work dir) or cannot be written, a work dir of other inputs or with a corrupt line, an
out-of-range setting, a ``--map`` that is not ``FIELD=NAME`` of a known field, an
``--engine-arg`` that is not ``KEY=VALUE``. A disk that fills up during the build is one line
and exit status 2 too (the work dir keeps what was built); Ctrl-C ends with one line and exit
status 130, and the same command goes on. ``stats`` on a missing file or a bad line: one line
naming the file and line, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from consensus_metrics.argtypes import fraction, nonnegative_float, positive_int
from consensus_metrics.records import loads
from node_builder.backends import BACKENDS, SamplingConfig
from node_builder.build import InputError, build_file, check_out, check_sources, default_workers
from node_builder.generate import GenerationConfig
from node_builder.pipeline import BuildConfig
from node_builder.consensus import ConsensusRule
from node_builder.refine import RefineConfig
from node_builder.shipped import SHIPPED, shipped_path, shipped_sources
from node_builder.workdir import WorkdirCorrupt, WorkdirMismatch

RAW_LAYOUT_DOC = "node_builder/README.md, 'Raw sources'"


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


def _generation_from_args(args) -> GenerationConfig | None:
    if not args.backend:
        return None
    sampling = SamplingConfig(max_tokens=args.max_tokens, temperature=args.temperature, top_p=args.top_p,
                              seed=args.seed)
    return GenerationConfig(args.backend, args.model, n=args.n, sampling=sampling, samples_only=args.samples_only,
                            batch_size=args.batch_size, options=_backend_options(args))


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
            raise InputError(f"--engine-arg {pair!r}: expected KEY=VALUE")
        try:
            out[key] = loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def key_value(text: str) -> str:
    """argparse type of ``--engine-arg``: ``KEY=VALUE`` (exit status 2 with one line otherwise)."""
    key, sep, _ = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"must be KEY=VALUE, got {text!r}")
    return text


def field_pair(text: str) -> tuple[str, str]:
    """argparse type of ``--map``: ``FIELD=NAME`` with FIELD one of the ``jsonl`` importer's fields.

    >>> field_pair("id=idx")
    ('id', 'idx')
    """
    from node_builder.importers.jsonl_dump import DEFAULT_FIELDS

    field, sep, name = text.partition("=")
    if not sep or not field or not name:
        raise argparse.ArgumentTypeError(f"must be FIELD=NAME, got {text!r}")
    if field not in DEFAULT_FIELDS:
        raise argparse.ArgumentTypeError(f"unknown field {field!r} in {text!r} (one of {', '.join(DEFAULT_FIELDS)})")
    return field, name


def _config_from_args(args, signoffs: dict | None = None) -> BuildConfig:
    refine = RefineConfig(max_nodes=args.max_nodes)
    consensus = ConsensusRule(min_share=args.min_share, min_voices=args.min_voices, fallback=not args.no_fallback)
    return BuildConfig(refine=refine, consensus=consensus, extractor="rules+llm" if args.extractor == "llm" else "rules",
                       signoffs=signoffs)


def _signoffs(path: Path | None) -> dict | None:
    from node_builder.signoff import SignoffError, load_signoffs

    if path is None:
        return None
    if not Path(path).is_file():
        raise InputError(f"--signoff {path}: no such file")
    try:
        return load_signoffs(Path(path))
    except (SignoffError, UnicodeDecodeError) as err:
        raise InputError(f"--signoff {err}") from None


def _audits(path: str, benchmark: str, shipped: dict[str, list[str]]) -> dict:
    """The audit verdicts of ``path`` on the ``shipped`` nodes (record id -> node texts of the
    ``--shipped`` data file) (``--audit``)."""
    from node_builder.signoff import SignoffError, audit_labels, text_key

    if not Path(path).is_file():
        raise InputError(f"--audit {path}: no such file")
    ships = {rid: {text_key(t) for t in texts} for rid, texts in shipped.items()}
    try:
        return audit_labels(Path(path), benchmark, ships)
    except (SignoffError, UnicodeDecodeError) as err:
        raise InputError(f"--audit {err}") from None


def _shipped_to_read(args) -> dict[str, list[str]] | None:
    """The shipped nodes a revision sheet shows (``--shipped``): all of them, or with ``--audit``
    only those neither the audits nor a second signature confirmed
    (:func:`node_builder.signoff.unconfirmed`)."""
    from node_builder.signoff import unconfirmed

    if not args.shipped:
        return None
    shipped = _node_texts(args.shipped)
    if not args.audit:
        return shipped
    return unconfirmed(shipped, _audits(args.audit, args.benchmark, shipped), _signoffs(args.revise))


def cmd_build(args) -> int:
    if args.extractor == "llm" and not args.backend:
        raise InputError("--extractor llm needs a --backend (and --model) to prompt")
    if args.backend and not args.model:
        raise InputError(f"--backend {args.backend} needs --model")
    if args.samples_only and not args.backend:
        raise InputError("--samples-only drops the imported solutions of a sampling build: it needs --backend")
    fields = dict(args.map) if args.map else None
    workdir = Path(args.workdir or f"runs/node_builder/{args.benchmark}")
    config = _config_from_args(args, _signoffs(args.signoff))
    summary = build_file(args.benchmark, args.source, Path(args.out), workdir, config,
                         _generation_from_args(args), limit=args.limit, fields=fields, quiet=args.quiet,
                         workers=args.workers)
    bad = summary["skipped_inputs"] + summary["skipped_problems"]
    return 1 if (args.strict and bad) else 0


def cmd_build_all(args) -> int:
    raw, root = Path(args.raw), Path(args.out_dir)
    if not raw.is_dir():
        raise InputError(f"--raw {raw}: not a directory (the raw sources; layout: {RAW_LAYOUT_DOC})")
    from node_builder.signoff import SIGNOFF_DIR

    names = args.only or list(SHIPPED)
    configs = {name: _config_from_args(args, _signoffs(SIGNOFF_DIR / f"{name}.jsonl")
                                       if (SIGNOFF_DIR / f"{name}.jsonl").exists() else None) for name in names}
    for name in names:  # every input and output checked before the first build starts
        try:
            check_sources(shipped_sources(name, raw))
        except InputError as err:
            raise InputError(f"--raw {raw}: {name}: {err} (layout: {RAW_LAYOUT_DOC})") from None
        check_out(shipped_path(name, root), shipped_sources(name, raw), Path(args.workdir_root) / name, "--out-dir")
    bad = 0
    for name in names:
        specs, out = shipped_sources(name, raw), shipped_path(name, root)
        workdir = Path(args.workdir_root) / name
        try:
            summary = build_file(name, specs, out, workdir, configs[name], quiet=args.quiet, workers=args.workers)
        except WorkdirMismatch as exc:  # the raw sources changed: keep the old dir, start a new one
            aside = workdir.with_name(f"{name}.old-{time.strftime('%Y%m%d-%H%M%S')}")
            workdir.rename(aside)
            print(f"build-all: {exc}; moved it to {aside}", file=sys.stderr)
            summary = build_file(name, specs, out, workdir, configs[name], quiet=args.quiet, workers=args.workers)
        bad += summary["skipped_inputs"] + summary["skipped_problems"]
    return 1 if (args.strict and bad) else 0


def cmd_stats(args) -> int:
    from node_builder.stats import STATS_END, STATS_START, file_stats, statistics_section, write_section

    if args.card:
        try:
            section = statistics_section(args.data)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        try:
            write_section(args.card, STATS_START, STATS_END, section)
        except (OSError, ValueError) as exc:
            raise InputError(f"--card {args.card}: {exc}") from None
        return 0
    try:
        report = {Path(p).name: file_stats(p) for p in args.data}
    except ValueError as exc:  # a missing file, a bad line: named with its file (and line)
        raise InputError(str(exc)) from None
    print(json.dumps(report, indent=2))
    return 0


def _id_list(path: str) -> set[str]:
    """The problem ids of a file with one id per line (blank lines and ``#`` comments aside)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise InputError(f"--only {path}: {err.strerror or err}") from None
    ids = {line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")}
    if not ids:
        raise InputError(f"--only {path}: no problem id in the file")
    return ids


def _node_texts(path: str) -> dict[str, list[str]]:
    """Record id -> its node texts, of a data file (``--shipped``); a bad line is one line naming it."""
    from node_builder.importers.jsonl_lines import read_jsonl
    from node_builder.schema import BadInput

    if not Path(path).is_file():
        raise InputError(f"--shipped {path}: no such file")
    out = {}
    for where, record in read_jsonl(path):
        if isinstance(record, BadInput):
            raise InputError(f"--shipped {record.where}: {record.reason}")
        try:
            out[record["id"]] = [node["text"] for node in record["nodes"]]
        except (KeyError, TypeError):
            raise InputError(f"--shipped {where}: not a node record (id, nodes with text)") from None
    return out


def _appeal_grounds(text: str | None) -> tuple[str, ...]:
    """``--grounds ROUTE,FRAGMENT`` as a tuple of labels an appeal hears (not GOOD); the default
    is :data:`node_builder.signoff.APPEAL_GROUNDS`."""
    from node_builder.signoff import APPEAL_GROUNDS, GOOD, LABELS

    if text is None:
        return APPEAL_GROUNDS
    grounds = tuple(dict.fromkeys(part.strip().upper() for part in text.split(",") if part.strip()))
    wrong = [label for label in grounds if label not in LABELS or label == GOOD]
    if wrong or not grounds:
        raise InputError(f"--grounds: {', '.join(wrong) or 'nothing'} is no defect label; give some of "
                         f"{', '.join(label for label in LABELS if label != GOOD)}, comma-separated")
    return grounds


def cmd_signoff_sheet(args) -> int:
    from node_builder.signoff import write_sheets

    if sum(bool(x) for x in (args.revise, args.unread, args.propose, args.forms, args.disputes, args.appeal)) > 1:
        raise InputError("--revise, --unread, --propose, --forms, --disputes and --appeal are different sheets: "
                         "give one")
    if args.appeal and not args.shipped:
        raise InputError("--appeal VERDICTS.jsonl reads the records that ship no node: give --shipped DATA.jsonl")
    if (args.grounds is not None or args.every_record) and not args.appeal:
        raise InputError("--grounds and --every-record shape an appeal: give --appeal VERDICTS.jsonl too")
    grounds = _appeal_grounds(args.grounds)
    if args.audit and not ((args.disputes or args.revise) and args.shipped):
        raise InputError("--audit AUDIT.jsonl reads what ships: give --shipped DATA.jsonl and --disputes "
                         "VERDICTS.jsonl (disputes) or --revise VERDICTS.jsonl (second signatures)")
    if args.shipped and not (args.revise or args.audit or args.appeal):
        raise InputError("--shipped DATA.jsonl narrows revision sheets: give --revise VERDICTS.jsonl too")
    if args.solutions != 1 and not args.propose:
        raise InputError("--solutions is for proposal sheets (--propose VERDICTS.jsonl)")
    if args.only and (args.forms or args.disputes or args.appeal):
        raise InputError("--only narrows label, unread, revision and proposal sheets, not --forms, --disputes "
                         "or --appeal")
    if args.source:
        specs = args.source
    elif args.raw and args.benchmark in SHIPPED:
        specs = shipped_sources(args.benchmark, Path(args.raw))
    else:
        raise InputError("give --source KIND:PATH (repeatable), or --raw RAW with a shipped --benchmark "
                         f"({', '.join(SHIPPED)})")
    check_sources(specs)
    if args.forms:
        from node_builder.signoff import write_forms_sheets

        written = write_forms_sheets(args.benchmark, specs, Path(args.out_dir), _signoffs(args.forms), args.parts,
                                     quiet=args.quiet)
    elif args.disputes:
        from node_builder.signoff import write_dispute_sheets

        written = write_dispute_sheets(args.benchmark, specs, Path(args.out_dir), _signoffs(args.disputes), args.parts,
                                       quiet=args.quiet,
                                       audits=_audits(args.audit, args.benchmark, _node_texts(args.shipped))
                                       if args.audit else None)
    elif args.appeal:
        from node_builder.signoff import write_appeal_sheets

        written = write_appeal_sheets(args.benchmark, specs, Path(args.out_dir), _signoffs(args.appeal),
                                      _node_texts(args.shipped), args.parts, quiet=args.quiet, grounds=grounds,
                                      every_record=args.every_record)
    elif args.propose:
        from node_builder.signoff import write_proposal_sheets

        written = write_proposal_sheets(args.benchmark, specs, Path(args.out_dir), _signoffs(args.propose),
                                        args.parts, quiet=args.quiet, solutions=args.solutions,
                                        only=_id_list(args.only) if args.only else None)
    else:
        written = write_sheets(args.benchmark, specs, Path(args.out_dir), args.parts, _signoffs(args.skip_signed),
                               quiet=args.quiet, revise=_signoffs(args.revise), unread=_signoffs(args.unread),
                               shipped=_shipped_to_read(args), ids=_id_list(args.only) if args.only else None)
    print(json.dumps(written), file=sys.stderr)
    return 0


def cmd_signoff_import(args) -> int:
    from node_builder.signoff import SignoffError, import_answers

    try:
        summary = import_answers(Path(args.sheet_dir), [Path(a) for a in args.answers], args.reviewer, Path(args.out),
                                 second=args.second_reviewer)
    except (SignoffError, OSError, ValueError) as err:
        raise InputError(str(err)) from None
    print(json.dumps(summary), file=sys.stderr)
    return 0


def _add_refine_args(p: argparse.ArgumentParser) -> None:
    d, rule = RefineConfig(), ConsensusRule()
    p.add_argument("--min-share", type=fraction, default=rule.min_share,
                   help="keep nodes stated by at least this share (0, 1] of the voices (default %(default)s)")
    p.add_argument("--min-voices", type=positive_int, default=rule.min_voices,
                   help="and by at least this many distinct voices (never fewer than 2 where a problem has 2; "
                        "default %(default)s)")
    p.add_argument("--max-nodes", type=positive_int, default=d.max_nodes, help="cap k, >= 1 (default %(default)s)")
    p.add_argument("--no-fallback", action="store_true",
                   help="no nodes for a problem with a single voice (nothing to agree on)")
    p.add_argument("--strict", action="store_true", help="exit 1 when anything was skipped")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.add_argument("--workers", type=positive_int, default=default_workers(),
                   help="processes building problems of a rule-based build, >= 1 (default: the cores, at most 8; "
                        "the output does not depend on it)")


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
    b.add_argument("--map", action="append", metavar="FIELD=NAME", type=field_pair,
                   help="jsonl importer field names, e.g. --map id=idx --map trajectories=code")
    g = b.add_argument_group("generation (stage 1)")
    g.add_argument("--backend", choices=BACKENDS, help="sample trajectories with this backend")
    g.add_argument("--model", help="model name or path")
    g.add_argument("--n", type=positive_int, default=16, help="samples per problem (default %(default)s)")
    g.add_argument("--samples-only", action="store_true",
                   help="drop the imported solutions (references, runs, dumps); keep the samples "
                        "(generated here and from samples: sources)")
    g.add_argument("--max-tokens", type=positive_int, default=SamplingConfig.max_tokens)
    g.add_argument("--temperature", type=nonnegative_float, default=SamplingConfig.temperature)
    g.add_argument("--top-p", type=fraction, default=SamplingConfig.top_p)
    g.add_argument("--seed", type=int, default=SamplingConfig.seed)
    g.add_argument("--batch-size", type=positive_int, default=64, help="problems per generation call")
    g.add_argument("--base-url", default="http://127.0.0.1:8000/v1", help="openai: server URL")
    g.add_argument("--max-concurrency", type=positive_int, default=8, help="openai: parallel requests")
    g.add_argument("--tensor-parallel-size", type=positive_int, default=1, help="vllm: GPUs per model")
    g.add_argument("--distributed-executor-backend", choices=("mp", "ray"), help="vllm: e.g. ray")
    g.add_argument("--engine-arg", action="append", metavar="KEY=VALUE", type=key_value,
                   help="vllm: any vllm.LLM argument, e.g. data_parallel_size=4 (repeatable)")
    g.add_argument("--dtype", default="bfloat16", help="hf: torch dtype")
    g.add_argument("--device", default="cpu", help="hf: torch device")
    g.add_argument("--hf-batch-size", type=positive_int, default=4, help="hf: prompts per forward batch")
    g.add_argument("--extractor", choices=("rules", "llm"), default="rules",
                   help="llm: also ask the backend's model for nodes (JSON)")
    b.add_argument("--signoff", metavar="VERDICTS.jsonl",
                   help="a reviewer's verdicts (node_builder.signoff): in the problems they cover, only signed nodes")
    _add_refine_args(b)
    b.set_defaults(func=cmd_build)

    a = sub.add_parser("build-all", help="rebuild every shipped data file from the raw sources")
    a.add_argument("--raw", required=True, help=f"the raw sources folder (layout: {RAW_LAYOUT_DOC})")
    a.add_argument("--out-dir", default=".", metavar="ROOT",
                   help="each file goes to its place under ROOT: lm_eval_tasks/consensusbench/data/*.jsonl, "
                        "training_recipes/data/gsm8k_train.jsonl (default: %(default)s: run it from the checkout)")
    a.add_argument("--workdir-root", default="runs/node_builder")
    a.add_argument("--only", nargs="+", choices=list(SHIPPED), help="a subset of the files")
    a.add_argument("--extractor", choices=("rules",), default="rules", help=argparse.SUPPRESS)
    _add_refine_args(a)
    a.set_defaults(func=cmd_build_all)

    s = sub.add_parser("stats", help="node statistics of data files (JSON), or the data card's tables")
    s.add_argument("data", nargs="+")
    s.add_argument("--card", help="write the statistics tables into this data card (between its markers)")
    s.set_defaults(func=cmd_stats)

    sh = sub.add_parser("signoff-sheet", help="write reviewer sheets of every problem's signable candidates")
    sh.add_argument("--benchmark", required=True)
    sh.add_argument("--raw", help="the raw sources folder (a shipped benchmark's sources)")
    sh.add_argument("--source", action="append", metavar="KIND:PATH", help="or the sources themselves")
    sh.add_argument("--out-dir", required=True, help="sheets sheet1.md.. and candidates.json go here")
    sh.add_argument("--parts", type=positive_int, default=1, help="split the problems over N sheets")
    sh.add_argument("--skip-signed", metavar="VERDICTS.jsonl", help="leave out problems these verdicts cover")
    sh.add_argument("--revise", metavar="VERDICTS.jsonl",
                    help="revision sheets of the problems these verdicts cover, each candidate with its label "
                         "(answers name only the labels they change)")
    sh.add_argument("--unread", metavar="VERDICTS.jsonl",
                    help="sheets of the signable candidates these verdicts do not label yet (past an earlier "
                         "sheet's limit, or new), after what they sign; answers merge like a revision")
    sh.add_argument("--shipped", metavar="DATA.jsonl",
                    help="with --revise: revision sheets of the nodes these records ship, every one shown "
                         "without its label (a second signature on what ships); with --audit: the nodes whose "
                         "audits count; with --appeal: the records without nodes")
    sh.add_argument("--propose", metavar="VERDICTS.jsonl",
                    help="proposal sheets instead: every solved problem with what these verdicts sign, for the "
                         "reviewer to add the key results it misses (answers: JSON lines {id, propose: [texts]})")
    sh.add_argument("--forms", metavar="VERDICTS.jsonl",
                    help="forms sheets instead: the proposals of these verdicts that too few voices state as "
                         "written, each with the closest lines of every voice's solution, for the reviewer to copy "
                         "the result as the voices write it (answers: JSON lines {id, forms: {P1: [texts]}})")
    sh.add_argument("--disputes", metavar="VERDICTS.jsonl",
                    help="dispute sheets instead: the signable candidates whose writings these verdicts label "
                         "both GOOD and a defect (or a defect a later proposal contests), for a third reviewer "
                         "(answers as for the first sheets; every writing of a candidate takes the answer's "
                         "label); with --audit, also the shipped nodes the audits outvote, and a settled GOOD "
                         "they overturn (five audits or more, four in five a defect) once more, and a reopened "
                         "GOOD they go on overturning (ten or more) to a panel of three readers")
    sh.add_argument("--appeal", metavar="VERDICTS.jsonl",
                    help="appeal sheets instead: in the records that --shipped DATA.jsonl gives no node, the "
                         "candidates these verdicts label ROUTE that two voices and half of them state, without "
                         "the label, for two fresh reviewers (both answer the same sheets; import both answer "
                         "files at once with --second-reviewer: both GOOD overturn the label)")
    sh.add_argument("--every-record", action="store_true",
                    help="with --appeal: every record of --shipped DATA.jsonl, not only those without nodes")
    sh.add_argument("--grounds", metavar="LABELS",
                    help="with --appeal: the labels heard, comma-separated (default ROUTE); a label other than "
                         "ROUTE is heard on relations only (equations, inequalities, congruences)")
    sh.add_argument("--audit", metavar="AUDIT.jsonl",
                    help="with --disputes and --shipped: also a shipped node that these audit verdicts "
                         "(benchmarks/node_audit/precision.jsonl) label otherwise more often than GOOD (the "
                         "signature and the audits at least tie); with --revise and --shipped: only the shipped "
                         "nodes that neither a second signature nor every one of these audits signed GOOD")
    sh.add_argument("--solutions", type=positive_int, default=1,
                    help="proposal sheets: show the solutions of this many model voices (default 1)")
    sh.add_argument("--only", metavar="IDS", help="label, unread, revision and proposal sheets: only the problems this file lists, one id per line")
    sh.add_argument("--quiet", action="store_true")
    sh.set_defaults(func=cmd_signoff_sheet)

    im = sub.add_parser("signoff-import", help="merge a reviewer's answer lines into a verdict file")
    im.add_argument("--sheet-dir", required=True,
                    help="the signoff-sheet folder (its candidates.json; proposals.json for proposal sheets, "
                         "forms.json for forms sheets, disputes.json for dispute sheets, appeal.json for appeal "
                         "sheets)")
    im.add_argument("--answers", nargs="+", required=True,
                    help="answer files: one 'ID: 1G 2R ...' line per problem (proposals: JSON lines); on a "
                         "dispute sheet, several readers' files: their majority decides (a panel needs three)")
    im.add_argument("--reviewer", required=True, help="who signed (kept with each verdict)")
    im.add_argument("--second-reviewer", metavar="NAME",
                    help="proposal sheets: a second reviewer signed these proposals GOOD too (kept as 'second'); "
                         "appeal sheets: who wrote the second answer file")
    im.add_argument("--out", required=True, help="the verdict file to merge into (created if missing)")
    im.set_defaults(func=cmd_signoff_import)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        return args.func(args)
    except (InputError, WorkdirMismatch, WorkdirCorrupt) as err:
        print(f"python -m node_builder: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # a full disk while the work dir or --out is written: what was logged stays
        where = f" {err.filename}" if err.filename else ""
        print(f"python -m node_builder: error: cannot write{where}: {err.strerror or err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("python -m node_builder: interrupted: the work dir keeps every problem built so far; "
              "run the same command again to go on", file=sys.stderr)
        return 130
