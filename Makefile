# Two commands for a fresh machine: `make book` (build the book) and `make test` (every test).
# Each creates .venv and installs the pinned requirements first if needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BOOK_STAMP := _build/html/index.html

.PHONY: book execute test stress results bench measure lab clean install

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

## The main job: build the HTML book. Always a clean build: every chapter is executed from scratch, in
## parallel, with bounded waits (a stall is retried once and reported by name), into _build/executed/
## and a fresh jupyter-cache that Sphinx then only reads (docs/execution.md); prints the timings.
## `make book BASELINE=1` first executes the chapters one after another and compares the build with them.
book: $(STAMP)
	$(PY) book/_tools/execute_chapters.py book $(if $(BASELINE),--serial-baseline)
	@echo "The book is at $(CURDIR)/_build/html/index.html"

## Execute every chapter (as `make book` does) into _build/executed/<docname>.ipynb and the cache,
## for targets that render the executed chapters without Sphinx.
execute: $(STAMP)
	$(PY) book/_tools/execute_chapters.py execute

## Every test: the ledger's unit and property tests, the built book's glued numbers (read from what
## the build executed), the JavaScript parity test, the browser test, and every notebook under nbval.
## Each notebook is executed twice: by the build and by nbval; the tests run on two workers.
## nbval's waits are bounded like the build's (30 s a cell, 30 s to start a kernel) instead of 2000 s.
test: $(STAMP)
	$(MAKE) book
	$(PY) -m pytest -q -n 2 --dist loadfile --nbval-lax --nbval-cell-timeout=30 \
		--nbval-kernel-startup-timeout=30 tests notebooks/

## Execute every chapter N times through the build's path; report the slowest and any stall or retry.
N ?= 5
stress: $(STAMP)
	$(PY) book/_tools/execute_chapters.py stress -n $(N)

## The results report: results.md and results.json.
results: $(STAMP)
	$(PY) -m ledger

## How many full step ledgers per second the library evaluates (a figure, not a test).
bench: $(STAMP)
	$(PY) benchmarks/ledger_speed.py

## Time numpy's matmul and FFT at the ledger's shapes; achieved FLOP/s and time-weighted shares.
measure: $(STAMP)
	$(PY) benchmarks/measure.py

## JupyterLab is installed on first use only: its server packages (jsonschema format checkers) add
## about two seconds to every kernel start, so the book builds without them.
lab: $(STAMP)
	$(PY) -m pip install --quiet jupyterlab==4.6.6
	$(VENV)/bin/jupyter lab notebooks/

clean:
	rm -rf _build results.md results.json
