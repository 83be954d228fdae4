"""The text written for the slides, kept in the chapters' cell metadata (`make slides` reads it).

A prose slide shows a few short lines written for it (at most about 40 words), not the chapter's
paragraph, which goes into the speaker notes. Each chapter keeps these lines in the metadata of its
markdown cells, under `tx_slides`, keyed by what they stand for:

    "tx_slides": {"Overview": "- objective one\\n- objective two",      # the objectives slide
                  "Counting $N$": "- line\\n- line",                  # the slide of that section
                  "exercise:sixn-causal": "one line for the exercise"}   # its line on the exercises slide

A section's lines sit on the cell that holds its heading; an exercise's line on the cell that holds
its `:label:`. Numbers are `{glue:text}` roles, filled from the executed chapter like the prose.

While the chapters are edited elsewhere the lines wait in book/_tools/slide_text.json (keyed by
chapter, then by the same keys); `--apply` moves them into the chapters (idempotent: running it
again changes nothing) and `--check` exits 1 naming every key whose heading or label is missing.
The builder reads the metadata first and the JSON for what the metadata lacks.

    python book/_tools/slide_text.py --apply [--notebooks DIR]
    python book/_tools/slide_text.py --check
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).with_name("slide_text.json")
METADATA_KEY = "tx_slides"
HEADING = re.compile(r"^#{1,3}\s+(.*?)\s*#*\s*$", re.MULTILINE)
LABEL = re.compile(r"^:label:\s*(\S+)\s*$", re.MULTILINE)


def load_data(path: Path = DATA) -> dict:
    """{chapter: {key: text}} from the JSON file, or {} once it has been applied and deleted."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {stem: texts for stem, texts in data.items() if not stem.startswith("_")}  # "_about": a note


def cell_keys(cell) -> set[str]:
    """The keys a markdown cell can carry: its headings and `exercise:<label>` for its exercises."""
    if cell.get("cell_type") != "markdown":
        return set()
    source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    keys = set(HEADING.findall(source))
    keys |= {f"exercise:{label}" for label in LABEL.findall(source)}
    return keys


def chapter_texts(stem: str, notebook, data: dict | None = None) -> dict[str, tuple[str, str]]:
    """{key: (text, origin)} for one chapter: origin "chapter" for metadata, "json" for the JSON file."""
    texts: dict[str, tuple[str, str]] = {}
    for key, text in ((data if data is not None else load_data()).get(stem, {})).items():
        texts[key] = (text, "json")
    for cell in notebook["cells"]:
        for key, text in cell.get("metadata", {}).get(METADATA_KEY, {}).items():
            texts[key] = (text, "chapter")
    return texts


def apply_chapter(notebook: dict, texts: dict[str, str]) -> tuple[int, list[str]]:
    """Write each key's text into the cell that holds it; return (cells changed, keys not found)."""
    changed, placed = 0, set()
    for cell in notebook["cells"]:
        keys = cell_keys(cell) & set(texts)
        if not keys:
            continue
        current = cell.setdefault("metadata", {}).get(METADATA_KEY, {})
        wanted = {**current, **{k: texts[k] for k in sorted(keys)}}
        if wanted != current:
            cell["metadata"][METADATA_KEY] = wanted
            changed += 1
        placed |= keys
    return changed, sorted(set(texts) - placed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--data", type=Path, default=DATA)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--apply", action="store_true", help="write the JSON's lines into the chapters' metadata")
    mode.add_argument("--check", action="store_true", help="exit 1 naming keys whose heading or label is missing")
    args = parser.parse_args(argv)
    data = load_data(args.data)
    if not data:
        print(f"slide_text: {args.data} is missing or empty: nothing to apply", file=sys.stderr)
        return 2
    missing_all = []
    for stem, texts in sorted(data.items()):
        path = args.notebooks / f"{stem}.ipynb"
        if not path.exists():
            missing_all.append(f"{stem}: no notebook {path}")
            continue
        notebook = json.loads(path.read_text(encoding="utf-8"))
        changed, missing = apply_chapter(notebook, texts)
        missing_all += [f"{stem}: no heading or exercise label for {key!r}" for key in missing]
        if args.apply and changed:
            path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"{stem}: slide text written into {changed} cell(s)")
    if missing_all:
        print("slide_text: " + "\n  ".join(missing_all), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
