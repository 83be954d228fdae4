"""The FFT convolution and its correlation gradients against direct sums and finite differences."""
import numpy as np
import pytest

from ledger import LedgerError
from ledger import spectral


@pytest.mark.parametrize("length", [1, 2, 7, 16, 100, 256, 1000, 1024, 4096])
def test_spectral_matches_direct_to_rounding(length):
    check = spectral.check_length(length)
    assert check.fft_len >= 2 * length
    for value in (check.forward_vs_direct, check.input_grad_vs_direct, check.filter_grad_vs_direct):
        assert value < 1e-13


@pytest.mark.parametrize("length", [16, 100, 1000, 4096])
def test_spectral_matches_finite_differences(length):
    check = spectral.check_length(length)
    assert check.input_grad_vs_fd < 1e-8 and check.filter_grad_vs_fd < 1e-8


def test_thousand_pads_to_2048():
    assert spectral.fft_length(1000) == 2048
    assert spectral.fft_length(1024) == 2048
    assert spectral.fft_length(1025) == 4096


def test_padding_is_what_makes_it_exact():
    """With n = L (no padding) the circular wrap-around corrupts the gradient."""
    rng = np.random.default_rng(1)
    g, h = rng.standard_normal(64), rng.standard_normal(64)
    circular = np.fft.irfft(np.fft.rfft(g) * np.conj(np.fft.rfft(h)), 64)
    assert np.max(np.abs(circular - spectral.grad_input_direct(g, h))) > 1e-3
    assert np.max(np.abs(spectral.grad_input_fft(g, h) - spectral.grad_input_direct(g, h))) < 1e-12


def test_gradient_is_anti_causal():
    """du[j] depends only on g[i] for i >= j: a gradient at the last position moves only... every input."""
    length = 32
    h = np.random.default_rng(2).standard_normal(length)
    g = np.zeros(length)
    g[10] = 1.0
    du = spectral.grad_input_fft(g, h)
    assert np.allclose(du[11:], 0.0, atol=1e-12)
    assert np.allclose(du[:11], h[10::-1], atol=1e-12)


def test_bad_length():
    with pytest.raises(LedgerError):
        spectral.fft_length(0)


def test_default_table_includes_1000():
    rows = spectral.spectral_checks()
    assert any(r.length == 1000 and r.fft_len == 2048 for r in rows)
