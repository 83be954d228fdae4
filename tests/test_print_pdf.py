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
import print_pdf

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


def test_print_figure_raises_type_that_would_print_below_the_floor():
    """ledger.figures.print_figure: a 16-inch figure's 8-point legend would print at about 3 pt on
    A4; after it, the smallest type prints at PRINT_MIN_PT or more (its PNG scaled to PRINT_WIDTH_IN).
    A narrow figure, which prints enlarged, keeps its type."""
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    from ledger import figures

    figures.figure_style()
    printed = {}
    for width in (6, 16):
        fig, axes = plt.subplots(1, 3, figsize=(width, 4), layout="constrained")
        for ax in axes:
            ax.plot([1, 2], [3, 4], label="a line")
            ax.legend()
            ax.set_xlabel("tokens")
        drawn = figures.print_figure(fig)
        plt.close(fig)
        pixels = Image.open(io.BytesIO(base64.b64decode(drawn["png"]))).size[0]
        printed[width] = (drawn["min_type_pt"], drawn["min_type_pt"] * figures.PRINT_WIDTH_IN * figures.FIGURE_DPI / pixels)
    assert printed[6][0] == pytest.approx(8.0)  # the legend's own size: nothing raised
    assert printed[16][0] > 12 and printed[16][1] >= figures.PRINT_MIN_PT, printed


def test_the_student_print_style_hides_code_and_widgets_but_not_outputs():
    css = print_pdf.NO_CODE_CSS
    assert "div.cell_input" in css and "jupyter-widgets" in css and "widget-view+json" in css
    assert "cell_output" not in css and "img" not in css
    assert "--no-code" in Path(print_pdf.__file__).read_text(encoding="utf-8")
