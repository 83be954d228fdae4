"""Checked sentences of chapter 16 (measured kernels). Measured rates vary, so these claims check what
the ledger fixes: the FLOP split, intensities, how time shares move for any rates of a stated kind, how the
memory roof is estimated, and what the published H100 figures (ledger.measure.PUBLISHED) give."""
from __future__ import annotations

import dataclasses
import itertools

from .. import article, measure
from ..engine import Engine
from ..layers import OPTICAL_CLASSES
from ..settings import Settings
from ..step import step_items
from ..timing import flops_by_kernel, time_shares
from . import claim
from .changes import (
    LM_HEAD_CIRCULANT,
    change,
    constant,
    engine_default,
    fft_priced,
    memory_bandwidth,
    wrapped,
)

CHAPTER = "16_measured"
VARIANTS = ("hyena2", "hyena2_circulant", "hybrid")


@claim("ms-block-products-not-ffts", CHAPTER,
       "Most of the block-circulant variant's optical FLOPs are not FFTs: block products outweigh the FFTs "
       "and elementwise products together.",
       "hyena2_circulant at S = 2,048, 4,096 and 8,192",
       fails_when=fft_priced(2))
def block_products_not_ffts() -> bool:
    for s in (2048, 4096, 8192):
        optical = flops_by_kernel(step_items(Settings(variant="hyena2_circulant", seq_len=s)), OPTICAL_CLASSES)
        if not optical["block_product"] > optical["fft_long"] + optical["fft_block"] + optical["elementwise"]:
            return False
    return True


@claim("ms-slower-kernels-raise-share", CHAPTER,
       "When FFTs and elementwise products run slower than the matrix product (and block products no slower "
       "than FFTs), the transforms take a larger share of the time than of the FLOPs.",
       "the three Hyena variants at S = 4,096; FFT and elementwise slow-downs 2, 5, 20, 100 (each independently); "
       "block products 1x up to the smaller of those",
       fails_when=LM_HEAD_CIRCULANT)
def slower_kernels_raise_share() -> bool:
    factors = (2.0, 5.0, 20.0, 100.0)
    for v in VARIANTS:
        items = step_items(Settings(variant=v, seq_len=4096))
        for f_long, f_block, f_elem in itertools.product(factors, repeat=3):
            for f_prod in (1.0, 2.0, 5.0, 20.0, 100.0):
                if f_prod > min(f_long, f_block):
                    continue
                rates = {"matmul": 1e12, "fft_long": 1e12 / f_long, "fft_block": 1e12 / f_block,
                         "elementwise": 1e12 / f_elem, "block_product": 1e12 / f_prod}
                t = time_shares(items, rates)
                if not t["time_share"] > t["flop_share"]:
                    return False
    return True


@claim("ms-fft-below-accelerator-ridge", CHAPTER,
       "A long FFT does some 16 FLOPs per element moved (a few, 2.5, per element in each butterfly stage) and a "
       "matrix product of the step hundreds; an accelerator's ridge point lies at hundreds of FLOPs per byte, "
       "far above the FFT.",
       "rFFT of 8,192 points; the q projection on 256 tokens; chapter 12's illustrative accelerator "
       "(1,000 TFLOP/s, 3.35 TB/s), bf16 (2 bytes) for the FFT's elements: the FFT 10 to 20 FLOPs per "
       "element and the default fft_constant under 5 per element per stage, the product and the ridge 100 to "
       "1,000, the FFT's FLOPs per byte under a tenth of the ridge",
       fails_when=memory_bandwidth(10))
def fft_below_accelerator_ridge() -> bool:
    fft = article.fft_intensity(8192)
    matmul = article.arithmetic_intensity(256, 4096, 4096)
    ridge = article.ridge_point(article.ILLUSTRATIVE_PEAK, article.ILLUSTRATIVE_BANDWIDTH)
    per_stage = Settings().costs.fft_constant  # c n log2 n over log2 n stages of n elements: c per element
    return (10 <= fft < 20 and per_stage < 5 and 100 <= matmul < 1000 and 100 <= ridge < 1000
            and fft / 2 < ridge / 10)


def _writes_counted_once(original):
    def traffic(self, write_allocate: bool = True) -> float:
        return original(self, False)
    return traffic


WRITES_COUNTED_ONCE = change("the memory traffic counted each byte written once (no write-allocate read)",
                             wrapped(measure.Streams, "traffic", _writes_counted_once))


@claim("ms-write-allocate-counted", CHAPTER,
       "With write-allocate counted, a loop that reads one array and writes one moves three bytes per byte "
       "written, and the elementwise product four (two read, one written, one read for ownership).",
       "the 1:1 calibration loop (CALIBRATIONS) and the elementwise kernel's streams at 40 and 64 MiB operands",
       fails_when=WRITES_COUNTED_ONCE)
def write_allocate_counted() -> bool:
    copy = measure.CALIBRATIONS["1:1"]
    if copy.traffic() / copy.write != 3:
        return False
    return all(measure.kernel_streams(mib)["elementwise"].traffic() / measure.kernel_streams(mib)["elementwise"].write
               == 4 for mib in (40, 64))


def _calibrated_with_a_copy(original):
    def calibration_mix(streams):
        original(streams)  # the same refusals
        return "1:1"
    return calibration_mix


@claim("ms-roof-same-mix", CHAPTER,
       "Every timed kernel but the matrix product is set against the calibration loop with its own mix of "
       "reads and writes, so its memory roof estimate is the same whether write-allocate traffic is counted "
       "or not; the matrix product's streams, mostly reads, match neither loop.",
       "the five kernels' streams at 40 and 64 MiB operands: roof seconds with and without write-allocate within "
       "0.5% for the four, more than 10% apart for the matrix product",
       fails_when=change("every kernel were set against the one-read-one-write loop (a copy's mix)",
                         wrapped(measure, "calibration_mix", _calibrated_with_a_copy)))
def roof_same_mix() -> bool:
    for mib in (40, 64):
        for name, s in measure.kernel_streams(mib).items():
            mix = measure.calibration_mix(s)
            counted, not_counted = (measure.roof_seconds(s, 1e9, mix, wa) for wa in (True, False))
            apart = abs(counted / not_counted - 1)
            if (name == "matmul") != (apart > 0.10) or (name != "matmul" and apart > 0.005):
                return False
    return True


def _conv_ratio(library: str) -> float:
    r = measure.published_rates(library)
    return r["matmul"] / r["fft_long"]


@claim("ms-h100-matmul-over-fftconv", CHAPTER,
       "At the published H100 figures a FLOP of the 8,192-point FFT convolution takes about a hundred times as "
       "long as a FLOP of the matrix product with FlashFFTConv, and several hundred times with PyTorch's FFT.",
       "MATMUL_H100 over the gated convolutions' ledger FLOP/s at n = 8,192 (published_rates): FlashFFTConv "
       "50 to 200, PyTorch 300 to 1,000",
       fails_when=fft_priced(10))
def h100_matmul_over_fftconv() -> bool:
    return 50 <= _conv_ratio("FlashFFTConv") <= 200 and 300 <= _conv_ratio("PyTorch") <= 1000


def _conv_runtimes_scaled(factor: float) -> dict:
    return {key: dataclasses.replace(p, value=p.value * factor) for key, p in measure.FFTCONV_H100.items()}


@claim("ms-h100-time-share", CHAPTER,
       "At the published H100 figures, with either FFT library, the optical work of Hyena-2 and of the hybrid takes "
       "more than ten times its share of the FLOPs in time, and the block-circulant variant's takes most of the "
       "step's time.",
       "published_variants for FlashFFTConv and PyTorch at S = 4,096: time share over FLOP share above 10 for "
       "hyena2 and hybrid, the block-circulant time share above 50%",
       fails_when=change("the published FFT-convolution runtimes were 100 times shorter",
                         constant(measure, "FFTCONV_H100", _conv_runtimes_scaled(0.01))))
def h100_time_share() -> bool:
    for library in measure.FFT_LIBRARIES:
        t = measure.published_variants(library)
        if not all(t[v]["time_share"] > 10 * t[v]["flop_share"] for v in ("hyena2", "hybrid")):
            return False
        if not t["hyena2_circulant"]["time_share"] > 0.5:
            return False
    return True


@claim("ms-sustained-half-of-best", CHAPTER,
       "The ledger's sustained matrix rate for a whole step is about half the best single-kernel rate measured "
       "on an H100 SXM.",
       "Engine().gpu_flops over MATMUL_H100: 0.4 to 0.6",
       fails_when=engine_default("the GPUs sustained 700 TFLOP/s on matrix products over a step", gpu_flops=700e12))
def sustained_half_of_best() -> bool:
    return 0.4 <= Engine().gpu_flops / measure.MATMUL_H100.value <= 0.6
