"""Re-weighting the step by time (ledger.timing) and the measurement script's shape."""
import math
import subprocess
import sys
from pathlib import Path

import pytest

import ledger
from ledger import LedgerError
from ledger import measure as measure_module
from ledger.timing import (
    KERNELS,
    flops_by_kernel,
    kernel_of,
    seconds_by_kernel,
    time_shares,
)

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
    assert "published H100 rates" in MEASURE.report(m)


def test_measure_returns_plain_floats(quick):
    m = quick
    assert all(type(r) is float for r in m["rates"].values())
    assert all(type(v) is float for t in m["variants"].values() for v in t.values())
    assert all(type(v) is float for k in m["kernels"].values() for key, v in k.items() if key not in ("shape", "mix"))
    assert all(type(v) is float for v in m["stream_bytes_per_s"].values()) and type(m["stream_spread"]) is float


def test_like_with_like_one_thread_each(quick):
    """numpy's FFT and elementwise products run on one thread, so the BLAS kernels are timed on one thread
    too; the previous thread count is restored afterwards."""
    before = MEASURE.blas_threads()
    assert before is not None, "numpy's OpenBLAS must be found to limit its threads"
    with MEASURE.limited_blas_threads(1):
        assert MEASURE.blas_threads() == 1
    assert MEASURE.blas_threads() == before
    assert quick["machine"]["blas_threads"] == 1 and quick["machine"]["threads_matched"] is True


def test_operands_are_sized_and_streams_counted(quick):
    """Each kernel's largest operand is about operand_mib; its streams are its operands read and its results
    written, and the traffic adds a read of every byte written (write-allocate)."""
    big = MEASURE.kernels(operand_mib=64)
    assert "2048 channels" in big["fft_long"]["shape"] and "65536 blocks" in big["fft_block"]["shape"]
    fft = big["fft_long"]["streams"]
    assert fft.read == fft.write == 2048 * 8192 * 4 + 2048 * 4097 * 8
    product = big["elementwise"]["streams"]
    assert product.read == 2 * 2047 * 4097 * 8 and product.write == 2047 * 4097 * 8
    assert product.traffic() == 4 * product.write and product.traffic(write_allocate=False) == 3 * product.write
    assert MEASURE.kernel_streams(64) == {name: k["streams"] for name, k in big.items()}
    assert {name: k["mix"] for name, k in quick["kernels"].items()} == {
        "matmul": "2:1", "fft_long": "1:1", "fft_block": "1:1", "block_product": "1:1", "elementwise": "2:1"}
    for name, k in quick["kernels"].items():
        assert k["traffic_bytes"] == k["read_bytes"] + 2 * k["write_bytes"], name
        roof = k["flops"] / k["traffic_bytes"] * quick["stream_bytes_per_s"][k["mix"]]
        assert math.isclose(k["memory_roof_flops_per_s"], roof), name
        assert math.isclose(k["fraction_of_memory_roof"], k["flops_per_s"] / k["memory_roof_flops_per_s"]), name
    assert set(quick["stream_bytes_per_s"]) == set(MEASURE.CALIBRATIONS) and 0 <= quick["stream_spread"] < 1


def test_a_matched_mix_makes_the_roof_independent_of_write_allocate():
    """Against the calibration loop with the kernel's own reads per write, counting write-allocate moves no
    roof; against another mix it does (a copy's 1:1 for the elementwise product's 2:1: 4/3 against 3/2)."""
    product = MEASURE.Streams(2e6, 1e6)
    same = [MEASURE.roof_seconds(product, 1e8, "2:1", wa) for wa in (True, False)]
    assert math.isclose(same[0], same[1])
    other = [MEASURE.roof_seconds(product, 1e8, "1:1", wa) for wa in (True, False)]
    assert math.isclose(other[0] / other[1], (4 / 3) / (3 / 2))
    assert MEASURE.calibration_mix(MEASURE.Streams(17, 1)) == "2:1"
    assert MEASURE.calibration_mix(MEASURE.Streams(1.004, 1)) == "1:1"


def test_measure_bad_streams_and_mixes_are_refused():
    with pytest.raises(LedgerError, match="a kernel must read and write a positive number of bytes"):
        MEASURE.calibration_mix(MEASURE.Streams(0, 1))
    with pytest.raises(LedgerError, match=r"mix = '3:1': must be one of 1:1, 2:1"):
        MEASURE.roof_seconds(MEASURE.Streams(1, 1), 1e9, "3:1")


def test_published_fft_convolutions_are_counted_with_the_ledger_conventions():
    """The README's gated convolution at FFT size n: per sequence two gates, an rFFT, a complex multiply per bin
    and an inverse rFFT, for 64 x 768 sequences, and a filter rFFT per channel."""
    per_sequence = 2 * 2.5 * 8192 * 13 + 6 * 4097 + 2 * 8192
    assert MEASURE.gated_fft_conv_flops(8192) == 64 * 768 * per_sequence + 768 * 2.5 * 8192 * 13
    flash = MEASURE.published_rates("FlashFFTConv")
    assert math.isclose(flash["fft_long"], MEASURE.gated_fft_conv_flops(8192) / 3.58e-3)
    assert math.isclose(flash["fft_block"], MEASURE.gated_fft_conv_flops(256) / 0.11e-3)
    assert flash["matmul"] == flash["block_product"] == 794.5e12 and flash["elementwise"] == flash["fft_long"]
    torch_fft = MEASURE.published_rates("PyTorch")
    assert math.isclose(torch_fft["fft_long"], MEASURE.gated_fft_conv_flops(8192) / 19.4e-3)
    assert set(MEASURE.published_variants("PyTorch")) == {"hyena2", "hyena2_circulant", "hybrid"}
    for figure in MEASURE.PUBLISHED.values():
        assert figure.cite in {"bekman2024mamf", "flashfftconvcode"} and figure.condition and figure.unit in {"s", "FLOP/s"}
    with pytest.raises(LedgerError, match=r"library = 'cuFFT': must be one of FlashFFTConv, PyTorch"):
        MEASURE.published_rates("cuFFT")
    with pytest.raises(LedgerError, match=r"n = 1000: must be a power of two of at least 2"):
        MEASURE.gated_fft_conv_flops(1000)


def test_every_published_citation_is_in_the_bibliography():
    bib = (Path(__file__).resolve().parent.parent / "book" / "references.bib").read_text(encoding="utf-8")
    for figure in MEASURE.PUBLISHED.values():
        assert f"{{{figure.cite}," in bib, figure.cite


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
