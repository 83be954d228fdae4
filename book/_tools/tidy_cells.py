"""Pages show what they explain: hide the chapters' plumbing, name cited authors once, apply text fixes.

    python book/_tools/tidy_cells.py --apply [--notebooks DIR]   # idempotent: a second run changes nothing
    python book/_tools/tidy_cells.py --check                      # exit 1 naming what --apply would change

What it does to every chapter notebook (code is kept: a reader who runs the notebook runs all of it):

- **glue calls gathered**: the top-level `glue(...)` statements of a visible code cell move into a new
  cell right after it (id `<cell id>-glue`, tag `remove-cell`), unless a name they read is assigned
  again later in the cell; the cell keeps the code that teaches.
- **plumbing hidden**: a visible cell that only imports and sets the figure style gets `hide-input`
  (a reader may open it to see what the chapter uses); one that only glues gets `remove-cell`;
  a cell that draws a figure (`show(fig, ...)` with the drawing code in it) gets `hide-input`.
- **textual citations**: "Hoffmann et al. {cite}`hoffmann2022training`" becomes
  "{cite:t}`hoffmann2022training`" (rendered "Hoffmann et al. (2022)"), where the name before the
  role is the first author's surname of that key; the parenthetical form after a named author printed
  the names twice.
- **text fixes**: the `_fixes` of book/_tools/slide_text.json (exact replacements in one cell each).

Widget cells (tag `remove-output`) are left to the PDF's print style, which drops them.
`is_plumbing(source)` is the rule tests/test_book_html.py applies to the built pages.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = {"remove-cell", "remove-input", "hide-input", "remove_cell", "remove_input", "hide_input"}
STYLE_CALLS = {"figure_style"}
DATA = Path(__file__).with_name("slide_text.json")


def _call_name(node) -> str | None:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return None


def statement_kind(node) -> str:
    """"import", "glue", "style" (figure_style() or a matplotlib rcParams setting) or "other"."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return "import"
    name = _call_name(node)
    if name == "glue":
        return "glue"
    if name in STYLE_CALLS or name == "use" and "style" in ast.unparse(node):
        return "style"
    text = ast.unparse(node)
    if "rcParams" in text or name == "rc":
        return "style"
    return "other"


def is_plumbing(source: str) -> bool:
    """True for code that only imports, glues values or sets styles (what a page need not show)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    kinds = {statement_kind(node) for node in tree.body}
    return bool(kinds) and "other" not in kinds


def _names_read(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _names_assigned(node) -> set[str]:
    """Names a statement binds for the rest of the cell (a comprehension's own variables do not count)."""
    local = {n.id for c in ast.walk(node) if isinstance(c, ast.comprehension)
             for n in ast.walk(c.target) if isinstance(n, ast.Name)}
    return {n.id for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))} - local


def split_glue(source: str) -> tuple[str, str] | None:
    """(the cell without its movable glue statements, those statements) or None when none can move.
    A glue statement moves when no name it reads is assigned again after it in the cell."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines = source.splitlines()
    body = tree.body
    moving = []
    for i, node in enumerate(body):
        if statement_kind(node) != "glue":
            continue
        later = set().union(*(_names_assigned(n) for n in body[i + 1:])) if i + 1 < len(body) else set()
        if not (_names_read(node) & later):
            moving.append(node)
    if not moving or len(moving) == len(body):
        return None
    taken = set()
    for node in moving:
        taken |= set(range(node.lineno - 1, node.end_lineno))
    kept = [line for k, line in enumerate(lines) if k not in taken]
    glue = [line for k, line in enumerate(lines) if k in taken]
    kept_text = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")
    return kept_text, "\n".join(glue)


def _draws_figure(source: str) -> bool:
    return bool(re.search(r"^\s*show\(\s*fig", source, re.MULTILINE)) and (
        "plt.subplots" in source or "def draw_" in source)


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _set_source(cell, text: str) -> None:
    cell["source"] = text.splitlines(keepends=True)


def tidy_code(notebook: dict) -> list[str]:
    """Gather glue, hide plumbing and figure code in one notebook (in place); return what changed."""
    changes, cells = [], []
    for cell in notebook["cells"]:
        cells.append(cell)
        if cell["cell_type"] != "code":
            continue
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if set(tags) & HIDDEN or "remove-output" in tags:
            continue
        source = _source(cell)
        split = split_glue(source)
        if split:
            kept, glue = split
            _set_source(cell, kept)
            new = {"cell_type": "code", "execution_count": None, "id": f"{cell.get('id', 'cell')}-glue",
                   "metadata": {"tags": ["remove-cell"]}, "outputs": [], "source": []}
            _set_source(new, glue)
            cells.append(new)
            changes.append(f"{cell.get('id')}: {glue.count(chr(10)) + 1} glue line(s) moved to a remove-cell cell")
            source = kept
        if is_plumbing(source):
            tag = "remove-cell" if all(statement_kind(n) == "glue" for n in ast.parse(source).body) else "hide-input"
            tags.append(tag)
            changes.append(f"{cell.get('id')}: {tag} (imports, glue or style only)")
        elif _draws_figure(source):
            tags.append("hide-input")
            changes.append(f"{cell.get('id')}: hide-input (drawing code of a figure)")
        if not tags:
            del cell["metadata"]["tags"]
    notebook["cells"] = cells
    return changes


def first_authors(bib: Path = ROOT / "book" / "references.bib") -> dict[str, str]:
    """{key: the first author's surname} for every entry of the bibliography."""
    from pybtex.database import parse_file

    found = {}
    for key, entry in parse_file(str(bib)).entries.items():
        people = entry.persons.get("author") or []
        if people:
            found[key] = " ".join(people[0].last_names).replace("{", "").replace("}", "")
    return found


NAMED_CITE = re.compile(r"(?P<name>[A-Z][\w\-]+)(?P<rest>(?:\s+et\s+al\.|\s+and\s+[A-Z][\w\-]+)?)\s+"
                        r"\{cite(?::p)?\}`(?P<keys>[^`,]+)`")


def textual_citations(text: str, surnames: dict[str, str]) -> str:
    """"Name et al. {cite}`key`" -> "{cite:t}`key`" where Name is the key's first author."""

    def one(match: re.Match) -> str:
        key = match.group("keys").strip()
        if surnames.get(key, "").split()[-1:] == [match.group("name")]:
            return f"{{cite:t}}`{key}`"
        return match.group(0)

    return NAMED_CITE.sub(one, text)


def apply_fixes(notebook: dict, stem: str, fixes: list[dict]) -> tuple[list[str], list[str]]:
    """Exact replacements from the fixes list for this chapter: (applied, not found)."""
    done, missing = [], []
    by_id = {c.get("id"): c for c in notebook["cells"]}
    for fix in (f for f in fixes if f["notebook"] == stem):
        cell = by_id.get(fix["cell"])
        text = _source(cell) if cell else ""
        if cell and fix["old"] in text:
            _set_source(cell, text.replace(fix["old"], fix["new"]))
            done.append(f"{fix['cell']}: {fix['why']}")
        elif not (cell and fix["new"] in text):
            missing.append(f"{stem} {fix['cell']}: text to fix not found ({fix['why']})")
    return done, missing


def tidy(path: Path, surnames: dict[str, str], fixes: list[dict]) -> tuple[dict, list[str], list[str]]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    changes, missing = apply_fixes(notebook, path.stem, fixes)
    changes += tidy_code(notebook)
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            before = _source(cell)
            after = textual_citations(before, surnames)
            if after != before:
                _set_source(cell, after)
                changes.append(f"{cell.get('id')}: textual citation")
    return notebook, changes, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--apply", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    surnames = first_authors()
    fixes = json.loads(DATA.read_text(encoding="utf-8")).get("_fixes", []) if DATA.exists() else []
    pending, missing_all = 0, []
    for path in sorted(args.notebooks.glob("[0-9][0-9]_*.ipynb")):
        notebook, changes, missing = tidy(path, surnames, fixes)
        missing_all += missing
        if changes:
            pending += len(changes)
            print(f"{path.stem}:\n  " + "\n  ".join(changes))
            if args.apply:
                path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for line in missing_all:
        print(f"tidy_cells: {line}", file=sys.stderr)
    if args.check and pending:
        return 1
    return 1 if missing_all else 0


if __name__ == "__main__":
    sys.exit(main())
