"""The one settings object every count starts from: shape, variant, lengths, conventions, engine."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from .costs import Costs
from .engine import Engine
from .errors import LedgerError, check_positive_int, check_positive_number, check_speedup
from .run import check_run
from .shapes import LLAMA3_8B, ModelShape

Device = Engine
"""The engine under its earlier name: `Device(pixels=..., frame_rate=...)` still builds one."""

VARIANTS = ("transformer", "hyena2", "hybrid", "hyena2_circulant")
DEFAULT_STEP_TOKENS = 1_048_576
"""One optimizer step of 2**20 tokens: an illustration, a quarter of the 4M tokens Llama 2 and early Llama 3
405B used per step and 1/16 of Llama 3 405B's final 16M (ledger.run.PUBLISHED_STEP_TOKENS)."""
DEFAULT_HYBRID_ATTENTION_FRACTION = 0.25
"""The hybrid keeps attention in a quarter of its layers (every fourth layer; illustrative)."""
RECOMPUTE_MODES = ("none", "full")
"""none: activations kept from the forward pass. full: every block's forward run again before its backward."""
FFT_LENGTHS = ("2S", "2S-1")
"""Long-convolution FFT length: 2S (the book's, a power of two when S is) or 2S-1, the shortest
that keeps a causal product of two length-S signals free of wrap-around. Both are priced with the
same fft_constant * n * log2(n): for 2S-1 that is the price of a power of two applied to an odd
length (8,191 is prime), which a real FFT runs several times slower (Bluestein's algorithm computes it
with FFTs of a power-of-two length of at least 2n-1). The alternative shows what the length changes in
the count (bins, mask values), not a cheaper transform."""
ATTENTION_KERNELS = ("dense", "flash", "flash-causal")
"""How the attention core runs (ledger/hardware.py): scores materialised, FlashAttention without a
causal mask, or FlashAttention skipping the tiles a causal mask hides. Hardware FLOPs only."""
DEFAULT_ATTENTION_TILE = 128
"""Query-tile rows of a causal FlashAttention kernel: FlashAttention-2's forward for head dimension 128
on A100 and H100 uses 128 x 64 tiles, and its backward 64 x 128, which skip exactly what square
128 x 128 tiles skip (Dao-AILab/flash-attention, csrc/flash_attn/src/flash_fwd_launch_template.h at
073afd59, flash_bwd_launch_template.h at 073afd59)."""
LM_HEADS = ("dense", "circulant")
"""The block-circulant model's LM head: dense (the book's: about 85% of that model's step FLOPs) or
block-circulant like its other matrices (the vocabulary must then be a multiple of the block)."""
MASK_SPECTRA = ("one-sided", "two-sided")
"""one-sided: a mask holds the n/2+1 bins of a real FFT (Hermitian symmetry). two-sided: all n bins,
as a Fourier plane does (the symmetry saves digital work, not pixels)."""


@dataclass(frozen=True)
class Settings:
    """Everything one step ledger depends on; defaults are the book's Llama-3-8B case."""

    variant: str = "hyena2"
    seq_len: int = 4096
    step_tokens: int = DEFAULT_STEP_TOKENS
    block: int = 256
    """Block size b of the block-circulant matrices (hyena2_circulant only)."""
    hybrid_attention_fraction: float = DEFAULT_HYBRID_ATTENTION_FRACTION
    """Share of the hybrid's layers that keep attention, rounded half up to whole layers."""
    shape: ModelShape = LLAMA3_8B
    costs: Costs = field(default_factory=Costs)
    device: Engine = field(default_factory=Engine)
    """The optical engine (modulator mode, layout, input plane, readout) and the digital cluster."""
    recompute: str = "none"
    """Activation recomputation: "none" or "full" (every block's forward again before its backward;
    the LM head is not recomputed, nor the per-step filter and weight-block transforms)."""
    mask_spectrum: str = "one-sided"
    """Complex values a mask holds per transform of length n: "one-sided" n/2+1, "two-sided" n."""
    optical_speedup: float = math.inf
    """How many times faster the optical engine runs the work it takes (inf: that work becomes free)."""
    fft_length: str = "2S"
    """Long-convolution FFT length n: "2S" or "2S-1" (the shortest without wrap-around; priced as if it
    were a power of two, see FFT_LENGTHS)."""
    attention_kernel: str = "flash-causal"
    """The attention kernel the hardware runs: "dense", "flash" or "flash-causal" (a Llama run's: causal
    FlashAttention). Hardware FLOPs only; the model FLOPs of the step do not depend on it."""
    attention_tile: int = DEFAULT_ATTENTION_TILE
    """Tile rows and columns of the flash-causal kernel (diagonal tiles computed whole)."""
    micro_batches: int = 1
    """Micro-batches each data-parallel rank (one per GPU) runs per step (run policy: ledger.run)."""
    lm_head: str = "dense"
    """The LM head of hyena2_circulant: "dense" (the default) or "circulant" (block-circulant, blocks of `block`);
    the other variants keep a dense head either way."""
    filter_build: str = "step"
    """Filter and weight-block spectra built once per "step" (the ledger's idealisation) or once per
    "micro-batch" per rank (a real run); see ledger.run."""
    documents: tuple[int, ...] | None = None
    """Tokens of each document packed into every sequence, in order, summing to seq_len (None: one document
    of seq_len). Only attention sees them: the model count under Costs.attention_count = "documents" and the
    flash-causal kernel (ledger.hardware), which attends within each document; every other operation runs over
    the whole row (a Hyena long convolution included: the ledger does not restart it at a document's start)."""

    def __post_init__(self) -> None:
        if self.recompute not in RECOMPUTE_MODES:
            raise LedgerError(f"recompute = {self.recompute!r}: must be one of {', '.join(RECOMPUTE_MODES)}")
        if self.mask_spectrum not in MASK_SPECTRA:
            raise LedgerError(f"mask_spectrum = {self.mask_spectrum!r}: must be one of {', '.join(MASK_SPECTRA)}")
        check_speedup(self.optical_speedup)
        if self.attention_kernel not in ATTENTION_KERNELS:
            raise LedgerError(f"attention_kernel = {self.attention_kernel!r}: must be one of "
                              f"{', '.join(ATTENTION_KERNELS)}")
        check_positive_int("attention_tile", self.attention_tile)
        check_run(self.micro_batches, self.filter_build)
        if self.fft_length not in FFT_LENGTHS:
            raise LedgerError(f"fft_length = {self.fft_length!r}: must be one of {', '.join(FFT_LENGTHS)}")
        if self.variant not in VARIANTS:
            raise LedgerError(f"variant = {self.variant!r}: must be one of {', '.join(VARIANTS)}")
        check_positive_int("seq_len", self.seq_len)
        if self.documents is not None:
            object.__setattr__(self, "documents", check_documents(self.documents, self.seq_len))
        check_positive_int("step_tokens", self.step_tokens)
        if self.step_tokens % self.seq_len:
            raise LedgerError(
                f"seq_len = {self.seq_len} does not divide step_tokens = {self.step_tokens}: "
                "a step must hold a whole number of sequences")
        frac = self.hybrid_attention_fraction
        if isinstance(frac, bool) or not isinstance(frac, (int, float)) or not 0 <= frac <= 1:
            raise LedgerError(f"hybrid_attention_fraction = {frac!r}: must be a number from 0 to 1")
        if self.variant == "hyena2_circulant":
            check_block(self.block, self.shape)
        if self.lm_head not in LM_HEADS:
            raise LedgerError(f"lm_head = {self.lm_head!r}: must be one of {', '.join(LM_HEADS)}")
        if self.lm_head == "circulant" and self.variant == "hyena2_circulant":
            if self.shape.vocab % self.block:
                raise LedgerError(f"lm_head = 'circulant': block = {self.block} does not divide the vocabulary "
                                  f"({self.shape.vocab:,}); choose a block that does")

    @property
    def document_lengths(self) -> tuple[int, ...]:
        """Tokens of each document in one sequence: `documents`, or the whole sequence as one."""
        return (self.seq_len,) if self.documents is None else self.documents

    @property
    def engine(self) -> Engine:
        """The optical engine (the same object as `device`)."""
        return self.device

    @property
    def sequences(self) -> int:
        """Sequences in one optimizer step."""
        return self.step_tokens // self.seq_len

    @property
    def fft_len(self) -> int:
        """Long-convolution FFT length n = 2S (or 2S-1): zero padding that keeps the causal product linear."""
        return 2 * self.seq_len - (1 if self.fft_length == "2S-1" else 0)

    def mask_bins(self, n: int) -> int:
        """Complex values one transform of length n puts on a mask: n//2 + 1 (one-sided) or n (two-sided)."""
        return n if self.mask_spectrum == "two-sided" else self.costs.bins(n)

    @property
    def attention_layers(self) -> int:
        """Layers that keep attention: all (transformer), none (Hyena variants), a fraction (hybrid)."""
        if self.variant == "transformer":
            return self.shape.n_layers
        if self.variant == "hybrid":
            return math.floor(self.hybrid_attention_fraction * self.shape.n_layers + 0.5)
        return 0

    @property
    def hyena_layers(self) -> int:
        return self.shape.n_layers - self.attention_layers

    @property
    def channel_convolutions(self) -> int:
        """Long convolutions one sequence passes through: two per channel, H channels, every Hyena layer."""
        return 2 * self.shape.hidden * self.hyena_layers


def check_documents(documents, seq_len: int) -> tuple[int, ...]:
    """`documents` as a tuple if it is a non-empty list of positive integers summing to seq_len; else a LedgerError."""
    if isinstance(documents, (str, bytes)) or not hasattr(documents, "__iter__"):
        raise LedgerError(f"documents = {documents!r}: must be a list of positive integers (tokens per document) "
                          f"summing to seq_len = {seq_len}")
    lengths = tuple(documents)
    if not lengths or any(isinstance(n, bool) or not isinstance(n, int) or n <= 0 for n in lengths):
        raise LedgerError(f"documents = {list(lengths)!r}: must be a non-empty list of positive integers "
                          "(tokens per document)")
    if sum(lengths) != seq_len:
        raise LedgerError(f"documents = {list(lengths)!r} sum to {sum(lengths):,} tokens: they must sum to "
                          f"seq_len = {seq_len:,}")
    return lengths


def circulant_matrices(shape: ModelShape) -> tuple[tuple[str, int, int], ...]:
    """The (name, rows M, columns K) of each matrix made block-circulant; the LM head stays dense."""
    h, i = shape.hidden, shape.intermediate
    return (("hyena in-projection", 3 * h, h), ("hyena out-projection", h, h),
            ("mlp gate", i, h), ("mlp up", i, h), ("mlp down", h, i))


def check_block(block, shape: ModelShape) -> None:
    """Refuse a block size that does not tile every circulant matrix exactly."""
    if isinstance(block, bool) or not isinstance(block, int) or block < 2:
        raise LedgerError(f"block = {block!r}: must be an integer of at least 2")
    for name, rows, cols in circulant_matrices(shape):
        if rows % block or cols % block:
            raise LedgerError(
                f"block = {block} does not divide the {name} ({rows} x {cols}): "
                f"choose a common divisor of {shape.hidden} and {shape.intermediate}")


DEVICE_FIELDS = tuple(Engine.__dataclass_fields__)
COST_FIELDS = tuple(Costs.__dataclass_fields__)
SETTINGS_FIELDS = tuple(Settings.__dataclass_fields__)


def make_settings(settings: Settings | None = None, **overrides: Any) -> Settings:
    """Settings with fields, engine figures or cost conventions overridden by keyword.

    A new `modulator` brings its own frame rate and values per pixel: overrides of those are kept only
    when passed in the same call.
    """
    s = settings or Settings()
    device = {k: overrides.pop(k) for k in list(overrides) if k in DEVICE_FIELDS}
    costs = {k: overrides.pop(k) for k in list(overrides) if k in COST_FIELDS}
    unknown = [k for k in overrides if k not in SETTINGS_FIELDS]
    if unknown:
        allowed = ", ".join(SETTINGS_FIELDS + DEVICE_FIELDS + COST_FIELDS)
        raise LedgerError(f"unknown setting {unknown[0]!r}: allowed are {allowed}")
    if device:
        base = overrides.get("device", s.device)
        if "modulator" in device:
            device.setdefault("frame_rate", None)
            device.setdefault("values_per_pixel", None)
        overrides["device"] = replace(base, **device)
    if costs:
        overrides["costs"] = replace(overrides.get("costs", s.costs), **costs)
    return replace(s, **overrides) if overrides else s
