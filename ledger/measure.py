"""Time numpy's matmul and FFT at the ledger's shapes on one CPU thread, and re-weight the step by time.

    python -m ledger.measure            # the default run (about 10-30 s); also `make measure`
    python -m ledger.measure --quick    # fewer repeats (what the book runs when it is built)
    python -m ledger.measure --json     # machine-readable

It lives in the library (not beside it in benchmarks/, whose script now only calls it) so that
chapter 16 runs from the student folder, which carries the library and not the repository's tools.

A lab of the method, not of the step's hardware: the step runs on GPUs, these kernels on one core of
whatever machine builds the book. Each kernel kind of ledger.timing.KERNELS is timed once at a shape the
Llama-3-8B ledger uses: the attention q projection (4096 x 4096) on a batch of tokens, the rFFT + inverse
rFFT of length 2S = 8,192 (S = 4,096), the rFFT + inverse of 256-point circulant blocks, the
block-circulant spectral product as a batched complex matmul (one 16 x 16 complex matrix per frequency
bin), and a complex elementwise multiply. FLOPs are counted with the ledger's conventions (ledger.costs:
2mnk; 2.5 n log2 n; 6 per complex multiply, 8 per complex multiply-add), so achieved FLOP/s are comparable
with the ledger's counts. The best of a few repeats is kept: other work on the machine only slows a kernel.

Like with like: numpy's FFT and elementwise products run on one thread, so BLAS (the matmul and the
batched block products) is limited to one thread too while the kernels are timed (OpenBLAS's own
set_num_threads, found in the loaded library; the machine record says whether that worked). Every
operand is about `operand_mib` MiB (default: 1.25 x the last-level cache and at least 64 MiB, 40 with
--quick), so data come from main memory as in a real step, whose arrays are larger still.

The memory roof is an estimate, not a bound. Each kernel's streams (bytes read and written in main memory,
`Streams`) are counted with write-allocate: an ordinary store reads its cache line before writing it, so
every byte written costs a read too. Two calibration loops with ordinary stores, as the kernels' outputs
are written, measure what one thread moves: a float32 negation (one read per write, the FFTs' and block
products' mix) and a float32 add (two reads per write, the elementwise product's). A kernel's roof is its
FLOPs per byte of traffic times the bandwidth of the calibration nearest its mix; where the mixes match,
counting write-allocate or not moves no roof. A kernel can exceed its estimate: the calibration is another
loop, timed at another moment.

Beside these CPU timings, `PUBLISHED` holds GPU figures of the H100 SXM the book prices, each with its source
and condition: the best measured dense BF16 matrix product, and FFT-convolution runtimes of PyTorch and
FlashFFTConv at the step's two FFT lengths; `published_rates` turns them into FLOP/s with the ledger's
conventions and `published_variants` re-weights the step at those rates.
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .costs import Costs
from .errors import LedgerError
from .settings import Settings
from .shapes import LLAMA3_8B
from .step import step_items
from .step_time import TENSOR_KERNELS
from .timing import KERNELS, time_shares

HIDDEN = LLAMA3_8B.hidden
FFT_LONG = 2 * 4096
BLOCK = 256
VARIANTS = ("hyena2", "hyena2_circulant", "hybrid")


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def blas_name() -> str:
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # noqa: BLE001  # numpy builds differ in what they report, and how they fail to
        return "unknown"


def last_level_cache_mib() -> float | None:
    """The largest CPU cache of cpu0 in MiB (Linux sysfs), None where it cannot be read."""
    sizes = []
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            text = (index / "size").read_text().strip()
        except OSError:
            continue
        unit = {"K": 1 / 1024, "M": 1.0, "G": 1024.0}.get(text[-1:].upper())
        if unit is not None and text[:-1].isdigit():
            sizes.append(int(text[:-1]) * unit)
    return max(sizes) if sizes else None


_BLAS_SET = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads64_",
             "openblas_set_num_threads")


def _openblas() -> tuple[ctypes.CDLL, str] | None:
    """numpy's loaded OpenBLAS and the prefix of its symbols, or None (another BLAS, or not Linux)."""
    try:
        maps = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return None
    for path in sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line}):
        lib = ctypes.CDLL(path)
        for name in _BLAS_SET:
            if hasattr(lib, name):
                return lib, name
    return None


def blas_threads() -> int | None:
    """Threads numpy's BLAS uses now, None where it cannot be asked."""
    found = _openblas()
    if found is None:
        return None
    lib, setter = found
    getter = getattr(lib, setter.replace("set_num_threads", "get_num_threads"), None)
    return int(getter()) if getter is not None else None


@contextlib.contextmanager
def limited_blas_threads(threads: int):
    """Run the block with numpy's BLAS on `threads` threads (OpenBLAS), restoring the count after."""
    found, before = _openblas(), blas_threads()
    if found is not None:
        getattr(found[0], found[1])(threads)
    try:
        yield
    finally:
        if found is not None and before is not None:
            getattr(found[0], found[1])(before)


def machine() -> dict:
    return {"platform": platform.platform(), "cpu": cpu_name(), "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__, "blas": blas_name(),
            "last_level_cache_mib": last_level_cache_mib()}


def best_seconds(fn: Callable[[], object], repeats: int, min_time: float = 0.02,
                 warm: Callable[[], object] | None = None) -> float:
    """Best time per call over `repeats` rounds, each round long enough (min_time) to time reliably.
    `warm` (default: one call of fn) makes plans, caches and the thread pool ready before timing."""
    (warm or fn)()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-9)
    number = max(1, int(min_time / one))
    best = one if number == 1 else float("inf")  # a call long enough to time is a round of its own
    for _ in range(repeats - 1 if number == 1 else repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


@dataclass(frozen=True)
class Streams:
    """Bytes a kernel reads and writes in main memory, each operand read and each result written once."""

    read: float
    write: float

    def traffic(self, write_allocate: bool = True) -> float:
        """Bytes that cross the memory bus: the reads, the writes and, with write-allocate, a read of every
        line written (an ordinary store reads its cache line before it writes it)."""
        return self.read + (2.0 if write_allocate else 1.0) * self.write


CALIBRATIONS = {"1:1": Streams(1.0, 1.0), "2:1": Streams(2.0, 1.0)}
"""The calibration loops, by their streams per float32 element: "1:1", a negation (np.negative, one read and
one write, the mix of the FFTs and the block products) and "2:1", an add (np.add, two reads and one write, the
mix of the elementwise product). Both are numpy loops with ordinary stores, as the kernels' outputs are
written (a library copy may use stores that skip the write-allocate read, which the kernels do not)."""


def calibration_mix(streams: Streams) -> str:
    """The calibration loop whose reads per write are nearest the kernel's (on a log scale)."""
    if not streams.read > 0 or not streams.write > 0:
        raise LedgerError(f"streams {streams!r}: a kernel must read and write a positive number of bytes")
    ratio = streams.read / streams.write
    return min(CALIBRATIONS, key=lambda k: abs(math.log(ratio * CALIBRATIONS[k].write / CALIBRATIONS[k].read)))


def roof_seconds(streams: Streams, elements_per_s: float, mix: str, write_allocate: bool = True) -> float:
    """Seconds the kernel's streams take at the pace of the calibration loop `mix`, which went through
    `elements_per_s` float32 elements per second: its bytes of traffic over the loop's bytes per second, both
    counted with write-allocate or both without."""
    if mix not in CALIBRATIONS:
        raise LedgerError(f"mix = {mix!r}: must be one of {', '.join(CALIBRATIONS)}")
    bandwidth = elements_per_s * 4 * CALIBRATIONS[mix].traffic(write_allocate)
    return streams.traffic(write_allocate) / bandwidth


def kernel_shapes(operand_mib: float = 64.0) -> dict[str, int]:
    """The batch of each kernel, chosen so that its largest operand is about `operand_mib` MiB; the q
    projection keeps 256 tokens, its 4096 x 4096 weight being 64 MiB already."""
    mib = operand_mib * 2 ** 20
    bins = BLOCK // 2 + 1
    spec_len = FFT_LONG // 2 + 1
    return {"tokens": 256, "channels": max(4, int(mib // (FFT_LONG * 4))), "blocks": max(64, int(mib // (BLOCK * 4))),
            "bins": bins, "p": 16, "q": 16, "batch": max(16, int(mib // (bins * 16 * 8))),
            "elems": max(4, int(mib // (spec_len * 8))), "spec_len": spec_len}


def kernel_streams(operand_mib: float = 64.0) -> dict[str, Streams]:
    """Each kernel's streams at `operand_mib` (kernel_shapes): float32 real values, complex64 spectra."""
    k = kernel_shapes(operand_mib)
    tokens, channels, blocks, bins, p, q, batch = (k[n] for n in ("tokens", "channels", "blocks", "bins", "p", "q",
                                                                  "batch"))
    fft = lambda rows, n: 4.0 * rows * n + 8.0 * rows * (n // 2 + 1)  # real signal + its spectrum
    elementwise = 8.0 * k["elems"] * k["spec_len"]
    return {"matmul": Streams(4.0 * (tokens * HIDDEN + HIDDEN * HIDDEN), 4.0 * tokens * HIDDEN),
            # the rFFT reads the signal and writes the spectrum; the inverse reads the spectrum and writes the signal
            "fft_long": Streams(fft(channels, FFT_LONG), fft(channels, FFT_LONG)),
            "fft_block": Streams(fft(blocks, BLOCK), fft(blocks, BLOCK)),
            "block_product": Streams(8.0 * bins * (p * q + q * batch), 8.0 * bins * p * batch),
            "elementwise": Streams(2 * elementwise, elementwise)}


def kernels(operand_mib: float = 64.0) -> dict[str, dict]:
    """The kernels, their shapes, their ledger FLOPs, their streams (kernel_streams) and a closure that runs
    them once into preallocated outputs (as a framework's cached buffers; no page faults timed)."""
    rng = np.random.default_rng(0)
    costs = Costs()
    k = kernel_shapes(operand_mib)
    tokens, channels, blocks_n, bins, p, q, batch, elems, spec_len = (
        k[n] for n in ("tokens", "channels", "blocks", "bins", "p", "q", "batch", "elems", "spec_len"))
    streams = kernel_streams(operand_mib)
    x = rng.standard_normal((tokens, HIDDEN), dtype=np.float32)
    w = rng.standard_normal((HIDDEN, HIDDEN), dtype=np.float32)
    u = rng.standard_normal((channels, FFT_LONG), dtype=np.float32)
    blocks = rng.standard_normal((blocks_n, BLOCK), dtype=np.float32)
    wf = (rng.standard_normal((bins, p, q)) + 1j * rng.standard_normal((bins, p, q))).astype(np.complex64)
    xf = (rng.standard_normal((bins, q, batch)) + 1j * rng.standard_normal((bins, q, batch))).astype(np.complex64)
    a = (rng.standard_normal((elems, spec_len)) + 1j * rng.standard_normal((elems, spec_len))).astype(np.complex64)
    b = a[::-1].copy()
    out = {"matmul": np.empty((tokens, HIDDEN), np.float32), "u_f": np.empty((channels, spec_len), np.complex64),
           "u": np.empty_like(u), "blocks_f": np.empty((blocks_n, bins), np.complex64), "blocks": np.empty_like(blocks),
           "block_product": np.empty((bins, p, batch), np.complex64), "elementwise": np.empty_like(a)}
    for buffer in out.values():
        buffer.fill(0)  # touch every page now, so no page fault is timed and a small warm-up suffices

    def fft_pair(data, spec, res, n):
        np.fft.rfft(data, axis=1, out=spec)
        return np.fft.irfft(spec, n=n, axis=1, out=res)
    multiply_add = costs.complex_mul_flops + costs.complex_add_flops
    timed = {
        "matmul": {"shape": f"({tokens} x {HIDDEN}) @ ({HIDDEN} x {HIDDEN}) float32, the q projection",
                   "flops": costs.matmul(tokens, HIDDEN, HIDDEN),
                   "run": lambda: np.matmul(x, w, out=out["matmul"]),
                   "warm": lambda: np.matmul(x[:16], w, out=out["matmul"][:16])},
        "fft_long": {"shape": f"rFFT + inverse rFFT, {channels} channels x n = {FFT_LONG} float32",
                     "flops": 2 * channels * costs.rfft(FFT_LONG),
                     "run": lambda: fft_pair(u, out["u_f"], out["u"], FFT_LONG),
                     "warm": lambda: fft_pair(u[:2], out["u_f"][:2], out["u"][:2], FFT_LONG)},
        "fft_block": {"shape": f"rFFT + inverse rFFT, {blocks_n} blocks x b = {BLOCK} float32",
                      "flops": 2 * blocks_n * costs.rfft(BLOCK),
                      "run": lambda: fft_pair(blocks, out["blocks_f"], out["blocks"], BLOCK),
                      "warm": lambda: fft_pair(blocks[:64], out["blocks_f"][:64], out["blocks"][:64], BLOCK)},
        "block_product": {"shape": f"{bins} bins x ({p} x {q}) @ ({q} x {batch}) complex64",
                          "flops": multiply_add * bins * p * q * batch,
                          "run": lambda: np.matmul(wf, xf, out=out["block_product"]),
                          "warm": lambda: np.matmul(wf[:2], xf[:2], out=out["block_product"][:2])},
        "elementwise": {"shape": f"complex64 multiply, {elems} x {spec_len}",
                        "flops": costs.complex_mul_flops * elems * spec_len,
                        "run": lambda: np.multiply(a, b, out=out["elementwise"]),
                        "warm": lambda: np.multiply(a[:2], b[:2], out=out["elementwise"][:2])},
    }
    for name, kernel in timed.items():
        kernel["streams"] = streams[name]
    return timed


def default_operand_mib(quick: bool) -> float:
    """Operand size that leaves the caches: 1.25 x the last-level cache, at least 40 MiB (--quick) or 64 MiB,
    64 MiB where the cache size cannot be read."""
    llc = last_level_cache_mib()
    floor = 40.0 if quick else 64.0
    return 64.0 if llc is None else max(floor, float(math.ceil(1.25 * llc)))


def calibration_rates(operand_mib: float, repeats: int) -> dict[str, float]:
    """Float32 elements per second one thread takes through each calibration loop (CALIBRATIONS) on arrays of
    `operand_mib` MiB, every page touched before timing."""
    n = int(operand_mib * 2 ** 20 // 4)
    a, b = np.ones(n, dtype=np.float32), np.full(n, 2.0, dtype=np.float32)
    dst = np.zeros_like(a)
    dst.fill(1)
    loops = {"1:1": lambda: np.negative(a, out=dst), "2:1": lambda: np.add(a, b, out=dst)}
    return {mix: n / best_seconds(loops[mix], max(10, 5 * repeats), min_time=0.02) for mix in CALIBRATIONS}


def measure(quick: bool = False, repeats: int | None = None, operand_mib: float | None = None) -> dict:
    """Achieved FLOP/s per kernel kind on this machine, every kernel on one thread with operands of about
    `operand_mib` MiB (default: beyond the last-level cache, default_operand_mib), each kernel's memory roof
    estimate, and the time-weighted shares at S = 4,096."""
    repeats = repeats or (2 if quick else 5)
    operand_mib = default_operand_mib(quick) if operand_mib is None else operand_mib
    results = {}
    with limited_blas_threads(1):
        threads = blas_threads()
        before = calibration_rates(operand_mib, repeats)
        timed = kernels(operand_mib)
        for name, k in timed.items():
            sec = best_seconds(k["run"], repeats, min_time=0.01 if quick else 0.05, warm=k["warm"])
            s = k["streams"]
            results[name] = {"shape": k["shape"], "flops": float(k["flops"]), "read_bytes": float(s.read),
                             "write_bytes": float(s.write), "traffic_bytes": float(s.traffic()),
                             "mix": calibration_mix(s), "seconds": float(sec), "flops_per_s": float(k["flops"]) / sec}
        # the calibrations again after the kernels, the best of both kept: other work on the machine only slows
        # a loop; how far apart the two timings came is kept as the run's spread
        after = calibration_rates(operand_mib, repeats)
    rates_by_mix = {mix: max(before[mix], after[mix]) for mix in CALIBRATIONS}
    spread = max(abs(before[mix] - after[mix]) / rates_by_mix[mix] for mix in CALIBRATIONS)
    bandwidth = {mix: float(rates_by_mix[mix] * 4 * CALIBRATIONS[mix].traffic()) for mix in CALIBRATIONS}
    for name, r in results.items():
        roof_s = roof_seconds(timed[name]["streams"], rates_by_mix[r["mix"]], r["mix"])
        roof = r["flops"] / roof_s
        r.update(memory_roof_flops_per_s=float(roof), fraction_of_memory_roof=float(r["flops_per_s"] / roof))
    rates = {name: results[name]["flops_per_s"] for name in KERNELS}
    mach = dict(machine(), blas_threads=threads, threads_matched=threads == 1)
    return {"machine": mach, "quick": quick, "repeats": repeats, "operand_mib": float(operand_mib),
            "stream_bytes_per_s": bandwidth, "stream_spread": float(spread), "kernels": results, "rates": rates,
            "seq_len": 4096, "variants": variant_shares(rates)}


def variant_shares(rates: dict[str, float], seq_len: int = 4096) -> dict[str, dict[str, float]]:
    """The time-weighted shares (ledger.timing.time_shares) of VARIANTS at `seq_len` at the given rates."""
    return {v: {key: float(val) for key, val in time_shares(step_items(Settings(variant=v, seq_len=seq_len)),
                                                            rates).items()}
            for v in VARIANTS}


# --- published figures of the GPU the book prices --------------------------------------------------------

@dataclass(frozen=True)
class Published:
    """A figure as its source prints it, with the condition it holds under and the source's bibliography key."""

    value: float
    unit: str
    what: str
    condition: str
    cite: str


MATMUL_H100 = Published(
    794.5e12, "FLOP/s", "dense BF16 matrix product on one H100 SXM (torch.matmul, no sparsity)",
    "the best of a search over shapes, M x N x K = 2048 x 2048 x 13312 (each dimension in the thousands, as the "
    "step's products are); the mean of 100 iterations after 50 warm-up ones; torch 2.7.0+cu126. A single "
    "kernel's rate: the ledger's own step pricing (Engine.gpu_flops) takes 400 TFLOP/s sustained over a whole step",
    "bekman2024mamf")

FFTCONV_BATCH, FFTCONV_CHANNELS = 64, 768
"""The FlashFFTConv README's runtimes are for B = 64 sequences of H = 768 channels."""

FFT_LIBRARIES = ("FlashFFTConv", "PyTorch")

_FFTCONV_CONDITION = ("a gated convolution (input gate, FFT convolution of FFT size n with the input n points long, "
                      "output gate) of B = 64 x H = 768 channels on one H100-SXM, as the FlashFFTConv README prints "
                      "its runtimes; its benchmark script runs fp16 inputs and fp32 filters, PyTorch's in fp32 "
                      "torch.fft with unfused gates. The README does not say forward or backward: taken as one "
                      "forward convolution (if the runtimes held the backward too, the rates would be about three "
                      "times higher)")

FFTCONV_H100 = {
    (library, n): Published(seconds, "s", f"{library} gated FFT convolution, FFT size {n:,}", _FFTCONV_CONDITION,
                            "flashfftconvcode")
    for (library, n), seconds in {("FlashFFTConv", 256): 0.11e-3, ("FlashFFTConv", 8192): 3.58e-3,
                                  ("PyTorch", 256): 0.62e-3, ("PyTorch", 8192): 19.4e-3}.items()}
"""Runtimes of one batch (FFTCONV_BATCH x FFTCONV_CHANNELS), by library and FFT size: the step's two FFT
lengths, the circulant blocks' b = 256 and the long convolutions' 2S = 8,192 at S = 4,096."""

PUBLISHED = {"matmul": MATMUL_H100, **{f"fftconv {lib} {n}": p for (lib, n), p in FFTCONV_H100.items()}}


def gated_fft_conv_flops(n: int, sequences: int = FFTCONV_BATCH * FFTCONV_CHANNELS,
                         channels: int = FFTCONV_CHANNELS) -> float:
    """Ledger FLOPs (ledger.costs) of the gated FFT convolution the FlashFFTConv README times: per sequence an
    input gate (n multiplies), an rFFT, the spectral product (a complex multiply per bin), an inverse rFFT and an
    output gate; and one filter's rFFT per channel."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 2 or n & (n - 1):
        raise LedgerError(f"n = {n!r}: must be a power of two of at least 2")
    c = Costs()
    per_sequence = 2 * c.rfft(n) + c.complex_mul_flops * c.bins(n) + 2 * n
    return sequences * per_sequence + channels * c.rfft(n)


def published_rates(library: str = "FlashFFTConv") -> dict[str, float]:
    """FLOP/s per kernel kind at the published H100 figures: the matrix product's (MATMUL_H100) for the kinds
    the book runs on tensor cores (ledger.step_time.TENSOR_KERNELS: the block products too, an assumption, no
    measurement of them being published); `library`'s gated FFT convolution at n = 8,192 for the long FFTs and
    the elementwise work (fused into the convolution, as FlashFFTConv runs it), at n = 256 for the block FFTs,
    each its ledger FLOPs over its runtime."""
    if library not in FFT_LIBRARIES:
        raise LedgerError(f"library = {library!r}: must be one of {', '.join(FFT_LIBRARIES)}")
    conv = {n: gated_fft_conv_flops(n) / FFTCONV_H100[(library, n)].value for n in (BLOCK, FFT_LONG)}
    rates = {k: conv[FFT_LONG] for k in KERNELS}
    rates.update({k: MATMUL_H100.value for k in TENSOR_KERNELS}, fft_block=conv[BLOCK])
    return rates


def published_variants(library: str = "FlashFFTConv", seq_len: int = 4096) -> dict[str, dict[str, float]]:
    """The time-weighted shares of VARIANTS at the published H100 rates (published_rates)."""
    return variant_shares(published_rates(library), seq_len)


def report(m: dict) -> str:
    mach = m["machine"]
    llc = mach["last_level_cache_mib"]
    streams = ", ".join(f"{mix} {bw / 1e9:.1f} GB/s" for mix, bw in m["stream_bytes_per_s"].items())
    lines = [f"machine: {mach['cpu']} ({mach['cores']} cores), {mach['platform']}",
             f"numpy {mach['numpy']}, BLAS {mach['blas']}",
             (f"threads: BLAS {mach['blas_threads'] if mach['blas_threads'] is not None else 'unknown'}, numpy FFT "
              f"and elementwise 1 ({'matched' if mach['threads_matched'] else 'NOT matched'}); operands about "
              f"{m['operand_mib']:g} MiB, last-level cache {f'{llc:g} MiB' if llc else 'unknown'}"),
             (f"calibration loops (reads:writes, write-allocate counted): {streams}; the two timings of each "
              f"differed by up to {100 * m['stream_spread']:.1f}%"), "",
             f"{'kernel':14} {'GFLOP/s':>9} {'share of matmul':>16} {'of roof (est.)':>15} {'mix':>4}  shape"]
    mm = m["rates"]["matmul"]
    for name, k in m["kernels"].items():
        lines.append(f"{name:14} {k['flops_per_s'] / 1e9:>9.2f} {k['flops_per_s'] / mm:>16.3f} "
                     f"{k['fraction_of_memory_roof']:>15.3f} {k['mix']:>4}  {k['shape']}")
    header = (f"{'variant':18} {'FLOP share':>11} {'time share':>11} {'Amdahl (FLOPs)':>15} {'Amdahl (time)':>14}"
              f" {'step s':>9} {'optical s':>10}")
    lines += ["", f"step at S = {m['seq_len']}, one device at these rates:", header]
    for v, t in m["variants"].items():
        lines.append(f"{v:18} {100 * t['flop_share']:>10.2f}% {100 * t['time_share']:>10.2f}% "
                     f"{t['amdahl_flops']:>14.3f}x {t['amdahl_time']:>13.3f}x {t['step_s']:>9.0f} "
                     f"{t['optical_s']:>10.0f}")
    for library in FFT_LIBRARIES:
        lines += ["", (f"the same step at published H100 rates (matrix product {MATMUL_H100.value / 1e12:g} "
                       f"TFLOP/s, {library} FFT convolutions; ledger.measure.PUBLISHED):")]
        for v, t in published_variants(library, m["seq_len"]).items():
            lines.append(f"{v:18} {100 * t['flop_share']:>10.2f}% {100 * t['time_share']:>10.2f}% "
                         f"{t['amdahl_flops']:>14.3f}x {t['amdahl_time']:>13.3f}x")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--quick", action="store_true", help="fewer repeats and shorter rounds")
    parser.add_argument("--repeats", type=int, default=None, help="rounds per kernel (best kept)")
    parser.add_argument("--operand-mib", type=float, default=None,
                        help="size of each kernel's largest operand in MiB (default: 1.25 x the last-level cache, "
                             "at least 64, or 40 with --quick)")
    args = parser.parse_args(argv)
    if args.repeats is not None and args.repeats < 1:
        sys.stderr.write(f"measure.py: error: --repeats {args.repeats}: must be a positive integer\n")
        return 2
    if args.operand_mib is not None and not 0 < args.operand_mib <= 4096:
        sys.stderr.write(f"measure.py: error: --operand-mib {args.operand_mib:g}: must be above 0 and at most 4096\n")
        return 2
    m = measure(quick=args.quick, repeats=args.repeats, operand_mib=args.operand_mib)
    print(json.dumps(m, indent=2) if args.json else report(m))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
