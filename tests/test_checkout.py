"""The project runs from any checkout: no Python file of it names a path where a checkout or a user's
files live (/work, /tmp, /root, /home), only paths relative to its own folder, the system's (/usr,
/proc, /sys) or URL paths. A test once read the student environment from /work/main/.venv-student,
so a fresh clone elsewhere failed where that folder was missing."""
from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKOUT_PATH = re.compile(r"^/(work|tmp|root|home)(/|$)")


def python_files() -> list[Path]:
    """The project's Python files: git's list where this is a git checkout, else every .py file
    outside the build and the virtual environments."""
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=False)
    if listed.returncode == 0 and listed.stdout.strip():
        return [ROOT / name for name in listed.stdout.split()]
    return [p for p in ROOT.rglob("*.py") if not any(part.startswith((".venv", "_build", ".git"))
                                                      for part in p.relative_to(ROOT).parts)]


def checkout_paths(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal of `source` that is a path under /work, /tmp, /root or /home."""
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CHECKOUT_PATH.match(node.value)]


def test_the_rule_finds_a_fixed_checkout_path():
    assert checkout_paths('PY = Path("/work/main/.venv-student/bin/python")') == [(1, "/work/main/.venv-student/bin/python")]
    assert checkout_paths('X = "/tmp"; Y = "/home/reader/book"') == [(1, "/tmp"), (1, "/home/reader/book")]
    assert checkout_paths('A = "/usr/bin/chromium"; B = "/proc/"; C = "/lab?token="; D = "/workshop"') == []


def test_no_python_file_names_a_checkout_path():
    files = [path for path in python_files() if path.resolve() != Path(__file__).resolve()]  # not the examples above
    assert len(files) > 50, f"only {len(files)} Python files found under {ROOT}"
    found = [f"{path.relative_to(ROOT)}:{line}: {text!r}" for path in files
             for line, text in checkout_paths(path.read_text(encoding="utf-8"))]
    assert not found, "paths of one machine's checkout (use paths relative to ROOT):\n" + "\n".join(found)
