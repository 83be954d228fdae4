"""Every built page, opened in Chromium with every request outside the local site refused.

Serves the built HTML (default _build/html; TX_BOOK_HTML for another build) on 127.0.0.1, opens
every page of it (the chapters, the landing page, the bibliography, the explorer, search and index),
refuses and records every request to anywhere else, waits for MathJax, and checks on each page:

- no request outside the site was attempted (MathJax, fonts, scripts all come from the site);
- every formula was typeset (each `.math` element holds an mjx-container) and no raw TeX delimiter,
  \\( \\) \\[ \\] or $$, is left in the visible text (code blocks aside);
- every <img> has an alt text that says what it shows (ledger.figures.check_alt: words, not a file
  name or a hash);
- exactly one search control is visible;
- the footer names the licences.

It also checks that a figure in the theme's dark mode is still shown on white, and that the landing
page's PDF link opens the PDF when `make pdf` has written it (or says that `make pdf` writes it).
The book must be built first (`make book`); the test fails, not skips, without it.
"""
from __future__ import annotations

import io
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from ledger import LedgerError
from ledger.figures import check_alt

from book_pages import serve_directory

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("TX_BOOK_HTML", ROOT / "_build" / "html"))
PDF = ROOT / "_build" / "pdf" / "transforms-in-training-workloads.pdf"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", "_sphinx_design_static", "slides"}
"""Not pages of the book: assets, and the reveal.js decks (tests/test_slides.py checks those offline)."""
RAW_TEX = ("\\(", "\\)", "\\[", "\\]", "$$")
REDIRECT = re.compile(r'http-equiv="refresh" content="0; url=([^"]+)"', re.IGNORECASE)
SEARCH_CONTROLS = ".search-button, .search-button-field, form.bd-search, input[type=search]"

PAGE_FACTS = """async () => {
    const mj = window.MathJax;
    if (document.querySelector('.math') && mj && mj.startup && mj.startup.promise) { await mj.startup.promise; }
    const skip = 'pre, code, script, style, textarea, mjx-container, .highlight, noscript';
    const texts = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const node = walker.currentNode, parent = node.parentElement;
        if (!parent || parent.closest(skip) || !parent.checkVisibility()) continue;
        texts.push(node.textContent);
    }
    const maths = [...document.querySelectorAll('.math')];
    return {
        math: maths.length,
        untypeset: maths.filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 80)),
        mathjax_loaded: !!(mj && mj.startup),
        text: texts.join(' '),
        images: [...document.images].map(i => ({src: i.getAttribute('src'), alt: i.getAttribute('alt')})),
        search: [...document.querySelectorAll(%r)].filter(e => e.checkVisibility()
                 && !e.parentElement.closest('.search-button, .search-button-field, form.bd-search'))
                 .map(e => e.className || e.tagName),
        footer: (document.querySelector('footer.bd-footer-content, .bd-footer-content') || {innerText: ''}).innerText,
    };
}""" % SEARCH_CONTROLS


def built_pages(html: Path) -> list[str]:
    """Every HTML page of the build, as paths relative to its root."""
    return sorted(str(p.relative_to(html)) for p in html.rglob("*.html")
                  if not SKIP_DIRS & set(p.relative_to(html).parts[:-1]))


@pytest.fixture(scope="module")
def site():
    if not (HTML / "book" / "intro.html").exists():
        pytest.fail(f"{HTML} holds no built book: run `make book` first")
    if not CHROMIUM.exists():
        pytest.fail("The offline test needs Chromium at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with serve_directory(HTML) as root, sync_playwright() as p:
        base = root + "/"
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(viewport={"width": 1360, "height": 900})
        outside: list[str] = []

        def guard(route):
            url = route.request.url
            if url.startswith(base) or urlsplit(url).scheme in ("data", "blob", "about"):
                route.continue_()
            else:
                outside.append(url)
                route.abort()

        context.route("**/*", guard)
        yield {"base": base, "context": context, "outside": outside}
        browser.close()


@pytest.fixture(scope="module")
def crawl(site) -> dict[str, dict]:
    """Every page opened once: its facts and the outside requests it attempted."""
    facts = {}
    for name in built_pages(HTML):
        before = len(site["outside"])
        page = site["context"].new_page()
        page.goto(site["base"] + name, wait_until="load")
        redirect = REDIRECT.search((HTML / name).read_text(encoding="utf-8"))
        if redirect:  # index.html only sends the reader on to the landing page
            page.wait_for_url(site["base"] + redirect.group(1), wait_until="load")
        page.wait_for_timeout(150)  # scripts loaded with `defer`/`async` start their own requests
        info = page.evaluate(PAGE_FACTS)
        page.wait_for_load_state("networkidle")
        info["outside"] = site["outside"][before:]
        info["url"] = page.url
        facts[name] = info
        page.close()
    assert len(facts) >= 20, f"only {len(facts)} pages found in {HTML}"
    return facts


def test_no_page_reaches_outside_the_site(crawl):
    bad = {name: f["outside"] for name, f in crawl.items() if f["outside"]}
    assert not bad, "requests outside the site:\n" + "\n".join(f"{n}: {u}" for n, u in bad.items())


def test_every_formula_is_typeset(crawl):
    with_math = {name: f for name, f in crawl.items() if f["math"]}
    assert with_math, "no page with math: the check would pass vacuously"
    bad = {name: f["untypeset"] for name, f in with_math.items() if f["untypeset"] or not f["mathjax_loaded"]}
    assert not bad, "formulas left as TeX:\n" + "\n".join(f"{n}: {u[:3]}" for n, u in bad.items())


def test_no_raw_tex_in_visible_text(crawl):
    bad = {}
    for name, f in crawl.items():
        found = [d for d in RAW_TEX if d in f["text"]]
        if found:
            k = f["text"].find(found[0])
            bad[name] = f"{found}: ...{f['text'][max(0, k - 40):k + 60]}..."
    assert not bad, "raw TeX delimiters on the page:\n" + "\n".join(f"{n}: {t}" for n, t in bad.items())


def test_every_image_says_what_it_shows(crawl):
    bad = []
    for name, f in crawl.items():
        for image in f["images"]:
            try:
                check_alt(image["alt"] or "")
            except LedgerError:
                bad.append(f"{name}: {image['src']} alt={image['alt']!r}")
    assert any(f["images"] for f in crawl.values()), "no images found: the check would pass vacuously"
    assert not bad, f"{len(bad)} images without a descriptive alt text:\n" + "\n".join(bad)


def test_one_search_box_per_page(crawl):
    bad = {name: f["search"] for name, f in crawl.items() if len(f["search"]) != 1}
    assert not bad, "pages without exactly one visible search control:\n" + "\n".join(
        f"{n}: {s}" for n, s in bad.items())


def test_one_search_box_on_a_narrow_screen(site):
    # Below 992 px the theme swaps the header's search field for an icon button: still one.
    page = site["context"].new_page()
    page.set_viewport_size({"width": 700, "height": 900})
    for name in ("book/intro.html", "notebooks/05_amdahl_table.html", "search.html", "genindex.html"):
        page.goto(site["base"] + name, wait_until="load")
        visible = page.evaluate("""() => [...document.querySelectorAll(%r)].filter(e => e.checkVisibility()
            && !e.parentElement.closest('.search-button, .search-button-field, form.bd-search')).length""" % SEARCH_CONTROLS)
        assert visible == 1, (name, visible)
    page.close()


def test_footer_names_the_licences(crawl):
    bad = [name for name, f in crawl.items() if "CC BY 4.0" not in f["footer"] or "MIT" not in f["footer"]]
    assert not bad, "pages whose footer does not name the licences: " + ", ".join(bad)


def test_figures_stay_on_white_in_dark_mode(site):
    from PIL import Image

    page = site["context"].new_page()
    chapter = next(n for n in built_pages(HTML) if n.startswith("notebooks/")
                   and "cell_output" in (HTML / n).read_text(encoding="utf-8")
                   and "<img" in (HTML / n).read_text(encoding="utf-8"))
    page.goto(site["base"] + chapter, wait_until="load")
    page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; document.documentElement.dataset.mode = 'dark'; }")
    page.wait_for_timeout(300)
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    rgb = [int(v) for v in background[background.index("(") + 1:background.index(")")].split(",")[:3]]
    assert sum(rgb) / 3 < 80, f"the page is not in dark mode ({background}): the check would be vacuous"
    image = page.locator(".cell_output img").first
    image.scroll_into_view_if_needed()
    shot = Image.open(io.BytesIO(image.screenshot())).convert("L")
    inset = shot.getpixel((6, 6))
    histogram, half, seen = shot.histogram(), shot.width * shot.height / 2, 0
    median = next(level for level, count in enumerate(histogram) if (seen := seen + count) >= half)
    page.close()
    # The theme dims images in dark mode (brightness 0.8, contrast 1.2): white comes out near 200 of
    # 255, still a light card under the figure's dark lines and text; a transparent figure would be
    # the page's near-black here.
    assert inset > 150 and median > 150, (chapter, inset, median)


def test_landing_page_pdf_link(site):
    page = site["context"].new_page()
    page.goto(site["base"] + "book/intro.html", wait_until="load")
    link, note = page.locator("a.tx-pdf"), page.locator(".tx-pdf-missing")
    if (HTML / PDF.name).exists():
        assert link.count() == 1 and note.count() == 0
        response = page.request.get(link.evaluate("a => a.href"))
        assert response.ok and response.body()[:5] == b"%PDF-"
    else:
        assert link.count() == 0, "a PDF link on the landing page, but no PDF in the build"
        assert note.count() == 1 and "make pdf" in note.inner_text()
    page.close()
