"""Alt text for notebook figures, carried in the output's metadata (ledger.figures.show sets it).

myst-nb 1.4 reads an image's alt text only from cell metadata (`mystnb: {image: {alt: ...}}`, one text
for every image of the cell) and takes only width and height from an output's own metadata. This
extension also takes `alt` from the output metadata of the image's MIME type, so each figure's
description sits in the code that draws it: `show(fig, alt="...")`. Cell-level alt still works and
an output's own alt wins over it.
"""
from myst_nb.core.render import NbElementRenderer

_ORIGINAL = NbElementRenderer.render_image


def render_image_with_alt(self, data):
    """myst-nb's image rendering, then the alt text from the output metadata when there is one."""
    nodes = _ORIGINAL(self, data)
    alt = (data.output_metadata or {}).get(data.mime_type, {}).get("alt")
    if alt:
        for node in nodes:
            node["alt"] = str(alt)
    return nodes


def setup(app):
    if NbElementRenderer.render_image is not render_image_with_alt:
        NbElementRenderer.render_image = render_image_with_alt
    return {"parallel_read_safe": True, "parallel_write_safe": True}
