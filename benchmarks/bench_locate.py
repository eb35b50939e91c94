"""How well and how fast the step locator finds the first wrong step, on the development data.

    python benchmarks/bench_locate.py --raw RAW          # RAW: node_builder/README.md, 'Raw sources'

Prints ProcessBench's metric (F1 = harmonic mean of the accuracy on erroneous solutions --
exactly the earliest wrong step -- and on error-free ones -- no step) of
``consensus_metrics.locate.locate_first_error`` with today's shipped nodes, and its cost:

* **GSM8K** -- the 200 AutoRace chains of ``RAW/trajectories/llm_reasoners/process`` (a human
  verdict on each whole chain). Step F1 against the step labels of
  ``benchmarks/data/gsm8k_autorace_step_labels.json`` (one reader's labels of the wrong chains;
  the file says how they were made), and chain F1 against the human verdicts alone (a wrong chain
  counts as found when any step is named);
* **MATH-500** -- PRMBench's process files (``RAW/trajectories/prmbench/process``): PRM800K GPT-4
  solutions (error-free, each once) and copies with an inserted error of eight kinds (the label is
  the earliest ``error_steps``). Inserted errors are a proxy for the natural errors of
  model-written solutions that ProcessBench labels.

The final-answer verdict is what ``python -m consensus_metrics locate`` uses when a row has none:
the last step that marks an answer, checked against the gold with math-verify; a solution
without a marked answer gets an unknown verdict (most PRMBench solutions: their last step is
``Right.`` or a restatement). PRMBench is therefore also shown on the rows whose verdict is known,
and "ProcessBench-like": those, less the "error-free" originals whose answer does not verify
(ProcessBench's error-free solutions all reach the right answer; PRM800K's do not always).

Each figure is shown on two halves as well: GSM8K by line (odd/even), PRMBench by problem
(CRC-32 of the problem text). The rules were designed looking at all of this data, so neither
half is a clean held-out set; the halves show how much the figure moves with the sample.
"naive" is the rule the issue quotes: wrong answer -> the step after the last step that reaches a
new node, right answer -> none.

**Model-written solutions** (the second labelled set, held out from the rule design): the wrong
final answers of five real runs with the earliest wrong paragraph labelled in
``benchmarks/data/model_step_labels.json`` (a second reader; the file says how), and as many
right answers of each run (taken as error-free), split into paragraphs (:func:`paragraph_steps`).

**Independently labelled solutions** (``benchmarks/data/independent_step_labels.jsonl``, ProcessBench's
layout, so ``python -m consensus_metrics locate --solutions`` reads it as it is): 15 wrong and 15 right
answers (our ``acc``) of each of six runs used nowhere above (GSM8K: GPT-4 and gpt-3.5-turbo of
Faithful-CoT, text-davinci-003 of Re-reading; MATH-500: Qwen2.5-32B-Instruct, Rho-Math-7B's
chain of thought, Sky-T1-32B-short), fixed order (CRC-32 of the trajectory's ``file:line``), 2 to 20
steps of :func:`consensus_metrics.steps.split_steps` and at most 5,000 characters; every step of
each solution read by one of six reviewer sessions that never saw the rules, the code or the
locator's output, with ProcessBench's guideline (``why`` gives the error; two GSM8K rows whose
gold answer the reviewer found wrong are left out). Right answers may hold an error and wrong
ones none, as in ProcessBench. The same guideline gave a second, blind reading of the wrong answers
of the model-written set above (``second`` in its label file): how far two readers agree.

**Held-out solutions** (``benchmarks/data/held_out_step_labels.jsonl``, the same layout and
guideline): 179 solutions of seven runs used in no set above (GSM8K: DBRX, text-davinci-002,
Rho-Math-1B, their one-line chains cut into sentences; MATH-500: Rho-Math-1B, QwQ,
Sky-T1-math-correct-5K-27B, Qwen2.5-32B-Instruct's other prompt), up to 15 wrong and 15 right
answers of each, every step read by one of six reviewer sessions; labelled after the rules of
round two, and no rule since has been designed on its rows (benchmarks/README.md says how it was
made and what it was used for).

The error-free side is also measured where ProcessBench's comes from, model-written solutions:
the right answers (our ``acc``) of four real runs in ``RAW/trajectories`` (SkyThought's greedy
MATH-500 runs of Qwen2.5-14B-Instruct, Qwen2.5-Math-7B and gemma-2-27b-it; Rho-Math-7B's GSM8K
chain-of-thought run), split into paragraphs: the share where no step is named (the rest are
false computations; some are real slips, listed).

Cost: CPU time of ``locate_first_error`` per solution (node matching included, the answer verdict
not: it is math-verify's, shown apart), one process, one core, first pass over the files (no
warm caches but the ones a real run builds as it goes). As ``python -m consensus_metrics locate``
does, the rows read are settled out of the garbage collector's way before locating starts
(:mod:`consensus_metrics.heap`); the measured time includes the collections locating itself causes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
import zlib
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from consensus_metrics import _native, locate  # noqa: E402
from consensus_metrics.heap import settle  # noqa: E402
from consensus_metrics.locate import locate_first_error  # noqa: E402
from consensus_metrics.locate_cli import Tally, answer_verdict, load_node_records, problem_key  # noqa: E402
from consensus_metrics.step_files import LabelledSolution, read_labelled_solutions  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "lm_eval_tasks", "consensusbench", "data")
LABELS = os.path.join(HERE, "data", "gsm8k_autorace_step_labels.json")
MODEL_LABELS = os.path.join(HERE, "data", "model_step_labels.json")
INDEPENDENT = os.path.join(HERE, "data", "independent_step_labels.jsonl")
HELD_OUT = os.path.join(HERE, "data", "held_out_step_labels.jsonl")
AUTORACE = os.path.join("trajectories", "llm_reasoners", "process", "gsm8k_human_labels@6538cc0.jsonl")
PRMBENCH = os.path.join("trajectories", "prmbench", "process")
BAD: list[str] = []
MODEL_RUNS = (("math500", os.path.join("trajectories", "skythought", "math500", "Qwen2.5-14B-Instruct@f7bcf0b.jsonl")),
              ("math500", os.path.join("trajectories", "skythought", "math500", "Qwen2.5-Math-7B@f7bcf0b.jsonl")),
              ("math500", os.path.join("trajectories", "skythought", "math500", "gemma-2-27b-it@f7bcf0b.jsonl")),
              ("gsm8k", os.path.join("trajectories", "rho", "gsm8k", "rho-math-7b-v0.1@3296590.jsonl")))


def gsm8k_rows(raw: str):
    """AutoRace rows with the step labels of :data:`LABELS` (``label``) and the human verdict
    (``chain``: -1 right, ``None`` wrong)."""
    labels = {item["line"]: item for item in json.load(open(LABELS, encoding="utf-8"))["labels"]}
    rows = []
    for row in read_labelled_solutions(os.path.join(raw, AUTORACE)):
        if not isinstance(row, LabelledSolution):
            raise SystemExit(f"{row.where}: {row.reason}")
        line = int(row.where.rsplit(":", 1)[1])
        item = labels.get(line)
        if item is not None and not row.problem.startswith(item["question_start"]):
            raise SystemExit(f"{LABELS}: line {line} names another question")
        step_label = item["label"] if item is not None else row.label
        rows.append({"row": row, "label": step_label, "chain": row.label, "half": line % 2,
                     "kind": "gsm8k"})
    return rows


def prmbench_rows(raw: str):
    """PRMBench rows: every modified solution, and each original solution once (by its idx); bad
    rows (an error step outside the solution) are left out and counted in ``BAD``."""
    rows, seen = [], set()
    folder = os.path.join(raw, PRMBENCH)
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".jsonl"):
            continue
        kind = name.split("_4o_", 1)[-1][:-len(".jsonl")]
        idx_of = {}
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            for lineno, line in enumerate(handle, start=1):
                idx_of[lineno] = json.loads(line).get("idx")
        for row in read_labelled_solutions(os.path.join(folder, name)):
            if not isinstance(row, LabelledSolution):
                BAD.append(f"{os.path.basename(row.where)}: {row.reason}")
                continue
            original = row.where.endswith(":original")
            lineno = int(row.where.split(":")[-2 if original else -1])
            if original:
                if idx_of[lineno] in seen:
                    continue
                seen.add(idx_of[lineno])
            rows.append({"row": row, "label": row.label, "chain": row.label,
                         "half": zlib.crc32(problem_key(row.problem).encode()) % 2,
                         "kind": "original" if original else kind})
    return rows


def right_answers(raw: str, records, budget: float):
    """``(run, located)`` for every right answer (our acc) of :data:`MODEL_RUNS` whose problem has
    a record: the text split into paragraphs, the verdict given."""
    from consensus_metrics.answer import check_answer
    from consensus_metrics.budget import Deadline

    out = []
    for benchmark, path in MODEL_RUNS:
        name = os.path.basename(path).split("@")[0]
        with open(os.path.join(raw, path), encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                record = records.get(problem_key(row["question"]))
                text = row["code"][0]
                if name.startswith("rho"):
                    text = text.replace("\\\\", "\\")  # Rho's CoT text doubles its backslashes
                if record is None or not check_answer(text, record["answer"], Deadline(budget))["acc"]:
                    continue
                out.append((name, locate_first_error(text, record["nodes"], answer_correct=True,
                                                     problem=row["question"], budget_s=budget, gold=record["answer"],
                                                     computations=record["computations"])))
    return out


_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_HEADING = re.compile(r"(?:#{1,6}\s|\*\*|__)[^\n]{0,100}\Z")


def model_text(path: str, row: dict) -> tuple[str, str]:
    """``(problem, solution text)`` of a row of one of the model runs in :data:`MODEL_LABELS`."""
    if "input" in row:  # Re-reading runs (GSM8K)
        return row["input"], ((row.get("cot") or {}).get("generation") or [""])[0] or ""
    return row["question"], row["code"][0]  # SkyThought runs (MATH-500)


def paragraph_steps(text: str) -> tuple[list, list]:
    """``(steps, owner)``: the paragraphs of ``text`` with a heading-only paragraph and one that ends
    with ':' joined to the next (ProcessBench's steps are logical paragraphs); ``owner[k]`` is the
    step that holds paragraph ``k``."""
    paragraphs = [p.strip() for p in _PARAGRAPH.split(text.strip()) if p.strip()]
    steps, owner, pending = [], [], []
    for k, para in enumerate(paragraphs):
        pending.append(para)
        owner.append(len(steps))
        if k + 1 < len(paragraphs) and (para.endswith(":") or _HEADING.match(para)):
            continue
        steps.append("\n\n".join(pending))
        pending = []
    return steps, owner


def model_rows(raw: str, records, budget: float):
    """The labelled wrong answers of :data:`MODEL_LABELS` and as many right answers (our acc) of each
    run, in the same fixed order (CRC-32 of 'file:line'), taken as error-free (label -1). Rows carry
    ``verdict`` (the answer check) and ``steps`` (:func:`paragraph_steps`)."""
    from consensus_metrics.answer import check_answer
    from consensus_metrics.budget import Deadline

    doc = json.load(open(MODEL_LABELS, encoding="utf-8"))
    labelled = [item for item in doc["labels"] if item["label"] is not None]
    rows = []
    for path in doc["runs"]:
        with open(os.path.join(raw, "trajectories", path), encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        mine = [item for item in labelled if item["file"] == path]
        for item in mine:
            problem, text = model_text(path, json.loads(lines[item["line"] - 1]))
            if not problem.startswith(item["question_start"]):
                raise SystemExit(f"{MODEL_LABELS}: {path}:{item['line']} names another question")
            steps, owner = paragraph_steps(text)
            rows.append({"problem": problem, "steps": steps, "label": owner[item["label"]], "verdict": False,
                         "second": (item.get("second") or {}).get("step"),
                         "benchmark": item["benchmark"], "run": path,
                         "half": zlib.crc32(problem_key(problem).encode()) % 2})
        right = []
        for lineno in sorted(range(1, len(lines) + 1), key=lambda n: zlib.crc32(f"{path}:{n}".encode())):
            if len(right) == len(mine):
                break
            problem, text = model_text(path, json.loads(lines[lineno - 1]))
            record = records.get(problem_key(problem))
            steps, _ = paragraph_steps(text)
            if record is None or not 2 <= len(steps) <= 20 or len(text) > 5000:
                continue
            if check_answer(text, record["answer"], Deadline(budget))["acc"]:
                right.append({"problem": problem, "steps": steps, "label": -1, "verdict": True,
                              "benchmark": mine[0]["benchmark"], "run": path,
                              "half": zlib.crc32(problem_key(problem).encode()) % 2})
        rows.extend(right)
    settle()  # as the locate command does once its inputs are read (consensus_metrics/heap.py)
    for item in rows:
        record = records[problem_key(item["problem"])]
        t = time.process_time()
        item["loc"] = locate_first_error(item["steps"], record["nodes"], answer_correct=item["verdict"],
                                         problem=item["problem"], budget_s=budget, gold=record["answer"],
                                         computations=record["computations"])
        item["cpu_ms"] = (time.process_time() - t) * 1000
        item["naive"] = _naive(item["loc"], item["verdict"])
    return rows


def labelled_rows(path: str, records, budget: float):
    """The rows of a set in ProcessBench's layout (:data:`INDEPENDENT`, :data:`HELD_OUT`: every
    step of wrong *and* right answers read by a reviewer; ``final_answer_correct`` is our ``acc``),
    located by :func:`locate_all`; rows carry ``label``, ``benchmark`` and ``generator`` too."""
    with open(path, encoding="utf-8") as handle:
        generators = [json.loads(line)["generator"] for line in handle if line.strip()]
    rows = []
    for row, generator in zip(read_labelled_solutions(path), generators):
        if not isinstance(row, LabelledSolution):
            raise SystemExit(f"{row.where}: {row.reason}")
        rows.append({"row": row, "label": row.label, "benchmark": row.subset, "generator": generator})
    settle()
    locate_all(rows, records, budget)  # every row has its verdict: no answer check runs
    return rows


def print_labelled_set(rows) -> None:
    """F1 per benchmark and per generator of a set in ProcessBench's layout, and where its wrong answers'
    steps were named."""
    for bench in ("gsm8k", "math500"):
        mine = [i for i in rows if i["benchmark"] == bench]
        print(line(f"{'GSM8K' if bench == 'gsm8k' else 'MATH-500'} ({len(mine)} solutions)", mine))
        for generator in dict.fromkeys(i["generator"] for i in mine):
            print(line(f"  {generator[:32]}", [i for i in mine if i["generator"] == generator]))
    wrong = [i for i in rows if i["label"] != -1 and i["verdict"] is False]
    early = sum(1 for i in wrong if i["loc"].step is not None and i["loc"].step < i["label"])
    late = sum(1 for i in wrong if i["loc"].step is not None and i["loc"].step > i["label"])
    print(f"wrong answers with a labelled step {len(wrong)}: exact step {pct(figures(wrong)['erroneous_acc'])} %, "
          f"{early} named too early, {late} too late, {sum(1 for i in wrong if i['loc'].step is None)} none; "
          f"right answers with a labelled error {sum(1 for i in rows if i['label'] != -1 and i['verdict'])}, "
          f"wrong answers labelled error-free {sum(1 for i in rows if i['label'] == -1 and not i['verdict'])}; "
          f"signals that named the step: {kinds_of(rows)}")


def locate_all(rows, records, budget: float):
    """Locate every row; adds ``verdict``, ``loc``, ``cpu_ms``, ``naive``; returns verdict CPU ms."""
    verdict_ms = []
    for item in rows:
        row, record = item["row"], records[problem_key(item["row"].problem)]
        t = time.perf_counter()
        item["verdict"] = row.answer_correct if row.answer_correct is not None else \
            answer_verdict(row.steps, record["answer"], budget)
        verdict_ms.append((time.perf_counter() - t) * 1000)
        t = time.process_time()
        loc = locate_first_error(row.steps, record["nodes"], answer_correct=item["verdict"], problem=row.problem,
                                 budget_s=budget, gold=record["answer"], computations=record["computations"])
        item["cpu_ms"] = (time.process_time() - t) * 1000
        item["loc"] = loc
        item["naive"] = _naive(loc, item["verdict"])
    return verdict_ms


def _naive(loc, verdict):
    """The issue's naive rule on the same trace: wrong answer -> the step after the last step that
    reaches a new node (the first step when none does); otherwise none."""
    if verdict is not False or not loc.n_steps:
        return None
    last = max((i for i, ids in enumerate(loc.trace) if ids and (i == 0 or len(ids) > len(loc.trace[i - 1]))),
               default=-1)
    return min(last + 1, loc.n_steps - 1)


def figures(items, key="label", predicted=lambda item: item["loc"].step) -> dict:
    tally = Tally()
    for item in items:
        tally.add(item[key], predicted(item))
    return tally.figures()


def pct(value) -> str:
    return "  —  " if value is None else f"{100 * value:5.1f}"


def line(name: str, items, key="label", chain=False) -> str:
    f = figures(items, key)
    naive = figures(items, key, lambda item: item["naive"])
    if chain:
        return (f"{name:34s} wrong chains {f['wrong_chains']:4d} found {pct(f['wrong_chains_found'])}  "
                f"right {f['error_free']:4d} acc {pct(f['error_free_acc'])}  chain F1 {pct(f['chain_f1'])}"
                f"   (naive {pct(naive['chain_f1'])})")
    return (f"{name:34s} erroneous {f['erroneous']:4d} acc {pct(f['erroneous_acc'])}  error-free {f['error_free']:4d} "
            f"acc {pct(f['error_free_acc'])}  F1 {pct(f['f1'])}   (naive {pct(naive['f1'])})")


def kinds_of(items) -> str:
    counts = defaultdict(int)
    for item in items:
        if item["loc"].kind:
            counts[item["loc"].kind] += 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", default=os.environ.get("CONSENSUSBENCH_RAW"),
                        help="the raw sources folder (default $CONSENSUSBENCH_RAW)")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per solution (default 1.0)")
    parser.add_argument("--dense-share", type=float, default=None, metavar="S",
                        help="signal 3's share of a solution's values on nodes before a value on none is suspect "
                             f"from the start (default consensus_metrics.locate.DENSE_SHARE, {locate.DENSE_SHARE}; "
                             "above 1: never)")
    args = parser.parse_args(argv)
    if args.dense_share is not None:
        locate.DENSE_SHARE = args.dense_share  # read at call time: a sweep of the one tuned constant
    if not args.raw or not os.path.isdir(os.path.join(args.raw, PRMBENCH)):
        print("--raw: give the raw sources folder (it holds trajectories/prmbench/process)", file=sys.stderr)
        return 2
    records, _ = load_node_records([os.path.join(DATA, "gsm8k.jsonl"), os.path.join(DATA, "math500.jsonl")],
                                   lambda message: print(message, file=sys.stderr))
    compiled = _native.native_modules()
    print(f"build: {'compiled (Cython) ' + ', '.join(compiled) if compiled else 'pure Python source'}")
    gsm, prm = gsm8k_rows(args.raw), prmbench_rows(args.raw)
    settle()  # as the locate command does once its inputs are read (consensus_metrics/heap.py)
    verdict_ms = locate_all(gsm, records, args.budget) + locate_all(prm, records, args.budget)

    print("\n== GSM8K: AutoRace chains, step labels of benchmarks/data/gsm8k_autorace_step_labels.json")
    print(line("all 200 chains", gsm))
    for half in (0, 1):
        print(line(f"  {'odd' if half else 'even'} lines", [i for i in gsm if i["half"] == half]))
    print(line("human verdicts (chain level)", gsm, key="chain", chain=True))
    wrong = [i for i in gsm if i["verdict"] is False and i["label"] != -1]
    print(f"wrong-answer chains {len(wrong)}: exact step {pct(figures(wrong)['erroneous_acc'])} %; "
          f"signals that named the step (all chains): {kinds_of(gsm)}")

    print("\n== MATH-500: PRMBench process files (inserted errors; originals once each)")
    print(line("all rows", prm))
    for half in (0, 1):
        print(line(f"  problems of half {half}", [i for i in prm if i["half"] == half]))
    known = [i for i in prm if i["verdict"] is not None]
    print(line(f"final answer known ({len(known)} of {len(prm)})", known))
    for half in (0, 1):
        print(line(f"  problems of half {half}", [i for i in known if i["half"] == half]))
    like = [i for i in known if i["label"] != -1 or i["verdict"] is True]
    print(line("ProcessBench-like", like))
    for half in (0, 1):
        print(line(f"  problems of half {half}", [i for i in like if i["half"] == half]))
    originals = [i for i in prm if i["kind"] == "original"]
    for kind in sorted({i["kind"] for i in prm} - {"original"}):
        print(line(f"  {kind}", originals + [i for i in prm if i["kind"] == kind]))
    if BAD:
        print(f"left out {len(BAD)} bad rows, e.g. {BAD[0]}")
    wrong = [i for i in prm if i["verdict"] is False and i["label"] != -1]
    early = sum(1 for i in wrong if i["loc"].step is not None and i["loc"].step < i["label"])
    late = sum(1 for i in wrong if i["loc"].step is not None and i["loc"].step > i["label"])
    print(f"wrong-answer rows {len(wrong)}: exact step {pct(figures(wrong)['erroneous_acc'])} %, "
          f"{early} named too early, {late} too late; "
          f"without nodes {sum(1 for i in prm if not records[problem_key(i['row'].problem)]['nodes'])} of {len(prm)} rows; "
          f"signals that named the step: {kinds_of(prm)}")

    print("\n== model-written solutions: wrong answers with step labels of benchmarks/data/model_step_labels.json, "
          "as many right answers of each run (taken as error-free)")
    model = model_rows(args.raw, records, args.budget)
    for bench in ("gsm8k", "math500"):
        mine = [i for i in model if i["benchmark"] == bench]
        print(line(f"{'GSM8K' if bench == 'gsm8k' else 'MATH-500'} ({len(mine)} solutions)", mine))
        for half in (0, 1):
            print(line(f"  problems of half {half}", [i for i in mine if i["half"] == half]))
    wrong = [i for i in model if i["label"] != -1]
    early = sum(1 for i in wrong if i["loc"].step is not None and i["loc"].step < i["label"])
    late = sum(1 for i in wrong if i["loc"].step is not None and i["loc"].step > i["label"])
    print(f"wrong answers {len(wrong)}: exact step {pct(figures(wrong)['erroneous_acc'])} %, {early} named too early, "
          f"{late} too late, {sum(1 for i in wrong if i['loc'].step is None)} none; signals that named the step: {kinds_of(model)}")
    second = [i for i in wrong if i["second"] is not None]
    if second:
        agree = sum(1 for i in second if i["second"] == i["label"])
        print(f"second reader (independent, blind to the first labels): the same step on {agree} of {len(second)} "
              f"wrong answers; F1 against its labels:")
        for bench in ("gsm8k", "math500"):
            mine = [i if i["label"] == -1 else {**i, "label": i["second"]}
                    for i in model if i["benchmark"] == bench and (i["label"] == -1 or i["second"] is not None)]
            print(line(f"  {'GSM8K' if bench == 'gsm8k' else 'MATH-500'}, second reader", mine))

    print("\n== independently labelled model-written solutions: benchmarks/data/independent_step_labels.jsonl "
          "(runs not used above; every step of wrong and right answers read by reviewers who never saw the rules)")
    fresh = labelled_rows(INDEPENDENT, records, args.budget)
    print_labelled_set(fresh)
    print("\n== held-out model-written solutions: benchmarks/data/held_out_step_labels.jsonl (seven runs used in no "
          "set above, labelled as the set above after the rules of round two; no rule was designed on its rows)")
    held_out = labelled_rows(HELD_OUT, records, args.budget)
    print_labelled_set(held_out)

    print("\n== error-free side on model-written right answers (paragraphs; a named step is a false computation)")
    right = right_answers(args.raw, records, args.budget)
    for name in dict.fromkeys(name for name, _ in right):
        mine = [loc for n, loc in right if n == name]
        named = [loc for loc in mine if loc.step is not None]
        print(f"{name:24s} right answers {len(mine):4d}  no step named {pct(1 - len(named) / len(mine))} %")
    for name, loc in right:
        if loc.step is not None:
            print(f"  {name}: {loc.reason[:110]}")

    print("\n== cost per solution (CPU, one process, first pass)")
    for name, items in (("GSM8K chains", gsm), ("PRMBench solutions", prm), ("model-written", model),
                        ("independent set", fresh), ("held-out set", held_out)):
        ms = sorted(i["cpu_ms"] for i in items)
        steps = statistics.mean(i["loc"].n_steps for i in items)
        print(f"{name:20s} locate_first_error mean {statistics.mean(ms):.2f} ms, median {ms[len(ms) // 2]:.2f}, "
              f"p95 {ms[int(0.95 * len(ms))]:.2f} (mean {steps:.1f} steps)")
    checked = [v for v in verdict_ms if v > 0]
    if checked:
        print(f"answer verdict (math-verify in the sandbox process, rows with a marked answer): mean "
              f"{statistics.mean(checked):.2f} ms wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
