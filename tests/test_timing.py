"""Re-weighting the step by time (ledger.timing) and the measurement script's shape."""
import importlib.util
import math
from pathlib import Path

import pytest

import ledger
from ledger import LedgerError
from ledger.timing import KERNELS, flops_by_kernel, kernel_of, seconds_by_kernel, time_shares

EQUAL = dict.fromkeys(KERNELS, 1e12)


@pytest.mark.parametrize("variant", ["transformer", "hyena2", "hybrid", "hyena2_circulant"])
def test_equal_rates_give_the_flop_shares(variant):
    s = ledger.Settings(variant=variant)
    items = ledger.step_items(s)
    row = ledger.summarize(s, items)
    t = time_shares(items, EQUAL)
    assert math.isclose(t["flop_share"], row.step_share, abs_tol=1e-15)
    assert math.isclose(t["time_share"], row.step_share, abs_tol=1e-12)
    assert math.isclose(t["static_time_share"], row.static_share, abs_tol=1e-12)
    assert math.isclose(t["step_s"], row.step_flops / 1e12)


def test_every_flop_has_one_kernel():
    items = ledger.step_items(ledger.Settings(variant="hyena2_circulant"))
    assert math.isclose(sum(flops_by_kernel(items).values()), sum(i.flops for i in items))
    kinds = {kernel_of(i) for i in items if i.flops}
    assert kinds == set(KERNELS)
    transformer = ledger.step_items(ledger.Settings(variant="transformer"))
    assert {kernel_of(i) for i in transformer if i.flops} == {"matmul"}


def test_slow_ffts_raise_the_time_share():
    items = ledger.step_items(ledger.Settings(variant="hyena2"))
    slow = dict(EQUAL, fft_long=1e10, elementwise=1e10)
    t = time_shares(items, slow)
    assert t["time_share"] > t["flop_share"]
    assert t["amdahl_time"] > t["amdahl_flops"]
    assert math.isclose(t["amdahl_time"], 1 / (1 - t["time_share"]))
    secs = seconds_by_kernel(items, slow)
    assert math.isclose(sum(secs.values()), t["step_s"])


def test_bad_rates_refused():
    items = ledger.step_items(ledger.Settings(variant="hyena2"))
    with pytest.raises(LedgerError, match="missing 'fft_long'"):
        time_shares(items, {"matmul": 1.0})
    with pytest.raises(LedgerError, match=r"rates\['matmul'\] = 0"):
        time_shares(items, dict(EQUAL, matmul=0))


def test_measure_quick_runs():
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "measure.py"
    spec = importlib.util.spec_from_file_location("measure", path)
    measure = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(measure)
    m = measure.measure(quick=True, repeats=1)
    assert set(m["rates"]) == set(KERNELS)
    assert all(r > 0 for r in m["rates"].values())
    assert set(m["variants"]) == {"hyena2", "hyena2_circulant", "hybrid"}
    assert "cpu" in m["machine"] and "blas" in m["machine"]
    assert "time share" in measure.report(m)


def test_measure_returns_plain_floats():
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "measure.py"
    spec = importlib.util.spec_from_file_location("measure", path)
    measure = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(measure)
    m = measure.measure(quick=True, repeats=1)
    assert all(type(r) is float for r in m["rates"].values())
    assert all(type(v) is float for t in m["variants"].values() for v in t.values())
