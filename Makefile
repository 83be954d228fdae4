# Two commands for a fresh machine: `make book` (build the book) and `make test` (every test).
# Each creates .venv and installs the pinned requirements first if needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BOOK_STAMP := _build/html/index.html

.PHONY: book test results bench measure lab clean install

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

## The main job: build the HTML book, executing every notebook.
book: $(STAMP)
	rm -rf _build/html _build/.doctrees _build/jupyter_execute  # a clean build: sphinx would skip notebooks whose source did not change, keeping numbers from an older ledger
	$(VENV)/bin/jupyter-book build . -W -n --keep-going
	@echo "The book is at $(CURDIR)/_build/html/index.html"

## Every test: the ledger's unit and property tests, every notebook under nbval, the built book's
## glued numbers, the JavaScript parity test and the browser test.
test: $(STAMP)
	$(MAKE) book
	$(PY) -m pytest -q tests
	$(PY) -m pytest -q --nbval-lax notebooks/

## One PDF of the whole book, _build/pdf/transforms-in-training-workloads.pdf (and a copy in
## _build/html, linked from the landing page). Route: the single-page HTML build printed by Debian's
## Chromium (Playwright's page.pdf), after MathJax has typeset every formula; the PDF shows what the
## pages show (same math, figures, tables, glued numbers, bibliography) with no LaTeX toolchain.
## book/_ext/print_pdf.py says more. It executes every notebook, as `make book` does
## (PDF_BUILD_FLAGS passes more options to that build, e.g. --config for another _config.yml).
## Right after `make book`, `make pdf PDF_REUSE_BOOK=1` reuses that build's executed notebooks
## (_build/.doctrees): nothing is executed again and the single page builds in seconds.
PDF := _build/pdf/transforms-in-training-workloads.pdf
.PHONY: pdf
pdf: $(STAMP)
	@[ -x /usr/bin/chromium ] || { echo "Chromium is missing: installing Debian's chromium to print the PDF"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	@command -v pdftotext >/dev/null 2>&1 || { echo "pdftotext is missing: installing Debian's poppler-utils for tests/test_pdf.py"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null; }
	rm -rf _build/singlehtml
	@if [ "$(PDF_REUSE_BOOK)" != 1 ]; then rm -rf _build/.doctrees _build/jupyter_execute; fi  # executed afresh, as in `make book`
	$(VENV)/bin/jupyter-book build . --builder singlehtml -W -n --keep-going $(PDF_BUILD_FLAGS)
	$(PY) book/_ext/print_pdf.py _build/singlehtml $(PDF) --publish _build/html
	@echo "The PDF is at $(CURDIR)/$(PDF) ($$(pdfinfo $(PDF) | awk '/^Pages:/ {print $$2}') pages)"

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
