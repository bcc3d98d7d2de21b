# socialbench — the two commands: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test venv clean

$(BIN)/socialbench: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,nav]'
	@touch $@

venv: $(BIN)/socialbench

# Evaluate the built-in baselines on the bundled default scenes (offline, ~1 min on 2 cores).
demo: venv
	$(BIN)/socialbench eval --benchmark socialnav-sim --model baseline:random --out runs/demo/random --no-progress
	$(BIN)/socialbench eval --benchmark socialnav-sim --model baseline:rule-based --out runs/demo/rule-based --no-progress

test: venv
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) runs .pytest_cache
