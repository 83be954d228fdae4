"""ledger.passes: finer layer kinds, per-channel long-convolution costs, 6N by phase, block sizes."""
import math

import pytest
from hypothesis import given, settings as hsettings, strategies as st

import ledger
from ledger.passes import (KINDS, group_by_kind, layer_kind, long_conv_per_channel, six_n_by_phase,
                           valid_blocks)

SEQ_LENS = st.sampled_from([512, 1024, 2048, 4096, 8192])


@pytest.mark.parametrize("variant", ledger.VARIANTS)
def test_kinds_cover_every_item_and_keep_the_total(variant):
    items = ledger.step_items(ledger.make_settings(variant=variant))
    assert {layer_kind(i) for i in items} <= set(KINDS)
    by_kind = group_by_kind(items)
    assert math.isclose(sum(by_kind.values()), sum(i.flops for i in items), rel_tol=1e-12)


def test_kinds_split_attention_into_projections_and_scores():
    s = ledger.make_settings(variant="transformer", seq_len=2048)
    by = group_by_kind(ledger.step_items(s), "phase")
    shape, t = s.shape, s.step_tokens
    # scores: 4 S^2 H per sequence forward = 4 L S H T over the step; backward twice that, all dX
    assert by[("attention scores", "forward")] == 4 * shape.n_layers * s.seq_len * shape.hidden * t
    assert by[("attention scores", "dX")] == 2 * by[("attention scores", "forward")]
    assert ("attention scores", "dW") not in by
    assert by[("attention projections", "dW")] == by[("attention projections", "forward")]


def test_layer_kind_rejects_unknown_layer():
    item = ledger.LineItem("x", "nowhere", "forward", "digital", "token", 1, 1.0)
    with pytest.raises(ledger.LedgerError, match="nowhere"):
        layer_kind(item)


@hsettings(max_examples=20, deadline=None)
@given(seq_len=SEQ_LENS)
def test_six_n_by_phase_matches_the_transformer_ledger(seq_len):
    s = ledger.make_settings(variant="transformer", seq_len=seq_len)
    rule = six_n_by_phase(s)
    ledger_phases = ledger.group_flops(ledger.step_items(s), "phase")
    for phase in ledger.PHASES:
        assert math.isclose(ledger_phases[phase], rule[phase], rel_tol=1e-12)
    assert math.isclose(sum(rule.values()), ledger.six_n_flops(s), rel_tol=1e-15)


@hsettings(max_examples=20, deadline=None)
@given(seq_len=SEQ_LENS, variant=st.sampled_from(["hyena2", "hybrid", "hyena2_circulant"]))
def test_long_conv_per_channel_is_the_closed_form(seq_len, variant):
    s = ledger.make_settings(variant=variant, seq_len=seq_len)
    n = 2 * seq_len
    fft, product, bins = 2.5 * n * math.log2(n), 6 * (n // 2 + 1), n // 2 + 1
    costs = {c.op: c for c in long_conv_per_channel(s)}
    assert len(costs) == 10
    assert costs["rFFT of u"].flops == pytest.approx(fft, rel=1e-12)
    assert costs["H . U"].flops == pytest.approx(product, rel=1e-12)
    assert costs["G . conj(U)"].flops == pytest.approx(product, rel=1e-12)
    assert costs["G . conj(U)"].cls == "data_product"
    assert costs["accumulate dH over the step"].flops == pytest.approx(2 * bins, rel=1e-12)
    assert costs["inverse rFFT of dH"].per == "step"
    # transforms per channel per sequence: two forward, two dX, none in dW
    per_seq = [c for c in costs.values() if c.per == "sequence" and c.cls == "transform"]
    assert sorted(c.phase for c in per_seq) == ["dX", "dX", "forward", "forward"]


def test_long_conv_per_channel_refuses_the_transformer():
    with pytest.raises(ledger.LedgerError, match="transformer"):
        long_conv_per_channel(ledger.make_settings(variant="transformer"))


def test_valid_blocks_of_llama3_8b():
    assert valid_blocks(ledger.LLAMA3_8B, 64, 2048) == (64, 128, 256, 512, 1024, 2048)
    assert valid_blocks(ledger.LLAMA3_8B)[-1] == 2048
    for b in valid_blocks(ledger.LLAMA3_8B, 2, 300):
        ledger.check_block(b, ledger.LLAMA3_8B)


@pytest.mark.parametrize("smallest, largest", [(1, 10), (10, 5), (True, 10), (4, 2.5)])
def test_valid_blocks_rejects_bad_bounds(smallest, largest):
    with pytest.raises(ledger.LedgerError):
        valid_blocks(ledger.LLAMA3_8B, smallest, largest)
