"""Checked claims: every sentence of the book that compares or quantifies, with the check behind it.

A chapter's sentence such as "the digital work is several hundred times everything else" names a
claim here by its id; the claim's `check` evaluates the ledger over the whole `range` the sentence
covers (every variant, length or alternative it names) and returns True only if the sentence
holds there. Claims for chapter NN live in `chNN_topic.py` of this package (one module per chapter, so
chapters never edit each other's claims); every such module is imported here. A hidden cell in the
chapter asserts `holds(id)`, so a change of default that makes a sentence false fails the build,
and `python -m ledger claims --json` lists them all.

A check protects its sentence only if the sentence could be false. So every claim names, as
`fails_when`, a change of the model (a price, a count, a default: "the FFT were priced 10x higher")
under which its sentence would be false, made by patches of the ledger (`changes.py`);
tests/test_claims_fail.py applies it and sees the check return False, then the claim hold again
once it is undone. A claim's `range` states the values and the tolerances its check uses.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from ..errors import LedgerError
from .changes import Change


@dataclass(frozen=True)
class Claim:
    """One checked sentence: where it stands, what it says, over what range it is checked."""

    id: str
    chapter: str
    """The chapter's file stem, e.g. "03_three_passes"."""
    text: str
    """The sentence as the chapter states it (numbers may be glued in the chapter; here in words)."""
    range: str
    """What the check covers, in words: "all four variants at S = 2,048, 4,096 and 8,192"."""
    check: Callable[[], bool]
    """Evaluates the ledger over the range; True when the sentence holds everywhere in it."""
    fails_when: Change | None = None
    """A change of the model under which the sentence would be false, and the check return False
    (ledger.claims.changes). Every registered claim has one: the decorator refuses a claim without it
    (tests/test_claims_fail.py applies each)."""

    def holds(self) -> bool:
        return bool(self.check())

    def to_json(self) -> dict:
        return {"id": self.id, "chapter": self.chapter, "text": self.text, "range": self.range,
                "fails_when": self.fails_when.text if self.fails_when else None, "holds": self.holds()}


CLAIMS: dict[str, Claim] = {}


def claim(id: str, chapter: str, text: str, range: str, fails_when: Change | None = None):
    """Decorator: register the decorated zero-argument function as the check of claim `id`, with the
    change of the model under which it fails (`fails_when`, a ledger.claims.changes.Change: required)."""
    if fails_when is None:
        raise LedgerError(f"claim {id!r} names no fails_when: every claim needs a ledger.claims.changes.Change "
                          "under which its check returns False")
    if not isinstance(fails_when, Change):
        raise LedgerError(f"claim {id!r}: fails_when = {fails_when!r} must be a ledger.claims.changes.Change")

    def register(check: Callable[[], bool]) -> Callable[[], bool]:
        if id in CLAIMS:
            raise LedgerError(f"claim id {id!r} is registered twice")
        CLAIMS[id] = Claim(id=id, chapter=chapter, text=text, range=range, check=check, fails_when=fails_when)
        return check
    return register


def get(id: str) -> Claim:
    """The claim `id`; a LedgerError naming the known ids if there is none."""
    _load()
    try:
        return CLAIMS[id]
    except KeyError:
        raise LedgerError(f"claim {id!r} is not registered; known: {', '.join(sorted(CLAIMS)) or 'none'}") from None


def holds(id: str) -> bool:
    """Whether claim `id` holds over its whole range (what a chapter's hidden cell asserts)."""
    return get(id).holds()


def all_claims() -> list[Claim]:
    """Every registered claim, in chapter order."""
    _load()
    return sorted(CLAIMS.values(), key=lambda c: (c.chapter, c.id))


_loaded = False


def _load() -> None:
    global _loaded
    if not _loaded:
        for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
            importlib.import_module(f"{__name__}.{module}")
        _loaded = True


def main(argv: list[str]) -> int:
    """`python -m ledger claims [--json]`: every claim with its id, chapter, text, range, the change under which
    it fails, and whether it holds."""
    import json
    import sys
    if argv not in ([], ["--json"]):
        sys.stderr.write(f"python -m ledger claims: error: unknown arguments {' '.join(argv)!r} (allowed: --json)\n")
        return 2
    rows = [c.to_json() for c in all_claims()]
    if argv == ["--json"]:
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for r in rows:
            print(f"{'holds' if r['holds'] else 'FAILS'}  {r['id']}  ({r['chapter']}): {r['text']}  [{r['range']}]")
    return 0 if all(r["holds"] for r in rows) else 1
