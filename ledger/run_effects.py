"""What the run policy does to a step's figures: the same step at another step size, with its filters
built per micro-batch, or with an engine per GPU visiting every layer once per micro-batch.

A view (docs/layout.md) over the table row (ledger.table.step_row) and the run policy (ledger.run).
"""
from __future__ import annotations

from dataclasses import replace

from .run import run_policy
from .settings import Settings
from .table import step_row


def mask_amortisation(s: Settings, step_tokens: int) -> dict:
    """Weight-mask time, the step's time on the GPUs (ledger.step_time) and their ratio at another step size (the
    masks do not grow); digital_step_s is the counted FLOPs at the sustained rate, for reference."""
    row = step_row(s, step_tokens=step_tokens)
    return {"step_tokens": step_tokens, "sequences": row.sequences, "weight_mask_s": row.weight_mask_s,
            "all_digital_step_s": row.all_digital_step_s, "digital_step_s": row.digital_step_s,
            "ratio": row.weight_mask_s / row.all_digital_step_s}


def real_run_extra_flops(s: Settings) -> float:
    """FLOPs a real run adds when every rank builds the per-step spectra once per micro-batch, not once per step."""
    return (step_row(replace(s, filter_build="micro-batch")).step_flops
            - step_row(replace(s, filter_build="step")).step_flops)


def engine_per_gpu_weight_mask_s(s: Settings, pipeline_stages: int = 1) -> float:
    """Seconds one engine per GPU spends writing weight masks per step: once per micro-batch it runs.

    With one micro-batch per rank that is the layer-major time (each weight mask written at the forward and
    backward visits, twice per step); with m micro-batches every layer is visited m times as often, so m times that.
    """
    policy = run_policy(s, pipeline_stages)
    return policy.micro_batches * step_row(s).weight_mask_s
