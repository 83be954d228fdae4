"""The course fits its hours: every chapter states its time to learn, and the course guide's
sessions, timed minute by minute, give each chapter at least that time and end by minute 90; its
table adds the chapters' times right; every chapter is taught once; the in-class exercise belongs to
the session's chapters; the assessment plan grades real labels, with rubrics for explanations."""
import functools
import itertools
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
        for (a, b, _), (c, _, _) in itertools.pairwise(slots):
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
    """The guide's rule: an in-class or numeric homework exercise is graded on its numeric labels that the
    registry marks graded (its own and the parts that extend it); its explanation part only where the
    table names it."""
    return [part for part in parts(exercise) if REGISTRY[part].answer is not None and REGISTRY[part].graded]


def test_the_guide_states_the_graded_label_rule_with_a_real_multi_part_example():
    """The rule is stated with an example whose graded parts are what the registry marks, the plan
    grades at least one multi-part exercise, and every formative label the guide names is formative
    (one call answers it) and never graded."""
    text = " ".join(plan_section().split())
    assert "the graded labels are the exercise's numeric labels that `python -m ledger exercises list --json` marks graded" in text
    example = re.search(r"`([a-z0-9-]+)` and `([a-z0-9-]+)` are the graded parts of `([a-z0-9-]+)`", text)
    assert example, "the rule's example is not found"
    assert sorted(example.groups()[:2]) == sorted(graded_labels(example.group(3)))
    graded = [e for _, a, b, _ in graded_rows() for e in a + b]
    assert any(len(graded_labels(e)) > 1 for e in graded), "no graded exercise has several numeric labels"
    named = re.search(r"never graded, and the list marks it with the reason \(([^)]*)\)", text).group(1)
    for label in re.findall(r"`([a-z0-9-]+)`", named):
        assert REGISTRY[label].formative and not REGISTRY[label].graded, label
    for _, a, b, c in graded_rows():
        for exercise in a + b:
            assert graded_labels(exercise), f"{exercise}: in the plan but no part is graded"
        assert all(REGISTRY[label].graded for label in c), c


STUDENTS = [f"s{k:03d}" for k in range(200)]


def test_what_the_guide_says_variants_prevent_holds_over_the_registry():
    """The guide: every graded numeric label has at least 11 rows (12 for all but the one it names); a
    copied number is wrong most of the time; the main book's solutions give no graded label's answer
    for any student's variant."""
    from ledger.exercises.instructor import answer
    from ledger.exercises.registry import variant_count, variant_rows

    text = " ".join(plan_section().split())
    assert "at least 11 variant rows (12 for all but `corr-long-channel`" in text and "not impossible" in text
    graded = {label for _, a, b, _ in graded_rows() for exercise in a + b for label in graded_labels(exercise)}
    assert graded
    for label in sorted(graded):
        expected = 11 if exercise_of(label) == "corr-long-channel" else 12
        assert variant_count(label) >= expected, f"{label}: {variant_count(label)} variant rows"
        ex = REGISTRY[label]
        book = answer(label)
        for row in variant_rows(label):
            variant = ex.answer(**row)
            assert abs(variant - book) > ex.rel_tol * abs(book), f"{label}: the book's answer answers {row}"


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
    numeric_parts = {e: {p for p in parts(e) if REGISTRY[p].answer is not None} for e in in_class}
    assert any(labels == numeric_parts[e] for e in in_class), f"{labels}: not an in-class exercise's labels"
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
