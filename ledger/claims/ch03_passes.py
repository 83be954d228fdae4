"""Claims of chapter 03 (the three passes)."""
from __future__ import annotations

from ..shares import digital_over_optical as _by_phase
from ..step import step_items
from ..settings import Settings
from ..table import step_row
from . import claim
from .changes import RECOMPUTE_FULL, complex_multiply_priced, fft_priced

CH = "03_three_passes"
SEQ_LENS = (1024, 2048, 4096, 8192, 16384)


def digital_over_optical(variant: str = "hyena2", seq_len: int = 4096) -> dict[str, float]:
    """{phase: digital FLOPs / optical FLOPs} of one step of `variant` at `seq_len`."""
    return _by_phase(step_items(Settings(variant=variant, seq_len=seq_len)))


@claim("ch03-digital-hundreds-fwd-dx", CH,
       "In the forward and dX columns the digital work, the matrix products, is several hundred times "
       "everything else (between 300 and 1,000 times).",
       "hyena2 at S = 1,024 to 16,384 (powers of two), forward and dX phases",
       fails_when=fft_priced(2))
def _fwd_dx() -> bool:
    return all(300 <= r[p] <= 1000 for n in SEQ_LENS for r in [digital_over_optical("hyena2", n)] for p in ("forward", "dX"))


@claim("ch03-digital-dw-ten-thousand", CH,
       "In the dW column, whose only optical work is the data-by-data products and one per-step transform, "
       "the digital work is thousands of times the optical (between 5,000 and 20,000 times), far more than "
       "in the other two columns.",
       "hyena2 at S = 1,024 to 16,384 (powers of two), dW against forward and dX: over 10 times their ratios",
       fails_when=complex_multiply_priced(24))
def _dw() -> bool:
    out = []
    for n in SEQ_LENS:
        r = digital_over_optical("hyena2", n)
        out.append(5000 <= r["dW"] <= 20000 and r["dW"] > 10 * max(r["forward"], r["dX"]))
    return all(out)


@claim("ch03-backward-half", CH,
       "The backward pass has as many long transforms as the forward pass but twice its matrix products, so "
       "its share is about half the forward share (between 0.45 and 0.55 of it).",
       "hyena2 at S = 1,024 to 16,384 (powers of two)",
       fails_when=RECOMPUTE_FULL)
def _half() -> bool:
    return all(0.45 <= r.backward_share / r.forward_share <= 0.55
               for r in (step_row(variant="hyena2", seq_len=n) for n in SEQ_LENS))
