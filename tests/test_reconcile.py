"""The reconciliation table: every figure pinned to its source's published formula, worked by hand.

Shape: Llama-3-8B (L = 32, h = 4096, 32 query heads, 8 key/value heads, head dim 128, SwiGLU MLP
f = 14,336, vocabulary V = 128,256, untied); step T = 1,048,576 tokens; N = 7,504,658,432.
Each expected value below is written from the source's formula with these literal numbers, not
from the ledger, and checked against the row and against the ledger with the row's switches.
"""
import json
import math

import pytest

from ledger import LLAMA3_8B, LedgerError, Settings
from ledger.reconcile import (SOURCES, format_table, ledger_with_switches, main, reconcile_rows)

L, h, a, g, f, V, T, N = 32, 4096, 32, 8, 14336, 128256, 1_048_576, 7_504_658_432
ROWS = {(r["source"], r["seq_len"]): r for r in reconcile_rows()}


def row(source, s):
    return ROWS[(source, s)]


def test_every_source_at_both_lengths():
    assert {r["source"] for r in ROWS.values()} == set(SOURCES)
    assert {r["seq_len"] for r in ROWS.values()} == {2048, 4096}
    assert all(r["step_tokens"] == T for r in ROWS.values())


@pytest.mark.parametrize("s", [2048, 4096])
def test_palm_nanogpt_6n_plus_12lhs(s):
    """PaLM appendix B / nanoGPT estimate_mfu: (6N + 12 L H S) T with the ledger's N; equals the ledger."""
    expected = (6 * N + 12 * L * h * s) * T
    assert row("palm-nanogpt", s)["step_flops"] == expected
    assert row("palm-nanogpt", s)["ledger_step_flops"] == expected
    assert {2048: 50_592_928_040_484_864, 4096: 53_970_627_761_012_736}[s] == expected


@pytest.mark.parametrize("s", [2048, 4096])
def test_palm_nanogpt_with_every_weight(s):
    """nanoGPT's get_num_params N (all weights: + input embedding V*h + 65 norms of h) in 6N + 12LHS."""
    n_all = N + V * h + (2 * L + 1) * h
    assert n_all == 8_030_261_248
    expected = (6 * n_all + 12 * L * h * s) * T
    r = row("palm-nanogpt-all-params", s)
    assert r["step_flops"] == expected
    assert r["ledger_with_switches_flops"] == expected


@pytest.mark.parametrize("s", [2048, 4096])
def test_megatron_2024(s):
    """Megatron-LM num_floating_point_operations, 2024: 12 T L h^2 [(1 + g/a + s/h) q/h + 1.5 f/h + V/(2Lh)]."""
    expected = 12 * T * L * h * h * ((1 + g / a + s / h) * 1.0 + 1.5 * f / h + V / (2 * L * h))
    r = row("megatron-2024", s)
    assert math.isclose(r["step_flops"], expected, rel_tol=1e-12)
    assert math.isclose(r["ledger_step_flops"], expected, rel_tol=1e-12), "the ledger counts as Megatron did"
    assert r["switches"] == {}


@pytest.mark.parametrize("s", [2048, 4096])
def test_megatron_2025_halves_causal_attention(s):
    """Megatron-LM num_floating_point_operations, 2025: 6 T [L(3hf + h(q+2kv) + q s + q h) + hV], q = 4096, kv = 1024."""
    q, kv = 4096, 1024
    expected = 6 * T * (L * (3 * h * f + h * (q + 2 * kv) + q * s + q * h) + h * V)
    r = row("megatron-2025", s)
    assert r["step_flops"] == expected
    assert r["switches"] == {"causal_attention": True}
    assert r["ledger_with_switches_flops"] == expected
    assert expected == (6 * N + 6 * L * h * s) * T


def test_megatron_2025_at_4096_equals_full_attention_at_2048():
    """Halving attention at S = 4,096 gives exactly the unhalved count at S = 2,048."""
    assert row("megatron-2025", 4096)["step_flops"] == row("megatron-2024", 2048)["step_flops"]


@pytest.mark.parametrize("s", [2048, 4096])
def test_eleutherai_cookbook(s):
    """EleutherAI cookbook calc_transformer_flops.py, no checkpointing: 3 x [2(1+2*0.25) + 2 + 16] L T h^2
    + 3 x 4 L T s h + 6 T h V."""
    expected = 3 * (2 * 1.5 + 2 + 16) * L * T * h * h + 3 * 4 * L * T * s * h + 6 * T * h * V
    r = row("eleutherai-cookbook", s)
    assert r["step_flops"] == expected
    assert r["switches"] == {"mlp_flops_per_token": 16 * h * h}
    assert math.isclose(r["ledger_with_switches_flops"], expected, rel_tol=1e-12)
    assert r["step_flops"] < r["ledger_step_flops"], "a 4H GeLU MLP is smaller than Llama's SwiGLU"


@pytest.mark.parametrize("s", [2048, 4096])
def test_eleutherai_cookbook_checkpointing(s):
    """EleutherAI cookbook, default activation checkpointing: iter_factor 4 on the layers, LM head still 6ThV."""
    expected = 4 * (2 * 1.5 + 2 + 16) * L * T * h * h + 4 * 4 * L * T * s * h + 6 * T * h * V
    r = row("eleutherai-cookbook-checkpointing", s)
    assert r["step_flops"] == expected
    assert r["switches"]["recompute"] == "blocks"
    assert math.isclose(r["ledger_with_switches_flops"], expected, rel_tol=1e-12)


@pytest.mark.parametrize("s", [2048, 4096])
def test_savanna_hyena(s):
    """Savanna mfu.py on hyena2: 3 x [L(6h^2 + 18h + 2h^2 + 6fh + 2 x 10 log2(S) h) + 2hV] T."""
    expected = 3 * T * (L * (6 * h * h + 18 * h + 2 * h * h + 6 * f * h + 2 * 10 * math.log2(s) * h) + 2 * h * V)
    r = row("savanna-hyena", s)
    assert r["variant"] == "hyena2"
    assert math.isclose(r["step_flops"], expected, rel_tol=1e-12)
    assert math.isclose(r["switches"]["fft_constant"], 2.5 * math.log2(s) / (math.log2(s) + 1))
    assert math.isclose(r["ledger_with_switches_flops"], expected, rel_tol=1e-9)
    assert abs(r["ratio_to_ledger"] - 1) < 1e-3, "Savanna and the ledger agree to 0.1% on hyena2"


def test_every_row_reproduced_by_its_switches():
    for r in ROWS.values():
        assert r["reproduced"], r["source"]
        assert math.isclose(r["ledger_with_switches_flops"], r["step_flops"], rel_tol=1e-9), r["source"]


def test_bad_switch_refused():
    with pytest.raises(LedgerError, match="switch 'frobnicate'"):
        ledger_with_switches(Settings(variant="transformer"), {"frobnicate": 1})
    with pytest.raises(LedgerError, match="recompute"):
        ledger_with_switches(Settings(variant="transformer"), {"recompute": "half"})


def test_main_json_and_table(capsys):
    assert main(["--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 2 * len(SOURCES)
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "megatron-2025" in out and "savanna-hyena" in out
    assert format_table(reconcile_rows(seq_lens=(2048,))).count("\n") == len(SOURCES) + 1


def test_main_refuses_bad_config(capsys, tmp_path):
    bad = tmp_path / "gpt2" / "config.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps({"model_type": "gpt2"}))
    assert main(["--config", str(bad)]) == 2
    assert "Llama-style" in capsys.readouterr().out


def test_other_shape_runs():
    from ledger import ModelShape
    shape = ModelShape.from_hf_config("data/configs/TinyLlama-1.1B/config.json")
    assert all(r["reproduced"] for r in reconcile_rows(shape))
    assert LLAMA3_8B.N == N
