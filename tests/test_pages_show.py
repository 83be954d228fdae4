"""Pages show what they explain: no visible code cell of the built book only imports, glues values or
sets styles (book/_tools/tidy_cells.py hides those), and widget code is not printed.

Reads the built HTML (`make book` first; the test fails, not skips, without it). A cell is visible
unless its input is removed or collapsed (tags remove-input, remove-cell, hide-input).
"""
from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import pytest

from book_pages import HTML, built_page, toc_files

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_tools"))
from tidy_cells import is_plumbing  # noqa: E402

CELL = re.compile(r'<div class="cell(?P<classes>[^"]*)"[^>]*>\s*(?P<rest><div class="cell_input.*?</pre>)', re.DOTALL)


def visible_inputs(page: str) -> list[str]:
    """The code of every code cell whose input a reader sees on the page."""
    found = []
    for match in CELL.finditer(page):
        if re.search(r"tag_(remove|hide)[-_]input|tag_remove[-_]cell", match.group("classes")):
            continue
        code = re.search(r"<pre[^>]*>(.*?)</pre>", match.group("rest"), re.DOTALL)
        if code:
            found.append(html.unescape(re.sub(r"<[^>]+>", "", code.group(1))))
    return found


@pytest.mark.parametrize("source,plumbing", [
    ("import numpy as np\nfrom ledger.figures import figure_style\n\nfigure_style()", True),
    ('glue("a", 1, display=False)\nglue("b", 2.5, display=False)', True),
    ('row = ledger.step_row(variant="hyena2")\nglue("a", row.step_share, display=False)', False),
    ("display(html_table(['a'], [[1]]))", False),
])
def test_the_rule(source, plumbing):
    assert is_plumbing(source) is plumbing


def test_no_visible_cell_is_plumbing():
    shown = []
    for doc in toc_files():
        if not doc.startswith("notebooks/"):
            continue
        for code in visible_inputs(built_page(doc).read_text(encoding="utf-8")):
            if is_plumbing(code):
                shown.append(f"{doc}: {code.strip().splitlines()[0]} ... ({len(code.splitlines())} lines)")
    assert HTML.exists()
    assert not shown, "cells that only import, glue or set styles are shown:\n" + "\n".join(shown)


def test_tidy_cells_gathers_glue_hides_plumbing_and_names_authors_once():
    import copy

    from tidy_cells import split_glue, textual_citations, tidy_code

    kept, glue = split_glue('row = f(1)\nglue("a", row, display=False)\ndisplay(row)\nglue("b", 2, display=False)')
    assert kept == "row = f(1)\ndisplay(row)" and glue == 'glue("a", row, display=False)\nglue("b", 2, display=False)'
    # a glue call that reads a name assigned again later stays where it is
    assert split_glue('x = 1\nglue("a", x, display=False)\nx = 2\nshow(x)') is None
    notebook = {"cells": [
        {"cell_type": "code", "id": "imp", "metadata": {}, "source": ["import numpy as np\n", "figure_style()"]},
        {"cell_type": "code", "id": "t", "metadata": {}, "source": ["r = g()\n", "glue(\"k\", r, display=False)\n", "display(r)"]},
        {"cell_type": "code", "id": "w", "metadata": {"tags": ["remove-output"]}, "source": ["import ipywidgets"]},
    ]}
    changes = tidy_code(notebook)
    cells = {c["id"]: c for c in notebook["cells"]}
    assert cells["imp"]["metadata"]["tags"] == ["hide-input"]
    assert "".join(cells["t"]["source"]) == "r = g()\ndisplay(r)" and "tags" not in cells["t"]["metadata"]
    assert cells["t-glue"]["metadata"]["tags"] == ["remove-cell"] and "glue(" in "".join(cells["t-glue"]["source"])
    assert cells["w"]["metadata"]["tags"] == ["remove-output"] and len(changes) == 2
    again = copy.deepcopy(notebook)
    assert tidy_code(again) == [] and again == notebook
    surnames = {"hoffmann2022training": "Hoffmann", "kaplan2020scaling": "Kaplan"}
    assert textual_citations("Hoffmann et al. {cite}`hoffmann2022training` fitted", surnames) == \
        "{cite:t}`hoffmann2022training` fitted"
    assert textual_citations("as Hoffmann et al. {cite}`kaplan2020scaling` say", surnames) == \
        "as Hoffmann et al. {cite}`kaplan2020scaling` say"  # another paper's authors: left alone
