"""`python -m ledger` for the tests: by default in this process (ledger.cli.main with its output and
exit status captured, as a subprocess would give them, without starting an interpreter and importing
numpy for each call: about half a CPU-second), or as a real subprocess (`real=True`) where the entry
point itself is what a test checks."""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys


def run_ledger(*args: str, cwd=None, real: bool = False) -> subprocess.CompletedProcess:
    """`python -m ledger *args` in `cwd`: its exit status, stdout and stderr."""
    command = [sys.executable, "-m", "ledger", *args]
    if real:
        return subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False)
    from ledger.cli import main

    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as stop:  # argparse's exits (errors 2, --help 0)
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(command, code, out.getvalue(), err.getvalue())
