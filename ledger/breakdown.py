"""Why the optical share falls from forward to step: one unit of work at a time, grouped from step_items.

A unit is one long-convolution channel for one sequence (Hyena), or one matrix applied to one
token (dense or block-circulant). Its FLOPs are split by phase (forward, dX, dW) and class, so
the forward and backward cost of the same piece of the model can be set side by side. Per-step
terms (filter and weight-block transforms, once per optimizer step) are divided over the units
of the step, exactly as the step's share divides them.

Everything here is a group-by over `ledger.step_items`; nothing is re-derived.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .errors import LedgerError
from .layers import ALL_PHASES, CLASSES, OPTICAL_CLASSES, RECOMPUTE, STATIC_CLASSES, LineItem
from .settings import Settings, circulant_matrices
from .shares import share
from .step import step_items

LONG_CONV_PREFIX = "long conv:"


@dataclass(frozen=True)
class UnitCost:
    """FLOPs of one unit of work, {phase: {class: FLOPs}}, per-step terms amortised over the step."""

    name: str
    unit: str
    """What one unit is, e.g. "one channel, one sequence" or "one token"."""
    units: float
    """How many such units the step holds."""
    flops: dict

    def phase(self, phase: str) -> float:
        return sum(self.flops[phase].values())

    @property
    def forward(self) -> float:
        return self.phase("forward")

    @property
    def backward(self) -> float:
        """The backward pass as it runs: any recompute, dX and dW."""
        return self.phase(RECOMPUTE) + self.phase("dX") + self.phase("dW")

    def optical(self, *phases: str) -> float:
        return sum(self.flops[p][c] for p in phases for c in OPTICAL_CLASSES)

    @property
    def optical_forward(self) -> float:
        return self.optical("forward")

    @property
    def optical_backward(self) -> float:
        return self.optical(RECOMPUTE, "dX", "dW")

    @property
    def backward_over_forward(self) -> float:
        return share(self.backward, self.forward)

    @property
    def optical_backward_over_forward(self) -> float:
        """How much optical work the backward pass adds, relative to the forward's."""
        return share(self.optical_backward, self.optical_forward)

    @property
    def forward_share(self) -> float:
        return share(self.optical_forward, self.forward)

    @property
    def backward_share(self) -> float:
        return share(self.optical_backward, self.backward)

    @property
    def step_share(self) -> float:
        return share(self.optical_forward + self.optical_backward, self.forward + self.backward)


def unit_cost(items: Iterable[LineItem], prefix: str, units: float, name: str, unit: str) -> UnitCost:
    """Sum the items whose op starts with `prefix` by phase and class, divided by `units`."""
    if not units or units <= 0:
        raise LedgerError(f"units = {units!r}: must be a positive number")
    table = {phase: dict.fromkeys(CLASSES, 0.0) for phase in ALL_PHASES}
    found = False
    for item in items:
        if item.op.startswith(prefix):
            table[item.phase][item.cls] += item.flops / units
            found = True
    if not found:
        raise LedgerError(f"prefix = {prefix!r}: no line item of this step starts with it")
    return UnitCost(name, unit, units, table)


def long_conv_channel(settings: Settings, items: list[LineItem] | None = None) -> UnitCost:
    """One Hyena long-convolution channel for one sequence: 2H channels per layer, per sequence."""
    if settings.hyena_layers == 0 or settings.variant == "transformer":
        raise LedgerError(f"variant = {settings.variant!r}: has no long convolutions (use hyena2, hybrid "
                          "or hyena2_circulant)")
    items = step_items(settings) if items is None else items
    units = settings.sequences * settings.channel_convolutions
    return unit_cost(items, LONG_CONV_PREFIX, units, "long convolution", "one channel, one sequence")


def matrix_names(settings: Settings) -> tuple[str, ...]:
    """The matrices of `settings.variant` that `matrix` can break down."""
    h_names = ("hyena in-projection", "hyena out-projection") if settings.hyena_layers else ()
    a_names = ("attention q", "attention k", "attention v", "attention o") if settings.attention_layers else ()
    return a_names + h_names + ("mlp gate", "mlp up", "mlp down", "lm head")


def matrix(settings: Settings, name: str = "mlp up", items: list[LineItem] | None = None) -> UnitCost:
    """One weight matrix applied to one token (dense, or block-circulant in hyena2_circulant)."""
    names = matrix_names(settings)
    if name not in names:
        raise LedgerError(f"matrix {name!r}: not in {settings.variant}; choose one of {', '.join(names)}")
    items = step_items(settings) if items is None else items
    if name == "lm head":
        layers = 1
    elif name.startswith("attention"):
        layers = settings.attention_layers
    elif name.startswith("hyena"):
        layers = settings.hyena_layers
    else:
        layers = settings.shape.n_layers
    circulant = settings.variant == "hyena2_circulant" and name in {m for m, _, _ in circulant_matrices(settings.shape)}
    kind = "block-circulant" if circulant else "dense"
    return unit_cost(items, name + ":", settings.step_tokens * layers, f"{name} ({kind})", "one token")


@dataclass(frozen=True)
class PerStepTerms:
    """The work done once per optimizer step (filter and weight-block transforms), against the step."""

    flops: float
    step_flops: float
    optical_flops: float

    @property
    def of_step(self) -> float:
        return share(self.flops, self.step_flops)

    @property
    def of_optical(self) -> float:
        return share(self.flops, self.optical_flops)


def per_step_terms(items: Iterable[LineItem]) -> PerStepTerms:
    """FLOPs of the items with per == "step", as a fraction of the step and of its optical work."""
    items = list(items)
    once = sum(i.flops for i in items if i.per == "step")
    total = sum(i.flops for i in items)
    optical = sum(i.flops for i in items if i.cls in OPTICAL_CLASSES)
    return PerStepTerms(once, total, optical)


FAMILIES = (
    "LM head (dense)",
    "dense projections and MLP",
    "attention scores",
    "elementwise (short conv, gates)",
    "Fourier-domain sums and accumulations",
    "data-by-data products (weight gradient)",
)


def family(item: LineItem) -> str:
    """The family of work an item belongs to, for the account of what stays digital."""
    if item.cls in STATIC_CLASSES:
        return "static optical"
    if item.cls == "data_product":
        return "data-by-data products (weight gradient)"
    if item.layer == "lm_head":
        return "LM head (dense)"
    if item.op.startswith("attention:"):
        return "attention scores"
    if item.op.startswith(("short conv", "gates")):
        return "elementwise (short conv, gates)"
    if "sum over" in item.op or "accumulate" in item.op:
        return "Fourier-domain sums and accumulations"
    return "dense projections and MLP"


def what_stays_digital(items: Iterable[LineItem]) -> dict[str, float]:
    """FLOPs per family of everything a once-per-step-mask engine cannot take (all FAMILIES, zeros kept).

    The data-by-data products are optical in kind but need a mask per sequence or token, so an
    engine whose masks change only between steps leaves them digital as well.
    """
    out = dict.fromkeys(FAMILIES, 0.0)
    for item in items:
        fam = family(item)
        if fam != "static optical" and item.layer != "embedding":  # the lookup costs 0 FLOPs
            out[fam] += item.flops
    return out


def nonlinear_values(settings: Settings) -> dict[str, float]:
    """Values per step that pass a nonlinearity in the forward pass (none of them is a transform or a FLOP
    the ledger counts): the SwiGLU activation (intermediate width), RMSNorm (two per layer and a final
    one, width H), attention softmax (one score per head per key), the output softmax (vocabulary)."""
    shape, tokens = settings.shape, float(settings.step_tokens)
    return {
        "SwiGLU activation": tokens * shape.n_layers * shape.intermediate,
        "RMSNorm": tokens * (2 * shape.n_layers + 1) * shape.hidden,
        "attention softmax": tokens * settings.attention_layers * shape.n_heads * settings.seq_len,
        "output softmax": tokens * shape.vocab,
    }
