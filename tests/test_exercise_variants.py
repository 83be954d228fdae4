"""Per-student variants and the teacher's answer key: a student identifier fixes an exercise's
parameters (deterministically, never the book's own), `check(..., student=ID)` checks that variant,
and `python -m ledger exercises key` writes every student's answers; bad input is one line."""
import csv
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from ledger import LedgerError
from ledger.exercises import LABELS, REGISTRY, check, registry, statement_parameters
from ledger.exercises.instructor import answer, key_rows, read_students

ROOT = Path(__file__).resolve().parents[1]


def _shaped(seq_len=2048, step_tokens=1_048_576):
    """A stand-in answer with two parameters: tokens per sequence over tokens per step."""
    return 1e6 * seq_len / step_tokens


@pytest.fixture
def varied():
    registry.numeric("test-varied", _shaped, rel_tol=0.001, unit="ppm",
                     variants={"seq_len": (4096, 8192), "step_tokens": (524_288, 2_097_152, 4_194_304)})
    yield "test-varied"
    del registry.REGISTRY["test-varied"]


def test_a_variant_is_fixed_by_the_identifier_and_documented_hash(varied):
    params = registry.parameters(varied, "S123")
    assert params == registry.parameters(varied, " s123 ")  # normalised: case and spaces
    digest = int.from_bytes(hashlib.sha256(b"test-varied:s123").digest(), "big")
    assert params["seq_len"] == (4096, 8192)[digest % 2]
    assert params["step_tokens"] == (524_288, 2_097_152, 4_194_304)[(digest // 2) % 3]
    assert registry.parameters(varied) == {"seq_len": 2048, "step_tokens": 1_048_576}


def test_students_get_different_variants_never_the_books(varied):
    drawn = {tuple(registry.parameters(varied, f"s{i:03d}").items()) for i in range(60)}
    assert len(drawn) == 6  # every combination is drawn by some of 60 students
    assert all(dict(d)["seq_len"] != 2048 and dict(d)["step_tokens"] != 1_048_576 for d in drawn)


def test_check_uses_the_students_variant(varied):
    mine = _shaped(**registry.parameters(varied, "alice"))
    assert check(varied, mine, student="alice")
    assert answer(varied, "alice") == pytest.approx(mine)
    book = _shaped()
    result = check(varied, book, student="alice")
    assert not result and "book's parameters" in result.message and "seq_len" in result.message
    assert check(varied, book)  # without an identifier: the book's values


def test_statement_parameters_show_the_variant_not_the_answer(varied):
    shown = statement_parameters(varied, student="alice")
    assert shown["parameters"] == registry.parameters(varied, "alice")
    assert shown["unit"] == "ppm" and "significant figures" in shown["precision"]
    assert str(answer(varied, "alice")) not in str(shown)


@pytest.mark.parametrize("bad", ["", "a b", "x" * 65, "-lead", True, 1.5, "é"])
def test_bad_identifiers_are_refused_in_one_line(varied, bad):
    with pytest.raises(LedgerError, match="student identifier") as err:
        check(varied, 1.0, student=bad)
    assert "\n" not in str(err.value)


def test_a_variant_must_leave_out_the_books_value():
    with pytest.raises(LedgerError, match="other than the book's"):
        registry.numeric("test-bad-variant", _shaped, variants={"seq_len": (2048, 4096)})
    with pytest.raises(LedgerError, match="not a keyword parameter"):
        registry.numeric("test-bad-variant", _shaped, variants={"hidden": (4096,)})
    assert "test-bad-variant" not in REGISTRY


def test_the_key_lists_every_student_and_label(varied, tmp_path):
    students = tmp_path / "class.txt"
    students.write_text("# group A\nalice\nBob\n\ns-003\n", encoding="utf-8")
    assert read_students(students) == ["alice", "bob", "s-003"]
    out = tmp_path / "key.csv"
    done = subprocess.run([sys.executable, "-m", "ledger", "exercises", "key", "--students", str(students),
                           "--out", str(out)], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 3 * len(LABELS)  # a subprocess: the fixture's test label is not registered there
    assert {r["label"] for r in rows} == set(LABELS) and {r["student"] for r in rows} == {"alice", "bob", "s-003"}
    for row in rows:
        if REGISTRY[row["label"]].answer is None:
            assert row["answer"] == "" and row["tolerance"] == ""
        else:
            assert float(row["answer"]) == pytest.approx(answer(row["label"], row["student"]), rel=1e-12)
            assert check(row["label"], float(row["answer"]), student=row["student"])
    mine = [r for r in key_rows(["alice"], [varied])][0]
    assert mine["parameters"] == "; ".join(f"{k}={v}" for k, v in registry.parameters(varied, "alice").items())


@pytest.mark.parametrize("content, message", [("alice\nalice\n", "repeats line 1"), ("a b\n", "line 1"),
                                              ("# nobody\n", "no student identifier")])
def test_a_bad_student_file_is_refused_in_one_line(tmp_path, content, message):
    students = tmp_path / "class.txt"
    students.write_text(content, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "ledger", "exercises", "key", "--students", str(students),
                           "--out", str(tmp_path / "k.csv")], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "k.csv").exists()


def test_missing_file_and_unknown_label_are_one_line(tmp_path):
    for args in (["--students", str(tmp_path / "none.txt")],
                 ["--students", __file__, "--label", "no-such-label"]):
        done = subprocess.run([sys.executable, "-m", "ledger", "exercises", "key", *args, "--out",
                               str(tmp_path / "k.csv")], capture_output=True, text=True, cwd=ROOT, check=False)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def test_the_answers_are_not_in_the_student_api():
    import ledger.exercises as student_api
    assert not hasattr(student_api, "answer") and "answer" not in student_api.__all__
    from ledger.exercises import instructor
    assert instructor.answer("masks-step-size") == pytest.approx(registry.expected("masks-step-size"))
