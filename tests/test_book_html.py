"""The built book against what its build executed: every glued number on every page is the executed value.

`make book` wipes its cache and executes every chapter from scratch with the current ledger
(book/_tools/execute_chapters.py) into _build/executed/. The glue values in those notebooks are
formatted with each role's format spec exactly as myst-nb formats them and compared, in order, with the
numbers on the built HTML page. The glue values myst-nb rendered (_build/jupyter_execute/*.glue.json)
must be this execution's, and every code cell (the remove-cell asserts among them) must have run without
error. nbval executes every chapter's student copy in the student environment: two executions per chapter in `make test`.
The test also checks that no static page carries a dead widget and that no page shows NaN or Infinity.
"""
from __future__ import annotations

import functools
import json
import re

import nbformat
import pytest

from book_pages import (EXECUTED, HTML, RENDERED, ROOT, built_page, chapter_notebooks, executed_notebook,
                        html_tree, text_of, toc_files, with_class)

MEASURED = "measured_"
GLUE_TEXT = re.compile(r"\{glue:text\}`([^`]+)`")
# The {eval} form of a glued number (book/_tools/prose_eval.py): {eval}`f'{glued.key:fmt}'`, int(...) for
# an integer format; the page shows the text the chapter's kernel gave (book/_ext/eval_values.py).
EVAL_GLUED = re.compile(r"\{eval\}`f'\{(?:int\()?glued\.(\w+)\)?(?::([^}]*))?\}'`")


def executed_glue(nb: nbformat.NotebookNode) -> dict[str, str]:
    """The glued values of an executed notebook as text/plain reprs."""
    values = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:  # myst-nb stores the value under a papermill prefix outside its own builds
                data = output["data"]
                values[name] = data.get("text/plain", data.get("application/papermill.record/text/plain"))
    return values


@pytest.fixture(scope="module")
def fresh_glue() -> dict[str, dict[str, str]]:
    """Every chapter's glued values, from the notebook the build executed."""
    return {str(p.relative_to(ROOT).with_suffix("")): executed_glue(executed_notebook(EXECUTED, p))
            for p in chapter_notebooks()}


@pytest.mark.parametrize("path", chapter_notebooks(), ids=lambda p: p.stem)
def test_the_build_executed_every_cell_afresh(path):
    """This build's executed copy has the chapter's code, every cell run once in order, no error output."""
    code = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    ran = [c for c in executed_notebook(EXECUTED, path).cells if c.cell_type == "code"]
    assert [c.source for c in ran] == code, f"{path.name}: the executed copy has other code than the chapter"
    counts = [c.execution_count for c in ran]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: execution counts {counts}"
    assert not [o for c in ran for o in c.outputs if o.output_type == "error"], f"{path.name}: an error output"


@pytest.mark.parametrize("path", chapter_notebooks(), ids=lambda p: p.stem)
def test_the_pages_were_rendered_from_this_builds_execution(path, fresh_glue):
    """The glue values myst-nb rendered (its <docname>.glue.json) are the ones this build executed."""
    docname = str(path.relative_to(ROOT).with_suffix(""))
    glue_json = RENDERED / f"{docname}.glue.json"
    assert glue_json.exists(), f"{glue_json} is missing: build the book first (make book)"
    rendered = {key: out["data"].get("text/plain") for key, out in json.loads(glue_json.read_text()).items()}
    assert rendered == fresh_glue[docname], f"{path.name}: the pages show glue values this build did not execute"


def test_the_execution_is_newer_than_the_ledger_and_the_chapters():
    """A ledger or chapter edited after the last `make book` would leave the pages and these tests stale."""
    executed = list(EXECUTED.glob("**/*.ipynb"))
    assert executed, f"nothing in {EXECUTED}: build the book first (make book)"
    sources = [*(ROOT / "ledger").glob("**/*.py"), *chapter_notebooks()]
    newest = max(sources, key=lambda p: p.stat().st_mtime)
    oldest_run = min(p.stat().st_mtime for p in executed)
    assert newest.stat().st_mtime <= oldest_run, f"{newest.relative_to(ROOT)} changed after the last make book"


def expected_texts(docname: str, fresh: dict[str, dict[str, str]]) -> list[tuple[str, str]]:
    from myst_nb.core.variables import format_plain_text  # here, not at collection: myst-nb takes 0.7 s to import

    nb = nbformat.read(ROOT / f"{docname}.ipynb", as_version=4)
    expected = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        refs = [m.group(1) if m.re is GLUE_TEXT else f"{m.group(1)}:{m.group(2) or ''}"
                for m in sorted([*GLUE_TEXT.finditer(cell.source), *EVAL_GLUED.finditer(cell.source)],
                                key=lambda m: m.start())]
        for ref in refs:
            source_doc = docname
            if "::" in ref:
                path, ref = ref.split("::", 1)
                source_doc = str((ROOT / docname).parent.joinpath(path).resolve().relative_to(ROOT).with_suffix(""))
            key, _, fmt = ref.partition(":")
            assert key in fresh[source_doc], f"{docname}: glue key {key!r} is not glued by {source_doc}"
            expected.append((key, format_plain_text(fresh[source_doc][key], fmt)))
    return expected


def _both_numbers(want: str, got: str) -> bool:
    number = re.compile(r"[0-9][0-9.,]*(e[+-]?[0-9]+)?", re.IGNORECASE)
    return bool(number.fullmatch(want) and number.fullmatch(got))


@functools.cache
def article(docname: str):
    """The page's <article> (the whole page if it has none; book_pages.html_tree), parsed once for all
    the tests that read it. The tests only read it."""
    root = html_tree(built_page(docname).read_text())
    return next(root.iter("article"), root)


@pytest.mark.parametrize("docname", [str(p.relative_to(ROOT).with_suffix("")) for p in chapter_notebooks()])
def test_glued_numbers_match_the_ledger(docname, fresh_glue):
    expected = expected_texts(docname, fresh_glue)
    shown = [text_of(span) for span in with_class(article(docname), "span", "pasted-text")]
    assert len(shown) == len(expected), f"{docname}: {len(shown)} glued numbers on the page, {len(expected)} in the source"
    # Chapter 16 glues timings measured while the book is built: they differ on every run, so they are
    # checked to be shown as numbers, not against a second measurement.
    stale = [(key, want, got) for (key, want), got in zip(expected, shown)
             if want != got and not (key.startswith(MEASURED) and _both_numbers(want, got))]
    assert not stale, f"{docname}: stale or wrong numbers (key, ledger now, page): {stale[:5]}"


def test_every_chapter_glues_numbers():
    for nb in chapter_notebooks():
        text = nb.read_text()
        assert "{glue:text}" in text or "{eval}`f'{glued." in text, f"{nb.name} has no glued numbers"


@pytest.mark.parametrize("docname", toc_files())
def test_no_dead_widgets_or_bad_numbers(docname):
    page = built_page(docname).read_text()
    text = text_of(article(docname), " ")
    assert "application/vnd.jupyter.widget-view+json" not in page, f"{docname}: a widget output on a static page"
    assert "Loading widget" not in text
    if docname != "book/explorer":
        assert '<input type="range"' not in page and "<select" not in page, f"{docname}: a control with no kernel"
    for bad in ("NaN", "Infinity", "Traceback"):
        assert not re.search(rf"\b{bad}\b", text), f"{docname}: the page shows {bad}"
    tables = " ".join(text_of(t, " ") for t in article(docname).iter("table"))
    assert not re.search(r"</?(code|b|i|span)>", tables), f"{docname}: a table shows escaped HTML markup as text"


def test_built_book_has_every_page():
    for docname in toc_files():
        built_page(docname)
    assert (HTML / "index.html").exists()


@pytest.mark.parametrize("docname", [str(p.relative_to(ROOT).with_suffix("")) for p in chapter_notebooks()])
def test_chapters_show_a_figure(docname):
    images = list(article(docname).iter("img"))
    assert images, f"{docname}: no figure on the page"


def test_the_page_text_is_what_beautifulsoup_reads():
    """book_pages.text_of (lxml, scripts, styles and comments left out) gives the words BeautifulSoup's
    get_text gives, which these tests used before: checked on a chapter page with code, math and tables."""
    from bs4 import BeautifulSoup

    text = built_page("notebooks/05_amdahl_table").read_text(encoding="utf-8")
    expected = BeautifulSoup(text, "html.parser").get_text(" ").split()
    assert text_of(html_tree(text), " ").split() == expected
    assert "<script" in text and len(expected) > 1000
