"""The book's conventions and illustrative figures, each with an alternative and what it changes.

One row per assumption: the setting it is, the book's default, a plausible alternative, and the four
headline figures (the block-circulant Hyena-2 step share at 4,096 tokens, its Amdahl bound, and its
weight-mask and data-mask rewrite times per step) under that alternative, beside the default's. A
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

from .costs import Costs
from .engine import MODULATORS
from .errors import LedgerError
from .layers import OPTICAL_CLASSES, LineItem
from .masks import mask_rows
from .run import run_policy
from .settings import Device, Settings
from .shares import amdahl, share
from .step import BLOCK_LAYERS, step_items
from .table import StepRow, make_settings, step_row, summarize
from .timing import KERNELS, kernel_of

HEADLINE = ("step_share", "amdahl", "weight_mask_s", "data_mask_s")
"""The four headline figures every row reports."""
HEADLINE_LABELS = {"step_share": "step share", "amdahl": "Amdahl bound", "weight_mask_s": "weight masks",
                   "data_mask_s": "data masks"}
HEADLINE_VARIANT = "hyena2_circulant"
GPU_TIME_SHARE = "gpu_time_share"
RECOMPUTE_INPUT_SPECTRUM = "recompute_input_spectrum"
OPTICAL_BLOCK_SUM = "optical_block_sum"
VARIATIONS = (GPU_TIME_SHARE, RECOMPUTE_INPUT_SPECTRUM, OPTICAL_BLOCK_SUM)
"""Alternatives that are not step_row keywords: the share by GPU time rather than FLOPs, recomputing
the input spectra for dW rather than keeping them, the circulant block sum done optically."""
TIME_SHARE_SLOWDOWN = 10.0
"""Under the GPU-time share: FFTs and elementwise work run at 1/10 of the matmul rate (illustrative)."""
HEADLINE_SEQ_LEN = 4096


def _share(x: float) -> str:
    return f"{100 * x:.2f}%"


def _bound(x: float) -> str:
    return f"{x:.3f}x"


def _secs2(x: float) -> str:
    return f"{x:,.2f} s"


def _secs0(x: float) -> str:
    return f"{x:,.0f} s"


FORMATS: dict[str, Callable[[float], str]] = {
    "step_share": _share, "amdahl": _bound, "weight_mask_s": _secs2, "data_mask_s": _secs0,
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

    def gain_ratio(self) -> float:
        """The Amdahl gain above 1 under the alternative over the default's: (bound - 1) / (default bound - 1)."""
        a, d = self.alternative["amdahl"] - 1, self.default["amdahl"] - 1
        return a / d if d else (1.0 if a == d else math.inf)

    def ratio(self, key: str) -> float:
        """Alternative over default of one headline figure (1 when both are 0)."""
        a, d = self.alternative[key], self.default[key]
        return a / d if d else (1.0 if a == d else math.inf)


def _assumptions() -> tuple[Assumption, ...]:
    c, dev, s = Costs(), Device(), Settings()
    superpixel = 4 * 4
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
        Assumption("Share of FLOPs or of GPU time", GPU_TIME_SHARE, "FLOP share (every FLOP takes the same time)",
                   f"GPU-time share (FFTs and elementwise work at 1/{TIME_SHARE_SLOWDOWN:g} of the matmul rate)", {},
                   "FFTs and elementwise products are memory-bound on a GPU and run far below its matmul rate "
                   "(ledger.timing; chapter 16 measures the rates)", variation=GPU_TIME_SHARE),
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
        *(Assumption(f"Modulator ({label})", "modulator", f"{dev.modulator}: {dev.mode.device}, "
                     f"{dev.frame_rate_hz:,g} Hz, {dev.complex_values_per_pixel:g} value per pixel",
                     f"{name}: {MODULATORS[name].frame_rate_hz:,g} Hz, {MODULATORS[name].values_per_pixel:g} "
                     "value per pixel", {"modulator": name}, f"a cited device: {MODULATORS[name].encoding}")
          for name, label in (("dmd-superpixel", "binary superpixel"), ("dmd-lee", "binary Lee hologram"),
                              ("lcos-double-phase", "phase-only LCOS")) if name in MODULATORS),
    )


ASSUMPTIONS = _assumptions()
"""Every convention and illustrative figure the book rests on, with its alternative."""

_OTHER = {
    "digital_step_s": ({}, "digital_step_s"),
    "hybrid_step_share": ({"variant": "hybrid"}, "step_share"),
    "hyena2_step_share": ({"variant": "hyena2"}, "step_share"),
    "transformer_step_flops": ({"variant": "transformer"}, "step_flops"),
}
OTHER_LABELS = {"digital_step_s": "digital step time", "hybrid_step_share": "hybrid step share",
                "hyena2_step_share": "Hyena-2 step share", "transformer_step_flops": "transformer step FLOPs"}


def headline(row: StepRow) -> dict[str, float]:
    """The four headline figures of one row."""
    return {k: getattr(row, k) for k in HEADLINE}


def variation_items(s: Settings, items: list[LineItem], variations: Iterable[str]) -> list[LineItem]:
    """The step's line items with the item-level variations applied (GPU_TIME_SHARE changes no item)."""
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
    """What one setting of the FLOP-side switches gives, before the device and the share basis are applied."""

    step_flops: float
    step_share: float
    kernel_flops: tuple
    optical_kernel_flops: tuple
    weight_values: float
    data_values: float
    weight_spectra: tuple = ()
    """((spectra, values per spectrum), ...) of the weight masks: what layout "rows" counts rows from."""
    data_spectra: tuple = ()


_KERNEL_OF: dict = {}


class _Sums:
    """Running sums of one step's items: FLOPs, optical FLOPs, FLOPs by kernel kind, mask values."""

    def __init__(self) -> None:
        self.kf, self.okf = dict.fromkeys(KERNELS, 0.0), dict.fromkeys(KERNELS, 0.0)
        self.step = self.opt = self.wv = self.dv = 0.0
        self.ws: list = []
        self.ds: list = []

    def add(self, i: LineItem, factor: float = 1.0, masks: bool = True) -> None:
        key = (i.op, i.cls)
        k = _KERNEL_OF.get(key) or _KERNEL_OF.setdefault(key, kernel_of(i))
        f = factor * i.flops
        self.step += f
        self.kf[k] += f
        if i.cls in OPTICAL_CLASSES:
            self.opt += f
            self.okf[k] += f
        if masks:
            self.add_masks(i)

    def add_masks(self, i: LineItem) -> None:
        if i.cls == "weight_product":
            self.wv += i.mask_values
            self.ws.append(i)
        elif i.cls == "data_product":
            self.dv += i.mask_values
            self.ds.append(i)

    def counted(self) -> _Counted:
        return _Counted(self.step, share(self.opt, self.step), tuple(self.kf.items()), tuple(self.okf.items()),
                        self.wv, self.dv, tuple(self.ws), tuple(self.ds))


def _count(s: Settings, variations: Iterable[str] = ()) -> _Counted:
    """One pass over the step's items (the reference count the joint grid's shortcut must match)."""
    sums = _Sums()
    for i in variation_items(s, step_items(s), variations):
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
    items = variation_items(plain, step_items(plain), variations)
    builds = run_policy(replace(plain, filter_build="micro-batch")).filter_builds
    kernel_index = {k: j for j, k in enumerate(KERNELS)}
    kernels = np.array([kernel_index[_KERNEL_OF.get((i.op, i.cls)) or _KERNEL_OF.setdefault((i.op, i.cls), kernel_of(i))]
                        for i in items])
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
        kf = np.bincount(kernels, f, minlength=len(KERNELS))
        okf = np.bincount(kernels, f * optical, minlength=len(KERNELS))
        step, opt = float(f.sum()), float((f * optical).sum())
        out.append(_Counted(step, share(opt, step), tuple(zip(KERNELS, map(float, kf))),
                            tuple(zip(KERNELS, map(float, okf))), sums.wv, sums.dv, tuple(sums.ws), tuple(sums.ds)))
    return out


def _figures(c: _Counted, device: Device, speedup: float, time_share: bool) -> dict[str, float]:
    """Every figure of one combination from its counts: the same formulas as ledger.step_row."""
    if time_share:
        slow = device.gpu_flops / TIME_SHARE_SLOWDOWN
        rate = {"matmul": device.gpu_flops, "block_product": device.gpu_flops}
        step_t = sum(f / rate.get(k, slow) for k, f in c.kernel_flops)
        opt_t = sum(f / rate.get(k, slow) for k, f in c.optical_kernel_flops)
        p, digital = share(opt_t, step_t), step_t / device.gpus
    else:
        p, digital = c.step_share, c.step_flops / device.cluster_flops
    wf = device.frames(c.weight_values, mask_rows(c.weight_spectra, device))
    df = device.frames(c.data_values, mask_rows(c.data_spectra, device))
    wm, dm = wf / device.frame_rate_hz, df / device.frame_rate_hz
    return {"step_share": p, "amdahl": amdahl(p, speedup), "weight_mask_s": wm, "data_mask_s": dm,
            "digital_step_s": digital, "weight_mask_steps": wm / digital, "data_mask_steps": dm / digital}


def figures(settings: Settings | None = None, variations: Iterable[str] = (), **overrides: Any) -> dict[str, float]:
    """Step share, Amdahl bound, mask times (s and in digital steps) and digital step time of one setting.

    `overrides` are step_row keywords; `variations` names alternatives that are not (VARIATIONS).
    """
    variations = tuple(variations)
    s = make_settings(settings, **overrides)
    return _figures(_count(s, variations), s.device, s.optical_speedup, GPU_TIME_SHARE in variations)


def _thrown(base: Settings, rows: Iterable[Assumption]) -> tuple[Settings, tuple[str, ...]]:
    overrides, variations = {}, []
    for a in rows:
        overrides.update(a.overrides)
        if a.variation:
            variations.append(a.variation)
    return make_settings(base, **overrides), tuple(variations)


def figures_with(rows: Iterable[Assumption], settings: Settings | None = None, **overrides: Any) -> dict[str, float]:
    """`figures` with every assumption of `rows` thrown together on top of `settings`."""
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
JOINT_FIGURES = ("amdahl", "weight_mask_steps", "data_mask_steps")
JOINT_LABELS = {"amdahl": "Amdahl bound", "weight_mask_steps": "weight masks / digital step",
                "data_mask_steps": "data masks / digital step"}
_POST_KEYS = {"modulator", "pixels", "values_per_pixel", "frame_rate", "gpus", "gpu_flops", "optical_speedup"}


def _compatible(rows) -> bool:
    """A combination the grid counts: a frame-rate override is an alternative to the idealised device's rate,
    so it is not thrown on top of a cited modulator mode (that would leave the cited device)."""
    keys = {k for a in rows for k in a.overrides}
    return not ({"modulator", "frame_rate"} <= keys)


def axes() -> dict[str, list[Assumption | None]]:
    """The switches as grid axes: {setting: [None (the default), alternative, ...]}; rows on one setting share an axis."""
    out: dict[str, list] = {}
    for a in ASSUMPTIONS:
        out.setdefault(a.setting, [None]).append(a)
    return out


def _post_arrays(posts) -> dict:
    """The device-side settings of every post combination as arrays (one entry per combination)."""
    return {"values_per_frame": np.array([d.values_per_frame for _, d, _, _ in posts]),
            "frame_rate": np.array([d.frame_rate_hz for _, d, _, _ in posts]),
            "cluster_flops": np.array([d.cluster_flops for _, d, _, _ in posts]),
            "speedup": np.array([sp for _, _, sp, _ in posts]),
            "time_share": np.array([ts for _, _, _, ts in posts])}


def _figures_many(c: _Counted, post: dict) -> dict:
    """`_figures` for every post combination at once (numpy), the same formulas."""
    slow = TIME_SHARE_SLOWDOWN
    fast_kernels = ("matmul", "block_product")
    step_t = sum(f * (1 if k in fast_kernels else slow) for k, f in c.kernel_flops)  # x gpu_flops seconds
    opt_t = sum(f * (1 if k in fast_kernels else slow) for k, f in c.optical_kernel_flops)
    ts = post["time_share"]
    p = np.where(ts, opt_t / step_t, c.step_share)
    digital = np.where(ts, step_t, c.step_flops) / post["cluster_flops"]
    with np.errstate(divide="ignore"):
        amd = 1.0 / ((1.0 - p) + p / post["speedup"])
    wf = np.ceil(c.weight_values / post["values_per_frame"]) if c.weight_values > 0 else 0.0
    df = np.ceil(c.data_values / post["values_per_frame"]) if c.data_values > 0 else 0.0
    return {"amdahl": amd, "weight_mask_steps": wf / post["frame_rate"] / digital,
            "data_mask_steps": df / post["frame_rate"] / digital}


def _is_post(choices) -> bool:
    """An axis the counted items do not depend on: device figures, the speed-up, the share basis."""
    return all(a.variation == GPU_TIME_SHARE or (not a.variation and set(a.overrides) <= _POST_KEYS)
               for a in choices if a is not None)


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
    """Step ledgers counted (the expensive part); device and share-basis switches reuse them."""
    seconds: float

    def get(self, variant: str, figure: str) -> JointRange:
        for r in self.ranges:
            if (r.variant, r.figure) == (variant, figure):
                return r
        raise LedgerError(f"no joint range for {variant!r}, {figure!r}: variants {', '.join(JOINT_VARIANTS)}, "
                          f"figures {', '.join(JOINT_FIGURES)}")


def _relevant(base: Settings, choices) -> bool:
    """Whether any alternative of a FLOP-side axis changes the variant's line items at all."""
    default = variation_items(base, step_items(base), ())
    for a in choices[1:]:
        s, variations = _thrown(base, [a])
        if variation_items(s, step_items(s), variations) != default:
            return True
    return False


def joint_view(seq_len: int = HEADLINE_SEQ_LEN) -> JointView:
    """Every combination of every alternative (all switches at once), per Hyena variant: each figure's range."""
    return _joint_view(seq_len)


@functools.lru_cache(maxsize=4)
def _joint_view(seq_len: int) -> JointView:
    t0 = time.perf_counter()
    grid = axes()
    post_axes = {k: v for k, v in grid.items() if _is_post(v)}
    ranges, combos, counted = [], {}, 0
    for variant in JOINT_VARIANTS:
        base = make_settings(variant=variant, seq_len=seq_len)
        if base.device.layout != "packed":
            raise LedgerError("the joint grid counts the packed layout (the engine's default)")
        flop_axes = {k: v for k, v in grid.items() if k not in post_axes and _relevant(base, v)}
        default = figures(base)
        best = {f: [default[f], (), default[f], ()] for f in JOINT_FIGURES}
        posts = []  # the device-side switches touch no line item: settle them once per variant
        for post in itertools.product(*post_axes.values()):
            post_rows = [a for a in post if a is not None]
            if not _compatible(post_rows):
                continue
            ps, pv = _thrown(base, post_rows)
            posts.append((tuple(a.name for a in post_rows), ps.device, ps.optical_speedup, GPU_TIME_SHARE in pv))
        post_arrays = _post_arrays(posts)
        n = 0
        # recompute and where filters are built act on items the plain step lists: one count serves all four
        policy_axes = [flop_axes.pop(k, [None]) for k in ("recompute", "filter_build")]
        policy_rows = list(itertools.product(*policy_axes))
        for pre in itertools.product(*flop_axes.values()):
            pre_rows = [a for a in pre if a is not None]
            try:
                s, variations = _thrown(base, pre_rows)
            except LedgerError:
                continue  # e.g. a step size that a sequence length does not divide
            policies = [tuple((_thrown(s, [a])[0] if a else s).__getattribute__(k) for a, k in zip(rows, ("recompute", "filter_build")))
                        for rows in policy_rows]
            counted += 1
            for rows, c in zip(policy_rows, _count_policies(s, variations, policies)):
                thrown = pre_rows + [a for a in rows if a is not None]
                fig = _figures_many(c, post_arrays)
                n += len(posts)
                for f in JOINT_FIGURES:
                    b, values = best[f], fig[f]
                    lo, hi = int(np.argmin(values)), int(np.argmax(values))
                    if values[lo] < b[0]:
                        b[0], b[1] = float(values[lo]), tuple(a.name for a in thrown) + posts[lo][0]
                    if values[hi] > b[2]:
                        b[2], b[3] = float(values[hi]), tuple(a.name for a in thrown) + posts[hi][0]
        combos[variant] = n
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
