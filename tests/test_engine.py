"""The engine: modulator modes, layout, refusals, JSON fields, and what crosses the boundary per pass."""
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings as hsettings, strategies as st

import ledger
from ledger import LedgerError, step_row
from ledger.boundary import conversions, feeds_weight_gradient
from ledger.engine import DLPC900_VIDEO_PATTERN_HZ, DMD_BINARY_RATE_HZ, MODULATORS, REFUSED_MODULATORS, Engine
from ledger.hidden_costs import hidden_costs
from ledger.step_time import item_seconds
from ledger.table import make_settings

ROOT = Path(__file__).resolve().parents[1]
MASKED = ("hyena2", "hybrid", "hyena2_circulant")


def test_default_engine_is_the_conventions_device():
    e = Engine()
    assert (e.modulator, e.frame_rate_hz, e.complex_values_per_pixel, e.pixels, e.layout) == \
        ("ideal", 1031.0, 1.0, 2_000_000, "packed")
    assert e.cited and ledger.Settings().device == e and ledger.Device is Engine


@pytest.mark.parametrize("name", list(MODULATORS))
@pytest.mark.parametrize("layout", ["packed", "rows"])
def test_every_mode_gives_finite_positive_mask_times(name, layout):
    for variant in MASKED:
        for seq_len in (2048, 4096, 8192):
            row = step_row(variant=variant, seq_len=seq_len, modulator=name, layout=layout)
            for t in (row.weight_mask_s, row.data_mask_s):
                assert math.isfinite(t) and t > 0
            assert (row.modulator, row.frame_rate_hz, row.values_per_pixel, row.cited) == \
                (name, MODULATORS[name].frame_rate_hz, MODULATORS[name].values_per_pixel, True)


def test_binary_modes_run_at_the_rate_for_streamed_patterns_with_their_encoding():
    """A DLPC900 streams new binary patterns at 24 per 120 Hz video frame; 9,523 Hz holds only for pre-stored ones."""
    sp, lee = MODULATORS["dmd-superpixel"], MODULATORS["dmd-lee"]
    assert sp.frame_rate_hz == lee.frame_rate_hz == DLPC900_VIDEO_PATTERN_HZ == 24 * 120 == 2880
    assert sp.pre_stored_hz == lee.pre_stored_hz == DMD_BINARY_RATE_HZ == 9523.0 and sp.pre_stored_patterns == 480
    assert "pre-stored" not in sp.rate_condition.split(";")[0] and "stored in the controller" in sp.rate_condition
    assert sp.values_per_pixel == 1 / 16 and lee.values_per_pixel == 1 / 4
    assert MODULATORS["lcos-double-phase"].values_per_pixel == 1 / 2
    row = step_row(variant="hyena2", seq_len=2048, modulator="dmd-superpixel")
    values = ledger.mask_budget(ledger.step_items(make_settings(variant="hyena2", seq_len=2048)),
                                Engine()).weight_values
    assert row.weight_mask_frames == math.ceil(values / (2e6 / 16))
    assert row.weight_mask_s == row.weight_mask_frames / 2880.0
    assert f"{row.weight_mask_s:.2f}" == "2.98"  # not the 0.90 s of pre-stored patterns at 9,523 Hz
    assert f"{step_row(variant='hyena2', seq_len=2048, modulator='dmd-lee').weight_mask_s:.2f}" == "0.75"


def test_every_mode_states_its_interface_and_condition_and_streaming_modes_are_fast():
    for mode in MODULATORS.values():
        assert mode.interface and mode.rate_condition, mode.name
        assert mode.pre_stored_hz == 0 or mode.pre_stored_hz > mode.frame_rate_hz, mode.name
    streaming = [m for m in MODULATORS.values() if m.name.startswith("dmd") and m.pre_stored_hz == 0]
    assert streaming and all(m.frame_rate_hz >= 10_000 for m in streaming)
    assert MODULATORS["lcos-fast-double-phase"].frame_rate_hz > MODULATORS["lcos-double-phase"].frame_rate_hz
    # at 2,880 Hz the Lee mode writes fewer values per second than the idealised device
    assert Engine(modulator="dmd-lee").values_per_second < Engine().values_per_second


def test_input_plane_follows_the_encoding_and_the_detector_its_pixels():
    sp = Engine(modulator="dmd-superpixel")
    assert sp.io_rate == sp.pixels * sp.frame_rate_hz / 16 and sp.detector_rate == sp.pixels * sp.frame_rate_hz
    assert Engine().io_rate == Engine().detector_rate == 2e6 * 1031
    assert Engine(input_rate=5e9).io_rate == Engine(input_rate=5e9).detector_rate == 5e9


def test_every_mode_cites_entries_of_the_bibliography():
    bib = (ROOT / "book" / "references.bib").read_text()
    keys = set(re.findall(r"@\w+\{([^,]+),", bib))
    for mode in MODULATORS.values():
        assert mode.cite and set(mode.cite) <= keys, mode.name


def test_an_override_leaves_the_cited_device():
    row = step_row(variant="hyena2", seq_len=2048, modulator="dmd-superpixel", frame_rate=1031)
    assert not row.cited and row.frame_rate_hz == 1031 and row.values_per_pixel == 1 / 16
    e = Engine(modulator="dmd-lee", values_per_pixel=0.5)
    assert not e.cited and "no longer the cited device" in e.note
    assert Engine(modulator="dmd-lee", frame_rate=DLPC900_VIDEO_PATTERN_HZ).cited  # the same figure is no departure
    assert not Engine(modulator="dmd-lee", frame_rate=DMD_BINARY_RATE_HZ).cited  # pre-stored: not the streamed mode


def test_a_new_modulator_brings_its_own_figures():
    base = make_settings(frame_rate=5000.0, values_per_pixel=2.0)
    s = make_settings(base, modulator="lcos-double-phase")
    assert s.device.frame_rate_hz == 60 and s.device.complex_values_per_pixel == 0.5 and s.device.cited
    kept = make_settings(base, modulator="lcos-double-phase", frame_rate=120.0)
    assert kept.device.frame_rate_hz == 120 and not kept.device.cited


def test_grey_level_and_unknown_modes_are_refused():
    with pytest.raises(LedgerError, match=r"^modulator = 'dmd-grey' is refused: .*not a coherent complex amplitude"):
        Engine(modulator="dmd-grey")
    with pytest.raises(LedgerError, match=r"^modulator = 'slm': must be one of ideal, dmd-superpixel, dmd-lee, "
                                          r"dmd-superpixel-dlpc410, dmd-lee-dlpc410, dmd-lee-dlpc910, "
                                          r"lcos-double-phase, lcos-fast-double-phase$"):
        step_row(modulator="slm")
    assert set(REFUSED_MODULATORS).isdisjoint(MODULATORS)


@pytest.mark.parametrize("name, says", [("dmd-grey", "is refused: an 8-bit grey level"),
                                        ("slm", "is not a modulator mode (choose from ideal, dmd-superpixel")])
def test_cli_refuses_in_one_line(name, says):
    done = subprocess.run([sys.executable, "-m", "ledger", "--json", "--modulator", name], capture_output=True,
                          text=True, cwd=ROOT, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and says in done.stderr


def test_cli_help_lists_the_modes():
    done = subprocess.run([sys.executable, "-m", "ledger", "--help"], capture_output=True, text=True, cwd=ROOT,
                          check=True)
    flat = "".join(done.stdout.split())  # argparse may break a hyphenated name across lines
    for name in MODULATORS:
        assert name in flat


def test_json_rows_carry_the_engine_as_used():
    done = subprocess.run([sys.executable, "-m", "ledger", "--json", "--modulator", "dmd-superpixel", "--variant",
                           "hyena2", "--seq-len", "2048", "--frame-rate", "10000"], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    data = json.loads(done.stdout)
    row = data["rows"][0]
    assert (row["modulator"], row["frame_rate_hz"], row["values_per_pixel"], row["cited"]) == \
        ("dmd-superpixel", 10000.0, 1 / 16, False)
    assert data["engine"]["modulator"] == "dmd-superpixel" and not data["engine"]["cited"]


def test_rows_layout_by_hand():
    """Hyena-2 at 4,096: a spectrum of 4,097 bins on rows of 1,920 values takes 3 rows; 1,041 rows a frame."""
    s = make_settings(variant="hyena2", seq_len=4096, layout="rows")
    e = s.device
    assert (e.row_values, e.rows_per_frame) == (1920, 1041)
    # 2,000,000 pixels folded into rows of 1,920: 1,041 full rows, never more pixels than the packed count
    assert e.rows_per_frame * e.row_pixels <= e.pixels < (e.rows_per_frame + 1) * e.row_pixels
    spectra = 2 * 2 * 4096 * 32  # forward and dX masks: two filters per channel, H channels, L layers
    row = step_row(s)
    assert row.weight_mask_frames == math.ceil(spectra * 3 / 1041)
    sp = Engine(modulator="dmd-superpixel", layout="rows")
    assert (sp.row_values, sp.rows_per_frame) == (480, 260)  # 4 x 4 cells: 480 along a row, 1,041 // 4 rows


@hsettings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(MASKED), seq_len=st.sampled_from([512, 2048, 4096, 8192]),
       name=st.sampled_from(list(MODULATORS)), two=st.booleans(), row_pixels=st.sampled_from([256, 1920, 8192]))
def test_rows_never_take_fewer_frames_than_packed(variant, seq_len, name, two, row_pixels):
    kw = dict(variant=variant, seq_len=seq_len, modulator=name, mask_spectrum="two-sided" if two else "one-sided")
    packed, rows = step_row(**kw), step_row(**kw, layout="rows", row_pixels=row_pixels)
    assert rows.weight_mask_frames >= packed.weight_mask_frames
    assert rows.data_mask_frames >= packed.data_mask_frames


# --- what crosses the boundary ------------------------------------------------------------------

TINY = ledger.ModelShape(n_layers=2, hidden=4, n_heads=2, n_kv_heads=1, intermediate=8, vocab=16)


def _enumerate_fused(variant, seq_len, step_tokens, block, block_sum):
    """Every pass of a fused engine with a digital weight gradient, listed by hand: (real numbers in, out)."""
    h, L = TINY.hidden, TINY.n_layers
    bins = seq_len + 1  # n = 2S: S + 1 bins
    sequences = step_tokens // seq_len
    v_in = v_out = 0
    filters = 2 * h * L  # long convolutions: two per channel, every layer
    for _ in range(sequences * filters):
        v_in += seq_len; v_out += 2 * bins + seq_len   # forward: u in, U tapped out, y out
        v_in += seq_len; v_out += 2 * bins + seq_len   # dX: g in, G tapped out, du out
    v_in += filters * seq_len; v_out += filters * 2 * bins      # per step: filter h in, its spectrum out
    v_in += filters * 2 * bins; v_out += filters * seq_len      # per step: dH in, dh out
    if variant == "hyena2_circulant":
        bb = block // 2 + 1
        mats = [(3 * h, h, L), (h, h, L), (8, h, L), (8, h, L), (h, 8, L)]
        for rows, cols, layers in mats:
            p, q = rows // block, cols // block
            for _ in range(step_tokens * layers):
                v_in += q * block; v_out += q * 2 * bb          # forward: x blocks in, X spectra out
                v_in += p * block; v_out += p * 2 * bb          # dX: g blocks in, G spectra out
                if block_sum == "digital":
                    v_out += p * q * 2 * bb; v_in += p * 2 * bb  # forward: products out, summed spectra in
                    v_out += p * q * 2 * bb; v_in += q * 2 * bb  # dX likewise
                v_out += p * block; v_out += q * block          # y blocks out, dx blocks out
            v_in += p * q * layers * block; v_out += p * q * layers * 2 * bb   # weight blocks per step
            v_in += p * q * layers * 2 * bb; v_out += p * q * layers * block   # dW blocks per step
    return v_in, v_out


@pytest.mark.parametrize("variant", ["hyena2", "hyena2_circulant"])
@pytest.mark.parametrize("block_sum", ["digital", "optical"])
def test_fused_count_is_an_explicit_schedule_of_passes(variant, block_sum):
    """The fused bound is reachable: it equals a listed schedule of 4f passes on a tiny shape."""
    s = ledger.Settings(variant=variant, seq_len=8, step_tokens=24, block=2, shape=TINY)
    c = conversions(s, mode="fused", block_sum=block_sum)
    assert (c.values_in, c.values_out) == _enumerate_fused(variant, 8, 24, 2, block_sum)


def test_fused_includes_the_u_and_g_spectra():
    s = ledger.Settings(variant="hyena2", seq_len=4096)
    readout = conversions(s, mode="fused")
    recompute = conversions(s, mode="fused", weight_gradient="recompute")
    taps = [i for i in ledger.step_items(s) if feeds_weight_gradient(i)]
    assert {i.op for i in taps} == {"long conv: rFFT of u", "long conv: rFFT of g"}
    assert readout.values_out - recompute.values_out == sum(i.count for i in taps) * 2 * (4096 + 1)
    assert recompute.gpu_fft_flops == sum(i.flops for i in taps) and readout.gpu_fft_flops == 0
    assert f"{readout.values / 1e12:.2f}" == "2.21" and f"{recompute.values / 1e12:.2f}" == "1.11"


def test_recomputing_on_the_gpu_lowers_the_saving():
    s = ledger.Settings(variant="hyena2", seq_len=4096)
    readout, recompute = hidden_costs(s, mode="fused"), hidden_costs(s, mode="fused", weight_gradient="recompute")
    assert recompute.static_saving_s < readout.static_saving_s
    taps = [i for i in ledger.step_items(s) if feeds_weight_gradient(i)]
    assert recompute.gpu_recompute_s == pytest.approx(sum(item_seconds(i, s) for i in taps), rel=1e-12)
    assert recompute.static_saving_s == pytest.approx(readout.static_saving_s - recompute.gpu_recompute_s, rel=1e-12)


@hsettings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(ledger.VARIANTS), seq_len=st.sampled_from([256, 2048, 4096, 8192]),
       block=st.sampled_from([2, 16, 256]), block_sum=st.sampled_from(["digital", "optical"]),
       recompute=st.sampled_from(["none", "full"]), weight_gradient=st.sampled_from(["readout", "recompute"]))
def test_fused_never_exceeds_separate(variant, seq_len, block, block_sum, recompute, weight_gradient):
    s = ledger.Settings(variant=variant, seq_len=seq_len, block=block, recompute=recompute)
    fused = conversions(s, mode="fused", block_sum=block_sum, weight_gradient=weight_gradient)
    sep = conversions(s, mode="separate", block_sum=block_sum)
    assert fused.values_in <= sep.values_in and fused.values_out <= sep.values_out


def test_readout_costs_detector_samples():
    s = ledger.Settings(variant="hyena2")
    two = conversions(s, mode="fused")
    one = conversions(make_settings(s, readout="intensity"), mode="fused")
    assert two.detector_samples == 2 * two.values_out and one.detector_samples == one.values_out


def test_bad_assignments_are_refused():
    s = ledger.Settings()
    with pytest.raises(LedgerError, match=r"^weight_gradient = 'both': must be one of readout, recompute$"):
        conversions(s, mode="fused", weight_gradient="both")
    with pytest.raises(LedgerError, match=r"^layout = 'grid': must be one of packed, rows$"):
        Engine(layout="grid")
    with pytest.raises(LedgerError, match=r"^readout = 'camera'"):
        Engine(readout="camera")


def test_weight_mask_split_by_hand():
    """Block spectra add ~30 M values to ~2.15 G filter values for the block-circulant model at 4,096 tokens."""
    from ledger.masks import weight_mask_split
    s = make_settings(variant="hyena2_circulant", seq_len=4096)
    items = ledger.step_items(s)
    split = weight_mask_split(items)
    # blocks of 256: in-projection 12,288 x 4,096, out-projection 4,096 x 4,096, three MLP matrices 14,336 x 4,096;
    # 129 one-sided bins per block spectrum, 32 layers, a spectrum and its conjugate (forward and dX)
    blocks = (48 * 16 + 16 * 16 + 3 * 56 * 16) * 129 * 32 * 2
    filters = 4097 * 4096 * 2 * 32 * 2  # S + 1 bins, H channels, two filters per channel, 32 layers, H and conj(H)
    assert split == {"filters": filters, "blocks": blocks}
    assert split["filters"] + split["blocks"] == ledger.mask_budget(items, s.device).weight_values
    assert weight_mask_split(ledger.step_items(make_settings(variant="hyena2", seq_len=4096)))["blocks"] == 0
    assert 0.01 < blocks / filters < 0.02


def test_every_mode_states_its_precision():
    from ledger.engine import MODULATORS
    for m in MODULATORS.values():
        assert m.distinct_values >= 2 and m.precision, m.name
        assert m.effective_bits == pytest.approx(math.log2(m.distinct_values) / 2)
    assert MODULATORS["ideal"].effective_bits == 8  # the 8-bit path chapter 08 assumes, unchanged by default


def test_binary_cell_values_by_hand():
    from ledger.engine import binary_cell_values, double_phase_values
    # 4th roots of unity, any subset: a + b i with a, b in {-1, 0, 1}, nine values
    assert binary_cell_values(4) == 9
    assert binary_cell_values(2) == 3  # {0, 1, -1}
    assert binary_cell_values(16) == 6561  # the superpixel count Goorden et al. (2014) report
    # two phasors on levels {1, i, -1, -i}: 2, 2i, -2, -2i, four of modulus sqrt 2, and 0
    assert double_phase_values(4) == 9
    assert double_phase_values(2) == 3  # {2, 0, -2}
    for bad in (0, 21):
        with pytest.raises(ledger.LedgerError, match="phase_steps"):
            binary_cell_values(bad)
    with pytest.raises(ledger.LedgerError, match="phase_levels"):
        double_phase_values(0)


def test_hidden_costs_read_the_modes_precision():
    from ledger.hidden_costs import hidden_costs
    s = ledger.make_settings(variant="hyena2", seq_len=4096)
    assert hidden_costs(s).precision.enob == 8
    sp = ledger.make_settings(variant="hyena2", seq_len=4096, modulator="dmd-superpixel")
    assert hidden_costs(sp).precision.enob == pytest.approx(math.log2(3 ** 8) / 2)
    assert hidden_costs(sp, enob=12).precision.enob == 12  # an explicit ENOB still wins


def test_double_phase_values_match_the_pair_by_pair_enumeration():
    """The array count (fast enough for every `import ledger`) against the plain enumeration of every
    pair of phasors in Python's own arithmetic, for even and odd level counts up to the LCOS's 256."""
    import math

    from ledger.engine import LCOS_PHASE_LEVELS, MODULATORS, double_phase_values

    def pair_by_pair(levels: int) -> int:
        roots = [complex(math.cos(2 * math.pi * k / levels), math.sin(2 * math.pi * k / levels)) for k in range(levels)]
        return len({complex(round((a + b).real, 9), round((a + b).imag, 9)) for a in roots for b in roots})

    for levels in (1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 31, 64, 100, LCOS_PHASE_LEVELS):
        assert double_phase_values(levels) == pair_by_pair(levels), levels
    assert MODULATORS["lcos-double-phase"].distinct_values == pair_by_pair(LCOS_PHASE_LEVELS) == 32_769
