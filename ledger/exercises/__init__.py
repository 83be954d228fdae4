"""Self-checking exercises: `check("masks-step-size", my_answer, student="s123")` compares an
answer with the ledger's, for the book's parameters or for one student's variant of them.

Each chapter group registers its exercises in a module of this package (`part1.py`, `part2.py`,
...); every such module is imported here, so `LABELS` lists every exercise in the book. The
student folder's library has no such module: it registers the labels from `catalogue.json`, which
holds no answer of a graded label (`registry.catalogue`). What a
student uses: `check`, `statement_parameters` and `show_parameters`. The answers themselves are
for the teacher: `ledger.exercises.instructor`, and the explanations' marking rubrics are in
`ledger.exercises.rubrics`; the student folder's library leaves both modules out (graded work uses
per-student variants and explanations, see the course guide).
"""
import importlib
import pkgutil

from pathlib import Path

from .registry import (CATALOGUE_FILE, REGISTRY, CheckResult, Exercise, check, load_catalogue, normalise_student,
                       show_parameters, statement_parameters)

_NOT_CHAPTERS = {"registry", "instructor", "rubrics", "plan"}
_CHAPTERS = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in _NOT_CHAPTERS)
for _module in _CHAPTERS:
    importlib.import_module(f"{__name__}.{_module}")
if not _CHAPTERS:  # the student folder's library: the labels come from its catalogue
    load_catalogue(Path(__file__).with_name(CATALOGUE_FILE))

LABELS: tuple[str, ...] = tuple(sorted(REGISTRY))


__all__ = ["LABELS", "CheckResult", "Exercise", "check", "show_parameters", "statement_parameters"]
