"""Per-unit breakdowns: one long-conv channel, one matrix, per-step terms, what stays digital."""
import math

import pytest

import ledger
from ledger.breakdown import (FAMILIES, long_conv_channel, matrix, matrix_names, nonlinear_values,
                              per_step_terms, unit_cost, what_stays_digital)

S = ledger.Settings  # defaults: hyena2, S = 4,096, 2**20 tokens


def test_dense_matmul_backward_is_twice_forward():
    m = matrix(S(variant="hyena2"), "mlp up")
    h, i = ledger.LLAMA3_8B.hidden, ledger.LLAMA3_8B.intermediate
    assert m.forward == 2 * h * i
    assert m.backward_over_forward == 2.0
    assert m.optical_forward == 0 and m.forward_share == 0


def test_long_conv_channel_is_all_optical_forward_and_adds_few_flops_backward():
    s = S(variant="hyena2")
    c = long_conv_channel(s)
    n = s.fft_len
    bins = n // 2 + 1
    fft = 2.5 * n * math.log2(n)
    per_step = 2 * fft / s.sequences  # filter rFFT (forward) and dH inverse rFFT (dW), shared
    assert c.forward == pytest.approx(2 * fft + 6 * bins + per_step / 2)
    assert c.forward_share == 1.0
    assert 1.0 < c.backward_over_forward < 1.1
    assert c.flops["dW"]["digital"] == 2 * bins


def test_channel_times_units_is_the_step_total():
    s = S(variant="hyena2")
    items = ledger.step_items(s)
    c = long_conv_channel(s, items)
    conv_total = sum(i.flops for i in items if i.op.startswith("long conv:"))
    assert (c.forward + c.backward) * c.units == pytest.approx(conv_total, rel=1e-12)


def test_hyena2_step_share_is_weighted_mean_of_passes():
    r = ledger.step_row(variant="hyena2", seq_len=4096)
    mean = (r.forward_flops * r.forward_share + r.backward_flops * r.backward_share) / r.step_flops
    assert mean == pytest.approx(r.step_share, rel=1e-12)
    assert f"{r.backward_flops / r.forward_flops:.3f}" == "1.998"


def test_circulant_matrix_has_optical_work_in_every_phase():
    m = matrix(S(variant="hyena2_circulant"), "mlp up")
    assert "block-circulant" in m.name
    assert all(m.optical(p) > 0 for p in ("forward", "dX", "dW"))
    assert m.backward_over_forward < 2.0
    assert matrix(S(variant="hyena2_circulant"), "lm head").name == "lm head (dense)"


def test_per_step_terms_are_negligible():
    t = per_step_terms(ledger.step_items(S(variant="hyena2")))
    assert 0 < t.of_step < 1e-5
    assert 0 < t.of_optical < 0.01
    assert per_step_terms(ledger.step_items(S(variant="transformer"))).flops == 0


def test_what_stays_digital_sums_to_non_static_flops():
    for variant in ledger.VARIANTS:
        items = ledger.step_items(S(variant=variant))
        rest = what_stays_digital(items)
        assert tuple(rest) == FAMILIES
        r = ledger.summarize(S(variant=variant), items)
        assert sum(rest.values()) == pytest.approx(r.step_flops * (1 - r.static_share), rel=1e-12)


def test_lm_head_dominates_what_circulant_leaves_digital():
    rest = what_stays_digital(ledger.step_items(S(variant="hyena2_circulant")))
    assert rest["LM head (dense)"] / sum(rest.values()) > 0.9
    assert rest["dense projections and MLP"] == 0


def test_nonlinear_values():
    v = nonlinear_values(S(variant="transformer"))
    assert v["SwiGLU activation"] == 2**20 * 32 * 14336
    assert nonlinear_values(S(variant="hyena2"))["attention softmax"] == 0


def test_bad_input_raises():
    with pytest.raises(ledger.LedgerError, match="long convolutions"):
        long_conv_channel(S(variant="transformer"))
    with pytest.raises(ledger.LedgerError, match="attention q"):
        matrix(S(variant="hyena2"), "attention q")
    assert "attention q" in matrix_names(S(variant="hybrid"))
    with pytest.raises(ledger.LedgerError, match="units"):
        unit_cost([], "x", 0, "x", "x")
    with pytest.raises(ledger.LedgerError, match="no line item"):
        unit_cost(ledger.step_items(S()), "nothing:", 1, "x", "x")


from hypothesis import given, settings as hsettings, strategies as st  # noqa: E402


@hsettings(max_examples=20, deadline=None)
@given(st.sampled_from(["hyena2", "hybrid", "hyena2_circulant"]), st.integers(min_value=9, max_value=14))
def test_step_share_lies_between_the_passes(variant, log2_seq):
    s = S(variant=variant, seq_len=2**log2_seq)
    items = ledger.step_items(s)
    r = ledger.summarize(s, items)
    assert r.backward_share < r.step_share < r.forward_share
    c = long_conv_channel(s, items)
    assert 1.0 < c.optical_backward_over_forward < 1.1  # a channel's backward adds few optical FLOPs
    if variant != "hyena2_circulant":
        assert matrix(s, "mlp up", items).backward_over_forward == 2.0  # a dense matrix doubles
