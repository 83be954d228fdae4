"""The executed chapters a build left behind, for the slide and student-edition builders.

myst-nb writes each executed chapter to _build/jupyter_execute/notebooks/<chapter>.ipynb (outputs
kept, glue outputs taken out) and its glued values to <chapter>.glue.json beside it. A folder of
executed notebooks that still carry their glue outputs (no .glue.json, e.g. from jupyter-cache or
nbclient) is read too: the glue outputs are taken out the same way. A copy is refused when its
cells differ from notebooks/<chapter>.ipynb or when a ledger module is newer: its numbers would be
stale.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]


class StaleBuild(Exception):
    """The executed copy of a chapter is missing or older than the chapter or the ledger."""


def chapter_stems(toc: Path = ROOT / "_toc.yml") -> list[str]:
    """The chapter notebooks, in the order of the table of contents."""
    return [m.group(1) for m in re.finditer(r"file:\s*notebooks/(\S+)", toc.read_text(encoding="utf-8"))]


def _cells(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source) for c in nb.cells]


def read_executed(executed: Path, stem: str, source: Path = ROOT / "notebooks"):
    """The executed copy of chapter `stem` and its glue data ({key: output}), checked to be current."""
    path = executed / f"{stem}.ipynb"
    if not path.exists():
        raise StaleBuild(f"{path} is missing: build the book first (`make book`) or pass another executed folder")
    notebook = nbformat.read(path, as_version=4)
    if _cells(notebook) != _cells(nbformat.read(source / f"{stem}.ipynb", as_version=4)):
        raise StaleBuild(f"{path} is older than notebooks/{stem}.ipynb (their cells differ): run `make book`")
    newer = [p.name for p in (ROOT / "ledger").rglob("*.py") if p.stat().st_mtime > path.stat().st_mtime]
    if newer:
        raise StaleBuild(f"{path} is older than ledger/{newer[0]}: its numbers may be stale, run `make book`")
    glue_file = executed / f"{stem}.glue.json"
    glue = json.loads(glue_file.read_text(encoding="utf-8")) if glue_file.exists() else {}
    return notebook, {**take_glue_outputs(notebook), **glue}


def take_glue_outputs(notebook) -> dict:
    """Remove the glue outputs still in a notebook's cells and return them as {key: output}, their
    mime types without the glue prefix (the form of myst-nb's .glue.json)."""
    glue = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            scrapbook = output.get("metadata", {}).get("scrapbook")
            if not scrapbook:
                kept.append(output)
                continue
            prefix = scrapbook.get("mime_prefix", "")
            output["data"] = {k[len(prefix):] if k.startswith(prefix) else k: v for k, v in output["data"].items()}
            glue[scrapbook["name"]] = output
            if not prefix:
                kept.append(output)
        cell.outputs = kept
    return glue
