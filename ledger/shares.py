"""Group-bys over a step's line items: FLOPs by phase and class, the optical shares, Amdahl bounds."""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable

from .errors import LedgerError, check_speedup
from .layers import ALL_PHASES, CLASSES, OPTICAL_CLASSES, RECOMPUTE, STATIC_CLASSES, LineItem

BACKWARD_PHASES = ("dX", "dW")
"""The backward pass of the 6N accounting; as it runs, the backward pass also holds any recompute."""


def group_flops(items: Iterable[LineItem], *keys: str) -> dict:
    """Sum the FLOPs of `items` by the given LineItem fields, e.g. group_flops(items, "phase", "cls")."""
    totals: dict = defaultdict(float)
    for item in items:
        key = tuple(getattr(item, k) for k in keys)
        totals[key[0] if len(key) == 1 else key] += item.flops
    return dict(totals)


def flops_by_phase_and_class(items: Iterable[LineItem]) -> dict[str, dict[str, float]]:
    """{phase: {class: FLOPs}} for forward, recompute, dX and dW, every class present (zeros included).

    The "recompute" row is all zeros unless the step was counted with Settings.recompute = "full".
    """
    table = {phase: dict.fromkeys(CLASSES, 0.0) for phase in ALL_PHASES}
    for item in items:
        table[item.phase][item.cls] += item.flops
    return table


def flops_by_pass(items: Iterable[LineItem]) -> dict[str, dict[str, float]]:
    """{"forward"|"backward": {class: FLOPs}}; backward is the pass as it runs: recompute + dX + dW."""
    by_phase = flops_by_phase_and_class(items)
    backward = {cls: by_phase[RECOMPUTE][cls] + by_phase["dX"][cls] + by_phase["dW"][cls] for cls in CLASSES}
    return {"forward": by_phase["forward"], "backward": backward}


def optical(by_class: dict[str, float]) -> float:
    """Transforms plus both kinds of Fourier-domain product."""
    return sum(by_class[c] for c in OPTICAL_CLASSES)


def static(by_class: dict[str, float]) -> float:
    """Transforms plus weight-masked products: what weight masks (not per sequence) can hold."""
    return sum(by_class[c] for c in STATIC_CLASSES)


def share(part: float, whole: float) -> float:
    """part / whole, 0 for an empty whole (a fraction, not a percentage)."""
    return part / whole if whole > 0 else 0.0


def amdahl(fraction: float, speedup: float = math.inf) -> float:
    """Amdahl's law: the step's speed-up if `fraction` of its work runs `speedup` times faster.

    1 / ((1 - fraction) + fraction / speedup); with speedup = inf (the default) the bound 1 / (1 - fraction).
    """
    s = check_speedup(speedup)
    rest = (1.0 - fraction) + fraction / s
    return 1.0 / rest if rest > 0 else math.inf


def gain_fraction(fraction: float, speedup: float) -> float:
    """The part of the bound's gain a finite engine reaches: (amdahl(p, s) - 1) / (amdahl(p) - 1).

    Equal to (1 - 1/s)(1 - p) / ((1 - p) + p/s): for a small share p it is close to 1 - 1/s, so how
    quickly an engine approaches its bound depends on its speed-up s far more than on p.
    """
    s = check_speedup(speedup)
    if not 0 < fraction < 1:
        raise LedgerError(f"fraction = {fraction!r}: must lie strictly between 0 and 1")
    return (1 - 1 / s) * (1 - fraction) / ((1 - fraction) + fraction / s)


def gain_fraction_of_limit(fraction: float, speedup: float) -> float:
    """gain_fraction(p, s) / (1 - 1/s) = (1 - p) / ((1 - p) + p/s): how close a share comes to the small-p limit.

    1 at p -> 0; it falls as p grows (0.85 at p = 0.27, s = 2), so "close to 1 - 1/s" holds only for small shares.
    """
    s = check_speedup(speedup)
    if s <= 1:
        raise LedgerError(f"optical_speedup = {speedup!r}: must exceed 1 (at s = 1 there is no gain to reach)")
    return gain_fraction(fraction, s) / (1 - 1 / s)


def largest_share_within(speedup: float, tolerance: float = 0.1) -> float:
    """The largest share p whose gain fraction stays within `tolerance` (relative) of 1 - 1/s at speed-up s.

    Solves (1 - p) / ((1 - p) + p/s) = 1 - tolerance: p = s t / ((1 - t) + s t); 1/7 (14.3%) at s = 1.5, t = 0.1.
    The fraction is monotone in p and in s, so every p up to this value, at every larger s, is within too.
    """
    s = check_speedup(speedup)
    if not 0 < tolerance < 1:
        raise LedgerError(f"tolerance = {tolerance!r}: must lie strictly between 0 and 1")
    if math.isinf(s):
        return 1.0
    return s * tolerance / ((1 - tolerance) + s * tolerance)


def digital_over_optical(items: Iterable[LineItem]) -> dict[str, float]:
    """{phase: digital FLOPs / optical FLOPs} for forward, dX and dW: how many times the rest outweighs the optics."""
    table = flops_by_phase_and_class(items)
    return {p: table[p]["digital"] / optical(table[p]) if optical(table[p]) else math.inf
            for p in ("forward", "dX", "dW")}
