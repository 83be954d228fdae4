"""A chapter's prose numbers, one call: `glue("circ_step_share", 100 * row.step_share)`.

It does two things. It records the value for the book as myst-nb's `glue` does (when myst-nb is
installed: the build environment), and it binds the same name in the calling notebook's namespace,
so that the prose can say ``{eval}`f'{circ_step_share:.2f}'` `` and JupyterLab's MyST renderer
(jupyterlab-myst) shows the number from the running kernel, while the book's build reads the same
expression's value from the executed chapter (book/_ext/eval_values.py). In the student environment,
without myst-nb, only the name is bound.

A name the notebook already binds to a different value (not by an earlier `glue`, which a re-run
may change, e.g. a measured rate) is refused: the prose would show the other value in JupyterLab.
"""
from __future__ import annotations

import keyword
import math
import sys

from .errors import LedgerError


def _same(a, b) -> bool:
    if a is b:
        return True
    try:
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return bool(a == b) and type(a) is type(b)
    except Exception:  # noqa: BLE001 - arrays and other values whose == is not a bool
        return False


def glue(name: str, value, display: bool = False, *, namespace: dict | None = None) -> None:
    """Record `value` under `name` for the book's prose and bind `name` to it in the caller's
    namespace (`namespace`, default the calling frame's globals: a notebook's). Returns None, as
    myst-nb's glue does (a cell ending with it prints nothing)."""
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise LedgerError(f"glue name {name!r}: must be a Python identifier (the prose evaluates it)")
    target = sys._getframe(1).f_globals if namespace is None else namespace
    glued = target.setdefault("_ledger_glued_names", set())
    if name in target and name not in glued and not _same(target[name], value):
        raise LedgerError(f"glue name {name!r} is already bound in the notebook to {target[name]!r}, "
                          f"not {value!r}: choose another name")
    target[name] = value
    glued.add(name)
    try:
        from myst_nb import glue as myst_glue
    except ImportError:  # the student environment: no Sphinx, nothing to record
        if display:
            from IPython.display import display as show
            show(value)
        return None
    myst_glue(name, value, display=display)
    return None
