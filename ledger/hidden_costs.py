"""Costs a FLOP share does not show, per optimizer step: conversions in and out of the optics,
the precision a gradient asks for, and (from masks.py) the mask rewrites.

Conversions (counted by ledger.boundary.conversions, re-exported here). Every optical transform takes
its input from the digital side and hands its output back. The count is in real numbers (scalars a
converter handles; a complex bin is two). A long convolution's input is S samples (the zero padding to
n = 2S is dark pixels, no conversion) and only its first S outputs are kept; a circulant block is b
samples. Two assignments of work:
- "separate": every transform is its own trip (input and output of each rFFT and inverse rFFT); a
  mask product rides on the trip of the inverse transform it feeds (its spectrum goes in through
  the mask);
- "fused": a 4f pass does rFFT, mask product and inverse rFFT in one trip, so a sequence's or
  token's data crosses on the way in and on the way out, and the spectra the digital weight
  gradient multiplies (U and G, the X and G blocks) are tapped at the Fourier plane and read out
  (`weight_gradient="readout"`), or recomputed by the GPUs (`"recompute"`, which lowers the FLOPs the
  optics saves); the per-step transforms (filter and weight-block spectra, the accumulated gradients)
  still cross both ways. This is the least a pass can move while the weight gradient stays digital,
  and a 4f pass with a beam splitter before its mask reaches it.
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
format carries a significand of a few bits over an exponent range of many binades, and a weight
gradient is the sum of many contributions (one per sequence, or per token). What the summed gradient
needs is the format's significand relative to the sum's own full scale, not each term resolved in the
sum: a one-sign sum read once by an ENOB-bit converter is good to about 2^-ENOB of itself. Terms that
cancel ask for headroom (the accumulator holds more than the sum it delivers), and an analog sum
integrated on a detector is limited by its well depth (shot noise) and by drift, while a digital sum
of separately converted terms gains from averaging their independent noise.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from .boundary import (BLOCK_SUMS, MODES, WEIGHT_GRADIENTS, Conversions, conversions,  # noqa: F401 (re-exported)
                     feeds_weight_gradient, transform_size)
from .errors import LedgerError, check_positive_number
from .hardware import hardware_items
from .layers import OPTICAL_CLASSES, STATIC_CLASSES
from .settings import Settings
from .step import step_items, trained_params
from .step_time import item_seconds
from .table import summarize

FORMATS = {
    # name: (significand bits including the implicit one, exponent bits)
    "fp32": (24, 8),
    "tf32": (11, 8),
    "bf16": (8, 8),
    "fp16": (11, 5),
    "fp8_e4m3": (4, 4),
    "fp8_e5m2": (3, 5),
}


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

    def analog_sum_bits(self, cancellation: float = 1.0) -> float:
        """Bits below the accumulator's full scale an analog sum needs to deliver the format's significand:
        the significand relative to the sum itself plus log2(cancellation), where cancellation is the
        largest value the accumulator must hold over the sum it delivers (1 when the terms share a sign)."""
        return self.significand_bits + headroom_bits(cancellation)

    @property
    def random_sign_headroom_bits(self) -> float:
        """About 1/2 log2(contributions): independent terms of random sign integrated as magnitudes (one
        detector per sign, or the two arms of an interferometric readout) fill the wells as N while their
        difference, the sum, grows as sqrt(N)."""
        return 0.5 * math.log2(self.contributions)

    @property
    def analog_sum_bits_random(self) -> float:
        """analog_sum_bits for independent random-sign terms held as magnitudes: significand + 1/2 log2 N."""
        return self.significand_bits + self.random_sign_headroom_bits

    @property
    def digital_sum_gain_bits(self) -> float:
        """1/2 log2(contributions): N terms of one sign converted separately add their independent
        conversion noise as sqrt(N) and their signal as N, so the sum's relative noise falls by sqrt(N)."""
        return 0.5 * math.log2(self.contributions)

    def bits_below_peak(self, level: float) -> float:
        """Effective bits left to a value at `level` (a fraction, 0 < level <= 1) of its frame's full scale:
        one gain is set per frame, so a bin 2^-k below the frame's peak keeps ENOB - k bits (at least 0)."""
        check_positive_number("level", level)
        if level > 1:
            raise LedgerError(f"level = {level!r}: must be at most 1 (a fraction of the frame's full scale)")
        return max(0.0, self.enob + math.log2(level))


def headroom_bits(cancellation: float) -> float:
    """log2(cancellation): bits of full scale an accumulator spends above the sum it delivers when terms
    cancel; cancellation = (largest value held) / |sum|, at least 1."""
    check_positive_number("cancellation", cancellation)
    if cancellation < 1:
        raise LedgerError(f"cancellation = {cancellation!r}: must be at least 1 (the accumulator holds at "
                          "least the sum it delivers)")
    return math.log2(cancellation)


def well_electrons(bits: float) -> float:
    """Photoelectrons a detector well must hold at full scale for `bits` shot-noise-limited bits:
    SNR at full scale is sqrt(W), so W = 4^bits (65,536 for 8 bits)."""
    check_positive_number("bits", bits)
    return 4.0 ** bits


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


def optimizer_flops(s: Settings, flops_per_parameter: float = 12) -> float:
    """An estimate (not a ledger count) of one AdamW update of variant `s`: about a dozen FLOPs for each
    parameter it updates (ledger.step.trained_params: matrices, embedding, norms, short-conv taps)."""
    if not isinstance(s, Settings):
        raise LedgerError(f"optimizer_flops: settings = {s!r}: must be a ledger.Settings (the variant's own parameters)")
    check_positive_number("flops_per_parameter", flops_per_parameter)
    return flops_per_parameter * trained_params(s)


@dataclass(frozen=True)
class HiddenCosts:
    """One step's hidden costs next to the most the optics could save."""

    weight_mask_s: float
    data_mask_s: float
    conversions: Conversions
    io_rate: float
    """Real numbers per second the input plane writes."""
    digital_step_s: float
    static_share: float
    step_share: float
    precision: PrecisionCheck
    cluster_flops: float = 1.0
    """Sustained FLOP/s of the digital cluster (prices the GPU's recomputed FFTs)."""
    detector_rate: float = 0.0
    """Samples per second the detector takes (0: io_rate)."""
    engine_work_s: float = 0.0
    """GPU seconds of the static work (transforms and weight-masked products) at the time model's rates
    (ledger.step_time): what a once-per-step-mask engine could take off the step."""
    optical_work_s: float = 0.0
    """GPU seconds of all the optical classes, the data-by-data products included."""
    recompute_fft_s: float = 0.0
    """GPU seconds of the rFFTs of u and g recomputed for the weight gradient (weight_gradient "recompute")."""

    @property
    def conversion_s(self) -> float:
        """Seconds per step at the boundary: the input writes and the readout's detector samples (two per real
        number read out, interferometric) at io_rate."""
        return self.input_s + self.readout_s

    @property
    def input_s(self) -> float:
        """Seconds writing the numbers that enter the optics."""
        return self.conversions.values_in / self.io_rate

    @property
    def readout_s(self) -> float:
        """Seconds taking the detector samples of the numbers that leave it."""
        return self.conversions.detector_samples / (self.detector_rate or self.io_rate)

    @property
    def static_saving_s(self) -> float:
        """The most a once-per-step-mask engine could save, in seconds at the time model's GPU rates: its work made
        free, less the time the GPUs spend recomputing the weight gradient's rFFTs (weight_gradient "recompute")."""
        return self.engine_work_s - self.gpu_recompute_s

    @property
    def gpu_recompute_s(self) -> float:
        """Seconds the cluster spends recomputing rFFTs of u and g (0 unless weight_gradient = "recompute")."""
        return self.recompute_fft_s

    @property
    def optical_saving_s(self) -> float:
        """The most an engine taking every optical class could save, in seconds at the time model's GPU rates."""
        return self.optical_work_s

    @property
    def break_even_io_rate(self) -> float:
        """Boundary operations per second (writes in, detector samples out) at which converting takes exactly the
        time the static share could save."""
        ops = self.conversions.boundary_operations
        return ops / self.static_saving_s if self.static_saving_s else math.inf


def hidden_costs(settings: Settings, enob: float | None = None, gradient_format: str = "bf16", io_rate: float | None = None,
                 mode: str = "separate", block_sum: str = "digital", weight_gradient: str = "readout") -> HiddenCosts:
    """Mask rewrites, conversions and precision of one step; io_rate defaults to the engine's
    (settings.device.io_rate, the input plane in the mode's encoding, and settings.device.detector_rate, one
    sample per pixel per frame); an io_rate passed here is both the input plane's and the detector's.
    `block_sum` says where a circulant matrix sums its blocks ("digital", the FLOP classes' default, or "optical");
    `weight_gradient` how the digital weight gradient gets U and G in fused mode ("readout" or "recompute").
    `enob` defaults to the engine's modulator mode (settings.device.effective_bits: 8 for the idealised mode)."""
    if enob is None:
        enob = settings.device.effective_bits
    if io_rate is None:
        io_rate, detector_rate = settings.device.io_rate, settings.device.detector_rate
    else:
        detector_rate = check_positive_number("io_rate", io_rate)
    items = step_items(settings)
    row = summarize(settings, items)
    conv = conversions(settings, items, mode, block_sum, weight_gradient)
    gpu_items = hardware_items(settings, items)
    engine_work = sum(item_seconds(i, settings) for i in gpu_items if i.cls in STATIC_CLASSES)
    optical_work = sum(item_seconds(i, settings) for i in gpu_items if i.cls in OPTICAL_CLASSES)
    recompute = (sum(item_seconds(i, settings) for i in items if feeds_weight_gradient(i))
                 if mode == "fused" and weight_gradient == "recompute" else 0.0)
    check = precision_check(enob, gradient_format, weight_gradient_contributions(settings))
    return HiddenCosts(row.weight_mask_s, row.data_mask_s, conv, float(io_rate), row.digital_step_s,
                       row.static_share, row.step_share, check, settings.device.cluster_flops, float(detector_rate),
                       engine_work, optical_work, recompute)
