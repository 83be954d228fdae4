"""The course plans, as data: which chapters each session teaches, its exercises and its timings.

A plan is a list of sessions. A session teaches the *core sections* of its `chapters` in class (the
sections a chapter does not mark optional), gives its `reading` (chapters, or their optional sections,
read at home before the next session), works one exercise in class on paper (`in_class`, an exercise
label), and sets `homework` (exercise labels: each exercise's numeric parts) and one `explanation`
(a label with a rubric). The course guide prints these tables (book/_tools/study_time.py writes
them), and tests/test_course_guide.py fails when a session's chapters' core minutes, by the
study-time model, and its fixed slots overrun its length.

This module computes nothing about the step and draws no variant: it is a timetable.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import LedgerError

IN_CLASS_MINUTES = 15
"""The in-class exercise: derived by hand on paper (about the model's ten minutes an exercise), handed
in, then checked with `check`."""
OPENING_MINUTES = 10
"""The first session's opening: the plan, the grading, each student's identifier and the install
check (notebooks/install_check.ipynb)."""
REVIEW_MINUTES = 5
"""Every later session's opening: the common slips of the last homework."""
IN_CLASS_ONLY = {
    "sixn-causal": "one call of ledger.step_row with the statement's model and causal_attention=True",
    "passes-mask-count": "one call of ledger.mask_budget over the step's items at the statement's length",
    "masks-more-gpus": "one call of ledger.step_row with the statement's GPUs",
}
"""Graded exercises that one library call answers: they are graded only in class, derived on paper
without the library and handed in before the check, never set as homework (tests/test_course_guide.py)."""


@dataclass(frozen=True)
class Session:
    title: str
    chapters: tuple[str, ...]
    in_class: str
    homework: tuple[str, ...]
    explanation: str
    reading: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    title: str
    minutes: int
    """Length of each session, in minutes."""
    audience: str
    sessions: tuple[Session, ...]
    before: tuple[str, ...] = ()
    """Chapters read before the first session (with the install check)."""
    out_of_order: tuple[tuple[str, str, str], ...] = ()
    """(chapter, its Necessary prerequisite, why) pairs the plan teaches out of order on purpose: every
    other Necessary prerequisite is taught or read before its chapter (tests/test_course_guide.py)."""

    def opening(self, number: int) -> int:
        """Minutes before the chapters of session `number` (1-based)."""
        return OPENING_MINUTES if number == 1 else REVIEW_MINUTES


PLANS: dict[str, Plan] = {
    "5x90": Plan(
        "Five sessions of 90 minutes", 90,
        "a course on the whole book, in book order",
        (
            Session("What a training step costs", ("00_introduction", "01_six_n_rule"), "sixn-causal",
                    ("sixn-long-context", "sixn-recompute", "corr-long-channel"), "corr-conj-reversal",
                    reading=("02_correlation",)),
            Session("Three passes and block-circulant weights", ("03_three_passes", "04_block_circulant"),
                    "passes-mask-count",
                    ("passes-hybrid", "circ-dx-derivation", "amdahl-block-size", "amdahl-finite-speedup"),
                    "amdahl-block-size-why", reading=("05_amdahl_table",)),
            Session("Masks, order and what stays digital", ("06_masks", "07_layer_major"), "masks-more-gpus",
                    ("masks-step-size", "layer-major-engines", "layer-major-fp32", "not-map-lm-head",
                     "explorer-long-hyena"),
                    "masks-step-size-why", reading=("08_what_does_not_map", "09_explorer_in_jupyter")),
            Session("The assumptions, FLOPs per token", ("10_assumptions", "11_flops_per_token"), "fpt-causal",
                    ("fpt-flash", "ai-ridge-bw", "ai-decode-mlp"), "fpt-small-why",
                    reading=("12_arithmetic_intensity",)),
            Session("From FLOPs to time", ("13_compute_and_time", "14_any_model"), "ct-mfu",
                    ("ct-selective-long", "am-long", "rc-ckpt", "ms-twenty"), "ms-break-even-why",
                    reading=("15_reconciliation", "16_measured")),
        )),
    "4x60": Plan(
        "Four sessions of 60 minutes", 60,
        "a short course on the main line: one chapter taught per session, its neighbours read at home",
        (
            Session("The 6N rule", ("01_six_n_rule",), "sixn-causal",
                    ("sixn-long-context", "sixn-recompute", "corr-long-channel", "circ-dx-derivation"),
                    "corr-conj-reversal", reading=("02_correlation", "03_three_passes", "04_block_circulant")),
            Session("The training-step Amdahl table", ("05_amdahl_table",), "amdahl-finite-speedup",
                    ("amdahl-block-size",), "amdahl-block-size-why"),
            Session("Masks rewritten every step", ("06_masks",), "masks-more-gpus",
                    ("masks-step-size", "layer-major-engines", "not-map-lm-head"), "masks-step-size-why",
                    reading=("07_layer_major", "08_what_does_not_map", "10_assumptions")),
            Session("FLOPs per token, then time", ("11_flops_per_token",), "fpt-causal",
                    ("fpt-flash", "ct-mfu", "ct-selective-long"), "fpt-small-why",
                    reading=("12_arithmetic_intensity", "13_compute_and_time", "16_measured")),
        ), before=("00_introduction",)),
    "ml-systems": Plan(
        "Part 2 first: an ML-systems module, five sessions of 90 minutes", 90,
        "a machine-learning-systems module: GPU accounting first (part 2), then the transform engine of "
        "part 1 as a case study",
        (
            Session("FLOPs per token, any model", ("11_flops_per_token", "14_any_model"), "fpt-causal",
                    ("fpt-flash", "am-long"), "fpt-small-why"),
            Session("The roofline and other tools' counts", ("12_arithmetic_intensity", "15_reconciliation"),
                    "ai-ridge-bw", ("ai-decode-mlp", "rc-ckpt"), "rc-swiglu-why"),
            Session("Compute and time of a run", ("13_compute_and_time",), "ct-mfu",
                    ("ct-selective-long", "ct-card31"), "ct-selective-long-why"),
            Session("FLOPs are not seconds; a transform engine", ("16_measured", "00_introduction"), "ms-twenty",
                    ("ms-break-even", "corr-long-channel"), "ms-break-even-why",
                    reading=("02_correlation",)),
            Session("The transform engine's training step", ("03_three_passes", "04_block_circulant"),
                    "passes-mask-count", ("amdahl-block-size", "amdahl-finite-speedup", "masks-step-size"),
                    "amdahl-block-size-why",
                    reading=("05_amdahl_table", "06_masks", "07_layer_major", "08_what_does_not_map",
                             "09_explorer_in_jupyter", "10_assumptions")),
        ), before=("00_introduction", "01_six_n_rule"),
        out_of_order=(
            ("14_any_model", "05_amdahl_table", "part 2 first: its optical columns are a forward reference to "
                                                "the Amdahl table, met in session 5"),
            ("16_measured", "05_amdahl_table", "part 2 first: its time shares are a forward reference to the "
                                               "Amdahl table, met in session 5"),
        )),
}
"""The course plans by name. "5x90" is the book's main plan; the assessment plan's table is its
exercises."""


def plan(name: str) -> Plan:
    """The plan called `name`; a LedgerError naming the plans there are for any other name."""
    if name not in PLANS:
        raise LedgerError(f"course plan {name!r}: not a plan; the plans are {', '.join(sorted(PLANS))}")
    return PLANS[name]


def first_in_class() -> dict[str, str]:
    """{plan name: the in-class exercise of its first session}: what the install check shows."""
    return {name: p.sessions[0].in_class for name, p in PLANS.items()}
