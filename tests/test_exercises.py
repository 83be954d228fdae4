"""Every exercise of the book is self-checking or marked: each statement asks for its numbers by
label (one label per number, each registered in `ledger.exercises`, with its unit and precision in
the statement) and its explanations by label (each registered with a rubric, which the solution
prints); the ledger's own answer passes `check` and a perturbed one does not; hints point without
naming a function. The labels are read from the `{exercise}` blocks of the chapter notebooks."""
import re
from pathlib import Path

import nbformat

from ledger.exercises import LABELS, REGISTRY, check
from ledger.exercises.instructor import answer
from ledger.exercises.registry import precision_phrase

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>exercise|solution)\}(?P<arg>[^\n]*)\n(?P<body>.*?)"
                   r"^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
LABEL = re.compile(r"^:label:\s*(\S+)\s*$", re.MULTILINE)
CHECKED = re.compile(r'check\("([a-z0-9-]+)"')
EXPLAINED = re.compile(r"[Aa]n explanation, `([a-z0-9-]+)`")
# What an older explained statement says instead of naming its label.
SAYS_EXPLAINED = re.compile(r"answer is an explanation|answer is an argument|no number to check|nothing to check",
                            re.IGNORECASE)


def notebook_blocks() -> dict[str, tuple[str, str, str]]:
    """{label: (chapter, statement, solution)} for every {exercise} block of every chapter notebook."""
    found = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        text = "\n\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
        solutions = {m.group("arg").strip(): m.group("body") for m in BLOCK.finditer(text) if m.group("name") == "solution"}
        for block in BLOCK.finditer(text):
            if block.group("name") != "exercise":
                continue
            label = LABEL.search(block.group("body"))
            assert label, f"{path.name}: an exercise without a :label: ({block.group('body')[:60]!r})"
            assert label.group(1) not in found, f"exercise label {label.group(1)!r} is used twice"
            found[label.group(1)] = (path.name, block.group("body"), solutions.get(label.group(1), ""))
    return found


BLOCKS = notebook_blocks()


def asked(label: str) -> list[str]:
    """The registered labels an exercise block asks for: its check(...) calls and named explanations,
    or its own label when it is an explanation that names none."""
    _, statement, _ = BLOCKS[label]
    parts = list(dict.fromkeys(CHECKED.findall(statement) + EXPLAINED.findall(statement)))
    return parts or [label]


EXERCISES = {part: BLOCKS[block] for block in BLOCKS for part in asked(block)}  # part label -> its block


def test_the_notebooks_have_exercises():
    assert len(BLOCKS) >= 2 * len(list((ROOT / "notebooks").glob("*.ipynb")))


def test_every_asked_label_is_registered_and_nothing_else():
    missing = sorted(set(EXERCISES) - set(LABELS))
    extra = sorted(set(LABELS) - set(EXERCISES))
    assert not missing, f"exercises not registered in ledger.exercises: {missing}"
    assert not extra, f"registered labels that no exercise asks for: {extra}"
    for block in BLOCKS:
        for part in asked(block):
            assert part == block or part.startswith(block.split("-")[0] + "-"), f"{block} asks {part}"


def test_numeric_answers_pass_and_perturbed_answers_fail():
    numeric = [label for label in LABELS if REGISTRY[label].answer is not None]
    assert numeric, "no numeric exercise is registered"
    failures = []
    for label in numeric:
        for student in (None, "s001"):
            value, tol = answer(label, student), REGISTRY[label].rel_tol
            if not check(label, value, student=student):
                failures.append(f"{label} ({student}): its own answer {value!r} is refused: {check(label, value)}")
            perturbed = [value * 1.5, value * (1 + 3 * tol), value * (1 - 3 * tol)] if value else [1.0, -1.0]
            for wrong in perturbed:
                if check(label, wrong, student=student):
                    failures.append(f"{label}: the perturbed answer {wrong!r} (ledger: {value!r}) is accepted")
    assert not failures, "\n".join(failures)


def test_explained_exercises_have_no_number_and_a_rubric_the_solution_prints():
    failures = []
    for label in LABELS:
        if REGISTRY[label].answer is None:
            assert answer(label) is None
            result = check(label, 1.0)
            assert not result and result.verdict == "explanation", label
            rubric = REGISTRY[label].rubric
            _, _, solution = EXERCISES[label]
            if not rubric:
                failures.append(f"{label}: an explanation without a rubric")
            elif " ".join(rubric.split()) not in " ".join(solution.split()):
                failures.append(f"{label}: the solution does not print its rubric")
    assert not failures, "\n".join(failures)


def test_every_numeric_label_is_asked_with_its_unit_and_precision():
    failures = []
    for label, (chapter, statement, _) in EXERCISES.items():
        ex = REGISTRY.get(label)
        if ex is None or ex.answer is None:
            if ex is not None and not (f"`{label}`" in statement or SAYS_EXPLAINED.search(statement)):
                failures.append(f"{chapter} {label}: the statement does not say the answer is an explanation")
            continue
        line = next((ln for ln in statement.splitlines() if f'check("{label}"' in ln), "")
        if 'student=STUDENT_ID' not in line and "student=" not in statement:
            failures.append(f"{chapter} {label}: check without student=STUDENT_ID")
        if ex.unit and f"in {ex.unit}" not in statement:
            failures.append(f"{chapter} {label}: the statement does not say the unit ({ex.unit})")
        if precision_phrase(label) not in statement:
            failures.append(f"{chapter} {label}: the statement does not say the precision ({precision_phrase(label)})")
    assert not failures, "\n".join(failures)


def test_hints_point_without_naming_a_function():
    calls = [f"{label}: {REGISTRY[label].hint}" for label in LABELS
             if re.search(r"\b[a-z_]+\.?[a-z_]*\(|\w+=\w", REGISTRY[label].hint)]
    assert not calls, "hints that give the method away:\n" + "\n".join(calls)


def test_the_course_guide_names_real_exercises():
    guide = (ROOT / "book" / "course_guide.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", guide))
    exercises = {n for n in named if not n.startswith(("make-", "hide-", "remove-", "exercise-"))}
    assert len(exercises) >= 8, "the course guide should set exercises by label"
    unknown = sorted(exercises - set(EXERCISES))
    assert not unknown, f"the course guide names exercises that no chapter has: {unknown}"


BY_HAND = re.compile(r"\*By hand first(?:, parts? (?P<parts>\([a-z]\)(?: and \([a-z]\))?))?:\*")


def test_each_chapter_has_an_exercise_derived_by_hand_then_checked():
    """Every chapter marks an exercise (or the parts of one) the reader works on paper, then checks: the
    mark names the parts when not the whole exercise is by hand, and each part it names is checked."""
    chapters, failures = {}, []
    for label, (chapter, statement, _) in BLOCKS.items():
        mark = BY_HAND.search(statement)
        if not mark or "By hand first" not in statement:
            continue
        for part in re.findall(r"\(([a-z])\)", mark.group("parts") or ""):
            line = next((ln for ln in statement.splitlines() if ln.startswith(f"({part}) ")), "")
            if not CHECKED.search(line):
                failures.append(f"{label}: by-hand part ({part}) is not a checked number")
        if CHECKED.search(statement):
            chapters.setdefault(chapter, label)
    assert not failures, "\n".join(failures)
    assert all(BY_HAND.search(s) for _, s, _ in BLOCKS.values() if "By hand first" in s), "an unreadable by-hand mark"
    every = {p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    assert set(chapters) == every, f"chapters without a by-hand exercise: {sorted(every - set(chapters))}"


def test_every_trap_is_named_in_its_statement():
    """A value `check` refuses as a trap is one the statement warns about: each trap's description
    appears in the statement of its exercise (`exercise_cells.py` writes it as "Not accepted: ...")."""
    failures = []
    for label, (chapter, statement, _) in EXERCISES.items():
        ex = REGISTRY.get(label)
        if ex is None or ex.answer is None:
            continue
        from ledger.exercises.registry import _traps
        text = " ".join(statement.split()).lower()
        for trap, why in _traps(ex, ex.book_parameters):
            if not why or " ".join(why.split()).lower() not in text:
                failures.append(f"{chapter} {label}: the statement does not name the trap {trap!r} ({why!r})")
    assert not failures, "\n".join(failures)


def test_explanations_say_the_teacher_marks_them():
    """The student edition has no solutions: no statement or check message sends the reader to one."""
    for label, (chapter, statement, _) in BLOCKS.items():
        assert "compare it with the solution" not in statement and "compare yours with the solution" not in statement, label
    explained = next(label for label in LABELS if REGISTRY[label].answer is None)
    message = check(explained, 1.0).message
    assert "rubric" in message and "solution" not in message


NUMBER_WORDS = {word: str(n) for n, word in enumerate(
    ["zero", "_", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]) if word != "_"}  # "one" is left out: mostly a pronoun
NUMBER_WORDS |= {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "hundred": "100",
                 "thousand": "1,000", "million": "million", "billion": "billion", "twice": "two", "half": "half"}
# a number word, or a token with a digit (a numeral, or a name such as SmolLM-135M or fp32, kept whole)
NUMBER = re.compile(r"\b(?:" + "|".join(NUMBER_WORDS) + r")s?\b|[\w$.,/-]*\d[\w$.,/-]*", re.IGNORECASE)


def _said(token: str, statement: str) -> bool:
    """Whether `statement` (lower case) says the number `token` of a slide line: the token itself, or
    for a number word its numeral."""
    token = token.lower().strip(".,")
    forms = {token, token.rstrip("s")} | ({NUMBER_WORDS[token.rstrip("s")]} if token.rstrip("s") in NUMBER_WORDS else set())
    return any(re.search(rf"(?<![\w.,-]){re.escape(form)}(?![\w]|[.,]\d)", statement) for form in forms)


def test_each_exercise_slide_line_says_only_numbers_its_statement_says():
    """An exercise's slide line (the cell's `tx_slides` "exercise:LABEL" entry) summarises its statement:
    every numeral or number word on it appears in the statement (a number word also as its numeral),
    so the slide never contradicts the numbers students are given (chapter 07's slide said sixteen
    where the statement says 8)."""
    failures, lines = [], 0
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            for key, line in (cell.metadata.get("tx_slides") or {}).items():
                if not key.startswith("exercise:"):
                    continue
                label, lines = key.split(":", 1)[1], lines + 1
                statement = " ".join(BLOCKS[label][1].split()).lower() if label in BLOCKS else ""
                assert statement, f"{path.name}: slide line for {label!r}, which no exercise block has"
                failures += [f"{path.name} {label}: the slide says {number!r}, its statement does not"
                             for number in NUMBER.findall(line) if not _said(number, statement)]
    assert lines >= 20, "the chapters' exercise slide lines were not found"
    assert not failures, "\n".join(failures)


def test_an_exercise_label_answered_in_parts_names_its_parts():
    """A chapter's exercise label that is not itself a checked label (rc-savanna-shape, answered as
    rc-savanna-vocab and rc-savanna-why) is registered with its parts, and `check` on it says, in one
    line, which labels to use instead of calling it unknown."""
    from ledger.exercises.registry import PARTS_OF
    unregistered = {label for label in BLOCKS if label not in REGISTRY}
    assert "rc-savanna-shape" in unregistered and set(PARTS_OF) == unregistered
    for label in unregistered:
        assert PARTS_OF[label] == tuple(asked(label)), label
        result = check(label, 1.0)
        assert not result and result.verdict == "parts" and len(str(result).splitlines()) == 1
        assert all(part in str(result) for part in asked(label)), str(result)
