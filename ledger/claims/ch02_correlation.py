"""Claims of chapter 02 (the gradient of a convolution is a correlation)."""
from __future__ import annotations

from ..spectral import spectral_checks
from . import claim

CH = "02_correlation"
LENGTHS = (16, 100, 256, 1000, 4096)


@claim("ch02-spectral-to-rounding", CH,
       "The spectral formulas (forward, dX, dW) agree with the direct sums to rounding (below 1e-14 relative), "
       "and with finite differences to better than 1e-9.",
       "random u, h and g (seed 0) at L = 16, 100, 256, 1,000 and 4,096")
def _rounding() -> bool:
    checks = spectral_checks(LENGTHS)
    direct = [v for c in checks for k, v in vars(c).items() if k.endswith("_vs_direct")]
    fd = [v for c in checks for k, v in vars(c).items() if k.endswith("_vs_fd")]
    return bool(direct) and bool(fd) and max(direct) < 1e-14 and max(fd) < 1e-9
