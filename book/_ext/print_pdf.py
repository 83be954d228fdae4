"""Print the single-page HTML build of the book to one PDF with the Chromium the browser tests use.

    python book/_ext/print_pdf.py _build/singlehtml _build/pdf/transforms-in-training-workloads.pdf

Why this route and not LaTeX: the PDF then shows exactly what the web pages show (the same MathJax
typesetting of the same TeX, the same figures, tables, glued numbers and bibliography), with no
second rendering path to keep in step, and it needs only the Chromium and Playwright the browser
tests already need, where a LaTeX build needs a few hundred MB of TeX Live and its own fixes for
myst-nb's HTML tables. The cost: the page breaks are the browser's.

The build directory is served on 127.0.0.1; every request outside it is refused and reported (the
book must print offline). The script waits until MathJax has typeset every formula, every image has
loaded and the fonts are ready, then prints A4 with page numbers, a PDF outline from the headings
and tagged structure (so the figures' alt texts travel into the PDF). It adds a title page that names
the version (commit date and hash, `book_version`) and the licences, and a contents page whose page
numbers come from a first printing (pdftotext finds each chapter's title), printed again with them.
The print style keeps code cells, tables and figures whole where they fit on a page, drops widget
cells and collapsed code, and fills code cells with CODE_BACKGROUND (no frame to leave behind).
With --no-code (the student handout) it drops every code input and widget too (NO_CODE_CSS).
"""
from __future__ import annotations

import contextlib
import functools
import http.server
import sys
import threading
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-threaded-compositing"]
"""Debian's Chromium headless, without a sandbox (root in a container), a GPU or a network of its own,
compositing on the page's main thread. Headless, that mode draws no frames for the screen at all
(requestAnimationFrame never calls back): a print lays the page out for paper itself, and the book's
scripts do nothing in an animation frame that the paper shows, so the PDF is the same page for page,
for about a tenth less CPU (docs/execution.md). The waits below poll on a timer, not on frames. The
tests, which need frames (Playwright waits for an element to be stable over frames, and a page's
scripts may draw in one), start Chromium without that flag (tests/chromium.py)."""
FOOTER = ('<div style="font-size: 8px; width: 100%; text-align: center; color: #555;">'
          '<span class="title"></span> &middot; <span class="pageNumber"></span> / <span class="totalPages"></span></div>')


CODE_BACKGROUND = "#f1efe8"
"""The fill of a code cell's input on paper, a warm grey no admonition or exercise box uses (their tints
are bluish, greenish or orange): late_code_cells and tests/test_pdf.py find code cells by it."""

PRINT_CSS = """
/* Each chapter starts a page; headings stay with what follows; a code cell, table or figure that
   fits on one page is not split. */
.toctree-wrapper > section { break-before: page; }
/* A chapter's last box ends the chapter: its bottom margin would otherwise spill onto an empty page
   when the box ends near the foot of one. */
.toctree-wrapper > section section:last-child > :last-child, .toctree-wrapper > section > :last-child
  { margin-bottom: 0 !important; padding-bottom: 0 !important; }
h1, h2, h3, h4 { break-after: avoid; page-break-after: avoid; }
img, figure, tr, mjx-container[display="true"], table, .tx-table, .cell_input, .cell_output,
div.highlight, pre { break-inside: avoid; page-break-inside: avoid; }
h1 + *, h2 + *, h3 + *, h4 + * { break-before: avoid; }
/* Paper cannot scroll sideways: long code lines wrap, and wide tables shrink to the page width. */
pre, .highlight pre { white-space: pre-wrap !important; overflow-wrap: anywhere; overflow: visible !important; }
div[style*="overflow"], .table-wrapper, .output, .cell_output { overflow: visible !important; }
table { font-size: 0.78em !important; max-width: 100% !important; }
table th, table td { padding: 0.2em 0.35em !important; }
/* A code cell is one filled box, without a frame that a page break could leave empty. */
div.cell_input, div.cell_input div.highlight, div.cell_input pre { background: CODE_BACKGROUND !important; }
div.cell_input { border: none !important; }
/* Paper has no depth: without this, each drop shadow of the theme (exercise, solution and admonition
   boxes; set with !important, hence the id's weight in :not) is rasterised into a grey 300 dpi image:
   about 250 of them made the book's PDF 10.7 MB instead of 7.7 and each print a third slower. */
body *:not(#tx-none) { box-shadow: none !important; text-shadow: none !important; }
/* Paper has no sliders and no toggles: widget cells (tag remove-output) and collapsed code go. */
div.cell.tag_remove-output, details.hide.above-input, details.hide.below-input,
.chapter-slides-link { display: none !important; }
/* The title page and the contents with page numbers (added by print_pdf). */
.tx-title-page { break-after: page; text-align: center; padding-top: 30%; }
.tx-title-page h1 { font-size: 2.2em; border: none; }
.tx-title-page p { margin: 0.6em 0; }
/* The theme's print contents (#jb-print-toc) set list items and margins with !important: these rules
   are more specific. */
.bd-main .bd-content #jb-print-toc.tx-contents { break-after: page; }
.bd-main .bd-content #jb-print-toc.tx-contents h2 { margin: 0 0 0.3em 0 !important; }
.bd-main .bd-content #jb-print-toc.tx-contents p.caption { margin: 0.7em 0 0.15em 0 !important; font-weight: bold; }
.bd-main .bd-content #jb-print-toc.tx-contents nav { display: block !important; width: 100% !important; }
.bd-main .bd-content #jb-print-toc.tx-contents ul.section-nav { display: block !important; list-style: none !important;
    margin: 0 0 0 1.2em !important; padding: 0 !important; }
.bd-main .bd-content #jb-print-toc.tx-contents .section-nav li.tx-entry { display: flex !important; gap: 0.4em;
    margin: 0 !important; padding: 0.1em 0 !important; align-items: baseline; }
.bd-main .bd-content #jb-print-toc.tx-contents .section-nav li.tx-entry > a { display: inline !important;
    padding: 0 !important; flex: 0 1 auto; }
.bd-main .bd-content #jb-print-toc.tx-contents li .tx-dots { flex: 1 1 auto; border-bottom: 1px dotted #999; min-width: 1em; }
.bd-main .bd-content #jb-print-toc.tx-contents li .tx-page { flex: 0 0 auto; min-width: 2.2em; margin-left: 0.3em;
    text-align: right; font-variant-numeric: tabular-nums; }
""".replace("CODE_BACKGROUND", CODE_BACKGROUND)

NO_CODE_CSS = """
/* The student handout (book/_tools/student.py, --no-code): paper a student reads, not runs. Every code
   input goes (the chapter's code, the exercises' set-up cell); its outputs stay (figures, tables,
   printed values, and the parameter blanks the handout prints in place of the book's values), and
   so does every widget-free output. Widget views (a slider's box, its placeholder text) go with their cell. */
div.cell_input, div.cell div.cell_input, details.hide, .jupyter-widgets, .widget-area,
div.cell:has(script[type="application/vnd.jupyter.widget-view+json"]),
div.cell:has(.jupyter-widgets) { display: none !important; }
"""
"""What the student PDF adds to PRINT_CSS (`print_pdf(..., code=False)`, `--no-code`)."""

MEASURING_CSS = """
body * { visibility: hidden !important; }
div.cell_input, div.cell_input *, :is(h1, h2, h3, h4), :is(h1, h2, h3, h4) * { visibility: visible !important; }
"""
"""A print that only measures shows nothing but the code cells (their fill and first lines, which
late_code_cells reads) and the headings (heading_pages finds a title without a destination by its
text); `visibility` leaves every box where it was, so the pages, and the heading
destinations on them, are those of the whole print. Painting the text, formulas and figures is most
of a print's time."""

FRONT_MATTER_JS = """([version, licence]) => {
    // Jupyter Book's print block (#jb-print-docs-body: the title, then the contents) becomes a
    // title page naming the version and licence, then a contents page with a page-number slot per entry.
    const block = document.querySelector('#jb-print-docs-body');
    if (!block) { throw new Error('no #jb-print-docs-body: not a Jupyter Book singlehtml page'); }
    const title = block.querySelector('h1');
    const front = document.createElement('div');
    front.className = 'tx-title-page';
    title.replaceWith(front);
    front.appendChild(title);
    for (const [cls, text] of [['tx-version', version], ['tx-licence-line', licence]]) {
        const p = document.createElement('p');
        p.className = cls;
        p.textContent = text;
        front.appendChild(p);
    }
    const toc = block.querySelector('#jb-print-toc');
    toc.classList.add('tx-contents');
    const entries = [];
    for (const a of toc.querySelectorAll('li > a[href^="#"]')) {
        // Link the section itself (its anchor span sits before the page break, on the page before).
        const anchor = document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)));
        let target = anchor;
        if (anchor && !anchor.id.startsWith('tx-') && anchor.nextElementSibling && anchor.nextElementSibling.id) {
            target = anchor.nextElementSibling;
        }
        if (target && target.tagName !== 'SECTION') {
            const section = target.querySelector('section[id]') || target.closest('section[id]');
            if (section) target = section;
        }
        if (target) a.setAttribute('href', '#' + target.id);
        const li = a.parentElement;
        li.classList.add('tx-entry');
        const dots = document.createElement('span'); dots.className = 'tx-dots';
        const page = document.createElement('span'); page.className = 'tx-page'; page.textContent = '000';
        li.append(dots, page);
        entries.push({id: target ? target.id : '', text: a.textContent.trim()});
    }
    return entries;
}"""

BREAK_BEFORE_JS = """(lines) => {
    const norm = s => s.replace(/\\s+/g, '');
    const wanted = lines.map(norm).filter(l => l.length >= 4);
    let moved = 0;
    for (const pre of document.querySelectorAll('div.cell_input pre')) {
        const first = norm(pre.textContent.split('\\n')[0]);
        if (first && wanted.some(l => first.startsWith(l) || l.startsWith(first))) {
            const box = pre.closest('div.cell_input');
            if (box.style.breakBefore !== 'page') { box.style.breakBefore = 'page'; moved++; }
        }
    }
    return moved;
}"""
"""Start on a new page every code cell whose first line is one of `lines` (the cells that began in
the last tenth of a page in the previous printing)."""

SET_PAGES_JS = """(pages) => {
    [...document.querySelectorAll('.tx-contents .tx-page')].forEach((span, k) => { span.textContent = pages[k]; });
}"""

LICENCE = ("Text and figures: CC BY 4.0. Code (the ledger library, the notebooks' code cells, the tests): MIT. "
           "See the LICENSE file of the repository.")


def book_version(root: Path | None = None) -> str:
    """"Version of <commit date>, commit <short hash>" from git, or the print date outside a git checkout."""
    import datetime
    import subprocess

    root = root or Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                                text=True, check=True, timeout=10).stdout.strip()
        date = subprocess.run(["git", "log", "-1", "--format=%cs", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True, timeout=10).stdout.strip()
        if commit and date:
            return f"Version of {date}, commit {commit}"
    except (OSError, subprocess.SubprocessError):
        pass
    return f"Printed on {datetime.date.today().isoformat()} (not from a git checkout: no commit to name)"


def _normal(text: str) -> str:
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", text).replace("\u00ad", "").split()).lower()


LATE = 0.9
"""A code cell that starts below this fraction of a page's body is moved to the next page."""
TOP_MM, BOTTOM_MM, A4_MM = 15, 18, 297
"""The print's top and bottom margins (print_once) and A4's height: the body lies between the margins."""


def late_code_cells(pdf: Path, dpi: int = 30) -> list[str]:
    """The first line of every code cell that starts in the last tenth of a page's body: found by
    its fill (CODE_BACKGROUND) on the pages rendered by pdftoppm, its text by pdftotext -bbox (read
    only when there is such a cell). Only the band a late start can lie in (from a few pixel rows
    above the last tenth to the body's end) is rendered, as PPM (the same pixels as PNG, without
    compressing them): a fifth of each page."""
    import html
    import math
    import re
    import subprocess
    import tempfile

    import numpy as np
    from PIL import Image

    colour = tuple(int(CODE_BACKGROUND[k:k + 2], 16) for k in (1, 3, 5))
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    points = float(re.search(r"^Page size:\s+[\d.]+ x ([\d.]+) pts", info, re.MULTILINE).group(1))
    height = math.ceil(points * dpi / 72)  # each page's height in pdftoppm's pixels (every page is A4)
    top, bottom = int(TOP_MM / A4_MM * height), int((1 - BOTTOM_MM / A4_MM) * height)
    body = bottom - top
    first_late = int(LATE * body) + 1  # the first body row a late start can lie on
    band = top + first_late - 3  # and the three rows above it, which must show no fill
    starts = []  # (page index, y of the cell's top as a fraction of the page's height)
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-y", str(band), "-H", str(bottom - band),
                        str(pdf), f"{folder}/p"], check=True)
        images = sorted(Path(folder).glob("p-*.ppm"), key=lambda p: int(p.stem.split("-")[-1]))
        for index, path in enumerate(images):
            image = Image.open(path).convert("RGB")
            fill = (np.abs(np.asarray(image, dtype=int) - colour) <= 3).all(axis=2)
            rows = list(fill.sum(axis=1) > 0.1 * image.width)  # rows band .. bottom - 1 of the page
            for k in range(3, len(rows)):
                if rows[k] and not any(rows[k - 3:k]):
                    starts.append((index, (band + k) / height))
    if not starts:
        return []
    bbox = subprocess.run(["pdftotext", "-bbox", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    pages = re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', bbox, re.DOTALL)
    found = []
    for index, fraction in starts:
        _, page_height, words = pages[index]
        y = fraction * float(page_height)
        line = [(float(x), w) for x, yy, w in re.findall(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="[\d.]+">(.*?)</word>', words)
            if y - 1 <= float(yy) <= y + 14]
        if line:
            found.append(" ".join(html.unescape(w) for _, w in sorted(line)))
    return found


def heading_pages(pdf: Path, entries: list[dict], skip: int) -> list[int]:
    """The page (1-based) of each contents entry: from the PDF's named destinations (Chromium writes one
    for every in-document link target; `pdfinfo -dests`), else the first page after the previous
    entry's, past the first `skip` pages, whose text holds the entry's title."""
    import re
    import subprocess

    dests = {}
    listing = subprocess.run(["pdfinfo", "-dests", str(pdf)], capture_output=True, text=True, check=False).stdout
    for line in listing.splitlines():
        match = re.match(r'^\s*(\d+)\s+\[.*\]\s+"(.*)"\s*$', line)
        if match:
            dests[match.group(2)] = int(match.group(1))
    pages: list[str] = []  # each page's text, read only if an entry has no destination
    found, start = [], skip
    for entry in entries:
        if entry["id"] in dests:
            found.append(dests[entry["id"]])
            start = dests[entry["id"]] - 1
            continue
        if not pages:
            text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True,
                                  check=True).stdout
            pages = [_normal(p) for p in text.split("\f")]
        wanted = _normal(entry["text"])
        page = next((k for k in range(start, len(pages)) if wanted in pages[k]), None)
        if page is None:
            raise SystemExit(f"the heading {entry['text']!r} is not in the printed PDF after page {start + 1}")
        found.append(page + 1)
        start = page
    return found


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def root_page(build: Path) -> str:
    """The single page of a singlehtml build, relative to it (index.html only redirects to it)."""
    pages = [p for p in build.rglob("*.html") if not p.relative_to(build).parts[0].startswith("_")
             and p.relative_to(build).as_posix() not in {"index.html", "search.html", "genindex.html"}]
    if len(pages) != 1:
        raise SystemExit(f"{build}: expected one page besides index.html, found "
                         f"{sorted(p.relative_to(build).as_posix() for p in pages)}")
    return pages[0].relative_to(build).as_posix()


def printable_copy(build: Path) -> Path:
    """The single page copied to the root of the build: Sphinx writes it at the root document's path
    (book/intro.html) but computes its links (_static/, _images/) as if it sat at the root."""
    copy = build / "_print.html"
    copy.write_bytes((build / root_page(build)).read_bytes())
    return copy


class Phases:
    """How long each step of the printing took, for one line at the end (`with phases("print"): ...`)."""

    def __init__(self):
        self.steps: list[tuple[str, float]] = []

    @contextlib.contextmanager
    def __call__(self, name: str):
        began = time.perf_counter()
        try:
            yield
        finally:
            self.steps.append((name, time.perf_counter() - began))

    def line(self) -> str:
        return ", ".join(f"{name} {s:.1f} s" for name, s in self.steps)


def print_pdf(build: Path, out: Path, timeout_s: float = 300, phases: Phases | None = None,
              code: bool = True) -> list[str]:
    """Print `build`'s single page to `out`; return the outside requests that were refused
    (`phases`: records each step's time; `code=False`: without code inputs or widgets, NO_CODE_CSS)."""
    from playwright.sync_api import sync_playwright

    phases = phases or Phases()

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(build)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    refused: list[str] = []
    try:
        with sync_playwright() as p:
            with phases("launch"):
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page()

            def guard(route):
                url = route.request.url
                if url.startswith((base, "data:", "blob:", "about:")):
                    route.continue_()
                else:
                    refused.append(url)
                    route.abort()

            page.route("**/*", guard)
            page.set_default_timeout(timeout_s * 1000)
            with phases("load"):
                page.goto(base + printable_copy(build).name, wait_until="load")
                page.emulate_media(media="print")
                page.add_style_tag(content=PRINT_CSS)
                if not code:
                    page.add_style_tag(content=NO_CODE_CSS)
            if page.evaluate("() => !!document.querySelector('.math') && !document.querySelector('script[src*=\"mathjax\"]')"):
                raise SystemExit("the page has formulas but loads no MathJax; not printing")
            page.wait_for_function("() => !document.querySelector('.math') || "
                                   "(window.MathJax && window.MathJax.startup && window.MathJax.startup.promise)",
                                   polling=100)
            with phases("typeset"):
                page.evaluate("""async () => {
                    if (window.MathJax && window.MathJax.startup) { await window.MathJax.startup.promise; }
                    await document.fonts.ready;
                    await Promise.all([...document.images].map(img => img.complete ? null :
                        new Promise(r => { img.onload = img.onerror = r; })));
                }""")
            untypeset = page.evaluate(
                "() => [...document.querySelectorAll('.math')].filter(e => !e.querySelector('mjx-container')).length")
            if untypeset:
                raise SystemExit(f"{untypeset} formulas were not typeset by MathJax; not printing")
            out.parent.mkdir(parents=True, exist_ok=True)
            entries = page.evaluate(FRONT_MATTER_JS, [book_version(), LICENCE])
            if not entries:
                raise SystemExit("the print contents (#jb-print-toc) lists no chapter; not printing")

            def print_once(final: bool):
                """Print to `out`. A print that only measures (the page numbers, the late code cells) has
                no outline and no tags, and shows only the code cells (MEASURING_CSS): the same pages,
                the same destinations and code cells where they were, in about 40% of the time. Only a
                print that may be the last one is whole; the loop below reads its pages again."""
                measuring = None if final else page.add_style_tag(content=MEASURING_CSS)
                with phases("print" if final else "measuring print"):
                    page.pdf(path=str(out), format="A4", print_background=True, display_header_footer=True,
                             header_template="<span></span>", footer_template=FOOTER,
                             margin={"top": f"{TOP_MM}mm", "bottom": f"{BOTTOM_MM}mm", "left": "14mm", "right": "14mm"},
                             outline=final, tagged=final)
                if measuring is not None:
                    measuring.evaluate("style => style.remove()")

            def contents_pages_of_print():
                with phases("headings"):
                    return heading_pages(out, entries, skip=contents_pages)

            def late_cells_of_print():
                with phases("late cells"):
                    return late_code_cells(out)

            # Print, read each chapter's page, write the numbers into the contents, print again (the
            # numbers take the placeholders' room, so the pages do not move; checked below).
            # A code cell that starts in the last tenth of a page is moved to the next (as a heading
            # is kept with what follows); that may move pages, so both are repeated until nothing
            # changes. Every print after the first may be the last, so each is a whole print (outline
            # and tags): it is kept when the contents already carry its page numbers and no code cell
            # starts late in it. Moving a cell seldom moves a chapter's first page, so the usual
            # count is two prints, not three (one more only when a move did shift a chapter).
            contents_pages = 2
            print_once(final=False)  # placeholders in the contents: never the last
            pages = contents_pages_of_print()
            page.evaluate(BREAK_BEFORE_JS, late_cells_of_print())
            for _ in range(4):
                page.evaluate(SET_PAGES_JS, [str(n) for n in pages])
                print_once(final=True)
                again = contents_pages_of_print()
                moved = page.evaluate(BREAK_BEFORE_JS, late_cells_of_print())  # none moved: the page is as printed
                if again == pages and not moved:
                    break
                pages = again
            else:
                raise SystemExit("the contents' page numbers and page breaks did not settle after four prints")
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    return refused


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Print a singlehtml build of the book to one PDF.")
    parser.add_argument("build", type=Path, help="a `jupyter-book build . --builder singlehtml` output")
    parser.add_argument("out", type=Path, help="the PDF to write")
    parser.add_argument("--publish", type=Path, metavar="HTML_DIR",
                        help="also copy the PDF into this HTML build and link it from the landing page")
    parser.add_argument("--no-code", action="store_true",
                        help="leave out code inputs and widgets (the student handout): NO_CODE_CSS")
    args = parser.parse_args(argv)
    if not args.build.is_dir():
        print(f"{args.build}: no such build directory (run `jupyter-book build . --builder singlehtml` first)",
              file=sys.stderr)
        return 2
    start, phases = time.perf_counter(), Phases()
    refused = print_pdf(args.build, args.out, phases=phases, code=not args.no_code)
    if refused:
        print("refused requests outside the book while printing:\n  " + "\n  ".join(refused), file=sys.stderr)
        return 1
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - start:.0f} s: {phases.line()}")
    if args.publish and (args.publish / "index.html").exists():
        from pdf_link import publish  # book/_ext, this script's folder

        changed = publish(args.out, args.publish)
        print(f"copied it into {args.publish} and linked it from {len(changed)} page(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
