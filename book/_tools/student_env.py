"""The student environment, .venv-student: a virtual environment holding only the packages of the
student folder's requirements.txt (book/_tools/student.py writes it), in which the student folder's
notebooks run under nbval (`make test`; tests/conftest.py gives nbval the kernel `tx-student`).

    python book/_tools/student_env.py --jupyterlab 4.4.10 --jupyterlab-myst 2.7.0

makes it, as `make lab-env` makes .venv-lab: before `make test` starts its timed phases, like the
book's own environments, so that installing packages is not counted as testing. It is remade only
when the requirements change (their SHA-256 is kept in the environment). Until `make student` has
written the student folder, the editable `ledger` points at the repository's copy (the same files);
`point_at(folder)` re-points it at the folder's own copy (a few seconds, no download).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("TX_STUDENT_VENV", ROOT / ".venv-student"))
"""The student environment (TX_STUDENT_VENV: another one, used as it is)."""
STAMP_NAME = ".requirements-sha256"
KERNEL_NAME = "tx-student"


def python() -> Path:
    return VENV / "bin" / "python"


def _clean_env() -> dict:
    """The environment pip runs in: no PYTHONPATH or VIRTUAL_ENV of the caller's."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def digest(requirements_text: str) -> str:
    return hashlib.sha256(requirements_text.encode("utf-8")).hexdigest()


def is_current(requirements_text: str) -> bool:
    stamp = VENV / STAMP_NAME
    return python().exists() and stamp.exists() and stamp.read_text() == digest(requirements_text)


def make(requirements_text: str, project: Path) -> bool:
    """Make the environment from `requirements_text` (whose `-e .` means `project`) unless it is
    current or TX_STUDENT_VENV names another one; return whether it was made."""
    if "TX_STUDENT_VENV" in os.environ or is_current(requirements_text):
        return False
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
    with tempfile.TemporaryDirectory() as folder:
        listed = Path(folder) / "requirements.txt"
        listed.write_text(requirements_text, encoding="utf-8")
        done = subprocess.run([str(python()), "-m", "pip", "install", "--quiet", "-r", str(listed)], cwd=project,
                              env=_clean_env(), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit("pip could not install the student requirements:\n" + done.stderr[-3000:])
    (VENV / STAMP_NAME).write_text(digest(requirements_text))
    return True


def ledger_location() -> Path | None:
    """Where the environment's `ledger` is imported from (None: not importable)."""
    done = subprocess.run([str(python()), "-I", "-B", "-c", "import ledger; print(ledger.__file__)"],
                          capture_output=True, text=True, check=False, cwd=tempfile.gettempdir())
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 else None


def point_at(folder: Path) -> None:
    """Install `folder`'s ledger (editable, no dependencies) unless the environment already imports it."""
    where = ledger_location()
    if where is not None and where.is_relative_to(folder.resolve()):
        return
    done = subprocess.run([str(python()), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(folder)],
                          env=_clean_env(), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"could not install {folder}'s ledger into {VENV}:\n" + done.stderr[-3000:])
    # pip leaves its build record (ledger.egg-info) in the folder; the installed metadata lives in the
    # environment, so the folder handed to students is left as `make student` wrote it.
    for record in folder.glob("*.egg-info"):
        shutil.rmtree(record)
    if ledger_location() is None or not ledger_location().is_relative_to(folder.resolve()):
        raise SystemExit(f"{VENV} does not import the ledger of {folder} after installing it")


def write_kernel(jupyter_path: Path) -> Path:
    """A kernelspec `tx-student` under `jupyter_path`: the student environment's `python -I -B` (no
    PYTHONPATH, no user site, nothing written beside the student folder's modules)."""
    import json

    spec = jupyter_path / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python()), "-I", "-B", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "student environment", "language": "python"}))
    return spec


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from student import StudentError, requirements

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jupyterlab", required=True, help="the JupyterLab version of the requirements")
    parser.add_argument("--jupyterlab-myst", required=True, help="the jupyterlab-myst version of the requirements")
    args = parser.parse_args(argv)
    try:
        text = requirements(ROOT / "requirements.txt", args.jupyterlab, args.jupyterlab_myst)
    except StudentError as error:
        print(f"student_env: {error}", file=sys.stderr)
        return 2
    made = make(text, ROOT)
    print(f"student_env: {VENV} {'made' if made else 'is current'} ({digest(text)[:12]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
