"""Checked sentences of chapter 06 (masks rewritten every optimizer step)."""
from __future__ import annotations

from ..engine import MODULATORS, Engine
from ..table import make_settings, step_row
from . import claim
from ..masks import weight_mask_split
from ..step import step_items
from .changes import FILTERS_PER_MICRO_BATCH, IDEAL_10X, engine_default, modulator, settings_default

CHAPTER = "06_masks"
MASKED = ("hyena2", "hybrid", "hyena2_circulant")
LENGTHS = (2048, 4096, 8192)
STEPS = tuple(2 ** k for k in range(18, 25))


def _rows(**kw):
    return {(v, s): step_row(variant=v, seq_len=s, **kw) for v in MASKED for s in LENGTHS}


@claim("masks-ideal-most-per-pixel", CHAPTER,
       "The idealised device is optimistic per pixel (no cited mode holds more than one complex value in a "
       "pixel), not per second: the Lee mode on a controller built for streaming (DLPC410) writes the most values "
       "per second, the video-rate liquid-crystal device the fewest, and on a DLPC900 streaming its masks the Lee "
       "mode writes fewer than the idealised device.",
       "every modulator mode of ledger.engine.MODULATORS, each at its rate for streamed patterns, at the engine's "
       "pixels",
       fails_when=IDEAL_10X)
def _ideal_per_pixel() -> bool:
    per_pixel = {n: m.values_per_pixel for n, m in MODULATORS.items()}
    per_second = {n: Engine(modulator=n).values_per_second for n in MODULATORS}
    return (max(per_pixel.values()) == per_pixel["ideal"] == 1
            and max(per_second, key=per_second.get) == "dmd-lee-dlpc410"
            and min(per_second, key=per_second.get) == "lcos-double-phase"
            and per_second["dmd-superpixel"] < per_second["dmd-lee"] < per_second["ideal"])


@claim("masks-mode-range", CHAPTER,
       "Weight- and data-mask times range from the Lee mode on a streaming controller (shortest) to the "
       "video-rate liquid-crystal mode (longest), every other mode between.",
       "Hyena-2, hybrid and block-circulant at S = 2,048, 4,096 and 8,192, every modulator mode",
       fails_when=IDEAL_10X)
def _mode_range() -> bool:
    by_mode = {n: _rows(modulator=n) for n in MODULATORS}
    for key in by_mode["ideal"]:
        for field in ("weight_mask_s", "data_mask_s"):
            t = {n: getattr(by_mode[n][key], field) for n in MODULATORS}
            if not (min(t, key=t.get) == "dmd-lee-dlpc410" and max(t, key=t.get) == "lcos-double-phase"):
                return False
    return True


@claim("masks-streamed-not-pre-stored", CHAPTER,
       "Timed at the DLPC900's rate for pre-stored patterns instead of its rate for streamed ones, the "
       "superpixel's mask times would be understated more than three-fold.",
       "Hyena-2, hybrid and block-circulant at S = 2,048, 4,096 and 8,192, weight and data masks: the "
       "streamed times over the pre-stored ones, each more than 3",
       fails_when=modulator("dmd-superpixel", "the DLPC900 streamed the superpixel's patterns from a 240 Hz video "
                                              "input (5,760 patterns/s), not 120 Hz", frame_rate_hz=2 * 2880.0))
def _streamed_rate() -> bool:
    streamed = _rows(modulator="dmd-superpixel")
    pre_stored = _rows(modulator="dmd-superpixel", frame_rate=MODULATORS["dmd-superpixel"].pre_stored_hz)
    return all(streamed[k].weight_mask_s > 3 * pre_stored[k].weight_mask_s
               and streamed[k].data_mask_s > 3 * pre_stored[k].data_mask_s for k in streamed)


@claim("masks-frames-grow-with-s", CHAPTER,
       "Hyena-2's weight-mask frames grow in proportion to S while its digital step barely moves.",
       "Hyena-2 from S = 2,048 to 8,192, every modulator mode: frames x4 within 1%, all-digital step within 1%",
       fails_when=engine_default("each GPU ran FFTs and elementwise work at 6.7 TFLOP/s, a tenth of the H100's FP32 "
                                 "rate", gpu_vector_flops=6.7e12))
def _frames_grow() -> bool:
    for n in MODULATORS:
        a, b = step_row(variant="hyena2", seq_len=2048, modulator=n), step_row(variant="hyena2", seq_len=8192,
                                                                                 modulator=n)
        if abs(b.weight_mask_frames / a.weight_mask_frames / 4 - 1) > 0.01 or \
                abs(b.all_digital_step_s / a.all_digital_step_s - 1) > 0.01:
            return False
    return True


@claim("masks-circulant-worse-relative", CHAPTER,
       "The block-circulant model's weight masks are a larger multiple of its all-digital step than Hyena-2's, "
       "and more than one step on the idealised device, only because its step is shorter: its block spectra add "
       "under 2% to the filter values, so its weight masks take within 2% of Hyena-2's time.",
       "S = 4,096, every modulator mode (more than one step: the idealised device), layout packed: block spectra "
       "under 2% of the filter values, weight masks 1 to 1.02 times Hyena-2's",
       fails_when=engine_default("the mask device had 20,000,000 pixels, ten times the book's", pixels=20e6))
def _circulant_worse() -> bool:
    split = weight_mask_split(step_items(make_settings(variant="hyena2_circulant", seq_len=4096)))
    if not 0 < split["blocks"] < 0.02 * split["filters"]:
        return False
    for n in MODULATORS:
        h, c = step_row(variant="hyena2", seq_len=4096, modulator=n), step_row(variant="hyena2_circulant",
                                                                                seq_len=4096, modulator=n)
        floor = 1.0 if n == "ideal" else 0.0
        if not (c.weight_mask_s / c.all_digital_step_s > max(floor, h.weight_mask_s / h.all_digital_step_s)
                and 1 <= c.weight_mask_s / h.weight_mask_s < 1.02 and c.all_digital_step_s < h.all_digital_step_s):
            return False
    return True


@claim("masks-data-out-of-reach", CHAPTER,
       "Data-by-data masks take many digital steps, the same time at every sequence length: the weight "
       "gradient stays digital.",
       "Hyena-2, hybrid and block-circulant at S = 2,048, 4,096 and 8,192, every modulator mode, both layouts: "
       "5 all-digital steps or more; equal across lengths within 1% (packed layout)",
       fails_when=IDEAL_10X)
def _data_out_of_reach() -> bool:
    for n in MODULATORS:
        for layout in ("packed", "rows"):
            rows = _rows(modulator=n, layout=layout)
            if any(r.data_mask_s < 5 * r.all_digital_step_s for r in rows.values()):
                return False
        packed = _rows(modulator=n)
        for v in MASKED:
            times = [packed[v, s].data_mask_s for s in LENGTHS]
            if max(times) > 1.01 * min(times):
                return False
    return True


@claim("masks-rows-not-fewer", CHAPTER,
       "Putting each spectrum on rows of its own never takes fewer frames than packing the values densely, and "
       "takes more where a spectrum leaves part of its last row empty: at 4,096 tokens a filter spectrum's 4,097 "
       "bins fill three rows of 1,920 values, and Hyena-2's weight masks take about 40% more frames on the "
       "idealised device.",
       "Hyena-2, hybrid and block-circulant at S = 2,048, 4,096 and 8,192, every modulator mode, one- and "
       "two-sided spectra, weight and data masks: rows never fewer; Hyena-2 at S = 4,096 on the idealised device, "
       "one-sided: 3 rows per filter spectrum, weight-mask frames 1.3 to 1.5 times the packed ones",
       fails_when=engine_default("the device's rows were 3,840 pixels long (a 4K panel's width), not 1,920",
                                 row_pixels=3840))
def _rows_not_fewer() -> bool:
    engine = Engine(layout="rows")
    packed, rows = step_row(variant="hyena2", seq_len=4096), step_row(variant="hyena2", seq_len=4096, layout="rows")
    if not (engine.rows_for(4097) == 3 and 1.3 <= rows.weight_mask_frames / packed.weight_mask_frames <= 1.5):
        return False
    for n in MODULATORS:
        for spectrum in ("one-sided", "two-sided"):
            packed, rows = _rows(modulator=n, mask_spectrum=spectrum), _rows(modulator=n, mask_spectrum=spectrum,
                                                                             layout="rows")
            for k in packed:
                if rows[k].weight_mask_frames < packed[k].weight_mask_frames or \
                        rows[k].data_mask_frames < packed[k].data_mask_frames:
                    return False
    return True


@claim("masks-step-size-weight-only", CHAPTER,
       "A larger optimizer step amortises the weight masks and nothing else: their frames do not depend on the "
       "step, while the data-mask time keeps its ratio to the digital step.",
       "Hyena-2 and block-circulant at S = 4,096, steps of 2^18 to 2^24 tokens: weight frames equal, data-mask "
       "ratio within 1%",
       fails_when=FILTERS_PER_MICRO_BATCH)
def _step_size() -> bool:
    for v in ("hyena2", "hyena2_circulant"):
        rows = [step_row(variant=v, seq_len=4096, step_tokens=t) for t in STEPS]
        if len({r.weight_mask_frames for r in rows}) != 1:
            return False
        ratios = [r.data_mask_s / r.all_digital_step_s for r in rows]
        if max(ratios) > 1.01 * min(ratios):
            return False
    return True


@claim("masks-static-share-small", CHAPTER,
       "Hyena-2's whole contribution is a fraction of a percent of the step's FLOPs and a few percent of its "
       "seconds, while its weight-mask rewrite takes a fifth of an all-digital step or more, over four times "
       "the seconds the engine could save.",
       "Hyena-2 at S = 2,048, 4,096 and 8,192 on the idealised device: static share below 1%, time share below "
       "6%, rewrite above 0.2 all-digital steps and above 4 times the engine's work in GPU seconds",
       fails_when=engine_default("the cluster had 8 GPUs (one node), not 64", gpus=8))
def _static_small() -> bool:
    rows = [step_row(variant="hyena2", seq_len=s) for s in LENGTHS]
    return all(r.static_share < 0.01 and r.time_share < 0.06 and r.weight_mask_s / r.all_digital_step_s > 0.2
               and r.weight_mask_s > 4 * r.time_share * r.all_digital_step_s for r in rows)


@claim("masks-two-sided-about-doubles", CHAPTER,
       "Holding the two-sided spectrum about doubles both mask budgets (a factor n/(n/2+1), just under 2).",
       "Hyena-2, hybrid and block-circulant at S = 2,048, 4,096 and 8,192, every modulator mode, packed: "
       "weight and data masks between 1.9 and 2 times the one-sided times (block 256)",
       fails_when=settings_default("the block-circulant model's blocks were 16 by default, not 256 (9 one-sided "
                                   "bins of 16)", block=16))
def _two_sided() -> bool:
    for n in MODULATORS:
        one, two = _rows(modulator=n), _rows(modulator=n, mask_spectrum="two-sided")
        for k in one:
            for field in ("weight_mask_s", "data_mask_s"):
                if not 1.9 <= getattr(two[k], field) / getattr(one[k], field) <= 2.0:
                    return False
    return True


@claim("masks-fastest-is-coarsest", CHAPTER,
       "The fastest cited mode is the coarsest: the Lee hologram on a streaming controller, shortest in every "
       "mask time, makes the fewest distinct complex values (under 2 effective bits per quadrature, under a "
       "third of any mode's with another encoding), and the idealised mode alone reaches the 8 bits chapter 08 "
       "assumes.",
       "every modulator mode; Hyena-2, hybrid and block-circulant at S = 2,048, 4,096 and 8,192, weight and "
       "data masks: the fastest mode's alphabet the smallest; Lee below 2 effective bits, every other encoding "
       "above 3 times Lee's, only the idealised mode at 8 or more",
       fails_when=IDEAL_10X)
def _fastest_coarsest() -> bool:
    by_mode = {n: _rows(modulator=n) for n in MODULATORS}
    for key in by_mode["ideal"]:
        for field in ("weight_mask_s", "data_mask_s"):
            fastest = min(MODULATORS, key=lambda n: getattr(by_mode[n][key], field))
            if MODULATORS[fastest].distinct_values != min(m.distinct_values for m in MODULATORS.values()):
                return False
    lee = MODULATORS["dmd-lee"]
    return (lee.effective_bits < 2
            and all(m.effective_bits > 3 * lee.effective_bits for m in MODULATORS.values() if m.encoding != lee.encoding)
            and [n for n, m in MODULATORS.items() if m.effective_bits >= 8] == ["ideal"])
