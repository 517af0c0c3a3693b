# The two commands of the README. Both create .venv and install what they need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP_RUN  := $(VENV)/.stamp-run
STAMP_TEST := $(VENV)/.stamp-test

.PHONY: run test lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev,ray]'
	touch $@ $(STAMP_RUN)

# Play Connect Four against MCTS in the terminal.
run: $(STAMP_RUN)
	$(BIN)/mctslab play connect_four --player1 human --player2 mcts:time=1,solver=1,c=0.5

lint: $(STAMP_TEST)
	$(BIN)/ruff check src tests examples benchmarks
	$(BIN)/ruff format --check src tests examples benchmarks

typecheck: $(STAMP_TEST)
	$(BIN)/mypy

pytest: $(STAMP_TEST)
	$(BIN)/pytest -n 2 --dist worksteal -q --durations=8

test: lint typecheck pytest

# Engine speed against OpenSpiel (needs the dev extras); writes benchmarks/results/engines.json;
# then tuning c and a playtesting report at Connect Four (about 15 minutes on 2 cores).
bench: $(STAMP_TEST)
	$(BIN)/python benchmarks/bench_engines.py
	$(BIN)/python benchmarks/tune_connect_four.py
	$(BIN)/python benchmarks/analyze_connect_four.py

clean:
	rm -rf $(VENV) build src/*.egg-info
