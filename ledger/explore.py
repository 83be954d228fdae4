"""The training-step explorer in Jupyter: sliders on the Python ledger, numbers and bars redrawn live.

    from ledger.explore import explorer
    explorer()          # a panel of sliders; run it in Jupyter (`make lab`)

The same controls, numbers and bars as the book's JavaScript explorer (book/explorer.md), computed
here by `ledger.step_row` and `ledger.flops_by_phase_and_class`. ipywidgets and matplotlib are
imported inside the functions that need them, so `import ledger` never pulls them in.
This module only draws; every count comes from the ledger.
"""
from __future__ import annotations

import base64
import math
from typing import Any

from . import figures, live
from .engine import MASK_OVERLAPS, MODULATORS
from .errors import LedgerError
from .figures import (
    CLASS_COLORS,  # the book's one palette (the JavaScript explorer's CSS uses the same four)
)
from .layers import CLASSES, OPTICAL_CLASSES, PHASES
from .settings import VARIANTS
from .shares import flops_by_phase_and_class
from .step import step_items
from .table import StepRow, make_settings, step_row

SPEEDUPS = (0.5, 1, 2, 5, 10, 20, 50, 100, 1000, 10_000, 1_000_000, math.inf)
"""The optical speed-ups the panel offers; inf is Amdahl's bound (the optical work becomes free)."""

TRAINED_CONTEXT = 8192
"""Llama-3-8B's trained context: longer sequences are shape-only extrapolations."""

DEFAULTS: dict[str, Any] = {
    "variant": "hyena2_circulant", "seq_len": 4096, "step_tokens": 1_048_576, "block": 256,
    "hybrid_attention_fraction": 0.25, "modulator": "ideal", "pixels": 2e6,
    "values_per_pixel": MODULATORS["ideal"].values_per_pixel, "frame_rate": MODULATORS["ideal"].frame_rate_hz,
    "gpus": 64, "gpu_flops": 400e12, "optical_speedup": math.inf, "mask_overlap": "serial",
}
"""The explorer opens on the block-circulant row of the training-step table, the engine's default mode with its
own frame rate and values per pixel (the sliders pass them; a value other than the mode's overrides it)."""

CLASS_LABELS = {"transform": "transforms (FFT)", "weight_product": "weight-masked products",
                "data_product": "data-by-data products", "digital": "digital"}
PHASE_LABELS = {"forward": "forward", "dX": "input gradient dX", "dW": "weight gradient dW"}
METRICS = (
    ("forward_share", "Forward share"), ("backward_share", "Backward share (dX + dW)"),
    ("step_share", "Step share"), ("static_share", "Static share (weight masks, not per sequence)"),
    ("data_part", "Data-by-data part of the optical work"), ("amdahl", "Amdahl bound, step share"),
    ("amdahl_static", "Amdahl bound, static share"), ("digital_step_s", "Digital step time"),
    ("weight_mask_s", "Weight-mask rewrite per step"), ("data_mask_s", "Data-mask rewrite per step"),
    ("all_digital_step_s", "All-digital step (at device rates)"), ("hybrid_step_s", "Hybrid step (GPUs + engine)"),
    ("net_speedup", "Net speed-up of the hybrid step"),
)
"""The numbers both explorers show, in order: shares, bounds, the counted digital step and mask times, then the
time model's step on the GPUs alone, the hybrid step with the engine's time paid, and their ratio."""


# ---- Formatting, the same as the JavaScript explorer's (book/_static/explorer.js) ----

def format_share(x: float) -> str:
    """A fraction as a percentage with two decimals: 0.12188 -> '12.19%'."""
    return f"{100 * x:.2f}%"


def format_bound(x: float) -> str:
    """An Amdahl bound with three decimals: '1.139x'."""
    return f"{x:.3f}x" if math.isfinite(x) else "unbounded"


def three_significant(x: float) -> str:
    """x to three significant digits as JavaScript's x.toPrecision(3) writes a positive number below 1,000:
    fixed-point, or 'd.dde-N' below 1e-6."""
    mantissa, exponent = f"{x:.2e}".split("e")
    e = int(exponent)
    return f"{mantissa}e{e}" if e < -6 else f"{x:.{max(0, 2 - e)}f}"


def format_seconds(x: float) -> str:
    """0 as '0 s', from 100 s whole seconds, from 0.01 s two decimals, below that 3 significant digits."""
    if x == 0:
        return "0 s"
    if x >= 100:
        return f"{x:.0f} s"
    if x >= 0.01:
        return f"{x:.2f} s"
    return f"{three_significant(x)} s"


def format_speedup(x: float) -> str:
    """The hybrid step's net speed-up: three decimals from 1 up ('1.042x'); below 1 three significant digits and
    how many times slower the hybrid step is ('0.00892x (112x slower)'), as JavaScript's Math.round rounds."""
    if not math.isfinite(x):
        return "unbounded"
    if x >= 1:
        return f"{x:.3f}x"
    slower = 1 / x
    times = f"{math.floor(slower + 0.5):,}" if slower >= 100 else three_significant(slower)
    return f"{three_significant(x)}x ({times}x slower)"


def format_metric(key: str, value: float) -> str:
    """How the explorers print `key` of a StepRow."""
    if key.endswith("share") or key == "data_part":
        return format_share(value)
    if key.startswith("amdahl"):
        return format_bound(value)
    if key == "net_speedup":
        return format_speedup(value)
    if key.endswith("_s"):
        return format_seconds(value)
    return f"{value:,}"


# ---- The numbers and the figure ----

def phase_flops(**params: Any) -> dict[str, dict[str, float]]:
    """{forward|dX|dW: {class: FLOPs}} of one step, from the ledger's line items."""
    return flops_by_phase_and_class(step_items(make_settings(**params)))


def metrics_html(row: StepRow, params: dict[str, Any], error: str = "") -> str:
    """The numbers of METRICS as an HTML table, with the extrapolation flag, the time model's detail and any
    refusal message."""
    cells = "".join(
        f"<tr><td>{label}</td><td style='text-align:right;font-weight:600'>"
        f"{format_metric(key, getattr(row, key))}</td></tr>" for key, label in METRICS)
    notes = []
    if error:
        notes.append(f"<p role='alert' style='color:#b00020;font-weight:600'>Refused: {error}. "
                     "Showing the last valid settings.</p>")
    if params["seq_len"] > TRAINED_CONTEXT:
        notes.append(f"<p style='color:#8a5d00'>Beyond the trained {TRAINED_CONTEXT:,} tokens: "
                     "shape-only extrapolation.</p>")
    mode = (f"<p>Modulator {row.modulator}: {row.frame_rate_hz:,.6g} frames/s, {row.values_per_pixel:.6g} complex "
            "value per pixel" + (" (the cited device).</p>" if row.cited else
                                 ": overridden, no longer the cited device.</p>"))
    detail = mode + (f"<p>{row.variant}, S = {row.seq_len:,}: {row.sequences:,} sequences per step, "
              f"{row.step_flops:.3e} FLOPs; {row.weight_mask_frames:,} weight-mask frames, "
              f"{row.data_mask_frames:,} data-mask frames.</p>")
    return "".join(notes) + f"<table>{cells}</table>" + detail + time_html(row)


def time_html(row: StepRow) -> str:
    """The time model in one paragraph: the engine's share of the all-digital seconds, the bound with every engine
    cost free, how the mask rewrites combine with the streaming, and the break-even mask rate."""
    if row.break_even_mask_rate is None:
        return "<p>The engine takes no work in this variant: the hybrid step is the all-digital step.</p>"
    masks = ("the longer of streaming and mask rewrites counts (overlapped)" if row.mask_overlap == "overlapped"
             else "mask rewrites added to the streaming (serial)")
    return (f"<p>Time at device rates: the engine's work is {format_share(row.time_share)} of the all-digital "
            f"step's seconds (at most {format_bound(row.amdahl_time)} faster with every engine cost free); {masks}. "
            f"Break-even: a mask device of {row.break_even_mask_rate:,.0f} frames/s, an input plane of "
            f"{row.break_even_input_rate:.3g} numbers/s, a detector of {row.break_even_detector_rate:.3g} samples/s, "
            f"a link of {row.break_even_link_rate:.3g} bytes/s each way.</p>")


def draw_figure(ax, tax, row: StepRow, by_phase: dict[str, dict[str, float]]) -> None:
    """Draw the two panels into `ax` (FLOPs by class in each phase) and `tax` (digital step time against the
    mask rewrite times), and the class legend under them on their figure."""
    phases = list(PHASES)[::-1]  # forward on top
    left = [0.0] * len(phases)
    for cls in CLASSES:
        widths = [by_phase[p][cls] / 1e15 for p in phases]
        ax.barh([PHASE_LABELS[p] for p in phases], widths, left=left, color=CLASS_COLORS[cls],
                label=CLASS_LABELS[cls])
        left = [a + b for a, b in zip(left, widths)]
    for y, p in enumerate(phases):
        total = sum(by_phase[p].values())
        optical = sum(by_phase[p][c] for c in OPTICAL_CLASSES)
        ax.text(left[y], y, f"  {format_share(optical / total if total else 0.0)} optical",
                va="center", fontsize=8)
    ax.set_xlim(0, max(left) * 1.35 if max(left) > 0 else 1)
    ax.set_xlabel("PFLOPs per optimizer step")
    ax.set_title(f"{row.variant}, S = {row.seq_len:,}: FLOPs by class", fontsize=10)
    ax.figure.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=4, fontsize=8,
                     frameon=False)

    names = [("digital_step_s", "digital step", CLASS_COLORS["digital"]),
             ("weight_mask_s", "weight-mask rewrite", CLASS_COLORS["weight_product"]),
             ("data_mask_s", "data-mask rewrite", CLASS_COLORS["data_product"])][::-1]
    values = [getattr(row, key) for key, _, _ in names]
    positive = [v for v in values if v > 0]
    lo = 10 ** (math.floor(math.log10(min(positive))) - 1)
    hi = 10 ** (math.ceil(math.log10(max(positive))) + 1)
    for y, ((key, label, color), v) in enumerate(zip(names, values)):
        if v > 0:
            tax.barh(y, v - lo, left=lo, color=color)
        tax.text(max(v, lo), y, "  " + (format_seconds(v) if v > 0 else "no masks"), va="center", fontsize=8)
    tax.set_ylim(-0.6, len(names) - 0.4)
    tax.set_xscale("log")
    tax.set_xlim(lo, hi)
    tax.set_yticks(range(len(names)), [label for _, label, _ in names])
    tax.set_xlabel("seconds per optimizer step (log scale)")
    tax.set_title("Digital step time and mask rewrites", fontsize=10)


FIGSIZE = (10, 3.6)
"""The explorer's figure, in inches: two panels side by side, the legend under them."""


def figure_axes(fig):
    """The explorer's two axes on `fig`, the FLOPs panel the wider."""
    return fig.subplots(1, 2, width_ratios=[1.25, 1])


def figure(row: StepRow | None = None, by_phase: dict | None = None, **params: Any):
    """Two panels: FLOPs by class in each phase, and digital step time against mask rewrite times (`draw_figure`).

    Pass the settings as keywords (default: the explorer's default state) or an already computed
    row and by-phase table.
    """
    from matplotlib.figure import Figure

    full = {**DEFAULTS, **params}
    if row is None:
        row = step_row(**full)
    if by_phase is None:
        by_phase = phase_flops(**full)
    fig = Figure(figsize=FIGSIZE, layout="constrained")
    draw_figure(*figure_axes(fig), row, by_phase)
    return fig


def figure_alt(row: StepRow, by_phase: dict[str, dict[str, float]]) -> str:
    """What `figure(row, by_phase)` shows, in words and with its numbers: the figure's alt text."""
    def optical(phase: str) -> str:  # as the figure prints it beside each bar
        total = sum(by_phase[phase].values())
        return format_share(sum(by_phase[phase][c] for c in OPTICAL_CLASSES) / total if total else 0.0)

    def mask(label: str, seconds: float) -> str:
        if seconds <= 0:
            return f"{label}: no masks"
        side = "longer" if seconds > row.digital_step_s else "shorter"
        return f"{label} {format_seconds(seconds)}, {side} than the digital step"

    return (f"Two bar charts for {row.variant} at S = {row.seq_len:,}. Left: stacked horizontal bars of the "
            f"PFLOPs per optimizer step in the forward pass, the input gradient dX and the weight gradient dW, "
            f"split into transforms, weight-masked products, data-by-data products and digital work; the optical "
            f"classes are {optical('forward')} of the forward pass, {optical('dX')} of dX and {optical('dW')} of dW. "
            f"Right, on a log scale: the digital step {format_seconds(row.digital_step_s)}; "
            f"{mask('the weight-mask rewrite', row.weight_mask_s)}; "
            f"{mask('the data-mask rewrite', row.data_mask_s)}.")


def figure_image(row: StepRow | None = None, by_phase: dict | None = None, **params: Any):
    """The static figure as an IPython Image for `display` or `myst_nb.glue`, its alt text (`figure_alt`) in the
    output metadata as `ledger.figures.show` writes it, which book/_ext/figure_alt.py puts on the page's <img>."""
    from IPython.display import Image

    full = {**DEFAULTS, **params}
    row = step_row(**full) if row is None else row
    by_phase = phase_flops(**full) if by_phase is None else by_phase
    fig = figure(row, by_phase, **params)
    printed = figures.print_figure(fig)  # type legible on paper, as ledger.figures.show draws it
    png = base64.b64decode(printed["png"])
    metadata = {"alt": figures.check_alt(figure_alt(row, by_phase))}
    if figures.keep_figure(fig, printed["png"]):  # the book's build only, as ledger.figures.show keeps it
        metadata["min_type_pt"] = round(printed["min_type_pt"], 3)
    return Image(data=png, format="png", metadata=metadata)


# ---- The panel ----

EXPLORER_LABEL_WIDTH = "12rem"
"""Room for the explorer's longest label ("hybrid: attention share") in full."""
SLIDER_RANGES = {"pixels": (10.0, 3, 9), "values_per_pixel": (2.0, -5, 3), "frame_rate": (10.0, 0, 6),
                 "gpu_flops": (10.0, 12, 16)}
"""(base, lowest exponent, highest exponent) of each log slider of the panel."""


def check_start(start: dict[str, Any]) -> None:
    """Refuse, in one line naming the value, a starting state the panel cannot show: a setting it has no control
    for, a value the ledger refuses, or one outside a slider's range (which the slider would silently clamp)."""
    unknown = [k for k in start if k not in DEFAULTS]
    if unknown:
        raise LedgerError(f"{unknown[0]} = {start[unknown[0]]!r}: the explorer has no control for it; its controls "
                          f"are {', '.join(DEFAULTS)}")
    make_settings(**start)
    for name, (base, lo, hi) in SLIDER_RANGES.items():
        if not base ** lo <= start[name] <= base ** hi:
            raise LedgerError(f"{name} = {start[name]!r}: the explorer's slider runs from {base ** lo:.6g} to "
                              f"{base ** hi:.6g}")


def _powers(lo: int, hi: int) -> list[int]:
    return [2 ** k for k in range(lo, hi + 1)]


def explorer(**overrides: Any):
    """Build the live panel: one control per setting, the numbers of METRICS and both bar charts.

    Keyword arguments override the starting state (e.g. ``explorer(variant="hyena2")``).
    Returns the panel widget; it has ``controls`` (name -> widget), ``refresh()`` (draw now: in a kernel a move's
    draw follows the messages waiting, `ledger.live.Redraw`), ``row`` (the last valid StepRow), ``params``,
    ``error`` (the last refusal message, "" if none) and ``fig``.
    """
    import ipywidgets as w

    start = {**DEFAULTS, **overrides}
    check_start(start)  # refuse a bad starting state at once
    style = {"description_width": EXPLORER_LABEL_WIDTH}
    layout = w.Layout(width="auto")  # stretch to the controls' column, which sets the width

    def sel(options, value, desc, fmt="{:,}"):
        if value not in options:
            options = sorted(set(options) | {value})
        return w.SelectionSlider(options=[(fmt.format(o), o) for o in options], value=value,
                                 description=desc, style=style, layout=layout)

    def logf(value, lo, hi, desc, base=10.0, step=0.05):
        return w.FloatLogSlider(value=value, base=base, min=lo, max=hi, step=step, description=desc,
                                style=style, layout=layout, readout_format=".3g")

    controls = {
        "variant": w.Dropdown(options=list(VARIANTS), value=start["variant"], description="variant",
                              style=style, layout=layout),
        "seq_len": sel(_powers(11, 15), start["seq_len"], "sequence length S"),
        "step_tokens": sel(_powers(15, 26), start["step_tokens"], "tokens per step"),
        "block": sel(_powers(1, 11), start["block"], "circulant block b"),
        "hybrid_attention_fraction": w.FloatSlider(
            value=start["hybrid_attention_fraction"], min=0.0, max=1.0, step=1 / 32,
            description="hybrid: attention share", style=style, layout=layout),
        "modulator": w.Dropdown(options=list(MODULATORS), value=start["modulator"], description="modulator mode",
                                style=style, layout=layout),
        "pixels": logf(start["pixels"], *SLIDER_RANGES["pixels"][1:], "mask pixels"),
        "values_per_pixel": logf(start["values_per_pixel"], *SLIDER_RANGES["values_per_pixel"][1:],
                                 "values per pixel", base=2.0, step=1),
        "frame_rate": logf(start["frame_rate"], *SLIDER_RANGES["frame_rate"][1:], "frames per second"),
        "gpus": sel(sorted(set(_powers(0, 16))), start["gpus"], "GPUs"),
        "gpu_flops": logf(start["gpu_flops"], *SLIDER_RANGES["gpu_flops"][1:], "FLOP/s per GPU"),
        "optical_speedup": sel(SPEEDUPS, start["optical_speedup"], "optical speed-up s", fmt="{:,.10g}"),
        "mask_overlap": w.Dropdown(options=list(MASK_OVERLAPS), value=start["mask_overlap"],
                                   description="mask rewrites", style=style, layout=layout),
    }
    numbers = w.HTML(layout=w.Layout(width="100%"))
    image = w.Image(format="png", layout=w.Layout(max_width="100%", height="auto"))
    # Two columns side by side when the window is wide enough, else the controls wrap under the
    # numbers (flex-wrap): nothing is squeezed or cut off, e.g. JupyterLab at 1280 px with its side bar.
    column = {"controls": w.Layout(flex="1 1 26rem", min_width="22rem", max_width="38rem", margin="0 1.5rem 0.5rem 0"),
              "numbers": w.Layout(flex="1 1 22rem", min_width="18rem", max_width="40rem")}
    panel = w.HBox([w.VBox(list(controls.values()), layout=column["controls"]),
                    w.VBox([numbers], layout=column["numbers"])],
                   layout=w.Layout(flex_flow="row wrap", align_items="flex-start", width="100%"))
    box = w.VBox([panel, image], layout=w.Layout(width="100%"))
    box.controls, box.numbers, box.image = controls, numbers, image
    box.row, box.params, box.error = None, dict(start), ""
    fig = box.fig = live.live_figure(FIGSIZE)
    axes = figure_axes(fig)

    def draw():
        params = {name: c.value for name, c in controls.items()}
        try:
            row = step_row(**params)
            by_phase = phase_flops(**params)
        except LedgerError as err:  # keep the last valid state, say why
            box.error = str(err)
            numbers.value = metrics_html(box.row, box.params, box.error)
            return
        first = box.row is None
        box.row, box.params, box.error = row, params, ""
        numbers.value = metrics_html(row, params)
        if not first:
            live.clear_figure(fig)
        with live.quick_rectangle_limits(fig):
            draw_figure(*axes, row, by_phase)
        image.value = live.draw_panel(fig)  # laid out at the first drawing, and again if a move outgrows it

    redraw = box.redraw = live.Redraw(draw)

    def refresh(*_):
        if not getattr(box, "_syncing", False):
            redraw.request()

    def new_mode(change):
        """A new modulator mode brings its own frame rate and values per pixel (as make_settings does)."""
        mode = MODULATORS.get(change["new"])
        if mode is not None:
            box._syncing = True
            try:
                controls["frame_rate"].value = mode.frame_rate_hz
                controls["values_per_pixel"].value = mode.values_per_pixel
            finally:
                box._syncing = False
        refresh()

    for name, c in controls.items():
        c.observe(new_mode if name == "modulator" else refresh, names="value")
    box.refresh = redraw.now  # at once: a cell that sets a control and reads the panel calls it
    redraw.now()  # the first drawing, so that the cell's output holds it
    return box
