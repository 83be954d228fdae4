"""The student folder (`make student`, _build/student) runs on its own: every chapter notebook
executes in a virtual environment holding only the packages of its requirements.txt (no Sphinx,
myst-nb, Playwright or pytest), with the ledger installed from the folder itself, the kernel started
with `python -I` (no PYTHONPATH, no user site) in the folder's notebooks/.

The environment is made once from the requirements file (pip, a few minutes; kept in
.venv-student beside .venv and .venv-lab, so a clean build keeps it, and remade when the file changes); TX_STUDENT_VENV names another one to use."""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
STUDENT = ROOT / "_build" / "student"
VENV = Path(os.environ.get("TX_STUDENT_VENV", ROOT / ".venv-student"))


def chapters() -> list[str]:
    import re
    return re.findall(r"file:\s*notebooks/(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def student_python() -> Path:
    requirements = STUDENT / "requirements.txt"
    assert requirements.exists(), "build the student folder first (make student)"
    python = VENV / "bin" / "python"
    stamp = VENV / ".requirements-sha256"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(VENV.parent / f"{VENV.name}.lock", "w") as lock:  # pytest -n: one worker installs at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install(requirements, python, stamp, digest, env)
    return python


def _install(requirements: Path, python: Path, stamp: Path, digest: str, env: dict) -> None:
    if "TX_STUDENT_VENV" not in os.environ and not (stamp.exists() and stamp.read_text() == digest):
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-r", "requirements.txt"],
                              cwd=STUDENT, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, "pip could not install the student requirements:\n" + done.stderr[-3000:]
        stamp.write_text(digest)
    else:  # the ledger from this student folder (the environment may have been made from another copy)
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                               "-e", str(STUDENT)], env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr[-3000:]


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
    where = subprocess.run([str(student_python), "-I", "-B", "-c", "import ledger; print(ledger.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).resolve().is_relative_to(STUDENT.resolve()), where


@pytest.fixture(scope="module")
def kernel_dir(student_python, tmp_path_factory) -> Path:
    """A kernelspec `student` that starts the kernel with the student environment's `python -I`."""
    path = tmp_path_factory.mktemp("jupyter")
    spec = path / "kernels" / "student"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(student_python), "-I", "-B", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "student", "language": "python"}))
    return path


@pytest.mark.parametrize("stem", chapters())
def test_the_student_notebook_runs_in_the_student_environment(kernel_dir, stem, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    nb = nbformat.read(STUDENT / "notebooks" / f"{stem}.ipynb", as_version=4)
    client = NotebookClient(nb, kernel_name="student", timeout=120, startup_timeout=60,
                            resources={"metadata": {"path": str(STUDENT / "notebooks")}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error" or (o.output_type == "stream" and o.name == "stderr")]
    assert not errors, f"{stem}: {errors[0]}"
