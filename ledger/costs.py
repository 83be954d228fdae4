"""The price, in FLOPs, of the few primitive operations the ledger counts.

Every count in the ledger is a product of one of these prices and a number of occurrences,
so a convention (the FFT constant, counting a fused multiply-add as one or two FLOPs,
halving causal attention) is switched here and nowhere else.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import LedgerError


ATTENTION_COUNTS = ("sequence", "documents")
"""The model count's span of attention in a row of packed documents: the whole row, or each document (Costs)."""


@dataclass(frozen=True)
class Costs:
    """FLOP conventions. Defaults are the book's (its conventions table): a matmul 2mnk, as the 6N rule
    counts it; a real FFT 2.5 n log2 n, half the 5 n log2 n conventionally charged for a complex FFT (the
    count FFT benchmarks such as FFTW's report), which the 6N rule does not count at all; a complex
    multiply 6 and add 2."""

    fft_constant: float = 2.5
    """FLOPs of a real FFT of length n are fft_constant * n * log2(n)."""
    complex_mul_flops: float = 6.0
    """A complex multiply: 4 real multiplies and 2 adds."""
    complex_add_flops: float = 2.0
    flops_per_mac: float = 2.0
    """A multiply-accumulate counts as 2 FLOPs (set 1 to count FMAs as one operation)."""
    causal_attention: bool = False
    """Halve QK^T and AV for the causal mask (off, as in the attention term 12*L*S*H per token that PaLM's
    appendix B adds to 6N)."""
    attention_count: str = "sequence"
    """What the model count's QK^T and AV span when a sequence packs several documents (Settings.documents):
    "sequence", the whole row, S^2 score entries per head (torchtitan's and PaLM's count), or "documents", each
    document on its own, the sum of L_i^2 (Megatron-LM's count of packed sequences since its main branch at
    d98e8a64). One document per sequence makes the two the same."""

    def __post_init__(self) -> None:
        for name in ("fft_constant", "complex_mul_flops", "complex_add_flops", "flops_per_mac"):
            value = getattr(self, name)
            # a complex add may cost 0: folded into a multiply-accumulate (complex_mul_flops = 8)
            low_ok = value >= 0 if name == "complex_add_flops" else value > 0
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not low_ok:
                allowed = "a finite number of at least 0" if name == "complex_add_flops" else "a positive finite number"
                raise LedgerError(f"{name} = {value!r}: must be {allowed}")
        if not isinstance(self.causal_attention, bool):
            raise LedgerError(f"causal_attention = {self.causal_attention!r}: must be True or False")
        if self.attention_count not in ATTENTION_COUNTS:
            raise LedgerError(f"attention_count = {self.attention_count!r}: must be one of {', '.join(ATTENTION_COUNTS)}")

    def matmul(self, m: float, k: float, n: float) -> float:
        """FLOPs of an (m x k) @ (k x n) product: flops_per_mac * m * k * n."""
        return self.flops_per_mac * m * k * n

    def rfft(self, n: int) -> float:
        """FLOPs of one real FFT (or inverse real FFT) of length n."""
        return self.fft_constant * n * math.log2(n)

    @staticmethod
    def bins(n: int) -> int:
        """Frequency bins of a real FFT of length n: n//2 + 1 complex values."""
        return n // 2 + 1

    @property
    def attention_factor(self) -> float:
        """Fraction of the S x S score and value products computed (1/2 if causal halving)."""
        return 0.5 if self.causal_attention else 1.0


REFERENCE = Costs()
"""The prices device rates are quoted in, whatever the count's conventions: 2 FLOPs per multiply-add (a
tensor core's peak counts an FMA as two), 2.5 n log2 n per real FFT (half the 5 n log2 n of a complex FFT,
the count FFT benchmarks report), 6 and 2 FLOPs for a complex multiply and add, no causal halving, attention over the whole row. A line
item's `reference_flops` is its work at these prices, and every time figure divides that work (ledger.step_time),
so a counting convention moves counts and shares but never a second."""

