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
