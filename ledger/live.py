"""Live panels: a chapter's sliders, and the explorer's, redraw one figure in place as fast as a hand moves them.

    from ledger.live import live_panel

    def update(ax, seq_len=4096):        # draws into the panel's axes; returns the numbers to show
        draw_phases(ax, seq_len)
        return f"{ledger.step_row(seq_len=seq_len).step_share:.2%} of the step"

    live_panel(update, figsize=(8, 4), seq_len=widgets.SelectionSlider(options=[2048, 4096], value=4096))

Why not ``ipywidgets.interactive`` with ``plt.show()``: each move there builds a new figure, solves its
constrained layout, draws it twice (once for the tight bounding box) and writes an optimised PNG, about
330 ms a move on a 2-core machine, three frames a second. A live panel makes its figure and axes once,
lets the layout engine place them at the first drawing only, and then on each move clears the axes'
contents and draws them again into the same places, once, at PANEL_DPI; a text that did not change
keeps its glyphs from the draw before (`_TextCache`) and the PNG is written at zlib level 1, unoptimised.
Moves that arrive while a draw runs are coalesced (`Redraw`): the next draw shows the latest values, not a
queue. The page's figures (ledger.figures.show) are not drawn this way; they stay as the book prints them.
ipywidgets and matplotlib are imported inside the functions that need them, so `import ledger` never
pulls them in.
"""
from __future__ import annotations

import asyncio
import functools
import html
import io
import time
import traceback
import weakref
from collections.abc import Callable
from typing import Any

from .errors import LedgerError

PANEL_DPI = 90
"""Dots per inch of a live panel's figure: a 10-inch figure is 900 pixels wide, the width of a notebook cell."""

PANEL_MAX_WIDTH_PX = 900
"""Widest a panel's PNG is drawn: a wider figure (chapter 04's 16 inches) is drawn at a lower resolution to this
width, the pixels a notebook cell shows it in anyway (the image fits the cell's width), not 1,440 scaled down."""

PNG_COMPRESS_LEVEL = 1
"""zlib level of a panel's PNG: a few milliseconds for a 900 x 700 figure, where matplotlib's default (6)
takes 40 to 50 and `optimize` longer; the bytes travel to the browser on the same machine or network."""

CONTROL_MAX_WIDTH = "40rem"
"""A chapter's slider fills its cell up to this width, so the track stays long enough to aim."""

PANELS: list = []
"""Weak references to the panels made in this process, newest last: benchmarks/panels.py times a chapter's
panel through them."""

TEXT_CACHE_SIZE = 4096
"""Texts whose glyphs a panel keeps between draws; past this the cache starts again."""


def fit_controls(controls) -> None:
    """Lay out a panel's controls for narrow windows: one shared label width, in `ch` (character widths) of
    the longest description, so labels show in full and the tracks line up; each control fills the cell up
    to CONTROL_MAX_WIDTH and shrinks with the window instead of being cut off."""
    controls = list(controls)
    longest = max((len(c.description) for c in controls), default=0)
    for c in controls:
        c.style.description_width = f"{longest + 2}ch"
        c.layout.width = "auto"  # stretch to the cell's width (less the margins) ...
        c.layout.max_width = CONTROL_MAX_WIDTH  # ... up to this


@functools.cache
def _canvas_class():
    """FigureCanvasAgg whose renderer keeps each text's glyph images between draws (`_TextCache`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg

    class _Recorder:
        """Stands in for the Agg renderer's C core while one text is drawn, keeping the glyph images it is
        given; any other call (a mathtext fraction's rule, drawn as a path) marks the text as not kept."""

        def __init__(self, core):
            self.core, self.images, self.other = core, [], False

        def draw_text_image(self, image, x, y, angle, gc):
            self.images.append((image.copy(), x, y, angle))
            self.core.draw_text_image(image, x, y, angle, gc)

        def __getattr__(self, name):
            self.other = True
            return getattr(self.core, name)

    class _TextCache(RendererAgg):
        """RendererAgg that draws a text it drew before at the same place, size, font and angle from the glyph
        images it kept, without laying it out or rasterising it again: the same pixels (tests/test_live.py),
        a third to a half of a panel's draw saved. matplotlib 3.11's RendererAgg.draw_text rasterises each
        glyph and hands it to its core's draw_text_image; the colour comes from `gc` each time."""

        def __init__(self, width, height, dpi):
            super().__init__(width, height, dpi)
            self.kept: dict[tuple, list] = {}
            self.heights: dict[tuple, tuple] = {}

        def _get_font_height_metrics(self, prop):
            """A font's (ascent, descent, line gap) in pixels, which Text._get_layout asks of a renderer that has
            this method (else it opens the font and reads its tables for every text, every draw): computed as
            matplotlib 3.11's Text._get_layout computes them, once per font, size and resolution."""
            key = (hash(prop), self.dpi)
            found = self.heights.get(key)
            if found is None:
                from matplotlib.font_manager import fontManager, get_font

                found = (None, None, None)
                font = get_font(fontManager._find_fonts_by_props(prop))
                for table_name, gap_key, ascent_key, descent_key in (
                        ("OS/2", "sTypoLineGap", "sTypoAscender", "sTypoDescender"),
                        ("hhea", "lineGap", "ascent", "descent")):
                    table = font.get_sfnt_table(table_name)
                    if table is None:
                        continue
                    scale = 1 / font.get_sfnt_table("head")["unitsPerEm"] * prop.get_size_in_points() * self.dpi / 72
                    found = (table[ascent_key] * scale, -table[descent_key] * scale, table[gap_key] * scale)
                    break
                self.heights[key] = found
            return found

        def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
            features = (mtext.get_fontfeatures(), mtext.get_language()) if mtext is not None else None
            key = (s, x, y, angle, ismath, hash(prop), gc.get_antialiased(), features)
            images = self.kept.get(key)
            if images is not None:
                for image, gx, gy, gangle in images:
                    self._renderer.draw_text_image(image, gx, gy, gangle, gc)
                return
            recorder = _Recorder(self._renderer)
            self._renderer = recorder
            try:
                super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
            finally:
                self._renderer = recorder.core
            if not recorder.other:
                if len(self.kept) >= TEXT_CACHE_SIZE:
                    self.kept.clear()
                self.kept[key] = recorder.images

    class LiveCanvas(FigureCanvasAgg):
        def get_renderer(self):
            w, h = self.get_width_height(physical=True)
            key = w, h, self.figure.dpi
            if self._lastKey != key:
                self.renderer = _TextCache(w, h, self.figure.dpi)
                self._lastKey = key
            return self.renderer

    return LiveCanvas


def live_figure(figsize: tuple[float, float], dpi: float = PANEL_DPI):
    """A Figure for a live panel: constrained layout for its first drawing, the text-keeping Agg canvas, `dpi`
    or less, so that it is at most PANEL_MAX_WIDTH_PX wide."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=min(dpi, PANEL_MAX_WIDTH_PX / figsize[0]), layout="constrained")
    _canvas_class()(fig)
    return fig


def freeze_layout(fig) -> None:
    """Keep the axes where the layout engine put them at the last drawing: later draws solve no layout."""
    fig.set_layout_engine("none")


def panel_png(fig) -> bytes:
    """`fig` drawn once on its canvas, as PNG bytes at the figure's own resolution (PNG_COMPRESS_LEVEL)."""
    from PIL import Image

    canvas = fig.canvas
    canvas.draw()
    image = Image.frombuffer("RGBA", canvas.get_width_height(physical=True), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    out = io.BytesIO()
    image.convert("RGB").save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


def _keep_ticks() -> None:
    """Stands in for Axis.reset_ticks while a panel's axes are cleared (`clear_figure`)."""


def _keep_clip(*_args, **_kwargs) -> None:
    """Stands in for Axis.set_clip_path while a panel's axes are cleared (`clear_figure`)."""


def clear_figure(fig) -> None:
    """Empty every axes of `fig` as ax.clear does (artists, scales, locators, labels, limits, units) and drop the
    figure's own legends and texts (a suptitle emptied), keeping the axes and their places: what a move draws
    again. The axes keep their Tick objects (Axis.reset_ticks does nothing meanwhile), and the ticks keep their
    clip to the axes' rectangle (Axis.set_clip_path does nothing: the cleared axes' new background patch is the
    same unit rectangle in the same axes coordinates): made again, or clipped again one by one, they were a
    third to a half of a move's time. The ticks drawn are still those the new locators place, labelled by the
    new formatters (tests/test_live.py: the pixels of a fresh figure)."""
    for ax in fig.axes:
        axes = (ax.xaxis, ax.yaxis)
        for axis in axes:  # the instance's attributes, over the methods
            axis.reset_ticks, axis.set_clip_path = _keep_ticks, _keep_clip
        try:
            ax.clear()
        finally:
            for axis in axes:
                del axis.reset_ticks, axis.set_clip_path
    for legend in list(fig.legends):
        legend.remove()
    titles = [t for t in (getattr(fig, name, None) for name in ("_suptitle", "_supxlabel", "_supylabel")) if t]
    for text in list(fig.texts):
        if text in titles:  # fig.suptitle sets the text it made before: emptied, not removed
            text.set_text("")
        else:
            text.remove()


class Redraw:
    """Draw at most once for a burst of moves: `request()` asks for a draw; inside a running event loop (the
    Jupyter kernel's) the draw is put after the messages already waiting, so moves that arrived while the last
    draw ran are applied first and drawn once, at their latest values; outside one it draws at once.
    (ipywidgets' front end also holds back a control's changes while one of its messages is unanswered.)"""

    def __init__(self, draw: Callable[[], None]):
        self.draw, self.wanted, self.scheduled, self.draws = draw, False, False, 0

    def request(self, *_: Any) -> None:
        self.wanted = True
        if self.scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.run()
            return
        self.scheduled = True
        loop.call_soon(self.run)

    def run(self) -> None:
        self.scheduled = False
        if self.wanted:
            self.now()

    def now(self) -> None:
        """Draw at once (a cell that sets a control and reads the panel in the same cell calls this)."""
        self.wanted = False
        self.draws += 1
        self.draw()


def numbers_html(shown: Any) -> str:
    """What an update returns, as HTML: a str is text (escaped, one paragraph per line), an object with
    `_repr_html_` (ledger.figures.html_table) its HTML, a tuple or list each part in turn, None nothing."""
    if shown is None:
        return ""
    if isinstance(shown, (list, tuple)):
        return "".join(numbers_html(part) for part in shown)
    if hasattr(shown, "_repr_html_"):
        return shown._repr_html_()
    if isinstance(shown, str):
        return "".join(f"<p style='margin:0.2em 0'>{html.escape(line)}</p>" for line in shown.splitlines())
    raise LedgerError(f"an update returned {type(shown).__name__}: it returns text, an HTML table, a list of them "
                      "or None")


def live_panel(update: Callable[..., Any], figsize: tuple[float, float] | None = None,
               axes: Callable[[Any], Any] | None = None, **controls: Any):
    """A panel of `controls` (name -> ipywidgets control) over one figure and the numbers `update` returns.

    `update(axes, **values)` draws into `axes` (what `axes(fig)` made once, default one Axes) and returns the
    numbers (`numbers_html`); without `figsize` the panel has no figure and `update(**values)` returns the
    numbers only. A LedgerError from `update` shows as a one-line refusal and the last figure stays.
    Returns a VBox with ``controls``, ``numbers``, ``image`` (None without a figure), ``redraw`` (its Redraw:
    a move asks it for a draw, coalesced; ``redraw.now()`` draws at once), ``fig``, ``values`` (the last
    values drawn) and ``timings`` (seconds in `update` and in the drawing, per draw).
    """
    import ipywidgets as w

    if not controls:
        raise LedgerError("live_panel needs at least one control (name=widget)")
    for name, c in controls.items():
        if not c.description:  # the keyword names the control, as ipywidgets.interactive names it
            c.description = name
    fit_controls(controls.values())
    numbers = w.HTML(layout=w.Layout(width="100%"))
    fig = made = image = None
    if figsize is not None:
        fig = live_figure(figsize)
        made = axes(fig) if axes is not None else fig.subplots()
        image = w.Image(format="png", layout=w.Layout(max_width="100%", height="auto"))
    box = w.VBox([*controls.values(), *([image] if image is not None else []), numbers],
                 layout=w.Layout(width="100%"))
    box.controls, box.numbers, box.image, box.fig, box.values = controls, numbers, image, fig, None
    box.timings = []  # (seconds in `update`, seconds drawing and writing the PNG) of each draw

    def draw() -> None:
        values = {name: c.value for name, c in controls.items()}
        try:
            started = time.perf_counter()
            if fig is None:
                shown = update(**values)
            else:
                if box.values is not None:
                    clear_figure(fig)
                shown = update(made, **values)
            updated = time.perf_counter()
            if fig is not None:
                png = panel_png(fig)
                freeze_layout(fig)  # placed once, at the first drawing
            box.timings.append((updated - started, time.perf_counter() - updated))
        except LedgerError as err:
            numbers.value = (f"<p role='alert' style='color:#b00020;font-weight:600'>Refused: {html.escape(str(err))}."
                             " Showing the last valid settings.</p>")
            return
        except Exception:  # a bug: the first drawing fails its cell; later, show it where the reader looks
            if box.values is None:
                raise
            numbers.value = f"<pre style='color:#b00020'>{html.escape(traceback.format_exc())}</pre>"
            return
        box.values = values
        if image is not None:
            image.value = png
        numbers.value = numbers_html(shown)

    box.redraw = Redraw(draw)
    for c in controls.values():
        c.observe(box.redraw.request, names="value")
    box.redraw.now()  # the first drawing: at once, so that the cell's output holds it
    PANELS.append(weakref.ref(box))
    return box
