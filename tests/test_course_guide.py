"""The course fits its hours: every chapter's "Time to learn" line is the study-time model's
(book/_tools/study_time.py), the guide's tables are the model's and the plans' (ledger/exercises/plan.py),
every session of every plan fits its length by the model's core minutes, each plan's exercises belong
to its sessions' chapters, and the assessment plan grades real labels, with rubrics for explanations."""
import functools
import re
import sys
from pathlib import Path

import nbformat
import pytest

from ledger.errors import LedgerError
from ledger.exercises import LABELS, REGISTRY
from ledger.exercises.plan import IN_CLASS_MINUTES, PLANS, plan
from ledger.exercises.registry import exercise_of, parts
from ledger.exercises.registry import parameters as registry_parameters

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_tools"))
import itertools

import study_time

GUIDE = (ROOT / "book" / "course_guide.md").read_text(encoding="utf-8")
DOC = re.compile(r"\{doc\}`\.\./notebooks/(\d\d_\w+)`")
LABEL_IN = re.compile(r"^:label:\s*(\S+)", re.MULTILINE)
BOOK = study_time.chapters()


@functools.cache
def chapter_notebook(stem: str):
    """A chapter notebook, read (and validated) once per run: the checks below ask for it per label."""
    return nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)


def chapter_times() -> dict[str, int]:
    """{chapter: the minutes its "Time to learn" line states}, or None where it states none."""
    times = {}
    for stem in BOOK:
        line = study_time.stated_line(ROOT / "notebooks" / f"{stem}.ipynb")
        found = line and re.search(r"\*\*Time to learn\*\*: (\d+) minutes", line)
        times[stem] = int(found.group(1)) if found else None
    return times


def chapter_labels(stem: str) -> set[str]:
    return set(LABEL_IN.findall(chapter_markdown(stem)))


def test_every_chapter_states_the_models_time_to_learn():
    """The line under each chapter's title is the model's, figure for figure: a chapter edited (a
    section added, a section marked optional) or a rate changed fails here until
    `python book/_tools/study_time.py --write` runs."""
    wrong = {stem: (study_time.stated_line(ROOT / "notebooks" / f"{stem}.ipynb"), ch.line())
             for stem, ch in BOOK.items()
             if study_time.stated_line(ROOT / "notebooks" / f"{stem}.ipynb") != ch.line()}
    assert not wrong, "stated time to learn differs from the model's:\n" + "\n".join(
        f"{stem}: {a!r} != {b!r}" for stem, (a, b) in wrong.items())


def test_the_guides_model_and_plan_tables_are_generated_from_the_model_and_the_plans():
    assert study_time.guide_text(GUIDE, BOOK) == GUIDE, "run python book/_tools/study_time.py --write"


def test_the_guide_states_every_rate_and_its_source():
    block = GUIDE.split("<!-- study-time-model -->", 1)[1].split("<!-- /study-time-model -->", 1)[0]
    for key, unit in study_time.UNITS.items():
        assert re.search(rf"^\| {re.escape(unit)} \| [\d.]+ \|", block, re.MULTILINE), f"the rate {key} is not stated"
    assert "brysbaert2019words" in block and "@article{brysbaert2019words" in (ROOT / "book" / "references.bib").read_text()
    assert study_time.RATES["prose"] == pytest.approx(100 / study_time.READING_WPM * study_time.STUDY_FACTOR)


def test_every_chapter_marks_its_sections_and_keeps_a_core():
    """Every chapter has core sections; the optional mark stands only right under a heading; the
    overview, summary and exercises are never optional."""
    for stem, chapter in BOOK.items():
        assert chapter.core() > 0, stem
        for section in chapter.sections:
            if section.heading in ("Overview", "Summary", "Exercises", "Prerequisites"):
                assert not section.optional, f"{stem}: {section.heading} marked optional"
        text = chapter_markdown(stem)
        marks = text.count(study_time.OPTIONAL_MARK)
        under = len(re.findall(r"^#{2,3} .+\n\n" + re.escape(study_time.OPTIONAL_MARK), text, re.MULTILINE))
        assert marks == under, f"{stem}: an optional mark that is not right under a heading"
        assert marks == sum(s.optional and not (s.level == 3 and _parent_optional(chapter, s))
                            for s in chapter.sections)


def _parent_optional(chapter, section) -> bool:
    k = chapter.sections.index(section)
    parent = next((s for s in reversed(chapter.sections[:k]) if s.level < section.level), None)
    return bool(parent and parent.optional)


def write_chapter(path: Path, cells: list) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nbformat.write(nb, path)
    return path


def test_the_model_counts_and_prices_each_item(tmp_path):
    """A made-up chapter of known content: 200 words of core prose (a glued value, a formula and a
    reference one word each), a display equation, a figure, a table, two worked examples of which one
    is hidden (not counted), an optional section of 100 words, and two exercises."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    words = " ".join(["word"] * 197) + " {eval}`f'{glued.x:.0f}'` $a+b$ {doc}`01_six_n_rule`"
    cells = [md("# Title\n\n- **Time to learn**: 1 minutes.\n\n## Core\n\n" + words + "\n\n$$x = y$$\n"),
             code("show(fig, alt='a figure of something')"),
             code("display(html_table(header, rows))"),
             code("x = 1", metadata={"tags": ["hide-input"]}),
             md("## Deeper\n\n" + study_time.OPTIONAL_MARK + "\n\n" + " ".join(["more"] * 100)),
             md("## Exercises\n\n```{exercise}\n:label: a\nDo it.\n```\n\n```{exercise}\n:label: b\nAnd it.\n```")]
    cells[2].source = "print(1)\n" + cells[2].source
    chapter = study_time.read_chapter(write_chapter(tmp_path / "99_made_up.ipynb", cells))
    counts = {s.heading: s.counts for s in chapter.sections}
    assert counts["Core"] == {"prose": 200, "equation": 1, "figure": 1, "table": 1, "example": 2, "exercise": 0}
    assert counts["Deeper"]["prose"] == 100 and [s.optional for s in chapter.sections] == [False, False, True, False]
    r = study_time.RATES
    core = 2 * r["prose"] + r["equation"] + r["figure"] + r["table"] + 2 * r["example"] + 0.01 * r["prose"]
    assert chapter.core() == -(-round(core, 6) // 1)
    assert chapter.optional() == -(-round(r["prose"], 6) // 1)
    assert chapter.exercises() >= 2 * r["exercise"]
    assert chapter.line().startswith(f"- **Time to learn**: {chapter.total()} minutes (core sections {chapter.core()}")


def test_calibration_scales_by_the_timed_reads_and_refuses_bad_rows(tmp_path):
    stem = "05_amdahl_table"
    whole = BOOK[stem].core() + BOOK[stem].optional()
    ratio, lines = study_time.calibrate([(stem, "*", 2 * whole)], BOOK)
    assert ratio == pytest.approx(2.0) and len(lines) == 1
    with pytest.raises(study_time.StudyTimeError, match="'99_nothing' is not one of"):
        study_time.calibrate([("99_nothing", "*", 10)], BOOK)
    with pytest.raises(study_time.StudyTimeError, match="has no section 'Nowhere'"):
        study_time.calibrate([(stem, "Nowhere", 10)], BOOK)
    (tmp_path / "t.csv").write_text("chapter,section,minutes\n05_amdahl_table,*,ten\n", encoding="utf-8")
    with pytest.raises(study_time.StudyTimeError, match="minutes 'ten' is not a number"):
        study_time.read_calibration(tmp_path / "t.csv")


def test_the_three_plans_are_there():
    """5 x 90, 4 x 60, and a part-2-first track whose first sessions teach only part 2 (chapters 11-16)."""
    shapes = {name: (len(p.sessions), p.minutes) for name, p in PLANS.items()}
    assert shapes["5x90"] == (5, 90) and shapes["4x60"] == (4, 60), shapes
    part2 = [p for p in PLANS.values() if all(int(s[:2]) >= 11 for s in p.sessions[0].chapters)]
    assert part2, "no plan starts with part 2"
    with pytest.raises(LedgerError, match=r"'6x45': not a plan; the plans are"):
        plan("6x45")


@pytest.mark.parametrize("name", sorted(PLANS))
def test_every_session_fits_its_length_by_the_models_core_minutes(name):
    p = PLANS[name]
    taught = []
    for number, session in enumerate(p.sessions, 1):
        used = p.opening(number) + sum(BOOK[s].core() for s in session.chapters) + IN_CLASS_MINUTES
        assert used <= p.minutes, f"{name} session {number} overruns: {used} of {p.minutes} minutes"
        slots = study_time.session_minutes(p, number, session, BOOK)
        assert slots[0][0] == 0 and slots[-1][1] == p.minutes
        for (_, b, _), (c, _, _) in itertools.pairwise(slots):
            assert b == c, f"{name} session {number}: a gap or overlap at minute {b}"
        taught += session.chapters
    assert len(taught) == len(set(taught)), f"{name}: a chapter taught twice"
    assert set(taught) <= set(BOOK)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_every_plans_exercises_are_real_and_belong_to_their_sessions(name):
    """The in-class exercise is an exercise's own label, numeric with per-student variants, of a chapter
    the session teaches; the homework are exercises' own labels whose numeric parts have variants, and
    the explanation a label with a rubric, of a chapter the session teaches or sets to read."""
    for number, session in enumerate(PLANS[name].sessions, 1):
        taught = set(session.chapters)
        chapters = taught | set(session.reading)
        assert set(session.reading) <= set(BOOK), session.reading
        label = session.in_class
        assert label in LABELS and exercise_of(label) == label, f"{label}: not an exercise's own label"
        assert label_chapters(label) & taught, f"{name} session {number}: {label} is not in a taught chapter"
        for exercise in (label, *session.homework):
            assert exercise in LABELS and exercise_of(exercise) == exercise, f"{exercise}: not an exercise's own label"
            numeric = [p for p in parts(exercise) if REGISTRY[p].answer is not None]
            assert numeric, f"{exercise}: no numeric part"
            assert all(REGISTRY[p].variants for p in graded_labels(exercise)), f"{exercise}: a graded part without variants"
            assert label_chapters(exercise) & chapters, f"{name} session {number}: {exercise} is not in its chapters"
        expl = session.explanation
        assert expl in LABELS and REGISTRY[expl].answer is None and REGISTRY[expl].rubric, f"{expl}: not an explanation"
        assert label_chapters(expl) & chapters, f"{name} session {number}: {expl} is not in its chapters"


def plan_section() -> str:
    return GUIDE.split("## Assessment plan", 1)[1].split("\n## ", 1)[0]


def graded_rows(plan_name: str | None = None) -> list[tuple[str, list[str], list[str], list[str]]]:
    """(session, in-class exercise, numeric homework exercises, explanation labels) from the assessment
    plan's tables (one plan's, or every plan's); a label the table marks "(practice)" is left out."""
    block = re.search(r"<!-- graded-labels -->(.*?)<!-- /graded-labels -->", plan_section(), re.DOTALL).group(1)
    tables = dict(re.findall(r"\*\*Plan ([a-z0-9-]+)\.\*\*(.*?)(?=\*\*Plan |$)", block, re.DOTALL))
    assert set(tables) == set(PLANS), f"the assessment plan has tables for {sorted(tables)}, the plans are {sorted(PLANS)}"
    text = "".join(tables[p] for p in ([plan_name] if plan_name else PLANS))
    rows = re.findall(r"^\| (\d) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", text, re.MULTILINE)
    label = re.compile(r"`([a-z0-9-]+)`(?! \(practice\))")
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


@pytest.mark.parametrize("plan_name", sorted(PLANS))
def test_the_assessment_plan_grades_each_plans_exercises(plan_name):
    """Each plan's table is its sessions' exercises, session by session, with the graded homework in
    the plan's order and every in-class exercise or explanation without a graded part marked practice
    (the labels themselves are checked with the plans)."""
    rows = graded_rows(plan_name)
    sessions = PLANS[plan_name].sessions
    assert [r[0] for r in rows] == [str(k) for k in range(1, len(sessions) + 1)], "one row per session, in order"
    for (_, in_class, numeric, explained), session in zip(rows, sessions):
        assert in_class == ([session.in_class] if graded_labels(session.in_class) else [])
        assert explained == ([session.explanation] if REGISTRY[session.explanation].graded else [])
        assert numeric == [h for h in session.homework if graded_labels(h)], "the graded homework, in the plan's order"
    if plan_name == "5x90":
        assert all(r[1] and r[3] for r in rows), "the main plan grades an in-class derivation and an explanation each session"


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


@pytest.mark.parametrize("name", sorted(PLANS))
def test_students_get_their_identifier_before_the_first_in_class_exercise(name):
    """The in-class exercise is worked with the student's own parameters, drawn from their identifier:
    the first session hands the identifiers out (and runs the install check) before its in-class
    exercise starts."""
    p = PLANS[name]
    slots = study_time.session_minutes(p, 1, p.sessions[0], BOOK)
    handed = [a for a, _, what in slots if "identifier" in what and "install check" in what]
    in_class = [a for a, _, what in slots if what.startswith("in class")]
    assert handed and handed[0] < in_class[0], f"{name}: identifiers at {handed}, the in-class exercise at {in_class}"


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
    in_class = {a[0] for _, a, _, _ in graded_rows("5x90")}
    assert any(labels == set(graded_labels(e)) for e in in_class), f"{labels}: not an in-class exercise's labels"
    for row in rows:
        shown = parameters(row["label"], row["student"], salt="guide-test-salt")
        assert all(_describe({k: v}) in row["parameters"] for k, v in shown.items() if k in REGISTRY[row["label"]].variants)


WIDGET_CALL = re.compile(r"(?<![\w.])(?:[\w.]+\.)?(?:live_panel|interactive|explorer|interact)\(")


def test_the_landing_pages_sliders_sentence_names_exactly_the_chapters_without_a_widget():
    """book/intro.md: "every chapter but <the chapters named> has sliders"; the chapters with a widget
    cell (a `live_panel(`, `interactive(`, `explorer(` or `interact(` call) are all the others."""
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


def test_the_guides_calibration_procedure_runs_as_written(tmp_path, capsys):
    """The guide's example rows, written as the CSV it describes, go through `--calibrate`: it prints a
    line per row, the ratio and every rate scaled."""
    section = " ".join(GUIDE.split("**No read was timed.**", 1)[1].split("\n## ", 1)[0].split())
    rows = re.findall(r"`(\d\d_\w+,[^`,]+,\d+)`", section)
    assert len(rows) >= 2, rows
    (tmp_path / "times.csv").write_text("chapter,section,minutes\n" + "\n".join(rows) + "\n", encoding="utf-8")
    assert "--calibrate times.csv" in section
    assert study_time.main(["--calibrate", str(tmp_path / "times.csv")]) == 0
    printed = capsys.readouterr().out
    assert printed.count(" measured ") == len(rows) and "measured / model = " in printed
    assert all(key in printed for key in study_time.RATES)


def test_each_taught_chapter_shows_its_decks_talk_minutes_and_each_session_its_homework_minutes():
    """The minute-by-minute lines give each taught chapter's deck's speaker-notes minutes (summed from
    book/slide_notes), and each plan table a homework column: reading, optional sections, exercises."""
    import yaml

    text = (ROOT / "book" / "course_guide.md").read_text(encoding="utf-8")
    for name, course in PLANS.items():
        for session in course.sessions:
            for stem in session.chapters:
                notes = yaml.safe_load((ROOT / "book" / "slide_notes" / f"{stem}.yml").read_text(encoding="utf-8"))
                talk = sum(entry["minutes"] for entry in notes.values())
                assert study_time.deck_minutes(stem) == talk > 0, stem
                assert f"{{doc}}`../notebooks/{stem}`, its core sections (its whole deck's speaker notes: {talk:g} min of talk)" in text
            expected = (sum(BOOK[s].core() + BOOK[s].optional() for s in session.reading)
                        + sum(BOOK[s].optional() for s in session.chapters) + 10 * (len(session.homework) + 1))
            assert study_time.homework_minutes(session, BOOK) == expected, (name, session.title)
            assert re.search(rf"^\| \d\. {re.escape(session.title)} \|.*\| {expected} \|$", text, re.MULTILINE), \
                (name, session.title, expected)


def test_exercises_one_call_answers_are_graded_in_class_only_and_the_guide_names_them():
    """A graded exercise one library call answers (plan.IN_CLASS_ONLY) is never set as homework in any
    plan, and the assessment plan names exactly these as the one-call exceptions."""
    from ledger.exercises.plan import IN_CLASS_ONLY

    for name, course in PLANS.items():
        for session in course.sessions:
            assert not set(session.homework) & set(IN_CLASS_ONLY), (name, session.title)
    for label in IN_CLASS_ONLY:
        assert graded_labels(label), f"{label}: listed as graded in class, but no part is graded"
    text = " ".join(plan_section().split())
    named = re.search(r"one library call does answer them \(([^)]*)\)", text)
    assert named, "the guide does not name the in-class exercises one call answers"
    assert sorted(re.findall(r"`([a-z0-9-]+)`", named.group(1))) == sorted(IN_CLASS_ONLY)


def test_what_the_guide_says_copying_can_still_do_holds_over_the_registry():
    """The guide: in a class of 40 most students share a graded label's parameters with a classmate, and
    the graded labels it names are exactly those whose answer is proportional to their one varied
    parameter or to its inverse (so a classmate's answer converts by one multiplication)."""
    import inspect

    from ledger.exercises import instructor

    text = " ".join(plan_section().split())
    named = re.search(r"proportional to its one varied parameter, or to its inverse \(([^)]*)\)", text)
    assert named, "the guide does not name the proportional graded labels"
    proportional = []
    roster = [f"s{k:03d}" for k in range(40)]
    for label in instructor.graded_labels():
        ex = REGISTRY[label]
        if not ex.asks_number or not ex.variants:
            continue
        rows = [tuple(sorted(registry_parameters(label, s).items())) for s in roster]
        shared = sum(rows.count(r) > 1 for r in rows) / len(rows)
        assert shared > 0.5, f"{label}: only {shared:.0%} of 40 students share their parameters with a classmate"
        if len(ex.variants) == 1:
            (name, values), = ex.variants.items()
            book_value = inspect.signature(ex.answer).parameters[name].default
            book = ex.answer()
            for power in (1, -1):
                if all(abs(ex.answer(**{name: v}) / (book * (v / book_value) ** power) - 1) < 1e-9 for v in values):
                    proportional.append(label)
    assert sorted(re.findall(r"`([a-z0-9-]+)`", named.group(1))) == sorted(proportional)


NECESSARY = re.compile(r"^\|[^|\n]*\|\s*\{doc\}`(\d\d_[a-z0-9_]+)`\s*\|\s*Necessary\s*\|", re.MULTILINE)


def necessary(stem: str) -> set[str]:
    """The chapters `stem`'s prerequisites table marks Necessary."""
    return set(NECESSARY.findall(chapter_markdown(stem)))


@pytest.mark.parametrize("plan_name", sorted(PLANS))
def test_every_plan_puts_a_chapters_necessary_prerequisites_before_it(plan_name):
    """A chapter taught in session k has each Necessary prerequisite read before the course, taught or
    read in an earlier session, or taught earlier in the same session; a chapter read at home after
    session k likewise (taught by session k, or read before it in the list); the plan's out_of_order
    pairs are the only exceptions, and the guide names them."""
    course = PLANS[plan_name]
    assert necessary("05_amdahl_table") == {"01_six_n_rule", "03_three_passes", "04_block_circulant"}  # the parser reads
    known = set(course.before)
    for stem in course.before:
        assert necessary(stem) <= known | set(course.before[:course.before.index(stem)]), (plan_name, stem)
    allowed = {(c, p) for c, p, _ in course.out_of_order}
    gaps = []
    for session in course.sessions:
        for stem in (*session.chapters, *session.reading):
            gaps += [(stem, p) for p in necessary(stem) - known if (stem, p) not in allowed]
            known.add(stem)
    assert not gaps, f"plan {plan_name}: chapters before a Necessary prerequisite: {gaps}"
    text = " ".join((ROOT / "book" / "course_guide.md").read_text(encoding="utf-8").split())
    for c, p, why in course.out_of_order:
        assert f"{c[:2]} before {p[:2]} ({why})" in text, (c, p)
