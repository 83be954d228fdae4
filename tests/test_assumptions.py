"""The assumptions table (ledger/assumptions.py): every row is the ledger with one switch thrown."""
import math

import pytest

import ledger
from ledger.assumptions import (ASSUMPTIONS, FORMATS, HEADLINE, JOINT_FIGURES, JOINT_VARIANTS, VARIATIONS,
                                assumptions_table, by_name, figures, figures_of_combination, figures_with,
                                joint_view, variation_items)

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
        a = row.assumption
        if a.variation is None:
            expected = ledger.step_row(**BASE, **a.overrides)
            assert row.alternative == pytest.approx({k: getattr(expected, k) for k in HEADLINE}, rel=1e-12), a.name
            # the alternative really is another setting than the default
            s = ledger.make_settings(**BASE, **a.overrides)
            assert s != ledger.make_settings(**BASE), a.name
        else:
            assert a.variation in VARIATIONS and not a.overrides
            assert row.alternative != row.default, a.name


def test_the_issue_lists_every_assumption(table):
    settings = {r.assumption.setting for r in table}
    for needed in ("fft_constant", "fft_length", "mask_spectrum", "modulator", "frame_rate", "step_tokens",
                   "hybrid_attention_fraction", "block", "recompute", "optical_speedup", "gpu_flops",
                   "flops_per_mac", "complex_mul_flops", "filter_build", *VARIATIONS):
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
    # a binary superpixel device: 16 mirrors per value, at the binary pattern rate
    superpixel = rows["Modulator (binary superpixel)"]
    rate = ledger.engine.MODULATORS["dmd-superpixel"].frame_rate_hz
    assert superpixel.ratio("data_mask_s") == pytest.approx(16 * 1031 / rate, rel=1e-3)
    assert ASSUMPTIONS[-1].setting == "modulator"
    smaller, larger = rows["Block size (smaller)"], rows["Block size (larger)"]
    assert smaller.alternative["step_share"] > larger.alternative["step_share"]
    # one switch at a time, the time share moves the bound furthest; block 64 is next
    top = max(table, key=lambda r: r.alternative["amdahl"])
    assert top.assumption.name == "Share of FLOPs or of GPU time"
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


def test_multiply_accumulate_charges_no_separate_add():
    mac = by_name("Complex multiply-accumulate")
    s = ledger.make_settings(**BASE, **mac.overrides)
    adds = [i for i in ledger.step_items(s) if "accumulate" in i.op or "sum over" in i.op]
    assert adds and all(i.flops == 0 for i in adds)
    def product_flops(settings):
        return sum(i.flops for i in ledger.step_items(settings) if i.cls in ("weight_product", "data_product"))
    assert product_flops(s) == pytest.approx(product_flops(ledger.make_settings(**BASE)) * 8 / 6, rel=1e-12)
    assert s.costs.complex_mul_flops == 8


def test_variations_change_the_items_they_say():
    s = ledger.make_settings(**BASE)
    items = ledger.step_items(s)
    again = variation_items(s, items, ["recompute_input_spectrum"])
    extra = [i for i in again if i.op.endswith("again for dW")]
    assert extra and all(i.phase == "dW" and i.cls == "transform" for i in extra)
    full = ledger.make_settings(**BASE, recompute="full")
    assert variation_items(full, ledger.step_items(full), ["recompute_input_spectrum"]) == ledger.step_items(full)
    summed = variation_items(s, items, ["optical_block_sum"])
    assert sum(i.flops for i in summed if i.cls == "digital") < sum(i.flops for i in items if i.cls == "digital")
    assert sum(i.flops for i in summed) == sum(i.flops for i in items)
    with pytest.raises(ledger.LedgerError, match="variation"):
        variation_items(s, items, ["nonsense"])


def test_time_share_matches_ledger_timing():
    from ledger.timing import time_shares
    g = ledger.Device().gpu_flops
    rates = dict(matmul=g, block_product=g, fft_long=g / 10, fft_block=g / 10, elementwise=g / 10)
    t = time_shares(ledger.step_items(ledger.make_settings(**BASE)), rates)
    f = figures(ledger.make_settings(**BASE), ["gpu_time_share"])
    assert f["step_share"] == pytest.approx(t["time_share"], rel=1e-12)
    assert f["digital_step_s"] == pytest.approx(t["step_s"] / 64, rel=1e-12)


@pytest.fixture(scope="module")
def view():
    return joint_view()


def test_joint_ranges_hold_every_single_alternative(view):
    for variant in JOINT_VARIANTS:
        default = figures(variant=variant, seq_len=4096)
        for a in ASSUMPTIONS:
            try:
                one = figures_with([a], variant=variant, seq_len=4096)
            except ledger.LedgerError:
                continue
            for f in JOINT_FIGURES:
                r = view.get(variant, f)
                assert r.low <= one[f] * (1 + 1e-12) and one[f] <= r.high * (1 + 1e-12), (variant, f, a.name)
                assert r.low <= default[f] <= r.high


def test_joint_extremes_are_reproduced_by_their_combination(view):
    for r in view.ranges:
        low = figures_of_combination(r.variant, r.low_combination)[r.figure]
        high = figures_of_combination(r.variant, r.high_combination)[r.figure]
        assert low == pytest.approx(r.low, rel=1e-9) and high == pytest.approx(r.high, rel=1e-9), (r.variant, r.figure)
    # the joint view shows what one switch at a time hides: the circulant bound passes 2x
    circ = view.get("hyena2_circulant", "amdahl")
    assert circ.high > 2 > max(r.alternative["amdahl"] for r in assumptions_table())
    assert view.combinations["hyena2_circulant"] > view.combinations["hyena2"]
    with pytest.raises(ledger.LedgerError, match="no joint range"):
        view.get("transformer", "amdahl")
    with pytest.raises(ledger.LedgerError, match="assumption"):
        by_name("nonsense")


def test_assumptions_cli_json(capsys):
    import json
    from ledger.cli import main
    assert main(["assumptions", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["rows"]) == len(ASSUMPTIONS)
    assert {"name", "setting", "default", "alternative", "moved"} <= set(data["rows"][0])
    assert {(j["variant"], j["figure"]) for j in data["joint"]} == {(v, f) for v in JOINT_VARIANTS for f in JOINT_FIGURES}
    for j in data["joint"]:
        assert j["low"] <= j["default"] <= j["high"]
    assert main(["assumptions", "--bogus"]) == 2
    assert "unknown arguments" in capsys.readouterr().err


@pytest.mark.parametrize("variant", ["hyena2", "hybrid", "hyena2_circulant"])
@pytest.mark.parametrize("variations", [(), ("recompute_input_spectrum",), ("optical_block_sum", "recompute_input_spectrum")])
def test_grid_shortcut_matches_a_fresh_count(variant, variations):
    """The joint grid counts recompute and filter placement by weighting one list of items; a new ledger agrees."""
    from ledger.assumptions import _count, _count_policies
    s = ledger.make_settings(variant=variant, seq_len=4096, block=64 if variant == "hyena2_circulant" else 256)
    policies = [(r, f) for r in ("none", "full") for f in ("step", "micro-batch")]
    for (r, f), fast in zip(policies, _count_policies(s, variations, policies)):
        slow = _count(ledger.make_settings(s, recompute=r, filter_build=f), variations)
        assert fast.step_flops == pytest.approx(slow.step_flops, rel=1e-12)
        assert fast.step_share == pytest.approx(slow.step_share, rel=1e-12)
        assert dict(fast.kernel_flops) == pytest.approx(dict(slow.kernel_flops), rel=1e-12)
        assert dict(fast.optical_kernel_flops) == pytest.approx(dict(slow.optical_kernel_flops), rel=1e-12)
        assert (fast.weight_values, fast.data_values) == (slow.weight_values, slow.data_values)


def test_optical_block_sum_is_coherent_before_detection():
    """A square-law detector adds intensities: the optical block sum must superpose fields before detection."""
    text = by_name("Circulant block sum").why
    assert "coherent superposition" in text and "before detection" in text
    assert "on one detector" not in text
