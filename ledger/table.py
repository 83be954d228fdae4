"""One row of the training-step table: the group-bys of one step ledger, in the JSON contract's keys.

A view (docs/layout.md): `step_row` builds the step's line items once, and every figure of its row is
read from that one list by the views below it (shares, masks, hardware FLOPs).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .hardware import hardware_flops_of
from .layers import RECOMPUTE, LineItem
from .masks import digital_step_seconds, mask_budget
from .settings import Device, Settings, make_settings  # noqa: F401 (Device is ledger.engine.Engine; make_settings re-exported)
from .shares import amdahl, flops_by_pass, optical, share, static
from .step import matrix_params, step_items
from .step_time import step_time


@dataclass(frozen=True)
class StepRow:
    """Shares are fractions (0.1219, not 12.19); FLOPs per optimizer step; times in seconds."""

    variant: str
    seq_len: int
    sequences: int
    forward_flops: float
    backward_flops: float
    flops_by_class: dict
    forward_share: float
    backward_share: float
    step_share: float
    static_share: float
    data_part: float
    amdahl: float
    amdahl_static: float
    weight_mask_s: float
    data_mask_s: float
    digital_step_s: float
    six_n_ratio: float | None
    step_tokens: int
    step_flops: float
    weight_mask_frames: int
    data_mask_frames: int
    recompute_flops: float
    """FLOPs of forward work run again in the backward pass (0 unless recompute = "full"); in backward_flops."""
    matrix_params: int
    """Weights the variant's matrix products use (LM head included; block-circulant ones hold 1/b)."""
    hardware_flops: float
    """FLOPs the hardware executes in the step: the attention kernel's (Settings.attention_kernel) and
    any recomputation; step_flops (model FLOPs unless recompute = "full") prices the full S x S products."""
    modulator: str = "ideal"
    """The engine's modulator mode (ledger.engine.MODULATORS)."""
    frame_rate_hz: float = 0.0
    """Mask frames per second the mask times used."""
    values_per_pixel: float = 0.0
    """Complex values per device pixel the mask frames used (after encoding)."""
    cited: bool = True
    """False when frame_rate_hz or values_per_pixel overrides the cited modulator mode."""
    all_digital_step_s: float = 0.0
    """Seconds of the step with every operation on the GPUs, from the work at device rates (ledger.step_time);
    digital_step_s is the counted FLOPs at the illustrative sustained rate, which a counting convention moves."""
    hybrid_step_s: float = 0.0
    """Seconds of the hybrid step: the GPUs' remainder plus the engine's streaming and mask time."""
    net_speedup: float = 1.0
    """all_digital_step_s / hybrid_step_s (below 1: the engine makes the step slower)."""
    time_share: float = 0.0
    """The engine's work as a share of the all-digital step's seconds, at the GPU rates in use."""
    amdahl_time: float = 1.0
    """1 / (1 - time_share): the bound with the engine's streaming and masks free."""
    mask_overlap: str = "serial"
    """Whether the engine waits for its mask rewrites ("serial") or writes them double-buffered ("overlapped")."""
    break_even_input_rate: float | None = None
    """Real numbers/s the input plane needs for its time alone to equal the engine's possible saving (None: none)."""
    break_even_mask_rate: float | None = None
    """Mask frames/s likewise."""
    break_even_detector_rate: float | None = None
    """Detector samples/s likewise."""
    break_even_link_rate: float | None = None
    """Link bytes/s each way likewise."""
    documents: tuple[int, ...] = ()
    """Tokens of each document packed into every sequence (Settings.document_lengths; one: the whole sequence)."""

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        for key in ("six_n_ratio", "break_even_input_rate", "break_even_mask_rate", "break_even_detector_rate",
                    "break_even_link_rate"):
            if row[key] is None:
                del row[key]
        row["documents"] = list(self.documents)
        return row


def six_n_by_phase(s: Settings) -> dict[str, float]:
    """The 6N rule plus attention, split by phase: forward 2NT + 4LSHT, dX 2NT + 8LSHT, dW 2NT.

    The attention scores have no weights, so their backward (twice the forward) is all input
    gradient.
    """
    shape, tokens = s.shape, s.step_tokens
    param = 2 * shape.N * tokens
    attention = 4 * shape.n_layers * s.seq_len * shape.hidden * tokens
    return {"forward": param + attention, "dX": param + 2 * attention, "dW": param}


def six_n_flops(s: Settings) -> float:
    """The 6N rule plus attention for a step: 6*N*T + 12*L*S*H*T (the transformer's closed form)."""
    return sum(six_n_by_phase(s).values())


def summarize(s: Settings, items: list[LineItem]) -> StepRow:
    """Every share, bound and time of the table from one list of line items."""
    by_pass = flops_by_pass(items)
    fwd, bwd = by_pass["forward"], by_pass["backward"]
    forward_flops, backward_flops = sum(fwd.values()), sum(bwd.values())
    step_flops = forward_flops + backward_flops
    step_by_class = {c: fwd[c] + bwd[c] for c in fwd}
    optical_flops = optical(step_by_class)
    step_share = share(optical_flops, step_flops)
    static_share = share(static(step_by_class), step_flops)
    masks = mask_budget(items, s.device)
    seconds = step_time(s, items)
    even = seconds.break_even()
    return StepRow(
        variant=s.variant, seq_len=s.seq_len, sequences=s.sequences,
        forward_flops=forward_flops, backward_flops=backward_flops,
        flops_by_class={"forward": fwd, "backward": bwd},
        forward_share=share(optical(fwd), forward_flops),
        backward_share=share(optical(bwd), backward_flops),
        step_share=step_share, static_share=static_share,
        data_part=share(step_by_class["data_product"], optical_flops),
        amdahl=amdahl(step_share, s.optical_speedup), amdahl_static=amdahl(static_share, s.optical_speedup),
        weight_mask_s=masks.weight_mask_s, data_mask_s=masks.data_mask_s,
        digital_step_s=digital_step_seconds(step_flops, s.device),
        six_n_ratio=step_flops / six_n_flops(s) if s.variant == "transformer" else None,
        step_tokens=s.step_tokens, step_flops=step_flops,
        weight_mask_frames=masks.weight_frames, data_mask_frames=masks.data_frames,
        recompute_flops=sum(i.flops for i in items if i.phase == RECOMPUTE),
        matrix_params=matrix_params(s),
        hardware_flops=hardware_flops_of(s, items),
        modulator=s.device.modulator, frame_rate_hz=s.device.frame_rate_hz,
        values_per_pixel=s.device.complex_values_per_pixel, cited=s.device.cited,
        all_digital_step_s=seconds.all_digital_step_s, hybrid_step_s=seconds.hybrid_step_s,
        net_speedup=seconds.net_speedup, time_share=seconds.time_share, amdahl_time=seconds.amdahl_time,
        mask_overlap=s.device.mask_overlap, break_even_input_rate=even["input_rate"],
        break_even_mask_rate=even["mask_rate"], break_even_detector_rate=even["detector_rate"],
        break_even_link_rate=even["link_rate"], documents=s.document_lengths,
    )


def step_row(settings: Settings | None = None, **overrides: Any) -> StepRow:
    """The table row for `settings` with any field overridden, e.g. step_row(variant="hyena2", seq_len=2048).

    Engine fields (modulator, frame_rate, values_per_pixel, pixels, layout, row_pixels, input_rate, readout,
    gpus, gpu_flops) and cost conventions (fft_constant, causal_attention, ...) may be passed by name too, as
    may the switches recompute ("none" | "full"), attention_kernel ("dense" | "flash" | "flash-causal"),
    attention_tile, mask_spectrum ("one-sided" | "two-sided") and optical_speedup.
    """
    s = make_settings(settings, **overrides)
    return summarize(s, step_items(s))
