"""The sampling path (issue 14, items 5 and 6), through the real CLI: ``build --backend ...``
generates trajectories, one model is one voice, the samples of several sampling builds merge into
one build as several voices (``--source samples:WORKDIR/samples.jsonl``), and DAPO-Math-17K
(``--source dapo:FILE.parquet``) becomes a training split the recipes read.

The slow tests sample for real with the embedded SmolLM2-135M on CPU (greedy, 32 new tokens,
2-3 problems); the 135M model is wrong on nearly everything, so records without a correct
trajectory must ship ``nodes: []`` with the note saying so. Fast tests drive the same CLI with
sample files written the way a sampling build writes them.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from consensus_metrics import coerce_nodes
from node_builder.filter import is_correct
from node_builder.importers import gsm8k, load_sources

REPO = Path(__file__).resolve().parent.parent
FIX = REPO / "tests" / "fixtures" / "node_builder"
GSM8K = FIX / "raw" / "gsm8k" / "test.jsonl"
DAPO_ROWS = FIX / "dapo_rows.jsonl"  # real rows of dapo_math_17k.parquet (see the fixtures README)
RECORD_KEYS = ["id", "benchmark", "problem", "answer", "solution", "level", "subject", "nodes", "computations",
               "provenance"]
TINY = ["--n", "2", "--max-tokens", "32", "--temperature", "0", "--hf-batch-size", "4", "--quiet"]


def _cli(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "node_builder", "build", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=900, env=env)


def _records(path):
    return [json.loads(line) for line in Path(path).read_bytes().splitlines()]


def _check_records(records, benchmark):
    """docs/SPEC.md §2 shape, the scorer's own node checks, and a note on every record without nodes."""
    for record in records:
        assert list(record) == RECORD_KEYS and record["benchmark"] == benchmark
        assert record["problem"].strip() and record["answer"].strip()
        coerce_nodes(record["nodes"])
        prov = record["provenance"]
        assert {"sources", "trajectories", "correct", "note"} <= set(prov)
        if not record["nodes"]:
            assert prov["note"], record["id"]
        if prov["correct"] == 0:
            assert record["nodes"] == [] and prov["sources"] == []
            assert prov["note"] == ("no source trajectories" if prov["trajectories"] == 0 else "no correct trajectory")


def _dapo_parquet(path, rows):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _dapo_fixture(tmp_path):
    """Three real problems (rows 10689, 2, 35) and two bad rows: a repeat of row 2 under a new
    index, a ground truth that is not an integer."""
    real = [json.loads(line) for line in DAPO_ROWS.read_bytes().splitlines()]
    repeat = {**real[1], "extra_info": {**real[1]["extra_info"], "index": 90001}}
    fraction = {**real[2], "reward_model": {"ground_truth": "3/4", "style": "rule"},
                "extra_info": {**real[2]["extra_info"], "index": 90002}}
    return _dapo_parquet(tmp_path / "dapo.parquet", real[:3] + [repeat, fraction])


def _write_samples(path, backend, problems, texts):
    """A work dir's samples.jsonl as a sampling build writes it; ``texts``: problem id -> samples."""
    lines = [json.dumps({"id": p.id, "backend": backend, "samples": texts[p.id], "problem": p.problem,
                         "answer": p.answer}) for p in problems]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# --- fast: the CLI with samples written by hand in the sampling build's format ------------------

def test_two_models_samples_merge_into_one_build_with_their_provenance(tmp_path):
    problems = gsm8k.load(GSM8K).problems[:2]
    right = "Janet sells 16 - 3 - 4 = 9 duck eggs a day, so she makes 9 * 2 = $18. The answer is \\boxed{18}."
    alpha = _write_samples(tmp_path / "wa" / "samples.jsonl", "vllm:org/Alpha-7B", problems,
                           {"gsm8k/test/0": [right, "\\boxed{17}"], "gsm8k/test/1": ["\\boxed{4}", "\\boxed{5}"]})
    beta = _write_samples(tmp_path / "wb" / "samples.jsonl", "hf:/models/Beta-1B", problems,
                          {"gsm8k/test/0": [right], "gsm8k/test/1": ["It takes 2 + 2 = 4 bolts: \\boxed{4}"]})
    run = _cli("--benchmark", "gsm8k", "--source", f"gsm8k:{GSM8K}", "--source", f"samples:{alpha}",
               "--source", f"samples:{beta}", "--limit", "2", "--out", tmp_path / "out.jsonl",
               "--workdir", tmp_path / "w", "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    records = _records(tmp_path / "out.jsonl")
    _check_records(records, "gsm8k")
    first, second = (r["provenance"] for r in records)
    assert (first["trajectories"], first["correct"]) == (4, 3)  # the reference, 2 + 1 samples
    assert first["sources"] == ["reference", "sample:hf:/models/Beta-1B", "sample:vllm:org/Alpha-7B"]
    assert (second["trajectories"], second["correct"], second["sources"]) == (4, 1, ["reference"])


def test_samples_only_without_a_backend_is_refused(tmp_path):
    run = _cli("--benchmark", "gsm8k", "--source", f"gsm8k:{GSM8K}", "--samples-only", "--out", tmp_path / "o.jsonl",
               "--workdir", tmp_path / "w", cwd=tmp_path)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert "--samples-only drops the imported solutions of a sampling build: it needs --backend" in run.stderr
    assert not (tmp_path / "w").exists()


def test_dapo_without_a_backend_ships_empty_records_that_say_why(tmp_path):
    source = _dapo_fixture(tmp_path)
    args = ["--benchmark", "dapo", "--source", f"dapo:{source}", "--out", tmp_path / "out.jsonl",
            "--workdir", tmp_path / "w", "--quiet"]
    run = _cli(*args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    records = _records(tmp_path / "out.jsonl")
    assert [r["id"] for r in records] == ["dapo/10689", "dapo/2", "dapo/35"]
    _check_records(records, "dapo")
    assert {r["provenance"]["note"] for r in records} == {"no source trajectories"}
    assert run.stderr.splitlines() == [
        f"skipped {source}:row 3 (dapo/90001): duplicate of row 1 (dapo/2): same statement and answer",
        f"skipped {source}:row 4: ground truth '3/4' is not an integer"]
    assert _cli(*args, "--strict", cwd=tmp_path).returncode == 1  # something was skipped


def test_dapo_a_source_that_is_not_parquet_is_one_clear_line(tmp_path):
    source = tmp_path / "dapo.parquet"
    source.write_text("data_source,prompt\nDAPO-17k,1+1?\n")
    run = _cli("--benchmark", "dapo", "--source", f"dapo:{source}", "--out", tmp_path / "o.jsonl",
               "--workdir", tmp_path / "w", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    skipped, error = run.stderr.strip().splitlines()
    assert skipped.startswith(f"skipped {source}: not a readable parquet file (")
    assert error.endswith(f"no usable problem in the sources (1 skipped): dapo:{source}")
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "w").exists()


# --- slow: real sampling with the embedded SmolLM2-135M on CPU ----------------------------------

@pytest.fixture(scope="module")
def smollm2() -> Path:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from models.embedded_model import ensure_embedded_model

    return ensure_embedded_model()


def _check_samples(workdir, backend, ids, problems_by_id):
    entries = _records(workdir / "samples.jsonl")
    assert [e["id"] for e in entries] == ids
    for entry in entries:
        assert entry["backend"] == backend and len(entry["samples"]) == 2
        assert (entry["problem"], entry["answer"]) == problems_by_id[entry["id"]]
    return {e["id"]: e["samples"] for e in entries}


def _check_correct_counts(records, samples, with_reference):
    """Each record's counts are what the metric's own check says of its trajectories (the
    reference is correct by provenance); nothing is assumed about the 135M model's answers."""
    for record in records:
        texts = [t for per_model in samples for t in per_model[record["id"]]]
        correct = sum(is_correct(record["answer"], t) for t in texts) + with_reference
        prov = record["provenance"]
        assert (prov["trajectories"], prov["correct"]) == (len(texts) + with_reference, correct)


@pytest.mark.slow
def test_gsm8k_sampling_builds_of_two_models_are_two_voices(smollm2, tmp_path):
    """Item 5: a samples-only build of model A; a build of model B on the reference plus A's
    samples; then the two work dirs merged without a model give B's file byte for byte."""
    problems = {p.id: (p.problem, p.answer) for p in gsm8k.load(GSM8K).problems}
    ids = ["gsm8k/test/0", "gsm8k/test/1", "gsm8k/test/2"]
    model_a = smollm2
    model_b = tmp_path / "models" / "Other-135M"  # another name: another voice, however alike
    model_b.parent.mkdir()
    model_b.symlink_to(smollm2, target_is_directory=True)
    common = ["--benchmark", "gsm8k", "--limit", "3", "--backend", "hf", *TINY]

    run = _cli(*common, "--source", f"gsm8k:{GSM8K}", "--model", model_a, "--samples-only",
               "--workdir", tmp_path / "wa", "--out", tmp_path / "a.jsonl", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    samples_a = _check_samples(tmp_path / "wa", f"hf:{model_a}", ids, problems)
    records = _records(tmp_path / "a.jsonl")
    assert [r["id"] for r in records] == ids
    _check_records(records, "gsm8k")
    _check_correct_counts(records, [samples_a], with_reference=False)
    for record in records:
        assert set(record["provenance"]["sources"]) <= {f"sample:hf:{model_a}"}

    run = _cli(*common, "--source", f"gsm8k:{GSM8K}", "--source", f"samples:{tmp_path / 'wa' / 'samples.jsonl'}",
               "--model", model_b, "--workdir", tmp_path / "wb", "--out", tmp_path / "b.jsonl", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    samples_b = _check_samples(tmp_path / "wb", f"hf:{model_b}", ids, problems)
    records = _records(tmp_path / "b.jsonl")
    _check_records(records, "gsm8k")
    _check_correct_counts(records, [samples_a, samples_b], with_reference=True)
    assert all("reference" in r["provenance"]["sources"] for r in records)

    sources = [f"gsm8k:{GSM8K}", f"samples:{tmp_path / 'wa' / 'samples.jsonl'}",
               f"samples:{tmp_path / 'wb' / 'samples.jsonl'}"]
    merged = load_sources(sources, "gsm8k").problems[0]
    assert [t.voice for t in merged.trajectories] == ["reference"] + ["SmolLM2-135M-Instruct"] * 2 + ["Other-135M"] * 2
    run = _cli("--benchmark", "gsm8k", "--limit", "3", *[a for s in sources for a in ("--source", s)],
               "--workdir", tmp_path / "wm", "--out", tmp_path / "merged.jsonl", "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "merged.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


@pytest.mark.slow
def test_dapo_training_split_from_samples_of_the_embedded_model(smollm2, tmp_path):
    """Item 6: the DAPO importer, sampling and the build end to end on 3 problems, resumed with
    nothing regenerated, and the file read by the training recipes."""
    from training_recipes.data import load_training_split

    source = _dapo_fixture(tmp_path)
    args = ["--benchmark", "dapo", "--source", f"dapo:{source}", "--backend", "hf", "--model", smollm2, *TINY,
            "--workdir", tmp_path / "w", "--out", tmp_path / "dapo.jsonl"]
    run = _cli(*args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert [line for line in run.stderr.splitlines() if line.startswith("skipped ")] == [
        f"skipped {source}:row 3 (dapo/90001): duplicate of row 1 (dapo/2): same statement and answer",
        f"skipped {source}:row 4: ground truth '3/4' is not an integer"]
    ids = ["dapo/10689", "dapo/2", "dapo/35"]
    records = _records(tmp_path / "dapo.jsonl")
    assert [(r["id"], r["answer"]) for r in records] == [("dapo/10689", "225"), ("dapo/2", "-3"), ("dapo/35", "64")]
    _check_records(records, "dapo")
    problems = {r["id"]: (r["problem"], r["answer"]) for r in records}
    samples = _check_samples(tmp_path / "w", f"hf:{smollm2}", ids, problems)
    _check_correct_counts(records, [samples], with_reference=False)

    before = (tmp_path / "w" / "samples.jsonl").read_bytes(), (tmp_path / "dapo.jsonl").read_bytes()
    again = _cli(*args, "--strict", cwd=tmp_path)  # all done: nothing generated, same file; 2 rows skipped
    assert again.returncode == 1
    assert ((tmp_path / "w" / "samples.jsonl").read_bytes(), (tmp_path / "dapo.jsonl").read_bytes()) == before

    split = load_training_split(tmp_path / "dapo.jsonl")
    assert split["id"] == ids and split["answer"] == ["225", "-3", "64"]
    assert split[0]["prompt"][0]["content"].startswith("Compute $\\gcd(6^210^2,15^4)$.")
    assert [len(row["nodes"]) for row in split] == [len(r["nodes"]) for r in records]
