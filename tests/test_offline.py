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
- the footer names the licences;
- axe-core (WCAG 2 A and AA, tests/axe_audit.py) finds no serious or critical violation, on every
  page but the redirect index.html (whose target is audited).

It also checks that a figure in the theme's dark mode is still shown on white, that four pages show
one search control at 700 px wide too, and that the landing page's PDF link opens the PDF when
`make pdf` has written it (or says that `make pdf` writes it).

Each page is loaded once, and everything the checks need is read on that load (the axe audit after
the facts above, then the PDF link, the dark mode and the narrow viewport on their pages);
CONCURRENT_PAGES tabs of one browser load pages side by side, each tab one page after another
(Playwright's async API). The book must be built
first (`make book`), and the pinned axe-core installed (`make slides`); the test fails, not skips,
without them.
"""
from __future__ import annotations

import asyncio
import io
import os
import re
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from ledger import LedgerError
from ledger.figures import check_alt

from axe_audit import AUDIT_JS, BLOCKING, TAGS, AxeScript, audited, load_axe, violations
from book_pages import serve_directory
from chromium import CHROMIUM, offline_args

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("TX_BOOK_HTML", ROOT / "_build" / "html"))
PDF = ROOT / "_build" / "pdf" / "transforms-in-training-workloads.pdf"
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


VIEWPORT = {"width": 1280, "height": 900}
"""A desktop window (above the theme's 992 px breakpoint): the size the axe audit ran at on its own."""
CONCURRENT_PAGES = 4
"""Tabs open at once in the one browser, each loading one page after another: each page also waits
(its scripts' late requests, a quiet network), so several overlap; with four the crawl took about half
the time of one at a time. A tab that goes on to the next page keeps its renderer, which has compiled
the theme's and MathJax's scripts already: 22 CPU-s to load the 23 pages in four tabs, 29 with a new
page for each."""
NARROW_PAGES = ("book/intro.html", "notebooks/05_amdahl_table.html", "search.html", "genindex.html")
"""Also counted at 700 px wide, below the theme's 992 px breakpoint (the same load, the viewport narrowed)."""
LANDING = "book/intro.html"
VISIBLE_SEARCH = """() => [...document.querySelectorAll(%r)].filter(e => e.checkVisibility()
    && !e.parentElement.closest('.search-button, .search-button-field, form.bd-search')).length""" % SEARCH_CONTROLS


def dark_chapter(html: Path) -> str:
    """The first chapter page with a figure among its cell outputs: the dark-mode check's page."""
    return next(n for n in built_pages(html) if n.startswith("notebooks/")
                and "cell_output" in (text := (html / n).read_text(encoding="utf-8")) and "<img" in text)


async def figure_in_dark_mode(page) -> dict:
    """The theme switched to dark: the body's background and a screenshot of the first output figure."""
    await page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; document.documentElement.dataset.mode = 'dark'; }")
    await page.wait_for_timeout(300)
    background = await page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    image = page.locator(".cell_output img").first
    await image.scroll_into_view_if_needed()
    return {"background": background, "screenshot": await image.screenshot()}


async def pdf_link(page) -> dict:
    """The landing page's PDF link (or its note that `make pdf` writes the PDF), and what the link serves."""
    link, note = page.locator("a.tx-pdf"), page.locator(".tx-pdf-missing")
    found = {"links": await link.count(), "notes": await note.count()}
    found["note"] = await note.first.inner_text() if found["notes"] else ""
    if found["links"] == 1:
        response = await page.request.get(await link.evaluate("a => a.href"))
        found["served"] = {"ok": response.ok, "head": (await response.body())[:5]}
    return found


class NetworkActivity:
    """A page's open requests, from its request events, and a wait until none has been open for
    QUIET_S. The rule of Playwright's "networkidle", which with several pages loading at once did not
    come within 30 s for one page or another, while that page's events showed no request open."""

    QUIET_S, TIMEOUT_S = 0.5, 30

    def __init__(self, page):
        self.open: dict = {}
        self.last = time.monotonic()
        page.on("request", self._opened)
        page.on("requestfinished", self._closed)
        page.on("requestfailed", self._closed)

    def _opened(self, request):
        self.open[request], self.last = time.monotonic(), time.monotonic()

    def _closed(self, request):
        self.open.pop(request, None)
        self.last = time.monotonic()

    async def quiet(self):
        """Return once no request has been open for QUIET_S seconds; fail, naming them, after TIMEOUT_S."""
        deadline = time.monotonic() + self.TIMEOUT_S
        while self.open or time.monotonic() - self.last < self.QUIET_S:
            if time.monotonic() > deadline:
                now = time.monotonic()
                raise AssertionError(f"requests still open after {self.TIMEOUT_S} s: " + ", ".join(
                    f"{r.url} ({now - t:.0f} s)" for r, t in self.open.items()))
            await asyncio.sleep(0.05)


async def read_page(page, network: NetworkActivity, base: str, name: str, dark: str, axe: str | None) -> dict:
    """One page loaded once into the tab `page` (its requests watched by `network`), and everything the
    checks below need read from it; `axe`: the text of axe.min.js, to audit this page with (None: not
    audited)."""
    await page.goto(base + name, wait_until="load")
    redirect = REDIRECT.search((HTML / name).read_text(encoding="utf-8"))
    if redirect:  # index.html only sends the reader on to the landing page
        await page.wait_for_url(base + redirect.group(1), wait_until="load")
    await page.wait_for_timeout(150)  # scripts loaded with `defer`/`async` start their own requests
    info = await page.evaluate(PAGE_FACTS)
    await network.quiet()
    info["url"] = page.url
    if axe is not None:  # first, on the page as it loaded
        await page.add_script_tag(content=axe)
        info["axe"] = await page.evaluate(AUDIT_JS, [TAGS, BLOCKING])
    if name == LANDING:
        info["pdf_link"] = await pdf_link(page)
    if name == dark:
        info["dark"] = await figure_in_dark_mode(page)
    if name in NARROW_PAGES:  # last, and the tab widened again for its next page
        await page.set_viewport_size({"width": 700, "height": 900})
        info["narrow_search"] = await page.evaluate(VISIBLE_SEARCH)
        await page.set_viewport_size(VIEWPORT)
    return info


def page_name(base: str, url: str) -> str | None:
    """The built page (relative to the site's root) at `url`, or None for an address outside the site."""
    return urlsplit(url[len(base):]).path if url.startswith(base) else None


async def read_site(base: str, names: list[str], dark: str, axe: str, audit: list[str]) -> tuple[dict[str, dict], list[str]]:
    """Every page read once, in CONCURRENT_PAGES tabs of one browser that refuses every request
    outside the site (chromium.offline_args; each tab goes from page to page, so a page's scripts are
    compiled once per tab, not once per page), and the pages in `audit` audited with axe (the text of
    axe.min.js); (facts per page, each with the outside requests it made, named by the address of the
    document that asked; outside requests of no page of the site)."""
    from playwright.async_api import async_playwright

    outside: dict[str, list[str]] = {}  # page -> the outside URLs it asked for
    unnamed: list[str] = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=offline_args())
        context = await browser.new_context(viewport=VIEWPORT)

        def seen(request):
            url = request.url
            if url.startswith(base) or urlsplit(url).scheme in ("data", "blob", "about"):
                return
            try:
                asking = page_name(base, request.frame.url)
            except Exception:  # a request of no frame (a worker's)
                asking = None
            if asking is None:  # refused all the same, and reported
                unnamed.append(url)
            else:
                outside.setdefault(asking, []).append(url)

        context.on("request", seen)  # every request, the refused ones too
        pending = list(names)
        facts: dict[str, dict] = {}

        async def tab():
            page = await context.new_page()
            network = NetworkActivity(page)
            while pending:
                name = pending.pop(0)
                try:
                    facts[name] = await read_page(page, network, base, name, dark, axe if name in audit else None)
                except Exception as err:  # name the page
                    raise AssertionError(f"{name}: {type(err).__name__}: {err}") from err
            await page.close()

        await asyncio.gather(*(tab() for _ in range(min(CONCURRENT_PAGES, len(names)))))
        for name, info in facts.items():
            info["outside"] = outside.pop(name, [])
        unnamed += [url for urls in outside.values() for url in urls]
        await browser.close()
    return facts, unnamed


@pytest.fixture(scope="module")
def axe_script() -> AxeScript:
    """The pinned axe.min.js, or why there is none: then the crawl audits nothing, its other checks
    still run, and the accessibility test fails with the reason."""
    return load_axe()


@pytest.fixture(scope="module")
def crawl(axe_script) -> dict[str, dict]:
    """Every page opened once, several at a time: its facts and the outside requests it attempted."""
    if not (HTML / "book" / "intro.html").exists():
        pytest.fail(f"{HTML} holds no built book: run `make book` first")
    if not CHROMIUM.exists():
        pytest.fail("The offline test needs Chromium at /usr/bin/chromium (apt-get install chromium)")
    names = built_pages(HTML)
    audit = audited(HTML, names) if axe_script.text else []
    with serve_directory(HTML) as root:
        facts, unnamed = asyncio.run(read_site(root + "/", names, dark_chapter(HTML), axe_script.text, audit))
    assert not unnamed, "requests outside the site, from no page that could be named:\n" + "\n".join(unnamed)
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


def test_one_search_box_on_a_narrow_screen(crawl):
    # Below 992 px the theme swaps the header's search field for an icon button: still one.
    counted = {name: crawl[name].get("narrow_search") for name in NARROW_PAGES}
    assert counted == {name: 1 for name in NARROW_PAGES}, counted


def test_footer_names_the_licences(crawl):
    bad = [name for name, f in crawl.items() if "CC BY 4.0" not in f["footer"] or "MIT" not in f["footer"]]
    assert not bad, "pages whose footer does not name the licences: " + ", ".join(bad)


def test_figures_stay_on_white_in_dark_mode(crawl):
    from PIL import Image

    chapter = dark_chapter(HTML)
    background, screenshot = crawl[chapter]["dark"]["background"], crawl[chapter]["dark"]["screenshot"]
    rgb = [int(v) for v in background[background.index("(") + 1:background.index(")")].split(",")[:3]]
    assert sum(rgb) / 3 < 80, f"the page is not in dark mode ({background}): the check would be vacuous"
    shot = Image.open(io.BytesIO(screenshot)).convert("L")
    inset = shot.getpixel((6, 6))
    histogram, half, seen = shot.histogram(), shot.width * shot.height / 2, 0
    median = next(level for level, count in enumerate(histogram) if (seen := seen + count) >= half)
    # The theme dims images in dark mode (brightness 0.8, contrast 1.2): white comes out near 200 of
    # 255, still a light card under the figure's dark lines and text; a transparent figure would be
    # the page's near-black here.
    assert inset > 150 and median > 150, (chapter, inset, median)


def test_landing_page_pdf_link(crawl):
    found = crawl[LANDING]["pdf_link"]
    if (HTML / PDF.name).exists():
        assert found["links"] == 1 and found["notes"] == 0, found
        assert found["served"]["ok"] and found["served"]["head"] == b"%PDF-", found["served"]
    else:
        assert found["links"] == 0, "a PDF link on the landing page, but no PDF in the build"
        assert found["notes"] == 1 and "make pdf" in found["note"], found


def test_accessibility_axe_finds_no_serious_violation(crawl, axe_script):
    """Accessible pages: axe-core (WCAG 2 A and AA) finds no serious or critical violation on any page."""
    assert not axe_script.problem, axe_script.problem
    pages = audited(HTML, list(crawl))
    assert len(pages) >= 20, f"only {len(pages)} pages to audit"
    missing = [name for name in pages if "axe" not in crawl[name]]
    assert not missing, f"pages the crawl did not audit: {missing}"
    rules = {name: crawl[name]["axe"]["rules"] for name in pages}
    assert all(rules.values()), "axe ran no rule on " + ", ".join(n for n, r in rules.items() if not r)
    found = [line for name in pages for line in violations(name, crawl[name]["axe"])]
    assert not found, "axe-core (WCAG 2 A/AA) finds serious or critical violations:\n" + "\n".join(found)


def test_the_crawl_names_each_outside_request_with_its_page(tmp_path, monkeypatch):
    """The crawl's own guard, on two pages of which one reaches out (a host name and a bare address),
    read by one tab, the one that reaches out first: each request is named on its page without
    waiting out a timeout, and the page that stays home, shown next in the same tab, is clean."""
    (tmp_path / "out.html").write_text('<!doctype html><html lang="en"><title>t</title><body><p>x</p>'
                                       '<img alt="a test image" src="http://example.invalid/logo.png">'
                                       '<script src="http://192.0.2.1/late.js"></script></body></html>')
    (tmp_path / "home.html").write_text('<!doctype html><html lang="en"><title>t</title><body><p>x</p></body></html>')
    monkeypatch.setattr(sys.modules[__name__], "HTML", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "CONCURRENT_PAGES", 1)
    with serve_directory(tmp_path) as root:
        started = time.monotonic()
        facts, unnamed = asyncio.run(read_site(root + "/", ["out.html", "home.html"], "", "", []))
    assert unnamed == []
    assert facts["home.html"]["outside"] == []
    assert sorted(facts["out.html"]["outside"]) == ["http://192.0.2.1/late.js", "http://example.invalid/logo.png"]
    assert time.monotonic() - started < NetworkActivity.TIMEOUT_S, "an outside request was left to time out"


def test_the_browser_itself_refuses_what_is_outside(tmp_path):
    """chromium.offline_args: an outside request fails at the browser's refusing proxy (on a machine
    with a network too), while the local site loads."""
    from playwright.sync_api import sync_playwright

    (tmp_path / "out.html").write_text('<!doctype html><html lang="en"><title>t</title><body>'
                                       '<img alt="a test image" src="http://example.invalid/logo.png">'
                                       '<img alt="a test image" src="http://192.0.2.1/logo.png"></body></html>')
    failed: dict[str, str] = {}
    with serve_directory(tmp_path) as root, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=offline_args())
        page = browser.new_page()
        page.on("requestfailed", lambda request: failed.update({request.url: request.failure}))
        loaded = page.goto(root + "/out.html", wait_until="load")
        browser.close()
    assert loaded.ok
    assert failed == {"http://example.invalid/logo.png": "net::ERR_PROXY_CONNECTION_FAILED",
                      "http://192.0.2.1/logo.png": "net::ERR_PROXY_CONNECTION_FAILED"}, failed
