"""Build one reveal.js deck per chapter from the executed chapter notebooks (`make slides`).

A deck is for projecting: 16:9 at 1280x720, each prose slide a heading and a few short lines (at
most about 40 words) written for it and kept in the chapter's cell metadata (`tx_slides`, see
book/_tools/slide_text.py), and speaker notes written for the speaker in book/slide_notes/<stem>.yml
(minutes, talking points, a question, a misconception; keyed by the slide's title, assign_keys; `S`
opens the speaker view of reveal.js's notes plugin, shipped with the deck). In order:

- the objectives: the chapter's title and its Overview's lines (session 1's also names the
  install fallback, first_slide_fallback);
- for every other section (`##` or `###`): a slide with the lines written for it, then one slide
  per display equation (formulas set side by side stacked, split_equation), table and figure the section shows
  (outputs, markdown tables and glued figures); figures are the slide-size drawings
  `ledger.figures.show` keeps in the output's metadata (larger type, at least 18 px on the slide);
  a table keeps its caption (a short markdown line the same cell shows just before it, such as
  "**Hyena-2, S = 4,096**", or the short bold or colon-ended paragraph just before a markdown
  table), so that a projected table names what it shows; a table is split over slides of at most
  TABLE_SLIDE_ROWS rows and TABLE_SLIDE_WORDS words, and one that would need more than
  TABLE_MAX_SLIDES slides is a page for reading: one slide names it, says how many rows it has and
  links the chapter;
- the summary, and last the exercises: each label with one line;
- Prerequisites, Imports and the widget sections (Explore...) are left out.

A section without written lines falls back to its lead paragraph (marked data-text="rule"; the
tests require written lines). A cell's `slideshow.slide_type` metadata (Jupyter's own field)
overrides the rule: "skip" leaves the cell out, "slide" or "subslide" puts the whole cell on a slide.

Numbers are the glued ones: the builder reads the executed notebooks myst-nb leaves in
_build/jupyter_execute/notebooks (each with its `.glue.json`), replaces every `{glue:text}` role
with the value formatted as myst-nb formats it, and refuses an executed copy whose cells differ
from the chapter in notebooks/ (a stale build). Citations read "(Author year)", or "Author (year)"
for `{cite:t}`; a `{doc}` link reads "chapter 6 (“Title”)". reveal.js and MathJax come from the
pinned npm packages (package.json) and are copied next to the slides, so they work offline. With
--book-html the same slides are also written into the built book's slides/ folder, which its
chapter pages link (book/_ext/chapter_slides.py), so that the published HTML carries them.
"""
from __future__ import annotations

import argparse
import base64
import html
import json
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import slide_text
from executed import StaleBuild, chapter_stems, read_executed
from figure_records import RecordsMissing, records_for
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from myst_nb.core.variables import format_plain_text

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_SECTIONS = re.compile(r"^(prerequisites|imports|explore\b.*)$", re.IGNORECASE)
HIDDEN_OUTPUT_TAGS = {"remove-output", "remove-cell", "remove_output", "remove_cell"}
ROLE = re.compile(r"\{(?P<name>[a-z:\-]+)\}`(?P<body>[^`]*)`")
FENCE = re.compile(r"^(`{3,}|~{3,}|:{3,})")
GLUE_FIGURE = re.compile(r"^(?:`{3,}|:{3,})\{glue(?::figure|:any)?\}[ \t]+([\w.\-]+)", re.MULTILINE)
DIRECTIVE_BLOCK = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z\-]+)\}[^\n]*\n(?P<body>.*?)^(?P=fence)\s*$",
                             re.MULTILINE | re.DOTALL)


class SlideError(Exception):
    """A chapter the builder cannot turn into slides; the message names the chapter and the cause."""


# ---------------------------------------------------------------- reading a chapter

@dataclass
class Section:
    """One heading of a chapter with the markdown under it and the outputs its code cells show."""

    level: int
    title: str
    markdown: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)      # HTML of figures and tables, in order
    forced: list[tuple[str, str]] = field(default_factory=list)  # ("markdown"|"html", text) of cells marked "slide"


def _slide_type(cell) -> str:
    return cell.get("metadata", {}).get("slideshow", {}).get("slide_type", "")


def _split_headings(text: str) -> list[tuple[int, str, str]]:
    """Split markdown into (level, heading, body) chunks at ATX headings outside code fences;
    text before the first heading comes back with level 0."""
    chunks, level, title, body, fence = [], 0, "", [], None
    for line in text.splitlines():
        marker = FENCE.match(line)
        if marker and fence is None:
            fence = marker.group(1)
        elif marker and fence is not None and line.strip() == fence:
            fence = None
        heading = re.match(r"^(#{1,3})\s+(.*?)\s*#*\s*$", line) if fence is None else None
        if heading:
            chunks.append((level, title, "\n".join(body)))
            level, title, body = len(heading.group(1)), heading.group(2), []
        else:
            body.append(line)
    chunks.append((level, title, "\n".join(body)))
    return [c for c in chunks if c[0] or c[2].strip()]


def _output_html(output) -> str | None:
    """A figure or a table from one code-cell output, or None for anything else (streams, glue)."""
    if output.get("output_type") not in ("display_data", "execute_result"):
        return None
    data = output.get("data", {})
    metadata = output.get("metadata", {})

    def alt(mime: str) -> str:
        # The chapter's alt text (ledger.figures.show puts it in the output's metadata), as on its page.
        return html.escape(metadata.get(mime, {}).get("alt", "figure"), quote=True)

    if "image/png" in data:
        png = data["image/png"]
        png = png if isinstance(png, str) else "".join(png)
        if "min_type_pt" in metadata.get("image/png", {}):  # kept by the build (ledger.figures.keep_figure): its
            slide = records_for(png)["slide"]  # drawing for a slide (figure_records.py), larger type at its size
            return (f'<img class="figure" alt="{alt("image/png")}" data-min-font-px="{slide["min_font_px"]:.1f}" '
                    f'src="data:image/png;base64,{slide["png"].strip()}">')
        return f'<img class="figure" alt="{alt("image/png")}" src="data:image/png;base64,{png.strip()}">'
    if "image/svg+xml" in data:
        svg = data["image/svg+xml"]
        svg = svg if isinstance(svg, str) else "".join(svg)
        return (f'<img class="figure" alt="{alt("image/svg+xml")}" '
                f'src="data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}">')
    if "text/html" in data:
        markup = data["text/html"]
        markup = markup if isinstance(markup, str) else "".join(markup)
        if "<table" in markup:
            return f'<div class="slide-table">{markup}</div>'
    return None


CAPTION_WORDS = 20
"""A markdown output or paragraph of at most this many words just before a table is its caption."""


def _caption_text(output) -> str | None:
    """The text of a short markdown (or plain-HTML) output that can caption the table after it."""
    if output.get("output_type") not in ("display_data", "execute_result"):
        return None
    data = output.get("data", {})
    for mime in ("text/markdown", "text/html"):
        if mime in data:
            text = data[mime] if isinstance(data[mime], str) else "".join(data[mime])
            if "<table" in text or "<img" in text:
                return None
            if mime == "text/markdown":
                text = MD.renderInline(text.strip())
            words = re.sub(r"<[^>]+>", " ", text).split()
            return text.strip() if 0 < len(words) <= CAPTION_WORDS else None
    return None


def _captioned_outputs(outputs) -> list[str]:
    """The figures and tables of one cell's outputs (_output_html), each table with the caption the
    cell showed just before it (a short markdown line), as <p class="table-caption">."""
    shown, caption = [], None
    for output in outputs:
        markup = _output_html(output)
        if markup is None:
            caption = _caption_text(output) or (caption if output.get("output_type") == "stream" else None)
            continue
        if caption and _output_kind(markup) == "table":
            markup = markup.replace('<div class="slide-table">', f'<div class="slide-table"><p class="table-caption">'
                                    f'{caption}</p>', 1)
        shown.append(markup)
        caption = None
    return shown


def read_sections(notebook) -> list[Section]:
    """The chapter as a list of sections, each with its markdown and the outputs the page shows."""
    sections = [Section(0, "")]
    for cell in notebook.cells:
        kind = _slide_type(cell)
        if kind == "skip":
            continue
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell.cell_type == "markdown":
            if kind in ("slide", "subslide"):
                sections[-1].forced.append(("markdown", cell.source))
                continue
            for level, title, body in _split_headings(cell.source):
                if level:
                    sections.append(Section(level, title))
                if body.strip():
                    sections[-1].markdown.append(body)
        elif cell.cell_type == "code" and not tags & HIDDEN_OUTPUT_TAGS:
            shown = _captioned_outputs(cell.get("outputs", []))
            if kind in ("slide", "subslide"):
                sections[-1].forced.extend(("html", h) for h in shown)
            else:
                sections[-1].outputs.extend(shown)
    return sections


# ---------------------------------------------------------------- MyST roles and markdown

def glue_text(raw: dict) -> dict[str, str]:
    """The glued values of one chapter as their text/plain representations (from myst-nb's .glue.json)."""
    values = {}
    for key, output in raw.items():
        data = output.get("data", {})
        text = data.get("text/plain")
        if text is not None:
            values[key] = text if isinstance(text, str) else "".join(text)
    return values


def load_citations(bib: Path) -> dict[str, str]:
    """Author-year labels ('Kaplan et al. 2020') for every key of the bibliography."""
    from pybtex.database import parse_file

    labels = {}
    for key, entry in parse_file(str(bib)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [" ".join(p.last_names) or str(p) for p in people]
        if not names:
            who = entry.fields.get("organization", entry.fields.get("title", key))
        elif len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        labels[key] = f"{who} {entry.fields.get('year', '')}".strip().replace("{", "").replace("}", "")
    return labels


@dataclass
class Context:
    """What the role replacements need: the chapter's glue values, citations and chapter titles."""

    chapter: str
    glue: dict[str, str]
    citations: dict[str, str]
    titles: dict[str, str]
    chapter_page: str = ""
    glue_outputs: dict = field(default_factory=dict)
    eval_values: dict = field(default_factory=dict)  # {expression: {"text": ...}}, <chapter>.eval.json
    texts: dict = field(default_factory=dict)   # {key: (slide lines, origin)}, book/_tools/slide_text.py
    citations_textual: dict = field(default_factory=dict)  # {key: "Hoffmann et al. (2022)"}
    first_slide_extra: str = ""  # HTML the objectives slide adds (session 1's install fallback)


def _role_text(body: str) -> str:
    explicit = re.match(r"^(.*?)\s*<([^>]+)>$", body, re.DOTALL)
    return explicit.group(1) if explicit else body


def replace_roles(text: str, ctx: Context) -> str:
    """Replace the MyST roles the chapters use by plain text: glued values formatted as myst-nb does,
    citations as (Author year), document links by the chapter's title."""

    def one(match: re.Match) -> str:
        name, body = match.group("name"), match.group("body")
        if name.startswith("glue"):
            key, _, fmt = body.partition(":")
            if key not in ctx.glue:
                raise SlideError(f"{ctx.chapter}: glue key {key!r} is used in the text but not glued in the executed "
                                 f"notebook (run `make book` first)")
            return html.escape(format_plain_text(ctx.glue[key], fmt))
        if name == "eval":  # the text the chapter's kernel gave (book/_ext/eval_values.py)
            value = ctx.eval_values.get(body, {})
            if "text" not in value:
                raise SlideError(f"{ctx.chapter}: {{eval}}`{body}` has no value in the executed chapter "
                                 f"({value.get('error', 'not evaluated')}; run `make book` first)")
            return html.escape(value["text"])
        if name in ("cite", "cite:p", "cite:t"):
            keys = [k.strip() for k in body.split(",")]
            unknown = [k for k in keys if k not in ctx.citations]
            if unknown:
                raise SlideError(f"{ctx.chapter}: citation key(s) {unknown} are not in book/references.bib")
            if name == "cite:t":  # the authors are the sentence's subject: Hoffmann et al. (2022)
                return "; ".join(ctx.citations_textual.get(k, ctx.citations[k]) for k in keys)
            return "(" + "; ".join(ctx.citations[k] for k in keys) + ")"
        if name == "doc":
            label = _role_text(body)
            if label != body:
                return html.escape(label)
            return html.escape(_chapter_reference(body.rsplit("/", 1)[-1], ctx, match))
        return html.escape(_role_text(body))

    return ROLE.sub(one, text)


def _chapter_reference(target: str, ctx: Context, match: re.Match) -> str:
    """A {doc} link as words of a sentence: "chapter 6 (“Masks rewritten ...”)", or "6 (“...”)" after
    the word "chapter(s)" (so "Chapter {doc}`01_six_n_rule` rebuilds" reads "Chapter 1 (“The 6N rule,
    reproduced”) rebuilds")."""
    title = ctx.titles.get(target, target)
    number = re.match(r"^(\d+)_", target)
    if not number:
        return f"“{title}”"
    before = match.string[:match.start()]
    lead = "" if re.search(r"\b[Cc]hapters?\s+(?:\S+\s+(?:and|,)\s+)?$", before) else "chapter "
    return f"{lead}{int(number.group(1))} (“{title}”)"


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    md.use(dollarmath_plugin, double_inline=True)
    md.add_render_rule("math_inline", lambda self, tokens, idx, options, env:
                       f"\\({html.escape(tokens[idx].content)}\\)")
    md.add_render_rule("math_inline_double", lambda self, tokens, idx, options, env:
                       f'<div class="equation">\\[{html.escape(tokens[idx].content)}\\]</div>')
    md.add_render_rule("math_block", lambda self, tokens, idx, options, env:
                       f'<div class="equation">\\[{html.escape(tokens[idx].content)}\\]</div>\n')
    return md


MD = _markdown()


def _blocks(text: str) -> list[list]:
    """The top-level blocks of a markdown text, each the list of its tokens."""
    blocks, current, depth = [], [], 0
    for token in MD.parse(text):
        current.append(token)
        depth += token.nesting
        if depth == 0:
            blocks.append(current)
            current = []
    return blocks


def _render(blocks: list[list]) -> str:
    return MD.renderer.render([t for b in blocks for t in b], MD.options, {})


def _kind(block: list) -> str:
    return block[0].type.replace("_open", "")


def _strip_directives(text: str) -> str:
    """Drop MyST directive blocks ({exercise}, {solution}, admonitions...) from slide text."""
    return DIRECTIVE_BLOCK.sub("", text)


# ---------------------------------------------------------------- choosing the slides

def _lead(blocks: list[list]) -> list[list]:
    """The first paragraph (with what it introduces when it ends with a colon), or the first list."""
    chosen = []
    for i, block in enumerate(blocks):
        kind = _kind(block)
        if kind in ("bullet_list", "ordered_list", "math_block"):
            return [block]
        if kind == "paragraph":
            chosen.append(block)
            inline = block[1].content.rstrip()
            if inline.endswith(":") and i + 1 < len(blocks) and _kind(blocks[i + 1]) in (
                    "bullet_list", "ordered_list", "math_block"):
                chosen.append(blocks[i + 1])
            return chosen
    return chosen


@dataclass
class Slide:
    """One slide: what it shows, the speaker notes (the chapter's own text) and what kind it is.

    kind: "objectives", "prose", "summary", "exercises" (prose slides: short lines written for the
    slide, with notes), or "figure", "table", "equation", "forced" (one object, a one-line caption).
    origin: where a prose slide's lines come from: "chapter" (cell metadata), "json" (the slide-text
    file not yet applied) or "rule" (no written lines: the section's lead paragraph, a fallback).
    """

    html: str
    kind: str
    notes: str = ""
    origin: str = ""
    title: str = ""   # the heading the slide shows, as plain text: its speaker notes' key (notes_key)
    key: str = ""     # its key in book/slide_notes/<stem>.yml (assign_keys)
    notes_origin: str = ""  # "written" when its notes come from the notes store

    def section(self) -> str:
        attrs = f' data-kind="{self.kind}"' + (f' data-text="{self.origin}"' if self.origin else "")
        attrs += f' data-notes="{self.notes_origin}"' if self.notes_origin else ""
        attrs += f' data-key="{html.escape(self.key, quote=True)}"' if self.key else ""
        notes = f'\n<aside class="notes">{self.notes}</aside>' if self.notes else ""
        return f"<section{attrs}>\n{self.html}{notes}\n</section>"


def _written(ctx: Context, key: str) -> tuple[str, str] | None:
    """The slide lines written for `key` with the roles replaced, and their origin; None when there are none."""
    found = ctx.texts.get(key)
    if not found:
        return None
    text, origin = found
    return MD.render(replace_roles(text, ctx)), origin


def _notes(text: str) -> str:
    """The chapter's paragraphs of a section for the speaker notes: prose, lists and equations
    (tables, code fences and raw HTML have slides of their own or none)."""
    blocks = [b for b in _blocks(_strip_directives(text)) if _kind(b) not in ("fence", "html_block", "table")]
    return _render(blocks)


def _exercises(markdown: str) -> list[tuple[str, str]]:
    """(label, statement) of every {exercise} block in a section's markdown."""
    found = []
    for match in DIRECTIVE_BLOCK.finditer(markdown):
        if match.group("name") != "exercise":
            continue
        body = match.group("body")
        label = re.search(r"^:label:\s*(\S+)", body, re.MULTILINE)
        statement = "\n".join(line for line in body.splitlines() if not line.startswith(":")).strip()
        found.append((label.group(1) if label else "exercise", statement))
    return found


def _exercise_slide(markdown: str, ctx: Context) -> Slide | None:
    """The last slide: each exercise's label and one line written for it; the statements go into the notes."""
    items, notes, origins = [], [], set()
    for label, statement in _exercises(markdown):
        written = ctx.texts.get(f"exercise:{label}")
        if written:
            line, origin = MD.renderInline(replace_roles(written[0], ctx)), written[1]
        else:
            line, origin = MD.renderInline(statement.split("\n\n")[0]), "rule"
        origins.add(origin)
        items.append(f"<li><code>{html.escape(label)}</code>: {line}</li>")
        notes.append(f"<p><code>{html.escape(label)}</code>: {MD.renderInline(' '.join(statement.split()))}</p>")
    if not items:
        return None
    origin = "rule" if "rule" in origins else "json" if "json" in origins else "chapter"
    body = ('<h2>Exercises</h2><ul class="exercises">' + "".join(items) + "</ul>"
            '<p class="how-to-check">Check answers with <code>ledger.exercises.check</code>.</p>')
    return Slide(body, "exercises", "".join(notes), origin)


def choose_slides(sections: list[Section], ctx: Context) -> list[Slide]:
    """The slides of one chapter, in order: the objectives, then for every section a prose slide (the
    lines written for it, its paragraphs in the notes) and one slide per equation, table and figure,
    the summary, and the exercises last."""
    slides: list[Slide] = []
    exercises: Slide | None = None
    intro = next((s for s in sections if s.level == 1), None)
    overview = next((s for s in sections if s.title.strip().lower() == "overview"), None)
    title = html.escape(intro.title if intro else ctx.chapter, quote=False)
    written = _written(ctx, "Overview")
    if written:
        objectives, origin = written
    else:
        text = replace_roles("\n\n".join(overview.markdown), ctx) if overview else ""
        objectives, origin = _render([b for b in _blocks(_strip_directives(text)) if _kind(b) == "bullet_list"][:1]), "rule"
    first = _notes(replace_roles("\n\n".join(intro.markdown), ctx)) if intro else ""
    slides.append(Slide(f'<h1>{title}</h1><p class="objectives-lead">In this chapter</p>{objectives}'
                        f'<p class="chapter-link"><a href="{ctx.chapter_page}">Read the chapter</a></p>'
                        f'{ctx.first_slide_extra}', "objectives", first, origin))
    for section in sections:
        text = replace_roles("\n\n".join(section.markdown), ctx)
        heading = html.escape(re.sub(r"\$([^$]+)\$", r"\\(\1\\)", section.title), quote=False)
        heading = replace_roles(heading, ctx)
        name = section.title.strip().lower()
        if section.level <= 1 or name == "overview" or SKIPPED_SECTIONS.match(name):
            pass
        elif name == "exercises":
            exercises = _exercise_slide(text, ctx)
        else:
            blocks = [b for b in _blocks(_strip_directives(text)) if _kind(b) not in ("fence", "html_block")]
            written = _written(ctx, section.title.strip())
            if written:
                lines, origin = written
                shown = []
            else:
                lead = _lead(blocks) if name != "summary" else [b for b in blocks if _kind(b) == "bullet_list"]
                lines, origin, shown = _render(lead), "rule", lead
            kind = "summary" if name == "summary" else "prose"
            if lines.strip():
                slides.append(Slide(f"<h2>{heading}</h2>{lines}", kind, _notes(text), origin))
            if "\\[" in lines:  # the written lines show the equations themselves
                shown = [b for b in blocks if _kind(b) == "math_block"]
            for block in blocks:
                if _kind(block) == "math_block" and block not in shown:
                    parts = split_equation(block[0].content)
                    shown_math = "".join(f'<div class="equation">\\[{html.escape(part)}\\]</div>\n' for part in parts)
                    slides.append(Slide(f"<h3>{heading}</h3>{shown_math}", "equation"))
            for k, block in enumerate(blocks):
                if _kind(block) == "table":
                    caption = _markdown_caption(blocks[k - 1]) if k else ""
                    slides += _table_slides(heading, f'<div class="slide-table">{caption}{_render([block])}</div>', ctx)
            for key in GLUE_FIGURE.findall(text):
                shown_html = _output_html(ctx.glue_outputs.get(key, {"output_type": "display_data"}))
                if shown_html is None:
                    raise SlideError(f"{ctx.chapter}: glued figure {key!r} has no image in the executed notebook")
                slides.append(Slide(f"<h3>{heading}</h3>{shown_html}", _output_kind(shown_html)))
            for shown_html in section.outputs:
                if _output_kind(shown_html) == "table":
                    slides += _table_slides(heading, shown_html, ctx)
                else:
                    slides.append(Slide(f"<h3>{heading}</h3>{shown_html}", "figure"))
        for kind, forced in section.forced:
            body = forced if kind == "html" else _render(_blocks(_strip_directives(replace_roles(forced, ctx))))
            slides.append(Slide(body, "forced"))
    if exercises:
        slides.append(exercises)
    return slides


def _top_level_splits(tex: str, separator: re.Pattern) -> list[str]:
    """`tex` cut at every match of `separator` outside braces and environments."""
    parts, depth, start, k = [], 0, 0, 0
    while k < len(tex):
        if tex.startswith("\\begin{", k):
            depth += 1
        elif tex.startswith("\\end{", k):
            depth -= 1
        elif tex[k] == "\\" and k + 1 < len(tex) and tex[k + 1] in "{}":
            k += 2
            continue
        elif tex[k] == "{":
            depth += 1
        elif tex[k] == "}":
            depth -= 1
        elif depth == 0:
            found = separator.match(tex, k)
            if found:
                parts.append(tex[start:k])
                start = k = found.end()
                continue
        k += 1
    return [p.strip() for p in parts + [tex[start:]] if p.strip().strip(",.;")]


EQUATION_SEPARATOR = re.compile(r"\\qquad\b")
"""Where a display equation that states several formulas side by side is cut into one line each: a
top-level `\\qquad`; side by side they run past a 1280 px slide (chapter 2's two
gradients), stacked they fit."""


FORMULA_CHARS = 25
"""A part after `\\qquad` shorter than this (in TeX, spaces left out) is the formula's condition
("i = 0, \\dots, L-1"), which stays beside it."""


def split_equation(tex: str) -> list[str]:
    """A display equation as the formulas it sets side by side (EQUATION_SEPARATOR), each shown on a
    line of its own on the slide; an equation with one formula (or a formula and its condition,
    FORMULA_CHARS) comes back whole. A trailing comma
    stays with its formula; a part that is only punctuation is dropped."""
    parts = _top_level_splits(tex.strip(), EQUATION_SEPARATOR)
    formulas = len(parts) > 1 and all(len("".join(p.split())) >= FORMULA_CHARS for p in parts)
    return parts if formulas else [tex.strip()]


# ---------------------------------------------------------------- speaker notes

NOTES_DIR = ROOT / "book" / "slide_notes"
NOTES_MAX_WORDS = 150
"""Words a slide's speaker notes hold at most (points, question and misconception)."""
NOTES_POINTS = (2, 4)
NOTES_KINDS = {"figure": "figure", "table": "table", "equation": "equation", "reading-table": "reading table",
               "forced": "slide"}
"""The bracketed kind that keys a slide other than the section's prose slide: "Title [figure]"."""


def _plain_heading(markup: str) -> str:
    """The first heading of a slide's HTML as plain text, math written back as $...$ (as the chapter does)."""
    found = re.search(r"<h([123])>(.*?)</h\1>", markup, re.DOTALL)
    if not found:
        return ""
    text = re.sub(r"\\\((.*?)\\\)", r"$\1$", found.group(2), flags=re.DOTALL)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())


def assign_keys(slides: list[Slide]) -> None:
    """Each slide's key in the notes store: its heading as the deck shows it (math as $...$), followed
    for a slide that is not its section's prose slide by its kind in brackets ("[figure]"), numbered
    when one heading has several of that kind ("[equation 1]", "[equation 2]"); the objectives slide is
    keyed by the chapter's title, the summary by "Summary", the exercises by "Exercises"."""
    counts: dict[str, int] = {}
    for slide in slides:
        slide.title = _plain_heading(slide.html)
        if slide.kind in NOTES_KINDS:
            slide.key = f"{slide.title} [{NOTES_KINDS[slide.kind]}]"
            counts[slide.key] = counts.get(slide.key, 0) + 1
        else:
            slide.key = slide.title
    seen: dict[str, int] = {}
    for slide in slides:
        if counts.get(slide.key, 0) > 1:
            seen[slide.key] = seen.get(slide.key, 0) + 1
            slide.key = f"{slide.key[:-1]} {seen[slide.key]}]"


def load_notes(stem: str, folder: Path = NOTES_DIR) -> dict:
    """The speaker notes written for one deck ({key: entry}); {} when none are written yet."""
    import yaml

    path = folder / f"{stem}.yml"
    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise SlideError(f"{path.name}: holds {type(data).__name__}; allowed: a mapping of slide titles to notes")
    return data


def notes_words(entry: dict) -> int:
    """Words of one slide's notes: its points, question and misconception (roles count as one word)."""
    text = " ".join([*entry.get("points", []), entry.get("question", ""), entry.get("misconception", "")])
    return len(ROLE.sub("x", text).split())


def check_notes_entry(stem: str, key: str, entry) -> None:
    """Refuse notes the speaker view cannot show as written: the four parts, 2-4 points, whole minutes,
    at most NOTES_MAX_WORDS words."""
    where = f"book/slide_notes/{stem}.yml {key!r}"
    if not isinstance(entry, dict) or set(entry) != {"minutes", "points", "question", "misconception"}:
        found = sorted(entry) if isinstance(entry, dict) else type(entry).__name__
        raise SlideError(f"{where}: has {found}; allowed: exactly minutes, points, question, misconception")
    minutes = entry["minutes"]
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not 0 < minutes <= 20:
        raise SlideError(f"{where}: minutes {minutes!r}; allowed: a number of minutes above 0, at most 20")
    points = entry["points"]
    if not isinstance(points, list) or not NOTES_POINTS[0] <= len(points) <= NOTES_POINTS[1] or \
            not all(isinstance(p, str) and p.strip() for p in points):
        raise SlideError(f"{where}: points {points!r}; allowed: a list of {NOTES_POINTS[0]}-{NOTES_POINTS[1]} sentences")
    for part in ("question", "misconception"):
        if not isinstance(entry[part], str) or not entry[part].strip():
            raise SlideError(f"{where}: {part} {entry[part]!r}; allowed: one non-empty sentence")
    words = notes_words(entry)
    if words > NOTES_MAX_WORDS:
        raise SlideError(f"{where}: {words} words; allowed: at most {NOTES_MAX_WORDS}")


def render_notes(entry: dict, ctx: Context) -> str:
    """One slide's notes as the speaker view shows them; roles filled from the chapter's glue."""
    def inline(text: str) -> str:
        return MD.renderInline(replace_roles(text, ctx))

    minutes = entry["minutes"]
    points = "".join(f"<li>{inline(p)}</li>" for p in entry["points"])
    return (f'<p class="notes-minutes">{minutes:g} min</p><ul class="notes-points">{points}</ul>'
            f'<p class="notes-question"><strong>Ask:</strong> {inline(entry["question"])}</p>'
            f'<p class="notes-misconception"><strong>Misconception:</strong> {inline(entry["misconception"])}</p>')


def apply_notes(stem: str, slides: list[Slide], ctx: Context, notes: dict) -> None:
    """Put the written notes on their slides (assign_keys first). A slide with no notes written shows
    none: the chapter's paragraphs are for reading, not for speaking. A key that names no slide of the
    deck (a renamed heading, a typo) is refused."""
    keys = {slide.key for slide in slides}
    unknown = sorted(set(notes) - keys)
    if unknown:
        raise SlideError(f"book/slide_notes/{stem}.yml: keys {unknown} name no slide of the deck; "
                         f"allowed: {sorted(keys)}")
    for slide in slides:
        slide.notes, slide.notes_origin = "", ""
        if slide.key in notes:
            check_notes_entry(stem, slide.key, notes[slide.key])
            slide.notes, slide.notes_origin = render_notes(notes[slide.key], ctx), "written"


def _markdown_caption(block: list) -> str:
    """A paragraph that captions the markdown table after it (all bold, or ending with a colon, and
    at most CAPTION_WORDS words), as <p class="table-caption">; "" otherwise."""
    if _kind(block) != "paragraph":
        return ""
    inline = block[1].content.strip()
    bold = re.fullmatch(r"\*\*[^*]+\*\*[.:]?", inline)
    if not (bold or inline.endswith(":")) or len(inline.split()) > CAPTION_WORDS:
        return ""
    return f'<p class="table-caption">{MD.renderInline(inline)}</p>'


TABLE_SLIDE_ROWS = 6
"""Body rows a table slide shows at most (the header is repeated on every slide)."""
TABLE_SLIDE_WORDS = 90
"""Words a table slide shows at most, its heading, caption, header and cells counted: a table is
read by column and its cells are mostly numbers, so it may show more than a prose slide's 60."""
TABLE_MAX_SLIDES = 3
"""A table that would need more slides than this is a page for reading, not slides: one slide names
it and links the chapter (reading_table_slide)."""


def _words(markup: str) -> int:
    return len(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def _table_parts(markup: str) -> tuple[str, list[str], str] | None:
    """(everything up to the body rows, the body rows, the rest) of a table's HTML; None when it is not one."""
    match = re.search(r"(?s)^(?P<head>.*?<table[^>]*>(?:\s*<caption>.*?</caption>)?\s*(?:<thead>.*?</thead>)?)"
                      r"\s*(?:<tbody>)?(?P<rows>.*?)(?:</tbody>)?\s*(?P<tail></table>.*)$", markup)
    if not match:
        return None
    return match.group("head"), re.findall(r"(?s)<tr[^>]*>.*?</tr>", match.group("rows")), match.group("tail")


def _chunks(rows: list[str], budget: int) -> list[list[str]]:
    """Consecutive rows in the fewest slides that keep each within TABLE_SLIDE_ROWS rows and `budget`
    words, as even as that allows (9 rows make 5 and 4, not 8 and 1)."""
    for count in range(1, len(rows) + 1):
        size, extra = divmod(len(rows), count)
        chunks, start = [], 0
        for k in range(count):
            end = start + size + (k < extra)
            chunks.append(rows[start:end])
            start = end
        if all(len(c) <= TABLE_SLIDE_ROWS and sum(_words(r) for r in c) <= budget for c in chunks):
            return chunks
    chunks, current, used = [], [], 0  # rows of uneven length: fill each slide in turn
    for row in rows:
        if current and (len(current) >= TABLE_SLIDE_ROWS or used + _words(row) > budget):
            chunks.append(current)
            current, used = [], 0
        current.append(row)
        used += _words(row)
    return chunks + [current] if current else chunks


def split_table(markup: str, heading: str = "") -> list[str]:
    """A table's HTML as one or more tables of consecutive rows, each with the header (and caption),
    so that each fits a slide: at most TABLE_SLIDE_ROWS rows and TABLE_SLIDE_WORDS words with `heading`."""
    parts = _table_parts(markup)
    if not parts:
        return [markup]
    head, rows, tail = parts
    budget = max(TABLE_SLIDE_WORDS - _words(head) - _words(heading) - 3, 1)  # 3: "(1 of 2)"
    chunks = _chunks(rows, budget)
    if len(chunks) <= 1:
        return [markup]
    return [f"{head}<tbody>{''.join(c)}</tbody>{tail}" for c in chunks]


READING_COLUMN_WORDS = 30
"""A reading table's slide names its columns when their names take at most this many words."""


def reading_table_slide(heading: str, table: str, ctx: Context) -> Slide:
    """The one slide of a table too long to project (more than TABLE_MAX_SLIDES slides): its heading and
    caption, how many rows it has and what its columns are, and a link to the chapter where it is read."""
    caption = re.search(r'<p class="table-caption">.*?</p>', table, re.DOTALL)
    parts = _table_parts(table)
    rows = len(parts[1]) if parts else 0
    columns = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
               for c in re.findall(r"(?s)<th[^>]*>(.*?)</th>", parts[0] if parts else "")]
    named = ", ".join(html.escape(c) for c in columns if c)
    return Slide(f"<h3>{heading}</h3>{caption.group(0) if caption else ''}"
                 f'<p class="reading-table">A table of {rows} rows for reading, not projecting'
                 f"{f' (columns: {named})' if named and len(named.split()) <= READING_COLUMN_WORDS else ''}: "
                 f'<a href="{ctx.chapter_page}">read it in the chapter</a>.</p>', "reading-table")


def _table_slides(heading: str, table: str, ctx: Context | None = None) -> list[Slide]:
    """One slide per part of a table (split_table), the heading numbered "(1 of 2)" when it is split;
    one reading_table_slide for a table that would take more than TABLE_MAX_SLIDES."""
    parts = split_table(table, heading)
    if len(parts) > TABLE_MAX_SLIDES and ctx is not None:
        return [reading_table_slide(heading, table, ctx)]
    if len(parts) == 1:
        return [Slide(f"<h3>{heading}</h3>{table}", "table")]
    return [Slide(f"<h3>{heading} ({k} of {len(parts)})</h3>{part}", "table") for k, part in enumerate(parts, 1)]


def _output_kind(shown: str) -> str:
    return "table" if "slide-table" in shown else "figure"


# ---------------------------------------------------------------- writing the slides

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="icon" href="data:,">
<title>{title}: slides</title>
<link rel="stylesheet" href="lib/reveal/reset.css">
<link rel="stylesheet" href="lib/reveal/reveal.css">
<link rel="stylesheet" href="lib/reveal/theme/white.css">
<link rel="stylesheet" href="slides.css">
</head>
<body>
<div class="reveal"><div class="slides">
{sections}
</div></div>
<script src="lib/reveal/reveal.js"></script>
<script src="lib/reveal/plugin/math.js"></script>
<script src="lib/reveal/plugin/notes.js"></script>
<script>
Reveal.initialize({{
  hash: true, center: false, width: SLIDE_WIDTH, height: SLIDE_HEIGHT, margin: 0.04, slideNumber: "c/t",
  mathjax3: {{ mathjax: "lib/mathjax/tex-chtml.js", loader: {{ load: [] }},
               tex: {{ inlineMath: [["\\\\(", "\\\\)"]], displayMath: [["\\\\[", "\\\\]"]] }} }},
  plugins: [RevealMath.MathJax3, RevealNotes]
}});
</script>
</body>
</html>
""".replace("SLIDE_WIDTH", "1280").replace("SLIDE_HEIGHT", "720")
"""16:9 at 1280x720 (a projector's shape); `S` opens the notes plugin's speaker view, which reads each
slide's <aside class="notes">."""

CSS = """.reveal { font-size: 38px; }
.reveal h1, .reveal h2, .reveal h3 { text-transform: none; }
.reveal h1 { font-size: 1.6em; } .reveal h2 { font-size: 1.3em; } .reveal h3 { font-size: 0.9em; margin-bottom: 0.3em; }
.reveal .slides section { text-align: left; }
.reveal p, .reveal li { line-height: 1.35; }
.reveal ul, .reveal ol { display: block; margin-left: 1em; }
.reveal li + li { margin-top: 0.35em; }
.reveal .equation { text-align: center; font-size: 1em; }
.reveal img.figure { display: block; margin: 0 auto; max-width: 100%; height: 590px; object-fit: contain; }
.reveal .slide-table { font-size: 0.75em; }
.reveal .slide-table .table-caption { font-weight: bold; margin: 0 0 0.3em; text-align: center; }
.reveal .reading-table { font-size: 0.8em; }
.reveal .slide-table table { margin: 0 auto; border-collapse: collapse; width: 100%; }
.reveal .slide-table th, .reveal .slide-table td { padding: 0.15em 0.5em; border-bottom: 1px solid #ccc; }
.reveal ul.exercises { font-size: 0.8em; }
.reveal .objectives-lead { color: #555; margin-bottom: 0.2em; }
.reveal .how-to-check, .reveal .chapter-link, .reveal .fallback { font-size: 0.6em; color: #555; }
"""

INDEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Slides: {book}</title>
<link rel="stylesheet" href="slides.css"></head>
<body style="font-family: sans-serif; max-width: 50em; margin: 2em auto">
<h1>Slides: {book}</h1>
<p>One slide set per chapter, built from the executed chapters. Step with the arrow keys or space;
press Esc for an overview, S for speaker view, F for full screen.</p>
<ol>
{items}
</ol>
</body></html>
"""

REVEAL_FILES = ["dist/reveal.js", "dist/reveal.css", "dist/reset.css", "dist/theme/white.css",
                "dist/plugin/math.js", "dist/plugin/notes.js", "LICENSE"]
MATHJAX_FILES = ["es5/tex-chtml.js", "es5/input/tex/extensions", "es5/output/chtml/fonts/woff-v2", "LICENSE"]


def copy_libraries(node_modules: Path, out: Path) -> None:
    """Copy reveal.js and MathJax from the npm install into out/lib (only what the slides load)."""
    for package, files, target in (("reveal.js", REVEAL_FILES, "reveal"), ("mathjax", MATHJAX_FILES, "mathjax")):
        source = node_modules / package
        if not (source / "package.json").exists():
            raise SlideError(f"{source} is missing: install the pinned npm packages first (make slides does)")
        for name in files:
            src = source / name
            relative = Path(name).relative_to(name.split("/")[0]) if "/" in name else Path(name)
            dst = out / "lib" / target / relative
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, dst, dirs_exist_ok=True)
            else:
                shutil.copy2(src, dst)


def build_chapter_slides(stem: str, executed: Path, source: Path, ctx_base: dict, book_prefix: str) -> tuple[str, str]:
    """The HTML of one chapter's slides and the chapter's title. The slide lines are read from the
    chapter in `source` (its cell metadata, or the slide-text file until that is applied)."""
    notebook, glue = read_executed(executed, stem, source)
    texts = slide_text.chapter_texts(stem, nbformat.read(source / f"{stem}.ipynb", as_version=4))
    ctx = Context(stem, glue_text(glue), **ctx_base, glue_outputs=glue, texts=texts)
    values = executed / f"{stem}.eval.json"
    ctx.eval_values = json.loads(values.read_text(encoding="utf-8")) if values.exists() else {}
    ctx.chapter_page = f"{book_prefix}notebooks/{stem}.html"
    if stem == chapter_stems()[0]:
        ctx.first_slide_extra = first_slide_fallback(book_prefix)
    sections = read_sections(notebook)
    slides = choose_slides(sections, ctx)
    assign_keys(slides)
    apply_notes(stem, slides, ctx, load_notes(stem))
    title = ctx.titles.get(stem, stem)
    body = "\n".join(slide.section() for slide in slides)
    return PAGE.format(title=html.escape(title), sections=body), title


INSTALL_CHECK = "notebooks/install_check.ipynb"


def first_slide_fallback(book_prefix: str) -> str:
    """What session 1's first slide offers a student whose install failed: the browser explorer (a page
    of the built book, linked relative to the deck so that it opens offline) and the install check."""
    return (f'<p class="fallback">Install failed? Use the <a href="{book_prefix}book/explorer.html">browser explorer</a> '
            f'meanwhile; once installed, run <code>{INSTALL_CHECK}</code>.</p>')


def _titles(source: Path, stems: list[str]) -> dict[str, str]:
    titles = {}
    for stem in stems:
        nb = nbformat.read(source / f"{stem}.ipynb", as_version=4)
        first = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
        match = re.search(r"^#\s+(.*)$", first, re.MULTILINE)
        titles[stem] = match.group(1).strip() if match else stem
    return titles


def build(executed: Path, node_modules: Path, out: Path, source: Path = ROOT / "notebooks",
          book_prefix: str = "../html/") -> list[Path]:
    """Write every chapter's slides, an index and the libraries under `out`; return the slide files."""
    stems = chapter_stems()
    citations = load_citations(ROOT / "book" / "references.bib")
    textual = {k: re.sub(r" (\d{4}\w?)$", r" (\1)", v) for k, v in citations.items()}
    ctx_base = {"citations": citations, "citations_textual": textual, "titles": _titles(source, stems)}
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    copy_libraries(node_modules, out)
    (out / "slides.css").write_text(CSS, encoding="utf-8")
    written, items = [], []
    for stem in stems:
        page, title = build_chapter_slides(stem, executed, source, ctx_base, book_prefix)
        target = out / f"{stem}.html"
        target.write_text(page, encoding="utf-8")
        written.append(target)
        items.append(f'<li><a href="{stem}.html">{html.escape(title)}</a></li>')
    book_title = re.search(r"^title:\s*(.*)$", (ROOT / "_config.yml").read_text(encoding="utf-8"), re.MULTILINE)
    (out / "index.html").write_text(INDEX.format(book=html.escape(book_title.group(1) if book_title else ""),
                                                 items="\n".join(items)), encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executed", type=Path, default=ROOT / "_build" / "jupyter_execute" / "notebooks",
                        help="folder of executed chapter notebooks and their .glue.json files")
    parser.add_argument("--node-modules", type=Path, default=ROOT / "_build" / "npm" / "node_modules",
                        help="npm install holding the pinned reveal.js and mathjax packages")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "slides")
    parser.add_argument("--book-html", type=Path, default=None,
                        help="a built book (e.g. _build/html): also write the slides into its slides/ folder, "
                             "which its chapter pages link, so that the published HTML carries them")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        written = build(args.executed, args.node_modules, args.out)
        places = [str(args.out)]
        if args.book_html is not None:
            if not (args.book_html / "index.html").exists():
                raise SlideError(f"--book-html {args.book_html} holds no built book (index.html)")
            build(args.executed, args.node_modules, args.book_html / "slides", book_prefix="../")
            places.append(str(args.book_html / "slides"))
    except (SlideError, StaleBuild, RecordsMissing) as error:
        print(f"slides: {error}", file=sys.stderr)
        return 2
    print(f"slides: {len(written)} chapters written to {' and '.join(places)} in "
          f"{time.perf_counter() - start:.1f} s (from {args.executed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
