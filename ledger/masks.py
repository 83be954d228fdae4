"""Holding the masks: frames and seconds to write every mask of a step, and the digital step time.

Frames and seconds come from the engine (ledger.engine.Engine): its modulator mode's frame rate and
values per pixel, and its Fourier-plane layout (packed, or one spectrum per row). A view
(docs/layout.md): it reads a step's line items and the engine, and builds nothing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from .engine import Engine
from .layers import LineItem


@dataclass(frozen=True)
class MaskBudget:
    """Complex values, frames and seconds of mask writes per optimizer step (layer-major order)."""

    weight_values: float
    data_values: float
    weight_frames: int
    data_frames: int
    weight_mask_s: float
    data_mask_s: float


def frames(values: float, device: Engine) -> int:
    """Whole frames needed to write `values` complex values packed: ceil(values / values per frame)
    (layout "packed"; mask_budget counts rows for layout "rows")."""
    return math.ceil(values / device.values_per_frame) if values > 0 else 0


def mask_rows(items: Iterable[LineItem], engine: Engine) -> float:
    """Rows the items' masks occupy in layout "rows": every spectrum starts a row of its own, and one
    longer than a row continues on the next ones (as if the Fourier plane were folded over rows or tiled
    from several devices: the count prices the pixels, not the optics that would fold it)."""
    total = 0.0
    for i in items:
        if i.mask_values > 0:
            spectra = i.mask_values / i.mask_len
            total += spectra * engine.rows_for(i.mask_len)
    return total


def mask_budget(items: Iterable[LineItem], device: Engine) -> MaskBudget:
    """Weight masks (spectra and conjugates, twice per step: forward and backward visits) and data-by-data masks
    (per sequence or token)."""
    items = list(items)
    weight_items = [i for i in items if i.cls == "weight_product"]
    data_items = [i for i in items if i.cls == "data_product"]
    weight = sum(i.mask_values for i in weight_items)
    data = sum(i.mask_values for i in data_items)
    wf = device.frames(weight, mask_rows(weight_items, device))
    df = device.frames(data, mask_rows(data_items, device))
    rate = device.frame_rate_hz
    return MaskBudget(weight, data, wf, df, wf / rate, df / rate)


LONG_CONV_PREFIX = "long conv:"
"""Line items of the Hyena long convolutions start their op with this (ledger.layers); the rest are weight blocks."""


def weight_mask_split(items: Iterable[LineItem]) -> dict[str, float]:
    """Weight-mask complex values per step split into {"filters": long-convolution filter spectra,
    "blocks": block-circulant weight spectra}; their sum is mask_budget's weight_values."""
    out = {"filters": 0.0, "blocks": 0.0}
    for i in items:
        if i.cls == "weight_product":
            out["filters" if i.op.startswith(LONG_CONV_PREFIX) else "blocks"] += i.mask_values
    return out


def digital_step_seconds(step_flops: float, device: Engine) -> float:
    """The whole step, optical classes included, run digitally on the illustrative cluster."""
    return step_flops / device.cluster_flops
