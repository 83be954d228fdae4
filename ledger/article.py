"""The closed-form counts behind the 6ND rule, and what turns FLOPs into time.

Small, separately testable formulas the chapters "From FLOPs to time" explain: multiply-accumulates
per matrix-vector product, the 24H^2 / 12LH^2 approximations of a transformer layer, the attention
ratio S/(6H), arithmetic intensity and the roofline, a run's total compute and elapsed time, the
Chinchilla compute-optimal token count, the recompute tax of activation checkpointing, and the
optimizer's memory traffic set against the matmuls' time. Every function refuses bad input with a
LedgerError naming the value.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import LedgerError, check_positive_number
from .hardware import attention_core_items
from .layers import LineItem
from .settings import Settings
from .shapes import ModelShape
from .step import recomputed


def _fraction(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise LedgerError(f"{name} = {value!r}: must be a number from 0 to 1")
    return float(value)


# --- counting multiply-accumulates --------------------------------------------------------------

def matvec_flops(m: float, k: float, flops_per_mac: float = 2.0) -> float:
    """FLOPs of an (m x k) matrix times a k-vector: m*k multiply-accumulates, 2 FLOPs each (2MK)."""
    return check_positive_number("flops_per_mac", flops_per_mac) * check_positive_number("m", m) * check_positive_number("k", k)


def matmul_flops(m: float, k: float, b: float, flops_per_mac: float = 2.0) -> float:
    """FLOPs of an (m x k) matrix times b vectors (a k x b matrix): 2MKB."""
    return matvec_flops(m, k, flops_per_mac) * check_positive_number("b", b)


def linear_layer_flops(m: float, k: float, tokens: float = 1.0) -> dict[str, float]:
    """Forward y = Wx, input gradient dX = W^T g and weight gradient dW = g x^T of an m x k layer.

    Each is 2MK per token, so backward (dX + dW) is exactly twice forward.
    """
    one = matmul_flops(m, k, tokens)
    return {"forward": one, "dX": one, "dW": one}


# --- the 24H^2 and 12LH^2 approximations ---------------------------------------------------------

def layer_forward_flops_approx(hidden: float, mlp_ratio: float = 4.0) -> float:
    """Forward FLOPs per token of one layer, textbook form: four H x H projections (8H^2) plus an MLP
    of width mlp_ratio*H and two matrices (2 * 2 * mlp_ratio * H^2 = 16H^2 at ratio 4): 24H^2."""
    h = check_positive_number("hidden", hidden)
    return 8 * h * h + 4 * check_positive_number("mlp_ratio", mlp_ratio) * h * h


def params_approx(n_layers: float, hidden: float, mlp_ratio: float = 4.0) -> float:
    """Non-embedding parameters, textbook form: 4H^2 + 2*mlp_ratio*H^2 per layer, 12LH^2 at ratio 4."""
    return check_positive_number("n_layers", n_layers) * layer_forward_flops_approx(hidden, mlp_ratio) / 2


def layer_params_exact(shape: ModelShape) -> int:
    """Matrix parameters of one Llama-style layer: q, k, v, o (grouped k and v) and three SwiGLU matrices."""
    return shape.attention_matrix_params + shape.mlp_matrix_params


def layer_forward_flops_exact(shape: ModelShape) -> int:
    """Forward FLOPs per token of one layer's matrices (attention scores left out): 2 per parameter."""
    return 2 * layer_params_exact(shape)


def forward_flops_per_token(shape: ModelShape, seq_len: int = 0, causal: bool = False) -> float:
    """Forward FLOPs per token of a whole Llama-style model: 2N plus attention 4*L*S*H (halved if causal)."""
    attention = 4 * shape.n_layers * seq_len * shape.hidden * (0.5 if causal else 1.0)
    return 2 * shape.N + attention


# --- attention against the parameters ------------------------------------------------------------

def attention_ratio(seq_len: float, hidden: float) -> float:
    """Attention FLOPs over parameter FLOPs per token with N ~ 12LH^2: 12LSH / (6 * 12LH^2) = S/(6H)."""
    return check_positive_number("seq_len", seq_len) / (6 * check_positive_number("hidden", hidden))


def attention_ratio_exact(shape: ModelShape, seq_len: float) -> float:
    """The same ratio with the model's exact N: 12*L*S*H / (6N)."""
    s = check_positive_number("seq_len", seq_len)
    return 12 * shape.n_layers * s * shape.hidden / (6 * shape.N)


def crossover_seq_len(shape: ModelShape) -> float:
    """The sequence length at which attention FLOPs equal the 6N term: S = 6N / (12 L H)."""
    return 6 * shape.N / (12 * shape.n_layers * shape.hidden)


# --- arithmetic intensity and the roofline -------------------------------------------------------

def arithmetic_intensity(m: float, k: float, b: float, bytes_per_element: float = 1.0) -> float:
    """FLOPs per element moved by an (m x k) @ (k x b) product: 2MKB / (MK + KB + MB). In chapter 11's
    notation the (m x k) operand is a weight matrix (m outputs, k inputs) and the (k x b) one a batch of
    b token vectors; the intensity is symmetric in m and b.

    With bytes_per_element (2 for bf16) the result is FLOPs per byte; the default 1 gives FLOPs per element.
    """
    m, k, b = check_positive_number("m", m), check_positive_number("k", k), check_positive_number("b", b)
    return 2 * m * k * b / ((m * k + k * b + m * b) * check_positive_number("bytes_per_element", bytes_per_element))


def fft_intensity(n: int) -> float:
    """FLOPs per element moved by one real FFT of length n: 2.5 n log2 n over n reals in and n/2+1
    complex values (2 elements each) out. About 1.25 log2 n: 16 at n = 8,192, 10 at n = 256."""
    n = int(check_positive_number("n", n))
    return 2.5 * n * math.log2(n) / (n + 2 * (n // 2 + 1))


def weight_quantised_intensity(m: float, k: float, b: float, weight_bytes: float,
                               activation_bytes: float = 2.0) -> float:
    """FLOPs per byte of an (m x k) weight matrix (m outputs, k inputs) applied to a batch of b token
    vectors, its weights stored in `weight_bytes` bytes each (int8: 1, int4: 0.5) while the k x b
    inputs and the m x b result stay in `activation_bytes` (bf16: 2):
    2MKB / (MK * weight_bytes + (KB + MB) * activation_bytes). Weight-only quantisation raises a
    decode product's intensity by about activation_bytes / weight_bytes."""
    m, k, b = check_positive_number("m", m), check_positive_number("k", k), check_positive_number("b", b)
    wb = check_positive_number("weight_bytes", weight_bytes)
    ab = check_positive_number("activation_bytes", activation_bytes)
    return 2 * m * k * b / (m * k * wb + (k * b + m * b) * ab)


def small_batch_intensity(m: float, b: float) -> float:
    """The limit of the intensity when K is much larger than M and B: 2MB / (M + B)."""
    m, b = check_positive_number("m", m), check_positive_number("b", b)
    return 2 * m * b / (m + b)


def ridge_point(peak_flops: float, bandwidth: float) -> float:
    """Intensity (FLOPs per byte) where the roofline turns: peak FLOP/s over bytes per second."""
    return check_positive_number("peak_flops", peak_flops) / check_positive_number("bandwidth", bandwidth)


def roofline(intensity: float, peak_flops: float, bandwidth: float) -> float:
    """Attainable FLOP/s at an intensity (FLOPs per byte): min(peak, intensity * bandwidth)."""
    return min(check_positive_number("peak_flops", peak_flops), check_positive_number("intensity", intensity) * check_positive_number("bandwidth", bandwidth))


def attainable_matmul_flops(m: float, k: float, b: float, peak_flops: float, bandwidth: float,
                            bytes_per_element: float = 2.0) -> float:
    """Roofline FLOP/s of an (m x k) @ (k x b) product (m outputs, k inputs, b tokens) whose operands
    move once (bf16 by default)."""
    return roofline(arithmetic_intensity(m, k, b, bytes_per_element), peak_flops, bandwidth)


def ridge_batch(m: float, k: float, peak_flops: float, bandwidth: float, bytes_per_element: float = 2.0) -> float:
    """Smallest batch b of token vectors at which an (m x k) weight matrix applied to them, an
    (m x k) @ (k x b) product, reaches the ridge point (inf if it never does).

    Solves 2mkb / ((mk + kb + mb) * bytes) = peak / bandwidth for b; the result is symmetric in m and k,
    and, the intensity being symmetric in m and b, ridge_batch(b, k) is also the fewest outputs m a
    product of b tokens needs.
    """
    m, k = check_positive_number("m", m), check_positive_number("k", k)
    rb = ridge_point(peak_flops, bandwidth) * check_positive_number("bytes_per_element", bytes_per_element)
    denominator = 2 * m * k - rb * (m + k)
    return rb * m * k / denominator if denominator > 0 else math.inf


def intensity_limit(m: float, k: float, bytes_per_element: float = 2.0) -> float:
    """The arithmetic intensity (FLOPs per byte) an (m x k) weight product tends to as its batch grows, never
    reached: 2mk / ((m + k) * bytes), H/2 for an H x H weight in bf16. A ridge above it is one no batch reaches
    (ridge_batch is then inf)."""
    m, k = check_positive_number("m", m), check_positive_number("k", k)
    return 2 * m * k / ((m + k) * check_positive_number("bytes_per_element", bytes_per_element))


# --- a whole run ---------------------------------------------------------------------------------

def run_flops(n_params: float, tokens: float, n_layers: float = 0, seq_len: float = 0, hidden: float = 0) -> float:
    """Training compute of a run over `tokens` tokens: 6ND plus the attention term 12*L*S*H*D."""
    d = check_positive_number("tokens", tokens)
    return 6 * check_positive_number("n_params", n_params) * d + 12 * n_layers * seq_len * hidden * d


def run_seconds(flops: float, devices: float, peak_flops: float, utilization: float = 0.4) -> float:
    """Elapsed seconds: flops / (devices * peak * utilization); utilization is the achieved fraction of peak."""
    u = check_positive_number("utilization", utilization)
    if u > 1:
        raise LedgerError(f"utilization = {utilization!r}: must be a fraction of peak, at most 1")
    return check_positive_number("flops", flops) / (check_positive_number("devices", devices) * check_positive_number("peak_flops", peak_flops) * u)


# Chinchilla's parametric loss fit L(N, D) = E + A/N^alpha + B/D^beta: as published (Hoffmann et al. 2022,
# Approach 3) and as refitted by Besiroglu et al. 2024, who found the published fit inconsistent with the
# data it was fitted to (an optimizer stopped early, rounded constants) and with Approaches 1 and 2.
CHINCHILLA_APPROACH3 = {"E": 1.69, "A": 406.4, "B": 410.7, "alpha": 0.34, "beta": 0.28}
CHINCHILLA_APPROACH3_REFIT = {"E": 1.8172, "A": 482.01, "B": 2085.43, "alpha": 0.3478, "beta": 0.3658}
CHINCHILLA_FITS = ("tokens_per_param", "approach3", "approach3_refit")


def compute_optimal_tokens(n_params: float, fit: str = "tokens_per_param", tokens_per_param: float = 20.0) -> float:
    """Compute-optimal training tokens for a model of n_params parameters, from a Chinchilla fit.

    fit = "tokens_per_param": D = tokens_per_param * N (20 is the rule of thumb read from Chinchilla's
    Approaches 1 and 2, whose exponents for N and D are both about 0.5, so the ratio is constant).
    fit = "approach3" (as published) or "approach3_refit" (Besiroglu et al. 2024): minimise the parametric
    loss at fixed C = 6ND; N_opt = G (C/6)^(beta/(alpha+beta)) with G = (alpha A / (beta B))^(1/(alpha+beta)),
    solved for D at the given N. The published exponents (0.46, 0.54) make D/N grow with N; the refit's
    (0.51, 0.49) keep it near 20 for billion-parameter models.
    """
    n = check_positive_number("n_params", n_params)
    if fit == "tokens_per_param":
        return check_positive_number("tokens_per_param", tokens_per_param) * n
    if fit in ("approach3", "approach3_refit"):
        p = CHINCHILLA_APPROACH3 if fit == "approach3" else CHINCHILLA_APPROACH3_REFIT
        a, b = p["alpha"], p["beta"]
        g = (a * p["A"] / (b * p["B"])) ** (1 / (a + b))
        c_over_6 = (n / g) ** ((a + b) / b)
        return c_over_6 / n
    raise LedgerError(f"fit = {fit!r}: must be one of {', '.join(CHINCHILLA_FITS)}")


# --- utilisation: MFU and HFU (PaLM, Chowdhery et al. 2022, appendix B) ----------------------------

def flops_utilization(flops_per_step: float, step_seconds: float, devices: float, peak_flops: float) -> float:
    """Achieved FLOP/s over the devices' dense peak: flops_per_step / step_seconds / (devices * peak_flops).

    With model FLOPs (the step's count without recomputation) this is PaLM's model FLOPs utilisation
    (MFU); with hardware FLOPs (recomputed forward work included) it is the hardware FLOPs utilisation
    (HFU). `peak_flops` must be the dense peak, not the 2:4-sparsity figure datasheets also print.
    """
    rate = check_positive_number("flops_per_step", flops_per_step) / check_positive_number("step_seconds", step_seconds)
    return rate / (check_positive_number("devices", devices) * check_positive_number("peak_flops", peak_flops))


def implied_utilization(run_flops_total: float, device_hours: float, peak_flops: float) -> float:
    """The fraction of peak a published run must have sustained: its FLOPs over device-hours x 3,600 x peak."""
    seconds = check_positive_number("device_hours", device_hours) * 3600
    return check_positive_number("run_flops_total", run_flops_total) / (seconds * check_positive_number("peak_flops", peak_flops))


# --- collectives on a two-tier network -----------------------------------------------------------

@dataclass(frozen=True)
class Topology:
    """A cluster's network as the collectives see it, per GPU and each way (bytes/s): NVLink between
    the GPUs of one node, and the node's network cards (one per GPU on an H100 DGX/HGX node)."""

    gpus_per_node: int
    nvlink_bandwidth: float
    """Bytes/s each way from one GPU into the node's NVLink switches (an H100 SXM's 450 GB/s)."""
    nic_bandwidth: float
    """Bytes/s each way of the network port each GPU uses between nodes (400 Gb/s InfiniBand: 50 GB/s)."""

    def __post_init__(self):
        if isinstance(self.gpus_per_node, bool) or not isinstance(self.gpus_per_node, int) or self.gpus_per_node < 1:
            raise LedgerError(f"gpus_per_node = {self.gpus_per_node!r}: must be a positive integer")
        check_positive_number("nvlink_bandwidth", self.nvlink_bandwidth)
        check_positive_number("nic_bandwidth", self.nic_bandwidth)


ILLUSTRATIVE_PEAK, ILLUSTRATIVE_BANDWIDTH = 1000e12, 3.35e12
"""Chapter 12's illustrative accelerator: bf16 FLOP/s and bytes/s (its exercises and checked sentences
read them here, when they run, so that a change of either reaches them)."""

H100_NODES = Topology(gpus_per_node=8, nvlink_bandwidth=450e9, nic_bandwidth=50e9)
"""8-GPU H100 SXM nodes (DGX/HGX H100): NVLink 450 GB/s each way per GPU, one 400 Gb/s NIC per GPU."""

H100_NVLINK_16 = Topology(gpus_per_node=16, nvlink_bandwidth=450e9, nic_bandwidth=50e9)
"""A hypothetical 16-GPU NVLink domain at H100 rates (450 GB/s each way per GPU): the same ranks as two
8-GPU nodes without crossing a node, to separate the cost of crossing from that of a larger degree."""

FLAT_NETWORK = Topology(gpus_per_node=1, nvlink_bandwidth=450e9, nic_bandwidth=50e9)
"""The worst case: every hop of every ring crosses a GPU's own 50 GB/s port (one GPU per node, no NVLink tier)."""

COLLECTIVE_BUS_FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n,
                         "reduce_scatter": lambda n: (n - 1) / n,
                         "all_gather": lambda n: (n - 1) / n}
"""Bytes each rank moves per byte of the whole array, for n ranks: nccl-tests' bus-bandwidth factors."""


def bus_bandwidth(ranks: int, topology: Topology) -> float:
    """The bus bandwidth (bytes/s) a ring collective over `ranks` GPUs reaches at best, its ranks packed
    into nodes of `topology.gpus_per_node`: NVLink's rate inside one node; across nodes NCCL runs one
    ring (channel) per NIC, each crossing a node boundary once on its own NIC, so the node's NICs
    together give GPUs-per-node x NIC rate (the last node's count if it is partly filled: its fewer
    NICs carry every ring), capped at NVLink's rate (conservatively: the ring model allows
    g/(g-1) x NVLink). A flat network (one GPU per node) gives the NIC rate alone."""
    if isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1:
        raise LedgerError(f"ranks = {ranks!r}: must be a positive integer")
    g = topology.gpus_per_node
    if ranks <= g and g > 1:
        return topology.nvlink_bandwidth
    emptiest_node = ranks % g or g
    return min(emptiest_node * topology.nic_bandwidth, topology.nvlink_bandwidth)


def collective_seconds(kind: str, size_bytes: float, ranks: int, topology: Topology,
                       overhead_s: float = 0.0) -> float:
    """Time of one collective on an array of `size_bytes` bytes (the whole array, as nccl-tests counts
    it) over `ranks` GPUs: overhead + size x bus factor / bus bandwidth (nccl-tests: time is about
    overhead + size / bandwidth, and busbw = algbw x the factor). `overhead_s` is the latency term,
    0 by default: the result is then a lower bound, close for large messages."""
    if kind not in COLLECTIVE_BUS_FACTOR:
        raise LedgerError(f"kind = {kind!r}: must be one of {', '.join(COLLECTIVE_BUS_FACTOR)}")
    size = check_positive_number("size_bytes", size_bytes)
    if isinstance(overhead_s, bool) or not isinstance(overhead_s, (int, float)) or not overhead_s >= 0:
        raise LedgerError(f"overhead_s = {overhead_s!r}: must be a number of seconds, 0 or more")
    if ranks == 1:
        return 0.0
    return overhead_s + size * COLLECTIVE_BUS_FACTOR[kind](ranks) / bus_bandwidth(ranks, topology)


# --- tensor parallelism against the ridge -------------------------------------------------------

def tensor_parallel_ridge_degree(tokens: float, k: float, m: float, peak_flops: float, bandwidth: float,
                                 bytes_per_element: float = 2.0, max_degree: int = 1024) -> int:
    """Smallest power-of-two tensor-parallel degree t at which an (m x k) weight matrix, its m outputs
    split over t devices (Megatron-LM's column parallelism, which writes the product as X A with A of
    k x m and splits A's columns), applied to `tokens` token vectors falls below the ridge point.

    The intensity is symmetric in the outputs and the tokens, so the shard falls below the ridge once
    m/t is under ridge_batch(tokens, k). Raises LedgerError if no degree up to max_degree does.
    """
    m = check_positive_number("m", m)
    need = ridge_batch(tokens, k, peak_flops, bandwidth, bytes_per_element)
    t = 1
    while t <= max_degree:
        if m / t < need:
            return t
        t *= 2
    raise LedgerError(f"max_degree = {max_degree!r}: the product stays above the ridge up to that degree")


def tensor_parallel_allreduce(tokens: int, shape: ModelShape, degree: int, flops_rate: float,
                              topology: Topology | None = None, bytes_per_value: float = 2.0,
                              seq_len: int | None = None, attention_kernel: str | None = None,
                              attention_tile: int | None = None,
                              overhead_s: float = 0.0) -> dict[str, float]:
    """Megatron-style tensor parallelism of one layer for one micro-batch of `tokens` tokens, per device.

    Each layer all-reduces its (tokens x H) activations twice in the forward pass (after the attention
    output projection and after the MLP down projection) and twice in the backward pass (the input
    gradients of the QKV and MLP up/gate products); sequence parallelism replaces each all-reduce by a
    reduce-scatter and an all-gather of the same volume. Each all-reduce takes `collective_seconds` over
    the `topology` (default H100_NODES: NVLink inside an 8-GPU node, one 400 Gb/s NIC per GPU between
    nodes), its t ranks packed into nodes.

    The layer's matrix work is what the kernels execute, its hardware FLOPs (ledger.hardware), split
    over the t devices at `flops_rate`: the weight products as counted, 6 x tokens x the layer's
    weights, and the attention core (QK^T and AV) as `attention_kernel` runs it
    (hardware.attention_core_items; None: Settings' default, "flash-causal", which skips the tiles
    above the diagonal, tiles of `attention_tile` (None: Settings' default, 128), and recomputes QK^T in
    its backward; "dense" executes the model count, 12 x tokens x seq_len x H). seq_len defaults to
    tokens (one sequence per micro-batch) and must divide tokens. Returns comm_s, matmul_s (seconds per device; attention_s of it the attention core)
    and ratio = comm_s / matmul_s (0 at t = 1).
    """
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
        raise LedgerError(f"degree = {degree!r}: must be a positive integer")
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
        raise LedgerError(f"tokens = {tokens!r}: must be a positive integer (tokens per micro-batch)")
    s = tokens if seq_len is None else seq_len
    if isinstance(s, bool) or not isinstance(s, int) or s < 1 or tokens % s:
        raise LedgerError(f"seq_len = {s!r}: must be a positive integer that divides tokens = {tokens}")
    topology = H100_NODES if topology is None else topology
    size = tokens * shape.hidden * check_positive_number("bytes_per_value", bytes_per_value)
    comm_s = 4 * collective_seconds("all_reduce", size, degree, topology, overhead_s) if degree > 1 else 0.0
    rate = check_positive_number("flops_rate", flops_rate)
    kernel = {} if attention_kernel is None else {"attention_kernel": attention_kernel}
    tile = {} if attention_tile is None else {"attention_tile": attention_tile}
    one_layer = Settings(variant="transformer", seq_len=s, step_tokens=tokens, shape=shape, **kernel, **tile)
    attention_s = sum(i.flops for i in attention_core_items(one_layer, n_layers=1)) / degree / rate
    matmul_s = 6 * tokens * layer_params_exact(shape) / degree / rate + attention_s
    return {"comm_s": comm_s, "matmul_s": matmul_s, "attention_s": attention_s, "ratio": comm_s / matmul_s}


def fused_qkv_columns(shape: ModelShape) -> int:
    """Columns of the fused query-key-value projection (Megatron-LM's linear_qkv): (heads + 2 kv heads) x head_dim."""
    return (shape.n_heads + 2 * shape.n_kv_heads) * shape.head_dim


def whole_kv_heads_up_to(shape: ModelShape) -> int:
    """The largest tensor-parallel degree at which every device holds whole key/value heads of its own:
    the number of key/value heads. Past it, several devices share each head: Megatron-LM (since December
    2025) splits the fused QKV product's outputs as before and all-gathers them, so that each device of a
    group receives its group's key and value heads."""
    return shape.n_kv_heads


MEGATRON_TP_COMMIT = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"
"""The NVIDIA/Megatron-LM commit whose tensor-parallel rule `megatron_accepts_tp_degree` follows."""
MEGATRON_KV_SUB_SHARDING_COMMIT = "f7dfb9979519b5397d98512aef223bae214e40df"
"""Megatron-LM's "Support TP greater than num_kv_heads by supporting QKV activation sub-sharding" (7 December 2025)."""


def megatron_accepts_tp_degree(shape: ModelShape, degree: int, kv_sub_sharding: bool = True) -> bool:
    """Whether Megatron-LM accepts tensor-parallel degree `degree` for a model of `shape`
    (TransformerConfig.__post_init__ at MEGATRON_TP_COMMIT): the query heads must be a multiple of it,
    and the key/value groups a multiple or a divisor of it. With more devices than groups each device
    still holds 1/degree of the fused QKV product's outputs, and the product's output is all-gathered
    so that every device gets its group's key and value heads. kv_sub_sharding=False gives the rule
    before MEGATRON_KV_SUB_SHARDING_COMMIT: the groups must be a multiple of the degree."""
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
        raise LedgerError(f"degree = {degree!r}: must be a positive integer")
    if not isinstance(kv_sub_sharding, bool):
        raise LedgerError(f"kv_sub_sharding = {kv_sub_sharding!r}: must be True or False")
    groups = shape.n_kv_heads
    if shape.n_heads % degree:
        return False
    return groups % degree == 0 or (kv_sub_sharding and degree % groups == 0)


# --- parallel layouts ---------------------------------------------------------------------------

LLAMA3_405B_LAYOUTS = (
    {"gpus": 8192, "tp": 8, "cp": 1, "pp": 16, "dp": 64, "seq_len": 8192, "sequences_per_replica": 32},
    {"gpus": 16384, "tp": 8, "cp": 1, "pp": 16, "dp": 128, "seq_len": 8192, "sequences_per_replica": 16},
    {"gpus": 16384, "tp": 8, "cp": 16, "pp": 16, "dp": 8, "seq_len": 131072, "sequences_per_replica": 16},
)
"""The 4D parallelism of Llama 3 405B's pre-training stages (Dubey et al. 2024, Table 4): tensor,
context, pipeline and data-parallel degrees, sequence length and sequences per data-parallel
replica per step (the table's "batch size/DP"); every stage's step is 16M tokens."""


def layout_sequences(layout: dict) -> int:
    """Sequences in one step of a parallel layout: data-parallel replicas x sequences per replica."""
    return layout["dp"] * layout["sequences_per_replica"]


def replica_gpus(tp: int, cp: int = 1, pp: int = 1) -> int:
    """GPUs that hold one data-parallel replica of the model: tensor x context x pipeline degrees."""
    for name, value in (("tp", tp), ("cp", cp), ("pp", pp)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise LedgerError(f"{name} = {value!r}: must be a positive integer")
    return tp * cp * pp


# --- flash attention ------------------------------------------------------------------------------

def flash_attention_backward_flops(items: Iterable[LineItem]) -> float:
    """Hardware FLOPs of attention's core backward under FlashAttention *without a causal mask*: the
    ledger's dX items for QK^T and AV plus QK^T recomputed (the S x S scores are never stored), 2.5x the
    core's forward. For causal kernels and the whole step use ledger.hardware.hardware_flops."""
    items = list(items)
    backward = sum(i.flops for i in items if i.layer == "attention" and i.op.startswith("attention:")
                   and i.phase != "forward")
    recomputed = sum(i.flops for i in items if i.phase == "forward" and i.op == "attention: Q K^T")
    return backward + recomputed


# --- data-parallel traffic ------------------------------------------------------------------------

GRADIENT_REDUCE_BYTES = 4.0
"""Bytes per gradient value in the data-parallel reduction: fp32, the default of Megatron-LM (bf16
training sets accumulate_allreduce_grads_in_fp32 unless --grad-reduce-in-bf16, added in February 2025,
turns it off) and of torchtitan (mixed_precision_reduce = float32)."""


def data_parallel_bytes(n_params: float, devices: float, gradient_bytes: float = GRADIENT_REDUCE_BYTES,
                        weight_bytes: float = 2.0) -> float:
    """Bytes each device sends (and receives) per step under Megatron-LM's distributed optimizer (the
    ZeRO-1/2 pattern): one ring reduce-scatter of the gradients in `gradient_bytes` per value (fp32: 4,
    bf16: 2) and one all-gather of the updated weights in `weight_bytes` (bf16: 2),
    (d - 1)/d x N x (gradient_bytes + weight_bytes). It moves as many elements as the all-reduce of
    plain data parallelism but fewer bytes: 6 per parameter against an fp32 all-reduce's 8.
    `data_parallel_traffic` gives the other frameworks' patterns."""
    d = check_positive_number("devices", devices)
    per_value = check_positive_number("gradient_bytes", gradient_bytes) + check_positive_number("weight_bytes", weight_bytes)
    return (d - 1) / d * check_positive_number("n_params", n_params) * per_value


def data_parallel_seconds(n_params: float, devices: int, topology: Topology | None = None,
                          gradient_bytes: float = GRADIENT_REDUCE_BYTES, weight_bytes: float = 2.0,
                          overhead_s: float = 0.0) -> float:
    """Seconds per step of the distributed optimizer's gradient reduce-scatter and weight all-gather
    (`data_parallel_bytes`) over `devices` GPUs packed into nodes of `topology` (default H100_NODES),
    by `collective_seconds`: bytes / bus bandwidth, plus `overhead_s` per collective (0: a lower bound)."""
    return data_parallel_traffic("megatron-distributed-optimizer", n_params, devices, topology=topology,
                                 gradient_bytes=gradient_bytes, weight_bytes=weight_bytes,
                                 overhead_s=overhead_s)["seconds"]


DATA_PARALLEL_SCHEMES = ("ddp-all-reduce", "ddp-no-sync", "megatron-distributed-optimizer", "fsdp2-reshard-after-forward")
"""The data-parallel communication patterns `data_parallel_traffic` models."""


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise LedgerError(f"{name} = {value!r}: must be a positive integer")
    return value


def data_parallel_traffic(scheme: str, n_params: float, devices: int, micro_batches: int = 1,
                          topology: Topology | None = None, gradient_bytes: float = GRADIENT_REDUCE_BYTES,
                          weight_bytes: float = 2.0, gathered_once_params: float = 0.0,
                          overhead_s: float = 0.0) -> dict[str, float]:
    """One optimizer step's data-parallel traffic per device, for a framework's pattern, with
    `micro_batches` forward-backward passes (gradient accumulation) per step:

    - "ddp-all-reduce": plain data parallelism as PyTorch's DistributedDataParallel runs by default, an
      all-reduce of the gradients in every backward pass, so once per micro-batch: micro_batches x 2 x
      gradient_bytes per parameter.
    - "ddp-no-sync": the same with every micro-batch's backward but the last inside DDP's `no_sync()`,
      so one all-reduce per step: 2 x gradient_bytes per parameter.
    - "megatron-distributed-optimizer" (ZeRO-1/2): one gradient reduce-scatter per step, issued in the
      last micro-batch's backward, and one all-gather of the updated weights after the optimizer step
      (or overlapping the next forward): gradient_bytes + weight_bytes, whatever `micro_batches`.
    - "fsdp2-reshard-after-forward" (torchtitan's FSDP2, its default without pipeline parallelism):
      in every micro-batch the weights are all-gathered for the forward, freed, gathered again for the
      backward, and the gradients reduce-scattered (torchtitan keeps gradient sync on while
      accumulating): micro_batches x (2 x weight_bytes + gradient_bytes). `gathered_once_params` of
      the n_params (torchtitan's final norm and LM head, not resharded after the forward) are gathered
      once per micro-batch instead of twice.

    Returns bytes_per_param (bytes moved per parameter per step, before the ring's (d - 1)/d), bytes
    (each device sends, and receives, per step) and seconds (`collective_seconds` on `topology`,
    default H100_NODES, plus `overhead_s` per collective)."""
    if scheme not in DATA_PARALLEL_SCHEMES:
        raise LedgerError(f"scheme = {scheme!r}: must be one of {', '.join(DATA_PARALLEL_SCHEMES)}")
    d = _positive_int("devices", devices)
    m = _positive_int("micro_batches", micro_batches)
    n = check_positive_number("n_params", n_params)
    gb, wb = check_positive_number("gradient_bytes", gradient_bytes), check_positive_number("weight_bytes", weight_bytes)
    if isinstance(gathered_once_params, bool) or not isinstance(gathered_once_params, (int, float)) \
            or not 0 <= gathered_once_params <= n:
        raise LedgerError(f"gathered_once_params = {gathered_once_params!r}: must be a number from 0 to n_params")
    topology = H100_NODES if topology is None else topology
    if scheme == "ddp-all-reduce":
        calls = m * [("all_reduce", n * gb)]
    elif scheme == "ddp-no-sync":
        calls = [("all_reduce", n * gb)]
    elif scheme == "megatron-distributed-optimizer":
        calls = [("reduce_scatter", n * gb), ("all_gather", n * wb)]
    else:
        calls = m * [("all_gather", n * wb), ("all_gather", (n - gathered_once_params) * wb),
                     ("reduce_scatter", n * gb)]
    moved = sum(size * COLLECTIVE_BUS_FACTOR[kind](d) for kind, size in calls)
    seconds = sum(collective_seconds(kind, size, d, topology, overhead_s) for kind, size in calls if size > 0)
    return {"bytes_per_param": sum(size for _, size in calls) / n * (2 if scheme.startswith("ddp") else 1),
            "bytes": moved, "seconds": seconds}


def fsdp2_gathered_once_params(shape: ModelShape) -> int:
    """Parameters torchtitan's FSDP2 keeps gathered from a micro-batch's forward to its backward: the
    final norm and the LM head (vocab x hidden, untied as in Llama-3-8B), wrapped together with
    reshard_after_forward off (torchtitan/distributed/fsdp.py, apply_fsdp_to_decoder)."""
    return shape.embedding_params + shape.hidden


# --- the recompute tax ---------------------------------------------------------------------------

def recompute_flops(items: Iterable[LineItem], fraction: float = 1.0, ops: tuple[str, ...] | None = None) -> float:
    """Extra FLOPs per step when `fraction` of the blocks' forward work is recomputed in the backward pass.

    The recomputed work is the core ledger's (`step.recomputed`, what `Settings.recompute = "full"`
    adds): every block's forward again, not the LM head, the embedding or the per-step transforms.
    Full activation checkpointing (fraction 1) takes the 6ND step to about 8ND. `ops` narrows it to
    line items whose name starts with one of the given prefixes, e.g. ("attention:",) for selective
    recomputation of the attention scores.
    """
    f = _fraction("fraction", fraction)
    return f * sum(i.flops for i in recomputed(list(items)) if ops is None or i.op.startswith(tuple(ops)))


def recompute_tax(items: list[LineItem], fraction: float = 1.0, ops: tuple[str, ...] | None = None) -> float:
    """The step's FLOPs with recomputation over the step's FLOPs without (4/3 for the 6N step, fully checkpointed)."""
    step = sum(i.flops for i in items)
    return (step + recompute_flops(items, fraction, ops)) / step


TORCHTITAN_LLAMA3_BLOCK_MATMULS = (("attention q:", "attention k:", "attention v:"), ("attention o:",),
                                   ("mlp gate:",), ("mlp up:",), ("mlp down:",))
"""A Llama 3 block's matrix products in the order torchtitan runs them (commit b5bcd76c): the fused
wqkv (fuse_qkv=True; one product, the ledger's q, k and v items), wo, then the SwiGLU's w1 (gate),
w3 (up) and w2 (down), each as the ledger's line-item name prefixes."""


TORCHTITAN_LLAMA3_8B_MICROBATCH_TOKENS = 8192
"""Tokens per data-parallel rank in one forward pass of torchtitan's llama3_8b recipe (commit b5bcd76c,
torchtitan/models/llama3/config_registry.py: num_tokens_per_microbatch_per_dp_rank = 1 x 8192, with
max_context_length = 8192): one packed 8,192-token row per micro-batch."""


def micro_batches_per_step(tokens_per_device: int, tokens_per_micro_batch: int) -> int:
    """Micro-batches (forward and backward passes accumulated into one step) for a device's tokens per
    step; a LedgerError unless the micro-batch size divides them."""
    a, b = _positive_int("tokens_per_device", tokens_per_device), _positive_int("tokens_per_micro_batch", tokens_per_micro_batch)
    if a % b:
        raise LedgerError(f"tokens_per_micro_batch = {b!r}: must divide tokens_per_device = {a!r}")
    return a // b


def every_second_matmul(block_matmuls: tuple[tuple[str, ...], ...] = TORCHTITAN_LLAMA3_BLOCK_MATMULS) -> tuple[str, ...]:
    """Line-item prefixes torchtitan's per-operator selective activation checkpointing (SelectiveAC,
    commit b5bcd76c) recomputes in a block: the second, fourth, ... matrix product of the block's
    forward, in `block_matmuls` order. It saves the outputs of the others and of the attention
    kernel (so QK^T and AV are not recomputed) and recomputes only elementwise work besides. With
    Llama 3's fused wqkv that is wo and w3; with separate wq, wk, wv it would be wk, wo and w3."""
    if not block_matmuls or any(not call or not all(isinstance(p, str) and p for p in call) for call in block_matmuls):
        raise LedgerError(f"block_matmuls = {block_matmuls!r}: must be a non-empty sequence of non-empty "
                          "tuples of line-item name prefixes")
    return tuple(prefix for k, call in enumerate(block_matmuls, start=1) if k % 2 == 0 for prefix in call)


# --- the optimizer's memory traffic --------------------------------------------------------------

OPTIMIZER_STATE_BYTES = {
    "megatron": {"replicated": 6.0, "sharded": 12.0},
    "torchtitan-fsdp2": {"replicated": 0.0, "sharded": 16.0},
}
"""Bytes per parameter of mixed-precision AdamW state, split into what stays on every data-parallel
device and what a sharded optimizer divides over d devices. Megatron-LM, bf16 parameters and fp32
main gradients: 18 (bf16 weight 2 + fp32 gradient 4 + fp32 master weight 4 + two fp32 moments 8); its
distributed optimizer shards the last 12, leaving 6 + 12/d (Megatron Core's distributed-optimizer
guide). torchtitan with FSDP2: fp32 sharded parameters, gradients in the parameters' fp32 and two
fp32 moments, 16, all sharded (the bf16 copies are gathered per layer and freed: transient)."""

OPTIMIZER_BYTES_PER_PARAM = OPTIMIZER_STATE_BYTES["megatron"]["replicated"] + OPTIMIZER_STATE_BYTES["megatron"]["sharded"]
"""18 bytes per parameter, each state counted once: Megatron-LM's bf16-with-fp32-gradients figure,
the default of `optimizer_bytes`; use OPTIMIZER_STATE_BYTES for another framework."""


def optimizer_state_bytes_per_device(n_params: float, devices: int, framework: str = "megatron",
                                     sharded: bool = True) -> float:
    """Bytes of optimizer state (weights, gradients, master weights, moments) on each of `devices`
    data-parallel devices: replicated + sharded / d bytes per parameter when sharded, the sum when not."""
    if framework not in OPTIMIZER_STATE_BYTES:
        raise LedgerError(f"framework = {framework!r}: must be one of {', '.join(OPTIMIZER_STATE_BYTES)}")
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise LedgerError(f"devices = {devices!r}: must be a positive integer")
    if not isinstance(sharded, bool):
        raise LedgerError(f"sharded = {sharded!r}: must be True or False")
    state = OPTIMIZER_STATE_BYTES[framework]
    per_param = state["replicated"] + state["sharded"] / (devices if sharded else 1)
    return check_positive_number("n_params", n_params) * per_param


def optimizer_bytes(n_params: float, bytes_per_param: float = OPTIMIZER_BYTES_PER_PARAM) -> float:
    """Bytes the optimizer update moves per step: bytes_per_param * N."""
    return check_positive_number("bytes_per_param", bytes_per_param) * check_positive_number("n_params", n_params)


def optimizer_time_share(n_params: float, step_flops: float, bandwidth: float, flops_rate: float,
                         bytes_per_param: float = OPTIMIZER_BYTES_PER_PARAM, devices: float = 1,
                         sharded: bool = True) -> dict[str, float]:
    """Optimizer traffic time against the matmuls' time for one step, per device.

    The step's FLOPs are split over `devices`, each sustaining `flops_rate`: pass the FLOPs the hardware
    executes (TableRow.hardware_flops, ledger.hardware), since time divides what the kernels run, not the
    model count (TableRow.step_flops); each device reads and writes
    its optimizer state at `bandwidth` bytes/s. Sharded (ZeRO-style) state splits the traffic over the
    devices too; replicated state (plain data parallelism) makes every device update all N parameters.
    Returns optimizer_s, matmul_s (seconds per device per step) and their ratio.
    """
    d = check_positive_number("devices", devices)
    if not isinstance(sharded, bool):
        raise LedgerError(f"sharded = {sharded!r}: must be True or False")
    memory_s = optimizer_bytes(n_params, bytes_per_param) / (d if sharded else 1.0) / check_positive_number("bandwidth", bandwidth)
    compute_s = check_positive_number("step_flops", step_flops) / d / check_positive_number("flops_rate", flops_rate)
    return {"optimizer_s": memory_s, "matmul_s": compute_s, "ratio": memory_s / compute_s}
