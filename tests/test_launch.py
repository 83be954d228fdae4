"""Launch buttons, Binder and the chapters' Colab install cell.

- A build with `repository.url` set (a copy of _config.yml with a URL and no notebook execution, two
  chapters only: cheap) carries Binder and Colab links on each chapter, pointing at that chapter.
- The committed config (no URL yet) builds without launch buttons instead of failing.
- Binder finds what it needs: binder/ installs the pinned requirements and the library.
- Every chapter starts with the install cell for the configured repository; the cell does nothing
  where `ledger` is installed and installs it where it is not.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import launch_cell  # noqa: E402
import page_hygiene  # noqa: E402

REPO = "https://github.com/example-org/transforms-in-training-workloads"
CHAPTERS = ["notebooks/05_amdahl_table", "notebooks/07_layer_major"]


@pytest.fixture(scope="module")
def published_build(tmp_path_factory) -> Path:
    """The landing page and two chapters built with a repository URL set and no execution."""
    tmp = tmp_path_factory.mktemp("published")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["repository"] = {"url": REPO, "path_to_book": "", "branch": "main"}
    config["execute"] = {"execute_notebooks": "off"}
    local = config["sphinx"]["local_extensions"]  # relative to the config file: make them absolute
    config["sphinx"]["local_extensions"] = {name: str(ROOT / path) for name, path in local.items()}
    (tmp / "_config.yml").write_text(yaml.safe_dump(config))
    toc = {"format": "jb-book", "root": "book/intro", "chapters": [{"file": c} for c in CHAPTERS]}
    (tmp / "_toc.yml").write_text(yaml.safe_dump(toc))
    done = subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", str(ROOT),
                           "--config", str(tmp / "_config.yml"), "--toc", str(tmp / "_toc.yml"),
                           "--path-output", str(tmp)],
                          cwd=ROOT, capture_output=True, text=True, check=False, timeout=600)
    html = tmp / "_build" / "html"
    assert (html / "notebooks" / "05_amdahl_table.html").exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return html


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_published_build_offers_binder_and_colab(published_build, chapter):
    page = (published_build / f"{chapter}.html").read_text(encoding="utf-8")
    links = set(re.findall(r'href="(https://[^"]+)"', page))
    binder = f"https://mybinder.org/v2/gh/example-org/transforms-in-training-workloads/main?urlpath=tree/{chapter}.ipynb"
    colab = f"https://colab.research.google.com/github/example-org/transforms-in-training-workloads/blob/main/{chapter}.ipynb"
    assert binder in links, sorted(links)
    assert colab in links, sorted(links)


def test_the_landing_page_has_no_launch_menu(published_build):
    assert "mybinder.org" not in (published_build / "book" / "intro.html").read_text(encoding="utf-8")


def test_without_a_repository_the_launch_providers_are_dropped():
    theme = {"repository_url": "", "launch_buttons": {"notebook_interface": "classic",
                                                      "binderhub_url": "https://mybinder.org",
                                                      "colab_url": "https://colab.research.google.com"}}
    page_hygiene._launch_needs_repository(None, SimpleNamespace(html_theme_options=theme))
    assert theme["launch_buttons"] == {"notebook_interface": "classic"}
    kept = {"repository_url": REPO, "launch_buttons": {"binderhub_url": "https://mybinder.org"}}
    page_hygiene._launch_needs_repository(None, SimpleNamespace(html_theme_options=kept))
    assert kept["launch_buttons"] == {"binderhub_url": "https://mybinder.org"}


def test_the_committed_config_names_binder_and_colab():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["launch_buttons"]["binderhub_url"] and config["launch_buttons"]["colab_url"]
    assert "url" in config["repository"], "the one setting to change when publishing"


def test_binder_installs_the_requirements_and_the_library():
    requirements = (ROOT / "binder" / "requirements.txt").read_text().split()
    assert "../requirements.txt" in requirements and "-r" in requirements
    post_build = ROOT / "binder" / "postBuild"
    assert post_build.stat().st_mode & 0o111, "postBuild must be executable"
    assert re.search(r"pip install .*-e \.\s*$", post_build.read_text(), re.MULTILINE)
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    major, minor = map(int, runtime.removeprefix("python-").split("."))
    floor = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert (major, minor) >= tuple(map(int, floor.removeprefix(">=").split(".")))


def _run_install_cell(source: str, ledger_found: bool) -> list[tuple[str, str]]:
    """Run the cell's IPython source with a stand-in shell; return the magics it called."""
    from IPython.core.inputtransformer2 import TransformerManager

    calls: list[tuple[str, str]] = []
    shell = SimpleNamespace(run_line_magic=lambda name, line, *a: calls.append((name, line)))
    code = TransformerManager().transform_cell(source)
    import importlib.util

    real = importlib.util.find_spec
    importlib.util.find_spec = (lambda name, *a: None if name == "ledger" else real(name, *a)) if not ledger_found else real
    try:
        exec(compile(code, "<install cell>", "exec"), {"get_ipython": lambda: shell})
    finally:
        importlib.util.find_spec = real
    return calls


def test_install_cell_does_nothing_where_ledger_is_installed_and_installs_it_elsewhere():
    source = launch_cell.install_cell_source(REPO)
    assert _run_install_cell(source, ledger_found=True) == []
    calls = _run_install_cell(source, ledger_found=False)
    assert len(calls) == 1 and calls[0][0] == "pip"
    assert f"ledger @ git+{REPO}" in calls[0][1] and launch_cell.MYST_NB in calls[0][1]


def test_install_cell_without_a_repository_says_what_to_do():
    source = launch_cell.install_cell_source("")
    assert _run_install_cell(source, ledger_found=True) == []
    with pytest.raises(ModuleNotFoundError, match="names no repository"):
        _run_install_cell(source, ledger_found=False)


def test_every_chapter_starts_with_the_install_cell_for_the_configured_repository():
    bad = launch_cell.stale(launch_cell.chapters(), launch_cell.repository_url())
    assert not bad, ("chapters whose Colab install cell is missing or stale (run "
                     "`python book/_ext/launch_cell.py`): " + ", ".join(bad))


def test_writing_the_install_cell_puts_it_before_the_first_code_cell(tmp_path):
    import nbformat

    copy = tmp_path / "05_amdahl_table.ipynb"
    copy.write_text((ROOT / "notebooks" / "05_amdahl_table.ipynb").read_text())
    assert launch_cell.stale([copy], REPO) == [copy.name]
    assert launch_cell.write([copy], REPO) == [copy.name]
    assert launch_cell.write([copy], REPO) == []  # a second run changes nothing
    assert launch_cell.stale([copy], REPO) == []
    nb = nbformat.read(copy, as_version=4)
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert first_code.metadata["tags"] == ["remove-cell", launch_cell.TAG]
    assert nb.cells[0].cell_type == "markdown"  # the title stays first
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert launch_cell.write([copy], "") == [copy.name]  # refreshed when the URL changes
    assert launch_cell.stale([copy], REPO) == [copy.name]
