"""Accessibility fixes to the built pages (axe-core, WCAG 2 A/AA: tests/test_offline.py, tests/axe_audit.py).

- A box that scrolls sideways (`style="overflow-x: auto"`, e.g. a wide table a chapter builds as
  HTML) must be reachable by keyboard and named: it gets `tabindex="0" role="region"` and an
  `aria-label` (axe's scrollable-region-focusable; ledger.figures.html_table writes these itself).
- The bibliography: docutils writes `role="list"` with children of the deprecated role
  `doc-biblioentry`, which a list may not hold (aria-required-children); they become `listitem`.
- Links inside exercise and admonition boxes, where the theme's link colour falls below 4.5:1
  on the box's tint, get a darker blue (book/_static/accessibility.css).
"""
import re

SCROLL_BOX = re.compile(r'<div(?P<attrs>(?:(?!tabindex)[^>])*?style="[^"]*overflow(?:-x)?:\s*auto[^"]*"(?:(?!tabindex)[^>])*)>')


def accessible_body(body: str) -> str:
    """The page body with named, focusable scroll boxes and a bibliography list of list items."""
    def label(match: re.Match) -> str:
        attrs = match.group("attrs")
        extra = ' tabindex="0"'
        if "role=" not in attrs:
            extra += ' role="region"'
        if "aria-label" not in attrs:
            extra += ' aria-label="Table (scrolls sideways)"'
        return f"<div{attrs}{extra}>"

    body = SCROLL_BOX.sub(label, body)
    return body.replace('role="doc-biblioentry"', 'role="listitem"')


def _page(app, pagename, templatename, context, doctree):
    if "body" in context and isinstance(context["body"], str):
        context["body"] = accessible_body(context["body"])


def setup(app):
    app.add_css_file("accessibility.css")
    app.connect("html-page-context", _page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
