"""The time model (ledger/step_time.py): seconds that no counting convention moves, the net step time and its
parts, mask overlap and the break-even rates."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import ledger
from ledger.step_time import item_seconds, step_time

ROOT = Path(__file__).resolve().parents[1]
LENGTHS = (2048, 4096, 8192)
CONVENTIONS = ({"flops_per_mac": 1.0, "complex_mul_flops": 4.0}, {"fft_constant": 5.0},
               {"complex_mul_flops": 8.0, "complex_add_flops": 0.0}, {"causal_attention": True})
"""The counting conventions of the assumptions table: each moves counts, none may move a second."""
TIME_FIELDS = ("all_digital_step_s", "hybrid_step_s", "net_speedup", "time_share", "amdahl_time",
               "break_even_input_rate", "break_even_mask_rate", "break_even_detector_rate", "break_even_link_rate",
               "weight_mask_s", "data_mask_s")


@pytest.mark.parametrize("convention", CONVENTIONS, ids=lambda c: ",".join(c))
def test_no_counting_convention_moves_a_second(convention):
    for variant in ledger.VARIANTS:
        for n in LENGTHS:
            default = ledger.step_row(variant=variant, seq_len=n)
            other = ledger.step_row(variant=variant, seq_len=n, **convention)
            assert [getattr(other, k) for k in TIME_FIELDS] == [getattr(default, k) for k in TIME_FIELDS], \
                (variant, n, convention)
    # the counted step does move (the test would be empty otherwise), except causal halving without attention
    moved = ledger.step_row(variant="hybrid", seq_len=4096, **convention)
    assert moved.digital_step_s != ledger.step_row(variant="hybrid", seq_len=4096).digital_step_s


def test_time_divides_reference_work_not_counted_flops():
    """FMA counting halves the counted digital step (2.05 s to 1.02 s for Hyena-2 at 2,048) and no time figure."""
    default, fma = (ledger.step_row(variant="hyena2", seq_len=2048, **kw) for kw in ({}, {"flops_per_mac": 1.0}))
    assert (f"{default.digital_step_s:.2f}", f"{fma.digital_step_s:.2f}") == ("2.05", "1.02")
    assert fma.all_digital_step_s == default.all_digital_step_s
    s = ledger.make_settings(variant="hyena2", seq_len=2048, flops_per_mac=1.0)
    items = ledger.step_items(s)
    assert sum(i.reference_flops for i in items) == pytest.approx(
        sum(i.flops for i in ledger.step_items(ledger.Settings(variant="hyena2", seq_len=2048))), rel=1e-12)


def test_the_transformer_is_untouched_and_no_row_beats_its_time_bound():
    for n in LENGTHS:
        t = ledger.step_row(variant="transformer", seq_len=n)
        assert t.net_speedup == 1 and t.hybrid_step_s == t.all_digital_step_s and t.time_share == 0
        assert t.break_even_input_rate is None and "break_even_input_rate" not in t.to_json()
    for variant in ledger.VARIANTS[1:]:
        for n in LENGTHS:
            for name in ledger.MODULATORS:
                for overlap in ("serial", "overlapped"):
                    r = ledger.step_row(variant=variant, seq_len=n, modulator=name, mask_overlap=overlap)
                    assert 0 < r.net_speedup < r.amdahl_time, (variant, n, name, overlap)


def test_the_hybrid_step_is_its_parts():
    s = ledger.Settings(variant="hyena2", seq_len=4096)
    t = step_time(s, ledger.step_items(s))
    gpu = ledger.hardware.hardware_items(s, ledger.step_items(s))
    assert t.all_digital_step_s == pytest.approx(sum(item_seconds(i, s) for i in gpu), rel=1e-12)
    assert t.stream_s == max(t.input_s, t.detector_s, t.link_s, t.optics_s)
    assert t.engine_s == t.stream_s + t.mask_s and t.hybrid_step_s == t.gpu_rest_s + t.engine_s
    crossing = ledger.boundary.conversions(s, ledger.step_items(s), mode="fused")
    assert t.input_s == crossing.values_in / s.device.io_rate
    assert t.detector_s == 2 * crossing.values_out / s.device.detector_rate  # interferometric: two samples each
    assert t.mask_s == ledger.step_row(s).weight_mask_s
    o = step_time(ledger.make_settings(s, mask_overlap="overlapped"), ledger.step_items(s))
    assert o.engine_s == max(o.stream_s, o.mask_s) and o.hybrid_step_s < t.hybrid_step_s
    # a finite optical speed-up charges the optics' own time as one more stage
    slow = step_time(ledger.make_settings(s, optical_speedup=1e-5), ledger.step_items(s))
    assert slow.optics_s == pytest.approx(t.engine_work_gpu_s * 1e5) and slow.stream_s == slow.optics_s


def test_overlap_matters_once_streaming_is_fast():
    """With a fast input plane, detector and link, the masks are what is left, and overlapping them pays."""
    fast = dict(variant="hyena2", seq_len=8192, input_rate=1e16, link_rate=1e16)
    serial, overlapped = ledger.step_row(**fast), ledger.step_row(**fast, mask_overlap="overlapped")
    assert overlapped.hybrid_step_s < serial.hybrid_step_s
    assert overlapped.net_speedup > serial.net_speedup


def test_break_even_rates_are_where_a_part_eats_the_saving():
    s = ledger.Settings(variant="hyena2_circulant", seq_len=4096)
    t = step_time(s, ledger.step_items(s))
    rates = t.break_even()
    saved = t.engine_work_gpu_s
    assert t.values_in / rates["input_rate"] == pytest.approx(saved)
    assert t.detector_samples / rates["detector_rate"] == pytest.approx(saved)
    assert t.mask_frames / rates["mask_rate"] == pytest.approx(saved)
    assert t.link_bytes / rates["link_rate"] == pytest.approx(saved)
    # at twice every break-even rate and nothing else in the way, the engine would save time
    free = ledger.make_settings(s, input_rate=2 * max(rates["input_rate"], rates["detector_rate"]),
                                link_rate=2 * rates["link_rate"], frame_rate=2 * rates["mask_rate"],
                                mask_overlap="overlapped")
    assert ledger.step_row(free).net_speedup > 1


def test_rows_and_json_carry_the_time_fields():
    row = ledger.step_row(variant="hyena2", seq_len=4096, mask_overlap="overlapped").to_json()
    for key in TIME_FIELDS + ("mask_overlap",):
        assert key in row, key
    assert row["mask_overlap"] == "overlapped"
    done = subprocess.run([sys.executable, "-m", "ledger", "--json", "--variant", "hyena2", "--seq-len", "4096",
                           "--mask-overlap", "overlapped"], capture_output=True, text=True, cwd=ROOT, check=True)
    rows = json.loads(done.stdout)["rows"]
    assert rows[0]["mask_overlap"] == "overlapped" and rows[0]["net_speedup"] == pytest.approx(row["net_speedup"])
    bad = subprocess.run([sys.executable, "-m", "ledger", "--mask-overlap", "both"], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "serial" in bad.stderr


@pytest.mark.parametrize("field, value", [("mask_overlap", "both"), ("link_rate", 0), ("gpu_bandwidth", float("nan")),
                                          ("gpu_vector_flops", -1), ("link_bytes_per_value", "1")])
def test_bad_engine_figures_are_refused_in_one_line(field, value):
    with pytest.raises(ledger.LedgerError) as err:
        ledger.step_row(**{field: value})
    assert str(err.value).startswith(f"{field} = ") and "\n" not in str(err.value)


def test_the_lm_head_switch():
    dense = ledger.step_row(variant="hyena2_circulant", seq_len=4096)
    circ = ledger.step_row(variant="hyena2_circulant", seq_len=4096, lm_head="circulant")
    assert 0.80 < 1 - circ.step_flops / dense.step_flops < 0.90  # the dense head is about 85% of the step
    assert circ.step_share > 0.8 and circ.matrix_params < dense.matrix_params
    assert ledger.step_row(variant="hyena2", seq_len=4096, lm_head="circulant") == ledger.step_row(variant="hyena2",
                                                                                                  seq_len=4096)
    with pytest.raises(ledger.LedgerError, match="lm_head = 'circulant': block = 1024 does not divide"):
        ledger.step_row(variant="hyena2_circulant", lm_head="circulant", block=1024)
    with pytest.raises(ledger.LedgerError, match="lm_head = 'tied'"):
        ledger.step_row(lm_head="tied")
