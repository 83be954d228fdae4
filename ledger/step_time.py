"""Seconds, not FLOPs: the step on the GPUs alone, and the hybrid step with the engine's own time paid.

A view (docs/layout.md) over one step's line items and its settings. Every time divides *work*, the item's
FLOPs at the prices device rates are quoted in (`LineItem.reference_flops`, ledger.costs.REFERENCE), so
the counting conventions (FMA counting, the complex multiply's price, the FFT constant, causal halving)
move counts and shares but no second. The attention core is timed as the chosen kernel runs it
(ledger.hardware).

On the GPUs (Engine.gpus of them, the work split evenly): a matrix product, and a block-circulant matrix's
products with their sums over blocks (one batched complex matrix product per bin, ledger.timing), run at
the sustained tensor-core rate `gpu_flops`; an FFT, a spectral product and elementwise work take the
longer of their work at `gpu_vector_flops` and their memory traffic (`LineItem.moved` values of
`gpu_bytes_per_value` bytes) at `gpu_bandwidth`, a roofline with the device's peak figures, so a lower
bound on their time.

The hybrid step gives the engine the static work (transforms and weight-masked products; the data-by-data
products stay on the GPUs, whose masks would be rewritten per sequence) as fused 4f passes
(ledger.boundary, mode "fused", U and G read out for the digital weight gradient). The engine's time:
- streaming, the slowest of four stages that run concurrently, frame after frame (generous to the
  engine: none waits for another): the input plane writing values_in real numbers at `Engine.io_rate`,
  the detector taking `readout_samples` samples per number read out at `Engine.detector_rate`, the link carrying
  both ways at `link_rate` (`link_bytes_per_value` bytes a number), and the optics computing at
  `optical_speedup` times the GPUs' speed for that work (free at infinity);
- the weight-mask rewrites (ledger.masks), added to the streaming ("serial") or run beside it on a
  double-buffered device ("overlapped"), whichever `Engine.mask_overlap` says.
The GPUs wait for the engine's outputs within each layer, so the hybrid step is the GPUs' remainder plus
the engine's time: nothing of the two overlaps. `Engine.engines` engines (1 by default: one for the cluster)
share the streaming evenly, and each rewrites every mask; break-even rates are per engine.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from .boundary import conversions
from .hardware import hardware_items
from .layers import STATIC_CLASSES, LineItem
from .masks import mask_budget
from .settings import Settings
from .timing import kernel_of

TENSOR_KERNELS = ("matmul", "block_product")
"""Kernel kinds (ledger.timing.KERNELS) that run on tensor cores at the sustained matrix rate."""


def item_seconds(item: LineItem, settings: Settings) -> float:
    """Seconds the GPUs spend on one line item: its work at its kind's rate, or its memory traffic at the
    bandwidth when that is longer, split over the cluster's GPUs."""
    e = settings.device
    work = item.reference_flops
    if kernel_of(item) in TENSOR_KERNELS:
        seconds = work / e.gpu_flops
    else:
        seconds = max(work / e.gpu_vector_flops, item.moved * e.gpu_bytes_per_value / e.gpu_bandwidth)
    return seconds / e.gpus


@dataclass(frozen=True)
class StepTime:
    """One step in seconds: on the GPUs alone, and as the hybrid step with the engine's time paid."""

    gpu_rest_s: float
    """GPU seconds of everything the engine does not take."""
    engine_work_gpu_s: float
    """GPU seconds of the work the engine takes (transforms and weight-masked products): what it could save."""
    input_s: float
    """Seconds the input plane spends writing the numbers streamed in."""
    detector_s: float
    """Seconds the detector spends on the numbers read out (readout samples each)."""
    link_s: float
    """Seconds the link spends carrying the numbers in and out (each way at its rate; the busier way counts)."""
    optics_s: float
    """Seconds the optics compute at optical_speedup times the GPUs' speed (0 when free)."""
    mask_s: float
    """Seconds of weight-mask rewrites per step."""
    mask_overlap: str
    values_in: float
    values_out: float
    detector_samples: float
    mask_frames: int
    link_bytes: float
    """Bytes on the busier way of the link per step, over all the engines."""
    engines: float = 1
    """Engines sharing the streaming (Engine.engines)."""

    @property
    def all_digital_step_s(self) -> float:
        """Every operation on the GPUs."""
        return self.gpu_rest_s + self.engine_work_gpu_s

    @property
    def stream_s(self) -> float:
        """The engine's streaming time: its slowest concurrent stage."""
        return max(self.input_s, self.detector_s, self.link_s, self.optics_s)

    @property
    def engine_s(self) -> float:
        """The engine's time per step: streaming plus the mask rewrites, or the longer of the two when they overlap."""
        if self.mask_overlap == "overlapped":
            return max(self.stream_s, self.mask_s)
        return self.stream_s + self.mask_s

    @property
    def hybrid_step_s(self) -> float:
        """The GPUs' remainder plus the engine's time."""
        return self.gpu_rest_s + self.engine_s

    @property
    def net_speedup(self) -> float:
        """all_digital_step_s / hybrid_step_s: above 1 the engine saves time, below 1 it costs time."""
        return self.all_digital_step_s / self.hybrid_step_s

    @property
    def time_share(self) -> float:
        """The engine's work as a share of the all-digital step's seconds, at the GPU rates in use."""
        return self.engine_work_gpu_s / self.all_digital_step_s if self.all_digital_step_s > 0 else 0.0

    @property
    def amdahl_time(self) -> float:
        """1 / (1 - time_share): the bound with every engine cost free (no row's net_speedup exceeds it)."""
        return 1.0 / (1.0 - self.time_share) if self.time_share < 1 else math.inf

    def break_even(self) -> dict[str, float | None]:
        """The rate of each engine part at which its time alone equals the seconds the engine could save, every
        other part free: input plane (real numbers/s), mask device (frames/s), detector (samples/s), link
        (bytes/s each way). None when the engine takes no work; a part below its rate costs more than it saves."""
        saved = self.engine_work_gpu_s
        if saved <= 0:
            return dict.fromkeys(("input_rate", "mask_rate", "detector_rate", "link_rate"))
        n = self.engines
        return {"input_rate": self.values_in / n / saved, "mask_rate": self.mask_frames / saved,
                "detector_rate": self.detector_samples / n / saved,
                "link_rate": self.link_bytes / n / saved}


def step_time(settings: Settings, items: Iterable[LineItem], block_sum: str = "digital") -> StepTime:
    """The step of `settings` whose model line items are `items` (ledger.step.step_items), in seconds.

    `block_sum` says where a circulant matrix sums its blocks (ledger.boundary.BLOCK_SUMS): the FLOP classes'
    "digital", or "optical" when the items count the sums as optical work (ledger.assumptions)."""
    items = list(items)
    e = settings.device
    gpu_rest = engine_work = 0.0
    for item in hardware_items(settings, items):
        seconds = item_seconds(item, settings)
        if item.cls in STATIC_CLASSES:
            engine_work += seconds
        else:
            gpu_rest += seconds
    if engine_work > 0:
        crossing = conversions(settings, items, mode="fused", block_sum=block_sum)
        values_in, values_out, samples = crossing.values_in, crossing.values_out, crossing.detector_samples
    else:
        values_in = values_out = samples = 0.0
    masks = mask_budget(items, e)
    link_bytes = max(values_in, values_out) * e.link_bytes_per_value
    optics = engine_work / settings.optical_speedup if math.isfinite(settings.optical_speedup) else 0.0
    n = e.engines  # the streaming is split among the engines; each rewrites every mask
    return StepTime(gpu_rest_s=gpu_rest, engine_work_gpu_s=engine_work, input_s=values_in / e.io_rate / n,
                    detector_s=samples / e.detector_rate / n, link_s=link_bytes / e.link_rate / n, optics_s=optics / n,
                    mask_s=masks.weight_mask_s, mask_overlap=e.mask_overlap, values_in=values_in,
                    values_out=values_out, detector_samples=samples, mask_frames=masks.weight_frames,
                    link_bytes=link_bytes, engines=n)
