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
and tagged structure (so the figures' alt texts travel into the PDF).
"""
from __future__ import annotations

import functools
import http.server
import sys
import threading
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FOOTER = ('<div style="font-size: 8px; width: 100%; text-align: center; color: #555;">'
          '<span class="title"></span> &middot; <span class="pageNumber"></span> / <span class="totalPages"></span></div>')


PRINT_CSS = """
/* Each chapter starts a page; headings stay with what follows; figures and table rows are not split. */
.toctree-wrapper > section { break-before: page; }
h1, h2, h3, h4 { break-after: avoid; }
img, figure, tr, mjx-container[display="true"] { break-inside: avoid; }
/* Paper cannot scroll sideways: long code lines wrap, and wide tables shrink to the page width. */
pre, .highlight pre { white-space: pre-wrap !important; overflow-wrap: anywhere; overflow: visible !important; }
div[style*="overflow"], .table-wrapper, .output, .cell_output { overflow: visible !important; }
table { font-size: 0.78em !important; max-width: 100% !important; }
table th, table td { padding: 0.2em 0.35em !important; }
"""


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


def print_pdf(build: Path, out: Path, timeout_s: float = 300) -> list[str]:
    """Print `build`'s single page to `out`; return the outside requests that were refused."""
    from playwright.sync_api import sync_playwright

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(build)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    refused: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()

            def guard(route):
                url = route.request.url
                if url.startswith(base) or url.startswith(("data:", "blob:", "about:")):
                    route.continue_()
                else:
                    refused.append(url)
                    route.abort()

            page.route("**/*", guard)
            page.set_default_timeout(timeout_s * 1000)
            page.goto(base + printable_copy(build).name, wait_until="load")
            page.emulate_media(media="print")
            page.add_style_tag(content=PRINT_CSS)
            if page.evaluate("() => !!document.querySelector('.math') && !document.querySelector('script[src*=\"mathjax\"]')"):
                raise SystemExit("the page has formulas but loads no MathJax; not printing")
            page.wait_for_function("() => !document.querySelector('.math') || "
                                   "(window.MathJax && window.MathJax.startup && window.MathJax.startup.promise)")
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
            page.pdf(path=str(out), format="A4", print_background=True, display_header_footer=True,
                     header_template="<span></span>", footer_template=FOOTER,
                     margin={"top": "15mm", "bottom": "18mm", "left": "14mm", "right": "14mm"},
                     outline=True, tagged=True)
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
    args = parser.parse_args(argv)
    if not args.build.is_dir():
        print(f"{args.build}: no such build directory (run `jupyter-book build . --builder singlehtml` first)",
              file=sys.stderr)
        return 2
    start = time.perf_counter()
    refused = print_pdf(args.build, args.out)
    if refused:
        print("refused requests outside the book while printing:\n  " + "\n  ".join(refused), file=sys.stderr)
        return 1
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - start:.0f} s")
    if args.publish and (args.publish / "index.html").exists():
        from pdf_link import publish  # book/_ext, this script's folder

        changed = publish(args.out, args.publish)
        print(f"copied it into {args.publish} and linked it from {len(changed)} page(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
