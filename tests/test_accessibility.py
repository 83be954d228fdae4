"""Accessible pages: axe-core (the pinned npm package of package.json) audits every built page in
Chromium against WCAG 2 A and AA, and no serious or critical violation may remain.

Serves the built HTML (`make book`; TX_BOOK_HTML for another build) on 127.0.0.1, injects axe.min.js
from the npm install the Makefile makes (_build/npm/node_modules; TX_NODE_MODULES for another),
waits for MathJax, and runs `axe.run` with the tags wcag2a and wcag2aa (WCAG 2.0 A and AA) on each
page. The test fails, not skips, when the book or axe-core is missing.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from book_pages import serve_directory

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("TX_BOOK_HTML", ROOT / "_build" / "html"))
NODE_MODULES = Path(os.environ.get("TX_NODE_MODULES", ROOT / "_build" / "npm" / "node_modules"))
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", "_sphinx_design_static", "slides"}
TAGS = ["wcag2a", "wcag2aa"]
BLOCKING = {"serious", "critical"}
REDIRECT = re.compile(r"http-equiv=.refresh", re.IGNORECASE)
"""A page that only redirects (index.html) has nothing to audit; its target is audited."""


def pinned_axe() -> Path:
    """axe.min.js from the npm install, checked to be the version package.json pins."""
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"]["axe-core"]
    package = NODE_MODULES / "axe-core" / "package.json"
    if not package.exists():
        pytest.fail(f"{package} is missing: run `make slides` (it installs the pinned npm packages)")
    installed = json.loads(package.read_text())["version"]
    assert installed == pinned, f"axe-core {installed} is installed, package.json pins {pinned}"
    return NODE_MODULES / "axe-core" / "axe.min.js"


def pages() -> list[str]:
    if not (HTML / "index.html").exists():
        pytest.fail(f"{HTML} holds no built book: run `make book`")
    return sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
                  if p.relative_to(HTML).parts[0] not in SKIP_DIRS and not REDIRECT.search(p.read_text()[:3000]))


def test_axe_finds_no_serious_violation():
    from playwright.sync_api import sync_playwright

    axe = pinned_axe().read_text(encoding="utf-8")
    found, audited = [], 0
    with serve_directory(HTML) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith((base, "data:", "blob:"))
                   else r.abort())
        for name in pages():
            page.goto(f"{base}/{name}", wait_until="load")
            page.evaluate("""async () => { const mj = window.MathJax;
                if (mj && mj.startup && mj.startup.promise) { await mj.startup.promise; } }""")
            page.add_script_tag(content=axe)
            result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", TAGS)
            audited += 1
            for violation in result["violations"]:
                if violation["impact"] in BLOCKING:
                    targets = [" ".join(map(str, n["target"])) for n in violation["nodes"][:3]]
                    found.append(f"{name}: {violation['id']} ({violation['impact']}, {len(violation['nodes'])} "
                                 f"element(s), e.g. {targets}): {violation['help']}")
        browser.close()
    assert audited >= 20, f"only {audited} pages audited"
    assert not found, "axe-core (WCAG 2 A/AA) finds serious or critical violations:\n" + "\n".join(found)
