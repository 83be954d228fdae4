"""Slides that speak (issue 32): no element of any slide leaves the 1280x720 slide (MathJax
equations included), table slides use type of at least 28 px across the slide, every link of every
deck resolves offline, and the speaker notes are written for the slides (book/slide_notes/): the four
parts, at most 150 words, on at least 90% of each deck's content slides, and not the chapter's
paragraphs. The decks are those of tests/test_slides.py's fixture (_build/slides, or TX_SLIDES).
"""
from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest
from chromium import CHROMIUM, offline_args
from test_slides import chapters, server, slide_sections, slides_dir  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_tools"))
import slides as builder

MIN_TABLE_FONT_PX = 28
TABLE_WIDTH_SHARE = 0.9
"""A table slide's table spans at least this share of the slide's width."""
NOTES_COVERAGE = 0.9
"""Share of each deck's slides whose speaker notes are written (book/slide_notes/<stem>.yml)."""
COPIED_WORDS = 10
"""Notes that share a run of this many words with the chapter's prose copy its paragraphs."""

FIT = """async () => {
  if (window.MathJax && MathJax.startup) await MathJax.startup.promise;
  Reveal.configure({transition: 'none', backgroundTransition: 'none'});
  const out = [], tables = [];
  for (let k = 0; k < Reveal.getTotalSlides(); k++) {
    Reveal.slide(k);
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    const slide = Reveal.getCurrentSlide();
    const box = Reveal.getSlidesElement().getBoundingClientRect();
    const scale = Reveal.getScale();
    for (const el of slide.querySelectorAll('*')) {
      // MathJax's hidden MathML for screen readers is clipped on purpose; its visible boxes are checked
      if (el.closest('aside.notes') || el.closest('mjx-assistive-mml') || el.tagName === 'MJX-CONTAINER') continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const over = Math.max(box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom);
      if (over > 1) out.push(`slide ${k + 1}: <${el.tagName.toLowerCase()}> ${Math.round(over / scale)} px past the edge ` +
                             `(${(el.textContent || '').trim().slice(0, 40)})`);
    }
    const t = slide.querySelector('.slide-table table');
    if (t) {
      const sizes = [...t.querySelectorAll('td, th')].map(c => parseFloat(getComputedStyle(c).fontSize));
      tables.push({slide: k + 1, font: Math.min(...sizes), width: t.getBoundingClientRect().width / box.width});
    }
  }
  return {out, tables};
}"""
"""Every slide of a deck shown in turn (no transition), after MathJax has typeset: every element box
that leaves the slide, and each table slide's smallest type (CSS px of the 1280x720 slide) and width."""


@pytest.mark.browser
def test_no_element_leaves_any_slide_and_tables_are_legible(server):  # noqa: F811
    from playwright.sync_api import sync_playwright

    outside, small = [], []
    tables = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=offline_args())
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        for stem in chapters():
            page.goto(f"{server}/{stem}.html")
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            found = page.evaluate(FIT)
            outside += [f"{stem} {line}" for line in found["out"]]
            for table in found["tables"]:
                tables += 1
                if table["font"] < MIN_TABLE_FONT_PX or table["width"] < TABLE_WIDTH_SHARE:
                    small.append(f"{stem} slide {table['slide']}: {table['font']:.1f} px type, "
                                 f"{100 * table['width']:.0f}% of the slide's width")
        browser.close()
    assert not outside, "elements past the 1280x720 slide:\n" + "\n".join(outside[:40])
    assert tables >= 30, f"only {tables} table slides measured"
    assert not small, (f"table slides under {MIN_TABLE_FONT_PX} px or narrower than {TABLE_WIDTH_SHARE:.0%} "
                       f"of the slide:\n" + "\n".join(small))


def test_every_link_of_every_deck_resolves_offline(slides_dir):  # noqa: F811
    """Every href of every deck, in the slides folder and in the book's copy, names a file of the
    built kit (and, with a #fragment, an element of it): "Read the chapter", reading tables, the
    explorer on session 1's first slide."""
    folders = [slides_dir, ROOT / "_build" / "html" / "slides"]
    broken, followed = [], 0
    for folder in folders:
        assert (folder / "index.html").exists(), f"{folder}: no slides built (make slides)"
        for deck in sorted(folder.glob("*.html")):
            for url in re.findall(r'href="([^"]+)"', deck.read_text(encoding="utf-8")):
                parsed = urlparse(html.unescape(url))
                if parsed.scheme == "data" or url.startswith("#"):
                    continue
                followed += 1
                target = (deck.parent / unquote(parsed.path)).resolve()
                if parsed.scheme or not target.is_file():
                    broken.append(f"{deck.relative_to(ROOT)}: {url}")
                elif parsed.fragment and f'id="{parsed.fragment}"' not in target.read_text(encoding="utf-8"):
                    broken.append(f"{deck.relative_to(ROOT)}: {url} (no such anchor)")
    assert followed >= 2 * len(chapters()) * 2, f"only {followed} links followed"
    assert not broken, "links that do not resolve offline:\n" + "\n".join(broken)


def test_session_one_opens_with_the_install_fallback(slides_dir):  # noqa: F811
    first = slide_sections((slides_dir / f"{chapters()[0]}.html").read_text(encoding="utf-8"))[0][1]
    assert builder.INSTALL_CHECK == "notebooks/install_check.ipynb" and builder.INSTALL_CHECK in first
    link = re.search(r'<p class="fallback">.*?href="([^"]+)"', first, re.DOTALL)
    assert link and link.group(1).endswith("book/explorer.html")
    assert (slides_dir / link.group(1)).resolve().is_file()


def _chapter_prose(stem: str) -> list[str]:
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    text = " ".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return re.sub(r"[^\w%.]+", " ", builder.ROLE.sub(" ", text).lower()).split()


def _runs(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[k:k + n]) for k in range(len(words) - n + 1)}


def test_speaker_notes_are_written_for_the_slides(slides_dir):  # noqa: F811
    """On at least NOTES_COVERAGE of each deck's slides; each with minutes, talking points, a question
    and a misconception in at most builder.NOTES_MAX_WORDS words; none shares COPIED_WORDS words in a
    row with its chapter's prose."""
    short, copied, thin = [], [], []
    for stem in chapters():
        sections = slide_sections((slides_dir / f"{stem}.html").read_text(encoding="utf-8"))
        written = [(attrs, body) for attrs, body in sections if attrs.get("notes") == "written"]
        if len(written) < NOTES_COVERAGE * len(sections):
            missing = [html.unescape(a.get("key", "?")) for a, _ in sections if a.get("notes") != "written"]
            short.append(f"{stem}: {len(written)} of {len(sections)} slides; without notes: {missing[:6]}")
        prose = _runs(_chapter_prose(stem), COPIED_WORDS)
        entries = builder.load_notes(stem)
        for key, entry in entries.items():
            builder.check_notes_entry(stem, key, entry)  # the four parts, 2-4 points, <= 150 words
            said = " ".join([*entry["points"], entry["question"], entry["misconception"]])
            words = re.sub(r"[^\w%.]+", " ", builder.ROLE.sub(" ", said).lower()).split()
            if _runs(words, COPIED_WORDS) & prose:
                copied.append(f"{stem} {key!r}")
        for attrs, body in written:
            notes = re.search(r'<aside class="notes">(.*?)</aside>', body, re.DOTALL).group(1)
            for part in ("notes-minutes", "notes-points", "notes-question", "notes-misconception"):
                if f'class="{part}"' not in notes:
                    thin.append(f"{stem} {attrs.get('key')!r}: no {part}")
    assert not copied, "notes that copy the chapter's paragraphs:\n" + "\n".join(copied)
    assert not thin, "\n".join(thin)
    assert not short, f"decks with speaker notes on under {NOTES_COVERAGE:.0%} of their slides:\n" + "\n".join(short)


def test_split_equation_stacks_side_by_side_formulas_only():
    two = r"\frac{a}{b} = \sum_{i \ge j} g[i]\,h[i-j], \qquad \frac{c}{d} = \sum_{i \ge k} g[i]\,u[i-k]."
    assert builder.split_equation(two) == [r"\frac{a}{b} = \sum_{i \ge j} g[i]\,h[i-j],",
                                           r"\frac{c}{d} = \sum_{i \ge k} g[i]\,u[i-k]."]
    condition = r"y[i] \;=\; \sum_{k=0}^{i} h[k]\,u[i-k], \qquad i = 0, \dots, L-1 ."
    assert builder.split_equation(condition) == [condition]
    inside = r"\begin{aligned} a + b + c + d + e + f &= g \qquad h + i + j + k + l + m + n \end{aligned}"
    assert builder.split_equation(inside) == [inside]


def test_notes_keys_and_bad_notes():
    slides = [builder.Slide("<h1>Title</h1>", "objectives"), builder.Slide("<h2>Counting \\(N\\)</h2>", "prose"),
              builder.Slide("<h3>Counting \\(N\\)</h3>x", "equation"), builder.Slide("<h3>Counting \\(N\\)</h3>y", "equation"),
              builder.Slide("<h3>Counting \\(N\\)</h3>z", "figure")]
    builder.assign_keys(slides)
    assert [s.key for s in slides] == ["Title", "Counting $N$", "Counting $N$ [equation 1]",
                                       "Counting $N$ [equation 2]", "Counting $N$ [figure]"]
    good = {"minutes": 2, "points": ["One.", "Two."], "question": "Why? (Because.)", "misconception": "X; in fact Y."}
    builder.check_notes_entry("00_x", "k", good)
    for bad, says in (({**good, "minutes": 0}, "minutes 0"), ({**good, "points": ["One."]}, "points"),
                      ({k: v for k, v in good.items() if k != "question"}, "exactly minutes"),
                      ({**good, "points": ["word " * 80, "word " * 80]}, "words; allowed: at most 150")):
        with pytest.raises(builder.SlideError, match=says):
            builder.check_notes_entry("00_x", "k", bad)
    with pytest.raises(builder.SlideError, match="name no slide"):
        builder.apply_notes("00_x", slides, None, {"Counting N": good})


def test_the_student_editions_slides_carry_no_speaker_notes(tmp_path):
    """The notes are the teacher's (their questions carry the expected answers): the student edition's
    copy of the decks drops them and keeps the slides."""
    from student import student_slides

    deck = tmp_path / "00_x.html"
    deck.write_text('<section data-notes="written">\n<h2>A</h2><p>line</p>\n<aside class="notes"><p>Ask: why? '
                    '(Because.)</p></aside>\n</section>', encoding="utf-8")
    student_slides(tmp_path)
    shown = deck.read_text(encoding="utf-8")
    assert "Because" not in shown and 'class="notes"' not in shown and "<p>line</p>" in shown
