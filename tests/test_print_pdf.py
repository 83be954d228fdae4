"""book/_ext/print_pdf.py's reading of a print: which code cells start in the last tenth of a page's body.

late_code_cells renders only the band of each page a late start can lie in; here it reads an A4 PDF
drawn with Matplotlib (code-cell boxes in print_pdf.CODE_BACKGROUND at known heights), so the test
needs no browser and no build.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
import print_pdf  # noqa: E402

A4_INCHES = (210 / 25.4, 297 / 25.4)


def _page_with_boxes(pdf, boxes):
    """One A4 page with a code box per (top, bottom, first line): top and bottom as fractions of the
    page's body (0 its top, 1 its bottom), drawn in the print's code fill with the line at its top."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    fig = Figure(figsize=A4_INCHES)
    top_margin, bottom_margin = print_pdf.TOP_MM / print_pdf.A4_MM, print_pdf.BOTTOM_MM / print_pdf.A4_MM
    body = 1 - top_margin - bottom_margin
    for top, bottom, line in boxes:
        y_top = 1 - top_margin - top * body  # figure coordinates run upwards
        y_bottom = 1 - top_margin - bottom * body
        fig.patches.append(Rectangle((0.08, y_bottom), 0.84, y_top - y_bottom, transform=fig.transFigure,
                                     facecolor=print_pdf.CODE_BACKGROUND, edgecolor="none"))
        fig.text(0.1, y_top - 0.004, line, va="top", fontsize=9, family="monospace")
    pdf.savefig(fig)


def test_late_code_cells_names_the_cells_that_start_in_the_last_tenth(tmp_path):
    assert shutil.which("pdftoppm"), "pdftoppm is missing: apt-get install poppler-utils (make test installs it)"
    import matplotlib

    from matplotlib.backends.backend_pdf import PdfPages

    path = tmp_path / "print.pdf"
    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(path) as pdf:  # TrueType: pdftotext reads it
        _page_with_boxes(pdf, [(0.1, 0.3, "early = 1"), (0.95, 1.0, "late_one = 2")])
        _page_with_boxes(pdf, [(0.0, 1.0, "whole_page = 3")])  # runs on from the page before: no start
        _page_with_boxes(pdf, [(0.5, 0.8, "middle = 4"), (0.86, 0.89, "above_the_tenth = 5"),
                               (0.93, 1.0, "late_two = 6")])
    assert print_pdf.late_code_cells(path) == ["late_one = 2", "late_two = 6"]
