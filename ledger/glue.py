"""A chapter's prose numbers, one call: `glue("circ_step_share", 100 * row.step_share)`.

It does two things. It records the value for the book as myst-nb's `glue` does (when myst-nb is
installed: the build environment), and it keeps the value in the notebook as `glued.<name>` (an
object `glued` in the calling notebook's namespace, made by the first call), so that the prose can
say ``{eval}`f'{glued.circ_step_share:.2f}'` `` and JupyterLab's MyST renderer (jupyterlab-myst)
shows the number from the running kernel, while the book's build reads the same expression's value
from the executed chapter (book/_ext/eval_values.py). In the student environment, without myst-nb,
only `glued` is kept. The glued names live apart from the chapter's variables, so a chapter may
glue `implied` as a percentage while its variable `implied` is a fraction.
"""
from __future__ import annotations

import keyword
import sys
from types import SimpleNamespace

from .errors import LedgerError

NAMESPACE = "glued"
"""The notebook variable that holds the glued values."""


class Glued(SimpleNamespace):
    """The glued values of a notebook, by name: `glued.circ_step_share`."""


def glue(name: str, value, display: bool = False, *, namespace: dict | None = None) -> None:
    """Record `value` under `name` for the book's prose and keep it as `glued.<name>` in the
    caller's namespace (`namespace`, default the calling frame's globals: a notebook's). Returns
    None, as myst-nb's glue does (a cell ending with it prints nothing)."""
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise LedgerError(f"glue name {name!r}: must be a Python identifier (the prose evaluates glued.{name})")
    target = sys._getframe(1).f_globals if namespace is None else namespace
    store = target.setdefault(NAMESPACE, Glued())
    if not isinstance(store, Glued):
        raise LedgerError(f"the notebook's variable {NAMESPACE!r} is not the glued values ({type(store).__name__}): "
                          f"rename it")
    setattr(store, name, value)
    try:
        from myst_nb import glue as myst_glue
    except ImportError:  # the student environment: no Sphinx, nothing to record
        if display:
            from IPython.display import display as show
            show(value)
        return None
    myst_glue(name, value, display=display)
    return None
