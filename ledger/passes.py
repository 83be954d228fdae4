"""Views of one step's line items that the opening chapters need.

Nothing here counts a new operation: every figure is a sum or a quotient of the FLOPs that
`ledger.step_items` already lists. What this module adds is a finer name for each line
item's layer (attention projections apart from attention scores, long convolutions apart from
the Hyena projections), the cost of one long convolution of one channel, the 6N rule split by
phase, and the block sizes a model shape allows.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

from .errors import LedgerError
from .layers import LineItem
from .settings import Settings, check_block
from .shapes import ModelShape
from .step import step_items
from .table import six_n_by_phase  # noqa: F401  (the rule by phase lives beside six_n_flops)

KINDS = (
    "embedding",
    "attention projections",
    "attention scores",
    "hyena projections",
    "short conv and gates",
    "long convolutions",
    "MLP",
    "LM head",
)
"""Every layer kind `layer_kind` can return, in the order a layer runs them."""


def layer_kind(item: LineItem) -> str:
    """A finer layer name than `item.layer`: e.g. attention projections vs attention scores."""
    op = item.op
    if item.layer == "attention":
        return "attention scores" if op.startswith("attention: ") else "attention projections"
    if item.layer == "hyena":
        if op.startswith("long conv"):
            return "long convolutions"
        if op.startswith(("short conv", "gates")):
            return "short conv and gates"
        return "hyena projections"
    if item.layer == "mlp":
        return "MLP"
    if item.layer == "lm_head":
        return "LM head"
    if item.layer == "embedding":
        return "embedding"
    raise LedgerError(f"layer = {item.layer!r}: not a layer the ledger emits")


def group_by_kind(items: Iterable[LineItem], *keys: str) -> dict:
    """Sum FLOPs by layer kind and any further LineItem fields, e.g. group_by_kind(items, "phase").

    Keys are `(kind, value, ...)` tuples, or the kind alone when no field is given.
    """
    totals: dict = defaultdict(float)
    for item in items:
        key = (layer_kind(item),) + tuple(getattr(item, k) for k in keys)
        totals[key if keys else key[0]] += item.flops
    return dict(totals)


@dataclass(frozen=True)
class OpCost:
    """The FLOPs of one operation of one long convolution of one channel."""

    op: str
    phase: str
    cls: str
    per: str
    """"sequence": paid by every sequence; "step": once per optimizer step, shared by all sequences."""
    flops: float


def long_conv_per_channel(s: Settings) -> list[OpCost]:
    """The long-convolution line items of `s`, each divided by the channel-convolutions it covers.

    A per-sequence item covers sequences x (2 H x Hyena layers) channel-convolutions, a per-step
    item 2 H x Hyena layers; the quotient is what one channel costs per sequence or per step.
    """
    convs = s.channel_convolutions
    if convs == 0:
        raise LedgerError(f"variant = {s.variant!r} has no Hyena layers: choose hyena2, hybrid or hyena2_circulant")
    out = []
    for item in step_items(s):
        if not item.op.startswith("long conv"):
            continue
        covered = convs * (s.sequences if item.per == "sequence" else 1)
        out.append(OpCost(item.op.removeprefix("long conv: "), item.phase, item.cls, item.per, item.flops / covered))
    return out


def valid_blocks(shape: ModelShape, smallest: int = 2, largest: int | None = None) -> tuple[int, ...]:
    """Block sizes from `smallest` to `largest` that tile every circulant matrix of `shape` exactly."""
    if isinstance(smallest, bool) or not isinstance(smallest, int) or smallest < 2:
        raise LedgerError(f"smallest = {smallest!r}: must be an integer of at least 2")
    top = min(shape.hidden, shape.intermediate) if largest is None else largest
    if isinstance(top, bool) or not isinstance(top, int) or top < smallest:
        raise LedgerError(f"largest = {largest!r}: must be an integer no smaller than smallest = {smallest}")
    out = []
    for b in range(smallest, top + 1):
        try:
            check_block(b, shape)
        except LedgerError:
            continue
        out.append(b)
    return tuple(out)
