"""The exercise registry: each book exercise's label, how its answer is computed from the ledger
(for the book's parameters or for one student's variant), how close a student's value must be, and
the feedback `check` gives for the usual slips.

Per-student variants. An exercise may name `variants`: for each parameter of its answer function,
the values a student may be given instead of the book's (the book's own value is the function's
keyword default and is never among them, so the main book's printed solutions answer no student's
variant). A student's values are fixed by their identifier: the identifier is normalised
(surrounding spaces removed, lower case), and the SHA-256 digest of ``"<label>:<identifier>"``,
read as an integer, picks one value per parameter (parameters in alphabetical order; each takes
the digest modulo its number of values, then the digest is divided by that number). The same
identifier always gets the same variant, on any machine and any Python version.
"""
from __future__ import annotations

import hashlib
import inspect
import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from ..errors import LedgerError

MAX_CLOSE_FACTOR = 5.0
"""The "close" band is at most this many times the tolerance: a close answer is nearly right."""

STUDENT_ID = re.compile(r"^[a-z0-9][a-z0-9._@+-]{0,63}$")
"""What a student identifier may be, once normalised: 1-64 letters, digits and . _ @ + -."""

# Slips `check` recognises: the value is the answer times one of these factors (to the tolerance).
PERCENT_FACTORS = (100.0, 0.01)
SCALE_FACTORS = (1e3, 1e6, 1e9, 1e12, 1e-3, 1e-6, 1e-9, 1e-12)
PERCENT_UNITS = ("%", "percentage points")


@dataclass(frozen=True)
class Exercise:
    """One exercise: `answer(**parameters)` computes the expected number from the ledger (None for
    an exercise whose answer is an explanation); a value within `rel_tol` of it is right, within
    `close_factor * rel_tol` close, and `hint` says where to look again. `variants` gives, per
    parameter, the values a student may draw instead of the book's; `traps` lists (value, why)
    pairs a statement warns about, never accepted; `fmt` is how the chapter prints the answer
    (a format spec such as ".2f"); `rubric` marks an explanation."""

    label: str
    answer: Callable[..., float] | None
    rel_tol: float = 0.005
    close_factor: float = 4.0
    hint: str = ""
    unit: str = ""
    variants: Mapping[str, tuple] = field(default_factory=dict)
    traps: Callable[..., Iterable] | tuple = ()
    fmt: str = ""
    rubric: str = ""

    @property
    def book_parameters(self) -> dict:
        """The parameters the book's statement uses: the answer function's keyword defaults."""
        if self.answer is None:
            return {}
        signature = inspect.signature(self.answer)
        return {name: signature.parameters[name].default for name in self.variants}


REGISTRY: dict[str, Exercise] = {}


def _refuse_twice(label: str) -> None:
    if label in REGISTRY:
        raise LedgerError(f"exercise {label!r} is registered twice")


def numeric(label: str, answer: Callable[..., float], *, rel_tol: float = 0.005, close_factor: float = 4.0,
            hint: str = "", unit: str = "", variants: Mapping[str, Iterable] | None = None,
            traps: Callable[..., Iterable] | Iterable = (), fmt: str = "") -> None:
    """Register an exercise whose answer is one number computed by `answer(**parameters)` from the
    ledger. Each name in `variants` must be a keyword parameter of `answer` whose default is the
    book's value; its listed values are what students may draw, and must not include the book's."""
    _refuse_twice(label)
    if not (rel_tol > 0 and 1 <= close_factor <= MAX_CLOSE_FACTOR):
        raise LedgerError(f"exercise {label!r}: rel_tol must be > 0 and close_factor from 1 to {MAX_CLOSE_FACTOR:g}")
    variants = {name: tuple(values) for name, values in (variants or {}).items()}
    parameters = inspect.signature(answer).parameters
    for name, values in variants.items():
        if name not in parameters or parameters[name].default is inspect.Parameter.empty:
            raise LedgerError(f"exercise {label!r}: variant {name!r} is not a keyword parameter of its answer "
                              f"with the book's value as default")
        if not values or parameters[name].default in values or len(set(values)) != len(values):
            raise LedgerError(f"exercise {label!r}: variant {name!r} needs distinct values other than the "
                              f"book's {parameters[name].default!r}")
    if not callable(traps):
        traps = tuple(t if isinstance(t, tuple) else (t, "") for t in traps)
    REGISTRY[label] = Exercise(label, answer, rel_tol, close_factor, hint, unit, variants, traps, fmt)


def explained(label: str, hint: str = "", rubric: str = "") -> None:
    """Register an exercise whose answer is an explanation, not a number; `rubric` says how to mark it."""
    _refuse_twice(label)
    REGISTRY[label] = Exercise(label, None, hint=hint, rubric=rubric)


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one answer: truthy when right; `verdict` is 'right', 'close', 'wrong' or 'explanation'."""

    label: str
    verdict: str
    message: str

    def __bool__(self) -> bool:
        return self.verdict == "right"

    def __repr__(self) -> str:
        return self.message

    __str__ = __repr__


def exercise(label: str) -> Exercise:
    """The registered exercise `label`; a LedgerError naming the known labels otherwise."""
    if not isinstance(label, str) or label not in REGISTRY:
        raise LedgerError(f"exercise label {label!r} is unknown; known labels: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[label]


def normalise_student(student) -> str:
    """A student identifier as the variants use it (spaces around removed, lower case); a
    LedgerError naming it when it is not 1-64 letters, digits and . _ @ + -."""
    if isinstance(student, bool) or not isinstance(student, (str, int)):
        raise LedgerError(f"student identifier {student!r}: must be a string (or a whole number) of 1-64 "
                          f"letters, digits and . _ @ + -")
    text = str(student).strip().lower()
    if not STUDENT_ID.match(text):
        raise LedgerError(f"student identifier {student!r}: must be 1-64 letters, digits and . _ @ + - "
                          f"(starting with a letter or digit)")
    return text


def parameters(label: str, student=None) -> dict:
    """The parameters of exercise `label` for `student` (None: the book's own values). See the
    module's docstring for how an identifier picks them."""
    ex = exercise(label)
    chosen = ex.book_parameters
    if student is None or not ex.variants:
        if student is not None:
            normalise_student(student)
        return chosen
    digest = int.from_bytes(hashlib.sha256(f"{label}:{normalise_student(student)}".encode()).digest(), "big")
    for name in sorted(ex.variants):
        values = ex.variants[name]
        chosen[name] = values[digest % len(values)]
        digest //= len(values)
    return chosen


def expected(label: str, student=None) -> float | None:
    """The ledger's answer to `label` for `student`'s parameters (None for an explanation). For the
    teacher: `ledger.exercises.instructor` re-exports it; a student's notebook uses `check`."""
    ex = exercise(label)
    if ex.answer is None:
        return None
    return float(ex.answer(**parameters(label, student)))


def _as_real(label: str, value) -> float:
    """`value` as a float when it is a finite real number (int, float, Fraction, a NumPy scalar or
    0-d array); a one-line LedgerError otherwise (bools included)."""
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():
        value = value.item() if hasattr(value, "item") else value  # 0-d array or NumPy scalar -> Python
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise LedgerError(f"check({label!r}, {value!r}): the value must be a finite real number "
                          f"(int, float or a NumPy scalar), not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise LedgerError(f"check({label!r}, {value!r}): the value must be a finite real number, not {number}")
    return number


def _near(value: float, target: float, rel_tol: float) -> bool:
    if target == 0:
        return abs(value) <= rel_tol
    return abs(value - target) <= rel_tol * abs(target)


def _slip(ex: Exercise, value: float, target: float) -> str | None:
    """What usual slip turns `target` into `value` (a percent/fraction mix-up, a power of ten, a
    sign), said without giving the number; None when it is none of them."""
    if target == 0 or value == 0:
        return None
    in_percent = ex.unit in PERCENT_UNITS
    sign = " and its sign is wrong" if (value < 0) != (target < 0) else ""
    for factor in PERCENT_FACTORS:
        if _near(abs(value), abs(target) * factor, ex.rel_tol):
            if factor < 1 and in_percent:
                return f"it looks like a fraction where a percent is asked: give the answer in {ex.unit}{sign}."
            if factor > 1 and not in_percent:
                return f"it looks like a percent where a plain ratio is asked: do not multiply by 100{sign}."
            return f"it is off by exactly a factor of 100 (a percent/fraction mix-up?){sign}."
    for factor in SCALE_FACTORS:
        if _near(abs(value), abs(target) * factor, ex.rel_tol):
            unit = f" The answer is asked in {ex.unit}." if ex.unit else ""
            also = " Its sign is wrong too." if sign else ""
            return (f"it is off by exactly a factor of {factor:.0e}: a power-of-ten or unit-prefix slip "
                    f"(k, M, G, T; thousands, millions, billions)?{unit}{also}")
    if _near(-value, target, ex.rel_tol):
        return "it has the right size but the wrong sign."
    return None


def _traps(ex: Exercise, params: dict) -> tuple:
    if callable(ex.traps):
        return tuple(t if isinstance(t, tuple) else (t, "") for t in ex.traps(**params))
    return ex.traps


def _describe(params: dict) -> str:
    return ", ".join(f"{name} = {value:,}" if isinstance(value, int) else f"{name} = {value}"
                     for name, value in params.items())


def check(label: str, value, student=None) -> CheckResult:
    """Compare a student's `value` with the ledger's answer to `label` (for `student`'s variant when
    given, else for the book's parameters): right, close (with a hint) or wrong (naming a usual
    slip when it is one). A value the statement warns about is never accepted."""
    ex = exercise(label)
    params = parameters(label, student)
    if ex.answer is None:
        return CheckResult(label, "explanation",
                           f"{label}: the answer is an explanation, not a number; compare yours with the solution.")
    number = _as_real(label, value)
    target = float(ex.answer(**params))
    unit = f" {ex.unit}" if ex.unit else ""
    hint = f" Hint: {ex.hint}" if ex.hint else ""
    shown = f"{number:.6g}{unit}"
    for trap, why in _traps(ex, params):
        if _near(number, float(trap), ex.rel_tol) and not _near(number, target, ex.rel_tol):
            return CheckResult(label, "wrong", f"{label}: not right ({shown} is the value the statement warns "
                                               f"about{': ' + why if why else ''}).")
    if _near(number, target, ex.rel_tol):
        return CheckResult(label, "right", f"{label}: right ({shown}).")
    if student is not None and ex.variants:
        book = float(ex.answer(**ex.book_parameters))
        if _near(number, book, ex.rel_tol):
            return CheckResult(label, "wrong", f"{label}: not right ({shown} is the answer for the book's "
                                               f"parameters; yours are {_describe(params)}).")
    error = abs(number - target) / abs(target) if target != 0 else abs(number)
    if error <= ex.close_factor * ex.rel_tol:
        return CheckResult(label, "close", f"{label}: close ({shown} is {100 * error:.2g}% off), "
                                           f"but not within {100 * ex.rel_tol:.2g}%.{hint}")
    slip = _slip(ex, number, target)
    if slip:
        return CheckResult(label, "wrong", f"{label}: not right ({shown}): {slip}")
    return CheckResult(label, "wrong", f"{label}: not right ({shown} is {100 * error:.2g}% off).{hint}")


def significant_figures(rel_tol: float) -> int:
    """The fewest significant figures whose rounding stays within `rel_tol` of any value
    (0.5 in the last place, relative to a leading digit 1): 3 for 0.5%, 2 for 5%."""
    return max(1, math.ceil(1 + math.log10(0.5 / rel_tol) - 1e-9))


def precision_phrase(label: str) -> str:
    """How precisely the answer is asked for, in words, from its tolerance:
    'to 3 significant figures (within 0.5%)'; 'exactly' below a tolerance of one in a million."""
    ex = exercise(label)
    if ex.rel_tol < 1e-6:
        return "exactly"
    return f"to {significant_figures(ex.rel_tol)} significant figures (within {100 * ex.rel_tol:.2g}%)"


def statement_parameters(label: str, student=None) -> dict:
    """What the statement of `label` shows `student` (None: the book's reader): its parameters,
    unit and precision; never the answer."""
    ex = exercise(label)
    return {"parameters": parameters(label, student), "unit": ex.unit,
            "precision": "" if ex.answer is None else precision_phrase(label)}


def show_parameters(label: str, student=None) -> None:
    """Print the parameters of `label` for `student` (None: the book's values), for a statement's
    hidden-input cell."""
    shown = statement_parameters(label, student)
    who = "the book's values" if student is None else f"student {normalise_student(student)}"
    params = _describe(shown["parameters"]) or "as stated"
    print(f"{label} ({who}): {params}")
