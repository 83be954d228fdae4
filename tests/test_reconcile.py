"""The reconciliation table against the peers' own figures, stored as data in data/peers/*.json.

Every expected figure here is read from a peer's JSON (what that tool's code returned at the
commit and command stored beside it); nothing restates a peer's formula. The ledger, with the
row's named switches thrown, must equal each stored figure, and no switch may differ between
sequence lengths.
"""
import json
import math
import re
from pathlib import Path

import pytest

from ledger import LLAMA3_8B, LedgerError, Settings, step_items, summarize
from ledger.reconcile import (SOURCES, SWITCH_KEYS, format_table, ledger_with_switches, main, peer_figure,
                              reconcile_rows, switched_items, switched_step_flops)

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
    assert sorted(f["seq_len"] for f in rec["figures"]) == [2048, 4096]
    for f in rec["figures"]:
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
    switched = switched_step_flops(source, s)
    assert math.isclose(switched, stored(source, s)["step_flops"], rel_tol=1e-12), source
    assert ROWS[key]["reproduced"]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_switches_are_the_same_at_every_length(source):
    assert ROWS[(source, 2048)]["switches"] == ROWS[(source, 4096)]["switches"] == SOURCES[source]["switches"]
    for v in SOURCES[source]["switches"].values():
        assert not isinstance(v, float) or v.is_integer(), "a convention, not a fitted fraction"


@pytest.mark.parametrize("source", sorted(s for s in SOURCES if SOURCES[s]["switches"]))
def test_every_switch_is_needed(source):
    """Leave any one switch out and the figure is no longer reproduced: none is decoration."""
    switches = SOURCES[source]["switches"]
    fig = stored(source, 4096)["step_flops"]
    settings = Settings(variant=SOURCES[source]["variant"], seq_len=4096, step_tokens=T)
    for key in switches:
        fewer = {k: v for k, v in switches.items() if k != key}
        assert not math.isclose(ledger_with_switches(settings, fewer), fig, rel_tol=1e-9), (source, key)


def test_counts_model_except_checkpointing():
    for (source, _), r in ROWS.items():
        assert r["counts"] == ("hardware" if source == "eleutherai-cookbook-checkpointing" else "model"), source


def test_unswitched_rows_are_the_ledger():
    """PaLM with the ledger's N and Megatron's 2024 closed form need no switch at all."""
    for source in ("palm-nanogpt", "megatron-2024"):
        for s in (2048, 4096):
            assert math.isclose(stored(source, s)["step_flops"], ROWS[(source, s)]["ledger_step_flops"],
                                rel_tol=1e-12)


def test_megatron_2025_at_4096_is_megatron_2024_at_2048():
    """Halving attention at 4,096 tokens gives exactly the unhalved count at 2,048 (attention is linear in S)."""
    assert stored("megatron-2025", 4096)["step_flops"] == stored("megatron-2024", 2048)["step_flops"]


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
    """NeMo's port and Savanna share every FFT convention; the gap between them is the MLP and the head."""
    for s in (2048, 4096):
        nemo, sav = SOURCES["nemo-hyena"]["switches"], SOURCES["savanna-hyena"]["switches"]
        assert {k: v for k, v in sav.items() if k not in ("mlp_width", "vocab")} == nemo
        assert stored("nemo-hyena", s)["step_flops"] > stored("savanna-hyena", s)["step_flops"]


def test_peer_figure_refuses_an_unrun_length():
    assert peer_figure("torchtitan", 4096)["step_flops"] == stored("torchtitan", 4096)["step_flops"]
    with pytest.raises(LedgerError, match="seq_len = 8192.*2,048, 4,096"):
        peer_figure("torchtitan", 8192)
    with pytest.raises(LedgerError, match="source 'gpt-4'"):
        peer_figure("gpt-4", 4096)


def test_switched_counts_extend_to_any_length():
    """The switched ledger is defined at lengths the peers were not run at (for figures), and grows with S."""
    assert switched_step_flops("megatron-2025", 8192) < switched_step_flops("megatron-2024", 8192)
    assert switched_step_flops("savanna-hyena", 16384) > switched_step_flops("savanna-hyena", 4096)


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
    assert len(rows) == 2 * len(SOURCES)
    assert all(r["commit"] and r["command"] and r["counts"] for r in rows)
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "megatron-2025" in out and "nemo-hyena" in out and "hardware" in out
    assert format_table(reconcile_rows(["torchtitan"])).count("\n") == 3


def test_megatron_padded_vocab():
    """128,256 is a multiple of 128: no padding at tensor-parallel size 1 (the stored figures); 1,024 at 8."""
    from ledger.reconcile import megatron_padded_vocab
    assert megatron_padded_vocab(128256) == 128256
    assert megatron_padded_vocab(128256, 8) == 129024
    with pytest.raises(LedgerError, match="tensor_parallel = 0"):
        megatron_padded_vocab(128256, 0)
