# The two commands of the README. Both create .venv and install what they need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP_RUN  := $(VENV)/.stamp-run
STAMP_TEST := $(VENV)/.stamp-test

.PHONY: run test lint typecheck imports pytest docs docs-build graphviz chromium gnugo bench clean dist

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The web lab offers the shipped networks as opponents: the nn extra (PyTorch's CPU build).
$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[web,nn]'
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev,ray,web,nn,docs,dist,pettingzoo,gymnasium,mcp]'
	touch $@ $(STAMP_RUN)

# Start the web lab (play against MCTS, watch the tree grow) and print its address.
# The server compiles the engine for the built-in games in a child process (minutes the
# first time after an install or a change of the code, seconds from numba's cache after);
# the page says when a first move waits for it.
run: $(STAMP_RUN)
	$(BIN)/mctslab serve

lint: $(STAMP_TEST)
	$(BIN)/ruff check src tests examples benchmarks
	$(BIN)/ruff format --check src tests examples benchmarks

typecheck: $(STAMP_TEST)
	$(BIN)/mypy

# The layering contracts of pyproject.toml ([tool.importlinter]): layers and no cycles.
imports: $(STAMP_TEST)
	$(BIN)/lint-imports --no-cache

# MCTSLAB_REQUIRE_BROWSER=1: the browser tests fail, not skip, without chromium;
# MCTSLAB_REQUIRE_EXTRAS=1: tests of an extra (OpenSpiel, Ray, web) fail, not skip, without it.
# `mctslab warm` first: the engine compiled once, not by both test workers at once.
pytest: $(STAMP_TEST) graphviz chromium gnugo
	$(BIN)/mctslab warm
	MCTSLAB_REQUIRE_BROWSER=1 MCTSLAB_REQUIRE_EXTRAS=1 $(BIN)/pytest -n 2 --dist worksteal -q --durations=8

test: lint typecheck imports docs-build pytest

# The documentation site (mkdocs.yml, docs/docs-site.md): `docs` builds it and serves it,
# `docs-build` builds it strictly into .site/ (a broken link, anchor or nav entry fails).
docs: docs-build
	@echo "mctslab docs: http://127.0.0.1:8001/"
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve -a 127.0.0.1:8001

docs-build: $(STAMP_TEST)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir .site

# The sdist and the wheel in dist/ (the wheel with the networks and the lessons), built in
# an isolated environment with setuptools from PyPI (13 s here; --no-isolation, against the
# venv's setuptools, 6 s), then twine checks their metadata. docs/install.md installs them.
dist: $(STAMP_TEST)
	rm -rf dist build
	$(BIN)/python -m build --outdir dist .
	$(BIN)/twine check --strict dist/*

# Graphviz's `dot` renders `mctslab tree --format svg` (Debian's graphviz package): installed when
# missing, as root or with sudo; the lock timeout waits out another apt-get (e.g. chromium's).
SUDO := $(shell [ "$$(id -u)" = 0 ] || command -v sudo)
APT  := $(SUDO) apt-get -o DPkg::Lock::Timeout=300
graphviz:
	@command -v dot >/dev/null || ($(APT) update -qq && $(APT) install -y -qq graphviz)

# The web lab's browser tests drive Debian's chromium through Playwright (flags in
# DEVELOPERS.md); Playwright's own browser download is never used.
chromium:
	@command -v chromium >/dev/null || ($(APT) update -qq && $(APT) install -y -qq chromium)

# GNU Go 3.8 (Debian's gnugo, in /usr/games) is the outside opponent of the Go tests: the
# `gtp:` player plays it and `mctslab gtp` is played against it.
gnugo:
	@command -v gnugo >/dev/null || test -x /usr/games/gnugo || ($(APT) update -qq && $(APT) install -y -qq gnugo)

# Engine speed against OpenSpiel (needs the dev extras); writes benchmarks/results/engines.json;
# PUCT against compiled UCT, mctx and a small network (benchmarks/results/puct.json, about 5
# minutes); playout rules (verdict, cut-off, random) at equal iterations (about 15 minutes);
# the shipped Connect Four network against UCT + solver and the exact solver (about 40 minutes);
# Go 9x9 playout and search speed against OpenSpiel (about 3 minutes; its matches against
# GNU Go take hours: `python benchmarks/bench_go.py strength`, resumable, see its docstring);
# then tuning c and a playtesting report at Connect Four (about 15 minutes on 2 cores), then
# Bohnenspiel's pass criterion against the reference AI at 1 s and 3 s a move (about 25 minutes).
bench: $(STAMP_TEST)
	$(BIN)/python benchmarks/bench_engines.py
	$(BIN)/python benchmarks/bench_puct.py
	$(BIN)/python benchmarks/playout_rules.py
	$(BIN)/python benchmarks/bench_training.py
	$(BIN)/python benchmarks/bench_go.py speed
	$(BIN)/python benchmarks/tune_connect_four.py
	$(BIN)/python benchmarks/analyze_connect_four.py
	$(BIN)/python benchmarks/bohnenspiel_vs_minimax.py --time 1
	$(BIN)/python benchmarks/bohnenspiel_vs_minimax.py --time 3
	$(BIN)/python benchmarks/kuhn_exploitability.py
	$(BIN)/python benchmarks/cards_and_dice.py
	$(BIN)/python benchmarks/gumbel_tic_tac_toe.py
	$(BIN)/python benchmarks/selection_rules.py
	$(BIN)/python benchmarks/tune_bohnenspiel.py

clean:
	rm -rf $(VENV) build .site src/*.egg-info
