"""The Jupyter explorer panel (ledger/explore.py) builds, recomputes and refuses bad settings."""
from __future__ import annotations


import pytest

import ledger
from ledger import explore
from ledger.figures import figure_png
from ledger.explore import explorer, format_bound, format_metric, format_seconds, format_share, format_speedup

PNG = b"\x89PNG"


def test_formats_match_the_book():
    row = ledger.step_row(variant="hyena2_circulant", seq_len=4096)
    shown = [format_share(getattr(row, k)) for k in ("forward_share", "backward_share", "step_share",
                                                       "static_share", "data_part")]
    assert shown == ["14.18%", "11.16%", "12.19%", "9.66%", "20.73%"]
    assert (format_bound(row.amdahl), format_bound(row.amdahl_static)) == ("1.139x", "1.107x")
    assert format_seconds(0) == "0 s" and format_seconds(385.2) == "385 s"
    assert format_seconds(0.152) == "0.15 s" and format_seconds(0.00512) == "0.00512 s"
    assert format_speedup(1.0) == "1.000x" and format_speedup(2.16339) == "2.163x"
    assert format_speedup(0.5) == "0.500x (2.00x slower)"
    assert format_speedup(row.net_speedup) == "0.00000892x (112,126x slower)"
    assert format_metric("net_speedup", 0.25) == format_speedup(0.25) and format_metric("hybrid_step_s", 0.5) == "0.50 s"


def test_panel_builds_in_the_default_state():
    box = explorer()
    assert box.error == ""
    assert box.row == ledger.step_row(**explore.DEFAULTS)
    for text in ("14.18%", "11.16%", "12.19%", "9.66%", "20.73%", "1.139x", "1.107x"):
        assert text in box.numbers.value
    assert bytes(box.image.value).startswith(PNG)
    assert set(box.controls) == {"variant", "seq_len", "step_tokens", "block", "hybrid_attention_fraction",
                                 "modulator", "pixels", "values_per_pixel", "frame_rate", "gpus", "gpu_flops",
                                 "optical_speedup", "mask_overlap"}
    for key in ("all_digital_step_s", "hybrid_step_s", "net_speedup"):
        assert format_metric(key, getattr(box.row, key)) in box.numbers.value, key
    assert "slower" in box.numbers.value  # the default hybrid step is slower than the all-digital one
    assert box.row.cited and "the cited device" in box.numbers.value


def test_panel_modulator_mode_brings_its_figures():
    box = explorer(variant="hyena2", seq_len=2048)
    for name, mode in ledger.MODULATORS.items():
        box.controls["modulator"].value = name
        assert (box.controls["frame_rate"].value, box.controls["values_per_pixel"].value) == \
            pytest.approx((mode.frame_rate_hz, mode.values_per_pixel))
        assert box.error == "" and box.row.cited and box.row.modulator == name
        assert box.row.weight_mask_s == pytest.approx(
            ledger.step_row(variant="hyena2", seq_len=2048, modulator=name).weight_mask_s, rel=1e-12)
        assert format_seconds(box.row.weight_mask_s) in box.numbers.value
    box.controls["modulator"].value = "dmd-superpixel"
    box.controls["frame_rate"].value = 1031.0
    assert not box.row.cited and "no longer the cited device" in box.numbers.value


def test_panel_recomputes_on_every_control():
    box = explorer()
    c = box.controls
    c["variant"].value = "hyena2"
    c["seq_len"].value = 8192
    expected = ledger.step_row(**{**explore.DEFAULTS, "variant": "hyena2", "seq_len": 8192})
    assert box.row == expected
    assert format_share(expected.step_share) in box.numbers.value
    assert format_seconds(expected.weight_mask_s) in box.numbers.value
    c["step_tokens"].value = 4 * 1_048_576
    c["block"].value = 64
    c["hybrid_attention_fraction"].value = 0.5
    c["pixels"].value = 1e7
    c["values_per_pixel"].value = 2.0
    c["frame_rate"].value = 1e4
    c["gpus"].value = 256
    c["gpu_flops"].value = 1e15
    params = {name: w.value for name, w in c.items()}
    assert box.row == ledger.step_row(**params)
    c["seq_len"].value = 16384
    assert "extrapolation" in box.numbers.value
    for variant in ledger.VARIANTS:
        c["variant"].value = variant
        assert box.error == "" and box.row.variant == variant
    assert box.row.variant == "hyena2_circulant"
    c["variant"].value = "transformer"
    assert box.row.step_share == 0.0 and "0.00%" in box.numbers.value


def test_panel_keeps_the_last_good_state_on_a_refusal():
    box = explorer()
    box.controls["seq_len"].value = 8192
    good, picture = box.row, bytes(box.image.value)
    # The block slider offers only valid blocks; offer a bad one to check the refusal path.
    box.controls["block"].options = [("3", 3), ("256", 256)]
    box.controls["block"].value = 3
    assert "block = 3 does not divide" in box.error
    assert box.row == good and bytes(box.image.value) == picture
    assert "Refused" in box.numbers.value and "12.19%" not in box.numbers.value
    assert format_share(good.step_share) in box.numbers.value
    box.controls["block"].value = 256
    assert box.error == "" and "Refused" not in box.numbers.value


def test_bad_starting_state_is_refused():
    with pytest.raises(ledger.LedgerError):
        explorer(seq_len=3000)


@pytest.mark.parametrize("overrides, words", [
    ({"mask_overlap": "both"}, "mask_overlap = 'both': must be one of serial, overlapped"),
    ({"mask_overlap": None}, "mask_overlap = None: must be one of serial, overlapped"),
    ({"modulator": "slm"}, "modulator = 'slm': must be one of ideal, dmd-superpixel"),
    ({"gpu_flops": float("nan")}, "gpu_flops = nan: must be a positive finite number"),
    ({"frame_rate": 1e7}, "frame_rate = 10000000.0: the explorer's slider runs from 1 to 1e+06"),
    ({"values_per_pixel": 100.0}, "values_per_pixel = 100.0: the explorer's slider runs from 0.03125 to 8"),
    ({"link_rate": 1e9}, "link_rate = 1000000000.0: the explorer has no control for it; its controls are variant"),
    ({"optical_speedup": 0}, "optical_speedup = 0: must be a positive number"),
])
def test_bad_starting_values_are_one_line_naming_the_value(overrides, words):
    with pytest.raises(ledger.LedgerError) as err:
        explorer(**overrides)
    assert words in str(err.value) and "\n" not in str(err.value) and "NaN" not in str(err.value)


def test_panel_times_the_step_and_overlaps_the_masks():
    """The all-digital step, the hybrid step and the net speed-up, each the ledger's; the mask-overlap control
    moves the hybrid step only."""
    box = explorer()
    serial = box.row
    assert (serial.mask_overlap, box.controls["mask_overlap"].options) == ("serial", ledger.engine.MASK_OVERLAPS)
    assert "mask rewrites added to the streaming (serial)" in box.numbers.value
    box.controls["mask_overlap"].value = "overlapped"
    expected = ledger.step_row(**{**explore.DEFAULTS, "mask_overlap": "overlapped"})
    assert box.error == "" and box.row == expected
    assert expected.hybrid_step_s < serial.hybrid_step_s and expected.all_digital_step_s == serial.all_digital_step_s
    for key in ("all_digital_step_s", "hybrid_step_s", "net_speedup"):
        assert format_metric(key, getattr(expected, key)) in box.numbers.value, key
    assert "(overlapped)" in box.numbers.value
    assert f"{expected.break_even_mask_rate:,.0f} frames/s" in box.numbers.value
    box.controls["modulator"].value = "dmd-lee-dlpc410"  # a faster streaming device: a shorter hybrid step
    mode_figures = ("frame_rate", "values_per_pixel")  # the mode brings its own
    assert box.row == ledger.step_row(**{**{k: v for k, v in explore.DEFAULTS.items() if k not in mode_figures},
                                         "mask_overlap": "overlapped", "modulator": "dmd-lee-dlpc410"})
    assert box.row.hybrid_step_s < expected.hybrid_step_s
    box.controls["variant"].value = "transformer"
    assert box.row.net_speedup == 1.0 and "1.000x" in box.numbers.value
    assert "takes no work" in box.numbers.value


def test_static_figure():
    fig = explore.figure()
    assert len(fig.axes) == 2
    assert figure_png(fig).startswith(PNG)
    fig = explore.figure(variant="transformer")  # no masks at all: no log of zero
    assert figure_png(fig).startswith(PNG)


def test_panel_speedup_control():
    """A finite optical speed-up lowers both Amdahl figures to 1/((1 - p) + p/s); inf is the bound."""
    box = explorer()
    c = box.controls["optical_speedup"]
    assert c.value == float("inf") and "inf" in [label for label, _ in c.options]
    c.value = 10
    row = box.row
    p = row.step_share
    assert row.amdahl == 1 / ((1 - p) + p / 10) and format_bound(row.amdahl) in box.numbers.value
    assert format_bound(row.amdahl) == "1.123x"
    c.value = 1
    assert box.row.amdahl == 1.0 and "1.000x" in box.numbers.value
    c.value = float("inf")
    assert box.row == ledger.step_row(**explore.DEFAULTS)


def test_panel_columns_wrap_instead_of_squeezing():
    box = explorer()
    panel, image = box.children
    controls, numbers = panel.children
    assert list(controls.children) == list(box.controls.values())
    assert numbers.children == (box.numbers,)
    assert panel.layout.flex_flow == "row wrap"  # the numbers go under the controls when narrow
    for column in (controls, numbers):
        assert column.layout.min_width.endswith("rem") and column.layout.flex.startswith("1 1 ")
    assert image is box.image and image.layout.max_width == "100%"
    for c in box.controls.values():
        assert c.style.description_width == explore.EXPLORER_LABEL_WIDTH and c.layout.width == "auto"


def test_static_figure_image_carries_its_alt_text():
    """The glued default figure reaches the page with alt text that states the row's own numbers."""
    from IPython.core.formatters import format_display_data

    from ledger.figures import check_alt

    _, metadata = format_display_data(explore.figure_image(variant="hyena2_circulant", seq_len=4096))
    alt = check_alt(metadata["image/png"]["alt"])
    row = ledger.step_row(variant="hyena2_circulant", seq_len=4096)
    assert "hyena2_circulant" in alt and f"{100 * row.forward_share:.2f}% of the forward pass" in alt
    assert format_seconds(row.data_mask_s) in alt
    transformer = format_display_data(explore.figure_image(variant="transformer"))[1]["image/png"]["alt"]
    assert "no masks" in transformer
