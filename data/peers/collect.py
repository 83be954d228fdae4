"""Collect each peer tool's own step-FLOP figure for Llama-3-8B (and Savanna's/NeMo's Hyena) into data/peers/.

Not part of the ledger and not run by the tests: it needs the tools' git snapshots (bare git
directories, passed as --mirror DIR holding <owner>+<name>/repo) and runs their code outside the
project, from the blob at the pinned commit. No peer code is copied into this repository.

How each tool is run (also stored, per figure, in each JSON's `command` and `method`):
- cookbook: the script file itself, imported from the blob and called as its CLI
  (`config_parser().parse_args(argv)`, `calc_flops(args)`); its `convert_flops` pretty-printer,
  which rounds to two digits, is replaced by `repr` so the printed totals are exact. The API row
  (eleutherai-cookbook-api-ff3.5) sets `args.ffn_expansion_factor = 3.5` after parsing, which the
  CLI cannot (`-ff` is an int, `--ffn-hidden-size` is not read): Llama-3-8B's MLP of 14,336.
- savanna: run twice, with the config's vocab_size = 128,256 (savanna-hyena, Llama-3-8B's
  vocabulary) and without it (savanna-hyena-vocab512, mfu.py's default of 512).
- savanna / nemo: the whole module executed from the blob; imports of torch and of the
  framework's config classes are satisfied by stand-ins (the FLOP functions use neither);
  NeMo's own HyenaConfig and FLOPSConfig modules are executed from their blobs.
- megatron: `num_floating_point_operations` extracted (ast) from megatron/training/training.py
  at the commit and called with an argparse Namespace of the Llama-3-8B flags.
- nanogpt: `GPT.estimate_mfu` extracted (ast) from model.py and called on a stand-in `self`
  whose get_num_params() returns N; `flops_per_iter` is read from the function's frame.
- torchtitan: `get_dense_model_nparams_and_flops` extracted (ast) from torchtitan/models/utils.py
  and called on a stand-in module tree with Llama-3-8B's parameter shapes.

Usage: python3 data/peers/collect.py --mirror /work/.mirror --out data/peers
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import subprocess
import sys
import types
from pathlib import Path

SEQ_LENS = (2048, 4096, 8192)
STEP_TOKENS = 1_048_576
L, H, HEADS, KV_HEADS, FFN, VOCAB = 32, 4096, 32, 8, 14336, 128256


def blob(mirror: Path, repo: str, commit: str, path: str) -> str:
    git = mirror / repo.replace("/", "+") / "repo"
    return subprocess.run(["git", f"--git-dir={git}", "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def head(mirror: Path, repo: str) -> str:
    git = mirror / repo.replace("/", "+") / "repo"
    return subprocess.run(["git", f"--git-dir={git}", "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def extract(source: str, name: str, cls: str | None = None) -> str:
    """The source text of top-level function `name` (or method `name` of class `cls`), or of the top-level
    assignment to `name`."""
    tree = ast.parse(source)
    scope = tree.body
    if cls:
        scope = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
    node = next(n for n in scope if (isinstance(n, ast.FunctionDef) and n.name == name) or
                (isinstance(n, ast.Assign) and any(getattr(t, "id", None) == name for t in n.targets)))
    import textwrap
    return textwrap.dedent(ast.get_source_segment(source, node))


def record(out: Path, source: str, repo: str, commit: str, path: str, method: str, figures: list[dict]) -> None:
    doc = {"source": source, "repository": repo, "commit": commit, "file": path, "method": method,
           "step_tokens": STEP_TOKENS, "figures": figures}
    (out / f"{source}.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(source, [(f["seq_len"], f["step_flops"]) for f in figures])


# --- EleutherAI cookbook -------------------------------------------------------------------------

COOKBOOK_API_FF = 3.5
"""Llama-3-8B's MLP as the cookbook's expansion factor: 14,336 = 3.5 x 4,096 (the CLI's -ff takes integers)."""


def _cookbook_run(mod: types.ModuleType, argv: list[str], ff: float | None) -> tuple[float, dict]:
    """calc_flops on the parsed argv (ffn_expansion_factor set to `ff` after parsing if given): total and parts."""
    args = mod.config_parser().parse_args(argv)
    if ff is not None:
        args.ffn_expansion_factor = ff
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mod.calc_flops(args)
    text = buf.getvalue()
    total = next(line for line in text.splitlines() if line.startswith("Total FLOPs"))
    parts = {line.split(":")[0]: float(line.split(": ")[1]) for line in text.splitlines()
             if line.endswith(tuple("0123456789.")) and "FLOPs:" in line}
    return float(total.split(": ")[1]), parts


def cookbook(mirror: Path, out: Path) -> None:
    repo, path = "EleutherAI/cookbook", "calc/calc_transformer_flops.py"
    commit = head(mirror, repo)
    code = blob(mirror, repo, commit, path)
    cli_method = ("the script's own argparse and calc_flops, run from the blob at the commit; convert_flops "
                  "(two-digit pretty-printer) replaced by repr so the printed totals are exact. "
                  "--ffn-hidden-size is accepted but not used by calc_flops (the MLP stays -ff 4 x hidden); "
                  "-ff takes integers only, so 14,336 = 3.5 x 4,096 cannot be given.")
    api_method = ("the script's own calc_flops called from Python (its API) on the namespace its config_parser "
                  f"returns for the CLI flags, with args.ffn_expansion_factor = {COOKBOOK_API_FF} set after parsing "
                  "(argparse's type=int refuses 3.5 on the command line; calc_flops multiplies by the factor "
                  "whatever its type), so the MLP is Llama-3-8B's 14,336 = 3.5 x 4,096; run from the blob at the "
                  "commit, convert_flops replaced by repr as for the CLI rows.")
    for name, ckpt, ff in (("eleutherai-cookbook", False, None), ("eleutherai-cookbook-checkpointing", True, None),
                           ("eleutherai-cookbook-api-ff3.5", False, COOKBOOK_API_FF)):
        figures = []
        for s in SEQ_LENS:
            argv = ["-v", str(VOCAB), "-hs", str(H), "-s", str(s), "-l", str(L), "-kv", str(KV_HEADS / HEADS),
                    "--tokens", str(STEP_TOKENS), "-nl", "3"]
            if ff is None:
                argv += ["--ffn-hidden-size", str(FFN)]
            if not ckpt:
                argv.append("--no-checkpoint-activations")
            mod = types.ModuleType("calc_transformer_flops")
            exec(compile(code, path, "exec"), mod.__dict__)
            mod.convert_flops = repr  # exact totals instead of two-digit rounding
            total, parts = _cookbook_run(mod, argv, ff)
            if ff is None:
                command = f"python {path} " + " ".join(argv)
            else:
                command = (f"args = config_parser().parse_args({argv!r}); args.ffn_expansion_factor = {ff}; "
                           "calc_flops(args)")
            figures.append({"seq_len": s, "step_flops": total, "counts": "hardware" if ckpt else "model",
                            "command": command, "parts": parts})
        record(out, name, repo, commit, path, cli_method if ff is None else api_method, figures)


# --- Savanna -------------------------------------------------------------------------------------

class _Anything(types.ModuleType):
    """A stand-in module: every attribute is a distinct placeholder (torch dtypes, GlobalConfig)."""

    def __getattr__(self, name):
        return f"<{self.__name__}.{name}>"


def load(name: str, code: str, path: str) -> types.ModuleType:
    """Execute `code` (a module's text at a commit) as module `name`, registered in sys.modules."""
    mod = types.ModuleType(name)
    mod.__file__ = path
    sys.modules[name] = mod
    exec(compile(code, path, "exec"), mod.__dict__)
    return mod


def _stub_modules(names: list[str]) -> None:
    for name in names:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            sys.modules.setdefault(".".join(parts[:i]), _Anything(".".join(parts[:i])))


SAVANNA_RUNS = {"savanna-hyena": VOCAB, "savanna-hyena-vocab512": None}
"""Savanna configured with Llama-3-8B's vocabulary (mfu.py reads vocab_size from the config if it has one)
and as its default leaves it (no vocab_size: mfu.py's VOCAB_SIZE = 512)."""


def savanna(mirror: Path, out: Path) -> None:
    repo, path = "Zymrael/savanna", "savanna/mfu.py"
    commit = head(mirror, repo)
    code = blob(mirror, repo, commit, path)
    _stub_modules(["torch", "savanna.arguments"])
    mod = load("savanna_mfu", code, path)
    for name, vocab in SAVANNA_RUNS.items():
        figures = []
        for s in SEQ_LENS:
            fields = dict(train_batch_size=STEP_TOKENS // s, train_micro_batch_size_per_gpu=None, seq_length=s,
                          hidden_size=H, num_layers=L, operator_config=["hyena"] * L, hyena_mr_len=64,
                          hyena_se_len=3, short_conv_L=3)
            if vocab is not None:
                fields["vocab_size"] = vocab
            counts = mod.get_hyena_flops(global_config=types.SimpleNamespace(**fields), num_gpus=1,
                                         activation_checkpointing=False)
            vocab_arg = f"vocab_size={vocab}, " if vocab is not None else ""
            figures.append({"seq_len": s, "step_flops": float(counts.total_flops), "counts": "model",
                            "command": (f"get_hyena_flops(global_config=SimpleNamespace(train_batch_size={STEP_TOKENS // s}, "
                                        f"seq_length={s}, hidden_size={H}, num_layers={L}, {vocab_arg}"
                                        f"operator_config=['hyena']*{L}, hyena_mr_len=64, hyena_se_len=3, "
                                        "short_conv_L=3), num_gpus=1, activation_checkpointing=False).total_flops"),
                            "parts": {f: float(getattr(counts, f)) for f in (
                                "dense_proj_flops", "hyena_conv_proj_flops", "out_proj_flops", "ffn_flops",
                                "hyena_conv_flops", "logits_flops")}})
        vocab_text = (f"the config carries vocab_size = {vocab:,} (mfu.py reads getattr(global_config, 'vocab_size', "
                      "VOCAB_SIZE); GlobalConfig declares no such field, so a Savanna run gets 512 unless the "
                      "attribute is set), so the logits are Llama-3-8B's"
                      if vocab is not None else
                      "the config has no vocab_size (GlobalConfig declares none), so the logits use mfu.py's "
                      "default VOCAB_SIZE = 512, Savanna's byte-level DNA vocabulary")
        record(out, name, repo, commit, path,
               "savanna/mfu.py executed whole from the blob at the commit, torch and savanna.arguments replaced by "
               "stand-in modules (only dtype dictionary keys and a type annotation use them); " + vocab_text + "; "
               "the MLP width is fixed at 8/3 x hidden rounded up to a multiple of 64 whatever the config says; "
               "one FFT long convolution per hyena layer.", figures)


# --- NeMo ----------------------------------------------------------------------------------------

def nemo(mirror: Path, out: Path) -> None:
    repo = "NVIDIA/NeMo"
    path = "nemo/utils/hyena_flops_formulas.py"
    commit = head(mirror, repo)
    _stub_modules(["nemo.collections.common.parts.perf_metrics_utils"])
    sys.modules["nemo.collections.common.parts.perf_metrics_utils"].LLM_VOCAB_SIZE_MAP = {}
    hyena_cfg_path = "nemo/collections/llm/gpt/model/megatron/hyena/hyena_config.py"
    load(hyena_cfg_path[:-3].replace("/", "."), blob(mirror, repo, commit, hyena_cfg_path), hyena_cfg_path)
    flops_formulas = load("nemo.utils.flops_formulas", blob(mirror, repo, commit, "nemo/utils/flops_formulas.py"),
                          "nemo/utils/flops_formulas.py")
    mod = load("hyena_flops_formulas", blob(mirror, repo, commit, path), path)
    figures = []
    for s in SEQ_LENS:
        cfg = flops_formulas.FLOPSConfig(gbs=STEP_TOKENS // s, enc_seq_len=s, hs=H, layers=L, ffn_hs=FFN,
                                         model_pattern="H" * L, vocab_size=VOCAB)
        figures.append({"seq_len": s, "step_flops": float(mod.hyena(cfg)), "counts": "model",
                        "command": (f"hyena(FLOPSConfig(gbs={STEP_TOKENS // s}, enc_seq_len={s}, hs={H}, layers={L}, "
                                    f"ffn_hs={FFN}, model_pattern='H'*{L}, vocab_size={VOCAB}))")})
    record(out, "nemo-hyena", repo, commit, path,
           "hyena_flops_formulas.py executed from the blob at the commit with NeMo's own HyenaConfig "
           "(short_conv_L = 3) and FLOPSConfig modules executed from their blobs; one import of a vocabulary "
           "table (unused by hyena()) stubbed.", figures)


# --- Megatron-LM ---------------------------------------------------------------------------------

MEGATRON = {"megatron-full-attention": "8873b55d6aad08f0f535174746d2836df3dfa93b^",
            "megatron-2025": "8873b55d6aad08f0f535174746d2836df3dfa93b"}


MEGATRON_MAIN = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"
"""Megatron-LM's main on 22 August 2026: the FLOP count takes the packed documents' sum of L_i and of L_i^2."""

PACKED_DOCUMENTS = {2048: [700, 475, 300, 225, 150, 100, 62, 36],
                    4096: [1400, 950, 600, 450, 300, 200, 125, 71],
                    8192: [2800, 1900, 1200, 900, 600, 400, 250, 142]}
"""An illustrative mix of documents packed into each row (the same in every row of the step): eight documents
from about a third of the row down to under 2% of it. Not a published length distribution."""

MAIN_HELPERS = (("megatron/core/models/gpt/experimental_attention_variant_module_specs.py",
                 ("GDN_ATTENTION_VARIANTS", "_DEPRECATED_ATTENTION_VARIANT_ALIASES", "is_gated_delta_net_variant",
                  "is_linear_attention_variant")),
                ("megatron/training/utils/common_utils.py", ("is_hybrid_model",)))
"""The module-level names main's num_floating_point_operations calls, extracted from their own files."""


def _llama_args(s: int, **more) -> argparse.Namespace:
    """Megatron's parsed flags for Llama-3-8B at sequence length s (tensor-parallel size 1)."""
    return argparse.Namespace(
        seq_length=s, num_layers=L, hidden_size=H, num_attention_heads=HEADS, kv_channels=H // HEADS,
        group_query_attention=True, num_query_groups=KV_HEADS, ffn_hidden_size=FFN, swiglu=True,
        padded_vocab_size=VOCAB, num_experts=None, moe_router_topk=2, moe_ffn_hidden_size=None,
        moe_shared_expert_intermediate_size=None, moe_layer_freq=1, **more)


MEGATRON_FLAGS = (f"--num-layers {L} --hidden-size {H} --num-attention-heads {HEADS} --kv-channels {H // HEADS} "
                  f"--group-query-attention --num-query-groups {KV_HEADS} --ffn-hidden-size {FFN} --swiglu, "
                  f"padded_vocab_size {VOCAB} (tensor-parallel size 1)")


def megatron_main(mirror: Path, out: Path) -> None:
    """Megatron-LM main: unpacked rows (BSHD, its defaults) and rows of packed documents (THD)."""
    repo, path = "NVIDIA/Megatron-LM", "megatron/training/training.py"
    ns: dict = {"Optional": __import__("typing").Optional}
    for helper_path, names in MAIN_HELPERS:
        helper = blob(mirror, repo, MEGATRON_MAIN, helper_path)
        for name in names:
            exec(extract(helper, name), ns)
    exec(extract(blob(mirror, repo, MEGATRON_MAIN, path), "num_floating_point_operations"), ns)
    count = ns["num_floating_point_operations"]
    main_flags = dict(multi_latent_attention=False, attention_output_gate=False, experimental_attention_variant=None,
                      mtp_num_layers=None, moe_latent_size=None, hybrid_layer_pattern=None)
    unpacked, packed = [], []
    for s in SEQ_LENS:
        batch = STEP_TOKENS // s
        unpacked.append({"seq_len": s, "step_flops": float(count(_llama_args(s, **main_flags), batch)),
                         "counts": "model",
                         "command": f"num_floating_point_operations(args, {batch}) with --seq-length {s} "
                                    + MEGATRON_FLAGS})
        docs = PACKED_DOCUMENTS[s]
        # what update_seqlen_stats_from_cu_seqlens accumulates over the step's rows: sum L_i and sum L_i^2 of the
        # REAL (unpadded) documents, here `batch` rows of the same documents with no padding
        real_tokens, squares = batch * sum(docs), batch * sum(n * n for n in docs)
        packed.append({"seq_len": s, "documents": docs,
                       "step_flops": float(count(_llama_args(s, **main_flags), batch,
                                                 seqlen_squared_sum_in_batch=squares,
                                                 total_real_tokens_in_batch=real_tokens)),
                       "counts": "model",
                       "command": (f"num_floating_point_operations(args, {batch}, seqlen_squared_sum_in_batch="
                                   f"{squares}, total_real_tokens_in_batch={real_tokens}) with --seq-length {s} "
                                   + MEGATRON_FLAGS + f"; each of the {batch} rows packs documents of {docs} tokens")})
    method = ("num_floating_point_operations extracted (ast) from training.py at the commit, with the module-level "
              "helpers it calls (is_linear_attention_variant, is_gated_delta_net_variant and their constants from "
              "megatron/core/models/gpt/experimental_attention_variant_module_specs.py, is_hybrid_model from "
              "megatron/training/utils/common_utils.py) extracted from their files, and called with an argparse "
              "Namespace of the flags (the flags main added left at their defaults: no MLA, no output gate, no "
              "linear-attention variant, no MTP, no hybrid pattern).")
    record(out, "megatron-main", repo, MEGATRON_MAIN, path,
           method + " Unpacked (BSHD) batches: no sequence statistics, so the closed form's batch x S and "
           "batch x S^2.", unpacked)
    record(out, "megatron-main-packed", repo, MEGATRON_MAIN, path,
           method + " Packed (THD) batches: the two statistics training.py drains from "
           "consume_seqlen_stats_in_iteration, sum L_i and sum L_i^2 over the real documents of the step "
           "(update_seqlen_stats_from_cu_seqlens takes them from cu_seqlens), computed here from the stated "
           "illustrative documents, the same in every row, with no padding.", packed)


def megatron(mirror: Path, out: Path) -> None:
    repo, path = "NVIDIA/Megatron-LM", "megatron/training/training.py"
    git = mirror / repo.replace("/", "+") / "repo"
    for name, rev in MEGATRON.items():
        commit = subprocess.run(["git", f"--git-dir={git}", "rev-parse", rev], check=True, capture_output=True,
                                text=True).stdout.strip()
        ns: dict = {}
        exec(extract(blob(mirror, repo, commit, path), "num_floating_point_operations"), ns)
        figures = []
        for s in SEQ_LENS:
            args = argparse.Namespace(
                seq_length=s, num_layers=L, hidden_size=H, num_attention_heads=HEADS, kv_channels=H // HEADS,
                group_query_attention=True, num_query_groups=KV_HEADS, ffn_hidden_size=FFN, swiglu=True,
                padded_vocab_size=VOCAB, num_experts=None, moe_router_topk=2, moe_ffn_hidden_size=None,
                moe_shared_expert_intermediate_size=None, moe_layer_freq=1)
            batch = STEP_TOKENS // s
            figures.append({"seq_len": s, "step_flops": float(ns["num_floating_point_operations"](args, batch)),
                            "counts": "model",
                            "command": (f"num_floating_point_operations(args, {batch}) with --seq-length {s} "
                                        f"--num-layers {L} --hidden-size {H} --num-attention-heads {HEADS} "
                                        f"--kv-channels {H // HEADS} --group-query-attention --num-query-groups "
                                        f"{KV_HEADS} --ffn-hidden-size {FFN} --swiglu, padded_vocab_size {VOCAB} "
                                        "(tensor-parallel size 1)")})
        record(out, name, repo, commit, path,
               "num_floating_point_operations extracted (ast) from training.py at the commit and called with an "
               "argparse Namespace of the flags; padded_vocab_size is what Megatron's _vocab_size_with_padding "
               "gives 128,256 at tensor-parallel size 1 (128,256 is a multiple of 128).", figures)


# --- nanoGPT -------------------------------------------------------------------------------------

def nanogpt(mirror: Path, out: Path) -> None:
    repo, path = "karpathy/nanoGPT", "model.py"
    commit = head(mirror, repo)
    ns: dict = {}
    exec(extract(blob(mirror, repo, commit, path), "estimate_mfu", cls="GPT"), ns)
    matmul_n = L * (2 * H * H + 2 * H * (H // HEADS * KV_HEADS) + 3 * H * FFN) + VOCAB * H
    total_n = matmul_n + VOCAB * H + (2 * L + 1) * H
    for name, n, what in (("palm-nanogpt", matmul_n, "parameters that multiply activations (LM head in, "
                                                    "input embedding and norms out)"),
                          ("palm-nanogpt-total-param-count", total_n, "Llama-3-8B's total parameter count")):
        figures = []
        for s in SEQ_LENS:
            me = types.SimpleNamespace(get_num_params=lambda n=n: n,
                                       config=types.SimpleNamespace(n_layer=L, n_head=HEADS, n_embd=H, block_size=s))
            seen: dict = {}

            def tracer(frame, event, arg):
                if event == "return" and frame.f_code.co_name == "estimate_mfu":
                    seen.update(frame.f_locals)
                return tracer
            sys.setprofile(tracer)
            ns["estimate_mfu"](me, STEP_TOKENS // s, 1.0)
            sys.setprofile(None)
            figures.append({"seq_len": s, "step_flops": float(seen["flops_per_iter"]), "counts": "model",
                            "command": (f"GPT.estimate_mfu(self, fwdbwd_per_iter={STEP_TOKENS // s}, dt=1.0) with "
                                        f"self.get_num_params() = {n} ({what}), n_layer={L}, n_head={HEADS}, "
                                        f"n_embd={H}, block_size={s}; flops_per_iter read from its frame")})
        record(out, name, repo, commit, path,
               "estimate_mfu extracted (ast) from model.py at the commit and run on a stand-in self: nanoGPT's GPT "
               "cannot build Llama-3-8B (multi-head attention, GeLU MLP, tied embeddings), so N is supplied.",
               figures)


# --- torchtitan ----------------------------------------------------------------------------------

class _Param:
    def __init__(self, *shape):
        self.shape = shape

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


class _Module:
    def __init__(self, params=(), children=()):
        self._params, self._children = list(params), list(children)

    def parameters(self):
        yield from self._params
        for c in self._children:
            yield from c.parameters()

    def children(self):
        return iter(self._children)


class _Embedding(_Module):
    pass


def llama3_8b_module_tree() -> _Module:
    """torchtitan's Llama3 8B as parameter shapes: tok_embeddings, 32 blocks, norm, output."""
    kv = H // HEADS * KV_HEADS
    block = lambda: _Module([_Param(H, H), _Param(kv, H), _Param(kv, H), _Param(H, H),  # noqa: E731
                             _Param(FFN, H), _Param(H, FFN), _Param(FFN, H), _Param(H), _Param(H)])
    return _Module(children=[_Embedding([_Param(VOCAB, H)]), _Module(children=[block() for _ in range(L)]),
                             _Module([_Param(H)]), _Module([_Param(VOCAB, H)])])


def torchtitan(mirror: Path, out: Path) -> None:
    repo, path = "pytorch/torchtitan", "torchtitan/models/utils.py"
    commit = head(mirror, repo)
    ns: dict = {"nn": types.SimpleNamespace(Module=_Module, Embedding=_Embedding)}
    exec(extract(blob(mirror, repo, commit, path), "get_dense_model_nparams_and_flops"), ns)
    figures = []
    for s in SEQ_LENS:
        nparams, per_token = ns["get_dense_model_nparams_and_flops"](
            llama3_8b_module_tree(), n_layers=L, n_heads=HEADS, head_dims=2 * (H // HEADS), seq_len=s,
            enable_weight_tying=False)
        figures.append({"seq_len": s, "step_flops": float(per_token * STEP_TOKENS), "counts": "model",
                        "nparams": nparams, "flops_per_token": per_token,
                        "command": (f"get_dense_model_nparams_and_flops(model, n_layers={L}, n_heads={HEADS}, "
                                    f"head_dims={2 * (H // HEADS)}, seq_len={s}, enable_weight_tying=False) "
                                    f"x {STEP_TOKENS} tokens (as Llama3Model.Config.get_nparams_and_flops calls it)")})
    record(out, "torchtitan", repo, commit, path,
           "get_dense_model_nparams_and_flops extracted (ast) from torchtitan/models/utils.py at the commit and "
           "called on a stand-in module tree with Llama-3-8B's parameter shapes (torch.nn.Embedding for the "
           "token embedding) in place of a torch model; its num_flop_per_token times the step's tokens.", figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("only", nargs="*")
    args = parser.parse_args()
    for fn in (cookbook, savanna, nemo, megatron, megatron_main, nanogpt, torchtitan):
        if not args.only or fn.__name__ in args.only:
            fn(args.mirror, args.out)


if __name__ == "__main__":
    main()
