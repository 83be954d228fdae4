"""The graded parts of a chapter as nbgrader answer cells, for the student folder and for the teacher's
nbgrader course (book/_tools/grade.py).

For each graded label (`ledger.exercises.instructor.graded_labels()`) of a chapter, right after the
cell that shows the exercise's parameters (or its statement, when it has none):

- a numeric label: an answer cell (nbgrader solution, unlocked) holding
  `answer_<label with underscores> = None  # your value, in <unit>`, and a locked autograder test
  cell (grade: true, points = `max_points(label)`) whose hidden test calls
  `ledger.exercises.instructor.score(label, value, student, salt)`, prints the verdict and the slip,
  and outputs the points (nbgrader reads a test cell's numeric output as its partial credit:
  `nbgrader.utils.determine_grade`). The student is the autograded notebook's folder:
  nbgrader runs it in autograded/<student>/<assignment>/ (or submitted/...), so the kernel's working
  directory's parent is the student; the salt is the course's (`registry.course_salt()`: the
  environment's TX_COURSE_SALT, which `make grade SALT=...` sets, or course-salt.txt).
- an explanation label: a markdown answer cell, graded by hand (solution and grade, points =
  the rubric's). The rubric is never in these cells: the grader reads it in the key or in
  `_build/grades/rubrics.md`, which grade.py writes.

`teacher=True` gives the cells of the nbgrader source (`### BEGIN SOLUTION` and `### BEGIN HIDDEN
TESTS` regions); `teacher=False` the cells as `nbgrader generate_assignment` releases them (the
regions replaced by CODE_STUB and TEXT_STUB, the hidden tests removed, the locked cells neither
deletable nor editable), which the student folder's notebooks carry: tests/test_grading.py checks
that they equal nbgrader's release, but for the checksums, which autograde takes from its
gradebook (`OverwriteCells`).
"""
from __future__ import annotations

import copy
import re

import nbformat

from ledger.exercises import instructor
from ledger.exercises.registry import REGISTRY, exercise_of

CODE_STUB = "# Your answer: replace None below by your value (a number)."
"""What nbgrader puts in place of a numeric answer cell's solution region (`ClearSolutions.code_stub`,
set in the course's nbgrader_config.py): a comment, so that Run All still runs the chapter."""
TEXT_STUB = "YOUR ANSWER HERE"
"""nbgrader's own text stub for a markdown answer (`ClearSolutions.text_stub`'s default)."""
TEST_LINE = ("# Your teacher's autograder checks {variable} here against your own parameters; "
             "leave this cell as it is.")
SCORE_LINE = re.compile(r"^(?P<label>[a-z0-9-]+): (?P<verdict>[a-z]+); slip: (?P<slip>[a-z0-9-]+)$", re.MULTILINE)
"""The line a hidden test prints: '<label>: <verdict>; slip: <slip code or ->' (grade.py counts the slips)."""
EXERCISE_LABEL = re.compile(r"^`{3,}\{exercise\}[^\n]*\n:label:\s*(\S+)", re.MULTILINE)


def stem(label: str) -> str:
    return label.replace("-", "_")


def variable(label: str) -> str:
    """The answer variable of a numeric label: `answer_masks_step_size`."""
    return f"answer_{stem(label)}"


def grade_id(kind: str, label: str) -> str:
    """The nbgrader grade_id of a label's cell: kind 'answer' (the answer cell) or 'test' (the
    autograder test of a numeric label)."""
    return f"{kind}_{stem(label)}"


def stated_exercises(nb) -> list[str]:
    """The exercise labels a chapter states (its ```{exercise} blocks), in order."""
    return [m.group(1) for c in nb.cells if c.cell_type == "markdown" for m in EXERCISE_LABEL.finditer(c.source)]


def _nbgrader(cell_type: str, grade_id_: str, *, grade: bool, solution: bool, locked: bool,
              points: float | None = None) -> dict:
    meta = {"cell_type": cell_type, "grade": grade, "grade_id": grade_id_, "locked": locked, "schema_version": 3, "solution": solution,
            "task": False}
    if grade:
        meta["points"] = points
    return meta


def hidden_test(label: str, points: float) -> str:
    """The hidden test of a numeric label: the teacher's score of the answer for the notebook's student."""
    return "\n".join([
        "from pathlib import Path as _Path",
        "from ledger.exercises import instructor as _instructor",
        "from ledger.exercises.registry import course_salt as _course_salt",
        f"_score = _instructor.score({label!r}, {variable(label)}, _Path.cwd().parent.name, _course_salt())",
        f"print(f\"{label}: {{_score.verdict}}; slip: {{_score.slip or '-'}}\")",
        f"_score.fraction * {float(points)!r}"])


def numeric_cells(label: str, unit: str, points: float, teacher: bool) -> list:
    """The answer cell and the autograder test cell of numeric label `label`."""
    unit_words = f", in {unit}" if unit else " (a plain number, no unit)"
    answer_line = f"{variable(label)} = None  # your value for {label}{unit_words}"
    if teacher:
        answer_source = "### BEGIN SOLUTION\n### END SOLUTION\n" + answer_line
        test_source = (TEST_LINE.format(variable=variable(label)) + "\n### BEGIN HIDDEN TESTS\n"
                       + hidden_test(label, points) + "\n### END HIDDEN TESTS")
    else:
        answer_source = CODE_STUB + "\n" + answer_line
        test_source = TEST_LINE.format(variable=variable(label))
    answer = nbformat.v4.new_code_cell(answer_source)
    answer.id = grade_id("answer", label).replace("_", "-")
    answer.metadata["nbgrader"] = _nbgrader("code", grade_id("answer", label), grade=False, solution=True, locked=False)
    test = nbformat.v4.new_code_cell(test_source)
    test.id = grade_id("test", label).replace("_", "-")
    test.metadata["nbgrader"] = _nbgrader("code", grade_id("test", label), grade=True, solution=False, locked=True,
                                          points=float(points))
    if not teacher:  # nbgrader's LockCells: no answer cell may be deleted, no test cell edited
        answer.metadata["deletable"] = False
        test.metadata["deletable"] = False
        test.metadata["editable"] = False
    return [answer, test]


def explanation_cell(label: str, points: float, teacher: bool):
    """The markdown answer cell of explanation label `label`, graded by hand."""
    head = (f"**Your answer to `{label}`** (an explanation, {points:g} points, graded by your teacher): "
            f"write it in place of the line below.\n\n")
    cell = nbformat.v4.new_markdown_cell(head + ("### BEGIN SOLUTION\n### END SOLUTION" if teacher else TEXT_STUB))
    cell.id = grade_id("answer", label).replace("_", "-")
    cell.metadata["nbgrader"] = _nbgrader("markdown", grade_id("answer", label), grade=True, solution=True, locked=False,
                                          points=float(points))
    if not teacher:
        cell.metadata["deletable"] = False
    return cell


def _anchor(nb, exercise_label: str) -> int:
    """The index of the cell after which an exercise's answer cells go: the cell showing its
    parameters, else its statement; -1 when the chapter states no such exercise."""
    shows = f'show_parameters("{exercise_label}"'
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and shows in cell.source:
            return index
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and exercise_label in stated_exercises(nbformat.v4.new_notebook(cells=[cell])):
            return index
    return -1


def chapter_labels(nb, graded: list[str]) -> list[str]:
    """The labels of `graded` whose exercise the chapter `nb` states, in the order of `graded`."""
    stated = set(stated_exercises(nb))
    return [label for label in graded if label in stated or exercise_of(label) in stated]


def with_answer_cells(nb, graded: list[str] | None = None, teacher: bool = False):
    """A copy of chapter notebook `nb` (a student copy: `student.student_notebook`) with the answer
    cells of its graded labels (`graded`, default every graded label of the teacher's library)
    after each exercise's parameters; the notebook unchanged when it has none."""
    graded = list(instructor.graded_labels()) if graded is None else list(graded)
    nb = copy.deepcopy(nb)
    inserts: dict[int, list] = {}
    for label in chapter_labels(nb, graded):
        ex = REGISTRY[label]
        at = _anchor(nb, label if label in stated_exercises(nb) else exercise_of(label))
        points = instructor.max_points(label)
        cells = ([explanation_cell(label, points, teacher)] if not ex.asks_number
                 else numeric_cells(label, ex.unit, points, teacher))
        inserts.setdefault(at, []).extend(cells)
    for at in sorted(inserts, reverse=True):
        nb.cells[at + 1:at + 1] = inserts[at]
    return nb


def student_answer_cells(nb):
    """The student folder's form of a chapter (book/_tools/student.py): `with_answer_cells` as
    nbgrader releases them."""
    return with_answer_cells(nb, teacher=False)
