"""The explorer's JavaScript ledger (book/_static/explorer.js) against the Python ledger.

The very file the book serves is run under Node on 600 random parameter points (every variant,
sequence length, block, step size, device figure, switch and a few cost conventions) and every output
is compared with ledger.step_row to a relative 1e-12; the bad inputs the Python refuses must be
refused by the JavaScript too, naming the same parameter.
"""
from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest

import ledger
import ledger.engine
from ledger.table import make_settings

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "js" / "parity.js"
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


def run_js(points: list[dict], bad: list[dict]) -> dict:
    job = {"points": points, "bad": [{k: _encode(v) for k, v in p.items()} for p in bad]}
    done = subprocess.run([_node(), str(SCRIPT)], input=json.dumps(job), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


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
        }
        if i % 3 == 0:  # the switches of issue 8 now and then
            p.update(recompute=rng.choice(["none", "full"]), mask_spectrum=rng.choice(["one-sided", "two-sided"]),
                     optical_speedup=rng.choice([1, 2.5, 10, 1000, 10 ** rng.uniform(-1, 6)]),
                     fft_length=rng.choice(["2S", "2S-1"]),
                     attention_kernel=rng.choice(ledger.ATTENTION_KERNELS),
                     attention_tile=rng.choice([1, 64, 128, 100, 4096]))
        if i % 4 == 1:  # a modulator mode with its own figures (no override) now and then
            del p["frame_rate"], p["values_per_pixel"]
            p["modulator"] = rng.choice(list(ledger.engine.MODULATORS))
        if i % 4 == 2:  # a mode with an override, or the rows layout
            p["modulator"] = rng.choice(list(ledger.engine.MODULATORS))
            if rng.random() < 0.5:
                del p["values_per_pixel"]
            p.update(layout="rows", pixels=10 ** rng.uniform(6, 9), row_pixels=rng.choice([512, 1920, 4096, 7680]))
        if i % 5 == 0:  # other cost conventions now and then
            p.update(fft_constant=rng.choice([2.5, 5.0, rng.uniform(1, 6)]),
                     complex_mul_flops=rng.choice([6.0, 4.0, 8.0]),
                     complex_add_flops=rng.choice([2.0, 1.0]),
                     flops_per_mac=rng.choice([2.0, 1.0]),
                     causal_attention=rng.choice([False, True]))
        points.append(p)
    # the book's own rows, exactly, and each with every switch thrown
    for variant in ledger.VARIANTS:
        for seq_len in (2048, 4096, 8192, 32768):
            points.append({"variant": variant, "seq_len": seq_len})
            points.append({"variant": variant, "seq_len": seq_len, "recompute": "full",
                           "mask_spectrum": "two-sided", "optical_speedup": 10, "fft_length": "2S-1"})
            for name in ledger.engine.MODULATORS:
                points.append({"variant": variant, "seq_len": seq_len, "modulator": name})
                points.append({"variant": variant, "seq_len": seq_len, "modulator": name, "layout": "rows"})
    return points


BAD = [
    {"variant": "mamba"},
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
    if isinstance(expected, str):
        return [] if expected == got else [f"{where}: {expected!r} != {got!r}"]
    if isinstance(expected, (int, float)):
        if not isinstance(got, (int, float)) or not close(float(expected), float(got)):
            return [f"{where}: Python {expected!r} != JS {got!r}"]
        return []
    return [f"{where}: unexpected type {type(expected)}"]


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
    assert seen_variants == set(ledger.VARIANTS)
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
        named = next(iter(p)) if len(p) == 1 else None
        if named is not None:
            assert js["param"] == named, (p, js)
            assert str(err.value).startswith(f"{named} ") or named in str(err.value), (p, str(err.value))
