"""The part of the Amdahl gain a finite engine reaches (chapter 05's finite-engine sentence)."""
import math

import pytest
from hypothesis import given, strategies as st

import ledger
from ledger.shares import amdahl, gain_fraction


@given(st.floats(min_value=1e-4, max_value=0.99), st.floats(min_value=1.01, max_value=1e6))
def test_closed_form_matches_amdahl(p, s):
    direct = (amdahl(p, s) - 1) / (amdahl(p) - 1)
    assert gain_fraction(p, s) == pytest.approx(direct, rel=1e-9)


def test_depends_on_s_more_than_on_p_for_small_shares():
    # at s = 2 a small share reaches about half of its gain, whatever p (0.1% to 15%)
    at_two = [gain_fraction(p, 2) for p in (0.001, 0.01, 0.1219, 0.15)]
    assert max(at_two) - min(at_two) < 0.1 and all(0.4 < g <= 0.5 for g in at_two)
    # moving s from 2 to 10 moves the fraction far more than moving p over that range
    assert gain_fraction(0.1219, 10) - gain_fraction(0.1219, 2) > 0.35
    assert gain_fraction(0.5, math.inf) == 1.0


def test_bad_fraction_is_refused():
    with pytest.raises(ledger.LedgerError, match="fraction"):
        gain_fraction(1.0, 10)
    with pytest.raises(ledger.LedgerError):
        gain_fraction(0.1, 0)


def test_close_to_the_limit_only_for_small_shares():
    from ledger.shares import gain_fraction_of_limit, largest_share_within
    # the reviewer's figures, from (1 - p) / ((1 - p) + p/s) by hand
    assert gain_fraction_of_limit(0.2657, 2) == pytest.approx(0.7343 / (0.7343 + 0.2657 / 2), rel=1e-12)
    assert 0.84 < gain_fraction_of_limit(0.2657, 2) < 0.85
    assert 0.80 < gain_fraction_of_limit(0.2657, 1.5) < 0.81
    assert 0.76 < gain_fraction_of_limit(0.3789, 2) < 0.77
    # the boundary: exactly 10% short at p = 1/7 for s = 1.5; inside below it, outside above it
    p_max = largest_share_within(1.5)
    assert p_max == pytest.approx(1 / 7, rel=1e-12)
    assert gain_fraction_of_limit(p_max, 1.5) == pytest.approx(0.9, rel=1e-12)
    assert gain_fraction_of_limit(0.99 * p_max, 1.5) > 0.9 > gain_fraction_of_limit(1.01 * p_max, 1.5)
    # a faster engine tolerates a larger share
    assert largest_share_within(2) > p_max and largest_share_within(math.inf) == 1.0


def test_limit_helpers_refuse_bad_input():
    from ledger.shares import gain_fraction_of_limit, largest_share_within
    with pytest.raises(ledger.LedgerError, match="optical_speedup"):
        gain_fraction_of_limit(0.1, 1)
    with pytest.raises(ledger.LedgerError, match="tolerance"):
        largest_share_within(2, tolerance=1.5)
