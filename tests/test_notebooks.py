"""Static checks of the chapter notebooks: stored clean, with exercises, key-number checks and figures."""
import json

import pytest
from book_pages import ROOT, chapter_notebooks

NOTEBOOKS = chapter_notebooks()
IDS = [p.stem for p in NOTEBOOKS]


def load(path):
    return json.loads(path.read_text())


NOT_CHAPTERS = ["install_check.ipynb"]
"""Notebooks of the folder that are not chapters: the install check (tests/test_install_check.py), which
the book leaves out (exclude_patterns in _config.yml) and the student folder carries."""


def test_every_notebook_in_the_folder_is_in_the_toc():
    assert sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")) == sorted(
        [p.name for p in NOTEBOOKS] + NOT_CHAPTERS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_stored_without_outputs(path):
    for cell in load(path)["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, \
                f"{path.name}: a code cell is stored with outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_key_numbers_are_asserted_in_hidden_cells(path):
    checks = [c for c in load(path)["cells"] if c["cell_type"] == "code"
              and "remove-cell" in c.get("metadata", {}).get("tags", []) and "assert" in "".join(c["source"])]
    assert checks, f"{path.name}: no remove-cell cell asserts the chapter's numbers"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_exercises_with_hidden_solutions(path):
    text = "".join("".join(c["source"]) for c in load(path)["cells"] if c["cell_type"] == "markdown")
    assert text.count("```{exercise}") >= 2, f"{path.name}: fewer than two exercises"
    assert text.count("```{solution}") >= 2 and ":class: dropdown" in text, f"{path.name}: solutions not hidden"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_widgets_have_no_output_on_the_static_page(path):
    for cell in load(path)["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and any(call in source for call in ("live_panel(", "interactive(", "explorer(", "interact(")):
            tags = cell.get("metadata", {}).get("tags", [])
            assert "remove-output" in tags or "remove-cell" in tags, f"{path.name}: a widget cell shows its output"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_cell_is_skipped_by_nbval(path):
    """nbval passes a skipped or exception-tolerant cell silently: no chapter may have one."""
    for cell in load(path)["cells"]:
        tags = set(cell.get("metadata", {}).get("tags", []))
        source = "".join(cell["source"])
        assert not tags & {"nbval-skip", "raises-exception", "skip-execution"}, f"{path.name}: {tags}"
        assert "NBVAL_SKIP" not in source and "NBVAL_RAISES_EXCEPTION" not in source, path.name
