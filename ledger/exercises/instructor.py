"""For the teacher: the ledger's answers, per student, and the answer key.

`answer(label, student=None)` is the ledger's answer to an exercise for a student's variant (None:
the book's parameters). `key_rows(students)` lists every student's answers, and
`python -m ledger exercises key --students FILE --out KEY.csv` writes them as CSV: one row per
label and student with the parameters, the answer, the tolerance, the close band, the unit and, for an
explanation, the marking rubric. FILE holds one student identifier a line (blank lines and lines
starting with # are skipped).

The library is open: a student who imports this module gets the same numbers. Graded work
therefore rests on each student's own variant (their parameters differ from the book's and from
most classmates') and on the explanations, marked with the rubrics.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import LedgerError
from . import LABELS
from .registry import REGISTRY, _describe, expected, label_lines, normalise_student, parameters, precision_phrase

KEY_COLUMNS = ("label", "student", "parameters", "answer", "tolerance", "close_within", "unit", "precision",
               "rubric")
COLUMNS_HELP = ("columns: label, student, parameters, answer, tolerance (the relative error `check` calls right), "
                "close_within (the relative error up to which it says close: tolerance x the label's close factor), "
                "unit, precision (in words), rubric (explanations)")


def answer(label: str, student=None) -> float | None:
    """The ledger's answer to exercise `label` for `student`'s variant (None: the book's
    parameters); None when the answer is an explanation."""
    return expected(label, student)


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


def key_rows(students: Iterable[str], labels: Sequence[str] = LABELS) -> list[dict]:
    """One row per label and student: label, student, parameters, answer, tolerance, close band
    (close_within: the relative error `check` still calls close), unit, precision and rubric (the
    columns of KEY_COLUMNS)."""
    rows = []
    for label in labels:
        ex = REGISTRY[label]
        for student in students:
            value = answer(label, student)
            rows.append({"label": label, "student": normalise_student(student),
                         "parameters": _format_parameters(parameters(label, student)),
                         "answer": "" if value is None else repr(value),
                         "tolerance": "" if value is None else repr(ex.rel_tol),
                         "close_within": "" if value is None else repr(ex.close_factor * ex.rel_tol),
                         "unit": ex.unit, "precision": "" if value is None else precision_phrase(label),
                         "rubric": ex.rubric})
    return rows


def write_key(students: Iterable[str], out: Path, labels: Sequence[str] = LABELS) -> int:
    """Write the answer key CSV to `out`; returns the number of rows."""
    rows = key_rows(list(students), labels)
    try:
        with Path(out).open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=KEY_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    except OSError as err:
        raise LedgerError(f"cannot write the key to {str(out)!r}: {err.strerror}") from None
    return len(rows)


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str]) -> int:
    """`python -m ledger exercises key --students FILE --out KEY.csv [--label L ...]`, and
    `python -m ledger exercises list`."""
    parser = _OneLineParser(prog="python -m ledger exercises",
                            description="The exercises' answer key for a class (for the teacher).")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)
    key = commands.add_parser("key", help="write every student's answers as CSV", description=COLUMNS_HELP)
    key.add_argument("--students", type=Path, required=True, help="a file of student identifiers, one a line")
    key.add_argument("--out", type=Path, required=True, help="the CSV file to write")
    key.add_argument("--label", action="append", help="only this exercise (repeatable; default: all)")
    commands.add_parser("list", help="every label with its unit, precision and parameters")
    args = parser.parse_args(list(argv))
    try:
        if args.command == "list":
            print("\n".join(label_lines()))
            return 0
        labels = tuple(args.label or LABELS)
        unknown = [label for label in labels if label not in REGISTRY]
        if unknown:
            raise LedgerError(f"unknown exercise label {unknown[0]!r} (see `python -m ledger exercises list`)")
        students = read_students(args.students)
        rows = write_key(students, args.out, labels)
    except LedgerError as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    print(f"wrote {rows} rows ({len(students)} students x {len(labels)} labels) to {args.out}")
    return 0
