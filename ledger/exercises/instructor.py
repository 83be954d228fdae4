"""For the teacher: the ledger's answers, per student, the scores the autograder gives, and the key.

`answer(label, student=None, salt=None)` is the ledger's answer to an exercise for a student's
variant (None: the book's parameters), drawn with the course's salt. `score(label, value, student)`
is what a graded part earns (1 right, 0.5 close, 0 otherwise) with the slip `check` would name;
book/_tools/grade.py (`make grade`) calls it from nbgrader's hidden tests. `key_rows(students)`
lists every student's answers, and `python -m ledger exercises key --students FILE --out KEY.csv
[--salt SECRET]` writes them as CSV: one row per label and student with the parameters, the answer,
the tolerance, the close band, the unit and, for an explanation, the marking rubric (with the
parameters of the same student's numeric parts). `exercises slips` writes the parameters only, for
paper slips. FILE holds one student identifier a line (blank lines and # lines are skipped).

The student folder's library has neither this module nor any answer of a graded label. The
repository is public, though: with the chapters' library and a student's parameters, anyone can
compute a graded number, and with the student folder's library a few lines do. Numeric homework grades
setting the computation up; the derivations rest on the in-class sheets, worked without the library and
handed in before checking, and on the explanations."""
from __future__ import annotations

import argparse
import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import LedgerError
from . import LABELS
from .registry import (REGISTRY, SLIPS, _describe, answer_at, exercise, judge, label_lines, normalise_student,
                       parameters, parts, precision_phrase)

KEY_COLUMNS = ("label", "student", "parameters", "answer", "tolerance", "close_within", "unit", "precision",
               "graded", "max_points", "rubric")
SLIP_COLUMNS = ("label", "student", "parameters")
COLUMNS_HELP = ("columns: label, student, parameters, answer, tolerance (the relative error `check` calls right), "
                "close_within (the relative error up to which it says close: tolerance x the label's close factor), "
                "unit, precision (in words), graded (yes/no), max_points, rubric (explanations)")
CLOSE_CREDIT = 0.5
"""The fraction of a graded numeric part's points a close answer earns."""


def answer(label: str, student=None, salt=None) -> float | None:
    """The ledger's answer to exercise `label` for `student`'s variant (None: the book's
    parameters), drawn with `salt` (None: the course's); None when the answer is an explanation."""
    ex = exercise(label)
    if not ex.asks_number:
        return None
    return answer_at(ex, parameters(label, student, salt))


@dataclass(frozen=True)
class Score:
    """What one answer to a graded numeric part earns: `fraction` of its points (1 right, 0.5 close,
    0 otherwise), the verdict, and the slip's code (one of SLIPS) when it is a usual slip."""

    fraction: float
    verdict: str
    slip: str | None


def score(label: str, value, student, salt=None) -> Score:
    """Score `value` for `student`'s variant of numeric label `label` (with `salt`, None: the
    course's), as nbgrader's hidden test does; the slip is the one `check` names on a practice label."""
    ex = exercise(label)
    if not ex.asks_number:
        raise LedgerError(f"exercise {label!r} is an explanation: it is graded by hand with its rubric, not scored")
    params = parameters(label, student, salt)
    judgement = judge(label, value, params, None if value is None else answer_at(ex, params))
    fraction = {"right": 1.0, "close": CLOSE_CREDIT}.get(judgement.verdict, 0.0)
    assert judgement.slip is None or judgement.slip in SLIPS
    return Score(fraction, judgement.verdict, judgement.slip)


def graded_labels() -> list[str]:
    """Every label that counts towards a grade, sorted."""
    return sorted(label for label, ex in REGISTRY.items() if ex.graded)


def max_points(label: str) -> float:
    """The points of `label`: 1 for a numeric part, its rubric's points for an explanation."""
    ex = exercise(label)
    if ex.asks_number:
        return 1.0
    return float(getattr(ex.rubric, "max_points", 1.0))


def read_students(path: Path) -> list[str]:
    """The student identifiers of `path`, one a line, normalised; a LedgerError naming the file and
    line of an unreadable file, a bad identifier, a repeated one, or an empty list."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise LedgerError(f"cannot read the student list {str(path)!r}: {getattr(err, 'strerror', None) or err}") from None
    students, seen = [], {}
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            student = normalise_student(text)
        except LedgerError as err:
            raise LedgerError(f"{path}, line {number}: {err}") from None
        if student in seen:
            raise LedgerError(f"{path}, line {number}: student {student!r} repeats line {seen[student]}")
        seen[student] = number
        students.append(student)
    if not students:
        raise LedgerError(f"{path}: no student identifier (one a line is needed)")
    return students


def _format_parameters(params: dict) -> str:
    """The parameters as the student's statement prints them ('memory bandwidth = 9 TB/s'), for a paper slip."""
    return _describe(params, "; ")


def _student_parameters(label: str, student, salt) -> str:
    """`label`'s parameters for `student`, as a slip prints them; for an explanation, those of each of
    the same exercise's numeric parts that vary ('part: ...'), since it argues about the student's own numbers."""
    if exercise(label).asks_number:
        return _format_parameters(parameters(label, student, salt))
    return " | ".join(f"{part}: {_format_parameters(parameters(part, student, salt))}" for part in parts(label)
                      if REGISTRY[part].asks_number and REGISTRY[part].variants)


def key_rows(students: Iterable[str], labels: Sequence[str] = LABELS, salt=None) -> list[dict]:
    """One row per label and student: label, student, parameters, answer, tolerance, close band
    (close_within: the relative error `check` still calls close), unit, precision, graded, points and
    rubric (the columns of KEY_COLUMNS), with the variants drawn with `salt` (None: the course's)."""
    rows = []
    for label in labels:
        ex = REGISTRY[label]
        for student in students:
            value = answer(label, student, salt)
            rows.append({"label": label, "student": normalise_student(student),
                         "parameters": _student_parameters(label, student, salt),
                         "answer": "" if value is None else repr(value),
                         "tolerance": "" if value is None else repr(ex.rel_tol),
                         "close_within": "" if value is None else repr(ex.close_factor * ex.rel_tol),
                         "unit": ex.unit, "precision": "" if value is None else precision_phrase(label),
                         "graded": "yes" if ex.graded else "no", "max_points": f"{max_points(label):g}",
                         "rubric": str(ex.rubric)})
    return rows


def _write_csv(rows: list[dict], columns: Sequence[str], out: Path, what: str) -> int:
    try:
        with Path(out).open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(columns), extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
    except OSError as err:
        raise LedgerError(f"cannot write the {what} to {str(out)!r}: {err.strerror}") from None
    return len(rows)


def write_key(students: Iterable[str], out: Path, labels: Sequence[str] = LABELS, salt=None) -> int:
    """Write the answer key CSV to `out`; returns the number of rows."""
    return _write_csv(key_rows(list(students), labels, salt), KEY_COLUMNS, out, "key")


def write_slips(students: Iterable[str], out: Path, labels: Sequence[str], salt=None) -> int:
    """Write each student's parameters for `labels` (no answer), one row per label and student, for
    paper slips; returns the number of rows."""
    return _write_csv(key_rows(list(students), labels, salt), SLIP_COLUMNS, out, "slips")


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str]) -> int:
    """`python -m ledger exercises key|slips --students FILE --out CSV [--salt S] [--label L ...]`,
    and `python -m ledger exercises list [--json]`."""
    parser = _OneLineParser(prog="python -m ledger exercises",
                            description="The exercises' answer key and slips for a class (for the teacher).")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)
    key = commands.add_parser("key", help="write every student's answers as CSV", description=COLUMNS_HELP)
    slips = commands.add_parser("slips", help="write every student's parameters (no answers) as CSV, for slips",
                                description="columns: " + ", ".join(SLIP_COLUMNS))
    for command in (key, slips):
        command.add_argument("--students", type=Path, required=True, help="a file of student identifiers, one a line")
        command.add_argument("--out", type=Path, required=True, help="the CSV file to write")
        command.add_argument("--label", action="append", help="only this exercise (repeatable; default: all)")
        command.add_argument("--salt", help="the course's secret salt for the variants' draw (default: "
                                            "TX_COURSE_SALT, else course-salt.txt, else none)")
    listing = commands.add_parser("list", help="every label with its unit, precision, parameters and status")
    listing.add_argument("--json", action="store_true", help="as one JSON list of records")
    args = parser.parse_args(list(argv))
    try:
        if args.command == "list":
            print("\n".join(label_lines(as_json=args.json)))
            return 0
        labels = tuple(args.label or LABELS)
        unknown = [label for label in labels if label not in REGISTRY]
        if unknown:
            raise LedgerError(f"unknown exercise label {unknown[0]!r} (see `python -m ledger exercises list`)")
        students = read_students(args.students)
        write = write_key if args.command == "key" else write_slips
        rows = write(students, args.out, labels, args.salt)
    except LedgerError as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    print(f"wrote {rows} rows ({len(students)} students x {len(labels)} labels) to {args.out}")
    return 0
