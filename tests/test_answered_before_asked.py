"""No exercise is answered before it is asked, for any student: the ledger's answer to an exercise,
for the book's parameters and for every variant a student can draw, formatted as the chapter would
print it (from three significant figures up to the precision the exercise asks for, with and without
thousands separators), must not appear in the chapter's text above the exercise, and no number of
three or more significant figures printed there may be one that `check` would call right for any of
those answers; in the built book (solutions of earlier exercises left out: they are the teacher's
dropdowns) and in the student edition. Needs `make book` (and `make student` for the second test)."""
from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path

from book_pages import html_tree, text_of, with_class, words

from ledger.exercises import LABELS, REGISTRY
from ledger.exercises.registry import significant_figures, variant_rows

ROOT = Path(__file__).resolve().parents[1]
MAIN = ROOT / "_build" / "html" / "notebooks"
STUDENT = ROOT / "_build" / "student" / "html" / "notebooks"


# A printed number equal to an answer at three figures that is another quantity, checked by reading the
# sentences: (chapter, label, number) -> (times it is printed above the exercise, what it is). The test
# still fails on any other form, or when the number is printed once more.
COINCIDENCES = {
    ("13_compute_and_time", "ct-card31", "14.8"): (2, "FSDP2's gradient and weight traffic, 14.8% of the matrix work"),
    ("00_introduction", "intro-bigger-step-sequences", "1024"): (1, "a sequence length among the slider's options"),
    # The 4,096-token table lists every power of two from 1 to 256 as rewrites (and "m = 128"); at 2,048 tokens
    # and m = 4 the count is 128 too, which the reader reaches only by working out sequences / m. The vocabulary's
    # 128,256 tokens (the loss's log-probabilities) begin with the same digits: a substring, not the answer.
    ("07_layer_major", "layer-major-micro-batch-rewrites", "128"): (3, "rewrites at m = 2, m = 128, vocabulary 128,256"),
}


MEASURED_PAGES = {"16_measured"}
EXECUTED = ROOT / "_build" / "executed" / "notebooks"


@functools.cache
def measured_texts(stem: str) -> frozenset[str]:
    """The prose numbers of a page of this machine's timings that the build measured: the texts of its
    `{eval}` expressions on a `measured_` value (the build's <stem>.eval.json), new at every build."""
    values = json.loads((EXECUTED / f"{stem}.eval.json").read_text(encoding="utf-8"))
    return frozenset(v["text"] for expression, v in values.items() if "measured_" in expression and "text" in v)


def drop_measurements(main, stem: str) -> None:
    """On a page of this machine's timings (MEASURED_PAGES), drop what the build measured: the code
    cells' outputs (the tables of timings) and the prose numbers of `measured_texts`. A number of
    these equal to an answer is chance (41.6 GB/s once, for an answer of 41.58%), not the answer."""
    measured = measured_texts(stem)
    for output in with_class(main, "div", "cell_output"):
        remove(output)
    for span in with_class(main, "span", "pasted-text"):
        if text_of(span).strip() in measured:
            remove(span)


def remove(element) -> None:
    """Take `element` out of the page; the text on either side of it stays apart, as two words."""
    element.tail = " " + (element.tail or "")
    element.drop_tree()


def main_of(page_text: str):
    """The <main> element of a page (html_tree: without scripts and styles), or the whole page."""
    root = html_tree(page_text)
    return next(root.iter("main"), root)


def insert_text_before(element, text: str) -> None:
    """Put `text` just before `element` in the text of its parent."""
    previous = element.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + text
    else:
        element.getparent().text = (element.getparent().text or "") + text


def printed_forms(value: float, rel_tol: float) -> set[str]:
    """How a chapter might print `value`: 3 significant figures up to the exercise's own precision."""
    forms = set()
    magnitude = math.floor(math.log10(abs(value))) if value else 0
    for sig in range(min(3, significant_figures(rel_tol)), significant_figures(rel_tol) + 1):
        decimals = max(0, sig - 1 - magnitude)
        for spec in (f",.{decimals}f", f".{decimals}f"):
            text = format(value, spec)
            if len(text.replace(",", "").replace(".", "").lstrip("0-")) >= 2:  # one digit matches anything
                forms.add(text)
    if abs(value) >= 1e4:  # a large count in thousands, millions, billions or trillions, and in e-notation
        scaled = abs(value) / 10 ** (3 * (magnitude // 3))
        forms.add(format(math.copysign(scaled, value), f".{max(0, 2 - math.floor(math.log10(scaled)))}f"))
        forms.add(format(value, ".2e"))
    return forms


def two_figure_forms(value: float, unit: str, within: float) -> set[str]:
    """A percentage answer's size at two significant figures followed by %, as a chapter rounds a
    percentage in its prose ("8.9% more", "22% fewer"), when that rounding is within `within`
    (relative: the exercise's close band) of the answer, so that it nearly gives it away; none for
    another unit (a bare two-figure number, 0.13 or 4.2, is printed by chance on most pages) or a size
    of 100 or more, which three figures cover."""
    magnitude = math.floor(math.log10(abs(value))) if value else 0
    if value == 0 or magnitude >= 2 or unit != "%":
        return set()
    form = format(abs(value), f".{max(0, 1 - magnitude)}f")
    return {form + "%"} if abs(float(form) - abs(value)) <= within * abs(value) else set()


def answer_forms(value: float, rel_tol: float, unit: str, close_factor: float = 4.0) -> set[str]:
    """Every form the same page may give `value` away in: as printed (printed_forms), its size alone
    (a chapter says "22.1% fewer" for -22.1), and at two significant figures (two_figure_forms)."""
    return (printed_forms(value, rel_tol) | printed_forms(abs(value), rel_tol)
            | two_figure_forms(value, unit, close_factor * rel_tol))


def _found(text: str, form: str) -> bool:
    if form.rstrip("%") not in text:  # most forms are on no page: a plain search first
        return False
    if form.endswith("%"):  # the page's text may put a space between a number and its sign
        return re.search(rf"(?<![\d.,]){re.escape(form[:-1])}\s?%", text) is not None
    return re.search(rf"(?<![\d.,]){re.escape(form)}(?![\d]|[.,]\d)", text) is not None


NUMBER = re.compile(r"(?<![\w.,])[-\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|[.,]\d)")


@functools.lru_cache(maxsize=256)
def printed_numbers(text: str) -> tuple[tuple[str, float], ...]:
    """The numbers of `text` with at least three significant figures (fewer match too much by chance:
    "32 layers", "2 x"), as (printed form, value)."""
    found = []
    for m in NUMBER.finditer(text):
        form = m.group(0).replace("\u2212", "-")
        digits = form.replace(",", "").replace("-", "")
        significant = digits.replace(".", "").lstrip("0")
        if "." not in digits:
            significant = significant.rstrip("0")
        if len(significant) >= 3:
            found.append((m.group(0), float(form.replace(",", ""))))
    return tuple(found)


@functools.cache
def every_answer(label: str) -> list[tuple[str, float]]:
    """(who, answer) for the book's parameters and every variant a student can draw."""
    ex = REGISTRY[label]
    rows = [("the book", ex.book_parameters)] + [(f"the variant {row}", row) for row in variant_rows(label)]
    return [(who, float(ex.answer(**row))) for who, row in rows]


@functools.cache
def text_before_each_exercise(page: Path, drop_solutions: bool) -> dict[str, str]:
    """{label: the page's text above that exercise} for every exercise of a chapter page (on a page
    of this machine's timings, without what the build measured: drop_measurements). Read once per
    page and run: the tests below ask again."""
    main = main_of(page.read_text(encoding="utf-8"))
    if page.stem in MEASURED_PAGES:
        drop_measurements(main, page.stem)
    if drop_solutions:
        for solution in with_class(main, "div", "solution") + with_class(main, "details", "solution"):
            remove(solution)
    marker = "\ue000EXERCISE:{}\ue000"
    for div in with_class(main, "div", "exercise"):
        label = div.get("id")
        parts = re.findall(r'check\("([a-z0-9-]+)"', text_of(div)) + re.findall(r"explanation,\s*([a-z0-9-]+)\s*:",
                                                                                text_of(div, " "))
        for name in dict.fromkeys([label] * bool(label) + parts):  # the exercise and each part it asks for
            insert_text_before(div, f" {marker.format(name)} ")
    text = words(main)
    found = {}
    for m in re.finditer("\ue000EXERCISE:(.+?)\ue000", text):
        found[m.group(1)] = re.sub("\ue000EXERCISE:.+?\ue000", " ", text[:m.start()])
    return found


def answered_early(pages: Path, drop_solutions: bool) -> list[str]:
    failures = []
    seen = set()
    for page in sorted(pages.glob("*.html")):
        for label, before in text_before_each_exercise(page, drop_solutions).items():
            seen.add(label)
            if label not in REGISTRY or REGISTRY[label].answer is None:
                continue
            tol, unit, close = REGISTRY[label].rel_tol, REGISTRY[label].unit, REGISTRY[label].close_factor
            # Chapter 16 prints this machine's timings, new at every build: a timing within the
            # tolerance of an answer is chance, so there only the answer's own printed forms count.
            numbers = [] if page.stem in MEASURED_PAGES else printed_numbers(before)
            for who, value in every_answer(label):
                hits = sorted(f for f in answer_forms(value, tol, unit, close) if _found(before, f)
                              and before.count(f) != COINCIDENCES.get((page.stem, label, f), (0,))[0])
                hits += sorted({form for form, number in numbers if abs(abs(number) - abs(value)) <= tol * abs(value)
                                and before.count(form) != COINCIDENCES.get((page.stem, label, form), (0,))[0]
                                and form not in hits})
                if hits:
                    failures.append(f"{page.stem} {label}: the answer for {who} ({value:.6g}) is printed above "
                                    f"the exercise as {hits[0]!r}")
    missing = sorted(set(LABELS) - seen)
    assert not missing, f"exercises not found in {pages}: {missing}"
    return failures


def test_printed_forms():
    assert printed_forms(0.16583, 0.003) >= {"0.166", "0.1658"}
    assert "57,256" in printed_forms(57_256.0, 0.005) or "57,300" in printed_forms(57_256.0, 0.005)
    assert {"541", "5.41e+11"} <= printed_forms(5.4065e11, 0.005)
    assert _found("is 12.19% of", "12.19") and not _found("is 112.19% of", "12.19") and not _found("12.195", "12.19")


def test_an_answer_is_found_by_its_size_and_at_two_figures():
    """fpt-flash's -22.12 and 8.895 were printed above it as "22.1% fewer" and "8.9% more": the same-page
    test looks for the size of a negative answer and for two-figure forms."""
    text = "non-causal FlashAttention executes 8.9 % more FLOPs than the model count, the causal kernel 22.1% fewer"
    assert any(_found(text, f) for f in answer_forms(-22.117, 0.005, "%"))
    assert any(_found(text, f) for f in answer_forms(8.895, 0.005, "%"))
    assert any(_found("22% fewer over the step", f) for f in answer_forms(-22.117, 0.005, "%"))
    assert not any(_found("layer 22 of 32 and 8.8 s", f) for f in answer_forms(-22.117, 0.005, "%"))
    assert two_figure_forms(0.5312, "", 0.02) == set() and two_figure_forms(8.895, "%", 0.02) == {"8.9%"}
    assert two_figure_forms(0.198409, "%", 0.0008) == set()  # 0.20% is 0.8% off: not near a 5-figure answer


def test_printed_numbers_keep_three_figures_or_more():
    text = "32 layers, 2,048 tokens, 66.73 s, 0.15 s, 1,000 times, 85.17%, 4.5 and 0.0012 and v2.05.1"
    assert [form for form, _ in printed_numbers(text)] == ["2,048", "66.73", "85.17"]
    assert dict(printed_numbers("at 1,074,266,112 values"))["1,074,266,112"] == 1_074_266_112


def test_a_measured_number_is_not_taken_for_an_answer():
    """Chapter 16's streaming copy once measured 41.6 GB/s, the printed form of ms-twenty's answer for
    a variant (41.58%): on a page of timings what the build measured is left out, and the rest stays."""
    page = ('<main><div class="cell_output"><table><tr><td>41.6 GB/s</td></tr></table></div>'
            '<p>moved <span class="pasted-text">{copy}</span> GB/s; the share is <span class="pasted-text">12.19'
            '</span>%</p></main>')
    copy = next(iter(measured_texts("16_measured")))
    main = main_of(page.format(copy=copy))
    drop_measurements(main, "16_measured")
    text = words(main)
    assert "41.6" not in text and copy not in text.replace("12.19", ""), text
    assert "12.19" in text and "GB/s" in text


def test_every_variants_answer_is_checked():
    """The test reads every draw: the book's and each variant's (e.g. layer-major-micro-batch at m = 4)."""
    answers = dict(every_answer("layer-major-micro-batch"))
    assert len(answers) == 1 + len(variant_rows("layer-major-micro-batch")) >= 3




def test_no_answer_above_its_exercise_in_the_book():
    assert (MAIN / "06_masks.html").exists(), "build the book first (make book)"
    failures = answered_early(MAIN, drop_solutions=True)
    assert not failures, "\n".join(failures)


def test_no_answer_above_its_exercise_in_the_student_edition():
    assert (STUDENT / "06_masks.html").exists(), "build the student edition first (make student)"
    failures = answered_early(STUDENT, drop_solutions=False)
    assert not failures, "\n".join(failures)


# The student edition's pages in the book's order (_toc.yml: the landing page first).
STUDENT_HTML = ROOT / "_build" / "student" / "html"

# An answer printed on another page of the student edition as another quantity, checked by reading
# the sentences: (label, printed form) -> what that number is. The whole-book tests still fail on any
# other form or label; an entry is for a number a reader cannot tie to the exercise.
PRINTED_ELSEWHERE = {
    ("layer-major-micro-batch-rewrites", "128"): "a count printed throughout as something else (128 sequences, "
                                                 "head dimensions, m = 128); the rewrites at m = 4 reach it "
                                                 "only by working out sequences / m",
    ("ai-decode-mlp", "2.67"): "chapter 05's per-step terms of Hyena-2, 2.67 parts per million of the step",
    ("ct-mfu", "2.67"): "chapter 05's per-step terms of Hyena-2, 2.67 parts per million of the step",
    ("ai-decode-mlp-intensity", "1.000"): "Amdahl bounds of 1.000x and backward/forward ratios of 1.000",
    ("am-long-fft", "1.25"): "an FFT's 1.25 log2(n) FLOPs per element (chapter 12) and a figure's coordinate "
                             "in chapter 00's code",
    ("explorer-long-hyena", "4.17"): "chapter 07's rewrite time at m = 64 (4,096 tokens) and chapter 13's "
                                     "attention-only recompute tax, 4.17%",
    # Not a coincidence, left for the book's reader only: chapter 06 prints Hyena-2's 8,192-token rewrite
    # (2.08 s, the figure masks-more-gpus starts from) and chapter 08 repeats it; the exercise is graded on
    # its variants, none of which is printed.
    ("explorer-long-hyena", "2.08"): "the book's own row, printed in chapters 06 and 08; graded work uses variants",
    ("layer-major-fp32-boundary", "103"): "the course guide's study-time table, 103 optional minutes in all; "
                                          "it gives no step count or boundary",
}


def toc_pages() -> list[str]:
    """The book's pages in reading order, as paths without suffix (book/intro, notebooks/00_...)."""
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    return re.findall(r"^root:\s*(\S+)", toc, re.MULTILINE) + re.findall(r"file:\s*(\S+)", toc)


@functools.cache
def page_texts(html: Path) -> dict[str, str]:
    """{page: its main text} for every page of the edition, in the book's order; a page of this
    machine's timings (MEASURED_PAGES) is left out: its numbers change at every build, so a variant's
    answer among them is chance, and its exercise's own page is the other tests' concern."""
    texts = {}
    for page in toc_pages():
        if Path(page).name in MEASURED_PAGES:
            continue
        path = html / f"{page}.html"
        assert path.exists(), f"{path} is missing: build the student edition first (make student)"
        texts[page] = words(main_of(path.read_text(encoding="utf-8")))
    return texts


def hits_in(text: str, value: float, rel_tol: float) -> list[str]:
    """The forms in `text` that give `value` away on another page: the answer as a chapter would
    print it (3 significant figures up to the precision asked) or rounded to the decimals of any
    printed number of three or more significant figures, when `check` would call that form right.
    (A number that is merely within the tolerance, 12.19 for an answer of 12.13, is another quantity
    on another page: across the whole book such near misses are chance, not the answer.)"""
    hits = {f for f in printed_forms(value, rel_tol) if _found(text, f)
            and abs(float(f.replace(",", "")) - value) <= rel_tol * abs(value)}
    for form, number in printed_numbers(text):
        decimals = len(form.split(".")[1]) if "." in form else 0
        if abs(number - value) <= rel_tol * abs(value) and round(value, decimals) == number:
            hits.add(form)
    return sorted(hits)


def test_no_variant_answer_anywhere_in_the_student_edition():
    """A student who draws a variant finds its answer on no page of the student edition (another
    chapter, the landing page, the guide), in any form the test knows."""
    texts = page_texts(STUDENT_HTML)
    failures = []
    for label in LABELS:
        ex = REGISTRY[label]
        if ex.answer is None or not ex.variants:
            continue
        for row in variant_rows(label):
            value = float(ex.answer(**row))
            for page, text in texts.items():
                for form in hits_in(text, value, ex.rel_tol):
                    if (label, form) not in PRINTED_ELSEWHERE:
                        failures.append(f"{label} {row}: its answer {value:.6g} is printed on {page} as {form!r}"
                                        f" ({_count(text, form)} times)")
    assert not failures, "\n".join(failures)


def _count(text: str, form: str) -> int:
    return len(re.findall(rf"(?<![\d.,]){re.escape(form)}(?![\d]|[.,]\d)", text))


def test_no_book_answer_on_an_earlier_page_of_the_student_edition():
    """The book's answer to an exercise is printed on no page before the exercise's own (the
    chapters before it, the landing page); above it on its own page is the other tests' concern."""
    texts = page_texts(STUDENT_HTML)
    pages = toc_pages()
    owner = {}
    for page in pages:
        path = STUDENT_HTML / f"{page}.html"
        for label in text_before_each_exercise(path, drop_solutions=False):
            owner.setdefault(label, page)
    failures = []
    for label in LABELS:
        ex = REGISTRY[label]
        if ex.answer is None:
            continue
        assert label in owner, f"{label}: no exercise asks for it in the student edition"
        value = float(ex.answer(**ex.book_parameters))
        for page in [p for p in pages[:pages.index(owner[label])] if p in texts]:
            for form in hits_in(texts[page], value, ex.rel_tol):
                if (label, form) not in PRINTED_ELSEWHERE:
                    failures.append(f"{label}: the book's answer {value:.6g} is printed on {page}, before "
                                    f"{owner[label]}, as {form!r}")
    assert not failures, "\n".join(failures)
