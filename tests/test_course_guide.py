"""The course fits its hours: every chapter states its time to learn, and the course guide's
sessions, timed minute by minute, give each chapter at least that time and end by minute 90; its
table adds the chapters' times right; every chapter is taught once; the in-class exercise belongs to
the session's chapters; the assessment plan grades real labels, with rubrics for explanations."""
import functools
import re
from pathlib import Path

import nbformat

from ledger.exercises import LABELS, REGISTRY
from ledger.exercises.registry import exercise_of, parts

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "book" / "course_guide.md").read_text(encoding="utf-8")
TIME = re.compile(r"\*\*Time to learn\*\*:?\s*(\d+)\s*minutes")
SESSION_LENGTH = 90
DOC = re.compile(r"\{doc\}`\.\./notebooks/(\d\d_\w+)`")
LABEL_IN = re.compile(r"^:label:\s*(\S+)", re.MULTILINE)


@functools.cache
def chapter_notebook(stem: str):
    """A chapter notebook, read (and validated) once per run: the checks below ask for it per label."""
    return nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)


def chapter_times() -> dict[str, int]:
    stems = re.findall(r"file:\s*notebooks/(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8"))
    times = {}
    for stem in stems:
        nb = chapter_notebook(stem)
        found = TIME.search("\n".join(c.source for c in nb.cells[:4] if c.cell_type == "markdown"))
        times[stem] = int(found.group(1)) if found else None
    return times


def chapter_labels(stem: str) -> set[str]:
    return set(LABEL_IN.findall(chapter_markdown(stem)))


def sessions() -> list[tuple[str, list[tuple[int, int, str]]]]:
    """[(title, [(start, end, what), ...])] from the guide's minute-by-minute plan."""
    plan = GUIDE.split("### Minute by minute", 1)[1].split("\n## ", 1)[0]
    found = []
    for block in re.split(r"\n(?=Session \d+,)", plan):
        title = re.match(r"Session (\d+),", block.strip())
        if not title:
            continue
        slots = [(int(a), int(b), what) for a, b, what in re.findall(r"^- (\d+)-(\d+) min: (.*)$", block, re.MULTILINE)]
        found.append((title.group(1), slots))
    return found


def test_every_chapter_states_its_time_to_learn():
    missing = [stem for stem, minutes in chapter_times().items() if minutes is None]
    assert not missing, f"chapters without a '**Time to learn**: N minutes' line: {missing}"


def test_every_session_fits_in_90_minutes_by_the_chapters_times():
    times = chapter_times()
    plan = sessions()
    assert len(plan) in (4, 5), "four sessions, or five if four do not fit"
    taught = []
    for number, slots in plan:
        assert slots and slots[0][0] == 0, f"session {number} starts at minute 0"
        for (a, b, _), (c, _, _) in zip(slots, slots[1:]):
            assert b == c, f"session {number}: a gap or overlap at minute {b}"
        assert slots[-1][1] <= SESSION_LENGTH, f"session {number} ends at minute {slots[-1][1]}"
        chapters = []
        for a, b, what in slots:
            docs = DOC.findall(what)
            if docs and not what.startswith("in class"):
                (stem,) = docs
                assert b - a >= times[stem], f"session {number}: {stem} gets {b - a} min, its time to learn is {times[stem]}"
                chapters.append(stem)
        assert sum(times[s] for s in chapters) <= SESSION_LENGTH
        in_class = [re.search(r"`([a-z0-9-]+)`", w).group(1) for _, _, w in slots if w.startswith("in class")]
        assert len(in_class) == 1, f"session {number}: one in-class exercise"
        assert in_class[0] in set().union(*(chapter_labels(s) for s in chapters)), \
            f"session {number}: {in_class[0]} is not an exercise of its chapters"
        taught += chapters
    assert sorted(taught) == sorted(times), f"chapters taught twice or never: {sorted(set(times) ^ set(taught))}"


def test_the_session_table_adds_the_chapters_times_right():
    times = chapter_times()
    rows = re.findall(r"^\| (\d)\. [^|]+\| ([^|]+) \| (\d+) \| `([a-z0-9-]+)` \|$", GUIDE, re.MULTILINE)
    assert len(rows) == len(sessions())
    for number, chapters, minutes, _ in rows:
        assert sum(times[s] for s in DOC.findall(chapters)) == int(minutes), f"session {number}'s minutes"


def plan_section() -> str:
    return GUIDE.split("## Assessment plan", 1)[1].split("\n## ", 1)[0]


def graded_rows() -> list[tuple[str, list[str], list[str], list[str]]]:
    """(session, in-class exercise, numeric homework exercises, explanation labels) from the plan's table."""
    rows = re.findall(r"^\| (\d) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", plan_section(), re.MULTILINE)
    label = re.compile(r"`([a-z0-9-]+)`")
    return [(n, label.findall(a), label.findall(b), label.findall(c)) for n, a, b, c in rows]


@functools.cache
def chapter_markdown(stem: str) -> str:
    """The text of a chapter's markdown cells."""
    nb = chapter_notebook(stem)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def label_chapters(label: str) -> set[str]:
    """The chapters whose text names `label` (its :label: line, or a part's label in a statement)."""
    word = re.compile(rf"(?<![\w-]){re.escape(label)}(?![\w-])")
    return {stem for stem in chapter_times() if word.search(chapter_markdown(stem))}


def test_the_assessment_weights_sum_to_100_percent_and_most_rests_on_paper_and_explanations():
    weights = dict(re.findall(r"^\| ([A-Z][^|]+?) \| (\d+)% \|", plan_section(), re.MULTILINE))
    assert set(weights) == {"In-class derivations on paper", "Explanations", "Numeric homework"}, weights
    assert sum(int(w) for w in weights.values()) == 100
    assert int(weights["Numeric homework"]) < 50, "what the library can compute carries the smaller part"


def test_the_assessment_plan_grades_real_labels_with_variants_and_rubrics():
    """Every graded label exists and is of its kind: the in-class derivation and the homework are
    numeric with per-student variants, the explanation has a rubric; each belongs to its session's
    chapters (the in-class one is the session's in-class exercise)."""
    plan, rows = sessions(), graded_rows()
    assert [r[0] for r in rows] == [n for n, _ in plan], "one row per session, in order"
    for (session, in_class, numeric, explained), (_, slots) in zip(rows, plan):
        chapters = {stem for _, _, what in slots for stem in DOC.findall(what) if not what.startswith("in class")}
        taught = [re.search(r"`([a-z0-9-]+)`", w).group(1) for _, _, w in slots if w.startswith("in class")]
        assert in_class == taught, f"session {session}: the graded derivation is not the in-class exercise"
        assert numeric and explained, f"session {session}: nothing graded"
        for label in in_class + numeric:
            assert label in LABELS and exercise_of(label) == label, f"{label}: not an exercise's own label"
            for part in graded_labels(label):
                assert part in LABELS and REGISTRY[part].answer is not None, f"{part}: not a numeric label"
                assert REGISTRY[part].variants, f"{part}: graded work without per-student variants"
                assert label_chapters(part) & chapters, f"session {session}: {part} is not in its chapters"
        for label in explained:
            assert label in LABELS and REGISTRY[label].answer is None, f"{label}: not an explanation"
            assert REGISTRY[label].rubric, f"{label}: an explanation without a rubric"
        for label in in_class + numeric + explained:
            assert label_chapters(label) & chapters, f"session {session}: {label} is not an exercise of its chapters"


def graded_labels(exercise: str) -> list[str]:
    """The guide's rule: an in-class or numeric homework exercise is graded on all its numeric labels
    (its own and the parts that extend it); its explanation part only where the table names it."""
    return [part for part in parts(exercise) if REGISTRY[part].answer is not None]


def test_the_guide_states_the_graded_label_rule_with_a_real_multi_part_example():
    """The rule is stated with an example whose parts are what the registry holds, and the plan grades
    at least one multi-part exercise (else the rule would be untested)."""
    text = " ".join(plan_section().split())
    assert "the graded labels are all of the exercise's numeric labels" in text
    example = re.search(r"`([a-z0-9-]+)`, `([a-z0-9-]+)` and `([a-z0-9-]+)` are parts of `([a-z0-9-]+)`", text)
    assert example, "the rule's example is not found"
    assert sorted(example.groups()[:3]) == sorted(p for p in graded_labels(example.group(4)) if p != example.group(4))
    graded = [e for _, a, b, _ in graded_rows() for e in a + b]
    assert any(len(graded_labels(e)) > 1 for e in graded), "no graded exercise has several numeric labels"


STUDENTS = [f"s{k:03d}" for k in range(200)]


def test_what_the_guide_says_variants_prevent_holds_over_the_registry():
    """The guide: classmates often draw the same parameters (for a one-parameter exercise with two
    values, half the pairs); a copied number is wrong only when the parameters differ; the main
    book's solutions give no graded label's answer for any student's variant."""
    from itertools import product

    from ledger.exercises.instructor import answer
    from ledger.exercises.registry import parameters

    text = " ".join(plan_section().split())
    assert "any two students share them half the time" in text and "not impossible" in text
    graded = {label for _, a, b, _ in graded_rows() for exercise in a + b for label in graded_labels(exercise)}
    two_valued = [label for label in graded if [len(v) for v in REGISTRY[label].variants.values()] == [2]]
    assert two_valued, "the guide's two-value example has no graded exercise"
    for label in sorted(graded):
        drawn = [tuple(sorted(parameters(label, s).items())) for s in STUDENTS]
        pairs = [(a, b) for i, a in enumerate(drawn) for b in drawn[i + 1:]]
        same = sum(a == b for a, b in pairs) / len(pairs)
        combinations = 1
        for values in REGISTRY[label].variants.values():
            combinations *= len(values)
        assert abs(same - 1 / combinations) < 0.1, f"{label}: {same:.2f} of pairs share parameters"
        if label in two_valued:
            assert 0.4 < same < 0.6, f"{label}: {same:.2f} of pairs share its two-valued parameter"
        ex = REGISTRY[label]
        book = answer(label)
        for values in product(*ex.variants.values()):
            variant = ex.answer(**dict(zip(ex.variants, values)))
            assert abs(variant - book) > ex.rel_tol * abs(book), f"{label}: the book's answer answers {values}"


def test_the_guide_states_the_exact_padding_bound():
    """Chapter 02 gives the exact bound n >= 2L-1; the guide's objective (and the chapter's slide
    lines) must not say n >= 2L."""
    nb = nbformat.read(ROOT / "notebooks" / "02_correlation.ipynb", as_version=4)
    lines = " ".join(v for c in nb.cells for v in c.metadata.get("tx_slides", {}).values())
    for where, text in (("course guide", GUIDE), ("chapter 02's slide lines", lines)):
        bounds = re.findall(r"n \\ge 2L(-1)?", text)
        assert bounds and all(bounds), f"{where}: n >= 2L where the exact bound is 2L-1"


def test_students_get_their_identifier_before_the_first_in_class_exercise():
    """The in-class exercise is worked with the student's own parameters, drawn from their identifier:
    the first session hands the identifiers out before its in-class exercise starts."""
    _, slots = sessions()[0]
    handed = [a for a, _, what in slots if "identifier" in what]
    in_class = [a for a, _, what in slots if what.startswith("in class")]
    assert handed, "the first session does not say when students get their identifier"
    assert handed[0] < in_class[0], f"identifiers at minute {handed[0]}, the in-class exercise at minute {in_class[0]}"


def test_the_paper_slips_command_writes_each_students_parameters_for_the_in_class_labels(tmp_path):
    """The guide's command for paper slips runs as written (with a class file and an output here), and
    its CSV has the columns the guide says to print, for exactly the numeric labels of an in-class
    exercise, with each student's parameters."""
    import csv
    import shlex

    from ledger.exercises.instructor import main as key_main
    from ledger.exercises.registry import _describe, parameters

    section = GUIDE.split("**Parameters on paper.**", 1)[1].split("\n**", 1)[0]
    command = shlex.split(re.search(r"```bash\n(.*?)\n```", section, re.DOTALL).group(1))
    assert command[:5] == ["python", "-m", "ledger", "exercises", "slips"], command
    args = command[5:]
    args[args.index("--salt") + 1] = "guide-test-salt"
    (tmp_path / "class.txt").write_text("s001\ns002\ns003\n", encoding="utf-8")
    args[args.index("--students") + 1] = str(tmp_path / "class.txt")
    args[args.index("--out") + 1] = str(tmp_path / "slips.csv")
    assert key_main(["slips", *args]) == 0
    rows = list(csv.DictReader((tmp_path / "slips.csv").open(encoding="utf-8")))
    columns = re.findall(r"`(\w+)`", section.split("`slips.csv` has the", 1)[1].split("columns only", 1)[0])
    assert sorted(columns) == sorted(rows[0]) == ["label", "parameters", "student"], (columns, rows[0])
    labels = {r["label"] for r in rows}
    in_class = {a[0] for _, a, _, _ in graded_rows()}
    assert any(labels == set(graded_labels(e)) for e in in_class), f"{labels}: not an in-class exercise's labels"
    for row in rows:
        shown = parameters(row["label"], row["student"], salt="guide-test-salt")
        assert all(_describe({k: v}) in row["parameters"] for k, v in shown.items() if k in REGISTRY[row["label"]].variants)


WIDGET_CALL = re.compile(r"(?<![\w.])(?:[\w.]+\.)?(?:interactive|explorer|interact)\(")


def test_the_landing_pages_sliders_sentence_names_exactly_the_chapters_without_a_widget():
    """book/intro.md: "every chapter but <the chapters named> has sliders"; the chapters with a widget
    cell (an `interactive(`, `explorer(` or `interact(` call) are all the others."""
    intro = " ".join((ROOT / "book" / "intro.md").read_text(encoding="utf-8").split())
    sentence = re.search(r"every chapter but (.*?) has sliders", intro)
    assert sentence, "the landing page's sentence on sliders is not found"
    named = set(DOC.findall(sentence.group(1)))
    with_widget = set()
    for stem in chapter_times():
        nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
        if any(WIDGET_CALL.search(c.source) for c in nb.cells if c.cell_type == "code"):
            with_widget.add(stem)
    assert named == set(chapter_times()) - with_widget, \
        f"named without sliders: {sorted(named)}; chapters without a widget: {sorted(set(chapter_times()) - with_widget)}"
