"""Time numpy's matmul and FFT at the ledger's shapes, and re-weight the step by time.

    python benchmarks/measure.py            # the default run (about 10-20 s)
    python benchmarks/measure.py --quick    # a 2-4 s version (what the book runs when it is built)
    python benchmarks/measure.py --json     # machine-readable

Each kernel kind of ledger.timing.KERNELS is timed once at a shape the Llama-3-8B ledger uses:
the attention q projection (4096 x 4096) on a batch of tokens, the rFFT + inverse rFFT of length
2S = 8,192 (S = 4,096), the rFFT + inverse of 256-point circulant blocks, the block-circulant
spectral product as a batched complex matmul (one 16 x 16 complex matrix per frequency bin), and a
complex elementwise multiply. FLOPs are counted with the ledger's conventions (2mnk; 2.5 n log2 n;
6 per complex multiply, 8 per complex multiply-add), so achieved FLOP/s are comparable with the
ledger's counts. The best of a few repeats is kept: other work on the machine only slows a kernel.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import ledger  # noqa: E402
from ledger.timing import KERNELS, time_shares  # noqa: E402

HIDDEN = ledger.LLAMA3_8B.hidden
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


def machine() -> dict:
    return {"platform": platform.platform(), "cpu": cpu_name(), "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__, "blas": blas_name()}


def best_seconds(fn: Callable[[], object], repeats: int, min_time: float = 0.02) -> float:
    """Best time per call over `repeats` rounds, each round long enough (min_time) to time reliably."""
    fn()  # warm-up: plans, caches, thread pool
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-9)
    number = max(1, int(min_time / one))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def kernels(quick: bool) -> dict[str, dict]:
    """The kernels, their shapes, their ledger FLOPs, and a closure that runs them once."""
    rng = np.random.default_rng(0)
    tokens = 256 if quick else 1024
    channels = 16 if quick else 64
    x = rng.standard_normal((tokens, HIDDEN), dtype=np.float32)
    w = rng.standard_normal((HIDDEN, HIDDEN), dtype=np.float32)
    u = rng.standard_normal((channels, FFT_LONG), dtype=np.float32)
    blocks = rng.standard_normal((tokens * 16, BLOCK), dtype=np.float32)
    bins = BLOCK // 2 + 1
    p = q = 16
    batch = 64 if quick else 256
    wf = (rng.standard_normal((bins, p, q)) + 1j * rng.standard_normal((bins, p, q))).astype(np.complex64)
    xf = (rng.standard_normal((bins, q, batch)) + 1j * rng.standard_normal((bins, q, batch))).astype(np.complex64)
    spec_len = FFT_LONG // 2 + 1
    a = (rng.standard_normal((channels, spec_len)) + 1j * rng.standard_normal((channels, spec_len))).astype(np.complex64)
    b = a[::-1].copy()
    fft = lambda n: 2.5 * n * np.log2(n)  # noqa: E731
    return {
        "matmul": {"shape": f"({tokens} x {HIDDEN}) @ ({HIDDEN} x {HIDDEN}) float32, the q projection",
                   "flops": 2.0 * tokens * HIDDEN * HIDDEN, "run": lambda: x @ w},
        "fft_long": {"shape": f"rFFT + inverse rFFT, {channels} channels x n = {FFT_LONG} float32",
                     "flops": 2 * channels * fft(FFT_LONG),
                     "run": lambda: np.fft.irfft(np.fft.rfft(u, axis=1), n=FFT_LONG, axis=1)},
        "fft_block": {"shape": f"rFFT + inverse rFFT, {tokens * 16} blocks x b = {BLOCK} float32",
                      "flops": 2 * tokens * 16 * fft(BLOCK),
                      "run": lambda: np.fft.irfft(np.fft.rfft(blocks, axis=1), n=BLOCK, axis=1)},
        "block_product": {"shape": f"{bins} bins x ({p} x {q}) @ ({q} x {batch}) complex64",
                          "flops": 8.0 * bins * p * q * batch, "run": lambda: np.matmul(wf, xf)},
        "elementwise": {"shape": f"complex64 multiply, {channels} x {spec_len}",
                        "flops": 6.0 * channels * spec_len, "run": lambda: np.multiply(a, b)},
    }


def measure(quick: bool = False, repeats: int | None = None) -> dict:
    """Achieved FLOP/s per kernel kind on this machine and the time-weighted shares at S = 4,096."""
    repeats = repeats or (3 if quick else 5)
    results = {}
    for name, k in kernels(quick).items():
        sec = best_seconds(k["run"], repeats, min_time=0.01 if quick else 0.05)
        flops = float(k["flops"])  # plain floats: JSON and glue need no numpy scalars
        results[name] = {"shape": k["shape"], "flops": flops, "seconds": float(sec), "flops_per_s": flops / sec}
    rates = {name: results[name]["flops_per_s"] for name in KERNELS}
    variants = {}
    for v in VARIANTS:
        items = ledger.step_items(ledger.Settings(variant=v, seq_len=4096))
        variants[v] = {key: float(val) for key, val in time_shares(items, rates).items()}
    return {"machine": machine(), "quick": quick, "repeats": repeats, "kernels": results, "rates": rates,
            "seq_len": 4096, "variants": variants}


def report(m: dict) -> str:
    mach = m["machine"]
    lines = [f"machine: {mach['cpu']} ({mach['cores']} cores), {mach['platform']}",
             f"numpy {mach['numpy']}, BLAS {mach['blas']}", "",
             f"{'kernel':14} {'GFLOP/s':>9} {'share of matmul':>16}  shape"]
    mm = m["rates"]["matmul"]
    for name, k in m["kernels"].items():
        lines.append(f"{name:14} {k['flops_per_s'] / 1e9:>9.2f} {k['flops_per_s'] / mm:>16.3f}  {k['shape']}")
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
    parser.add_argument("--quick", action="store_true", help="smaller shapes and fewer repeats (2-4 s)")
    parser.add_argument("--repeats", type=int, default=None, help="rounds per kernel (best kept)")
    args = parser.parse_args(argv)
    m = measure(quick=args.quick, repeats=args.repeats)
    print(json.dumps(m, indent=2) if args.json else report(m))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
