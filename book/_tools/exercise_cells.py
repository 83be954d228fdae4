"""Put each chapter's exercises in the course form. Idempotent; the lead re-runs it after merging
chapter edits:

    python book/_tools/exercise_cells.py [notebooks/NN_x.ipynb ...]    # default: every chapter

In a chapter's Exercises section it
- adds the set-up cell (tag `exercise-setup`: imports `check` and `show_parameters`, sets
  `STUDENT_ID`) and a sentence saying what it does, under the heading;
- splits the exercise and solution blocks into cells of their own, with a cell after each exercise
  that prints the reader's parameters (`show_parameters`, tags `remove-input` and
  `exercise-parameters`);
- rewrites the "Check ... with `check("label", ...)`" sentence of a numeric exercise into one that
  states the unit and the precision (from the registry) and passes `student=STUDENT_ID`; names an
  explained exercise's label and prints its rubric (from the registry) in the solution;
- makes the hidden cells take the answers from `ledger.exercises.instructor`.
Cell ids are kept; new cells get ids derived from the exercise's label.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from ledger.exercises import REGISTRY  # noqa: E402
from ledger.exercises.registry import _traps, exercise_of, precision_phrase  # noqa: E402

SETUP = ('from ledger.exercises import check, show_parameters\n'
         'STUDENT_ID = None  # the identifier your teacher gave you, e.g. "s123"; None: the book\'s values')
INTRO = ("Set `STUDENT_ID` below to the identifier your teacher gave you: each statement then prints your "
         "parameters (where they differ from the numbers in its text, yours count), and "
         "`check(label, your_value, student=STUDENT_ID)` checks your answer against them (left at `None`, "
         "the book's own values).")
BLOCK = re.compile(r"^(?P<fence>`{3,})\{(?P<name>exercise|solution)\}(?P<arg>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$\n?",
                   re.M | re.S)
HEADING = re.compile(r"^##\s+Exercises\s*$", re.M)


# Precision phrases this script has written, old and new: rewritten to the registry's current one.
PHRASE = (r"(?:to \d+ significant figures \(within [^)]*\)"
          r"|within [\d.]+% \(\d+ significant figures? always suffices?\)|exactly)")


def trap_note(label: str) -> str:
    """' Not accepted: <trap>; <trap>.' naming every value the label's `check` refuses as a trap ('' if none)."""
    ex = REGISTRY[label]
    whys = [why for _, why in _traps(ex, ex.book_parameters) if why]
    return f" Not accepted: {'; '.join(dict.fromkeys(whys))}." if whys else ""


def ask(label: str, what: str = "it") -> str:
    ex = REGISTRY[label]
    unit = f" in {ex.unit}" if ex.unit else ""
    return (f"Give {what}{unit} {precision_phrase(label)}: `check(\"{label}\", your_value, student=STUDENT_ID)`."
            + trap_note(label))


def refresh(body: str) -> str:
    """Rewrite every asked label's precision phrase and trap note to the registry's current ones (idempotent)."""
    for label in dict.fromkeys(re.findall(r'`check\("([a-z0-9-]+)", your_value, student=STUDENT_ID\)`', body)):
        if label not in REGISTRY or REGISTRY[label].answer is None:
            continue
        call = re.escape(f'`check("{label}", your_value, student=STUDENT_ID)`.')
        body = re.sub(PHRASE + r"(?=: " + call + ")", lambda m: precision_phrase(label), body)
        body = re.sub("(" + call + r")(?: Not accepted: [^\n]*?\.(?=\n|$))?",
                      lambda m: m.group(1) + trap_note(label), body)
    return body


def statement(label: str, body: str) -> str:
    ex = REGISTRY.get(label)
    if ex is None or "student=STUDENT_ID" in body or f"An explanation, `{label}`" in body:
        return refresh(body)
    if ex.answer is None:
        told = ("graded: your teacher marks it with the rubric" if ex.graded
                else "practice, not graded")
        return body.rstrip("\n") + f"\n(An explanation, `{label}`: {told}.)\n"
    sentence = re.compile(r"Check(?P<what>[^`]*?)with `check\(\"" + re.escape(label) + r"\"[^`]*`"
                          r"(?: \(from `ledger\.exercises import check`\))?\.?", re.S)

    def asked(match: re.Match) -> str:
        what = " ".join(re.sub(r"\((?:in|as) [^)]*\)", "", match.group("what")).split())
        return ask(label, "it" if what in ("", "it", "your answer", "that number") else what)
    if sentence.search(body):
        return sentence.sub(asked, body, count=1)
    return body.rstrip("\n") + "\n" + ask(label) + "\n"


def solution(label: str, body: str) -> str:
    """The solution with a `**Rubric**` line per explanation part, each the registry's current rubric."""
    named = re.findall(r"\*\*Rubric\*\* \(`([a-z0-9-]+)`\)", body)
    parts = [label] + [p for p in REGISTRY if p.startswith(label + "-")] + named
    for part in dict.fromkeys(parts):
        ex = REGISTRY.get(part)
        if ex is None or ex.answer is not None or not ex.rubric:
            continue
        line = f"**Rubric** (`{part}`): {ex.rubric}"
        if f"**Rubric** (`{part}`)" in body:
            body = re.sub(r"\*\*Rubric\*\* \(`" + re.escape(part) + r"`\): [^\n]*", lambda m: line, body)
        else:
            body = body.rstrip("\n") + f"\n\n{line}\n"
    return body


def lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def convert(path: Path) -> bool:
    original = path.read_text(encoding="utf-8")
    nb = json.loads(original)
    cells = nb["cells"]
    kept = {c["id"]: c.get("metadata", {}) for c in cells}
    heading = next((i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                    and HEADING.search("".join(c["source"]))), None)
    if heading is None:
        return False
    changed = False
    if not any("exercise-setup" in c.get("metadata", {}).get("tags", []) for c in cells):
        text = "".join(cells[heading]["source"])
        match = HEADING.search(text)
        head, rest = text[:match.end()], text[match.end():]
        cells[heading]["source"] = lines(head + "\n\n" + INTRO)
        new = [{"cell_type": "code", "execution_count": None, "id": f"{cells[heading]['id']}-setup",
                "metadata": {"tags": ["exercise-setup"]}, "outputs": [], "source": lines(SETUP)}]
        if rest.strip():
            new.append({"cell_type": "markdown", "id": f"{cells[heading]['id']}-rest", "metadata": {},
                        "source": lines(rest.strip("\n"))})
        cells[heading + 1:heading + 1] = new
        changed = True
    out = cells[:heading + 1]
    for cell in cells[heading + 1:]:
        if "exercise-parameters" in cell.get("metadata", {}).get("tags", []):
            continue  # written again after its exercise below
        text = "".join(cell["source"])
        if cell["cell_type"] == "code":
            fixed = text.replace("from ledger.exercises import answer", "from ledger.exercises.instructor import answer")
            changed |= fixed != text
            cell["source"] = lines(fixed)
            out.append(cell)
            continue
        blocks = list(BLOCK.finditer(text))
        if cell["cell_type"] != "markdown" or not blocks:
            out.append(cell)
            continue
        outside = BLOCK.sub("", text).strip()
        if outside:
            out.append({**cell, "source": lines(outside)})
        for n, block in enumerate(blocks):
            body = block.group("body")
            if block.group("name") == "exercise":
                label = re.search(r"^:label:\s*(\S+)", body, re.M).group(1)
                body = statement(label, body)
                cid = cell["id"] if n == 0 and not outside else (cell["id"] if cell["id"].startswith("ex-") else f"ex-{label}")
                out.append({"cell_type": "markdown", "id": cid, "metadata": {},
                            "source": lines(f"{block.group('fence')}{{exercise}}{block.group('arg')}\n{body.rstrip(chr(10))}\n{block.group('fence')}")})
                checked = [p for p in re.findall(r'check\("([a-z0-9-]+)"', body) if p in REGISTRY]
                shown = list(dict.fromkeys(([label] if label in REGISTRY else []) + [exercise_of(p) for p in checked]))
                out.append({"cell_type": "code", "execution_count": None, "id": f"ex-{label}-params",
                            "metadata": {"tags": ["remove-input", "exercise-parameters"]}, "outputs": [],
                            "source": lines("\n".join(f'show_parameters("{p}", STUDENT_ID)' for p in shown))})
            else:
                label = block.group("arg").strip()
                body = solution(label, body)
                out.append({"cell_type": "markdown", "id": f"ex-{label}-sol", "metadata": {},
                            "source": lines(f"{block.group('fence')}{{solution}}{block.group('arg')}\n{body.rstrip(chr(10))}\n{block.group('fence')}")})
        changed = True
    for cell in out:  # a rebuilt cell keeps the metadata (slide notes, tags) its id had
        if not cell.get("metadata") and kept.get(cell["id"]):
            cell["metadata"] = kept[cell["id"]]
    nb["cells"] = out
    text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    if text != original:
        path.write_text(text, encoding="utf-8")
    return text != original


def main(argv: list[str] | None = None) -> int:
    paths = [Path(p) for p in (argv if argv is not None else sys.argv[1:])] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    changed = [p.name for p in paths if convert(p)]
    print(f"exercise_cells: {len(changed)} of {len(paths)} chapters changed{': ' + ', '.join(changed) if changed else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
