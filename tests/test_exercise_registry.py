"""The self-checking exercise machinery: right, close and wrong verdicts; the usual slips named;
traps never accepted; any real number type; bad labels and values refused in one line."""
from fractions import Fraction

import numpy as np
import pytest

from ledger import LedgerError
from ledger.exercises import registry
from ledger.exercises import instructor


@pytest.fixture
def sample_exercise():
    registry.numeric("test-sample", lambda: 12.19, rel_tol=0.001, hint="count both passes", unit="%",
                     traps=[(24.38, "counting the forward pass twice")])
    yield "test-sample"
    del registry.REGISTRY["test-sample"]


@pytest.fixture
def register():
    added = []

    def add(label, answer, **kw):
        registry.numeric(label, answer, **kw)
        added.append(label)
        return label
    yield add
    for label in added:
        del registry.REGISTRY[label]


def test_right_close_wrong(sample_exercise):
    assert registry.check(sample_exercise, 12.19)
    assert registry.check(sample_exercise, 12.19 * 1.0009)
    close = registry.check(sample_exercise, 12.19 * 1.003)
    assert not close and close.verdict == "close" and "count both passes" in close.message
    wrong = registry.check(sample_exercise, 12.19 * 1.2)
    assert not wrong and wrong.verdict == "wrong" and "20% off" in wrong.message


def test_the_close_band_is_a_few_tolerances_at_most(sample_exercise):
    # default close_factor 4: 0.4% off is close, 0.6% off is wrong
    assert registry.check(sample_exercise, 12.19 * 1.004).verdict == "close"
    assert registry.check(sample_exercise, 12.19 * 1.006).verdict == "wrong"
    with pytest.raises(LedgerError, match="close_factor from 1 to 5"):
        registry.numeric("test-wide", lambda: 1.0, close_factor=20)
    assert all(ex.close_factor <= registry.MAX_CLOSE_FACTOR for ex in registry.REGISTRY.values())


def test_a_trap_is_never_accepted_even_inside_the_close_band(register):
    label = register("test-trap", lambda: 30_000.0, rel_tol=0.01, traps=[32_000], hint="not the other model's")
    result = registry.check(label, 32_000)  # 6.7% off: inside 5 x 1% would be close, but it is the trap
    assert result.verdict == "wrong" and "warns about" in result.message
    assert registry.check(label, 30_100)
    # traps may depend on a variant's parameters
    label = register("test-trap-param", lambda seq_len=2048: seq_len / 1000, variants={"seq_len": (4096,)},
                     traps=lambda seq_len: [(seq_len / 1024, "dividing by 1,024")], rel_tol=0.001, close_factor=5)
    result = registry.check(label, 4096 / 1024, student="s1")
    assert result.verdict == "wrong" and "dividing by 1,024" in result.message


@pytest.mark.parametrize("value", [np.float32(12.19), np.float64(12.19), np.array(12.19), Fraction(1219, 100),
                                   np.float16(12.19)])
def test_any_real_number_type_is_accepted(sample_exercise, value):
    assert registry.check(sample_exercise, value), type(value)


def test_integer_types_are_accepted(register):
    label = register("test-int", lambda: 2049.0, rel_tol=1e-6)
    for value in (2049, np.int64(2049), np.int32(2049), np.uint16(2049)):
        assert registry.check(label, value), type(value)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), np.float32("nan"), -np.inf, "12", "abc", None, True,
                                 np.bool_(True), [12.19], np.array([12.19]), 1 + 2j])
def test_bad_values_get_a_one_line_verdict_not_a_traceback(sample_exercise, bad):
    """In a notebook a bad value must not raise: `check` returns a verdict naming it and what is allowed."""
    result = registry.check(sample_exercise, bad)
    assert not result and result.verdict == "invalid"
    assert result.message.startswith(f"{sample_exercise}: not a number: {bad!r}"[:40]) or repr(bad)[:20] in result.message
    assert "give one finite real number, e.g. 12.5" in result.message and "\n" not in result.message


def test_bad_label(sample_exercise):
    with pytest.raises(LedgerError, match="'no-such-label' is unknown") as err:
        registry.check("no-such-label", 1.0)
    assert "\n" not in str(err.value) and len(str(err.value)) < 200
    with pytest.raises(LedgerError, match="did you mean test-sample"):
        registry.check("test-sampel", 1.0)
    with pytest.raises(LedgerError, match="registered twice"):
        registry.numeric(sample_exercise, lambda: 1.0)


def test_percent_given_as_a_fraction_and_the_reverse(register, sample_exercise):
    result = registry.check(sample_exercise, 0.1219)
    assert result.verdict == "wrong" and "fraction where a percent is asked" in result.message
    ratio = register("test-ratio", lambda: 0.071, rel_tol=0.005)
    result = registry.check(ratio, 7.1)
    assert result.verdict == "wrong" and "percent where a plain ratio is asked" in result.message
    for value, verdict in ((0.1219, "wrong"), (7.1, "wrong")):
        assert "12.19" not in registry.check(sample_exercise, value).message  # the slip, not the answer


@pytest.mark.parametrize("factor", [1e3, 1e6, 1e9, 1e12, 1e-3, 1e-6, 1e-9, 1e-12])
def test_power_of_ten_slips(register, factor):
    label = register("test-bytes", lambda: 2.5e12, rel_tol=0.002, unit="bytes")
    result = registry.check(label, 2.5e12 * factor)
    assert result.verdict == "wrong" and f"factor of {factor:.0e}" in result.message and "unit-prefix" in result.message
    assert "bytes" in result.message


def test_sign_slip(register, sample_exercise):
    label = register("test-gap", lambda: -3.4, rel_tol=0.005, unit="percentage points")
    result = registry.check(label, 3.4)
    assert result.verdict == "wrong" and "wrong sign" in result.message
    both = registry.check(label, 340.0).message
    assert "factor of 100" in both and "sign is wrong" in both


def test_an_unrelated_wrong_value_names_no_slip(sample_exercise):
    result = registry.check(sample_exercise, 37.0)
    assert result.verdict == "wrong" and "factor" not in result.message and "sign" not in result.message


def test_explained_returns_no_number():
    registry.explained("test-why", rubric="names both passes")
    try:
        assert instructor.answer("test-why") is None
        result = registry.check("test-why", 1.0)
        assert not result and result.verdict == "explanation"
        assert registry.REGISTRY["test-why"].rubric == "names both passes"
    finally:
        del registry.REGISTRY["test-why"]


def test_an_answer_is_computed_once_per_row(register):
    """A class draws only an exercise's few rows: `check` and the key reuse each row's answer."""
    calls = []

    def counted(seq_len=2048):
        calls.append(seq_len)
        return seq_len / 1000

    label = register("test-counted", counted, rel_tol=0.001, variants={"seq_len": (4096, 8192)})
    students = [f"s{k:03d}" for k in range(40)]
    for student in students:
        assert registry.check(label, instructor.answer(label, student), student=student).verdict == "right"
    assert sorted(set(calls)) == sorted({registry.parameters(label, s)["seq_len"] for s in students} | {2048}) \
        or sorted(set(calls)) == sorted({registry.parameters(label, s)["seq_len"] for s in students})
    assert len(calls) == len(set(calls)), f"an answer was computed again for the same row: {calls}"
