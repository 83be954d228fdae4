"""A variant as a stack of layers: the line items of one whole optimizer step.

The middle of the core (docs/layout.md): `step_items(settings)` is the one place the step's line items
are computed, from the descriptions below (settings, its run policy) and the layer kinds of
ledger.layers; every view above reads the list it returns.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .costs import REFERENCE
from .layers import (RECOMPUTE, LineItem, attention_scores, circulant_matrix, dense_matrix, embedding,
                     hyena_mixing, long_convolutions)
from .run import run_policy
from .settings import Settings, circulant_matrices

BLOCK_LAYERS = ("attention", "hyena", "mlp")
"""The layers inside a block: what full recomputation runs again (not the embedding, not the LM head)."""


@dataclass(frozen=True)
class WeightMatrix:
    """One weight matrix of the variant, applied to every token in `n_layers` layers."""

    name: str
    layer: str
    rows: int
    cols: int
    n_layers: int
    circulant: bool
    block: int = 1

    @property
    def params(self) -> int:
        """Weights it holds over all its layers: rows*cols, or rows*cols/b when block-circulant."""
        return self.n_layers * self.rows * self.cols // (self.block if self.circulant else 1)


def weight_matrices(s: Settings) -> list[WeightMatrix]:
    """Every weight matrix the variant's matrix products use, in the order a layer runs them; LM head last."""
    shape = s.shape
    h, kv, inter = shape.hidden, shape.kv_dim, shape.intermediate
    n_attn, n_hyena, n_all = s.attention_layers, s.hyena_layers, shape.n_layers
    out: list[WeightMatrix] = []
    if n_attn:
        out += [WeightMatrix(name, "attention", rows, h, n_attn, False)
                for name, rows in (("attention q", h), ("attention k", kv), ("attention v", kv), ("attention o", h))]
    if s.variant == "hyena2_circulant":
        (in_name, in_rows, in_cols), (out_name, out_rows, out_cols), *mlp = circulant_matrices(shape)
        out += [WeightMatrix(in_name, "hyena", in_rows, in_cols, n_hyena, True, s.block),
                WeightMatrix(out_name, "hyena", out_rows, out_cols, n_hyena, True, s.block)]
        out += [WeightMatrix(name, "mlp", rows, cols, n_all, True, s.block) for name, rows, cols in mlp]
    else:
        if n_hyena:
            out += [WeightMatrix("hyena in-projection", "hyena", 3 * h, h, n_hyena, False),
                    WeightMatrix("hyena out-projection", "hyena", h, h, n_hyena, False)]
        out += [WeightMatrix(name, "mlp", rows, cols, n_all, False)
                for name, rows, cols in (("mlp gate", inter, h), ("mlp up", inter, h), ("mlp down", h, inter))]
    circulant_head = s.variant == "hyena2_circulant" and s.lm_head == "circulant"
    out.append(WeightMatrix("lm head", "lm_head", shape.vocab, h, 1, circulant_head, s.block))
    return out


def matrix_params(s: Settings) -> int:
    """Weights the variant's matrix products use (the LM head included, the embedding lookup not).

    The transformer's is N; block-circulant matrices hold 1/b of a dense one's weights.
    """
    return sum(m.params for m in weight_matrices(s))


SHORT_CONV_TAPS = 3
"""Taps of the Hyena short convolution on each of its 3H channels (ledger.layers.hyena_mixing)."""


def trained_params(s: Settings) -> int:
    """Every parameter the variant's optimizer updates: the matrices (LM head included, block-circulant ones
    at 1/b), the input embedding unless tied, the RMSNorm weights and the Hyena short-convolution taps.

    The implicit long-convolution filters' small networks are not counted: the ledger has no shape for them.
    """
    embedding = 0 if s.shape.tied_embeddings else s.shape.embedding_params
    short_taps = SHORT_CONV_TAPS * 3 * s.shape.hidden * s.hyena_layers
    return matrix_params(s) + embedding + s.shape.norm_params + short_taps


def _matrix_items(s: Settings, m: WeightMatrix) -> list[LineItem]:
    make = circulant_matrix if m.circulant else dense_matrix
    return make(s, m.name, m.layer, m.rows, m.cols, m.n_layers)


def recomputed(items: list[LineItem]) -> list[LineItem]:
    """Full recomputation: every block's per-token and per-sequence forward work, again, in phase "recompute".

    Each item keeps its class (recomputed long-convolution FFTs and H.U products are optical work).
    The LM head and the embedding are outside the blocks, and per-step transforms (filter and
    weight-block spectra) are kept from the forward pass, so none of those is redone. The mask the
    backward visit writes serves the recompute too, so recomputed items add no mask values.
    """
    return [replace(i, phase=RECOMPUTE, mask_values=0.0) for i in items
            if i.phase == "forward" and i.layer in BLOCK_LAYERS and i.per != "step"]


def step_items(s: Settings) -> list[LineItem]:
    """Every operation of one optimizer step of `s.variant`, forward, dX and dW, per-step terms included.

    With s.recompute == "full" the block forward items appear again in phase "recompute". Under counting
    conventions other than the reference prices (ledger.costs.REFERENCE), or the FFT length 2S-1, each item also
    carries its work at those prices and at the padded length 2S (`work`, `moved`), which the time model divides
    by device rates.
    """
    items = counted_items(s)
    if s.costs != REFERENCE or s.fft_length != "2S":
        # the FFTs of 2S-1 points run as a real code runs them, padded to 2S, so the switch moves counts only
        reference = counted_items(replace(s, costs=REFERENCE, fft_length="2S"))
        items = [replace(i, work=r.flops, moved=r.moved) for i, r in zip(items, reference)]
    return items


def counted_items(s: Settings) -> list[LineItem]:
    """The step's items priced at s.costs, without their work at the reference prices (step_items adds it when
    the two differ): enough for counts and FLOP shares, not for any time."""
    items: list[LineItem] = embedding(s)
    for m in weight_matrices(s):
        if m.name == "lm head":
            continue
        items += _matrix_items(s, m)
        if m.name == "attention o":
            items += attention_scores(s, s.attention_layers)
        elif m.name == "hyena in-projection":
            items += hyena_mixing(s, s.hyena_layers)
            items += long_convolutions(s, s.hyena_layers)
    if s.recompute == "full":
        items += recomputed(items)
    items += _matrix_items(s, weight_matrices(s)[-1])
    if s.filter_build == "micro-batch":
        items = per_micro_batch(s, items)
    return items


def per_micro_batch(s: Settings, items: list[LineItem]) -> list[LineItem]:
    """A real run's placement: every per-step transform once per micro-batch per data-parallel rank."""
    builds = run_policy(s).filter_builds
    return [replace(i, count=i.count * builds, flops=i.flops * builds, moved=i.moved * builds) if i.per == "step"
            else i for i in items]
