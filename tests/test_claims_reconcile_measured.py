"""The checked sentences of chapters 15 and 16 hold, each chapter asserts the ones it states, and a claim
that stops holding is reported as failing."""
import json
import re
from pathlib import Path

import pytest

from ledger import claims
from ledger.errors import LedgerError

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHAPTERS = ("15_reconciliation", "16_measured")


def _chapter_claims(chapter):
    return [c for c in claims.all_claims() if c.chapter == chapter]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_claim_holds_and_is_asserted_by_its_chapter(chapter):
    registered = _chapter_claims(chapter)
    assert registered, chapter
    nb = json.loads((NOTEBOOKS / f"{chapter}.ipynb").read_text())
    hidden = "".join("".join(c["source"]) for c in nb["cells"]
                     if c["cell_type"] == "code" and "remove-cell" in c.get("metadata", {}).get("tags", []))
    asserted = set(re.findall(r'"((?:rc|ms)-[a-z0-9-]+)"', hidden))
    for c in registered:
        assert c.holds(), c.id
        assert c.id in asserted, f"{c.id} is not asserted in a hidden cell of {chapter}"
        assert c.text and c.range


def test_a_false_claim_is_reported(monkeypatch):
    """holds() evaluates the check; a check that returns False makes `python -m ledger claims` exit 1."""
    claim = claims.get("rc-every-run-reproduced")
    monkeypatch.setitem(claims.CLAIMS, claim.id, claims.Claim(claim.id, claim.chapter, claim.text, claim.range,
                                                              lambda: False))
    assert not claims.holds(claim.id)
    assert claims.main([]) == 1
    with pytest.raises(LedgerError, match="claim 'nope' is not registered"):
        claims.get("nope")
