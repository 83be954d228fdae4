"""The explorer's JavaScript ledger (book/_static/explorer.js) against the Python ledger.

The very file the book serves is run under Node on 600 random parameter points (every variant,
sequence length, block, step size, device figure, modulator mode, switch, the time model's rates and
mask overlap, and the counting conventions) and every output is compared with ledger.step_row to a
relative 1e-12, the time fields (all-digital and hybrid step, net speed-up, time share, Amdahl bound in
time, break-even rates) included; the bad inputs the Python refuses must be refused by the JavaScript
too, naming the same parameter in the same one-line message. The time fields must not move under any
counting convention, and the JavaScript's tables (modulator modes, defaults) are the Python's.
"""
from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import ledger
import ledger.engine
import ledger.step_time
import ledger.timing
from ledger.costs import Costs
from ledger.engine import MASK_OVERLAPS, MODULATORS, Engine
from ledger.settings import Settings
from ledger.table import make_settings

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "js" / "parity.js"
PAGE = ROOT / "book" / "explorer.md"
REL = 1e-12
N_POINTS = 600


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed for the JavaScript parity test (apt-get install nodejs)")
    return node


def _encode(value):
    if isinstance(value, float) and not math.isfinite(value):
        return {"__float__": "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    return value


def _decode(obj: dict):
    if set(obj) == {"__float__"}:
        return float(obj["__float__"].replace("Infinity", "inf"))
    return obj


def run_js(points: list[dict], bad: list[dict]) -> dict:
    job = {"points": [{k: _encode(v) for k, v in p.items()} for p in points],
           "bad": [{k: _encode(v) for k, v in p.items()} for p in bad]}
    done = subprocess.run([_node(), str(SCRIPT)], input=json.dumps(job, allow_nan=False), capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout, object_hook=_decode)


MODES = list(MODULATORS)
CONVENTIONS = [  # every counting convention alone, then several at once
    {"flops_per_mac": 1.0}, {"fft_constant": 5.0}, {"fft_constant": 3.7}, {"complex_mul_flops": 4.0},
    {"complex_mul_flops": 8.0, "complex_add_flops": 0.0}, {"complex_add_flops": 1.0}, {"causal_attention": True},
    {"flops_per_mac": 1.0, "fft_constant": 5.0, "complex_mul_flops": 4.0, "complex_add_flops": 1.0,
     "causal_attention": True},
]
TIME_FIELDS = ("all_digital_step_s", "hybrid_step_s", "net_speedup", "time_share", "amdahl_time",
               "break_even_input_rate", "break_even_mask_rate", "break_even_detector_rate", "break_even_link_rate")
BREAK_EVEN = TIME_FIELDS[5:]


def random_points(n: int, seed: int = 20261130) -> list[dict]:
    rng = random.Random(seed)
    lengths = [512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 32768, 1000, 4095]
    fractions = [0.0, 1.0, 0.25, 0.5, 1 / 64, 3 / 64, 0.999]
    points = []
    for i in range(n):
        variant = ledger.VARIANTS[i % len(ledger.VARIANTS)]
        seq_len = rng.choice(lengths)
        sequences = rng.choice([1, 2, 3, 7, 64, 256, 512, 1000, rng.randint(1, 2048)])
        p = {
            "variant": variant,
            "seq_len": seq_len,
            "step_tokens": seq_len * sequences,
            "block": 2 ** rng.randint(1, 11),  # every divisor of gcd(4096, 14336) = 2048
            "hybrid_attention_fraction": rng.choice(fractions + [rng.random()]),
            "pixels": 10 ** rng.uniform(3, 9),
            "values_per_pixel": rng.choice([1, 0.5, 2, 10 ** rng.uniform(-1, 1)]),
            "frame_rate": 10 ** rng.uniform(0, 6),
            "gpus": rng.choice([1, 8, 64, 1024, rng.randint(1, 100_000)]),
            "gpu_flops": 10 ** rng.uniform(12, 16),
            "mask_overlap": rng.choice(MASK_OVERLAPS),
        }
        if rng.random() < 0.6:  # the time model's rates
            p.update(gpu_bandwidth=10 ** rng.uniform(11, 13.5), gpu_vector_flops=10 ** rng.uniform(12, 15.5),
                     link_rate=rng.choice([63e9, 10 ** rng.uniform(7, 12)]))
        if rng.random() < 0.25:
            p.update(gpu_bytes_per_value=rng.choice([2, 4, 8, 2.5]), link_bytes_per_value=rng.choice([1, 2, 0.5]))
        if rng.random() < 0.25:  # an input plane and detector of their own, or an intensity readout
            p.update(input_rate=10 ** rng.uniform(5, 12), readout=rng.choice(list(ledger.engine.READOUTS)))
        if i % 3 == 0:  # the switches of issue 8 now and then
            p.update(recompute=rng.choice(["none", "full"]), mask_spectrum=rng.choice(["one-sided", "two-sided"]),
                     optical_speedup=rng.choice([1, 2.5, 10, 1000, 10 ** rng.uniform(-1, 6), math.inf]),
                     fft_length=rng.choice(["2S", "2S-1"]),
                     attention_kernel=rng.choice(ledger.ATTENTION_KERNELS),
                     attention_tile=rng.choice([1, 64, 128, 100, 4096]))
        elif rng.random() < 0.3:
            p["optical_speedup"] = rng.choice([0.5, 3, 10 ** rng.uniform(-1, 6)])
        branch = rng.random()
        mode = MODES[i % len(MODES)]  # every mode, at every variant over the points
        if branch < 0.3:  # a modulator mode with its own figures (no override)
            del p["frame_rate"], p["values_per_pixel"]
            p["modulator"] = mode
        elif branch < 0.55:  # a mode with an override, or the rows layout
            p["modulator"] = mode
            if rng.random() < 0.5:
                del p["values_per_pixel"]
            p.update(layout="rows", pixels=10 ** rng.uniform(6, 9), row_pixels=rng.choice([512, 1920, 4096, 7680]))
        if i % 5 == 0:  # other cost conventions now and then
            p.update(fft_constant=rng.choice([2.5, 5.0, rng.uniform(1, 6)]),
                     complex_mul_flops=rng.choice([6.0, 4.0, 8.0]),
                     complex_add_flops=rng.choice([2.0, 1.0, 0.0]),
                     flops_per_mac=rng.choice([2.0, 1.0, 1.5]),
                     causal_attention=rng.choice([False, True]))
        elif i % 5 == 3:  # one convention alone
            p.update(rng.choice(CONVENTIONS))
        points.append(p)
    # the book's own rows, exactly, and each with every switch thrown
    for variant in ledger.VARIANTS:
        for seq_len in (2048, 4096, 8192, 32768):
            points.append({"variant": variant, "seq_len": seq_len})
            points.append({"variant": variant, "seq_len": seq_len, "recompute": "full",
                           "mask_spectrum": "two-sided", "optical_speedup": 10, "fft_length": "2S-1"})
            for name in ledger.engine.MODULATORS:
                points.append({"variant": variant, "seq_len": seq_len, "modulator": name})
                points.append({"variant": variant, "seq_len": seq_len, "modulator": name, "layout": "rows",
                               "mask_overlap": "overlapped"})
    for variant in ledger.VARIANTS:  # engines sharing the streaming: one per GPU, a few
        for engines in (64.0, 3.0):
            points.append({"variant": variant, "seq_len": 4096, "engines": engines, "mask_overlap": "overlapped"})
    for block in (2, 16, 64, 256):  # the circulant LM head: blocks that divide the vocabulary (128,256 = 2^8 x 501)
        for seq_len in (2048, 8192):
            points.append({"variant": "hyena2_circulant", "seq_len": seq_len, "block": block, "lm_head": "circulant"})
    points.append({"variant": "hyena2", "seq_len": 4096, "lm_head": "circulant"})  # no effect outside the circulant model
    return points


BAD = [
    {"variant": "mamba"},
    {"lm_head": "tied"},
    {"engines": 0},
    {"variant": "hyena2_circulant", "block": 512, "lm_head": "circulant"},  # 512 does not divide 128,256
    {"seq_len": 0},
    {"seq_len": -4096},
    {"seq_len": 4096.5},
    {"seq_len": 3000},  # does not divide 1,048,576
    {"seq_len": 4096, "step_tokens": 6144},
    {"step_tokens": 0},
    {"variant": "hyena2_circulant", "block": 3},
    {"variant": "hyena2_circulant", "block": 1},
    {"variant": "hyena2_circulant", "block": 4096},  # does not divide 14,336
    {"variant": "hyena2_circulant", "block": 7},
    {"hybrid_attention_fraction": 1.5},
    {"hybrid_attention_fraction": -0.1},
    {"hybrid_attention_fraction": float("nan")},
    {"pixels": 0},
    {"values_per_pixel": -1},
    {"frame_rate": float("inf")},
    {"gpus": 0},
    {"gpu_flops": float("nan")},
    {"fft_constant": 0},
    {"seq_len": "4096"},
    {"gpus": "64"},
    {"unknown_knob": 1},
    {"recompute": "partial"},
    {"recompute": True},
    {"mask_spectrum": "both"},
    {"fft_length": "4S"},
    {"optical_speedup": 0},
    {"optical_speedup": -2},
    {"optical_speedup": float("nan")},
    {"optical_speedup": float("-inf")},
    {"optical_speedup": "10"},
    {"attention_kernel": "sparse"},
    {"attention_tile": 0},
    {"attention_tile": 64.5},
    {"modulator": "dmd-grey"},
    {"modulator": "slm"},
    {"modulator": None},
    {"layout": "grid"},
    {"readout": "camera"},
    {"row_pixels": 0},
    {"modulator": "dmd-superpixel", "layout": "rows", "row_pixels": 2},
    {"frame_rate": 0},
    {"values_per_pixel": float("nan")},
    {"mask_overlap": "both"},
    {"mask_overlap": None},
    {"mask_overlap": True},
    {"link_rate": 0},
    {"link_rate": -63},
    {"link_rate": float("inf")},
    {"gpu_bandwidth": float("nan")},
    {"gpu_bandwidth": "3.35e12"},
    {"gpu_vector_flops": 0},
    {"gpu_vector_flops": float("-inf")},
    {"gpu_bytes_per_value": 0},
    {"gpu_bytes_per_value": True},
    {"link_bytes_per_value": float("nan")},
    {"input_rate": 0},
    {"input_rate": float("nan")},
    {"complex_add_flops": -1},
    {"complex_mul_flops": 0},
    {"flops_per_mac": float("nan")},
    {"causal_attention": "yes"},
    {"modulator": "dmd-lee-dlpc910", "layout": "rows", "row_pixels": 3},
    {"layout": "rows", "pixels": 1000, "row_pixels": 1920},
]


def close(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def compare(expected, got, where: str) -> list[str]:
    """Every leaf of expected (dicts, numbers, strings) against got; returns the mismatches."""
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return [f"{where}: expected a dict, got {got!r}"]
        out = []
        for key, value in expected.items():
            if key not in got:
                out.append(f"{where}.{key}: missing in JS")
            else:
                out += compare(value, got[key], f"{where}.{key}")
        return out
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            return [f"{where}: Python {expected!r} != JS {got!r}"]
        return [m for k, (e, g) in enumerate(zip(expected, got)) for m in compare(e, g, f"{where}[{k}]")]
    if isinstance(expected, str):
        return [] if expected == got else [f"{where}: {expected!r} != {got!r}"]
    if isinstance(expected, (int, float)):
        if not isinstance(got, (int, float)) or not close(float(expected), float(got)):
            return [f"{where}: Python {expected!r} != JS {got!r}"]
        return []
    return [f"{where}: unexpected type {type(expected)}"]


def time_fields(row: dict) -> dict:
    """The row's seconds and what is derived from them (break-even rates only where the engine takes work)."""
    return {k: row[k] for k in TIME_FIELDS if k in row}


def python_row(p: dict) -> dict:
    row = ledger.step_row(**p).to_json()
    items = ledger.step_items(make_settings(**p))
    row["flops_by_phase"] = ledger.flops_by_phase_and_class(items)
    budget = ledger.mask_budget(items, make_settings(**p).device)
    row["weight_mask_values"] = budget.weight_values
    row["data_mask_values"] = budget.data_values
    return row


def test_js_matches_python_on_random_points():
    points = random_points(N_POINTS)
    assert len(points) >= 500
    got = run_js(points, [])["rows"]
    assert len(got) == len(points)
    seen_variants, mismatches = set(), []
    for p, js in zip(points, got):
        expected = python_row(p)
        seen_variants.add(expected["variant"])
        mismatches += compare(expected, js, json.dumps(p))
        # frame counts are whole numbers and must agree exactly
        assert js["weight_mask_frames"] == expected["weight_mask_frames"], p
        assert js["data_mask_frames"] == expected["data_mask_frames"], p
        assert ("six_n_ratio" in js) == ("six_n_ratio" in expected), p
        for key in BREAK_EVEN:  # absent exactly when the engine takes no work
            assert (key in js) == (key in expected), (key, p)
    assert seen_variants == set(ledger.VARIANTS)
    # the points reach what they are meant to: every mode, both overlaps, every convention, the time fields
    assert {p.get("modulator", "ideal") for p in points} == set(MODULATORS)
    assert {p["mask_overlap"] for p in points if "mask_overlap" in p} == set(MASK_OVERLAPS)
    for field in ("flops_per_mac", "fft_constant", "complex_mul_flops", "causal_attention", "link_rate",
                  "gpu_bandwidth", "gpu_vector_flops", "optical_speedup"):
        assert len({p[field] for p in points if field in p}) > 1, field
    slower = sum(1 for js in got if js["net_speedup"] < 1)
    assert 0 < slower < len(got) and any(js["net_speedup"] > 1 for js in got)
    assert not mismatches, f"{len(mismatches)} mismatches, first: " + "\n".join(mismatches[:10])


def test_js_switch_rows_are_the_book_rows():
    """Full recompute, two-sided masks and a finite speed-up, at the circulant 4,096 row."""
    base = {"variant": "hyena2_circulant", "seq_len": 4096}
    rows = run_js([{**base, "recompute": "full"}, {**base, "mask_spectrum": "two-sided"},
                   {**base, "optical_speedup": 10}], [])["rows"]
    assert f"{100 * rows[0]['step_share']:.2f}" == "16.10" and rows[0]["recompute_flops"] > 0
    assert [f"{rows[1][k]:.2f}" for k in ("weight_mask_s", "data_mask_s")] == ["2.11", "766.51"]
    assert f"{rows[2]['amdahl']:.3f}x" == "1.123x"
    assert rows[0]["matrix_params"] == ledger.step_row(**base).matrix_params == 555_745_280


def test_js_default_row_is_the_book_row():
    row = run_js([{"variant": "hyena2_circulant", "seq_len": 4096}], [])["rows"][0]
    shown = [f"{100 * row[k]:.2f}" for k in ("forward_share", "backward_share", "step_share",
                                             "static_share", "data_part")]
    assert shown == ["14.18", "11.16", "12.19", "9.66", "20.73"]
    assert f"{row['amdahl']:.3f}x" == "1.139x" and f"{row['amdahl_static']:.3f}x" == "1.107x"


def test_js_refuses_what_python_refuses():
    results = run_js([], BAD)["bad"]
    for p, js in zip(BAD, results):
        with pytest.raises(ledger.LedgerError) as err:
            ledger.step_row(**p)
        assert js["refused"], f"JS accepted {p}, Python refused it: {err.value}"
        message = js["message"]
        # one line, naming the value, never a JavaScript spelling of nothing or of a non-number
        assert "\n" not in message and "NaN" not in message and "undefined" not in message, message
        named = next(iter(p)) if len(p) == 1 else None
        if named is not None:
            assert js["param"] == named, (p, js)
            assert str(err.value).startswith(f"{named} ") or named in str(err.value), (p, str(err.value))
            if named != "unknown_knob":  # (the JavaScript lists only the settings it has)
                assert message == str(err.value), (p, message, str(err.value))


def test_js_time_fields_do_not_move_under_any_counting_convention():
    """Every time field at every convention equals the default-convention row's (the Python's and the JS's):
    the time model divides work at the reference prices, while the convention moves the counted FLOPs."""
    bases = [{"variant": v, "seq_len": s, **extra}
             for v in ledger.VARIANTS for s in (2048, 8192)
             for extra in ({}, {"recompute": "full", "attention_kernel": "dense", "mask_overlap": "overlapped"},
                           {"attention_kernel": "flash", "optical_speedup": 3.0, "modulator": "dmd-lee-dlpc410"})]
    points = [dict(b) for b in bases] + [{**b, **c} for c in CONVENTIONS for b in bases]
    rows = run_js(points, [])["rows"]
    default_js, default_py = rows[:len(bases)], [ledger.step_row(**b).to_json() for b in bases]
    moved = dict.fromkeys(range(len(CONVENTIONS)), False)
    for k, (p, js) in enumerate(zip(points[len(bases):], rows[len(bases):])):
        c, b = divmod(k, len(bases))
        base_js, base_py = time_fields(default_js[b]), time_fields(default_py[b])
        assert set(time_fields(js)) == set(base_py), p
        mismatches = compare(base_py, time_fields(js), json.dumps(p)) + compare(base_js, time_fields(js), json.dumps(p))
        assert not mismatches, mismatches[:5]
        # the engine's parts too, which no StepRow field carries alone
        assert not compare(default_js[b]["engine_parts"], js["engine_parts"], json.dumps(p))
        moved[c] |= not close(js["step_flops"], default_js[b]["step_flops"])
    assert all(moved.values()), f"a convention moved no count: {moved}"  # each one reached the count


def test_js_tables_are_the_python_tables():
    """The modulator modes (rates and cells), the defaults and the kernel kinds the JavaScript carries."""
    constants = run_js([], [])["constants"]
    js_modes = constants["MODULATORS"]
    assert list(js_modes) == list(MODULATORS)
    for name, mode in MODULATORS.items():
        js = js_modes[name]
        assert (js["frame_rate_hz"], tuple(js["cell"])) == (mode.frame_rate_hz, mode.cell), name
        assert (js["pre_stored_hz"], js["pre_stored_patterns"]) == (mode.pre_stored_hz, mode.pre_stored_patterns)
    defaults = constants["DEFAULTS"]
    python = {**{k: getattr(Engine(), k) for k in Engine.__dataclass_fields__},
              **{k: getattr(Costs(), k) for k in Costs.__dataclass_fields__},
              **{k: getattr(Settings(), k) for k in Settings.__dataclass_fields__
                 if k not in ("shape", "costs", "device", "micro_batches", "filter_build", "documents")}}
    assert {k: defaults.get(k, "missing") for k in python} == python
    assert constants["MASK_OVERLAPS"] == list(MASK_OVERLAPS)
    assert constants["READOUTS"] == ledger.engine.READOUTS
    assert constants["REFERENCE_COSTS"] == {k: getattr(ledger.costs.REFERENCE, k) for k in Costs.__dataclass_fields__}
    assert constants["KERNELS"] == list(ledger.timing.KERNELS)
    assert constants["TENSOR_KERNELS"] == list(ledger.step_time.TENSOR_KERNELS)


def _options(select_id: str) -> list[str]:
    html = PAGE.read_text()
    start = html.index(f'<select id="{select_id}"')
    block = html[start:html.index("</select>", start)]
    return re.findall(r'<option value="([^"]+)"', block)


def test_page_offers_every_mode_and_overlap():
    """The explorer page's selects list every modulator mode and both mask overlaps, in the ledger's order."""
    assert _options("tx-modulator") == list(MODULATORS)
    assert _options("tx-mask_overlap") == list(MASK_OVERLAPS)
