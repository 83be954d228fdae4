"""Claims of chapter 04 (block-circulant matrices)."""
from __future__ import annotations

from ..settings import Settings
from ..step import step_items
from ..table import step_row
from . import claim
from .changes import LM_HEAD_CIRCULANT, fft_priced, model_shape

CH = "04_block_circulant"
SEQ_LENS = (2048, 4096, 8192)


@claim("ch04-share-near-an-eighth", CH,
       "The block-circulant model's step share stops near an eighth (between 10% and 15%).",
       "hyena2_circulant at S = 2,048, 4,096 and 8,192, block 256",
       fails_when=fft_priced(2))
def _eighth() -> bool:
    return all(0.10 <= step_row(variant="hyena2_circulant", seq_len=n).step_share <= 0.15 for n in SEQ_LENS)


@claim("ch04-lm-head-most-of-digital", CH,
       "Almost all of the remaining digital work is one dense matrix product per token, the LM head "
       "(over 90% of the digital FLOPs).",
       "hyena2_circulant at S = 2,048, 4,096 and 8,192, block 256",
       fails_when=LM_HEAD_CIRCULANT)
def _head() -> bool:
    for n in SEQ_LENS:
        items = step_items(Settings(variant="hyena2_circulant", seq_len=n))
        digital = sum(i.flops for i in items if i.cls == "digital")
        head = sum(i.flops for i in items if i.layer == "lm_head")
        if not head > 0.9 * digital:
            return False
    return True


@claim("ch04-far-fewer-weights", CH,
       "The block-circulant model's matrices hold far fewer weights than Hyena-2's (more than 5 times fewer, "
       "the LM head included).",
       "blocks of 64, 256 and 1,024, Llama-3-8B's shape",
       fails_when=model_shape("the model had 8 layers of Llama-3-8B's width and vocabulary, not 32", n_layers=8))
def _weights() -> bool:
    return all(step_row(variant="hyena2").matrix_params > 5 * step_row(variant="hyena2_circulant", block=b).matrix_params
               for b in (64, 256, 1024))
