"""notebooks/install_check.ipynb, the notebook students run before the first session: it prints OK
and each plan's first in-class parameters for the student's identifier, says what is missing when a
package is, is left out of the book and goes into the student folder."""
import contextlib
import io
import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from ledger.exercises import show_parameters
from ledger.exercises.plan import PLANS

ROOT = Path(__file__).resolve().parents[1]
PATH = ROOT / "notebooks" / "install_check.ipynb"


def run(nb, tmp_path):
    NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def with_student(nb, student: str):
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("STUDENT_ID = None")]
    cell.source = cell.source.replace("STUDENT_ID = None", f"STUDENT_ID = {student!r}", 1)
    return nb


def test_it_prints_ok_and_the_students_parameters_for_each_plans_first_in_class_exercise(tmp_path):
    printed = run(with_student(nbformat.read(PATH, as_version=4), "s007"), tmp_path)
    assert re.search(r"^OK$", printed, re.MULTILINE), printed
    for name, plan in PLANS.items():
        expected = io.StringIO()
        with contextlib.redirect_stdout(expected):
            show_parameters(plan.sessions[0].in_class, "s007")
        assert f"({name}): session 1's in-class exercise, {plan.sessions[0].in_class}" in printed
        assert expected.getvalue() and expected.getvalue() in printed, (name, expected.getvalue())
        assert "student s007" in expected.getvalue()


def test_a_missing_package_is_named_with_how_to_install_it(tmp_path):
    nb = nbformat.read(PATH, as_version=4)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and "REQUIRED = [" in c.source]
    cell.source = cell.source.replace('"ledger"]', '"ledger", "no_such_package_tx"]', 1)
    with pytest.raises(CellExecutionError) as error:
        run(nb, tmp_path)
    message = str(error.value)
    assert "missing: no_such_package_tx" in message and "pip install -r requirements.txt" in message
    assert "OK" not in "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_it_is_stored_clean_left_out_of_the_book_and_copied_into_the_student_folder(tmp_path):
    nb = nbformat.read(PATH, as_version=4)
    assert all(c.outputs == [] and c.execution_count is None for c in nb.cells if c.cell_type == "code")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert "notebooks/install_check.ipynb" in config["exclude_patterns"]
    assert "install_check" not in (ROOT / "_toc.yml").read_text(encoding="utf-8")
    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from student import write_notebooks

    write_notebooks(ROOT / "notebooks", tmp_path, [])
    copied = nbformat.read(tmp_path / "install_check.ipynb", as_version=4)
    assert [c.source for c in copied.cells] == [c.source for c in nb.cells]


def test_a_library_module_that_does_not_import_is_named_before_ok(tmp_path, monkeypatch):
    """A student folder whose ledger misses a module a chapter imports (as one did: ledger.claims needed an
    exercise module the folder leaves out) fails the install check, naming the module, and prints no OK."""
    import shutil

    library = tmp_path / "lib"
    shutil.copytree(ROOT / "ledger", library / "ledger", ignore=shutil.ignore_patterns("__pycache__"))
    (library / "ledger" / "claims" / "needs_a_left_out_module.py").write_text("from ..exercises import part9\n")
    monkeypatch.setenv("PYTHONPATH", str(library))
    nb = nbformat.read(PATH, as_version=4)
    with pytest.raises(CellExecutionError) as error:
        run(nb, tmp_path)
    message = str(error.value)
    assert "ledger.claims.needs_a_left_out_module" in message and "incomplete" in message, message[-2000:]
    assert "OK" not in "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
