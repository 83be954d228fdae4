"""Claims of chapter 10 (the assumptions, one at a time and jointly)."""
from __future__ import annotations

import math

from ..assumptions import HEADLINE_SEQ_LEN, HEADLINE_VARIANT, assumptions_table, joint_view
from ..table import step_row
from . import claim
from ..settings import Settings
from ..shapes import LLAMA3_8B
from .changes import CIRCULANT_MLP_DENSE, FFT_BLUESTEIN, IDEAL_10X, LM_HEAD_CIRCULANT, engine_default, fft_priced, \
    model_shape, modulator, recounting_joint_view

CH = "10_assumptions"
GRID = "the joint grid: every combination of every alternative of the assumptions table, S = 4,096"


@claim("ch10-one-at-a-time-below-2x", CH,
       "One switch at a time, only the circulant LM head brings the block-circulant model's bound on counted FLOPs "
       "to 2x; every other row leaves it below.",
       "every row of the assumptions table, block-circulant Hyena-2 at S = 4,096: a bound of 2 or more for the LM "
       "head's row alone",
       fails_when=LM_HEAD_CIRCULANT)
def _one_at_a_time() -> bool:
    return [r.assumption.name for r in assumptions_table() if r.alternative["amdahl"] >= 2] == ["LM head"]


@claim("ch10-block16-passes-2x", CH,
       "Blocks of 16 alone already give the block-circulant model a bound above 2x.",
       "block-circulant Hyena-2 at S = 4,096, b = 16, every other setting at its default: a bound above 2",
       fails_when=model_shape(f"the vocabulary were {2 * LLAMA3_8B.vocab:,} tokens, twice Llama 3's (the dense LM "
                              "head twice as large)", vocab=2 * LLAMA3_8B.vocab))
def _block16() -> bool:
    return step_row(variant=HEADLINE_VARIANT, seq_len=HEADLINE_SEQ_LEN, block=16).amdahl > 2


@claim("ch10-hyena2-far-from-2x-jointly", CH,
       "For Hyena-2 and the hybrid the bound stays far from 2x under every combination of the alternatives "
       "(below 1.1x).",
       GRID + ", Hyena-2 and the hybrid: the highest bound below 1.1",
       fails_when=recounting_joint_view(fft_priced(40)))
def _hyena2_joint() -> bool:
    view = joint_view()
    return all(view.get(v, "amdahl").high < 1.1 for v in ("hyena2", "hybrid"))


@claim("ch10-circulant-jointly-past-2x", CH,
       "Thrown together, the alternatives take the block-circulant bound past 2x, and the default sits in the "
       "lower part of the range.",
       GRID + ", block-circulant Hyena-2: the highest bound above 2, the default nearer the lowest than the highest",
       fails_when=recounting_joint_view(CIRCULANT_MLP_DENSE))
def _circ_joint() -> bool:
    r = joint_view().get("hyena2_circulant", "amdahl")
    return r.high > 2 and r.default - r.low < r.high - r.default


@claim("ch10-data-masks-never-keep-up", CH,
       "The data-by-data masks keep up only with everything favourable at once: at the defaults they take tens "
       "of all-digital steps for Hyena-2 and hundreds for the block-circulant model; over every combination the "
       "block-circulant model's never fall below five steps, and Hyena-2's lowest is about one.",
       GRID + ", Hyena-2 and block-circulant Hyena-2, in all-digital steps (ledger.step_time): defaults above 10 "
       "and 100, circulant low above 5, Hyena-2 low between 0.5 and 2",
       fails_when=recounting_joint_view(IDEAL_10X))
def _data_masks() -> bool:
    view = joint_view()
    h, c = view.get("hyena2", "data_mask_steps"), view.get("hyena2_circulant", "data_mask_steps")
    return h.default > 10 and c.default > 100 and c.low > 5 and 0.5 < h.low < 2


@claim("ch10-weight-masks-rest-on-device", CH,
       "The weight masks rest on the device: over the combinations the block-circulant model's weight masks "
       "range from well under one digital step to hundreds of them.",
       GRID + ", block-circulant Hyena-2, in all-digital steps: the lowest below 0.1, the highest above 100",
       fails_when=recounting_joint_view(modulator("lcos-double-phase", "the video-rate liquid-crystal device ran at "
                                                  "240 frames/s, four times 60", frame_rate_hz=240.0)))
def _weight_masks() -> bool:
    r = joint_view().get("hyena2_circulant", "weight_mask_steps")
    return r.low < 0.1 and r.high > 100


def _is_prime(n: int) -> bool:
    """Trial division; n is an FFT length of a few tens of thousands at most."""
    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def fft_length_switch(seq_len: int = HEADLINE_SEQ_LEN) -> dict:
    """What the FFT-length switch changes at one S: the two lengths, their one-sided bins, whether 2S-1 is
    prime, and the FLOPs the ledger prices each at (fft_constant * n * log2 n, power-of-two rate for both)."""
    even, odd = (Settings(seq_len=seq_len, fft_length=f) for f in ("2S", "2S-1"))
    n_even, n_odd = even.fft_len, odd.fft_len
    return {"n_even": n_even, "n_odd": n_odd, "bins_even": even.costs.bins(n_even),
            "bins_odd": odd.costs.bins(n_odd), "odd_prime": _is_prime(n_odd),
            "flops_even": even.costs.rfft(n_even), "flops_odd": odd.costs.rfft(n_odd),
            "fft_constant": odd.costs.fft_constant}


@claim("ch10-fft-length-count-only", CH,
       "Switching the FFT length from 2S to 2S-1 removes one bin per spectrum; at 4,096 tokens 2S-1 = 8,191 is "
       "prime, yet the switch prices it at the power-of-two rate fft_constant * n * log2 n, so it shows the "
       "count difference, not a cheaper transform a real code would run.",
       "S = 1,024 to 32,768 (powers of two) for the bin; S = 4,096 for the prime length and its price (equal to "
       "fft_constant * n * log2 n within math.isclose's 1e-9)",
       fails_when=FFT_BLUESTEIN)
def _fft_length_count_only() -> bool:
    one_bin = all(f["bins_even"] - f["bins_odd"] == 1
                  for f in (fft_length_switch(2 ** k) for k in range(10, 16)))
    f = fft_length_switch()
    priced = math.isclose(f["flops_odd"], f["fft_constant"] * f["n_odd"] * math.log2(f["n_odd"]))
    return one_bin and f["odd_prime"] and f["n_odd"] == 2 * HEADLINE_SEQ_LEN - 1 and priced


@claim("ch10-net-below-one-jointly", CH,
       "Only with every favourable alternative thrown together, an engine per GPU among them, does a Hyena "
       "variant's step beat the GPUs alone, and then by less than its bound in time: at best about 1.2x for "
       "Hyena-2 and the hybrid and about 2x for the block-circulant model.",
       GRID + " (the counting conventions aside: they move no second): where the highest net speed-up exceeds 1, "
       "its combination has the engine per GPU, the fast input and readout and the fast link; Hyena-2 and the "
       "hybrid between 1 and 1.3, block-circulant between 1.5 and 2.5, each below its highest bound in time",
       fails_when=recounting_joint_view(engine_default(
           "the GPUs held the FFTs' and spectra's values in 8 bits, not fp32, so the memory-bound work the engine "
           "takes cost them a quarter of the time", gpu_bytes_per_value=1)))
def _net_below_one() -> bool:
    view = joint_view()
    bands = {"hyena2": (1, 1.3), "hybrid": (1, 1.3), "hyena2_circulant": (1.5, 2.5)}
    for v, (low, high) in bands.items():
        net = view.get(v, "net_speedup")
        needs = {"Engines", "Input and readout rates", "Link to the engine"}
        if not (low < net.high < high and net.high < view.get(v, "amdahl_time").high
                and needs <= set(net.high_combination)):
            return False
    return True
