"""Memory under the run policy: what one place, or one data-parallel rank, holds for the backward pass.

A view (docs/layout.md): it reads the settings' run policy (ledger.run) and, for the Hyena spectra,
a step's line items through ledger.masks. Recompute "none" keeps every layer's activations, the kept
input spectra included; "full" (checkpoints at each layer boundary) keeps the layer inputs and one
layer's spectra at a time, rebuilt when its backward starts.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import LedgerError, check_positive_number
from .masks import mask_budget
from .run import run_policy
from .settings import Settings
from .step import step_items


@dataclass(frozen=True)
class HeldMemory:
    """Bytes one place holds for the backward pass under the run policy (bf16 by default)."""

    sequences: float
    """Sequences whose activations are held."""
    recompute: str
    layer_inputs_bytes: float
    """Every layer's input for those sequences (S x H values per sequence per layer). Under full
    recompute these are the checkpoints; with none they are the least of the kept activations (the
    ledger counts no other intermediate, which makes the total a lower bound)."""
    spectra_bytes: float
    """Input spectra kept for the data-by-data weight gradient, live at the peak: every Hyena layer's
    (recompute none) or one layer's (full: rebuilt from the checkpoint when its backward starts)."""
    spectra_layers: int
    """Layers whose spectra are live at once."""

    @property
    def total_bytes(self) -> float:
        return self.layer_inputs_bytes + self.spectra_bytes


def spectra_bytes_per_sequence(s: Settings, items=None, bytes_per_value: float = 2) -> tuple[float, int]:
    """(bytes of every Hyena layer's kept input spectra for one sequence, Hyena layers): complex = 2 values."""
    check_positive_number("bytes_per_value", bytes_per_value)
    items = step_items(s) if items is None else items
    data = mask_budget(items, s.device).data_values
    return data * 2 * bytes_per_value / s.sequences, s.hyena_layers


def held_for_backward(s: Settings, sequences: float | None = None, bytes_per_value: float = 2,
                      items=None) -> HeldMemory:
    """What waits for the backward pass for `sequences` sequences (default: the whole step, in one place).

    Follows s.recompute: "none" keeps every layer's spectra, "full" one layer's. Per rank, pass
    run_policy(s).sequences_per_micro_batch.
    """
    check_positive_number("bytes_per_value", bytes_per_value)
    seqs = s.sequences if sequences is None else sequences
    check_positive_number("sequences", seqs)
    per_seq, hyena_layers = spectra_bytes_per_sequence(s, items, bytes_per_value)
    live = min(1, hyena_layers) if s.recompute == "full" else hyena_layers
    spectra = per_seq * seqs * (live / hyena_layers if hyena_layers else 0.0)
    inputs = seqs * s.seq_len * s.shape.hidden * s.shape.n_layers * bytes_per_value
    return HeldMemory(seqs, s.recompute, float(inputs), float(spectra), live)


# --- Activations a layer keeps for its backward pass ----------------------------------------------

ACTIVATION_CONVENTION = (
    "the tensors autograd keeps for one Llama-style layer with no recomputation, tallied as Korthikanti et al. "
    "(2022) tally a transformer layer (34 s b h + 5 a s^2 b bytes in 16-bit), adapted: no dropout masks (Llama "
    "trains without dropout), no attention scores (a fused attention kernel keeps only the output and per-row "
    "statistics), grouped key/value heads and a SwiGLU MLP. Per token, in values: each norm's input (h); "
    "attention: normed input, q, attention output (3h) and k, v (2 kv); a Hyena mixer: normed input, the three "
    "projected streams, the long-convolution output and the gated product (6h), its kept spectra counted "
    "apart; MLP: gate, silu(gate), up and their product (4f)")
"""The convention behind activation_values_per_token: what one layer holds per token for its backward pass."""


def activation_values_per_token(s: Settings, mixer: str) -> int:
    """Values one layer (mixer "attention" or "hyena") keeps per token for its backward (ACTIVATION_CONVENTION).

    Excludes the Hyena spectra (spectra_bytes_per_sequence counts them), weights, gradients and optimizer state.
    """
    h, kv, f = s.shape.hidden, s.shape.kv_dim, s.shape.intermediate
    mixers = {"attention": 3 * h + 2 * kv, "hyena": 6 * h}
    if mixer not in mixers:
        raise LedgerError(f"mixer = {mixer!r}: must be one of {', '.join(mixers)}")
    return 2 * h + mixers[mixer] + 4 * f


@dataclass(frozen=True)
class RankActivations:
    """Activation bytes one data-parallel rank holds at the start of its backward pass, under the run policy."""

    tokens: float
    """Tokens in flight on the rank: one micro-batch."""
    recompute: str
    per_token_layer_bytes: float
    """Bytes per token per layer with nothing recomputed, averaged over the model's layers."""
    bytes: float
    """recompute "none": every layer's activations for the micro-batch; "full": every layer's input (the
    checkpoints) plus one layer's activations, rebuilt when its backward starts."""
    hbm_bytes_per_gpu: float

    @property
    def of_hbm(self) -> float:
        """bytes / one GPU's HBM."""
        return self.bytes / self.hbm_bytes_per_gpu


def rank_activations(s: Settings, bytes_per_value: float = 2, hbm_bytes_per_gpu: float = 80e9) -> RankActivations:
    """What one rank's micro-batch holds for the backward pass (ACTIVATION_CONVENTION), kept spectra excluded."""
    check_positive_number("bytes_per_value", bytes_per_value)
    check_positive_number("hbm_bytes_per_gpu", hbm_bytes_per_gpu)
    policy = run_policy(s)
    tokens = policy.sequences_per_micro_batch * s.seq_len
    per_layer = [activation_values_per_token(s, "attention")] * s.attention_layers + \
                [activation_values_per_token(s, "hyena")] * s.hyena_layers
    if s.recompute == "full":
        per_token = s.shape.n_layers * s.shape.hidden + max(per_layer)
    else:
        per_token = sum(per_layer)
    return RankActivations(tokens, s.recompute, bytes_per_value * sum(per_layer) / len(per_layer),
                           tokens * per_token * bytes_per_value, hbm_bytes_per_gpu)
