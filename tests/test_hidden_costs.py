"""Hidden costs: conversions in and out of the optics, gradient precision, the optimizer estimate."""
from dataclasses import replace

import pytest
from hypothesis import given, settings as hsettings, strategies as st

import ledger
from ledger.table import make_settings
from ledger.hidden_costs import (FORMATS, conversions, hidden_costs, optimizer_flops, precision_check,
                                 transform_size, weight_gradient_contributions)

S = ledger.Settings


def test_transformer_converts_nothing():
    c = conversions(S(variant="transformer"))
    assert c.values == 0 and c.flops_per_value == 0


def test_separate_conversions_of_hyena2_by_hand():
    s = S(variant="hyena2")
    seq, bins = s.seq_len, s.fft_len // 2 + 1
    convs = 2 * 4096 * 32
    per_seq = s.sequences * convs
    # per sequence: rFFT u, inverse to y, rFFT g, inverse to du; per step: rFFT h, inverse of dH
    expected_in = per_seq * (seq + 2 * bins + seq + 2 * bins) + convs * (seq + 2 * bins)
    c = conversions(s, mode="separate")
    assert c.values_in == expected_in
    assert c.values_out == c.values_in  # every transform's in and out mirror each other here


@pytest.mark.parametrize("block_sum", ["digital", "optical"])
def test_fused_is_fewer_than_separate(block_sum):
    for variant in ("hyena2", "hybrid", "hyena2_circulant"):
        s = S(variant=variant)
        fused, sep = conversions(s, mode="fused", block_sum=block_sum), conversions(s, mode="separate",
                                                                                    block_sum=block_sum)
        assert 0 < fused.values < sep.values
        assert fused.optical_flops == sep.optical_flops
        assert fused.flops_per_value > sep.flops_per_value


@hsettings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(ledger.VARIANTS), seq_len=st.sampled_from([256, 1024, 2048, 4096, 8192, 32768]),
       block=st.sampled_from([2, 16, 256, 2048]), block_sum=st.sampled_from(["digital", "optical"]),
       recompute=st.sampled_from(["none", "full"]), fft_length=st.sampled_from(["2S", "2S-1"]))
def test_separate_is_never_below_fused(variant, seq_len, block, block_sum, recompute, fft_length):
    """"Every transform its own trip" bounds the fused count from above, whatever the conventions."""
    s = S(variant=variant, seq_len=seq_len, block=block, recompute=recompute, fft_length=fft_length)
    sep, fused = conversions(s, mode="separate", block_sum=block_sum), conversions(s, mode="fused",
                                                                                  block_sum=block_sum)
    assert sep.values_in >= fused.values_in and sep.values_out >= fused.values_out
    assert sep.values > fused.values or (variant == "transformer" and sep.values == fused.values == 0)


def test_transform_size():
    s = S(variant="hyena2_circulant")
    items = ledger.step_items(s)
    conv = next(i for i in items if i.op == "long conv: rFFT of u")
    block = next(i for i in items if i.op == "mlp up: rFFT of x blocks")
    assert transform_size(conv, s) == (4096, 4097)
    assert transform_size(block, s) == (256, 129)
    with pytest.raises(ledger.LedgerError, match="not a transform"):
        transform_size(next(i for i in items if i.cls == "digital"), s)


def test_precision():
    p = precision_check(8, "bf16", 256)
    assert p.significand_short_by == 0
    # the sum needs the significand at its own full scale, not log2 N more bits to resolve each term
    assert p.analog_sum_bits() == 8 == p.enob
    assert p.analog_sum_bits(16) == 12 and p.analog_sum_bits_random == 12
    assert p.digital_sum_gain_bits == 4
    assert p.snr_db == pytest.approx(49.92)
    assert p.format_range_db > p.enob_range_db
    assert precision_check(6, "fp32").significand_short_by == 18
    assert set(FORMATS) >= {"fp32", "bf16", "fp8_e4m3"}


def test_contributions():
    assert weight_gradient_contributions(S(variant="hyena2")) == 256
    assert weight_gradient_contributions(S(variant="hyena2_circulant")) == 2**20


def test_hidden_costs_against_the_row():
    s = S(variant="hyena2_circulant")
    h = hidden_costs(s)
    r = ledger.step_row(variant="hyena2_circulant")
    assert h.weight_mask_s == r.weight_mask_s and h.data_mask_s == r.data_mask_s
    assert h.io_rate == 2e6 * 1031
    # the saving is in seconds at the time model's rates: the GPU time of the work the engine takes
    assert h.static_saving_s == pytest.approx(r.time_share * r.all_digital_step_s, rel=1e-12)
    assert h.conversion_s > h.static_saving_s
    # the readout is timed with its detector samples: two per number read out (interferometric), one (intensity)
    c = h.conversions
    assert h.conversion_s == pytest.approx((c.values_in + 2 * c.values_out) / (2e6 * 1031))
    assert h.readout_s == pytest.approx(2 * h.input_s * c.values_out / c.values_in)
    assert h.break_even_io_rate == pytest.approx((c.values_in + 2 * c.values_out) / h.static_saving_s)
    one = hidden_costs(make_settings(variant="hyena2_circulant", readout="intensity"))
    assert one.conversion_s == pytest.approx(c.values / (2e6 * 1031)) and one.conversion_s < h.conversion_s


def test_optimizer_estimate_is_tiny():
    r = ledger.step_row(variant="transformer")
    assert optimizer_flops(make_settings(variant="transformer")) / r.step_flops < 1e-5


def test_optimizer_counts_the_variants_own_parameters():
    """Llama-3-8B: 8,030,261,248 parameters (its published 8.03 B); Hyena-2 by hand from its shapes."""
    from ledger.step import trained_params
    tr = make_settings(variant="transformer")
    assert trained_params(tr) == 8_030_261_248
    h, inter, vocab, layers = 4096, 14336, 128256, 32
    hyena = layers * (3 * h * h + h * h + 3 * inter * h) + 2 * vocab * h + (2 * layers + 1) * h + layers * 3 * 3 * h
    assert trained_params(make_settings(variant="hyena2")) == hyena
    assert optimizer_flops(make_settings(variant="hyena2")) == 12 * hyena
    with pytest.raises(ledger.LedgerError, match="ledger.Settings"):
        optimizer_flops(ledger.LLAMA3_8B)


def test_bad_input_raises():
    with pytest.raises(ledger.LedgerError, match="mode"):
        conversions(S(), mode="both")
    with pytest.raises(ledger.LedgerError, match="gradient_format"):
        precision_check(8, "int4")
    with pytest.raises(ledger.LedgerError, match="enob"):
        precision_check(0)
    with pytest.raises(ledger.LedgerError, match="io_rate"):
        hidden_costs(S(), io_rate=0)
    with pytest.raises(ledger.LedgerError, match="flops_per_parameter"):
        optimizer_flops(make_settings(), -1)


def test_fused_circulant_with_a_digital_block_sum_by_hand():
    """Digital sum: every block product's spectrum out, every summed spectrum back in (forward and dX)."""
    s = S(variant="hyena2_circulant", seq_len=4096)
    optical_sum = conversions(s, mode="fused", block_sum="optical")
    digital_sum = conversions(s, mode="fused", block_sum="digital")
    spectrum = 2 * (s.block // 2 + 1)
    extra_out = extra_in = 0
    for name, rows, cols in ledger.circulant_matrices(s.shape):
        p, q = rows // s.block, cols // s.block
        extra_out += s.step_tokens * 32 * 2 * p * q * spectrum  # W_ij.X_j and G_i.conj(W_ij)
        extra_in += s.step_tokens * 32 * (p + q) * spectrum  # p summed spectra forward, q in dX
    assert digital_sum.values_out - optical_sum.values_out == extra_out
    assert digital_sum.values_in - optical_sum.values_in == extra_in
    assert digital_sum == conversions(s, mode="fused")  # the sum the FLOP classes charge is the default
    assert hidden_costs(s, mode="fused").conversions == digital_sum
    assert (digital_sum.block_sum, optical_sum.block_sum) == ("digital", "optical")
    # the block sum is a question for circulant matrices only, and for the fused count only
    for variant in ("hyena2", "hybrid"):
        h = S(variant=variant)
        assert conversions(h, mode="fused", block_sum="optical").values == conversions(h, mode="fused").values
    assert hidden_costs(s, mode="fused", block_sum="optical").conversions == optical_sum


def test_separate_circulant_with_a_digital_block_sum_by_hand():
    """Digital sum, every trip separate: each block product is a trip of its own, its block's spectrum in
    and the product out (forward and dX); the transforms' own trips are the same as with an optical sum."""
    s = S(variant="hyena2_circulant", seq_len=4096)
    optical_sum = conversions(s, mode="separate", block_sum="optical")
    digital_sum = conversions(s, mode="separate")
    spectrum = 2 * (s.block // 2 + 1)
    extra = sum(s.step_tokens * 32 * 2 * (rows // s.block) * (cols // s.block) * spectrum  # W_ij.X_j, G_i.conj(W_ij)
                for _, rows, cols in ledger.circulant_matrices(s.shape))
    assert digital_sum.values_in - optical_sum.values_in == extra
    assert digital_sum.values_out - optical_sum.values_out == extra
    assert digital_sum.block_sum == "digital" and digital_sum.optical_flops == optical_sum.optical_flops
    # long convolutions' products ride on the inverse transforms' trips: no block sum, nothing changes
    for variant in ("hyena2", "hybrid"):
        h = S(variant=variant)
        assert conversions(h, block_sum="optical") == replace(conversions(h), block_sum="optical")


def test_block_sum_refuses_other_values():
    with pytest.raises(ledger.LedgerError, match=r"^block_sum = 'both': must be one of digital, optical"):
        conversions(S(variant="hyena2_circulant"), mode="fused", block_sum="both")


def test_what_an_analog_sum_needs_by_simulation():
    """A one-sign sum read once by an 8-bit converter at its full scale is good to 2^-8 of itself (bf16's
    precision) whatever N; independent random-sign terms held as magnitudes need about 1/2 log2 N bits more."""
    import numpy as np
    from ledger.hidden_costs import headroom_bits, well_electrons
    rng = np.random.default_rng(0)
    for n in (256, 4096, 65536):
        terms = rng.uniform(0.5, 1.5, n)  # one sign
        total = terms.sum()
        full_scale = 2.0 ** np.ceil(np.log2(total))  # a gain set to the next power of two above the sum
        read = np.round(total / full_scale * 2**8) / 2**8 * full_scale  # one 8-bit conversion
        assert abs(read - total) / total <= 2**-8
        p = precision_check(8, "bf16", n)
        signed = rng.standard_normal((200, n))
        ratio = np.median(np.abs(signed).sum(axis=1) / np.abs(signed.sum(axis=1)))
        assert abs(headroom_bits(ratio) - p.random_sign_headroom_bits) < 1.0
        # digital sum: independent per-term conversion noise grows as sqrt(N), a one-sign signal as N
        noise = rng.uniform(-0.5, 0.5, (200, n)) * 2**-8
        rel = np.std(noise.sum(axis=1)) / n
        assert abs(np.log2(2**-8 / np.sqrt(12) / rel) - p.digital_sum_gain_bits) < 0.2
    assert well_electrons(8) == 65536
    with pytest.raises(ledger.LedgerError, match="cancellation"):
        headroom_bits(0.5)
