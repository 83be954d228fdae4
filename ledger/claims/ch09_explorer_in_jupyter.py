"""Checked sentences of chapter 09 (the explorer in Jupyter)."""
from __future__ import annotations

from ..engine import MODULATORS
from ..table import step_row
from . import claim

CHAPTER = "09_explorer_in_jupyter"
STEPS = tuple(2 ** k for k in range(18, 25))


@claim("explorer-step-size-moves-times-not-shares", CHAPTER,
       "The step size changes times, not shares: the step share moves in the second decimal of a percent at "
       "most, while the digital step grows in proportion to the step (the once-per-step transforms aside).",
       "block-circulant at S = 4,096, steps of 2^18 to 2^24 tokens: share within 0.02 percentage points, "
       "all-digital step per token equal within 1e-3 (relative; the per-step transforms make it 7.8e-4)")
def _steps() -> bool:
    rows = [step_row(variant="hyena2_circulant", seq_len=4096, step_tokens=t) for t in STEPS]
    shares = [r.step_share for r in rows]
    per_token = [r.all_digital_step_s / t for r, t in zip(rows, STEPS)]
    return max(shares) - min(shares) < 0.0002 and max(per_token) - min(per_token) < 1e-3 * min(per_token)


@claim("explorer-long-hyena-slightly-more", CHAPTER,
       "At 8,192 tokens Hyena-2's weight masks take about nine tenths of the whole all-digital step on the "
       "idealised device.",
       "Hyena-2 at S = 8,192, idealised device: between 0.85 and 0.95 all-digital steps")
def _long() -> bool:
    r = step_row(variant="hyena2", seq_len=8192)
    return 0.85 < r.weight_mask_s / r.all_digital_step_s < 0.95


@claim("explorer-modes-keep-shares", CHAPTER,
       "The modulator mode moves the mask times and the net speed-up (the engine's own time), and no share or "
       "bound.",
       "all four variants at S = 4,096, every modulator mode: shares, both bounds and both step times equal; for "
       "the Hyena variants every cited mode moves the weight-mask time and the net speed-up")
def _modes() -> bool:
    for v in ("transformer", "hyena2", "hybrid", "hyena2_circulant"):
        base = step_row(variant=v, seq_len=4096)
        for name in MODULATORS:
            r = step_row(variant=v, seq_len=4096, modulator=name)
            kept = ("step_share", "static_share", "amdahl", "amdahl_time", "time_share", "all_digital_step_s",
                    "all_digital_step_s")
            if any(getattr(r, k) != getattr(base, k) for k in kept):
                return False
            if v != "transformer" and name != "ideal" and (r.weight_mask_s == base.weight_mask_s
                                                           or r.net_speedup == base.net_speedup):
                return False
    return True
