"""Two fixes to the theme's pages so that a reader's browser console stays clean.

- Jupyter Book's setup registers sphinx-thebe's and sphinx-togglebutton's configuration scripts
  twice (at different priorities); the second `const THEBE_JS_URL` is a SyntaxError in the
  console of every page. Keep each script once.
- pydata-sphinx-theme's layout starts the colour mode from a `default_mode` template variable
  that nothing sets here, and logs "Got invalid theme mode" for the empty value: set "auto".
"""


def _script_key(script):
    attributes = getattr(script, "attributes", {}) or {}
    filename = getattr(script, "filename", script) or ""  # body-only scripts carry None or ""
    return str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items()))


def _clean_page(app, pagename, templatename, context, doctree):
    context.setdefault("default_mode", "auto")
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


def setup(app):
    app.connect("html-page-context", _clean_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
