"""Graded parts give no oracle: the course's salt moves every draw, `check` says only right or not
right on a graded label (and the student folder, which holds no answer for it, says it is graded),
the teacher's `score` names the slip, and the student folder's catalogue carries no graded answer."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ledger import LedgerError
from ledger.exercises import LABELS, REGISTRY, instructor, registry

ROOT = Path(__file__).resolve().parents[1]
STUDENTS = [f"s{k:03d}" for k in range(40)]
VARYING = next(label for label in LABELS if registry.variant_count(label) >= 3)


@pytest.fixture
def temporary():
    """Register labels for one test (numeric(...) or explained(...) arguments), removed after it."""
    added = []

    def add(kind, label, *args, **kw):
        (registry.numeric if kind == "numeric" else registry.explained)(label, *args, **kw)
        added.append(label)
        return label
    yield add
    for label in added:
        del REGISTRY[label]


def test_the_salt_moves_the_draws_and_the_same_salt_repeats_them(monkeypatch):
    monkeypatch.delenv(registry.SALT_ENV, raising=False)
    plain = [registry.draw_index(VARYING, s) for s in STUDENTS]
    salted = [registry.draw_index(VARYING, s, salt="fall-2027") for s in STUDENTS]
    again = [registry.draw_index(VARYING, s, salt="fall-2027") for s in STUDENTS]
    other = [registry.draw_index(VARYING, s, salt="spring-2028") for s in STUDENTS]
    assert salted == again
    assert sum(a != b for a, b in zip(plain, salted)) >= len(STUDENTS) // 4
    assert sum(a != b for a, b in zip(salted, other)) >= len(STUDENTS) // 4
    monkeypatch.setenv(registry.SALT_ENV, "fall-2027")
    assert [registry.draw_index(VARYING, s) for s in STUDENTS] == salted
    assert registry.course_salt() == "fall-2027"


@pytest.mark.parametrize("salt", ["", " padded", "a:b", "x" * 201, "tab\there"])
def test_a_bad_salt_is_refused_in_one_line(salt):
    with pytest.raises(LedgerError) as err:
        registry.draw_index(VARYING, "s1", salt=salt)
    assert "\n" not in str(err.value) and repr(salt) in str(err.value)


def test_the_key_and_the_slips_take_the_salt(tmp_path):
    roster = tmp_path / "class.txt"
    roster.write_text("\n".join(STUDENTS) + "\n")
    outputs = {}
    for command, salt in (("key", None), ("key", "fall-2027"), ("slips", "fall-2027")):
        out = tmp_path / f"{command}-{salt}.csv"
        args = [sys.executable, "-m", "ledger", "exercises", command, "--students", str(roster), "--out", str(out),
                "--label", VARYING] + (["--salt", salt] if salt else [])
        done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env={"PATH": "/usr/bin"})
        assert done.returncode == 0, done.stderr
        outputs[command, salt] = list(csv.DictReader(out.open()))
    plain, salted, slips = outputs["key", None], outputs["key", "fall-2027"], outputs["slips", "fall-2027"]
    assert [r["parameters"] for r in plain] != [r["parameters"] for r in salted]
    assert [r["parameters"] for r in slips] == [r["parameters"] for r in salted]
    assert set(slips[0]) == {"label", "student", "parameters"}  # no answer on a slip
    for row in salted:
        assert float(row["answer"]) == instructor.answer(VARYING, row["student"], salt="fall-2027")
    bad = subprocess.run([sys.executable, "-m", "ledger", "exercises", "key", "--students", str(roster), "--out",
                          str(tmp_path / "x.csv"), "--salt", "a:b"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "'a:b'" in bad.stderr


def test_a_graded_label_says_right_or_not_right_and_nothing_more(temporary):
    label = temporary("numeric", "test-graded", lambda seq_len=1000: seq_len / 8, rel_tol=0.005, unit="%",
                      variants={"seq_len": (2000, 3000)}, graded=True, hint="count the heads")
    student = "s001"
    target = instructor.answer(label, student)
    assert registry.check(label, target, student=student)
    for wrong in (target * 1.01, target * 2, target / 100, target * 1e3, -target,
                  instructor.answer(label), float(f"{target:.1g}") + 0.01):
        result = registry.check(label, wrong, student=student)
        text = str(result)
        assert result.verdict == "wrong" and "not right" in text, text
        for clue in ("%", "x too", "close", "twice", "factor", "sign", "book", "Hint", "fraction", "rounded"):
            assert clue not in text.replace(f"{wrong:.6g}", ""), (wrong, text)


def test_score_names_the_slip_the_teacher_counts(temporary):
    label = temporary("numeric", "test-score", lambda seq_len=1000: seq_len / 8 + 0.0538, rel_tol=0.002, unit="%",
                      variants={"seq_len": (2000, 3000)}, graded=True)
    speedup = temporary("numeric", "test-speedup", lambda: 3.4, rel_tol=0.005, unit="x")
    student = "s001"
    target = instructor.answer(label, student)
    cases = {target: ("right", None, 1.0), target * 1.005: ("close", None, 0.5),
             target / 100: ("wrong", "percent-fraction", 0.0), target * 1e3: ("wrong", "power-of-ten", 0.0),
             2 * target: ("wrong", "factor-2", 0.0), float(f"{target:.1g}"): ("close", "precision", 0.5),
             instructor.answer(label): ("wrong", "book-parameters", 0.0), -target: ("wrong", "sign", 0.0),
             "twelve": ("invalid", None, 0.0)}
    for value, (verdict, slip, fraction) in cases.items():
        got = instructor.score(label, value, student)
        assert (got.verdict, got.slip, got.fraction) == (verdict, slip, fraction), (value, got)
    assert instructor.score(speedup, 2.4, "s001").slip == "gain-vs-speedup"
    assert "gain s - 1" in str(registry.check(speedup, 2.4))
    with pytest.raises(LedgerError):
        instructor.score("test-missing-label", 1.0, student)


def test_a_precision_slip_gets_a_precision_hint_not_a_conceptual_one(temporary):
    label = temporary("numeric", "test-precise", lambda: 0.0538, rel_tol=0.002, hint="think about attention layers")
    message = str(registry.check(label, 0.05))
    assert "rounded too far" in message and "attention" not in message and "significant figures" in message


def test_the_key_shows_each_student_s_parameters_on_explanation_rows():
    explanation = next(label for label in LABELS if label.endswith("-why") and REGISTRY[label].answer is None
                       and any(REGISTRY[p].variants for p in registry.parts(label)))
    rows = instructor.key_rows(STUDENTS[:5], [explanation])
    assert all(row["parameters"] for row in rows)
    for numeric in (p for p in registry.parts(explanation) if REGISTRY[p].variants):
        for row in rows:
            shown = f'{numeric}: {registry._describe(registry.parameters(numeric, row["student"]), "; ")}'
            assert shown in row["parameters"], row


def test_the_student_folder_holds_no_graded_answer_and_checks_like_the_teacher(tmp_path, temporary):
    """The folder's library is written as `make student` writes it; a graded label registered now
    (with a distinctive answer) must leave no trace of its answer, while practice labels answer as
    the teacher's library does."""
    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    import student
    graded = temporary("numeric", "test-secret", lambda seq_len=1000: seq_len * 1.234567891, rel_tol=0.005,
                       variants={"seq_len": (2000, 3000)}, graded=True)
    student.write_library(tmp_path, "4.4.10", "2.7.0")
    library = tmp_path / "ledger" / "exercises"
    # the registry, and the course plans (a timetable, no answer); no chapter module, no teacher's module
    assert sorted(p.name for p in library.glob("*.py")) == ["__init__.py", "plan.py", "registry.py"]
    text = (library / registry.CATALOGUE_FILE).read_text()
    for value in (1234.567891, 2469.135782, 3703.703673):
        assert f"{value:.6g}"[:6] not in text, value
    data = json.loads(text)
    assert all("answers" not in e for e in data["labels"].values() if e["graded"])
    practice = [label for label in LABELS if REGISTRY[label].answer is not None and not REGISTRY[label].graded][:6]
    probe = [(label, s, v) for label in practice for s in ("s001", None) for v in
             (instructor.answer(label, s), 1.3 * instructor.answer(label, s))] + [(graded, "s001", 1234.57)]
    script = (f"import json, sys\nsys.path.insert(0, {str(tmp_path)!r})\nfrom ledger.exercises import check\n"
              f"print(json.dumps([[check(l, v, s).verdict, str(check(l, v, s))] for l, s, v in {probe!r}]))")
    done = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    for (label, s, v), (verdict, message) in zip(probe[:-1], got[:-1]):
        assert [verdict, message] == [registry.check(label, v, s).verdict, str(registry.check(label, v, s))]
    assert got[-1][0] == "graded" and "graded by your teacher" in got[-1][1]
    listing = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
                              "from ledger.cli import main; sys.exit(main(['exercises', 'list', '--json']))"],
                             capture_output=True, text=True, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    records = {r["label"]: r for r in json.loads(listing.stdout)}
    assert records[graded]["graded"] is True and set(records) == set(LABELS) | {graded}


def test_the_list_says_which_labels_are_graded():
    done = subprocess.run([sys.executable, "-m", "ledger", "exercises", "list", "--json"], capture_output=True,
                          text=True, cwd=ROOT)
    records = json.loads(done.stdout)
    assert [r["label"] for r in records] == sorted(LABELS)
    assert all(set(r) >= {"label", "kind", "unit", "precision", "variants", "graded", "formative"} for r in records)
    assert all(not (r["graded"] and r["formative"]) for r in records)


def test_ct_mfu_counts_a_relative_difference_as_points_vs_relative():
    """ct-mfu asks a difference of two utilisations in percentage points; the relative difference (over
    either utilisation) is the usual slip, counted under its own code for each student's step time."""
    for student in STUDENTS[:8]:
        params = registry.parameters("ct-mfu", student)
        target = instructor.answer("ct-mfu", student)
        relative = REGISTRY["ct-mfu"].slips(**params)
        assert len(relative) == 2 and all(not registry._near(v, target, 0.05) for v, _, _ in relative), (student, relative)
        for value, code, _ in relative:
            got = instructor.score("ct-mfu", value, student)
            assert (got.verdict, got.slip) == ("wrong", "points-vs-relative"), (student, value, got)
        assert instructor.score("ct-mfu", target, student).verdict == "right"


def test_a_hundredfold_answer_in_seconds_is_not_called_a_percent_for_a_ratio(temporary):
    """x100 on a time or a size is a factor of 100; only a plain ratio (no unit, or 'x') is told not to
    multiply by 100."""
    seconds = temporary("numeric", "test-seconds", lambda: 2.3142, rel_tol=0.002, unit="s")
    ratio = temporary("numeric", "test-ratio", lambda: 0.6117, rel_tol=0.002)
    assert "factor of 100" in str(registry.check(seconds, 231.42)) and "plain ratio" not in str(registry.check(seconds, 231.42))
    assert "plain ratio" in str(registry.check(ratio, 61.17))


def test_each_explanation_statement_says_whether_it_is_graded():
    """An explanation part's statement says 'graded' exactly when the registry grades it, and 'practice,
    not graded' otherwise, so a student knows which of the chapter's explanations count."""
    import re

    import nbformat

    told = {}
    for path in sorted((ROOT / "notebooks").glob("[01]*.ipynb")):
        text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
        for label, rest in re.findall(r"\(an explanation, `([a-z0-9-]+)`([^\n]*)", text, re.IGNORECASE):
            told[label] = ("graded" if "graded: your teacher marks it" in rest else
                           "practice" if "practice, not graded" in rest else "unsaid")
    explanations = [label for label, ex in REGISTRY.items() if not ex.asks_number]
    assert set(told) == set(explanations), set(explanations) ^ set(told)
    wrong = {label: said for label, said in told.items() if said != ("graded" if REGISTRY[label].graded else "practice")}
    assert not wrong, wrong
