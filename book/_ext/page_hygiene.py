"""Fixes to the theme's pages: a clean browser console, and no launch buttons without a repository.

- Jupyter Book's setup registers sphinx-thebe's and sphinx-togglebutton's configuration scripts
  twice (at different priorities); the second `const THEBE_JS_URL` is a SyntaxError in the
  console of every page. Keep each script once.
- pydata-sphinx-theme's layout starts the colour mode from a `default_mode` template variable
  that nothing sets here, and logs "Got invalid theme mode" for the empty value: set "auto".
- One search box per page: _config.yml drops the sidebar's search field (the header keeps its
  search button); the search page, which has its own field, also drops the header's.
- _config.yml names Binder and Colab for the rocket menu, but the links need `repository.url`,
  which stays empty until the book is published. Without it sphinx-book-theme would fail on every
  notebook page (it unpacks a missing repository), so the launch providers are dropped until the
  URL is set.
"""

LAUNCH_PROVIDERS = ("binderhub_url", "jupyterhub_url", "colab_url", "deepnote_url", "jupyterlite_url", "thebe")


def _launch_needs_repository(app, config):
    options = config.html_theme_options or {}
    if not str(options.get("repository_url", "") or "").strip():
        launch = dict(options.get("launch_buttons") or {})
        for key in LAUNCH_PROVIDERS:
            launch.pop(key, None)
        options["launch_buttons"] = launch


def _script_key(script):
    attributes = getattr(script, "attributes", {}) or {}
    filename = getattr(script, "filename", script) or ""  # body-only scripts carry None or ""
    return str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items()))


SEARCH_PAGE_STYLE = "<style>.article-header-buttons .search-button { display: none !important; }</style>"


def _one_search_box_on_the_search_page(pagename, context):
    """The search page has its own search field: drop the header's search button and field there."""
    if pagename == "search":
        context["theme_navbar_persistent"] = []
        context["metatags"] = context.get("metatags", "") + SEARCH_PAGE_STYLE


def _clean_page(app, pagename, templatename, context, doctree):
    context.setdefault("default_mode", "auto")
    _one_search_box_on_the_search_page(pagename, context)
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
    app.connect("config-inited", _launch_needs_repository)
    app.connect("html-page-context", _clean_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
