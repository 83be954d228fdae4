"""The exercise registry: each book exercise's label, how its answer is computed from the ledger
(for the book's parameters or for one student's variant), how close a student's value must be, and
the feedback `check` gives for the usual slips.

Per-student variants. An exercise may name `variants`: for each parameter of its answer function,
the values a student may be given instead of the book's (the book's own value is the function's
keyword default and is never among them, so the main book's printed solutions answer no student's
variant). The lists are read as rows: every parameter of a label lists the same number of values,
and variant k takes the k-th value of each. The parts of one exercise (its labels: the exercise's
own label and the labels that extend it, `sixn-long-context` and `sixn-long-context-short`) are
drawn together: one draw per exercise and student picks the index k that every part uses, so the
parts of a student's exercise go together (the short length with its long one), and every part
with variants lists the same number of them. The draw: the identifier is normalised (surrounding
spaces removed, lower case), and the SHA-256 digest of ``"<salt>:<exercise>:<identifier>"`` (or of
``"<exercise>:<identifier>"`` without a course salt), read as a big-endian integer, modulo the number
of variants, is k. The same identifier and salt always get the same variant, on any machine and any
Python version; another course's salt gives other draws, so a key written for one course (or
computed from the public library without the salt) answers no student of another.

Graded labels (`graded=True`) count towards a course grade: `check` gives no distance and no slip on
them, and the student folder's library holds no answer for them (`catalogue`: it carries the
labels' metadata, and the answers of the practice labels' rows only). A numeric label that one
library call with the statement's parameters answers is `formative` (the reason is stored) and is
never graded.
"""
from __future__ import annotations

import difflib
import functools
import hashlib
import inspect
import json
import math
import numbers
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import LedgerError
from ..shapes import LLAMA3_8B, ModelShape

MAX_CLOSE_FACTOR = 5.0
"""The "close" band is at most this many times the tolerance: a close answer is nearly right."""

STUDENT_ID = re.compile(r"^[a-z0-9][a-z0-9._@+-]{0,63}$")
"""What a student identifier may be, once normalised: 1-64 letters, digits and . _ @ + -."""

# Slips `check` recognises: the value is the answer times one of these factors (to the tolerance).
PERCENT_FACTORS = (100.0, 0.01)
SCALE_FACTORS = (1e3, 1e6, 1e9, 1e12, 1e-3, 1e-6, 1e-9, 1e-12)
PERCENT_UNITS = ("%", "percentage points")
EXACT_TOL = 1e-6
"""Below this tolerance an answer is asked exactly (a whole count): `check` says how far off it is."""
EXACT_CLOSE = 0.01
"""An exact count within this relative error is called close (the count is still asked exactly)."""
RATIO_UNITS = ("", "x")
"""Units of an answer that is a plain ratio (a share, a factor), where a percent is the usual slip."""
SPEEDUP_UNITS = ("x",)
"""Units of a speed-up s, where the gain s - 1 (or the reverse) is a usual slip."""
SLIPS = ("percent-fraction", "power-of-ten", "sign", "book-parameters", "trap", "precision",
         "points-vs-relative", "gain-vs-speedup", "factor-2")
"""The slips `check` names (and `instructor.score` counts), each by a short code."""
SALT_ENV = "TX_COURSE_SALT"
SALT_FILE = "course-salt.txt"
"""The course's salt: the environment variable, else this file at the library's root (the student
folder's top directory, where the teacher puts it)."""
CATALOGUE_FILE = "catalogue.json"
"""The student folder's exercise catalogue, beside registry.py, written by `write_catalogue`."""


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
    rubric: object = ""
    graded: bool = False
    formative: str = ""
    kind: str = "number"
    book: Mapping | None = None
    slips: Callable[..., Iterable] | None = None

    @property
    def book_parameters(self) -> dict:
        """The parameters the book's statement uses: the answer function's keyword defaults (or, in
        the student folder's catalogue, the stored ones)."""
        if self.book is not None:
            return dict(self.book)
        if self.answer is None:
            return {}
        signature = inspect.signature(self.answer)
        return {name: signature.parameters[name].default for name in self.variants}

    @property
    def asks_number(self) -> bool:
        """True when the answer is a number (an explanation's is not), in either library."""
        return self.kind == "number"


REGISTRY: dict[str, Exercise] = {}


def _refuse_twice(label: str) -> None:
    if label in REGISTRY:
        raise LedgerError(f"exercise {label!r} is registered twice")


def numeric(label: str, answer: Callable[..., float], *, rel_tol: float = 0.005, close_factor: float = 4.0,
            hint: str = "", unit: str = "", variants: Mapping[str, Iterable] | None = None,
            traps: Callable[..., Iterable] | Iterable = (), fmt: str = "", graded: bool = False,
            formative: str = "", slips: Callable[..., Iterable] | None = None) -> None:
    """Register an exercise whose answer is one number computed by `answer(**parameters)` from the
    ledger. Each name in `variants` must be a keyword parameter of `answer` whose default is the
    book's value; its listed values are what students may draw (row k of every parameter together),
    as many for every parameter, never the book's value, and no row twice. `graded` marks a part
    that counts towards a grade; `formative` says why a part is not graded (one library call answers
    it) and excludes `graded`. `slips(**parameters)` lists (value, code, message) for wrong values a
    usual slip gives (code one of SLIPS, e.g. 'points-vs-relative')."""
    _refuse_twice(label)
    if graded and formative:
        raise LedgerError(f"exercise {label!r}: a formative part ({formative!r}) cannot be graded")
    if not (rel_tol > 0 and 1 <= close_factor <= MAX_CLOSE_FACTOR):
        raise LedgerError(f"exercise {label!r}: rel_tol must be > 0 and close_factor from 1 to {MAX_CLOSE_FACTOR:g}")
    variants = {name: tuple(values) for name, values in (variants or {}).items()}
    parameters = inspect.signature(answer).parameters
    for name, values in variants.items():
        if name not in parameters or parameters[name].default is inspect.Parameter.empty:
            raise LedgerError(f"exercise {label!r}: variant {name!r} is not a keyword parameter of its answer "
                              f"with the book's value as default")
        if not values or parameters[name].default in values:
            raise LedgerError(f"exercise {label!r}: variant {name!r} needs values other than the "
                              f"book's {parameters[name].default!r}")
    if len({len(values) for values in variants.values()}) > 1:
        raise LedgerError(f"exercise {label!r}: its variants are rows, so every parameter lists as many values "
                          f"({', '.join(f'{n}: {len(v)}' for n, v in variants.items())})")
    rows = list(zip(*variants.values()))
    if len(set(rows)) != len(rows):
        raise LedgerError(f"exercise {label!r}: its variants repeat a row ({', '.join(variants)}): each must differ")
    if not callable(traps):
        traps = tuple(t if isinstance(t, tuple) else (t, "") for t in traps)
    REGISTRY[label] = Exercise(label, answer, rel_tol, close_factor, hint, unit, variants, traps, fmt,
                               graded=graded, formative=formative, slips=slips)


def _teacher_rubrics() -> dict:
    """The rubrics of the teacher's edition (`rubrics.RUBRICS`), {} where the module is left out (the
    student folder's library)."""
    try:
        from .rubrics import RUBRICS
    except ModuleNotFoundError as err:
        if err.name != f"{__package__}.rubrics":
            raise
        return {}
    return RUBRICS


def explained(label: str, hint: str = "", rubric: str = "", graded: bool = False) -> None:
    """Register an exercise whose answer is an explanation, not a number; its rubric (how to mark it)
    is `rubric` or else the teacher's edition's (`rubrics.RUBRICS`; '' in the student folder).
    `graded` marks one that counts towards a grade."""
    _refuse_twice(label)
    REGISTRY[label] = Exercise(label, None, hint=hint, rubric=rubric or _teacher_rubrics().get(label, ""),
                               graded=graded, kind="explanation")


PARTS_OF: dict[str, tuple[str, ...]] = {}
"""Exercises whose own label asks for no number, by label: the labels of their parts (chapter 15's
rc-savanna-shape is answered as rc-savanna-vocab and rc-savanna-why)."""


def exercise_parts(label: str, *part_labels: str) -> None:
    """Name the parts of an exercise whose own label is not registered, so that `check(label, ...)`
    answers with its parts' labels instead of calling it unknown."""
    _refuse_twice(label)
    if label in PARTS_OF or not part_labels or any(p not in REGISTRY for p in part_labels):
        raise LedgerError(f"exercise {label!r}: its parts {part_labels!r} must be registered labels, named once")
    PARTS_OF[label] = tuple(part_labels)


def _parts_message(label: str) -> str:
    said = [f"{p} ({'an explanation' if REGISTRY[p].answer is None else 'a number'})" for p in PARTS_OF[label]]
    return f"{label}: answered in parts, each checked by its own label: {', '.join(said)}."


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one answer: truthy when right; `verdict` is 'right', 'close', 'wrong', 'explanation'
    (no number to check), 'parts' (the exercise is checked by its parts' labels) or 'invalid' (the
    value is not one finite real number)."""

    label: str
    verdict: str
    message: str

    def __bool__(self) -> bool:
        return self.verdict == "right"

    def __repr__(self) -> str:
        return self.message

    __str__ = __repr__


def exercise(label: str) -> Exercise:
    """The registered exercise `label`; a one-line LedgerError naming the nearest known labels otherwise."""
    if isinstance(label, str) and label in PARTS_OF:
        raise LedgerError(_parts_message(label))
    if not isinstance(label, str) or label not in REGISTRY:
        near = difflib.get_close_matches(str(label), list(REGISTRY), n=3, cutoff=0.6)
        also = f"did you mean {', '.join(near)}?" if near else "see ledger.exercises.LABELS for the known labels"
        raise LedgerError(f"exercise label {label!r} is unknown; {also}")
    return REGISTRY[label]


def exercise_of(label: str) -> str:
    """The exercise a label belongs to: its shortest registered prefix ending at a hyphen (the label
    itself when none is), so `sixn-long-context-short` belongs to `sixn-long-context`."""
    exercise(label)
    pieces = label.split("-")
    return next("-".join(pieces[:n]) for n in range(1, len(pieces) + 1) if "-".join(pieces[:n]) in REGISTRY)


def parts(label: str) -> list[str]:
    """The registered labels of exercise `label` (its own and those that extend it), in registration order."""
    head = exercise_of(label)
    return [other for other in REGISTRY if exercise_of(other) == head]


def variant_count(label: str) -> int:
    """How many variants label `label` has (0 when students all get the book's parameters)."""
    return len(next(iter(exercise(label).variants.values()), ()))


def variant_rows(label: str) -> list[dict]:
    """Every set of parameters a student may draw for `label`, in the order of the draw's index."""
    ex = exercise(label)
    return [{**ex.book_parameters, **{name: values[k] for name, values in ex.variants.items()}}
            for k in range(variant_count(label))]


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


def course_salt() -> str | None:
    """The course's salt for the variants' draw: the environment variable TX_COURSE_SALT, else the
    first line of course-salt.txt at the library's root (the student folder's top directory), else
    None (the draw without a salt)."""
    text = os.environ.get(SALT_ENV)
    if text is None:
        path = Path(__file__).resolve().parents[2] / SALT_FILE
        text = path.read_text(encoding="utf-8").strip().splitlines()[0] if path.is_file() and path.stat().st_size else None
    return None if text is None else check_salt(text)


UNSALTED = "-"
"""The salt argument that asks for the draw without any salt, whatever the course's is (a salt is never
'-' alone: `check_salt` refuses it), so the grading round can tell a folder made without the salt."""


def check_salt(salt) -> str | None:
    """`salt` as the draw uses it (None: no salt); a LedgerError naming it unless it is a string of
    1-200 printable characters without ':' or surrounding spaces."""
    if salt is None:
        return None
    if (not isinstance(salt, str) or salt == UNSALTED or not 1 <= len(salt) <= 200 or ":" in salt or salt != salt.strip()
            or not salt.isprintable()):
        raise LedgerError(f"course salt {salt!r}: must be 1-200 printable characters, no ':', not '-' alone and no surrounding "
                          f"spaces (set by --salt, {SALT_ENV} or {SALT_FILE})")
    return salt


def draw_index(label: str, student, salt=None) -> int:
    """The row k that `student` draws for `label`'s exercise, with `salt` (None: the course's,
    `course_salt()`); see the module's docstring."""
    salt = None if salt == UNSALTED else check_salt(salt) if salt is not None else course_salt()
    key = f"{exercise_of(label)}:{normalise_student(student)}"
    digest = hashlib.sha256((key if salt is None else f"{salt}:{key}").encode()).digest()
    return int.from_bytes(digest, "big") % variant_count(label)


def parameters(label: str, student=None, salt=None) -> dict:
    """The parameters of exercise `label` for `student` (None: the book's own values), drawn with
    `salt` (None: the course's). See the module's docstring: one index per exercise and student."""
    ex = exercise(label)
    if student is None or not ex.variants:
        if student is not None:
            normalise_student(student)
        return ex.book_parameters
    return variant_rows(label)[draw_index(label, student, salt)]


@functools.lru_cache(maxsize=8192)
def _answer_at(answer, items: tuple) -> float:
    return float(answer(**dict(items)))


def answer_at(ex: Exercise, params: dict) -> float:
    """`ex`'s answer at `params`, computed once per answer function and row: a class of any size draws only the
    few rows each exercise has, so the key, `check` and the tests reuse them (the ledger is pure)."""
    try:
        return _answer_at(ex.answer, tuple(sorted(params.items())))
    except TypeError:  # a parameter value that cannot be a cache key: compute it directly
        return float(ex.answer(**params))


def _as_real(value) -> float | None:
    """`value` as a float when it is a finite real number (int, float, Fraction, a NumPy scalar or
    0-d array); None otherwise (bools, strings, lists, arrays of several values, NaN, infinities)."""
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():
        value = value.item() if hasattr(value, "item") else value  # 0-d array or NumPy scalar -> Python
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _near(value: float, target: float, rel_tol: float) -> bool:
    if target == 0:
        return abs(value) <= rel_tol
    return abs(value - target) <= rel_tol * abs(target)


def _rounded(target: float, figures: int) -> float:
    return float(f"{target:.{figures - 1}e}")


def _slip(ex: Exercise, value: float, target: float, params: dict) -> tuple[str, str] | None:
    """Which usual slip turns `target` into `value`, as (code, what to say) without giving the
    number: the answer's own slips (`Exercise.slips`), too few significant figures, a percent/fraction
    mix-up, a power of ten, a gain for a speed-up, a factor of two, a sign; None when it is none."""
    for slip_value, code, why in (ex.slips(**params) if ex.slips else ()):
        if _near(value, float(slip_value), ex.rel_tol) and not _near(value, target, ex.rel_tol):
            return code, why
    if target == 0 or value == 0:
        return None
    if ex.rel_tol >= EXACT_TOL:
        for figures in range(1, significant_figures(ex.rel_tol)):
            if _near(value, _rounded(target, figures), 1e-9):
                return "precision", (f"it is rounded too far ({figures} significant figure{'s' if figures > 1 else ''}): "
                                     f"the answer is asked {precision_phrase(ex.label)}.")
    in_percent = ex.unit in PERCENT_UNITS
    sign = " and its sign is wrong" if (value < 0) != (target < 0) else ""
    for factor in PERCENT_FACTORS:
        if _near(abs(value), abs(target) * factor, ex.rel_tol):
            if factor < 1 and in_percent:
                return "percent-fraction", f"it looks like a fraction where a percent is asked: give the answer in {ex.unit}{sign}."
            if factor > 1 and not in_percent and ex.unit in RATIO_UNITS:
                return "percent-fraction", f"it looks like a percent where a plain ratio is asked: do not multiply by 100{sign}."
            return "percent-fraction", f"it is off by exactly a factor of 100 (a percent/fraction mix-up?){sign}."
    for factor in SCALE_FACTORS:
        if _near(abs(value), abs(target) * factor, ex.rel_tol):
            unit = f" The answer is asked in {ex.unit}." if ex.unit else ""
            also = " Its sign is wrong too." if sign else ""
            return "power-of-ten", (f"it is off by exactly a factor of {factor:.0e}: a power-of-ten or unit-prefix slip "
                                    f"(k, M, G, T; thousands, millions, billions)?{unit}{also}")
    if ex.unit in SPEEDUP_UNITS:
        for gain, what in ((target - 1, "the gain s - 1 where the speed-up s is asked"),
                           (target + 1, "the speed-up s where the gain s - 1 is asked"),
                           (100 * (target - 1), "the gain s - 1 in percent where the speed-up s is asked")):
            if gain != 0 and _near(value, gain, ex.rel_tol):
                return "gain-vs-speedup", f"it looks like {what}."
    for factor, side in ((2.0, "twice"), (0.5, "half")):
        if _near(value, target * factor, ex.rel_tol):
            return "factor-2", (f"it is exactly {side} the answer: a term counted twice or left out (a halving, "
                                f"forward and backward, a conjugate pair)?")
    if _near(-value, target, ex.rel_tol):
        return "sign", "it has the right size but the wrong sign."
    return None


def _traps(ex: Exercise, params: dict) -> tuple:
    if callable(ex.traps):
        return tuple(t if isinstance(t, tuple) else (t, "") for t in ex.traps(**params))
    return ex.traps


def _count(value) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,g}"


def _scaled(value: float, unit: str) -> str:
    """`value` with a unit prefix: 8e12 B/s -> '8 TB/s', 1.2e6 -> '1.2 million' (unit 'million')."""
    if unit == "million":
        return f"{value / 1e6:g} million"
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:g} {prefix}{unit}"
    return f"{value:g} {unit}"


def model_shape(name: str):
    """The ModelShape of a model an exercise names: Llama-3-8B (the book's) or a shipped
    configuration of data/configs (Llama-3.2-1B, TinyLlama-1.1B, SmolLM-135M)."""
    if name == LLAMA3_8B.name:
        return LLAMA3_8B
    return ModelShape.from_hf_config(Path(__file__).resolve().parents[2] / "data" / "configs" / name / "config.json")


def _model_text(name: str) -> str:
    """A model as a statement prints it, with what a paper derivation needs: its N (the parameters that
    multiply activations, LM head included), layers L and width H."""
    shape = model_shape(name)
    return f"{name} (N = {shape.N:,}, L = {shape.n_layers}, H = {shape.hidden:,})"


# How a statement's parameters are printed for a reader: name -> (words, formatter of the value).
PARAMETER_TEXT: dict[str, tuple[str, Callable]] = {
    "seq_len": ("sequence length S", lambda v: f"{v:,} tokens"),
    "step_tokens": ("optimizer step", lambda v: f"{v:,} tokens"),
    "steps": ("optimizer step", lambda v: f"{v} x 1,048,576 = {v * 1_048_576:,} tokens"),
    "fraction": ("fraction of layers that keep attention", lambda v: f"{v:g}"),
    "block": ("block size b", _count),
    "speedup": ("optical speedup s", lambda v: f"{v:g}x"),
    "frame_factor": ("modulator frame rate", lambda v: f"{v:g} times the idealised modulator's"),
    "values_per_pixel": ("complex values per pixel", _count),
    "gpus": ("GPUs", _count),
    "micro_batch": ("micro-batch m", lambda v: f"{v:,} sequences"),
    "vocab": ("vocabulary", lambda v: f"{v:,} words"),
    "step_seconds": ("step time", lambda v: f"{v:g} s"),
    "gpu_hours": ("GPU-hours", lambda v: _scaled(v, "million")),
    "model": ("model", _model_text),
    "batch": ("batch", lambda v: f"{v:,} tokens"),
    "bandwidth": ("memory bandwidth", lambda v: _scaled(v, "B/s")),
    "factor": ("f (FFTs and elementwise products at 1/f of the matrix rate)", lambda v: f"{v:g}"),
}


def _describe(params: dict, separator: str = ", ") -> str:
    """The parameters as a reader reads them: 'memory bandwidth = 8 TB/s', 'GPU-hours = 1.2 million'
    (statements, `check`'s messages and the teacher's key alike)."""
    shown = []
    for name, value in params.items():
        words, text = PARAMETER_TEXT.get(name, (name, _count if isinstance(value, (int, float)) else str))
        shown.append(f"{words} = {text(value)}")
    return separator.join(shown)


def _readable(x: float) -> str:
    """A positive magnitude for a message, two significant figures and never an exponent: 45, 0.5,
    100, 1,200 (down to 0.0001)."""
    return f"{float(f'{x:.2g}'):,.0f}" if x >= 99.5 else f"{x:.2g}"


def _how_far(number: float, target: float) -> str:
    """How far a wrong value is, readably and without giving the answer: '45% off' within a factor of
    1.5, '2x too high' or '3.2x too low' within ten, 'over 10x too high' beyond; 'of the wrong sign'."""
    if target == 0:
        return f"{_readable(abs(number))} away from the answer"
    ratio = number / target
    if ratio <= 0:
        return "zero" if number == 0 else "of the wrong sign"
    if ratio >= 1.5 or ratio <= 1 / 1.5:
        side, times = ("too high", ratio) if ratio > 1 else ("too low", 1 / ratio)
        return f"{_readable(times)}x {side}" if times < 10 else f"over 10x {side}"
    return f"{_readable(100 * abs(ratio - 1))}% off"


BOOK_VALUES_NOTE = " (Checked against the book's values: set STUDENT_ID for yours.)"
"""What `check` adds when no student is given for a label with variants: the book's answer is then right."""


@dataclass(frozen=True)
class Judgement:
    """A numeric answer judged against a target: verdict ('right', 'close', 'wrong', 'invalid'), the
    slip's code (one of SLIPS, or None) and the helpful message `check` gives on a practice label."""

    verdict: str
    slip: str | None
    message: str


def judge(label: str, value, params: dict, target: float | None) -> Judgement:
    """Judge `value` for `label` at `params` whose answer is `target`: the same verdict for `check`
    and for the teacher's `instructor.score` (which computes `target`)."""
    ex = exercise(label)
    number = _as_real(value)
    if number is None:
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        return Judgement("invalid", None, f"{label}: not a number: {shown} (give one finite real number, "
                                          f"e.g. 12.5; an int, a float or a NumPy scalar)")
    unit = f" {ex.unit}" if ex.unit else ""
    hint = f" Hint: {ex.hint}" if ex.hint else ""
    shown = f"{number:.6g}{unit}"
    for trap, why in _traps(ex, params):
        if _near(number, float(trap), ex.rel_tol) and not _near(number, target, ex.rel_tol):
            return Judgement("wrong", "trap", f"{label}: not right ({shown} is the value the statement warns "
                                              f"about{': ' + why if why else ''}).")
    if _near(number, target, ex.rel_tol):
        return Judgement("right", None, f"{label}: right ({shown}).")
    book_params = ex.book_parameters
    if ex.variants and params != book_params:
        book = answer_at(ex, book_params)
        if _near(number, book, ex.rel_tol):
            return Judgement("wrong", "book-parameters", f"{label}: not right ({shown} is the answer for the book's "
                                                         f"parameters; yours are {_describe(params)}).")
    error = abs(number - target) / abs(target) if target != 0 else abs(number)
    slip = _slip(ex, number, target, params)
    if ex.rel_tol < EXACT_TOL and abs(number - target) < 0.5 * abs(target):
        # an exact count: the direction and a close band only, never the difference (it would give the answer away)
        side = "too high" if number > target else "too low"
        if error <= max(EXACT_CLOSE, ex.close_factor * ex.rel_tol):
            return Judgement("close", None, f"{label}: close but not exact ({side}); the count is asked "
                                            f"exactly.{hint}")
        if slip:
            return Judgement("wrong", slip[0], f"{label}: not right ({shown}): {slip[1]}")
        return Judgement("wrong", None, f"{label}: not exact: {side}; the answer is asked exactly.{hint}")
    if slip and slip[0] == "precision":
        return Judgement("close", "precision", f"{label}: close ({shown}): {slip[1]}")
    if error <= ex.close_factor * ex.rel_tol:
        return Judgement("close", None, f"{label}: close ({shown} is {_readable(100 * error)}% off), "
                                        f"but not within {100 * ex.rel_tol:.2g}%.{hint}")
    if slip:
        return Judgement("wrong", slip[0], f"{label}: not right ({shown}): {slip[1]}")
    return Judgement("wrong", None, f"{label}: not right ({shown} is {_how_far(number, target)}).{hint}")


GRADED_NOTE = ("graded by your teacher: hand in your value (or your explanation); check gives no verdict "
               "on a graded part")


def check(label: str, value, student=None) -> CheckResult:
    """Compare a student's `value` with the ledger's answer to `label` (for `student`'s variant when
    given, with the course's salt, else for the book's parameters, which the message then says).
    A practice label: right, close (with a hint) or wrong (naming a usual slip when it is one); a
    value the statement warns about is never accepted. A graded label: 'graded' in the student
    folder (which has no answer for it); right or not right, nothing more, where the teacher's
    library has its answer. The message never gives the answer or the difference from it."""
    if isinstance(label, str) and label in PARTS_OF:
        return CheckResult(label, "parts", _parts_message(label))
    ex = exercise(label)
    params = parameters(label, student)
    if not ex.asks_number:
        if ex.graded:
            return CheckResult(label, "graded", f"{label}: an explanation, {GRADED_NOTE}.")
        return CheckResult(label, "explanation",
                           f"{label}: the answer is an explanation, not a number; your teacher marks it with "
                           f"the rubric.")
    if ex.graded:
        if _as_real(value) is None:
            return CheckResult(label, "invalid", judge(label, value, params, None).message)
        if ex.answer is None:
            return CheckResult(label, "graded", f"{label}: {GRADED_NOTE}.")
        right = _near(_as_real(value), answer_at(ex, params), ex.rel_tol)
        verdict = "right" if right else "wrong"
        result = CheckResult(label, verdict, f"{label}: {'right' if right else 'not right'} (a graded part: no "
                                             f"further feedback).")
    else:
        target = None if _as_real(value) is None else answer_at(ex, params)
        judgement = judge(label, value, params, target)
        result = CheckResult(label, judgement.verdict, judgement.message)
    if student is None and ex.variants and result.verdict in {"right", "close", "wrong"}:
        return CheckResult(label, result.verdict, result.message + BOOK_VALUES_NOTE)
    return result


def significant_figures(rel_tol: float) -> int:
    """The fewest significant figures whose rounding stays within `rel_tol` of any value
    (0.5 in the last place, relative to a leading digit 1): 3 for 0.5%, 2 for 5%."""
    return max(1, math.ceil(1 + math.log10(0.5 / rel_tol) - 1e-9))


def precision_phrase(label: str) -> str:
    """How precisely the answer is asked for, in words, from its tolerance: 'within 0.5% (3
    significant figures always suffice)', since any value within the tolerance is right and rounding
    to that many figures always lands within it; 'exactly' below a tolerance of one in a million
    (whole counts)."""
    ex = exercise(label)
    if ex.rel_tol < EXACT_TOL:
        return "exactly"
    figures = significant_figures(ex.rel_tol)
    return (f"within {100 * ex.rel_tol:.2g}% ({figures} significant figure{'s' if figures > 1 else ''} "
            f"always suffice{'' if figures > 1 else 's'})")


def label_records() -> list[dict]:
    """One record per registered label, sorted: label, kind ('number' or 'explanation'), unit,
    precision, the parameters its variants draw, how many rows, graded, and why it is formative (''
    when it is not); no answer and no rubric, so the student folder's library gives it too."""
    return [{"label": label, "kind": ex.kind, "unit": ex.unit,
             "precision": precision_phrase(label) if ex.asks_number else "",
             "variants": sorted(ex.variants), "variant_count": variant_count(label),
             "graded": ex.graded, "formative": ex.formative}
            for label, ex in sorted(REGISTRY.items())]


def label_lines(as_json: bool = False) -> list[str]:
    """`python -m ledger exercises list`: one line per label (label, what the answer is, its variants,
    graded or practice), or with `as_json` the records of `label_records` as one JSON document."""
    if as_json:
        return [json.dumps(label_records(), indent=1)]
    lines = []
    for record in label_records():
        kind = "explanation" if record["kind"] == "explanation" else f"{record['unit'] or 'number'}, {record['precision']}"
        status = "graded" if record["graded"] else ("formative" if record["formative"] else "practice")
        lines.append(f"{record['label']}\t{kind}\tvariants: {', '.join(record['variants']) or '-'}\t{status}")
    return lines


def statement_parameters(label: str, student=None) -> dict:
    """What the statement of `label` shows `student` (None: the book's reader): its parameters,
    unit and precision; never the answer."""
    ex = exercise(label)
    return {"parameters": parameters(label, student), "unit": ex.unit,
            "precision": precision_phrase(label) if ex.asks_number else ""}


def show_parameters(label: str, student=None) -> None:
    """Print the parameters of `label` for `student` (None: the book's values), for a statement's
    hidden-input cell: one line per numeric part of the exercise when `label` is an exercise's own
    label, since its parts draw their variants together; with no student, where to find one's own."""
    who = "the book's values" if student is None else f"student {normalise_student(student)}"
    shown = [p for p in parts(label) if REGISTRY[p].asks_number] if exercise_of(label) == label else [label]
    varies = False
    for part in shown:
        if not REGISTRY[part].asks_number:
            continue  # an explanation: nothing to compute, nothing to print
        varies = varies or bool(REGISTRY[part].variants)
        params = _describe(statement_parameters(part, student)["parameters"]) or "the statement's, the same for everyone"
        print(f"{part} ({who}): {params}")
    if varies and student is None:
        print("Your own parameters: set STUDENT_ID in the exercises' first cell and run this cell again, or read "
              "them from the slip your teacher hands out.")


def _jsonable(value):
    return list(value) if isinstance(value, tuple) else value


def catalogue() -> dict:
    """The student folder's exercise catalogue: every label's metadata (kind, unit, tolerance, hint,
    format, variants, the book's parameters, graded, formative), the parts of exercises answered in
    parts, and, for practice labels only, the answer and the warned-about values of every row
    (the book's first, then each variant's). Graded labels carry no answer."""
    labels = {}
    for label, ex in REGISTRY.items():
        entry = {"kind": ex.kind, "rel_tol": ex.rel_tol, "close_factor": ex.close_factor, "hint": ex.hint,
                 "unit": ex.unit, "fmt": ex.fmt, "graded": ex.graded, "formative": ex.formative,
                 "variants": {n: [_jsonable(v) for v in values] for n, values in ex.variants.items()},
                 "book": {n: _jsonable(v) for n, v in ex.book_parameters.items()}}
        if ex.asks_number and not ex.graded:
            rows = [ex.book_parameters] + variant_rows(label)
            entry["answers"] = [answer_at(ex, row) for row in rows]
            entry["traps"] = [[[float(v), why] for v, why in _traps(ex, row)] for row in rows]
            entry["slips"] = [[[float(v), code, why] for v, code, why in (ex.slips(**row) if ex.slips else ())]
                              for row in rows]
        labels[label] = entry
    return {"labels": labels, "parts": {k: list(v) for k, v in PARTS_OF.items()}}


def write_catalogue(path: Path) -> int:
    """Write `catalogue()` as JSON to `path` (for the student folder's library); returns the labels written."""
    data = catalogue()
    Path(path).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return len(data["labels"])


class _RowTable:
    """A practice label's answer in the student folder: looked up by row in the catalogue's table."""

    def __init__(self, rows: list[dict], values: list):
        self.rows, self.values = rows, values

    def __call__(self, **params):
        for row, value in zip(self.rows, self.values):
            if row == params:
                return value
        raise LedgerError(f"parameters {params!r} are not a row of this exercise's catalogue")


def load_catalogue(path: Path) -> int:
    """Register every label of the catalogue at `path` (the student folder's library, which has no
    chapter modules); returns how many."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    for label, e in data["labels"].items():
        _refuse_twice(label)
        variants = {n: tuple(tuple(v) if isinstance(v, list) else v for v in values)
                    for n, values in e["variants"].items()}
        book = {n: tuple(v) if isinstance(v, list) else v for n, v in e["book"].items()}
        rows = [book] + [{**book, **{n: values[k] for n, values in variants.items()}}
                         for k in range(len(next(iter(variants.values()), ())))]
        answer = _RowTable(rows, e["answers"]) if "answers" in e else None
        traps = _RowTable(rows, [[tuple(t) for t in ts] for ts in e["traps"]]) if "traps" in e else ()
        slips = _RowTable(rows, [[tuple(t) for t in ts] for ts in e["slips"]]) if "slips" in e else None
        REGISTRY[label] = Exercise(label, answer, e["rel_tol"], e["close_factor"], e["hint"], e["unit"], variants,
                                   traps, e["fmt"], _teacher_rubrics().get(label, ""), e["graded"], e["formative"],
                                   e["kind"], book, slips)
    PARTS_OF.update({k: tuple(v) for k, v in data["parts"].items()})
    return len(data["labels"])
