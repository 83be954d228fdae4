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
        assert [FORMATS[k](row.default[k]) for k in HEADLINE] == ["12.19%", "1.139x", "2.162x", "8.92e-06x", "1.06 s",
                                                                  "385 s"]


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
                   "flops_per_mac", "complex_mul_flops", "filter_build", "input_rate", "mask_overlap", "lm_head",
                   "layout", "link_rate", "gpu_bandwidth", *VARIATIONS):
        assert needed in settings, needed


def test_what_moves(table):
    by = {r.assumption.setting + ":" + r.assumption.alternative: r for r in table}
    rows = {r.assumption.name: r for r in table}
    assert rows["Mask spectrum"].moved == ("weight_mask_s", "data_mask_s")
    for key in ("weight_mask_s", "data_mask_s"):
        assert 1.9 < rows["Mask spectrum"].ratio(key) <= 2
    assert rows["Optical speed-up"].moved == ("amdahl",)
    assert rows["Recompute"].moved == ("step_share", "amdahl", "amdahl_time", "net_speedup")
    assert rows["Recompute"].alternative["step_share"] > rows["Recompute"].default["step_share"]
    assert rows["GPU figures"].moved == ("amdahl_time", "net_speedup") and rows["GPU figures"].other[0] == "digital_step_s"
    assert rows["GPU figures"].other[2] == pytest.approx(rows["GPU figures"].other[1] / 2.5, rel=1e-12)
    assert rows["Hybrid ratio"].robust
    assert rows["Hybrid ratio"].other[1] == ledger.step_row(variant="hybrid", seq_len=4096).step_share
    assert rows["Hybrid ratio"].other[2] == ledger.step_row(variant="hybrid", seq_len=4096,
                                                            hybrid_attention_fraction=0.5).step_share
    # a binary superpixel device: 16 mirrors per value, at the rate for streamed binary patterns
    superpixel = rows["Modulator (dmd-superpixel)"]
    rate = ledger.engine.MODULATORS["dmd-superpixel"].frame_rate_hz
    assert superpixel.ratio("data_mask_s") == pytest.approx(16 * 1031 / rate, rel=1e-3)
    assert ASSUMPTIONS[-1].setting == "modulator"
    smaller, larger = rows["Block size (smaller)"], rows["Block size (larger)"]
    assert smaller.alternative["step_share"] > larger.alternative["step_share"]
    # one switch at a time, the circulant LM head moves the FLOP bound furthest
    top = max(table, key=lambda r: r.alternative["amdahl"])
    assert top.assumption.name == "LM head"
    # every modulator mode the engine cites has its row
    assert {r.assumption.overrides["modulator"] for r in table if r.assumption.setting == "modulator"} == \
        {n for n, m in ledger.engine.MODULATORS.items() if not m.idealised}
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


def test_time_figures_are_the_time_model(table):
    """The table's bound in time and net speed-up are ledger.step_time's, and no convention moves them."""
    row = ledger.step_row(**BASE)
    f = figures(ledger.make_settings(**BASE))
    assert (f["amdahl_time"], f["net_speedup"]) == (row.amdahl_time, row.net_speedup)
    assert f["weight_mask_steps"] == row.weight_mask_s / row.all_digital_step_s
    conventions = [r for r in table if r.assumption.overrides and
                   set(r.assumption.overrides) <= set(ledger.settings.COST_FIELDS)]
    assert len(conventions) == 4
    for r in conventions:
        assert "step_share" in r.moved or r.assumption.name == "Causal halving of attention"
        assert all(r.alternative[k] == r.default[k] for k in ("amdahl_time", "net_speedup", "weight_mask_s"))


def test_switches_on_one_parameter_are_one_axis_and_refused_together():
    from ledger.assumptions import axes
    grid = axes()
    assert [a.name for a in grid["complex_mul_flops"][1:]] == ["Complex multiply-accumulate", "FMA counting"]
    with pytest.raises(ledger.LedgerError, match="set the same parameter"):
        figures_with([by_name("FMA counting"), by_name("Complex multiply-accumulate")], **BASE)
    one = figures_with([by_name("FFT price"), by_name("Mask spectrum")], **BASE)
    assert one == figures_with([by_name("Mask spectrum"), by_name("FFT price")], **BASE)


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
    # the joint view shows what one switch at a time hides: the circulant bound passes far beyond any single row
    circ = view.get("hyena2_circulant", "amdahl")
    assert circ.high > 10 * max(r.alternative["amdahl"] for r in assumptions_table())
    # no counting convention in the extremes of a figure of seconds, and no combination beats the GPUs alone
    from ledger.assumptions import TIME_FIGURES
    from ledger.settings import COST_FIELDS
    for r in view.ranges:
        if r.figure in TIME_FIGURES:
            for name in r.low_combination + r.high_combination:
                assert not (by_name(name).overrides and set(by_name(name).overrides) <= set(COST_FIELDS)), (r, name)
    for v in JOINT_VARIANTS:  # beating the GPUs needs an engine per GPU, and stays below the bound in time
        net = view.get(v, "net_speedup")
        assert net.high < view.get(v, "amdahl_time").high
        assert net.high < 1 or "Engines" in net.high_combination
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
        assert (fast.weight_values, fast.data_values) == (slow.weight_values, slow.data_values)


def test_optical_block_sum_is_coherent_before_detection():
    """A square-law detector adds intensities: the optical block sum must superpose fields before detection."""
    text = by_name("Circulant block sum").why
    assert "coherent superposition" in text and "before detection" in text
    assert "on one detector" not in text
