"""Claims of chapter 07 (layer-major order, the run policy's memory)."""
from __future__ import annotations

from ..hidden_costs import hidden_costs
from ..memory import (
    activation_values_per_token,
    head_bytes_per_token,
    held_for_backward,
    rank_activations,
)
from ..run import run_policy
from ..run_effects import real_run_extra_flops
from ..schedule import schedule_sweep
from ..settings import Settings
from ..step import step_items
from ..step_time import step_time
from ..table import step_row
from . import claim
from .changes import (
    CONVOLUTION_UNPADDED,
    IDEAL_10X,
    engine_default,
    fft_priced,
    hbm_per_gpu,
    model_shape,
    step_size,
)

CH = "07_layer_major"
SEQ_LENS = (2048, 4096, 8192)


@claim("ch07-dp-layer-major-only-one-micro-batch", CH,
       "Synchronous data parallelism runs the default step layer-major across the cluster: each GPU gets a whole "
       "number of the step's sequences, at least one, and runs them as one micro-batch, with no pipeline stages; "
       "two micro-batches per GPU, or two pipeline stages, would break that order.",
       "the run policy at S = 2,048, 4,096 and 8,192, the default step (1,048,576 tokens) on the default cluster "
       "(64 GPUs): 8, 4 and 2 sequences per GPU, 1 micro-batch and 1 stage (layer-major); 2 micro-batches, or 2 "
       "pipeline stages (not)",
       fails_when=engine_default("the cluster had 256 GPUs, not 64 (half a sequence of 8,192 tokens each)", gpus=256))
def _dp() -> bool:
    for n in SEQ_LENS:
        s = Settings(variant="hyena2", seq_len=n)
        policy = run_policy(s)
        per_gpu = policy.sequences_per_rank
        if not (per_gpu >= 1 and per_gpu == int(per_gpu) and policy.layer_major_across_cluster):
            return False
        if run_policy(Settings(variant="hyena2", seq_len=n, micro_batches=2)).layer_major_across_cluster:
            return False
        if run_policy(s, pipeline_stages=2).layer_major_across_cluster:
            return False
    return True


@claim("ch07-filter-builds-negligible", CH,
       "Building Hyena-2's filter spectra on every GPU for every micro-batch instead of once per step adds a "
       "negligible cost (under 0.1% of the step's FLOPs).",
       "hyena2 at S = 2,048, 4,096 and 8,192, 64 GPUs, 1 and 4 micro-batches per GPU wherever a micro-batch holds "
       "at least one sequence (not 4 at 8,192): the added FLOPs below 1e-3 of the step's",
       fails_when=fft_priced(2))
def _builds() -> bool:
    return all(real_run_extra_flops(s) / step_row(s).step_flops < 1e-3
               for n in SEQ_LENS for m in (1, 4)
               for s in [Settings(variant="hyena2", seq_len=n, micro_batches=m)] if run_policy(s).sequences_per_micro_batch >= 1)


SPECTRA_BYTES = {"hyena2": (1e12, 40e9), "hyena2_circulant": (3e12, 110e9)}
"""(kept with nothing recomputed, above; with full recomputation, below) bytes of the default step's spectra."""


@claim("ch07-recompute-one-layer-spectra", CH,
       "Under full recomputation only one layer's spectra are live, 1/L of what keeping every layer's takes: for "
       "the default step, tens of gigabytes instead of terabytes (Hyena-2: over 1 TB with nothing recomputed, under "
       "40 GB with full recomputation; the block-circulant model: over 3 TB, under 110 GB).",
       "hyena2 and hyena2_circulant at S = 2,048, 4,096 and 8,192, 1,048,576 tokens per step, bf16: the ratio L "
       "(the Hyena layers, 32) to 1e-9, the bytes against those bounds",
       fails_when=step_size(4 * 2 ** 20, "Llama 2's 4M"))
def _one_layer() -> bool:
    for v, (above, below) in SPECTRA_BYTES.items():
        for n in SEQ_LENS:
            s = Settings(variant=v, seq_len=n)
            none = held_for_backward(s)
            full = held_for_backward(Settings(variant=v, seq_len=n, recompute="full"))
            if abs(full.spectra_bytes * s.hyena_layers - none.spectra_bytes) > 1e-9 * none.spectra_bytes:
                return False
            if not (none.spectra_bytes > above and full.spectra_bytes < below):
                return False
    return True


@claim("ch07-no-order-saves-hyena2", CH,
       "There is no order in which the Hyena-2 engine saves time on the idealised device: with the engine waiting "
       "for its rewrites, at every micro-batch size the weight-mask rewrite takes longer than the most the "
       "engine could save (its work's GPU seconds at the time model's rates); with the rewrites overlapped on a "
       "double-buffered device, streaming the data in and out takes longer still.",
       "hyena2 at S = 4,096, every micro-batch size from 1 (sequence-major) to 256 (layer-major), the default "
       "engine; mask_overlap serial and overlapped (overlapped: net speed-up below 1)",
       fails_when=engine_default("the mask device had 20,000,000 pixels, ten times the book's", pixels=20e6))
def _no_order() -> bool:
    s = Settings(variant="hyena2", seq_len=4096)
    timed = step_time(s, step_items(s))
    saved = timed.engine_work_gpu_s
    overlapped = step_row(s, mask_overlap="overlapped")
    return (all(c.weight_mask_s > saved for c in schedule_sweep(s)) and timed.stream_s > saved
            and overlapped.net_speedup < 1)


@claim("ch07-shared-engine-hundreds", CH,
       "One shared engine fed with fused 4f passes must write more than a hundred times what the illustrative "
       "mask device writes per second (between 100 and 1,000 times) to keep pace with Hyena-2's digital step, "
       "counting only the numbers written in (values_in), not those read out by detectors.",
       "hyena2 at S = 2,048, 4,096 and 8,192, fused conversions (U and G read out), the default engine: values_in "
       "per second of the all-digital step over the engine's io_rate, 100 to 1,000",
       fails_when=IDEAL_10X)
def _shared() -> bool:
    out = []
    for n in SEQ_LENS:
        s = Settings(variant="hyena2", seq_len=n)
        fused = hidden_costs(s, mode="fused")
        writes = fused.conversions.values_in / step_row(s).all_digital_step_s
        out.append(100 <= writes / fused.io_rate <= 1000)
    return all(out)


@claim("ch07-fused-mostly-out", CH,
       "In fused 4f passes about three quarters of the numbers crossing the boundary are read out (y and du, "
       "plus the U and G spectra for the digital weight gradient), not written in.",
       "hyena2 at S = 2,048, 4,096 and 8,192, fused conversions (U and G read out); 'about three quarters' is "
       "0.70 to 0.80 of values_in + values_out",
       fails_when=CONVOLUTION_UNPADDED)
def _fused_mostly_out() -> bool:
    fractions = [hidden_costs(Settings(variant="hyena2", seq_len=n), mode="fused").conversions
                 for n in SEQ_LENS]
    return all(0.70 <= c.values_out / c.values <= 0.80 for c in fractions)


@claim("ch07-default-policy-does-not-fit", CH,
       "With nothing recomputed and one micro-batch per GPU, a Hyena layer keeps 150 to 200 KB per token for its "
       "backward pass, and a GPU's activations alone exceed its 80 GB of HBM; full recomputation brings them "
       "under a fifth of it, and two micro-batches halve them.",
       "hyena2 and hyena2_circulant at S = 2,048, 4,096 and 8,192, 1,048,576 tokens per step, 64 GPUs, bf16 with "
       "fp32 log-probabilities, ledger.memory.ACTIVATION_CONVENTION (the LM head's and the loss's tensors "
       "included), 80 GB of HBM per GPU: 150 to 200 KB per token per Hyena layer, the activations over 1 and "
       "under 0.2 of HBM, two micro-batches half of one's bytes to 1e-9",
       fails_when=hbm_per_gpu(141e9, "an H200's"))
def _default_does_not_fit() -> bool:
    for v in ("hyena2", "hyena2_circulant"):
        for n in SEQ_LENS:
            s = Settings(variant=v, seq_len=n)
            if not 150e3 <= 2 * activation_values_per_token(s, "hyena") <= 200e3:
                return False
            none = rank_activations(s)
            full = rank_activations(Settings(variant=v, seq_len=n, recompute="full"))
            two = rank_activations(Settings(variant=v, seq_len=n, micro_batches=2))
            if not (none.of_hbm > 1 and full.of_hbm < 0.2 and abs(2 * two.bytes - none.bytes) <= 1e-9 * none.bytes):
                return False
    return True


@claim("ch07-logits-largest-activation", CH,
       "The loss keeps its log-probabilities over the vocabulary in fp32 whatever the recomputation policy: per "
       "token more than a whole layer keeps, and under full recomputation most of a GPU's activations; the "
       "layer-major step in one place holds more of them than of every layer's input.",
       "hyena2 and hyena2_circulant at S = 2,048, 4,096 and 8,192, Llama-3-8B's vocabulary (128,256), 1,048,576 "
       "tokens per step, 64 GPUs, one micro-batch per GPU, bf16 with fp32 log-probabilities "
       "(ledger.memory.LOGITS_BYTES_PER_VALUE): the log-probabilities per token above 2 bytes x the values of "
       "any layer (attention or Hyena), the same bytes under both policies, over half of a GPU's activations "
       "with full recomputation, the step's head bytes above its layer inputs'",
       fails_when=model_shape("the vocabulary were 32,000 tokens (Llama 2's), not 128,256", vocab=32_000))
def _logits_largest() -> bool:
    for v in ("hyena2", "hyena2_circulant"):
        for n in SEQ_LENS:
            s = Settings(variant=v, seq_len=n)
            logits = head_bytes_per_token(s, kinds=("logits",))
            if not logits > 2 * max(activation_values_per_token(s, m) for m in ("attention", "hyena")):
                return False
            none = rank_activations(s)
            full = rank_activations(Settings(variant=v, seq_len=n, recompute="full"))
            if not (none.logits_bytes == full.logits_bytes and full.logits_bytes > 0.5 * full.bytes):
                return False
            held = held_for_backward(s)
            if not held.head_bytes > held.layer_inputs_bytes:
                return False
    return True
