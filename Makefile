# plpuzzle: `make run` (the main job) and `make test` both set everything up
# first: SWI-Prolog from Debian's swi-prolog-nox, a virtual environment in
# .venv, and the package with its dependencies. Re-running is cheap.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLE := puzzles/sudoku/consecutive/test001d.txt
# Some machines tell Python not to write bytecode (PYTHONDONTWRITEBYTECODE).
# Then every process the tests start compiles the package again, and each
# pytest worker rewrites every test module's asserts anew (11.7 against
# 4.2 CPU-seconds to collect the tests). Python's caches go to __pycache__
# folders, which git ignores.
unexport PYTHONDONTWRITEBYTECODE

# `make test` leaves out the tests marked `slow` (a few minutes on 2 cores);
# `make test FULL=1`, or `make test-all`, runs every test, as CI (.ci/run)
# does. PYTEST_ARGS passes anything else to pytest: make test PYTEST_ARGS='-k grading'
FULL ?=
PYTEST_ARGS ?=
# Both runs spread over the cores (pytest-xdist): the time limits are CPU
# time, so a test's verdicts do not depend on the load its neighbours make.
# Two workers more than the cores (at most 6): many tests mostly wait (on a
# server, a sandbox, a deadline or a mail), and the extra workers run other
# tests in those waits. On 2 cores, under a background load, the default
# run took 17 min 20 s with 3 workers and 13 min 58 s with 4; near idle,
# 5 min 48 s with 3, 5 min 46 s with 4, 6 min 47 s with 6
# (docs/development.md, "Where the time goes"). The slow tests wait more
# (deadlines, backstops, Dask workers, services started one after another:
# with 4 workers the cores were 60 % busy), so FULL=1 runs four more than
# the cores (at most 8): on 2 cores near idle, 16 min 41 s on 6 workers
# against 17 min 25 s on 4.
# TEST_WORKERS=N overrides it. The default run leaves out the slow tests.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); \
  if [ "$(FULL)" = 1 ]; then extra=4 most=8; else extra=2 most=6; fi; \
  echo $$(( n + extra < most ? n + extra : most )))
# Work stealing (xdist's worksteal): each worker starts on a run of tests of
# its own, one module after another, and one that runs dry takes half of
# what the busiest has left. A module's once-only fixtures (a graded class,
# a Dask cluster, a browser) are then made on fewer workers, and the run
# ends with every worker busy instead of one long test running alone: under
# the same background load, the default run took 6 min 22 s instead of
# 7 min 23 s, its workers done within 11 s of each other instead of 67 s.
PYTEST_SELECT := $(if $(filter 1,$(FULL)),,-m 'not slow') -n $(TEST_WORKERS) --dist worksteal

# `make bench` settings; override on the command line: make bench JOBS=1 ONLY='test0??'
# SUITE empty: the lab's default, $PLPUZZLE_SUITE, else
# $PLPUZZLE_SHARED/bme-2013-oddsum/tests, else ../shared/bme-2013-oddsum/tests.
SUITE ?=
CONSECUTIVE ?= bench/consecutive
# Empty: the default bench/stress, skipped with a note when it is missing;
# a folder named here must exist (oddsum/ and/or consecutive/ inside).
STRESS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
TIME_LIMIT ?= 120
ONLY ?=

.PHONY: catalogues help setup swipl swipl-qlf test-deps run test test-all typecheck lint bench bench-knight bench-service bench-similarity docs docs-samples clean

help:
	@echo "make run    solve the bundled puzzles with both engines and cross-check them;"
	@echo "            then a knight's tour and a Dutch flag"
	@echo "make test   lint (ruff), type-check (mypy) and run the tests not marked slow"
	@echo "make test-all (or make test FULL=1)  the same with every test, as CI runs it"
	@echo "            (PYTEST_ARGS='-k ...' passes more arguments to pytest)"
	@echo "make typecheck  only mypy"
	@echo "make bench  time both engines beside their peers, CP-SAT, Gecode and Choco (installed"
	@echo "            first if possible, else skipped with a note), on the official suite, the"
	@echo "            consecutive set and the stress suites (bench/stress); prints the ratios"
	@echo "            to CP-SAT, the totals beside Gecode and Choco and the targets; writes"
	@echo "            bench/ (override SUITE=, CONSECUTIVE=, STRESS=, JOBS=, TIME_LIMIT=, ONLY=)"
	@echo "make bench-knight  time both knight's-tour engines; writes bench/KNIGHT.md"
	@echo "make bench-service  the deadline rush at the course's cost: 50 replayed hand-ins at"
	@echo "            once to the submission service (here and on a local Dask cluster), beside"
	@echo "            sudoku grade; one student flooding; a sign-in flood; the queueing model's"
	@echo "            cores for 400 students (JOBS=); writes bench/SERVICE.md (about 45 min)"
	@echo "make bench-similarity  precision and recall of copy detection on the labelled"
	@echo "            set (tests/fixtures/similarity_eval); exit 1 if a non-copy is reported"
	@echo "make docs   build the documentation site (docs/, mkdocs.yml) into site/"
	@echo "make docs-samples  write what each command prints today into the docs' samples"
	@echo "make setup  only install: SWI-Prolog (the libraries it loads compiled to QLF where it may write), .venv and the package"
	@echo "make clean  remove .venv and generated files"

setup: swipl $(STAMP)

# System packages: apt-get as root, through sudo otherwise; say what to do
# if neither is possible. `make run` needs SWI-Prolog (and bubblewrap for
# grading); the tests also drive a headless Chromium for the HTML report, and
# compile the red team's native attacks (a hostile student's .so) with cc, run
# the submission service on a real PostgreSQL server (and behind nginx), and check the bench's peer
# Gecode (fzn-gecode, from flatzinc) against the expected solutions.
RUN_PACKAGES := swipl:swi-prolog-nox bwrap:bubblewrap
TEST_PACKAGES := $(RUN_PACKAGES) chromium:chromium chromedriver:chromium-driver cc:gcc \
  pg_ctlcluster:postgresql fzn-gecode:flatzinc nginx:nginx
# `make bench` times Gecode beside our engines when it can: without it, a note.
PEER_PACKAGES := fzn-gecode:flatzinc

# $(1): command:package pairs, the packages installed when the command is
# missing. $(2) empty: a package that cannot be installed stops make;
# otherwise $(2) says what goes without it, in a note, and make goes on.
define install_missing
	@missing=""; for pair in $(1); do \
	  command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; \
	done; \
	give_up() { \
	  if [ -n "$(2)" ]; then echo "Note: $$1 Until then, $(2)." >&2; exit 0; fi; \
	  echo "$$1" >&2; exit 1; \
	}; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; \
	  elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; \
	  else give_up "plpuzzle needs the Debian packages$$missing: install them as root (apt-get install$$missing), then run make again."; fi; \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    case "$$missing" in *swi-prolog*) hint=" (SWI-Prolog 9 as swipl)";; *) hint="";; esac; \
	    give_up "plpuzzle needs$$missing$$hint; this system has no apt-get, so install them with your package manager and run make again."; fi; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || \
	  give_up "Installing$$missing failed; install them by hand and run make again."; \
	fi
endef

swipl:
	$(call install_missing,$(RUN_PACKAGES))
	@swipl --version
	@$(MAKE) --no-print-directory swipl-qlf

# SWI-Prolog's own libraries that plpuzzle loads (library(clpfd) and the
# dialect libraries the sandbox's loader brings in, 35 files), compiled to QLF
# beside their sources. Every start loads them (each student's sandbox, each
# Prolog engine; CI starts about 2,000): the sandbox's loader then takes
# 0.07 s of CPU instead of 0.28 s, clpfd alone 0.04 s instead of 0.2 s.
# SWI-Prolog loads a source that is newer than its QLF file (an upgrade) from
# the source, and this target compiles it again. It writes in SWI-Prolog's
# library folder: as root, through sudo without a password, or not at all
# (a note; nothing else changes).
SWI_LIBRARY_GOAL := absolute_file_name(swi(library), L, [file_type(directory)])
LOADED_LIBRARIES_GOAL := $(SWI_LIBRARY_GOAL), forall((source_file(F), \
  sub_atom(F, 0, _, _, L)), (write(F), nl))
swipl-qlf:
	@swi="swipl -q -f none --no-packs"; \
	libs=$$($$swi -g "$(LOADED_LIBRARIES_GOAL)" -t halt prolog/sandbox_loader.pl prolog/sudoku.pl); \
	stale=""; for f in $$libs; do [ "$${f%.pl}.qlf" -nt "$$f" ] || stale="$$stale $$f"; done; \
	[ -n "$$stale" ] || exit 0; \
	lib=$$($$swi -g "$(SWI_LIBRARY_GOAL), write(L)" -t halt); \
	if [ -w "$$lib" ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	else echo "Note: cannot write in $$lib: SWI-Prolog loads its libraries from source (a sandbox starts in 0.28 s of CPU, not 0.07 s)." >&2; exit 0; fi; \
	n=0; for f in $$stale; do $$sudo $$swi -g "qcompile('$$f')" -t halt || exit 1; n=$$((n + 1)); done; \
	echo "Compiled $$n of SWI-Prolog's libraries to QLF (in $$lib), which load faster than their sources"

test-deps:
	$(call install_missing,$(TEST_PACKAGES))

# The package, and the lab (lab/: the benchmarks, not part of the package).
$(STAMP): pyproject.toml lab/pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e ./lab
	@touch $@

run: setup
	@echo "== The example puzzle of the assignment ($(EXAMPLE)):"
	@cat $(EXAMPLE)
	@echo "== Its solutions, Prolog engine (prolog/sudoku.pl through pyswip):"
	@$(BIN)/plpuzzle sudoku solve $(EXAMPLE) --engine prolog --stats
	@echo "== Its solutions, pure-Python reference engine:"
	@$(BIN)/plpuzzle sudoku solve $(EXAMPLE) --engine python --stats
	@echo "== Prolog, Python and CP-SAT on every bundled puzzle, against the expected solutions:"
	@$(BIN)/plpuzzle sudoku check puzzles/sudoku/consecutive/test*d.txt
	@echo "== The bundled suite through the test runner (printed solutions go to tests_out/):"
	@$(BIN)/plpuzzle sudoku test puzzles/sudoku/consecutive --engines prolog,python
	@echo "== The other puzzles: a knight's tour of 8x8 from a1 (Prolog engine, validated):"
	@$(BIN)/plpuzzle knight tour --size 8 --start a1 --format ascii --stats
	@echo "== Both engines count the open tours of 5x5 from a corner:"
	@$(BIN)/plpuzzle knight count --size 5
	@echo "== The Dutch national flag, both engines:"
	@$(BIN)/plpuzzle flag RWBWRRB

test: setup test-deps
	$(BIN)/ruff check python lab tests
	$(BIN)/ruff format --check python lab tests
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_SELECT) $(PYTEST_ARGS)

test-all:
	$(MAKE) test FULL=1

typecheck: setup
	$(BIN)/mypy

# The outputs (bench/results.csv, bench/REPORT.md, bench/times-by-k.png) are
# deliverables, meant to be committed. The peers Gecode (Debian's flatzinc)
# and Choco (pychoco, the lab's `peers` extra) are installed first when
# possible; one that cannot be is skipped by the bench with a note.
bench: setup
	$(call install_missing,$(PEER_PACKAGES),the bench skips Gecode)
	@$(BIN)/python -c 'import pychoco' 2>/dev/null || \
	  $(BIN)/python -m pip install --quiet -e './lab[peers]' || \
	  echo "Note: pychoco (pip install -e './lab[peers]') did not install; the bench skips Choco." >&2
	$(BIN)/python -m plpuzzle_lab sudoku $(if $(SUITE),--suite '$(SUITE)') --consecutive '$(CONSECUTIVE)' --jobs $(JOBS) --time-limit $(TIME_LIMIT) \
	  $(if $(STRESS),--stress '$(STRESS)') $(if $(ONLY),--only '$(ONLY)')

# Tours on 100x100 and 1000x1000, sweeps over board sizes, counts on 5x5.
bench-knight: setup
	@mkdir -p bench
	$(BIN)/python -m plpuzzle_lab knight bench/KNIGHT.md

# The deadline rush replayed at the real course's cost (the per-test costs of
# bench/service-costs.json, measured once by `python -m plpuzzle_lab
# service-costs`): 50 students upload at once to a real `plpuzzle sudoku
# serve`, here and on a local Dask cluster, while signed-in users ask for
# pages; the same files go through `sudoku grade`; then a flooding student,
# a sign-in flood, and the queueing model.
bench-service: setup
	@mkdir -p bench
	$(BIN)/python -m plpuzzle_lab service bench/SERVICE.md --jobs $(JOBS)

# Copy detection on the labelled set: every disguised copy found, no pair
# that is no copy reported (seconds).
bench-similarity: setup
	$(BIN)/python -m plpuzzle_lab similarity-eval

# The documentation site: docs/ with the generated CLI reference and the
# bench reports included; --strict turns a broken link into an error.
docs: setup
	$(BIN)/mkdocs build --strict --site-dir site

# Write what each command prints today into the README's and docs' samples
# (tests/test_docs_samples.py compares them otherwise).
docs-samples: setup
	PLPUZZLE_UPDATE_SAMPLES=1 $(BIN)/python -m pytest -q -n 0 -m "slow or not slow" tests/test_docs_samples.py

lint: setup
	$(BIN)/ruff check python lab tests
	$(BIN)/ruff format --check python lab tests

clean:
	rm -rf $(VENV) tests_out site .pytest_cache .ruff_cache python/*.egg-info

# The messages extracted again into the template (plpuzzle.pot), merged
# into each language's .po (to translate what is new or fuzzy), and the
# .po compiled into the committed .mo (tests/test_catalogues.py checks all three).
LOCALES := python/plpuzzle/locale
catalogues: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg --no-location -o $(LOCALES)/plpuzzle.pot .
	$(BIN)/pybabel update -D plpuzzle -i $(LOCALES)/plpuzzle.pot -d $(LOCALES) --no-wrap
	$(BIN)/pybabel compile -D plpuzzle -d $(LOCALES) --statistics
