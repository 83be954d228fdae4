"""Chapter 13's checked sentences: hardware FLOPs in HFU, the recompute taxes, the optimizer's memory."""
from __future__ import annotations

from .. import article, hardware
from ..shapes import LLAMA3_8B
from ..step import step_items
from ..table import make_settings
from . import claim

CHAPTER = "13_compute_and_time"
LENGTHS = (2048, 4096, 8192, 16384, 32768)


@claim("ch13-hfu-causal-below-dense", CHAPTER,
       "With full checkpointing, HFU counted with causal FlashAttention is below HFU counted with dense attention.",
       "transformer and hybrid, S = 2,048 to 32,768, recompute = full")
def _hfu() -> bool:
    out = []
    for v in ("transformer", "hybrid"):
        for s in LENGTHS:
            causal = hardware.hardware_flops(variant=v, seq_len=s, recompute="full")
            dense = hardware.hardware_flops(variant=v, seq_len=s, recompute="full", attention_kernel="dense")
            out.append(causal < dense)
    return all(out)


@claim("ch13-flash-pays-half-selective", CHAPTER,
       "FlashAttention's own recomputation (QK^T) costs half of selective recomputation (QK^T and AV), "
       "and a causal kernel's about a quarter, so the selective tax is not already paid.",
       "transformer and hybrid, S = 2,048 to 32,768; causal: 0.25 to 0.27 of the selective tax (128-row tiles)")
def _half() -> bool:
    out = []
    for v in ("transformer", "hybrid"):
        for s in LENGTHS:
            sel = article.recompute_flops(step_items(make_settings(variant=v, seq_len=s)), ops=("attention:",))
            flash = hardware.kernel_recompute_flops(variant=v, seq_len=s, attention_kernel="flash")
            causal = hardware.kernel_recompute_flops(variant=v, seq_len=s)
            out.append(abs(flash / sel - 0.5) < 1e-12 and 0.25 < causal / sel < 0.27)
    return all(out)


@claim("ch13-optimizer-state-exceeds-device", CHAPTER,
       "Llama-3-8B's AdamW state, every parameter counted, is more than an 80 GB device holds.",
       "Llama-3-8B, 20 bytes per parameter (16 of mixed-precision Adam plus a 4-byte accumulator) and 16")
def _state() -> bool:
    return all(article.optimizer_bytes(LLAMA3_8B.total_params, b) > 80e9 for b in (16.0, 20.0))


@claim("ch13-gradients-fp32-dearer", CHAPTER,
       "Reducing gradients in fp32 (Megatron-LM's and torchtitan's default) moves half as much again as in bf16.",
       "any model size and 2 to 65,536 devices, bf16 weights all-gathered")
def _fp32() -> bool:
    return all(abs(article.data_parallel_bytes(n, d) / article.data_parallel_bytes(n, d, gradient_bytes=2) - 1.5) < 1e-12
               for n in (1e8, LLAMA3_8B.total_params, 4e11) for d in (2, 64, 65536))
