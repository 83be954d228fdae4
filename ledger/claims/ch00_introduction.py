"""Claims of chapter 00 (what a training step adds to inference)."""
from __future__ import annotations

from ..settings import VARIANTS, Settings
from ..shapes import LLAMA3_8B
from ..shares import group_flops
from ..step import step_items
from ..table import step_row
from . import claim
from .changes import CAUSAL_HALVED, RECOMPUTE_FULL, fft_priced, model_shape

CH = "00_introduction"


@claim("ch00-transformer-hyena2-alike", CH,
       "The transformer and Hyena-2 cost about the same per step (within 5% of each other).",
       "step FLOPs at S = 2,048 (the figure) and 4,096, default step: the ratio within 5% of 1",
       fails_when=CAUSAL_HALVED)
def _alike() -> bool:
    return all(abs(step_row(variant="hyena2", seq_len=n).step_flops / step_row(variant="transformer", seq_len=n).step_flops - 1)
               < 0.05 for n in (2048, 4096))


@claim("ch00-circulant-order-of-magnitude", CH,
       "The block-circulant variant is an order of magnitude cheaper (at least 10 times fewer step FLOPs than "
       "the transformer, Hyena-2 or the hybrid).",
       "S = 2,048, 4,096 and 8,192, block 256: each of the three at least 10 times the block-circulant step",
       fails_when=model_shape(f"the vocabulary were {2 * LLAMA3_8B.vocab:,} tokens, twice Llama 3's (the dense LM "
                              "head twice as large)", vocab=2 * LLAMA3_8B.vocab))
def _order() -> bool:
    return all(step_row(variant=v, seq_len=n).step_flops >= 10 * step_row(variant="hyena2_circulant", seq_len=n).step_flops
               for n in (2048, 4096, 8192) for v in ("transformer", "hyena2", "hybrid"))


@claim("ch00-backward-twice", CH,
       "The backward pass is about twice the forward in FLOPs (between 1.9 and 2.1 times).",
       "all four variants at S = 2,048, 4,096 and 8,192, default step (recompute none): backward over forward "
       "1.9 to 2.1",
       fails_when=RECOMPUTE_FULL)
def _twice() -> bool:
    return all(1.9 <= (r := step_row(variant=v, seq_len=n)).backward_flops / r.forward_flops <= 2.1
               for v in VARIANTS for n in (2048, 4096, 8192))


@claim("ch00-phases-alike", CH,
       "For every model dX and dW are each about as large as the forward pass (within 10% of it).",
       "all four variants at S = 2,048 (the figure): dX and dW each 0.9 to 1.1 times the forward",
       fails_when=fft_priced(2))
def _phases() -> bool:
    for v in VARIANTS:
        g = group_flops(step_items(Settings(variant=v, seq_len=2048)), "phase")
        if not all(0.9 <= g[p] / g["forward"] <= 1.1 for p in ("dX", "dW")):
            return False
    return True
