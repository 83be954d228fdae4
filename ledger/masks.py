"""Holding the masks: frames and seconds to write every mask of a step, and the digital step time."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from .layers import LineItem
from .settings import Device


@dataclass(frozen=True)
class MaskBudget:
    """Complex values, frames and seconds of mask writes per optimizer step (layer-major order)."""

    weight_values: float
    data_values: float
    weight_frames: int
    data_frames: int
    weight_mask_s: float
    data_mask_s: float


def frames(values: float, device: Device) -> int:
    """Whole frames needed to write `values` complex values: ceil(values / values per frame)."""
    return math.ceil(values / device.values_per_frame) if values > 0 else 0


def mask_budget(items: Iterable[LineItem], device: Device) -> MaskBudget:
    """Weight masks (spectra and conjugates, once per step) and data-by-data masks (per sequence or token)."""
    weight = sum(i.mask_values for i in items if i.cls == "weight_product")
    data = sum(i.mask_values for i in items if i.cls == "data_product")
    wf, df = frames(weight, device), frames(data, device)
    return MaskBudget(weight, data, wf, df, wf / device.frame_rate, df / device.frame_rate)


def digital_step_seconds(step_flops: float, device: Device) -> float:
    """The whole step, optical classes included, run digitally on the illustrative cluster."""
    return step_flops / device.cluster_flops
