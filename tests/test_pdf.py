"""The book's PDF (`make pdf`): every chapter in order, the glued numbers, typeset math, figures, bibliography.

Reads _build/pdf/transforms-in-training-workloads.pdf (TX_BOOK_PDF for another file) with poppler's
pdftotext, pdfimages and pdfinfo. The PDF must be built first (`make pdf`); the test fails, not
skips, without it.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from pybtex.database import parse_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
import print_pdf  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PDF = ROOT / "_build" / "pdf" / "transforms-in-training-workloads.pdf"
PDF = Path(os.environ.get("TX_BOOK_PDF", DEFAULT_PDF))
SINGLE = ROOT / "_build" / "singlehtml"
RAW_TEX = ("\\(", "\\)", "\\[", "\\]", "$$", "\\frac", "\\mathrm", "\\overline", "\\text{")


def normalise(text: str) -> str:
    """Compatibility forms folded (ligatures, non-breaking spaces), whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).replace("\u00ad", "").replace("\u2019", "'")  # typographic apostrophe
    return " ".join(text.split())


def toc_titles() -> list[str]:
    """The title (first level-1 heading) of every page in _toc.yml, in order."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc.get("parts", []) for c in part["chapters"]]
    titles = []
    for f in files:
        if (ROOT / f"{f}.ipynb").exists():
            cells = json.loads((ROOT / f"{f}.ipynb").read_text())["cells"]
            source = "".join(next(c for c in cells if c["cell_type"] == "markdown")["source"])
        else:
            source = (ROOT / f"{f}.md").read_text()
        titles.append(next(line[2:].strip() for line in source.splitlines() if line.startswith("# ")))
    return titles


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is missing: apt-get install poppler-utils (make pdf installs it)")
    return path


@pytest.fixture(scope="module")
def pdf_text() -> str:
    if not PDF.exists():
        pytest.fail(f"{PDF} is missing: build it with `make pdf`")
    done = subprocess.run([_tool("pdftotext"), "-enc", "UTF-8", str(PDF), "-"], capture_output=True, text=True, check=True)
    return normalise(done.stdout)


def test_every_chapter_title_in_order(pdf_text):
    position = 0
    for title in toc_titles():
        found = pdf_text.find(normalise(title), position)
        assert found >= 0, f"chapter {title!r} is not in the PDF after position {position}"
        position = found + len(title)


def test_the_circulant_rows_glued_numbers(pdf_text):
    for number in ("12.19%", "1.139x", "14.18%", "11.16%", "9.66%", "20.73%", "1.107x"):
        assert number in pdf_text, number


def test_no_raw_tex_and_no_math_error(pdf_text):
    left = [d for d in RAW_TEX if d in pdf_text]
    assert not left, [pdf_text[max(0, pdf_text.find(d) - 60):pdf_text.find(d) + 60] for d in left]
    assert "Math input error" not in pdf_text and "Math Processing Error" not in pdf_text


def test_the_bibliography_lists_every_reference(pdf_text):
    start = pdf_text.rfind("Bibliography")
    assert start >= 0
    tail = pdf_text[start:].lower()
    missing = []
    for key, entry in parse_file(str(ROOT / "book" / "references.bib")).entries.items():
        words = re.sub(r"[{}\\]", "", entry.fields.get("title", "")).split()[:4]
        if words and normalise(" ".join(words)).lower() not in tail:
            missing.append(f"{key}: {' '.join(words)}")
    assert not missing, "references not in the PDF's bibliography:\n" + "\n".join(missing)


def test_the_figures_are_in_the_pdf():
    if not PDF.exists():
        pytest.fail(f"{PDF} is missing: build it with `make pdf`")
    listing = subprocess.run([_tool("pdfimages"), "-list", str(PDF)], capture_output=True, text=True, check=True).stdout
    images = [line for line in listing.splitlines()[2:] if line.split()[2:3] == ["image"]]
    if SINGLE.is_dir() and PDF == DEFAULT_PDF:  # the page `make pdf` printed: every raster figure on it is in the PDF
        page = (SINGLE / print_pdf.root_page(SINGLE)).read_text(encoding="utf-8")
        figures = set(re.findall(r'<img[^>]+src="([^"]*_images/[^"]+\.(?:png|jpe?g))"', page))
        assert len(figures) >= 20, f"only {len(figures)} figures on the printed page"
        assert len(images) >= len(figures), (len(images), len(figures))
    else:
        assert len(images) >= 20, f"only {len(images)} images in the PDF"


def test_page_count_and_outline():
    if not PDF.exists():
        pytest.fail(f"{PDF} is missing: build it with `make pdf`")
    info = subprocess.run([_tool("pdfinfo"), str(PDF)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.MULTILINE).group(1))
    assert pages >= 50, pages
    assert re.search(r"^Tagged:\s+yes", info, re.MULTILINE), "the PDF is not tagged (alt texts would be lost)"
    assert re.search(r"^Title:\s+Transforms in Training Workloads", info, re.MULTILINE)
