"""The chapter slides (`make slides`, in _build/slides): one per chapter, glued numbers in place,
nothing loaded from outside, and in a real browser: every slide reached with the arrow keys, math
typeset by the local MathJax, no page error. Also: each chapter page of the book links its slides.

The slides are built from the main build's executed chapters when _build/slides is missing (set
TX_SLIDES to test another folder); `make test` should run `make slides` after `make book`.
"""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

import ledger

from book_pages import serve_directory

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
BROWSER_CHAPTER = "02_correlation"  # display equations, inline math, a figure and a table


def chapters() -> list[str]:
    return re.findall(r"file:\s*notebooks/(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def slides_dir() -> Path:
    out = Path(os.environ.get("TX_SLIDES", ROOT / "_build" / "slides"))
    if not (out / f"{BROWSER_CHAPTER}.html").exists():
        if "TX_SLIDES" in os.environ:
            pytest.fail(f"TX_SLIDES={out} holds no {BROWSER_CHAPTER}.html")
        done = subprocess.run(["make", "slides"], cwd=ROOT, capture_output=True,
                              text=True, check=False)
        assert done.returncode == 0, "could not build the slides:\n" + done.stdout[-3000:] + done.stderr[-3000:]
    return out


def test_one_slide_set_per_chapter(slides_dir):
    for stem in chapters():
        page = (slides_dir / f"{stem}.html").read_text(encoding="utf-8")
        assert len(re.findall(r"<section[ >]", page)) >= 4, f"{stem}: fewer than four slides"
        for role in ("{glue", "{eval", "{cite}", "{doc}", "{solution}", "{exercise}"):
            assert role not in page, f"{stem}: {role} left unreplaced on the slides"
    index = (slides_dir / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{stem}.html"' in index for stem in chapters())


def test_numbers_are_the_ledgers(slides_dir):
    page = (slides_dir / "05_amdahl_table.html").read_text(encoding="utf-8")
    row = ledger.step_row(variant="hyena2_circulant", seq_len=4096)
    for value in (f"{100 * row.step_share:.2f}%", f"{100 * row.static_share:.2f}%", f"{row.amdahl:.3f}x"):
        assert value in page, f"{value} (from the ledger) is not on the Amdahl-table slides"
    assert page.count('<img class="figure"') >= 2 and page.count("<table") >= 2


def test_every_figure_on_the_slides_says_what_it_shows(slides_dir):
    """The chapter's alt text travels with each figure (a screen reader reads the deck too)."""
    from ledger.figures import check_alt

    figures = 0
    for page in slides_dir.glob("*.html"):
        for alt in re.findall(r'<img class="figure" alt="([^"]*)"', page.read_text(encoding="utf-8")):
            check_alt(html.unescape(alt))  # a LedgerError names a file-name or too-short alt text
            figures += 1
    assert figures >= 20, f"only {figures} figures on all the slides"


def test_nothing_is_loaded_from_outside(slides_dir):
    for page in slides_dir.glob("*.html"):
        for url in re.findall(r'(?:src|href)="([^"]+)"', page.read_text(encoding="utf-8")):
            scheme = urlparse(url).scheme
            assert scheme in ("", "data"), f"{page.name} loads {url}"
            if not scheme and not url.startswith(("#", "../html/")):
                assert (slides_dir / url).exists(), f"{page.name} refers to {url}, which is not in {slides_dir}"
    assert (slides_dir / "lib" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()


def test_each_chapter_page_links_its_slides(slides_dir):
    """The book carries a copy of the slides in its slides/ folder; each chapter page links its own,
    and that copy links back to the chapter page."""
    html = ROOT / "_build" / "html"
    assert (html / "index.html").exists(), "build the book first (make book)"
    for stem in chapters():
        page = (html / "notebooks" / f"{stem}.html").read_text(encoding="utf-8")
        link = re.search(r'<p class="chapter-slides-link"><a class="reference external" href="([^"]+)"', page)
        assert link, f"notebooks/{stem}.html has no link to its slides"
        target = (html / "notebooks" / link.group(1)).resolve()
        assert target == (html / "slides" / f"{stem}.html").resolve() and target.exists(), link.group(1)
        back = re.search(r'<p class="chapter-link"><a href="([^"]+)"', target.read_text(encoding="utf-8"))
        assert back and (target.parent / back.group(1)).resolve() == (html / "notebooks" / f"{stem}.html").resolve()
        assert (slides_dir / f"{stem}.html").exists()


@pytest.fixture(scope="module")
def server(slides_dir):
    with serve_directory(slides_dir) as base:
        yield base


@pytest.mark.browser
def test_slides_in_a_browser(server):
    from playwright.sync_api import sync_playwright

    outside, failed, errors = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})

        def route(r):
            if urlparse(r.request.url).hostname == "127.0.0.1" or r.request.url.startswith("data:"):
                r.continue_()
            else:
                outside.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.goto(f"{server}/{BROWSER_CHAPTER}.html")
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        total = page.evaluate("Reveal.getTotalSlides()")
        assert total >= 8
        page.wait_for_function("document.querySelectorAll('mjx-container').length > 0", timeout=30_000)
        seen = [page.evaluate("Reveal.getIndices().h")]
        for _ in range(total - 1):
            page.keyboard.press("ArrowRight")
            page.wait_for_function(f"Reveal.getIndices().h === {seen[-1] + 1}", timeout=5_000)
            seen.append(page.evaluate("Reveal.getIndices().h"))
        assert seen == list(range(total)) and page.evaluate("Reveal.isLastSlide()")
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(f"Reveal.getIndices().h === {total - 2}", timeout=5_000)
        typeset = page.evaluate("document.querySelectorAll('mjx-container[display=\"true\"]').length")
        raw = page.evaluate("document.querySelector('.slides').innerText.includes('\\\\[')")
        browser.close()
    assert typeset >= 2, "the display equations were not typeset"
    assert not raw, "a display equation was left as TeX source"
    assert not outside, f"the slides asked for outside addresses: {outside}"
    assert not failed, f"requests that failed: {failed}"
    assert not errors, "\n".join(errors)


def test_slide_type_metadata_overrides_the_rule():
    """Jupyter's slideshow metadata: "skip" leaves a cell out, "slide" puts the whole cell on a slide."""
    import nbformat

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from slides import Context, choose_slides, read_sections

    md = nbformat.v4.new_markdown_cell
    nb = nbformat.v4.new_notebook(cells=[
        md("# A chapter\n\nIts first paragraph."),
        md("## A section\n\nLead paragraph, on the slide.\n\nSecond paragraph, left out by the rule."),
        md("A cell the rule would fold into the section, shown whole.", metadata={"slideshow": {"slide_type": "slide"}}),
        md("## Skipped section\n\nNever shown.", metadata={"slideshow": {"slide_type": "skip"}}),
        md("## Summary\n\n- one {glue:text}`share:.2f`%\n- two"),
    ])
    ctx = Context("test", {"share": "12.3456"}, citations={}, titles={}, chapter_page="x.html")
    slides = choose_slides(read_sections(nb), ctx)
    text = "\n".join(slides)
    assert len(slides) == 4, slides
    assert "Lead paragraph" in slides[1] and "Second paragraph" not in text
    assert slides[2].startswith("<p>A cell the rule would fold") and "Never shown" not in text
    assert "one 12.35%" in slides[3]


def test_glue_is_read_from_outputs_when_there_is_no_glue_file():
    """An executed folder without myst-nb's .glue.json (glue outputs still in the cells) gives the same values."""
    import nbformat

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from executed import take_glue_outputs

    prefix = "application/papermill.record/"
    cell = nbformat.v4.new_code_cell("glue(...)", outputs=[
        nbformat.v4.new_output("display_data", data={prefix + "text/plain": "12.1875"},
                               metadata={"scrapbook": {"name": "share", "mime_prefix": prefix}}),
        nbformat.v4.new_output("stream", name="stdout", text="kept\n")])
    nb = nbformat.v4.new_notebook(cells=[cell])
    assert take_glue_outputs(nb) == {"share": {"output_type": "display_data", "data": {"text/plain": "12.1875"},
                                               "metadata": {"scrapbook": {"name": "share", "mime_prefix": prefix}}}}
    assert [o["output_type"] for o in nb.cells[0].outputs] == ["stream"]
