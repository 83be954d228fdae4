"""No figure's legend covers a bar, on the page or in the slide drawing: ledger.figures.show records,
for the page's figure and for its slide drawing (where a legend inside an axes grows over the bars as
the type is raised), the bars a legend covers (ledger.figures.legend_over_bars), and the build's
executed chapters carry those records. overlapping_labels compares texts only, not a legend's box
against the bars, hence this check; chapter 05's "Where the FLOPs go, by class" is the figure that
once failed it."""
from __future__ import annotations

from book_pages import figure_records

FIGURE_CELL = ("05_amdahl_table", "amdahl-22")


def bars_with_legend(legend_loc: str):
    """Four tall bars with a two-entry legend at `legend_loc`, drawn on an Agg canvas and laid out."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ledger.figures import overlapping_labels

    fig = Figure(figsize=(6, 3))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.bar(["a", "b", "c", "d"], [9, 10, 10, 9], label="tall")
    ax.bar(["a", "b", "c", "d"], [1, 1, 1, 1], bottom=[9, 10, 10, 9], label="top")
    ax.legend(loc=legend_loc)
    overlapping_labels(fig)  # lays the figure out, as show does before it looks at the legend
    return fig


def legend_beside_the_bars():
    """The same bars with the legend outside the axes, to their right."""
    fig = bars_with_legend("upper left")
    fig.axes[0].get_legend().set_bbox_to_anchor((1.02, 1.0))
    fig.draw_without_rendering()
    return fig


def test_the_check_finds_a_legend_over_the_bars_and_none_beside_them():
    from ledger.figures import legend_over_bars

    covered = legend_over_bars(bars_with_legend("center"))
    assert covered and {bar for _, bar in covered} <= {"a", "b", "c", "d"}, covered
    assert legend_over_bars(legend_beside_the_bars()) == []


def test_no_legend_covers_a_bar_on_the_page_or_the_slide():
    records = figure_records()
    assert len(records) >= 20, f"only {len(records)} figures drawn with show()"
    unrecorded = [f"{stem} {cell}" for stem, cell, meta in records
                  if "legend_over_bars" not in meta or "legend_over_bars" not in meta.get("slide", {})]
    assert not unrecorded, f"figures without the legend record on the page or the slide: {unrecorded}"
    covered = [f"{stem} cell {cell} ({where}): the legend {entries!r} covers {bar!r}"
               for stem, cell, meta in records for where, record in (("page", meta), ("slide", meta["slide"]))
               for entries, bar in record["legend_over_bars"]]
    assert not covered, "legends over bars:\n" + "\n".join(covered)


def test_the_by_class_figure_of_chapter_05_was_checked():
    """The figure that once failed: it has a legend, on the page and on the slide, and both were looked at."""
    stem, cell = FIGURE_CELL
    metas = [meta for s, c, meta in figure_records() if (s, c) == (stem, cell)]
    assert metas, f"{stem} cell {cell} draws no figure with show()"
    assert all(meta["legends"] >= 1 and meta["slide"]["legends"] >= 1 for meta in metas), metas[0]["legends"]
