"""The course fits its hours: every chapter states its time to learn, and the course guide's
sessions, timed minute by minute, give each chapter at least that time and end by minute 90; its
table adds the chapters' times right; every chapter is taught once; the in-class exercise belongs to
the session's chapters; the assessment plan grades real labels, with rubrics for explanations."""
import re
from pathlib import Path

import nbformat

from ledger.exercises import LABELS, REGISTRY

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "book" / "course_guide.md").read_text(encoding="utf-8")
TIME = re.compile(r"\*\*Time to learn\*\*:?\s*(\d+)\s*minutes")
SESSION_LENGTH = 90
DOC = re.compile(r"\{doc\}`\.\./notebooks/(\d\d_\w+)`")
LABEL_IN = re.compile(r"^:label:\s*(\S+)", re.MULTILINE)


def chapter_times() -> dict[str, int]:
    stems = re.findall(r"file:\s*notebooks/(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8"))
    times = {}
    for stem in stems:
        nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
        found = TIME.search("\n".join(c.source for c in nb.cells[:4] if c.cell_type == "markdown"))
        times[stem] = int(found.group(1)) if found else None
    return times


def chapter_labels(stem: str) -> set[str]:
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    return set(LABEL_IN.findall("\n".join(c.source for c in nb.cells if c.cell_type == "markdown")))


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


def test_the_assessment_plan_grades_real_labels_with_variants_and_rubrics():
    plan = GUIDE.split("## Assessment plan", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d) \| ([^|]+) \| ([^|]+) \|$", plan, re.MULTILINE)
    assert len(rows) == len(sessions())
    for session, numeric, explained in rows:
        for label in re.findall(r"`([a-z0-9-]+)`", numeric):
            assert label in LABELS and REGISTRY[label].answer is not None, f"{label}: not a numeric exercise"
            assert REGISTRY[label].variants, f"{label}: graded homework without per-student variants"
        for label in re.findall(r"`([a-z0-9-]+)`", explained):
            assert label in LABELS and REGISTRY[label].answer is None, f"{label}: not an explanation"
            assert REGISTRY[label].rubric, f"{label}: an explanation without a rubric"
