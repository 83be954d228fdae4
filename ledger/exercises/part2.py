"""Exercises of chapters 11-16 (From FLOPs to time, reconciliation, measured kernels): each answer is
computed from the ledger when `check` is called, for the book's parameters (each answer function's
keyword defaults) or a student's variant of them (`variants`). A part of an exercise that asks for
an explanation is registered with `explained` and a marking rubric; its label is the exercise's
with `-why`, named in the statement."""
from __future__ import annotations

import math
from dataclasses import replace

from .. import article, hardware, reconcile
from ..passes import long_conv_per_channel
from ..settings import Settings
from ..shapes import LLAMA3_8B
from ..step import step_items
from ..table import step_row
from ..timing import time_shares
from .registry import REGISTRY, exercise_parts, explained, model_shape, numeric


def _step(variant: str, seq_len: int, **kw) -> float:
    return sum(i.flops for i in step_items(Settings(variant=variant, seq_len=seq_len, **kw)))


# --- chapter 15: reconciliation -------------------------------------------------------------------

def _cookbook_percent(ff: int, seq_len: int) -> float:
    s = Settings(variant="transformer", seq_len=seq_len)
    switches = dict(reconcile.SOURCES["eleutherai-cookbook"]["switches"], mlp_width=ff * LLAMA3_8B.hidden)
    return 100 * (reconcile.ledger_with_switches(s, switches) / reconcile.ledger_with_switches(s, {}) - 1)


def _rc_swiglu(seq_len: int = 8192) -> float:
    return min((_cookbook_percent(ff, seq_len) for ff in (3, 4)), key=abs)


def _rc_ckpt(seq_len: int = 4096) -> float:
    return (reconcile.switched_step_flops("eleutherai-cookbook-checkpointing", seq_len)
            / reconcile.switched_step_flops("eleutherai-cookbook", seq_len))


def _rc_savanna(switches: dict, seq_len: int = 4096) -> float:
    return reconcile.ledger_with_switches(Settings(variant="hyena2", seq_len=seq_len), switches) / _step("hyena2", seq_len)


numeric("rc-swiglu", _rc_swiglu, rel_tol=0.005, unit="%", variants={"seq_len": (2048, 16384, 32768)},
        traps=lambda seq_len: [(_cookbook_percent(3, seq_len) if abs(_cookbook_percent(4, seq_len))
                                < abs(_cookbook_percent(3, seq_len)) else _cookbook_percent(4, seq_len),
                                "the -ff value that is further from the ledger")],
        hint="the cookbook's other switches stay thrown; which of its terms pull the count down, which up?")
explained("rc-swiglu-why")
numeric("rc-ckpt", _rc_ckpt, rel_tol=0.0002, variants={"seq_len": (16384, 65536, 131072)}, traps=[(4 / 3, "the 4/3 rule")],
        hint="what in the cookbook's count is charged once, whether or not the blocks are recomputed?")
explained("rc-ckpt-why")
numeric("rc-savanna-vocab", lambda vocab=512, seq_len=4096: _rc_savanna({"vocab": vocab}, seq_len),
        rel_tol=0.0001, variants={"vocab": (2048, 4096, 8192)},
        hint="one shape switch only: the vocabulary; the MLP keeps the ledger's width")
explained("rc-savanna-why")
exercise_parts("rc-savanna-shape", "rc-savanna-vocab", "rc-savanna-why")


# --- chapter 13: compute and time ---------------------------------------------------------------

H100_DENSE_BF16 = 989.4e12
"""H100 SXM dense bf16 peak, FLOP/s (the exercises' accelerator)."""


def _ct_mfu(step_seconds: float = 2.0) -> float:
    model = _step("transformer", 4096)
    causal = reconcile.switched_step_flops("megatron-2025", 4096)
    return 100 * (article.flops_utilization(model, step_seconds, 64, H100_DENSE_BF16)
                  - article.flops_utilization(causal, step_seconds, 64, H100_DENSE_BF16))


def _ct_selective_long(seq_len: int = 32768) -> float:
    items = step_items(Settings(variant="transformer", seq_len=seq_len))
    return 100 * (article.recompute_tax(items, ops=("attention:",)) - 1)


def _ct_card31(gpu_hours: float = 1.46e6) -> float:
    run = reconcile.switched_step_flops("megatron-2025", 8192) / Settings().step_tokens * 15e12
    return 100 * article.implied_utilization(run, gpu_hours, H100_DENSE_BF16)


def _ct_card31_ledger(gpu_hours: float = 1.46e6) -> float:
    run = _step("transformer", 8192) / Settings().step_tokens * 15e12
    return 100 * article.implied_utilization(run, gpu_hours, H100_DENSE_BF16)


def _ct_mfu_slips(step_seconds: float = 2.0) -> list:
    """The relative differences a student gives where the difference in percentage points is asked:
    the gap over the causal count's utilisation, and over the model count's."""
    model = article.flops_utilization(_step("transformer", 4096), step_seconds, 64, H100_DENSE_BF16)
    causal = article.flops_utilization(reconcile.switched_step_flops("megatron-2025", 4096), step_seconds, 64,
                                       H100_DENSE_BF16)
    why = ("it looks like a relative difference in percent; the answer is the difference of the two "
           "utilisations, in percentage points.")
    return [(100 * (model - causal) / causal, "points-vs-relative", why),
            (100 * (model - causal) / model, "points-vs-relative", why)]


numeric("ct-mfu", _ct_mfu, rel_tol=0.005, unit="percentage points", slips=_ct_mfu_slips,
        variants={"step_seconds": (1.5, 1.8, 2.2, 2.5, 1.2, 1.4, 1.3, 1.7, 1.9, 2.7, 3.0, 2.8)},
        hint="utilisation is achieved FLOP/s over the cluster's peak; the seconds and the GPUs are the same for both")
def _qk_only(seq_len: int = 32768) -> float:
    items = step_items(Settings(variant="transformer", seq_len=seq_len))
    return 100 * article.recompute_flops(items, ops=("attention: Q K^T",)) / sum(i.flops for i in items)


numeric("ct-selective-long", _ct_selective_long, rel_tol=0.005, unit="%", variants={"seq_len": (16384, 65536, 131072)},
        traps=lambda seq_len: [(_qk_only(seq_len), "QK^T alone is half of it; AV is recomputed too")],
        hint="only the attention products are run again; compare their forward FLOPs with the whole step's")
explained("ct-selective-long-why")
numeric("ct-card31", _ct_card31, rel_tol=0.005, unit="%", variants={"gpu_hours": (1.2e6, 1.6e6, 2.0e6)},
        traps=lambda gpu_hours: [(_ct_card31_ledger(gpu_hours), "the ledger's full count, not Megatron's")],
        hint="run FLOPs over GPU-hours x 3,600 s x the peak; which count does the log use?")
explained("ct-card31-why")


# --- chapter 11: FLOPs per token ----------------------------------------------------------------

MODEL_CONFIGS = ("Llama-3.2-1B", "TinyLlama-1.1B", "SmolLM-135M")
"""The shipped configurations (data/configs) the exercises' variants draw from."""


def _shape(model: str):
    return model_shape(model)


def _fpt_causal(model: str = "Llama-3-8B", vocab: int = 128_256) -> float:
    """The causal crossover length of `model` with its vocabulary set to `vocab` (its LM head resized)."""
    return 2 * article.crossover_seq_len(replace(_shape(model), vocab=vocab))


# Another model with a vocabulary of another model family (32,000 to 256,000 words), so its N must
# be worked out first: the LM head changes by (V' - V) H. The rows' answers lie over 2% apart (the
# close band), so no two students' answers pass for each other.
FPT_CAUSAL_ROWS = {"model": tuple(m for m in MODEL_CONFIGS for _ in range(4)),
                   "vocab": (32_000, 100_352, 151_936, 256_000, 49_152, 80_000, 100_352, 200_064,
                             32_000, 65_536, 151_936, 256_000)}


def _fpt_small(seq_len: int = 2048) -> float:
    return article.attention_ratio_exact(_config("SmolLM-135M"), seq_len)


def _fpt_small_approx(seq_len: int = 2048) -> float:
    return article.attention_ratio(seq_len, _config("SmolLM-135M").hidden)


def _fpt_flash(seq_len: int = 65536, attention_kernel: str = "flash-causal") -> float:
    s = Settings(variant="transformer", seq_len=seq_len, attention_kernel=attention_kernel, attention_tile=128)
    return 100 * (hardware.hardware_flops(s) / hardware.model_flops(s) - 1)


numeric("fpt-causal", _fpt_causal, rel_tol=0.005, unit="tokens", variants=FPT_CAUSAL_ROWS,
        traps=lambda model, vocab: [(article.crossover_seq_len(replace(_shape(model), vocab=vocab)),
                                     "the crossover without causal halving"),
                                    (2 * article.crossover_seq_len(_shape(model)),
                                     "the model's own vocabulary, not the one printed")][:1 if vocab == _shape(model).vocab else 2],
        hint="write both terms per token and set them equal; what does halving one of them do to the solution?")
numeric("fpt-small", _fpt_small, rel_tol=0.005, variants={"seq_len": (1024, 512, 16384)},
        traps=lambda seq_len: [(_fpt_small_approx(seq_len), "the approximation S/(6H), not the exact ratio")],
        hint="the exact ratio counts the model's own N, LM head included")
numeric("fpt-small-approx", _fpt_small_approx, rel_tol=0.005, variants={"seq_len": (1024, 512, 16384)},
        hint="the approximation takes N as 12LH^2")
explained("fpt-small-why")
# The book's length is not chapter 11's 32,768, whose two gaps the chapter prints (and so answers).
numeric("fpt-flash", _fpt_flash, rel_tol=0.005, unit="%", variants={"seq_len": (8192, 131072, 524288)},
        hint="the causal kernel runs QK^T once more in the backward, but over which tiles only?")
numeric("fpt-flash-full", lambda seq_len=65536: _fpt_flash(seq_len, "flash"), rel_tol=0.005, unit="%",
        variants={"seq_len": (8192, 131072, 524288)}, hint="without the mask the extra product covers the whole matrix")
explained("fpt-flash-why")


# --- chapter 12: arithmetic intensity -----------------------------------------------------------

ILLUSTRATIVE_PEAK, ILLUSTRATIVE_BANDWIDTH = article.ILLUSTRATIVE_PEAK, article.ILLUSTRATIVE_BANDWIDTH
"""Chapter 12's illustrative accelerator (article.ILLUSTRATIVE_*): bf16 FLOP/s and bytes/s."""


def _ai_decode_intensity(batch: int = 1) -> float:
    # the up-projection's weights, M x K = 14,336 x 4,096, applied to B = batch tokens (chapter 11's 2MKB)
    return article.arithmetic_intensity(LLAMA3_8B.intermediate, 4096, batch, bytes_per_element=2)


def _ai_decode_mlp(batch: int = 1) -> float:
    return 100 * article.roofline(_ai_decode_intensity(batch), ILLUSTRATIVE_PEAK, ILLUSTRATIVE_BANDWIDTH) / ILLUSTRATIVE_PEAK


def _ai_ridge_bw(bandwidth: float = 6.7e12) -> float:
    """The smallest whole micro-batch at which the q projection is compute-bound: the ridge, rounded up."""
    return float(math.ceil(article.ridge_batch(LLAMA3_8B.hidden, LLAMA3_8B.hidden, ILLUSTRATIVE_PEAK, bandwidth)))


def _ai_tp_ridge(bandwidth: float = ILLUSTRATIVE_BANDWIDTH) -> float:
    return article.tensor_parallel_ridge_degree(4096, LLAMA3_8B.hidden, article.fused_qkv_columns(LLAMA3_8B),
                                                ILLUSTRATIVE_PEAK, bandwidth)


DECODE_ROWS = {"batch": (5, 16, 8, 7, 9, 11, 13, 14, 22, 28, 36, 56)}
numeric("ai-decode-mlp-intensity", _ai_decode_intensity, rel_tol=0.005, unit="FLOPs per byte",
        variants=DECODE_ROWS, formative="one call of article.arithmetic_intensity with the statement's batch gives it", hint="count the FLOPs of the product and the bytes of its three operands")
numeric("ai-decode-mlp", _ai_decode_mlp, rel_tol=0.005, unit="%", variants=DECODE_ROWS,
        hint="below the ridge the attainable rate is set by the bandwidth, not by the peak")
numeric("ai-ridge-bw", _ai_ridge_bw, rel_tol=1e-9, unit="tokens", variants={"bandwidth": (4.0e12, 5.0e12, 9.0e12)},
        traps=[(_ai_ridge_bw(ILLUSTRATIVE_BANDWIDTH), "the ridge at the old bandwidth")],
        hint="set the product's intensity equal to peak over bandwidth, solve for the tokens, and round up")
numeric("ai-tp-ridge", _ai_tp_ridge, rel_tol=1e-9, variants={"bandwidth": (1.6e12, 2.0e12, 6.7e12)},
        hint="the intensity of a product is symmetric in its outputs and its tokens")
numeric("ai-tp-heads", lambda: float(article.whole_kv_heads_up_to(LLAMA3_8B)), rel_tol=1e-9,
        hint="count the key/value heads")


# --- chapter 14: any model ----------------------------------------------------------------------

def _config(name: str):
    return model_shape(name)


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


def _am_vocab(block: int = 256, seq_len: int = 2048) -> float:
    """The smallest vocabulary at which Llama-3.2-1B's circulant share no longer exceeds TinyLlama-1.1B's."""
    from dataclasses import replace
    l32, tiny = _config("Llama-3.2-1B"), _config("TinyLlama-1.1B")
    target = step_row(variant="hyena2_circulant", seq_len=seq_len, shape=tiny, block=block).step_share

    def above(vocab: int) -> bool:
        return step_row(variant="hyena2_circulant", seq_len=seq_len, shape=replace(l32, vocab=vocab),
                        block=block).step_share > target
    lo, hi = 1_000, l32.vocab  # the share falls as the vocabulary grows: above(lo), not above(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if above(mid) else (lo, mid)
    return float(hi)


def _am_long(seq_len: int = 16384) -> float:
    return 100 * step_row(variant="hyena2", seq_len=seq_len, shape=_config("SmolLM-135M")).step_share


numeric("am-vocab", _am_vocab, rel_tol=0.005, unit="words", variants={"block": (64, 128, 512)},
        traps=[(32_000, "TinyLlama's own vocabulary")],
        hint="the share falls as the vocabulary grows; the two models differ in more than the vocabulary")
explained("am-vocab-why")
def _am_long_fft(seq_len: int = 16384) -> float:
    """How many times the FLOPs per token of SmolLM-135M's per-sequence long-convolution transforms at
    `seq_len` exceed those at 2,048 tokens (FFT length 2S: log2(2S)/log2(4,096))."""

    def per_token(s: int) -> float:
        per_channel = long_conv_per_channel(Settings(variant="hyena2", seq_len=s, shape=_config("SmolLM-135M")))
        return sum(c.flops for c in per_channel if c.per == "sequence" and c.cls == "transform") / s
    return per_token(seq_len) / per_token(2048)


numeric("am-long-fft", _am_long_fft, rel_tol=0.001, variants={"seq_len": (1024, 65536, 131072)},
        hint="a real FFT of length n costs C n log2 n; per token of a sequence of S tokens, with n = 2S.")
numeric("am-long", _am_long, rel_tol=0.005, unit="%", variants={"seq_len": (1024, 131072, 256)},
        hint="which costs per token grow with the sequence length, and which do not?")
explained("am-long-why")


# --- chapter 16: measured -----------------------------------------------------------------------

def _slowed_rates(factor: float) -> dict[str, float]:
    return {"matmul": 1e12, "block_product": 1e12, "fft_long": 1e12 / factor, "fft_block": 1e12 / factor,
            "elementwise": 1e12 / factor}


def _circulant_time_share(factor: float, seq_len: int = 4096) -> float:
    return time_shares(step_items(Settings(variant="hyena2_circulant", seq_len=seq_len)),
                       _slowed_rates(factor))["time_share"]


numeric("ms-break-even", lambda seq_len=4096: _bisect(lambda f: _circulant_time_share(f, seq_len) - 0.5, 1.0, 1000.0),
        rel_tol=0.005, variants={"seq_len": (2048, 8192, 1024)},
        hint="write the optical and the digital seconds as functions of f in units of the step's FLOPs at the "
             "matrix rate, and set them equal")
explained("ms-break-even-why")
numeric("ms-twenty", lambda factor=20.0: 100 * _circulant_time_share(factor), rel_tol=0.005, unit="%",
        variants={"factor": (12.0, 30.0, 40.0, 5.0, 8.0, 10.0, 15.0, 25.0, 50.0, 70.0, 80.0, 100.0)},
        hint="weight each kind of kernel's FLOPs by its rate before dividing")


# Which parts count towards a grade (the course guide's assessment plan), and which are formative.
FORMATIVE = {
    "ai-ridge-bw": "one call of article.ridge_batch with the statement's bandwidth, rounded up, gives it",
    "ct-selective-long": "one call of article.recompute_tax with the statement's length gives it",
    "am-long": "one call of ledger.step_row with the statement's length gives it",
    "ai-decode-mlp": "part (a)'s practice answer, which the student folder's catalogue holds for every batch, "
                     "times the bandwidth over the peak gives it",
}
GRADED = ("fpt-causal", "ct-mfu", "ms-twenty", "fpt-small-why", "ms-break-even-why")
for _label, _reason in FORMATIVE.items():
    REGISTRY[_label] = replace(REGISTRY[_label], formative=_reason, graded=False)
for _label in GRADED:
    REGISTRY[_label] = replace(REGISTRY[_label], graded=True)
