"""Re-weighting the step by time (ledger.timing) and the measurement script's shape."""
import subprocess
import sys
import math
from pathlib import Path

import pytest

import ledger
from ledger import LedgerError
from ledger import measure as measure_module
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


MEASURE = measure_module


@pytest.fixture(scope="module")
def quick() -> dict:
    """One small run for the shape checks below (no timing is asserted: measured values vary), made
    when they run, not when each test worker collects this file."""
    return MEASURE.measure(quick=True, repeats=1, operand_mib=4)


def test_measure_quick_runs(quick):
    m = quick
    assert set(m["rates"]) == set(KERNELS)
    assert all(r > 0 for r in m["rates"].values())
    assert set(m["variants"]) == {"hyena2", "hyena2_circulant", "hybrid"}
    assert "cpu" in m["machine"] and "blas" in m["machine"] and "last_level_cache_mib" in m["machine"]
    assert "time share" in MEASURE.report(m) and "threads: BLAS 1" in MEASURE.report(m)


def test_measure_returns_plain_floats(quick):
    m = quick
    assert all(type(r) is float for r in m["rates"].values())
    assert all(type(v) is float for t in m["variants"].values() for v in t.values())
    assert all(type(v) is float for k in m["kernels"].values() for key, v in k.items() if key != "shape")


def test_like_with_like_one_thread_each(quick):
    """numpy's FFT and elementwise products run on one thread, so the BLAS kernels are timed on one thread
    too; the previous thread count is restored afterwards."""
    before = MEASURE.blas_threads()
    assert before is not None, "numpy's OpenBLAS must be found to limit its threads"
    with MEASURE.limited_blas_threads(1):
        assert MEASURE.blas_threads() == 1
    assert MEASURE.blas_threads() == before
    assert quick["machine"]["blas_threads"] == 1 and quick["machine"]["threads_matched"] is True


def test_operands_are_sized_and_bytes_counted(quick):
    """Each kernel's largest operand is about operand_mib; bytes moved cover its operands and result, and
    the memory roof is FLOPs per byte times the measured copy bandwidth."""
    big = MEASURE.kernels(operand_mib=64)
    assert "2048 channels" in big["fft_long"]["shape"] and "65536 blocks" in big["fft_block"]["shape"]
    assert big["fft_long"]["bytes"] == 2 * 2048 * 8192 * 4 + 2 * 2048 * 4097 * 8
    assert big["elementwise"]["bytes"] == 3 * 2047 * 4097 * 8
    for name, k in quick["kernels"].items():
        assert math.isclose(k["memory_roof_flops_per_s"], k["flops"] / k["bytes"] * quick["copy_bytes_per_s"])
        assert math.isclose(k["fraction_of_memory_roof"], k["flops_per_s"] / k["memory_roof_flops_per_s"]), name


def test_measure_cli_refuses_bad_sizes(capsys):
    assert MEASURE.main(["--operand-mib", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "measure.py: error: --operand-mib 0: must be above 0 and at most 4096"
    assert MEASURE.main(["--repeats", "0"]) == 2
    assert "--repeats 0: must be a positive integer" in capsys.readouterr().err


def test_optical_flops_by_kernel():
    """The block-circulant variant's optical FLOPs at S = 4,096 are mostly block products, not FFTs."""
    from ledger.layers import OPTICAL_CLASSES
    items = ledger.step_items(ledger.Settings(variant="hyena2_circulant", seq_len=4096))
    optical = flops_by_kernel(items, OPTICAL_CLASSES)
    assert math.isclose(sum(optical.values()), sum(i.flops for i in items if i.cls in OPTICAL_CLASSES))
    assert optical["matmul"] == 0
    assert optical["block_product"] > optical["fft_long"] + optical["fft_block"]
    with pytest.raises(LedgerError, match="classes \\['optics'\\]"):
        flops_by_kernel(items, ["optics"])


def test_the_benchmarks_script_runs_the_librarys_measurement():
    """benchmarks/measure.py, the script older instructions name, runs ledger.measure."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "measure.py"
    done = subprocess.run([sys.executable, str(script), "--repeats", "0"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "--repeats 0: must be a positive integer" in done.stderr
