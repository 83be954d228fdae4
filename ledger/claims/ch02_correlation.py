"""Claims of chapter 02 (the gradient of a convolution is a correlation)."""
from __future__ import annotations

import math

from ..spectral import spectral_checks
from . import claim
from .ch10_assumptions import fft_length_switch
from .changes import FFT_BLUESTEIN, FFT_UNPADDED

CH = "02_correlation"
LENGTHS = (16, 100, 256, 1000, 4096)


@claim("ch02-spectral-to-rounding", CH,
       "The spectral formulas (forward, dX, dW) agree with the direct sums to rounding (below 1e-14 relative), "
       "and with finite differences to better than 1e-9.",
       "random u, h and g (seed 0) at L = 16, 100, 256, 1,000 and 4,096, zero-padded to a power of two n >= 2L",
       fails_when=FFT_UNPADDED)
def _rounding() -> bool:
    checks = spectral_checks(LENGTHS)
    direct = [v for c in checks for k, v in vars(c).items() if k.endswith("_vs_direct")]
    fd = [v for c in checks for k, v in vars(c).items() if k.endswith("_vs_fd")]
    return bool(direct) and bool(fd) and max(direct) < 1e-14 and max(fd) < 1e-9


@claim("ch02-fft-length-switch-prime", CH,
       "The FFT-length switch's 2S-1 is 8,191 at 4,096 tokens, a prime, which the ledger prices at the "
       "power-of-two rate: the switch shows the count difference, not a cheaper realistic transform.",
       "S = 4,096, the default fft_constant: the price of the 8,191-point FFT equal to fft_constant * n * log2 n "
       "(relative 1e-12), below that of the 8,192-point one",
       fails_when=FFT_BLUESTEIN)
def _fft_length_switch_prime() -> bool:
    f = fft_length_switch(4096)
    n = f["n_odd"]
    power_of_two_rate = math.isclose(f["flops_odd"], f["fft_constant"] * n * math.log2(n), rel_tol=1e-12)
    return (f["odd_prime"] and (n, f["n_even"]) == (8191, 8192) and power_of_two_rate
            and f["flops_odd"] < f["flops_even"])
