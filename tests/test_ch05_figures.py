"""Chapter 05's "Where the FLOPs go, by class" figure: its legend covers no bar, on the page and in
the slide drawing (ledger.figures.show redraws the figure at slide type sizes, where a legend inside
an axes grows over the bars). ledger.figures.overlapping_labels compares texts only, not a legend's
box against the bars, hence this check. The chapter's cells are run up to the figure's."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
FIGURE_CELL = "amdahl-22"


def legend_bar_overlaps(fig) -> list[tuple[str, str]]:
    """(legend entries, bar) pairs where a legend's box covers part of a bar (in display pixels, more
    than one pixel each way), as the figure is drawn now; bars of no height are left out."""
    from matplotlib.transforms import Bbox

    if not hasattr(fig.canvas, "get_renderer"):  # a figure drawn outside pyplot's backend: give it Agg's
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
    found = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        entries = ", ".join(t.get_text() for t in legend.get_texts())
        for ax in fig.axes:
            frame = ax.get_window_extent(renderer)
            labels = [t.get_text() for t in ax.get_xticklabels()]
            for container in ax.containers:
                for k, bar in enumerate(container):
                    drawn = Bbox.intersection(bar.get_window_extent(renderer), frame)
                    if drawn is None or drawn.height < 1:
                        continue
                    both = Bbox.intersection(drawn, box)
                    if both is not None and both.width > 1 and both.height > 1:
                        found.append((entries, labels[k] if k < len(labels) else f"bar {k}"))
    return found


@pytest.fixture(scope="module")
def drawn(monkeypatch_module):
    """The figure's legend-bar overlaps on the page and on the slide: the chapter's cells run up to
    the figure's, with `show` wrapped to look before and after it redraws the figure for a slide."""
    import matplotlib

    matplotlib.use("Agg")
    import IPython.display

    import ledger.figures

    seen = {}
    real_show = ledger.figures.show

    def looking_show(fig, alt):
        seen["page"] = legend_bar_overlaps(fig)
        seen["legends"] = len(fig.legends) + sum(ax.get_legend() is not None for ax in fig.axes)
        real_show(fig, alt)
        seen["slide"] = legend_bar_overlaps(fig)  # show leaves the figure at its slide type sizes

    monkeypatch_module.setattr(ledger.figures, "show", looking_show)
    monkeypatch_module.setenv(ledger.figures.SLIDE_FIGURES_ENV, "1")  # as the book's build draws it, slide included
    monkeypatch_module.setattr(IPython.display, "display", lambda *a, **k: None)
    nb = nbformat.read(ROOT / "notebooks" / "05_amdahl_table.ipynb", as_version=4)
    namespace: dict = {}
    for cell in nb.cells:
        if cell.cell_type != "code" or "colab-install" in cell.metadata.get("tags", []):
            continue
        source = re.sub(r"^\s*[%!].*$", "", cell.source, flags=re.MULTILINE)
        source = source.replace("from myst_nb import glue", "from ledger.glue import glue")
        if cell.get("id") == FIGURE_CELL:
            seen.clear()
        exec(compile(source, f"05_amdahl_table.ipynb:{cell.get('id')}", "exec"), namespace)
        if cell.get("id") == FIGURE_CELL:
            return dict(seen)
    raise AssertionError(f"chapter 05 has no cell {FIGURE_CELL}")


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_the_by_class_figure_has_a_legend_that_covers_no_bar_on_the_page_and_the_slide(drawn):
    assert drawn.get("legends"), "the figure has no legend (or the cell no longer calls show)"
    assert not drawn["page"], f"on the page, the legend covers {drawn['page']}"
    assert not drawn["slide"], f"on the slide, the legend covers {drawn['slide']}"
