"""The chapter slides (`make slides`, in _build/slides): one per chapter, glued numbers in place,
nothing loaded from outside, and in a real browser: every slide reached with the arrow keys, math
typeset by the local MathJax, no page error. Also: each chapter page of the book links its slides.

The slides are built from the main build's executed chapters when _build/slides is missing (set
TX_SLIDES to test another folder); `make test` should run `make slides` after `make book`.
"""
from __future__ import annotations

import html
import itertools
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
from book_pages import serve_directory
from chromium import ARGS, CHROMIUM, offline_args

import ledger

ROOT = Path(__file__).resolve().parents[1]
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
    """Jupyter's slideshow metadata: "skip" leaves a cell out, "slide" puts the whole cell on a slide;
    written lines (tx_slides) replace a section's paragraph on its slide, which moves to the notes."""
    import nbformat

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    import slide_text
    from slides import Context, choose_slides, read_sections

    md = nbformat.v4.new_markdown_cell
    nb = nbformat.v4.new_notebook(cells=[
        md("# A chapter\n\nIts first paragraph."),
        md("## Overview\n\n- learn one thing\n- learn another", metadata={"tx_slides": {"Overview": "- one\n- two"}}),
        md("## A section\n\nLead paragraph, in the notes.\n\nSecond paragraph, also in the notes.",
           metadata={"tx_slides": {"A section": "- written for the slide"}}),
        md("A cell the rule would fold into the section, shown whole.", metadata={"slideshow": {"slide_type": "slide"}}),
        md("## Skipped section\n\nNever shown.", metadata={"slideshow": {"slide_type": "skip"}}),
        md("## Summary\n\n- one {glue:text}`share:.2f`%\n- two"),
    ])
    texts = slide_text.chapter_texts("test", nb, data={})
    ctx = Context("test", {"share": "12.3456"}, citations={}, titles={}, chapter_page="x.html", texts=texts)
    slides = choose_slides(read_sections(nb), ctx)
    shown = "\n".join(s.html for s in slides)
    assert [s.kind for s in slides] == ["objectives", "prose", "forced", "summary"], slides
    assert slides[0].origin == "chapter" and "<li>one</li>" in slides[0].html and "Its first paragraph" in slides[0].notes
    assert "written for the slide" in slides[1].html and slides[1].origin == "chapter"
    assert "Lead paragraph" in slides[1].notes and "Second paragraph" in slides[1].notes
    assert "Lead paragraph" not in shown and "Never shown" not in shown
    assert slides[2].html.startswith("<p>A cell the rule would fold")
    assert "one 12.35%" in slides[3].html and slides[3].origin == "rule"


def test_slide_text_apply_is_idempotent(tmp_path):
    """--apply writes each key into the cell holding its heading or exercise label, and again changes nothing."""
    import json

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    import slide_text

    nb = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["## Overview\n", "- x"]},
                    {"cell_type": "markdown", "id": "b", "metadata": {},
                     "source": ["```{exercise}\n", ":label: ex-one\n", "Do it.\n", "```"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "99_x.ipynb").write_text(json.dumps(nb))
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"99_x": {"Overview": "- a", "exercise:ex-one": "one line"}}))
    args = ["--apply", "--notebooks", str(tmp_path), "--data", str(data)]
    assert slide_text.main(args) == 0
    first = (tmp_path / "99_x.ipynb").read_text()
    assert slide_text.main(args) == 0 and (tmp_path / "99_x.ipynb").read_text() == first
    cells = json.loads(first)["cells"]
    assert cells[0]["metadata"]["tx_slides"] == {"Overview": "- a"}
    assert cells[1]["metadata"]["tx_slides"] == {"exercise:ex-one": "one line"}
    data.write_text(json.dumps({"99_x": {"No such heading": "- a"}}))
    assert slide_text.main(["--check", "--notebooks", str(tmp_path), "--data", str(data)]) == 1


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


# ---------------------------------------------------------------- lecture-grade decks (issue 18)

MAX_WORDS = 60
"""Words a slide may show outside its speaker notes: a heading and a few short lines. A table slide
has its own limits (slides.TABLE_SLIDE_WORDS, its cells counted, and slides.TABLE_SLIDE_ROWS)."""
PROSE_KINDS = {"objectives", "prose", "summary", "exercises"}
SLIDES_PER_MINUTE = 2
"""A deck has at most this many slides per minute of its chapter's "time to learn"."""
TIME = re.compile(r"\*\*Time to learn\*\*:?\s*(\d+)\s*minutes")


def slide_sections(page: str) -> list[tuple[dict, str]]:
    """(attributes, inner HTML) of every <section> of a deck."""
    found = []
    for attrs, body in re.findall(r"<section([^>]*)>(.*?)</section>", page, re.DOTALL):
        found.append((dict(re.findall(r'data-([\w-]+)="([^"]*)"', attrs)), body))
    return found


def shown_words(body: str) -> int:
    """Words a slide shows, a table's cells included: its notes, images and markup left out; a
    formula counts as one word."""
    body = re.sub(r'<aside class="notes">.*?</aside>', " ", body, flags=re.DOTALL)
    body = re.sub(r"\\\[.*?\\\]|\\\(.*?\\\)", " formula ", body, flags=re.DOTALL)
    body = re.sub(r"<[^>]+>", " ", body)
    return len(html.unescape(body).split())


def test_every_slide_is_short(slides_dir):
    """Every slide of every deck: at most MAX_WORDS words, or for a table slide at most
    TABLE_SLIDE_WORDS words (cells counted) in at most TABLE_SLIDE_ROWS rows; only table slides
    hold a table. (Speaker notes: tests/test_slides_speak.py.)"""
    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from slides import TABLE_SLIDE_ROWS, TABLE_SLIDE_WORDS

    for stem in chapters():
        sections = slide_sections((slides_dir / f"{stem}.html").read_text(encoding="utf-8"))
        assert sections, stem
        for k, (attrs, body) in enumerate(sections, 1):
            words = shown_words(body)
            if attrs.get("kind") == "table":
                rows = len(re.findall(r"<tbody>.*?</tbody>", body, re.DOTALL)) and \
                    len(re.findall(r"<tr[ >]", re.search(r"<tbody>(.*?)</tbody>", body, re.DOTALL).group(1)))
                assert 0 < rows <= TABLE_SLIDE_ROWS, f"{stem} slide {k} (table) shows {rows} rows"
                assert words <= TABLE_SLIDE_WORDS, f"{stem} slide {k} (table) shows {words} words"
            else:
                assert "<table" not in body, f"{stem} slide {k} ({attrs.get('kind')}) holds a table"
                assert words <= MAX_WORDS, f"{stem} slide {k} ({attrs.get('kind')}) shows {words} words"


NUMBER = re.compile(r"(?<![\w.,\-])[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]\d+)?(?![\w\-]|[.,]\d)")
"""A number standing on its own: not part of a name or a word ("Hyena-2", "Llama-3-8B", "fp32", "4f")."""


def bare_numbers(line: str) -> list[str]:
    """The numbers of one slide line that measure something and carry no unit: followed by the end
    of the line, a punctuation mark, a bracket or "per" (a rate without its numerator, "3,641 per element"),
    directly or after a scale word ("154 billion"). A unit, a "%", an "x" or a word after the number
    ("times", "tokens", "of the largest value") passes. Math and a table's "(1 of 2)" are left out,
    and a number after a capitalised word is a name ("Approach 3", "Llama 3")."""
    text = re.sub(r"\\\(.*?\\\)", " ", line)
    text = re.sub(r"\(\d+ of \d+\)", " ", text)
    found = []
    for number in NUMBER.finditer(text):
        before = text[:number.start()].split()
        if before and before[-1].isalpha() and before[-1][0].isupper():
            continue
        rest = re.sub(r"^\s+(?:thousand|million|billion|trillion)\b", "", text[number.end():])
        if re.match(r"\s*(?:$|[,;:.()]|per\b)", rest):
            found.append(number.group(0))
    return found


def test_bare_numbers_finds_a_number_without_its_unit():
    for line, bare in (("Decoding one token: 2.00", ["2.00"]), ("A matrix product: 455", ["455"]),
                       ("The micro-batch example: 3,641 per element", ["3,641"]),
                       ("random-sign terms 12 (Hyena-2)", ["12"]), ("512 sequences of 2,048", ["2,048"]),
                       ("The 2024 refit of Approach 3: 154 billion", ["154"]),
                       ("matrix product 44, FFT 1.2 GFLOP/s", ["44"])):
        assert bare_numbers(line) == bare, line
    for line in ("Decoding one token: 2.00 FLOPs per element", "The 2024 refit of Approach 3: 154 billion tokens",
                 "Hyena-2: 0.15% of the step, at most 1.0015x", "694 times slower", "Llama 3.1 8B's GPU-hours",
                 "What stays digital (1 of 2)", r"\(N\) = 7,504,658,432 parameters", "In seconds: 8.9e-06x",
                 "within 6.8e-16 of the largest value", "fp32 and bf16 on an H100", "two 4f passes"):
        assert bare_numbers(line) == [], line


def test_every_number_on_a_slide_carries_its_unit(slides_dir):
    """The heading of every slide, and every line of a prose slide (objectives, prose, summary,
    exercises): a number that measures something says in what (FLOPs, s, %, TFLOP/s, tokens,
    times ...). Tables (their headers carry the units) and figures (their axes do) are left out."""
    found = []
    for stem in chapters():
        for k, (attrs, body) in enumerate(slide_sections((slides_dir / f"{stem}.html").read_text(encoding="utf-8")), 1):
            body = re.sub(r'<aside class="notes">.*?</aside>', " ", body, flags=re.DOTALL)
            parts = re.findall(r"<h[123]>(.*?)</h[123]>", body, re.DOTALL)
            if attrs.get("kind") in PROSE_KINDS:
                parts += re.findall(r"<(?:li|p)>(.*?)</(?:li|p)>", body, re.DOTALL)
            for part in parts:
                line = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", part)).split())
                found += [f"{stem} slide {k}: {number!r} in {line!r}" for number in bare_numbers(line)]
    assert not found, "numbers on the slides without their unit:\n" + "\n".join(found)


def unit_numbers(text: str, unit: str) -> set[str]:
    """The numbers `text` gives in `unit`: "35.8 TFLOP", and each of "35.8 and 35.7 TFLOP"."""
    number = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
    found = set()
    for run in re.finditer(rf"({number}(?:(?:,\s*|\s+and\s+){number})*)\s+{re.escape(unit)}\b", text):
        found |= set(re.findall(number, run.group(1)))
    return found


def test_a_figures_alt_text_gives_the_numbers_of_its_slide_lines(slides_dir):
    """Where a figure's alt text and the prose slide of its section both give FLOP counts in TFLOP or
    PFLOP, the alt text gives every number the slide lines give, in their format: deck 03's class
    figure said forward and dX "each carry 35.8 TFLOP" under a slide giving 35.8 and 35.7."""
    checked, different = 0, []
    for stem in chapters():
        sections = slide_sections((slides_dir / f"{stem}.html").read_text(encoding="utf-8"))
        lines = {}
        for attrs, body in sections:
            heading = re.search(r"<h2>(.*?)</h2>", body, re.DOTALL)
            if attrs.get("kind") == "prose" and heading:
                lines[heading.group(1)] = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(
                    r'<aside class="notes">.*?</aside>', " ", body, flags=re.DOTALL)))
        for attrs, body in sections:
            heading = re.search(r"<h3>(.*?)</h3>", body, re.DOTALL)
            alt = re.search(r'<img class="figure" alt="([^"]*)"', body)
            if not (alt and heading and heading.group(1) in lines):
                continue
            for unit in ("TFLOP", "PFLOP"):
                said, shown = unit_numbers(lines[heading.group(1)], unit), unit_numbers(html.unescape(alt.group(1)), unit)
                if said and shown:
                    checked += 1
                    if said - shown:
                        different.append(f"{stem}, {heading.group(1)!r}: the slide gives {sorted(said)} {unit}, "
                                         f"the figure's alt text {sorted(shown)}")
    assert checked >= 1, "no figure's alt text and slide lines both give TFLOP or PFLOP: the test checks nothing"
    assert not different, "\n".join(different)


def chapter_minutes(stem: str) -> int:
    import nbformat

    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    found = TIME.search("\n".join(c.source for c in nb.cells[:4] if c.cell_type == "markdown"))
    assert found, f"{stem} states no time to learn"
    return int(found.group(1))


def test_each_deck_fits_its_chapters_time(slides_dir):
    """At most SLIDES_PER_MINUTE slides per minute of the chapter's time to learn."""
    for stem in chapters():
        count = len(slide_sections((slides_dir / f"{stem}.html").read_text(encoding="utf-8")))
        minutes = chapter_minutes(stem)
        assert count <= SLIDES_PER_MINUTE * minutes, f"{stem}: {count} slides for {minutes} minutes"


def test_every_table_slide_names_what_it_shows(slides_dir):
    """A table slide has a heading; a table the chapter shows under a caption (a short markdown line
    its cell displays just before it, e.g. "**Hyena-2, S = 4,096**") carries that caption on every
    slide of it; a table too long to project has one slide that says how many rows it has and links
    the chapter."""
    import json

    from markdown_it import MarkdownIt

    executed = ROOT / "_build" / "executed" / "notebooks"
    captions = 0
    for stem in chapters():
        sections = slide_sections((slides_dir / f"{stem}.html").read_text(encoding="utf-8"))
        tables = [body for attrs, body in sections if attrs.get("kind") in ("table", "reading-table")]
        for body in tables:
            heading = re.search(r"<h3>(.*?)</h3>", body, re.DOTALL)
            assert heading and heading.group(1).strip(), f"{stem}: a table slide without a heading"
        for attrs, body in sections:
            if attrs.get("kind") == "reading-table":
                assert re.search(r"A table of \d+ rows", body) and "notebooks/" + stem + ".html" in body, stem
        notebook = json.loads((executed / f"{stem}.ipynb").read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            outputs = cell.get("outputs", [])
            for before, after in itertools.pairwise(outputs):
                text = before.get("data", {}).get("text/markdown")
                table = after.get("data", {}).get("text/html")
                if not text or not table or "<table" not in "".join(table):
                    continue
                caption = re.sub(r"<[^>]+>", "", MarkdownIt().renderInline("".join(text).strip()))
                first_cell = re.search(r"<td[^>]*>(.*?)</td>", "".join(table), re.DOTALL).group(1)
                holding = [b for b in tables if first_cell in b or "reading-table" in b]
                assert holding, f"{stem}: the table captioned {caption!r} is on no slide"
                assert all(html.escape(caption, quote=False) in b or caption in b for b in holding
                           if first_cell in b), f"{stem}: a slide of the table {caption!r} lost its caption"
                captions += 1
    assert captions >= 1, "no captioned table found in the executed chapters (the test would check nothing)"


def test_decks_start_with_objectives_and_end_with_exercises(slides_dir):
    for stem in chapters():
        sections = slide_sections((slides_dir / f"{stem}.html").read_text(encoding="utf-8"))
        assert sections[0][0].get("kind") == "objectives", f"{stem}: the first slide is not the objectives"
        assert re.search(r"<li>", sections[0][1]), f"{stem}: the objectives slide lists nothing"
        assert sections[-1][0].get("kind") == "exercises", f"{stem}: the last slide is not the exercises"


def test_slide_lines_are_written_in_the_chapters(slides_dir):
    """Every prose slide shows lines written for it and kept in the chapter's cell metadata (tx_slides,
    book/_tools/slide_text.py --apply), not a paragraph cut by a rule and not the interim JSON file."""
    unwritten = []
    for stem in chapters():
        for k, (attrs, _) in enumerate(slide_sections((slides_dir / f"{stem}.html").read_text(encoding="utf-8")), 1):
            if attrs.get("kind") in PROSE_KINDS and attrs.get("text") != "chapter":
                unwritten.append(f"{stem} slide {k} ({attrs.get('kind')}): lines from {attrs.get('text')}")
    assert not unwritten, "\n".join(unwritten)


def test_cross_references_read_as_sentences(slides_dir):
    for stem in chapters():
        page = (slides_dir / f"{stem}.html").read_text(encoding="utf-8")
        for title in ("The 6N rule, reproduced", "Masks rewritten every optimizer step"):
            assert f"Chapter {title}" not in page and f"chapter {title}" not in page, stem
        assert "see the device section" not in page, stem
        assert not re.search(r"\b(\w+ et al\.) \(\1", page), f"{stem}: a citation names its authors twice"


def test_the_notes_plugin_is_shipped(slides_dir):
    notes_js = slides_dir / "lib" / "reveal" / "plugin" / "notes.js"
    assert notes_js.exists()
    for stem in chapters():
        page = (slides_dir / f"{stem}.html").read_text(encoding="utf-8")
        assert 'src="lib/reveal/plugin/notes.js"' in page and "RevealNotes" in page, stem
        assert "width: 1280, height: 720" in page, f"{stem}: not a 16:9 deck"


SLIDE_FACTS = """async () => {
    // Every slide shown in turn: its content's height, and which slides hold an image; then every
    // slide holding one shown again, 150 ms for its images, and each image's smallest type (its
    // data-min-font-px, in the PNG's own pixels, times the fit, object-fit: contain) and area as drawn.
    const heights = [], holding = [];
    for (let k = 0; k < Reveal.getTotalSlides(); k++) {
        Reveal.slide(k);
        heights.push(Reveal.getCurrentSlide().scrollHeight);
        if (Reveal.getCurrentSlide().querySelector('img')) holding.push(k);
    }
    const figures = [];
    for (const index of holding) {
        Reveal.slide(index);
        await new Promise(done => setTimeout(done, 150));
        for (const img of Reveal.getCurrentSlide().querySelectorAll('img')) {
            const fit = Math.min(img.clientWidth / img.naturalWidth, img.clientHeight / img.naturalHeight);
            figures.push({index, kind: Reveal.getCurrentSlide().dataset.kind,
                          facts: {font: img.dataset.minFontPx ? parseFloat(img.dataset.minFontPx) * fit : null,
                                  area: img.naturalWidth * fit * img.naturalHeight * fit, complete: img.complete}});
        }
    }
    return {heights, figures};
}"""
"""What the speaker-view test reads from one deck, in one call (it made two or three calls per slide):
every image of every slide, whatever the slide's kind (a figure on a "forced" slide too)."""


@pytest.mark.browser
def test_speaker_view_and_figures_offline(server, slides_dir):
    """`S` opens the speaker view from the local files only; no slide's content runs past the slide;
    every image on every slide is a slide figure (`ledger.figures.slide_figure`, which records its
    smallest glyph, a log axis's exponents included) that fills the slide with its smallest type at
    least 18 px at 1280x720; every image of the decks' HTML is measured."""
    from playwright.sync_api import sync_playwright

    outside, small, overflowing = [], [], []
    measured = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=offline_args())  # refuses the outside
        context = browser.new_context(viewport={"width": 1280, "height": 720})

        def seen(request):
            if urlparse(request.url).hostname != "127.0.0.1" and not request.url.startswith(("data:", "about:", "blob:")):
                outside.append(request.url)

        context.on("request", seen)
        page = context.new_page()
        page.goto(f"{server}/{BROWSER_CHAPTER}.html")
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        with context.expect_page(timeout=15_000) as opened:
            page.keyboard.press("s")
        speaker = opened.value
        speaker.wait_for_selector(".speaker-controls-notes", timeout=15_000)
        speaker.wait_for_function("document.querySelectorAll('iframe').length >= 1", timeout=15_000)
        speaker.wait_for_function("document.querySelector('.speaker-controls-notes .value') && "
                                  "document.querySelector('.speaker-controls-notes .value').innerText.trim().length > 20",
                                  timeout=15_000)
        speaker.close()  # its two previews of the deck would go on rendering beside the decks below
        for stem in chapters():
            page.goto(f"{server}/{stem}.html")
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            deck = page.evaluate(SLIDE_FACTS)  # one call per deck, not two or three per slide
            for k, height in enumerate(deck["heights"]):
                if height > 720:
                    overflowing.append(f"{stem} slide {k + 1}: {height} px of content on a 720 px slide")
            images = len(re.findall(r"<img[ >]", re.sub(r'<aside class="notes">.*?</aside>', "",
                                                         (slides_dir / f"{stem}.html").read_text(encoding="utf-8"),
                                                         flags=re.DOTALL)))
            assert len(deck["figures"]) == images, f"{stem}: {len(deck['figures'])} of its {images} images measured"
            measured += images
            for figure in deck["figures"]:
                facts = figure["facts"]
                if facts["font"] is None or facts["font"] < 18 or facts["area"] < 0.35 * 1280 * 720:
                    small.append(f"{stem} slide {figure['index'] + 1} ({figure['kind']}): {facts}")
        browser.close()
    assert not outside, f"the speaker view or slides asked for outside addresses: {outside}"
    assert not overflowing, "slides whose content runs past the slide:\n" + "\n".join(overflowing)
    assert measured >= 20, f"only {measured} images measured on all the slides"
    assert not small, ("images on slides that are no slide figure (font None: drawn without "
                       "ledger.figures.show), too small (smallest type under 18 px) or under 35% of the slide:\n"
                       + "\n".join(small))


def test_no_figure_prints_labels_over_each_other():
    """ledger.figures.show records, for the page's figure and for its slide drawing, the labels that
    print over each other (ledger.figures.overlapping_labels); in every executed chapter there are none."""
    from book_pages import figure_records

    records = figure_records()
    assert len(records) >= 20, f"only {len(records)} figures carry the overlap check: are they drawn with show()?"
    without_slide = [stem for stem, _, meta in records if "slide" not in meta]
    assert not without_slide, f"figures the build kept without a slide drawing (figure_records.py): {without_slide}"
    overprinted = [f"{stem} cell {cell} ({where}): {a!r} over {b!r}" for stem, cell, meta in records
                   for where, pairs in (("page", meta["overlaps"]), ("slide", meta["slide"]["overlaps"]))
                   for a, b in pairs]
    assert not overprinted, "labels printed over each other:\n" + "\n".join(overprinted)


def test_a_cells_caption_goes_onto_every_slide_of_its_table_and_long_tables_are_for_reading():
    import nbformat

    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from slides import TABLE_MAX_SLIDES, Context, choose_slides, read_sections

    def table(n, width=2):
        head = "".join(f"<th>c{j}</th>" for j in range(width))
        rows = "".join("<tr>" + "".join(f"<td>r{k} v{j}</td>" for j in range(width)) + "</tr>" for k in range(n))
        return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"

    def shown(text, mime):
        return nbformat.v4.new_output("display_data", data={mime: text})

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A chapter\n\nFirst."),
        nbformat.v4.new_markdown_cell("## Orders\n\nText.", metadata={"tx_slides": {"Orders": "- a line"}}),
        nbformat.v4.new_code_cell("show()", outputs=[shown("**Model A, S = 4,096**", "text/markdown"),
                                                     shown(table(12), "text/html")]),
        nbformat.v4.new_markdown_cell("## Claims\n\nText.", metadata={"tx_slides": {"Claims": "- a line"}}),
        nbformat.v4.new_code_cell("show()", outputs=[shown(table(100, 4), "text/html")]),
    ])
    ctx = Context("test", {}, citations={}, titles={}, chapter_page="../html/notebooks/test.html")
    slides = choose_slides(read_sections(nb), ctx)
    tables = [s for s in slides if s.kind == "table"]
    assert len(tables) == 2 and all("<strong>Model A, S = 4,096</strong>" in s.html for s in tables)
    assert all(s.html.count("<tr>") - 1 == 6 for s in tables), "12 rows split evenly, 6 and 6"
    (reading,) = [s for s in slides if s.kind == "reading-table"]
    assert "A table of 100 rows" in reading.html and 'href="../html/notebooks/test.html"' in reading.html
    assert "r99" not in reading.html and TABLE_MAX_SLIDES >= 2


def test_tall_tables_are_split_with_their_header_and_references_read_as_words():
    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from slides import TABLE_SLIDE_ROWS, Context, replace_roles, split_table

    rows = "".join(f"<tr><td>row {k}</td><td>{k}</td></tr>" for k in range(30))
    table = f'<div class="slide-table"><table><thead><tr><th>name</th><th>n</th></tr></thead><tbody>{rows}</tbody></table></div>'
    parts = split_table(table)
    assert len(parts) >= 3 and all(p.count("<th>name</th>") == 1 and p.endswith("</table></div>") for p in parts)
    assert all(p.count("<tr>") - 1 <= TABLE_SLIDE_ROWS for p in parts)
    assert sum(p.count("<td>row ") for p in parts) == 30
    assert split_table('<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>') == \
        ['<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>']
    ctx = Context("x", {}, citations={"hoffmann2022training": "Hoffmann et al. 2022"},
                  citations_textual={"hoffmann2022training": "Hoffmann et al. (2022)"},
                  titles={"01_six_n_rule": "The 6N rule, reproduced", "06_masks": "Masks", "07_layer_major": "Layer-major order"})
    assert replace_roles("Chapter {doc}`01_six_n_rule` rebuilds it.", ctx) == "Chapter 1 (“The 6N rule, reproduced”) rebuilds it."
    assert replace_roles("as {doc}`01_six_n_rule` shows", ctx) == "as chapter 1 (“The 6N rule, reproduced”) shows"
    assert replace_roles("Chapters {doc}`06_masks` and {doc}`07_layer_major` count", ctx) == \
        "Chapters 6 (“Masks”) and 7 (“Layer-major order”) count"
    assert replace_roles("{cite:t}`hoffmann2022training` fitted", ctx) == "Hoffmann et al. (2022) fitted"
    assert replace_roles("the rule {cite}`hoffmann2022training`", ctx) == "the rule (Hoffmann et al. 2022)"
