"""The JavaScript explorer in a real browser, on the built book.

Serves the built HTML (default _build/html; set TX_BOOK_HTML to use another build) on 127.0.0.1,
drives /usr/bin/chromium with Playwright, and checks the default numbers, moved controls against
the Python ledger (the time model's all-digital step, hybrid step and net speed-up among them, under
both mask overlaps and every modulator mode), the refusal of bad input, and that the page logs no error. It also
measures the median time from a control change to the redrawn page over 50 changes (printed with
`pytest -s` and written to _build/explorer-benchmark.json; a figure, not an assertion) and saves a
screenshot to _build/screenshot-explorer.png (and to docs/screenshot-explorer.png when that is
missing or TX_UPDATE_SCREENSHOT=1).
"""
from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

import ledger
import ledger.engine
from ledger.explore import format_metric

from book_pages import serve_directory
from chromium import ARGS, CHROMIUM

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK_JSON = ROOT / "_build" / "explorer-benchmark.json"
SCREENSHOT = ROOT / "docs" / "screenshot-explorer.png"
CARDS = ("forward_share", "backward_share", "step_share", "static_share", "data_part", "amdahl",
         "amdahl_static", "weight_mask_s", "data_mask_s", "digital_step_s", "all_digital_step_s", "hybrid_step_s",
         "net_speedup")
TIME_CARDS = ("all_digital_step_s", "hybrid_step_s", "net_speedup")
DEFAULT = {"variant": "hyena2_circulant", "seq_len": 4096, "step_tokens": 1_048_576, "block": 256}
BOOK_DEFAULT_TEXT = {"forward_share": "14.18%", "backward_share": "11.16%", "step_share": "12.19%",
                     "static_share": "9.66%", "data_part": "20.73%", "amdahl": "1.139x",
                     "amdahl_static": "1.107x"}
# Messages the book's theme logs on every page, explorer or not (sphinx-thebe declares its
# configuration twice; pydata-sphinx-theme warns about an unset colour mode). They are measured on
# a page without the explorer and subtracted; anything else fails the test.
BASELINE_PAGE = "genindex.html"


@pytest.fixture(scope="module")
def book_html() -> Path:
    html = Path(os.environ.get("TX_BOOK_HTML", ROOT / "_build" / "html"))
    if not (html / "book" / "explorer.html").exists():
        if "TX_BOOK_HTML" in os.environ:
            pytest.fail(f"TX_BOOK_HTML={html} holds no book/explorer.html")
        done = subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", str(ROOT)],
                              cwd=ROOT, capture_output=True, text=True, check=False)
        assert (html / "book" / "explorer.html").exists(), (
            "could not build the book for the browser test:\n" + done.stdout[-3000:] + done.stderr[-3000:])
    return html


@pytest.fixture(scope="module")
def server(book_html):
    with serve_directory(book_html) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail("The browser test needs Chromium at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def open_page(browser, url):
    """A page at `url` that records every console error and page error."""
    page = browser.new_page(viewport={"width": 1360, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.goto(url)
    return page, errors


def shown(page) -> dict[str, str]:
    return page.eval_on_selector_all(
        ".tx-card-value[data-metric]", "els => Object.fromEntries(els.map(e => [e.dataset.metric, e.textContent]))")


def expected(**params) -> dict[str, str]:
    row = ledger.step_row(**params)
    return {key: format_metric(key, getattr(row, key)) for key in CARDS}


def check_numbers(page, params):
    assert shown(page) == expected(**params), params
    values = page.eval_on_selector_all(
        ".tx-card-value[data-metric]", "els => Object.fromEntries(els.map(e => [e.dataset.metric, +e.dataset.value]))")
    row = ledger.step_row(**params)
    for key in CARDS:
        assert values[key] == pytest.approx(getattr(row, key), rel=1e-12), key


def results_text(page) -> str:
    return page.inner_text(".tx-results")


def test_explorer_in_chromium(browser, server):
    # Another page of the book first: the theme itself must leave the console clean (book/_ext fixes
    # a duplicated thebe script and an unset theme mode that would each log an error).
    other, other_errors = open_page(browser, f"{server}/{BASELINE_PAGE}")
    other.wait_for_load_state("load")
    other.wait_for_timeout(300)
    assert not other_errors, f"errors on {BASELINE_PAGE}:\n" + "\n".join(other_errors)
    other.close()

    page, errors = open_page(browser, f"{server}/book/explorer.html")
    page.wait_for_selector("#tx-explorer[data-ready]")

    # Default state: the block-circulant row of the training-step table.
    assert {k: shown(page)[k] for k in BOOK_DEFAULT_TEXT} == BOOK_DEFAULT_TEXT
    check_numbers(page, DEFAULT)
    assert page.is_hidden("#tx-extrapolation")
    # the time model: the default hybrid step is slower than the all-digital one, and the card says so
    default_row = ledger.step_row(**DEFAULT)
    assert default_row.net_speedup < 1 and "slower" in shown(page)["net_speedup"]
    assert page.input_value("#tx-mask_overlap") == "serial"
    assert "(serial)" in page.inner_text("#tx-engine-note")
    page.wait_for_timeout(300)  # let the bar transitions settle
    # The committed screenshot is refreshed when missing or on request (TX_UPDATE_SCREENSHOT=1), so
    # a test run does not leave a changed binary in the working tree; every run writes _build's copy.
    shot = page.screenshot(path=str(ROOT / "_build" / "screenshot-explorer.png"), full_page=True)
    if not SCREENSHOT.exists() or os.environ.get("TX_UPDATE_SCREENSHOT") == "1":
        SCREENSHOT.write_bytes(shot)

    # Three controls moved, each checked against the Python ledger.
    params = dict(DEFAULT)
    page.select_option("#tx-variant", "hyena2")
    params["variant"] = "hyena2"
    check_numbers(page, params)
    page.fill("#tx-seq_len", "16,384")
    params["seq_len"] = 16384
    check_numbers(page, params)
    assert page.is_visible("#tx-extrapolation"), "lengths beyond 8,192 must be flagged"
    page.fill("#tx-step_tokens", "4194304")
    params["step_tokens"] = 4_194_304
    check_numbers(page, params)
    # the step-size slider (log2 steps) moves the text box and the numbers
    page.eval_on_selector("[data-slider-for=step_tokens]",
                          "el => { el.value = '22'; el.dispatchEvent(new Event('input', {bubbles: true})); }")
    assert page.input_value("#tx-step_tokens") == "4,194,304"
    check_numbers(page, params)
    page.eval_on_selector("[data-slider-for=step_tokens]",
                          "el => { el.value = '24'; el.dispatchEvent(new Event('input', {bubbles: true})); }")
    params["step_tokens"] = 2 ** 24
    check_numbers(page, params)
    page.select_option("#tx-variant", "hybrid")
    page.fill("#tx-hybrid_attention_fraction", "0.5")
    params.update(variant="hybrid", hybrid_attention_fraction=0.5)
    check_numbers(page, params)
    assert "16 of 32 layers" in page.inner_text("#tx-hybrid-layers")

    # The mask overlap: the engine takes the longer of streaming and rewrites instead of their sum; only the
    # hybrid step (and the net speed-up) moves.
    page.click("[data-action=reset]")
    params = dict(DEFAULT)
    check_numbers(page, params)
    serial = shown(page)
    page.select_option("#tx-mask_overlap", "overlapped")
    params["mask_overlap"] = "overlapped"
    check_numbers(page, params)
    overlapped_row = ledger.step_row(**params)
    assert overlapped_row.hybrid_step_s < default_row.hybrid_step_s
    assert shown(page)["hybrid_step_s"] != serial["hybrid_step_s"]
    assert {k: v for k, v in shown(page).items() if k not in ("hybrid_step_s", "net_speedup")} == \
        {k: v for k, v in serial.items() if k not in ("hybrid_step_s", "net_speedup")}
    assert "(overlapped)" in page.inner_text("#tx-engine-note")
    values = page.eval_on_selector_all("[data-metric]", "els => Object.fromEntries(els.map(e => [e.dataset.metric, "
                                       "e.dataset.value === '' ? null : +e.dataset.value]))")
    for key in ("time_share", "amdahl_time"):
        assert values[key] == pytest.approx(getattr(overlapped_row, key), rel=1e-12), key
    for part, rate in (("mask device", overlapped_row.break_even_mask_rate),
                       ("link", overlapped_row.break_even_link_rate)):
        assert part in page.inner_text("#tx-engine-note") and rate > 0
    page.select_option("#tx-variant", "transformer")  # no engine work: the hybrid step is the all-digital step
    params["variant"] = "transformer"
    check_numbers(page, params)
    assert shown(page)["net_speedup"] == "1.000x" and "takes no work" in page.inner_text("#tx-engine-note")
    page.select_option("#tx-mask_overlap", "serial")

    # The switches: recompute, the two-sided mask spectrum, a finite optical speed-up.
    page.click("[data-action=reset]")
    params = dict(DEFAULT)
    check_numbers(page, params)
    assert page.is_hidden("[data-phase=recompute]"), "no recompute bar unless recompute is full"
    plain_share = ledger.step_row(**params).step_share
    page.select_option("#tx-recompute", "full")
    params["recompute"] = "full"
    check_numbers(page, params)
    assert ledger.step_row(**params).step_share > plain_share
    assert page.is_visible("[data-phase=recompute]")
    recompute_width = page.eval_on_selector_all(
        "[data-phase=recompute] .tx-seg", "els => els.reduce((a, e) => a + parseFloat(e.style.width), 0)")
    assert recompute_width > 0
    page.select_option("#tx-mask_spectrum", "two-sided")
    params["mask_spectrum"] = "two-sided"
    check_numbers(page, params)
    page.select_option("#tx-fft_length", "2S-1")
    params["fft_length"] = "2S-1"
    check_numbers(page, params)
    page.fill("#tx-optical_speedup", "10")
    params["optical_speedup"] = 10.0
    check_numbers(page, params)
    page.eval_on_selector("[data-slider-for=optical_speedup]",
                          "el => { el.value = '2'; el.dispatchEvent(new Event('input', {bubbles: true})); }")
    assert page.input_value("#tx-optical_speedup") == "100"
    params["optical_speedup"] = 100.0
    check_numbers(page, params)
    page.eval_on_selector("[data-slider-for=optical_speedup]",
                          "el => { el.value = '7'; el.dispatchEvent(new Event('input', {bubbles: true})); }")
    assert page.input_value("#tx-optical_speedup") == "inf"
    del params["optical_speedup"]
    check_numbers(page, params)
    for text, words in (("0", "positive number"), ("-2", "positive number"), ("fast", "not a number")):
        page.fill("#tx-optical_speedup", text)
        alert = page.locator("[data-alert-for=optical_speedup]")
        assert alert.is_visible() and words in alert.inner_text(), (text, alert.inner_text())
        check_numbers(page, params)  # the last good state stays on show
    page.fill("#tx-optical_speedup", "inf")
    assert page.locator("[data-alert-for=optical_speedup]").is_hidden()
    matrix_params = page.get_attribute("[data-metric=matrix_params]", "data-value")
    assert int(matrix_params) == ledger.step_row(**params).matrix_params

    # The modulator mode sets the frame rate and the values per pixel together; an override is flagged.
    page.click("[data-action=reset]")
    params = dict(DEFAULT)
    assert page.eval_on_selector_all("#tx-modulator option", "els => els.map(e => e.value)") == list(ledger.MODULATORS)
    hybrid = set()
    for name, mode in ledger.MODULATORS.items():
        page.select_option("#tx-modulator", name)
        params["modulator"] = name
        check_numbers(page, params)  # the time cards too: the mode's rate moves the hybrid step
        hybrid.add(shown(page)["hybrid_step_s"])
        assert float(page.input_value("#tx-frame_rate").replace(",", "")) == mode.frame_rate_hz, name
        assert float(page.input_value("#tx-values_per_pixel")) == mode.values_per_pixel, name
        assert page.get_attribute("#tx-modulator-note", "data-cited") == "true", name
        assert page.inner_text("#tx-modulator-note").startswith(name + ": "), name
    assert len(hybrid) > 1, "the modulator modes must move the hybrid step"
    page.select_option("#tx-modulator", "dmd-superpixel")
    page.fill("#tx-frame_rate", "1031")
    params.update(modulator="dmd-superpixel", frame_rate=1031.0)
    check_numbers(page, params)
    assert not ledger.step_row(**params).cited
    assert page.get_attribute("#tx-modulator-note", "data-cited") == "false"
    assert "no longer the cited device" in page.inner_text("#tx-modulator-note")
    page.fill("#tx-values_per_pixel", "-1")
    alert = page.locator("[data-alert-for=values_per_pixel]")
    assert alert.is_visible() and alert.inner_text().count("\n") == 0, alert.inner_text()
    check_numbers(page, params)  # the last good state stays on show

    page.click("[data-action=reset]")
    check_numbers(page, DEFAULT)
    assert page.input_value("#tx-recompute") == "none" and page.input_value("#tx-optical_speedup") == "inf"
    assert page.input_value("#tx-mask_overlap") == "serial"
    assert page.input_value("#tx-modulator") == "ideal"
    params = {**DEFAULT, "variant": "hybrid", "hybrid_attention_fraction": 0.5, "seq_len": 16384,
              "step_tokens": 2 ** 24}
    for name in ("variant", "seq_len", "step_tokens", "hybrid_attention_fraction"):
        if name == "variant":
            page.select_option("#tx-variant", "hybrid")
        else:
            page.fill(f"#tx-{name}", str(params[name]))
    check_numbers(page, params)

    # The transformer: every bar digital.
    page.select_option("#tx-variant", "transformer")
    params["variant"] = "transformer"
    check_numbers(page, params)
    widths = page.eval_on_selector_all(
        "#tx-flop-bars .tx-bar-row:not([hidden]) .tx-seg",
        "els => els.map(e => [e.dataset.class, parseFloat(e.style.width)])")
    assert widths and all(w == 0 for cls, w in widths if cls != "digital")
    assert all(w > 0 for cls, w in widths if cls == "digital")

    # Bad input: refused at the control with a visible message, the last good numbers kept.
    page.select_option("#tx-variant", "hyena2_circulant")
    params["variant"] = "hyena2_circulant"
    check_numbers(page, params)
    good = shown(page)
    for control, text, words in (("seq_len", "abc", "not a number"),
                                 ("seq_len", "3000", "does not divide step_tokens"),
                                 ("seq_len", "65536", "from 2,048 to 32,768"),
                                 ("step_tokens", "-5", "from 2,048 to 67,108,864"),
                                 ("block", "3", "block = 3 does not divide"),
                                 ("gpu_flops", "1e400", "not a finite number"),
                                 ("frame_rate", "", "Enter a number")):
        page.fill(f"#tx-{control}", text)
        alert = page.locator(f"[data-alert-for={control}]")
        assert alert.get_attribute("role") == "alert"
        assert alert.is_visible(), (control, text)
        assert words in alert.inner_text(), (control, text, alert.inner_text())
        assert alert.inner_text().count("\n") == 0 and (not text or text in alert.inner_text()), alert.inner_text()
        assert page.get_attribute(f"#tx-{control}", "aria-invalid") == "true"
        assert shown(page) == good, (control, text)
        assert page.is_visible("#tx-stale")
        for bad in ("NaN", "Infinity", "undefined"):
            assert bad not in results_text(page)
        page.fill(f"#tx-{control}", str({"seq_len": 16384, "step_tokens": 2 ** 24, "block": 256,
                                         "gpu_flops": "400e12", "frame_rate": 1031}[control]))
        assert alert.is_hidden() and page.is_hidden("#tx-stale")
        assert shown(page) == good

    # Random typing: whatever is typed, the page shows the ledger's numbers for its last valid state.
    rng = random.Random(20261130)
    pool = {"seq_len": ["2048", "4096", "8192", "12288", "32768", "1000", "x", "4096.5", "2e3"],
            "step_tokens": ["1048576", "2,097,152", "524288", "49152", "12288", "0", "1e7"],
            "block": ["2", "64", "256", "2048", "7", "512", "-2"],
            "hybrid_attention_fraction": ["0", "0.5", "1", "0.33", "1.5", "."],
            "pixels": ["2e6", "1e9", "5e3", "1e10", "abc"],
            "gpus": ["1", "64", "1000", "2.5"],
            "gpu_flops": ["400e12", "1e15", "3.2e13", "1e-3"],
            "optical_speedup": ["inf", "10", "1", "0.5", "1e6", "0", "-1", "x"]}
    for _ in range(40):
        if rng.random() < 0.2:
            page.select_option("#tx-variant", rng.choice(ledger.VARIANTS))
        if rng.random() < 0.15:
            page.select_option("#tx-recompute", rng.choice(ledger.RECOMPUTE_MODES))
        if rng.random() < 0.15:
            page.select_option("#tx-mask_spectrum", rng.choice(ledger.MASK_SPECTRA))
        if rng.random() < 0.15:
            page.select_option("#tx-fft_length", rng.choice(ledger.FFT_LENGTHS))
        if rng.random() < 0.15:
            page.select_option("#tx-mask_overlap", rng.choice(ledger.engine.MASK_OVERLAPS))
        control = rng.choice(sorted(pool))
        page.fill(f"#tx-{control}", rng.choice(pool[control]))
        state = page.evaluate("() => window.TxExplorer.state")
        for key in ("seq_len", "step_tokens", "block", "gpus"):
            state[key] = int(state[key])
        assert shown(page) == expected(**state), state
        for bad in ("NaN", "Infinity", "undefined"):
            assert bad not in results_text(page)
    page.click("[data-action=reset]")
    check_numbers(page, DEFAULT)
    assert not page.locator(".tx-alert:visible").count()

    # Benchmark: median time from a control change to the redrawn page over 50 changes.
    page.click("[data-action=reset]")
    check_numbers(page, DEFAULT)
    timings = page.evaluate("""async () => {
        const root = document.getElementById("tx-explorer");
        const seq = document.getElementById("tx-seq_len");
        const step = document.querySelector("[data-slider-for=step_tokens]");
        const variant = document.getElementById("tx-variant");
        const variants = ["transformer", "hyena2", "hybrid", "hyena2_circulant"];
        const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
        const sync = [], painted = [], module = [];
        for (let i = 0; i < 50; i++) {
            const t0 = performance.now();
            if (i % 3 === 0) { variant.value = variants[i % 4]; variant.dispatchEvent(new Event("change", {bubbles: true})); }
            else if (i % 3 === 1) { seq.value = String(2048 << (i % 5)); seq.dispatchEvent(new Event("input", {bubbles: true})); }
            else { step.value = String(16 + (i % 8)); step.dispatchEvent(new Event("input", {bubbles: true})); }
            void root.offsetHeight;  // force style and layout of the redrawn page
            sync.push(performance.now() - t0);
            module.push(parseFloat(root.dataset.redrawMs));
            await frame();
            painted.push(performance.now() - t0);
        }
        return {sync, painted, module};
    }""")
    result = {
        "changes": len(timings["sync"]),
        "median_change_to_redrawn_ms": statistics.median(timings["sync"]),
        "median_change_to_next_frame_ms": statistics.median(timings["painted"]),
        "median_module_redraw_ms": statistics.median(timings["module"]),
        "max_change_to_redrawn_ms": max(timings["sync"]),
        "what": "change event dispatched -> ledger recomputed, numbers and bars updated, layout forced "
                "(median_change_to_redrawn_ms); the same until two animation frames later, i.e. painted "
                "(median_change_to_next_frame_ms); headless Chromium",
    }
    BENCHMARK_JSON.parent.mkdir(exist_ok=True)
    BENCHMARK_JSON.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nexplorer redraw over {result['changes']} changes: median "
          f"{result['median_change_to_redrawn_ms']:.2f} ms to redrawn (layout), "
          f"{result['median_change_to_next_frame_ms']:.2f} ms to the next painted frame; "
          f"written to {BENCHMARK_JSON}")

    page.wait_for_timeout(200)
    assert not errors, "errors on the explorer page:\n" + "\n".join(errors)
    page.close()


def test_explorer_script_is_inert_elsewhere(browser, server):
    """explorer.js on a page without #tx-explorer does nothing and logs nothing."""
    page, errors = open_page(browser, f"{server}/{BASELINE_PAGE}")
    page.wait_for_load_state("load")
    page.add_script_tag(url=f"{server}/_static/explorer.js")
    assert page.evaluate("() => typeof window.TxLedger.stepRow") == "function"
    assert page.evaluate("() => window.TxExplorer === undefined")
    before = set(errors)
    page.add_script_tag(url=f"{server}/_static/explorer.js")  # loading it twice is harmless too
    assert set(errors) == before
    page.close()
