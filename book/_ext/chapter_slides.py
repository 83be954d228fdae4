"""Link each chapter page to its slides, <HTML root>/slides/<chapter>.html.

`make slides` writes the slides to _build/slides and a copy into the built book's slides/ folder
(the student edition copies them too), so that the links hold wherever the HTML is published. A
chapter is a page under notebooks/; the link goes right under the page title. `tx_slides_dir`
(default "slides") is the folder relative to the HTML root. HTML builders only.
"""
from docutils import nodes

CHAPTER_PREFIX = "notebooks/"


def slides_uri(docname: str, slides_dir: str) -> str:
    """The relative address of a chapter's slides from its page, e.g. ../slides/05_amdahl_table.html."""
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
    app.add_config_value("tx_slides_dir", "slides", "html")
    app.connect("doctree-resolved", _add_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
