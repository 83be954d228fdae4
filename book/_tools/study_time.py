"""The study-time model: each chapter's "Time to learn" from what the chapter holds.

A chapter is cut into its sections (its `##` and `###` headings). For each section the model counts

- the words of prose (markdown outside the exercise and solution blocks and outside tables; a
  glued `{eval}` value, an inline formula or a cross-reference counts as one word),
- display equations (`$$ ... $$` and `{math}` blocks),
- figures (`show(...)` calls of visible cells, and markdown images),
- tables (`html_table(...)` and `show_table(...)` calls, and markdown pipe tables),
- worked examples: the code cells a reader sees (no `remove-cell`, `remove-input` or `hide-input`
  tag; the exercises' set-up and parameter cells are counted with the exercises),
- exercises (`{exercise}` blocks),

and prices each at a rate (`RATES`). A section is core unless the line right under its heading is
the optional mark (`OPTIONAL_MARK`); a `###` section under an optional `##` is optional too. A
chapter's minutes are core + optional (its study time) + exercises (its homework), each rounded up
to whole minutes; the line under the title says all four:

    - **Time to learn**: 98 minutes (core sections 55, optional sections 13, exercises 30).

The rates are calibration constants: a teacher who times a read replaces them (`--calibrate`, below)
and rewrites every line with `--write`. The course guide states the model and its rates, and
`ledger/exercises/plan.py`'s plans are timed by the core minutes (tests/test_course_guide.py).

  python book/_tools/study_time.py                 print each chapter's counts and minutes
  python book/_tools/study_time.py --write         write the "Time to learn" line of every chapter
  python book/_tools/study_time.py --check         exit 1 naming the chapters whose line is stale, or
                                                   the course guide's generated blocks when stale
  python book/_tools/study_time.py --calibrate FILE
        FILE: a CSV of timed reads (chapter,section,minutes; a section's heading text as in the
        chapter, or * for the whole chapter without its exercises); prints the measured over the
        modelled minutes per row, their ratio over all rows, and the rates scaled by it.
"""
from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slides import load_notes  # noqa: E402 (book/_tools is not a package)

ROOT = Path(__file__).resolve().parents[2]

READING_WPM = 238
"""Brysbaert (2019, J. Memory and Language 109, 104047): the average silent reading rate of adults
for English non-fiction, from 190 studies (most adults read it at 175-300 words per minute)."""
STUDY_FACTOR = 2.0
"""Assumption: studying a technical chapter (checking each number, re-reading each formula, well
enough to do its exercises) takes twice the time of reading it once for its gist. Replace it after
a timed read (`--calibrate`)."""

RATES = {
    "prose": 100 / READING_WPM * STUDY_FACTOR,  # minutes per 100 words
    "equation": 1.0,   # minutes per display equation: read, and follow from the one before
    "figure": 2.0,     # minutes per figure: its axes, its series, the point it makes
    "table": 1.5,      # minutes per table: its columns, then the rows the prose uses
    "example": 2.0,    # minutes per worked example (a visible code cell): read it, run it, read its output
    "exercise": 10.0,  # minutes per exercise: read the statement, work it, check it
}
"""Minutes per item; prose per 100 words. The calibration constants a teacher replaces."""

UNITS = {"prose": "per 100 words of prose", "equation": "per display equation", "figure": "per figure",
         "table": "per table", "example": "per worked example (a visible code cell)", "exercise": "per exercise"}

OPTIONAL_MARK = "*Optional section: the course plans leave it out of class time.*"
"""The line right under a heading that marks its section optional."""
TIME_LINE = re.compile(r"^- \*\*Time to learn\*\*:.*$", re.MULTILINE)
HIDDEN = {"remove-cell", "remove-input", "hide-input"}
EXERCISE_CELLS = {"exercise-setup", "exercise-parameters"}
HEADING = re.compile(r"^(#{2,3}) (.+?)\s*$", re.MULTILINE)
BLOCK = re.compile(r"^(`{3,})\{(exercise|solution)\}.*?^\1\s*$", re.MULTILINE | re.DOTALL)
FENCE = re.compile(r"^(`{3,}).*?^\1\s*$", re.MULTILINE | re.DOTALL)
DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)
MATH_BLOCK = re.compile(r"^(`{3,})\{math\}.*?^\1\s*$", re.MULTILINE | re.DOTALL)
ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")
INLINE_MATH = re.compile(r"\$[^$\n]+\$")
PIPE_RULE = re.compile(r"^\|[ :|-]*-[ :|-]*\|\s*$", re.MULTILINE)
SHOW_CALL = re.compile(r"(?<![\w.])show\(")
TABLE_CALL = re.compile(r"(?<![\w.])(?:html_table|show_table)\(")
IMAGE = re.compile(r"!\[[^\]]*\]\(|^`{3,}\{(?:figure|image|glue:figure)\}", re.MULTILINE)
STRUCTURE_EXERCISES = "Exercises"


class StudyTimeError(ValueError):
    """A chapter or a calibration file the model cannot read."""


@dataclass
class Section:
    heading: str
    level: int
    optional: bool = False
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RATES, 0))

    def minutes(self, rates: dict[str, float] = RATES) -> float:
        return sum(rates[k] * (n / 100 if k == "prose" else n) for k, n in self.counts.items())


@dataclass
class Chapter:
    stem: str
    sections: list[Section]

    def _sum(self, keep, rates) -> int:
        return math.ceil(round(sum(s.minutes(rates) for s in self.sections if keep(s)), 6))

    def core(self, rates: dict[str, float] = RATES) -> int:
        """Minutes of the core sections (the exercises' items left out)."""
        return self._sum(lambda s: not s.optional, {**rates, "exercise": 0.0}) if rates else 0

    def optional(self, rates: dict[str, float] = RATES) -> int:
        return self._sum(lambda s: s.optional, {**rates, "exercise": 0.0})

    def exercises(self, rates: dict[str, float] = RATES) -> int:
        """Minutes of the exercises: each exercise at its rate, and the Exercises section's own prose."""
        zero = dict.fromkeys(rates, 0.0)
        items = self._sum(lambda s: True, {**zero, "exercise": rates["exercise"]})
        section = self._sum(lambda s: s.heading == STRUCTURE_EXERCISES, {**rates, "exercise": 0.0})
        return items + section

    def total(self, rates: dict[str, float] = RATES) -> int:
        return self.core(rates) + self.optional(rates) + self.exercises(rates)

    def line(self) -> str:
        return (f"- **Time to learn**: {self.total()} minutes (core sections {self.core()}, "
                f"optional sections {self.optional()}, exercises {self.exercises()}).")

    def totals(self) -> dict[str, int]:
        return {k: sum(s.counts[k] for s in self.sections) for k in RATES}


def words(text: str) -> int:
    """Words of prose: tables, code blocks, display maths, HTML comments and headings left out; a role
    (`{eval}`, `{doc}`, `{cite}`) or an inline formula is one word."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.DOTALL)
    text = FENCE.sub(" ", DISPLAY_MATH.sub(" ", text))
    text = INLINE_MATH.sub(" x ", ROLE.sub(" x ", text))
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("|") and not ln.startswith("#")]
    return len(re.findall(r"[^\s*_`>-]\S*", "\n".join(lines)))


def _markdown(section: Section, text: str) -> None:
    c = section.counts
    c["exercise"] += sum(1 for m in BLOCK.finditer(text) if m.group(2) == "exercise")
    text = BLOCK.sub(" ", text)
    c["equation"] += len(DISPLAY_MATH.findall(text)) + len(MATH_BLOCK.findall(text))
    c["table"] += len(PIPE_RULE.findall(text))
    c["figure"] += len(IMAGE.findall(text))
    if section.heading == STRUCTURE_EXERCISES or not text.strip():
        c["prose"] += words(text)
        return
    c["prose"] += words(text.replace(OPTIONAL_MARK, " "))


def _code(section: Section, cell) -> None:
    tags = set(cell.metadata.get("tags", []))
    if "remove-cell" in tags or tags & EXERCISE_CELLS:
        return
    section.counts["figure"] += len(SHOW_CALL.findall(cell.source))
    section.counts["table"] += len(TABLE_CALL.findall(cell.source))
    if not tags & HIDDEN and cell.source.strip():
        section.counts["example"] += 1


def read_chapter(path: Path) -> Chapter:
    nb = nbformat.read(path, as_version=4)
    sections = [Section("(title)", 1)]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            source = TIME_LINE.sub(" ", cell.source)
            pieces = HEADING.split(source)
            _markdown(sections[-1], pieces[0])
            for k in range(1, len(pieces), 3):
                level, heading, body = len(pieces[k]), pieces[k + 1], pieces[k + 2]
                parent = next((s for s in reversed(sections) if s.level < level), None)
                optional = body.lstrip("\n").startswith(OPTIONAL_MARK) or bool(
                    level == 3 and parent is not None and parent.optional)
                sections.append(Section(heading, level, optional))
                _markdown(sections[-1], body)
        elif cell.cell_type == "code":
            _code(sections[-1], cell)
    return Chapter(path.stem, sections)


def chapter_paths() -> list[Path]:
    """The chapters of _toc.yml, in book order."""
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    return [ROOT / f"notebooks/{stem}.ipynb" for stem in re.findall(r"file:\s*notebooks/(\S+)", toc)]


def chapters() -> dict[str, Chapter]:
    return {p.stem: read_chapter(p) for p in chapter_paths()}


def stated_line(path: Path) -> str | None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells[:4]:
        if cell.cell_type == "markdown":
            found = TIME_LINE.search(cell.source)
            if found:
                return found.group(0)
    return None


def write_line(path: Path, line: str) -> bool:
    """Put `line` in place of the chapter's "Time to learn" line; True when the notebook changed."""
    text = path.read_text(encoding="utf-8")
    import json

    nb = json.loads(text)
    for cell in nb["cells"][:4]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and TIME_LINE.search(source):
            new = TIME_LINE.sub(line, source)
            cell["source"] = new.splitlines(keepends=True)
            out = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
            if out != text:
                path.write_text(out, encoding="utf-8")
            return out != text
    raise StudyTimeError(f"{path.name}: no '- **Time to learn**: ...' line in its first cells")


def calibrate(rows: list[tuple[str, str, float]], book: dict[str, Chapter]) -> tuple[float, list[str]]:
    """The ratio of measured to modelled minutes over the timed rows, and one line per row."""
    lines, measured, modelled = [], 0.0, 0.0
    for stem, heading, minutes in rows:
        if stem not in book:
            raise StudyTimeError(f"calibration: chapter {stem!r} is not one of {', '.join(book)}")
        chapter = book[stem]
        if heading == "*":
            model = chapter.core() + chapter.optional()
        else:
            found = [s for s in chapter.sections if s.heading == heading]
            if not found:
                raise StudyTimeError(f"calibration: {stem} has no section {heading!r}; "
                                     f"its sections: {', '.join(s.heading for s in chapter.sections)}")
            model = found[0].minutes({**RATES, "exercise": 0.0})
        if not minutes > 0:
            raise StudyTimeError(f"calibration: {stem} {heading!r}: {minutes} minutes; a timed read is > 0")
        measured, modelled = measured + minutes, modelled + model
        lines.append(f"{stem:28} {heading[:40]:40} measured {minutes:6.1f}  model {model:6.1f}")
    if not modelled:
        raise StudyTimeError("calibration: no timed rows")
    return measured / modelled, lines


def read_calibration(path: Path) -> list[tuple[str, str, float]]:
    rows = []
    with path.open(encoding="utf-8", newline="") as f:
        for n, row in enumerate(csv.reader(f), 1):
            if not row or row[0].startswith("#") or row[0] == "chapter":
                continue
            if len(row) != 3:
                raise StudyTimeError(f"{path}:{n}: {row!r}; a row is chapter,section,minutes")
            try:
                rows.append((row[0].strip(), row[1].strip(), float(row[2])))
            except ValueError:
                raise StudyTimeError(f"{path}:{n}: minutes {row[2]!r} is not a number") from None
    return rows


GUIDE = ROOT / "book" / "course_guide.md"
BLOCKS = ("study-time-model", "course-plans", "graded-labels")
"""The course guide's generated blocks, each between `<!-- NAME -->` and `<!-- /NAME -->`."""


def doc(stem: str) -> str:
    return f"{{doc}}`../notebooks/{stem}`"


def _rate(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def model_block(book: dict[str, Chapter]) -> str:
    """The rates, then each chapter's counts and minutes."""
    lines = ["| Item | Minutes | Source |", "| --- | ---: | --- |"]
    for key, value in RATES.items():
        source = (f"read at {READING_WPM} words a minute {{cite}}`brysbaert2019words`, studied {_rate(STUDY_FACTOR)} "
                  "times slower (assumed)" if key == "prose" else "assumed")
        lines.append(f"| {UNITS[key]} | {_rate(value)} | {source} |")
    lines += ["", ("| Chapter | Words | Equations | Figures | Tables | Worked examples | Exercises | Core "
              "| Optional | Exercises (min) | Time to learn |"),
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    sums = dict.fromkeys(["core", "optional", "exercises", "total"], 0)
    for stem, ch in book.items():
        t = ch.totals()
        row = {"core": ch.core(), "optional": ch.optional(), "exercises": ch.exercises(), "total": ch.total()}
        for k in sums:
            sums[k] += row[k]
        lines.append(f"| {stem[:2]} | {t['prose']:,} | {t['equation']} | {t['figure']} | {t['table']} | "
                     f"{t['example']} | {t['exercise']} | {row['core']} | {row['optional']} | {row['exercises']} "
                     f"| {row['total']} |")
    words = sum(ch.totals()["prose"] for ch in book.values())
    lines.append(f"| all | {words:,} | | | | | | {sums['core']} | {sums['optional']} | {sums['exercises']} "
                 f"| {sums['total']} |")
    return "\n".join(lines)


def deck_minutes(stem: str) -> int:
    """Minutes of talk the chapter's speaker notes give its whole deck (book/slide_notes/<stem>.yml, read
    as the slides build reads it; every slide, optional sections included): speaking time, beside the
    model's study time."""
    return math.ceil(sum(entry["minutes"] for entry in load_notes(stem).values()))


def homework_minutes(session, book: dict[str, Chapter]) -> int:
    """The model's minutes of a session's homework: the chapters read at home (whole), the taught
    chapters' optional sections, and each homework exercise and the explanation at the exercise rate."""
    reading = sum(book[s].core() + book[s].optional() for s in session.reading)
    optional = sum(book[s].optional() for s in session.chapters)
    return math.ceil(reading + optional + (len(session.homework) + 1) * RATES["exercise"])


def session_minutes(plan, number: int, session, book: dict[str, Chapter]) -> list[tuple[int, int, str]]:
    """The session's slots (start, end, what) from minute 0 to the plan's length."""
    from ledger.exercises.plan import IN_CLASS_MINUTES

    slots, t = [], 0
    opening = plan.opening(number)
    what = ("the plan of the course, the grading, each student's identifier (set as `STUDENT_ID`, so that "
            "the in-class exercise shows their own parameters) and the install check"
            if number == 1 else "review of the last homework (the common slips)")
    slots.append((t, t + opening, what))
    t += opening
    for stem in session.chapters:
        slots.append((t, t + book[stem].core(), f"{doc(stem)}, its core sections (its whole deck's speaker "
                                                f"notes: {deck_minutes(stem)} min of talk)"))
        t += book[stem].core()
    slots.append((t, t + IN_CLASS_MINUTES, (f"in class, `{session.in_class}`: derive it on paper, hand it in, "
                                           "then go through it with the key")))
    t += IN_CLASS_MINUTES
    if t < plan.minutes:
        slots.append((t, plan.minutes, "questions, and the homework"))
    return slots


def plans_block(book: dict[str, Chapter]) -> str:
    from ledger.exercises.plan import PLANS

    out = []
    for name, plan in PLANS.items():
        taught = [s for session in plan.sessions for s in session.chapters]
        read = [s for session in plan.sessions for s in (*session.reading, *plan.before) if s not in taught]
        read = list(dict.fromkeys(read))
        left = [s for s in book if s not in taught and s not in read]
        before_minutes = math.ceil(sum(book[s].core() + book[s].optional() for s in plan.before))
        before = (f" Read before the first session: chapters {', '.join(s[:2] for s in plan.before)} "
                  f"({before_minutes} minutes by the same model, whole chapters, on top of the sessions' "
                  "homework minutes below)." if plan.before else "")
        gaps = "".join(f" Taught before its prerequisite on purpose: {c[:2]} before {p[:2]} ({why})."
                       for c, p, why in plan.out_of_order)
        out += [f"### {plan.title} (plan {name})", "",
                (f"For {plan.audience}. Taught in class: chapters {', '.join(s[:2] for s in taught)} (their core "
                f"sections); read at home: {', '.join(s[:2] for s in read) or 'none'}; left out: "
                f"{', '.join(s[:2] for s in left) or 'none'}.{before} Every other chapter a chapter needs "
                f"(its prerequisites table's *Necessary* rows) is taught or read before it.{gaps}"), "",
                ("| Session | Taught (core sections) | Read at home | Minutes in class | In class | Homework "
                "| Explanation | Homework minutes |"),
                "| --- | --- | --- | ---: | --- | --- | --- | ---: |"]
        for k, session in enumerate(plan.sessions, 1):
            used = session_minutes(plan, k, session, book)
            busy = sum(b - a for a, b, what in used if not what.startswith("questions"))
            out.append(f"| {k}. {session.title} | {', '.join(doc(s) for s in session.chapters)} | "
                       f"{', '.join(doc(s) for s in session.reading) or '-'} | {busy} of {plan.minutes} | "
                       f"`{session.in_class}` | {homework_text(session.homework)} | "
                       f"`{session.explanation}` | {homework_minutes(session, book)} |")
        out += ["", "Minute by minute:", ""]
        for k, session in enumerate(plan.sessions, 1):
            out.append(f"Session {k}, {session.title}:")
            out += [f"- {a}-{b} min: {what}." for a, b, what in session_minutes(plan, k, session, book)]
            out.append("")
    return "\n".join(out).rstrip()


def has_graded_part(exercise: str) -> bool:
    """True when some numeric part of `exercise` is graded (the registry's flag)."""
    from ledger.exercises import REGISTRY
    from ledger.exercises.registry import parts

    return any(REGISTRY[p].graded and REGISTRY[p].asks_number for p in parts(exercise))


def homework_text(homework) -> str:
    """A session's homework as the plans' tables print it: an exercise with no graded part says so."""
    return ", ".join(f"`{h}`" + ("" if has_graded_part(h) else " (practice)") for h in homework)


def graded_block() -> str:
    """The assessment plan's tables: each plan's graded labels, session by session (what `make grade
    PLAN=...` grades); a session whose in-class exercise or explanation is practice says so."""
    from ledger.exercises import REGISTRY
    from ledger.exercises.plan import PLANS

    out = []
    for name, plan in PLANS.items():
        out += [f"**Plan {name}.**", "",
                "| Session | In class, on paper (exercise) | Numeric homework (exercises) | Explanation (label, rubric) |",
                "| --- | --- | --- | --- |"]
        for k, s in enumerate(plan.sessions, 1):
            graded = [h for h in s.homework if has_graded_part(h)]
            in_class = f"`{s.in_class}`" + ("" if has_graded_part(s.in_class) else " (practice)")
            explanation = f"`{s.explanation}`" + ("" if REGISTRY[s.explanation].graded else " (practice)")
            out.append(f"| {k} | {in_class} | {', '.join(f'`{h}`' for h in graded) or 'none'} | {explanation} |")
        out.append("")
    return "\n".join(out).rstrip()


def guide_text(text: str, book: dict[str, Chapter]) -> str:
    """The course guide with its generated blocks written afresh."""
    blocks = {"study-time-model": model_block(book), "course-plans": plans_block(book), "graded-labels": graded_block()}
    for name, body in blocks.items():
        pattern = re.compile(rf"(<!-- {name} -->\n)(?:.*?\n)?(<!-- /{name} -->)", re.DOTALL)
        if not pattern.search(text):
            raise StudyTimeError(f"{GUIDE.name}: no <!-- {name} --> ... <!-- /{name} --> block")
        text = pattern.sub(lambda m, body=body: m.group(1) + body + "\n" + m.group(2), text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--calibrate", type=Path)
    args = parser.parse_args(argv)
    book = chapters()
    if args.calibrate:
        try:
            ratio, lines = calibrate(read_calibration(args.calibrate), book)
        except (StudyTimeError, OSError) as error:
            print(f"study_time: {error}", file=sys.stderr)
            return 2
        print("\n".join(lines))
        print(f"measured / model = {ratio:.2f}; the rates scaled by it:")
        for k, v in RATES.items():
            print(f"  {k:9} {v * ratio:5.2f} minutes {UNITS[k]}")
        return 0
    stale = []
    for stem, chapter in book.items():
        path = ROOT / "notebooks" / f"{stem}.ipynb"
        if args.write:
            write_line(path, chapter.line())
        elif args.check:
            if stated_line(path) != chapter.line():
                stale.append(stem)
        else:
            print(f"{stem:28} {chapter.totals()}  {chapter.line()[2:]}")
    if not (args.write or args.check):
        return 0
    guide = GUIDE.read_text(encoding="utf-8")
    if args.write:
        GUIDE.write_text(guide_text(guide, book), encoding="utf-8")
    elif args.check and guide_text(guide, book) != guide:
        stale.append(GUIDE.name)
    if stale:
        print(f"study_time: stale 'Time to learn' lines: {', '.join(stale)} (run --write)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
