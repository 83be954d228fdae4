"""Part 1's exercises (chapters 00-09): each label's answer computed from the ledger, or marked as
an explanation. The labels are those of the `{exercise}` blocks in notebooks/00_*.ipynb ... 09_*."""
from __future__ import annotations

from .. import hidden_costs as _hidden
from .. import schedule as _schedule
from ..layers import OPTICAL_CLASSES, RECOMPUTE
from ..passes import long_conv_per_channel, valid_blocks
from ..settings import Settings
from ..shapes import LLAMA3_8B
from ..shares import flops_by_phase_and_class, group_flops
from ..step import step_items
from ..table import make_settings, step_row
from .registry import explained, numeric


def _pct(value: float) -> float:
    return 100 * value


# 00 What a training step adds to inference
explained("intro-4f-inversion",
          hint="two forward transforms give u(-x); a mirror image is a relabelling of the camera's pixels.")
numeric("intro-bigger-step",
        lambda: _pct(step_row(variant="hyena2", seq_len=2048, step_tokens=2_097_152).forward_share),
        rel_tol=0.0025, unit="%",
        hint="give the forward share in percent at 2,097,152 tokens; only the once-per-step filter FFTs "
             "do not double with the step.")

# 01 The 6N rule, reproduced
def _attention_over_rest(seq_len: int) -> float:
    from ..passes import group_by_kind
    kinds = group_by_kind(step_items(make_settings(variant="transformer", seq_len=seq_len)))
    return kinds["attention scores"] / (sum(kinds.values()) - kinds["attention scores"])


numeric("sixn-long-context", lambda: _attention_over_rest(32768), rel_tol=0.005,
        hint="compare the attention scores with the rest of the step (6NT), not with the whole step.")
numeric("sixn-causal", lambda: step_row(variant="transformer", seq_len=8192, causal_attention=True).six_n_ratio,
        rel_tol=0.0002,
        hint="causal masking halves the 12LSH term only: the ratio is (N + LSH) / (N + 2LSH).")
numeric("sixn-recompute", lambda: _pct(step_row(variant="hyena2", seq_len=4096, recompute="full").step_share),
        rel_tol=0.003, unit="%",
        hint="the recomputed forward work carries its transforms and H.U products too, so the share rises.")
