"""Every registered claim holds, and its chapter asserts it in a hidden cell (so the build checks it)."""
import json
from pathlib import Path

import pytest

from ledger import claims

ROOT = Path(__file__).resolve().parents[1]


def hidden_sources(chapter: str) -> str:
    nb = json.loads((ROOT / "notebooks" / f"{chapter}.ipynb").read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"]
                     if c["cell_type"] == "code" and "remove-cell" in c["metadata"].get("tags", []))


@pytest.mark.parametrize("claim", claims.all_claims(), ids=lambda c: c.id)
def test_claim_holds_and_is_asserted_by_its_chapter(claim):
    assert claim.holds(), f"{claim.id} ({claim.chapter}) fails over {claim.range}: {claim.text}"
    assert (ROOT / "notebooks" / f"{claim.chapter}.ipynb").exists(), claim.chapter
    assert f'"{claim.id}"' in hidden_sources(claim.chapter), f"{claim.chapter} asserts no {claim.id}"
    assert claim.text and claim.range


def test_claims_cli_json():
    from ledger_cli import run_ledger
    done = run_ledger("claims", "--json", cwd=ROOT)  # the command as a process: tests/test_claims.py
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert {r["id"] for r in rows} == {c.id for c in claims.all_claims()}
    assert all(r["holds"] and set(r) == {"id", "chapter", "text", "range", "fails_when", "holds"} for r in rows)
