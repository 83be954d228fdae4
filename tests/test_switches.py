"""The switches of issue 8: recompute, mask_spectrum, optical_speedup, and matrix_params per row."""
import math

import pytest

import ledger
from ledger import LedgerError, make_settings, step_items, step_row
from ledger.layers import RECOMPUTE
from ledger.shares import optical, share

from ledger_cli import run_ledger

HYENA_VARIANTS = ("hyena2", "hybrid", "hyena2_circulant")


# ---- recompute ----

@pytest.mark.parametrize("variant", ledger.VARIANTS)
def test_no_recompute_by_default(variant):
    items = step_items(make_settings(variant=variant))
    assert not [i for i in items if i.phase == RECOMPUTE]
    assert step_row(variant=variant).recompute_flops == 0


@pytest.mark.parametrize("variant", ledger.VARIANTS)
def test_recompute_is_the_block_forward_again(variant):
    plain = step_items(make_settings(variant=variant))
    full = step_items(make_settings(variant=variant, recompute="full"))
    again = [i for i in full if i.phase == RECOMPUTE]
    # every block forward item that runs per token or per sequence, once more, class kept
    expected = [(i.op, i.layer, i.cls, i.per, i.count, i.flops) for i in plain
                if i.phase == "forward" and i.layer in ("attention", "hyena", "mlp") and i.per != "step"]
    assert [(i.op, i.layer, i.cls, i.per, i.count, i.flops) for i in again] == expected
    assert all(i.layer not in ("lm_head", "embedding") and i.per != "step" for i in again)
    assert all(i.mask_values == 0 for i in again)
    # nothing else changes
    assert [i for i in full if i.phase != RECOMPUTE] == plain


def test_recompute_adds_the_block_forward_to_the_transformer_step():
    plain = step_row(variant="transformer", seq_len=4096)
    full = step_row(variant="transformer", seq_len=4096, recompute="full")
    lm_head_forward = 2 * 128_256 * 4096 * 1_048_576
    assert full.recompute_flops == pytest.approx(plain.forward_flops - lm_head_forward, rel=1e-12)
    assert full.step_flops == pytest.approx(plain.step_flops + full.recompute_flops, rel=1e-12)
    assert full.backward_flops == pytest.approx(plain.backward_flops + full.recompute_flops, rel=1e-12)
    assert full.forward_flops == plain.forward_flops
    assert full.step_share == 0


@pytest.mark.parametrize("variant", HYENA_VARIANTS)
@pytest.mark.parametrize("seq_len", [2048, 4096, 8192])
def test_recompute_raises_the_hyena_step_share(variant, seq_len):
    plain = step_row(variant=variant, seq_len=seq_len)
    full = step_row(variant=variant, seq_len=seq_len, recompute="full")
    again = [i for i in step_items(make_settings(variant=variant, seq_len=seq_len, recompute="full"))
             if i.phase == RECOMPUTE]
    by_class = ledger.group_flops(again, "cls")
    recompute_share = share(optical({c: by_class.get(c, 0.0) for c in ledger.CLASSES}), full.recompute_flops)
    # recomputed work is optical in the same proportion as the block forward, so it pulls the step
    # share from the plain step share towards its own share, never past it
    assert plain.step_share < full.step_share < recompute_share
    assert full.forward_share == plain.forward_share
    assert full.backward_share > plain.backward_share


@pytest.mark.parametrize("variant", ["hyena2", "hybrid"])
@pytest.mark.parametrize("seq_len", [2048, 4096, 8192])
def test_recompute_step_share_between_step_and_forward_share(variant, seq_len):
    plain = step_row(variant=variant, seq_len=seq_len)
    full = step_row(variant=variant, seq_len=seq_len, recompute="full")
    assert plain.step_share < full.step_share < plain.forward_share


def test_circulant_recompute_passes_the_forward_share():
    """The circulant's forward share is diluted by the dense LM head, which recompute leaves out."""
    plain = step_row(variant="hyena2_circulant", seq_len=4096)
    full = step_row(variant="hyena2_circulant", seq_len=4096, recompute="full")
    assert f"{100 * full.step_share:.2f}" == "16.10"
    assert full.step_share > plain.forward_share > plain.step_share


def test_recompute_leaves_the_mask_budget():
    for variant in HYENA_VARIANTS:
        plain, full = step_row(variant=variant), step_row(variant=variant, recompute="full")
        assert (full.weight_mask_frames, full.data_mask_frames) == (plain.weight_mask_frames, plain.data_mask_frames)


@pytest.mark.parametrize("bad", ["partial", "Full", None, 1, True])
def test_recompute_refuses_other_values(bad):
    with pytest.raises(LedgerError, match=r"^recompute = .*none, full"):
        make_settings(recompute=bad)


# ---- mask spectrum ----

@pytest.mark.parametrize("variant", HYENA_VARIANTS)
@pytest.mark.parametrize("seq_len", [2048, 4096, 8192])
def test_two_sided_about_doubles_both_mask_times(variant, seq_len):
    one = step_row(variant=variant, seq_len=seq_len)
    two = step_row(variant=variant, seq_len=seq_len, mask_spectrum="two-sided")
    for key in ("weight_mask_s", "data_mask_s"):
        assert 1.9 < getattr(two, key) / getattr(one, key) <= 2.0, key
    # the FLOPs do not change: Hermitian symmetry saves digital work, not pixels
    assert two.step_flops == one.step_flops and two.step_share == one.step_share


def test_two_sided_mask_values_by_hand():
    """Hyena-2 weight masks at S = 2,048: 2 x L x 2H x n values with n = 4,096 (all bins)."""
    s = make_settings(variant="hyena2", seq_len=2048, mask_spectrum="two-sided")
    budget = ledger.mask_budget(step_items(s), s.device)
    assert budget.weight_values == 2 * 32 * 2 * 4096 * 4096
    assert budget.data_values == 512 * 32 * 2 * 4096 * 4096
    assert s.mask_bins(4096) == 4096 and make_settings().mask_bins(4096) == 2049


@pytest.mark.parametrize("bad", ["two_sided", "full", 2, None])
def test_mask_spectrum_refuses_other_values(bad):
    with pytest.raises(LedgerError, match=r"^mask_spectrum = .*one-sided, two-sided"):
        make_settings(mask_spectrum=bad)


# ---- optical speed-up ----

@pytest.mark.parametrize("s", [0.5, 1, 2, 10, 1000, 1e9])
def test_amdahl_with_a_finite_speedup(s):
    row = step_row(variant="hyena2_circulant", seq_len=4096, optical_speedup=s)
    p, q = row.step_share, row.static_share
    assert row.amdahl == pytest.approx(1 / ((1 - p) + p / s), rel=1e-15)
    assert row.amdahl_static == pytest.approx(1 / ((1 - q) + q / s), rel=1e-15)
    assert row.amdahl < step_row(variant="hyena2_circulant", seq_len=4096).amdahl  # any finite engine gains less


def test_speedup_one_is_no_speedup_and_infinity_is_the_bound():
    assert step_row(variant="hyena2_circulant", optical_speedup=1).amdahl == pytest.approx(1.0, rel=1e-15)
    assert step_row(variant="hyena2_circulant", optical_speedup=math.inf).amdahl == \
        step_row(variant="hyena2_circulant").amdahl
    assert f"{step_row(variant='hyena2_circulant', optical_speedup=10).amdahl:.3f}" == "1.123"
    assert ledger.amdahl(0.5, 2) == pytest.approx(4 / 3) and ledger.amdahl(1.0) == math.inf


@pytest.mark.parametrize("bad", [0, -1, -math.inf, math.nan, "10", None, True])
def test_speedup_refuses_nonpositive_and_non_numbers(bad):
    with pytest.raises(LedgerError, match=r"^optical_speedup = "):
        make_settings(optical_speedup=bad)
    with pytest.raises(LedgerError, match=r"^optical_speedup = "):
        ledger.amdahl(0.1, bad)


# ---- matrix parameters ----

def test_matrix_params_per_variant():
    shape = ledger.LLAMA3_8B
    h, i, v, layers = shape.hidden, shape.intermediate, shape.vocab, shape.n_layers
    assert step_row(variant="transformer").matrix_params == shape.N
    hyena_layer = 3 * h * h + h * h + 3 * h * i
    assert step_row(variant="hyena2").matrix_params == layers * hyena_layer + v * h
    assert step_row(variant="hyena2_circulant").matrix_params == layers * hyena_layer // 256 + v * h
    assert step_row(variant="hyena2_circulant", block=512).matrix_params == layers * hyena_layer // 512 + v * h
    attn_layer = shape.attention_matrix_params + 3 * h * i
    assert step_row(variant="hybrid").matrix_params == 8 * attn_layer + 24 * hyena_layer + v * h


# ---- the command line ----

def test_cli_switches_reach_the_rows():
    import json
    out = run_ledger("--json", "--variant", "hyena2_circulant", "--seq-len", "4096", "--recompute", "full",
               "--mask-spectrum", "two-sided", "--optical-speedup", "10")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    (row,) = data["rows"]
    expected = step_row(variant="hyena2_circulant", seq_len=4096, recompute="full", mask_spectrum="two-sided",
                        optical_speedup=10.0)
    assert row["step_share"] == expected.step_share and row["amdahl"] == expected.amdahl
    assert row["data_mask_s"] == expected.data_mask_s and row["recompute_flops"] == expected.recompute_flops
    assert row["matrix_params"] == expected.matrix_params
    assert (data["recompute"], data["mask_spectrum"], data["optical_speedup"]) == ("full", "two-sided", 10.0)


def test_cli_json_rows_carry_matrix_params():
    import json
    data = json.loads(run_ledger("--json", "--seq-len", "4096").stdout)
    assert data["optical_speedup"] is None  # infinite
    by_variant = {r["variant"]: r["matrix_params"] for r in data["rows"]}
    assert by_variant["transformer"] == ledger.LLAMA3_8B.N
    assert by_variant["hyena2_circulant"] < by_variant["transformer"] / 10


@pytest.mark.parametrize("args, words", [
    (["--optical-speedup", "0"], "'0' is not positive"),
    (["--optical-speedup", "-3"], "'-3' is not positive"),
    (["--optical-speedup", "fast"], "'fast' is not a number"),
    (["--optical-speedup", "nan"], "'nan' is not positive"),
    (["--recompute", "partial"], "invalid choice: 'partial'"),
    (["--mask-spectrum", "both"], "invalid choice: 'both'"),
])
def test_cli_refuses_bad_switches_in_one_line(args, words):
    out = run_ledger(*args, "--json")
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], out.stderr


# ---- FFT length ----

def test_fft_length_2s_minus_1():
    s = make_settings(variant="hyena2", seq_len=4096, fft_length="2S-1")
    assert s.fft_len == 8191 and make_settings(variant="hyena2", seq_len=4096).fft_len == 8192
    item = next(i for i in step_items(s) if i.op == "long conv: rFFT of u")
    assert item.flops == item.count * 2.5 * 8191 * math.log2(8191)
    budget = ledger.mask_budget(step_items(s), s.device)
    assert budget.weight_values == 2 * 32 * 2 * 4096 * (8191 // 2 + 1)
    with pytest.raises(LedgerError, match=r"^fft_length = '4S': must be one of 2S, 2S-1"):
        make_settings(fft_length="4S")
    out = run_ledger("--json", "--variant", "hyena2", "--seq-len", "4096", "--fft-length", "2S-1")
    import json
    assert json.loads(out.stdout)["rows"][0]["step_flops"] == ledger.step_row(
        variant="hyena2", seq_len=4096, fft_length="2S-1").step_flops


def test_cli_json_into_a_closed_pipe_is_quiet():
    """`python -m ledger --json | head` must not end in a traceback when head stops reading."""
    import subprocess
    import sys
    lengths = [arg for s in (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
               for arg in ("--seq-len", str(s))]
    # more than a pipe's 64 KiB buffer, so the writer is still writing when the reader goes away
    proc = subprocess.Popen([sys.executable, "-m", "ledger", "--json", *lengths], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout.read(64)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and "Traceback" not in err, err
