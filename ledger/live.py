"""Live panels: a chapter's sliders, and the explorer's, redraw one figure in place as fast as a hand moves them.

    from ledger.live import live_panel

    def update(ax, seq_len=4096):        # draws into the panel's axes; returns the numbers to show
        draw_phases(ax, seq_len)
        return f"{ledger.step_row(seq_len=seq_len).step_share:.2%} of the step"

    live_panel(update, figsize=(8, 4), seq_len=widgets.SelectionSlider(options=[2048, 4096], value=4096))

Why not ``ipywidgets.interactive`` with ``plt.show()``: each move there builds a new figure, solves its
constrained layout, draws it twice (once for the tight bounding box) and writes a PNG, about 330 ms a move
on a 2-core machine, three frames a second. A live panel makes its figure and axes once, lets the layout
engine place them at the first drawing, and then on each move clears the axes' contents and draws them again
into the same places, once, at PANEL_DPI or, for a figure wider than 10 inches, the resolution that makes it
PANEL_MAX_WIDTH_PX wide (`draw_panel`). A text that did not change keeps its glyphs from the
draw before (`_TextCache`); a bar finds its data limits the short way (`quick_rectangle_limits`); axes that a
panel `keep`s are not cleared at all, their bars restacked in place (`set_bars`); the PNG's rows are written
unfiltered at zlib level 1 (`png_bytes`). When a move's texts outgrow the places (a tick label widened past
the figure's edge, a label pushed into the next axes: `outgrown`), the layout is solved again for that move
(`relayout`), so no label is cut off. Moves that arrive while a draw runs are coalesced (`Redraw`): the next
draw shows the latest values, not a queue. `make bench` (benchmarks/panels.py) times every control of every
panel. The page's figures (ledger.figures.show) are not drawn this way; they stay as the book prints them.
ipywidgets and matplotlib are imported inside the functions that need them, so `import ledger` never
pulls them in.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import struct
import time
import traceback
import weakref
import zlib
from collections.abc import Callable
from typing import Any

from .errors import LedgerError

PANEL_DPI = 90
"""Dots per inch of a live panel's figure: a 10-inch figure is 900 pixels wide, the width of a notebook cell."""

PANEL_MAX_WIDTH_PX = 900
"""Widest a panel's PNG is drawn: a wider figure (chapters 07 and 08's 11 inches) is drawn at a lower resolution
to this width (82 dots per inch there), the pixels a notebook cell about shows it in (the image fits the cell's
width), not 990 scaled down. A panel much wider than 10 inches would have small type: keep panels near 10."""

PNG_COMPRESS_LEVEL = 1
"""zlib level of a panel's PNG (`png_bytes`): about 6.5 ms for chapter 05's 900 x 684 panel at its defaults and
94 kB, where Pillow takes 13 ms at this level (it tries five filters on every row) for 86 kB and 18 ms at its
default (6) for 87 kB: a tenth more bytes, which travel to the browser on the same machine or network."""

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
            self.extents: dict[tuple, tuple] = {}
            self.texts: list[tuple] = []  # (axes or None, (x0, y0, x1, y1) in pixels) of each text this draw
            self.axes = None  # the axes being drawn (None: the figure's own artists)

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
            self._note_extent(key, mtext)
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

        def _note_extent(self, key, mtext) -> None:
            """Note where a text drawn now reaches (its window extent, laid out once per text and place), for
            `outgrown`; a text clipped to a box is left out (it cannot reach past it)."""
            if mtext is None or mtext.get_clip_on() and (mtext.get_clip_box() or mtext.get_clip_path()):
                return
            extent = self.extents.get(key)
            if extent is None:
                if len(self.extents) >= TEXT_CACHE_SIZE:
                    self.extents.clear()
                extent = self.extents[key] = tuple(mtext.get_window_extent(self).extents)
            self.texts.append((self.axes, extent))

    class LiveCanvas(FigureCanvasAgg):
        """The Agg canvas of a live figure: its renderer keeps texts (`_TextCache`) and notes, for each text
        drawn, the axes it belongs to and where it reaches; `layouts` counts the layouts solved (`draw_panel`)."""

        layouts = 0
        allowed = None  # what the last layout left (`outgrown`)

        def get_renderer(self):
            w, h = self.get_width_height(physical=True)
            key = w, h, self.figure.dpi
            if self._lastKey != key:
                self.renderer = _TextCache(w, h, self.figure.dpi)
                self._lastKey = key
            return self.renderer

        def draw(self):
            renderer = self.get_renderer()
            renderer.texts = []
            axes = list(self.figure.axes)
            for ax in axes:  # the instance's attribute, over the method: the texts drawn know their axes
                ax.draw = functools.partial(_draw_noting_axes, ax, renderer)
            try:
                super().draw()
            finally:
                for ax in axes:
                    del ax.draw

    return LiveCanvas


def _draw_noting_axes(ax, renderer, *args, **kwargs):
    """Draw `ax` with the renderer told that the texts drawn meanwhile are its own."""
    renderer.axes = ax
    try:
        return type(ax).draw(ax, *args, **kwargs)
    finally:
        renderer.axes = None


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


def png_bytes(rgba) -> bytes:
    """An RGBA image (a height x width x 4 uint8 array) as an RGB PNG: every row unfiltered (filter type 0) and
    the rows deflated at PNG_COMPRESS_LEVEL in one zlib stream. Pillow's encoder chooses a filter for each row
    by trying all five, half of its 13 ms on a 900 x 684 panel; a plot's flat colours compress well without."""
    import numpy as np

    height, width = rgba.shape[:2]
    rows = np.empty((height, 1 + 3 * width), dtype=np.uint8)
    rows[:, 0] = 0  # each row's filter type: none
    rows[:, 1:].reshape(height, width, 3)[...] = rgba[:, :, :3]

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits a channel, RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows, PNG_COMPRESS_LEVEL)) + chunk(b"IEND", b""))


def panel_png(fig) -> bytes:
    """`fig` drawn once on its canvas, as PNG bytes at the figure's own resolution (`png_bytes`)."""
    import numpy as np

    canvas = fig.canvas
    canvas.draw()
    return png_bytes(np.asarray(canvas.buffer_rgba()))


_KEPT: weakref.WeakSet = weakref.WeakSet()
"""What `keep` marked: axes, figure legends and figure texts that clear_figure leaves as they are."""


def keep(*artists) -> None:
    """Leave these axes, figure legends or figure texts alone when a panel clears its figure for a move: the
    panel's update changes them in place (bars restacked with `set_bars`, texts set, limits set), which costs
    a few milliseconds where making them again cost a quarter of a move. Axes made once keep their ticks,
    labels and legend; what the update sets on them must be all that a move changes."""
    _KEPT.update(artists)


def set_bars(bars, heights, bottoms=None) -> None:
    """Give each bar of a BarContainer (what Axes.bar returns) a new height and, with `bottoms`, a new base, in
    data units: the rectangles Axes.bar would make for these values, in place. Its axes' data limits stay as
    they were: the caller sets the limits it needs."""
    bottoms = [0.0] * len(bars) if bottoms is None else bottoms
    if not len(heights) == len(bottoms) == len(bars):
        raise LedgerError(f"set_bars: {len(bars)} bars, {len(heights)} heights and {len(bottoms)} bottoms: "
                          "one of each per bar")
    for bar, height, bottom in zip(bars, heights, bottoms):
        bar.set_y(bottom)
        bar.set_height(height)


REACH_TOLERANCE_PX = 1.0
"""How far past the figure's edge, or into another axes, a text may reach before a panel lays its figure out again."""


def _overreach(fig) -> tuple[list[float], set]:
    """Where the texts of the last drawing of `fig` reach past its edges (pixels past the left, bottom, right and
    top edge, 0 where none does) and which (axes, other axes) pairs have a text of the first inside the second's
    plotting area."""
    renderer = fig.canvas.get_renderer()
    width, height = renderer.width, renderer.height
    past = [0.0, 0.0, 0.0, 0.0]
    areas = {ax: ax.bbox.extents for ax in fig.axes if ax.get_visible()}
    into = set()
    for owner, box in renderer.texts:
        x0, y0, x1, y1 = box
        for side, overshoot in enumerate((-x0, -y0, x1 - width, y1 - height)):
            past[side] = max(past[side], overshoot)
        if owner not in areas:
            continue
        for other, area in areas.items():  # another axes' plotting area, where it does not overlap the owner's
            if other is not owner and not _overlap(areas[owner], area, 0.0) and _overlap(box, area, REACH_TOLERANCE_PX):
                into.add((owner, other))
    return past, into


def _overlap(a, b, by: float) -> bool:
    """True when boxes `a` and `b` (x0, y0, x1, y1) share more than `by` pixels each way."""
    return min(a[2], b[2]) - max(a[0], b[0]) > by and min(a[3], b[3]) - max(a[1], b[1]) > by


def outgrown(fig) -> bool:
    """True when a text of the last drawing of `fig` reaches further past an edge of the figure, or into an axes
    it was not in, than at the last layout: the places the layout gave the axes no longer hold their labels."""
    allowed = fig.canvas.allowed
    if allowed is None:
        return False
    past, into = _overreach(fig)
    allowed_past, allowed_into = allowed
    return (any(p > max(a, 0.0) + REACH_TOLERANCE_PX for p, a in zip(past, allowed_past))
            or not into <= allowed_into)


def relayout(fig) -> None:
    """Solve the layout of `fig` for its texts now, then put each axes where both the last layout and this one
    have room for it (the overlap of the two places): the figure makes room for what this move needs without
    giving back what an earlier move needed, so a panel does not change its layout back and forth as a
    slider goes to and fro. Solved, not drawn; the axes are fixed again (`freeze_layout`)."""
    from matplotlib.transforms import Bbox

    was = {ax: ax.get_position(original=True).frozen() for ax in fig.axes}
    fig.set_layout_engine("constrained")
    fig.get_layout_engine().execute(fig)
    for ax, before in was.items():
        now = ax.get_position(original=True)
        x0, y0, x1, y1 = max(before.x0, now.x0), max(before.y0, now.y0), min(before.x1, now.x1), min(before.y1, now.y1)
        if x1 > x0 and y1 > y0:
            ax._set_position(Bbox([[x0, y0], [x1, y1]]), which="both")
    freeze_layout(fig)


def draw_panel(fig) -> bytes:
    """Draw a live figure for a move and return its PNG (`panel_png`). At the first drawing the layout engine
    places the axes; later the axes stay there (`freeze_layout`) unless the move's texts outgrow them
    (`outgrown`: a tick label widened past the edge, a label pushed into the next axes): then the layout is
    solved again (`relayout`) and the figure drawn once more. Each layout is counted on the canvas (`layouts`)."""
    engine = fig.get_layout_engine()
    first = engine is not None and not isinstance(engine, _placeholder_class())
    png = panel_png(fig)
    if first:
        freeze_layout(fig)
    elif outgrown(fig):
        relayout(fig)
        png = panel_png(fig)
    else:
        return png
    fig.canvas.layouts += 1
    fig.canvas.allowed = _overreach(fig)
    return png


@functools.cache
def _placeholder_class():
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    return PlaceHolderLayoutEngine


def _keep_ticks() -> None:
    """Stands in for Axis.reset_ticks while a panel's axes are cleared (`clear_figure`)."""


def _keep_clip(*_args, **_kwargs) -> None:
    """Stands in for Axis.set_clip_path while a panel's axes are cleared (`clear_figure`)."""


def clear_figure(fig) -> None:
    """Empty every axes of `fig` as ax.clear does (artists, scales, locators, labels, limits, units; but not the
    tick parameters: what an update sets with tick_params stays for the next move, so an update that sets them
    sets them on every move, as no chapter's panel does conditionally) and drop the
    figure's own legends and texts (a suptitle emptied), keeping the axes and their places, and leaving what
    `keep` marked as it is: what a move draws again. The axes keep their Tick objects (Axis.reset_ticks does
    nothing meanwhile), and the ticks keep their clip to the axes' rectangle (Axis.set_clip_path does nothing:
    the cleared axes' new background patch is the same unit rectangle in the same axes coordinates): made again,
    or clipped again one by one, they were a third to a half of a move's time. The ticks drawn are still those
    the new locators place, labelled by the new formatters (tests/test_live.py: the pixels of a new figure
    with its axes at the same places)."""
    for ax in fig.axes:
        if ax in _KEPT:
            continue
        axes = (ax.xaxis, ax.yaxis)
        for axis in axes:  # the instance's attributes, over the methods
            axis.reset_ticks, axis.set_clip_path = _keep_ticks, _keep_clip
        try:
            ax.clear()
        finally:
            for axis in axes:
                del axis.reset_ticks, axis.set_clip_path
    for legend in list(fig.legends):
        if legend not in _KEPT:
            legend.remove()
    titles = [t for t in (getattr(fig, name, None) for name in ("_suptitle", "_supxlabel", "_supylabel")) if t]
    for text in list(fig.texts):
        if text in _KEPT:
            continue
        if text in titles:  # fig.suptitle sets the text it made before: emptied, not removed
            text.set_text("")
        else:
            text.remove()


@functools.cache
def _unit_square():
    import numpy as np

    return np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])


def _rectangle_limits(ax, general: Callable[[Any], None]) -> Callable[[Any], None]:
    """Axes._update_patch_limits for `ax`, short for a bar: a plain Rectangle in data coordinates on rectilinear
    axes extends the data limits by its four corners, mapped by its own patch transform, which are the points
    matplotlib 3.11 gets there by splitting the unit square's path into Bezier segments, finding their extrema
    and subtracting the data transform from the patch's (the same numbers: tests/test_live.py); any other patch
    goes the general way. A bar was about a quarter of millisecond of a move that draws 56 of them."""
    from matplotlib.artist import Artist
    from matplotlib.patches import Rectangle

    def update(patch) -> None:
        if type(patch) is not Rectangle or ax.name != "rectilinear" or Artist.get_transform(patch) is not ax.transData:
            general(patch)
        elif patch.get_width() or patch.get_height():  # as matplotlib: an empty bar keeps out of the limits
            ax.update_datalim(patch.get_patch_transform().transform(_unit_square()))

    return update


@contextlib.contextmanager
def quick_rectangle_limits(fig):
    """While `with`-ed, the axes of `fig` find a new bar's data limits the short way (`_rectangle_limits`)."""
    axes = list(fig.axes)
    for ax in axes:  # the instance's attribute, over the method
        ax._update_patch_limits = _rectangle_limits(ax, ax._update_patch_limits)
    try:
        yield
    finally:
        for ax in axes:
            del ax._update_patch_limits


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
    numbers (`numbers_html`); before each move's update the figure is cleared (`clear_figure`) but for what
    `axes(fig)` marked with `keep`, which the update changes in place. Without `figsize` the panel has no
    figure and `update(**values)` returns the numbers only. A LedgerError from `update` shows as a one-line refusal and the last figure stays.
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
                with quick_rectangle_limits(fig):
                    shown = update(made, **values)
            updated = time.perf_counter()
            if fig is not None:
                png = draw_panel(fig)
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
