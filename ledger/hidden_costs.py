"""Costs a FLOP share does not show, per optimizer step: conversions in and out of the optics,
the precision a gradient asks for, and (from masks.py) the mask rewrites.

Conversions. Every optical transform takes its input from the digital side and hands its output
back. The count is in real numbers (scalars a converter handles; a complex bin is two). A long
convolution's input is S samples (the zero padding to n = 2S is dark pixels, no conversion) and
only its first S outputs are kept; a circulant block is b samples. Two bounds:
- "separate": every transform is its own trip (input and output of each rFFT and inverse rFFT); a
  mask product rides on the trip of the inverse transform it feeds (its spectrum goes in through
  the mask);
- "fused": a 4f pass does rFFT, mask product and inverse rFFT in one trip, so a sequence's or
  token's data crosses only on the way in and on the way out; the per-step transforms (filter and
  weight-block spectra, the accumulated gradients) still cross both ways.
A block-circulant matrix sums its block products over input blocks (forward) or output blocks
(dX). `block_sum` says where that sum happens:
- "digital" (the default): as the FLOP classes charge it (complex adds, class "digital"). The sum
  lies between each block product and the inverse transform, so every block product W_ij.X_j (and
  G_i.conj(W_ij) in dX) leaves the optics as a spectrum: fused, p*q*(b/2+1) complex bins out per
  token and the p summed spectra back in for the inverse transforms (p*(b/2+1) complex); separate,
  each block product is a trip of its own (its input spectrum in, the product out, (b/2+1)
  complex each way), so the separate count stays at or above the fused one;
- "optical": by coherent superposition in the optics, so q blocks go in and p come out per token
  (forward; dX the mirror image), and the products ride on the inverse transforms' trips as a long
  convolution's do. The FLOP classes then overstate the digital work by the block sum.

Precision. An analog optical path resolves about ENOB bits below its full scale; a gradient
format carries a significand of a few bits over an exponent range of many binades, and a
weight gradient is the sum of many contributions (one per sequence, or per token).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from .errors import LedgerError, check_positive_number
from .layers import LineItem
from .settings import Settings
from .shapes import ModelShape
from .step import step_items
from .table import summarize

MODES = ("separate", "fused")
BLOCK_SUMS = ("digital", "optical")
"""Where a block-circulant matrix's sum over blocks happens (see the module text); the first, the one the
FLOP classes charge, is the default."""

FORMATS = {
    # name: (significand bits including the implicit one, exponent bits)
    "fp32": (24, 8),
    "tf32": (11, 8),
    "bf16": (8, 8),
    "fp16": (11, 5),
    "fp8_e4m3": (4, 4),
    "fp8_e5m2": (3, 5),
}


def transform_size(item: LineItem, settings: Settings) -> tuple[int, int]:
    """(time-domain samples that cross, frequency bins) of one transform of `item`."""
    if item.cls != "transform":
        raise LedgerError(f"item {item.op!r}: is a {item.cls}, not a transform")
    if item.op.startswith("long conv:"):
        return settings.seq_len, settings.costs.bins(settings.fft_len)
    return settings.block, settings.costs.bins(settings.block)


def _is_inverse(item: LineItem) -> bool:
    return item.op.split(":", 1)[-1].strip().startswith("inverse")


@dataclass(frozen=True)
class Conversions:
    """Real numbers crossing the digital/optical boundary per optimizer step."""

    mode: str
    values_in: float
    values_out: float
    optical_flops: float
    block_sum: str = "digital"
    """Where a circulant matrix sums its blocks ("digital" or "optical")."""

    @property
    def values(self) -> float:
        return self.values_in + self.values_out

    @property
    def flops_per_value(self) -> float:
        """Optical FLOPs per number converted: the optics' arithmetic intensity."""
        return self.optical_flops / self.values if self.values else 0.0


def _is_circulant_sum_boundary(item: LineItem) -> bool:
    """A per-token circulant item whose data crosses when the block sum is digital: a block product
    (its spectrum out; separate, its input spectrum in too) or an inverse transform of summed blocks
    (its spectrum in)."""
    if item.op.startswith("long conv:") or item.per == "step":
        return False
    return (item.cls == "weight_product" and "W_ij" in item.op) or (item.cls == "transform" and _is_inverse(item))


def conversions(settings: Settings, items: Iterable[LineItem] | None = None, mode: str = "separate",
                block_sum: str = "digital") -> Conversions:
    """Real numbers written into (in) and read out of (out) the optics for every transform of the step
    (and, with a digital block sum, every block product of a circulant matrix).

    `block_sum` ("digital", as the FLOP classes charge it, or "optical") matters only for
    block-circulant matrices.
    """
    if mode not in MODES:
        raise LedgerError(f"mode = {mode!r}: must be one of {', '.join(MODES)}")
    if block_sum not in BLOCK_SUMS:
        raise LedgerError(f"block_sum = {block_sum!r}: must be one of {', '.join(BLOCK_SUMS)}")
    items = step_items(settings) if items is None else list(items)
    v_in = v_out = 0.0
    for item in items:
        if block_sum == "digital" and _is_circulant_sum_boundary(item):
            spectrum = 2 * settings.costs.bins(settings.block)  # a block's complex bins, two reals each
            if item.cls == "weight_product":
                v_out += item.count * spectrum  # every block product leaves for the digital sum
                if mode == "separate":
                    v_in += item.count * spectrum  # its own trip: the block's spectrum goes in
            elif mode == "fused":
                v_in += item.count * spectrum  # the summed spectrum comes back for the inverse transform
                # (separate: the inverse transform's own input, counted with the transforms below)
        if item.cls != "transform":
            continue
        samples, bins = transform_size(item, settings)
        spectrum = 2 * bins  # complex bins, two real numbers each
        inverse = _is_inverse(item)
        if mode == "fused" and item.per != "step":
            v_in += 0 if inverse else item.count * samples
            v_out += item.count * samples if inverse else 0
        else:
            v_in += item.count * (spectrum if inverse else samples)
            v_out += item.count * (samples if inverse else spectrum)
    optical = sum(i.flops for i in items if i.cls in ("transform", "weight_product", "data_product"))
    return Conversions(mode, v_in, v_out, optical, block_sum)


@dataclass(frozen=True)
class PrecisionCheck:
    """An optical path of `enob` effective bits against a gradient format and a step's accumulation."""

    enob: float
    format: str
    significand_bits: int
    exponent_bits: int
    contributions: float
    """Terms summed into one weight gradient over the step (sequences or tokens)."""

    @property
    def snr_db(self) -> float:
        """Signal to quantisation noise of an ideal converter with ENOB bits: 6.02 ENOB + 1.76 dB."""
        return 6.02 * self.enob + 1.76

    @property
    def enob_range_db(self) -> float:
        """Full scale down to one least significant bit: 6.02 dB per bit."""
        return 6.02 * self.enob

    @property
    def format_range_db(self) -> float:
        """Largest to smallest normal number of an IEEE-style format: (2^e - 2) binades."""
        return 6.02 * (2 ** self.exponent_bits - 2)

    @property
    def significand_short_by(self) -> float:
        """Bits the format's significand carries beyond the optical path's ENOB (negative: to spare)."""
        return self.significand_bits - self.enob

    @property
    def accumulation_bits(self) -> float:
        """Extra bits to keep one contribution resolvable in the sum of all of them: log2(contributions)."""
        return math.log2(self.contributions)

    @property
    def bits_needed(self) -> float:
        """A contribution at the format's precision, inside the step's sum."""
        return self.significand_bits + self.accumulation_bits


def precision_check(enob: float = 8, gradient_format: str = "bf16", contributions: float = 1) -> PrecisionCheck:
    """Compare ENOB bits with a gradient format; `contributions` terms summed over the step."""
    check_positive_number("enob", enob)
    check_positive_number("contributions", contributions)
    if gradient_format not in FORMATS:
        raise LedgerError(f"gradient_format = {gradient_format!r}: must be one of {', '.join(FORMATS)}")
    sig, exp = FORMATS[gradient_format]
    return PrecisionCheck(enob, gradient_format, sig, exp, contributions)


def weight_gradient_contributions(settings: Settings) -> float:
    """Terms in one optical weight gradient: one per sequence (Hyena filters), one per token (circulant)."""
    if settings.variant == "hyena2_circulant":
        return float(settings.step_tokens)
    return float(settings.sequences)


def optimizer_flops(shape: ModelShape, flops_per_parameter: float = 12) -> float:
    """An estimate (not a ledger count) of one AdamW update: about a dozen FLOPs per parameter."""
    check_positive_number("flops_per_parameter", flops_per_parameter)
    return flops_per_parameter * shape.matrix_params


@dataclass(frozen=True)
class HiddenCosts:
    """One step's hidden costs next to the most the optics could save."""

    weight_mask_s: float
    data_mask_s: float
    conversions: Conversions
    io_rate: float
    """Real numbers per second the boundary converts (in and out together)."""
    digital_step_s: float
    static_share: float
    step_share: float
    precision: PrecisionCheck

    @property
    def conversion_s(self) -> float:
        return self.conversions.values / self.io_rate

    @property
    def static_saving_s(self) -> float:
        """The most a once-per-step-mask engine could save: all its FLOPs made free."""
        return self.static_share * self.digital_step_s

    @property
    def optical_saving_s(self) -> float:
        return self.step_share * self.digital_step_s

    @property
    def break_even_io_rate(self) -> float:
        """Numbers per second at which converting takes exactly the time the static share could save."""
        return self.conversions.values / self.static_saving_s if self.static_saving_s else math.inf


def hidden_costs(settings: Settings, enob: float = 8, gradient_format: str = "bf16", io_rate: float | None = None,
                 mode: str = "separate", block_sum: str = "digital") -> HiddenCosts:
    """Mask rewrites, conversions and precision of one step; io_rate defaults to the mask device's
    pixels x frame rate (an input modulator like the mask device, one real number per pixel).
    `block_sum` says where a circulant matrix sums its blocks ("digital", the FLOP classes' default, or "optical")."""
    if io_rate is None:
        io_rate = settings.device.pixels * settings.device.frame_rate
    check_positive_number("io_rate", io_rate)
    items = step_items(settings)
    row = summarize(settings, items)
    conv = conversions(settings, items, mode, block_sum)
    check = precision_check(enob, gradient_format, weight_gradient_contributions(settings))
    return HiddenCosts(row.weight_mask_s, row.data_mask_s, conv, float(io_rate), row.digital_step_s,
                       row.static_share, row.step_share, check)
