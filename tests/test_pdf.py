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

import numpy as np
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
        # exactly: a box's drop shadow printed as a raster image (PRINT_CSS removes them) counts as one more
        assert len(images) == len(figures), f"{len(images)} images in the PDF for {len(figures)} figures on the page"
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


# ---------------------------------------------------------------- a PDF to hand out (issue 18)

def _pdf_or_fail() -> Path:
    if not PDF.exists():
        pytest.fail(f"{PDF} is missing: build it with `make pdf`")
    return PDF


@pytest.fixture(scope="module")
def page_words() -> list[tuple[float, float, list[tuple[float, float, float, float, str]]]]:
    """(width, height, [(xMin, yMin, xMax, yMax, word)]) of every page, from pdftotext -bbox."""
    out = subprocess.run([_tool("pdftotext"), "-bbox", "-enc", "UTF-8", str(_pdf_or_fail()), "-"],
                         capture_output=True, text=True, check=True).stdout
    pages = []
    for size, body in re.findall(r'<page (width="[\d.]+" height="[\d.]+")>(.*?)</page>', out, re.DOTALL):
        width, height = (float(v) for v in re.findall(r"[\d.]+", size))
        words = [(float(a), float(b), float(c), float(d), w) for a, b, c, d, w in re.findall(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', body)]
        pages.append((width, height, words))
    return pages


@pytest.fixture(scope="module")
def page_images(tmp_path_factory) -> list:
    """Every page rendered by pdftoppm at 30 dpi, as RGB images (PPM: the pixels PNG would hold, without
    the 3 s of compressing 190-odd pages)."""
    from PIL import Image

    folder = tmp_path_factory.mktemp("pages")
    subprocess.run([_tool("pdftoppm"), "-r", "30", str(_pdf_or_fail()), str(folder / "p")], check=True)
    return [Image.open(p).convert("RGB") for p in sorted(folder.glob("p-*.ppm"), key=lambda p: int(p.stem.split("-")[-1]))]


FOOTER_FROM = 1 - 18 / 297  # the footer sits in the bottom margin (18 mm of A4's 297 mm)
BODY_TOP, BODY_BOTTOM = 15 / 297, FOOTER_FROM


def test_no_blank_or_frame_only_page(page_words, page_images):
    """Every page carries words or a figure in its body: not blank, not only the frame of a split box."""
    assert len(page_words) == len(page_images) >= 50
    empty = []
    for number, ((width, height, words), image) in enumerate(zip(page_words, page_images), 1):
        body = [w for w in words if w[1] < FOOTER_FROM * height]
        grey = image.convert("L").crop((0, int(BODY_TOP * image.height), image.width, int(BODY_BOTTOM * image.height)))
        ink = float((np.asarray(grey) < 200).mean())
        if len(body) < 3 and ink < 0.02:
            empty.append(f"page {number}: {len(body)} words, {ink:.1%} ink")
    assert not empty, "blank or frame-only pages:\n" + "\n".join(empty)


def test_no_code_cell_starts_at_a_page_foot(page_images):
    """A code cell (filled with print_pdf.CODE_BACKGROUND) never starts in the last tenth of a page's body."""
    colour = tuple(int(print_pdf.CODE_BACKGROUND[k:k + 2], 16) for k in (1, 3, 5))
    starts, late = 0, []
    for number, image in enumerate(page_images, 1):
        top, bottom = int(BODY_TOP * image.height), int(BODY_BOTTOM * image.height)
        fill = (np.abs(np.asarray(image, dtype=int) - colour) <= 3).all(axis=2)
        rows = list(fill[top:bottom].sum(axis=1) > 0.1 * image.width)
        for k, is_code in enumerate(rows):
            if is_code and k > 0 and not any(rows[max(0, k - 3):k]):  # a gap of 3+ rows: a new box
                starts += 1
                if k > 0.9 * len(rows):
                    late.append(f"page {number}: a code cell starts at {k / len(rows):.0%} of the page")
    assert starts >= 20, f"only {starts} code cells found by their fill: is CODE_BACKGROUND still the print style's?"
    assert not late, "\n".join(late)


def test_title_page_and_contents_with_page_numbers(page_words):
    first = " ".join(w[4] for w in page_words[0][2])
    assert re.search(r"commit [0-9a-f]{6,}|not from a git checkout", first), f"the title page names no version: {first[:300]}"
    assert "CC BY 4.0" in first and "MIT" in first, "the title page names no licence"
    contents = next((k for k, (_, _, words) in enumerate(page_words[:4]) if any(w[4] == "Contents" for w in words)), None)
    assert contents is not None, "no contents page among the first four"
    lines: dict[float, list] = {}
    for word in page_words[contents][2]:
        lines.setdefault(round(word[1]), []).append(word)
    numbered = []
    for _, words in sorted(lines.items()):
        words.sort()
        if len(words) >= 2 and words[-1][4].isdigit():
            numbered.append((" ".join(w[4] for w in words[:-1]), int(words[-1][4])))
    assert len(numbered) >= 0.8 * len(toc_titles()), f"contents lines with page numbers: {numbered}"
    for title, number in numbered:
        page_text = normalise(" ".join(w[4] for w in page_words[number - 1][2]))
        assert normalise(title)[:30] in page_text, f"contents: {title!r} is not on page {number}"
