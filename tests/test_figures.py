"""ledger.figures: the palette, the figure style, alt-text figures and HTML tables every chapter imports."""
from __future__ import annotations

import base64
import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

import ledger  # noqa: E402
from ledger import LedgerError  # noqa: E402
from ledger.figures import (CLASS_COLORS, CYCLE, PALETTE, PHASE_COLORS, check_alt, figure_bundle,  # noqa: E402
                            figure_png, figure_style, parse_pipe_table, table_html)


def _srgb_luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[k:k + 2], 16) / 255 for k in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _simulate_deuteranopia(hex_colour: str) -> tuple[float, float, float]:
    """An approximate deuteranope view after Viénot, Brettel and Mollon (1999): red and green collapse
    onto one channel (linear RGB)."""
    r, g, b = [int(hex_colour[k:k + 2], 16) / 255 for k in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    r, g, b = lin
    return (0.29275 * r + 0.70725 * g, 0.29275 * r + 0.70725 * g, -0.02234 * r + 0.02234 * g + b)


def test_palette_is_one_set_of_distinct_colours():
    assert len(set(PALETTE.values())) == len(PALETTE)
    assert set(CYCLE) <= set(PALETTE.values())
    assert set(CLASS_COLORS) == set(ledger.CLASSES)
    assert set(PHASE_COLORS) == set(ledger.PHASES)
    assert set(CLASS_COLORS.values()) | set(PHASE_COLORS.values()) <= set(PALETTE.values())
    assert len(set(CLASS_COLORS.values())) == len(CLASS_COLORS)
    assert len(set(PHASE_COLORS.values())) == len(PHASE_COLORS)


@pytest.mark.parametrize("mapping", [CLASS_COLORS, PHASE_COLORS], ids=["classes", "phases"])
def test_category_colours_stay_apart_for_a_deuteranope(mapping):
    # The classes (and the phases) must remain distinguishable for the commonest colour-vision deficiency.
    sims = {k: _simulate_deuteranopia(c) for k, c in mapping.items()}
    keys = sorted(sims)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            distance = sum((x - y) ** 2 for x, y in zip(sims[a], sims[b])) ** 0.5
            assert distance > 0.08, (a, b, mapping[a], mapping[b], distance)


def test_first_cycle_colours_read_on_white():
    # WCAG contrast against the white figure background: blue, bluish green and vermillion (the
    # operation classes) reach the 3:1 asked of graphical objects; orange, second in the cycle,
    # reaches 2.2:1; yellow (about 1.3:1) is not in the cycle at all.
    contrast = {c: 1.05 / (_srgb_luminance(c) + 0.05) for c in CYCLE}
    for name in ("transform", "weight_product", "data_product"):
        assert contrast[CLASS_COLORS[name]] >= 3.0, (name, contrast[CLASS_COLORS[name]])
    assert min(contrast[c] for c in CYCLE[:4]) >= 2.0
    assert PALETTE["yellow"] not in CYCLE and min(contrast.values()) >= 1.5


def test_figure_style_sets_the_palette_and_white_background():
    figure_style()
    assert [c.upper() for c in matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]] == [c.upper() for c in CYCLE]
    assert matplotlib.colors.to_hex(matplotlib.rcParams["figure.facecolor"]) == "#ffffff"
    assert matplotlib.colors.to_hex(matplotlib.rcParams["savefig.facecolor"]) == "#ffffff"
    assert figure_style() is None  # a cell ending in figure_style() shows nothing


def test_figure_png_is_opaque_white_even_from_a_transparent_figure():
    # Dark mode shows a figure as a white card: the PNG must not be transparent anywhere.
    fig, ax = plt.subplots(figsize=(3, 2))
    fig.patch.set_alpha(0.0)
    ax.patch.set_alpha(0.0)
    ax.plot([0, 1], [0, 1], color=PALETTE["blue"])
    image = Image.open(io.BytesIO(figure_png(fig))).convert("RGBA")
    plt.close(fig)
    alphas = image.getchannel("A").getextrema()
    assert alphas == (255, 255), alphas
    assert image.getpixel((0, 0)) == (255, 255, 255, 255)


def test_figure_bundle_carries_the_alt_text():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.bar(["forward", "dX"], [1, 2])
    data, metadata = figure_bundle(fig, alt="  Two bars:   forward is half of dX ")
    plt.close(fig)
    assert metadata == {"image/png": {"alt": "Two bars: forward is half of dX"}}
    assert data["text/plain"] == "Two bars: forward is half of dX"
    assert base64.b64decode(data["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("alt", ["", "   ", None, "figure.png", "../_images/1dc7a9e0f3b2c4d5e6f7.png",
                                 "1dc7a9e0f3b2c4d5e6f7a8b9", "a plot", "fig_shares"])
def test_alt_text_that_names_a_file_or_says_nothing_is_refused(alt):
    with pytest.raises(LedgerError, match="alt = "):
        check_alt(alt)


def test_table_html_aligns_numbers_right_and_escapes_text():
    html = table_html(["model", "S", "step share", "note"],
                      [["Circulant", "4,096", "12.19%", "**blocks** of `256` <b>"],
                       ["Hyena-2", "2,048", "0.15%", "a < b"]])
    heads = re.findall(r'<th style="text-align: (\w+)">', html)
    assert heads == ["left", "right", "right", "left"]
    assert "<b>blocks</b> of <code>256</code> &lt;b&gt;" in html
    assert "a &lt; b" in html
    assert html.count("<tr>") == 3


def test_table_html_refuses_ragged_rows_and_bad_alignment():
    with pytest.raises(LedgerError, match="row 1 has 1 cells"):
        table_html(["a", "b"], [["1", "2"], ["3"]])
    with pytest.raises(LedgerError, match="align = 'lc'"):
        table_html(["a", "b"], [["1", "2"]], align="lc")


def test_pipe_table_keeps_its_rule_alignment():
    header, body, align = parse_pipe_table("| model | step |\n| --- | ---: |\n| Circulant | 12.19% |\n")
    assert (header, body, align) == (["model", "step"], [["Circulant", "12.19%"]], "lr")
    with pytest.raises(LedgerError, match="not a pipe table"):
        parse_pipe_table("model, step")
    with pytest.raises(LedgerError, match="rule"):
        parse_pipe_table("| a |\n| b |")


def test_overlapping_labels_finds_text_printed_over_text():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ledger.figures import overlapping_labels

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.annotate("M = 4,096", (0.5, 0.5))
    ax.annotate("M = 16,384", (0.52, 0.5))
    ax.annotate("apart", (0.1, 0.1))
    assert overlapping_labels(fig) == [("M = 4,096", "M = 16,384")]
    plt.close(fig)
    # slanted labels: apart when parallel and side by side, found when they cross
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.text(0.2, 0.5, "a slanted label", rotation=40)
    ax.text(0.5, 0.5, "another slanted", rotation=40)
    assert overlapping_labels(fig) == []
    ax.text(0.25, 0.6, "crossing it here", rotation=-40)
    assert ("a slanted label", "crossing it here") in overlapping_labels(fig)
    plt.close(fig)


def test_labels_run_together_on_one_line_are_found():
    """Chapter 03's 4f drawing on its slide: "lens" and "input gradient du", side by side on one line,
    touched ("lensinput gradient du") without their boxes overlapping by two points. Two horizontal
    texts on one line need a word space (TICK_GAP_EM) between them; texts one above the other, or
    apart by more than the gap, are not found."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ledger.figures import TICK_GAP_EM, overlapping_labels

    fig, ax = plt.subplots(figsize=(6, 3))
    renderer = fig.canvas.get_renderer()
    left = ax.text(0.1, 0.5, "lens", fontsize=12)
    box = left.get_window_extent(renderer)
    x_end = ax.transData.inverted().transform((box.x1, box.y0))[0]
    right = ax.text(x_end, 0.5, "input gradient du", fontsize=12)  # touching: no space between
    assert overlapping_labels(fig) == [("lens", "input gradient du")]
    space = 2 * TICK_GAP_EM * 12 * fig.dpi / 72  # twice the gap, in display pixels
    right.set_x(ax.transData.inverted().transform((box.x1 + space, box.y0))[0])
    assert overlapping_labels(fig) == []
    right.set_position((0.1, 0.3))  # one line below: a stacked label, not run together
    assert overlapping_labels(fig) == []
    plt.close(fig)


def test_tick_labels_of_one_axis_that_run_together_are_found_and_log_axis_labels_keeps_them_apart():
    """Chapter 16's rates on a log axis from 4 to 60 GFLOP/s: matplotlib labels the minor ticks, and
    "3x10^1" ran into "4x10^1" on the slide. overlapping_labels finds it; with log_axis_labels (plain
    numbers, minor labels at 2 and 5 only) neither the page nor the slide drawing has an overlap."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ledger.figures import figure_style, log_axis_labels, overlapping_labels, slide_figure

    figure_style()
    found = {}
    for fixed in (False, True):
        fig, ax = plt.subplots(figsize=(7, 3.6))
        ax.barh(["matmul", "fft_long", "fft_block", "block_product", "elementwise"], [60, 5.7, 5.6, 28, 4.1])
        ax.set_xscale("log")
        ax.set_xlabel("achieved rate, one thread (GFLOP/s, log scale)")
        if fixed:
            log_axis_labels(ax.xaxis)
        page = overlapping_labels(fig)
        found[fixed] = (page, slide_figure(fig, page_overlaps=len(page))["overlaps"])
        labels = [t.get_text() for t in ax.xaxis.get_ticklabels(which="both") if t.get_text()]
        plt.close(fig)
    assert any("3\\times10^{1}" in a and "4\\times10^{1}" in b for a, b in found[False][0]), found[False]
    assert found[True] == ([], [])
    assert {"10", "20", "50"} <= set(labels) and not any("times" in label for label in labels)


def test_slide_figure_enlarges_type_to_the_slide():
    """A 7 x 4.2 in figure at the book's style: its smallest type (8 pt legend) is under 18 px when
    fitted to the slide as drawn for the page; the slide drawing reaches 20 px without new overlaps."""
    import base64
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    from ledger.figures import SLIDE_FIGURE_BOX, figure_style, slide_figure

    figure_style()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot([1, 2, 3], label="a series")
    ax.legend()
    ax.set_xlabel("sequence length")
    slide = slide_figure(fig)
    width, height = Image.open(io.BytesIO(base64.b64decode(slide["png"]))).size
    shown = slide["min_font_px"] * min(SLIDE_FIGURE_BOX[0] / width, SLIDE_FIGURE_BOX[1] / height)
    assert shown >= 18, shown
    assert slide["overlaps"] == []
    plt.close(fig)


def test_slide_figure_raises_a_log_axis_exponents_to_the_slide():
    """Fourteen slide figures had log axes whose exponents ("10^-1", "2^12"), set by mathtext at 0.7
    of their label, showed 13 to 16 px on the slide while the figure recorded its labels' 20 px.
    Measured apart from slide_figure's own record, in an SVG of the slide drawing with its text kept
    as text (every font-size, superscripts included, scaled to the fitted size): the smallest glyph
    is at least 18 px and is what the drawing records. The page's drawing for paper
    (print_figure) keeps the nominal floor."""
    import base64
    import io
    import re

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    from ledger.figures import SLIDE_DPI, SLIDE_FIGURE_BOX, figure_style, slide_figure

    figure_style()
    fig, ax = plt.subplots(figsize=(7, 4.4))
    ax.loglog([0.1, 1e4], [0.3, 1e3])
    ax.set_xlabel("arithmetic intensity (FLOPs per byte)")
    ax.set_ylabel("attainable rate (TFLOP/s)")
    slide = slide_figure(fig)
    width, height = Image.open(io.BytesIO(base64.b64decode(slide["png"]))).size
    fit = min(SLIDE_FIGURE_BOX[0] / width, SLIDE_FIGURE_BOX[1] / height)
    svg = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(svg, format="svg", bbox_inches="tight", dpi=SLIDE_DPI)
    sizes = [float(v) for v in re.findall(r"font-size: ?([0-9.]+)px", svg.getvalue())]  # points: 72 a inch
    assert sizes and any(s < 0.75 * max(sizes) for s in sizes), "no exponent in the SVG: the test checks nothing"
    shown = min(sizes) * SLIDE_DPI / 72 * fit
    assert shown >= 18, f"the smallest glyph shows {shown:.1f} px on the slide"
    assert abs(min(sizes) * SLIDE_DPI / 72 - slide["min_font_px"]) < 0.05 * slide["min_font_px"]
    plt.close(fig)


def test_only_the_build_keeps_figures_for_the_slides(monkeypatch, tmp_path):
    """show() keeps the figure, pickled, when the executor names a store (TX_FIGURE_STORE) and not in a reader's
    kernel, where a slider's redraw then costs one drawing; the kept figure, unpickled, gives the records and the
    slide drawing `make slides` reads (figure_records), the same as the figure drawn in the kernel."""
    import pickle

    import matplotlib
    matplotlib.use("Agg")
    import IPython.display
    import matplotlib.pyplot as plt

    from ledger import figures

    def drawn():
        fig, ax = plt.subplots()
        ax.plot([0.1, 10], [1, 2], label="a line")
        ax.set_xscale("log")
        figures.log_axis_labels(ax.xaxis)  # its formatters pickle (module-level functions)
        ax.set_xlabel("tokens per step")
        return fig

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, metadata=None, raw=False: shown.append((data, metadata)))
    store = tmp_path / "kept"
    for wanted in (True, False):
        if wanted:
            monkeypatch.setenv(figures.FIGURE_STORE_ENV, str(store))
        else:
            monkeypatch.delenv(figures.FIGURE_STORE_ENV, raising=False)
        figures.show(drawn(), alt="A line rising from the origin, tokens per step against itself.")
    (kept_data, kept_meta), (plain_data, plain_meta) = shown[-2], shown[-1]
    assert "min_type_pt" in kept_meta["image/png"] and "min_type_pt" not in plain_meta["image/png"]
    assert kept_data["image/png"] == plain_data["image/png"]  # the page's figure is the same either way
    paths = list(store.glob("*.pickle"))
    assert [p.stem for p in paths] == [figures.figure_key(kept_data["image/png"])]
    kept = pickle.loads(paths[0].read_bytes())
    records = figures.figure_records(kept)
    assert records["overlaps"] == [] and records["legends"] == 0 and records["legend_over_bars"] == []
    in_kernel = drawn()
    figures.print_figure(in_kernel)
    assert figures.figure_records(in_kernel) == records  # the slide's pixels too: the pickle lost nothing
    plt.close(kept)
    plt.close(in_kernel)


def test_a_figure_that_cannot_be_kept_is_refused_with_the_reason(monkeypatch, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    from ledger import figures
    from ledger.errors import LedgerError

    monkeypatch.setenv(figures.FIGURE_STORE_ENV, str(tmp_path))
    fig, ax = plt.subplots()
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    with pytest.raises(LedgerError, match="cannot be kept for the slides"):
        figures.keep_figure(fig, "AAAA")
    plt.close(fig)


