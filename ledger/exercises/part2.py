"""Exercises of chapters 11-16 (From FLOPs to time, reconciliation, measured kernels): each answer is
computed from the ledger when `check` is called."""
from __future__ import annotations

from .. import article, reconcile
from ..settings import Settings
from ..shapes import LLAMA3_8B
from ..step import step_items
from .registry import explained, numeric


def _step(variant: str, seq_len: int, **kw) -> float:
    return sum(i.flops for i in step_items(Settings(variant=variant, seq_len=seq_len, **kw)))


# --- chapter 15: reconciliation -------------------------------------------------------------------

def _cookbook_percent(ff: int) -> float:
    s = Settings(variant="transformer", seq_len=4096)
    switches = dict(reconcile.SOURCES["eleutherai-cookbook"]["switches"], mlp_width=ff * LLAMA3_8B.hidden)
    return 100 * (reconcile.ledger_with_switches(s, switches) / reconcile.ledger_with_switches(s, {}) - 1)


def _rc_swiglu() -> float:
    return min((_cookbook_percent(ff) for ff in (3, 4)), key=abs)


numeric("rc-swiglu", _rc_swiglu, rel_tol=0.005, unit="%",
        hint="keep the cookbook's forward-only LM head and 4H lookup; compare -ff 3 and -ff 4 by the size of the gap")
numeric("rc-ckpt", lambda: (reconcile.switched_step_flops("eleutherai-cookbook-checkpointing", 4096)
                            / reconcile.switched_step_flops("eleutherai-cookbook", 4096)),
        rel_tol=0.0005, hint="the LM head and the lookup are never recomputed; only the blocks take 4/3")
numeric("rc-savanna-shape",
        lambda: (reconcile.ledger_with_switches(Settings(variant="hyena2", seq_len=4096),
                                                {"mlp_width": 10944, "vocab": 512})
                 / _step("hyena2", 4096)),
        rel_tol=0.0005, hint="throw only mlp_width and vocab, on the hyena2 variant, and divide by its own count")


# --- chapter 13: compute and time ---------------------------------------------------------------

H100_DENSE_BF16 = 989.4e12
"""H100 SXM dense bf16 peak, FLOP/s (the exercises' accelerator)."""


def _ct_mfu() -> float:
    model = _step("transformer", 4096)
    causal = reconcile.switched_step_flops("megatron-2025", 4096)
    return 100 * (article.flops_utilization(model, 2.0, 64, H100_DENSE_BF16)
                  - article.flops_utilization(causal, 2.0, 64, H100_DENSE_BF16))


def _ct_selective_long() -> float:
    items = step_items(Settings(variant="transformer", seq_len=32768))
    return 100 * (article.recompute_tax(items, ops=("attention:",)) - 1)


def _ct_card31() -> float:
    run = _step("transformer", 8192) / Settings().step_tokens * 15e12
    return 100 * article.implied_utilization(run, 1.46e6, H100_DENSE_BF16)


numeric("ct-mfu", _ct_mfu, rel_tol=0.005, unit="percentage points",
        hint="same seconds, two FLOP counts: the ledger's step and Megatron 2025's causal-halved step")
numeric("ct-selective-long", _ct_selective_long, rel_tol=0.005, unit="%",
        hint="recompute the forward of both attention products, QK^T and AV (ops=('attention:',)), at S = 32,768; "
             "QK^T alone is half of it")
numeric("ct-card31", _ct_card31, rel_tol=0.005, unit="%",
        hint="run FLOPs = the ledger's FLOPs per token at S = 8,192 times 15e12; divide by 1.46e6 h x 3,600 x 989.4e12")


# --- chapter 11: FLOPs per token ----------------------------------------------------------------

def _fpt_small() -> float:
    from ..shapes import ModelShape
    from pathlib import Path
    config = Path(__file__).resolve().parents[2] / "data" / "configs" / "SmolLM-135M" / "config.json"
    return article.attention_ratio_exact(ModelShape.from_hf_config(config), 2048)


def _fpt_flash() -> float:
    from .. import hardware
    s = Settings(variant="transformer", seq_len=32768, attention_kernel="flash-causal", attention_tile=128)
    return 100 * (hardware.hardware_flops(s) / hardware.model_flops(s) - 1)


numeric("fpt-causal", lambda: 2 * article.crossover_seq_len(LLAMA3_8B), rel_tol=0.005, unit="tokens",
        hint="halving attention halves 12LSH, so the crossover S doubles")
numeric("fpt-small", _fpt_small, rel_tol=0.01,
        hint="the exact ratio is 12LSH / 6N with SmolLM's own N, LM head included")
numeric("fpt-flash", _fpt_flash, rel_tol=0.005, unit="%",
        hint="causal tiles: seven products (QK^T once more) over 1/2 + b/(2S) of the matrix, against the model's six full ones")


# --- chapter 12: arithmetic intensity -----------------------------------------------------------

ILLUSTRATIVE_PEAK, ILLUSTRATIVE_BANDWIDTH = 1000e12, 3.35e12
"""Chapter 12's illustrative accelerator: bf16 FLOP/s and bytes/s."""


def _ai_decode_mlp() -> float:
    intensity = article.arithmetic_intensity(1, 4096, LLAMA3_8B.intermediate, bytes_per_element=2)
    return 100 * article.roofline(intensity, ILLUSTRATIVE_PEAK, ILLUSTRATIVE_BANDWIDTH) / ILLUSTRATIVE_PEAK


numeric("ai-decode-mlp", _ai_decode_mlp, rel_tol=0.005, unit="%",
        hint="bytes per element 2 (bf16); attainable = intensity x bandwidth, then divide by the peak")
numeric("ai-ridge-bw", lambda: article.ridge_batch(LLAMA3_8B.hidden, LLAMA3_8B.hidden, ILLUSTRATIVE_PEAK, 6.7e12),
        rel_tol=0.01, unit="tokens", hint="the ridge moves to peak / bandwidth; solve the intensity for M")
numeric("ai-tp-ridge", lambda: article.tensor_parallel_ridge_degree(4096, LLAMA3_8B.hidden,
                                                                    article.fused_qkv_columns(LLAMA3_8B),
                                                                    ILLUSTRATIVE_PEAK, ILLUSTRATIVE_BANDWIDTH),
        rel_tol=1e-9, hint="the fused product has (32 + 2 x 8) x 128 = 6,144 columns; intensity is symmetric in M and B")


# --- chapter 14: any model ----------------------------------------------------------------------

def _config(name: str):
    from pathlib import Path
    from ..shapes import ModelShape
    return ModelShape.from_hf_config(Path(__file__).resolve().parents[2] / "data" / "configs" / name / "config.json")


def _bisect(f, lo: float, hi: float, steps: int = 60) -> float:
    """The x in [lo, hi] where the monotone f changes sign."""
    f_lo = f(lo)
    for _ in range(steps):
        mid = (lo + hi) / 2
        if (f(mid) > 0) == (f_lo > 0):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _am_vocab() -> float:
    """The smallest vocabulary at which Llama-3.2-1B's circulant share no longer exceeds TinyLlama-1.1B's."""
    from dataclasses import replace
    from ..table import step_row
    l32, tiny = _config("Llama-3.2-1B"), _config("TinyLlama-1.1B")
    target = step_row(variant="hyena2_circulant", seq_len=2048, shape=tiny, block=256).step_share

    def above(vocab: int) -> bool:
        return step_row(variant="hyena2_circulant", seq_len=2048, shape=replace(l32, vocab=vocab),
                        block=256).step_share > target
    lo, hi = 1_000, l32.vocab  # the share falls as the vocabulary grows: above(lo), not above(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if above(mid) else (lo, mid)
    return float(hi)


def _am_long() -> float:
    from ..table import step_row
    return 100 * step_row(variant="hyena2", seq_len=16384, shape=_config("SmolLM-135M")).step_share


numeric("am-vocab", _am_vocab, rel_tol=0.01, unit="words",
        hint="the share falls as the vocabulary grows; Llama-3.2-1B has 16 layers, TinyLlama 22")
numeric("am-long", _am_long, rel_tol=0.005, unit="%", hint="step_row(variant='hyena2', seq_len=16384, shape=SmolLM-135M)")


# --- chapter 16: measured -----------------------------------------------------------------------

def _slowed_rates(factor: float) -> dict[str, float]:
    return dict(matmul=1e12, block_product=1e12, fft_long=1e12 / factor, fft_block=1e12 / factor,
                elementwise=1e12 / factor)


def _circulant_time_share(factor: float) -> float:
    from ..timing import time_shares
    return time_shares(step_items(Settings(variant="hyena2_circulant", seq_len=4096)), _slowed_rates(factor))["time_share"]


numeric("ms-break-even", lambda: _bisect(lambda f: _circulant_time_share(f) - 0.5, 1.0, 1000.0), rel_tol=0.005,
        hint="slow FFTs and elementwise products by f, keep matmul and block products at one rate; solve share = 1/2")
numeric("ms-twenty", lambda: 100 * _circulant_time_share(20.0), rel_tol=0.005, unit="%",
        hint="FFTs and elementwise at 1/20 of the matrix rate, block products at the matrix rate")
