"""What crosses the optical/digital boundary per step: real numbers in and out for each assignment of work.

A view (docs/layout.md): it reads a step's line items (built once by ledger.step) and the settings'
engine. ledger.hidden_costs prices these counts in seconds, energy and precision.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .errors import LedgerError
from .layers import LineItem
from .settings import Settings
from .step import step_items

MODES = ("separate", "fused")
"""separate: every transform is its own trip in and out. fused: a 4f pass does rFFT, mask product and inverse
rFFT in one trip, and taps at its Fourier plane every spectrum the digital side needs later."""
BLOCK_SUMS = ("digital", "optical")
"""Where a block-circulant matrix's sum over blocks happens; the first, the one the FLOP classes charge, is the
default."""
WEIGHT_GRADIENTS = ("readout", "recompute")
"""How the digital weight gradient (G.conj(U), G_i.conj(X_j)) gets its spectra in fused mode. readout: the
forward and dX passes tap U and G (and the X and G blocks) at their Fourier planes and read them out.
recompute: the GPUs compute those rFFTs again from u and g, nothing more crosses, and the FLOPs the optics
saves shrink by the recomputed FFTs."""


def transform_size(item: LineItem, settings: Settings) -> tuple[int, int]:
    """(time-domain samples that cross, frequency bins) of one transform of `item`."""
    if item.cls != "transform":
        raise LedgerError(f"item {item.op!r}: is a {item.cls}, not a transform")
    if item.op.startswith("long conv:"):
        return settings.seq_len, settings.costs.bins(settings.fft_len)
    return settings.block, settings.costs.bins(settings.block)


def _is_inverse(item: LineItem) -> bool:
    return item.op.split(":", 1)[-1].strip().startswith("inverse")


def _is_circulant_sum_boundary(item: LineItem) -> bool:
    """A per-token circulant item whose data crosses when the block sum is digital: a block product
    (its spectrum out; separate, its input spectrum in too) or an inverse transform of summed blocks
    (its spectrum in)."""
    if item.op.startswith("long conv:") or item.per == "step":
        return False
    return (item.cls == "weight_product" and "W_ij" in item.op) or (item.cls == "transform" and _is_inverse(item))


def feeds_weight_gradient(item: LineItem) -> bool:
    """A forward or dX rFFT of data (u, g, x blocks, g blocks) whose spectrum the weight gradient multiplies."""
    return (item.cls == "transform" and item.per != "step" and item.phase in ("forward", "dX")
            and not _is_inverse(item))


@dataclass(frozen=True)
class Conversions:
    """Real numbers crossing the digital/optical boundary per optimizer step."""

    mode: str
    values_in: float
    values_out: float
    optical_flops: float
    block_sum: str = "digital"
    """Where a circulant matrix sums its blocks ("digital" or "optical")."""
    weight_gradient: str = "readout"
    """How the digital weight gradient gets its spectra (WEIGHT_GRADIENTS; matters in fused mode only)."""
    gpu_fft_flops: float = 0.0
    """FLOPs of the rFFTs the GPUs recompute (weight_gradient "recompute", fused mode), else 0."""
    readout_samples: int = 2
    """Detector samples per real number read out (Engine.readout)."""

    @property
    def values(self) -> float:
        return self.values_in + self.values_out

    @property
    def detector_samples(self) -> float:
        """Samples the detector takes per step to read values_out (2 each, interferometric)."""
        return self.values_out * self.readout_samples

    @property
    def boundary_operations(self) -> float:
        """What the boundary's rate is spent on per step: one write per number in, one detector sample per
        sample out (values_in + detector_samples); hidden_costs times these at Engine.io_rate."""
        return self.values_in + self.detector_samples

    @property
    def flops_per_value(self) -> float:
        """Optical FLOPs per number converted: the optics' arithmetic intensity."""
        return self.optical_flops / self.values if self.values else 0.0


def conversions(settings: Settings, items: Iterable[LineItem] | None = None, mode: str = "separate",
                block_sum: str = "digital", weight_gradient: str = "readout") -> Conversions:
    """Real numbers written into (in) and read out of (out) the optics per step, for one assignment of work.

    A long convolution's input is S samples (the zero padding to n is dark pixels) and only its first S
    outputs are kept; a circulant block is b samples; a spectrum of k complex bins is 2k real numbers.
    Fused, one pass per sequence, channel and filter: u in, U tapped at the Fourier plane and read out, H.U
    inverse-transformed, y out (dX likewise: g in, G out, du out); the weight gradient is digital, from U
    and G (weight_gradient "readout") or from rFFTs the GPUs recompute ("recompute"). Per-step transforms
    (filter and weight-block spectra, accumulated gradients) cross both ways in either mode.
    """
    if mode not in MODES:
        raise LedgerError(f"mode = {mode!r}: must be one of {', '.join(MODES)}")
    if block_sum not in BLOCK_SUMS:
        raise LedgerError(f"block_sum = {block_sum!r}: must be one of {', '.join(BLOCK_SUMS)}")
    if weight_gradient not in WEIGHT_GRADIENTS:
        raise LedgerError(f"weight_gradient = {weight_gradient!r}: must be one of {', '.join(WEIGHT_GRADIENTS)}")
    items = step_items(settings) if items is None else list(items)
    v_in = v_out = gpu_fft = 0.0
    for item in items:
        if block_sum == "digital" and _is_circulant_sum_boundary(item):
            spectrum = 2 * settings.costs.bins(settings.block)  # a block's complex bins, two reals each
            if item.cls == "weight_product":
                v_out += item.count * spectrum  # every block product leaves for the digital sum
                if mode == "separate":
                    v_in += item.count * spectrum  # its own trip: the block's spectrum goes in
            elif mode == "fused":
                v_in += item.count * spectrum  # the summed spectrum comes back for the inverse transform
                # (separate: the inverse transform's own input, counted with the transforms below)
        if item.cls != "transform":
            continue
        samples, bins = transform_size(item, settings)
        spectrum = 2 * bins  # complex bins, two real numbers each
        inverse = _is_inverse(item)
        if mode == "fused" and item.per != "step":
            v_in += 0 if inverse else item.count * samples
            v_out += item.count * samples if inverse else 0
            if feeds_weight_gradient(item):
                if weight_gradient == "readout":
                    v_out += item.count * spectrum  # tapped at the Fourier plane for the digital dW
                else:
                    gpu_fft += item.flops  # the GPUs compute this rFFT again
        else:
            v_in += item.count * (spectrum if inverse else samples)
            v_out += item.count * (samples if inverse else spectrum)
    optical = sum(i.flops for i in items if i.cls in ("transform", "weight_product", "data_product"))
    return Conversions(mode, v_in, v_out, optical, block_sum, weight_gradient, gpu_fft,
                       settings.device.readout_samples)
