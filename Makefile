# Two commands for a fresh machine: `make book` (build the book) and `make test` (every test).
# Each creates .venv and installs the pinned requirements first if needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BOOK_STAMP := _build/html/index.html
LAB_VENV := .venv-lab
LAB_PY := $(LAB_VENV)/bin/python
LAB_STAMP = $(LAB_VENV)/.installed-jupyterlab-$(JUPYTERLAB_VERSION)-myst-$(JUPYTERLAB_MYST_VERSION)
LAB_KERNEL := $(LAB_VENV)/share/jupyter/kernels/python3/kernel.json
# JupyterLab 4.4.10 with jupyterlab-myst 2.7.0, which renders the chapters' MyST (directives,
# exercises, math, and the {eval} prose numbers from the running kernel); jupyterlab-myst 2.7.0 is
# refused by JupyterLab 4.6 (its @jupyter/ydoc range). The stamp names both: a new pin reinstalls.
JUPYTERLAB_VERSION := 4.4.10
JUPYTERLAB_MYST_VERSION := 2.7.0
LAB_IP ?= 127.0.0.1
LAB_PORT ?= 8888
STUDENT_ENV_STAMP := .venv-student/.requirements-sha256
GRADE_VENV := .venv-grade
GRADE_STAMP := $(GRADE_VENV)/.installed

.PHONY: book execute test stress results bench measure lab lab-env clean install slides student student-env print-tools grade grade-env

## Debian's Chromium (to print the PDFs; the browser tests drive it too) and poppler-utils (pdfinfo,
## pdftotext, pdftoppm: to place a PDF's pages and read it back), installed when missing.
print-tools:
	@[ -x /usr/bin/chromium ] || { echo "Chromium is missing: installing Debian's chromium to print the PDFs"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	@command -v pdftotext >/dev/null 2>&1 || { echo "pdftotext is missing: installing Debian's poppler-utils to read the PDFs"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null; }

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

## Slides: one reveal.js slide set per chapter in _build/slides/ (and in _build/html/slides/, which the
## chapter pages link), from the executed chapters (EXECUTED, default the main build's
## _build/executed/notebooks, with every output and glue value; the book is built first when
## missing). Each figure is drawn again for its slide first, from the figure the build kept
## (book/_tools/figure_records.py, which also records the layouts the tests read); nothing is executed
## again. reveal.js and MathJax come from the pinned npm packages of package-lock.json.
EXECUTED ?= _build/executed/notebooks
NPM_DIR := _build/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.package-lock.json

$(NPM_STAMP): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "npm is missing: installing Debian's npm for reveal.js and MathJax"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }
	mkdir -p $(NPM_DIR)
	cp package.json package-lock.json $(NPM_DIR)/
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --ignore-scripts

slides: $(STAMP) $(NPM_STAMP)
	@test -f $(BOOK_STAMP) -a -d $(EXECUTED) || $(MAKE) book
	$(PY) book/_tools/figure_records.py
	$(PY) book/_tools/slides.py --executed $(EXECUTED) --node-modules $(NPM_DIR)/node_modules --out _build/slides --book-html _build/html

## The student edition in _build/student/: html/ (the book without solutions), student.pdf, and a
## folder to hand out: notebooks/ (the chapters without solutions), ledger/, data/ and a minimal
## requirements.txt (the chapters' packages, JupyterLab and jupyterlab-myst; no Sphinx, Playwright or
## pytest). Reuses the executed chapters; executes nothing again. STUDENT_FLAGS=--no-pdf skips the PDF.
## SALT=SECRET puts the course's salt in the folder (course-salt.txt), so the statements show each
## student the variant the key and `make grade` drew with the same salt.
student: $(STAMP) slides print-tools
	$(PY) book/_tools/student.py --executed $(EXECUTED) --out _build/student \
		--jupyterlab $(JUPYTERLAB_VERSION) --jupyterlab-myst $(JUPYTERLAB_MYST_VERSION) $(if $(SALT),--salt '$(SALT)') $(STUDENT_FLAGS)

## Execute every chapter (as `make book` does) into _build/executed/<docname>.ipynb and the cache,
## for targets that render the executed chapters without Sphinx.
execute: $(STAMP)
	$(PY) book/_tools/execute_chapters.py execute

## Every test: the ledger's unit and property tests, the built book's glued numbers (read from what
## the build executed), the JavaScript parity test, the browser test, and every notebook under nbval.
## Each chapter is executed by the build, as written (its exercise cells assert the answers; a cell
## that raises fails the build), and its student copy by nbval, in the student environment
## (.venv-student: only the student folder's requirements, the kernel `python -I -B` in
## _build/student/notebooks; tests/conftest.py, tests/test_student_env.py). The tests run on two
## workers. The PDF, the slides and the student edition are made from the build's executed chapters
## (nothing runs again), and the JupyterLab front-end test runs JupyterLab from .venv-lab (its kernel
## the book's .venv, LAB_KERNEL).
## The three environments (.venv, .venv-lab, .venv-student), Chromium and poppler-utils (print-tools)
## are made or installed before the timed phases.
## nbval's waits are bounded like the build's (30 s a cell, 30 s to start a kernel) instead of 2000 s.
## After the book, the student folder's notebooks and library and the slides are written (a second or
## two each); then the PDF and the student edition are made side by side with the tests (each mostly
## one core; their output is shown at the end): the test files that read what they make wait for
## the phase they read and run after the others but the shortest, which keep both workers busy to the
## end (tests/conftest.py, AFTER_BUILDS, FILLER_S); the others run meanwhile, longest first (times of
## the last run, _build/test-times.json, or on a fresh clone tests/test-times.json). The last line
## gives each phase's time and the ratio of the total to the book's build (issue 20: at most 4x),
## from book/_tools/phase_times.py, and the cores' speed in the book phase and after it (a fixed loop's
## CPU time, every 5 s while make runs: on a shared host it changes within a run, and the ratio with it).
PHASES := _build/phase-times.json
PHASE = $(PY) book/_tools/phase_times.py run $(PHASES)
test: $(STAMP) $(LAB_STAMP) $(LAB_KERNEL) $(STUDENT_ENV_STAMP) $(GRADE_STAMP) print-tools
	$(PY) book/_tools/phase_times.py start $(PHASES)
	@$(PY) book/_tools/phase_times.py probe $(PHASES) --while $$PPID >/dev/null 2>&1 &
	$(PHASE) serial -- $(PY) book/_tools/execute_chapters.py serial
	$(PHASE) book -- $(MAKE) book
	$(MAKE) $(NPM_STAMP)
	$(PHASE) student-notebooks -- $(PY) book/_tools/student.py --executed $(EXECUTED) --out _build/student --notebooks-only \
		--jupyterlab $(JUPYTERLAB_VERSION) --jupyterlab-myst $(JUPYTERLAB_MYST_VERSION)
	$(PHASE) slides -- $(MAKE) slides
	@mkdir -p _build/pdf; \
	$(PHASE) pdf -- $(MAKE) pdf PDF_REUSE_BOOK=1 > _build/pdf/make-pdf.log 2>&1 & pdf=$$!; \
	$(PHASE) student -- $(MAKE) student -o slides STUDENT_FLAGS=--keep-notebooks > _build/make-student.log 2>&1 & student=$$!; \
	TX_AFTER_PHASES="pdf student" $(PHASE) pytest -- $(PY) -m pytest -q -n 2 --dist loadfile --nbval-lax \
		--nbval-cell-timeout=30 --nbval-kernel-startup-timeout=30 --nbval-kernel-name=tx-student \
		tests _build/student/notebooks/; code=$$?; \
	wait $$pdf; pdf_code=$$?; wait $$student; student_code=$$?; \
	echo "---- make pdf PDF_REUSE_BOOK=1 (side by side with the tests):"; cat _build/pdf/make-pdf.log; \
	echo "---- make student (side by side with the tests):"; cat _build/make-student.log; \
	$(PY) book/_tools/phase_times.py summary $(PHASES); \
	[ $$code -eq 0 ] && [ $$pdf_code -eq 0 ] && [ $$student_code -eq 0 ]

## The student environment (.venv-student): the student folder's requirements (book/_tools/student.py
## writes them; the ledger from the repository until `make student` has written the folder), made
## once and remade when they change (book/_tools/student_env.py).
$(STUDENT_ENV_STAMP): $(STAMP) requirements.txt Makefile book/_tools/student.py book/_tools/student_env.py
	$(PY) book/_tools/student_env.py --jupyterlab $(JUPYTERLAB_VERSION) --jupyterlab-myst $(JUPYTERLAB_MYST_VERSION)
	@touch $(STUDENT_ENV_STAMP)

student-env: $(STUDENT_ENV_STAMP)

## Grading with nbgrader 0.9.6 in the teacher's environment, .venv-grade (requirements-grade.txt: nbgrader and
## the chapters' packages, every dependency pinned; the ledger editable on top), made once by the target.
## `make grade SUBMISSIONS=DIR [SALT=SECRET]`: DIR holds one folder per student identifier with that student's
## notebooks. book/_tools/grade.py makes the nbgrader course in _build/grades/course/ (one assignment per
## session, released into its release/), copies the notebooks into submitted/, autogrades them (each numeric
## part scored against that student's variant, with the course's salt: SALT, else TX_COURSE_SALT, else
## course-salt.txt) and writes _build/grades/grades.csv (student, label, points, max_points),
## _build/grades/slips.csv (per label, the count of each slip), rubrics.md (for the grader) and nbgrader's
## feedback in _build/grades/feedback/<student>/. The course directory is kept: hand grades given in the
## formgrader stay; `make grade` without SUBMISSIONS writes the CSVs and the feedback again. PLAN=4x60 or
## PLAN=ml-systems grades that course plan's sessions instead of 5x90's (the course directory remembers it).
$(GRADE_STAMP): requirements-grade.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(GRADE_VENV)
	$(GRADE_VENV)/bin/python -m pip install --quiet -r requirements-grade.txt
	$(GRADE_VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(GRADE_STAMP)

grade-env: $(GRADE_STAMP)

grade: $(GRADE_STAMP)
	$(if $(SALT),TX_COURSE_SALT='$(SALT)') $(GRADE_VENV)/bin/python book/_tools/grade.py \
		$(if $(SUBMISSIONS),run --submissions '$(SUBMISSIONS)',report) $(if $(PLAN),--plan '$(PLAN)')

## Execute every chapter N times through the build's path; report the slowest and any stall or retry.
N ?= 5
stress: $(STAMP)
	$(PY) book/_tools/execute_chapters.py stress -n $(N)

## One PDF of the whole book, _build/pdf/transforms-in-training-workloads.pdf (and a copy in
## _build/html, linked from the landing page). Route: the single-page HTML build printed by Debian's
## Chromium (Playwright's page.pdf), after MathJax has typeset every formula; the PDF shows what the
## pages show (same math, figures, tables, glued numbers, bibliography) with no LaTeX toolchain.
## book/_ext/print_pdf.py says more. It executes every chapter afresh as `make book` does (into the
## jupyter-cache the single-page build reads; PDF_BUILD_FLAGS passes more options to that build).
## Right after `make book`, `make pdf PDF_REUSE_BOOK=1` reuses that build's executed chapters:
## nothing is executed again and the single page builds in seconds.
PDF := _build/pdf/transforms-in-training-workloads.pdf
.PHONY: pdf
pdf: $(STAMP) print-tools
	rm -rf _build/singlehtml
	@if [ "$(PDF_REUSE_BOOK)" != 1 ]; then $(PY) book/_tools/execute_chapters.py execute; fi  # executed afresh, in parallel and bounded, as in `make book`
	$(VENV)/bin/jupyter-book build . --builder singlehtml -W -n --keep-going $(PDF_BUILD_FLAGS)
	$(PY) book/_ext/print_pdf.py _build/singlehtml $(PDF) --publish _build/html
	@echo "The PDF is at $(CURDIR)/$(PDF) ($$(pdfinfo $(PDF) | awk '/^Pages:/ {print $$2}') pages)"

## The results report: results.md and results.json.
results: $(STAMP)
	$(PY) -m ledger

## How many full step ledgers per second the library evaluates, and how long a move of each live panel
## takes to redraw its numbers and figure (figures, not tests).
bench: $(STAMP)
	$(PY) benchmarks/ledger_speed.py
	$(PY) benchmarks/panels.py

## Time numpy's matmul and FFT at the ledger's shapes; achieved FLOP/s and time-weighted shares.
measure: $(STAMP)
	$(PY) -m ledger.measure

## JupyterLab lives in its own venv, .venv-lab (the book's pinned requirements, JupyterLab and the
## ledger, editable), and its kernel `python3` is the book's .venv (LAB_KERNEL): the environment the
## book is built in, without the server's packages. Among those, jsonschema's format checkers build a
## Lark grammar when a chapter's first glue imports myst_nb (and with it nbformat and jsonschema): a
## chapter's kernel in .venv-lab took 9.3 to 9.5 CPU-s against 5.1 to 6.7 in .venv (chapter 06).
lab-env: $(LAB_STAMP) $(LAB_KERNEL)

$(LAB_KERNEL): $(LAB_STAMP) $(STAMP)
	@mkdir -p $(dir $(LAB_KERNEL))
	$(PY) -c 'import json, sys; json.dump({"argv": [sys.argv[1], "-m", "ipykernel_launcher", "-f", "{connection_file}"], \
		"display_name": "Python 3 (the book environment, .venv)", "language": "python"}, open(sys.argv[2], "w"), indent=1)' \
		$(CURDIR)/$(PY) $(LAB_KERNEL)

$(LAB_STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(LAB_VENV)
	$(LAB_PY) -m pip install --quiet --upgrade pip
	$(LAB_PY) -m pip install --quiet -r requirements.txt jupyterlab==$(JUPYTERLAB_VERSION) \
		jupyterlab-myst==$(JUPYTERLAB_MYST_VERSION)
	$(LAB_PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(LAB_STAMP)

## Live notebooks: JupyterLab on the chapters. Root (common in containers) needs --allow-root.
## LAB_PORT and LAB_IP choose where it listens (default 127.0.0.1:8888, the next free port if taken).
lab: $(LAB_STAMP) $(LAB_KERNEL)
	@echo "Starting JupyterLab on $(LAB_IP):$(LAB_PORT) (notebooks/). Point your browser at the"
	@echo "http://$(LAB_IP):<port>/lab?token=... address it prints below (Ctrl-C twice stops it)."
	$(LAB_VENV)/bin/jupyter lab --no-browser --ip=$(LAB_IP) --port=$(LAB_PORT) \
		$(if $(filter 0,$(shell id -u)),--allow-root) --ServerApp.root_dir=notebooks

clean:
	rm -rf _build results.md results.json
