"""results.md and results.json: the step table, the 6N check, the mask budget and the numeric checks."""
from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any, Iterable, Sequence

from .breakdown import UnitCost, long_conv_channel, matrix
from .settings import Settings, VARIANTS
from .shares import flops_by_pass, optical
from .spectral import spectral_checks
from .step import step_items
from .table import StepRow, make_settings, summarize

DEFAULT_SEQ_LENS = (2048, 4096, 8192)
VARIANT_TITLES = {
    "transformer": "Transformer (Llama-3-8B)",
    "hyena2": "Hyena-2",
    "hybrid": "Hybrid (attention + Hyena-2)",
    "hyena2_circulant": "Hyena-2 + block-circulant weights",
}


def _unit(unit: UnitCost) -> dict[str, Any]:
    return {"name": unit.name, "unit": unit.unit, "forward": unit.forward, "backward": unit.backward,
            "optical_forward": unit.optical_forward, "optical_backward": unit.optical_backward}


def build_rows(base: Settings, variants: Sequence[str] = VARIANTS,
               seq_lens: Sequence[int] = DEFAULT_SEQ_LENS,
               documents: Sequence[int] | None = None) -> list[tuple[StepRow, dict]]:
    """One (row, why-the-share-falls breakdown) per variant and sequence length, from one ledger each; every
    sequence packs `documents` (Settings.documents, which must sum to each length; None: one document each).

    The breakdown sets one long-convolution channel (per sequence) beside one MLP matrix (per token).
    """
    out = []
    for variant in variants:
        for seq_len in seq_lens:
            s = make_settings(base, variant=variant, seq_len=seq_len,
                              documents=None if documents is None else tuple(documents))
            items = step_items(s)
            why = {"variant": variant, "seq_len": seq_len, "matrix": _unit(matrix(s, "mlp up", items))}
            if s.hyena_layers:
                why["channel"] = _unit(long_conv_channel(s, items))
            out.append((summarize(s, items), why))
    return out


def results_json(base: Settings, variants: Sequence[str] = VARIANTS,
                 seq_lens: Sequence[int] = DEFAULT_SEQ_LENS, checks: Iterable | None = None,
                 documents: Sequence[int] | None = None) -> dict[str, Any]:
    """The JSON contract: model, step_tokens, rows (one per variant and length), plus settings and checks.
    `documents`: the packed documents of every sequence (build_rows); each row carries its own.

    optical_speedup is null when infinite (JSON has no infinity).
    """
    shape = base.shape
    rows = build_rows(base, variants, seq_lens, documents)
    return {
        "model": {"name": shape.name, "matrix_params": shape.matrix_params, "N": shape.N,
                  "n_layers": shape.n_layers, "hidden": shape.hidden, "n_heads": shape.n_heads,
                  "n_kv_heads": shape.n_kv_heads, "intermediate": shape.intermediate, "vocab": shape.vocab,
                  "tied_embeddings": shape.tied_embeddings},
        "step_tokens": base.step_tokens,
        "block": base.block,
        "hybrid_attention_fraction": base.hybrid_attention_fraction,
        "recompute": base.recompute,
        "attention_kernel": base.attention_kernel,
        "attention_tile": base.attention_tile,
        "mask_spectrum": base.mask_spectrum,
        "fft_length": base.fft_length,
        "optical_speedup": base.optical_speedup if math.isfinite(base.optical_speedup) else None,
        "costs": asdict(base.costs),
        "device": asdict(base.device),
        "engine": engine_json(base),
        "rows": [row.to_json() for row, _ in rows],
        "why_share_falls": [why for _, why in rows],
        "spectral_checks": [asdict(c) for c in (checks if checks is not None else spectral_checks())],
    }


def engine_json(base: Settings) -> dict[str, Any]:
    """The engine as used: modulator mode, frame rate and values per pixel in use, whether cited, layout, I/O."""
    e = base.device
    return {"modulator": e.modulator, "frame_rate_hz": e.frame_rate_hz, "values_per_pixel": e.complex_values_per_pixel,
            "cited": e.cited, "cite": list(e.mode.cite), "note": e.note, "layout": e.layout,
            "row_pixels": e.row_pixels, "readout": e.readout, "readout_samples_per_value": e.readout_samples,
            "io_rate": e.io_rate}


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _bound(x: float) -> str:
    return f"{x:.3f}x"


def _table(header: Sequence[str], body: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in body]
    return lines


def results_markdown(data: dict[str, Any]) -> str:
    """Render the JSON contract as the results report."""
    m, rows = data["model"], data["rows"]
    dev, eng = data["device"], data["engine"]
    out = [f"# Training-step ledger: {m['name']}", "",
           f"Step of {data['step_tokens']:,} tokens; block {data['block']}; hybrid attention fraction "
           f"{data['hybrid_attention_fraction']}. Conventions: matmul {data['costs']['flops_per_mac']:g}mnk, "
           f"real FFT {data['costs']['fft_constant']:g} n log2 n, complex multiply "
           f"{data['costs']['complex_mul_flops']:g}, complex add {data['costs']['complex_add_flops']:g}, causal "
           f"halving {'on' if data['costs']['causal_attention'] else 'off'}. Recompute {data['recompute']}; mask "
           f"spectrum {data['mask_spectrum']}; optical speed-up "
           f"{'infinite' if data['optical_speedup'] is None else format(data['optical_speedup'], 'g')}; "
           f"long-convolution FFT length {data['fft_length']}. Attention kernel {data['attention_kernel']}"
           f"{' (tile ' + str(data['attention_tile']) + ')' if data['attention_kernel'] == 'flash-causal' else ''}.", "",
           "## 1. Cross-check: the 6N rule", "",
           f"Matrix parameters (norms left out): {m['matrix_params']:,}. N, the parameters that multiply "
           f"activations (input embedding left out, a lookup): {m['N']:,}.", ""]
    six = [r for r in rows if r["variant"] == "transformer"]
    out += _table(["sequence length", "step FLOPs", "6NT + 12LSHT ratio"],
                  [[f"{r['seq_len']:,}", f"{r['step_flops']:.6e}", f"{r['six_n_ratio']:.15f}"] for r in six])
    if not six:
        out.append("(the transformer was not among the variants asked for)")
    mixed = [r for r in rows if r["variant"] in ("transformer", "hybrid")]
    if mixed:
        out += ["", "### Model and hardware FLOPs", "",
                f"Model FLOPs price the full S x S attention products once (PaLM); hardware FLOPs are what the "
                f"{data['attention_kernel']} attention kernel and recompute {data['recompute']} execute. The Hyena "
                "long convolutions run as counted.", ""]
        out += _table(["variant", "S", "model FLOPs", "hardware FLOPs", "hardware / model"],
                      [[VARIANT_TITLES[r["variant"]], f"{r['seq_len']:,}",
                        f"{r['step_flops'] - r['recompute_flops']:.4e}", f"{r['hardware_flops']:.4e}",
                        f"{r['hardware_flops'] / (r['step_flops'] - r['recompute_flops']):.3f}"] for r in mixed])
    out += ["", "## 2. A training step", "",
            "Shares of FLOPs that are optical work (transforms and Fourier-domain products); static = transforms "
            "and weight-masked products only; data part = data-by-data products over optical work; Amdahl = "
            "1 / (1 - share).", ""]
    out += _table(["variant", "S", "sequences", "forward", "backward", "step", "static", "data part",
                   "Amdahl step", "Amdahl static", "backward/forward"],
                  [[VARIANT_TITLES[r["variant"]], f"{r['seq_len']:,}", r["sequences"], _pct(r["forward_share"]),
                    _pct(r["backward_share"]), _pct(r["step_share"]), _pct(r["static_share"]), _pct(r["data_part"]),
                    _bound(r["amdahl"]), _bound(r["amdahl_static"]),
                    f"{r['backward_flops'] / r['forward_flops']:.3f}"] for r in rows])
    out += ["", "## 3. Why the share falls from forward to step", "",
            "Backward over forward FLOPs, by kind of work: every matmul doubles, while the optical work of a "
            "long-convolution channel grows by far less (the backward pass adds no long FFTs beyond the "
            "forward's count; only the data-by-data product G.conj(U) is new). One channel per sequence beside "
            "one MLP matrix (up-projection) per token:", ""]
    body = []
    for r, why in zip(rows, data["why_share_falls"]):
        fwd, bwd = r["flops_by_class"]["forward"], r["flops_by_class"]["backward"]
        ch, mx = why.get("channel"), why["matrix"]
        body.append([VARIANT_TITLES[r["variant"]], f"{r['seq_len']:,}",
                     f"{ch['forward']:,.0f}" if ch else "-", f"{ch['backward']:,.0f}" if ch else "-",
                     f"{ch['optical_backward'] / ch['optical_forward']:.3f}" if ch else "-",
                     mx["name"], f"{mx['forward']:,.0f}", f"{mx['backward']:,.0f}",
                     f"{bwd['digital'] / fwd['digital']:.3f}",
                     f"{optical(bwd) / optical(fwd):.3f}" if optical(fwd) else "-"])
    out += _table(["variant", "S", "channel fwd FLOPs", "channel bwd FLOPs", "channel optical bwd/fwd",
                   "matrix", "matrix fwd FLOPs/token", "matrix bwd FLOPs/token", "step digital bwd/fwd",
                   "step optical bwd/fwd"], body)
    out += ["", "## 4. Holding the masks", "",
            f"Engine: {eng['note']}. {dev['pixels']:,.0f} pixels x {eng['values_per_pixel']:g} complex value per "
            f"pixel at {eng['frame_rate_hz']:g} frames/s, layout {eng['layout']}; layer-major order (each layer's "
            "weight masks written once per sweep, twice per step). "
            f"Digital step: all step FLOPs on {dev['gpus']:g} GPUs at {dev['gpu_flops'] / 1e12:g} TFLOP/s "
            "sustained.", ""]
    out += _table(["variant", "S", "weight-mask frames", "weight masks (s)", "data-mask frames",
                   "data masks (s)", "digital step (s)"],
                  [[VARIANT_TITLES[r["variant"]], f"{r['seq_len']:,}", f"{r['weight_mask_frames']:,}",
                    f"{r['weight_mask_s']:.2f}", f"{r['data_mask_frames']:,}", f"{r['data_mask_s']:.0f}",
                    f"{r['digital_step_s']:.2f}"] for r in rows])
    out += ["", "## 5. Numeric checks of the backward formulas", "",
            "Largest error relative to the largest direct value. The spectral formulas agree with direct sums to "
            "rounding; the finite-difference column is limited by the difference step.", ""]
    out += _table(["length", "FFT length", "y: FFT vs direct", "du: FFT vs direct", "dh: FFT vs direct",
                   "du: FFT vs finite diff.", "dh: FFT vs finite diff."],
                  [[c["length"], c["fft_len"], f"{c['forward_vs_direct']:.1e}", f"{c['input_grad_vs_direct']:.1e}",
                    f"{c['filter_grad_vs_direct']:.1e}", f"{c['input_grad_vs_fd']:.1e}",
                    f"{c['filter_grad_vs_fd']:.1e}"] for c in data["spectral_checks"]])
    return "\n".join(out) + "\n"
