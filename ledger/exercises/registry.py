"""The exercise registry: each book exercise's label, how its answer is computed from the ledger,
and how close a student's value must be."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ..errors import LedgerError


@dataclass(frozen=True)
class Exercise:
    """One exercise: `answer` computes the expected number from the ledger (None for an exercise
    whose answer is an explanation); a value within `rel_tol` of it is right, within
    `close_factor * rel_tol` is close, and `hint` says what is usually missed."""

    label: str
    answer: Callable[[], float] | None
    rel_tol: float = 0.005
    close_factor: float = 20.0
    hint: str = ""
    unit: str = ""


REGISTRY: dict[str, Exercise] = {}


def numeric(label: str, answer: Callable[[], float], *, rel_tol: float = 0.005, close_factor: float = 20.0,
            hint: str = "", unit: str = "") -> None:
    """Register an exercise whose answer is one number computed by `answer()` from the ledger."""
    if label in REGISTRY:
        raise LedgerError(f"exercise {label!r} is registered twice")
    if not (rel_tol > 0 and close_factor >= 1):
        raise LedgerError(f"exercise {label!r}: rel_tol must be > 0 and close_factor >= 1")
    REGISTRY[label] = Exercise(label, answer, rel_tol, close_factor, hint, unit)


def explained(label: str, hint: str = "") -> None:
    """Register an exercise whose answer is an explanation, not a number."""
    if label in REGISTRY:
        raise LedgerError(f"exercise {label!r} is registered twice")
    REGISTRY[label] = Exercise(label, None, hint=hint)


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one answer: truthy when right; `verdict` is 'right', 'close' or 'wrong'."""

    label: str
    verdict: str
    message: str

    def __bool__(self) -> bool:
        return self.verdict == "right"

    def __repr__(self) -> str:
        return self.message

    __str__ = __repr__


def _exercise(label: str) -> Exercise:
    if label not in REGISTRY:
        raise LedgerError(f"exercise label {label!r} is unknown; known labels: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[label]


def answer(label: str) -> float | None:
    """The ledger's answer to exercise `label` (None when the answer is an explanation)."""
    exercise = _exercise(label)
    return None if exercise.answer is None else float(exercise.answer())


def check(label: str, value) -> CheckResult:
    """Compare a student's `value` with the ledger's answer to `label`: right, close (with a hint) or wrong."""
    exercise = _exercise(label)
    if exercise.answer is None:
        return CheckResult(label, "explanation",
                           f"{label}: the answer is an explanation, not a number; compare yours with the solution.")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise LedgerError(f"check({label!r}, {value!r}): the value must be a finite number")
    expected = float(exercise.answer())
    unit = f" {exercise.unit}" if exercise.unit else ""
    error = abs(value - expected) / abs(expected) if expected != 0 else abs(value)
    if error <= exercise.rel_tol:
        return CheckResult(label, "right", f"{label}: right ({value:.6g}{unit}).")
    if error <= exercise.close_factor * exercise.rel_tol:
        hint = f" Hint: {exercise.hint}" if exercise.hint else ""
        return CheckResult(label, "close", f"{label}: close ({value:.6g}{unit} is {100 * error:.2g}% off), "
                                           f"but not within {100 * exercise.rel_tol:.2g}%.{hint}")
    hint = f" Hint: {exercise.hint}" if exercise.hint else ""
    return CheckResult(label, "wrong", f"{label}: not right ({value:.6g}{unit} is {100 * error:.2g}% off).{hint}")
