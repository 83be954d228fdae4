"""The command line: `python -m ledger` writes results.md and results.json (or prints the JSON)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Sequence

from .errors import LedgerError
from .report import DEFAULT_SEQ_LENS, results_json, results_markdown
from .run import FILTER_BUILDS
from .engine import LAYOUTS, MASK_OVERLAPS, MODULATORS, READOUTS, REFUSED_MODULATORS
from .settings import ATTENTION_KERNELS, FFT_LENGTHS, LM_HEADS, MASK_SPECTRA, RECOMPUTE_MODES, VARIANTS, Device, Settings
from .shapes import ModelShape
from .costs import ATTENTION_COUNTS, Costs


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr and exit status 2 (no usage dump)."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (a positive integer is needed)") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{value} is not positive (a positive integer is needed)")
    return value


def _documents(text: str) -> tuple[int, ...]:
    """--documents L1,L2,...: tokens of each packed document."""
    parts = [part.strip() for part in text.split(",")]
    try:
        lengths = tuple(int(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of whole numbers "
                                         "(tokens of each document, e.g. 4096,4096)") from None
    if any(n <= 0 for n in lengths):
        raise argparse.ArgumentTypeError(f"{text!r} holds a length below 1 (every document needs at least one token)")
    return lengths


def _positive_float(text: str) -> float:
    try:
        value = float(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (a positive number is needed)") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a positive finite number")
    return value


def _speedup(text: str) -> float:
    try:
        value = float(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (a positive speed-up, or inf, is needed)") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not positive (a positive speed-up, or inf, is needed)")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (a fraction from 0 to 1 is needed)") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is outside 0..1 (a fraction of the layers is needed)")
    return value


def _modulator(text: str) -> str:
    if text in MODULATORS:
        return text
    if text in REFUSED_MODULATORS:
        raise argparse.ArgumentTypeError(f"{text!r} is refused: {REFUSED_MODULATORS[text]}")
    raise argparse.ArgumentTypeError(f"{text!r} is not a modulator mode (choose from {', '.join(MODULATORS)})")


def build_parser() -> argparse.ArgumentParser:
    d, dev = Settings(), Device()
    p = OneLineParser(prog="python -m ledger",
                      description="Count one LLM training step operation by operation and write results.md "
                                  "and results.json. Subcommands: `python -m ledger reconcile --json` compares "
                                  "other accountings; `python -m ledger assumptions [--json]` lists every "
                                  "assumption and what it changes; `python -m ledger claims [--json]` every checked "
                                  "claim of the prose; `python -m ledger exercises key "
                                  "--students FILE --out KEY.csv` writes the teacher's answer key (`exercises "
                                  "list`: every exercise label).")
    p.add_argument("--json", action="store_true", help="print the JSON to stdout instead of writing files")
    p.add_argument("--out-dir", type=Path, default=Path("."), help="where results.md/.json go (default: .)")
    p.add_argument("--config", type=Path, help="a Hugging Face config.json of a Llama-style model "
                                               "(default: Llama-3-8B)")
    p.add_argument("--seq-len", type=_positive_int, action="append", metavar="N",
                   help=f"sequence length, repeatable (default: {', '.join(map(str, DEFAULT_SEQ_LENS))})")
    p.add_argument("--step-tokens", type=_positive_int, default=d.step_tokens, metavar="N",
                   help=f"tokens per optimizer step (default: {d.step_tokens})")
    p.add_argument("--variant", choices=VARIANTS, action="append", help="variant, repeatable (default: all four)")
    p.add_argument("--block", type=_positive_int, default=d.block, metavar="N",
                   help=f"block-circulant block size (default: {d.block})")
    p.add_argument("--hybrid-attention-fraction", type=_fraction, default=d.hybrid_attention_fraction,
                   metavar="F", help=f"share of the hybrid's layers with attention (default: "
                                     f"{d.hybrid_attention_fraction})")
    p.add_argument("--causal-attention", action="store_true", help="halve QK^T and AV for the causal mask")
    p.add_argument("--documents", type=_documents, default=None, metavar="L1,L2,...",
                   help="tokens of each document packed into every sequence, summing to the sequence length "
                        "(default: one document; without --seq-len the sequence length is their sum)")
    p.add_argument("--attention-count", choices=ATTENTION_COUNTS, default=Costs().attention_count,
                   help="the model count's attention over packed documents: sequence (the whole row, as torchtitan "
                        "and PaLM count it; default) or documents (the sum of L_i^2, as Megatron-LM's main counts "
                        "packed sequences)")
    p.add_argument("--fft-constant", type=_positive_float, default=Costs().fft_constant, metavar="C",
                   help="real FFT costs C n log2 n FLOPs (default: 2.5)")
    p.add_argument("--recompute", choices=RECOMPUTE_MODES, default=d.recompute,
                   help="activation recomputation: none, or full (every block's forward again before its "
                        "backward; default: none)")
    p.add_argument("--attention-kernel", choices=ATTENTION_KERNELS, default=d.attention_kernel,
                   help="attention kernel the hardware runs, for hardware_flops: dense (scores materialised), "
                        "flash (FlashAttention, no causal mask: backward recomputes QK^T) or flash-causal "
                        f"(masked tiles skipped; default: {d.attention_kernel})")
    p.add_argument("--attention-tile", type=_positive_int, default=d.attention_tile, metavar="N",
                   help=f"tile size of the flash-causal kernel (default: {d.attention_tile}, FlashAttention-2's "
                        "query tile for head dimension 128)")
    p.add_argument("--mask-spectrum", choices=MASK_SPECTRA, default=d.mask_spectrum,
                   help="values a mask holds per transform of length n: one-sided n/2+1, two-sided n "
                        "(default: one-sided)")
    p.add_argument("--fft-length", choices=FFT_LENGTHS, default=d.fft_length,
                   help="long-convolution FFT length: 2S, or 2S-1 (the shortest without wrap-around; default: 2S). "
                        "Both are priced C n log2 n, so 2S-1 (odd; 8,191 is prime) is priced as if it were a "
                        "power of two: it shows the length's effect on the count, not a cheaper FFT")
    p.add_argument("--lm-head", choices=LM_HEADS, default=d.lm_head,
                   help="the block-circulant model's LM head: dense (default) or circulant (blocks of --block)")
    p.add_argument("--micro-batches", type=_positive_int, default=d.micro_batches, metavar="M",
                   help="micro-batches each data-parallel rank (one per GPU) runs per step (default: 1)")
    p.add_argument("--filter-build", choices=FILTER_BUILDS, default=d.filter_build,
                   help="filter and weight-block spectra built once per step (the ledger's idealisation) or once "
                        "per micro-batch per rank (a real run; default: step)")
    p.add_argument("--optical-speedup", type=_speedup, default=d.optical_speedup, metavar="S",
                   help="the optical engine runs its work S times faster; Amdahl = 1/((1-p)+p/S) "
                        "(default: inf, the bound 1/(1-p))")
    p.add_argument("--pixels", type=_positive_float, default=dev.pixels, help="mask pixels (default: 2e6)")
    p.add_argument("--modulator", type=_modulator, default=dev.modulator, metavar="NAME",
                   help="mask modulator mode, which sets the frame rate and complex values per pixel: "
                        + "; ".join(f"{m.name} ({m.frame_rate_hz:g} Hz, {m.values_per_pixel:g} per pixel)"
                                    for m in MODULATORS.values()) + f" (default: {dev.modulator})")
    p.add_argument("--values-per-pixel", type=_positive_float, default=None,
                   help="override the modulator's complex values per pixel (the row then says cited: false)")
    p.add_argument("--frame-rate", type=_positive_float, default=None, metavar="HZ",
                   help="override the modulator's mask frames per second (the row then says cited: false)")
    p.add_argument("--layout", choices=LAYOUTS, default=dev.layout,
                   help="Fourier-plane layout: packed (values fill the frame; default) or rows (one spectrum per "
                        "row under cylindrical optics, a longer one over several rows)")
    p.add_argument("--row-pixels", type=_positive_int, default=dev.row_pixels, metavar="N",
                   help=f"pixels along a row, layout rows (default: {dev.row_pixels})")
    p.add_argument("--readout", choices=tuple(READOUTS), default=dev.readout,
                   help="output detection: interferometric (2 detector samples per real number, sign kept; "
                        "default) or intensity (1 sample of |y|^2, sign lost)")
    p.add_argument("--gpus", type=_positive_float, default=dev.gpus, help="GPUs of the digital step (default: 64)")
    p.add_argument("--gpu-flops", type=_positive_float, default=dev.gpu_flops, metavar="FLOPS",
                   help="sustained FLOP/s per GPU on matrix products (default: 4e14)")
    p.add_argument("--gpu-bandwidth", type=_positive_float, default=dev.gpu_bandwidth, metavar="BYTES",
                   help="memory bytes/s per GPU, the bound of FFTs and elementwise work (default: 3.35e12)")
    p.add_argument("--link-rate", type=_positive_float, default=dev.link_rate, metavar="BYTES",
                   help="bytes/s each way between the GPUs and the engine (default: 6.3e10)")
    p.add_argument("--engines", type=_positive_float, default=dev.engines, metavar="N",
                   help="optical engines sharing the step's streaming, each rewriting every mask (default: 1; "
                        "--engines 64: one per GPU)")
    p.add_argument("--mask-overlap", choices=MASK_OVERLAPS, default=dev.mask_overlap,
                   help="serial: the engine waits for its mask rewrites (default); overlapped: a double-buffered "
                        "device writes the next masks while the current ones serve")
    return p


def settings_from_args(args: argparse.Namespace) -> Settings:
    shape = ModelShape.from_hf_config(args.config) if args.config else ModelShape()
    device = Device(modulator=args.modulator, pixels=args.pixels, values_per_pixel=args.values_per_pixel,
                    frame_rate=args.frame_rate, layout=args.layout, row_pixels=args.row_pixels, readout=args.readout,
                    gpus=args.gpus, gpu_flops=args.gpu_flops, gpu_bandwidth=args.gpu_bandwidth,
                    link_rate=args.link_rate, engines=args.engines, mask_overlap=args.mask_overlap)
    costs = Costs(fft_constant=args.fft_constant, causal_attention=args.causal_attention,
                  attention_count=args.attention_count)
    return Settings(step_tokens=args.step_tokens, block=args.block, shape=shape, costs=costs, device=device,
                    hybrid_attention_fraction=args.hybrid_attention_fraction, recompute=args.recompute,
                    mask_spectrum=args.mask_spectrum, optical_speedup=args.optical_speedup,
                    fft_length=args.fft_length, attention_kernel=args.attention_kernel,
                    attention_tile=args.attention_tile, lm_head=args.lm_head,
                    micro_batches=args.micro_batches, filter_build=args.filter_build,
                    seq_len=args.step_tokens)  # a placeholder that divides the step; each row sets its own


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "reconcile":
        from . import reconcile
        return reconcile.main(argv[1:])
    if argv and argv[0] == "assumptions":
        from . import assumptions
        return assumptions.main(argv[1:])
    if argv and argv[0] == "claims":
        from . import claims
        return claims.main(argv[1:])
    if argv and argv[0] == "exercises":
        from importlib.util import find_spec
        if find_spec(f"{__package__}.exercises.instructor") is None:  # the student folder leaves it out
            if argv[1:] in (["list"], ["list", "--json"]):  # labels, units and precisions: no answer, no rubric
                from .exercises.registry import label_lines
                print("\n".join(label_lines(as_json=argv[1:] == ["list", "--json"])))
                return 0
            print("python -m ledger exercises: the answer key and the rubrics are in the teacher's edition, "
                  "not in the student folder (`python -m ledger exercises list` lists the labels here)",
                  file=sys.stderr)
            return 2
        from .exercises import instructor
        return instructor.main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        base = settings_from_args(args)
        variants = tuple(dict.fromkeys(args.variant or VARIANTS))
        default_lens = (sum(args.documents),) if args.documents else DEFAULT_SEQ_LENS
        seq_lens = tuple(dict.fromkeys(args.seq_len or default_lens))
        data = results_json(base, variants, seq_lens, documents=args.documents)
    except LedgerError as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    if args.json:
        try:
            json.dump(data, sys.stdout, indent=1)
            sys.stdout.write("\n")
            sys.stdout.flush()
        except BrokenPipeError:  # the reader stopped early (e.g. `| head`): not an error of ours
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    try:
        args.out_dir.mkdir(parents=True, exist_ok=True)
        (args.out_dir / "results.json").write_text(json.dumps(data, indent=1) + "\n")
        (args.out_dir / "results.md").write_text(results_markdown(data))
    except OSError as err:
        parser.exit(2, f"{parser.prog}: error: cannot write to {str(args.out_dir)!r}: {err.strerror}\n")
    print(f"wrote {args.out_dir / 'results.md'} and {args.out_dir / 'results.json'}")
    return 0
