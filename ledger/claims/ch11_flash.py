"""Chapter 11's checked sentences on FlashAttention: hardware FLOPs against the model count."""
from __future__ import annotations

from .. import hardware, reconcile
from ..table import make_settings
from ..article import recompute_flops
from ..step import step_items
from . import claim
from .changes import CAUSAL_HALVED, FLASH_KEEPS_SCORES, FLASH_RECOMPUTES_AV, NO_DOCUMENT_MASK

CHAPTER = "11_flops_per_token"
LENGTHS = tuple(2 ** k for k in range(9, 18))  # 512 .. 131,072


def _ratio(variant: str, seq_len: int, **kernel) -> float:
    s = make_settings(variant=variant, seq_len=seq_len, **kernel)
    return hardware.hardware_flops(s) / hardware.model_flops(s)


@claim("ch11-flash-above-model", CHAPTER,
       "Without a causal mask FlashAttention executes more FLOPs than the model count (its backward recomputes QK^T).",
       "transformer and hybrid, S = 512 to 131,072 (powers of two), attention_kernel = flash",
       fails_when=FLASH_KEEPS_SCORES)
def _flash_above() -> bool:
    return all(_ratio(v, s, attention_kernel="flash") > 1 for v in ("transformer", "hybrid") for s in LENGTHS)


@claim("ch11-causal-below-model", CHAPTER,
       "A causal FlashAttention kernel executes fewer FLOPs than the model count, recomputation included.",
       "transformer and hybrid, S = 1,024 to 131,072 (powers of two), tiles of 64, 128 and 256",
       fails_when=CAUSAL_HALVED)
def _causal_below() -> bool:
    return all(_ratio(v, s, attention_kernel="flash-causal", attention_tile=b) < 1
               for v in ("transformer", "hybrid") for s in LENGTHS if s >= 1024 for b in (64, 128, 256))


@claim("ch11-causal-fifth-below-32k", CHAPTER,
       "At S = 32,768 the transformer's causal FlashAttention step is about a fifth below the model count.",
       "transformer, S = 32,768, tiles of 64, 128 and 256: between 18% and 25% below",
       fails_when=FLASH_RECOMPUTES_AV)
def _fifth_below() -> bool:
    return all(0.75 < _ratio("transformer", 32768, attention_kernel="flash-causal", attention_tile=b) < 0.82
               for b in (64, 128, 256))


@claim("ch11-kernel-recompute-half-selective", CHAPTER,
       "The QK^T a flash kernel recomputes is half of what selective recomputation of QK^T and AV runs again.",
       "transformer and hybrid, S = 512 to 131,072 (powers of two), attention_kernel = flash: 0.5 to 1e-12",
       fails_when=FLASH_RECOMPUTES_AV)
def _half_selective() -> bool:
    out = []
    for v in ("transformer", "hybrid"):
        for s in LENGTHS:
            st = make_settings(variant=v, seq_len=s, attention_kernel="flash")
            sel = recompute_flops(step_items(st), ops=("attention:",))
            out.append(abs(hardware.kernel_recompute_flops(st) / sel - 0.5) < 1e-12)
    return all(out)


@claim("ch11-causal-kernel-between-counts", CHAPTER,
       "A causal FlashAttention step executes fewer FLOPs than PaLM's model count, which prices the full "
       "QK^T and AV, and more than Megatron-LM's 2025 count, which halves them for the causal mask.",
       "transformer (Llama-3-8B), S = 1,024 to 131,072 (powers of two), tiles of 64, 128 and 256",
       fails_when=CAUSAL_HALVED)
def _between_counts() -> bool:
    out = []
    for s in LENGTHS:
        if s < 1024:
            continue
        causal_count = reconcile.switched_step_flops("megatron-2025", s)
        for b in (64, 128, 256):
            st = make_settings(variant="transformer", seq_len=s, attention_kernel="flash-causal", attention_tile=b)
            out.append(causal_count < hardware.hardware_flops(st) < hardware.model_flops(st))
    return all(out)


@claim("ch11-packed-documents-fewer", CHAPTER,
       "A block-causal kernel over rows that pack several documents (torchtitan's FlexAttention mask, "
       "Megatron-LM's packed sequences) computes fewer score entries than the one-document fraction "
       "1/2 + b/(2S), never more.",
       "S = 2,048 to 32,768, tiles of 64, 128 and 256; rows of 2, 4 and 8 equal documents, of a quarter and "
       "three quarters, and of one token then the rest (equal to one document: never more)",
       fails_when=NO_DOCUMENT_MASK)
def _packed_fewer() -> bool:
    out = []
    for s in (2048, 4096, 8192, 16384, 32768):
        for b in (64, 128, 256):
            one = hardware.causal_score_entries(s, b)
            for docs in ([s // 2] * 2, [s // 4] * 4, [s // 8] * 8, [s // 4, 3 * s // 4]):
                out.append(hardware.packed_causal_score_entries(docs, b) < one)
            out.append(hardware.packed_causal_score_entries([1, s - 1], b) <= one)
    return all(out)
