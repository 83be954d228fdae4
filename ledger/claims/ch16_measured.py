"""Checked sentences of chapter 16 (measured kernels). Measured rates vary, so these claims check what
the ledger fixes: the FLOP split, intensities, and how time shares move for any rates of a stated kind."""
from __future__ import annotations

import itertools

from .. import article
from ..layers import OPTICAL_CLASSES
from ..settings import Settings
from ..step import step_items
from ..timing import flops_by_kernel, time_shares
from ..exercises import part2
from . import claim
from .changes import LM_HEAD_CIRCULANT, fft_priced, memory_bandwidth

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
    ridge = article.ridge_point(part2.ILLUSTRATIVE_PEAK, part2.ILLUSTRATIVE_BANDWIDTH)
    per_stage = Settings().costs.fft_constant  # c n log2 n over log2 n stages of n elements: c per element
    return (10 <= fft < 20 and per_stage < 5 and 100 <= matmul < 1000 and 100 <= ridge < 1000
            and fft / 2 < ridge / 10)
