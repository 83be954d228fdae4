"""The run policy: how one optimizer step runs, used by the FLOP count and the memory figures alike.

A step is `step_tokens` tokens (Settings.step_tokens), run by data-parallel ranks (one per GPU of
Settings.device) each in `micro_batches` micro-batches (Settings.micro_batches), with activation
recomputation off or full (Settings.recompute). The FLOP count reads recompute (a "recompute" phase),
and so do the memory figures (ledger.memory).

Where filters are built and dH accumulated (Settings.filter_build): the ledger's convention ("step")
transforms each filter and weight block once per optimizer step and inverse-transforms one accumulated
gradient spectrum, as if one Fourier-domain accumulator served the whole step. That is an idealisation:
in a real run every rank builds the spectra for each of its micro-batches (or keeps them, holding them
in memory) and sums its own gradient; a step-level Fourier-domain accumulator would all-reduce spectra
across the ranks, (n/2+1) complex values per filter instead of n real ones. "micro-batch" counts the
per-step transforms once per micro-batch per rank.

A description (docs/layout.md): what the run is. `Settings` holds its fields; `run_policy(settings)`
reads them (any object with those fields) and imports nothing above this layer. What the policy does
to a step's figures is counted by views: memory in `ledger.memory`, the same step under another
policy in `ledger.run_effects`.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import LedgerError

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


def run_policy(s: Settings, pipeline_stages: int = 1) -> RunPolicy:
    """The run policy of `s`: its step tokens, recompute, micro-batches and filter placement, ranks = GPUs."""
    if isinstance(pipeline_stages, bool) or not isinstance(pipeline_stages, int) or pipeline_stages < 1:
        raise LedgerError(f"pipeline_stages = {pipeline_stages!r}: must be a whole number of at least 1")
    return RunPolicy(s.step_tokens, s.seq_len, s.device.gpus, s.micro_batches, s.recompute, s.filter_build,
                     pipeline_stages)
