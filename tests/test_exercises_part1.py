"""Part 1's exercises that lean on the library beyond one step_row: chapter 10's half-gain exercise
asks about the joint view's best combination, not chapter 5's defaults again."""
from pathlib import Path

import pytest

from ledger import assumptions
from ledger.exercises import check
from ledger.exercises.instructor import answer

ROOT = Path(__file__).resolve().parents[1]


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


def test_masks_more_gpus_hand_route_from_the_printed_times_is_right_for_every_variant():
    """masks-more-gpus asks the reader to start from the two times chapter 06 prints for Hyena-2 at
    8,192 tokens (the rewrite and the digital step on 64 GPUs, to two decimals): the hand route from
    those rounded figures is right for the book's 1,024 GPUs and every variant. Needs `make book`."""
    import json

    from ledger.exercises import check
    from ledger.exercises.registry import REGISTRY, variant_rows

    printed_file = ROOT / "_build" / "executed" / "notebooks" / "06_masks.eval.json"
    assert printed_file.exists(), "build the book first (make book)"
    printed = json.loads(printed_file.read_text(encoding="utf-8"))
    rewrite = float(printed["f'{glued.h8_wm:.2f}'"]["text"])
    digital_64 = float(printed["f'{glued.h8_dig:.2f}'"]["text"])
    assert printed["f'{glued.gpus:.0f}'"]["text"] == "64"
    for row in [REGISTRY["masks-more-gpus"].book_parameters] + variant_rows("masks-more-gpus"):
        step = digital_64 * 64 / row["gpus"]
        for label, by_hand in (("masks-more-gpus-step", step), ("masks-more-gpus", rewrite / step)):
            expected = REGISTRY[label].answer(**row)
            assert abs(by_hand - expected) <= REGISTRY[label].rel_tol * expected, (label, row, by_hand, expected)
            assert abs(float(f"{by_hand:.3g}") - expected) <= REGISTRY[label].rel_tol * expected, (label, row)
    # the student's own check: right for a student whose draw is that row
    assert check("masks-more-gpus", rewrite / (digital_64 * 64 / 1024)).verdict == "right"
