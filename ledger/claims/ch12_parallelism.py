"""Chapter 12's checked sentences: what limits tensor parallelism, and what raises decode intensity.

The accelerator is the chapter's illustrative one (article.ILLUSTRATIVE_PEAK and _BANDWIDTH: 1,000 TFLOP/s, 3.35 TB/s) and the
network article.H100_NODES, both read when a check runs, so that a change of either reaches the checks."""
from __future__ import annotations

import math

from .. import article, shapes
from ..settings import ATTENTION_KERNELS
from . import claim
from .changes import attention_tiles, memory_bandwidth, model_shape, network

CHAPTER = "12_arithmetic_intensity"
SEQ = 4096
MICRO_BATCHES = (4096, 8192, 16384)
"""One to four sequences of 4,096 tokens per micro-batch."""


def _peak() -> float:
    return article.ILLUSTRATIVE_PEAK


def _bandwidth() -> float:
    return article.ILLUSTRATIVE_BANDWIDTH


@claim("ch12-tp-limit-is-allreduce", CHAPTER,
       "At t = 16 the q projection's shard still runs at over 70% of peak, while across two 8-GPU nodes "
       "the layer's all-reduces take longer than its matrix work at the peak rate, more than twice the "
       "share they take at t = 8 inside one node, and over half of it even at 40% of peak: "
       "communication, not the ridge, limits tensor parallelism.",
       "one to four sequences of 4,096 tokens per micro-batch; the matrix work as the kernels execute it "
       "(hardware FLOPs), the attention core run dense, as FlashAttention or as causal FlashAttention; H100 nodes (NVLink 450 GB/s, eight 50 GB/s NICs per node); chapter 12's "
       "illustrative accelerator (1,000 TFLOP/s, 3.35 TB/s)",
       fails_when=network("NVLink and the NICs moved 4x the bytes (1.8 TB/s and 200 GB/s each way per GPU)",
                          nvlink=1800e9, nic=200e9))
def _tp_limit() -> bool:
    peak, h, out = _peak(), shapes.LLAMA3_8B.hidden, []
    for tokens in MICRO_BATCHES:
        rate = article.roofline(article.arithmetic_intensity(tokens, h, h / 16, 2), peak, _bandwidth())
        out.append(rate / peak > 0.7)
        for kernel in ATTENTION_KERNELS:
            def ratio(t, sustained, tokens=tokens, kernel=kernel):
                return article.tensor_parallel_allreduce(tokens, shapes.LLAMA3_8B, t, sustained, article.H100_NODES,
                                                         seq_len=SEQ, attention_kernel=kernel)["ratio"]
            out.append(ratio(16, peak) > 1 and ratio(16, peak) > 2 * ratio(8, peak) and ratio(16, 0.4 * peak) > 0.5)
    return all(out)


@claim("ch12-allreduce-grows-with-t", CHAPTER,
       "Within one node the all-reduces take about a tenth of the matrix time at t = 2 and about two thirds "
       "at t = 8, and their share grows with the tensor-parallel degree, past the matrix work at t = 16 "
       "across two nodes.",
       "t = 1, 2, 4, 8 in one H100 node and t = 16 across two; one to four sequences of 4,096 tokens per "
       "micro-batch, the matrix work as the kernels execute it (hardware FLOPs) with any of the three "
       "attention kernels; at the illustrative peak: 8% to 12% at t = 2, 60% to 75% at t = 8, above 1 at t = 16",
       fails_when=network("NVLink moved 900 GB/s each way per GPU (NVLink 5's rate), not 450", nvlink=900e9))
def _grows() -> bool:
    out = []
    for tokens, kernel in ((n, k) for n in MICRO_BATCHES for k in ATTENTION_KERNELS):
        r = {t: article.tensor_parallel_allreduce(tokens, shapes.LLAMA3_8B, t, _peak(), article.H100_NODES,
                                                  seq_len=SEQ, attention_kernel=kernel)["ratio"] for t in (1, 2, 4, 8, 16)}
        out.append(r[1] < r[2] < r[4] < r[8] < r[16] and 0.08 < r[2] < 0.12 and 0.6 < r[8] < 0.75 and r[16] > 1)
    return all(out)


@claim("ch12-quantisation-raises-decode", CHAPTER,
       "Storing the weights in fewer bytes raises a decode product's FLOPs per byte about in proportion "
       "(twice for int8, four times for int4), though it stays far below the ridge.",
       "every weight matrix of Llama-3-8B, 1, 4 and 16 tokens per step, bf16 activations: int8 1.9 to 2 times "
       "bf16's, int4 3.5 to 4 times, int4 under a quarter of the illustrative accelerator's ridge",
       fails_when=memory_bandwidth(10))
def _quant() -> bool:
    shape = shapes.LLAMA3_8B
    h, kv, inter, vocab = shape.hidden, shape.kv_dim, shape.intermediate, shape.vocab
    ridge = article.ridge_point(_peak(), _bandwidth())
    out = []
    for m, k in ((h, h), (kv, h), (inter, h), (h, inter), (vocab, h)):  # each weight matrix: outputs x inputs
        for b in (1, 4, 16):  # tokens
            bf16 = article.weight_quantised_intensity(m, k, b, 2)
            int8, int4 = article.weight_quantised_intensity(m, k, b, 1), article.weight_quantised_intensity(m, k, b, 0.5)
            out.append(1.9 < int8 / bf16 <= 2 and 3.5 < int4 / bf16 <= 4 and int4 < ridge / 4)
    return all(out)


@claim("ch12-fused-qkv-whole-heads", CHAPTER,
       "The fused QKV product stays above the ridge up to t = 16, and each device holds whole key/value heads up to t = 8.",
       "Llama-3-8B, one sequence of 4,096 tokens per micro-batch, the illustrative accelerator: above the ridge "
       "at t = 1 to 16, below it at t = 32",
       fails_when=model_shape("Llama-3-8B had 4 key/value heads, not 8", n_kv_heads=4))
def _fused() -> bool:
    cols = article.fused_qkv_columns(shapes.LLAMA3_8B)
    need = article.ridge_batch(shapes.LLAMA3_8B.hidden, SEQ, _peak(), _bandwidth())
    return (all(cols / t >= need for t in (1, 2, 4, 8, 16)) and cols / 32 < need
            and article.whole_kv_heads_up_to(shapes.LLAMA3_8B) == 8)


@claim("ch12-tp16-jump-mostly-halving", CHAPTER,
       "Most of the jump from t = 8 to t = 16 is each device's work halving, which a 16-GPU NVLink domain "
       "would see too (over twice the share at t = 8); crossing into a second node only lowers the bus "
       "bandwidth from 450 to 400 GB/s, under a fifth more on top.",
       "one to four sequences of 4,096 tokens per micro-batch; any of the three attention kernels; at the "
       "peak rate and at 40% of it; H100 nodes against a hypothetical 16-GPU NVLink domain at H100 rates; "
       "most: the domain's jump over 80% of the whole jump on a log scale",
       fails_when=network("each GPU's NIC moved 25 GB/s each way (200 Gb/s), not 50", nic=25e9))
def _tp16_halving() -> bool:
    out = []
    for tokens in MICRO_BATCHES:
        for kernel in ATTENTION_KERNELS:
            for rate in (_peak(), 0.4 * _peak()):
                def ratio(t, topology, tokens=tokens, kernel=kernel, rate=rate):
                    return article.tensor_parallel_allreduce(tokens, shapes.LLAMA3_8B, t, rate, topology, seq_len=SEQ,
                                                             attention_kernel=kernel)["ratio"]
                jump_domain = ratio(16, article.H100_NVLINK_16) / ratio(8, article.H100_NODES)
                crossing = ratio(16, article.H100_NODES) / ratio(16, article.H100_NVLINK_16)
                out.append(jump_domain > 2 and 1 < crossing < 1.2
                           and math.log(jump_domain) > 0.8 * math.log(jump_domain * crossing))
    return all(out)


@claim("ch12-kernel-count-raises-ratio", CHAPTER,
       "Counted as causal FlashAttention executes it, the attention core adds less to a layer's matrix work "
       "than the model count's full products (about 9% against 15% at S = 4,096), so with hardware FLOPs "
       "every all-reduce ratio is higher than with the model count.",
       "Llama-3-8B, one to four sequences of 4,096 tokens per micro-batch, t = 2, 4, 8, 16 on H100 nodes, "
       "at the illustrative peak; the kernel's attention core 8% to 10% of the weight products, the model "
       "count's ('dense') 15% to 16%",
       fails_when=attention_tiles(4096))
def _kernel_count() -> bool:
    out = []
    for tokens in MICRO_BATCHES:
        for t in (2, 4, 8, 16):
            kernel, model = (article.tensor_parallel_allreduce(tokens, shapes.LLAMA3_8B, t, _peak(), article.H100_NODES,
                                                               seq_len=SEQ, attention_kernel=k)
                             for k in (None, "dense"))
            share = {name: r["attention_s"] / (r["matmul_s"] - r["attention_s"])
                     for name, r in (("kernel", kernel), ("model", model))}
            out.append(0.08 < share["kernel"] < 0.10 and 0.15 < share["model"] < 0.16
                       and kernel["ratio"] > model["ratio"])
    return all(out)


@claim("ch12-megatron-runs-tp-past-kv-heads", CHAPTER,
       "Megatron-LM at the pinned commit accepts the degree at which the fused QKV product's shard first falls "
       "below the ridge, past Llama-3-8B's key/value heads; before December 2025 it refused every degree past them.",
       "Llama-3-8B (32 query heads, 8 key/value groups), one sequence of 4,096 tokens per micro-batch, the "
       "illustrative accelerator; Megatron-LM's rule at d98e8a64 and before f7dfb997",
       fails_when=memory_bandwidth(2))
def _megatron_past_heads() -> bool:
    shape = shapes.LLAMA3_8B
    t = article.tensor_parallel_ridge_degree(SEQ, shape.hidden, article.fused_qkv_columns(shape), _peak(), _bandwidth())
    past = [d for d in (16, 32, 64) if d > article.whole_kv_heads_up_to(shape)]
    return (t > article.whole_kv_heads_up_to(shape) and article.megatron_accepts_tp_degree(shape, t)
            and not any(article.megatron_accepts_tp_degree(shape, d, kv_sub_sharding=False) for d in past))
