"""The assumptions table (ledger/assumptions.py): every row is the ledger with one switch thrown."""
import math

import pytest

import ledger
from ledger.assumptions import (ASSUMPTIONS, FORMATS, HEADLINE, assumptions_table)

BASE = {"variant": "hyena2_circulant", "seq_len": 4096}


@pytest.fixture(scope="module")
def table():
    return assumptions_table()


def test_defaults_are_the_book_row(table):
    for row in table:
        assert [FORMATS[k](row.default[k]) for k in HEADLINE] == ["12.19%", "1.139x", "1.06 s", "385 s"]


def test_every_row_is_step_row_with_its_switch(table):
    assert len(table) == len(ASSUMPTIONS)
    for row in table:
        expected = ledger.step_row(**BASE, **row.assumption.overrides)
        assert row.alternative == {k: getattr(expected, k) for k in HEADLINE}, row.assumption.name
        # the alternative really is another setting than the default
        s = ledger.make_settings(**BASE, **row.assumption.overrides)
        assert s != ledger.make_settings(**BASE), row.assumption.name


def test_the_issue_lists_every_assumption(table):
    settings = {r.assumption.setting for r in table}
    for needed in ("fft_constant", "fft_length", "mask_spectrum", "values_per_pixel", "frame_rate", "step_tokens",
                   "hybrid_attention_fraction", "block", "recompute", "optical_speedup", "gpu_flops"):
        assert needed in settings, needed


def test_what_moves(table):
    by = {r.assumption.setting + ":" + r.assumption.alternative: r for r in table}
    rows = {r.assumption.name: r for r in table}
    assert rows["Mask spectrum"].moved == ("weight_mask_s", "data_mask_s")
    for key in ("weight_mask_s", "data_mask_s"):
        assert 1.9 < rows["Mask spectrum"].ratio(key) <= 2
    assert rows["Optical speed-up"].moved == ("amdahl",)
    assert rows["Recompute"].moved == ("step_share", "amdahl")
    assert rows["Recompute"].alternative["step_share"] > rows["Recompute"].default["step_share"]
    assert rows["GPU figures"].robust and rows["GPU figures"].other[0] == "digital_step_s"
    assert rows["GPU figures"].other[2] == pytest.approx(rows["GPU figures"].other[1] / 2.5, rel=1e-12)
    assert rows["Hybrid ratio"].robust
    assert rows["Hybrid ratio"].other[1] == ledger.step_row(variant="hybrid", seq_len=4096).step_share
    assert rows["Hybrid ratio"].other[2] == ledger.step_row(variant="hybrid", seq_len=4096,
                                                            hybrid_attention_fraction=0.5).step_share
    assert rows["Values per pixel"].ratio("data_mask_s") == pytest.approx(16, rel=1e-3)
    smaller, larger = rows["Block size (smaller)"], rows["Block size (larger)"]
    assert smaller.alternative["step_share"] > larger.alternative["step_share"]
    # no assumption on the page brings the Amdahl bound near 2x
    assert max(r.alternative["amdahl"] for r in table) < 1.5
    assert len(by) == len(table)


def test_table_for_other_settings():
    rows = assumptions_table(variant="hyena2", seq_len=2048)
    assert f"{rows[0].default['weight_mask_s']:.2f}" == "0.52"
    assert all(r.default == rows[0].default for r in rows)
    assert not math.isnan(rows[0].ratio("step_share"))


def test_ratio_of_zero_figures():
    rows = assumptions_table(variant="transformer", seq_len=4096)
    speed = next(r for r in rows if r.assumption.setting == "optical_speedup")
    assert speed.ratio("weight_mask_s") == 1.0 and speed.robust


def test_bad_settings_are_refused():
    with pytest.raises(ledger.LedgerError, match="seq_len = 3000"):
        assumptions_table(seq_len=3000)
