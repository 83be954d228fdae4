"""The switchboard: the step FLOPs other tools' own code returns, and the ledger switches that reproduce them.

Each peer figure is data, not a formula: `data/peers/<source>.json` holds what that tool's own
code returned for Llama-3-8B (or, for the Hyena counters, Llama-3-8B's width on the ledger's
Hyena-2) at 2,048, 4,096 and 8,192 tokens per sequence and 1,048,576 tokens per step (a row of packed
documents also stores its documents), with the commit it
was run at and the command (`data/peers/collect.py` ran them, outside the project). This module
sets each figure beside the ledger's count and recounts the ledger's own line items with the
row's switches thrown. A switch is a named accounting convention with the same value at every
sequence length (never a number solved for), so a row whose switched ledger equals the peer's
figure at every length is explained, not fitted.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from .errors import LedgerError
from .hardware import hardware_flops
from .layers import RECOMPUTE, LineItem
from .costs import ATTENTION_COUNTS
from .settings import RECOMPUTE_MODES, Settings
from .shapes import LLAMA3_8B, ModelShape
from .step import step_items
from .table import step_row

PEERS_DIR = Path(__file__).resolve().parent.parent / "data" / "peers"
STEP_TOKENS = 1_048_576
SEQ_LENS = (2048, 4096, 8192)
REPRODUCED_REL_TOL = 1e-12
"""Agreement asked of a reproduced row: float rounding of the peer's own arithmetic, nothing more."""

# --- the sources: variant, switches, and what the switches mean for that tool ------------------

HYENA_FFT_CONVENTIONS = {"fft_length": "S", "fft_constant": 5.0, "long_convs_per_layer": 1,
                         "elementwise": "not counted", "per_step_transforms": "not counted",
                         "backward": "2x forward"}

HYENA_ONE_LONG_CONV = (
    "Savanna's ParallelHyenaOperator.forward (savanna/model/operators/hyena/hyena.py at 0d42c604) and NeMo's "
    "(nemo/collections/llm/gpt/model/megatron/hyena/hyena_utils.py at 8cfedd72) gate z = x2 * v, run one "
    "fftconv_func on z and gate again with x1: one long convolution per layer, so the count's 10 S log2 S per "
    "channel is one convolution's two transforms of length S at 5 n log2 n each, not two convolutions at 2.5")
"""Why the Hyena rows take long_convs_per_layer = 1 and fft_constant = 5: the data alone do not decide it."""

SOURCES: dict[str, dict[str, Any]] = {
    "palm-nanogpt": {
        "variant": "transformer", "switches": {}, "reproduction": False,
        "model": "book", "run": "PaLM's formula with the ledger's N",
        "model_note": "Llama-3-8B, N supplied (nanoGPT's GPT cannot build it)",
        "note": "PaLM's 6N + 12LHS in nanoGPT's estimate_mfu with N = the weights that multiply activations "
                "(LM head in, input embedding and norms out): the ledger's own count restated, not a tool "
                "reproduced (nanoGPT's own get_num_params counts the norms and the embedding)"},
    "palm-nanogpt-total-param-count": {
        "variant": "transformer", "switches": {"params_counted": "all"}, "reproduction": True,
        "model": "book", "run": "PaLM's formula with the total parameter count",
        "model_note": "Llama-3-8B, N = its total parameter count (what a practitioner plugs in)",
        "note": "the common mistake: Llama-3-8B's total parameter count as N in 6N, pricing the input "
                "lookup and the norm weights as if they were matmuls"},
    "torchtitan": {
        "variant": "transformer", "switches": {"params_counted": "matmuls+norms"}, "reproduction": True,
        "model": "book", "run": "configured: Llama-3-8B's parameter shapes",
        "model_note": "Llama-3-8B",
        "note": "6 x (all parameters - embedding) + 12 L H S: the norm weights priced as matmul weights"},
    "megatron-full-attention": {
        "variant": "transformer", "switches": {}, "reproduction": True,
        "model": "book", "run": "configured: Llama-3-8B's flags",
        "model_note": "Llama-3-8B",
        "note": "GQA and SwiGLU counted as the ledger does; padded vocabulary = 128,256 at tensor-parallel size 1; "
                "the parent of 8873b55d (3 March 2025), before causal halving"},
    "megatron-2025": {
        "variant": "transformer", "switches": {"causal_attention": True}, "reproduction": True,
        "model": "book", "run": "configured: Llama-3-8B's flags",
        "model_note": "Llama-3-8B",
        "note": "core attention halved for the causal mask (8873b55d, 6 March 2025)"},
    "megatron-main": {
        "variant": "transformer", "switches": {"causal_attention": True}, "reproduction": True,
        "model": "book", "run": "configured: Llama-3-8B's flags, unpacked (BSHD) batches",
        "model_note": "Llama-3-8B, one document per sequence",
        "note": "main at d98e8a64 (22 August 2026) on unpacked batches: the same count as 8873b55d"},
    "megatron-main-packed": {
        "variant": "transformer", "switches": {"causal_attention": True, "attention_count": "documents"},
        "reproduction": True, "model": "book",
        "run": "configured: Llama-3-8B's flags, packed (THD) batches of the stated documents",
        "model_note": "Llama-3-8B, every sequence packing the same illustrative documents",
        "note": "main at d98e8a64 on packed batches: core attention from the sum of L_i^2 over the documents, "
                "halved for the causal mask; token-linear work on the real tokens (no padding here)"},
    "eleutherai-cookbook": {
        "variant": "transformer",
        "switches": {"mlp_width": 16384, "lm_head": "forward only", "input_embedding_flops_per_token": 16384},
        "reproduction": True, "model": "other", "run": "CLI, flags as its help text says for Llama",
        "model_note": "MLP 16,384 wide, not 14,336: --ffn-hidden-size is not read and -ff takes integers",
        "note": "-nl 3 gives three MLP matrices but --ffn-hidden-size is not used: width 4H = 16,384, not "
                "14,336; LM head forward only; the input lookup priced at 4H per token"},
    "eleutherai-cookbook-checkpointing": {
        "variant": "transformer",
        "switches": {"mlp_width": 16384, "lm_head": "forward only", "input_embedding_flops_per_token": 16384,
                     "recompute": "full"},
        "reproduction": True, "model": "other", "run": "CLI default (activation checkpointing)",
        "model_note": "MLP 16,384 wide, as the CLI row",
        "note": "as above, and every block's forward run again (iteration factor 4): hardware FLOPs"},
    "eleutherai-cookbook-api-ff3.5": {
        "variant": "transformer",
        "switches": {"lm_head": "forward only", "input_embedding_flops_per_token": 16384},
        "reproduction": True, "model": "book", "run": "configured: calc_flops with ffn_expansion_factor = 3.5",
        "model_note": "Llama-3-8B: MLP 14,336 = 3.5 x 4,096 through the function, which the CLI cannot pass",
        "note": "the cookbook's own calc_flops given the factor 3.5: only its conventions remain, a forward-only "
                "LM head and the input lookup at 4H per token"},
    "savanna-hyena": {
        "variant": "hyena2",
        "switches": {**HYENA_FFT_CONVENTIONS, "mlp_width": 10944}, "reproduction": True,
        "model": "other", "run": "configured: vocab_size = 128,256",
        "model_note": "Llama-3-8B's width, depth and vocabulary, but Savanna's MLP (8/3 H rounded up to a "
                      "multiple of 64 = 10,944, fixed in mfu.py) and one long convolution per layer (Hyena-2: two)",
        "equivalent": [("fft_constant", "long_convs_per_layer")], "chosen_by": HYENA_ONE_LONG_CONV,
        "note": "Savanna fixes the MLP width at 8/3 H rounded up to a multiple of 64 (10,944); the vocabulary "
                "as configured; one FFT long convolution of length S per layer"},
    "savanna-hyena-vocab512": {
        "variant": "hyena2",
        "switches": {**HYENA_FFT_CONVENTIONS, "mlp_width": 10944, "vocab": 512}, "reproduction": True,
        "model": "other", "run": "tool default: no vocab_size in the config",
        "model_note": "as savanna-hyena, with the logits of Savanna's byte-level vocabulary of 512",
        "equivalent": [("fft_constant", "long_convs_per_layer")], "chosen_by": HYENA_ONE_LONG_CONV,
        "note": "Savanna's default: mfu.py's VOCAB_SIZE = 512 when the config has no vocab_size"},
    "nemo-hyena": {
        "variant": "hyena2", "switches": dict(HYENA_FFT_CONVENTIONS), "reproduction": True,
        "model": "other", "run": "configured: MLP and vocabulary from FLOPSConfig",
        "model_note": "Llama-3-8B's width, depth, MLP and vocabulary, one long convolution per layer (Hyena-2: two)",
        "equivalent": [("fft_constant", "long_convs_per_layer")], "chosen_by": HYENA_ONE_LONG_CONV,
        "note": "NeMo's port of Savanna's count, MLP width and vocabulary as configured"},
}
"""Per source: the ledger variant, the switches, whether the row counts as a reproduction of a tool
(False for a formula that restates the ledger), whether the tool ran the book's model ("book") or a
different one ("other", model_note says how), how the tool was run (its default or configured),
and, where the data do not identify the switches, which switch groups could be left out with the
same figures ("equivalent") and the code that decides between them ("chosen_by")."""

SWITCH_VALUES: dict[str, str] = {
    "causal_attention": "True or False: halve QK^T and AV for the causal mask",
    "attention_count": "'sequence' (S^2 over the whole row, the ledger) or 'documents' (the sum of L_i^2 over the "
                       "documents a row packs; Costs.attention_count)",
    "fft_constant": "a positive number c: one real FFT of length n costs c n log2 n",
    "fft_length": "'2S' (zero-padded, the ledger) or 'S' (unpadded)",
    "long_convs_per_layer": "a positive integer (the ledger's order-2 Hyena has 2)",
    "mlp_width": "a positive integer: the MLP's intermediate width",
    "vocab": "a positive integer: the vocabulary of the LM head",
    "lm_head": "'counted' or 'forward only' (no dX, no dW)",
    "input_embedding_flops_per_token": "a number >= 0: FLOPs charged per token for the input lookup, forward only",
    "params_counted": "'matmuls' (the ledger), 'matmuls+norms' or 'all' (input embedding too), at 6 per token",
    "recompute": "'none' or 'full' (Settings.recompute: every block's forward run again; activation checkpointing)",
    "backward": "'ledger' or '2x forward'",
    "elementwise": "'counted' or 'not counted' (gates, spectral products, gradient accumulation)",
    "per_step_transforms": "'counted' or 'not counted' (filter FFTs done once per step)",
}
SWITCH_KEYS = tuple(SWITCH_VALUES)
ELEMENTWISE_OPS = ("gates", "H . U", "G . conj(H)", "G . conj(U)", "accumulate dH")


class _UnpaddedFFT(Settings):
    """Settings whose long convolutions run FFTs of length S (no zero padding to 2S)."""

    @property
    def fft_len(self) -> int:
        return self.seq_len


def norm_params(shape: ModelShape) -> int:
    """RMSNorm weights of a Llama-style model (ModelShape.norm_params: two per layer and a final one)."""
    return shape.norm_params


def megatron_padded_vocab(vocab: int, tensor_parallel: int = 1, divisible_by: int = 128) -> int:
    """The vocabulary Megatron-LM's LM head really has: `vocab` rounded up to a multiple of
    divisible_by x tensor_parallel (so each tensor-parallel shard is whole and aligned)."""
    for name, value in (("vocab", vocab), ("tensor_parallel", tensor_parallel), ("divisible_by", divisible_by)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise LedgerError(f"{name} = {value!r}: must be a positive integer")
    multiple = divisible_by * tensor_parallel
    return -(-vocab // multiple) * multiple


def _choice(switches: dict[str, Any], key: str, allowed: tuple, default: Any) -> Any:
    value = switches.get(key, default)
    if value not in allowed:
        raise LedgerError(f"{key} = {value!r}: allowed are {SWITCH_VALUES[key]}")
    return value


def _positive_int(switches: dict[str, Any], key: str) -> int | None:
    value = switches.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
        raise LedgerError(f"{key} = {value!r}: allowed are {SWITCH_VALUES[key]}")
    return value


def switched_settings(settings: Settings, switches: dict[str, Any]) -> Settings:
    """The settings the ledger counts with under `switches` (shape, cost conventions, FFT length)."""
    unknown = [k for k in switches if k not in SWITCH_KEYS]
    if unknown:
        raise LedgerError(f"switch {unknown[0]!r}: allowed are {', '.join(SWITCH_KEYS)}")
    shape = settings.shape
    for key, field in (("mlp_width", "intermediate"), ("vocab", "vocab")):
        value = _positive_int(switches, key)
        if value is not None:
            shape = replace(shape, **{field: value})
    costs = settings.costs
    if "causal_attention" in switches:
        if not isinstance(switches["causal_attention"], bool):
            raise LedgerError(f"causal_attention = {switches['causal_attention']!r}: allowed are "
                              f"{SWITCH_VALUES['causal_attention']}")
        costs = replace(costs, causal_attention=switches["causal_attention"])
    if "attention_count" in switches:
        costs = replace(costs, attention_count=_choice(switches, "attention_count", ATTENTION_COUNTS, "sequence"))
    if "fft_constant" in switches:
        costs = replace(costs, fft_constant=switches["fft_constant"])
    cls = _UnpaddedFFT if _choice(switches, "fft_length", ("2S", "S"), "2S") == "S" else Settings
    # recompute is the core ledger's own switch (Settings.recompute, ledger.step.recomputed): every
    # block's per-token and per-sequence forward items again in phase "recompute"; the LM head, the
    # input lookup and the per-step filter/weight-block transforms not. The cookbook's checkpointing
    # (iteration factor 4 on every block term, its embedding/LM-head term once) is exactly that for a
    # transformer, which has no per-step transforms.
    recompute = _choice(switches, "recompute", RECOMPUTE_MODES, settings.recompute)
    return cls(variant=settings.variant, seq_len=settings.seq_len, step_tokens=settings.step_tokens,
               block=settings.block, hybrid_attention_fraction=settings.hybrid_attention_fraction,
               shape=shape, costs=costs, device=settings.device, recompute=recompute, documents=settings.documents)


def switched_items(settings: Settings, switches: dict[str, Any]) -> list[LineItem]:
    """The ledger's line items under `switches` (recomputed items included), before the step-level
    conventions (backward, parameters counted, input embedding)."""
    s = switched_settings(settings, switches)
    items = step_items(s)
    convs = _positive_int(switches, "long_convs_per_layer")
    if convs is not None:  # the ledger's Hyena-2 has two long convolutions per channel per layer
        items = [replace(i, count=i.count * convs / 2, flops=i.flops * convs / 2) if i.op.startswith("long conv")
                 else i for i in items]
    if _choice(switches, "elementwise", ("counted", "not counted"), "counted") == "not counted":
        items = [i for i in items if not any(op in i.op for op in ELEMENTWISE_OPS)]
    if _choice(switches, "per_step_transforms", ("counted", "not counted"), "counted") == "not counted":
        items = [i for i in items if not (i.per == "step" and i.cls == "transform")]
    if _choice(switches, "lm_head", ("counted", "forward only"), "counted") == "forward only":
        items = [i for i in items if not (i.layer == "lm_head" and i.phase != "forward")]
    return items


def ledger_with_switches(settings: Settings, switches: dict[str, Any]) -> float:
    """The ledger's step FLOPs recounted with accounting switches thrown (see SWITCH_VALUES)."""
    s = switched_settings(settings, switches)
    items = switched_items(settings, switches)
    forward = sum(i.flops for i in items if i.phase == "forward")
    recomputed = sum(i.flops for i in items if i.phase == RECOMPUTE)
    backward = sum(i.flops for i in items if i.phase not in ("forward", RECOMPUTE))
    if _choice(switches, "backward", ("ledger", "2x forward"), "ledger") == "2x forward":
        backward = 2 * forward
    total = forward + recomputed + backward
    params = _choice(switches, "params_counted", ("matmuls", "matmuls+norms", "all"), "matmuls")
    if params in ("matmuls+norms", "all"):
        total += 6 * norm_params(s.shape) * s.step_tokens
    if params == "all":
        total += 6 * s.shape.embedding_params * s.step_tokens
    embed = switches.get("input_embedding_flops_per_token", 0)
    if isinstance(embed, bool) or not isinstance(embed, (int, float)) or not math.isfinite(embed) or embed < 0:
        raise LedgerError(f"input_embedding_flops_per_token = {embed!r}: allowed are "
                          f"{SWITCH_VALUES['input_embedding_flops_per_token']}")
    return total + embed * s.step_tokens


# --- the peers' figures, as stored --------------------------------------------------------------

def load_peer(source: str, peers_dir: Path = PEERS_DIR) -> dict[str, Any]:
    """The stored record of one source: repository, commit, file, method and its figures."""
    if source not in SOURCES:
        raise LedgerError(f"source {source!r}: allowed are {', '.join(SOURCES)}")
    path = Path(peers_dir) / f"{source}.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise LedgerError(f"peer figures {str(path)!r}: no such file (run data/peers/collect.py)") from None


def peer_figure(source: str, seq_len: int, step_tokens: int = STEP_TOKENS) -> dict[str, Any]:
    """One stored figure of `source`: seq_len, step_flops, counts, command."""
    record = load_peer(source)
    for fig in record["figures"]:
        if fig["seq_len"] == seq_len and record["step_tokens"] == step_tokens:
            return fig
    have = ", ".join(f"{f['seq_len']:,}" for f in record["figures"])
    raise LedgerError(f"seq_len = {seq_len}, step_tokens = {step_tokens}: {source} was run at S = {have} "
                      f"and {record['step_tokens']:,} tokens per step only")


def figure_settings(source: str, figure: dict[str, Any], step_tokens: int = STEP_TOKENS) -> Settings:
    """The book's model as `source`'s figure ran it: its variant, sequence length, step and packed documents."""
    docs = figure.get("documents")
    return Settings(variant=SOURCES[source]["variant"], seq_len=figure["seq_len"], step_tokens=step_tokens,
                    shape=LLAMA3_8B, documents=None if docs is None else tuple(docs))


def packs_documents(source: str) -> bool:
    """Whether `source`'s stored figures are of rows that pack several documents (a `documents` field)."""
    return any("documents" in f for f in load_peer(source)["figures"])


def switched_step_flops(source: str, seq_len: int, step_tokens: int = STEP_TOKENS,
                        documents: Sequence[int] | None = None) -> float:
    """The ledger with `source`'s switches at any sequence length (the peer code ran at 2,048, 4,096 and 8,192
    only), every sequence packing `documents` (None: one document). A source of packed rows needs its documents:
    its count depends on them."""
    spec = SOURCES.get(source)
    if spec is None:
        raise LedgerError(f"source {source!r}: allowed are {', '.join(SOURCES)}")
    if documents is None and packs_documents(source):
        raise LedgerError(f"source {source!r} counts rows of packed documents: pass documents= (tokens of each "
                          f"document, summing to seq_len = {seq_len})")
    settings = Settings(variant=spec["variant"], seq_len=seq_len, step_tokens=step_tokens, shape=LLAMA3_8B,
                        documents=None if documents is None else tuple(documents))
    return ledger_with_switches(settings, spec["switches"])


def reproduces(source: str, switches: dict[str, Any]) -> bool:
    """Whether the ledger with `switches` equals every stored figure of `source` (to REPRODUCED_REL_TOL)."""
    spec = SOURCES.get(source)
    if spec is None:
        raise LedgerError(f"source {source!r}: allowed are {', '.join(SOURCES)}")
    record = load_peer(source)
    return all(math.isclose(ledger_with_switches(figure_settings(source, f, record["step_tokens"]), switches),
                            f["step_flops"], rel_tol=REPRODUCED_REL_TOL) for f in record["figures"])


def reproducing_omissions(source: str) -> list[tuple[str, ...]]:
    """Every subset of `source`'s switches that reproduces its figures, given as the switches left out
    (() is the full set). Only [()] means the row is identified: no smaller set of its switches will do."""
    switches = SOURCES[source]["switches"] if source in SOURCES else None
    if switches is None:
        raise LedgerError(f"source {source!r}: allowed are {', '.join(SOURCES)}")
    keys = sorted(switches)
    found = []
    for k in range(len(keys) + 1):
        for left_out in itertools.combinations(keys, k):
            if reproduces(source, {key: v for key, v in switches.items() if key not in left_out}):
                found.append(left_out)
    return found


def ledger_hardware_flops(source: str, seq_len: int, step_tokens: int = STEP_TOKENS,
                          attention_kernel: str | None = None, documents: Sequence[int] | None = None) -> float:
    """FLOPs the kernels execute in one step of the book's model for `source`'s row: its variant with
    Llama-3-8B's shape, its recompute switch, the attention core as `attention_kernel` runs it (default:
    Settings' default, causal FlashAttention, within each of `documents` when the row packs several). Set beside
    the row's model count (ledger_step_flops)."""
    spec = SOURCES.get(source)
    if spec is None:
        raise LedgerError(f"source {source!r}: allowed are {', '.join(SOURCES)}")
    recompute = _choice(spec["switches"], "recompute", RECOMPUTE_MODES, "none")
    kernel = {} if attention_kernel is None else {"attention_kernel": attention_kernel}
    return hardware_flops(Settings(variant=spec["variant"], seq_len=seq_len, step_tokens=step_tokens,
                                   shape=LLAMA3_8B, recompute=recompute,
                                   documents=None if documents is None else tuple(documents), **kernel))


PRACTICE_SEQ_LEN = 8192
"""The row length torchtitan's Llama 3 8B recipe trains at (num_tokens_per_microbatch_per_dp_rank = 8,192)."""


def document_mixes(seq_len: int = PRACTICE_SEQ_LEN) -> dict[str, tuple[int, ...]]:
    """Illustrative mixes of documents packed into one row of `seq_len` tokens (not a published length
    distribution): one document, two halves, the eight documents of the stored packed Megatron row (at
    8,192 tokens), and sixteen of a sixteenth."""
    mixes = {"one document": (seq_len,), "two halves": (seq_len // 2, seq_len - seq_len // 2)}
    stored = [f for f in load_peer("megatron-main-packed")["figures"] if f["seq_len"] == seq_len]
    if stored:
        mixes["eight documents (the packed Megatron row)"] = tuple(stored[0]["documents"])
    if seq_len % 16 == 0:
        mixes["sixteen equal documents"] = (seq_len // 16,) * 16
    return mixes


def packed_counts(documents: Sequence[int], seq_len: int = PRACTICE_SEQ_LEN, step_tokens: int = STEP_TOKENS,
                  peak_flops: float = 989.4e12) -> dict[str, float]:
    """One Llama-3-8B step whose rows pack `documents`: torchtitan's count (the whole row), Megatron-LM main's
    (per document, causal halving), what the flash-causal kernel executes (masked within each document, no
    recomputation), the step's seconds in the ledger's time model (ledger.step_time: the kernel's work at the
    engine's GPU rates) and the utilisation each count gives over those seconds at `peak_flops` per GPU (the
    H100 SXM's dense BF16 peak, nvidia2023h100): MFU for the two counts, HFU for the kernel's."""
    docs = tuple(documents)
    row = step_row(variant="transformer", seq_len=seq_len, step_tokens=step_tokens, documents=docs)
    counts = {"torchtitan": switched_step_flops("torchtitan", seq_len, step_tokens),
              "megatron": switched_step_flops("megatron-main-packed", seq_len, step_tokens, documents=docs),
              "kernel": row.hardware_flops}
    seconds = row.all_digital_step_s
    gpus = Settings().device.gpus
    out = {f"{k}_flops": v for k, v in counts.items()}
    out.update({f"{k}_utilization": v / (seconds * gpus * peak_flops) for k, v in counts.items()})
    out["step_s"] = seconds
    return out


def reconciliation_counts() -> dict[str, int]:
    """The counts the chapter states: tools (repositories) run, on the transformer and on Hyena, rows,
    tool runs counted as reproductions and how many of them reproduce, runs of the book's model or of a
    different one, and runs whose switch set is identified (no other subset of it reproduces)."""
    records = {source: load_peer(source) for source in SOURCES}
    repo_variants: dict[str, set] = {}
    for source, rec in records.items():
        repo_variants.setdefault(rec["repository"], set()).add(SOURCES[source]["variant"])
    runs = [s for s in SOURCES if SOURCES[s]["reproduction"]]
    identified = [s for s in runs if reproducing_omissions(s) == [()]]
    return {
        "tools": len(repo_variants),
        "tools_transformer": sum(v == {"transformer"} for v in repo_variants.values()),
        "tools_hyena": sum(v == {"hyena2"} for v in repo_variants.values()),
        "rows": sum(len(r["figures"]) for r in records.values()),
        "sources": len(SOURCES),
        "runs": len(runs),
        "run_rows": sum(len(records[s]["figures"]) for s in runs),
        "runs_reproduced": sum(reproduces(s, SOURCES[s]["switches"]) for s in runs),
        "runs_book_model": sum(SOURCES[s]["model"] == "book" for s in runs),
        "runs_other_model": sum(SOURCES[s]["model"] == "other" for s in runs),
        "runs_identified": len(identified),
        "runs_not_identified": len(runs) - len(identified),
    }


def reconcile_rows(sources: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Every source at every stored sequence length: its own figure, the ledger's, the switches between them."""
    rows = []
    for source in sources or SOURCES:
        spec = SOURCES[source]
        record = load_peer(source)
        for fig in record["figures"]:
            s, t = fig["seq_len"], record["step_tokens"]
            settings = figure_settings(source, fig, t)
            ledger_flops = sum(i.flops for i in step_items(settings))
            switched = ledger_with_switches(settings, spec["switches"])
            hardware = ledger_hardware_flops(source, s, t, documents=fig.get("documents"))
            rows.append({
                "source": source, "variant": spec["variant"], "seq_len": s, "step_tokens": t,
                "documents": list(settings.document_lengths),
                "step_flops": float(fig["step_flops"]), "ledger_step_flops": float(ledger_flops),
                "ledger_hardware_flops": float(hardware), "switches": dict(spec["switches"]), "ledger_with_switches_flops": float(switched),
                "commit": record["commit"], "repository": record["repository"], "file": record["file"],
                "command": fig["command"], "counts": fig["counts"],
                "ratio_to_ledger": float(fig["step_flops"] / ledger_flops),
                "residual": float(switched / fig["step_flops"] - 1),
                "reproduced": math.isclose(switched, fig["step_flops"], rel_tol=REPRODUCED_REL_TOL),
                "reproduction": spec["reproduction"], "model": spec["model"], "run": spec["run"],
                "model_note": spec["model_note"], "equivalent": [list(e) for e in spec.get("equivalent", [])],
                "note": spec["note"],
            })
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    """A plain-text table of the rows (step FLOPs in units of 1e15; model: the book's or another; hardware:
    what the kernels run for the book's model, ledger_hardware_flops)."""
    head = (f"{'source':34} {'variant':11} {'model':5} {'S':>6} {'counts':8} {'peer PFLOP':>11} {'ledger':>9} "
            f"{'hardware':>9} {'ratio':>7} {'switched':>9}  commit    switches")
    lines = [head, "-" * len(head)]
    for r in rows:
        sw = ", ".join(f"{k}={v}" for k, v in r["switches"].items())
        lines.append(f"{r['source']:34} {r['variant']:11} {r['model']:5} {r['seq_len']:>6} {r['counts']:8} "
                     f"{r['step_flops'] / 1e15:>11.3f} {r['ledger_step_flops'] / 1e15:>9.3f} "
                     f"{r['ledger_hardware_flops'] / 1e15:>9.3f} "
                     f"{r['ratio_to_ledger']:>7.4f} {r['ledger_with_switches_flops'] / 1e15:>9.3f}  "
                     f"{r['commit'][:8]}  {sw or '(none)'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m ledger reconcile [--json]`: the reconciliation table."""
    parser = argparse.ArgumentParser(prog="python -m ledger reconcile",
                                     description="Other tools' own step FLOPs for Llama-3-8B beside the ledger's.")
    parser.add_argument("--json", action="store_true", help="print the rows as a JSON list")
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        rows = reconcile_rows()
    except LedgerError as err:
        print(f"error: {err}")
        return 2
    print(json.dumps(rows, indent=2) if args.json else format_table(rows))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
