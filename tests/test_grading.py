"""The grading round with nbgrader, end to end, in a temporary course (book/_tools/grade.py, run in the
teacher's environment .venv-grade, which `make grade-env` or `make test` makes): release, three generated
submissions (one right, one with a usual slip in every numeric part, one copying a classmate's
variant), autograde against each student's variant with a course salt, a hand grade of each
explanation through nbgrader's Gradebook API, feedback for each student, the grades CSV and the slips."""
from __future__ import annotations

import collections
import csv
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_tools"))

import answer_cells
import grade
from student import clean, student_notebook

from ledger.exercises import instructor
from ledger.exercises.registry import REGISTRY

GRADE_PYTHON = ROOT / ".venv-grade" / "bin" / "python"
SALT = "test-course-secret"
RIGHT, SLIPPED, COPIED = "s-right", "s-slipped", "s-copied"


def _assignment() -> tuple[str, dict[str, list[str]]]:
    """The assignment with both a numeric and an explanation label and the fewest notebooks."""
    plan = grade.assignments()
    both = [(len(chapters), name) for name, chapters in plan.items()
            if {not REGISTRY[label].asks_number for labels in chapters.values() for label in labels} == {True, False}]
    assert both, f"no assignment has both a numeric and an explanation graded label: {plan}"
    name = min(both)[1]
    return name, plan[name]


def _run(*args: str, env_salt: bool = True) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), **({"TX_COURSE_SALT": SALT} if env_salt else {})}
    done = subprocess.run([str(GRADE_PYTHON), str(ROOT / "book" / "_tools" / "grade.py"), *args],
                          capture_output=True, text=True, env=env, check=False, cwd=ROOT)
    assert done.returncode == 0, f"grade.py {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _slipped(label: str, value: float) -> tuple[float, str]:
    """A usual slip of `value` and its code: a fraction for a percent, else a factor of 1,000."""
    return (value / 100, "percent-fraction") if REGISTRY[label].unit == "%" else (value * 1000, "power-of-ten")


def _classmate(label: str, student: str) -> float | None:
    """The right answer of a classmate whose variant gives an answer neither right nor close for
    `student` (None when the label has no variants: every student has the same answer)."""
    if not REGISTRY[label].variants:
        return None
    for k in range(200):
        theirs = instructor.answer(label, f"c{k:03d}", salt=SALT)
        if instructor.score(label, theirs, student, salt=SALT).verdict == "wrong":
            return theirs
    raise AssertionError(f"{label}: no classmate among 200 with an answer that is wrong for {student}")


def _fill(nb, values: dict[str, float], texts: dict[str, str]):
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        for label, value in values.items():
            if meta.get("grade_id") == answer_cells.grade_id("answer", label):
                line = f"{answer_cells.variable(label)} = None"
                assert line in cell.source, cell.source
                cell.source = cell.source.replace(line, f"{answer_cells.variable(label)} = {value!r}")
        for label, text in texts.items():
            if meta.get("grade_id") == answer_cells.grade_id("answer", label):
                assert answer_cells.TEXT_STUB in cell.source
                cell.source = cell.source.replace(answer_cells.TEXT_STUB, text)
    return nb


@pytest.fixture(scope="module")
def round_(tmp_path_factory):
    assert GRADE_PYTHON.exists(), (f"{GRADE_PYTHON} is missing: `make grade-env` makes the teacher's grading "
                                   "environment (requirements-grade.txt)")
    base = tmp_path_factory.mktemp("grading")
    course, out, submissions = base / "course", base / "out", base / "submissions"
    name, chapters = _assignment()
    _run("setup", "--course", str(course), "--assignment", name)
    labels = [label for stem in chapters for label in chapters[stem]]
    numeric = [label for label in labels if REGISTRY[label].asks_number]
    explained = [label for label in labels if not REGISTRY[label].asks_number]
    values = {RIGHT: {}, SLIPPED: {}, COPIED: {}}
    slips = {}
    for label in numeric:
        values[RIGHT][label] = instructor.answer(label, RIGHT, salt=SALT)
        values[SLIPPED][label], slips[label] = _slipped(label, instructor.answer(label, SLIPPED, salt=SALT))
        copied = _classmate(label, COPIED)
        values[COPIED][label] = instructor.answer(label, COPIED, salt=SALT) if copied is None else copied
    assert any(_classmate(label, COPIED) is not None for label in numeric), "no numeric label varies"
    for student, answers in values.items():
        (submissions / student).mkdir(parents=True)
        for stem in chapters:
            released = nbformat.read(course / "release" / name / f"{stem}.ipynb", as_version=4)
            text = {label: f"{student} explains {label} in their own words." for label in explained}
            nbformat.write(_fill(released, answers, text), submissions / student / f"{stem}.ipynb")
    _run("collect", "--course", str(course), "--submissions", str(submissions), "--assignment", name)
    _run("autograde", "--course", str(course), "--assignment", name)
    hand = {RIGHT: 1.0, SLIPPED: 0.5, COPIED: 0.0}
    for student, share in hand.items():
        for label in explained:
            _run("mark", "--course", str(course), "--student", student, "--label", label,
                 "--points", repr(share * instructor.max_points(label)), "--comment", f"hand-graded {student}")
    _run("report", "--course", str(course), "--out", str(out))
    with (out / "grades.csv").open(encoding="utf-8") as f:
        grades = {(r["student"], r["label"]): r for r in csv.DictReader(f)}
    with (out / "slips.csv").open(encoding="utf-8") as f:
        slip_rows = {r["label"]: r for r in csv.DictReader(f)}
    return {"course": course, "out": out, "name": name, "chapters": chapters, "numeric": numeric,
            "explained": explained, "values": values, "slips": slips, "grades": grades, "slip_rows": slip_rows,
            "hand": hand}


def test_release_is_the_student_folder(round_):
    """The student folder's notebooks (student.py's form) carry the cells nbgrader releases, but
    for the checksums (autograde takes them from its gradebook); no hidden test, no teacher's call."""
    for stem in round_["chapters"]:
        released = nbformat.read(round_["course"] / "release" / round_["name"] / f"{stem}.ipynb", as_version=4)
        mine = clean(answer_cells.student_answer_cells(student_notebook(
            nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4))))
        assert len(released.cells) == len(mine.cells), stem
        for theirs, ours in zip(released.cells, mine.cells):
            meta = {**theirs.metadata}
            if "nbgrader" in meta:
                meta["nbgrader"] = {k: v for k, v in meta["nbgrader"].items() if k != "checksum"}
            assert (theirs.cell_type, theirs.get("id"), theirs.source, meta) == \
                (ours.cell_type, ours.get("id"), ours.source, dict(ours.metadata)), (stem, ours.get("id"))
        text = "\n".join(c.source for c in released.cells)
        assert "HIDDEN TESTS" not in text and "instructor" not in text and "BEGIN SOLUTION" not in text


def test_numeric_points(round_):
    """The right submission earns every numeric point; the slipped one none; the copied one not all."""
    grades, numeric = round_["grades"], round_["numeric"]
    for label in numeric:
        right = grades[(RIGHT, label)]
        assert float(right["points"]) == float(right["max_points"]) == instructor.max_points(label), label
        assert float(grades[(SLIPPED, label)]["points"]) == 0.0, label
    copied = sum(float(grades[(COPIED, label)]["points"]) for label in numeric)
    assert copied < sum(instructor.max_points(label) for label in numeric)


def test_hand_grades(round_):
    """The explanations carry the hand grades set through the Gradebook API, out of the rubric's points."""
    for student, share in round_["hand"].items():
        for label in round_["explained"]:
            row = round_["grades"][(student, label)]
            assert float(row["max_points"]) == instructor.max_points(label)
            assert float(row["points"]) == share * instructor.max_points(label)


def test_slips(round_):
    """slips.csv counts each slip code per label as the teacher's score names it, and the slipped
    submission's constructed slip is recognised."""
    rows = round_["slip_rows"]
    assert set(rows) == set(round_["numeric"])
    for label in round_["numeric"]:
        expected = collections.Counter(instructor.score(label, answers[label], student, salt=SALT).slip
                                       for student, answers in round_["values"].items())
        assert int(rows[label]["answers"]) == 3
        for code in instructor.SLIPS:
            assert int(rows[label][code]) == expected[code], (label, code)
        assert int(rows[label][round_["slips"][label]]) >= 1, (label, round_["slips"][label])
        assert int(rows[label]["right"]) >= 1


def test_feedback(round_):
    """nbgrader's feedback for every student and notebook, with the hand comment; no rubric in it."""
    for student in (RIGHT, SLIPPED, COPIED):
        for stem in round_["chapters"]:
            page = round_["out"] / "feedback" / student / round_["name"] / f"{stem}.html"
            assert page.exists(), page
        html = "\n".join(p.read_text(encoding="utf-8")
                         for p in (round_["out"] / "feedback" / student / round_["name"]).glob("*.html"))
        if round_["explained"]:
            assert f"hand-graded {student}" in html
        for label in round_["explained"]:
            assert str(REGISTRY[label].rubric)[:60] not in html
    assert (round_["out"] / "rubrics.md").read_text(encoding="utf-8").count("## ") == len(
        [label for label in instructor.graded_labels() if not REGISTRY[label].asks_number])


def test_every_plan_is_gradable_and_the_course_remembers_its_plan(tmp_path):
    """Each course plan's sessions are assignments with a graded label (make grade PLAN=...); a course
    directory set up for one plan refuses another in one line, and an unknown plan is named."""
    from ledger import LedgerError
    from ledger.exercises import plan

    for name in plan.PLANS:
        chosen = grade.assignments(plan_name=name)
        assert chosen, name
        labels = {label for chapters in chosen.values() for ls in chapters.values() for label in ls}
        assert labels <= set(instructor.graded_labels()), (name, labels - set(instructor.graded_labels()))
        assert any(not REGISTRY[label].asks_number for label in labels), f"plan {name}: no graded explanation"
    course = tmp_path / "course"
    assert grade.course_plan(course) == grade.DEFAULT_PLAN
    assert grade.course_plan(course, "4x60") == "4x60"
    (course).mkdir()
    (course / grade.PLAN_FILE).write_text("ml-systems\n", encoding="utf-8")
    assert grade.course_plan(course) == "ml-systems"
    with pytest.raises(LedgerError, match="set up for plan 'ml-systems'"):
        grade.course_plan(course, "5x90")
    with pytest.raises(LedgerError, match="'6x45': not a plan; the plans are"):
        grade.course_plan(tmp_path / "other", "6x45")
    done = subprocess.run([sys.executable, str(ROOT / "book" / "_tools" / "grade.py"), "report", "--course",
                           str(tmp_path / "other"), "--plan", "6x45"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and "6x45" in done.stderr, done.stderr


def test_answers_handed_in_alike_are_reported(tmp_path, monkeypatch):
    """shared.csv names students who handed in the same explanation text, the same numeric value right
    for one and not another (copied across variants), or the same value right for none; right values
    alike (students sharing a variant) and short texts are not reported. Built on a course directory
    written here, without nbgrader."""
    numeric = next(label for label in instructor.graded_labels() if REGISTRY[label].asks_number)
    explained = next(label for label in instructor.graded_labels() if not REGISTRY[label].asks_number)
    essay = "The rewrite is paid once per step while the digital work grows with the tokens of the step."
    answers = {"s-a": ("12.5", essay), "s-b": ("12.5", "  " + essay.upper() + " "), "s-c": ("7.0", "Short."),
               "s-d": ("7.0", "Short."), "s-e": ("3.25", "My own words say why the masks cost what they do here."),
               "s-f": ("41.5", "Other words again, on why the masks cost what they cost in this step."),
               "s-g": ("41.5", "Yet other words, which say the cost is per step and the work per token.")}
    verdicts = {"s-a": "wrong", "s-b": "wrong", "s-c": "right", "s-d": "right", "s-e": "wrong", "s-f": "right",
                "s-g": "wrong"}
    for student, (value, text) in answers.items():
        nb = nbformat.v4.new_notebook(cells=[
            nbformat.v4.new_code_cell(f"{answer_cells.CODE_STUB}\n{answer_cells.variable(numeric)} = {value}  # mine",
                                      metadata={"nbgrader": {"grade_id": answer_cells.grade_id("answer", numeric)}}),
            nbformat.v4.new_markdown_cell(text, metadata={"nbgrader": {"grade_id": answer_cells.grade_id("answer", explained)}})])
        folder = tmp_path / "submitted" / student / "session1"
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / "chapter.ipynb")
    monkeypatch.setattr(grade, "slip_lines", lambda course: {(s, numeric): (v, "-") for s, v in verdicts.items()})
    rows = grade.shared_answers(tmp_path)
    found = {(r["label"], r["what"], r["students"]) for r in rows}
    assert found == {(numeric, "same value, not right", "s-a;s-b"), (explained, "same explanation text", "s-a;s-b"),
                     (numeric, "same value, right for s-f only", "s-f;s-g")}, rows


def test_the_round_writes_the_shared_answers_report(round_):
    """The round's three students hand in different explanations and no common wrong value: shared.csv
    has its header and no row."""
    with (round_["out"] / "shared.csv").open(encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames) == grade.SHARED_COLUMNS and rows == [], rows


def test_answers_right_only_without_the_salt_are_warned_of(tmp_path, monkeypatch):
    """A student who worked the variant drawn without the course's salt (a folder made without SALT) is
    named with the labels concerned; a right answer or a plainly wrong one is not."""
    from ledger.exercises.registry import UNSALTED

    monkeypatch.setenv("TX_COURSE_SALT", SALT)
    label = next(label for label in instructor.graded_labels() if REGISTRY[label].asks_number and REGISTRY[label].variants
                 and instructor.answer(label, "s-u", salt=UNSALTED) != instructor.answer(label, "s-u"))
    values = {"s-u": instructor.answer(label, "s-u", salt=UNSALTED), "s-r": instructor.answer(label, "s-r"),
              "s-w": 12345.678}
    for student, value in values.items():
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
            f"{answer_cells.variable(label)} = {value!r}",
            metadata={"nbgrader": {"grade_id": answer_cells.grade_id("answer", label)}})])
        folder = tmp_path / "submitted" / student / "session1"
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / "chapter.ipynb")
    verdicts = {(s, label): (instructor.score(label, v, s).verdict, "-") for s, v in values.items()}
    monkeypatch.setattr(grade, "slip_lines", lambda course: verdicts)
    assert verdicts[("s-u", label)][0] != "right" and verdicts[("s-r", label)][0] == "right"
    assert grade.unsalted_students(tmp_path) == {"s-u": [label]}
