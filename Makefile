# socialbench — the two commands: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test lint venv extras clean

$(BIN)/socialbench: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,nav,anthropic]'
	@touch $@

venv: $(BIN)/socialbench

# Evaluate the built-in baselines on the bundled default scenes (offline, ~1 min on 2 cores).
demo: venv
	$(BIN)/socialbench eval --benchmark socialnav-sim --model baseline:random --out runs/demo/random --no-progress --no-cache
	$(BIN)/socialbench eval --benchmark socialnav-sim --model baseline:rule-based --out runs/demo/rule-based --no-progress --no-cache

# Tests that need torch/transformers (hf: backend), the rag/dense/hub extras or chromium (HTML
# report) skip, with the reason, when those are absent; `make extras` installs the Python ones
# (CPU torch). Any other skip fails the run, and under CI=true (.ci/run) so do these: the
# allow-list is ALLOWED_SKIPS in tests/conftest.py.
test: venv
	$(BIN)/python -m pytest -rfEs

# Lint and type checks (configured in pyproject.toml). mypy follows the lazy imports of the
# optional extras (torch, transformers, ...), so this installs them first, as CI does.
lint: extras
	$(BIN)/ruff check
	$(BIN)/ruff format --check
	$(BIN)/mypy

extras: venv
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[test,nav,anthropic,hf,rag,dense,hub,ray,train,inspect,serve,record]'

clean:
	rm -rf $(VENV) runs .pytest_cache
