"""How the book shows results: one colour-blind-safe palette, one figure style, HTML tables, figures with alt text.

Every chapter imports these instead of keeping its own copy:

    from ledger.figures import CLASS_COLORS, PHASE_COLORS, PALETTE, figure_style, html_table, show, show_table
    figure_style()                                   # once, in the imports cell
    fig, ax = plt.subplots(...); ...
    show(fig, alt="Stacked bars: ... (what the figure shows)")   # instead of plt.show()
    display(html_table(["model", "step share"], [["Circulant", "12.19%"]]))

`show` displays a PNG whose output metadata carries the alt text; book/_ext/figure_alt.py makes
myst-nb put it on the page's <img>. This module only draws; every count comes from the ledger.
matplotlib and IPython are imported inside the functions that need them, so `import ledger` never
pulls them in.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import html
import io
import os
import pickle
import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .errors import LedgerError

PALETTE: dict[str, str] = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "bluish green": "#009E73",
    "vermillion": "#D55E00",
    "sky blue": "#56B4E9",
    "reddish purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
    "grey": "#999999",
}
"""Okabe and Ito's Color Universal Design set (2008; its colours stay apart under the common
colour-vision deficiencies), plus a neutral grey for digital work. The one palette of the book."""

CYCLE: tuple[str, ...] = tuple(PALETTE[name] for name in
                               ("blue", "orange", "bluish green", "vermillion", "sky blue", "reddish purple",
                                "black"))
"""The colour cycle matplotlib uses after `figure_style()` ("C0" is blue, "C1" orange, ...). Yellow is
left out: a yellow line is too faint on the white figure background (about 1.3:1)."""

CLASS_COLORS: dict[str, str] = {"transform": PALETTE["blue"], "weight_product": PALETTE["bluish green"],
                                "data_product": PALETTE["vermillion"], "digital": PALETTE["grey"]}
"""One colour per operation class (ledger.CLASSES), the same in every chapter."""

PHASE_COLORS: dict[str, str] = {"forward": PALETTE["blue"], "dX": PALETTE["orange"],
                                "dW": PALETTE["reddish purple"]}
"""One colour per phase of the step (ledger.PHASES)."""

FIGURE_DPI = 150
"""Pixels per inch of the PNGs `show` writes: sharp on screen and in the printed PDF."""

STYLE: dict[str, Any] = {
    "figure.facecolor": "white",   # opaque white: in the theme's dark mode a figure is a white card,
    "savefig.facecolor": "white",  # never black axes and text on a dark background
    "axes.facecolor": "white",
    "figure.dpi": 100,
    "savefig.dpi": FIGURE_DPI,
    "font.size": 10,
    "axes.titlesize": 11,
    "legend.fontsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "grid.alpha": 0.3,
}
"""The rcParams `figure_style` sets (the colour cycle is added from CYCLE)."""

_ALT_FILENAME = re.compile(r"(\.(png|jpe?g|svg|gif|pdf)\b)|(^[0-9a-f]{16,}$)|(^[\w./\\-]+$)", re.IGNORECASE)
MIN_ALT_WORDS = 4
"""An alt text says what a figure shows: at least this many words, not a file name or a hash."""


def figure_style() -> None:
    """Set the book's matplotlib style (STYLE and the CYCLE of colours) for this kernel; returns None, so a
    notebook cell ending in `figure_style()` shows nothing."""
    import matplotlib as mpl
    from cycler import cycler

    style = dict(STYLE, **{"axes.prop_cycle": cycler(color=list(CYCLE))})
    mpl.rcParams.update(style)


def check_alt(alt: str) -> str:
    """`alt` stripped if it describes a figure in words; else a LedgerError naming it."""
    if not isinstance(alt, str) or not alt.strip():
        raise LedgerError(f"alt = {alt!r}: a figure needs an alt text that says what it shows")
    text = " ".join(alt.split())
    if _ALT_FILENAME.search(text) or len(text.split()) < MIN_ALT_WORDS:
        raise LedgerError(f"alt = {alt!r}: must describe the figure in words (at least {MIN_ALT_WORDS}), "
                          "not name a file")
    return text


def figure_png(fig, dpi: int = FIGURE_DPI) -> bytes:
    """`fig` as PNG bytes on an opaque white background, cropped to its drawn extent."""
    from PIL import Image  # matplotlib's own dependency

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", facecolor="white")
    image = Image.open(io.BytesIO(buffer.getvalue()))
    if image.mode in ("RGBA", "LA") and image.getchannel("A").getextrema()[0] < 255:
        # a patch made transparent by hand still leaves holes: lay the figure on white
        white = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, image.convert("RGBA"))
    flat = io.BytesIO()
    image.convert("RGB").save(flat, format="PNG", optimize=True)
    return flat.getvalue()


def figure_bundle(fig, alt: str) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The display data and output metadata `show` emits: a PNG and, as text/plain and metadata, the alt text."""
    alt = check_alt(alt)
    png = base64.b64encode(figure_png(fig)).decode("ascii")
    return {"image/png": png, "text/plain": alt}, {"image/png": {"alt": alt}}


SLIDE_FIGURE_BOX = (1180, 590)
"""CSS pixels a figure may fill on a 16:9 slide of 1280x720 (book/_tools/slides.py), under its heading."""

SLIDE_MIN_FONT_PX = 20
"""The smallest type of a slide figure, in CSS pixels at 1280x720, superscripts and subscripts
included (a log axis's exponents): legible from the back of a room (at least 18 px), with a margin
for the rounding of the fit."""


SLIDE_DPI = 120
"""Pixels per inch of a slide figure's PNG: about its size on a 1280x720 slide, or larger."""


def _shown_texts(fig) -> list:
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0]


TICK_GAP_EM = 0.3
"""The least space between two tick labels of one axis, or two horizontal texts side by side on one
line, in ems of the smaller type (about a word space)."""


def _run_together(a, b, box_a, box_b, dpi: float) -> bool:
    """Whether two horizontal texts sit side by side on one line (their boxes share at least half the
    shorter one's height) with less than TICK_GAP_EM of the smaller type between them: they read as
    one label ("lensinput gradient du", chapter 03's 4f drawing on its slide)."""
    if a.get_rotation() % 180 or b.get_rotation() % 180:
        return False
    shared = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
    if shared < 0.5 * min(box_a.height, box_b.height):
        return False
    gap = max(box_a.x0, box_b.x0) - min(box_a.x1, box_b.x1)  # negative when they overlap sideways
    return gap < TICK_GAP_EM * min(a.get_fontsize(), b.get_fontsize()) * dpi / 72


def overlapping_labels(fig) -> list[tuple[str, str]]:
    """Pairs of texts of `fig` that print over each other, as drawn now: their boxes (turned with a
    slanted text, `_text_corners`) intersect by more than two points every way, or two horizontal
    texts run together on one line (`_run_together`: less than TICK_GAP_EM between them). Two tick
    labels of one axis, each of one line, must moreover stand at least TICK_GAP_EM of their type apart
    (a log axis's minor labels, "3x10^1" and "4x10^1", ran into one another once a slide raised the
    type; a two-line label's box spans its neighbours' by design). Tick labels outside the view are
    left out."""
    if not hasattr(fig.canvas, "get_renderer"):  # a bare Figure() (the explorer's): give it an Agg canvas
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        FigureCanvasAgg(fig)
    with warnings.catch_warnings():  # a probe: a trial type size whose layout collapses is judged by _collapses
        warnings.filterwarnings("ignore", message=".*collapsed to zero.*")
        fig.draw_without_rendering()  # lays out every text without rasterising
    renderer = fig.canvas.get_renderer()
    ticks, drawn = {}, set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for t in axis.get_ticklabels(which="both"):
                ticks[id(t)] = id(axis)
            try:  # the ticks the axis draws (inside its view limits), not every tick it holds
                shown = axis._update_ticks()
            except AttributeError:  # pragma: no cover - a matplotlib without the private helper
                shown = axis.get_major_ticks() + axis.get_minor_ticks()
            drawn |= {id(label) for tick in shown for label in (tick.label1, tick.label2) if label.get_visible()}
    texts = [t for t in _shown_texts(fig) if t.get_window_extent(renderer).width > 0
             and (id(t) not in ticks or id(t) in drawn)]
    boxes = [t.get_window_extent(renderer) for t in texts]
    shapes = [_text_corners(t, box, fig.dpi) for t, box in zip(texts, boxes)]
    # tick labels padded by half the gap each: two of one axis that come closer than the gap overlap
    padded = [_text_corners(t, t.get_window_extent(renderer).padded(TICK_GAP_EM / 2 * t.get_fontsize() * fig.dpi / 72),
                            fig.dpi) if id(t) in ticks else None for t in texts]
    found = []
    slack = 2 * fig.dpi / 72  # two points
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            one_axis = id(texts[i]) in ticks and ticks[id(texts[i])] == ticks.get(id(texts[j]))
            if one_axis and "\n" in texts[i].get_text() + texts[j].get_text():
                continue  # a two-line tick label ("A1\nHyena-2") sets its wide line under its neighbours'
            if (_convex_overlap(padded[i], padded[j]) > 0 if one_axis
                    else _convex_overlap(shapes[i], shapes[j]) > slack
                    or _run_together(texts[i], texts[j], boxes[i], boxes[j], fig.dpi)):
                found.append((texts[i].get_text(), texts[j].get_text()))
    return found


def legend_over_bars(fig) -> list[tuple[str, str]]:
    """(legend entries, bar) pairs where a legend's box covers part of a bar (more than one display
    pixel each way), as `fig` was last laid out (overlapping_labels lays it out; call this after it);
    bars of no height are left out. overlapping_labels compares texts only: a legend inside an axes
    grows over the bars when a slide raises the type (chapter 05's FLOPs by class did)."""
    from matplotlib.container import BarContainer
    from matplotlib.transforms import Bbox

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
                if not isinstance(container, BarContainer):  # a stem plot's container holds lines, not bars
                    continue
                for k, bar in enumerate(container):
                    drawn = Bbox.intersection(bar.get_window_extent(renderer), frame)
                    if drawn is None or drawn.height < 1:
                        continue
                    both = Bbox.intersection(drawn, box)
                    if both is not None and both.width > 1 and both.height > 1:
                        found.append((entries, labels[k] if k < len(labels) else f"bar {k}"))
    return found


def layout_records(fig) -> dict[str, Any]:
    """What a figure's output records of its layout as drawn now (the book's tests read them from the
    executed chapters): the labels that print over each other, its number of legends and the bars a
    legend covers."""
    overlaps = [list(pair) for pair in overlapping_labels(fig)]
    return {"overlaps": overlaps, "legends": len(fig.legends) + sum(ax.get_legend() is not None for ax in fig.axes),
            "legend_over_bars": [list(pair) for pair in legend_over_bars(fig)]}


def _plain_log_label(value, _position=None) -> str:
    """A log axis's major label: the plain number (0.5, 2, 10, 200)."""
    return f"{value:g}"


def _minor_log_label(axis, value, _position=None) -> str:
    """A log axis's minor label: the number at 2 and 5 of each decade while the view spans at most two
    decades, nothing otherwise. Module-level (with functools.partial), so a figure pickles (`keep_figure`)."""
    import math

    low, high = sorted(axis.get_view_interval())
    if low <= 0 or math.log10(high / low) > 2:
        return ""
    leading = round(value / 10 ** math.floor(math.log10(value) + 1e-9))
    return f"{value:g}" if leading in (2, 5) else ""


def log_axis_labels(axis) -> None:
    """Label a log-scale `axis` (ax.xaxis or ax.yaxis) with plain numbers (0.5, 2, 10, 200; no 2x10^0)
    and few minor labels: at 2 and 5 of each decade when the view spans at most two decades, none
    beyond, so that the labels stay apart when a slide raises the type (chapter 16's rates)."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(_plain_log_label))
    axis.set_minor_formatter(FuncFormatter(functools.partial(_minor_log_label, axis)))


def _text_corners(text, box, dpi: float) -> list[tuple[float, float]]:
    """The four corners of a text's rotated box, in display pixels: its axis-aligned extent `box` for
    a horizontal or vertical text; for a slanted one, the rectangle of the text's own height (one line
    per line of text) and length, turned by its angle about the extent's centre."""
    import math

    angle = math.radians(text.get_rotation() % 180)
    c, s = abs(math.cos(angle)), abs(math.sin(angle))
    if c < 1e-6 or s < 1e-6:
        return [(box.x0, box.y0), (box.x1, box.y0), (box.x1, box.y1), (box.x0, box.y1)]
    height = text.get_fontsize() / 72 * dpi * 1.2 * (text.get_text().count("\n") + 1)
    length = (box.width - height * s) / c
    if length <= height:
        return [(box.x0, box.y0), (box.x1, box.y0), (box.x1, box.y1), (box.x0, box.y1)]
    cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    cos, sin = math.cos(angle), math.sin(angle)
    return [(cx + u * cos - v * sin, cy + u * sin + v * cos)
            for u, v in ((-length / 2, -height / 2), (length / 2, -height / 2),
                         (length / 2, height / 2), (-length / 2, height / 2))]


def _convex_overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    """How far two convex quadrilaterals overlap along the axis where they overlap least (0 when a
    separating axis exists): the separating-axis test."""
    import math

    depth = math.inf
    for poly in (a, b):
        for k in range(len(poly)):
            (x0, y0), (x1, y1) = poly[k], poly[(k + 1) % len(poly)]
            nx, ny = y0 - y1, x1 - x0
            norm = math.hypot(nx, ny) or 1.0
            nx, ny = nx / norm, ny / norm
            pa = [x * nx + y * ny for x, y in a]
            pb = [x * nx + y * ny for x, y in b]
            depth = min(depth, min(max(pa), max(pb)) - max(min(pa), min(pb)))
            if depth <= 0:
                return 0.0
    return depth


def _script_scale(text) -> float:
    """The smallest glyph of `text` over its font size: 1 for plain text, below 1 where mathtext sets
    part of it smaller, as a superscript or subscript (0.7 a level: a log axis's "10^-1" shows its
    exponent at 7 pt in a 10 pt label)."""
    shown, math = text._preprocess_math(text.get_text())
    if math is not True:  # plain text, or usetex (not used by the book): its nominal size
        return 1.0
    return _math_scale(shown, text.get_math_fontfamily())


@functools.lru_cache(maxsize=4096)
def _math_scale(shown: str, family: str) -> float:
    """The smallest glyph mathtext sets for `shown` (in the math font family `family`) over the size
    asked, parsed once per string: 0.7 for "$10^{-1}$", 0.49 for a superscript's own superscript."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    glyphs = MathTextParser("path").parse(shown, dpi=72, prop=FontProperties(size=10, math_fontfamily=family)).glyphs
    return min((glyph[1] / 10 for glyph in glyphs), default=1.0)


def _type_sizes(fig, scripts: bool = True) -> tuple[dict, dict]:
    """The current sizes in points with the share of it their smallest glyph shows (`_script_scale`;
    1 for every text when `scripts` is False): {text: (size, scale)} for texts other than tick labels,
    {(axis, which): (size, scale)} for tick labels, the scale the smallest of that axis's labels."""
    ticks = {id(t) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis) for t in axis.get_ticklabels(which="both")}
    texts = {t: (t.get_fontsize(), _script_scale(t) if scripts else 1.0)
             for t in _shown_texts(fig) if id(t) not in ticks}
    axes = {}
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                labels = axis.get_ticklabels(which=which)
                if labels:
                    shown = [t for t in labels if t.get_text().strip()]
                    scale = min((_script_scale(t) for t in shown), default=1.0) if scripts else 1.0
                    axes[(axis, which)] = (labels[0].get_fontsize(), scale)
    return texts, axes


def _smallest_glyph(sizes: tuple[dict, dict]) -> float | None:
    """The smallest glyph of `_type_sizes`, in points; None for a figure without text."""
    pairs = list(sizes[0].values()) + list(sizes[1].values())
    return min((size * scale for size, scale in pairs), default=None)


def _set_type_floor(fig, sizes: tuple[dict, dict], floor_pt: float) -> None:
    """Every text's smallest glyph at least `floor_pt` points (its page size when larger): a text
    whose superscripts show 0.7 of its size is set to floor_pt / 0.7. Tick labels through their axis
    (so that ticks made at the next draw match), then the layout again."""
    texts, axes = sizes
    for (axis, which), (size, scale) in axes.items():
        axis.set_tick_params(which=which, labelsize=max(size, floor_pt / scale))
    for text, (size, scale) in texts.items():
        text.set_fontsize(max(size, floor_pt / scale))
    if fig.get_layout_engine() is None:
        fig.tight_layout()


def _collapses(fig) -> bool:
    """Whether the figure's layout engine gives up at its current type sizes (axes shrunk to nothing)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.draw_without_rendering()
    return any("collapsed to zero" in str(w.message) for w in caught)


def slide_figure(fig, box: tuple[int, int] = SLIDE_FIGURE_BOX, min_font_px: float = SLIDE_MIN_FONT_PX,
                 dpi: int = SLIDE_DPI, page_overlaps: int | None = None, scripts: bool = True) -> dict[str, Any]:
    """`fig` drawn again for a slide, as a slide style would draw it: every text whose smallest glyph
    is smaller than the size that shows `min_font_px` tall once the figure is fitted into `box` is
    raised until that glyph reaches it (larger texts keep theirs), but only as far as no two labels
    print over each other that did not on the page. With `scripts` (the default) a text's smallest
    glyph is its mathtext superscripts and subscripts where it has them (`_script_scale`: a log axis's
    exponents, 0.7 of the label), so that they too show `min_font_px`; without, its nominal size.
    Returns {"png": base64, "min_font_px": the smallest glyph in the PNG's own pixels, and
    layout_records: "overlaps", the labels that print over each other, "legends", "legend_over_bars"};
    the slide scales the type by its displayed over its natural size. Changes `fig` (show closes it
    afterwards)."""
    from PIL import Image

    png = figure_png(fig, dpi)  # draws the figure, so that the tick labels exist
    original = _type_sizes(fig, scripts)
    smallest_pt = _smallest_glyph(original)
    if smallest_pt is None:
        return {"png": base64.b64encode(png).decode("ascii"), "min_font_px": float("inf"), **layout_records(fig)}

    def points_for(png_bytes: bytes) -> float:
        width, height = Image.open(io.BytesIO(png_bytes)).size
        return min_font_px * 1.03 / (dpi / 72 * min(box[0] / width, box[1] / height))

    floor = smallest_pt
    for _ in range(3):  # the layout grows with the type, which shrinks the fit: repeat until it holds
        wanted = points_for(png)
        if wanted <= floor:
            break
        if page_overlaps is None:  # counted once, before the first change, and only when type is raised
            page_overlaps = len(overlapping_labels(fig))
        trial_floor = wanted
        for fraction in (1.0, 0.8, 0.6, 0.4):  # back off where labels would collide
            candidate = floor + (trial_floor - floor) * fraction
            _set_type_floor(fig, original, candidate)
            if not _collapses(fig) and len(overlapping_labels(fig)) <= page_overlaps:
                floor = candidate
                break
        else:
            _set_type_floor(fig, original, floor)
            break
        png = figure_png(fig, dpi)
        if fraction < 1.0:
            break
    return {"png": base64.b64encode(png).decode("ascii"), "min_font_px": floor / 72 * dpi, **layout_records(fig)}


PRINT_WIDTH_IN = 6.64
"""The width, in inches, at which the printed PDFs (book/_ext/print_pdf.py: A4, 14 mm margins, the
theme's text column) print every figure: each PNG is scaled to it, up or down (pdfimages -list:
its pixels over its x-ppi; tests/test_student.py measures it in the student PDF)."""

PRINT_MIN_PT = 6.0
"""The smallest type of a figure on paper, in points at PRINT_WIDTH_IN: the size of the printed
pages' own footer (8 CSS px, print_pdf.FOOTER), the book's choice of a floor that stays legible."""


def print_figure(fig, page_overlaps: int | None = None) -> dict[str, Any]:
    """`fig` drawn for the page and for paper: every text that would print smaller than PRINT_MIN_PT
    once the PNG is scaled to PRINT_WIDTH_IN is raised to the size that prints at PRINT_MIN_PT (the
    narrow figures, which print enlarged, keep their type), as `slide_figure` raises it for a slide,
    backing off where labels would print over each other that did not before. The floor holds for
    each text's nominal size: a mathtext exponent prints at 0.7 of its label, and is not raised on
    its own (`slide_figure` raises it on a slide; on paper it would enlarge the page's figures).
    Returns {"png": base64 at FIGURE_DPI, "min_type_pt": the smallest nominal type in the figure's
    own points}. Changes `fig`."""
    box = (round(PRINT_WIDTH_IN * FIGURE_DPI), 10 ** 6)  # the width binds; paper's height does not
    drawn = slide_figure(fig, box=box, min_font_px=PRINT_MIN_PT / 72 * FIGURE_DPI, dpi=FIGURE_DPI,
                         page_overlaps=page_overlaps, scripts=False)
    return {"png": drawn["png"], "min_type_pt": drawn["min_font_px"] / FIGURE_DPI * 72}


FIGURE_STORE_ENV = "TX_FIGURE_STORE"
"""A directory, set by the book's executor for its kernels only (book/_tools/execute_chapters.py): each
figure shown there is also kept in it, pickled as drawn for the page (`keep_figure`), and `make slides`
(book/_tools/figure_records.py) draws it again for a slide and records its layout (`figure_records`)
without executing the chapter again. A reader's kernel, and the build's own, draw each figure once."""


def figure_key(png_b64: str) -> str:
    """The name a figure is kept under: the first 20 hex digits of the SHA-256 of its page PNG (the base64
    text its output holds), so the executed chapter's output finds its kept figure."""
    return hashlib.sha256(png_b64.encode("ascii")).hexdigest()[:20]


def keep_figure(fig, png_b64: str) -> bool:
    """In the build (FIGURE_STORE_ENV set), pickle `fig` as drawn for the page into the store, under
    `figure_key`; True if kept. A figure holding what pickle refuses (a lambda as a tick formatter) is
    refused with the reason: `make slides` could not draw it."""
    store = os.environ.get(FIGURE_STORE_ENV)
    if not store:
        return False
    path = Path(store) / f"{figure_key(png_b64)}.pickle"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        kept = pickle.dumps(fig, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as err:
        raise LedgerError(f"this figure cannot be kept for the slides ({err}): give it module-level functions "
                          "(functools.partial for their arguments), not lambdas or nested functions") from None
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    partial.write_bytes(kept)
    partial.replace(path)  # whole or absent: two chapters may keep the same figure at once
    return True


def figure_records(fig) -> dict[str, Any]:
    """What `make slides` and the tests read of a figure drawn for the page: its `layout_records` and, under
    "slide", the figure drawn again for a slide (`slide_figure`). Changes `fig`."""
    records = layout_records(fig)
    records["slide"] = slide_figure(fig, page_overlaps=len(records["overlaps"]))
    return records


def show(fig, alt: str) -> None:
    """Display `fig` with its alt text (what a screen reader says, what the page shows if the image fails), then close it.

    Use it instead of plt.show(); closing the figure stops Jupyter from drawing it a second time. Type
    that would print below PRINT_MIN_PT is raised first (`print_figure`). In the book's build the figure is
    also kept for the slides (`keep_figure`) and the output's metadata carries its smallest type ("min_type_pt").
    """
    import matplotlib.pyplot as plt
    from IPython.display import display

    printed = print_figure(fig)  # type legible on paper (PRINT_MIN_PT at PRINT_WIDTH_IN)
    alt = check_alt(alt)
    data, metadata = {"image/png": printed["png"], "text/plain": alt}, {"image/png": {"alt": alt}}
    if keep_figure(fig, printed["png"]):
        metadata["image/png"]["min_type_pt"] = round(printed["min_type_pt"], 3)
    display(data, metadata=metadata, raw=True)
    plt.close(fig)


# ---- Tables -------------------------------------------------------------------------------------

_NUMERIC = re.compile(r"^[-+\u2212]?(\d[\d,]*)?\.?\d+(e[-+]?\d+)?\s*(%|x|\u00d7|[a-zA-Z]{1,5})?$")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`]+)`")


def _looks_numeric(text: str) -> bool:
    return bool(_NUMERIC.match(text.strip().strip("*")))  # **16.864** (a bold total) is a number too


def _cell_html(text: Any) -> str:
    """A cell's text escaped, with **bold** and `code` kept as markup."""
    escaped = html.escape(str(text).strip())
    return _CODE.sub(r"<code>\1</code>", _BOLD.sub(r"<b>\1</b>", escaped))


def table_html(header: Sequence[Any], rows: Iterable[Sequence[Any]], align: str | None = None,
               caption: str | None = None) -> str:
    """An HTML table as a string: numbers right-aligned, text left, scrolling sideways on narrow screens.

    `align` is one letter per column, "l" or "r"; by default a column is right-aligned when every body
    cell looks like a number (12.19%, 1.139x, 8,192, 3.2e13, 1.04 s). Cells are escaped; **bold** and
    `code` are kept.
    """
    header = [str(h) for h in header]
    body = [[str(c) for c in row] for row in rows]
    width = len(header)
    for k, row in enumerate(body):
        if len(row) != width:
            raise LedgerError(f"row {k} has {len(row)} cells: the header has {width}")
    if align is None:
        align = "".join("r" if body and all(_looks_numeric(r[j]) for r in body) else "l" for j in range(width))
    if len(align) != width or set(align) - {"l", "r"}:
        raise LedgerError(f"align = {align!r}: must be one letter per column ({width}), each 'l' or 'r'")
    side = {"l": "left", "r": "right"}

    def cell(tag: str, text: str, a: str) -> str:
        return f'<{tag} style="text-align: {side[a]}">{_cell_html(text)}</{tag}>'

    head = "".join(cell("th", h, a) for h, a in zip(header, align))
    trs = "".join("<tr>" + "".join(cell("td", c, a) for c, a in zip(row, align)) + "</tr>" for row in body)
    cap = f"<caption>{_cell_html(caption)}</caption>" if caption else ""
    # The wrapper scrolls sideways on narrow screens, so a keyboard must reach it (tabindex) and a
    # screen reader must hear what it is (a named region): WCAG 2.1.1 and 4.1.2, axe's
    # scrollable-region-focusable rule.
    label = html.escape(caption or "Table: " + ", ".join(header), quote=True)
    return (f'<div class="tx-table" style="overflow-x: auto" tabindex="0" role="region" aria-label="{label}">'
            f'<table class="table">{cap}<thead><tr>{head}</tr></thead><tbody>{trs}</tbody></table></div>')


def html_table(header: Sequence[Any], rows: Iterable[Sequence[Any]], align: str | None = None,
               caption: str | None = None):
    """The table of `table_html` as an IPython HTML object: `display(html_table(header, rows))`."""
    from IPython.display import HTML

    return HTML(table_html(header, rows, align, caption))


def parse_pipe_table(text: str) -> tuple[list[str], list[list[str]], str]:
    """A Markdown pipe table's header, body rows and alignment ("r" where the rule ends in ':')."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 2 or not all(line.startswith("|") for line in lines):
        raise LedgerError(f"not a pipe table (a header, a rule and rows, each line starting with '|'): {text[:60]!r}")
    cells = [line.strip("|").split("|") for line in lines]
    header, rule, body = [c.strip() for c in cells[0]], cells[1], cells[2:]
    if not all(re.fullmatch(r"\s*:?-+:?\s*", c) for c in rule):
        raise LedgerError(f"the second line of a pipe table must be its rule (| --- | ---: |), got {lines[1]!r}")
    align = "".join("r" if c.strip().endswith(":") else "l" for c in rule)
    return header, [[c.strip() for c in row] for row in body], align


def pipe_table(text: str, caption: str | None = None):
    """A Markdown pipe table (the alignment of its rule kept) as the book's HTML table, an IPython HTML object."""
    header, body, align = parse_pipe_table(text)
    return html_table(header, body, align, caption)


def show_table(text: str, caption: str | None = None) -> None:
    """Display a Markdown pipe table (the alignment of its rule kept) as the book's HTML table."""
    from IPython.display import display

    display(pipe_table(text, caption))
