"""The registry of checked claims (ledger.claims) and `python -m ledger claims`."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ledger
from ledger import claims
from ledger.claims import changes
from ledger.cli import main

ROOT = Path(__file__).resolve().parent.parent
PART1 = ("00_introduction", "01_six_n_rule", "02_correlation", "03_three_passes", "04_block_circulant",
         "05_amdahl_table", "07_layer_major", "10_assumptions")


@pytest.mark.parametrize("claim", claims.all_claims(), ids=lambda c: c.id)
def test_every_claim_holds(claim):
    assert claim.holds(), f"{claim.id}: {claim.text} [{claim.range}]"


def test_every_claim_names_a_chapter_and_is_asserted_there():
    for c in claims.all_claims():
        nb = ROOT / "notebooks" / f"{c.chapter}.ipynb"
        assert nb.exists(), c.id
        cells = json.loads(nb.read_text())["cells"]
        hidden = ["".join(cell["source"]) for cell in cells
                  if cell["cell_type"] == "code" and "remove-cell" in cell.get("metadata", {}).get("tags", [])]
        assert any(f'"{c.id}"' in src and "claims.holds" in src for src in hidden), c.id
    assert {c.chapter for c in claims.all_claims()} >= set(PART1)


def test_cli_json_fields(capsys):
    assert main(["claims", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(set(r) == {"id", "chapter", "text", "range", "fails_when", "holds"} for r in rows)
    assert all(r["holds"] is True for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)


def test_a_failing_claim_makes_the_command_exit_1(capsys):
    claims._load()

    @claims.claim("test-temporary-false", "00_introduction", "A sentence that is false.", "nothing",
                  fails_when=changes.FMA_ONE_FLOP)
    def _false() -> bool:
        return False

    try:
        assert main(["claims"]) == 1
        assert "FAILS  test-temporary-false" in capsys.readouterr().out
        assert main(["claims", "--json"]) == 1
        rows = json.loads(capsys.readouterr().out)
        assert [r["holds"] for r in rows if r["id"] == "test-temporary-false"] == [False]
    finally:
        del claims.CLAIMS["test-temporary-false"]
    assert main(["claims"]) == 0


def test_registry_refuses_duplicates_and_unknown_ids(capsys):
    claims._load()
    with pytest.raises(ledger.LedgerError, match="registered twice"):
        claims.claim("ch00-backward-twice", "00_introduction", "again", "none",
                     fails_when=changes.RECOMPUTE_FULL)(lambda: True)
    with pytest.raises(ledger.LedgerError, match="not registered"):
        claims.holds("no-such-claim")
    assert main(["claims", "--bogus"]) == 2
    assert "unknown arguments" in capsys.readouterr().err


def test_command_line_exit_status():
    out = subprocess.run([sys.executable, "-m", "ledger", "claims", "--json"], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)


def test_fft_length_switch_counts_one_bin_and_flags_prime_odd_lengths():
    from ledger.claims.ch10_assumptions import fft_length_switch
    f = fft_length_switch(4096)
    assert (f["n_even"], f["n_odd"], f["bins_even"], f["bins_odd"]) == (8192, 8191, 4097, 4096)
    assert f["odd_prime"]  # 8191 = 2**13 - 1, a Mersenne prime
    assert not fft_length_switch(2048)["odd_prime"]  # 4095 = 3**2 * 5 * 7 * 13
    assert f["flops_odd"] < f["flops_even"]  # priced at the power-of-two rate, so the odd length looks cheaper
