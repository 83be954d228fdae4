"""Memory under the run policy: what one place, or one data-parallel rank, holds for the backward pass.

A view (docs/layout.md): it reads the settings' run policy (ledger.run) and, for the Hyena spectra,
a step's line items through ledger.masks. Recompute "none" keeps every layer's activations, the kept
input spectra included; "full" (checkpoints at each layer boundary) keeps the layer inputs and one
layer's spectra at a time, rebuilt when its backward starts. Under both the LM head and the loss keep
their tensors (HEAD_TENSORS: the loss's fp32 log-probabilities, tokens x vocabulary) from the forward to
the start of the backward: nothing recomputes them, and the loss's backward frees them before the first
layer is rebuilt, so under full recompute they and a rebuilt layer are never live together.
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
    ledger counts no other intermediate of a layer here, which makes the total a lower bound;
    rank_activations counts them)."""
    spectra_bytes: float
    """Input spectra kept for the data-by-data weight gradient, live at the peak: every Hyena layer's
    (recompute none) or one layer's (full: rebuilt from the checkpoint when its backward starts)."""
    spectra_layers: int
    """Layers whose spectra are live at once."""
    head_bytes: float = 0.0
    """What the final norm, the LM head and the loss keep for those sequences (HEAD_TENSORS), the fp32
    log-probabilities almost all of it: held from the forward to the start of the backward under either policy."""

    @property
    def total_bytes(self) -> float:
        """The most held at once: with nothing recomputed all of it at the start of the backward; under full
        recompute the checkpoints and the larger of the head's tensors (at the start of the backward) and one
        layer's rebuilt spectra (later: the loss's backward has freed the head's by then)."""
        if self.recompute == "full":
            return self.layer_inputs_bytes + max(self.head_bytes, self.spectra_bytes)
        return self.layer_inputs_bytes + self.spectra_bytes + self.head_bytes


def spectra_bytes_per_sequence(s: Settings, items=None, bytes_per_value: float = 2) -> tuple[float, int]:
    """(bytes of every Hyena layer's kept input spectra for one sequence, Hyena layers): complex = 2 values."""
    check_positive_number("bytes_per_value", bytes_per_value)
    items = step_items(s) if items is None else items
    data = mask_budget(items, s.device).data_values
    return data * 2 * bytes_per_value / s.sequences, s.hyena_layers


def held_for_backward(s: Settings, sequences: float | None = None, bytes_per_value: float = 2,
                      items=None, logits_bytes_per_value: float | None = None) -> HeldMemory:
    """What waits for the backward pass for `sequences` sequences (default: the whole step, in one place).

    Follows s.recompute: "none" keeps every layer's spectra, "full" one layer's; the head's tensors
    (HEAD_TENSORS, logits in LOGITS_BYTES_PER_VALUE unless given) under both. Per rank, pass
    run_policy(s).sequences_per_micro_batch.
    """
    check_positive_number("bytes_per_value", bytes_per_value)
    seqs = s.sequences if sequences is None else sequences
    check_positive_number("sequences", seqs)
    per_seq, hyena_layers = spectra_bytes_per_sequence(s, items, bytes_per_value)
    live = min(1, hyena_layers) if s.recompute == "full" else hyena_layers
    spectra = per_seq * seqs * (live / hyena_layers if hyena_layers else 0.0)
    inputs = seqs * s.seq_len * s.shape.hidden * s.shape.n_layers * bytes_per_value
    head = seqs * s.seq_len * head_bytes_per_token(s, bytes_per_value, logits_bytes_per_value)
    return HeldMemory(seqs, s.recompute, float(inputs), float(spectra), live, float(head))


# --- Activations a layer keeps for its backward pass ----------------------------------------------

ACTIVATION_CONVENTION = (
    "the tensors autograd keeps for one Llama-style layer with no recomputation, tallied as Korthikanti et al. "
    "(2022, section 4.1) tally a transformer layer (34 s b h + 5 a s^2 b bytes in 16-bit: each norm's input, "
    "the input of every matrix product, the attention's q, k, v, the non-linearity's input, dropout masks), "
    "adapted to Llama: no dropout masks (Llama trains without dropout), no attention scores (a fused attention "
    "kernel keeps only its output and per-row statistics, not counted), grouped key/value heads, RMSNorm (a fused "
    "kernel keeps its input and per-row statistics, not its fp32 intermediates) and a SwiGLU MLP. Per token, in "
    "values (layer_tensors): the mixer norm's input (h, the layer's input) and output "
    "(h, the projections' input); attention: q (h), k and v (2 kv) and the attention output (h, the o "
    "projection's input); a Hyena mixer: the three projected streams (3h), the long-convolution output and the "
    "gated product (2h; its kept spectra counted apart, the short convolution's outputs not counted); the MLP "
    "norm's input (h) and output (h, the gate and up projections' input); gate (f, SiLU's input), SiLU(gate) and "
    "up (2f, the product's operands) and their product (f, the down projection's input). Outside the layers "
    "(HEAD_TENSORS, Korthikanti et al. section 4.3): the final norm's input and output (2h) and the loss's "
    "log-probabilities over the vocabulary (V, in fp32: the loss upcasts the logits, LOGITS_BYTES_PER_VALUE)")
"""The convention behind activation_values_per_token and head_bytes_per_token: what is held per token."""

LOGITS_BYTES_PER_VALUE = 4
"""Bytes per value of what the loss keeps over the vocabulary: fp32. TorchTitan's cross-entropy upcasts the bf16
logits (F.cross_entropy(pred.float(), ...), torchtitan/components/loss.py at commit b5bcd76), and a log-softmax
keeps its fp32 output for the backward; Korthikanti et al. (2022, section 4.3) count the same 4 s b v bytes."""


def layer_tensors(s: Settings, mixer: str) -> tuple[tuple[str, int], ...]:
    """(tensor, values per token) one layer (mixer "attention" or "hyena") keeps for its backward (ACTIVATION_CONVENTION)."""
    h, kv, f = s.shape.hidden, s.shape.kv_dim, s.shape.intermediate
    mixers = {
        "attention": (("q after RoPE (the attention kernel's input)", h),
                      ("k and v after RoPE (grouped key/value heads)", 2 * kv),
                      ("attention output (the o projection's input)", h)),
        "hyena": (("three projected streams (the short convolution's input)", 3 * h),
                  ("long-convolution output (the second gate's operand)", h),
                  ("gated product (the out-projection's input)", h)),
    }
    if mixer not in mixers:
        raise LedgerError(f"mixer = {mixer!r}: must be one of {', '.join(mixers)}")
    return ((("mixer norm input (the layer's input)", h), ("mixer norm output (the projections' input)", h))
            + mixers[mixer]
            + (("MLP norm input (the residual after the mixer)", h),
               ("MLP norm output (the gate and up projections' input)", h),
               ("gate (SiLU's input)", f), ("SiLU(gate) (the product's operand)", f), ("up (the product's operand)", f),
               ("SiLU(gate) x up (the down projection's input)", f)))


def activation_values_per_token(s: Settings, mixer: str) -> int:
    """Values one layer (mixer "attention" or "hyena") keeps per token for its backward (ACTIVATION_CONVENTION).

    The sum of layer_tensors. Excludes the Hyena spectra (spectra_bytes_per_sequence counts them), the LM head's
    and the loss's tensors (head_bytes_per_token), weights, gradients and optimizer state.
    """
    return sum(values for _, values in layer_tensors(s, mixer))


def head_tensors(s: Settings) -> tuple[tuple[str, int, str], ...]:
    """(tensor, values per token, "hidden" or "logits" dtype) the final norm, the LM head and the loss keep."""
    h = s.shape.hidden
    return (("final norm input (the last layer's output)", h, "hidden"),
            ("final norm output (the LM head's input)", h, "hidden"),
            ("log-probabilities over the vocabulary (the loss's, from the upcast logits)", s.shape.vocab, "logits"))


HEAD_TENSORS = "the final norm's input and output (2h values) and the loss's log-probabilities (V values, fp32)"
"""What head_tensors lists, in words."""


def head_bytes_per_token(s: Settings, bytes_per_value: float = 2, logits_bytes_per_value: float | None = None,
                         kinds: tuple[str, ...] = ("hidden", "logits")) -> float:
    """Bytes per token the final norm, the LM head and the loss keep for the backward, under either policy
    (head_tensors of the given kinds: the hidden-size tensors in bytes_per_value, the vocabulary's in
    logits_bytes_per_value, LOGITS_BYTES_PER_VALUE by default)."""
    logits = LOGITS_BYTES_PER_VALUE if logits_bytes_per_value is None else logits_bytes_per_value
    check_positive_number("bytes_per_value", bytes_per_value)
    check_positive_number("logits_bytes_per_value", logits)
    width = {"hidden": bytes_per_value, "logits": logits}
    return float(sum(values * width[kind] for _, values, kind in head_tensors(s) if kind in kinds))


@dataclass(frozen=True)
class RankActivations:
    """Activation bytes one data-parallel rank holds at the start of its backward pass, under the run policy."""

    tokens: float
    """Tokens in flight on the rank: one micro-batch."""
    recompute: str
    per_token_layer_bytes: float
    """Bytes per token per layer with nothing recomputed, averaged over the model's layers."""
    bytes: float
    """The most held at once. recompute "none": every layer's activations and the head's tensors for the
    micro-batch, all live at the start of the backward; "full": every layer's input (the checkpoints) plus the
    larger of the head's tensors (live at the start of the backward) and one layer's other activations (rebuilt
    when its backward starts, after the loss's backward has freed the head's)."""
    hbm_bytes_per_gpu: float
    head_bytes: float = 0.0
    """The head's tensors for the micro-batch (head_bytes_per_token), held under either policy."""
    logits_bytes: float = 0.0
    """Of head_bytes, the loss's log-probabilities over the vocabulary: the largest single activation."""

    @property
    def of_hbm(self) -> float:
        """bytes / one GPU's HBM."""
        return self.bytes / self.hbm_bytes_per_gpu


def rank_activations(s: Settings, bytes_per_value: float = 2, hbm_bytes_per_gpu: float = 80e9,
                     logits_bytes_per_value: float | None = None) -> RankActivations:
    """What one rank's micro-batch holds for the backward pass (ACTIVATION_CONVENTION, the head's tensors
    included), kept spectra excluded."""
    check_positive_number("bytes_per_value", bytes_per_value)
    check_positive_number("hbm_bytes_per_gpu", hbm_bytes_per_gpu)
    policy = run_policy(s)
    tokens = policy.sequences_per_micro_batch * s.seq_len
    head = head_bytes_per_token(s, bytes_per_value, logits_bytes_per_value)
    logits = head_bytes_per_token(s, bytes_per_value, logits_bytes_per_value, kinds=("logits",))
    per_layer = [activation_values_per_token(s, "attention")] * s.attention_layers + \
                [activation_values_per_token(s, "hyena")] * s.hyena_layers
    if s.recompute == "full":
        # the rebuilt layer's input is its checkpoint (the recompute reads it in place): the rest is new
        rebuilt = (max(per_layer) - s.shape.hidden) * bytes_per_value
        per_token = s.shape.n_layers * s.shape.hidden * bytes_per_value + max(head, rebuilt)
    else:
        per_token = sum(per_layer) * bytes_per_value + head
    return RankActivations(tokens, s.recompute, bytes_per_value * sum(per_layer) / len(per_layer),
                           tokens * per_token, hbm_bytes_per_gpu, tokens * head, tokens * logits)
