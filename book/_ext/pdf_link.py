"""The landing page's link to the book's PDF: a working link when the PDF exists, a note when it does not.

`make pdf` writes _build/pdf/transforms-in-training-workloads.pdf. An HTML build that finds it there
copies it next to index.html, so the landing page's link opens it. A build without it shows, instead
of a dead link, a note that `make pdf` writes it; `make pdf` run after the HTML build copies the PDF in
and turns that note back into the link (`publish`, called by book/_ext/print_pdf.py).

The landing page writes the link as raw HTML, `<a class="tx-pdf" href="../NAME">...</a>`. The
single-page build that `make pdf` prints shows the link's text only, and gets the html builder's
node visitors it would otherwise lack.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

PDF_NAME = "transforms-in-training-workloads.pdf"
"""The file name of the book's PDF, in _build/pdf/ and at the root of the HTML build."""

_LINK = re.compile(r'<a class="tx-pdf" href="(?P<href>[^"]*)">(?P<text>.*?)</a>', re.DOTALL)
_NOTE = re.compile(r'<span class="tx-pdf-missing" data-href="(?P<href>[^"]*)">(?P<text>.*?)'
                   r'<span class="tx-pdf-how"> \(not in this build: <code>make pdf</code> writes it\)</span></span>',
                   re.DOTALL)


def link_to_note(html: str) -> str:
    """Every PDF link in `html` as a note saying that `make pdf` writes the PDF (no dead link)."""
    return _LINK.sub(lambda m: f'<span class="tx-pdf-missing" data-href="{m["href"]}">{m["text"]}'
                               '<span class="tx-pdf-how"> (not in this build: <code>make pdf</code> writes it)</span></span>',
                     html)


def note_to_link(html: str) -> str:
    """Every note of `link_to_note` back as the link it replaced."""
    return _NOTE.sub(lambda m: f'<a class="tx-pdf" href="{m["href"]}">{m["text"]}</a>', html)


def built_pdf(srcdir: str | Path) -> Path:
    """Where `make pdf` writes the PDF for the book whose source is `srcdir`."""
    return Path(srcdir) / "_build" / "pdf" / PDF_NAME


def publish(pdf: Path, html_dir: Path) -> list[Path]:
    """Copy `pdf` into the HTML build `html_dir` and turn its pages' PDF notes into links; return the pages changed."""
    shutil.copyfile(pdf, html_dir / PDF_NAME)
    changed = []
    for page in html_dir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if "tx-pdf-missing" in text:
            page.write_text(note_to_link(text), encoding="utf-8")
            changed.append(page)
    return changed


def link_to_text(html: str) -> str:
    """Every PDF link in `html` as its bare text (the single page printed to the PDF itself)."""
    return _LINK.sub(lambda m: m["text"], html)


def _page(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if not body or 'class="tx-pdf"' not in body:
        return
    if app.builder.name == "singlehtml":
        context["body"] = link_to_text(body)
    elif not built_pdf(app.srcdir).exists():
        context["body"] = link_to_note(body)


def _finished(app, exc):
    pdf = built_pdf(app.srcdir)
    if exc is None and app.builder.format == "html" and app.builder.name == "html" and pdf.exists():
        shutil.copyfile(pdf, Path(app.outdir) / PDF_NAME)


def _singlehtml_gets_the_html_visitors(app):
    """Sphinx takes node visitors registered for `singlehtml` (sphinx-exercise registers some) instead of,
    not as well as, those for `html`, so myst-nb's hidden-input cells would have none in the
    single-page build `make pdf` prints. Give the single-page builder every html visitor it lacks."""
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node, visitors in handlers.get("html", {}).items():
        single.setdefault(node, visitors)


def setup(app):
    app.connect("builder-inited", _singlehtml_gets_the_html_visitors)
    app.connect("html-page-context", _page)
    app.connect("build-finished", _finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
