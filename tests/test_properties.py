"""Property tests over random shapes, lengths, blocks and devices."""
import math

from hypothesis import given, settings, strategies as st

import ledger

VARIANT = st.sampled_from(ledger.VARIANTS)


@st.composite
def shapes(draw):
    head_dim = draw(st.sampled_from([32, 64, 128]))
    kv_heads = draw(st.integers(1, 8))
    n_heads = kv_heads * draw(st.integers(1, 8))
    hidden = head_dim * n_heads
    # intermediate a multiple of 64 so some blocks divide every circulant matrix
    return ledger.ModelShape(n_layers=draw(st.integers(1, 48)), hidden=hidden, n_heads=n_heads,
                             n_kv_heads=kv_heads, intermediate=64 * draw(st.integers(1, 400)),
                             vocab=draw(st.integers(1000, 200_000)), tied_embeddings=draw(st.booleans()))


@st.composite
def settings_(draw):
    shape = draw(shapes())
    variant = draw(VARIANT)
    seq_len = 2 ** draw(st.integers(4, 15))
    step_tokens = seq_len * draw(st.integers(1, 1024))
    block = 2 ** draw(st.integers(1, 5))  # divides every matrix: widths are multiples of 32
    return ledger.make_settings(variant=variant, seq_len=seq_len, step_tokens=step_tokens, block=block,
                                shape=shape, hybrid_attention_fraction=draw(st.floats(0, 1)),
                                pixels=draw(st.floats(1e3, 1e8)), frame_rate=draw(st.floats(1, 1e5)),
                                gpus=draw(st.integers(1, 4096)), gpu_flops=draw(st.floats(1e12, 1e16)))


@settings(max_examples=300, deadline=None)
@given(settings_())
def test_shares_and_totals(s):
    items = ledger.step_items(s)
    row = ledger.summarize(s, items)
    for name in ("forward_share", "backward_share", "step_share", "static_share", "data_part"):
        value = getattr(row, name)
        assert 0.0 <= value <= 1.0, (name, value)
    assert row.static_share <= row.step_share + 1e-15
    assert math.isclose(row.step_flops, row.forward_flops + row.backward_flops, rel_tol=1e-12)
    by_class = row.flops_by_class
    class_total = sum(by_class["forward"].values()) + sum(by_class["backward"].values())
    assert math.isclose(class_total, row.step_flops, rel_tol=1e-12)
    assert math.isclose(sum(i.flops for i in items), row.step_flops, rel_tol=1e-12)
    assert row.amdahl >= row.amdahl_static >= 1.0
    for value in (row.weight_mask_s, row.data_mask_s, row.digital_step_s):
        assert math.isfinite(value) and value >= 0


@settings(max_examples=200, deadline=None)
@given(settings_())
def test_transformer_backward_is_twice_forward(s):
    row = ledger.step_row(s, variant="transformer")
    assert row.backward_flops == 2 * row.forward_flops
    assert math.isclose(row.six_n_ratio, 1.0, rel_tol=1e-12)
    assert row.step_share == 0.0


@settings(max_examples=100, deadline=None)
@given(settings_(), st.integers(2, 8))
def test_weight_masks_do_not_grow_with_the_step(s, factor):
    """Weight-mask frames depend on the shape and length, not on how many tokens the step holds."""
    bigger = ledger.make_settings(s, step_tokens=s.step_tokens * factor)
    a, b = ledger.summarize(s, ledger.step_items(s)), ledger.summarize(bigger, ledger.step_items(bigger))
    assert a.weight_mask_frames == b.weight_mask_frames
    # the digital step grows with the step; per-step terms (filter and block FFTs) do not, so a bit less
    assert a.digital_step_s < b.digital_step_s <= factor * a.digital_step_s * (1 + 1e-12)
