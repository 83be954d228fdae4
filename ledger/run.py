"""The run policy: how one optimizer step runs, used by the FLOP count and the memory figures alike.

A step is `step_tokens` tokens (Settings.step_tokens), run by data-parallel ranks (one per GPU of
Settings.device) each in `micro_batches` micro-batches (Settings.micro_batches), with activation
recomputation off or full (Settings.recompute). The FLOP count reads recompute (a "recompute" phase);
the memory below reads it too: with no recomputation every layer's activations, the kept input spectra
included, wait for the backward pass; with full recomputation (checkpoints at each layer boundary) only
the layer inputs are kept and one layer's spectra are live at a time, rebuilt when its backward starts.

Where filters are built and dH accumulated (Settings.filter_build): the ledger's convention ("step")
transforms each filter and weight block once per optimizer step and inverse-transforms one accumulated
gradient spectrum, as if one Fourier-domain accumulator served the whole step. That is an idealisation:
in a real run every rank builds the spectra for each of its micro-batches (or keeps them, holding them
in memory) and sums its own gradient; a step-level Fourier-domain accumulator would all-reduce spectra
across the ranks, (n/2+1) complex values per filter instead of n real ones. "micro-batch" counts the
per-step transforms once per micro-batch per rank.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import LedgerError, check_positive_number

if TYPE_CHECKING:  # settings imports this module; the type is for readers only
    from .settings import Settings

FILTER_BUILDS = ("step", "micro-batch")
"""Where filter and weight-block spectra are built and their gradients inverse-transformed: once per
optimizer step (the book's idealisation) or once per micro-batch per data-parallel rank (a real run)."""

PUBLISHED_STEP_TOKENS = (
    ("Llama 2, whole run", "touvron2023llama2", 4 * 2**20),
    ("Llama 3 405B, start of pre-training", "dubey2024llama3", 4 * 2**20),
    ("Llama 3 405B, end of pre-training", "dubey2024llama3", 16 * 2**20),
)
"""(run, citation key, tokens per optimizer step) as published: Llama 2 used 4M tokens per step; Llama 3 405B
started at 4M and doubled twice, to 16M (the schedule the Llama 3 paper reports for its largest model, not
for the 8B model the book follows). "M" is taken as 2**20 so that every sequence length divides it."""


def check_run(micro_batches, filter_build) -> None:
    """Refuse a run policy the ledger cannot count (one line naming the value and what is allowed)."""
    if isinstance(micro_batches, bool) or not isinstance(micro_batches, int) or micro_batches < 1:
        raise LedgerError(f"micro_batches = {micro_batches!r}: must be a whole number of at least 1 "
                          "(micro-batches per data-parallel rank)")
    if filter_build not in FILTER_BUILDS:
        raise LedgerError(f"filter_build = {filter_build!r}: must be one of {', '.join(FILTER_BUILDS)}")


@dataclass(frozen=True)
class RunPolicy:
    """One step as it runs: tokens, sequences, ranks, micro-batches, recompute, where filters are built."""

    step_tokens: int
    seq_len: int
    ranks: float
    """Data-parallel ranks: one per GPU of the illustrative cluster."""
    micro_batches: int
    """Micro-batches each rank runs before the gradients are all-reduced."""
    recompute: str
    filter_build: str
    pipeline_stages: int = 1
    """Pipeline stages the model is cut into (the ledger counts 1; more break layer-major order)."""

    @property
    def sequences(self) -> int:
        return self.step_tokens // self.seq_len

    @property
    def sequences_per_rank(self) -> float:
        """Sequences one rank runs per step (an average when the ranks do not divide them)."""
        return self.sequences / self.ranks

    @property
    def sequences_per_micro_batch(self) -> float:
        """Sequences in flight on one rank at a time."""
        return self.sequences_per_rank / self.micro_batches

    @property
    def filter_builds(self) -> float:
        """How many times per step each filter spectrum is built: 1, or ranks x micro-batches."""
        return 1 if self.filter_build == "step" else self.ranks * self.micro_batches

    @property
    def layer_major_across_cluster(self) -> bool:
        """True when the cluster visits each layer once per pass: one micro-batch per rank, no pipeline."""
        return self.micro_batches == 1 and self.pipeline_stages == 1

    @property
    def spectra_layers_live(self) -> str:
        """"all" (nothing recomputed: every layer's spectra wait for its backward) or "one" (full recompute)."""
        return "one" if self.recompute == "full" else "all"


def run_policy(s: "Settings", pipeline_stages: int = 1) -> RunPolicy:
    """The run policy of `s`: its step tokens, recompute, micro-batches and filter placement, ranks = GPUs."""
    if isinstance(pipeline_stages, bool) or not isinstance(pipeline_stages, int) or pipeline_stages < 1:
        raise LedgerError(f"pipeline_stages = {pipeline_stages!r}: must be a whole number of at least 1")
    return RunPolicy(s.step_tokens, s.seq_len, s.device.gpus, s.micro_batches, s.recompute, s.filter_build,
                     pipeline_stages)


def mask_amortisation(s: "Settings", step_tokens: int) -> dict:
    """Weight-mask time, digital step time and their ratio at another step size (the masks do not grow)."""
    from .table import step_row
    row = step_row(s, step_tokens=step_tokens)
    return {"step_tokens": step_tokens, "sequences": row.sequences, "weight_mask_s": row.weight_mask_s,
            "digital_step_s": row.digital_step_s, "ratio": row.weight_mask_s / row.digital_step_s}


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


def spectra_bytes_per_sequence(s: "Settings", items=None, bytes_per_value: float = 2) -> tuple[float, int]:
    """(bytes of every Hyena layer's kept input spectra for one sequence, Hyena layers): complex = 2 values."""
    from .masks import mask_budget
    from .step import step_items
    check_positive_number("bytes_per_value", bytes_per_value)
    items = step_items(s) if items is None else items
    data = mask_budget(items, s.device).data_values
    return data * 2 * bytes_per_value / s.sequences, s.hyena_layers


def held_for_backward(s: "Settings", sequences: float | None = None, bytes_per_value: float = 2,
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


def real_run_extra_flops(s: "Settings") -> float:
    """FLOPs a real run adds when every rank builds the per-step spectra once per micro-batch, not once per step."""
    from dataclasses import replace
    from .table import step_row
    return (step_row(replace(s, filter_build="micro-batch")).step_flops
            - step_row(replace(s, filter_build="step")).step_flops)


def engine_per_gpu_weight_mask_s(s: "Settings", pipeline_stages: int = 1) -> float:
    """Seconds one engine per GPU spends writing weight masks per step: once per micro-batch it runs.

    With one micro-batch per rank that is the layer-major time (each weight mask written at the forward and
    backward visits, twice per step); with m micro-batches every layer is visited m times as often, so m times that.
    """
    from .table import step_row
    policy = run_policy(s, pipeline_stages)
    return policy.micro_batches * step_row(s).weight_mask_s


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


def activation_values_per_token(s: "Settings", mixer: str) -> int:
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


def rank_activations(s: "Settings", bytes_per_value: float = 2, hbm_bytes_per_gpu: float = 80e9) -> RankActivations:
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
