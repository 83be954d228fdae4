"""Every claim of the listed chapters can fail: it holds, its `fails_when` change of the model makes its
check return False (not raise), and once the change is undone the claim holds again.

CHAPTERS lists every chapter with claims (the decorator refuses a claim without a `fails_when`); a chapter
that gains claims is added to it. Nothing is skipped: every claim of a listed chapter is checked."""
import json
import math

import pytest

from ledger import Costs, LedgerError, Settings, article, claims, step_row
from ledger.claims import changes
from ledger.cli import main

CHAPTERS = (
    "00_introduction", "01_six_n_rule", "02_correlation", "03_three_passes", "04_block_circulant", "05_amdahl_table",
    "06_masks", "07_layer_major", "08_what_does_not_map", "09_explorer_in_jupyter", "10_assumptions",
    "11_flops_per_token", "12_arithmetic_intensity", "13_compute_and_time", "15_reconciliation", "16_measured",
)


def listed_claims() -> list[claims.Claim]:
    return [c for c in claims.all_claims() if c.chapter in CHAPTERS]


def test_every_listed_chapter_has_claims():
    found = {c.chapter for c in listed_claims()}
    assert found == set(CHAPTERS), f"listed chapters without claims: {sorted(set(CHAPTERS) - found)}"


def test_every_chapter_with_claims_is_listed():
    unlisted = sorted({c.chapter for c in claims.all_claims()} - set(CHAPTERS))
    assert not unlisted, f"chapters with claims missing from CHAPTERS: {unlisted}"


@pytest.mark.parametrize("claim", listed_claims(), ids=lambda c: c.id)
def test_claim_fails_under_its_change_and_holds_again(claim):
    change = claim.fails_when
    assert isinstance(change, changes.Change), f"{claim.id} ({claim.chapter}) names no fails_when"
    assert change.text and change.patches
    # a change of the model, not of the claims: nothing it replaces lives in the claims package
    assert not any(t.startswith("ledger.claims") for t in change.targets), change.targets
    assert claim.holds(), f"{claim.id} does not hold before its change"
    with change.applied():
        result = claim.check()  # an exception here fails the test: the check must say False
        assert bool(result) is False, f"{claim.id} still holds when {change.text}"
    assert claim.holds(), f"{claim.id} does not hold again after undoing: {change.text}"


def test_json_carries_fails_when(capsys):
    main(["claims", "--json"])
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    for c in listed_claims():
        assert rows[c.id]["fails_when"] == c.fails_when.text


# --- the mechanism --------------------------------------------------------------------------------

def test_a_dataclass_default_is_changed_and_restored():
    before = Costs.__init__.__defaults__
    with changes.fft_priced(10).applied():
        assert Costs().fft_constant == Settings().costs.fft_constant == 25.0
        assert Costs.__dataclass_fields__["fft_constant"].default == 25.0
        assert Costs(fft_constant=2.5).fft_constant == 2.5  # a value passed is kept
    assert Costs.__init__.__defaults__ == before and Costs().fft_constant == 2.5
    assert Costs.__dataclass_fields__["fft_constant"].default == 2.5


def test_a_function_default_and_a_constant_are_changed_and_restored():
    n = 8e9
    assert article.data_parallel_traffic("ddp-all-reduce", n, 64)["bytes_per_param"] == 8
    with changes.WEIGHTS_GATHERED_FP32.applied():
        assert article.data_parallel_traffic("megatron-distributed-optimizer", n, 64)["bytes_per_param"] == 8
    assert article.data_parallel_traffic("megatron-distributed-optimizer", n, 64)["bytes_per_param"] == 6
    nodes = article.H100_NODES
    with changes.network("slow NICs", nic=12.5e9).applied():
        assert article.H100_NODES.nic_bandwidth == 12.5e9
        assert article.bus_bandwidth(16, article.H100_NODES) == 100e9
    assert article.H100_NODES is nodes


def test_the_model_shape_is_changed_everywhere_it_is_read():
    from ledger import reconcile, shapes
    with changes.model_shape("8 layers", n_layers=8).applied():
        assert shapes.LLAMA3_8B.n_layers == reconcile.LLAMA3_8B.n_layers == Settings().shape.n_layers == 8
        assert step_row(variant="transformer").step_flops < step_row(variant="transformer", shape=shapes.ModelShape()).step_flops
    assert shapes.LLAMA3_8B.n_layers == reconcile.LLAMA3_8B.n_layers == Settings().shape.n_layers == 32


def test_a_wrapped_function_is_restored_after_an_error():
    before = step_row(variant="transformer").step_flops
    with pytest.raises(ZeroDivisionError):
        with changes.LM_HEAD_CIRCULANT.applied():
            assert step_row(variant="transformer").step_flops < before
            1 / 0
    assert step_row(variant="transformer").step_flops == before


def test_the_mechanism_refuses_what_it_cannot_change():
    with pytest.raises(LedgerError, match="no plain default"):
        changes.default(Settings, "costs", Costs())  # built by a factory: change Costs' defaults instead
    with pytest.raises(LedgerError, match="no argument"):
        changes.default(article.data_parallel_traffic, "no_such_argument", 1)
    with pytest.raises(LedgerError, match="no attribute"):
        changes.constant(article, "NO_SUCH_CONSTANT", 1)
    with pytest.raises(LedgerError, match="needs a description"):
        changes.change("no patches")
    with pytest.raises(LedgerError, match="must be a ledger.claims.changes.Change"):
        claims.claim("test-bad-fails-when", "00_introduction", "text", "range", fails_when="a string")
    with pytest.raises(LedgerError, match="claim 'test-no-fails-when' names no fails_when") as refused:
        claims.claim("test-no-fails-when", "00_introduction", "text", "range")
    assert "\n" not in str(refused.value)
    assert "test-no-fails-when" not in claims.CLAIMS and "test-bad-fails-when" not in claims.CLAIMS


def test_a_recounted_joint_view_leaves_the_cached_grid():
    from ledger import assumptions
    cached = assumptions.joint_view()
    with changes.recounting_joint_view(changes.IDEAL_10X).applied():
        recounted = assumptions.joint_view()
        assert recounted is not cached
        assert recounted.get("hyena2", "data_mask_steps").default < cached.get("hyena2", "data_mask_steps").default
    assert assumptions.joint_view() is cached


def test_the_bluestein_price_leaves_powers_of_two():
    c = Costs()
    with changes.FFT_BLUESTEIN.applied():
        assert Costs().rfft(8192) == c.rfft(8192)
        assert Costs().rfft(8191) == 3 * c.rfft(16384)
    assert math.isclose(Costs().rfft(8191), 2.5 * 8191 * math.log2(8191))


def test_a_module_imported_during_a_change_keeps_the_original(monkeypatch):
    import sys
    import types
    from ledger import shapes
    original = shapes.LLAMA3_8B
    with changes.model_shape("8 layers", n_layers=8).applied():
        late = types.ModuleType("ledger._late_import_probe")
        late.LLAMA3_8B = shapes.LLAMA3_8B  # as `from .shapes import LLAMA3_8B` would bind it now
        monkeypatch.setitem(sys.modules, late.__name__, late)
    assert late.LLAMA3_8B is original
