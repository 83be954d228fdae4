"""The student edition (`make student`, in _build/student) holds no solution, in its HTML or its
notebooks, while the main book (_build/html) still shows every one of them; the exercise statements
stay. A solution is recognised by sphinx-exercise's markup and by a run of its own words, which
the test first finds in the main book, so that a phrase that would never match cannot pass.

The edition is built from the main build when _build/student is missing; `make test` should run
`make student` after `make book`.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path

import sys

import nbformat
import pytest
from book_pages import html_tree, words

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_tools"))
import answer_cells  # noqa: E402 (book/_tools is not a package)

ROOT = Path(__file__).resolve().parents[1]
MAIN = ROOT / "_build" / "html"
STUDENT = ROOT / "_build" / "student"
BLOCK = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>exercise|solution)\}(?P<arg>[^\n]*)\n(?P<body>.*?)"
                   r"^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
PLAIN_RUN = re.compile(r"(?:[A-Za-z][a-z]+[,;]? ){5,}[A-Za-z][a-z]+")


def chapters() -> list[str]:
    return re.findall(r"file:\s*notebooks/(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8"))


def blocks(stem: str, name: str) -> list[str]:
    """The bodies of the chapter's {exercise} or {solution} blocks."""
    return [m.group("body") for m in BLOCK.finditer(markdown(stem)) if m.group("name") == name]


def markdown(stem: str) -> str:
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def phrase(body: str, stem: str) -> str | None:
    """The longest run of plain words of a solution (no roles, math or code) that the rest of its
    chapter does not also say, to look for in a page; None when there is no such run."""
    rest = " ".join(BLOCK.sub(lambda m: "" if m.group("name") == "solution" else m.group(0), markdown(stem)).split())
    text = re.sub(r"\{[a-z:]+\}`[^`]*`|`[^`]*`|\$[^$]*\$|\*+|^:.*$", " | ", body, flags=re.MULTILINE)
    runs = [m.group(0) for line in text.split("|") for m in PLAIN_RUN.finditer(" ".join(line.split()))]
    runs = [r for r in runs if r not in rest]
    return max(runs, key=len) if runs else None


@functools.cache
def _read_once(read, path: Path, mtime_ns: int) -> str:
    """read(path), once per run for each version of the file (several tests read the same pages and PDF)."""
    return read(path)


def _html_words(path: Path) -> str:
    return words(html_tree(path.read_text(encoding="utf-8")))


def _pdf_words(pdf: Path) -> str:
    return " ".join(subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())


def page_text(path: Path) -> str:
    """A built page's text, words joined by single spaces."""
    return _read_once(_html_words, path.resolve(), path.stat().st_mtime_ns)


@pytest.fixture(scope="module")
def student() -> Path:
    if not (STUDENT / "html" / "index.html").exists() or not (STUDENT / "notebooks").is_dir():
        done = subprocess.run(["make", "student"], cwd=ROOT, capture_output=True, text=True, check=False)
        assert done.returncode == 0, "could not build the student edition:\n" + done.stdout[-3000:] + done.stderr[-3000:]
    return STUDENT


def test_no_solution_in_the_student_html_while_the_book_has_them(student):
    assert (MAIN / "index.html").exists(), "build the book first (make book)"
    checked = 0
    for stem in chapters():
        solutions, exercises = blocks(stem, "solution"), blocks(stem, "exercise")
        main = (MAIN / "notebooks" / f"{stem}.html").read_text(encoding="utf-8")
        mine = (student / "html" / "notebooks" / f"{stem}.html").read_text(encoding="utf-8")
        assert main.count('class="solution') >= len(solutions) > 0, f"{stem}: the main book lost its solutions"
        assert 'class="solution' not in mine, f"{stem}: a solution is in the student edition"
        assert mine.count('class="exercise') >= len(exercises), f"{stem}: an exercise statement is missing"
        main_text, student_text = page_text(MAIN / "notebooks" / f"{stem}.html"), page_text(
            student / "html" / "notebooks" / f"{stem}.html")
        for body in solutions:
            words = phrase(body, stem)
            if words is None:
                continue
            assert words in main_text, f"{stem}: {words!r} not found in the main book (test phrase broken)"
            assert words not in student_text, f"{stem}: solution text {words!r} is in the student edition"
            checked += 1
        for label in re.findall(r"^:label:\s*(\S+)", "\n".join(exercises), re.MULTILINE):
            assert f'id="{label}"' in mine, f"{stem}: the exercise {label} is missing"
    assert checked >= len(chapters()), "too few solution phrases were checked"


def test_no_solution_anywhere_in_the_student_site(student):
    """Not in the search index, nor in the page sources offered for download (_sources/*.ipynb)."""
    phrases = {w for stem in chapters() for w in (phrase(b, stem) for b in blocks(stem, "solution")) if w}
    files = [p for p in (student / "html").rglob("*") if p.suffix in (".html", ".js", ".ipynb", ".txt", ".md")]
    assert any(p.suffix == ".ipynb" for p in files) and any(p.name == "searchindex.js" for p in files)
    for path in files:
        text = " ".join(path.read_text(encoding="utf-8", errors="replace").split())
        assert "{solution}" not in text and "Solution to" not in text, f"{path}: a solution"
        if path.suffix == ".ipynb":
            text = " ".join(" ".join(c.source.split()) for c in nbformat.reads(path.read_text(encoding="utf-8"),
                                                                                 as_version=4).cells)
        found = [w for w in phrases if w in text]
        assert not found, f"{path}: solution text {found[0]!r}"


def test_student_pages_link_slides_inside_the_edition(student):
    html = student / "html"
    for stem in chapters():
        page = (html / "notebooks" / f"{stem}.html").read_text(encoding="utf-8")
        link = re.search(r'<p class="chapter-slides-link"><a class="reference external" href="([^"]+)"', page)
        assert link, f"{stem}: no link to its slides"
        target = (html / "notebooks" / link.group(1)).resolve()
        assert target == (html / "slides" / f"{stem}.html").resolve() and target.exists(), link.group(1)


def test_no_solution_in_the_student_notebooks(student):
    for stem in chapters():
        nb = nbformat.read(student / "notebooks" / f"{stem}.ipynb", as_version=4)
        markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert "{solution}" not in markdown, f"{stem}: a solution block is in the student notebook"
        labels = set(re.findall(r"^:label:\s*(\S+)", markdown, re.MULTILINE))
        expected = {re.search(r"^:label:\s*(\S+)", b, re.MULTILINE).group(1) for b in blocks(stem, "exercise")}
        assert labels == expected, f"{stem}: exercise statements lost ({expected - labels})"
        heading = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"
                       and re.search(r"^##\s+Exercises\s*$", c.source, re.MULTILINE))
        after = [c for c in nb.cells[heading + 1:] if c.cell_type == "code"]
        graded_cells = [c for c in after if "nbgrader" in c.metadata]
        for c in graded_cells:  # an answer cell holds the stub only; a test cell holds a comment, no code
            assert (c.metadata.nbgrader["solution"] and c.source.startswith(answer_cells.CODE_STUB)
                    and c.source.count("\n") == 1 and c.source.split("\n")[1].split("=")[1].split("#")[0].strip() == "None"
                    or c.metadata.nbgrader["grade"] and all(line.startswith("#") for line in c.source.splitlines())), \
                f"{stem}: nbgrader cell {c.metadata.nbgrader['grade_id']} holds more than its stub: {c.source!r}"
        kept = [c for c in after if {"exercise-setup", "exercise-parameters"} & set(c.metadata.get("tags", []))
                or "nbgrader" in c.metadata]
        assert after == kept or [c.source for c in after] == ["from ledger.exercises import check"], \
            f"{stem}: answer code left after the exercises"
        assert "ledger.exercises import check" in "\n".join(c.source for c in after), f"{stem}: no check import"
        assert all("answer(" not in c.source and "instructor" not in c.source for c in after), stem
        assert "myst_nb" not in everything_code(nb), f"{stem}: imports myst-nb, which students do not install"
        everything = nbformat.writes(nb)
        for body in blocks(stem, "solution"):
            words = phrase(body, stem)
            assert words is None or words not in everything, f"{stem}: solution text {words!r} in the notebook"
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), f"{stem}: outputs stored"


def everything_code(nb) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "code")


CHAPTER_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.MULTILINE)
# The module each student package provides (the requirements file names distributions).
PROVIDES = {"numpy": "numpy", "matplotlib": "matplotlib", "ipywidgets": "ipywidgets", "ipykernel": "ipykernel",
            "ipython": "IPython", "jupyterlab": "jupyterlab", "jupyterlab-myst": "jupyterlab_myst"}


def test_the_student_folder_runs_alone_with_minimal_requirements(student):
    import sys
    requirements = (student / "requirements.txt").read_text(encoding="utf-8")
    names = [re.split(r"[=<>]", line)[0].lower() for line in requirements.splitlines()
             if line.strip() and not line.startswith("#") and not line.startswith("-e")]
    assert "-e ." in requirements.splitlines() and (student / "pyproject.toml").exists()
    assert {"jupyterlab", "jupyterlab-myst"} <= set(names)
    for heavy in ("sphinx", "jupyter-book", "myst-nb", "playwright", "pytest", "nbval", "hypothesis"):
        assert heavy not in names, f"the student requirements install {heavy}"
    assert (student / "ledger" / "exercises" / "registry.py").exists() and (student / "data" / "configs").is_dir()
    assert not list((student / "ledger").rglob("__pycache__"))
    provided = {PROVIDES[n] for n in names if n in PROVIDES} | {"ledger"}
    for stem in chapters():
        nb = nbformat.read(student / "notebooks" / f"{stem}.ipynb", as_version=4)
        for m in CHAPTER_IMPORT.finditer(everything_code(nb)):
            top = (m.group(1) or m.group(2)).split(".")[0]
            assert top in provided or top in sys.stdlib_module_names, f"{stem} imports {top}, not in requirements.txt"
        assert "benchmarks" not in everything_code(nb), f"{stem} reads the repository's benchmarks/"


def pdf_text(pdf: Path) -> str:
    """A PDF's text (pdftotext), words joined by single spaces."""
    assert pdf.exists(), f"make student writes {pdf.name}"
    return _read_once(_pdf_words, pdf.resolve(), pdf.stat().st_mtime_ns)


def test_the_student_pdf_has_no_solution(student):
    text = pdf_text(student / "student.pdf")
    assert "Solution to" not in text and "(student edition)" in text
    phrases = {w for stem in chapters() for w in (phrase(b, stem) for b in blocks(stem, "solution")) if w}
    found = [w for w in phrases if w in text]
    assert not found, f"solution text in the student PDF: {found[0]!r}"
    assert len(re.findall(r"Exercise \d+", text)) >= 2 * len(chapters())


def test_the_main_notebooks_still_have_their_solutions():
    for stem in chapters():
        assert blocks(stem, "solution"), f"notebooks/{stem}.ipynb has no solution block"


# ---------------------------------------------------------------- the edition's own pages (guide, landing page, PDF link)

TEACHER_ONLY = ("instructor", "exercises key", "exercises slips", "key.csv", "make student", "make slides", "--students")


def test_the_student_guide_has_the_schedule_grading_and_install_steps_but_no_teacher_tools(student):
    main = page_text(MAIN / "book" / "course_guide.html")
    mine = page_text(student / "html" / "book" / "course_guide.html")
    for what in ("exercises slips", "exercises key"):
        assert what in main, f"the teacher's guide lost {what!r} (test broken)"
    found = [w for w in TEACHER_ONLY if w in mine]
    assert not found, f"the student course guide names the teacher's {found}"
    for what in ("Five sessions", "Minute by minute", "Assessment plan", "Numeric homework", "Explanations",
                 "In-class derivations on paper", "python3 -m venv .venv", "py -m venv .venv",
                 r".venv\Scripts\activate", "source .venv/bin/activate", "for students"):
        assert what in mine, f"the student course guide lacks {what!r}"
    for path in (student / "html").rglob("*"):  # nor anywhere else in the site (search index included)
        if path.suffix in (".html", ".js", ".txt"):
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "exercises slips" not in text and "exercises key" not in text, f"{path}: the teacher's tools"


def test_the_student_pdf_carries_the_student_guide(student):
    text = pdf_text(student / "student.pdf")
    assert "py -m venv .venv" in text and "Assessment plan" in text
    assert "exercises slips" not in text and "exercises key" not in text and "key.csv" not in text


def test_the_student_landing_page_promises_no_solution_and_links_its_own_pdf(student):
    """The landing page says the worked solutions are in the teacher's edition, and its PDF link opens
    the student PDF beside the pages (none names `make pdf`, which students cannot run)."""
    intro = student / "html" / "book" / "intro.html"
    text = page_text(intro).replace("\u2019", "'")  # the build's typographic apostrophes
    sentences = [s for s in re.split(r"(?<=[.;])\s", text) if "solution" in s.lower()]
    assert sentences and all("teacher's edition" in s or "no solution" in s or "statements only" in s
                             for s in sentences), f"the landing page promises solutions: {sentences}"
    assert "statements only" in text and "make pdf" not in text
    markup = intro.read_text(encoding="utf-8")
    links = re.findall(r'<a class="tx-(?:student-)?pdf" href="([^"]+)"', markup)
    assert links == ["../student.pdf"], links
    assert (intro.parent / links[0]).resolve() == (student / "html" / "student.pdf").resolve()
    assert (student / "html" / "student.pdf").read_bytes() == (student / "student.pdf").read_bytes()
    assert "tx-pdf-missing" not in markup


def test_the_student_guide_and_landing_page_rewrites():
    """Without a build: the teacher blocks go and the student blocks show; an unmatched marker or a
    missing PDF sentence is refused; without a PDF the sentence goes."""
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from student import StudentError, student_guide, student_intro

    guide = "# G\n\nBoth.\n\n<!-- teacher-edition -->\nKey: secret.\n<!-- /teacher-edition -->\n<!-- student-edition\nFor you.\n-->\n\nEnd.\n"
    assert student_guide(guide) == "# G\n\nBoth.\n\nFor you.\n\nEnd.\n"
    with pytest.raises(StudentError):
        student_guide("# G\n\nno teacher block\n")
    with pytest.raises(StudentError):
        student_guide(guide + "<!-- student-edition\nunclosed\n")
    real = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    with_pdf, without = student_intro(real, True), student_intro(real, False)
    assert 'href="../student.pdf"' in with_pdf and "make pdf" not in with_pdf
    assert "student.pdf" not in without and "tx-pdf" not in without and "make pdf" not in without
    with pytest.raises(StudentError):
        student_intro("# Intro\n\nNo PDF here.\n", True)


def test_the_student_readme_gives_per_os_install_steps(student):
    readme = (student / "README.md").read_text(encoding="utf-8")
    for step in ("python3 -m venv .venv", "source .venv/bin/activate", "py -m venv .venv", r".venv\Scripts\activate"):
        assert step in readme, f"README.md lacks {step!r}"
    requirements = (student / "requirements.txt").read_text(encoding="utf-8")
    assert "py -m venv" in requirements and "python3 -m venv" in requirements


def test_keep_notebooks_refuses_a_stale_student_folder(tmp_path):
    """`make test` builds the student HTML and PDF with --keep-notebooks while nbval runs the folder's
    notebooks: the run refuses a folder that is not what --notebooks-only would write now."""
    import shutil
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    import student

    out = tmp_path / "student"
    for name in ("notebooks", "requirements.txt", *student.LIBRARY):
        source = ROOT / "_build" / "student" / name
        assert source.exists(), "build the student folder first (make student)"
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, out / name)
    pins = dict(re.findall(r"^(JUPYTERLAB(?:_MYST)?_VERSION) := (\S+)", (ROOT / "Makefile").read_text(), re.MULTILINE))
    versions = (pins["JUPYTERLAB_VERSION"], pins["JUPYTERLAB_MYST_VERSION"])
    assert student.stale_folder(out, student.chapter_stems(), *versions) == ""
    notebook = out / "notebooks" / "03_three_passes.ipynb"
    notebook.write_text(notebook.read_text(encoding="utf-8").replace("ledger", "ledgr", 1), encoding="utf-8")
    assert "03_three_passes.ipynb is missing or stale" in student.stale_folder(out, student.chapter_stems(), *versions)
    shutil.copy2(ROOT / "_build" / "student" / "notebooks" / "03_three_passes.ipynb", notebook)
    (out / "ledger" / "engine.py").write_text("# changed\n", encoding="utf-8")
    assert "engine.py is missing or differs" in student.stale_folder(out, student.chapter_stems(), *versions)


def disk_megabytes(folder: Path) -> float:
    """The space `folder` takes on disk (allocated blocks of its files and folders, each inode once), in MB."""

    seen, used = set(), 0
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        if (info.st_dev, info.st_ino) not in seen:
            seen.add((info.st_dev, info.st_ino))
            used += info.st_blocks * 512
    return used / 1e6


def test_the_stated_size_of_the_student_environment_is_within_15_percent_of_the_real_one():
    """The README and the course guide say how much disk the student requirements take; the
    environment made from them (.venv-student, `make student-env`) is measured against it."""
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    import student
    import student_env

    assert student_env.python().exists(), (f"the student environment {student_env.VENV} is missing: run "
                                           "`make student-env` (or set TX_STUDENT_VENV to one)")
    guide = " ".join((ROOT / "book" / "course_guide.md").read_text(encoding="utf-8").split())
    readme = student.README.format(title="", env_mb=student.STUDENT_ENV_MB)
    stated = {int(n) for text in (guide, readme) for n in re.findall(r"about (\d+) MB on disk", text)}
    assert stated == {student.STUDENT_ENV_MB}, f"the guide and the README state {stated} MB"
    measured = disk_megabytes(student_env.VENV)
    assert abs(student.STUDENT_ENV_MB - measured) <= 0.15 * measured, \
        f"{student_env.VENV} takes {measured:.0f} MB; the guide and README say about {student.STUDENT_ENV_MB} MB"


def makefile_targets() -> list[str]:
    return sorted(set(re.findall(r"^([a-z][\w-]*)\s*:(?!=)", (ROOT / "Makefile").read_text(encoding="utf-8"),
                                 re.MULTILINE)))


def make_commands_in(text: str) -> list[str]:
    targets = "|".join(sorted(map(re.escape, makefile_targets()), key=len, reverse=True))
    return re.findall(rf"\bmake (?:{targets})(?![\w-])", text)


def test_no_make_command_is_given_to_students(student):
    """The student folder has no Makefile and is no clone: its pages (and their sources), notebooks and
    README name no `make` command, where the main book's landing page and chapters do; its notebooks'
    install cell and landing page give the folder's own route (requirements.txt, jupyter lab)."""
    assert make_commands_in(page_text(MAIN / "book" / "intro.html")), "the main landing page names no make (test broken)"
    assert make_commands_in(markdown("00_introduction")), "chapter 00 names no make command (test broken)"
    found = {}
    for path in [*(student / "html").rglob("*"), *(student / "notebooks").glob("*.ipynb"), student / "README.md"]:
        if path.suffix in (".html", ".ipynb", ".md", ".txt") and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            text = page_text(path) if path.suffix == ".html" else " ".join(text.replace("\\n", " ").split())
            if make_commands_in(text):
                found[str(path.relative_to(student))] = make_commands_in(text)
    assert not found, f"make commands given to students: {found}"
    intro = page_text(student / "html" / "book" / "intro.html")
    assert "pip install -r requirements.txt" in intro and "jupyter lab notebooks/" in intro
    for stem in chapters():
        nb = nbformat.read(student / "notebooks" / f"{stem}.ipynb", as_version=4)
        install = [c for c in nb.cells if "colab-install" in c.metadata.get("tags", [])]
        assert len(install) == 1 and "requirements.txt" in install[0].source, f"{stem}: the install cell"


def test_the_student_notebooks_rewrite_the_repositorys_commands_and_refuse_others():
    """Without a build: `make lab` and `make measure` become the folder's commands, the install cell
    names requirements.txt, and a `make` target with no student form is refused by name."""
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from student import StudentError, student_notebook

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell('raise ModuleNotFoundError("run `make lab` in a clone")',
                                  metadata={"tags": ["remove-cell", "colab-install"]}),
        nbformat.v4.new_markdown_cell("Run this chapter live with `make lab` to move the sliders; `make measure` times."),
    ])
    out = student_notebook(nb)
    text = "\n".join(c.source for c in out.cells)
    assert not make_commands_in(text), text
    assert "requirements.txt" in out.cells[0].source and "python -m ledger.measure" in out.cells[1].source
    assert "jupyter lab notebooks/" in out.cells[1].source
    nb.cells[1].metadata["tx_slides"] = {"The panel": "- Run live with `make lab`"}
    assert not make_commands_in(str(student_notebook(nb).cells[1].metadata))
    nb.cells[1].source = "Then run `make results`."
    with pytest.raises(StudentError, match="make results"):
        student_notebook(nb)


def test_the_student_slides_rewrite_the_repositorys_commands_and_refuse_others(tmp_path):
    """The slides copied from the main book: the same rewrites in their HTML (lines and speaker notes)."""
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from student import StudentError, student_slides

    deck = tmp_path / "09.html"
    deck.write_text("<li>Run live with <code>make lab</code></li><aside><p>Run this chapter live with <code>make "
                    "lab</code>\n(it opens JupyterLab on the notebooks); <code>make measure</code> runs it.</p></aside>",
                    encoding="utf-8")
    student_slides(tmp_path)
    html = deck.read_text(encoding="utf-8")
    assert not make_commands_in(re.sub(r"<[^>]+>", "", html)), html
    assert "<code>jupyter lab notebooks/</code>" in html and "<code>python -m ledger.measure</code>" in html
    assert "(it opens" not in html, "the note's aside on make lab stays"
    deck.write_text("<p>Run <code>make slides</code>.</p>", encoding="utf-8")
    with pytest.raises(StudentError, match="make slides"):
        student_slides(tmp_path)


def _student_files(student: Path):
    for path in student.rglob("*"):
        if path.is_file() and path.suffix in {".py", ".ipynb", ".html", ".md", ".txt", ".js", ".json", ".csv", ".tex"}:
            yield path


def test_no_rubric_and_no_teacher_module_in_the_student_folder(student):
    """The explanations' rubrics and the answer key are the teacher's: the student folder's library
    has neither `rubrics.py` nor `instructor.py` (nor a build's egg-info), and no file of the folder
    (library, notebooks, HTML) carries a rubric's words, while the teacher's edition has a rubric
    for every explained label."""
    from ledger.exercises import REGISTRY
    from ledger.exercises.rubrics import RUBRICS

    explained = sorted(label for label, ex in REGISTRY.items() if ex.answer is None)
    assert explained and sorted(RUBRICS) == explained, "every explained label (and only those) needs a rubric"
    assert all(REGISTRY[label].rubric == RUBRICS[label] for label in explained)
    library = student / "ledger" / "exercises"
    assert (library / "registry.py").exists() and (library / "__init__.py").exists()
    assert not (library / "instructor.py").exists() and not (library / "rubrics.py").exists()
    assert not list((student / "ledger").rglob("*.egg-info"))
    # a rubric's first 60 characters, whitespace folded, looked for in every text file of the folder
    needles = {label: " ".join(text.split())[:60] for label, text in RUBRICS.items()}
    found = []
    for path in _student_files(student):
        text = " ".join(path.read_text(encoding="utf-8", errors="replace").split())
        found += [f"{path.relative_to(student)}: {label}" for label, needle in needles.items() if needle in text]
    assert not found, "rubric text in the student folder: " + "; ".join(found[:10])


STUDENT_PYTHON = Path(os.environ.get("TX_STUDENT_VENV", ROOT / ".venv-student")) / "bin" / "python"
"""The student environment's Python (`make student-env`; TX_STUDENT_VENV for another, as book/_tools/student_env.py)."""


def test_check_and_show_parameters_work_from_the_student_folders_library(student):
    """A student notebook's `from ledger.exercises import check, show_parameters` works from the
    folder's own library (isolated from this checkout), explanations have no rubric there, and
    `python -m ledger exercises key` says in one line that the key is in the teacher's edition."""
    script = ("import sys; sys.path.insert(0, '..'); import ledger; "
              "from ledger.exercises import check, show_parameters, REGISTRY; "
              "assert ledger.__file__.startswith(sys.argv[1]), ledger.__file__; "
              "show_parameters('masks-step-size', student='s001'); "
              "print(check('passes-mask-count', 1).verdict); print(check('passes-mask-count-dw', 1).verdict); "
              "print(check('masks-encoding-why', 1).verdict); "
              "print(repr(REGISTRY['masks-encoding-why'].rubric))")
    done = subprocess.run([str(STUDENT_PYTHON), "-I", "-B", "-c", script, str(student.resolve())],
                          cwd=student / "notebooks", capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("masks-step-size (student s001):")
    assert lines[-4] == "graded" and lines[-3] in {"right", "close", "wrong"}, lines  # a graded label, a practice one
    assert lines[-2:] == ["explanation", "''"]
    key = subprocess.run([str(STUDENT_PYTHON), "-I", "-B", "-c", ("import sys, runpy; sys.path.insert(0, '..'); "
                          "sys.argv = ['ledger', 'exercises', 'key']; runpy.run_module('ledger', run_name='__main__')")],
                         cwd=student / "notebooks", capture_output=True, text=True, check=False)
    assert key.returncode == 2 and key.stdout == ""
    assert len(key.stderr.strip().splitlines()) == 1 and "teacher's edition" in key.stderr


def test_exercises_list_works_from_the_student_folder(student):
    """The student guide says `python -m ledger exercises list` lists the labels: from the student
    folder (its own library, the student environment, writing nothing) it prints every label with its
    unit and precision, as the teacher's edition does, and no answer or rubric; `key` stays refused."""
    from ledger.exercises import REGISTRY
    from ledger.exercises.registry import label_lines

    before = sorted(p.relative_to(student) for p in student.rglob("*"))
    run = "import sys, runpy; sys.path.insert(0, '..'); sys.argv = ['ledger', 'exercises', 'list']; " \
          "runpy.run_module('ledger', run_name='__main__')"
    done = subprocess.run([str(STUDENT_PYTHON), "-I", "-B", "-c", run], cwd=student / "notebooks",
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines == label_lines() and [line.split("\t")[0] for line in lines] == sorted(REGISTRY)
    assert all(len(line.split("\t")) == 4 and line.split("\t")[3] in ("graded", "formative", "practice") for line in lines), lines[:3]
    assert not any(ex.rubric and ex.rubric[:40] in done.stdout for ex in REGISTRY.values())
    assert sorted(p.relative_to(student) for p in student.rglob("*")) == before


# ---------------------------------------------------------------- the handout (student.pdf): paper a student reads

def _student_tool():
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    import student as tool  # book/_tools/student.py

    return tool


def _student_cells(student: Path, kind: str) -> list:
    return [c for path in sorted((student / "notebooks").glob("*.ipynb"))
            for c in nbformat.read(path, as_version=4).cells if c.cell_type == kind]


CODE_MARKS = ("import ", "def ", "show_parameters(", "STUDENT_ID =", "= ledger.", "plt.", "glue(", "display(")
"""Text a code input prints, all in the chapters' code (checked); the PDF may print one only as often as
the prose does (chapter 09's prose names `from ledger.explore import explorer`; the course guide's page
shows how to call `check`, a page's example and no code cell)."""
WIDGET_MARKS = ("Loading widget", "IntSlider", "FloatSlider", "Dropdown(", "interactive(children", "VBox(", "HBox(",
                "widget-view+json")


def test_the_student_pdf_has_no_code_input_and_no_widget(student):
    """The handout hides every code input and widget (print_pdf.py --no-code) and keeps the figures,
    tables, prose and statements: none of CODE_MARKS or WIDGET_MARKS is printed, though the notebooks'
    code holds every code mark; no line of a code input is printed, though the main book's PDF route
    prints them; each `ledger.` name the PDF prints is one the prose or an output (a table) names."""
    text = pdf_text(student / "student.pdf")
    code = "\n".join(c.source for c in _student_cells(student, "code"))
    pages = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "book").glob("*.md"))]  # the guide's own examples
    prose = " ".join(" ".join(t.split()) for t in [c.source for c in _student_cells(student, "markdown")] + pages)
    assert all(mark in code for mark in CODE_MARKS), [m for m in CODE_MARKS if m not in code]
    printed = [m for m in CODE_MARKS + WIDGET_MARKS if text.count(m) > prose.count(m)]  # beyond the prose's own
    assert not printed, f"code or a widget in the student PDF: {printed}"
    lines = {" ".join(line.split()) for line in code.splitlines()}
    lines = [line for line in lines if len(line) >= 25 and line not in prose]
    assert len(lines) > 200, len(lines)
    found = [line for line in lines if line in text]
    assert not found, f"{len(found)} code lines in the student PDF, e.g. {found[:3]}"
    outputs = " ".join(str(v) for path in sorted((ROOT / "_build" / "executed" / "notebooks").glob("*.ipynb"))
                       for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"
                       for o in c.get("outputs", []) for k, v in o.get("data", {}).items() if k.startswith("text/"))
    names = set(re.findall(r"\bledger\.[\w.]*\w", text))  # named by the prose or a table, not by code
    assert names and not [n for n in names if n not in prose and n not in outputs], \
        sorted(n for n in names if n not in prose and n not in outputs)
    assert "Exercises" in text and "Summary" in text


def test_parameter_blanks_name_each_variant_parameter_once():
    """parameter_blanks: one blank per parameter the variants of a statement's parts draw, in the
    registry's words (PARAMETER_TEXT), each once; a statement whose parts do not vary says so."""
    from ledger.exercises import registry

    tool = _student_tool()
    labels = [label for label in registry.REGISTRY if registry.exercise_of(label) == label]
    varied = [label for label in labels if any(registry.REGISTRY[p].variants for p in registry.parts(label))]
    fixed = [label for label in labels if label not in varied and registry.REGISTRY[label].asks_number]
    assert varied and fixed
    for label in varied:
        names = {n for p in registry.parts(label) if registry.REGISTRY[p].asks_number
                 for n in registry.REGISTRY[p].variants}
        lines = tool.parameter_blanks(label).splitlines()
        assert lines == sorted(set(lines), key=lines.index) and len(lines) == len(names), (label, lines)
        for name in names:
            words = registry.PARAMETER_TEXT.get(name, (name, None))[0]
            assert f"{label}: your {words} = ______ (from your slip)" in lines, (label, name, lines)
        assert not any(any(ch.isdigit() for ch in line.split("=", 1)[1]) for line in lines), lines
    assert tool.parameter_blanks(fixed[0]) == f"{fixed[0]}: the statement's parameters, the same for everyone\n"
    explained = [label for label in labels if all(not registry.REGISTRY[p].asks_number for p in registry.parts(label))]
    assert explained and tool.parameter_blanks(explained[0]) == ""  # an explanation alone: nothing to fill


def test_handout_notebook_puts_blanks_in_place_of_the_books_values():
    tool = _student_tool()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('show_parameters("masks-step-size", STUDENT_ID)',
                                                                   metadata={"tags": ["exercise-parameters"]})])
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="the book's values: 2,097,152\n")]
    out = tool.handout_notebook(nb)
    assert [o["text"] for o in out.cells[0].outputs] == [tool.parameter_blanks("masks-step-size")]
    bad = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)", metadata={"tags": ["exercise-parameters"]})])
    with pytest.raises(tool.StudentError, match="show_parameters"):
        tool.handout_notebook(bad)
    for stem in chapters():  # every chapter's Exercises section opens with the on-screen sentence, which paper rewrites
        chapter = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
        assert any(tool.ON_SCREEN_PARAMETERS in c.source for c in chapter.cells if c.cell_type == "markdown"), stem
        printed = tool.handout_notebook(chapter)
        text = "\n".join(c.source for c in printed.cells if c.cell_type == "markdown")
        assert tool.ON_SCREEN_PARAMETERS not in text and tool.ON_PAPER_PARAMETERS in text, stem


def test_the_student_pdf_prints_blanks_for_each_students_parameters(student):
    """Each statement's parameters cell prints, in the handout, its blanks to fill from the slip
    (parameter_blanks), and never the book's values that the HTML edition prints there."""
    tool = _student_tool()
    text = pdf_text(student / "student.pdf")
    labels = [m for c in _student_cells(student, "code") if "exercise-parameters" in c.metadata.get("tags", [])
              for m in tool.PARAMETERS_CALL.findall(c.source)]
    assert len(labels) >= 30, len(labels)
    missing = [(label, line) for label in labels for line in tool.parameter_blanks(label).splitlines()
               if " ".join(line.split()) not in text]
    assert not missing, f"{len(missing)} parameter lines missing from the student PDF, e.g. {missing[:3]}"
    assert text.count("(from your slip)") >= 20 and "(the book's values)" not in text
    html = page_text(student / "html" / "notebooks" / "06_masks.html")
    assert "(the book's values)" in html  # the page shows the book's values; only paper has blanks


def _exercise_labels(student: Path) -> list[str]:
    return [label for c in _student_cells(student, "markdown")
            for label in re.findall(r"^```\{exercise\}[^\n]*\n:label:\s*(\S+)", c.source, re.MULTILINE)]


def test_each_exercise_title_names_its_label(student):
    """Every exercise is titled "Exercise N (label)" (book/_ext/exercise_labels.py; N is sphinx-exercise's
    number, through the book), as the guide, the slides and the key name it: in the student PDF, the
    student HTML and the main book."""
    labels = _exercise_labels(student)
    assert len(labels) >= 30, len(labels)
    text = pdf_text(student / "student.pdf")
    missing = [label for label in labels if not re.search(rf"Exercise \d+(?:\.\d+)? \({re.escape(label)}\)", text)]
    assert not missing, f"exercise titles without their label in the student PDF: {missing[:5]}"
    for html in (student / "html", MAIN):
        pages = " ".join(page_text(p) for p in sorted((html / "notebooks").glob("*.html")))
        missing = [label for label in labels if not re.search(rf"Exercise \d+(?:\.\d+)? \({re.escape(label)}\)", pages)]
        assert not missing, f"exercise titles without their label in {html}: {missing[:5]}"


def _png_size(data: str) -> tuple[int, int]:
    import base64
    import io

    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(data))).size


def test_the_student_pdfs_figures_print_their_smallest_type_at_six_points_or_more(student):
    """Measured in the PDF: each figure's printed pixel density (pdfimages -list, x-ppi) with the
    smallest type the build recorded for it (min_type_pt, at FIGURE_DPI) gives the type's printed
    size, at least PRINT_MIN_PT; each prints PRINT_WIDTH_IN wide, as ledger.figures assumes."""
    import json

    from ledger.figures import FIGURE_DPI, PRINT_MIN_PT, PRINT_WIDTH_IN

    sizes = {}  # PNG pixel size -> the smallest type recorded for a figure of that size
    for path in sorted((ROOT / "_build" / "executed" / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                meta = output.get("metadata", {}).get("image/png", {})
                png = [v for k, v in output.get("data", {}).items() if k.endswith("image/png")]  # glued ones too
                if "min_type_pt" in meta and png:
                    size = _png_size(png[0])
                    sizes[size] = min(sizes.get(size, float("inf")), meta["min_type_pt"])
    listing = subprocess.run(["pdfimages", "-list", str(student / "student.pdf")], capture_output=True, text=True,
                             check=True).stdout.splitlines()[2:]
    images = [(int(f[3]), int(f[4]), float(f[12])) for f in (line.split() for line in listing) if f[2] == "image"]
    assert len(images) >= 20, len(images)
    unknown = [(w, h) for w, h, _ in images if (w, h) not in sizes]
    assert not unknown, f"figures in the PDF the build recorded no type size for: {unknown}"
    widths = [w / ppi for w, _, ppi in images]
    assert all(abs(w / PRINT_WIDTH_IN - 1) < 0.02 for w in widths), widths
    printed = [(round(sizes[(w, h)] * FIGURE_DPI / ppi, 2), (w, h)) for w, h, ppi in images]
    small = [p for p in printed if p[0] < PRINT_MIN_PT - 0.05]
    assert not small, f"figure type printed below {PRINT_MIN_PT} pt: {small}"
