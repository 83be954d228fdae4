"""One function per layer kind; each emits the line items its layers cost in one optimizer step.

A line item is one kind of operation in one phase (forward, dX, dW), with how often it runs
in the step (`count`) and what that costs in total (`flops`). `per` says what the operation
is repeated over: every token, every sequence, or once per optimizer step (the filter and
weight-block transforms, shared by all sequences). `mask_values` is the number of complex
values that must be written to a Fourier-plane mask per step to run the item optically, in
layer-major order (each layer's weight masks written once per sweep, so twice per step, at the
forward and backward visits, while every sequence passes).
"""
from __future__ import annotations

from dataclasses import dataclass

from .settings import Settings

PHASES = ("forward", "dX", "dW")
"""The three passes of the 6N accounting: forward, input gradient, weight gradient."""
RECOMPUTE = "recompute"
"""The phase of forward work run again in the backward pass (Settings.recompute = "full")."""
ALL_PHASES = ("forward", RECOMPUTE, "dX", "dW")
"""Every phase a line item can carry, in the order a step runs them."""
CLASSES = ("transform", "weight_product", "data_product", "digital")
OPTICAL_CLASSES = ("transform", "weight_product", "data_product")
STATIC_CLASSES = ("transform", "weight_product")
"""What an engine whose masks change only between optimizer steps could take."""


@dataclass(frozen=True, slots=True)
class LineItem:
    op: str
    layer: str
    phase: str
    cls: str
    per: str
    count: float
    flops: float
    mask_values: float = 0.0
    mask_len: int = 0
    """Complex values of one mask spectrum (mask_values is a whole number of them); 0 when no mask."""
    moved: float = 0.0
    """Real values the item reads and writes in GPU memory over the step, for the memory bound of its time
    (ledger.step_time); 0 for the matrix products, which the ledger takes as compute-bound at these shapes."""
    work: float | None = None
    """FLOPs at the reference prices (ledger.costs.REFERENCE) when the count's conventions differ from them;
    None: `flops` is already that work."""

    @property
    def reference_flops(self) -> float:
        """The item's work at the prices device rates are quoted in (ledger.costs.REFERENCE)."""
        return self.flops if self.work is None else self.work


def dense_matrix(s: Settings, name: str, layer: str, rows: int, cols: int, n_layers: int) -> list[LineItem]:
    """A dense (rows x cols) weight applied to every token: y = Wx, dX = W^T g, dW = g x^T."""
    count = s.step_tokens * n_layers
    flops = count * s.costs.matmul(rows, cols, 1)
    return [
        LineItem(f"{name}: W x", layer, "forward", "digital", "token", count, flops),
        LineItem(f"{name}: W^T g (dX)", layer, "dX", "digital", "token", count, flops),
        LineItem(f"{name}: g x^T (dW)", layer, "dW", "digital", "token", count, flops),
    ]


def model_score_entries(s: Settings) -> int:
    """Score entries per head per sequence that the model count prices for QK^T (and AV): S^2 over the whole row,
    or the sum of L_i^2 over its documents under Costs.attention_count = "documents"."""
    if s.costs.attention_count == "documents":
        return sum(n * n for n in s.document_lengths)
    return s.seq_len * s.seq_len


def attention_scores(s: Settings, n_layers: int) -> list[LineItem]:
    """QK^T and AV over all heads, 2*S^2*H each per sequence (2*H*sum L_i^2 per document under the documents
    count); backward is all input gradient."""
    h, seq = s.shape.hidden, s.seq_len
    count = s.sequences * n_layers
    if s.costs.attention_count == "documents" and s.documents is not None:
        one = count * s.costs.attention_factor * s.costs.matmul(model_score_entries(s), h, 1)
    else:
        one = count * s.costs.attention_factor * s.costs.matmul(seq, h, seq)
    return [
        LineItem("attention: Q K^T", "attention", "forward", "digital", "sequence", count, one),
        LineItem("attention: A V", "attention", "forward", "digital", "sequence", count, one),
        LineItem("attention: dQ, dK from Q K^T", "attention", "dX", "digital", "sequence", count, 2 * one),
        LineItem("attention: dA, dV from A V", "attention", "dX", "digital", "sequence", count, 2 * one),
    ]


def hyena_mixing(s: Settings, n_layers: int) -> list[LineItem]:
    """The order-2 Hyena operator's digital elementwise work: a 3-tap short conv on 3H channels, two gates."""
    h = s.shape.hidden
    tokens = s.step_tokens * n_layers
    short = tokens * 3 * h * 3 * s.costs.flops_per_mac  # 3 taps, one multiply-add each
    gates = tokens * 2 * h  # two elementwise gates, one multiply per channel per token
    return [
        # memory traffic: a short-conv output reads its input and writes one value (the taps stay in cache);
        # a gate reads two operands and writes one, its backward reads three and writes two
        LineItem("short conv (3 taps, 3H channels)", "hyena", "forward", "digital", "token", tokens * 3 * h, short,
                 moved=2 * tokens * 3 * h),
        LineItem("short conv: input gradient", "hyena", "dX", "digital", "token", tokens * 3 * h, short,
                 moved=2 * tokens * 3 * h),
        LineItem("short conv: tap gradient", "hyena", "dW", "digital", "token", tokens * 3 * h, short,
                 moved=2 * tokens * 3 * h),
        LineItem("gates (2, elementwise)", "hyena", "forward", "digital", "token", tokens * 2 * h, gates,
                 moved=3 * tokens * 2 * h),
        LineItem("gates: gradients of both operands", "hyena", "dX", "digital", "token", tokens * 2 * h, 2 * gates,
                 moved=5 * tokens * 2 * h),
    ]


def long_convolutions(s: Settings, n_layers: int) -> list[LineItem]:
    """Two causal long convolutions per channel, by FFT of length n = 2S (H channels each)."""
    c = s.costs
    n = s.fft_len
    bins = c.bins(n)
    mask = s.mask_bins(n)  # complex values one transform puts on a mask
    fft = c.rfft(n)
    convs = 2 * s.shape.hidden * n_layers  # per sequence: s.channel_convolutions when n_layers = s.hyena_layers
    per_seq = s.sequences * convs
    product = bins * c.complex_mul_flops
    # memory traffic: a transform reads its S samples (the padding is not stored) and writes 2 reals per bin, or
    # the reverse; a spectral product or accumulation reads two complex operands and writes one (6 reals a bin)
    fft_moved = s.seq_len + 2 * bins
    bin_moved = 6 * bins
    return [
        LineItem("long conv: rFFT of u", "hyena", "forward", "transform", "sequence", per_seq, per_seq * fft,
                 moved=per_seq * fft_moved),
        LineItem("long conv: H . U", "hyena", "forward", "weight_product", "sequence", per_seq, per_seq * product,
                 mask_values=convs * mask, mask_len=mask, moved=per_seq * bin_moved),
        LineItem("long conv: inverse rFFT to y", "hyena", "forward", "transform", "sequence", per_seq, per_seq * fft,
                 moved=per_seq * fft_moved),
        LineItem("long conv: rFFT of filter h", "hyena", "forward", "transform", "step", convs, convs * fft,
                 moved=convs * fft_moved),
        LineItem("long conv: rFFT of g", "hyena", "dX", "transform", "sequence", per_seq, per_seq * fft,
                 moved=per_seq * fft_moved),
        LineItem("long conv: G . conj(H)", "hyena", "dX", "weight_product", "sequence", per_seq, per_seq * product,
                 mask_values=convs * mask, mask_len=mask, moved=per_seq * bin_moved),
        LineItem("long conv: inverse rFFT to du", "hyena", "dX", "transform", "sequence", per_seq, per_seq * fft,
                 moved=per_seq * fft_moved),
        LineItem("long conv: G . conj(U)", "hyena", "dW", "data_product", "sequence", per_seq, per_seq * product,
                 mask_values=per_seq * mask, mask_len=mask, moved=per_seq * bin_moved),
        LineItem("long conv: accumulate dH over the step", "hyena", "dW", "digital", "sequence", per_seq * bins,
                 per_seq * bins * c.complex_add_flops, moved=per_seq * bin_moved),
        LineItem("long conv: inverse rFFT of dH", "hyena", "dW", "transform", "step", convs, convs * fft,
                 moved=convs * fft_moved),
    ]


def circulant_matrix(s: Settings, name: str, layer: str, rows: int, cols: int, n_layers: int) -> list[LineItem]:
    """A block-circulant (rows x cols) weight, b x b blocks each defined by one vector (CirCNN)."""
    c = s.costs
    b = s.block
    p, q = rows // b, cols // b
    bins = c.bins(b)
    mask = s.mask_bins(b)  # complex values one block transform puts on a mask
    fft = c.rfft(b)
    product = bins * c.complex_mul_flops
    tokens = s.step_tokens * n_layers
    blocks = p * q
    # memory traffic of a block transform: b samples and 2 reals per bin; the block products and their sums
    # over blocks run as one batched complex matrix product per bin (ledger.timing), taken as compute-bound
    fm = b + 2 * bins
    return [
        LineItem(f"{name}: rFFT of x blocks", layer, "forward", "transform", "token", tokens * q, tokens * q * fft,
                 moved=tokens * q * fm),
        LineItem(f"{name}: W_ij . X_j", layer, "forward", "weight_product", "token", tokens * blocks,
                 tokens * blocks * product, mask_values=n_layers * blocks * mask, mask_len=mask),
        LineItem(f"{name}: sum over input blocks", layer, "forward", "digital", "token", tokens * p * (q - 1) * bins,
                 tokens * p * (q - 1) * bins * c.complex_add_flops),
        LineItem(f"{name}: inverse rFFT to y blocks", layer, "forward", "transform", "token", tokens * p,
                 tokens * p * fft, moved=tokens * p * fm),
        LineItem(f"{name}: rFFT of weight blocks", layer, "forward", "transform", "step", n_layers * blocks,
                 n_layers * blocks * fft, moved=n_layers * blocks * fm),
        LineItem(f"{name}: rFFT of g blocks", layer, "dX", "transform", "token", tokens * p, tokens * p * fft,
                 moved=tokens * p * fm),
        LineItem(f"{name}: G_i . conj(W_ij)", layer, "dX", "weight_product", "token", tokens * blocks,
                 tokens * blocks * product, mask_values=n_layers * blocks * mask, mask_len=mask),
        LineItem(f"{name}: sum over output blocks", layer, "dX", "digital", "token", tokens * q * (p - 1) * bins,
                 tokens * q * (p - 1) * bins * c.complex_add_flops),
        LineItem(f"{name}: inverse rFFT to dx blocks", layer, "dX", "transform", "token", tokens * q,
                 tokens * q * fft, moved=tokens * q * fm),
        LineItem(f"{name}: G_i . conj(X_j)", layer, "dW", "data_product", "token", tokens * blocks,
                 tokens * blocks * product, mask_values=tokens * q * mask, mask_len=mask),
        LineItem(f"{name}: accumulate dW over the step", layer, "dW", "digital", "token", tokens * blocks * bins,
                 tokens * blocks * bins * c.complex_add_flops),
        LineItem(f"{name}: inverse rFFT of dW blocks", layer, "dW", "transform", "step", n_layers * blocks,
                 n_layers * blocks * fft, moved=n_layers * blocks * fm),
    ]


def embedding(s: Settings) -> list[LineItem]:
    """The input embedding is a lookup: 0 FLOPs (its gradient, a scatter-add, is not counted either)."""
    return [LineItem("embedding lookup", "embedding", "forward", "digital", "token", s.step_tokens, 0.0)]
