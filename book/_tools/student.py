"""Build the student edition (`make student`): the book and the chapter notebooks without solutions.

- notebooks/: each chapter notebook with every `{solution}` block removed and the code cells of its
  Exercises section (which compute and assert the answers) dropped, but for its set-up cell (tag
  `exercise-setup`: the imports and STUDENT_ID) and the cells that show a statement's parameters
  (tag `exercise-parameters`); a chapter without a set-up cell gets a `from ledger.exercises
  import check` cell. Glue comes from `ledger.glue` (no myst-nb in the student environment). The
  repository's commands the chapters name (`make lab`, `make measure`) become the folder's
  (`student_commands`; any other `make` target is refused), and the install cell says how the
  folder installs the library. Stored clean, ready to hand out and run.
- ledger/, data/, pyproject.toml and requirements.txt: the library the chapters import, the data
  they read, and the minimal packages to run them in JupyterLab with its MyST renderer (the
  ledger, NumPy, Matplotlib, ipywidgets, ipykernel, JupyterLab and jupyterlab-myst; no Sphinx,
  Playwright or pytest). README.md says how to install them on a laptop.
- html/: the book built by jupyter-book with sphinx-exercise's `hide_solutions` on, from the same
  solution-free chapters. Nothing is executed again: the chapters are the executed copies the main
  build left in _build/jupyter_execute/notebooks (their outputs, and the glued values the remaining
  text uses, put back from the `.glue.json` files myst-nb writes beside them), built with execution
  off. The page sources (_sources/*.ipynb, offered for download) are these same solution-free copies.
  The slides the chapter pages link are copied in from the main book's slides/ (`make slides`).
  Two pages differ from the main book's: the course guide is its student version (the teacher-only
  blocks of book/course_guide.md dropped, its student-only blocks shown: `student_guide`), and the
  landing page, whose blocks are chosen the same way (running the chapters from the student folder,
  not a clone), links this edition's PDF, or none (`student_intro`).
- student.pdf: the handout, the same solution-free book printed to one PDF (single-page build,
  book/_ext/print_pdf.py --no-code: no code input and no widget; figures, tables, printed values and
  the statements stay), each statement's parameters printed as blanks to fill from the student's
  slip (`handout_notebook`); also copied into html/ beside index.html, where the landing page links it.
"""
from __future__ import annotations

import argparse
import copy
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import yaml
from answer_cells import student_answer_cells
from executed import StaleBuild, chapter_stems, read_executed

import ledger.exercises
from ledger.exercises.registry import (
    CATALOGUE_FILE,
    SALT_FILE,
    check_salt,
    write_catalogue,
)

ROOT = Path(__file__).resolve().parents[2]
GLUE_PREFIX = "application/papermill.record/"
SOLUTION_BLOCK = re.compile(r"^(?P<fence>`{3,}|:{3,})\{solution\}[^\n]*\n.*?^(?P=fence)[ \t]*\n?",
                            re.MULTILINE | re.DOTALL)
EXERCISES_HEADING = re.compile(r"^##\s+Exercises\s*$", re.MULTILINE)
CHECK_IMPORT = "from ledger.exercises import check"
KEPT_EXERCISE_TAGS = {"exercise-setup", "exercise-parameters"}
MYST_GLUE_IMPORT = re.compile(r"^([ \t]*)from myst_nb import glue[ \t]*$", re.MULTILINE)
COPIED = ["_toc.yml", "book"]
# What a student's environment holds: the packages the chapters import (pinned as the book's
# requirements.txt pins them) and JupyterLab with the MyST renderer (pinned by the Makefile).
STUDENT_PACKAGES = ("numpy", "matplotlib", "ipywidgets", "ipykernel", "ipython")
LIBRARY = ["ledger", "data", "pyproject.toml", "LICENSE"]
STUDENT_ENV_MB = 450
"""The disk space the environment made from the student requirements takes, in MB (10^6 bytes), as the
README and the course guide state it; tests/test_student.py measures .venv-student against it."""
# What the student folder's library leaves out: build leftovers, the teacher's modules (the answer
# key and the explanations' marking rubrics) and the chapters' exercise modules, whose answer
# functions would compute the graded parts: the folder's registry reads `catalogue.json` instead
# (ledger.exercises.registry.catalogue: no answer of a graded label).
EXERCISE_MODULES = tuple(f"{name}.py" for name in ledger.exercises._CHAPTERS)
LEFT_OUT = ("__pycache__", "*.pyc", "*.egg-info", "instructor.py", "rubrics.py", *EXERCISE_MODULES)


TEACHER_BLOCK = re.compile(r"^<!-- teacher-edition -->\n.*?^<!-- /teacher-edition -->\n?", re.MULTILINE | re.DOTALL)
STUDENT_BLOCK = re.compile(r"^<!-- student-edition\n(?P<text>.*?)^-->\n?", re.MULTILINE | re.DOTALL)
GUIDE = "book/course_guide.md"
INTRO = "book/intro.md"
# The landing page's paragraph on the PDF of the main book, which `make pdf` writes: the student
# edition links its own PDF instead (STUDENT_PDF, beside index.html), or says nothing of a PDF.
BOOK_PDF_SENTENCE = re.compile(r"For paper there is\s*<a class=\"tx-pdf\"[^>]*>[^<]*</a>.*?(?=\n\n|\Z)", re.DOTALL)
STUDENT_PDF = "student.pdf"
STUDENT_PDF_SENTENCE = (f'For paper there is <a class="tx-student-pdf" href="../{STUDENT_PDF}">this edition as one PDF</a>, '
                        "every chapter in order with its figures, formulas, numbers and the bibliography, and no "
                        "solution.")
BOOK_HTML_COPY = "a copy of `_build/html`"
STUDENT_HTML_COPY = "a copy of the student folder's `html/`"
STUDENT_PDF_LINK = re.compile(r'<a class="tx-student-pdf" href="[^"]*">(?P<text>[^<]*)</a>')


# The repository's commands (`make lab`, `make measure`) the chapters name, as the student folder
# runs them instead; any other `make` target left in a chapter is refused (`make_commands`).
# Written in markdown; the slides' HTML has the same with <code> for the backticks (`html_form`).
STUDENT_COMMANDS = ((r"with `make lab`(?:\s+\(it\s+opens\s+JupyterLab\s+on\s+the\s+notebooks\))?",
                     "in JupyterLab (`jupyter lab notebooks/` in the student folder)"),
                    (r"`make measure`", "`python -m ledger.measure`"))


def html_form(markdown: str) -> str:
    """A STUDENT_COMMANDS pattern or replacement as the slides' HTML writes it: `x` as <code>x</code>."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", markdown)
INSTALL_TAG = "colab-install"
STUDENT_INSTALL_CELL = (
    "# The chapters need the book's library, `ledger`, which the student folder carries.\n"
    "import importlib.util\n\n"
    'if importlib.util.find_spec("ledger") is None:\n'
    '    raise ModuleNotFoundError("ledger is not installed in this kernel\'s environment: in the student folder, "\n'
    '                              "install requirements.txt into an environment (README.md says how), then open "\n'
    '                              "the chapters from it with `jupyter lab notebooks/`")')


def make_targets() -> list[str]:
    """The targets of the repository's Makefile (`lab`, `book`, `test`, ...)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return sorted(set(re.findall(r"^([a-z][\w-]*)\s*:(?!=)", text, re.MULTILINE)))


def make_commands(text: str) -> list[str]:
    """The `make <target>` commands of the repository's Makefile that `text` names."""
    targets = "|".join(re.escape(t) for t in sorted(make_targets(), key=len, reverse=True))
    return re.findall(rf"\bmake (?:{targets})(?![\w-])", text)


class StudentError(Exception):
    """A chapter the builder cannot turn into its student version; the message names it."""


def student_edition(text: str, name: str) -> str:
    """The student version of a page: every `<!-- teacher-edition -->` ... `<!-- /teacher-edition
    -->` block dropped and every `<!-- student-edition ... -->` comment shown as text. A StudentError
    naming the page (`name`) when it has no teacher block or leaves a marker unmatched."""
    if not TEACHER_BLOCK.findall(text):
        raise StudentError(f"{name} has no <!-- teacher-edition --> block: the student page would be the teacher's")
    page = STUDENT_BLOCK.sub(lambda m: m["text"], TEACHER_BLOCK.sub("", text))
    left = re.findall(r"<!-- /?(?:teacher|student)-edition", page)
    if left:
        raise StudentError(f"{name}: an unmatched edition marker ({left[0]!r}...)")
    return re.sub(r"\n{3,}", "\n\n", page)


def student_guide(text: str) -> str:
    """The student version of the course guide (`student_edition`): without the answer key, the
    instructor API and the build commands."""
    return student_edition(text, GUIDE)


def student_intro(text: str, pdf: bool) -> str:
    """The landing page for the student edition: its teacher-edition blocks (running the chapters from
    a clone with `make`) give way to its student-edition ones (from the student folder), a copy of
    the pages is the folder's html/, and its sentence on the main book's PDF (which `make pdf` writes,
    and students cannot) links this edition's PDF when there is one, and goes when there is none. A
    StudentError when the sentence or the blocks are not found."""
    if not BOOK_PDF_SENTENCE.search(text):
        raise StudentError(f"{INTRO}: the sentence linking the book's PDF (\"For paper there is <a "
                           f"class=\"tx-pdf\" ...\") is not found; update student.py with it")
    if BOOK_HTML_COPY not in text:
        raise StudentError(f"{INTRO}: {BOOK_HTML_COPY!r} (the pages' folder) is not found; update student.py with it")
    page = BOOK_PDF_SENTENCE.sub(lambda m: STUDENT_PDF_SENTENCE if pdf else "", text).replace(" \n\n", "\n\n")
    return student_edition(page.replace(BOOK_HTML_COPY, STUDENT_HTML_COPY), INTRO)


def strip_solutions(text: str) -> str:
    """Markdown without its {solution} directive blocks (and the blank lines they leave)."""
    return re.sub(r"\n{3,}", "\n\n", SOLUTION_BLOCK.sub("", text)).strip("\n")


def student_commands(text: str) -> str:
    """`text` with the repository's commands it names (`make lab`, `make measure`) as the student
    folder runs them; a StudentError naming any other `make` command left."""
    for pattern, replacement in STUDENT_COMMANDS:
        text = re.sub(pattern, replacement, text)
    left = make_commands(text)
    if left:
        raise StudentError(f"a chapter tells students to run {left[0]!r}, which the student folder has no "
                           "Makefile for; add its student form to STUDENT_COMMANDS in student.py")
    return text


def student_slides(folder: Path) -> None:
    """Rewrite the slides copied from the main book (`folder`) as `student_commands` rewrites the
    chapters (their lines come from them), without the speaker notes (book/slide_notes/ is written
    for the teacher: its questions carry their expected answers); a StudentError naming a slide deck
    that still names another `make` command."""
    for page in sorted(folder.glob("*.html")):
        html = re.sub(r'\n?<aside class="notes">.*?</aside>', "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        for pattern, replacement in STUDENT_COMMANDS:
            html = re.sub(html_form(pattern), html_form(replacement), html)
        left = make_commands(re.sub(r"<[^>]+>", "", html))
        if left:
            raise StudentError(f"{page.name}: the slides tell students to run {left[0]!r}; add its student form "
                               "to STUDENT_COMMANDS in student.py")
        page.write_text(html, encoding="utf-8")


def student_notebook(notebook):
    """A copy of a chapter notebook without solutions: every {solution} block goes, and so do the
    code cells after the `## Exercises` heading, which compute and assert the answers; a
    `from ledger.exercises import check` cell takes their place. The repository's commands become
    the student folder's (`student_commands`), and the install cell (tag colab-install) says how
    the student folder installs the library."""
    nb = copy.deepcopy(notebook)
    cells, in_exercises = [], False
    has_setup = any(KEPT_EXERCISE_TAGS & set(c.metadata.get("tags", [])) for c in nb.cells)
    for cell in nb.cells:
        if cell.cell_type == "code" and INSTALL_TAG in cell.metadata.get("tags", []):
            cell.source = STUDENT_INSTALL_CELL
        cell.source = student_commands(cell.source)
        if "tx_slides" in cell.metadata:  # the chapter's slide lines
            cell.metadata["tx_slides"] = {k: student_commands(v) for k, v in cell.metadata["tx_slides"].items()}
        if cell.cell_type == "markdown":
            source = strip_solutions(cell.source)
            if source.strip():
                cell.source = source
                cells.append(cell)
            if EXERCISES_HEADING.search(cell.source) and not in_exercises:
                in_exercises = True
                if not has_setup:
                    cells.append(nbformat.v4.new_code_cell(CHECK_IMPORT))
        elif cell.cell_type == "code" and in_exercises:
            if KEPT_EXERCISE_TAGS & set(cell.metadata.get("tags", [])):
                cells.append(cell)
        else:
            if cell.cell_type == "code":
                cell.source = MYST_GLUE_IMPORT.sub(r"\1from ledger.glue import glue", cell.source)
            cells.append(cell)
    nb.cells = cells
    return nb


def clean(notebook):
    """The notebook without outputs or execution counts, as notebooks are stored."""
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cell.metadata.pop("execution", None)
    return notebook


def restore_glue(notebook, glue: dict):
    """Put the glued values the text still uses back into the notebook as glue outputs (myst-nb keeps
    them aside, in the .glue.json beside an executed copy), so that a build with execution off finds
    them. Values only the removed solutions used are left out: the page sources must not hold them."""
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    used = set(re.findall(r"\{glue(?::[a-z]*)?\}(?:`|[ \t]+)([\w.\-]+)", text))
    code = [c for c in notebook.cells if c.cell_type == "code"]
    if used and not code:
        raise StudentError("a notebook with glued values has no code cell to carry them")
    for key in sorted(used & set(glue)):
        data = {GLUE_PREFIX + mime: value for mime, value in glue[key].get("data", {}).items()}
        code[0].outputs.append(nbformat.v4.new_output(
            "display_data", data=data, metadata={"scrapbook": {"name": key, "mime_prefix": GLUE_PREFIX}}))
    return notebook


INSTALL_CHECK = "install_check.ipynb"
"""The notebook students run before the first session (not a chapter: the book leaves it out)."""


def write_notebooks(source: Path, out: Path, stems: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for stem in stems:
        nb = nbformat.read(source / f"{stem}.ipynb", as_version=4)
        nbformat.write(clean(student_answer_cells(student_notebook(nb))), out / f"{stem}.ipynb")
    nbformat.write(clean(nbformat.read(source / INSTALL_CHECK, as_version=4)), out / INSTALL_CHECK)


def requirements(book_requirements: Path, jupyterlab: str, jupyterlab_myst: str) -> str:
    """The student folder's requirements.txt: the ledger (editable, from the folder), the packages
    the chapters import at the book's pins, JupyterLab and jupyterlab-myst."""
    pins = {}
    for line in book_requirements.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.\-]+)==(\S+)", line.strip())
        if match:
            pins[match.group(1).lower().replace("_", "-")] = match.group(2)
    missing = [p for p in STUDENT_PACKAGES if p not in pins]
    if missing:
        raise StudentError(f"{book_requirements} pins no {', '.join(missing)}, which the chapters import")
    lines = ["# The chapters' packages and JupyterLab with its MyST renderer; from this folder:",
             "#   Linux, macOS: python3 -m venv .venv && .venv/bin/pip install -r requirements.txt",
             "#   Windows:      py -m venv .venv && .venv\\Scripts\\pip install -r requirements.txt", "-e ."]
    lines += [f"{p}=={pins[p]}" for p in STUDENT_PACKAGES]
    lines += [f"jupyterlab=={jupyterlab}", f"jupyterlab-myst=={jupyterlab_myst}"]
    return "\n".join(lines) + "\n"


README = """# {title}: student folder

The chapters as notebooks, without solutions, with the `ledger` library they use.

Install (Python 3.11 or newer; about {env_mb} MB on disk; once), in this folder.

Linux and macOS, in a terminal:

    python3 -m venv .venv
    source .venv/bin/activate
    pip install -r requirements.txt

Windows, in PowerShell or the command prompt (`py` is the launcher the python.org installer puts
on the path; `python3` often does not exist on Windows):

    py -m venv .venv
    .venv\\Scripts\\activate
    pip install -r requirements.txt

Open the chapters (each time: activate as above first, with `source .venv/bin/activate` or
`.venv\\Scripts\\activate`):

    jupyter lab notebooks/

If PowerShell refuses to run the activation script, allow it once with
`Set-ExecutionPolicy -Scope CurrentUser RemoteSigned`, or call `.venv\\Scripts\\pip` and
`.venv\\Scripts\\jupyter` directly.

Run a chapter from the top (Run > Run All Cells): its prose numbers then show. In each chapter's
Exercises section set `STUDENT_ID` to the identifier your teacher gave you; the statements then
show your parameters and `check("label", your_value, student=STUDENT_ID)` checks your answer.
The book itself, without solutions, is in html/ (open html/index.html) and student.pdf.
"""


def write_library(out: Path, jupyterlab: str, jupyterlab_myst: str, salt: str | None = None) -> None:
    """Copy the library and the data into the student folder, the exercises as a catalogue without
    graded answers (and the course's salt, when given, in course-salt.txt); write requirements.txt
    and README.md."""
    for name in LIBRARY:
        target = out / name
        if target.is_dir():
            shutil.rmtree(target)
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, target, ignore=shutil.ignore_patterns(*LEFT_OUT))
        else:
            shutil.copy2(ROOT / name, target)
    write_catalogue(out / "ledger" / "exercises" / CATALOGUE_FILE)
    if salt is not None:
        (out / SALT_FILE).write_text(check_salt(salt) + "\n", encoding="utf-8")
    (out / "requirements.txt").write_text(requirements(ROOT / "requirements.txt", jupyterlab, jupyterlab_myst),
                                          encoding="utf-8")
    title = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8")).get("title", "")
    (out / "README.md").write_text(README.format(title=title, env_mb=STUDENT_ENV_MB), encoding="utf-8")


def stale_folder(out: Path, stems: list[str], jupyterlab: str, jupyterlab_myst: str, salt: str | None = None) -> str:
    """What in the student folder `out` differs from what this run would write ('' when it is
    current): its notebooks, requirements and library are written afresh aside (a second) and
    compared file by file, both ways (a teacher's module left in `out` is stale too; bytecode is not)."""
    with tempfile.TemporaryDirectory() as folder:
        fresh = Path(folder)
        write_notebooks(ROOT / "notebooks", fresh / "notebooks", stems)
        write_library(fresh, jupyterlab, jupyterlab_myst, salt)
        for name in ["notebooks", "requirements.txt", *LIBRARY]:
            wanted = [fresh / name] if (fresh / name).is_file() else sorted(p for p in (fresh / name).rglob("*") if p.is_file())
            for file in wanted:
                copy = out / file.relative_to(fresh)
                if not copy.exists() or copy.read_bytes() != file.read_bytes():
                    kind = "stale" if name == "notebooks" else f"differs from {ROOT / file.relative_to(fresh)}"
                    return f"{copy} is missing or {kind}"
            if (out / name).is_dir():
                extra = [p for p in sorted((out / name).rglob("*")) if p.is_file() and "__pycache__" not in p.parts
                         and not (fresh / p.relative_to(out)).exists()]
                if extra:
                    return f"{extra[0]} is not part of the student folder (a teacher's module or a leftover)"
    return ""


def student_config(config_file: Path, executed: Path | None = None) -> dict:
    """The book's configuration for the student edition: execution off, solutions hidden, the
    `{eval}` values read from the main build's executed chapters (`executed`: their folder)."""
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    config["title"] = f"{config.get('title', '')} (student edition)"
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    sphinx_config = config.setdefault("sphinx", {}).setdefault("config", {})
    sphinx_config["hide_solutions"] = True
    if executed is not None:
        sphinx_config["eval_values_dir"] = str(executed.resolve().parent)
    return config

PARAMETERS_CALL = re.compile(r"""show_parameters\(\s*["'](?P<label>[\w.\-]+)["']""")
BLANK = "______"


def parameter_blanks(label: str) -> str:
    """What the handout prints in place of a statement's parameters (`show_parameters(label, ...)`,
    which prints the book's values there): one line per parameter the variants of its numeric parts
    draw (the parts draw them together, so each parameter once), a blank to fill from the student's
    slip ("masks-step-size: your optimizer step = ______ (from your slip)"); when no part varies, one
    line saying the parameters are the statement's, the same for everyone; for an explanation alone,
    nothing (`show_parameters` prints nothing for it either)."""
    from ledger.exercises import registry

    shown = ([p for p in registry.parts(label) if registry.REGISTRY[p].asks_number]
             if registry.exercise_of(label) == label else [label])
    shown = [p for p in shown if registry.REGISTRY[p].asks_number]  # an explanation: nothing to fill
    names = list(dict.fromkeys(name for part in shown for name in registry.REGISTRY[part].variants))
    if not shown:
        return ""
    if not names:
        return f"{label}: the statement's parameters, the same for everyone\n"
    return "".join(f"{label}: your {registry.PARAMETER_TEXT.get(name, (name, None))[0]} = {BLANK} (from your slip)\n"
                   for name in names)


ON_SCREEN_PARAMETERS = ("Set `STUDENT_ID` below to the identifier your teacher gave you: each statement then "
                        "prints your parameters")
"""How the Exercises section opens on screen; on paper there is no code to set, so it is rewritten."""
ON_PAPER_PARAMETERS = ("On paper, fill the blanks under each statement from the slip your teacher gave you: "
                       "they are your parameters")


def handout_notebook(notebook):
    """The student notebook as the handout prints it: each exercise-parameters cell's output (the
    book's values) becomes its parameter blanks (`parameter_blanks`), and the Exercises section's
    opening tells the reader to fill them from the slip (no code is printed to set `STUDENT_ID` in).
    A StudentError names a parameters cell that calls no `show_parameters("label", ...)`."""
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and ON_SCREEN_PARAMETERS in cell.source:
            cell.source = cell.source.replace(ON_SCREEN_PARAMETERS, ON_PAPER_PARAMETERS)
    for cell in notebook.cells:
        if cell.cell_type != "code" or "exercise-parameters" not in cell.metadata.get("tags", []):
            continue
        labels = PARAMETERS_CALL.findall(cell.source)
        if not labels:
            raise StudentError(f"an exercise-parameters cell without show_parameters(\"label\", ...): {cell.source[:80]!r}")
        text = "".join(parameter_blanks(label) for label in labels)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)] if text else []
    return notebook


def build_pdf(src: Path, pdf: Path, jupyter_book: Path, stems: list[str]) -> None:
    """The handout: the student book's sources in `src` (after its HTML build), each statement's
    parameters as blanks to fill from the slip (`handout_notebook`), built as one page and printed
    to `pdf` without code inputs or widgets (print_pdf.py --no-code)."""
    for stem in stems:
        path = src / "notebooks" / f"{stem}.ipynb"
        nbformat.write(handout_notebook(nbformat.read(path, as_version=4)), path)
    done = subprocess.run([str(jupyter_book), "build", str(src), "--builder", "singlehtml", "-W", "-n",
                           "--keep-going"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise StudentError("the student book's single page did not build:\n" + done.stdout[-4000:]
                           + done.stderr[-4000:])
    for page in (src / "_build" / "singlehtml").rglob("*.html"):  # the PDF names itself: no link
        page.write_text(STUDENT_PDF_LINK.sub(lambda m: m["text"], page.read_text(encoding="utf-8")),
                        encoding="utf-8")
    printed = subprocess.run([sys.executable, str(ROOT / "book" / "_ext" / "print_pdf.py"),
                              str(src / "_build" / "singlehtml"), str(pdf), "--no-code"], capture_output=True,
                             text=True, check=False)
    if printed.returncode != 0:
        raise StudentError("the student PDF was not printed:\n" + printed.stdout[-2000:] + printed.stderr[-2000:])


def build_html(executed: Path, source: Path, out: Path, stems: list[str], jupyter_book: Path, slides: Path,
               pdf: Path | None = None) -> None:
    """The book without solutions, built from the executed chapters with execution off, with a copy
    of the slides its chapter pages link (`slides`: the slides written into the main book); and,
    when `pdf` is given, the same book printed to that PDF."""
    if not (slides / "index.html").exists():
        raise StudentError(f"{slides} holds no slides, which the chapter pages link: run `make slides` first")
    src = out.parent / "_src"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    for name in COPIED:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(ROOT / name, src / name)
    (src / GUIDE).write_text(student_guide((ROOT / GUIDE).read_text(encoding="utf-8")), encoding="utf-8")
    (src / INTRO).write_text(student_intro((ROOT / INTRO).read_text(encoding="utf-8"), pdf is not None),
                             encoding="utf-8")
    (src / "_config.yml").write_text(yaml.safe_dump(student_config(ROOT / "_config.yml", executed), sort_keys=False),
                                     encoding="utf-8")
    (src / "notebooks").mkdir()
    for stem in stems:
        nb, glue = read_executed(executed, stem, source)
        nbformat.write(restore_glue(student_notebook(nb), glue), src / "notebooks" / f"{stem}.ipynb")
    done = subprocess.run([str(jupyter_book), "build", str(src), "-W", "-n", "--keep-going"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise StudentError("the student book did not build:\n" + done.stdout[-4000:] + done.stderr[-4000:])
    if pdf is not None:
        build_pdf(src, pdf, jupyter_book, stems)
    if out.exists():
        shutil.rmtree(out)
    shutil.move(src / "_build" / "html", out)
    shutil.rmtree(src)
    shutil.copytree(slides, out / "slides")
    student_slides(out / "slides")
    if pdf is not None:
        shutil.copy2(pdf, out / STUDENT_PDF)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executed", type=Path, default=ROOT / "_build" / "jupyter_execute" / "notebooks",
                        help="folder of executed chapter notebooks and their .glue.json files")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "student")
    parser.add_argument("--jupyter-book", type=Path, default=Path(sys.executable).parent / "jupyter-book")
    parser.add_argument("--slides", type=Path, default=ROOT / "_build" / "html" / "slides",
                        help="the slides written into the main book by `make slides`, copied into the edition")
    parser.add_argument("--notebooks-only", action="store_true", help="write notebooks/ and the library; skip the HTML")
    parser.add_argument("--no-pdf", action="store_true", help="skip student.pdf")
    parser.add_argument("--salt", help="the course's salt for the variants' draw, written to course-salt.txt")
    parser.add_argument("--keep-notebooks", action="store_true",
                        help="keep the notebooks/ and the library a `--notebooks-only` run wrote (they must be "
                             "current): `make test` runs them under nbval while this run builds the HTML and PDF")
    parser.add_argument("--jupyterlab", default="4.4.10", help="the JupyterLab version of requirements.txt")
    parser.add_argument("--jupyterlab-myst", default="2.7.0", help="the jupyterlab-myst version of requirements.txt")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    stems = chapter_stems()
    try:
        if args.keep_notebooks:
            stale = stale_folder(args.out, stems, args.jupyterlab, args.jupyterlab_myst, args.salt)
            if stale:
                raise StudentError(f"--keep-notebooks: {stale} (run with --notebooks-only first)")
        else:
            if (args.out / "notebooks").exists():
                shutil.rmtree(args.out / "notebooks")
            write_notebooks(ROOT / "notebooks", args.out / "notebooks", stems)
            write_library(args.out, args.jupyterlab, args.jupyterlab_myst, args.salt)
        if not args.notebooks_only:
            build_html(args.executed, ROOT / "notebooks", args.out / "html", stems, args.jupyter_book, args.slides,
                       pdf=None if args.no_pdf else args.out / "student.pdf")
    except (StudentError, StaleBuild) as error:
        print(f"student: {error}", file=sys.stderr)
        return 2
    print(f"student: {len(stems)} notebooks and the book without solutions written to {args.out} "
          f"in {time.perf_counter() - start:.1f} s (from {args.executed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
