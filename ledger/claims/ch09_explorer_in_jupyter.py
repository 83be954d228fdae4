"""Checked sentences of chapter 09 (the explorer in Jupyter)."""
from __future__ import annotations

from ..engine import MODULATORS
from ..table import step_row
from . import claim

CHAPTER = "09_explorer_in_jupyter"
STEPS = tuple(2 ** k for k in range(18, 25))


@claim("explorer-step-size-moves-times-not-shares", CHAPTER,
       "The step size changes times, not shares: the step share moves in the second decimal of a percent at "
       "most, while the digital step grows in proportion to the step.",
       "block-circulant at S = 4,096, steps of 2^18 to 2^24 tokens: share within 0.05 percentage points, "
       "digital step proportional to the tokens within 1e-9")
def _steps() -> bool:
    rows = [step_row(variant="hyena2_circulant", seq_len=4096, step_tokens=t) for t in STEPS]
    shares = [r.step_share for r in rows]
    per_token = [r.digital_step_s / t for r, t in zip(rows, STEPS)]
    return max(shares) - min(shares) < 0.0005 and max(per_token) - min(per_token) < 0.01 * min(per_token)


@claim("explorer-long-hyena-slightly-more", CHAPTER,
       "At 8,192 tokens Hyena-2's weight masks take slightly more than the whole digital step on the idealised "
       "device.",
       "Hyena-2 at S = 8,192, idealised device: between 1 and 1.1 digital steps")
def _long() -> bool:
    r = step_row(variant="hyena2", seq_len=8192)
    return 1 < r.weight_mask_s / r.digital_step_s < 1.1


@claim("explorer-modes-keep-shares", CHAPTER,
       "The modulator mode moves the mask times and no share or bound.",
       "all four variants at S = 4,096, every modulator mode")
def _modes() -> bool:
    for v in ("transformer", "hyena2", "hybrid", "hyena2_circulant"):
        base = step_row(variant=v, seq_len=4096)
        for name in MODULATORS:
            r = step_row(variant=v, seq_len=4096, modulator=name)
            if (r.step_share, r.static_share, r.amdahl, r.digital_step_s) != \
                    (base.step_share, base.static_share, base.amdahl, base.digital_step_s):
                return False
    return True
