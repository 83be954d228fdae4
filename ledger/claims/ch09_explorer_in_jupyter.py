"""Checked sentences of chapter 09 (the explorer in Jupyter)."""
from __future__ import annotations

from ..engine import MODULATORS
from ..engine import Engine
from ..table import step_row
from . import claim
from .changes import FILTERS_PER_MICRO_BATCH, engine_default

CHAPTER = "09_explorer_in_jupyter"
STEPS = tuple(2 ** k for k in range(18, 25))


@claim("explorer-step-size-moves-times-not-shares", CHAPTER,
       "The step size changes times, not shares: the step share moves in the second decimal of a percent at "
       "most, while the digital step grows in proportion to the step (the once-per-step transforms aside).",
       "block-circulant at S = 4,096, steps of 2^18 to 2^24 tokens: share within 0.02 percentage points, "
       "all-digital step per token equal within 1e-3 (relative; the per-step transforms make it 7.8e-4)",
       fails_when=FILTERS_PER_MICRO_BATCH)
def _steps() -> bool:
    rows = [step_row(variant="hyena2_circulant", seq_len=4096, step_tokens=t) for t in STEPS]
    shares = [r.step_share for r in rows]
    per_token = [r.all_digital_step_s / t for r, t in zip(rows, STEPS)]
    return max(shares) - min(shares) < 0.0002 and max(per_token) - min(per_token) < 1e-3 * min(per_token)


@claim("explorer-long-hyena-slightly-more", CHAPTER,
       "At 8,192 tokens Hyena-2's weight masks take about nine tenths of the whole all-digital step on the "
       "idealised device.",
       "Hyena-2 at S = 8,192, idealised device: between 0.85 and 0.95 all-digital steps",
       fails_when=engine_default(f"each GPU sustained {2.5 * Engine().gpu_flops / 1e12:,.0f} TFLOP/s on matrix "
                                 "products (a faster generation), not 400", gpu_flops=2.5 * Engine().gpu_flops))
def _long() -> bool:
    r = step_row(variant="hyena2", seq_len=8192)
    return 0.85 < r.weight_mask_s / r.all_digital_step_s < 0.95


@claim("explorer-modes-keep-shares", CHAPTER,
       "The modulator mode moves the mask times and the net speed-up (the engine's own time), and no share or "
       "bound.",
       "all four variants at S = 4,096, every modulator mode: the forward, backward, step, static and time shares, "
       "the three bounds (on counted FLOPs, on static FLOPs, in time) and both step times (counted FLOPs at the "
       "sustained rate, all-digital) exactly equal; for the Hyena variants every cited mode moves the weight-mask "
       "time and the net speed-up",
       fails_when=engine_default("the input plane and detector took 10^12 numbers per second each, whatever the "
                                 "mode, and the masks were rewritten in the background (overlapped)",
                                 input_rate=1e12, mask_overlap="overlapped"))
def _modes() -> bool:
    kept = ("forward_share", "backward_share", "step_share", "static_share", "time_share", "amdahl", "amdahl_static",
            "amdahl_time", "digital_step_s", "all_digital_step_s")
    for v in ("transformer", "hyena2", "hybrid", "hyena2_circulant"):
        base = step_row(variant=v, seq_len=4096)
        for name in MODULATORS:
            r = step_row(variant=v, seq_len=4096, modulator=name)
            if any(getattr(r, k) != getattr(base, k) for k in kept):
                return False
            if v != "transformer" and name != "ideal" and (r.weight_mask_s == base.weight_mask_s
                                                           or r.net_speedup == base.net_speedup):
                return False
    return True
