"""The chapters' live widgets in a real JupyterLab front end, driven by Chromium.

Starts JupyterLab from the front-end environment `make lab-env` builds (.venv-lab) on 127.0.0.1, a
free port and a random token, serving COPIES of the notebooks in a temporary directory (JupyterLab
autosaves outputs into the notebooks it opens), and stops it at the end. It opens the chosen chapters
(CHAPTERS: by default the explorer, 09, and 01, 05, 06, which between them use every kind of
control; TX_FRONTEND_CHAPTERS=all for every chapter with a widget) and runs all their cells, their
kernels side by side; then, for each, it checks that no cell output is an error or stderr and that
the widget renders as a widget, that at 1280 x 800 with the file browser open no label, readout,
control, table cell or image of the widget is clipped, outside the notebook's visible area or
covered, and that moving one slider with the keyboard and changing one dropdown (or checkbox)
changes the printed numbers and the figure. Screenshots go to _build/frontend/ (a record for
reviewers, not an assertion).
"""
from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from chromium import ARGS, CHROMIUM

pytestmark = pytest.mark.frontend

ROOT = Path(__file__).resolve().parents[1]
LAB_VENV = Path(os.environ.get("TX_LAB_VENV", ROOT / ".venv-lab"))  # another lab environment, for a trial
JUPYTER = LAB_VENV / "bin" / "jupyter"
SHOTS = ROOT / "_build" / "frontend"
VIEWPORT = {"width": 1280, "height": 800}
START_TIMEOUT_S = 90
RUN_TIMEOUT_MS = 150_000
CHANGE_TIMEOUT_MS = 30_000

# Every chapter with a widget: the slider moved with the keyboard (its label), the dropdown changed
# (label, option) where there is one, a checkbox clicked (its label) where it is the chapter's other
# control, and whether the widget draws a figure (four chapters print tables only). Between them they
# use every kind of control the chapters have: Dropdown, SelectionSlider, FloatSlider,
# FloatLogSlider, IntSlider and Checkbox. 09 is the explorer panel (ledger.explore.explorer).
WIDGET_CHAPTERS = {
    "00_introduction.ipynb": {"slider": "step_tokens"},
    "01_six_n_rule.ipynb": {"slider": "step_tokens", "checkbox": "halve causal attention"},
    "02_correlation.ipynb": {"slider": "seq_len"},
    "03_three_passes.ipynb": {"slider": "seq_len", "dropdown": ("variant", "hybrid")},
    "04_block_circulant.ipynb": {"slider": "block"},
    "05_amdahl_table.ipynb": {"slider": "block", "dropdown": ("variant", "hybrid")},
    "06_masks.ipynb": {"slider": "gpus", "dropdown": ("variant", "hyena2_circulant")},
    "07_layer_major.ipynb": {"slider": "hbm_gb", "dropdown": ("variant", "hyena2_circulant")},
    "08_what_does_not_map.ipynb": {"slider": "enob", "dropdown": ("gradient_format", "fp32")},
    "09_explorer_in_jupyter.ipynb": {"slider": "tokens per step", "dropdown": ("variant", "hyena2")},
    "11_flops_per_token.ipynb": {"slider": "S"},
    "12_arithmetic_intensity.ipynb": {"slider": "TB/s"},
    "13_compute_and_time.ipynb": {"slider": "devices", "figure": False},
    "14_any_model.ipynb": {"slider": "S", "dropdown": ("model", "SmolLM-135M"), "figure": False},
    "15_reconciliation.ipynb": {"slider": "S", "figure": False},
    "16_measured.ipynb": {"slider": "FFT x", "figure": False},
}
# By default (make test) the explorer and three chapters that between them use every kind of control
# (73 s measured on the shared 2-core machine under load); TX_FRONTEND_CHAPTERS=all runs every
# chapter with a widget (223 s there, chapter 16 timing its kernels the longest), and a
# comma-separated list of numbers ("05,16") runs those chapters.
DEFAULT_CHAPTERS = ("01", "05", "06", "09")


def _chosen(choice: str) -> dict:
    if choice == "all":
        return WIDGET_CHAPTERS
    numbers = [n.strip() for n in choice.split(",") if n.strip()]
    known = {name[:2] for name in WIDGET_CHAPTERS}
    unknown = [n for n in numbers if n not in known]
    if unknown or not numbers:
        pytest.fail(f"TX_FRONTEND_CHAPTERS={choice!r}: give 'all' or chapter numbers among {sorted(known)}",
                    pytrace=False)
    return {name: spec for name, spec in WIDGET_CHAPTERS.items() if name[:2] in numbers}


CHAPTERS = _chosen(os.environ.get("TX_FRONTEND_CHAPTERS", ",".join(DEFAULT_CHAPTERS)))

# JupyterLab settings for the test's own, empty settings directory: every cell in the DOM (no
# windowing), no autosave, no news or update check (no network, no notification over the page).
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                        "checkForUpdates": False},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on copies of the notebooks: yields (base URL, token); stopped afterwards."""
    if not JUPYTER.exists():
        pytest.fail(f"the JupyterLab environment is missing ({JUPYTER}): run `make lab-env` first",
                    pytrace=False)
    tmp = tmp_path_factory.mktemp("lab")
    served = tmp / "book"
    shutil.copytree(ROOT / "notebooks", served / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "_build"))
    for shared in ("data",):  # chapters read ../data/configs
        (served / shared).symlink_to(ROOT / shared)
    settings = tmp / "settings"
    for name, values in LAB_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(settings),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"), "JUPYTER_CONFIG_DIR": str(tmp / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp / "runtime")}
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [str(JUPYTER), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={served}",
           "--LabApp.expose_app_in_browser=True"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = (tmp / "server.log").open("w")
    server = subprocess.Popen(cmd, cwd=served, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited with {server.returncode}: "
                            + (tmp / "server.log").read_text()[-2000:], pytrace=False)
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except (OSError, http.client.HTTPException):  # not listening yet, or half started
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer on {base} within {START_TIMEOUT_S} s", pytrace=False)
                time.sleep(0.3)
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)  # its own session: the server and the kernels it started
            server.wait()
        log.close()


@pytest.fixture(scope="module")
def page(lab):
    from playwright.sync_api import sync_playwright

    base, token = lab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            pg = browser.new_page(viewport=VIEWPORT)
            pg.goto(f"{base}/lab?token={token}")
            pg.wait_for_function("() => window.jupyterapp && window.jupyterapp.started !== undefined",
                                 timeout=60_000)
            pg.evaluate("() => window.jupyterapp.started")
            yield pg
        finally:
            browser.close()


# What the rendered markdown cells of a notebook panel show (jupyterlab-myst renders them into a
# `.myst` element and evaluates their {eval} roles in the kernel; without it, JupyterLab's own
# renderer), one string per cell, folded solutions included (textContent, not innerText).
MARKDOWN_TEXT = """(id) => {
  const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.id === id);
  return panel.content.widgets.filter(c => c.model.type === 'markdown').map(c => {
    const shown = c.node.querySelector('.jp-InputArea > .myst, .jp-RenderedMarkdown');
    return shown ? shown.textContent : c.node.innerText;
  });
}"""

# Run code in a notebook's kernel (not in a cell) and return what it printed.
KERNEL_PRINT = """async ([id, code]) => {
  const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.id === id);
  const future = panel.sessionContext.session.kernel.requestExecute({code, store_history: false});
  let text = '';
  future.onIOPub = (msg) => { if (msg.header.msg_type === 'stream') text += msg.content.text; };
  await future.done;
  return text;
}"""
RAW_MARKUP = ("{glue", "{eval", "```{", ":::{", "{exercise}", "{solution}", "{math}")


# ---- JavaScript run in the page (JupyterLab's own commands and models) ----

# Open every chapter and Run All in each (the menu's Run > Run All Cells), all kernels at once: the
# chapters run side by side instead of one after another. Returns, per notebook, its panel's id,
# whether Run All completed, and every error output, stderr stream and cell that did not run.
OPEN_AND_RUN_ALL = """async (paths) => {
  const app = window.jupyterapp;
  const runs = paths.map(async (path) => {
    const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
    await panel.context.ready;
    await panel.sessionContext.ready;
    const ok = await app.commands.execute('notebook:run-all-cells', {widgetId: panel.id, activate: false});
    const errors = [];
    let index = 0;
    for (const cell of panel.content.model.cells) {
      if (cell.type === 'code') {
        for (const out of cell.outputs.toJSON()) {
          if (out.output_type === 'error') errors.push(`cell ${index}: ${out.ename}: ${out.evalue}`);
          if (out.output_type === 'stream' && out.name === 'stderr')
            errors.push(`cell ${index} wrote to stderr: ${String(out.text).slice(0, 300)}`);
        }
        if (cell.executionCount === null) errors.push(`cell ${index} did not run`);
      }
      index++;
    }
    panel.context.model.dirty = false;  // a copy: nothing to save, no dialog
    return [path, {ok, errors, id: panel.id}];
  });
  return Object.fromEntries(await Promise.all(runs));
}"""

# What a reader sees of the widget: its text (numbers) and a digest of each image's bytes.
STATE = """async (root) => {
  const digest = async (img) => {
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    const hash = await crypto.subtle.digest('SHA-256', bytes);
    return Array.from(new Uint8Array(hash)).map(b => b.toString(16).padStart(2, '0')).join('');
  };
  const images = [];
  for (const img of root.querySelectorAll('img')) {
    if (img.src) images.push(await digest(img));
  }
  const text = Array.from(root.querySelectorAll('.widget-html-content, .jp-OutputArea-output'))
    .filter(e => !e.querySelector('.jupyter-widgets')).map(e => e.innerText).join('\\n');
  return {text, images};
}"""

# Everything of the widget that a reader must see whole: labels, readouts, tracks, inputs, tables,
# images. Each must lie inside the notebook's visible area and its output area, not be cut short
# (scrollWidth > clientWidth), and be the element on top at its centre once scrolled into view.
LAYOUT_PROBLEMS = """(root) => {
  const problems = [];
  const scroller = root.closest('.jp-WindowedPanel-outer') || root.closest('.jp-Notebook');
  const area = root.closest('.jp-OutputArea-output');
  const fb = document.querySelector('#filebrowser');
  const fbBox = fb ? fb.getBoundingClientRect() : null;
  const name = (e) => {
    const cls = Array.from(e.classList).filter(c => !c.startsWith('lm-') && !c.startsWith('noUi-'));
    const text = e.tagName === 'SELECT' ? e.value : (e.children.length > 2 ? '' : e.innerText || '');
    return (cls.length ? cls.slice(-2).join('.') : e.tagName.toLowerCase()) + (text ? ` "${text.trim().slice(0, 30)}"` : '');
  };
  const parts = root.querySelectorAll(
    '.widget-label, .widget-readout, .widget-slider .slider, select, input[type=checkbox], '
    + '.widget-html-content td, img');
  if (parts.length === 0) problems.push('no controls found');
  for (const e of parts) {
    if (e.classList.contains('widget-label') && !e.textContent.trim()) continue;  // a widget without a description
    // Scroll the notebook (only vertically: scrolling clipped boxes sideways would hide the fault).
    const before = e.getBoundingClientRect(), frame = scroller.getBoundingClientRect();
    scroller.scrollTop += before.top + before.height / 2 - (frame.top + frame.height / 2);
    const r = e.getBoundingClientRect();
    const view = scroller.getBoundingClientRect();
    const out = area.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) { problems.push(`${name(e)} has no size`); continue; }
    if (r.left < view.left - 1 || r.right > view.right + 1)
      problems.push(`${name(e)} [${r.left.toFixed(0)}, ${r.right.toFixed(0)}] outside the notebook's visible area [${view.left.toFixed(0)}, ${view.right.toFixed(0)}]`);
    if (r.left < out.left - 1 || r.right > out.right + 1)
      problems.push(`${name(e)} [${r.left.toFixed(0)}, ${r.right.toFixed(0)}] outside its output area [${out.left.toFixed(0)}, ${out.right.toFixed(0)}]`);
    for (let a = e.parentElement; a && a !== area.parentElement; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const c = a.getBoundingClientRect();
      if (r.left < c.left - 1 || r.right > c.right + 1 || r.top < c.top - 1 || r.bottom > c.bottom + 1) {
        problems.push(`${name(e)} [${r.left.toFixed(0)}, ${r.right.toFixed(0)}] is clipped by its container ${name(a)} [${c.left.toFixed(0)}, ${c.right.toFixed(0)}]`);
        break;
      }
    }
    if (fbBox && fbBox.width > 0 && r.left < fbBox.right && r.right > fbBox.left && r.top < fbBox.bottom && r.bottom > fbBox.top)
      problems.push(`${name(e)} overlaps the file browser`);
    if ((e.classList.contains('widget-label') || e.classList.contains('widget-readout')) && e.scrollWidth > e.clientWidth + 1)
      problems.push(`${name(e)} is cut short (${e.scrollWidth} px of text in ${e.clientWidth} px)`);
    const x = Math.min(Math.max(r.left + r.width / 2, 0), window.innerWidth - 1);
    const y = Math.min(Math.max(r.top + r.height / 2, 0), window.innerHeight - 1);
    const top = document.elementFromPoint(x, y);
    if (!(top && (e === top || e.contains(top) || top.contains(e) && top.closest('.jupyter-widgets') === e.closest('.jupyter-widgets'))))
      problems.push(`${name(e)} is covered by ${top ? name(top) : 'nothing'}`);
  }
  return problems;
}"""


def _widget_root(page, notebook_id: str, chapter: str):
    """The rendered widget of the chapter: the top-level jupyter-widgets element of its output."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    panel = page.locator(f"#{notebook_id}")
    root = panel.locator(".jp-OutputArea-output > .jupyter-widgets").first
    try:
        root.wait_for(state="visible", timeout=30_000)
    except PlaywrightTimeout:
        shown = panel.locator(".jp-OutputArea-output").all_inner_texts()
        hint = [t for t in shown if "interactive(" in t or "Box(" in t or "widget" in t.lower()][:1]
        pytest.fail(f"{chapter}: no widget rendered within 30 s (a text repr instead: {hint})", pytrace=False)
    return root


def _control(root, cls: str, label: str):
    return root.locator(f".{cls}").filter(has=root.page.locator(f"label.widget-label:text-is('{label}')")).first


def _changes(page, root, act, what: str, figure: bool = True):
    """Do `act`, then wait until the widget's printed numbers (and its figure, if it draws one) differ."""
    before = root.evaluate(STATE)
    act()
    deadline = time.monotonic() + CHANGE_TIMEOUT_MS / 1000
    while True:
        page.wait_for_timeout(250)
        now = root.evaluate(STATE)
        if now["text"] != before["text"] and (not figure or now["images"] and now["images"] != before["images"]):
            return now
        if time.monotonic() > deadline:
            changed = [k for k in ("text", "images") if now[k] != before[k]]
            wanted = "numbers and figure" if figure else "numbers"
            pytest.fail(f"{what}: the widget did not redraw its {wanted} within {CHANGE_TIMEOUT_MS // 1000} s "
                        f"(changed: {changed or 'nothing'})", pytrace=False)


def _file_browser_open(page):
    fb = page.locator("#filebrowser")
    if not fb.is_visible():
        page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
    fb.wait_for(state="visible", timeout=10_000)
    assert fb.bounding_box()["width"] > 150, "the file browser is not open"


@pytest.fixture(scope="module")
def ran(page) -> dict:
    """Every chapter of CHAPTERS opened and Run All, keyed by file name."""
    done = page.evaluate(OPEN_AND_RUN_ALL, [f"notebooks/{c}" for c in CHAPTERS])
    return {path.split("/")[-1]: result for path, result in done.items()}


@pytest.mark.parametrize("chapter", list(CHAPTERS))
def test_chapter_widget_in_jupyterlab(page, ran, chapter):
    spec = CHAPTERS[chapter]
    result = ran[chapter]
    page.evaluate("(id) => window.jupyterapp.shell.activateById(id)", result["id"])
    _file_browser_open(page)
    assert result["errors"] == [], f"{chapter}: " + "; ".join(result["errors"])
    assert result["ok"], f"{chapter}: Run All did not complete"
    root = _widget_root(page, result["id"], chapter)
    assert root.locator(".widget-slider").count() > 0, f"{chapter}: no slider rendered"
    page.wait_for_function("(e) => !e.innerText.includes('Loading widget')", arg=root.element_handle())
    figure = spec.get("figure", True)
    first = root.evaluate(STATE)
    assert first["text"].strip(), f"{chapter}: the widget prints nothing"
    assert bool(first["images"]) == figure, f"{chapter}: expected {'a' if figure else 'no'} figure in the widget"

    _file_browser_open(page)
    problems = root.evaluate(LAYOUT_PROBLEMS)
    SHOTS.mkdir(parents=True, exist_ok=True)
    root.evaluate("(e) => e.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(SHOTS / f"{Path(chapter).stem}.png"))  # the window, file browser open
    height = root.bounding_box()["height"]
    if height > VIEWPORT["height"] - 200:  # the whole widget in one picture: a taller window, same width
        page.set_viewport_size({"width": VIEWPORT["width"], "height": int(height) + 300})
    root.screenshot(path=str(SHOTS / f"{Path(chapter).stem}-widget.png"))
    page.set_viewport_size(VIEWPORT)
    assert problems == [], f"{chapter} at 1280 x 800 with the file browser open: " + "; ".join(problems[:5])

    handle = _control(root, "widget-slider", spec["slider"]).locator(".noUi-handle")
    at_max = float(handle.get_attribute("aria-valuenow")) >= float(handle.get_attribute("aria-valuemax"))

    def move_slider():
        handle.focus()
        page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")

    _changes(page, root, move_slider, f"{chapter}: slider '{spec['slider']}' moved with the keyboard", figure)

    if "dropdown" in spec:
        label, option = spec["dropdown"]
        select = _control(root, "widget-dropdown", label).locator("select")
        _changes(page, root, lambda: select.select_option(label=option), f"{chapter}: dropdown '{label}' -> {option}",
                 figure)
    if "checkbox" in spec:
        box = root.locator(".widget-checkbox").filter(has_text=spec["checkbox"]).locator("input").first
        _changes(page, root, box.click, f"{chapter}: checkbox '{spec['checkbox']}'", figure)


def test_the_lab_environment_has_the_pinned_jupyterlab_and_the_myst_renderer():
    pins = dict(re.findall(r"^(JUPYTERLAB(?:_MYST)?_VERSION) := (\S+)", (ROOT / "Makefile").read_text(), re.MULTILINE))
    python = LAB_VENV / "bin" / "python"
    found = subprocess.run([str(python), "-c", "import importlib.metadata as m; "
                            "print(m.version('jupyterlab'), m.version('jupyterlab-myst'))"],
                           capture_output=True, text=True, check=False)
    assert found.returncode == 0, f"{LAB_VENV}: JupyterLab or jupyterlab-myst missing: run `make lab-env`"
    assert found.stdout.split() == [pins["JUPYTERLAB_VERSION"], pins["JUPYTERLAB_MYST_VERSION"]], found.stdout


@pytest.mark.parametrize("chapter", list(CHAPTERS))
def test_chapter_prose_renders_as_myst_with_its_numbers(page, ran, chapter):
    """The chapter's markdown, after Run All: no raw role or directive fence, and every {eval}
    expression's value, as the kernel gives it, in the rendered text."""
    import sys
    import nbformat
    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    from execute_chapters import EVAL_MARK, eval_cell_source, eval_expressions

    result = ran[chapter]
    assert result["errors"] == [], f"{chapter}: " + "; ".join(result["errors"])
    texts = page.evaluate(MARKDOWN_TEXT, result["id"])
    raw = [(i, m) for i, t in enumerate(texts) for m in RAW_MARKUP if m in t]
    assert not raw, f"{chapter}: markdown cell {raw[0][0]} shows raw {raw[0][1]!r}: {texts[raw[0][0]][:200]!r}"
    expressions = eval_expressions(nbformat.read(ROOT / "notebooks" / chapter, as_version=4))
    assert expressions, f"{chapter}: no {{eval}} prose numbers (run book/_tools/prose_eval.py)"
    printed = page.evaluate(KERNEL_PRINT, [result["id"], eval_cell_source(expressions)])
    values = json.loads(printed.split(EVAL_MARK, 1)[1])
    shown = "\n".join(texts)
    missing = [e for e, v in values.items() if "text" not in v or v["text"] not in shown]
    assert not missing, (f"{chapter}: {len(missing)} of {len(values)} prose numbers not shown, e.g. "
                         f"{missing[0]} = {values[missing[0]]}")


def test_the_labs_kernel_is_the_book_environment(page, ran):
    """`make lab-env` makes the kernel `python3` of JupyterLab the book's .venv (the environment the
    book is built in, without the server's packages, which cost a chapter seconds of CPU): the
    chapters above ran there."""
    book_env = (ROOT / ".venv").resolve()
    for chapter, result in ran.items():
        prefix = page.evaluate(KERNEL_PRINT, [result["id"], "import sys; print(sys.prefix)"]).strip()
        assert Path(prefix).resolve() == book_env, f"{chapter} ran in {prefix}, not in {book_env}"
