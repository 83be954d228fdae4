"""Time numpy's matmul and FFT at the ledger's shapes, and re-weight the step by time.

    python -m ledger.measure            # the default run (about 10-30 s); also `make measure`
    python -m ledger.measure --quick    # fewer repeats (what the book runs when it is built)
    python -m ledger.measure --json     # machine-readable

It lives in the library (not beside it in benchmarks/, whose script now only calls it) so that
chapter 16 runs from the student folder, which carries the library and not the repository's tools.

Each kernel kind of ledger.timing.KERNELS is timed once at a shape the Llama-3-8B ledger uses:
the attention q projection (4096 x 4096) on a batch of tokens, the rFFT + inverse rFFT of length
2S = 8,192 (S = 4,096), the rFFT + inverse of 256-point circulant blocks, the block-circulant
spectral product as a batched complex matmul (one 16 x 16 complex matrix per frequency bin), and a
complex elementwise multiply. FLOPs are counted with the ledger's conventions (2mnk; 2.5 n log2 n;
6 per complex multiply, 8 per complex multiply-add), so achieved FLOP/s are comparable with the
ledger's counts. The best of a few repeats is kept: other work on the machine only slows a kernel.

Like with like: numpy's FFT and elementwise products run on one thread, so BLAS (the matmul and the
batched block products) is limited to one thread too while the kernels are timed (OpenBLAS's own
set_num_threads, found in the loaded library; the machine record says whether that worked). Every
operand is about `operand_mib` MiB (default: 1.25 x the last-level cache and at least 64 MiB, 40 with
--quick), so data come from main memory as in a real step, whose arrays are larger still. A streaming copy of the same
size gives the memory bandwidth one thread achieves, and each kernel's bytes moved (operands read,
results written) give the rate memory alone would allow it.
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
from pathlib import Path
from typing import Callable

import numpy as np

from .settings import Settings
from .shapes import LLAMA3_8B
from .step import step_items
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
    except Exception:  # numpy builds differ in what they report
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


def kernels(operand_mib: float = 64.0) -> dict[str, dict]:
    """The kernels, their shapes, their ledger FLOPs, the bytes they move (operands read, results written)
    and a closure that runs them once into preallocated outputs (as a framework's cached buffers; no page
    faults timed). The batch of each is chosen so that its largest operand is about `operand_mib` MiB; the
    q projection keeps 256 tokens, its 4096 x 4096 weight being 64 MiB already."""
    rng = np.random.default_rng(0)
    mib = operand_mib * 2 ** 20
    bins = BLOCK // 2 + 1
    p = q = 16
    spec_len = FFT_LONG // 2 + 1
    tokens = 256
    channels = max(4, int(mib // (FFT_LONG * 4)))
    blocks_n = max(64, int(mib // (BLOCK * 4)))
    batch = max(16, int(mib // (bins * q * 8)))
    elems = max(4, int(mib // (spec_len * 8)))
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
    fft = lambda n: 2.5 * n * np.log2(n)  # noqa: E731
    spectrum = lambda rows, n: rows * (n // 2 + 1) * 8  # complex64 bytes  # noqa: E731
    return {
        "matmul": {"shape": f"({tokens} x {HIDDEN}) @ ({HIDDEN} x {HIDDEN}) float32, the q projection",
                   "flops": 2.0 * tokens * HIDDEN * HIDDEN, "bytes": x.nbytes + w.nbytes + tokens * HIDDEN * 4,
                   "run": lambda: np.matmul(x, w, out=out["matmul"]),
                   "warm": lambda: np.matmul(x[:16], w, out=out["matmul"][:16])},
        "fft_long": {"shape": f"rFFT + inverse rFFT, {channels} channels x n = {FFT_LONG} float32",
                     "flops": 2 * channels * fft(FFT_LONG),
                     "bytes": 2 * u.nbytes + 2 * spectrum(channels, FFT_LONG),
                     "run": lambda: fft_pair(u, out["u_f"], out["u"], FFT_LONG),
                     "warm": lambda: fft_pair(u[:2], out["u_f"][:2], out["u"][:2], FFT_LONG)},
        "fft_block": {"shape": f"rFFT + inverse rFFT, {blocks_n} blocks x b = {BLOCK} float32",
                      "flops": 2 * blocks_n * fft(BLOCK), "bytes": 2 * blocks.nbytes + 2 * spectrum(blocks_n, BLOCK),
                      "run": lambda: fft_pair(blocks, out["blocks_f"], out["blocks"], BLOCK),
                      "warm": lambda: fft_pair(blocks[:64], out["blocks_f"][:64], out["blocks"][:64], BLOCK)},
        "block_product": {"shape": f"{bins} bins x ({p} x {q}) @ ({q} x {batch}) complex64",
                          "flops": 8.0 * bins * p * q * batch, "bytes": wf.nbytes + xf.nbytes + bins * p * batch * 8,
                          "run": lambda: np.matmul(wf, xf, out=out["block_product"]),
                          "warm": lambda: np.matmul(wf[:2], xf[:2], out=out["block_product"][:2])},
        "elementwise": {"shape": f"complex64 multiply, {elems} x {spec_len}",
                        "flops": 6.0 * elems * spec_len, "bytes": 3 * a.nbytes, "run": lambda: np.multiply(a, b, out=out["elementwise"]),
                        "warm": lambda: np.multiply(a[:2], b[:2], out=out["elementwise"][:2])},
    }


def default_operand_mib(quick: bool) -> float:
    """Operand size that leaves the caches: 1.25 x the last-level cache, at least 40 MiB (--quick) or 64 MiB,
    64 MiB where the cache size cannot be read."""
    llc = last_level_cache_mib()
    floor = 40.0 if quick else 64.0
    return 64.0 if llc is None else max(floor, float(math.ceil(1.25 * llc)))


def copy_bandwidth(operand_mib: float, repeats: int) -> float:
    """Bytes per second one thread moves in a streaming copy of an `operand_mib` MiB float32 array
    (read and write counted)."""
    src = np.ones(int(operand_mib * 2 ** 20 // 4), dtype=np.float32)
    dst = np.zeros_like(src)
    dst.fill(1)  # touch every page before timing
    return 2 * src.nbytes / best_seconds(lambda: np.copyto(dst, src), max(10, 5 * repeats), min_time=0.02)


def measure(quick: bool = False, repeats: int | None = None, operand_mib: float | None = None) -> dict:
    """Achieved FLOP/s per kernel kind on this machine, every kernel on one thread with operands of about
    `operand_mib` MiB (default: beyond the last-level cache, default_operand_mib), and the time-weighted
    shares at S = 4,096."""
    repeats = repeats or (2 if quick else 5)
    operand_mib = default_operand_mib(quick) if operand_mib is None else operand_mib
    results = {}
    with limited_blas_threads(1):
        threads = blas_threads()
        bandwidth = copy_bandwidth(operand_mib, repeats)
        timed = kernels(operand_mib)
        for name, k in timed.items():
            sec = best_seconds(k["run"], repeats, min_time=0.01 if quick else 0.05, warm=k["warm"])
            flops, moved = float(k["flops"]), float(k["bytes"])  # plain floats: JSON and glue need no numpy scalars
            results[name] = {"shape": k["shape"], "flops": flops, "bytes": moved, "seconds": float(sec),
                             "flops_per_s": flops / sec}
        # the copy again after the kernels, the best of both kept: other work on the machine only slows it
        bandwidth = max(bandwidth, copy_bandwidth(operand_mib, repeats))
    for name, r in results.items():
        roof = r["flops"] / r["bytes"] * bandwidth
        r.update(memory_roof_flops_per_s=float(roof), fraction_of_memory_roof=float(r["flops_per_s"] / roof))
    rates = {name: results[name]["flops_per_s"] for name in KERNELS}
    variants = {}
    for v in VARIANTS:
        items = step_items(Settings(variant=v, seq_len=4096))
        variants[v] = {key: float(val) for key, val in time_shares(items, rates).items()}
    mach = dict(machine(), blas_threads=threads, threads_matched=threads == 1)
    return {"machine": mach, "quick": quick, "repeats": repeats, "operand_mib": float(operand_mib),
            "copy_bytes_per_s": float(bandwidth), "kernels": results, "rates": rates, "seq_len": 4096,
            "variants": variants}


def report(m: dict) -> str:
    mach = m["machine"]
    llc = mach["last_level_cache_mib"]
    lines = [f"machine: {mach['cpu']} ({mach['cores']} cores), {mach['platform']}",
             f"numpy {mach['numpy']}, BLAS {mach['blas']}",
             f"threads: BLAS {mach['blas_threads'] if mach['blas_threads'] is not None else 'unknown'}, numpy FFT and "
             f"elementwise 1 ({'matched' if mach['threads_matched'] else 'NOT matched'}); operands about "
             f"{m['operand_mib']:g} MiB, last-level cache {f'{llc:g} MiB' if llc else 'unknown'}; "
             f"streaming copy {m['copy_bytes_per_s'] / 1e9:.1f} GB/s", "",
             f"{'kernel':14} {'GFLOP/s':>9} {'share of matmul':>16} {'of memory roof':>15}  shape"]
    mm = m["rates"]["matmul"]
    for name, k in m["kernels"].items():
        lines.append(f"{name:14} {k['flops_per_s'] / 1e9:>9.2f} {k['flops_per_s'] / mm:>16.3f} "
                     f"{k['fraction_of_memory_roof']:>15.3f}  {k['shape']}")
    lines += ["", f"step at S = {m['seq_len']}, one device at these rates:",
              f"{'variant':18} {'FLOP share':>11} {'time share':>11} {'Amdahl (FLOPs)':>15} {'Amdahl (time)':>14}"
              f" {'step s':>9} {'optical s':>10}"]
    for v, t in m["variants"].items():
        lines.append(f"{v:18} {100 * t['flop_share']:>10.2f}% {100 * t['time_share']:>10.2f}% "
                     f"{t['amdahl_flops']:>14.3f}x {t['amdahl_time']:>13.3f}x {t['step_s']:>9.0f} "
                     f"{t['optical_s']:>10.0f}")
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
