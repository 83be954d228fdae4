"""Hardware FLOPs: what the attention kernel and the recompute policy make the GPU execute.

Model FLOPs (PaLM's convention, what the rest of the ledger counts by default) price the full
S x S products QK^T and AV, forward and backward, once. A kernel executes something else:

- "dense": QK^T, softmax and AV materialised in device memory; every score is computed (a causal
  mask is applied after the product), and the backward uses the stored probabilities. Equal to
  the model count of the products.
- "flash": FlashAttention without a causal mask (Dao et al. 2022, 2023). The S x S scores are never
  stored, so the backward recomputes QK^T before forming dV, dP, dQ and dK: five products of the
  forward's size against the forward's two, 2.5x the forward of the attention core.
- "flash-causal": the same with the causal mask handled tile by tile: a tile wholly above the
  diagonal is skipped, a tile that the diagonal crosses is computed whole. With square tiles of
  `tile` rows and columns the kernel computes, for query tile i, its rows times the keys up to the
  tile's last row: sum_i rows_i * min((i+1) tile, S) score entries, about S^2/2 + S*tile/2.
  When a sequence packs several documents (Settings.documents) the mask is causal and within one
  document, as torchtitan's FlexAttention block mask is (block_causal, in 128 x 128 blocks,
  PyTorch's default sparse block): a tile with no unmasked entry is skipped, every other one,
  those cut by a document boundary included, is computed whole (packed_causal_score_entries). A
  varlen kernel that tiles each document from its own start (FlashAttention's varlen interface,
  which Megatron-LM's packed sequences reach through Transformer Engine) computes
  varlen_causal_score_entries instead.
  "dense" and "flash" compute every score of the row whatever the documents: a dense kernel applies
  the mask after the product, and "flash" is the kernel that skips nothing.

Recomputation (Settings.recompute = "full") runs the kernel's forward again before its backward,
on top of any recompute the kernel does itself. The Hyena long convolutions, the projections, the
MLP and the LM head execute what the model count says, so only the attention core changes here.
Hardware FLOPs do not follow `Costs.causal_attention`, a counting convention: they follow the kernel.

A view (docs/layout.md): `hardware_items` and `hardware_flops_of` read a step's line items; the functions
that take settings and overrides build those items once themselves.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

from .costs import REFERENCE
from .errors import LedgerError
from .layers import RECOMPUTE, LineItem
from .settings import ATTENTION_KERNELS, Settings, make_settings
from .step import step_items

KERNEL_RECOMPUTE_OP = "attention: Q K^T recomputed by the kernel's backward"
"""The line item of the QK^T a flash kernel recomputes inside its backward (phase "recompute")."""

__all__ = ["ATTENTION_KERNELS", "causal_score_entries", "packed_causal_score_entries", "varlen_causal_score_entries", "score_fraction", "attention_core_items",
           "hardware_items", "hardware_flops", "hardware_flops_of", "kernel_recompute_flops", "model_flops"]


def causal_score_entries(seq_len: int, tile: int) -> int:
    """Score entries a causal kernel with square `tile` x `tile` tiles computes for one head of one
    sequence: tiles above the diagonal skipped, tiles on it computed whole.

    Query tile i holds rows [i*tile, min((i+1)*tile, S)) and attends to keys [0, min((i+1)*tile, S)).
    """
    if isinstance(seq_len, bool) or not isinstance(seq_len, int) or seq_len <= 0:
        raise LedgerError(f"seq_len = {seq_len!r}: must be a positive integer")
    if isinstance(tile, bool) or not isinstance(tile, int) or tile <= 0:
        raise LedgerError(f"attention_tile = {tile!r}: must be a positive integer")
    total = 0
    for start in range(0, seq_len, tile):
        end = min(start + tile, seq_len)
        total += (end - start) * end
    return total


def packed_causal_score_entries(doc_lengths, tile: int) -> int:
    """Score entries a block-sparse causal kernel computes for one head of one row that packs documents
    of `doc_lengths` tokens, each attending causally within itself only (torchtitan's FlexAttention
    block mask, causal and same-document; Megatron-LM's packed sequences): a tile with no unmasked
    entry is skipped, any other tile is computed whole. One document gives causal_score_entries.

    Query tile i's rows attend to keys from the start of its first row's document up to its last row,
    a contiguous range, so it computes every key tile from that start's tile to the diagonal.
    """
    if isinstance(doc_lengths, (str, bytes)) or not hasattr(doc_lengths, "__iter__"):
        raise LedgerError(f"doc_lengths = {doc_lengths!r}: must be a list of positive integers (tokens per document)")
    lengths = list(doc_lengths)
    if not lengths or any(isinstance(n, bool) or not isinstance(n, int) or n <= 0 for n in lengths):
        raise LedgerError(f"doc_lengths = {doc_lengths!r}: must be a non-empty list of positive integers")
    if isinstance(tile, bool) or not isinstance(tile, int) or tile <= 0:
        raise LedgerError(f"attention_tile = {tile!r}: must be a positive integer")
    seq_len = sum(lengths)
    doc_start = []  # the first token of each token's document
    start = 0
    for n in lengths:
        doc_start += [start] * n
        start += n
    total = 0
    for first in range(0, seq_len, tile):
        end = min(first + tile, seq_len)
        total += (end - first) * (end - (doc_start[first] // tile) * tile)
    return total


def varlen_causal_score_entries(doc_lengths, tile: int) -> int:
    """Score entries a variable-length causal kernel computes for one head of one packed row: each document
    tiled from its own first token, as its own causal sequence (FlashAttention's flash_attn_varlen_func with
    cu_seqlens). Never more than packed_causal_score_entries, which tiles the row from its start."""
    packed_causal_score_entries(doc_lengths, tile)  # the same refusals of bad input
    return sum(causal_score_entries(n, tile) for n in doc_lengths)


def score_fraction(kernel: str, seq_len: int, tile: int) -> float:
    """Fraction of the S x S score matrix the kernel computes: 1 for dense and flash, about
    1/2 + tile/(2S) for flash-causal."""
    if kernel not in ATTENTION_KERNELS:
        raise LedgerError(f"attention_kernel = {kernel!r}: must be one of {', '.join(ATTENTION_KERNELS)}")
    if kernel == "flash-causal":
        return causal_score_entries(seq_len, tile) / (seq_len * seq_len)
    return 1.0


def attention_core_items(s: Settings, n_layers: int | None = None) -> list[LineItem]:
    """The attention core (QK^T and AV) as the kernel `s.attention_kernel` executes it in one step.

    Each product of the forward's size costs flops_per_mac * (score entries) * H per sequence per
    layer. Forward: QK^T and AV. Recompute (s.recompute = "full"): both again. Flash kernels: QK^T
    once more inside the backward. dX: dQ and dK from QK^T, dP and dV from AV (two products each).
    """
    layers = s.attention_layers if n_layers is None else n_layers
    if layers == 0:
        return []
    h, seq = s.shape.hidden, s.seq_len
    count = s.sequences * layers
    if s.attention_kernel == "flash-causal" and s.documents is not None:
        entries = packed_causal_score_entries(s.documents, s.attention_tile)
        one = count * s.costs.matmul(entries, h, 1)
    else:
        one = count * score_fraction(s.attention_kernel, seq, s.attention_tile) * s.costs.matmul(seq, h, seq)
    items = [
        LineItem("attention: Q K^T", "attention", "forward", "digital", "sequence", count, one),
        LineItem("attention: A V", "attention", "forward", "digital", "sequence", count, one),
    ]
    if s.recompute == "full":
        items += [replace(i, phase=RECOMPUTE) for i in items]
    if s.attention_kernel != "dense":
        items.append(LineItem(KERNEL_RECOMPUTE_OP, "attention", RECOMPUTE,
                              "digital", "sequence", count, one))
    items += [
        LineItem("attention: dQ, dK from Q K^T", "attention", "dX", "digital", "sequence", count, 2 * one),
        LineItem("attention: dA, dV from A V", "attention", "dX", "digital", "sequence", count, 2 * one),
    ]
    if s.costs.flops_per_mac != REFERENCE.flops_per_mac:  # the kernel's work at the prices rates are quoted in
        scale = REFERENCE.flops_per_mac / s.costs.flops_per_mac
        items = [replace(i, work=i.flops * scale) for i in items]
    return items


def _is_core(item: LineItem) -> bool:
    return item.layer == "attention" and item.op.startswith("attention:")


def hardware_items(s: Settings, items: Iterable[LineItem] | None = None) -> list[LineItem]:
    """The step's line items as the hardware runs them: `items` (default: step_items(s), with its
    recompute) with the attention core replaced by the kernel's."""
    base = step_items(s) if items is None else list(items)
    return [i for i in base if not _is_core(i)] + attention_core_items(s)


def hardware_flops_of(s: Settings, items: Iterable[LineItem]) -> float:
    """Hardware FLOPs of a step whose model line items (recompute included) are `items`."""
    return sum(i.flops for i in hardware_items(s, items))


def hardware_flops(settings: Settings | None = None, **overrides: Any) -> float:
    """FLOPs the hardware executes in one step of `settings` (fields overridable by keyword, as in
    step_row): the kernel's attention core, any recomputation, everything else as counted.

    E.g. hardware_flops(variant="transformer", seq_len=32768, attention_kernel="flash-causal").
    """
    s = make_settings(settings, **overrides)
    return hardware_flops_of(s, step_items(s))


def kernel_recompute_flops(settings: Settings | None = None, **overrides: Any) -> float:
    """FLOPs a flash kernel's backward spends recomputing QK^T in one step (0 for dense): the
    recomputation FlashAttention does on its own, whatever the recompute policy."""
    s = make_settings(settings, **overrides)
    return sum(i.flops for i in attention_core_items(s) if i.op == KERNEL_RECOMPUTE_OP)


def model_flops(settings: Settings | None = None, **overrides: Any) -> float:
    """Model FLOPs of one step (PaLM): the ledger's count without recomputation, whatever the kernel."""
    s = make_settings(settings, **overrides)
    return sum(i.flops for i in step_items(replace(s, recompute="none")))
