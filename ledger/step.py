"""A variant as a stack of layers: the line items of one whole optimizer step."""
from __future__ import annotations

from .layers import (LineItem, attention_scores, circulant_matrix, dense_matrix, embedding,
                     hyena_mixing, long_convolutions)
from .settings import Settings, circulant_matrices


def step_items(s: Settings) -> list[LineItem]:
    """Every operation of one optimizer step of `s.variant`, forward, dX and dW, per-step terms included."""
    shape = s.shape
    h, kv, inter = shape.hidden, shape.kv_dim, shape.intermediate
    items: list[LineItem] = embedding(s)
    n_attn, n_hyena, n_all = s.attention_layers, s.hyena_layers, shape.n_layers
    if n_attn:
        for name, rows in (("attention q", h), ("attention k", kv), ("attention v", kv), ("attention o", h)):
            items += dense_matrix(s, name, "attention", rows, h, n_attn)
        items += attention_scores(s, n_attn)
    if s.variant == "hyena2_circulant":
        (in_name, in_rows, in_cols), (out_name, out_rows, out_cols), *mlp = circulant_matrices(shape)
        items += circulant_matrix(s, in_name, "hyena", in_rows, in_cols, n_hyena)
        items += hyena_mixing(s, n_hyena)
        items += long_convolutions(s, n_hyena)
        items += circulant_matrix(s, out_name, "hyena", out_rows, out_cols, n_hyena)
        for name, rows, cols in mlp:
            items += circulant_matrix(s, name, "mlp", rows, cols, n_all)
    else:
        if n_hyena:
            items += dense_matrix(s, "hyena in-projection", "hyena", 3 * h, h, n_hyena)
            items += hyena_mixing(s, n_hyena)
            items += long_convolutions(s, n_hyena)
            items += dense_matrix(s, "hyena out-projection", "hyena", h, h, n_hyena)
        for name, rows, cols in (("mlp gate", inter, h), ("mlp up", inter, h), ("mlp down", h, inter)):
            items += dense_matrix(s, name, "mlp", rows, cols, n_all)
    items += dense_matrix(s, "lm head", "lm_head", shape.vocab, h, 1)
    return items
