"""Link each chapter page to its slides (written by `make slides` as <slides dir>/<chapter>.html).

A chapter is a page under notebooks/; the link goes right under the page title. `tx_slides_dir` is
where the slides sit relative to the HTML root: "../slides" for the book in _build/html (slides in
_build/slides); the student edition (_build/student/html) sets "../../slides". HTML builders only.
"""
from docutils import nodes

CHAPTER_PREFIX = "notebooks/"


def slides_uri(docname: str, slides_dir: str) -> str:
    """The relative address of a chapter's slides from its page, e.g. ../../slides/05_amdahl_table.html."""
    up = "../" * docname.count("/")
    return f"{up}{slides_dir.rstrip('/')}/{docname.rsplit('/', 1)[-1]}.html"


def _add_link(app, doctree, docname):
    if app.builder.format != "html" or not docname.startswith(CHAPTER_PREFIX):
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None or not section.children or not isinstance(section[0], nodes.title):
        return
    link = nodes.reference("", "Slides for this chapter", internal=False,
                           refuri=slides_uri(docname, app.config.tx_slides_dir))
    paragraph = nodes.paragraph("", "", link, classes=["chapter-slides-link"])
    section.insert(1, paragraph)


def setup(app):
    app.add_config_value("tx_slides_dir", "../slides", "html")
    app.connect("doctree-resolved", _add_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
