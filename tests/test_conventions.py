"""Every number the source prints, asserted at its printed precision (see the conventions table)."""
import pytest

import ledger
from ledger import LLAMA3_8B, step_row


def pct(x):
    return f"{100 * x:.2f}"


def test_parameter_counts():
    assert LLAMA3_8B.matrix_params == 8_029_995_008
    assert LLAMA3_8B.N == 7_504_658_432
    assert LLAMA3_8B.matrix_params - LLAMA3_8B.N == 128_256 * 4_096


@pytest.mark.parametrize("seq_len", [512, 2048, 4096, 8192, 32768])
def test_six_n_ratio_llama(seq_len):
    row = step_row(variant="transformer", seq_len=seq_len)
    assert row.six_n_ratio == pytest.approx(1.0, abs=1e-12)
    assert row.backward_flops == 2 * row.forward_flops


@pytest.mark.parametrize("shape", [
    ledger.ModelShape(n_layers=22, hidden=2048, n_heads=32, n_kv_heads=4, intermediate=5632, vocab=32000),
    ledger.ModelShape(n_layers=16, hidden=2048, n_heads=32, n_kv_heads=8, intermediate=8192, vocab=128256,
                      tied_embeddings=True),
    ledger.ModelShape(n_layers=80, hidden=8192, n_heads=64, n_kv_heads=8, intermediate=28672, vocab=128256),
])
@pytest.mark.parametrize("seq_len", [1024, 4096, 16384])
def test_six_n_ratio_other_shapes(shape, seq_len):
    row = step_row(variant="transformer", seq_len=seq_len, shape=shape)
    assert abs(row.six_n_ratio - 1.0) < 1e-12


def test_transformer_has_no_optical_work():
    for seq_len in (2048, 4096, 8192):
        row = step_row(variant="transformer", seq_len=seq_len)
        assert pct(row.step_share) == "0.00" and row.weight_mask_s == 0 and row.data_mask_s == 0


def test_hyena2_forward_share_2048():
    assert pct(step_row(variant="hyena2", seq_len=2048).forward_share) == "0.20"


def test_hyena2_4096_shares():
    row = step_row(variant="hyena2", seq_len=4096)
    assert [pct(row.forward_share), pct(row.backward_share), pct(row.step_share), pct(row.static_share)] == \
        ["0.21", "0.11", "0.15", "0.14"]
    assert f"{row.amdahl:.3f}" == "1.001"


@pytest.mark.parametrize("seq_len", [2048, 4096, 8192])
def test_hyena2_backward_over_forward(seq_len):
    row = step_row(variant="hyena2", seq_len=seq_len)
    assert f"{row.backward_flops / row.forward_flops:.3f}" == "1.998"


def test_circulant_4096():
    row = step_row(variant="hyena2_circulant", seq_len=4096)
    got = [pct(row.forward_share), pct(row.backward_share), pct(row.step_share), pct(row.static_share),
           pct(row.data_part), f"{row.amdahl:.3f}", f"{row.amdahl_static:.3f}"]
    assert got == ["14.18", "11.16", "12.19", "9.66", "20.73", "1.139", "1.107"]


def test_weight_masks_and_digital_step():
    assert f"{step_row(variant='hyena2', seq_len=2048).weight_mask_s:.2f}" == "0.52"
    assert f"{step_row(variant='hyena2', seq_len=8192).weight_mask_s:.2f}" == "2.08"
    assert f"{step_row(variant='hyena2', seq_len=2048).digital_step_s:.2f}" == "2.05"
    for seq_len in (2048, 4096, 8192):
        assert f"{step_row(variant='hyena2_circulant', seq_len=seq_len).digital_step_s:.2f}" == "0.15"


@pytest.mark.parametrize("seq_len", [2048, 4096, 8192])
def test_data_masks(seq_len):
    assert f"{step_row(variant='hyena2', seq_len=seq_len).data_mask_s:.0f}" == "133"
    assert f"{step_row(variant='hyena2_circulant', seq_len=seq_len).data_mask_s:.0f}" == "385"


def test_sequences_per_step():
    assert step_row(variant="hyena2", seq_len=2048).sequences == 512
    assert step_row(variant="hyena2", seq_len=4096).sequences == 256


def test_weight_mask_frames_by_hand():
    """2 x L x 2H x (S+1) values (spectra and conjugates), ceil over 2e6-pixel frames."""
    row = step_row(variant="hyena2", seq_len=2048)
    values = 2 * 32 * 2 * 4096 * 2049
    assert row.weight_mask_frames == -(-values // 2_000_000)


def test_causal_halving_is_a_switch():
    full = step_row(variant="transformer", seq_len=4096)
    half = step_row(variant="transformer", seq_len=4096, causal_attention=True)
    attention = 12 * 32 * 4096 * 4096 * 1_048_576
    assert full.step_flops - half.step_flops == pytest.approx(attention / 2, rel=1e-12)


def test_fft_constant_scales_only_transforms():
    base = ledger.make_settings(variant="hyena2", seq_len=4096)
    other = ledger.make_settings(base, fft_constant=5.0)
    a = ledger.flops_by_pass(ledger.step_items(base))
    b = ledger.flops_by_pass(ledger.step_items(other))
    for p in ("forward", "backward"):
        assert b[p]["transform"] == pytest.approx(2 * a[p]["transform"], rel=1e-12)
        assert b[p]["digital"] == a[p]["digital"]


def test_hybrid_attention_layers():
    assert ledger.make_settings(variant="hybrid").attention_layers == 8
    assert ledger.make_settings(variant="hybrid", hybrid_attention_fraction=0).attention_layers == 0
    assert ledger.make_settings(variant="hybrid", hybrid_attention_fraction=1).attention_layers == 32
    # a hybrid with no attention is hyena2, one with only attention is the transformer
    h0 = step_row(variant="hybrid", hybrid_attention_fraction=0.0)
    assert h0.step_flops == step_row(variant="hyena2").step_flops
    h1 = step_row(variant="hybrid", hybrid_attention_fraction=1.0)
    assert h1.step_flops == step_row(variant="transformer").step_flops
