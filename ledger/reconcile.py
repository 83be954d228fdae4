"""The switchboard: step FLOPs other public accountings give, and the ledger switches that reproduce them.

Each source's formula is re-stated here from its published form (no code copied), applied to the
ledger's shape and step, and set beside the ledger's own count. `switches` names the ledger settings
or accounting choices that close the gap; `ledger_with_switches_flops` recounts the ledger's own line
items with those switches thrown, and equals the source's figure to rounding when the switches
explain the whole difference.

Sources (formula read from the files named; re-derived by hand in tests/test_reconcile.py):
- palm-nanogpt: PaLM appendix B (Chowdhery et al. 2022), as nanoGPT's `estimate_mfu`
  (karpathy/nanoGPT, model.py): 6N + 12*L*H*Q*T per token, H*Q the width, T the sequence length.
  The ledger's N (every matrix that multiplies activations: the input embedding left out, the LM
  head in) makes it exact; nanoGPT's own N (`get_num_params`, every parameter but position
  embeddings) would also count the input embedding and the norms as if they were matmuls.
- megatron-2024: Megatron-LM `num_floating_point_operations` (NVIDIA/Megatron-LM,
  megatron/training/training.py, 2024 form): 12*B*s*L*h^2*[(1 + g/a + s/h)*(q/h) + (f/h)*(3/2 if
  SwiGLU) + V/(2*L*h)] with GQA groups g, query projection q = kv_channels * a, padded vocabulary V.
- megatron-2025: the same function after it halved causal attention (same file, commit
  001b00c2734d8f0fad096fe48a382fedf755d321): 3 * 2 * B*s*[h*f*3*L + L*(h*(q + 2*kv) + q*s/2*2 + q*h) + h*V].
- eleutherai-cookbook / -checkpointing: EleutherAI cookbook calc/calc_transformer_flops.py
  (Anthony et al.): iter_factor 3 (4 with activation checkpointing) times qkv 2(1 + 2 kv_ratio)LTH^2,
  attention 2*2*L*T*S*H, out projection 2LTH^2, MLP 16LTH^2 (a 4H GeLU MLP); LM head 6THV never recomputed.
- savanna-hyena: Savanna's MFU counter (Zymrael/savanna, savanna/mfu.py): every GEMM 2mnk, the
  hyena conv projection 2*3*k*d per token (k = 3), each long convolution by FFT 10*S*log2(S)*d per
  sequence, logits 2dV; the forward total times 3 (backward = 2 x forward). Applied to the ledger's
  hyena2 (two long convolutions per channel, the Llama-3-8B MLP and vocabulary).
"""
from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from typing import Any, Sequence

from .costs import Costs
from .errors import LedgerError
from .layers import LineItem
from .settings import Settings
from .shapes import LLAMA3_8B, ModelShape
from .step import step_items

STEP_TOKENS = 1_048_576
SEQ_LENS = (2048, 4096)
SOURCES = ("palm-nanogpt", "palm-nanogpt-all-params", "megatron-2024", "megatron-2025",
           "eleutherai-cookbook", "eleutherai-cookbook-checkpointing", "savanna-hyena")

REFERENCES = {
    "palm-nanogpt": "PaLM appendix B; karpathy/nanoGPT model.py estimate_mfu (N = ledger N)",
    "palm-nanogpt-all-params": "karpathy/nanoGPT model.py estimate_mfu with N = get_num_params() (all weights)",
    "megatron-2024": "NVIDIA/Megatron-LM megatron/training/training.py num_floating_point_operations (2024)",
    "megatron-2025": "NVIDIA/Megatron-LM megatron/training/training.py num_floating_point_operations "
                     "(2025, causal attention halved)",
    "eleutherai-cookbook": "EleutherAI/cookbook calc/calc_transformer_flops.py --no-checkpoint-activations",
    "eleutherai-cookbook-checkpointing": "EleutherAI/cookbook calc/calc_transformer_flops.py (default: checkpointing)",
    "savanna-hyena": "Zymrael/savanna savanna/mfu.py get_hyena_flops (fft_conv_flops_per_layer)",
}


def norm_params(shape: ModelShape) -> int:
    """RMSNorm weights of a Llama-style model: two per layer and a final one, `hidden` each."""
    return (2 * shape.n_layers + 1) * shape.hidden


# --- the sources' formulas, restated -------------------------------------------------------------

def palm_nanogpt_flops(shape: ModelShape, seq_len: int, tokens: int, n_params: float | None = None) -> float:
    """(6N + 12*L*H*S) * T; N defaults to the ledger's N."""
    n = shape.N if n_params is None else n_params
    return (6 * n + 12 * shape.n_layers * shape.hidden * seq_len) * tokens


def megatron_2024_flops(shape: ModelShape, seq_len: int, tokens: int, padded_vocab: int | None = None) -> float:
    """Megatron-LM's 2024 closed form with GQA and SwiGLU, batch_size * seq_length = tokens."""
    h, a, g, s = shape.hidden, shape.n_heads, shape.n_kv_heads, seq_len
    vocab = shape.vocab if padded_vocab is None else padded_vocab
    q_ratio = shape.head_dim * a / h
    return (12 * tokens * shape.n_layers * h * h
            * ((1 + g / a + s / h) * q_ratio
               + (shape.intermediate / h) * 1.5
               + vocab / (2 * shape.n_layers * h)))


def megatron_2025_flops(shape: ModelShape, seq_len: int, tokens: int, padded_vocab: int | None = None) -> float:
    """Megatron-LM's 2025 form: per-GEMM terms, core attention halved for the causal mask."""
    h, s, L = shape.hidden, seq_len, shape.n_layers
    vocab = shape.vocab if padded_vocab is None else padded_vocab
    q = shape.head_dim * shape.n_heads
    kv = shape.head_dim * shape.n_kv_heads
    attn = 3 * 2 * (h * (q + 2 * kv) + q * s / 2 * 2 + q * h)
    mlp = 3 * 2 * h * shape.intermediate * 3
    logit = 3 * 2 * h * vocab
    return tokens * (L * (mlp + attn) + logit)


def cookbook_flops(shape: ModelShape, seq_len: int, tokens: int, checkpoint_activations: bool) -> float:
    """EleutherAI cookbook: layer terms times iter_factor (3, or 4 with checkpointing); LM head 6THV."""
    it = 4 if checkpoint_activations else 3
    h, L, s = shape.hidden, shape.n_layers, seq_len
    kv_ratio = shape.n_kv_heads / shape.n_heads
    qkv = it * 2 * (1 + 2 * kv_ratio) * L * tokens * h * h
    scores = it * 2 * L * tokens * s * h
    over_values = it * 2 * L * tokens * s * h
    out_proj = it * 2 * L * tokens * h * h
    ffn = it * 16 * L * tokens * h * h
    embedding = 6 * tokens * h * shape.vocab
    return qkv + scores + over_values + out_proj + ffn + embedding


def savanna_hyena_flops(shape: ModelShape, seq_len: int, tokens: int, long_convs: int = 2,
                        conv_proj_len: int = 3) -> float:
    """Savanna's Hyena count on the ledger's hyena2: forward per token, times 3.

    Per layer per token: in-projection 2*3*d^2, hyena conv projection 2*3*k*d, out-projection 2*d^2,
    SwiGLU MLP 2*3*f*d, `long_convs` FFT convolutions of 10*S*log2(S)*d per sequence (S tokens);
    LM head 2*d*V per token.
    """
    d, L, s = shape.hidden, shape.n_layers, seq_len
    per_token = L * (2 * 3 * d * d + 2 * 3 * conv_proj_len * d + 2 * d * d + 2 * 3 * shape.intermediate * d
                     + long_convs * 10 * s * math.log2(s) * d / s) + 2 * d * shape.vocab
    return 3 * per_token * tokens


# --- the ledger with switches thrown -------------------------------------------------------------

SWITCH_KEYS = ("causal_attention", "fft_constant", "embedding_in", "norms_as_matmuls", "mlp_flops_per_token",
               "recompute", "backward", "drop_ops")


def ledger_with_switches(settings: Settings, switches: dict[str, Any]) -> float:
    """Recount the ledger's step with accounting switches thrown.

    causal_attention, fft_constant: ledger cost conventions (Costs).
    embedding_in: count the input embedding as a V x H matmul (6*V*H per token), as an all-parameter N does.
    norms_as_matmuls: count each norm weight as a parameter at 6 FLOPs per token.
    mlp_flops_per_token: replace the MLP's forward FLOPs per token per layer (e.g. 16H^2 for a 4H GeLU MLP).
    recompute: "blocks" re-runs every block's forward once (activation checkpointing; not the LM head).
    backward: "2x forward" replaces dX + dW by twice the forward pass (as if everything were a matmul).
    drop_ops: substrings of line-item names the source does not count (matched on forward, dX and dW).
    """
    unknown = [k for k in switches if k not in SWITCH_KEYS]
    if unknown:
        raise LedgerError(f"switch {unknown[0]!r}: allowed are {', '.join(SWITCH_KEYS)}")
    costs = settings.costs
    for key in ("causal_attention", "fft_constant"):
        if key in switches:
            costs = replace(costs, **{key: switches[key]})
    s = replace(settings, costs=costs)
    items: list[LineItem] = step_items(s)
    drop = tuple(switches.get("drop_ops", ()))
    items = [i for i in items if not any(d in i.op for d in drop)]
    mlp_target = switches.get("mlp_flops_per_token")
    if mlp_target is not None:
        mlp_forward = sum(i.flops for i in items if i.layer == "mlp" and i.phase == "forward")
        scale = mlp_target * s.shape.n_layers * s.step_tokens / mlp_forward
        items = [replace(i, flops=i.flops * scale) if i.layer == "mlp" else i for i in items]
    forward = sum(i.flops for i in items if i.phase == "forward")
    backward = sum(i.flops for i in items if i.phase != "forward")
    if switches.get("backward") == "2x forward":
        backward = 2 * forward
    elif switches.get("backward") not in (None, "ledger"):
        raise LedgerError(f"backward = {switches['backward']!r}: must be 'ledger' or '2x forward'")
    total = forward + backward
    if switches.get("recompute") == "blocks":
        total += sum(i.flops for i in items if i.phase == "forward" and i.layer in ("attention", "hyena", "mlp"))
    elif switches.get("recompute") not in (None, "none"):
        raise LedgerError(f"recompute = {switches['recompute']!r}: must be 'none' or 'blocks'")
    if switches.get("embedding_in"):
        total += 6 * s.shape.vocab * s.shape.hidden * s.step_tokens
    if switches.get("norms_as_matmuls"):
        total += 6 * norm_params(s.shape) * s.step_tokens
    return total


def _row(source: str, variant: str, seq_len: int, step_tokens: int, step_flops: float,
         switches: dict[str, Any], shape: ModelShape, note: str) -> dict[str, Any]:
    settings = Settings(variant=variant, seq_len=seq_len, step_tokens=step_tokens, shape=shape)
    ledger_flops = sum(i.flops for i in step_items(settings))
    with_switches = ledger_with_switches(settings, switches)
    return {
        "source": source, "reference": REFERENCES[source], "variant": variant, "seq_len": seq_len,
        "step_tokens": step_tokens, "step_flops": float(step_flops), "ledger_step_flops": float(ledger_flops),
        "ratio_to_ledger": float(step_flops / ledger_flops), "switches": switches,
        "ledger_with_switches_flops": float(with_switches),
        "reproduced": math.isclose(with_switches, step_flops, rel_tol=1e-9), "note": note,
    }


def reconcile_rows(shape: ModelShape = LLAMA3_8B, seq_lens: Sequence[int] = SEQ_LENS,
                   step_tokens: int = STEP_TOKENS) -> list[dict[str, Any]]:
    """Every source at every sequence length: its step FLOPs, the ledger's, and the switches between them."""
    rows = []
    h = shape.hidden
    for s in seq_lens:
        t = step_tokens
        rows.append(_row("palm-nanogpt", "transformer", s, t, palm_nanogpt_flops(shape, s, t), {}, shape,
                         "N = parameters that multiply activations (input embedding out, LM head in)"))
        all_params = shape.matrix_params + norm_params(shape)
        rows.append(_row("palm-nanogpt-all-params", "transformer", s, t,
                         palm_nanogpt_flops(shape, s, t, n_params=all_params),
                         {"embedding_in": True, "norms_as_matmuls": True}, shape,
                         f"N = every weight ({all_params:,}): the input lookup and norms priced as matmuls"))
        rows.append(_row("megatron-2024", "transformer", s, t, megatron_2024_flops(shape, s, t), {}, shape,
                         "GQA and SwiGLU as Megatron counts them; padded vocabulary = vocabulary (TP = 1)"))
        rows.append(_row("megatron-2025", "transformer", s, t, megatron_2025_flops(shape, s, t),
                         {"causal_attention": True}, shape, "core attention halved for the causal mask"))
        gelu_mlp = 16 * h * h
        rows.append(_row("eleutherai-cookbook", "transformer", s, t, cookbook_flops(shape, s, t, False),
                         {"mlp_flops_per_token": gelu_mlp}, shape,
                         "MLP counted as a 4H GeLU MLP (16H^2 per token), not SwiGLU"))
        rows.append(_row("eleutherai-cookbook-checkpointing", "transformer", s, t,
                         cookbook_flops(shape, s, t, True),
                         {"mlp_flops_per_token": gelu_mlp, "recompute": "blocks"}, shape,
                         "as above, every block's forward run again (iter_factor 4); LM head not recomputed"))
        rows.append(_row("savanna-hyena", "hyena2", s, t, savanna_hyena_flops(shape, s, t),
                         {"fft_constant": 2.5 * math.log2(s) / math.log2(2 * s), "backward": "2x forward",
                          "drop_ops": ["H . U", "G . conj(H)", "G . conj(U)", "accumulate dH", "gates",
                                       "rFFT of filter h", "inverse rFFT of dH"]},
                         shape, "FFT of length S at 10 S log2 S per convolution, no spectral products or "
                                "gates, backward = 2 x forward"))
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    """A plain-text table of the rows (step FLOPs in units of 1e15)."""
    head = f"{'source':36} {'variant':12} {'S':>6} {'source PFLOP':>13} {'ledger PFLOP':>13} {'ratio':>7} " \
           f"{'switched':>13}  switches"
    lines = [head, "-" * len(head)]
    for r in rows:
        sw = ", ".join(f"{k}={v if not isinstance(v, float) else round(v, 4)}" for k, v in r["switches"].items()
                       if k != "drop_ops")
        if "drop_ops" in r["switches"]:
            sw += (", " if sw else "") + f"drop_ops=[{len(r['switches']['drop_ops'])} ops]"
        lines.append(f"{r['source']:36} {r['variant']:12} {r['seq_len']:>6} {r['step_flops'] / 1e15:>13.3f} "
                     f"{r['ledger_step_flops'] / 1e15:>13.3f} {r['ratio_to_ledger']:>7.4f} "
                     f"{r['ledger_with_switches_flops'] / 1e15:>13.3f}  {sw or '(none)'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m ledger reconcile [--json] [--config PATH]`: the reconciliation table."""
    parser = argparse.ArgumentParser(prog="python -m ledger reconcile",
                                     description="Step FLOPs of other accountings beside the ledger's.")
    parser.add_argument("--json", action="store_true", help="print the rows as a JSON list")
    parser.add_argument("--config", help="a Llama-style Hugging Face config.json instead of Llama-3-8B")
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        shape = ModelShape.from_hf_config(args.config) if args.config else LLAMA3_8B
        rows = reconcile_rows(shape)
    except LedgerError as err:
        print(f"error: {err}")
        return 2
    print(json.dumps(rows, indent=2) if args.json else format_table(rows))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
