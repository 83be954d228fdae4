"""The book's conventions and illustrative figures, each with an alternative and what it changes.

One row per assumption: the setting it is, the book's default, a plausible alternative, and the four
headline figures (the block-circulant Hyena-2 step share at 4,096 tokens, its Amdahl bound, and its
weight-mask and data-mask rewrite times per step) under that alternative, beside the default's. A
figure counts as moved when its printed value (the precision the book prints it at) changes. Where an
assumption leaves all four alone, `other` names the figure it does move. Every number is a
`ledger.step_row`; nothing here counts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from .costs import Costs
from .errors import LedgerError
from .settings import Device, Settings
from .table import StepRow, make_settings, step_row

HEADLINE = ("step_share", "amdahl", "weight_mask_s", "data_mask_s")
"""The four headline figures every row reports."""
HEADLINE_LABELS = {"step_share": "step share", "amdahl": "Amdahl bound", "weight_mask_s": "weight masks",
                   "data_mask_s": "data masks"}
HEADLINE_VARIANT = "hyena2_circulant"
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

    def ratio(self, key: str) -> float:
        """Alternative over default of one headline figure (1 when both are 0)."""
        a, d = self.alternative[key], self.default[key]
        return a / d if d else (1.0 if a == d else math.inf)


def _assumptions() -> tuple[Assumption, ...]:
    c, dev, s = Costs(), Device(), Settings()
    superpixel = 4 * 4
    faster = 10
    uhd = 3840 * 2160
    return (
        Assumption("FFT price", "fft_constant", f"{c.fft_constant:g} n log2 n per real FFT",
                   f"{2 * c.fft_constant:g} n log2 n", {"fft_constant": 2 * c.fft_constant},
                   "the complex-FFT count, as if each real FFT ran as a complex one"),
        Assumption("Complex-multiply price", "complex_mul_flops", f"{c.complex_mul_flops:g} FLOPs",
                   f"{c.complex_mul_flops + 2:g} FLOPs", {"complex_mul_flops": c.complex_mul_flops + 2},
                   "a complex multiply-accumulate: 4 multiplies and 4 adds"),
        Assumption("Causal halving of attention", "causal_attention", "off (the 6N rule's 12LSH term)",
                   "on (QK^T and AV halved)", {"causal_attention": True},
                   "a kernel that skips the masked half of the scores", other="transformer_step_flops"),
        Assumption("FFT length", "fft_length", f"n = {s.fft_length}", "n = 2S-1", {"fft_length": "2S-1"},
                   "the shortest length with no wrap-around in a causal product"),
        Assumption("Mask spectrum", "mask_spectrum", f"{s.mask_spectrum} (n/2+1 values per transform)",
                   "two-sided (n values)", {"mask_spectrum": "two-sided"},
                   "a Fourier plane holds every frequency; Hermitian symmetry saves digital work, not pixels"),
        Assumption("Values per pixel", "values_per_pixel", f"{dev.complex_values_per_pixel:g} complex value per pixel",
                   f"1/{superpixel} ({superpixel} binary mirrors per complex value)",
                   {"values_per_pixel": 1 / superpixel},
                   "binary micromirrors encode a complex value in a 4 x 4 group (a superpixel)"),
        Assumption("Mask pixels", "pixels", f"{dev.pixels:,.0f} pixels", f"{uhd:,} pixels (3840 x 2160)",
                   {"pixels": float(uhd)}, "a device of 4K resolution"),
        Assumption("Frame rate", "frame_rate", f"{dev.frame_rate_hz:,g} frames/s",
                   f"{faster * dev.frame_rate_hz:,g} frames/s", {"frame_rate": faster * dev.frame_rate_hz},
                   f"a device {faster} times faster"),
        Assumption("Step size", "step_tokens", f"{s.step_tokens:,} tokens", f"{4 * s.step_tokens:,} tokens",
                   {"step_tokens": 4 * s.step_tokens}, "a larger batch, as longer runs use",
                   other="digital_step_s"),
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


def assumptions_table(settings: Settings | None = None, **overrides: Any) -> list[AssumptionRow]:
    """One row per assumption, its alternative thrown on top of `settings` (default: circulant, S = 4,096)."""
    base = make_settings(settings, **overrides) if (settings or overrides) else \
        make_settings(variant=HEADLINE_VARIANT, seq_len=HEADLINE_SEQ_LEN)
    default = headline(step_row(base))
    rows = []
    for a in ASSUMPTIONS:
        alt = headline(step_row(base, **a.overrides))
        other = None
        if a.other is not None:
            if a.other not in _OTHER:
                raise LedgerError(f"other = {a.other!r}: not a figure this table knows")
            extra, key = _OTHER[a.other]
            other = (a.other, getattr(step_row(base, **extra), key),
                     getattr(step_row(base, **extra, **a.overrides), key))
        rows.append(AssumptionRow(a, default, alt, other))
    return rows
