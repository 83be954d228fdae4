"""How many full step ledgers (line items, group-bys, shares, masks) per second the library evaluates.

A figure for the closing note and the README, not a timed test. Run with `make bench`.
"""
from __future__ import annotations

import itertools
import json
import sys
import time

import ledger


def main() -> int:
    points = list(itertools.product(ledger.VARIANTS, (2048, 4096, 8192, 16384), (524_288, 1_048_576, 4_194_304)))
    for variant, seq_len, tokens in points:  # warm up
        ledger.step_row(variant=variant, seq_len=seq_len, step_tokens=tokens)
    results = {}
    for variant in ledger.VARIANTS:
        runs, start = 0, time.perf_counter()
        while time.perf_counter() - start < 1.0:
            for _, seq_len, tokens in points:
                ledger.step_row(variant=variant, seq_len=seq_len, step_tokens=tokens)
                runs += 1
        results[variant] = runs / (time.perf_counter() - start)
    overall = len(results) / sum(1 / r for r in results.values())
    for variant, rate in results.items():
        print(f"{variant:18s} {rate:9.0f} step ledgers/s")
    print(f"{'all (harmonic)':18s} {overall:9.0f} step ledgers/s")
    if "--json" in sys.argv:
        print(json.dumps({"ledgers_per_second": results, "harmonic_mean": overall}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
