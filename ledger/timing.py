"""Re-weight a step ledger by time: FLOPs per kernel kind divided by the FLOP/s that kind achieves.

The FLOP shares of the book treat every FLOP alike. On a real machine a matmul FLOP is cheap and an
FFT or elementwise FLOP is dear (low arithmetic intensity, memory-bound), so the optical classes
take a larger share of the step's *time* than of its FLOPs. This module holds only the arithmetic:
which kernel each line item runs as, seconds per kernel, the time-weighted shares and the Amdahl
bound in seconds. The timing loop that measures the achieved rates is ledger/measure.py.
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping

from .errors import LedgerError
from .layers import CLASSES, OPTICAL_CLASSES, STATIC_CLASSES, LineItem
from .shares import amdahl

KERNELS = ("matmul", "fft_long", "fft_block", "block_product", "elementwise")
"""matmul: dense projections, MLP, LM head, attention scores (real GEMM). fft_long: the long
convolutions' FFTs (length 2S) and the filters' transforms. fft_block: the block-circulant FFTs
(length b). block_product: a block-circulant matrix's spectral products with their sums over blocks
(and the dW products with their accumulation over tokens); for a batch of tokens these are, bin by
bin, one complex matrix product (p x q times q x tokens), so a digital machine runs them as a batched
complex GEMM. elementwise: the long convolutions' spectral products and dH accumulation, the short
convolution, the gates."""

_DENSE_SUFFIXES = (": W x", ": W^T g (dX)", ": g x^T (dW)")
_BLOCK_TAGS = ("W_ij", "X_j", "sum over input blocks", "sum over output blocks", "accumulate dW")


def kernel_of(item: LineItem) -> str:
    """The kernel kind a line item runs as on a digital machine."""
    if item.cls == "transform":
        return "fft_block" if "blocks" in item.op else "fft_long"
    if item.cls == "digital" and (item.op.endswith(_DENSE_SUFFIXES) or item.op.startswith("attention:")):
        return "matmul"
    if any(tag in item.op for tag in _BLOCK_TAGS):
        return "block_product"
    return "elementwise"


def check_rates(rates: Mapping[str, float]) -> dict[str, float]:
    """Achieved FLOP/s for every kernel kind, each a positive finite number."""
    missing = [k for k in KERNELS if k not in rates]
    if missing:
        raise LedgerError(f"rates is missing {missing[0]!r}: give achieved FLOP/s for {', '.join(KERNELS)}")
    out = {}
    for k in KERNELS:
        v = rates[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise LedgerError(f"rates[{k!r}] = {v!r}: must be a positive finite FLOP/s")
        out[k] = float(v)
    return out


def flops_by_kernel(items: Iterable[LineItem], classes: Iterable[str] | None = None) -> dict[str, float]:
    """FLOPs of the step per kernel kind; with `classes` (e.g. OPTICAL_CLASSES), of those line items only."""
    keep = None if classes is None else set(classes)
    if keep is not None and not keep <= set(CLASSES):
        raise LedgerError(f"classes {sorted(keep - set(CLASSES))!r}: allowed are {', '.join(CLASSES)}")
    totals = dict.fromkeys(KERNELS, 0.0)
    for i in items:
        if keep is None or i.cls in keep:
            totals[kernel_of(i)] += i.flops
    return totals


def seconds_by_kernel(items: Iterable[LineItem], rates: Mapping[str, float]) -> dict[str, float]:
    """Seconds each kernel kind takes in the step at the given achieved rates (one device)."""
    r = check_rates(rates)
    return {k: f / r[k] for k, f in flops_by_kernel(items).items()}


def time_shares(items: list[LineItem], rates: Mapping[str, float]) -> dict[str, float]:
    """The step's optical share weighted by time beside the share by FLOPs, and both Amdahl bounds.

    Returns step_s, optical_s, static_s (seconds on one device at the given rates), flop_share,
    static_flop_share, time_share, static_time_share (fractions), amdahl_flops, amdahl_time
    (1 / (1 - share)), and saved_s_bound: the seconds an infinitely fast engine would save.
    """
    r = check_rates(rates)
    step_f = optical_f = static_f = 0.0
    step_s = optical_s = static_s = 0.0
    for i in items:
        sec = i.flops / r[kernel_of(i)]
        step_f += i.flops
        step_s += sec
        if i.cls in OPTICAL_CLASSES:
            optical_f += i.flops
            optical_s += sec
        if i.cls in STATIC_CLASSES:
            static_f += i.flops
            static_s += sec
    if step_s <= 0:
        raise LedgerError("the step has no FLOPs to weight")
    flop_share, time_share = optical_f / step_f, optical_s / step_s
    return {
        "step_s": step_s, "optical_s": optical_s, "static_s": static_s,
        "flop_share": flop_share, "static_flop_share": static_f / step_f,
        "time_share": time_share, "static_time_share": static_s / step_s,
        "amdahl_flops": amdahl(flop_share), "amdahl_time": amdahl(time_share),
        "amdahl_static_time": amdahl(static_s / step_s), "saved_s_bound": optical_s,
    }
