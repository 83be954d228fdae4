"""The `{eval}` role for the book's build: the values the chapter's kernel gave.

A chapter's prose says ``{eval}`f'{glued.circ_step_share:.2f}'` ``: a Python expression over the
chapter's variables and its glued values (`glued.<name>`, kept by `ledger.glue.glue`). In JupyterLab, jupyterlab-myst evaluates it in
the running kernel. For the book, book/_tools/execute_chapters.py evaluates every such expression in
the chapter's kernel right after executing it and writes `<chapter>.eval.json` beside the executed
copy ({expression: text}); this role, which replaces myst-nb's (whose `{eval}` needs myst-nb to run
the chapter itself, not the bounded parallel executor), puts that text in the page. The HTML, the
PDF, the student edition and the slides read the same file, so every prose number is the kernel's.

Config: `eval_values_dir`, the folder of executed chapters (default _build/executed); a chapter's
file is `<eval_values_dir>/<docname>.eval.json`. An expression without a value, or one that raised
in the kernel, is a build warning naming it (the build runs with -W: an error).
"""
from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

LOGGER = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]


def values_for(app, docname: str) -> dict:
    """The {expression: text} of a chapter (cached on the environment)."""
    cache = app.env.__dict__.setdefault("_eval_values", {})
    if docname not in cache:
        path = Path(app.config.eval_values_dir or ROOT / "_build" / "executed") / f"{docname}.eval.json"
        cache[docname] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    return cache[docname]


class EvalRole(SphinxRole):
    """``{eval}`expression` ``: the text the chapter's kernel gave for the expression."""

    def run(self):
        values = values_for(self.env.app, self.env.docname)
        expression = self.text
        if values is None:
            LOGGER.warning(f"{{eval}}`{expression}`: no evaluated values for {self.env.docname} "
                           f"(execute the chapters with book/_tools/execute_chapters.py)",
                           location=self.get_location(), type="eval", subtype="missing")
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        entry = values.get(expression)
        if entry is None or "error" in entry:
            why = "not evaluated" if entry is None else entry["error"]
            LOGGER.warning(f"{{eval}}`{expression}`: {why}", location=self.get_location(), type="eval",
                           subtype="value")
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        return [nodes.inline(self.rawtext, entry["text"], classes=["pasted-text"])], []


def _override(app):
    app.add_role("eval", EvalRole(), override=True)


def setup(app):
    app.add_config_value("eval_values_dir", "", "env")
    app.connect("builder-inited", _override)  # after myst-nb registered its own `eval`
    _override(app)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
