"""Part 1's exercises that lean on the library beyond one step_row: chapter 10's half-gain exercise
asks about the joint view's best combination, not chapter 5's defaults again."""
import pytest

from ledger import assumptions
from ledger.exercises import check
from ledger.exercises.instructor import answer


def _best_rows():
    best = assumptions.joint_view(4096).get("hyena2_circulant", "amdahl").high_combination
    return [assumptions.by_name(name) for name in best]


def test_half_gain_speedup_gives_half_the_best_combinations_gain():
    rows, s = _best_rows(), answer("assumptions-half-gain")
    infinite = assumptions.figures_with(rows, variant="hyena2_circulant", seq_len=4096)["amdahl"]
    at_s = assumptions.figures_with(rows, variant="hyena2_circulant", seq_len=4096, optical_speedup=s)["amdahl"]
    assert at_s - 1 == pytest.approx((infinite - 1) / 2, rel=1e-9)


def test_half_gain_is_not_chapter_5s_question_again():
    """The defaults' half-gain speed-up (chapter 5's) is refused as a trap, and the best combination asks
    for a faster engine than the defaults do."""
    from ledger import step_row
    default = 1 + step_row(variant="hyena2_circulant", seq_len=4096).amdahl
    assert answer("assumptions-half-gain") > default + 1
    assert not check("assumptions-half-gain", default)


@pytest.mark.parametrize("student", [None, "s001", "s002"])
def test_share_of_the_gain_at_s_is_below_the_defaults(student):
    """A larger share asks more of the engine: at the same s the best combination earns a smaller part
    of its own gain than the defaults earn of theirs."""
    from ledger import step_row
    from ledger.exercises.registry import parameters
    s = parameters("assumptions-half-gain-at-s", student)["speedup"]
    at = step_row(variant="hyena2_circulant", seq_len=4096, optical_speedup=s).amdahl
    default_share = 100 * (at - 1) / (step_row(variant="hyena2_circulant", seq_len=4096).amdahl - 1)
    assert 0 < answer("assumptions-half-gain-at-s", student) < default_share
