# Two commands matter (see README): `make demo` runs the main job end to end, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The CPU build of torch: an unpinned torch pulls several GB of CUDA packages. Override for a GPU box.
TORCH ?= torch==2.13.0
DEMO_QUESTION ?= Which rocket carried the Rosetta spacecraft, and from where did it launch?

.PHONY: demo test install clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e ".[dev]"
	touch $@

demo: install
	$(BIN)/judgeagent build-graph corpora/demo/docs.jsonl --out graphs/demo --overwrite
	$(BIN)/judgeagent graph-info graphs/demo --top 10
	$(BIN)/judgeagent sample-path graphs/demo --question "$(DEMO_QUESTION)" --hops 3 --seed 0

test: install
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) graphs/demo .pytest_cache
