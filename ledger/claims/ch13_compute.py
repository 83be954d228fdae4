"""Chapter 13's checked sentences: hardware FLOPs in HFU, the recompute taxes, the optimizer's memory."""
from __future__ import annotations

import random

from .. import article, hardware, reconcile, shapes
from ..step import step_items
from ..table import make_settings, step_row
from . import claim
from .changes import DOCUMENTS_COUNTED_AS_ROW, CAUSAL_HALVED, FLASH_RECOMPUTES_AV, WEIGHTS_GATHERED_FP32, attention_tiles, model_shape, network, \
    recipe_micro_batch_tokens

CHAPTER = "13_compute_and_time"
LENGTHS = (2048, 4096, 8192, 16384, 32768)


@claim("ch13-hfu-causal-below-dense", CHAPTER,
       "With full checkpointing, the book's HFU, counting what causal FlashAttention executes, is below PaLM's HFU "
       "(model FLOPs plus the recomputed blocks, what a dense kernel executes).",
       "transformer and hybrid, S = 2,048 to 32,768, recompute = full, causal tiles of 128 rows (the default)",
       fails_when=attention_tiles(4096))
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
       "transformer and hybrid, S = 2,048 to 32,768; flash: 0.5 of the selective tax to 1e-12; causal: 0.25 to "
       "0.27 of it (128-row tiles, the default)",
       fails_when=FLASH_RECOMPUTES_AV)
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
       "Llama-3-8B, Megatron-LM's 18 bytes per parameter and torchtitan FSDP2's 16, unsharded",
       fails_when=model_shape("the model had 16 layers of Llama-3-8B's width (4.5 billion parameters), not 32",
                              n_layers=16))
def _state() -> bool:
    n = shapes.LLAMA3_8B.total_params
    return all(article.optimizer_state_bytes_per_device(n, 1, f, sharded=False) > 80e9
               for f in article.OPTIMIZER_STATE_BYTES)


@claim("ch13-dp-traffic-small-on-nodes", CHAPTER,
       "On 8-GPU nodes Megatron-LM's distributed optimizer's gradient reduce-scatter and weight all-gather "
       "take under a tenth of the step's matrix time; on a flat network, every byte through one 50 GB/s "
       "port per GPU, they take over a quarter of it.",
       "Llama-3-8B, every parameter, 64 devices running what the kernels execute (hardware FLOPs) at 400 TFLOP/s, "
       "steps of 1,048,576 tokens at S = 4,096 "
       "in 1, 2, 4 and 8 micro-batches per device; gradients reduced in fp32 or bf16, weights gathered in bf16",
       fails_when=network("each GPU's NIC moved 12.5 GB/s each way (100 Gb/s), not 50", nic=12.5e9))
def _dp_small() -> bool:
    n = shapes.LLAMA3_8B.total_params
    matmul_s = step_row(variant="transformer", seq_len=4096).hardware_flops / 64 / 400e12  # what the kernels run
    out = []
    for gradient_bytes in (4.0, 2.0):
        for m in (1, 2, 4, 8):
            def share(topology):
                return article.data_parallel_traffic("megatron-distributed-optimizer", n, 64, m, topology,
                                                     gradient_bytes)["seconds"] / matmul_s
            out.append(share(article.H100_NODES) < 0.1 and share(article.FLAT_NETWORK) > 0.25)
    return all(out)


@claim("ch13-distopt-fewer-bytes-than-allreduce", CHAPTER,
       "The distributed optimizer's fp32 reduce-scatter and bf16 all-gather move as many elements as an "
       "all-reduce but a quarter fewer bytes than one fp32 all-reduce per step (DDP under no_sync(): 6 bytes per "
       "parameter against 8); DDP's default, an all-reduce in every micro-batch, moves that many times more.",
       "1e8, Llama-3-8B's 8.0e9 and 4e11 parameters; 2, 64 and 65,536 devices; 1, 4 and 8 micro-batches per step; "
       "the ratio 0.75 to 1e-12, and DDP's default micro_batches times the no_sync bytes",
       fails_when=WEIGHTS_GATHERED_FP32)
def _fewer() -> bool:
    out = []
    for n in (1e8, shapes.LLAMA3_8B.total_params, 4e11):
        for d in (2, 64, 65536):
            for m in (1, 4, 8):
                dist = article.data_parallel_traffic("megatron-distributed-optimizer", n, d, m)
                ddp = article.data_parallel_traffic("ddp-no-sync", n, d, m)
                default = article.data_parallel_traffic("ddp-all-reduce", n, d, m)
                out.append(dist["bytes_per_param"] == 6 and ddp["bytes_per_param"] == 8
                           and abs(dist["bytes"] / ddp["bytes"] - 0.75) < 1e-12
                           and abs(default["bytes"] / ddp["bytes"] - m) < 1e-9)
    return all(out)


@claim("ch13-fsdp2-traffic-grows-with-micro-batches", CHAPTER,
       "torchtitan's FSDP2 with reshard after forward moves more bytes than the distributed optimizer at "
       "every number of micro-batches, in proportion to that number: with the two micro-batches of torchtitan's "
       "llama3_8b recipe (8,192 tokens each) about two and a half times as much, over a tenth of the matrix time "
       "on 8-GPU nodes; with four micro-batches about five times as much, over a quarter.",
       "Llama-3-8B, every parameter, 64 devices in 8-GPU nodes running what the kernels execute at 400 TFLOP/s, "
       "steps of 1,048,576 tokens "
       "at S = 4,096, 1, 2, 4 and 8 micro-batches; fp32 gradients, bf16 weights, final norm and LM head gathered "
       "once; in proportion to 1e-9; at two micro-batches (the recipe's) 2.3 to 2.9 times the distributed "
       "optimizer's bytes and 0.1 to 0.2 of the matrix time, at four 4.5 to 5.5 times and over 0.25",
       fails_when=recipe_micro_batch_tokens(4096))
def _fsdp2() -> bool:
    n, kept = shapes.LLAMA3_8B.total_params, article.fsdp2_gathered_once_params(shapes.LLAMA3_8B)
    matmul_s = step_row(variant="transformer", seq_len=4096).hardware_flops / 64 / 400e12  # what the kernels run
    one = article.data_parallel_traffic("fsdp2-reshard-after-forward", n, 64, 1, gathered_once_params=kept)
    out = []
    for m in (1, 2, 4, 8):
        fsdp = article.data_parallel_traffic("fsdp2-reshard-after-forward", n, 64, m, gathered_once_params=kept)
        dist = article.data_parallel_traffic("megatron-distributed-optimizer", n, 64, m)
        out.append(fsdp["bytes"] > dist["bytes"] and abs(fsdp["bytes"] / one["bytes"] - m) < 1e-9)
        if m == article.micro_batches_per_step(1048576 // 64, article.TORCHTITAN_LLAMA3_8B_MICROBATCH_TOKENS):
            out.append(m == 2 and 2.3 < fsdp["bytes"] / dist["bytes"] < 2.9 and 0.1 < fsdp["seconds"] / matmul_s < 0.2)
        if m == 4:
            out.append(4.5 < fsdp["bytes"] / dist["bytes"] < 5.5 and fsdp["seconds"] / matmul_s > 0.25)
    return all(out)


@claim("ch13-gradients-fp32-dearer", CHAPTER,
       "Reducing gradients in fp32 (Megatron-LM's and torchtitan's default) moves half as much again as in bf16.",
       "1e8, Llama-3-8B's 8.0e9 and 4e11 parameters; 2, 64 and 65,536 devices; bf16 weights all-gathered; "
       "1.5 to 1e-12",
       fails_when=WEIGHTS_GATHERED_FP32)
def _fp32() -> bool:
    return all(abs(article.data_parallel_bytes(n, d) / article.data_parallel_bytes(n, d, gradient_bytes=2) - 1.5) < 1e-12
               for n in (1e8, shapes.LLAMA3_8B.total_params, 4e11) for d in (2, 64, 65536))


@claim("ch13-two-selectives-differ", CHAPTER,
       "torchtitan's per-operator selective checkpointing (every second matrix product of a block) and "
       "selective recomputation of the attention products are different schemes: at S = 4,096 the first "
       "costs more than twice the second, and its tax falls with S while the second's rises.",
       "transformer (Llama-3-8B), S = 2,048 to 32,768 (powers of two); torchtitan's fused wqkv order (wo and w3 "
       "recomputed)",
       fails_when=model_shape("the MLP were 11,008 wide (Llama-2-7B's), not 14,336", intermediate=11008))
def _two_selectives() -> bool:
    op, core = [], []
    for s in LENGTHS:
        items = step_items(make_settings(variant="transformer", seq_len=s))
        op.append(article.recompute_tax(items, ops=article.every_second_matmul()))
        core.append(article.recompute_tax(items, ops=("attention:",)))
    at_4096 = LENGTHS.index(4096)
    return (op[at_4096] - 1 > 2 * (core[at_4096] - 1)
            and all(a > b for a, b in zip(op, op[1:])) and all(a < b for a, b in zip(core, core[1:])))


@claim("ch13-causal-halving-grows-with-s", CHAPTER,
       "Halving the attention products for the causal mask (Megatron-LM's 2025 count) lowers "
       "Llama-3-8B's model FLOPs by an amount that grows with S: a few percent at 2,048 tokens, "
       "over a quarter at 32,768.",
       "Llama-3-8B, S = 2,048 to 131,072 (powers of two), steps of 1,048,576 tokens: rising at every step, 2% to "
       "5% at 2,048, over 25% at 32,768",
       fails_when=CAUSAL_HALVED)
def _halving() -> bool:
    lengths = (2048, 4096, 8192, 16384, 32768, 65536, 131072)
    drop = [1 - reconcile.switched_step_flops("megatron-2025", s) / step_row(variant="transformer", seq_len=s).step_flops
            for s in lengths]
    return (all(a < b for a, b in zip(drop, drop[1:])) and 0.02 < drop[0] < 0.05
            and drop[lengths.index(32768)] > 0.25)


@claim("ch13-packed-counts-order", CHAPTER,
       "On rows of packed documents torchtitan's count is above what the kernel executes, and the kernel's above "
       "Megatron-LM main's, for every mix; torchtitan's count does not move with the documents while the step "
       "shortens, so its MFU rises from one document to sixteen; in the time model the HFU is the same for every mix.",
       "Llama-3-8B at 8,192 tokens per row, steps of 1,048,576 tokens: the chapter's four mixes and 40 random mixes "
       "of 1 to 24 documents; MFU rising along one, two, eight and sixteen documents; HFU equal to 1e-12",
       fails_when=DOCUMENTS_COUNTED_AS_ROW)
def _packed_order() -> bool:
    rng = random.Random(13)
    mixes = list(reconcile.document_mixes(8192).values())
    for _ in range(40):
        cuts = sorted(rng.sample(range(1, 8192), rng.randint(0, 23)))
        mixes.append(tuple(b - a for a, b in zip([0] + cuts, cuts + [8192])))
    counts = [reconcile.packed_counts(m, 8192) for m in mixes]
    order = all(c["torchtitan_flops"] > c["kernel_flops"] > c["megatron_flops"] for c in counts)
    same_tt = len({c["torchtitan_flops"] for c in counts}) == 1
    named = [c["torchtitan_utilization"] for c in counts[:4]]
    hfu = [c["kernel_utilization"] for c in counts]
    return (order and same_tt and all(a < b for a, b in zip(named, named[1:]))
            and max(hfu) - min(hfu) < 1e-12 * max(hfu))
