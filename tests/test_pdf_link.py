"""The landing page's PDF link (book/_ext/pdf_link.py): a link when the PDF exists, never a dead one."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import pdf_link  # noqa: E402

LINK = '<p>For paper there is <a class="tx-pdf" href="../transforms-in-training-workloads.pdf">the whole book as one PDF</a>.</p>'


def test_the_landing_page_writes_the_link_the_extension_knows():
    intro = (ROOT / "book" / "intro.md").read_text()
    assert f'<a class="tx-pdf" href="../{pdf_link.PDF_NAME}">' in intro


def test_a_missing_pdf_becomes_a_note_and_back():
    note = pdf_link.link_to_note(LINK)
    assert "<a " not in note and "make pdf" in note and "the whole book as one PDF" in note
    assert pdf_link.note_to_link(note) == LINK
    assert pdf_link.link_to_text(LINK) == "<p>For paper there is the whole book as one PDF.</p>"


def test_publish_copies_the_pdf_and_links_it(tmp_path):
    html = tmp_path / "html"
    (html / "book").mkdir(parents=True)
    (html / "book" / "intro.html").write_text(pdf_link.link_to_note(LINK))
    (html / "book" / "other.html").write_text("<p>no link here</p>")
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(b"%PDF-1.7 test")
    changed = pdf_link.publish(pdf, html)
    assert changed == [html / "book" / "intro.html"]
    assert (html / pdf_link.PDF_NAME).read_bytes() == b"%PDF-1.7 test"
    assert (html / "book" / "intro.html").read_text() == LINK
    target = (html / "book" / "../transforms-in-training-workloads.pdf").resolve()
    assert target == (html / pdf_link.PDF_NAME).resolve()
