"""Checked sentences of chapter 08 (what does not map in training)."""
from __future__ import annotations

import math

from ..breakdown import nonlinear_values, what_stays_digital
from ..boundary import conversions
from ..engine import MODULATORS
from ..hidden_costs import hidden_costs, optimizer_flops, well_electrons
from ..settings import VARIANTS
from ..step import step_items
from ..table import make_settings, step_row
from . import claim
from .changes import CONVOLUTION_UNPADDED, DH_PER_SEQUENCE, FAST_IO, IDEAL_10_BITS, IDEAL_10X, LCOS_10_BIT, \
    LM_HEAD_CIRCULANT, RECOMPUTE_FULL, model_shape, step_size

STREAMING_LEE = {"dmd-lee-dlpc410", "dmd-lee-dlpc910"}
"""The Lee hologram on the controllers built for streaming: the fastest mask rewrites of ledger.engine.MODULATORS."""
CHAPTER = "08_what_does_not_map"
LENGTHS = (2048, 4096, 8192)
OPTICAL = ("hyena2", "hybrid", "hyena2_circulant")


@claim("not-map-lm-head-most-of-rest", CHAPTER,
       "In the block-circulant model the dense LM head becomes most of what stays digital.",
       "block-circulant model at S = 2,048, 4,096 and 8,192: the LM head over half of what stays digital",
       fails_when=LM_HEAD_CIRCULANT)
def _lm_head() -> bool:
    for s in LENGTHS:
        rest = what_stays_digital(step_items(make_settings(variant="hyena2_circulant", seq_len=s)))
        if rest["LM head (dense)"] <= 0.5 * sum(rest.values()):
            return False
    return True


@claim("not-map-nonlinear-small", CHAPTER,
       "In FLOPs the nonlinearities are small: the values that pass one are under a thousandth of the step's FLOPs.",
       "transformer and Hyena-2 at S = 2,048, 4,096 and 8,192: ledger.breakdown.nonlinear_values (forward) below "
       "1e-3 of the step's FLOPs",
       fails_when=model_shape("the model were 64 wide (one head, an MLP of 224), with Llama-3-8B's 32 layers and "
                              "vocabulary", hidden=64, n_heads=1, n_kv_heads=1, intermediate=224))
def _nonlinear_small() -> bool:
    for v in ("transformer", "hyena2"):
        for s in LENGTHS:
            st = make_settings(variant=v, seq_len=s)
            if sum(nonlinear_values(st).values()) >= 1e-3 * step_row(st).step_flops:
                return False
    return True


@claim("not-map-optimizer-negligible", CHAPTER,
       "The optimizer update is negligible in FLOPs (under a ten-thousandth of the step).",
       "all four variants at S = 2,048, 4,096 and 8,192, one step of 1,048,576 tokens, twelve FLOPs for each "
       "parameter the variant updates: below 1e-4 of the step's FLOPs",
       fails_when=step_size(16384, "two sequences of 8,192"))
def _optimizer() -> bool:
    return all(optimizer_flops(make_settings(variant=v, seq_len=s)) < 1e-4 * step_row(variant=v, seq_len=s).step_flops
               for v in VARIANTS for s in LENGTHS)


@claim("not-map-fused-below-separate", CHAPTER,
       "The fused count, spectra for the digital weight gradient included, stays below the every-transform count, "
       "for Hyena-2 and the hybrid at about two thirds of it: each of a convolution's four transforms moves its "
       "samples one way and a spectrum of the zero-padded signal, twice as many numbers, the other, while a fused "
       "pass moves the samples and only the two spectra the weight gradient reads (U and G).",
       "Hyena-2, hybrid and block-circulant at S = 2,048, 4,096 and 8,192, block sum digital and optical, "
       "weight gradient read out or recomputed: fused below every-transform; Hyena-2 and the hybrid, U and G read "
       "out: 0.65 to 0.70 of it",
       fails_when=CONVOLUTION_UNPADDED)
def _fused_below() -> bool:
    for v in OPTICAL:
        for s in LENGTHS:
            st = make_settings(variant=v, seq_len=s)
            items = step_items(st)
            for block_sum in ("digital", "optical"):
                sep = conversions(st, items, "separate", block_sum)
                for wg in ("readout", "recompute"):
                    fused = conversions(st, items, "fused", block_sum, wg)
                    if fused.values >= sep.values:
                        return False
                    if v != "hyena2_circulant" and wg == "readout" and not 0.65 <= fused.values / sep.values <= 0.70:
                        return False
    return True


@claim("not-map-hidden-costs-outweigh", CHAPTER,
       "Converting data in and out of the optics takes longer per step than the optics could save, on every "
       "modulator mode, and many minutes on the idealised device; rewriting the masks does too, except for the "
       "Lee hologram on a streaming controller, whose rewrite at the shorter lengths is shorter than the saving.",
       "Hyena-2 and block-circulant at S = 2,048, 4,096 and 8,192, every modulator mode (the input plane in the "
       "mode's encoding, the detector at pixels x frame rate), fused passes with U and G read out or recomputed, "
       "savings in seconds at the time model's GPU rates; 'many minutes' (over 5 minutes) on the idealised "
       "device; the exception holds for at least one length and only for the streaming Lee modes",
       fails_when=FAST_IO)
def _outweigh() -> bool:
    exceptions = set()
    for v in ("hyena2", "hyena2_circulant"):
        for s in LENGTHS:
            for m in MODULATORS:
                st = make_settings(variant=v, seq_len=s, modulator=m)
                for wg in ("readout", "recompute"):
                    h = hidden_costs(st, mode="fused", weight_gradient=wg)
                    if not h.conversion_s > h.static_saving_s:
                        return False
                    if not h.weight_mask_s > h.static_saving_s:
                        exceptions.add(m)
                    if m == "ideal" and h.conversion_s <= 300:
                        return False
    return bool(exceptions) and exceptions <= STREAMING_LEE


@claim("not-map-recompute-lowers-saving", CHAPTER,
       "Recomputing the U and G spectra on the GPUs instead of reading them out about halves Hyena-2's "
       "conversions but lowers what the optics can save.",
       "Hyena-2 and block-circulant at S = 2,048, 4,096 and 8,192: fewer numbers cross (Hyena-2: 45% to 55% "
       "as many), smaller saving",
       fails_when=RECOMPUTE_FULL)
def _recompute() -> bool:
    for v in ("hyena2", "hyena2_circulant"):
        for s in LENGTHS:
            st = make_settings(variant=v, seq_len=s)
            a, b = hidden_costs(st, mode="fused"), hidden_costs(st, mode="fused", weight_gradient="recompute")
            if not (b.conversions.values < a.conversions.values and b.static_saving_s < a.static_saving_s):
                return False
            if v == "hyena2" and not 0.45 < b.conversions.values / a.conversions.values < 0.55:
                return False
    return True


@claim("not-map-analog-sum-needs", CHAPTER,
       "Accumulated in the analog domain and read once, a weight-gradient sum of one sign needs only the format's "
       "significand below its full scale, which an 8-bit path gives bf16; terms of independent random sign held as "
       "magnitudes need about half a bit more per doubling of the terms (4 bits for Hyena-2, 10 for the "
       "block-circulant model at 4,096 tokens), beyond the path, and a shot-noise-limited well of 4^bits electrons "
       "for either; summed digitally, the separately converted terms' noise averages down by the same half bit "
       "per doubling.",
       "Hyena-2 (terms per sequence) and block-circulant (terms per token) at S = 2,048, 4,096 and 8,192, bf16, "
       "ENOB 8 (the idealised mode's); the 4 and 10 bits at S = 4,096, exactly; wells of 4^bits electrons",
       fails_when=step_size(2 ** 24, "Llama 3's final 16M"))
def _analog() -> bool:
    for v in ("hyena2", "hyena2_circulant"):
        for s in LENGTHS:
            p = hidden_costs(make_settings(variant=v, seq_len=s)).precision
            if not (p.analog_sum_bits() == p.significand_bits == p.enob < p.analog_sum_bits_random
                    and p.analog_sum_bits_random - p.significand_bits == p.digital_sum_gain_bits
                    == 0.5 * math.log2(p.contributions)
                    and well_electrons(p.analog_sum_bits()) == 2 ** 16
                    and well_electrons(p.analog_sum_bits_random) > well_electrons(p.analog_sum_bits())):
                return False
    at = {v: hidden_costs(make_settings(variant=v, seq_len=4096)).precision.random_sign_headroom_bits
          for v in ("hyena2", "hyena2_circulant")}
    return at == {"hyena2": 4, "hyena2_circulant": 10}


@claim("not-map-one-gain-per-frame", CHAPTER,
       "With one gain per frame an 8-bit path gives a bf16 significand only to the bins at its frame's peak; a bin "
       "at a sixteenth of the peak keeps half the bits.",
       "ENOB 8 (the idealised mode's), bf16, levels 1 and 1/16: exactly the 8-bit significand, and half of 8",
       fails_when=IDEAL_10_BITS)
def _one_gain() -> bool:
    p = hidden_costs(make_settings()).precision
    return p.bits_below_peak(1.0) == p.significand_bits and p.bits_below_peak(1 / 16) == p.enob / 2


@claim("not-map-training-does-not-rescue", CHAPTER,
       "Training does not rescue the transform share: the backward pass has as many long FFTs as the forward while "
       "its matmuls double, so Hyena-2's step share is about two thirds of its forward share.",
       "Hyena-2 and hybrid at S = 2,048, 4,096 and 8,192: step share 0.62 to 0.72 of the forward share",
       fails_when=DH_PER_SEQUENCE)
def _training() -> bool:
    return all(0.62 <= (r := step_row(variant=v, seq_len=s)).step_share / r.forward_share <= 0.72
               for v in ("hyena2", "hybrid") for s in LENGTHS)


@claim("not-map-precision-from-engine", CHAPTER,
       "The precision argument reads its effective bits from the engine's modulator mode: 8 on the idealised "
       "device (assumed), fewer in every cited mode.",
       "every modulator mode, Hyena-2 and block-circulant at S = 2,048, 4,096 and 8,192: the ENOB equal to the "
       "mode's effective bits, 8 exactly for the idealised mode only, below 8 for every cited mode",
       fails_when=LCOS_10_BIT)
def _precision_from_engine() -> bool:
    for name, mode in MODULATORS.items():
        for v in ("hyena2", "hyena2_circulant"):
            for s in LENGTHS:
                enob = hidden_costs(make_settings(variant=v, seq_len=s, modulator=name)).precision.enob
                if enob != mode.effective_bits:
                    return False
        if (mode.effective_bits == 8) != mode.idealised or mode.effective_bits > 8:
            return False
    return True


@claim("not-map-rewrite-range-across-modes", CHAPTER,
       "Across the modulator modes, Hyena-2's weight-mask rewrite runs from the time of the Lee mode on a "
       "streaming controller (the shortest) to the video-rate liquid-crystal mode's (the longest).",
       "Hyena-2 at S = 2,048, 4,096 and 8,192, every modulator mode",
       fails_when=IDEAL_10X)
def _rewrite_range() -> bool:
    for s in LENGTHS:
        t = {n: step_row(variant="hyena2", seq_len=s, modulator=n).weight_mask_s for n in MODULATORS}
        if not (min(t, key=t.get) == "dmd-lee-dlpc410" and max(t, key=t.get) == "lcos-double-phase"):
            return False
    return True
