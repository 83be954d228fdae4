"""The reconciliation table against the peers' own figures, stored as data in data/peers/*.json.

Every expected figure here is read from a peer's JSON (what that tool's code returned at the
commit and command stored beside it); nothing restates a peer's formula. The ledger, with the
row's named switches thrown, must equal each stored figure, and no switch may differ between
sequence lengths.
"""
import itertools
import json
import math
import re
from pathlib import Path

import pytest

from ledger import LLAMA3_8B, LedgerError, Settings, step_items, summarize
from ledger.reconcile import (SEQ_LENS, SOURCES, SWITCH_KEYS, format_table, ledger_with_switches, main, peer_figure,
                              reconcile_rows, reproduces, reproducing_omissions, switched_items,
                              switched_step_flops)

PEERS = Path(__file__).resolve().parent.parent / "data" / "peers"
STORED = {p.stem: json.loads(p.read_text()) for p in PEERS.glob("*.json")}
ROWS = {(r["source"], r["seq_len"]): r for r in reconcile_rows()}
T = 1_048_576


def stored(source, s):
    return next(f for f in STORED[source]["figures"] if f["seq_len"] == s)


def test_a_record_for_every_source_and_no_stray_record():
    assert set(STORED) == set(SOURCES)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_record_has_provenance(source):
    rec = STORED[source]
    assert re.fullmatch(r"[0-9a-f]{40}", rec["commit"]), "a full commit hash"
    assert rec["repository"].count("/") == 1 and rec["file"] and rec["method"]
    assert rec["step_tokens"] == T
    assert sorted(f["seq_len"] for f in rec["figures"]) == [2048, 4096, 8192]
    for f in rec["figures"]:
        if "documents" in f:  # a row of packed documents: positive lengths summing to the row, named in the call
            assert sum(f["documents"]) == f["seq_len"] and min(f["documents"]) > 0 and str(f["documents"]) in f["command"]
        assert f["command"] and str(f["seq_len"]) in f["command"]
        assert f["counts"] in ("model", "hardware")
        assert f["step_flops"] > 1e16


@pytest.mark.parametrize("key", sorted(ROWS))
def test_row_is_the_stored_figure_with_provenance(key):
    source, s = key
    r, fig = ROWS[key], stored(source, s)
    assert r["step_flops"] == fig["step_flops"]
    assert (r["commit"], r["command"], r["counts"]) == (STORED[source]["commit"], fig["command"], fig["counts"])
    for k in ("source", "variant", "seq_len", "step_tokens", "step_flops", "ledger_step_flops", "switches"):
        assert k in r


@pytest.mark.parametrize("key", sorted(ROWS))
def test_ledger_with_switches_reproduces_the_peer(key):
    """The ledger's own line items, the row's switches thrown, equal the peer code's output."""
    source, s = key
    switched = switched_step_flops(source, s, documents=stored(source, s).get("documents"))
    assert math.isclose(switched, stored(source, s)["step_flops"], rel_tol=1e-12), source
    assert ROWS[key]["reproduced"]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_switches_are_the_same_at_every_length(source):
    assert all(ROWS[(source, s)]["switches"] == SOURCES[source]["switches"] for s in SEQ_LENS)
    for v in SOURCES[source]["switches"].values():
        assert not isinstance(v, float) or v.is_integer(), "a convention, not a fitted fraction"


def _subset_reproduces(source, kept):
    """The ledger with only the `kept` switches of `source` against both stored figures (test's own loop)."""
    switches = {k: v for k, v in SOURCES[source]["switches"].items() if k in kept}
    def settings(s):
        docs = stored(source, s).get("documents")
        return Settings(variant=SOURCES[source]["variant"], seq_len=s, step_tokens=T,
                        documents=None if docs is None else tuple(docs))
    return all(math.isclose(ledger_with_switches(settings(s), switches), stored(source, s)["step_flops"], rel_tol=1e-9)
               for s in SEQ_LENS)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_subset_of_the_switches(source):
    """Among ALL subsets of a row's switches, exactly the full set reproduces it, or the subsets that also
    do are declared (spec["equivalent"], the switches they leave out) with the code that decides (chosen_by).
    One-at-a-time removal would miss a pair that can go together, as the Hyena rows' pair does."""
    matching = _matching_omissions(source)
    declared = {frozenset()} | {frozenset(e) for e in SOURCES[source].get("equivalent", [])}
    assert matching == declared, (source, sorted(map(sorted, matching)))
    assert {frozenset(e) for e in reproducing_omissions(source)} == matching
    if SOURCES[source].get("equivalent"):
        assert "at " in SOURCES[source]["chosen_by"] and ".py" in SOURCES[source]["chosen_by"], "cites file and commit"


def _matching_omissions(source):
    keys = sorted(SOURCES[source]["switches"])
    return {frozenset(keys) - frozenset(kept) for n in range(len(keys) + 1)
            for kept in itertools.combinations(keys, n) if _subset_reproduces(source, kept)}


def test_hyena_pair_is_not_identified_by_the_data():
    """fft_constant = 5 with one long convolution, or the ledger's 2.5 with two: the same figures for both
    Hyena tools. The code (one fftconv_func per layer) decides for the first."""
    for source in ("savanna-hyena", "savanna-hyena-vocab512", "nemo-hyena"):
        switches = SOURCES[source]["switches"]
        assert (switches["fft_constant"], switches["long_convs_per_layer"]) == (5.0, 1)
        ledger_defaults = dict(switches, fft_constant=2.5, long_convs_per_layer=2)
        assert reproduces(source, switches) and reproduces(source, ledger_defaults)
        assert not reproduces(source, dict(switches, long_convs_per_layer=2))


def test_subset_search_catches_a_non_identified_set(monkeypatch):
    """A row given a switch that changes nothing (the ledger's own default, named) is caught: leaving it out
    also reproduces, so the matching subsets are more than the declared full set."""
    spec = dict(SOURCES["megatron-2025"], switches={"causal_attention": True, "params_counted": "matmuls"})
    monkeypatch.setitem(SOURCES, "megatron-2025", spec)
    assert _matching_omissions("megatron-2025") == {frozenset(), frozenset({"params_counted"})}
    assert reproducing_omissions("megatron-2025") == [(), ("params_counted",)]


def test_counts_model_except_checkpointing():
    for (source, _), r in ROWS.items():
        assert r["counts"] == ("hardware" if source == "eleutherai-cookbook-checkpointing" else "model"), source


def test_unswitched_rows_are_the_ledger():
    """PaLM with the ledger's N and Megatron's closed form before causal halving need no switch at all."""
    for source in ("palm-nanogpt", "megatron-full-attention"):
        for s in (2048, 4096):
            assert math.isclose(stored(source, s)["step_flops"], ROWS[(source, s)]["ledger_step_flops"],
                                rel_tol=1e-12)


def test_megatron_2025_at_4096_is_megatron_full_attention_at_2048():
    """Halving attention at 4,096 tokens gives exactly the unhalved count at 2,048 (attention is linear in S)."""
    assert stored("megatron-2025", 4096)["step_flops"] == stored("megatron-full-attention", 2048)["step_flops"]


def test_megatron_rows_are_2025_commits():
    """Both Megatron-LM commits are of March 2025: no row id may say 2024 (8873b55d and its parent)."""
    assert not any("2024" in source for source in SOURCES)
    assert "3 March 2025" in SOURCES["megatron-full-attention"]["note"]
    assert STORED["megatron-full-attention"]["commit"].startswith("fdfcef87")


def test_cookbook_lm_head_is_forward_only():
    """The cookbook's embedding term equals the ledger's LM-head forward plus the 4H-per-token lookup."""
    items = switched_items(Settings(variant="transformer", seq_len=4096), {})
    head_forward = sum(i.flops for i in items if i.layer == "lm_head" and i.phase == "forward")
    part = stored("eleutherai-cookbook", 4096)["parts"]["Embedding FLOPs"]
    assert part == head_forward + 4 * LLAMA3_8B.hidden * T
    assert part == stored("eleutherai-cookbook-checkpointing", 4096)["parts"]["Embedding FLOPs"], "never recomputed"


def test_cookbook_mlp_is_four_hidden_wide():
    """--ffn-hidden-size 14336 is not used: the cookbook's FFN term is the ledger's MLP at width 16,384."""
    items = switched_items(Settings(variant="transformer", seq_len=4096), {"mlp_width": 16384})
    mlp = sum(i.flops for i in items if i.layer == "mlp")
    assert stored("eleutherai-cookbook", 4096)["parts"]["FFN FLOPs"] == mlp


def test_recompute_switch_is_the_core_ledgers():
    """reconcile's recompute is Settings.recompute: the same name, the same values, the same line items."""
    from ledger.settings import RECOMPUTE_MODES
    assert SOURCES["eleutherai-cookbook-checkpointing"]["switches"]["recompute"] in RECOMPUTE_MODES
    for variant in ("transformer", "hyena2", "hyena2_circulant"):
        core = Settings(variant=variant, seq_len=2048, recompute="full")
        plain = Settings(variant=variant, seq_len=2048)
        assert math.isclose(ledger_with_switches(plain, {"recompute": "full"}), sum(i.flops for i in step_items(core)),
                            rel_tol=1e-12)
    # the checkpointing row is the cookbook's row plus exactly the core ledger's recomputed FLOPs
    switches = dict(SOURCES["eleutherai-cookbook"]["switches"])
    for s in (2048, 4096):
        core = Settings(variant="transformer", seq_len=s, recompute="full")
        again = summarize(core, switched_items(core, switches)).recompute_flops
        assert again > 0
        assert math.isclose(stored("eleutherai-cookbook-checkpointing", s)["step_flops"],
                            stored("eleutherai-cookbook", s)["step_flops"] + again, rel_tol=1e-12)


def test_savanna_parts_match_the_switched_ledger():
    """Savanna's per-part forward counts (times its 3) against the ledger's switched forward line items."""
    switches = SOURCES["savanna-hyena"]["switches"]
    items = switched_items(Settings(variant="hyena2", seq_len=4096), switches)
    fwd = {layer: sum(i.flops for i in items if i.phase == "forward" and i.layer == layer)
           for layer in ("mlp", "lm_head")}
    parts = stored("savanna-hyena", 4096)["parts"]
    assert parts["ffn_flops"] == 3 * fwd["mlp"]
    assert parts["logits_flops"] == 3 * fwd["lm_head"]
    long_conv = sum(i.flops for i in items if i.phase == "forward" and i.op.startswith("long conv"))
    assert parts["hyena_conv_flops"] == 3 * long_conv


def test_hyena_counters_differ_only_in_mlp_width_and_vocabulary():
    """NeMo's port and Savanna share every FFT convention; configured with the book's vocabulary, Savanna
    differs from NeMo by its fixed MLP alone; its default adds the 512-word head."""
    nemo, sav = SOURCES["nemo-hyena"]["switches"], SOURCES["savanna-hyena"]["switches"]
    sav512 = SOURCES["savanna-hyena-vocab512"]["switches"]
    assert {k: v for k, v in sav.items() if k != "mlp_width"} == nemo
    assert {k: v for k, v in sav512.items() if k != "vocab"} == sav and sav512["vocab"] == 512
    for s in (2048, 4096):
        assert (stored("nemo-hyena", s)["step_flops"] > stored("savanna-hyena", s)["step_flops"]
                > stored("savanna-hyena-vocab512", s)["step_flops"])


def test_savanna_configured_and_default_runs():
    """Only the logits differ between the two Savanna runs, in the ratio of the vocabularies, and only the
    configured run passes vocab_size."""
    for s in (2048, 4096):
        conf, default = stored("savanna-hyena", s), stored("savanna-hyena-vocab512", s)
        assert "vocab_size=128256" in conf["command"] and "vocab_size" not in default["command"]
        assert conf["parts"]["logits_flops"] * 512 == default["parts"]["logits_flops"] * LLAMA3_8B.vocab
        assert {k: v for k, v in conf["parts"].items() if k != "logits_flops"} == \
            {k: v for k, v in default["parts"].items() if k != "logits_flops"}
    assert STORED["savanna-hyena"]["commit"] == STORED["savanna-hyena-vocab512"]["commit"]


def test_cookbook_api_mlp_is_the_books():
    """The API run (ffn_expansion_factor = 3.5) counts the ledger's own 14,336-wide MLP; the CLI row's 16,384."""
    items = switched_items(Settings(variant="transformer", seq_len=4096), {})
    assert LLAMA3_8B.intermediate == 14336
    mlp = sum(i.flops for i in items if i.layer == "mlp")
    api = stored("eleutherai-cookbook-api-ff3.5", 4096)
    assert api["parts"]["FFN FLOPs"] == mlp
    assert "ffn_expansion_factor = 3.5" in api["command"] and "--ffn-hidden-size" not in api["command"]
    cli = stored("eleutherai-cookbook", 4096)["parts"]
    assert {k: v for k, v in api["parts"].items() if k != "FFN FLOPs"} == {k: v for k, v in cli.items() if k != "FFN FLOPs"}
    assert STORED["eleutherai-cookbook-api-ff3.5"]["commit"] == STORED["eleutherai-cookbook"]["commit"]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_each_row_says_which_model_it_describes(source):
    """A row describes the book's model exactly when no switch changes the model: its shape (MLP width,
    vocabulary) or the long convolutions per layer; otherwise model_note says how it differs."""
    spec = SOURCES[source]
    assert spec["model"] in ("book", "other") and spec["model_note"] and spec["run"]
    model_switches = {"mlp_width", "vocab", "long_convs_per_layer"} & set(spec["switches"])
    assert (spec["model"] == "book") == (not model_switches), (source, model_switches)


def test_the_palm_row_with_the_ledgers_n_is_no_reproduction():
    """PaLM's formula with the ledger's N restates the ledger: it needs no switch and is not counted as a
    tool reproduced; every other row is."""
    assert [s for s in SOURCES if not SOURCES[s]["reproduction"]] == ["palm-nanogpt"]
    assert SOURCES["palm-nanogpt"]["switches"] == {}
    assert SOURCES["palm-nanogpt-total-param-count"]["reproduction"]


def test_peer_figure_refuses_an_unrun_length():
    assert peer_figure("torchtitan", 4096)["step_flops"] == stored("torchtitan", 4096)["step_flops"]
    with pytest.raises(LedgerError, match="seq_len = 16384.*2,048, 4,096, 8,192"):
        peer_figure("torchtitan", 16384)
    with pytest.raises(LedgerError, match="source 'gpt-4'"):
        peer_figure("gpt-4", 4096)


def test_switched_counts_extend_to_any_length():
    """The switched ledger is defined at lengths the peers were not run at (for figures), and grows with S."""
    assert switched_step_flops("megatron-2025", 8192) < switched_step_flops("megatron-full-attention", 8192)
    assert switched_step_flops("savanna-hyena", 16384) > switched_step_flops("savanna-hyena", 4096)
    # a source of packed rows needs its documents, and counts attention per document
    with pytest.raises(LedgerError, match="megatron-main-packed' counts rows of packed documents: pass documents="):
        switched_step_flops("megatron-main-packed", 8192)
    assert (switched_step_flops("megatron-main-packed", 8192, documents=[4096, 4096])
            == switched_step_flops("megatron-main", 4096))


@pytest.mark.parametrize("switches, message", [
    ({"frobnicate": 1}, "switch 'frobnicate'"),
    ({"recompute": "half"}, "recompute = 'half'"),
    ({"recompute": "blocks"}, "recompute = 'blocks': allowed are 'none' or 'full'"),
    ({"fft_length": "3S"}, "fft_length = '3S'"),
    ({"mlp_width": 0}, "mlp_width = 0"),
    ({"long_convs_per_layer": 1.5}, "long_convs_per_layer = 1.5"),
    ({"params_counted": "some"}, "params_counted = 'some'"),
    ({"causal_attention": "yes"}, "causal_attention = 'yes'"),
    ({"input_embedding_flops_per_token": -1}, "input_embedding_flops_per_token = -1"),
    ({"backward": "3x"}, "backward = '3x'"),
])
def test_bad_switch_refused(switches, message):
    with pytest.raises(LedgerError, match=re.escape(message)):
        ledger_with_switches(Settings(variant="hyena2"), switches)
    assert set(SWITCH_KEYS) >= {"causal_attention", "recompute", "mlp_width"}


def test_main_json_and_table(capsys):
    assert main(["--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(SEQ_LENS) * len(SOURCES)
    assert all(sum(r["documents"]) == r["seq_len"] for r in rows)
    assert {tuple(r["documents"]) != (r["seq_len"],) for r in rows} == {False, True}
    assert all(r["commit"] and r["command"] and r["counts"] for r in rows)
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "megatron-2025" in out and "nemo-hyena" in out and "hardware" in out
    assert all(r["model"] in ("book", "other") and "reproduction" in r for r in rows)
    assert format_table(reconcile_rows(["torchtitan"])).count("\n") == 1 + len(SEQ_LENS)


def test_megatron_padded_vocab():
    """128,256 is a multiple of 128: no padding at tensor-parallel size 1 (the stored figures); 1,024 at 8."""
    from ledger.reconcile import megatron_padded_vocab
    assert megatron_padded_vocab(128256) == 128256
    assert megatron_padded_vocab(128256, 8) == 129024
    with pytest.raises(LedgerError, match="tensor_parallel = 0"):
        megatron_padded_vocab(128256, 0)


def test_ledger_hardware_column():
    """The hardware column: the book's model as the kernels run it, with the row's recomputation. A dense
    kernel runs exactly the model count; causal FlashAttention less at the stored lengths; Hyena unchanged."""
    from ledger.reconcile import ledger_hardware_flops
    for s in (2048, 4096):
        model = ROWS[("torchtitan", s)]["ledger_step_flops"]
        assert math.isclose(ledger_hardware_flops("torchtitan", s, attention_kernel="dense"), model, rel_tol=1e-12)
        assert ROWS[("torchtitan", s)]["ledger_hardware_flops"] < model
        assert ROWS[("savanna-hyena", s)]["ledger_hardware_flops"] == ROWS[("savanna-hyena", s)]["ledger_step_flops"]
        # checkpointing: the dense kernel with full recompute is the core ledger's recompute="full" step
        full = sum(i.flops for i in step_items(Settings(variant="transformer", seq_len=s, recompute="full")))
        assert math.isclose(ledger_hardware_flops("eleutherai-cookbook-checkpointing", s, attention_kernel="dense"),
                            full, rel_tol=1e-12)
    with pytest.raises(LedgerError, match="source 'gpt-4'"):
        ledger_hardware_flops("gpt-4", 4096)


def test_reconciliation_counts_come_from_the_data():
    """The chapter's counts, recounted here from the stored JSON and SOURCES."""
    from ledger.reconcile import reconciliation_counts
    c = reconciliation_counts()
    repos = {}
    for source, rec in STORED.items():
        repos.setdefault(rec["repository"], set()).add(SOURCES[source]["variant"])
    runs = [s for s in SOURCES if SOURCES[s]["reproduction"]]
    assert c["tools"] == len(repos) == 6
    assert (c["tools_transformer"], c["tools_hyena"]) == (4, 2), "two of the tools ran a Hyena model"
    assert c["rows"] == sum(len(r["figures"]) for r in STORED.values())
    assert c["runs"] == len(runs) == len(SOURCES) - 1 and c["runs_reproduced"] == c["runs"]
    assert c["runs_book_model"] + c["runs_other_model"] == c["runs"]
    assert c["runs_not_identified"] == sum(bool(SOURCES[s].get("equivalent")) for s in runs) == 3
