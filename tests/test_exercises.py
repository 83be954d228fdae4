"""Every exercise of the book is self-checking: its label is registered in `ledger.exercises`, the
ledger's own answer passes `check` and a perturbed one does not, and its statement tells the
student how to check. The labels are read from the `{exercise}` blocks of the chapter notebooks."""
import re
from pathlib import Path

import nbformat

from ledger.exercises import LABELS, REGISTRY, answer, check

ROOT = Path(__file__).resolve().parents[1]
EXERCISE_BLOCK = re.compile(r"^(?P<fence>`{3,}|:{3,})\{exercise\}[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                            re.MULTILINE | re.DOTALL)
LABEL = re.compile(r"^:label:\s*(\S+)\s*$", re.MULTILINE)
# What an explained exercise's statement says instead of (or as well as) a check("label", ...) call.
SAYS_EXPLAINED = re.compile(r"answer is an explanation|answer is an argument|no number to check|nothing to check", re.IGNORECASE)


def notebook_exercises() -> dict[str, tuple[str, str]]:
    """{label: (chapter, statement)} for every {exercise} block of every chapter notebook."""
    found = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for block in EXERCISE_BLOCK.finditer(cell.source):
                label = LABEL.search(block.group("body"))
                assert label, f"{path.name}: an exercise without a :label: ({block.group('body')[:60]!r})"
                assert label.group(1) not in found, f"exercise label {label.group(1)!r} is used twice"
                found[label.group(1)] = (path.name, block.group("body"))
    return found


EXERCISES = notebook_exercises()


def test_the_notebooks_have_exercises():
    assert len(EXERCISES) >= 2 * len(list((ROOT / "notebooks").glob("*.ipynb")))


def test_every_notebook_label_is_registered_and_nothing_else():
    missing = sorted(set(EXERCISES) - set(LABELS))
    extra = sorted(set(LABELS) - set(EXERCISES))
    assert not missing, f"exercises not registered in ledger.exercises: {missing}"
    assert not extra, f"registered labels with no exercise in the notebooks: {extra}"


def test_numeric_answers_pass_and_perturbed_answers_fail():
    numeric = [label for label in LABELS if REGISTRY[label].answer is not None]
    assert numeric, "no numeric exercise is registered"
    failures = []
    for label in numeric:
        value, tol = answer(label), REGISTRY[label].rel_tol
        if not check(label, value):
            failures.append(f"{label}: its own answer {value!r} is refused: {check(label, value)}")
        perturbed = [value * 1.5, value * (1 + 3 * tol), value * (1 - 3 * tol)] if value else [1.0, -1.0]
        for wrong in perturbed:
            if check(label, wrong):
                failures.append(f"{label}: the perturbed answer {wrong!r} (ledger: {value!r}) is accepted")
    assert not failures, "\n".join(failures)


def test_explained_exercises_have_no_number():
    for label in LABELS:
        if REGISTRY[label].answer is None:
            assert answer(label) is None
            result = check(label, 1.0)
            assert not result and result.verdict == "explanation", label


def test_every_statement_says_how_to_check():
    failures = []
    for label, (chapter, statement) in EXERCISES.items():
        calls = f'check("{label}"' in statement
        explained = label in REGISTRY and REGISTRY[label].answer is None
        if not (calls or (explained and SAYS_EXPLAINED.search(statement))):
            failures.append(f"{chapter} {label}: the statement does not say how to check "
                            f"(expected check(\"{label}\", ...){' or that the answer is an explanation' if explained else ''})")
    assert not failures, "\n".join(failures)


def test_the_course_guide_names_real_exercises():
    guide = (ROOT / "book" / "course_guide.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", guide))
    exercises = {n for n in named if not n.startswith(("make-", "hide-", "remove-"))}
    assert len(exercises) >= 8, "the course guide should set exercises by label"
    unknown = sorted(exercises - set(EXERCISES))
    assert not unknown, f"the course guide names exercises that no chapter has: {unknown}"
