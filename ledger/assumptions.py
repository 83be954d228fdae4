"""The book's conventions and illustrative figures, each with an alternative and what it changes.

One row per assumption: the setting it is, the book's default, a plausible alternative, and the six
headline figures (the block-circulant Hyena-2 step share at 4,096 tokens, its Amdahl bound on counted FLOPs,
its bound in time and net speed-up from ledger.step_time, and its weight-mask and data-mask rewrite times
per step) under that alternative, beside the default's. A
figure counts as moved when its printed value (the precision the book prints it at) changes. Where an
assumption leaves all four alone, `other` names the figure it does move. Every number is a
`ledger.step_row`; nothing here counts.
"""
from __future__ import annotations

import functools
import itertools
import math
import time

import numpy as np
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable

from .boundary import conversions
from .costs import Costs
from .engine import MODULATORS, READOUTS
from .errors import LedgerError
from .hardware import hardware_items
from .layers import OPTICAL_CLASSES, STATIC_CLASSES, LineItem
from .masks import mask_rows
from .run import run_policy
from .settings import COST_FIELDS, DEVICE_FIELDS, Device, Settings
from .shares import amdahl, share
from .step import BLOCK_LAYERS, counted_items, step_items
from .step_time import TENSOR_KERNELS, step_time
from .table import StepRow, make_settings, step_row, summarize
from .timing import kernel_of

HEADLINE = ("step_share", "amdahl", "amdahl_time", "net_speedup", "weight_mask_s", "data_mask_s")
"""The six headline figures every row reports: two FLOP figures, two of time, two mask times."""
HEADLINE_LABELS = {"step_share": "step share", "amdahl": "Amdahl bound (FLOPs)", "amdahl_time": "bound in time",
                   "net_speedup": "net speed-up", "weight_mask_s": "weight masks", "data_mask_s": "data masks"}
HEADLINE_VARIANT = "hyena2_circulant"
RECOMPUTE_INPUT_SPECTRUM = "recompute_input_spectrum"
OPTICAL_BLOCK_SUM = "optical_block_sum"
VARIATIONS = (RECOMPUTE_INPUT_SPECTRUM, OPTICAL_BLOCK_SUM)
"""Alternatives that are not step_row keywords: recomputing the input spectra for dW rather than keeping
them, the circulant block sum done optically."""
HEADLINE_SEQ_LEN = 4096
STREAMED_LINK_RATE = 450e9
"""Bytes per second each way over NVLink 4 (900 GB/s in all on an H100 SXM, nvidia2023h100)."""
FAST_IO_RATE = 1e12
"""An input plane and detector taking 10^12 numbers per second each: about 500 times the idealised device's
pixel rate (an illustrative bank of converters, not a cited device)."""


def _share(x: float) -> str:
    return f"{100 * x:.2f}%"


def _bound(x: float) -> str:
    return f"{x:.3f}x"


def _secs2(x: float) -> str:
    return f"{x:,.2f} s"


def _secs0(x: float) -> str:
    return f"{x:,.0f} s"


FORMATS: dict[str, Callable[[float], str]] = {
    "step_share": _share, "amdahl": _bound, "amdahl_time": _bound, "net_speedup": lambda x: f"{x:.3g}x",
    "weight_mask_s": _secs2, "data_mask_s": _secs0,
    "digital_step_s": _secs2, "hybrid_step_share": _share, "hyena2_step_share": _share,
    "transformer_step_flops": lambda x: f"{x:.3e}",
}
"""How each figure is printed; a figure has moved when this text changes."""


@dataclass(frozen=True)
class Assumption:
    """One convention or illustrative figure: the setting, the default, an alternative and why."""

    name: str
    setting: str
    default: str
    alternative: str
    overrides: dict
    """step_row keywords that throw the switch to the alternative."""
    why: str
    other: str | None = None
    """A figure outside the headline four that the alternative moves (a FORMATS key), if any."""
    variation: str | None = None
    """An alternative that is not a step_row keyword (one of VARIATIONS), applied by `figures`."""


@dataclass(frozen=True)
class AssumptionRow:
    """An assumption with its four headline figures, default and alternative, and any other figure it moves."""

    assumption: Assumption
    default: dict
    """{headline key: value} at the book's defaults."""
    alternative: dict
    """{headline key: value} with the alternative thrown."""
    other: tuple | None
    """(FORMATS key, default value, alternative value), or None."""

    @property
    def moved(self) -> tuple[str, ...]:
        """The headline figures whose printed value the alternative changes."""
        return tuple(k for k in HEADLINE if FORMATS[k](self.default[k]) != FORMATS[k](self.alternative[k]))

    @property
    def robust(self) -> bool:
        """True when none of the four headline figures changes at its printed precision."""
        return not self.moved

    def gain_ratio(self, key: str = "amdahl") -> float:
        """The Amdahl gain above 1 under the alternative over the default's: (bound - 1) / (default bound - 1)."""
        a, d = self.alternative[key] - 1, self.default[key] - 1
        return a / d if d else (1.0 if a == d else math.inf)

    def ratio(self, key: str) -> float:
        """Alternative over default of one headline figure (1 when both are 0)."""
        a, d = self.alternative[key], self.default[key]
        return a / d if d else (1.0 if a == d else math.inf)


def _assumptions() -> tuple[Assumption, ...]:
    c, dev, s = Costs(), Device(), Settings()
    faster = 10
    uhd = 3840 * 2160
    llama_start, llama_end = 4 * s.step_tokens, 16 * s.step_tokens
    return (
        Assumption("FFT price", "fft_constant", f"{c.fft_constant:g} n log2 n per real FFT",
                   f"{2 * c.fft_constant:g} n log2 n", {"fft_constant": 2 * c.fft_constant},
                   "the complex-FFT count, as if each real FFT ran as a complex one"),
        Assumption("Complex multiply-accumulate", "complex_mul_flops",
                   f"multiply {c.complex_mul_flops:g} FLOPs, each accumulating add {c.complex_add_flops:g} more",
                   f"{c.complex_mul_flops + 2:g} FLOPs per multiply-accumulate, adds included",
                   {"complex_mul_flops": c.complex_mul_flops + 2, "complex_add_flops": 0.0},
                   "a complex multiply-accumulate (4 multiplies, 4 adds) charged once: the adds that sum products "
                   "over blocks or over the step are the accumulate, not extra work"),
        Assumption("FMA counting", "flops_per_mac", f"a multiply-add is {c.flops_per_mac:g} FLOPs",
                   "a multiply-add is 1 operation (complex multiply 4)", {"flops_per_mac": 1.0, "complex_mul_flops": 4.0},
                   "counting fused multiply-adds as one operation, as hardware issues them; the FFT price is kept "
                   "(its adds and multiplies pair only in part)"),
        Assumption("Causal halving of attention", "causal_attention",
                   "off (the attention term 12 L S H per token counts every score)",
                   "on (QK^T and AV halved)", {"causal_attention": True},
                   "a kernel that skips the masked half of the scores", other="transformer_step_flops"),
        Assumption("FFT length", "fft_length", f"n = {s.fft_length}", "n = 2S-1", {"fft_length": "2S-1"},
                   "the shortest length with no wrap-around in a causal product; priced at the power-of-two rate, so it "
                   "shows the count difference, not a cheaper transform (2S-1 is odd, prime at the headline length: a "
                   "real code pads to 2S)"),
        Assumption("Mask spectrum", "mask_spectrum", f"{s.mask_spectrum} (n/2+1 values per transform)",
                   "two-sided (n values)", {"mask_spectrum": "two-sided"},
                   "a Fourier plane holds every frequency; Hermitian symmetry saves digital work, not pixels"),
        Assumption("Mask pixels", "pixels", f"{dev.pixels:,.0f} pixels", f"{uhd:,} pixels (3840 x 2160)",
                   {"pixels": float(uhd)}, "a device of 4K resolution"),
        Assumption("Frame rate", "frame_rate", f"{dev.frame_rate_hz:,g} frames/s",
                   f"{faster * dev.frame_rate_hz:,g} frames/s", {"frame_rate": faster * dev.frame_rate_hz},
                   f"a device {faster} times faster"),
        Assumption("Step size (4M)", "step_tokens", f"{s.step_tokens:,} tokens", f"{llama_start:,} tokens",
                   {"step_tokens": llama_start}, "Llama 2's step, and Llama 3's at the start of pre-training",
                   other="digital_step_s"),
        Assumption("Step size (16M)", "step_tokens", f"{s.step_tokens:,} tokens", f"{llama_end:,} tokens",
                   {"step_tokens": llama_end}, "Llama 3's step at the end of pre-training", other="digital_step_s"),
        Assumption("Hybrid ratio", "hybrid_attention_fraction",
                   f"{s.hybrid_attention_fraction:g} of the layers keep attention", "0.5",
                   {"hybrid_attention_fraction": 0.5}, "attention in every other layer",
                   other="hybrid_step_share"),
        Assumption("Block size (smaller)", "block", f"b = {s.block}", f"b = {s.block // 4}", {"block": s.block // 4},
                   "more, smaller circulant blocks"),
        Assumption("Block size (larger)", "block", f"b = {s.block}", f"b = {4 * s.block}", {"block": 4 * s.block},
                   "fewer, larger circulant blocks"),
        Assumption("Recompute", "recompute", f"{s.recompute} (activations kept)",
                   "full (every block's forward again before its backward)", {"recompute": "full"},
                   "activation checkpointing, common in long-sequence training", other="hyena2_step_share"),
        Assumption("Optical speed-up", "optical_speedup", "infinite (the optical work becomes free)",
                   f"{faster} times faster than the GPUs", {"optical_speedup": float(faster)},
                   "a real engine takes time too"),
        Assumption("GPU figures", "gpu_flops", f"{dev.gpus:g} GPUs x {dev.gpu_flops / 1e12:,.0f} TFLOP/s sustained",
                   f"{dev.gpus:g} GPUs x {2.5 * dev.gpu_flops / 1e12:,.0f} TFLOP/s",
                   {"gpu_flops": 2.5 * dev.gpu_flops}, "a faster GPU generation", other="digital_step_s"),
        Assumption("GPU memory bandwidth", "gpu_bandwidth", f"{dev.gpu_bandwidth / 1e12:.2f} TB/s (the HBM peak)",
                   f"{dev.gpu_bandwidth / 2e12:.3g} TB/s sustained", {"gpu_bandwidth": dev.gpu_bandwidth / 2},
                   "FFT and elementwise kernels sustain a fraction of the peak bandwidth (an illustrative half), so "
                   "the work the engine takes costs the GPUs more time"),
        Assumption("LM head", "lm_head", "dense (about 85% of the block-circulant model's step)",
                   "block-circulant, like the model's other matrices", {"lm_head": "circulant"},
                   "the vocabulary projection made circulant (or factorised) too; only the block-circulant model "
                   "has it"),
        Assumption("Layout", "layout", f"{dev.layout} (values fill the frame)",
                   "rows (one spectrum per row, cylindrical optics)", {"layout": "rows"},
                   "one-dimensional transforms need cylindrical optics, each spectrum on rows of its own (chapter 06)"),
        Assumption("Input and readout rates", "input_rate",
                   "like the mask device (input in the mode's encoding, one detector sample per pixel per frame)",
                   f"{FAST_IO_RATE:.0e} numbers per second each", {"input_rate": FAST_IO_RATE},
                   "an input plane and detector far faster than the mask device (an illustrative converter bank)"),
        Assumption("Link to the engine", "link_rate", f"{dev.link_rate / 1e9:.0f} GB/s each way (PCIe 5.0 x16)",
                   f"{STREAMED_LINK_RATE / 1e9:.0f} GB/s each way (NVLink 4)", {"link_rate": STREAMED_LINK_RATE},
                   "the GPUs' own fastest link"),
        Assumption("Engines", "engines", f"{dev.engines:g} engine for the cluster",
                   f"{dev.gpus:g}, one per GPU", {"engines": float(dev.gpus)},
                   "each GPU's own engine streams its share of the data and rewrites every mask (chapter 07)"),
        Assumption("Mask overlap", "mask_overlap", f"{dev.mask_overlap} (the engine waits for its rewrites)",
                   "overlapped (a double-buffered device writes the next masks meanwhile)",
                   {"mask_overlap": "overlapped"}, "two mask devices, or one with two pattern buffers"),
        Assumption("U's spectrum for dW", RECOMPUTE_INPUT_SPECTRUM, "kept from the forward pass",
                   "recomputed: FFT(u) (and each token's block FFTs) again in dW", {},
                   "keeping spectra costs memory (chapter 07); recomputing them costs transforms. Under full "
                   "recompute the recomputed forward rebuilds them anyway", variation=RECOMPUTE_INPUT_SPECTRUM),
        Assumption("Circulant block sum", OPTICAL_BLOCK_SUM, "digital (complex adds after the products)",
                   "optical (coherent superposition of the masked spectra)", {},
                   "an optical engine can sum the q masked block fields by coherent superposition on one output "
                   "region before detection (a square-law detector adds intensities, not fields), then "
                   "inverse-transform the sum and read it out interferometrically (chapter 04)", variation=OPTICAL_BLOCK_SUM),
        Assumption("Where filters are built", "filter_build", "once per optimizer step (a step-level accumulator)",
                   "once per micro-batch on every data-parallel rank", {"filter_build": "micro-batch"},
                   "a real run builds spectra per micro-batch per rank (ledger.run)"),
        *(Assumption(f"Modulator ({name})", "modulator", f"{dev.modulator}: {dev.mode.device}, "
                     f"{dev.frame_rate_hz:,g} Hz, {dev.complex_values_per_pixel:g} value per pixel",
                     f"{name}: {m.frame_rate_hz:,g} Hz for streamed patterns, {m.values_per_pixel:g} value per pixel",
                     {"modulator": name}, f"a cited device: {m.device}; {m.rate_condition}")
          for name, m in MODULATORS.items() if not m.idealised),
    )


ASSUMPTIONS = _assumptions()
"""Every convention and illustrative figure the book rests on, with its alternative."""

_OTHER = {
    "digital_step_s": ({}, "digital_step_s"),
    "hybrid_step_share": ({"variant": "hybrid"}, "step_share"),
    "hyena2_step_share": ({"variant": "hyena2"}, "step_share"),
    "transformer_step_flops": ({"variant": "transformer"}, "step_flops"),
}
OTHER_LABELS = {"digital_step_s": "digital step (counted FLOPs at the sustained rate)", "hybrid_step_share": "hybrid step share",
                "hyena2_step_share": "Hyena-2 step share", "transformer_step_flops": "transformer step FLOPs"}


def headline(row: StepRow) -> dict[str, float]:
    """The four headline figures of one row."""
    return {k: getattr(row, k) for k in HEADLINE}


def variation_items(s: Settings, items: list[LineItem], variations: Iterable[str]) -> list[LineItem]:
    """The step's line items with the item-level variations applied."""
    variations = set(variations)
    unknown = variations - set(VARIATIONS)
    if unknown:
        raise LedgerError(f"variation {sorted(unknown)[0]!r}: must be one of {', '.join(VARIATIONS)}")
    out = list(items)
    if RECOMPUTE_INPUT_SPECTRUM in variations and s.recompute != "full":
        out += [replace(i, op=i.op + " again for dW", phase="dW", mask_values=0.0) for i in items
                if i.phase == "forward" and i.cls == "transform" and i.per != "step"
                and (i.op.endswith("rFFT of u") or i.op.endswith("rFFT of x blocks"))]
    if OPTICAL_BLOCK_SUM in variations:
        out = [replace(i, cls="weight_product") if ("sum over input blocks" in i.op or "sum over output blocks" in i.op)
               else i for i in out]
    return out


@dataclass(frozen=True)
class _Counted:
    """What one setting of the FLOP-side switches gives, before the device is applied."""

    step_flops: float
    step_share: float
    weight_values: float
    data_values: float
    weight_spectra: tuple = ()
    """The weight-mask items: what layout "rows" counts rows from."""
    data_spectra: tuple = ()


class _Sums:
    """Running sums of one step's items: FLOPs, optical FLOPs, mask values."""

    def __init__(self) -> None:
        self.step = self.opt = self.wv = self.dv = 0.0
        self.ws: list = []
        self.ds: list = []

    def add(self, i: LineItem) -> None:
        self.step += i.flops
        if i.cls in OPTICAL_CLASSES:
            self.opt += i.flops
        self.add_masks(i)

    def add_masks(self, i: LineItem) -> None:
        if i.cls == "weight_product":
            self.wv += i.mask_values
            self.ws.append(i)
        elif i.cls == "data_product":
            self.dv += i.mask_values
            self.ds.append(i)

    def counted(self) -> _Counted:
        return _Counted(self.step, share(self.opt, self.step), self.wv, self.dv, tuple(self.ws), tuple(self.ds))


def _count(s: Settings, variations: Iterable[str] = ()) -> _Counted:
    """One pass over the step's items (the reference count the joint grid's shortcut must match)."""
    sums = _Sums()
    for i in variation_items(s, counted_items(s), variations):
        sums.add(i)
    return sums.counted()


def _count_policies(s: Settings, variations: Iterable[str], policies) -> list[_Counted]:
    """The counts of `s` under each (recompute, filter_build) of `policies`, from one list of items.

    Both switches act on items the plain step already lists: full recompute adds every block's forward
    item again (no per-step one, no mask), and building per micro-batch multiplies the per-step items;
    recomputing U's spectrum adds nothing under full recompute. Equal to `_count` with the switches set
    (a test holds them together); one weighted sum per policy instead of a new ledger.
    """
    plain = replace(s, recompute="none", filter_build="step")
    items = variation_items(plain, counted_items(plain), variations)
    builds = run_policy(replace(plain, filter_build="micro-batch")).filter_builds
    flops = np.array([i.flops for i in items])
    optical = np.array([i.cls in OPTICAL_CLASSES for i in items])
    per_step = np.array([i.per == "step" for i in items])
    again = np.array([i.op.endswith("again for dW") for i in items])
    block_forward = np.array([i.phase == "forward" and i.layer in BLOCK_LAYERS and i.per != "step" for i in items])
    sums = _Sums()
    for i in items:
        sums.add_masks(i)
    out = []
    for recompute, filter_build in policies:
        weight = np.where(per_step & (filter_build == "micro-batch"), builds, 1.0)
        if recompute == "full":
            weight = np.where(again, 0.0, weight) + block_forward
        f = flops * weight
        step, opt = float(f.sum()), float((f * optical).sum())
        out.append(_Counted(step, share(opt, step), sums.wv, sums.dv, tuple(sums.ws), tuple(sums.ds)))
    return out


def _figures(c: _Counted, device: Device, speedup: float) -> dict[str, float]:
    """The FLOP figures and mask times of one combination from its counts: the same formulas as ledger.step_row."""
    wf = device.frames(c.weight_values, mask_rows(c.weight_spectra, device))
    df = device.frames(c.data_values, mask_rows(c.data_spectra, device))
    return {"step_share": c.step_share, "amdahl": amdahl(c.step_share, speedup),
            "weight_mask_s": wf / device.frame_rate_hz, "data_mask_s": df / device.frame_rate_hz,
            "digital_step_s": c.step_flops / device.cluster_flops}


def _block_sum(variations: Iterable[str]) -> str:
    return "optical" if OPTICAL_BLOCK_SUM in variations else "digital"


def figures(settings: Settings | None = None, variations: Iterable[str] = (), **overrides: Any) -> dict[str, float]:
    """Every figure of one setting: step share and Amdahl bound on counted FLOPs, mask times, the digital step
    (counted FLOPs at the sustained rate), and from the time model (ledger.step_time) the all-digital step, the
    bound in time, the net speed-up and the mask times in all-digital steps.

    `overrides` are step_row keywords; `variations` names alternatives that are not (VARIATIONS).
    """
    variations = tuple(variations)
    s = make_settings(settings, **overrides)
    out = _figures(_count(s, variations), s.device, s.optical_speedup)
    timed = step_time(s, variation_items(s, step_items(s), variations), _block_sum(variations))
    all_digital = timed.all_digital_step_s
    out.update({"all_digital_step_s": all_digital, "amdahl_time": timed.amdahl_time,
                "net_speedup": timed.net_speedup, "weight_mask_steps": out["weight_mask_s"] / all_digital,
                "data_mask_steps": out["data_mask_s"] / all_digital})
    return out


def _thrown(base: Settings, rows: Iterable[Assumption]) -> tuple[Settings, tuple[str, ...]]:
    rows = list(rows)
    axis_of = _axis_names()
    seen: dict[str, str] = {}
    for a in rows:
        axis = axis_of[a.name]
        if axis in seen and seen[axis] != a.name:
            raise LedgerError(f"assumptions {seen[axis]!r} and {a.name!r} set the same parameter: throw one of them")
        seen[axis] = a.name
    overrides, variations = {}, []
    for a in rows:
        overrides.update(a.overrides)
        if a.variation:
            variations.append(a.variation)
    return make_settings(base, **overrides), tuple(variations)


def figures_with(rows: Iterable[Assumption], settings: Settings | None = None, **overrides: Any) -> dict[str, float]:
    """`figures` with every assumption of `rows` thrown together on top of `settings` (two rows that set one
    parameter are refused, so the order of `rows` never matters)."""
    s, variations = _thrown(make_settings(settings, **overrides), rows)
    return figures(s, variations)


def assumptions_table(settings: Settings | None = None, **overrides: Any) -> list[AssumptionRow]:
    """One row per assumption, its alternative thrown on top of `settings` (default: circulant, S = 4,096)."""
    base = make_settings(settings, **overrides) if (settings or overrides) else \
        make_settings(variant=HEADLINE_VARIANT, seq_len=HEADLINE_SEQ_LEN)
    default = {k: figures(base)[k] for k in HEADLINE}
    rows = []
    for a in ASSUMPTIONS:
        alt = {k: v for k, v in figures_with([a], base).items() if k in HEADLINE}
        other = None
        if a.other is not None:
            if a.other not in _OTHER:
                raise LedgerError(f"other = {a.other!r}: not a figure this table knows")
            extra, key = _OTHER[a.other]
            other = (a.other, getattr(step_row(base, **extra), key),
                     getattr(step_row(base, **extra, **a.overrides), key))
        rows.append(AssumptionRow(a, default, alt, other))
    return rows


# --- the joint view: every alternative together ---------------------------------------------------

JOINT_VARIANTS = ("hyena2", "hybrid", "hyena2_circulant")
"""The variants whose headline figures the joint view ranges over (the transformer has no optical work)."""
JOINT_FIGURES = ("amdahl", "amdahl_time", "net_speedup", "weight_mask_steps", "data_mask_steps")
JOINT_LABELS = {"amdahl": "Amdahl bound (counted FLOPs)", "amdahl_time": "bound in time",
                "net_speedup": "net speed-up", "weight_mask_steps": "weight masks / all-digital step",
                "data_mask_steps": "data masks / all-digital step"}
TIME_FIGURES = ("amdahl_time", "net_speedup", "weight_mask_steps", "data_mask_steps")
"""Figures of seconds: no counting convention moves them, so their grid leaves the conventions at the defaults."""


def _compatible(rows) -> bool:
    """A combination the grid counts: a frame-rate override is an alternative to the idealised device's rate,
    so it is not thrown on top of a cited modulator mode (that would leave the cited device)."""
    keys = {k for a in rows for k in a.overrides}
    return not ({"modulator", "frame_rate"} <= keys)


def _keys(a: Assumption) -> set[str]:
    return set(a.overrides) | ({a.variation} if a.variation else set())


@functools.cache
def _axis_names() -> dict[str, str]:
    """{assumption name: its axis}: rows whose settings overlap (FMA counting and the complex
    multiply-accumulate both set complex_mul_flops) are alternatives on one axis."""
    groups: list[tuple[set[str], list[Assumption]]] = []
    for a in ASSUMPTIONS:
        keys = _keys(a) or {a.setting}
        joined = [g for g in groups if g[0] & keys]
        merged_keys, merged_rows = set(keys), [a]
        for g in joined:
            merged_keys |= g[0]
            merged_rows = g[1] + merged_rows
            groups.remove(g)
        groups.append((merged_keys, merged_rows))
    return {a.name: rows[0].setting for keys, rows in groups for a in rows}


def axes() -> dict[str, list[Assumption | None]]:
    """The switches as grid axes: {axis: [None (the default), alternative, ...]}; rows that set the same parameter
    share an axis (named by the first row's setting)."""
    axis_of = _axis_names()
    out: dict[str, list] = {}
    for a in ASSUMPTIONS:
        out.setdefault(axis_of[a.name], [None]).append(a)
    return out


def _is_post(choices) -> bool:
    """An axis the counted items do not depend on: the engine's and the cluster's figures, the optical speed-up."""
    return all(not a.variation and set(a.overrides) <= set(DEVICE_FIELDS) | {"optical_speedup"}
               for a in choices if a is not None)


def _is_convention(choices) -> bool:
    """An axis of counting conventions only: it moves counts and FLOP shares, never a second."""
    return all(not a.variation and set(a.overrides) <= set(COST_FIELDS) for a in choices if a is not None)


@dataclass(frozen=True)
class JointRange:
    """The lowest and highest value of one figure of one variant over the grid of all alternatives together."""

    variant: str
    figure: str
    default: float
    low: float
    low_combination: tuple[str, ...]
    """The assumptions thrown (names) that give the lowest value; () is the defaults."""
    high: float
    high_combination: tuple[str, ...]

    def to_json(self) -> dict:
        return {"variant": self.variant, "figure": self.figure, "default": self.default, "low": self.low,
                "low_combination": list(self.low_combination), "high": self.high,
                "high_combination": list(self.high_combination)}


@dataclass(frozen=True)
class JointView:
    ranges: tuple[JointRange, ...]
    combinations: dict
    """{variant: combinations evaluated} (switches that cannot change a variant are left at their default)."""
    counted: int
    """Step ledgers counted (the expensive part); device switches reuse them."""
    seconds: float

    def get(self, variant: str, figure: str) -> JointRange:
        for r in self.ranges:
            if (r.variant, r.figure) == (variant, figure):
                return r
        raise LedgerError(f"no joint range for {variant!r}, {figure!r}: variants {', '.join(JOINT_VARIANTS)}, "
                          f"figures {', '.join(JOINT_FIGURES)}")


def _relevant(base: Settings, choices) -> bool:
    """Whether any alternative of a FLOP-side axis changes the variant's line items at all."""
    default = variation_items(base, counted_items(base), ())
    for a in choices[1:]:
        try:
            s, variations = _thrown(base, [a])
        except LedgerError:
            continue
        if variation_items(s, counted_items(s), variations) != default:
            return True
    return False


def _posts(base: Settings, post_axes: dict) -> list[tuple[tuple[str, ...], Settings]]:
    """Every compatible combination of the device-side axes, with the settings it gives."""
    out = []
    for post in itertools.product(*post_axes.values()):
        rows = [a for a in post if a is not None]
        if _compatible(rows):
            out.append((tuple(a.name for a in rows), _thrown(base, rows)[0]))
    return out


def _combinations(base: Settings, grid_axes: dict):
    """(rows thrown, settings, variations) of every combination of the axes' choices that the ledger accepts
    (a step size that a sequence length does not divide, say, is left out)."""
    for choice in itertools.product(*grid_axes.values()):
        rows = [a for a in choice if a is not None]
        try:
            s, variations = _thrown(base, rows)
        except LedgerError:
            continue
        yield rows, s, variations


def _keep(best: dict, figure: str, values, names: list[tuple[str, ...]]) -> None:
    b = best[figure]
    lo, hi = int(np.argmin(values)), int(np.argmax(values))
    if values[lo] < b[0]:
        b[0], b[1] = float(values[lo]), names[lo]
    if values[hi] > b[2]:
        b[2], b[3] = float(values[hi]), names[hi]


def _flop_grid(variant: str, base: Settings, grid: dict, best: dict) -> tuple[int, int]:
    """The Amdahl bound on counted FLOPs over every combination (the device-side axes but the speed-up move it not)."""
    post_axes = {k: v for k, v in grid.items() if _is_post(v)}
    speedups = [(names, s.optical_speedup) for names, s in _posts(base, {k: v for k, v in post_axes.items()
                                                                        if k == "optical_speedup"})]
    speed = np.array([sp for _, sp in speedups])
    flop_axes = {k: v for k, v in grid.items() if k not in post_axes and _relevant(base, v)}
    policy_axes = [flop_axes.pop(k, [None]) for k in ("recompute", "filter_build")]
    policy_rows = list(itertools.product(*policy_axes))
    n = counted = 0
    for pre_rows, s, variations in _combinations(base, flop_axes):
        policies = [tuple((_thrown(s, [a])[0] if a else s).__getattribute__(k) for a, k in zip(rows, ("recompute", "filter_build")))
                    for rows in policy_rows]
        counted += 1
        for rows, c in zip(policy_rows, _count_policies(s, variations, policies)):
            thrown = tuple(a.name for a in pre_rows + [a for a in rows if a is not None])
            with np.errstate(divide="ignore"):
                values = 1.0 / ((1.0 - c.step_share) + c.step_share / speed)
            n += len(speed)
            _keep(best, "amdahl", values, [thrown + names for names, _ in speedups])
    return n, counted


def _frames(weight: list[LineItem], data: list[LineItem], device: Device) -> tuple[int, int]:
    """(weight-mask frames, data-mask frames) of the masked items on `device`: what ledger.masks.mask_budget counts."""
    rows = device.layout == "rows"
    return (device.frames(sum(i.mask_values for i in weight), mask_rows(weight, device) if rows else 0.0),
            device.frames(sum(i.mask_values for i in data), mask_rows(data, device) if rows else 0.0))


def _time_grid(variant: str, base: Settings, grid: dict, best: dict) -> tuple[int, int]:
    """The figures of seconds over every combination of the axes that can move them (no counting convention)."""
    post_axes = {k: v for k, v in grid.items() if _is_post(v)}
    posts = _posts(base, post_axes)
    names = [n for n, _ in posts]
    engines = [s.device for _, s in posts]
    gpu_keys = sorted({(e.gpu_flops, e.gpu_vector_flops, e.gpu_bandwidth, e.gpu_bytes_per_value, e.gpus) for e in engines})
    gpu_of = np.array([gpu_keys.index((e.gpu_flops, e.gpu_vector_flops, e.gpu_bandwidth, e.gpu_bytes_per_value,
                                       e.gpus)) for e in engines])
    io = np.array([e.io_rate for e in engines])
    detector = np.array([e.detector_rate for e in engines])
    samples = np.array([READOUTS[e.readout] for e in engines])
    link = np.array([e.link_rate for e in engines])
    link_bytes = np.array([e.link_bytes_per_value for e in engines])
    frame_rate = np.array([e.frame_rate_hz for e in engines])
    overlapped = np.array([e.mask_overlap == "overlapped" for e in engines])
    speedup = np.array([s.optical_speedup for _, s in posts])
    engines_n = np.array([e.engines for e in engines])
    mask_keys = sorted({(e.modulator, e.frame_rate, e.values_per_pixel, e.pixels, e.layout, e.row_pixels)
                        for e in engines}, key=repr)
    mask_of = np.array([mask_keys.index((e.modulator, e.frame_rate, e.values_per_pixel, e.pixels, e.layout,
                                         e.row_pixels)) for e in engines])
    mask_engine = {k: next(e for e in engines if (e.modulator, e.frame_rate, e.values_per_pixel, e.pixels, e.layout,
                                                  e.row_pixels) == k) for k in mask_keys}
    pre_axes = {k: v for k, v in grid.items() if k not in post_axes and not _is_convention(v) and _relevant(base, v)}
    n = counted = 0
    for pre_rows, s, variations in _combinations(base, pre_axes):
        counted += 1
        items = variation_items(s, step_items(s), variations)
        gpu_items = hardware_items(s, items)
        work = np.array([i.reference_flops for i in gpu_items])
        moved = np.array([i.moved for i in gpu_items])
        tensor = np.array([kernel_of(i) in TENSOR_KERNELS for i in gpu_items])
        static = np.array([i.cls in STATIC_CLASSES for i in gpu_items])
        rest_s, engine_s = [], []
        for gf, vf, bw, bpv, gpus in gpu_keys:
            t = np.where(tensor, work / gf, np.maximum(work / vf, moved * bpv / bw)) / gpus
            rest_s.append(float(t[~static].sum()))
            engine_s.append(float(t[static].sum()))
        rest, engine_work = np.array(rest_s)[gpu_of], np.array(engine_s)[gpu_of]
        crossing = conversions(s, items, mode="fused", block_sum=_block_sum(variations))
        weight = [i for i in items if i.cls == "weight_product" and i.mask_values]
        data = [i for i in items if i.cls == "data_product" and i.mask_values]
        frames = [_frames(weight, data, mask_engine[k]) for k in mask_keys]
        weight_s = np.array([w for w, _ in frames])[mask_of] / frame_rate
        data_s = np.array([d for _, d in frames])[mask_of] / frame_rate
        stream = np.maximum.reduce([crossing.values_in / io, crossing.values_out * samples / detector,
                                    max(crossing.values_in, crossing.values_out) * link_bytes / link,
                                    np.where(np.isinf(speedup), 0.0, engine_work / speedup)]) / engines_n
        engine = np.where(overlapped, np.maximum(stream, weight_s), stream + weight_s)
        all_digital = rest + engine_work
        time_share = engine_work / all_digital
        figures_now = {"amdahl_time": 1.0 / (1.0 - time_share), "net_speedup": all_digital / (rest + engine),
                       "weight_mask_steps": weight_s / all_digital, "data_mask_steps": data_s / all_digital}
        thrown = tuple(a.name for a in pre_rows)
        combined = [thrown + p for p in names]
        n += len(posts)
        for f, values in figures_now.items():
            _keep(best, f, values, combined)
    return n, counted


def joint_view(seq_len: int = HEADLINE_SEQ_LEN) -> JointView:
    """Every combination of every alternative (all switches at once), per Hyena variant: each figure's range.

    The bound on counted FLOPs ranges over every axis; the figures of seconds over every axis but the counting
    conventions, which move no second (a test holds every time figure fixed under each of them)."""
    return _joint_view(seq_len)


@functools.lru_cache(maxsize=4)
def _joint_view(seq_len: int) -> JointView:
    t0 = time.perf_counter()
    grid = axes()
    ranges, combos, counted = [], {}, 0
    for variant in JOINT_VARIANTS:
        base = make_settings(variant=variant, seq_len=seq_len)
        default = figures(base)
        best = {f: [default[f], (), default[f], ()] for f in JOINT_FIGURES}
        n_flop, c_flop = _flop_grid(variant, base, grid, best)
        n_time, c_time = _time_grid(variant, base, grid, best)
        combos[variant] = n_flop + n_time
        counted += c_flop + c_time
        ranges += [JointRange(variant, f, default[f], *best[f]) for f in JOINT_FIGURES]
    return JointView(tuple(ranges), combos, counted, time.perf_counter() - t0)


def by_name(name: str) -> Assumption:
    """The assumption called `name`; a LedgerError naming the known ones if there is none."""
    for a in ASSUMPTIONS:
        if a.name == name:
            return a
    raise LedgerError(f"assumption {name!r}: known are {', '.join(a.name for a in ASSUMPTIONS)}")


def figures_of_combination(variant: str, names: Iterable[str], seq_len: int = HEADLINE_SEQ_LEN) -> dict[str, float]:
    """Recount one combination from scratch (the check that a joint extreme is what its combination gives)."""
    return figures_with([by_name(n) for n in names], variant=variant, seq_len=seq_len)


def to_json(seq_len: int = HEADLINE_SEQ_LEN) -> dict:
    """The rows (one per assumption, block-circulant Hyena-2) and the joint ranges, for the CLI."""
    rows = []
    for r in assumptions_table(seq_len=seq_len, variant=HEADLINE_VARIANT):
        a = r.assumption
        rows.append({"name": a.name, "setting": a.setting, "default": a.default, "alternative": a.alternative,
                     "overrides": a.overrides, "variation": a.variation, "why": a.why,
                     "default_figures": r.default, "alternative_figures": r.alternative, "moved": list(r.moved)})
    view = joint_view(seq_len)
    return {"variant": HEADLINE_VARIANT, "seq_len": seq_len, "rows": rows,
            "joint": [r.to_json() for r in view.ranges],
            "joint_combinations": view.combinations, "joint_counted": view.counted,
            "joint_seconds": view.seconds}


def main(argv: list[str]) -> int:
    """`python -m ledger assumptions [--json]`: every assumption's row and the joint ranges."""
    import json
    import sys
    if argv not in ([], ["--json"]):
        sys.stderr.write(f"python -m ledger assumptions: error: unknown arguments {' '.join(argv)!r} (allowed: --json)\n")
        return 2
    data = to_json()
    if argv == ["--json"]:
        json.dump(data, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for r in data["rows"]:
        moved = ", ".join(r["moved"]) or "none of the four"
        print(f"{r['name']}: {r['default']} -> {r['alternative']}  (moves {moved})")
    print("joint ranges (every alternative together):")
    for j in data["joint"]:
        print(f"  {j['variant']} {JOINT_LABELS[j['figure']]}: {j['low']:.4g} to {j['high']:.4g} (default {j['default']:.4g})")
    return 0
