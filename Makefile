# plpuzzle: `make run` (the main job) and `make test` both set everything up
# first: SWI-Prolog from Debian's swi-prolog-nox, a virtual environment in
# .venv, and the package with its dependencies. Re-running is cheap.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLE := puzzles/sudoku/consecutive/test001d.txt

.PHONY: help setup swipl run test lint clean

help:
	@echo "make run    solve the bundled puzzles with both engines and cross-check them"
	@echo "make test   run the test suite (ruff + pytest)"
	@echo "make setup  only install: SWI-Prolog, .venv and the package"
	@echo "make clean  remove .venv and generated files"

setup: swipl $(STAMP)

# SWI-Prolog: apt-get as root, through sudo otherwise; say what to do if
# neither is possible.
swipl:
	@if ! command -v swipl >/dev/null 2>&1; then \
	  echo "Installing SWI-Prolog (Debian package swi-prolog-nox)..."; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; \
	  elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; \
	  else echo "plpuzzle needs SWI-Prolog 9: install the Debian package swi-prolog-nox (as root: apt-get install swi-prolog-nox), then run make again." >&2; exit 1; fi; \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "plpuzzle needs SWI-Prolog 9 (swipl on PATH); this system has no apt-get, so install it with your package manager and run make again." >&2; exit 1; fi; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq swi-prolog-nox >/dev/null || \
	  { echo "Installing swi-prolog-nox failed; install SWI-Prolog 9 by hand and run make again." >&2; exit 1; }; \
	fi
	@swipl --version

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

run: setup
	@echo "== The example puzzle of the assignment ($(EXAMPLE)):"
	@cat $(EXAMPLE)
	@echo "== Its solutions, Prolog engine (prolog/sudoku.pl through pyswip):"
	@$(BIN)/plpuzzle sudoku solve $(EXAMPLE) --engine prolog --stats
	@echo "== Its solutions, pure-Python reference engine:"
	@$(BIN)/plpuzzle sudoku solve $(EXAMPLE) --engine python --stats
	@echo "== Both engines on every bundled puzzle, against the expected solutions:"
	@$(BIN)/plpuzzle sudoku check puzzles/sudoku/consecutive/test*d.txt
	@echo "== The bundled suite through the test runner (printed solutions go to tests_out/):"
	@$(BIN)/plpuzzle sudoku test puzzles/sudoku/consecutive --engine both

test: setup
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests

clean:
	rm -rf $(VENV) tests_out .pytest_cache .ruff_cache python/*.egg-info
