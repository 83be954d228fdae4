"""MFU / HFU, implied utilisation, the tensor-parallel ridge, FlashAttention's backward, data-parallel bytes,
and the refitted Chinchilla law (ledger/article.py)."""
import math

import pytest

import ledger
from ledger import LLAMA3_8B, LedgerError, ModelShape, article

PEAK, BW = 1000e12, 3.35e12


def test_mfu_and_hfu_share_one_definition():
    """Utilisation is FLOPs per second over the dense peak; HFU exceeds MFU by exactly the recompute ratio."""
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=4096))
    model = sum(i.flops for i in items)
    hardware = model + article.recompute_flops(items)
    mfu = article.flops_utilization(model, 2.0, 64, 989.4e12)
    hfu = article.flops_utilization(hardware, 2.0, 64, 989.4e12)
    assert math.isclose(mfu, model / 2.0 / 64 / 989.4e12)
    assert math.isclose(hfu / mfu, article.recompute_tax(items))
    with pytest.raises(LedgerError, match="step_seconds = 0"):
        article.flops_utilization(model, 0, 64, 989.4e12)


def test_implied_utilization():
    assert math.isclose(article.implied_utilization(3600 * 1e15, 10, 1e14), 1.0)
    with pytest.raises(LedgerError, match="device_hours = -1"):
        article.implied_utilization(1e20, -1, 1e15)


def test_tensor_parallel_ridge_degree_is_the_first_shard_below_the_ridge():
    t = article.tensor_parallel_ridge_degree(4096, 4096, 4096, PEAK, BW)
    ridge = article.ridge_point(PEAK, BW)
    assert article.arithmetic_intensity(4096, 4096, 4096 / t, 2) < ridge
    assert article.arithmetic_intensity(4096, 4096, 4096 / (t // 2), 2) >= ridge
    assert t == 16
    with pytest.raises(LedgerError, match="max_degree = 4"):
        article.tensor_parallel_ridge_degree(4096, 4096, 4096, PEAK, BW, max_degree=4)


def test_flash_attention_backward_is_two_and_a_half_forwards():
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=4096))
    forward = sum(i.flops for i in items if i.op in ("attention: Q K^T", "attention: A V"))
    assert article.flash_attention_backward_flops(items) == 2.5 * forward
    assert article.flash_attention_backward_flops(ledger.step_items(ledger.Settings(variant="hyena2"))) == 0


def test_data_parallel_bytes():
    assert article.data_parallel_bytes(1000, 1) == 0
    # fp32 gradients reduce-scattered (4 bytes), bf16 weights all-gathered (2 bytes): 3/4 of each per device
    assert article.data_parallel_bytes(1000, 4) == 0.75 * 1000 * 4 + 0.75 * 1000 * 2
    assert article.data_parallel_bytes(1000, 4, gradient_bytes=2) == 2 * 0.75 * 1000 * 2
    with pytest.raises(LedgerError, match="gradient_bytes = 0"):
        article.data_parallel_bytes(1000, 4, gradient_bytes=0)


def test_llama_gradient_traffic_in_fp32_and_bf16():
    """Issue 17, finding 8: with every parameter, bf16 traffic is 31.6 GB per device on 64 devices,
    fp32 gradients make it 47.4 GB: 0.95 s if every byte crosses a 50 GB/s port (the flat worst case),
    about 0.12 s on 8-GPU nodes whose eight NICs carry the rings together (8 x 50 = 400 GB/s)."""
    n = LLAMA3_8B.total_params
    assert f"{article.data_parallel_bytes(n, 64, gradient_bytes=2) / 1e9:.1f}" == "31.6"
    fp32 = article.data_parallel_bytes(n, 64)
    assert f"{fp32 / 1e9:.1f}" == "47.4"
    assert article.data_parallel_seconds(n, 64, article.FLAT_NETWORK) == pytest.approx(fp32 / 50e9, rel=1e-12)
    assert article.data_parallel_seconds(n, 64) == pytest.approx(fp32 / 400e9, rel=1e-12)
    assert f"{article.data_parallel_seconds(n, 64):.2f}" == "0.12"
    # a latency term adds once per collective: two of them
    assert article.data_parallel_seconds(n, 64, overhead_s=1e-3) == pytest.approx(fp32 / 400e9 + 2e-3, rel=1e-12)
    assert article.data_parallel_seconds(n, 1) == 0
    with pytest.raises(LedgerError, match="devices = 2.5"):
        article.data_parallel_seconds(n, 2.5)


def test_data_parallel_traffic_per_framework():
    """Bytes per parameter per step: an fp32 all-reduce moves 8, Megatron's distributed optimizer 4 + 2
    (fp32 reduce-scatter, bf16 all-gather) whatever the accumulation, FSDP2 with reshard after forward
    2 + 2 + 4 in every micro-batch; the ring moves (d - 1)/d of each."""
    n, d = 1000, 4
    ddp = article.data_parallel_traffic("ddp-no-sync", n, d, micro_batches=4)
    # DDP's default synchronises in every backward pass: one all-reduce per micro-batch
    every = article.data_parallel_traffic("ddp-all-reduce", n, d, micro_batches=4)
    assert every["bytes_per_param"] == 4 * 8 and every["bytes"] == 4 * 0.75 * n * 8
    dist = article.data_parallel_traffic("megatron-distributed-optimizer", n, d, micro_batches=4)
    fsdp = article.data_parallel_traffic("fsdp2-reshard-after-forward", n, d, micro_batches=4)
    assert (ddp["bytes_per_param"], dist["bytes_per_param"], fsdp["bytes_per_param"]) == (8, 6, 32)
    assert ddp["bytes"] == 0.75 * n * 8 and dist["bytes"] == 0.75 * n * 6 == article.data_parallel_bytes(n, d)
    assert fsdp["bytes"] == 4 * 0.75 * n * 8
    assert article.data_parallel_traffic("fsdp2-reshard-after-forward", n, d)["bytes"] == fsdp["bytes"] / 4
    assert article.data_parallel_traffic("megatron-distributed-optimizer", n, d)["bytes"] == dist["bytes"]
    # parameters kept gathered from forward to backward are gathered once per micro-batch, not twice
    once = article.data_parallel_traffic("fsdp2-reshard-after-forward", n, d, micro_batches=2, gathered_once_params=100)
    assert once["bytes_per_param"] == 2 * (8 - 2 * 100 / n)
    # time: bytes over the bus bandwidth (one NVLink node here), a latency term once per collective
    nvlink = article.H100_NODES.nvlink_bandwidth
    assert fsdp["seconds"] == pytest.approx(fsdp["bytes"] / nvlink, rel=1e-12)
    with_latency = article.data_parallel_traffic("fsdp2-reshard-after-forward", n, d, micro_batches=4, overhead_s=1e-3)
    assert with_latency["seconds"] == pytest.approx(fsdp["seconds"] + 12e-3, rel=1e-12)
    assert article.data_parallel_traffic("fsdp2-reshard-after-forward", n, 1, micro_batches=4)["seconds"] == 0
    with pytest.raises(LedgerError, match="scheme = 'zero-3'"):
        article.data_parallel_traffic("zero-3", n, d)
    with pytest.raises(LedgerError, match="micro_batches = 0"):
        article.data_parallel_traffic("fsdp2-reshard-after-forward", n, d, micro_batches=0)
    with pytest.raises(LedgerError, match="gathered_once_params = 2000"):
        article.data_parallel_traffic("fsdp2-reshard-after-forward", n, d, gathered_once_params=2000)


def test_llama_traffic_distributed_optimizer_against_fsdp2():
    """Llama-3-8B on 64 H100s in 8-GPU nodes, 16,384 tokens per GPU per step in four 4,096-token
    micro-batches: the distributed optimizer's 47.4 GB take 0.119 s; FSDP2 moves about five times as much."""
    n = LLAMA3_8B.total_params
    kept = article.fsdp2_gathered_once_params(LLAMA3_8B)
    assert kept == 128256 * 4096 + 4096
    dist = article.data_parallel_traffic("megatron-distributed-optimizer", n, 64, micro_batches=4)
    fsdp = article.data_parallel_traffic("fsdp2-reshard-after-forward", n, 64, micro_batches=4, gathered_once_params=kept)
    assert f"{dist['bytes'] / 1e9:.1f}" == "47.4" and f"{dist['seconds']:.3f}" == "0.119"
    assert dist["seconds"] == article.data_parallel_seconds(n, 64)
    assert 30 < fsdp["bytes_per_param"] < 32 and fsdp["bytes"] / dist["bytes"] > 5
    assert fsdp["seconds"] == pytest.approx(fsdp["bytes"] / 400e9, rel=1e-12)


def test_every_parameter_in_memory():
    """The optimizer's memory counts every parameter (norms and the input table included), not N,
    at the frameworks' own bytes per parameter: Megatron-LM 18 (6 + 12/d distributed), FSDP2 16."""
    assert LLAMA3_8B.norm_params == (2 * 32 + 1) * 4096
    assert LLAMA3_8B.total_params == 8_030_261_248  # Llama-3-8B's published count
    assert LLAMA3_8B.total_params - LLAMA3_8B.N == LLAMA3_8B.embedding_params + LLAMA3_8B.norm_params
    n = LLAMA3_8B.total_params
    assert article.OPTIMIZER_BYTES_PER_PARAM == 2 + 4 + 4 + 8  # bf16 weight, fp32 grad, master, two moments
    assert f"{article.optimizer_bytes(n) / 1e9:.1f}" == "144.5"
    assert f"{article.optimizer_state_bytes_per_device(n, 1, sharded=False) / 1e9:.1f}" == "144.5"
    assert f"{article.optimizer_state_bytes_per_device(n, 1, 'torchtitan-fsdp2') / 1e9:.1f}" == "128.5"
    assert article.optimizer_state_bytes_per_device(n, 64) == pytest.approx(n * (6 + 12 / 64), rel=1e-12)
    assert article.optimizer_state_bytes_per_device(n, 64, "torchtitan-fsdp2") == pytest.approx(n * 16 / 64, rel=1e-12)
    with pytest.raises(LedgerError, match="framework = 'deepspeed'"):
        article.optimizer_state_bytes_per_device(n, 64, "deepspeed")
    tied = ledger.ModelShape(tied_embeddings=True)
    assert tied.total_params == LLAMA3_8B.total_params - LLAMA3_8B.embedding_params


def test_bus_bandwidth_two_tiers():
    """NVLink inside a node; across nodes the node's NICs together, capped at NVLink; flat: one port."""
    assert article.bus_bandwidth(8, article.H100_NODES) == 450e9
    assert article.bus_bandwidth(16, article.H100_NODES) == 8 * 50e9
    assert article.bus_bandwidth(64, article.H100_NODES) == 8 * 50e9
    assert article.bus_bandwidth(64, article.FLAT_NETWORK) == 50e9
    assert article.bus_bandwidth(12, article.H100_NODES) == 4 * 50e9  # the half-filled second node's four NICs
    fat_nics = article.Topology(gpus_per_node=8, nvlink_bandwidth=450e9, nic_bandwidth=100e9)
    assert article.bus_bandwidth(16, fat_nics) == 450e9  # NVLink caps it
    four = article.Topology(gpus_per_node=4, nvlink_bandwidth=300e9, nic_bandwidth=25e9)
    assert article.bus_bandwidth(16, four) == 4 * 25e9
    with pytest.raises(LedgerError, match="gpus_per_node = 0"):
        article.Topology(gpus_per_node=0, nvlink_bandwidth=450e9, nic_bandwidth=50e9)
    with pytest.raises(LedgerError, match="ranks = 0"):
        article.bus_bandwidth(0, article.H100_NODES)


def test_collective_seconds_uses_the_nccl_bus_factors():
    size = 1e9
    assert article.collective_seconds("all_reduce", size, 16, article.H100_NODES) == pytest.approx(size * 2 * 15 / 16 / 400e9)
    assert article.collective_seconds("reduce_scatter", size, 4, article.H100_NODES) == pytest.approx(size * 3 / 4 / 450e9)
    assert article.collective_seconds("all_gather", size, 4, article.H100_NODES, overhead_s=1e-5) == \
        pytest.approx(1e-5 + size * 3 / 4 / 450e9)
    with pytest.raises(LedgerError, match="kind = 'broadcast'"):
        article.collective_seconds("broadcast", size, 4, article.H100_NODES)
    with pytest.raises(LedgerError, match="overhead_s = -1"):
        article.collective_seconds("all_gather", size, 4, article.H100_NODES, overhead_s=-1)


def test_tensor_parallel_allreduce_against_a_hand_count():
    """Four ring all-reduces of tokens x H bf16 values per layer against the layer's matrix work as the
    kernels execute it (hardware FLOPs), weights (6 x tokens x weights) and the attention core, over t devices."""
    tokens, t, rate = 4096, 8, 400e12
    layer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336  # q and o, k and v, the three MLP matrices
    product = 2 * tokens * 4096 * 4096  # one product of QK^T's size, one sequence of 4,096
    # dense: QK^T and AV forward, four products backward: the model count, 12 x tokens x S x H
    dense = article.tensor_parallel_allreduce(tokens, LLAMA3_8B, t, rate, attention_kernel="dense")
    assert dense["comm_s"] == pytest.approx(4 * 2 * 7 / 8 * tokens * 4096 * 2 / 450e9, rel=1e-12)
    assert dense["attention_s"] == pytest.approx(6 * product / t / rate, rel=1e-12)
    assert dense["matmul_s"] == pytest.approx((6 * tokens * layer + 6 * product) / t / rate, rel=1e-12)
    assert 0.15 < 6 * product / (6 * tokens * layer) < 0.16  # the model count: about 15% more at S = 4,096
    # flash: QK^T once more in the backward, seven products
    flash = article.tensor_parallel_allreduce(tokens, LLAMA3_8B, t, rate, attention_kernel="flash")
    assert flash["attention_s"] == pytest.approx(7 * product / t / rate, rel=1e-12)
    # flash-causal (the default): seven products over the tiles on and under the diagonal, 32 tiles of 128
    out = article.tensor_parallel_allreduce(tokens, LLAMA3_8B, t, rate)
    fraction = sum(128 * 128 * (i + 1) for i in range(32)) / 4096 ** 2  # 1/2 + 128/(2 x 4,096)
    assert fraction == pytest.approx(0.5 + 128 / 8192, rel=1e-12)
    assert out["attention_s"] == pytest.approx(7 * fraction * product / t / rate, rel=1e-12)
    assert out["matmul_s"] == pytest.approx((6 * tokens * layer + 7 * fraction * product) / t / rate, rel=1e-12)
    assert out["ratio"] > dense["ratio"] > flash["ratio"]  # the causal kernel executes the least
    assert article.tensor_parallel_allreduce(tokens, LLAMA3_8B, 1, rate)["ratio"] == 0
    # across two 8-GPU nodes: the node's eight NICs, 400 GB/s, not one 50 GB/s port
    two_nodes = article.tensor_parallel_allreduce(tokens, LLAMA3_8B, 16, rate)
    assert two_nodes["comm_s"] == pytest.approx(4 * 2 * 15 / 16 * tokens * 4096 * 2 / 400e9, rel=1e-12)
    flat = article.tensor_parallel_allreduce(tokens, LLAMA3_8B, 16, rate, article.FLAT_NETWORK)
    assert flat["comm_s"] == pytest.approx(8 * two_nodes["comm_s"], rel=1e-12)
    # the ratio does not depend on the number of sequences, and grows with t
    assert article.tensor_parallel_allreduce(2 * tokens, LLAMA3_8B, t, rate, seq_len=tokens)["ratio"] == \
        pytest.approx(out["ratio"])
    assert two_nodes["ratio"] > out["ratio"]
    with pytest.raises(LedgerError, match="degree = 2.5"):
        article.tensor_parallel_allreduce(tokens, LLAMA3_8B, 2.5, rate)
    with pytest.raises(LedgerError, match="attention_kernel = 'causal'"):
        article.tensor_parallel_allreduce(tokens, LLAMA3_8B, 2, rate, attention_kernel="causal")
    with pytest.raises(LedgerError, match="seq_len = 3000"):
        article.tensor_parallel_allreduce(tokens, LLAMA3_8B, 2, rate, seq_len=3000)
    with pytest.raises(LedgerError, match="tokens = 4096.5"):
        article.tensor_parallel_allreduce(4096.5, LLAMA3_8B, 2, rate)


def test_fused_qkv_and_kv_heads():
    assert article.fused_qkv_columns(LLAMA3_8B) == 4096 + 2 * 1024 == 6144
    assert article.whole_kv_heads_up_to(LLAMA3_8B) == 8
    # the fused projection falls below the ridge only at t = 32, past the 8 whole key/value heads
    assert article.tensor_parallel_ridge_degree(4096, 4096, 6144, PEAK, BW) == 32


def test_megatron_accepts_tp_degrees_past_the_kv_heads():
    """Megatron-LM at d98e8a64: query heads a multiple of t, key/value groups a multiple or a divisor of t;
    before f7dfb997 (December 2025) the groups had to be a multiple of t."""
    accepted = [t for t in range(1, 65) if article.megatron_accepts_tp_degree(LLAMA3_8B, t)]
    assert accepted == [1, 2, 4, 8, 16, 32]  # 32 query heads, 8 groups
    before = [t for t in range(1, 65) if article.megatron_accepts_tp_degree(LLAMA3_8B, t, kv_sub_sharding=False)]
    assert before == [1, 2, 4, 8]
    twelve = ModelShape(hidden=3072, n_heads=24, n_kv_heads=6)  # 6 groups: 12 is a multiple, 8 neither
    assert article.megatron_accepts_tp_degree(twelve, 12) and not article.megatron_accepts_tp_degree(twelve, 8)
    assert article.megatron_accepts_tp_degree(twelve, 3) and not article.megatron_accepts_tp_degree(twelve, 9)
    with pytest.raises(LedgerError, match="degree = 0"):
        article.megatron_accepts_tp_degree(LLAMA3_8B, 0)


def test_weight_quantisation_raises_decode_intensity():
    """The MLP up-projection (14,336 outputs, 4,096 inputs) for one token: its weights, M x K, in fewer bytes."""
    bf16 = article.weight_quantised_intensity(14336, 4096, 1, 2)
    assert bf16 == pytest.approx(article.arithmetic_intensity(14336, 4096, 1, 2), rel=1e-12)
    int4 = article.weight_quantised_intensity(14336, 4096, 1, 0.5)
    assert 3.9 < int4 / bf16 < 4.0  # the activations stay in bf16
    # the weights are the m x k operand: 14,336 x 4,096 in half a byte, one token's 4,096 + 14,336 in two
    assert int4 == pytest.approx(2 * 14336 * 4096 / (14336 * 4096 * 0.5 + (4096 + 14336) * 2), rel=1e-12)
    with pytest.raises(LedgerError, match="weight_bytes = 0"):
        article.weight_quantised_intensity(14336, 4096, 1, 0)


def test_llama3_405b_layouts_multiply_out():
    for layout in article.LLAMA3_405B_LAYOUTS:
        assert article.replica_gpus(layout["tp"], layout["cp"], layout["pp"]) * layout["dp"] == layout["gpus"]
        assert article.layout_sequences(layout) * layout["seq_len"] == 2 ** 24  # the paper's "16M" tokens
    assert article.layout_sequences(article.LLAMA3_405B_LAYOUTS[1]) == 2048
    with pytest.raises(LedgerError, match="pp = 0"):
        article.replica_gpus(8, 1, 0)


def test_chinchilla_refit_is_near_twenty_tokens_per_parameter():
    n = LLAMA3_8B.N
    refit = article.compute_optimal_tokens(n, "approach3_refit") / n
    published = article.compute_optimal_tokens(n, "approach3") / n
    assert 19 < refit < 22 < published
    with pytest.raises(LedgerError, match="fit = 'approach4'"):
        article.compute_optimal_tokens(n, "approach4")


def test_sixteen_gpus_in_one_nvlink_domain_separate_degree_from_crossing():
    """t = 16 in a (hypothetical) 16-GPU NVLink domain: NVLink's 450 GB/s, so the step from t = 8 is only
    the halved work per device and the ring factor 15/16 against 7/8; two nodes add 450/400."""
    tokens, rate = 4096, 1000e12
    assert article.bus_bandwidth(16, article.H100_NVLINK_16) == 450e9
    eight = article.tensor_parallel_allreduce(tokens, LLAMA3_8B, 8, rate)
    domain = article.tensor_parallel_allreduce(tokens, LLAMA3_8B, 16, rate, article.H100_NVLINK_16)
    nodes = article.tensor_parallel_allreduce(tokens, LLAMA3_8B, 16, rate, article.H100_NODES)
    assert domain["comm_s"] == pytest.approx(eight["comm_s"] * (15 / 16) / (7 / 8), rel=1e-12)
    assert domain["matmul_s"] == pytest.approx(eight["matmul_s"] / 2, rel=1e-12)
    assert domain["ratio"] / eight["ratio"] == pytest.approx(2 * (15 / 16) / (7 / 8), rel=1e-12)
    assert nodes["ratio"] / domain["ratio"] == pytest.approx(450 / 400, rel=1e-12)


def test_micro_batches_per_step_and_torchtitans_recipe():
    """16,384 tokens per device: 2 micro-batches of torchtitan's 8,192-token rows, 4 of 4,096-token sequences."""
    assert article.TORCHTITAN_LLAMA3_8B_MICROBATCH_TOKENS == 8 * 1024
    assert article.micro_batches_per_step(16384, article.TORCHTITAN_LLAMA3_8B_MICROBATCH_TOKENS) == 2
    assert article.micro_batches_per_step(16384, 4096) == 4
    with pytest.raises(LedgerError, match="tokens_per_micro_batch = 3000: must divide tokens_per_device = 16384"):
        article.micro_batches_per_step(16384, 3000)
    with pytest.raises(LedgerError, match="tokens_per_device = 0"):
        article.micro_batches_per_step(0, 4096)
    with pytest.raises(LedgerError, match="tokens_per_micro_batch = 4096.0"):
        article.micro_batches_per_step(16384, 4096.0)
