"""Claims of chapter 01 (the 6N rule as a ledger)."""
from __future__ import annotations

from ..settings import Settings
from ..step import step_items
from ..table import step_row
from . import claim
from .changes import CAUSAL_HALVED, LM_HEAD_CIRCULANT

CH = "01_six_n_rule"
SEQ_LENS = (512, 2048, 8192, 32768)


@claim("ch01-six-n-exact", CH,
       "At every length the ledger's transformer step equals 6NT + 12LSHT to better than 1e-12.",
       "the transformer at S = 512, 2,048, 8,192 and 32,768, default step: relative difference below 1e-12",
       fails_when=CAUSAL_HALVED)
def _exact() -> bool:
    return all(abs(step_row(variant="transformer", seq_len=n).six_n_ratio - 1) < 1e-12 for n in SEQ_LENS)


@claim("ch01-transformer-no-transform", CH,
       "For the transformer every bar is one colour: none of its work is a transform or a Fourier-domain product.",
       "the transformer at S = 512, 2,048, 8,192 and 32,768, with and without recomputation",
       fails_when=LM_HEAD_CIRCULANT)
def _no_optics() -> bool:
    return all(i.cls == "digital" for n in SEQ_LENS for r in ("none", "full")
               for i in step_items(Settings(variant="transformer", seq_len=n, recompute=r)))


@claim("ch01-lm-head-most-of-circulant-forward", CH,
       "In the block-circulant model the dense LM head is most of the forward FLOPs (over half).",
       "hyena2_circulant at S = 2,048, 4,096 and 8,192, block 256",
       fails_when=LM_HEAD_CIRCULANT)
def _head() -> bool:
    for n in (2048, 4096, 8192):
        items = step_items(Settings(variant="hyena2_circulant", seq_len=n))
        fwd = sum(i.flops for i in items if i.phase == "forward")
        head = sum(i.flops for i in items if i.phase == "forward" and i.layer == "lm_head")
        if not head > 0.5 * fwd:
            return False
    return True
