"""Turn the chapters' glued prose numbers into `{eval}` roles, so that JupyterLab shows them.

Idempotent; the lead re-runs it after merging chapter edits:

    python book/_tools/prose_eval.py            # rewrite every chapter in notebooks/
    python book/_tools/prose_eval.py --check    # exit 1 naming the chapters still to convert

In each chapter notebook:
- ``{glue:text}`key:fmt` `` (and ``{glue}`key` ``) in markdown becomes ``{eval}`f'{glued.key:fmt}'` ``: the
  same text (an f-string formats a number as myst-nb's format spec does), evaluated by
  jupyterlab-myst in the running kernel, and by book/_ext/eval_values.py from the values the
  book's executor took from the chapter's kernel;
- `from myst_nb import glue` becomes `from ledger.glue import glue`, which also keeps each glued
  value in the notebook as `glued.<key>`, where the expressions find it (and the student
  environment needs no myst-nb).
Cells are matched by id; nothing else changes.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GLUE_ROLE = re.compile(r"\{glue(?::text|:any)?\}`(?P<key>[A-Za-z_]\w*)(?::(?P<fmt>[^`]*))?`")
MYST_IMPORT = re.compile(r"^([ \t]*)from myst_nb import glue[ \t]*$", re.MULTILINE)
LEDGER_IMPORT = r"\1from ledger.glue import glue"


def eval_role(match: re.Match) -> str:
    """The `{eval}` role that prints what the glue role printed: myst-nb formats a value with the
    spec after converting it to int for an integer type (d, b, o, x, X, c), as `int(key)` does here."""
    key, fmt = match.group("key"), match.group("fmt")
    value = f"int(glued.{key})" if fmt and fmt[-1] in "bcdoxX" else f"glued.{key}"
    return "{eval}`f'{" + value + (":" + fmt if fmt else "") + "}'`"


def convert_source(source: str, cell_type: str) -> str:
    if cell_type == "markdown":
        return GLUE_ROLE.sub(eval_role, source)
    if cell_type == "code":
        return MYST_IMPORT.sub(LEDGER_IMPORT, source)
    return source


def convert(path: Path, write: bool = True) -> bool:
    """Convert one notebook (stored form: indent 1, UTF-8, trailing newline); True when it changed."""
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    changed = False
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        new = convert_source(source, cell["cell_type"])
        if new != source:
            cell["source"] = new.splitlines(keepends=True)
            changed = True
    if changed and write:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a chapter needs converting")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/*.ipynb")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    changed = [p.name for p in paths if convert(p, write=not args.check)]
    if args.check:
        if changed:
            print(f"prose_eval: still glue roles or myst-nb imports in {', '.join(changed)}", file=sys.stderr)
            return 1
        return 0
    print(f"prose_eval: converted {len(changed)} of {len(paths)} chapters{': ' + ', '.join(changed) if changed else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
