"""The order in which a step's sequences meet the layers: what memory it holds, what mask frames it costs.

Layer-major order runs every sequence of the step through one layer while that layer's masks
are loaded, then moves to the next layer: each weight mask is written once per sweep (twice per
optimizer step, at the forward and backward visits), but the
activations of every sequence of the step wait at each layer boundary. Sequence-major order
(one sequence through the whole model, then the next) holds one sequence's activations and
rewrites every layer's masks for every sequence. A micro-batch order of m sequences lies in
between: weight masks rewritten for every micro-batch, m sequences held at a boundary.

Frames follow the ledger's convention: ceil(values / values per frame) per full rewrite of the
model's weight masks; seconds = frames / frame rate. Data-by-data masks are per sequence (or
per token) whatever the order, so the order does not change them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import LedgerError, check_positive_int, check_positive_number
from .masks import mask_budget
from .memory import held_for_backward
from .settings import Settings
from .step import step_items

HBM_BYTES_PER_GPU = 80e9
"""An 80 GB accelerator (H100- or A100-80GB-class), the default device memory figure."""


def boundary_bytes(step_tokens: int, hidden: int, bytes_per_value: float = 2) -> float:
    """Bytes of the activations at one layer boundary for every token of the step: T * H * bytes."""
    check_positive_int("step_tokens", step_tokens)
    check_positive_int("hidden", hidden)
    check_positive_number("bytes_per_value", bytes_per_value)
    return float(step_tokens) * hidden * bytes_per_value


@dataclass(frozen=True)
class HeldActivations:
    """What layer-major order keeps in memory, against the cluster's device memory."""

    boundary_bytes: float
    """One layer boundary, every sequence of the step (what the next layer's pass needs)."""
    checkpoint_bytes: float
    """Every layer's input, kept for the backward pass (the checkpoints under full recompute; with none,
    the least of the kept activations)."""
    spectra_bytes: float
    """Input spectra kept for the data-by-data weight gradients (complex values), live at the peak under
    the run policy: every Hyena layer's with recompute "none", one layer's with "full" (ledger.run)."""
    hbm_bytes_per_gpu: float
    gpus: float
    head_bytes: float = 0.0
    """What the final norm, the LM head and the loss keep for every sequence of the step (the loss's fp32
    log-probabilities almost all of it; ledger.memory.HEAD_TENSORS), under either policy."""

    @property
    def hbm_bytes(self) -> float:
        """Device memory of the whole cluster."""
        return self.hbm_bytes_per_gpu * self.gpus

    def where(self, nbytes: float) -> str:
        """Where `nbytes` can live: one GPU's memory, the cluster's, or neither (host memory or storage)."""
        if nbytes <= self.hbm_bytes_per_gpu:
            return "one GPU's HBM"
        if nbytes <= self.hbm_bytes:
            return "the cluster's HBM, sharded"
        return "beyond the cluster's HBM (host memory or storage)"

    def of_hbm(self, nbytes: float) -> float:
        """`nbytes` as a fraction of the cluster's device memory."""
        return nbytes / self.hbm_bytes


def held_activations(settings: Settings, bytes_per_value: float = 2, hbm_bytes_per_gpu: float = HBM_BYTES_PER_GPU,
                     items=None) -> HeldActivations:
    """Layer-major memory of the whole step in one place, under the run policy of `settings` (recompute):
    bytes_per_value 2 for bf16, device memory per GPU x settings.device.gpus."""
    check_positive_number("hbm_bytes_per_gpu", hbm_bytes_per_gpu)
    one = boundary_bytes(settings.step_tokens, settings.shape.hidden, bytes_per_value)
    held = held_for_backward(settings, bytes_per_value=bytes_per_value, items=items)
    return HeldActivations(one, held.layer_inputs_bytes, held.spectra_bytes, hbm_bytes_per_gpu,
                           settings.device.gpus, held.head_bytes)


@dataclass(frozen=True)
class ScheduleCost:
    """Mask frames, seconds and boundary memory of one order of a step."""

    micro_batch: int
    """Sequences that pass a layer while its masks are loaded (1: sequence-major; all: layer-major)."""
    rewrites: int
    """Full rewrites of the model's weight masks per optimizer step."""
    weight_frames: int
    weight_mask_s: float
    data_frames: int
    data_mask_s: float
    boundary_bytes: float
    """Activations held at a layer boundary: micro_batch sequences."""
    backward_bytes: float = 0.0
    """Held from the forward to the backward pass for the micro-batch under the run policy: every layer's
    input, the head's tensors and the input spectra live at the peak (ledger.memory.held_for_backward)."""

    @property
    def order(self) -> str:
        return "sequence-major" if self.micro_batch == 1 else f"micro-batches of {self.micro_batch}"


def schedule_cost(settings: Settings, micro_batch: int, bytes_per_value: float = 2, items=None) -> ScheduleCost:
    """Frames and memory when the step runs in micro-batches of `micro_batch` sequences."""
    check_positive_int("micro_batch", micro_batch)
    if micro_batch > settings.sequences:
        raise LedgerError(f"micro_batch = {micro_batch}: a step of {settings.step_tokens} tokens holds only "
                          f"{settings.sequences} sequences of {settings.seq_len}")
    items = step_items(settings) if items is None else items
    budget = mask_budget(items, settings.device)
    rewrites = math.ceil(settings.sequences / micro_batch)
    weight_frames = rewrites * budget.weight_frames
    rate = settings.device.frame_rate_hz
    held = boundary_bytes(micro_batch * settings.seq_len, settings.shape.hidden, bytes_per_value)
    backward = held_for_backward(settings, micro_batch, bytes_per_value, items).total_bytes
    return ScheduleCost(micro_batch, rewrites, weight_frames, weight_frames / rate,
                        budget.data_frames, budget.data_frames / rate, held, backward)


def layer_major(settings: Settings, bytes_per_value: float = 2, items=None) -> ScheduleCost:
    """Every sequence of the step through each layer: each weight mask written once per sweep, twice per step."""
    return schedule_cost(settings, settings.sequences, bytes_per_value, items)


def sequence_major(settings: Settings, bytes_per_value: float = 2, items=None) -> ScheduleCost:
    """One sequence through the whole model at a time: every mask rewritten for every sequence."""
    return schedule_cost(settings, 1, bytes_per_value, items)


def micro_batch_sizes(settings: Settings) -> list[int]:
    """1, 2, 4, ... up to the step's sequences (which is always included)."""
    sizes, m = [], 1
    while m < settings.sequences:
        sizes.append(m)
        m *= 2
    return sizes + [settings.sequences]


def schedule_sweep(settings: Settings, bytes_per_value: float = 2) -> list[ScheduleCost]:
    """schedule_cost for every size of micro_batch_sizes (one ledger evaluation)."""
    items = step_items(settings)
    return [schedule_cost(settings, m, bytes_per_value, items) for m in micro_batch_sizes(settings)]
