"""Grade the course's submissions with nbgrader (`make grade SUBMISSIONS=DIR [SALT=...]`), in the
teacher's environment (.venv-grade: requirements-grade.txt, nbgrader 0.9.6, and the ledger).

    grade.py setup   --course C [--plan P]       nbgrader_config.py and source/<assignment>/, released
    grade.py collect --course C --submissions D  D/<student>/*.ipynb into submitted/<student>/<assignment>/
    grade.py autograde --course C                nbgrader autograde, every assignment with submissions
    grade.py mark    --course C --student S --label L --points P [--comment T]
                                                 a hand grade of an explanation (nbgrader's Gradebook API)
    grade.py report  --course C --out O          O/grades.csv, O/slips.csv, O/rubrics.md, O/feedback/<student>/
    grade.py run     --course C --submissions D --out O   setup, collect, autograde and report

One nbgrader assignment per session of the course plan (`sessions()`; ledger.exercises.plan's "5x90" unless
`--plan` names another, `make grade PLAN=4x60`; the course directory remembers the plan it was set up for),
named session<N>, holding the chapters that state the session's graded labels, each the student folder's notebook with the nbgrader
source cells of `answer_cells` (hidden tests that call the teacher's `instructor.score`). The course
directory is kept between runs: autograde keeps the hand grades already given (nbgrader's
SaveAutoGrades does not overwrite a manual score), so a second `make grade` after grading by hand in
the formgrader only adds what is new.
"""
from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))

from answer_cells import (
    CODE_STUB,
    variable,
    SCORE_LINE,
    TEXT_STUB,
    chapter_labels,
    grade_id,
    with_answer_cells,
)
from executed import chapter_stems
from student import clean, student_notebook

from ledger.errors import LedgerError
from ledger.exercises import instructor, plan
from ledger.exercises.registry import REGISTRY, UNSALTED, exercise_of, normalise_student

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PLAN = "5x90"
"""The course plan whose sessions are the assignments (ledger.exercises.plan.PLANS): the book's main plan."""
GRADE_COLUMNS = ("student", "label", "points", "max_points")
CONFIG = '''"""nbgrader's configuration for the course (written by book/_tools/grade.py setup)."""
c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.db_url = "sqlite:///" + {db!r}
# a numeric answer's solution region becomes a comment, so that Run All still runs the chapter
c.ClearSolutions.code_stub = {{"python": {code_stub!r}}}
c.ClearSolutions.text_stub = {text_stub!r}
# a chapter's slowest cell (chapter 16 times its kernels) takes seconds; nbgrader's default is 30 s
c.Execute.timeout = 300
'''


def sessions(plan_name: str = DEFAULT_PLAN) -> list[dict]:
    """The sessions of course plan `plan_name` (ledger.exercises.plan): number, title, and the
    exercises it sets (the in-class one, the homework, the explanation)."""
    sessions_ = plan.plan(plan_name).sessions
    return [{"number": number, "title": s.title, "exercises": (s.in_class, *s.homework, s.explanation)}
            for number, s in enumerate(sessions_, 1)]


def assignment_id(session: dict) -> str:
    return f"session{session['number']}"


def assignments(graded: list[str] | None = None, plan_name: str = DEFAULT_PLAN) -> dict[str, dict[str, list[str]]]:
    """{assignment: {chapter stem: its graded labels}}: per session of the plan, its graded labels
    (the graded parts of the exercises it sets) in the chapters that state them, taught or read;
    only the sessions with a graded label."""
    graded = list(instructor.graded_labels()) if graded is None else graded
    chapters = {stem: nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4) for stem in chapter_stems()}
    out = {}
    for session in sessions(plan_name):
        mine = [label for label in graded if label in session["exercises"] or exercise_of(label) in session["exercises"]]
        found = {stem: labels for stem, nb in chapters.items() if (labels := chapter_labels(nb, mine))}
        if found:
            out[assignment_id(session)] = found
    return out


def label_of_grade_id(graded: list[str] | None = None) -> dict[str, str]:
    """{nbgrader grade_id: label} of the graded cells: a numeric label's test cell, an explanation's answer cell."""
    graded = list(instructor.graded_labels()) if graded is None else graded
    return {grade_id("answer" if not REGISTRY[label].asks_number else "test", label): label for label in graded}


def nbgrader(course: Path, *args: str) -> None:
    """Run `nbgrader ARGS` in the course directory (with this Python's nbgrader); a LedgerError with its log."""
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True,
                          check=False, env=env)  # nbgrader runs alembic from the PATH
    if done.returncode != 0:
        raise LedgerError(f"nbgrader {' '.join(args)} failed (exit {done.returncode}):\n{done.stdout[-3000:]}"
                          f"{done.stderr[-3000:]}")


PLAN_FILE = "plan.txt"
"""The file in the course directory naming the plan it was set up for (setup writes it)."""


def course_plan(course: Path, requested: str | None = None) -> str:
    """The plan of the course directory: the one it was set up for, else `requested`, else the book's
    main plan; a LedgerError when `requested` is not a plan or differs from the one set up."""
    if requested is not None:
        plan.plan(requested)
    stored = course / PLAN_FILE
    if stored.is_file():
        name = stored.read_text(encoding="utf-8").strip()
        if requested is not None and requested != name:
            raise LedgerError(f"plan {requested!r}: the course {course} was set up for plan {name!r}; "
                              f"use that plan or another --course")
        return name
    return requested or DEFAULT_PLAN


def setup(course: Path, only: list[str] | None = None, plan_name: str = DEFAULT_PLAN) -> dict:
    """Write the course's nbgrader_config.py and source/<assignment>/ (the student folder's chapters
    with the source answer cells) and release them (`nbgrader generate_assignment`, into release/)."""
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(CONFIG.format(
        root=str(course.resolve()), db=str((course / "gradebook.db").resolve()), code_stub=CODE_STUB,
        text_stub=TEXT_STUB), encoding="utf-8")
    (course / PLAN_FILE).write_text(plan_name + "\n", encoding="utf-8")
    chosen = assignments(plan_name=plan_name)
    if only:
        unknown = [a for a in only if a not in chosen]
        if unknown:
            raise LedgerError(f"assignment {unknown[0]!r} has no graded label; the graded ones are {', '.join(chosen)}")
        chosen = {a: chosen[a] for a in only}
    for name, chapters in chosen.items():
        folder = course / "source" / name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for stem, labels in chapters.items():
            nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
            nbformat.write(clean(with_answer_cells(student_notebook(nb), labels, teacher=True)), folder / f"{stem}.ipynb")
        nbgrader(course, "generate_assignment", name, "--force")
    return chosen


def collect(course: Path, submissions: Path, plan: dict) -> dict[str, list[str]]:
    """Copy each student's notebooks (submissions/<student>/<chapter>.ipynb) into
    submitted/<student>/<assignment>/ for the assignments they belong to; {assignment: students}.
    Every folder of `submissions` must be a student identifier (normalised: lower case)."""
    if not submissions.is_dir():
        raise LedgerError(f"SUBMISSIONS={submissions}: not a folder (one folder per student identifier is needed)")
    found: dict[str, list[str]] = {}
    students = sorted(p for p in submissions.iterdir() if p.is_dir())
    if not students:
        raise LedgerError(f"SUBMISSIONS={submissions}: no student folder in it (one per student identifier)")
    for folder in students:
        student = normalise_student(folder.name)
        if student != folder.name:
            raise LedgerError(f"submission folder {folder.name!r}: name it {student!r}, the identifier as the "
                              f"variants use it")
        for name, chapters in plan.items():
            notebooks = [folder / f"{stem}.ipynb" for stem in chapters if (folder / f"{stem}.ipynb").exists()]
            if not notebooks:
                continue
            target = course / "submitted" / student / name
            if target.exists():
                shutil.rmtree(target)
            target.mkdir(parents=True)
            for notebook in notebooks:
                shutil.copy2(notebook, target / notebook.name)
            found.setdefault(name, []).append(student)
    return found


def _link_data(course: Path, student: str) -> None:
    """Chapters 11 and 14 read ../data/configs, as from the student folder's notebooks/: give each
    student's folders a data/ beside the assignment's (a link to the repository's)."""
    for kind in ("submitted", "autograded"):
        link = course / kind / student / "data"
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(ROOT / "data", target_is_directory=True)


def autograde(course: Path, found: dict[str, list[str]]) -> None:
    """`nbgrader autograde` every assignment for its students (with the course's salt from the
    environment: TX_COURSE_SALT, read by the hidden tests)."""
    for name, students in found.items():
        for student in students:
            _link_data(course, student)
        nbgrader(course, "autograde", name, "--create", "--force")


def _gradebook(course: Path):
    from nbgrader.api import Gradebook
    return Gradebook("sqlite:///" + str((course / "gradebook.db").resolve()))


def mark(course: Path, student: str, label: str, points: float, comment: str = "") -> None:
    """Give `student` `points` for explanation `label` by hand (nbgrader's Gradebook API: the
    answer cell's manual score, and a comment the feedback shows)."""
    if label not in REGISTRY or REGISTRY[label].asks_number:
        raise LedgerError(f"label {label!r}: not an explanation label (hand grades are for explanations)")
    maximum = instructor.max_points(label)
    if not 0 <= points <= maximum:
        raise LedgerError(f"points {points!r} for {label}: must be from 0 to {maximum:g}")
    cell = grade_id("answer", label)
    with _gradebook(course) as gb:
        for name, chapters in assignments(plan_name=course_plan(course)).items():
            for notebook, labels in chapters.items():
                if label in labels:
                    grade = gb.find_grade(cell, notebook, name, normalise_student(student))
                    grade.manual_score = float(points)
                    grade.needs_manual_grade = False
                    if comment:
                        gb.find_comment(cell, notebook, name, normalise_student(student)).manual_comment = comment
                    gb.db.commit()
                    return
    raise LedgerError(f"label {label!r} is in no assignment of the course")


def slip_lines(course: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """{(student, label): (verdict, slip)} from the autograded notebooks' test cells (the line the
    hidden test prints); a test cell that printed none (the answer cell deleted, an error) is 'missing'."""
    tests = label_of_grade_id()
    out = {}
    for path in sorted((course / "autograded").glob("*/*/*.ipynb")):
        student = path.parent.parent.name
        for cell in nbformat.read(path, as_version=4).cells:
            label = tests.get(cell.metadata.get("nbgrader", {}).get("grade_id", ""))
            if label is None or cell.cell_type != "code":
                continue
            text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
            found = [m for m in SCORE_LINE.finditer(text) if m["label"] == label]
            out[(student, label)] = (found[-1]["verdict"], found[-1]["slip"]) if found else ("missing", "-")
    return out


SHARED_COLUMNS = ("assignment", "label", "what", "students", "answer")
MIN_SHARED_WORDS = 8
"""Explanations shorter than this many words are not compared (a blank or a one-word answer is no sign
of copying)."""


def handed_in(course: Path) -> dict[tuple[str, str, str], str]:
    """{(assignment, student, label): the answer as handed in}: a numeric part's value as written after
    `answer_<label> =`, an explanation's text with its whitespace and case folded; parts left as their
    stub are absent."""
    labels = {grade_id("answer", label): label for label in instructor.graded_labels()}
    found = {}
    for path in sorted((course / "submitted").glob("*/*/*.ipynb")):
        student, assignment = path.parent.parent.name, path.parent.name
        for cell in nbformat.read(path, as_version=4).cells:
            label = labels.get(cell.metadata.get("nbgrader", {}).get("grade_id", ""))
            if label is None:
                continue
            if REGISTRY[label].asks_number:
                written = [line.split("=", 1)[1].split("#", 1)[0].strip() for line in cell.source.splitlines()
                           if line.replace(" ", "").startswith(variable(label) + "=")]
                if written and written[-1] != "None":
                    found[(assignment, student, label)] = written[-1]
            else:
                text = " ".join(cell.source.replace(TEXT_STUB, " ").lower().split())
                if len(text.split()) >= MIN_SHARED_WORDS:
                    found[(assignment, student, label)] = text
    return found


def shared_answers(course: Path) -> list[dict]:
    """Answers two or more students handed in alike, a sign of copying for the teacher to look at: the
    same explanation text; the same numeric value where it is right for one student and not for another
    (a classmate's answer copied across variants); the same value where it is right for none. Right
    answers of students who share a variant are alike by design and not listed."""
    verdicts = slip_lines(course)
    groups: dict[tuple[str, str, str], list[str]] = {}
    for (assignment, student, label), answer in handed_in(course).items():
        groups.setdefault((assignment, label, answer), []).append(student)
    rows = []
    for (assignment, label, answer), students in sorted(groups.items()):
        if len(students) < 2:
            continue
        if REGISTRY[label].asks_number:
            right = [s for s in students if verdicts.get((s, label), ("missing",))[0] == "right"]
            if len(right) == len(students):
                continue
            what = ("same value, right for " + ";".join(sorted(right)) + " only") if right else "same value, not right"
        else:
            what = "same explanation text"
        rows.append({"assignment": assignment, "label": label, "what": what, "students": ";".join(sorted(students)),
                     "answer": answer if len(answer) <= 80 else answer[:77] + "..."})
    return rows


def unsalted_students(course: Path) -> dict[str, list[str]]:
    """{student: the numeric labels whose answer is not right for the course's variant but right for the
    variant drawn without any salt}: a student whose folder was made without the course's salt (or with
    another) works another variant, honestly, and is marked wrong; the round warns of them."""
    verdicts = slip_lines(course)
    found: dict[str, list[str]] = {}
    for (_, student, label), answer in handed_in(course).items():
        if not REGISTRY[label].asks_number or verdicts.get((student, label), ("missing",))[0] == "right":
            continue
        try:
            value = float(answer)
        except ValueError:
            continue
        if instructor.score(label, value, student, salt=UNSALTED).verdict == "right":
            found.setdefault(student, []).append(label)
    return found


def report(course: Path, out: Path) -> tuple[int, int]:
    """grades.csv (student, label, points, max_points; points empty while an explanation awaits its
    hand grade), slips.csv (per numeric label: the verdicts and each slip code's count), shared.csv
    (answers students handed in alike: `shared_answers`), rubrics.md
    (the graded explanations' rubrics, for the grader) and the feedback (nbgrader generate_feedback)
    in out/feedback/<student>/<assignment>/. Returns (grade rows, students)."""
    labels = label_of_grade_id()
    rows, students = [], set()
    chosen = assignments(plan_name=course_plan(course))
    with _gradebook(course) as gb:
        for name in chosen:
            if name not in {a.name for a in gb.assignments}:  # an assignment nobody submitted
                continue
            submissions = gb.assignment_submissions(name)
            for submission in submissions:
                students.add(submission.student.id)
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        label = labels.get(grade.name)
                        if label is None:
                            continue
                        waiting = grade.score is None or (grade.needs_manual_grade and grade.manual_score is None)
                        rows.append({"student": submission.student.id, "label": label,
                                     "points": "" if waiting else repr(float(grade.score)),
                                     "max_points": repr(float(grade.max_score))})
    out.mkdir(parents=True, exist_ok=True)
    rows.sort(key=lambda r: (r["student"], r["label"]))
    with (out / "grades.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=GRADE_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    verdicts = ("right", "close", "wrong", "invalid", "missing")
    seen = slip_lines(course)
    numeric = sorted({label for (_, label) in seen})
    with (out / "slips.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["label", "answers", *verdicts, *instructor.SLIPS])
        for label in numeric:
            mine = [v for (_, lab), v in seen.items() if lab == label]
            writer.writerow([label, len(mine), *(sum(v == verdict for v, _ in mine) for verdict in verdicts),
                             *(sum(s == slip for _, s in mine) for slip in instructor.SLIPS)])
    with (out / "shared.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=SHARED_COLUMNS)
        writer.writeheader()
        writer.writerows(shared_answers(course))
    explanations = [label for label in instructor.graded_labels() if not REGISTRY[label].asks_number]
    (out / "rubrics.md").write_text("# Rubrics of the graded explanations (for the grader, never for students)\n\n"
                                    + "\n\n".join(f"## {label} ({instructor.max_points(label):g} points)\n\n"
                                                  f"{REGISTRY[label].rubric}" for label in explanations) + "\n",
                                    encoding="utf-8")
    for name in chosen:
        if (course / "autograded").exists() and any((course / "autograded").glob(f"*/{name}")):
            nbgrader(course, "generate_feedback", name, "--force")
    feedback = out / "feedback"
    if feedback.exists():
        shutil.rmtree(feedback)
    if (course / "feedback").exists():
        shutil.copytree(course / "feedback", feedback)
    return len(rows), len(students)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("setup", "collect", "autograde", "mark", "report", "run"))
    parser.add_argument("--course", type=Path, default=ROOT / "_build" / "grades" / "course",
                        help="the nbgrader course directory (kept between runs: it holds the hand grades)")
    parser.add_argument("--submissions", type=Path, help="one folder per student identifier, with their notebooks")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "grades")
    parser.add_argument("--assignment", action="append", help="only this assignment (repeatable; default: all)")
    parser.add_argument("--plan", help=f"the course plan whose sessions are the assignments (default {DEFAULT_PLAN}; "
                                       f"one of {', '.join(sorted(plan.PLANS))})")
    parser.add_argument("--student")
    parser.add_argument("--label")
    parser.add_argument("--points", type=float)
    parser.add_argument("--comment", default="")
    args = parser.parse_args(argv)
    try:
        if args.command in ("collect", "run") and args.submissions is None:
            raise LedgerError(f"{args.command} needs --submissions DIR (make grade SUBMISSIONS=DIR)")
        if args.command == "mark":
            if args.student is None or args.label is None or args.points is None:
                raise LedgerError("mark needs --student, --label and --points")
            mark(args.course, args.student, args.label, args.points, args.comment)
            print(f"grade: {args.student} {args.label} = {args.points:g}")
            return 0
        plan_name = course_plan(args.course, args.plan)
        if args.command in ("setup", "run"):
            chosen = setup(args.course, args.assignment, plan_name)
            print(f"grade: released {', '.join(chosen)} of plan {plan_name} in {args.course / 'release'}")
        else:
            chosen = {a: c for a, c in assignments(plan_name=plan_name).items()
                      if not args.assignment or a in args.assignment}
        if args.command in ("collect", "autograde", "run"):
            found = (collect(args.course, args.submissions, chosen) if args.submissions is not None else
                     {a: sorted(p.parent.name for p in (args.course / "submitted").glob(f"*/{a}")) for a in chosen})
            if args.command != "collect":
                autograde(args.course, {a: s for a, s in found.items() if s})
            print(f"grade: {sum(map(len, found.values()))} submissions of {len(found)} assignments")
        if args.command in ("report", "run"):
            rows, students = report(args.course, args.out)
            for student, labels in sorted(unsalted_students(args.course).items()):
                print(f"grade: warning: {student}'s answers to {', '.join(sorted(labels))} are right for the variants "
                      f"drawn without the course's salt: was their folder made without SALT (make student SALT=...)?",
                      file=sys.stderr)
            print(f"grade: {rows} grades of {students} students in {args.out / 'grades.csv'}; slips in "
                  f"{args.out / 'slips.csv'}; answers handed in alike in {args.out / 'shared.csv'}; feedback in "
                  f"{args.out / 'feedback'}")
    except LedgerError as err:
        print(f"grade: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
