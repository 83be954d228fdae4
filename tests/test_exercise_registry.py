"""The self-checking exercise machinery: right, close and wrong verdicts; bad labels and values."""
import pytest

from ledger import LedgerError
from ledger.exercises import registry


@pytest.fixture
def sample_exercise():
    registry.numeric("test-sample", lambda: 12.19, rel_tol=0.001, hint="count both passes", unit="%")
    yield "test-sample"
    del registry.REGISTRY["test-sample"]


def test_right_close_wrong(sample_exercise):
    assert registry.check(sample_exercise, 12.19)
    assert registry.check(sample_exercise, 12.19 * 1.0009)
    close = registry.check(sample_exercise, 12.19 * 1.01)
    assert not close and close.verdict == "close" and "count both passes" in close.message
    wrong = registry.check(sample_exercise, 24.38)
    assert not wrong and wrong.verdict == "wrong"


def test_explained_returns_no_number():
    registry.explained("test-why")
    try:
        assert registry.answer("test-why") is None
        result = registry.check("test-why", 1.0)
        assert not result and result.verdict == "explanation"
    finally:
        del registry.REGISTRY["test-why"]


def test_bad_label_and_value(sample_exercise):
    with pytest.raises(LedgerError, match="'no-such-label' is unknown"):
        registry.check("no-such-label", 1.0)
    for bad in (float("nan"), "12", None, True):
        with pytest.raises(LedgerError, match="must be a finite number"):
            registry.check(sample_exercise, bad)
    with pytest.raises(LedgerError, match="registered twice"):
        registry.numeric(sample_exercise, lambda: 1.0)
