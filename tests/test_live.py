"""ledger.live: panels that redraw one figure in place draw what a fresh figure draws, at once or coalesced."""
from __future__ import annotations

import asyncio

import ipywidgets as w
import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

from ledger import LedgerError, explore, live  # noqa: E402
from ledger.explore import explorer  # noqa: E402


def _pixels(canvas) -> np.ndarray:
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


def test_the_text_cache_draws_the_pixels_a_plain_canvas_draws():
    """The second draw of a live figure takes its glyphs from the cache: the same pixels as Agg's own, for the
    explorer's figure (plain text, a log axis's mathtext exponents, a legend) after a change of its numbers."""
    def drawn(fig, **params):
        axes = explore.figure_axes(fig)
        explore.draw_figure(*axes, explore.step_row(**{**explore.DEFAULTS, **params}),
                            explore.phase_flops(**{**explore.DEFAULTS, **params}))

    fig = live.live_figure(explore.FIGSIZE)
    drawn(fig)
    live.panel_png(fig)
    live.freeze_layout(fig)
    live.clear_figure(fig)
    drawn(fig, seq_len=16384)
    cached = _pixels(fig.canvas)
    renderer = fig.canvas.get_renderer()
    assert renderer.kept, "the live canvas kept no text"
    FigureCanvasAgg(fig)  # the same figure on Agg's own canvas: every glyph rasterised again
    assert np.array_equal(cached, _pixels(fig.canvas))


def test_a_cleared_and_redrawn_panel_draws_the_pixels_of_a_fresh_figure():
    """clear_figure keeps the axes' Tick objects and their clip: after moves (a log axis, then linear, bars,
    a legend, texts), the redrawn figure has the pixels of a new figure with its axes at the same places,
    drawn once with Agg's own canvas."""
    panel = _panel()
    for name, value in [("log", True), ("scale", 6.0), ("label", "steps"), ("log", False), ("scale", 2.0)]:
        panel.controls[name].value = value
    moved = _pixels(panel.fig.canvas)

    from matplotlib.figure import Figure

    fresh = Figure(figsize=panel.fig.get_size_inches(), dpi=panel.fig.dpi)
    FigureCanvasAgg(fresh)
    ax = fresh.subplots()
    ax.set_position(panel.fig.axes[0].get_position())
    _chart(ax, **panel.values)
    assert np.array_equal(moved, _pixels(fresh.canvas))


MOVES = [("seq_len", 16384), ("variant", "transformer"), ("variant", "hybrid"), ("hybrid_attention_fraction", 0.75),
         ("modulator", "dmd-lee-dlpc410"), ("pixels", 10.0 ** 8), ("variant", "hyena2_circulant"), ("block", 16)]


def test_a_moved_explorer_draws_what_a_fresh_one_draws():
    """After moves through every kind of state (a model with no masks, a dropdown that sets two sliders), the
    panel's picture and numbers are those of a new panel set to the final settings in one jump and drawn once:
    nothing of an earlier move stays. (Both keep the layout of their first drawing, at the defaults.)"""
    box = explorer()
    for name, value in MOVES:
        box.controls[name].value = value
    fresh = explorer()
    fresh._syncing = True  # set every control (the modulator draws once, at its own change), then draw
    for name, c in fresh.controls.items():
        c.value = box.params[name]
    fresh._syncing = False
    fresh.refresh()
    assert box.redraw.draws == 1 + len(MOVES)
    assert box.params == fresh.params and box.error == ""
    assert box.numbers.value == fresh.numbers.value
    assert box.image.value == fresh.image.value


def _chart(ax, scale=1.0, label="tokens", log=False):
    """A chapter-like update: bars, a legend, a figure text and a suptitle, a log axis on request."""
    if scale <= 0:
        raise LedgerError(f"scale = {scale}: it is above 0")
    ax.barh(["forward", "dX", "dW"], [scale, 2 * scale, 3 * scale], label=label)
    ax.legend(loc="lower right")
    ax.set_xscale("log" if log else "linear")
    ax.set_xlabel(f"{label} ({scale:g})")
    ax.figure.suptitle(f"scale {scale:g}")
    ax.figure.text(0.01, 0.01, f"note {label}")
    return f"scale {scale:g}\n{label}"


def _panel(**start):
    return live.live_panel(_chart, figsize=(6, 3),
                           scale=w.FloatSlider(value=start.get("scale", 1.0), min=-1, max=8, step=0.5),
                           label=w.Dropdown(options=["tokens", "steps"], value=start.get("label", "tokens")),
                           log=w.Checkbox(value=start.get("log", False), description="log"))


def test_a_moved_panel_draws_what_a_fresh_one_draws():
    panel = _panel()
    for name, value in [("scale", 4.0), ("log", True), ("label", "steps"), ("scale", 2.5)]:
        panel.controls[name].value = value
    fresh = _panel()
    for c in fresh.controls.values():
        c.unobserve_all("value")
    fresh.controls["scale"].value, fresh.controls["label"].value, fresh.controls["log"].value = 2.5, "steps", True
    fresh.redraw.now()  # one jump from the first drawing's layout
    assert panel.values == fresh.values == {"scale": 2.5, "label": "steps", "log": True}
    assert panel.numbers.value == fresh.numbers.value == "<p style='margin:0.2em 0'>scale 2.5</p>" \
        "<p style='margin:0.2em 0'>steps</p>"
    assert panel.image.value == fresh.image.value
    assert len(panel.fig.texts) == 2  # the suptitle and this move's note, not every move's
    assert [len(t) for t in panel.timings] == [2] * 5 and all(s >= 0 for t in panel.timings for s in t)


def test_a_refused_move_keeps_the_last_figure_and_says_why():
    panel = _panel()
    shown = panel.image.value
    panel.controls["scale"].value = -1.0
    assert "Refused: scale = -1.0: it is above 0." in panel.numbers.value and "role='alert'" in panel.numbers.value
    assert panel.image.value == shown and panel.values["scale"] == 1.0
    panel.controls["scale"].value = 3.0
    assert panel.values["scale"] == 3.0 and "Refused" not in panel.numbers.value


def test_a_bug_fails_the_first_drawing_and_shows_later():
    def broken(ax, n=1):
        if n == 1:
            raise ZeroDivisionError("a bug")
        ax.plot([0, n])

    with pytest.raises(ZeroDivisionError):
        live.live_panel(broken, figsize=(3, 2), n=w.IntSlider(value=1, min=0, max=3))

    def later(ax, n=0):
        if n == 2:
            raise ZeroDivisionError("a later bug")
        ax.plot([0, n])

    panel = live.live_panel(later, figsize=(3, 2), n=w.IntSlider(value=0, min=0, max=3))
    panel.controls["n"].value = 2
    assert "ZeroDivisionError: a later bug" in panel.numbers.value


def test_moves_that_arrive_during_a_draw_are_drawn_once_at_their_latest_values():
    """In a running event loop (the kernel's), a burst of moves asks for one draw, after the burst, of the last
    values; outside one each move draws at once."""
    panel = _panel()
    before = panel.redraw.draws

    async def burst():
        for scale in (1.5, 2.0, 2.5, 3.0, 3.5):
            panel.controls["scale"].value = scale
        panel.controls["label"].value = "steps"
        assert panel.redraw.draws == before  # nothing drawn while the moves arrive
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    asyncio.run(burst())
    assert panel.redraw.draws == before + 1
    assert panel.values == {"scale": 3.5, "label": "steps", "log": False}
    panel.controls["scale"].value = 4.0  # no loop running: at once
    assert panel.redraw.draws == before + 2 and panel.values["scale"] == 4.0


def test_a_panel_without_a_figure_shows_numbers_and_tables():
    from ledger.figures import pipe_table

    def numbers(n=1):
        return [f"n = {n}", pipe_table("| a | b |\n|---|--:|\n| x | " + str(n) + " |")]

    panel = live.live_panel(numbers, n=w.IntSlider(value=1, min=0, max=3))
    assert panel.image is None and panel.fig is None
    panel.controls["n"].value = 3
    assert "n = 3" in panel.numbers.value and "<table" in panel.numbers.value and ">3<" in panel.numbers.value


def test_what_an_update_may_return_and_what_it_may_not():
    assert live.numbers_html(None) == ""
    assert live.numbers_html("a < b") == "<p style='margin:0.2em 0'>a &lt; b</p>"
    with pytest.raises(LedgerError, match="an update returned float: it returns text, an HTML table"):
        live.numbers_html(0.5)
    with pytest.raises(LedgerError, match="live_panel needs at least one control"):
        live.live_panel(lambda: "x")


def test_fit_controls_gives_every_label_its_full_width():
    controls = [w.FloatSlider(description="hybrid_attention_fraction"), w.Dropdown(options=["a"], description="v"),
                w.Checkbox(description="c")]
    live.fit_controls(controls)
    longest = len("hybrid_attention_fraction")
    for c in controls:
        assert c.style.description_width == f"{longest + 2}ch"
        assert (c.layout.width, c.layout.max_width) == ("auto", live.CONTROL_MAX_WIDTH)


def test_a_panel_png_holds_the_canvas_pixels():
    """png_bytes writes unfiltered rows in one zlib stream: Pillow reads back the canvas's RGB, for an odd width."""
    import io

    from PIL import Image

    fig = live.live_figure((3.1, 2))  # 279 pixels wide
    fig.subplots().plot([0, 1], [1, 0], label="a line")
    fig.legend()
    png = live.panel_png(fig)
    drawn = np.asarray(fig.canvas.buffer_rgba())[:, :, :3]
    assert drawn.shape[1] % 2 == 1
    read = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and np.array_equal(read, drawn)


def _bars_and_others(ax):
    """Patches of every kind a chapter adds: bars up, down, empty and on their side, a circle, an axvspan."""
    from matplotlib.patches import Circle

    ax.bar([0, 1, 2], [3.0, -1.5, 0.0], bottom=[0.5, 0.0, 2.0], width=0.7)
    ax.barh([4.0, 5.0], [2.5, 1e-3], left=[-1.0, 0.25])
    ax.add_patch(Circle((6.0, 7.0), 0.5))
    ax.axvspan(-3.0, -2.0)


def test_the_short_way_to_a_bars_limits_gives_matplotlibs_numbers():
    """quick_rectangle_limits: the same data limits, to the bit, as Axes._update_patch_limits, bars or not."""
    from matplotlib.figure import Figure

    general, quick = Figure().subplots(), live.live_figure((4, 3)).subplots()
    _bars_and_others(general)
    with live.quick_rectangle_limits(quick.figure):
        _bars_and_others(quick)
    assert "_update_patch_limits" not in vars(quick)  # the method again after the with
    assert np.array_equal(general.dataLim.get_points(), quick.dataLim.get_points())
    assert general.get_xlim() == quick.get_xlim() and general.get_ylim() == quick.get_ylim()


def _stacked(scale=1.0):
    """Two stacked series of bars whose heights follow `scale`."""
    return [scale, 2 * scale, 0.5 * scale], [1.0, scale, 3.0]


def test_kept_axes_restacked_in_place_draw_the_pixels_of_new_bars():
    """Axes that `keep` marks are not cleared: bars made once and set again (set_bars), a figure legend kept,
    draw the pixels of the same bars made anew at the final values, with the axes at the same places."""
    from matplotlib.figure import Figure
    from matplotlib.transforms import IdentityTransform

    def draw(ax, scale):
        low, high = _stacked(scale)
        bottom = ax.bar(range(3), low, color="C0", label="low")
        top = ax.bar(range(3), high, bottom=low, color="C1", label="high")
        ax.set_ylim(0, 1.1 * max(a + b for a, b in zip(low, high)))
        return bottom, top

    def axes(fig):
        made = {"curve": fig.add_subplot(1, 2, 1), "bars": fig.add_subplot(1, 2, 2)}
        made["drawn"] = draw(made["bars"], 1.0)
        fig.legend(loc="outside lower center", ncols=2)
        live.keep(made["bars"], *fig.legends)
        return made

    def update(made, scale=1.0):
        made["curve"].plot([0, 1, 2], [0, scale, 4 * scale])
        low, high = _stacked(scale)
        live.set_bars(made["drawn"][0], low)
        live.set_bars(made["drawn"][1], high, low)
        made["bars"].set_ylim(0, 1.1 * max(a + b for a, b in zip(low, high)))

    panel = live.live_panel(update, figsize=(6, 3), axes=axes, scale=w.FloatSlider(value=1.0, min=0.5, max=2.0))
    kept = panel.fig.axes[1].patches[0]
    for scale in (1.5, 0.75, 1.25):
        panel.controls["scale"].value = scale
    assert panel.fig.axes[1].patches[0] is kept and len(panel.fig.axes[1].patches) == 6 and len(panel.fig.legends) == 1
    moved = _pixels(panel.fig.canvas)

    fresh = Figure(figsize=panel.fig.get_size_inches(), dpi=panel.fig.dpi)
    FigureCanvasAgg(fresh)
    curve, bars = fresh.add_subplot(1, 2, 1), fresh.add_subplot(1, 2, 2)
    for new, old in zip((curve, bars), panel.fig.axes):
        new.set_position(old.get_position())
    draw(bars, 1.25)
    curve.plot([0, 1, 2], [0, 1.25, 5.0])
    legend = fresh.legend(loc="outside lower center", ncols=2)
    legend.set_bbox_to_anchor(panel.fig.legends[0].get_bbox_to_anchor().frozen(), transform=IdentityTransform())
    assert np.array_equal(moved, _pixels(fresh.canvas))
    with pytest.raises(LedgerError, match="set_bars: 3 bars, 2 heights and 3 bottoms: one of each per bar"):
        live.set_bars(panel.fig.axes[1].containers[0], [1.0, 2.0])


def _reach(fig) -> list[float]:
    """How far past each edge of `fig` (left, bottom, right, top; pixels) its last drawing's texts reach."""
    return live._overreach(fig)[0]


def test_a_move_whose_labels_outgrow_the_layout_lays_the_figure_out_again():
    """A tick label that widens past the figure's edge (1 to 10 million on a linear axis) or pushes the next
    axes' label into it: the layout is solved again at that move, once, and every text is inside the figure;
    going back and forth between the two does not solve it again."""
    def update(axes, scale=1.0):
        left, right = axes
        left.plot([0, 1], [0, scale])
        left.ticklabel_format(axis="y", style="plain", useOffset=False)  # 10000000, not 1e7 above the axis
        left.set_ylabel("a label left of wide ticks")
        right.plot([0, 1], [scale, 0])
        right.set_ylabel("the right one")

    panel = live.live_panel(update, figsize=(6, 3), axes=lambda fig: fig.subplots(1, 2),
                            scale=w.FloatSlider(value=1.0, min=1.0, max=1e7))
    assert panel.fig.canvas.layouts == 1
    placed = [ax.get_position().bounds for ax in panel.fig.axes]
    panel.controls["scale"].value = 1e7
    assert panel.fig.canvas.layouts == 2
    assert max(_reach(panel.fig)) <= live.REACH_TOLERANCE_PX
    assert live._overreach(panel.fig)[1] == set()  # no text of one axes inside the other's area
    assert [ax.get_position().bounds for ax in panel.fig.axes] != placed
    for scale in (1.0, 1e7, 2.0, 9e6):
        panel.controls["scale"].value = scale
    assert panel.fig.canvas.layouts == 2 and max(_reach(panel.fig)) <= live.REACH_TOLERANCE_PX


def test_frozen_axes_would_cut_that_label_off():
    """The case above is one a frozen layout gets wrong: drawn at 10 million without laying it out again, the
    left axes' label reaches past the figure's left edge (what the check in draw_panel looks for)."""
    fig = live.live_figure((6, 3))
    left, right = fig.subplots(1, 2)
    left.set_ylabel("a label left of wide ticks")
    left.ticklabel_format(axis="y", style="plain", useOffset=False)
    live.draw_panel(fig)
    left.plot([0, 1], [0, 1e7])
    live.panel_png(fig)
    assert _reach(fig)[0] > live.REACH_TOLERANCE_PX and live.outgrown(fig)


def test_the_text_cache_draws_slanted_labels_and_mathtext_as_agg_does():
    """Rotated tick labels anchored at their end, a log axis's mathtext exponents and a fraction (drawn in part
    as a path, so not kept): the live canvas's second draw has Agg's own pixels."""
    fig = live.live_figure((5, 3))
    ax = fig.subplots()
    ax.bar(range(4), [1, 10, 100, 1000])
    ax.set_yscale("log")
    ax.set_xticks(range(4), ["Transformer, forward", "Hyena-2, backward", "Hybrid", "Circulant"], rotation=40,
                  ha="right", rotation_mode="anchor")
    ax.set_title(r"$\frac{6N}{2}$ and $2^{10}$")
    live.draw_panel(fig)  # laid out, then fixed
    cached = _pixels(fig.canvas)
    assert fig.canvas.get_renderer().kept
    FigureCanvasAgg(fig)
    assert np.array_equal(cached, _pixels(fig.canvas))
