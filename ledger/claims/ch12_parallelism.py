"""Chapter 12's checked sentences: what limits tensor parallelism, and what raises decode intensity."""
from __future__ import annotations

from .. import article
from ..shapes import LLAMA3_8B
from . import claim

CHAPTER = "12_arithmetic_intensity"
PEAK, BANDWIDTH = 1000e12, 3.35e12
"""The chapter's illustrative accelerator."""
NODES = article.H100_NODES
"""8-GPU H100 nodes: NVLink 450 GB/s each way per GPU, one 400 Gb/s (50 GB/s) NIC per GPU."""


@claim("ch12-tp-limit-is-allreduce", CHAPTER,
       "At t = 16 the q projection's shard still runs at over 70% of peak, while across two 8-GPU nodes "
       "the layer's all-reduces take longer than its matrix work at the peak rate, more than twice the "
       "share they take at t = 8 inside one node, and over half of it even at 40% of peak: "
       "communication, not the ridge, limits tensor parallelism.",
       "one to four sequences of 4,096 tokens per micro-batch; attention products counted whole or "
       "halved (causal); H100 nodes (NVLink 450 GB/s, eight 50 GB/s NICs per node)")
def _tp_limit() -> bool:
    out = []
    for tokens in (4096, 8192, 16384):
        rate = article.roofline(article.arithmetic_intensity(tokens, 4096, 4096 / 16, 2), PEAK, BANDWIDTH)
        out.append(rate / PEAK > 0.7)
        for causal in (False, True):
            def ratio(t, sustained):
                return article.tensor_parallel_allreduce(tokens, LLAMA3_8B, t, sustained, NODES, seq_len=4096,
                                                         causal=causal)["ratio"]
            out.append(ratio(16, PEAK) > 1 and ratio(16, PEAK) > 2 * ratio(8, PEAK) and ratio(16, 0.4 * PEAK) > 0.5)
    return all(out)


@claim("ch12-allreduce-grows-with-t", CHAPTER,
       "The all-reduce time relative to the matrix work grows with the tensor-parallel degree.",
       "t = 1, 2, 4, 8 in one H100 node and t = 16 across two; any micro-batch of 4,096-token sequences "
       "(the ratio does not depend on their number)")
def _grows() -> bool:
    ratios = [article.tensor_parallel_allreduce(4096, LLAMA3_8B, t, PEAK, NODES)["ratio"] for t in (1, 2, 4, 8, 16)]
    return all(a < b for a, b in zip(ratios, ratios[1:]))


@claim("ch12-quantisation-raises-decode", CHAPTER,
       "Storing the weights in fewer bytes raises a decode product's FLOPs per byte about in proportion "
       "(twice for int8, four times for int4), though it stays far below the ridge.",
       "every weight matrix of Llama-3-8B, 1 to 16 tokens per step, bf16 activations")
def _quant() -> bool:
    h, kv, inter, vocab = LLAMA3_8B.hidden, LLAMA3_8B.kv_dim, LLAMA3_8B.intermediate, LLAMA3_8B.vocab
    out = []
    for k, b in ((h, h), (h, kv), (h, inter), (inter, h), (h, vocab)):
        for m in (1, 4, 16):
            bf16 = article.weight_quantised_intensity(m, k, b, 2)
            int8, int4 = article.weight_quantised_intensity(m, k, b, 1), article.weight_quantised_intensity(m, k, b, 0.5)
            out.append(1.9 < int8 / bf16 <= 2 and 3.5 < int4 / bf16 <= 4
                       and int4 < article.ridge_point(PEAK, BANDWIDTH))
    return all(out)


@claim("ch12-fused-qkv-whole-heads", CHAPTER,
       "The fused QKV product stays above the ridge up to t = 16, and each device holds whole key/value heads up to t = 8.",
       "Llama-3-8B, one sequence of 4,096 tokens per micro-batch")
def _fused() -> bool:
    cols = article.fused_qkv_columns(LLAMA3_8B)
    need = article.ridge_batch(LLAMA3_8B.hidden, 4096, PEAK, BANDWIDTH)
    return (all(cols / t >= need for t in (1, 2, 4, 8, 16)) and cols / 32 < need
            and article.whole_kv_heads_up_to(LLAMA3_8B) == 8)


@claim("ch12-tp16-jump-mostly-halving", CHAPTER,
       "Most of the jump from t = 8 to t = 16 is each device's work halving, which a 16-GPU NVLink domain "
       "would see too (over twice the share at t = 8); crossing into a second node only lowers the bus "
       "bandwidth from 450 to 400 GB/s, under a fifth more on top.",
       "one to four sequences of 4,096 tokens per micro-batch; attention products whole or halved; at the "
       "peak rate and at 40% of it; H100 nodes against a hypothetical 16-GPU NVLink domain at H100 rates")
def _tp16_halving() -> bool:
    import math
    out = []
    for tokens in (4096, 8192, 16384):
        for causal in (False, True):
            for rate in (PEAK, 0.4 * PEAK):
                def ratio(t, topology):
                    return article.tensor_parallel_allreduce(tokens, LLAMA3_8B, t, rate, topology, seq_len=4096,
                                                             causal=causal)["ratio"]
                jump_domain = ratio(16, article.H100_NVLINK_16) / ratio(8, NODES)
                crossing = ratio(16, NODES) / ratio(16, article.H100_NVLINK_16)
                out.append(jump_domain > 2 and 1 < crossing < 1.2
                           and math.log(jump_domain) > 0.8 * math.log(jump_domain * crossing))
    return all(out)
