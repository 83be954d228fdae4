"""Helpers shared by the book tests: the chapters in the table of contents and the built HTML."""
from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from pathlib import Path
from typing import Iterator

import yaml

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
EXECUTED = ROOT / "_build" / "executed"  # what book/_tools/execute_chapters.py executed for this build
RENDERED = ROOT / "_build" / "jupyter_execute"  # what myst-nb rendered (read from the cache)


def toc_files() -> list[str]:
    """Every file named in _toc.yml, root first, without extension."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part["chapters"]]
    return files


def chapter_notebooks() -> list[Path]:
    return [ROOT / f"{f}.ipynb" for f in toc_files() if (ROOT / f"{f}.ipynb").exists()]


NO_TEXT = ("script", "style", "template")
"""Elements whose content is not text a reader sees (nor BeautifulSoup's get_text)."""


def html_tree(text: str):
    """A page's element tree without scripts, styles, templates and comments (their tails kept), so that
    `text_of` gives what BeautifulSoup's get_text gives, in a twentieth of its time (lxml's parser)."""
    import lxml.html
    from lxml import etree

    root = lxml.html.document_fromstring(text)
    etree.strip_elements(root, *NO_TEXT, etree.Comment, etree.ProcessingInstruction, with_tail=False)
    return root


def text_of(element, separator: str = "") -> str:
    """The text of an element of `html_tree` and its descendants, the pieces joined by `separator`."""
    return separator.join(element.itertext())


def words(element) -> str:
    """The text of an element of `html_tree`, its words joined by single spaces."""
    return " ".join(text_of(element, " ").split())


def figure_records() -> list[tuple[str, str, dict]]:
    """(chapter, cell id, the figure's records) for every figure the build kept for the slides
    (ledger.figures.keep_figure: its output's metadata has "min_type_pt"), in the executed chapters: the
    output's image/png metadata with the layout records and "slide" drawing `make slides` wrote for it
    (book/_tools/figure_records.py)."""
    import json

    from figure_records import records_for

    folder = EXECUTED / "notebooks"
    if not folder.is_dir():
        raise AssertionError(f"{folder} is missing: build the book first (make book)")
    found = []
    for path in sorted(folder.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                meta = output.get("metadata", {}).get("image/png", {})
                if "min_type_pt" in meta:
                    # a glued figure's output holds it under myst-nb's prefixed type
                    png = next(v for k, v in output["data"].items() if k.endswith("image/png"))
                    found.append((path.stem, cell.get("id"), {**meta, **records_for("".join(png))}))
    return found


def with_class(root, tag: str, name: str) -> list:
    """The `tag` elements under `root` with the class `name` (CSS `tag.name`), in document order."""
    return root.xpath(f".//{tag}[contains(concat(' ', normalize-space(@class), ' '), ' {name} ')]")


def built_page(docname: str) -> Path:
    page = HTML / f"{docname}.html"
    if not page.exists():
        raise AssertionError(f"{page} is missing: build the book first (make book)")
    return page


def executed_notebook(folder: Path, notebook: Path):
    """The executed copy of a chapter notebook in folder (EXECUTED or RENDERED), read with nbformat."""
    import nbformat

    copy = folder / notebook.relative_to(ROOT)
    if not copy.exists():
        raise AssertionError(f"{copy} is missing: build the book first (make book)")
    return nbformat.read(copy, as_version=4)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without logging; answers the browser's favicon request with 204 (the book has none)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@contextlib.contextmanager
def serve_directory(directory: Path) -> Iterator[str]:
    """Serve `directory` on a free port of 127.0.0.1 for the browser tests; yields its base URL (no slash)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            functools.partial(_QuietHandler, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
