"""Accessible pages: axe-core (the pinned npm package of package.json) audits a built page in Chromium
against WCAG 2 A and AA; no serious or critical violation may remain.

The audit runs inside the offline crawl's one load of each page (tests/test_offline.py,
test_accessibility_axe_finds_no_serious_violation): axe.min.js from the npm install the Makefile makes
(_build/npm/node_modules; TX_NODE_MODULES for another) is injected once the page's formulas are
typeset and its network is quiet, and `axe.run` runs with the tags wcag2a and wcag2aa on every built
page but a redirect (index.html, whose target is audited). That test fails, not skips, when axe-core
is missing or not the pinned version (the crawl's other checks still run).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE_MODULES = Path(os.environ.get("TX_NODE_MODULES", ROOT / "_build" / "npm" / "node_modules"))
TAGS = ["wcag2a", "wcag2aa"]
BLOCKING = ["serious", "critical"]
REDIRECT = re.compile(r"http-equiv=.refresh", re.IGNORECASE)
"""A page that only redirects (index.html) has nothing to audit; its target is audited."""

AUDIT_JS = """async ([tags, blocking]) => {
    // resultTypes: only the violations carry every node; the passes, the incomplete and the
    // inapplicable carry one node each (axe still runs every rule on the whole page; it only skips
    // building a selector for each passing node, and sending them all back).
    const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
    return {
        rules: [...new Set(['violations', 'passes', 'incomplete', 'inapplicable'].flatMap(k => result[k].map(r => r.id)))].sort(),
        blocking: result.violations.filter(v => blocking.includes(v.impact)).map(v => ({
            id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
            targets: v.nodes.slice(0, 3).map(n => n.target.map(String).join(' ')),
        })),
    };
}"""
"""What the audit returns for one page: the ids of the rules axe ran, and each serious or critical
violation with its impact, its help text, how many elements and the first three elements' selectors."""


def pinned_axe() -> str:
    """The text of axe.min.js from the npm install, checked to be the version package.json pins
    (AssertionError, saying which, when it is missing or another version)."""
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"]["axe-core"]
    package = NODE_MODULES / "axe-core" / "package.json"
    if not package.exists():
        raise AssertionError(f"{package} is missing: run `make slides` (it installs the pinned npm packages)")
    installed = json.loads(package.read_text())["version"]
    assert installed == pinned, f"axe-core {installed} is installed, package.json pins {pinned}"
    return (NODE_MODULES / "axe-core" / "axe.min.js").read_text(encoding="utf-8")


@dataclass(frozen=True)
class AxeScript:
    """axe.min.js to inject (text, kept out of a failure's report), or why there is none (problem)."""
    text: str = field(repr=False)
    problem: str


def load_axe() -> AxeScript:
    """The pinned axe.min.js, or the reason it cannot be had (missing, or another version)."""
    try:
        return AxeScript(pinned_axe(), "")
    except AssertionError as problem:
        return AxeScript("", str(problem))


def audited(html: Path, names: list[str]) -> list[str]:
    """The pages among `names` (relative to `html`) that axe audits: all but a redirect."""
    return [name for name in names if not REDIRECT.search((html / name).read_text(encoding="utf-8")[:3000])]


def violations(name: str, audit: dict) -> list[str]:
    """One line per serious or critical violation on a page, naming the rule and the elements."""
    return [f"{name}: {v['id']} ({v['impact']}, {v['count']} element(s), e.g. {v['targets']}): {v['help']}"
            for v in audit["blocking"]]
