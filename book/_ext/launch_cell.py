"""The first cell of every chapter: install `ledger` where it is missing (Colab), do nothing elsewhere.

A chapter opened in Colab from the rocket menu is a lone notebook: the library is not there. The
cell installs it from the repository that `repository.url` in _config.yml names, with myst-nb (the
chapters glue their numbers with it). Where `ledger` is importable (`make lab`, `make book`, nbval,
Binder) the cell does nothing. The cell is tagged `remove-cell`: the pages do not show it.

    python book/_ext/launch_cell.py          # write (or refresh) the cell in every chapter from _config.yml
    python book/_ext/launch_cell.py --check  # exit 1 and name the chapters whose cell is missing or stale

tests/test_launch.py runs the check, so changing `repository.url` and forgetting to refresh fails.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[2]
TAG = "colab-install"
"""The tag that marks the install cell (with remove-cell, which hides it from the pages)."""
MYST_NB = "myst-nb==1.4.0"
"""The chapters import myst_nb.glue; the version requirements.txt pins."""


def repository_url(config: Path = ROOT / "_config.yml") -> str:
    """`repository.url` of the book's _config.yml ('' until the book is published)."""
    return str((yaml.safe_load(config.read_text()) or {}).get("repository", {}).get("url") or "").strip()


def install_cell_source(repo_url: str) -> str:
    """The source of the install cell for a book published at `repo_url` ('' if not published yet)."""
    head = ("# Colab (or any machine without the book's library): install `ledger` from the book's repository.\n"
            "# Where it is installed already (make lab, Binder, the book's build) this cell does nothing.\n"
            "import importlib.util\n\n"
            'if importlib.util.find_spec("ledger") is None:\n')
    if repo_url:
        return head + f'    %pip install --quiet "ledger @ git+{repo_url.rstrip("/")}" "{MYST_NB}"'
    return head + ('    raise ModuleNotFoundError("ledger is not installed and this copy of the book names no repository "\n'
                   '                              "(repository.url in _config.yml): run `make lab` in a clone")')


def chapters() -> list[Path]:
    """Every notebook in the table of contents, in order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc.get("parts", []) for c in part["chapters"]]
    return [ROOT / f"{f}.ipynb" for f in files if (ROOT / f"{f}.ipynb").exists()]


def install_cell(nb) -> nbformat.NotebookNode | None:
    """The notebook's install cell (its first code cell, tagged colab-install), or None."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    if code and TAG in code[0].get("metadata", {}).get("tags", []):
        return code[0]
    return None


def stale(paths: list[Path], repo_url: str) -> list[str]:
    """The chapters whose install cell is missing or does not match `repo_url`."""
    want = install_cell_source(repo_url)
    bad = []
    for path in paths:
        cell = install_cell(nbformat.read(path, as_version=4))
        if cell is None or cell.source != want:
            bad.append(path.name)
    return bad


def write(paths: list[Path], repo_url: str) -> list[str]:
    """Put the install cell first in every chapter (replacing an older one); return those changed."""
    want = install_cell_source(repo_url)
    changed = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        cell = install_cell(nb)
        if cell is not None and cell.source == want:
            continue
        if cell is None:
            cell = nbformat.v4.new_code_cell(want, metadata={"tags": ["remove-cell", TAG]})
            first_code = next(k for k, c in enumerate(nb.cells) if c.cell_type == "code")
            nb.cells.insert(first_code, cell)
        else:
            cell.source = want
        if nb.nbformat_minor < 5:  # cell ids arrived with nbformat 4.5
            cell.pop("id", None)
        nbformat.write(nb, path)
        changed.append(path.name)
    return changed


def main(argv: list[str]) -> int:
    url = repository_url()
    if argv == ["--check"]:
        bad = stale(chapters(), url)
        if bad:
            print(f"install cell missing or stale (repository.url = {url!r}) in: {', '.join(bad)}; "
                  "run python book/_ext/launch_cell.py", file=sys.stderr)
            return 1
        return 0
    if argv:
        print("usage: launch_cell.py [--check]", file=sys.stderr)
        return 2
    changed = write(chapters(), url)
    print(f"install cell written in {len(changed)} chapter(s)" + (f": {', '.join(changed)}" if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
