"""The student folder (`make student`, _build/student) runs on its own: every chapter notebook
executes in a virtual environment holding only the packages of its requirements.txt (no Sphinx,
myst-nb, Playwright or pytest), with the ledger installed from the folder itself, the kernel started
with `python -I -B` (no PYTHONPATH, no user site) in the folder's notebooks/.

The notebooks are run by nbval: `make test` collects _build/student/notebooks/ with
`--nbval-kernel-name=tx-student`, and tests/conftest.py makes that kernel from the student
environment (.venv-student, book/_tools/student_env.py; made before the timed phases, as .venv-lab
is, and remade when the requirements change). Each student notebook is one nbval module, its cells
one test each; a cell that raises fails. The chapters as written (with their exercise cells, which
compute and assert the answers) are executed by the book's build, which fails on any error
(book/_tools/execute_chapters.py, allow_errors=False; tests/test_execution.py). The tests below check
the environment, and that make test's nbval run is this one, over every chapter."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STUDENT = ROOT / "_build" / "student"
sys.path.insert(0, str(ROOT / "book" / "_tools"))
import student_env


def chapters() -> list[str]:
    return re.findall(r"file:\s*notebooks/(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def student_python() -> Path:
    requirements = STUDENT / "requirements.txt"
    assert requirements.exists(), "build the student folder first (make student)"
    student_env.make(requirements.read_text(encoding="utf-8"), STUDENT)
    student_env.point_at(STUDENT)
    return student_env.python()


def test_only_the_student_packages_are_importable(student_python):
    probe = ("import importlib.util as u, json; print(json.dumps({m: u.find_spec(m) is not None for m in "
             "['ledger', 'numpy', 'matplotlib', 'ipywidgets', 'ipykernel', 'jupyterlab', 'jupyterlab_myst', "
             "'sphinx', 'myst_nb', 'playwright', 'pytest', 'nbval']}))")
    done = subprocess.run([str(student_python), "-I", "-B", "-c", probe], capture_output=True, text=True, check=True,
                          cwd=STUDENT / "notebooks")
    found = json.loads(done.stdout)
    assert all(found[m] for m in ("ledger", "numpy", "matplotlib", "ipywidgets", "ipykernel", "jupyterlab",
                                  "jupyterlab_myst")), found
    assert not any(found[m] for m in ("sphinx", "myst_nb", "playwright", "pytest", "nbval")), found
    assert student_env.ledger_location().is_relative_to(STUDENT.resolve()), student_env.ledger_location()
    assert not list(STUDENT.glob("*.egg-info")), "installing the folder's ledger left a build record in the folder"


def test_every_module_of_the_folders_ledger_imports_in_the_student_environment(student_python):
    """The folder leaves the exercise answers and rubrics out; nothing it keeps may import them (once
    ledger.claims imported exercises.part2, and every chapter stopped at its first cell)."""
    probe = ("import importlib, pkgutil, ledger; bad = []\n"
             "for m in pkgutil.walk_packages(ledger.__path__, 'ledger.'):\n"
             "    if m.name.endswith('__main__'): continue\n"
             "    try: importlib.import_module(m.name)\n"
             "    except Exception as e: bad.append(f'{m.name}: {e!r}')\n"
             "print(ledger.__file__); print('\\n'.join(bad))")
    done = subprocess.run([str(student_python), "-I", "-B", "-c", probe], capture_output=True, text=True, check=True,
                          cwd=STUDENT / "notebooks")
    where, *bad = done.stdout.strip().splitlines()
    assert Path(where).resolve().is_relative_to(STUDENT.resolve()), where
    assert not [line for line in bad if line], "\n".join(bad)


def test_the_environment_was_made_from_the_student_folders_requirements(student_python):
    text = (STUDENT / "requirements.txt").read_text(encoding="utf-8")
    assert student_env.is_current(text), f"{student_env.VENV} was not made from {STUDENT / 'requirements.txt'}"


def test_the_student_kernel_is_the_student_environment(tmp_path, student_python):
    spec = json.loads((student_env.write_kernel(tmp_path) / "kernel.json").read_text())
    assert spec["argv"][:3] == [str(student_python), "-I", "-B"]


def test_make_test_runs_every_student_notebook_under_nbval_in_the_student_kernel():
    """The nbval run of `make test` is the one that executes the student notebooks: its pytest command
    names the student folder's notebooks and the student kernel, and the folder has every chapter."""
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\ntest:", 1)[1].split("\n\n", 1)[0]
    command = " ".join(recipe.replace("\\\n", " ").split())
    assert "--nbval-lax" in command and f"--nbval-kernel-name={student_env.KERNEL_NAME}" in command, command
    assert re.search(r"(^|\s)_build/student/notebooks/?(\s|;|$)", command), command
    assert sorted(p.stem for p in (STUDENT / "notebooks").glob("*.ipynb")) == sorted([*chapters(), "install_check"])


def test_the_student_kernel_runs_a_notebook_in_the_student_folder(student_python, tmp_path, monkeypatch):
    """The kernel nbval starts: in the folder's notebooks/, with the folder's ledger and data."""
    import nbformat
    from nbclient import NotebookClient

    student_env.write_kernel(tmp_path)
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os, sys, ledger\nprint(os.getcwd(), ledger.__file__, sys.flags.isolated, os.path.isdir('../data'))")])
    NotebookClient(nb, kernel_name=student_env.KERNEL_NAME, timeout=60, startup_timeout=60,
                   resources={"metadata": {"path": str(STUDENT / "notebooks")}}).execute()
    cwd, where, isolated, data = nb.cells[0].outputs[0]["text"].split()
    assert Path(cwd) == (STUDENT / "notebooks").resolve() and Path(where).resolve().is_relative_to(STUDENT.resolve())
    assert isolated == "1" and data == "True"
