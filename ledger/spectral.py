"""The causal FFT convolution and its two correlation gradients, checked against direct sums.

For y[i] = sum_k h[k] u[i-k] (causal, length L) and an output gradient g = dLoss/dy:
    du[j] = sum_i g[i] h[i-j]   ->  dU = IFFT(G . conj(H))
    dh[k] = sum_i g[i] u[i-k]   ->  dH = IFFT(G . conj(U))
Zero-padding every signal to n >= 2L keeps lags -(L-1)..L-1 free of wrap-around, so the first
L outputs of each inverse FFT are exact.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import LedgerError

DEFAULT_CHECK_LENGTHS = (16, 100, 256, 1000, 4096)


def fft_length(length: int) -> int:
    """The smallest power of two n >= 2L (1,000 pads to 2,048)."""
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length <= 0:
        raise LedgerError(f"length = {length!r}: must be a positive integer")
    return 1 << (2 * int(length) - 1).bit_length()


def causal_conv_fft(u: np.ndarray, h: np.ndarray) -> np.ndarray:
    """y = h * u (causal, first L outputs) as IFFT(H . U)."""
    n = fft_length(len(u))
    return np.fft.irfft(np.fft.rfft(h, n) * np.fft.rfft(u, n), n)[: len(u)]


def grad_input_fft(g: np.ndarray, h: np.ndarray) -> np.ndarray:
    """du = IFFT(G . conj(H)): the output gradient correlated with the filter (anti-causal)."""
    n = fft_length(len(g))
    return np.fft.irfft(np.fft.rfft(g, n) * np.conj(np.fft.rfft(h, n)), n)[: len(g)]


def grad_filter_fft(g: np.ndarray, u: np.ndarray) -> np.ndarray:
    """dh = IFFT(G . conj(U)): the output gradient correlated with the input."""
    n = fft_length(len(g))
    return np.fft.irfft(np.fft.rfft(g, n) * np.conj(np.fft.rfft(u, n)), n)[: len(g)]


def causal_conv_direct(u: np.ndarray, h: np.ndarray) -> np.ndarray:
    """y[i] = sum_{k<=i} h[k] u[i-k], summed directly."""
    return np.convolve(h, u)[: len(u)]


def grad_input_direct(g: np.ndarray, h: np.ndarray) -> np.ndarray:
    """du[j] = sum_{i>=j} g[i] h[i-j], summed directly."""
    length = len(g)
    return np.array([np.dot(g[j:], h[: length - j]) for j in range(length)])


def grad_filter_direct(g: np.ndarray, u: np.ndarray) -> np.ndarray:
    """dh[k] = sum_{i>=k} g[i] u[i-k], summed directly."""
    length = len(g)
    return np.array([np.dot(g[k:], u[: length - k]) for k in range(length)])


def _loss(u: np.ndarray, h: np.ndarray, g: np.ndarray) -> float:
    """The linear loss sum_i g[i] y[i], whose gradients are exactly du and dh."""
    return float(np.dot(g, causal_conv_direct(u, h)))


def finite_difference(u, h, g, wrt: str, indices, step: float = 1e-3) -> np.ndarray:
    """Central differences of the loss with respect to u or h at the given indices."""
    out = []
    for idx in indices:
        plus_u, minus_u, plus_h, minus_h = u.copy(), u.copy(), h.copy(), h.copy()
        if wrt == "u":
            plus_u[idx] += step
            minus_u[idx] -= step
        else:
            plus_h[idx] += step
            minus_h[idx] -= step
        out.append((_loss(plus_u, plus_h, g) - _loss(minus_u, minus_h, g)) / (2 * step))
    return np.array(out)


@dataclass(frozen=True)
class SpectralCheck:
    """Largest errors, relative to the largest direct value, of one length's three checks."""

    length: int
    fft_len: int
    forward_vs_direct: float
    input_grad_vs_direct: float
    filter_grad_vs_direct: float
    input_grad_vs_fd: float
    filter_grad_vs_fd: float


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def check_length(length: int, seed: int = 0, fd_points: int = 6, fd_step: float = 1e-3) -> SpectralCheck:
    """Compare the spectral forward pass and both gradients with direct sums and finite differences."""
    n = fft_length(length)
    rng = np.random.default_rng(seed + length)
    u, h, g = (rng.standard_normal(length) for _ in range(3))
    idx = np.unique(np.concatenate([[0, length - 1], rng.integers(0, length, fd_points)]))
    du, dh = grad_input_fft(g, h), grad_filter_fft(g, u)
    return SpectralCheck(
        length=length, fft_len=n,
        forward_vs_direct=_rel(causal_conv_fft(u, h), causal_conv_direct(u, h)),
        input_grad_vs_direct=_rel(du, grad_input_direct(g, h)),
        filter_grad_vs_direct=_rel(dh, grad_filter_direct(g, u)),
        input_grad_vs_fd=_rel(du[idx], finite_difference(u, h, g, "u", idx, fd_step)),
        filter_grad_vs_fd=_rel(dh[idx], finite_difference(u, h, g, "h", idx, fd_step)),
    )


def spectral_checks(lengths=DEFAULT_CHECK_LENGTHS, seed: int = 0) -> list[SpectralCheck]:
    """The numeric checks table: one row per length."""
    return [check_length(length, seed) for length in lengths]
