/*
 * The training-step Amdahl explorer.
 *
 * Two parts in one dependency-free file:
 *   1. A counting module, a line-by-line port of the Python `ledger` package (ledger/layers.py,
 *      step.py, settings.py, engine.py, shares.py, masks.py, hardware.py, timing.py, boundary.py,
 *      step_time.py, table.py). tests/test_js_parity.py runs this very file under Node and checks
 *      every output against ledger.step_row to a relative 1e-12.
 *   2. The page wiring for book/explorer.md. It does nothing on a page without #tx-explorer,
 *      because the book may load every script in _static on every page.
 *
 * Conventions (the ledger's, see ledger/costs.py): a matmul (m x k)(k x n) costs 2mkn FLOPs,
 * a real FFT or inverse real FFT of length n costs 2.5 n log2 n, a complex multiply 6, a complex
 * add 2, and a real FFT of length n has n/2 + 1 bins. Softmax, norms, activations, residual adds
 * and the optimizer update are not counted (as in the 6N rule).
 */
(function (root) {
  "use strict";

  // ---------------------------------------------------------------------------------------------
  // 1. The counting module
  // ---------------------------------------------------------------------------------------------

  var VARIANTS = ["transformer", "hyena2", "hybrid", "hyena2_circulant"];
  var PHASES = ["forward", "dX", "dW"];
  // Forward work run again in the backward pass (recompute = "full"), and every phase in step order.
  var RECOMPUTE = "recompute";
  var ALL_PHASES = ["forward", RECOMPUTE, "dX", "dW"];
  var RECOMPUTE_MODES = ["none", "full"];
  var MASK_SPECTRA = ["one-sided", "two-sided"];
  // Long-convolution FFT length: 2S, or 2S-1, the shortest with no wrap-around in a causal product.
  var FFT_LENGTHS = ["2S", "2S-1"];
  var ATTENTION_KERNELS = ["dense", "flash", "flash-causal"];
  // The layers inside a block: what full recomputation runs again (not the embedding, not the LM head).
  var BLOCK_LAYERS = ["attention", "hyena", "mlp"];
  var CLASSES = ["transform", "weight_product", "data_product", "digital"];
  var OPTICAL_CLASSES = ["transform", "weight_product", "data_product"];
  // What an engine whose masks change only between optimizer steps could take.
  var STATIC_CLASSES = ["transform", "weight_product"];

  // Llama-3-8B, untied (ledger/shapes.py LLAMA3_8B).
  var LLAMA3_8B = {
    name: "Llama-3-8B", n_layers: 32, hidden: 4096, n_heads: 32, n_kv_heads: 8,
    intermediate: 14336, vocab: 128256, tied_embeddings: false
  };
  var TRAINED_CONTEXT = 8192; // Llama-3-8B's trained context; longer sequences are shape-only.

  // The engine's modulator modes (ledger/engine.py MODULATORS): the frame rate a mode sustains for patterns
  // streamed during the step (every per-step weight mask is), the device pixels one complex value takes after
  // encoding, [along a row, across rows], and the faster rate quoted for patterns stored in the controller
  // before the step, with how many it holds (0: none quoted), which no per-step mask can use.
  // Citations, interfaces and the conditions each rate holds under: ledger/engine.py.
  // A DLP9500 under a DLPC410 with a global reset: 1,080 rows of 16 clocks at 400 MHz, plus 12.5 us of mirror
  // settling, in whole hertz (ledger/engine.py DLPC410_DLP9500_HZ).
  var DLPC410_DLP9500_HZ = Math.round(1 / (1080 * 16 / 400e6 + 12.5e-6));  // 17,953 Hz
  var MODULATORS = {
    "ideal": { frame_rate_hz: 1031, cell: [1, 1], pre_stored_hz: 0, pre_stored_patterns: 0,
               label: "idealised complex modulator (the book's)" },
    "dmd-superpixel": { frame_rate_hz: 2880, cell: [4, 4], pre_stored_hz: 9523, pre_stored_patterns: 480,
                        label: "micromirror device (DLPC900), 4 x 4 superpixel, patterns streamed over video" },
    "dmd-lee": { frame_rate_hz: 2880, cell: [4, 1], pre_stored_hz: 9523, pre_stored_patterns: 480,
                 label: "micromirror device (DLPC900), Lee binary hologram, patterns streamed over video" },
    "dmd-superpixel-dlpc410": { frame_rate_hz: DLPC410_DLP9500_HZ, cell: [4, 4], pre_stored_hz: 0, pre_stored_patterns: 0,
                                label: "micromirror device built for streaming (DLPC410, DLP9500), 4 x 4 superpixel" },
    "dmd-lee-dlpc410": { frame_rate_hz: DLPC410_DLP9500_HZ, cell: [4, 1], pre_stored_hz: 0, pre_stored_patterns: 0,
                         label: "micromirror device built for streaming (DLPC410, DLP9500), Lee binary hologram" },
    "dmd-lee-dlpc910": { frame_rate_hz: 14989, cell: [4, 1], pre_stored_hz: 0, pre_stored_patterns: 0,
                         label: "micromirror device built for streaming (DLPC910, DLP9000X), Lee binary hologram" },
    "lcos-double-phase": { frame_rate_hz: 60, cell: [2, 1], pre_stored_hz: 0, pre_stored_patterns: 0,
                           label: "phase-only LCoS at video rate, double-phase" },
    "lcos-fast-double-phase": { frame_rate_hz: 1000, cell: [2, 1], pre_stored_hz: 0, pre_stored_patterns: 0,
                                label: "phase-only nematic LCoS with overdrive (an upper bound), double-phase" }
  };
  var MODULATOR_NAMES = Object.keys(MODULATORS);
  var REFUSED_MODULATORS = {
    "dmd-grey": "an 8-bit grey level on a micromirror device is a time average of binary frames, an intensity " +
                "seen by a slow detector, not a coherent complex amplitude: it cannot be a complex mask"
  };
  var LAYOUTS = ["packed", "rows"];
  var READOUTS = { interferometric: 2, intensity: 1 };
  // Whether the engine waits for its mask rewrites ("serial") or writes the next masks while the current ones
  // serve ("overlapped": a double-buffered device); ledger/engine.py MASK_OVERLAPS.
  var MASK_OVERLAPS = ["serial", "overlapped"];
  // The prices device rates are quoted in (ledger/costs.py REFERENCE): every time divides work at these.
  var REFERENCE_COSTS = { fft_constant: 2.5, complex_mul_flops: 6, complex_add_flops: 2, flops_per_mac: 2,
                          causal_attention: false, attention_count: "sequence" };
  // Kernel kinds (ledger/timing.py KERNELS) and those that run on tensor cores (ledger/step_time.py).
  var KERNELS = ["matmul", "fft_long", "fft_block", "block_product", "elementwise"];
  var TENSOR_KERNELS = ["matmul", "block_product"];
  var KERNEL_RECOMPUTE_OP = "attention: Q K^T recomputed by the kernel's backward";

  // The ledger's defaults (ledger.Settings, Engine, Costs).
  var DEFAULTS = {
    variant: "hyena2",
    seq_len: 4096,
    step_tokens: 1048576,          // one optimizer step of 2**20 tokens
    block: 256,                    // block size b of the circulant matrices
    hybrid_attention_fraction: 0.25,
    // The engine: a 2-megapixel mask in the modulator mode "ideal" (1,031 frames/s, one complex value
    // per pixel); frame_rate and values_per_pixel override the mode's (null: the mode's). The digital
    // step runs on 64 GPUs at 400 TFLOP/s sustained each.
    modulator: "ideal", frame_rate: null, values_per_pixel: null, pixels: 2e6, layout: "packed",
    row_pixels: 1920, input_rate: null, readout: "interferometric", gpus: 64, gpu_flops: 400e12,
    // The time model (ledger/step_time.py): an H100 SXM's HBM bandwidth (bytes/s) and FP32 peak for the
    // FFTs and spectral work, fp32 values in GPU memory, a PCIe 5.0 x16 link (bytes/s each way) carrying
    // 8-bit numbers, and mask rewrites the engine waits for ("serial") or writes double-buffered ("overlapped").
    gpu_bandwidth: 3.35e12, gpu_vector_flops: 67e12, gpu_bytes_per_value: 4, link_rate: 63e9,
    link_bytes_per_value: 1, mask_overlap: "serial",
    // Engines sharing the step's streaming, each rewriting every mask (1: one for the cluster).
    engines: 1,
    // Cost conventions (ledger/costs.py Costs).
    fft_constant: 2.5, complex_mul_flops: 6, complex_add_flops: 2, flops_per_mac: 2,
    causal_attention: false,
    // The count's attention over packed documents (Costs.attention_count): with one document per sequence,
    // all the explorer runs, "sequence" and "documents" count the same, so it is not a control.
    attention_count: "sequence",
    // Switches (ledger/settings.py): activation recomputation, the spectrum a mask holds, and the
    // optical engine's speed-up on the work it takes (Infinity: that work becomes free).
    recompute: "none", mask_spectrum: "one-sided", optical_speedup: Infinity, fft_length: "2S",
    // The block-circulant model's LM head (ledger/settings.py LM_HEADS): dense, or block-circulant too.
    lm_head: "dense",
    // The attention kernel the hardware runs (ledger/hardware.py): hardware FLOPs only.
    attention_kernel: "flash-causal", attention_tile: 128
  };
  // The page opens on the block-circulant row of the training-step table.
  // Its frame rate and values per pixel boxes start at the default mode's own figures.
  var PAGE_DEFAULTS = Object.assign({}, DEFAULTS, {
    variant: "hyena2_circulant", frame_rate: MODULATORS.ideal.frame_rate_hz, values_per_pixel: 1
  });
  var DEVICE_FIELDS = ["modulator", "frame_rate", "values_per_pixel", "pixels", "layout", "row_pixels",
                       "input_rate", "readout", "gpus", "gpu_flops", "gpu_bandwidth", "gpu_vector_flops",
                       "gpu_bytes_per_value", "link_rate", "link_bytes_per_value", "engines", "mask_overlap"];
  var COST_FIELDS = ["fft_constant", "complex_mul_flops", "complex_add_flops", "flops_per_mac",
                     "causal_attention"];
  var SETTINGS_FIELDS = ["variant", "seq_len", "step_tokens", "block", "hybrid_attention_fraction",
                         "recompute", "mask_spectrum", "optical_speedup", "fft_length",
                         "attention_kernel", "attention_tile", "lm_head"];
  var LM_HEADS = ["dense", "circulant"];

  /** The one error the module throws for bad input (Python: ledger.LedgerError). */
  function LedgerError(message, param) {
    var err = new Error(message);
    err.name = "LedgerError";
    err.param = param;
    return err;
  }

  /** A value as Python's repr writes it in the ledger's messages: 'text', None, True, nan, inf. */
  function repr(value) {
    if (typeof value === "string") return "'" + value + "'";
    if (value === null || value === undefined) return "None";
    if (value === true) return "True";
    if (value === false) return "False";
    if (typeof value === "number" && isNaN(value)) return "nan";
    if (value === Infinity) return "inf";
    if (value === -Infinity) return "-inf";
    return String(value);
  }

  function isNumber(v) { return typeof v === "number"; }

  function checkPositiveInt(name, value) {
    if (!isNumber(value) || !Number.isInteger(value) || value <= 0) {
      throw LedgerError(name + " = " + repr(value) + ": must be a positive integer", name);
    }
  }

  function checkPositiveNumber(name, value) {
    if (!isNumber(value) || !isFinite(value) || value <= 0) {
      throw LedgerError(name + " = " + repr(value) + ": must be a positive finite number", name);
    }
  }

  /** A positive number, Infinity allowed (a free engine); else a LedgerError naming optical_speedup. */
  function checkSpeedup(value) {
    if (!isNumber(value) || isNaN(value) || value <= 0) {
      throw LedgerError("optical_speedup = " + repr(value) + ": must be a positive number (inf for a free engine)",
                        "optical_speedup");
    }
    return value;
  }

  /** The (name, rows M, columns K) of each block-circulant matrix; the LM head stays dense. */
  function circulantMatrices(shape) {
    var h = shape.hidden, i = shape.intermediate;
    return [["hyena in-projection", 3 * h, h], ["hyena out-projection", h, h],
            ["mlp gate", i, h], ["mlp up", i, h], ["mlp down", h, i]];
  }

  /** Refuse a block size that does not tile every circulant matrix exactly. */
  function checkBlock(block, shape) {
    shape = shape || LLAMA3_8B;
    if (!isNumber(block) || !Number.isInteger(block) || block < 2) {
      throw LedgerError("block = " + repr(block) + ": must be an integer of at least 2", "block");
    }
    circulantMatrices(shape).forEach(function (m) {
      if (m[1] % block || m[2] % block) {
        throw LedgerError("block = " + block + " does not divide the " + m[0] + " (" + m[1] + " x " +
                          m[2] + "): choose a common divisor of " + shape.hidden + " and " +
                          shape.intermediate, "block");
      }
    });
  }

  /** The engine's checks and figures in use (ledger/engine.py Engine.__post_init__ and properties). */
  function checkEngine(s) {
    var name = s.modulator;
    if (!(typeof name === "string" && MODULATORS.hasOwnProperty(name))) {
      if (typeof name === "string" && REFUSED_MODULATORS.hasOwnProperty(name)) {
        throw LedgerError("modulator = " + repr(name) + " is refused: " + REFUSED_MODULATORS[name], "modulator");
      }
      throw LedgerError("modulator = " + repr(name) + ": must be one of " + MODULATOR_NAMES.join(", "), "modulator");
    }
    ["frame_rate", "values_per_pixel", "input_rate"].forEach(function (k) {
      if (s[k] !== null && s[k] !== undefined) checkPositiveNumber(k, s[k]);
    });
    ["pixels", "gpus", "gpu_flops", "gpu_bandwidth", "gpu_vector_flops", "gpu_bytes_per_value", "link_rate",
     "link_bytes_per_value", "engines"].forEach(function (k) { checkPositiveNumber(k, s[k]); });
    if (MASK_OVERLAPS.indexOf(s.mask_overlap) < 0) {
      throw LedgerError("mask_overlap = " + repr(s.mask_overlap) + ": must be one of " + MASK_OVERLAPS.join(", "),
                        "mask_overlap");
    }
    if (LAYOUTS.indexOf(s.layout) < 0) {
      throw LedgerError("layout = " + repr(s.layout) + ": must be one of " + LAYOUTS.join(", "), "layout");
    }
    if (!READOUTS.hasOwnProperty(s.readout)) {
      throw LedgerError("readout = " + repr(s.readout) + ": must be one of " + Object.keys(READOUTS).join(", "),
                        "readout");
    }
    checkPositiveInt("row_pixels", s.row_pixels);
    var mode = MODULATORS[name];
    var overridden = s.values_per_pixel !== null && s.values_per_pixel !== undefined;
    s.frame_rate_hz = (s.frame_rate === null || s.frame_rate === undefined) ? mode.frame_rate_hz : s.frame_rate;
    s.complex_values_per_pixel = overridden ? s.values_per_pixel : 1 / (mode.cell[0] * mode.cell[1]);
    s.cited = s.frame_rate_hz === mode.frame_rate_hz && s.complex_values_per_pixel === 1 / (mode.cell[0] * mode.cell[1]);
    s.cell_height = overridden ? 1 : mode.cell[1];
    s.row_values = Math.floor(s.row_pixels * s.complex_values_per_pixel * s.cell_height + 1e-9);
    s.rows_per_frame = Math.floor(Math.floor(s.pixels / s.row_pixels + 1e-9) / s.cell_height);
    var hasInput = s.input_rate !== null && s.input_rate !== undefined;
    // Real numbers/s the input plane writes: one per encoded cell per frame, as the mode encodes a mask.
    s.io_rate = hasInput ? s.input_rate : s.pixels * s.complex_values_per_pixel * s.frame_rate_hz;
    // Samples/s the detector takes: one per pixel per frame.
    s.detector_rate = hasInput ? s.input_rate : s.pixels * s.frame_rate_hz;
    s.readout_samples = READOUTS[s.readout];
    if (s.layout === "rows") {
      if (s.row_pixels > s.pixels) {
        throw LedgerError("row_pixels = " + s.row_pixels + ": longer than the device's " + formatInt(s.pixels) +
                          " pixels", "row_pixels");
      }
      if (s.row_values < 1 || s.rows_per_frame < 1) {
        throw LedgerError("row_pixels = " + s.row_pixels + ": a row of " + repr(name) + " must hold at least " +
                          "one complex value and the device at least one row", "row_pixels");
      }
    }
  }

  /**
   * Settings from keyword overrides, validated in the Python order: device, costs, settings
   * (ledger/table.py make_settings, then the dataclasses' __post_init__).
   */
  function makeSettings(params) {
    params = params || {};
    var allowed = SETTINGS_FIELDS.concat(DEVICE_FIELDS, COST_FIELDS);
    Object.keys(params).forEach(function (k) {
      if (allowed.indexOf(k) < 0) {
        throw LedgerError("unknown setting " + repr(k) + ": allowed are " + allowed.join(", "), k);
      }
    });
    var s = {};
    allowed.forEach(function (k) { s[k] = (k in params) ? params[k] : DEFAULTS[k]; });
    checkEngine(s);
    ["fft_constant", "complex_mul_flops", "complex_add_flops", "flops_per_mac"].forEach(function (k) {
      // a complex add may cost 0: folded into a multiply-accumulate (complex_mul_flops = 8)
      if (k === "complex_add_flops") {
        if (!isNumber(s[k]) || !isFinite(s[k]) || !(s[k] >= 0)) {
          throw LedgerError(k + " = " + repr(s[k]) + ": must be a finite number of at least 0", k);
        }
      } else checkPositiveNumber(k, s[k]);
    });
    if (typeof s.causal_attention !== "boolean") {
      throw LedgerError("causal_attention = " + repr(s.causal_attention) + ": must be True or False",
                        "causal_attention");
    }
    if (RECOMPUTE_MODES.indexOf(s.recompute) < 0) {
      throw LedgerError("recompute = " + repr(s.recompute) + ": must be one of " + RECOMPUTE_MODES.join(", "),
                        "recompute");
    }
    if (MASK_SPECTRA.indexOf(s.mask_spectrum) < 0) {
      throw LedgerError("mask_spectrum = " + repr(s.mask_spectrum) + ": must be one of " +
                        MASK_SPECTRA.join(", "), "mask_spectrum");
    }
    checkSpeedup(s.optical_speedup);
    if (ATTENTION_KERNELS.indexOf(s.attention_kernel) < 0) {
      throw LedgerError("attention_kernel = " + repr(s.attention_kernel) + ": must be one of " +
                        ATTENTION_KERNELS.join(", "), "attention_kernel");
    }
    checkPositiveInt("attention_tile", s.attention_tile);
    if (FFT_LENGTHS.indexOf(s.fft_length) < 0) {
      throw LedgerError("fft_length = " + repr(s.fft_length) + ": must be one of " + FFT_LENGTHS.join(", "),
                        "fft_length");
    }
    if (VARIANTS.indexOf(s.variant) < 0) {
      throw LedgerError("variant = " + repr(s.variant) + ": must be one of " + VARIANTS.join(", "),
                        "variant");
    }
    checkPositiveInt("seq_len", s.seq_len);
    checkPositiveInt("step_tokens", s.step_tokens);
    if (s.step_tokens % s.seq_len) {
      throw LedgerError("seq_len = " + s.seq_len + " does not divide step_tokens = " + s.step_tokens +
                        ": a step must hold a whole number of sequences", "seq_len");
    }
    var frac = s.hybrid_attention_fraction;
    if (!isNumber(frac) || !(frac >= 0 && frac <= 1)) {
      throw LedgerError("hybrid_attention_fraction = " + repr(frac) + ": must be a number from 0 to 1",
                        "hybrid_attention_fraction");
    }
    if (s.variant === "hyena2_circulant") checkBlock(s.block, LLAMA3_8B);
    if (LM_HEADS.indexOf(s.lm_head) < 0) {
      throw LedgerError("lm_head = " + repr(s.lm_head) + ": must be one of " + LM_HEADS.join(", "), "lm_head");
    }
    if (s.lm_head === "circulant" && s.variant === "hyena2_circulant" && LLAMA3_8B.vocab % s.block) {
      throw LedgerError("lm_head = 'circulant': block = " + s.block + " does not divide the vocabulary (" +
                        LLAMA3_8B.vocab.toLocaleString("en-US") + "); choose a block that does", "lm_head");
    }

    s.shape = LLAMA3_8B;
    s.sequences = Math.floor(s.step_tokens / s.seq_len);  // sequences in one optimizer step
    // n = 2S (or 2S-1): zero padding keeps the causal product linear
    s.fft_len = 2 * s.seq_len - (s.fft_length === "2S-1" ? 1 : 0);
    var L = s.shape.n_layers;
    if (s.variant === "transformer") s.attention_layers = L;
    // The hybrid keeps attention in a share of its layers, rounded half up to whole layers.
    else if (s.variant === "hybrid") s.attention_layers = Math.floor(frac * L + 0.5);
    else s.attention_layers = 0;
    s.hyena_layers = L - s.attention_layers;
    return s;
  }

  // Prices of the primitive operations (ledger/costs.py).
  function matmul(s, m, k, n) { return s.flops_per_mac * m * k * n; }      // 2mkn
  function rfft(s, n) { return s.fft_constant * n * Math.log2(n); }          // 2.5 n log2 n
  function bins(n) { return Math.floor(n / 2) + 1; }                         // n//2 + 1
  function attentionFactor(s) { return s.causal_attention ? 0.5 : 1.0; }
  // Complex values one transform of length n puts on a mask: n/2 + 1 (one-sided) or n (two-sided).
  function maskBins(s, n) { return s.mask_spectrum === "two-sided" ? n : bins(n); }

  /**
   * One line item (ledger/layers.py LineItem). `moved`: real values it reads and writes in GPU memory over the
   * step (0 for the matrix products, taken as compute-bound); `work`: its FLOPs at the reference prices when
   * the count's conventions differ from them (null: `flops` is that work).
   */
  function item(op, layer, phase, cls, per, count, flops, maskValues, maskLen, moved) {
    return { op: op, layer: layer, phase: phase, cls: cls, per: per, count: count, flops: flops,
             mask_values: maskValues || 0, mask_len: maskLen || 0, moved: moved || 0, work: null };
  }

  /** The item's work at the prices device rates are quoted in (LineItem.reference_flops). */
  function referenceFlops(it) { return it.work === null ? it.flops : it.work; }

  /** A copy of the item with some fields replaced (dataclasses.replace). */
  function replaced(it, fields) { return Object.assign({}, it, fields); }

  // ---- One function per layer kind, mirroring ledger/layers.py ----

  /** A dense (rows x cols) weight applied to every token: y = Wx, dX = W^T g, dW = g x^T. */
  function denseMatrix(s, name, layer, rows, cols, nLayers) {
    var count = s.step_tokens * nLayers;
    var flops = count * matmul(s, rows, cols, 1);
    return [
      item(name + ": W x", layer, "forward", "digital", "token", count, flops),
      item(name + ": W^T g (dX)", layer, "dX", "digital", "token", count, flops),
      item(name + ": g x^T (dW)", layer, "dW", "digital", "token", count, flops)
    ];
  }

  /** QK^T and AV over all heads, 2*S^2*H each per sequence; backward is all input gradient. */
  function attentionScores(s, nLayers) {
    var h = s.shape.hidden, seq = s.seq_len;
    var count = s.sequences * nLayers;
    var one = count * attentionFactor(s) * matmul(s, seq, h, seq);
    return [
      item("attention: Q K^T", "attention", "forward", "digital", "sequence", count, one),
      item("attention: A V", "attention", "forward", "digital", "sequence", count, one),
      item("attention: dQ, dK from Q K^T", "attention", "dX", "digital", "sequence", count, 2 * one),
      item("attention: dA, dV from A V", "attention", "dX", "digital", "sequence", count, 2 * one)
    ];
  }

  /** The order-2 Hyena operator's digital elementwise work: a 3-tap short conv on 3H channels, two gates. */
  function hyenaMixing(s, nLayers) {
    var h = s.shape.hidden;
    var tokens = s.step_tokens * nLayers;
    var shortConv = tokens * 3 * h * 3 * s.flops_per_mac;  // 3 taps, one multiply-add each
    var gates = tokens * 2 * h;  // two elementwise gates, one multiply per channel per token
    // memory traffic: a short-conv output reads its input and writes one value (the taps stay in cache);
    // a gate reads two operands and writes one, its backward reads three and writes two
    return [
      item("short conv (3 taps, 3H channels)", "hyena", "forward", "digital", "token", tokens * 3 * h, shortConv,
           0, 0, 2 * tokens * 3 * h),
      item("short conv: input gradient", "hyena", "dX", "digital", "token", tokens * 3 * h, shortConv,
           0, 0, 2 * tokens * 3 * h),
      item("short conv: tap gradient", "hyena", "dW", "digital", "token", tokens * 3 * h, shortConv,
           0, 0, 2 * tokens * 3 * h),
      item("gates (2, elementwise)", "hyena", "forward", "digital", "token", tokens * 2 * h, gates,
           0, 0, 3 * tokens * 2 * h),
      item("gates: gradients of both operands", "hyena", "dX", "digital", "token", tokens * 2 * h, 2 * gates,
           0, 0, 5 * tokens * 2 * h)
    ];
  }

  /**
   * Two causal long convolutions per channel, by FFT of length n = 2S (H channels each).
   * Forward and dX multiply by the filter spectrum H or conj(H): weight masks, written once per
   * step. dW multiplies G by conj(U), two data spectra: a data-by-data mask per sequence.
   * The filter rFFT and the inverse rFFT of the accumulated dH run once per step.
   */
  function longConvolutions(s, nLayers) {
    var n = s.fft_len;
    var nb = bins(n);
    var mask = maskBins(s, n);  // complex values one transform puts on a mask
    var fft = rfft(s, n);
    var convs = 2 * s.shape.hidden * nLayers;  // per sequence
    var perSeq = s.sequences * convs;
    var product = nb * s.complex_mul_flops;
    // memory traffic: a transform reads its S samples (the padding is not stored) and writes 2 reals per bin, or
    // the reverse; a spectral product or accumulation reads two complex operands and writes one (6 reals a bin)
    var fftMoved = s.seq_len + 2 * nb;
    var binMoved = 6 * nb;
    return [
      item("long conv: rFFT of u", "hyena", "forward", "transform", "sequence", perSeq, perSeq * fft,
           0, 0, perSeq * fftMoved),
      item("long conv: H . U", "hyena", "forward", "weight_product", "sequence", perSeq, perSeq * product,
           convs * mask, mask, perSeq * binMoved),
      item("long conv: inverse rFFT to y", "hyena", "forward", "transform", "sequence", perSeq, perSeq * fft,
           0, 0, perSeq * fftMoved),
      item("long conv: rFFT of filter h", "hyena", "forward", "transform", "step", convs, convs * fft,
           0, 0, convs * fftMoved),
      item("long conv: rFFT of g", "hyena", "dX", "transform", "sequence", perSeq, perSeq * fft,
           0, 0, perSeq * fftMoved),
      item("long conv: G . conj(H)", "hyena", "dX", "weight_product", "sequence", perSeq, perSeq * product,
           convs * mask, mask, perSeq * binMoved),
      item("long conv: inverse rFFT to du", "hyena", "dX", "transform", "sequence", perSeq, perSeq * fft,
           0, 0, perSeq * fftMoved),
      item("long conv: G . conj(U)", "hyena", "dW", "data_product", "sequence", perSeq, perSeq * product,
           perSeq * mask, mask, perSeq * binMoved),
      item("long conv: accumulate dH over the step", "hyena", "dW", "digital", "sequence", perSeq * nb,
           perSeq * nb * s.complex_add_flops, 0, 0, perSeq * binMoved),
      item("long conv: inverse rFFT of dH", "hyena", "dW", "transform", "step", convs, convs * fft,
           0, 0, convs * fftMoved)
    ];
  }

  /**
   * A block-circulant (rows x cols) weight, b x b blocks each defined by one vector (CirCNN):
   * p = rows/b output blocks, q = cols/b input blocks, every block product b/2+1 complex multiplies.
   */
  function circulantMatrix(s, name, layer, rows, cols, nLayers) {
    var b = s.block;
    var p = Math.floor(rows / b), q = Math.floor(cols / b);
    var nb = bins(b);
    var mask = maskBins(s, b);  // complex values one block transform puts on a mask
    var fft = rfft(s, b);
    var product = nb * s.complex_mul_flops;
    var tokens = s.step_tokens * nLayers;
    var blocks = p * q;
    var add = s.complex_add_flops;
    // memory traffic of a block transform: b samples and 2 reals per bin; the block products and their sums
    // over blocks run as one batched complex matrix product per bin (ledger/timing.py), taken as compute-bound
    var fm = b + 2 * nb;
    return [
      item(name + ": rFFT of x blocks", layer, "forward", "transform", "token", tokens * q, tokens * q * fft,
           0, 0, tokens * q * fm),
      item(name + ": W_ij . X_j", layer, "forward", "weight_product", "token", tokens * blocks,
           tokens * blocks * product, nLayers * blocks * mask, mask),
      item(name + ": sum over input blocks", layer, "forward", "digital", "token", tokens * p * (q - 1) * nb,
           tokens * p * (q - 1) * nb * add),
      item(name + ": inverse rFFT to y blocks", layer, "forward", "transform", "token", tokens * p,
           tokens * p * fft, 0, 0, tokens * p * fm),
      item(name + ": rFFT of weight blocks", layer, "forward", "transform", "step", nLayers * blocks,
           nLayers * blocks * fft, 0, 0, nLayers * blocks * fm),
      item(name + ": rFFT of g blocks", layer, "dX", "transform", "token", tokens * p, tokens * p * fft,
           0, 0, tokens * p * fm),
      item(name + ": G_i . conj(W_ij)", layer, "dX", "weight_product", "token", tokens * blocks,
           tokens * blocks * product, nLayers * blocks * mask, mask),
      item(name + ": sum over output blocks", layer, "dX", "digital", "token", tokens * q * (p - 1) * nb,
           tokens * q * (p - 1) * nb * add),
      item(name + ": inverse rFFT to dx blocks", layer, "dX", "transform", "token", tokens * q,
           tokens * q * fft, 0, 0, tokens * q * fm),
      item(name + ": G_i . conj(X_j)", layer, "dW", "data_product", "token", tokens * blocks,
           tokens * blocks * product, tokens * q * mask, mask),
      item(name + ": accumulate dW over the step", layer, "dW", "digital", "token", tokens * blocks * nb,
           tokens * blocks * nb * add),
      item(name + ": inverse rFFT of dW blocks", layer, "dW", "transform", "step", nLayers * blocks,
           nLayers * blocks * fft, 0, 0, nLayers * blocks * fm)
    ];
  }

  /** The input embedding is a lookup: 0 FLOPs. */
  function embedding(s) {
    return [item("embedding lookup", "embedding", "forward", "digital", "token", s.step_tokens, 0.0)];
  }

  /**
   * Every weight matrix the variant's matrix products use, in the order a layer runs them, LM head
   * last (ledger/step.py weight_matrices): {name, layer, rows, cols, nLayers, circulant}.
   */
  function weightMatrices(s) {
    var shape = s.shape;
    var h = shape.hidden, kv = shape.n_kv_heads * (shape.hidden / shape.n_heads), inter = shape.intermediate;
    var nAttn = s.attention_layers, nHyena = s.hyena_layers, nAll = shape.n_layers;
    var out = [];
    function m(name, layer, rows, cols, nLayers, circulant) {
      out.push({ name: name, layer: layer, rows: rows, cols: cols, nLayers: nLayers, circulant: circulant });
    }
    if (nAttn) {
      [["attention q", h], ["attention k", kv], ["attention v", kv], ["attention o", h]].forEach(function (a) {
        m(a[0], "attention", a[1], h, nAttn, false);
      });
    }
    if (s.variant === "hyena2_circulant") {
      var mats = circulantMatrices(shape);
      m(mats[0][0], "hyena", mats[0][1], mats[0][2], nHyena, true);
      m(mats[1][0], "hyena", mats[1][1], mats[1][2], nHyena, true);
      mats.slice(2).forEach(function (c) { m(c[0], "mlp", c[1], c[2], nAll, true); });
    } else {
      if (nHyena) {
        m("hyena in-projection", "hyena", 3 * h, h, nHyena, false);
        m("hyena out-projection", "hyena", h, h, nHyena, false);
      }
      [["mlp gate", inter, h], ["mlp up", inter, h], ["mlp down", h, inter]].forEach(function (c) {
        m(c[0], "mlp", c[1], c[2], nAll, false);
      });
    }
    m("lm head", "lm_head", shape.vocab, h, 1, s.variant === "hyena2_circulant" && s.lm_head === "circulant");
    return out;
  }

  /** Weights the variant's matrix products use: rows*cols per layer, 1/b of that if block-circulant. */
  function matrixParams(s) {
    var total = 0;
    weightMatrices(s).forEach(function (m) {
      total += m.nLayers * (m.circulant ? Math.floor(m.rows * m.cols / s.block) : m.rows * m.cols);
    });
    return total;
  }

  function matrixItems(s, m) {
    return (m.circulant ? circulantMatrix : denseMatrix)(s, m.name, m.layer, m.rows, m.cols, m.nLayers);
  }

  /**
   * Full recomputation: every block's per-token and per-sequence forward item again, in phase
   * "recompute", class and memory traffic kept, no mask values (the backward visit's mask serves it).
   */
  function recomputed(items) {
    var out = [];
    items.forEach(function (it) {
      if (it.phase === "forward" && BLOCK_LAYERS.indexOf(it.layer) >= 0 && it.per !== "step") {
        out.push(replaced(it, { phase: RECOMPUTE, mask_values: 0 }));
      }
    });
    return out;
  }

  /** True when the settings count at the reference prices (ledger/costs.py REFERENCE). */
  function atReferenceCosts(s) {
    return Object.keys(REFERENCE_COSTS).every(function (k) { return s[k] === REFERENCE_COSTS[k]; });
  }

  /**
   * Every operation of one optimizer step of s.variant (ledger/step.py step_items). Under counting
   * conventions other than the reference prices, each item also carries its work at those prices (`work`):
   * the items built again at the reference prices, item by item.
   */
  function stepItems(s) {
    var items = countedItems(s);
    if (!atReferenceCosts(s) || s.fft_length !== "2S") {
      // the FFTs of 2S-1 points run as a real code runs them, padded to 2S: the switch moves counts only
      var reference = countedItems(Object.assign({}, s, REFERENCE_COSTS,
                                                 { fft_length: "2S", fft_len: 2 * s.seq_len }));
      items = items.map(function (it, k) { return replaced(it, { work: reference[k].flops, moved: reference[k].moved }); });
    }
    return items;
  }

  /** The step's items priced at the settings' conventions (stepItems adds the reference work). */
  function countedItems(s) {
    var items = embedding(s);
    function add(list) { Array.prototype.push.apply(items, list); }
    var mats = weightMatrices(s);
    mats.slice(0, -1).forEach(function (m) {
      add(matrixItems(s, m));
      if (m.name === "attention o") add(attentionScores(s, s.attention_layers));
      else if (m.name === "hyena in-projection") {
        add(hyenaMixing(s, s.hyena_layers));
        add(longConvolutions(s, s.hyena_layers));
      }
    });
    if (s.recompute === "full") add(recomputed(items));
    add(matrixItems(s, mats[mats.length - 1]));
    return items;
  }

  // ---- Group-bys (ledger/shares.py) ----

  function zeros() {
    var o = {};
    CLASSES.forEach(function (c) { o[c] = 0.0; });
    return o;
  }

  /** {phase: {class: FLOPs}} for forward, recompute, dX and dW, every class present. */
  function flopsByPhaseAndClass(items) {
    var table = {};
    ALL_PHASES.forEach(function (p) { table[p] = zeros(); });
    items.forEach(function (it) { table[it.phase][it.cls] += it.flops; });
    return table;
  }

  /** {forward|backward: {class: FLOPs}}; backward is the pass as it runs: recompute + dX + dW. */
  function flopsByPass(byPhase) {
    var backward = {};
    CLASSES.forEach(function (c) { backward[c] = byPhase[RECOMPUTE][c] + byPhase.dX[c] + byPhase.dW[c]; });
    return { forward: byPhase.forward, backward: backward };
  }

  function sumOf(byClass, classes) {
    var total = 0;
    classes.forEach(function (c) { total += byClass[c]; });
    return total;
  }

  /** part / whole, 0 for an empty whole (a fraction, not a percentage). */
  function share(part, whole) { return whole > 0 ? part / whole : 0.0; }

  /**
   * Amdahl's law: the step's speed-up if `fraction` of its work runs `speedup` times faster,
   * 1 / ((1 - fraction) + fraction / speedup); speedup Infinity (the default) gives 1 / (1 - fraction).
   */
  function amdahl(fraction, speedup) {
    var sp = checkSpeedup(speedup === undefined ? Infinity : speedup);
    var rest = (1.0 - fraction) + fraction / sp;
    return rest > 0 ? 1.0 / rest : Infinity;
  }

  // ---- Masks (ledger/masks.py) ----

  /**
   * Whole frames for `values` complex values (layout "packed": ceil(values / values per frame)) or
   * `rows` rows (layout "rows": ceil(rows / rows per frame)); ledger/engine.py Engine.frames.
   */
  function frames(values, rows, s) {
    if (s.layout === "rows") return rows > 0 ? Math.ceil(rows / s.rows_per_frame) : 0;
    return values > 0 ? Math.ceil(values / (s.pixels * s.complex_values_per_pixel)) : 0;
  }

  /** Rows the masks occupy, layout "rows": each spectrum from a fresh row, ceil(len / row values) rows. */
  function maskRows(items, s) {
    var total = 0;
    items.forEach(function (it) {
      if (it.mask_values > 0) total += (it.mask_values / it.mask_len) * Math.ceil(it.mask_len / s.row_values);
    });
    return total;
  }

  /** Weight masks (once per step, layer-major) and data-by-data masks (per sequence or token). */
  function maskBudget(items, s) {
    var weight = 0, data = 0;
    var wItems = items.filter(function (it) { return it.cls === "weight_product"; });
    var dItems = items.filter(function (it) { return it.cls === "data_product"; });
    wItems.forEach(function (it) { weight += it.mask_values; });
    dItems.forEach(function (it) { data += it.mask_values; });
    var wf = frames(weight, maskRows(wItems, s), s), df = frames(data, maskRows(dItems, s), s);
    return { weight_values: weight, data_values: data, weight_frames: wf, data_frames: df,
             weight_mask_s: wf / s.frame_rate_hz, data_mask_s: df / s.frame_rate_hz };
  }

  // ---- Hardware FLOPs (ledger/hardware.py) ----

  /** Score entries a causal kernel with square tiles computes per head and sequence (diagonal tiles whole). */
  function causalScoreEntries(seq, tile) {
    var total = 0;
    for (var start = 0; start < seq; start += tile) {
      var end = Math.min(start + tile, seq);
      total += (end - start) * end;
    }
    return total;
  }

  /** Fraction of the S x S score matrix the kernel computes: 1 for dense and flash, about 1/2 for flash-causal. */
  function scoreFraction(kernel, seq, tile) {
    return kernel === "flash-causal" ? causalScoreEntries(seq, tile) / (seq * seq) : 1.0;
  }

  /**
   * The attention core (QK^T and AV) as the kernel s.attention_kernel executes it in one step
   * (ledger/hardware.py attention_core_items): forward QK^T and AV, both again if recompute is full, QK^T
   * once more inside a flash backward, dX two products each. The kernel does not follow causal_attention (a
   * counting convention); under another flops_per_mac each item carries its work at the reference price.
   */
  function attentionCoreItems(s) {
    var layers = s.attention_layers;
    if (!layers) return [];
    var h = s.shape.hidden, seq = s.seq_len;
    var count = s.sequences * layers;
    var one = count * scoreFraction(s.attention_kernel, seq, s.attention_tile) * matmul(s, seq, h, seq);
    var items = [
      item("attention: Q K^T", "attention", "forward", "digital", "sequence", count, one),
      item("attention: A V", "attention", "forward", "digital", "sequence", count, one)
    ];
    if (s.recompute === "full") {
      items = items.concat(items.map(function (it) { return replaced(it, { phase: RECOMPUTE }); }));
    }
    if (s.attention_kernel !== "dense") {
      items.push(item(KERNEL_RECOMPUTE_OP, "attention", RECOMPUTE, "digital", "sequence", count, one));
    }
    items.push(item("attention: dQ, dK from Q K^T", "attention", "dX", "digital", "sequence", count, 2 * one));
    items.push(item("attention: dA, dV from A V", "attention", "dX", "digital", "sequence", count, 2 * one));
    if (s.flops_per_mac !== REFERENCE_COSTS.flops_per_mac) {
      var scale = REFERENCE_COSTS.flops_per_mac / s.flops_per_mac;
      items = items.map(function (it) { return replaced(it, { work: it.flops * scale }); });
    }
    return items;
  }

  function isAttentionCore(it) { return it.layer === "attention" && it.op.indexOf("attention:") === 0; }

  /** The step's items as the hardware runs them: the attention core replaced by the kernel's. */
  function hardwareItems(s, items) {
    return items.filter(function (it) { return !isAttentionCore(it); }).concat(attentionCoreItems(s));
  }

  /** FLOPs the hardware executes in a step whose model line items are `items`. */
  function hardwareFlops(s, items) {
    var total = 0;
    hardwareItems(s, items).forEach(function (it) { total += it.flops; });
    return total;
  }

  // ---- Kernel kinds (ledger/timing.py) ----

  var DENSE_SUFFIXES = [": W x", ": W^T g (dX)", ": g x^T (dW)"];
  var BLOCK_TAGS = ["W_ij", "X_j", "sum over input blocks", "sum over output blocks", "accumulate dW"];

  function endsWith(text, suffix) { return text.length >= suffix.length && text.slice(-suffix.length) === suffix; }

  /** The kernel kind a line item runs as on a digital machine. */
  function kernelOf(it) {
    if (it.cls === "transform") return it.op.indexOf("blocks") >= 0 ? "fft_block" : "fft_long";
    if (it.cls === "digital" && (DENSE_SUFFIXES.some(function (x) { return endsWith(it.op, x); }) ||
                                 it.op.indexOf("attention:") === 0)) return "matmul";
    if (BLOCK_TAGS.some(function (tag) { return it.op.indexOf(tag) >= 0; })) return "block_product";
    return "elementwise";
  }

  // ---- What crosses the boundary (ledger/boundary.py, mode "fused", sums digital, U and G read out) ----

  function isInverse(it) {
    var k = it.op.indexOf(":");
    return (k >= 0 ? it.op.slice(k + 1) : it.op).trim().indexOf("inverse") === 0;
  }

  /** A per-token circulant block product, or inverse transform of summed blocks, whose data crosses. */
  function isCirculantSumBoundary(it) {
    if (it.op.indexOf("long conv:") === 0 || it.per === "step") return false;
    return (it.cls === "weight_product" && it.op.indexOf("W_ij") >= 0) || (it.cls === "transform" && isInverse(it));
  }

  /** A forward or dX rFFT of data whose spectrum the digital weight gradient multiplies. */
  function feedsWeightGradient(it) {
    return it.cls === "transform" && it.per !== "step" && (it.phase === "forward" || it.phase === "dX") &&
           !isInverse(it);
  }

  /**
   * Real numbers written into (values_in) and read out of (values_out) the optics per step when fused 4f passes
   * take the static work (ledger/boundary.py conversions(mode="fused")), and the detector samples that reads.
   */
  function fusedConversions(s, items) {
    var vIn = 0, vOut = 0;
    items.forEach(function (it) {
      if (isCirculantSumBoundary(it)) {
        var blockSpectrum = 2 * bins(s.block);  // a block's complex bins, two reals each
        if (it.cls === "weight_product") vOut += it.count * blockSpectrum;  // to the digital sum
        else vIn += it.count * blockSpectrum;  // the summed spectrum back for the inverse transform
      }
      if (it.cls !== "transform") return;
      var longConv = it.op.indexOf("long conv:") === 0;
      var samples = longConv ? s.seq_len : s.block;
      var spectrum = 2 * (longConv ? bins(s.fft_len) : bins(s.block));
      var inverse = isInverse(it);
      if (it.per !== "step") {
        vIn += inverse ? 0 : it.count * samples;
        vOut += inverse ? it.count * samples : 0;
        if (feedsWeightGradient(it)) vOut += it.count * spectrum;  // tapped at the Fourier plane for dW
      } else {
        vIn += it.count * (inverse ? spectrum : samples);
        vOut += it.count * (inverse ? samples : spectrum);
      }
    });
    return { values_in: vIn, values_out: vOut, detector_samples: vOut * s.readout_samples };
  }

  // ---- The step in seconds (ledger/step_time.py) ----

  /**
   * Seconds the GPUs spend on one item: its reference work at the tensor rate (matrix and block products), or
   * the longer of its work at the vector rate and its memory traffic at the bandwidth; over the cluster's GPUs.
   */
  function itemSeconds(it, s) {
    var work = referenceFlops(it), seconds;
    if (TENSOR_KERNELS.indexOf(kernelOf(it)) >= 0) seconds = work / s.gpu_flops;
    else seconds = Math.max(work / s.gpu_vector_flops, it.moved * s.gpu_bytes_per_value / s.gpu_bandwidth);
    return seconds / s.gpus;
  }

  /**
   * The step on the GPUs alone and the hybrid step: the GPUs' remainder plus the engine's time, its streaming
   * (the slowest of input plane, detector, link and optics) and its weight-mask rewrites, added ("serial") or
   * beside it ("overlapped"). `masks` is the step's maskBudget.
   */
  function stepTime(s, items, masks) {
    var gpuRest = 0, engineWork = 0;
    hardwareItems(s, items).forEach(function (it) {
      var seconds = itemSeconds(it, s);
      if (STATIC_CLASSES.indexOf(it.cls) >= 0) engineWork += seconds; else gpuRest += seconds;
    });
    var crossing = engineWork > 0 ? fusedConversions(s, items) :
      { values_in: 0, values_out: 0, detector_samples: 0 };
    var linkBytes = Math.max(crossing.values_in, crossing.values_out) * s.link_bytes_per_value;
    var t = {
      gpu_rest_s: gpuRest, engine_work_gpu_s: engineWork,
      // the streaming is split evenly among the engines; each rewrites every mask
      input_s: crossing.values_in / s.io_rate / s.engines,
      detector_s: crossing.detector_samples / s.detector_rate / s.engines,
      link_s: linkBytes / s.link_rate / s.engines,
      optics_s: isFinite(s.optical_speedup) ? engineWork / s.optical_speedup / s.engines : 0,
      mask_s: masks.weight_mask_s, mask_overlap: s.mask_overlap,
      values_in: crossing.values_in, values_out: crossing.values_out,
      detector_samples: crossing.detector_samples, mask_frames: masks.weight_frames, link_bytes: linkBytes
    };
    t.all_digital_step_s = t.gpu_rest_s + t.engine_work_gpu_s;
    t.stream_s = Math.max(t.input_s, t.detector_s, t.link_s, t.optics_s);
    t.engine_s = t.mask_overlap === "overlapped" ? Math.max(t.stream_s, t.mask_s) : t.stream_s + t.mask_s;
    t.hybrid_step_s = t.gpu_rest_s + t.engine_s;
    t.net_speedup = t.all_digital_step_s / t.hybrid_step_s;
    t.time_share = t.all_digital_step_s > 0 ? t.engine_work_gpu_s / t.all_digital_step_s : 0;
    t.amdahl_time = t.time_share < 1 ? 1 / (1 - t.time_share) : Infinity;
    // The rate of each engine part at which its time alone equals the seconds the engine could save (null: the
    // engine takes no work).
    var saved = t.engine_work_gpu_s;
    t.break_even = saved > 0 ?
      { input_rate: t.values_in / s.engines / saved, mask_rate: t.mask_frames / saved,
        detector_rate: t.detector_samples / s.engines / saved, link_rate: t.link_bytes / s.engines / saved } :
      { input_rate: null, mask_rate: null, detector_rate: null, link_rate: null };
    return t;
  }

  /** The 6N rule plus attention for a step: 6*N*T + 12*L*S*H*T (the transformer's closed form). */
  function sixNFlops(s) {
    var sh = s.shape, kvDim = sh.n_kv_heads * (sh.hidden / sh.n_heads);
    var attn = 2 * sh.hidden * sh.hidden + 2 * sh.hidden * kvDim;
    var mlp = 3 * sh.hidden * sh.intermediate;
    var N = sh.n_layers * (attn + mlp) + sh.vocab * sh.hidden;
    return 6 * N * s.step_tokens + 12 * sh.n_layers * s.seq_len * sh.hidden * s.step_tokens;
  }

  /**
   * One row of the training-step table (ledger/table.py step_row), same keys as StepRow.to_json(),
   * plus flops_by_phase ({forward, dX, dW}: {class: FLOPs}) and the mask values.
   */
  function stepRow(params) {
    var s = makeSettings(params);
    var items = stepItems(s);
    var byPhase = flopsByPhaseAndClass(items);
    var byPass = flopsByPass(byPhase);
    var fwd = byPass.forward, bwd = byPass.backward;
    var forwardFlops = sumOf(fwd, CLASSES), backwardFlops = sumOf(bwd, CLASSES);
    var stepFlops = forwardFlops + backwardFlops;
    var stepByClass = {};
    CLASSES.forEach(function (c) { stepByClass[c] = fwd[c] + bwd[c]; });
    var opticalFlops = sumOf(stepByClass, OPTICAL_CLASSES);
    var stepShare = share(opticalFlops, stepFlops);
    var staticShare = share(sumOf(stepByClass, STATIC_CLASSES), stepFlops);
    var masks = maskBudget(items, s);
    var seconds = stepTime(s, items, masks);
    var row = {
      variant: s.variant, seq_len: s.seq_len, sequences: s.sequences,
      forward_flops: forwardFlops, backward_flops: backwardFlops,
      flops_by_class: { forward: fwd, backward: bwd },
      forward_share: share(sumOf(fwd, OPTICAL_CLASSES), forwardFlops),
      backward_share: share(sumOf(bwd, OPTICAL_CLASSES), backwardFlops),
      step_share: stepShare, static_share: staticShare,
      data_part: share(stepByClass.data_product, opticalFlops),
      amdahl: amdahl(stepShare, s.optical_speedup), amdahl_static: amdahl(staticShare, s.optical_speedup),
      weight_mask_s: masks.weight_mask_s, data_mask_s: masks.data_mask_s,
      // The whole step, optical classes included, run digitally on the illustrative cluster.
      digital_step_s: stepFlops / (s.gpus * s.gpu_flops),
      step_tokens: s.step_tokens, step_flops: stepFlops,
      weight_mask_frames: masks.weight_frames, data_mask_frames: masks.data_frames,
      recompute_flops: byPhase[RECOMPUTE].transform + byPhase[RECOMPUTE].weight_product +
        byPhase[RECOMPUTE].data_product + byPhase[RECOMPUTE].digital,
      matrix_params: matrixParams(s),
      hardware_flops: hardwareFlops(s, items),
      modulator: s.modulator, frame_rate_hz: s.frame_rate_hz, values_per_pixel: s.complex_values_per_pixel,
      cited: s.cited,
      all_digital_step_s: seconds.all_digital_step_s, hybrid_step_s: seconds.hybrid_step_s,
      net_speedup: seconds.net_speedup, time_share: seconds.time_share, amdahl_time: seconds.amdahl_time,
      mask_overlap: s.mask_overlap,
      // one document per sequence: the explorer has no packed documents (Python: Settings.documents)
      documents: [s.seq_len],
      // extras, not in StepRow
      flops_by_phase: byPhase,
      weight_mask_values: masks.weight_values, data_mask_values: masks.data_values,
      attention_layers: s.attention_layers, hyena_layers: s.hyena_layers
    };
    if (s.variant === "transformer") row.six_n_ratio = stepFlops / sixNFlops(s);
    // Break-even rates, absent when the engine takes no work (as StepRow.to_json omits them).
    ["input_rate", "mask_rate", "detector_rate", "link_rate"].forEach(function (k) {
      if (seconds.break_even[k] !== null) row["break_even_" + k] = seconds.break_even[k];
    });
    // extras, not in StepRow: the engine's parts
    row.engine_s = seconds.engine_s;
    row.stream_s = seconds.stream_s;
    row.engine_parts = { input_s: seconds.input_s, detector_s: seconds.detector_s, link_s: seconds.link_s,
                         optics_s: seconds.optics_s, mask_s: seconds.mask_s };
    return row;
  }

  var api = {
    VARIANTS: VARIANTS, PHASES: PHASES, ALL_PHASES: ALL_PHASES, RECOMPUTE_MODES: RECOMPUTE_MODES,
    MASK_SPECTRA: MASK_SPECTRA, FFT_LENGTHS: FFT_LENGTHS, ATTENTION_KERNELS: ATTENTION_KERNELS, CLASSES: CLASSES, OPTICAL_CLASSES: OPTICAL_CLASSES,
    STATIC_CLASSES: STATIC_CLASSES, LLAMA3_8B: LLAMA3_8B, DEFAULTS: DEFAULTS,
    MODULATORS: MODULATORS, MODULATOR_NAMES: MODULATOR_NAMES, REFUSED_MODULATORS: REFUSED_MODULATORS,
    LAYOUTS: LAYOUTS, READOUTS: READOUTS, MASK_OVERLAPS: MASK_OVERLAPS, REFERENCE_COSTS: REFERENCE_COSTS,
    KERNELS: KERNELS, TENSOR_KERNELS: TENSOR_KERNELS,
    PAGE_DEFAULTS: PAGE_DEFAULTS,
    TRAINED_CONTEXT: TRAINED_CONTEXT,
    makeSettings: makeSettings, stepItems: stepItems, weightMatrices: weightMatrices, matrixParams: matrixParams, stepRow: stepRow, checkBlock: checkBlock,
    flopsByPhaseAndClass: flopsByPhaseAndClass, maskBudget: maskBudget, amdahl: amdahl,
    hardwareItems: hardwareItems, attentionCoreItems: attentionCoreItems, kernelOf: kernelOf,
    fusedConversions: fusedConversions, itemSeconds: itemSeconds, stepTime: stepTime,
    format: null  // filled in below
  };

  // ---------------------------------------------------------------------------------------------
  // Formatting (mirrored in ledger/explore.py so the browser test can compare the text)
  // ---------------------------------------------------------------------------------------------

  function formatShare(x) { return (100 * x).toFixed(2) + "%"; }
  function formatBound(x) { return isFinite(x) ? x.toFixed(3) + "x" : "unbounded"; }
  /** Seconds: 0 as "0 s", from 100 s whole seconds, from 0.01 s two decimals, else 3 significant. */
  function formatSeconds(x) {
    if (x === 0) return "0 s";
    if (x >= 100) return x.toFixed(0) + " s";
    if (x >= 0.01) return x.toFixed(2) + " s";
    return x.toPrecision(3) + " s";
  }
  /**
   * The hybrid step's net speed-up: three decimals from 1 up ("1.042x"); below 1 three significant digits and how
   * many times slower the hybrid step is ("0.00892x (112x slower)").
   */
  function formatSpeedup(x) {
    if (!isFinite(x)) return "unbounded";
    if (x >= 1) return x.toFixed(3) + "x";
    var slower = 1 / x;
    return x.toPrecision(3) + "x (" + (slower >= 100 ? formatInt(slower) : slower.toPrecision(3)) + "x slower)";
  }
  /** A rate: from 1e6 as "3.29e9", from 100 whole and grouped ("8,724"), below that 3 significant digits. */
  function formatRate(x) {
    if (x >= 1e6) return formatSci(x);
    if (x >= 100) return formatInt(x);
    return String(Number(x.toPrecision(3)));
  }
  function formatInt(x) { return Math.round(x).toLocaleString("en-US"); }
  /** Large counts as "5.12e16". */
  function formatSci(x) {
    if (x === 0) return "0";
    var e = x.toExponential(2).split("e");
    return e[0] + "e" + e[1].replace("+", "");
  }
  api.format = { share: formatShare, bound: formatBound, seconds: formatSeconds, int: formatInt,
                 sci: formatSci, speedup: formatSpeedup, rate: formatRate };

  if (typeof module !== "undefined" && module.exports) module.exports = api;
  root.TxLedger = api;

  // ---------------------------------------------------------------------------------------------
  // 2. The page wiring
  // ---------------------------------------------------------------------------------------------

  if (typeof document === "undefined") return;

  // What the controls accept when typed. The module's own rules (divisibility, block tiling)
  // are checked on top of these.
  var LIMITS = {
    seq_len: { min: 2048, max: 32768, integer: true, label: "sequence length" },
    step_tokens: { min: 2048, max: 67108864, integer: true, label: "tokens per step" },
    block: { min: 2, max: 2048, integer: true, label: "block size" },
    hybrid_attention_fraction: { min: 0, max: 1, integer: false, label: "attention fraction" },
    pixels: { min: 1e3, max: 1e9, integer: false, label: "mask pixels" },
    values_per_pixel: { min: 0.01, max: 64, integer: false, label: "values per pixel" },
    frame_rate: { min: 1, max: 1e6, integer: false, label: "frame rate" },
    gpus: { min: 1, max: 1e6, integer: true, label: "GPUs" },
    gpu_flops: { min: 1e9, max: 1e17, integer: false, label: "FLOP/s per GPU" },
    // "inf" (or the slider's right end) is an infinitely fast engine: Amdahl's bound.
    optical_speedup: { min: 0, max: Infinity, integer: false, label: "optical speed-up", infinite: true,
                       exclusiveMin: true }
  };
  var INFINITY_RE = /^(\+?inf(inity)?|\u221e)$/i;
  var NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

  /** What a control accepts, in words: "the sequence length must be a whole number from 2,048 to 32,768". */
  function allowedText(name) {
    var lim = LIMITS[name];
    if (lim.exclusiveMin) return "the " + lim.label + " must be a positive number (or inf)";
    return "the " + lim.label + " must be " + (lim.integer ? "a whole number " : "") + "from " +
           showValue(name, lim.min) + " to " + showValue(name, lim.max);
  }

  /**
   * Parse typed text: digits with optional , _ or spaces as thousands separators, or 400e12. A refusal is one
   * line naming what was typed and what the control accepts.
   */
  function parseTyped(name, text) {
    var lim = LIMITS[name];
    var typed = "\u201c" + String(text).replace(/\s+/g, " ").trim() + "\u201d";
    var t = String(text).replace(/[\s,_\u00a0\u2009]/g, "");
    if (!t) return { error: "Enter a number: " + allowedText(name) + "." };
    if (lim.infinite && INFINITY_RE.test(t)) return { value: Infinity };
    if (!NUMBER_RE.test(t)) return { error: typed + " is not a number: " + allowedText(name) + "." };
    var v = Number(t);
    if (!isFinite(v)) return { error: typed + " is not a finite number: " + allowedText(name) + "." };
    if (lim.integer && !Number.isInteger(v)) {
      return { error: typed + " is not a whole number: " + allowedText(name) + "." };
    }
    if ((lim.exclusiveMin && !(v > lim.min)) || v < lim.min || v > lim.max) {
      return { error: typed + ": " + allowedText(name) + "." };
    }
    return { value: v };
  }

  /** How a value is written back into its text box. */
  function showValue(name, v) {
    if (v === Infinity) return "inf";
    if (name === "gpu_flops" || name === "pixels") {
      if (v >= 1e6) {
        var exp = Math.floor(Math.log10(v) / 3) * 3;
        var mant = Number((v / Math.pow(10, exp)).toPrecision(4));
        return mant + "e" + exp;
      }
    }
    if (LIMITS[name] && LIMITS[name].integer) return formatInt(v);
    return String(Number(v.toPrecision(6)));
  }

  // Sliders move in log steps; the text box holds the exact value.
  function sliderToValue(scale, x) {
    if (scale === "log2") return Math.pow(2, x);
    if (scale === "log10") return Number(Math.pow(10, x).toPrecision(3));
    if (scale === "log10inf") return x >= LOG10INF_TOP ? Infinity : Number(Math.pow(10, x).toPrecision(3));
    return x;
  }
  function valueToSlider(scale, v) {
    if (scale === "log2") return Math.log2(v);
    if (scale === "log10") return Math.log10(v);
    if (scale === "log10inf") return v === Infinity ? LOG10INF_TOP : Math.min(Math.log10(v), LOG10INF_TOP - 0.05);
    return v;
  }
  // The speed-up slider runs in log10 steps from 10^-1 to 10^6; its right end (7) means infinite.
  var LOG10INF_TOP = 7;

  // The time chart's bars: the counted step at the sustained rate, the step at device rates all on the GPUs,
  // the hybrid step with the engine's time paid, and the two mask budgets.
  var TIME_BARS = [["digital_step_s", "digital step (counted FLOPs, sustained rate)"],
                   ["all_digital_step_s", "all-digital step (device rates)"],
                   ["hybrid_step_s", "hybrid step (GPUs + engine)"],
                   ["weight_mask_s", "weight-mask rewrite"],
                   ["data_mask_s", "data-mask rewrite"]];
  var ENGINE_PARTS = [["input_s", "the input plane"], ["detector_s", "the detector"], ["link_s", "the link"],
                      ["optics_s", "the optics"]];

  var CLASS_LABELS = { transform: "transforms (FFT)", weight_product: "weight-masked products",
                       data_product: "data-by-data products", digital: "digital" };
  var PHASE_LABELS = { forward: "forward", recompute: "recompute (forward again)", dX: "input gradient dX",
                       dW: "weight gradient dW" };

  function Explorer(rootEl) {
    this.root = rootEl;
    this.controls = {};   // data-param -> element (select or text input)
    this.sliders = {};    // data-param -> range input
    this.alerts = {};     // data-param -> role=alert element
    this.state = null;    // last good parameters
    this.row = null;      // last good row
    this.redraws = 0;
    var self = this;
    Array.prototype.forEach.call(rootEl.querySelectorAll("[data-param]"), function (el) {
      self.controls[el.getAttribute("data-param")] = el;
    });
    Array.prototype.forEach.call(rootEl.querySelectorAll("[data-slider-for]"), function (el) {
      self.sliders[el.getAttribute("data-slider-for")] = el;
    });
    Array.prototype.forEach.call(rootEl.querySelectorAll("[data-alert-for]"), function (el) {
      self.alerts[el.getAttribute("data-alert-for")] = el;
    });
    this.metrics = rootEl.querySelectorAll("[data-metric]");
    this.buildBars();
  }

  Explorer.prototype.start = function () {
    var self = this;
    Object.keys(this.controls).forEach(function (name) {
      var el = self.controls[name];
      var v = PAGE_DEFAULTS[name];
      if (el.tagName === "SELECT") el.value = v; else el.value = showValue(name, v);
      var handler = function () { self.onChange(name); };
      el.addEventListener("input", handler);
      el.addEventListener("change", handler);
    });
    Object.keys(this.sliders).forEach(function (name) {
      var sl = self.sliders[name];
      sl.addEventListener("input", function () {
        var v = sliderToValue(sl.getAttribute("data-scale"), Number(sl.value));
        self.controls[name].value = showValue(name, v);
        self.onChange(name, true);
      });
    });
    var reset = this.root.querySelector("[data-action=reset]");
    if (reset) {
      reset.addEventListener("click", function () {
        Object.keys(self.controls).forEach(function (name) {
          var el = self.controls[name];
          el.value = el.tagName === "SELECT" ? PAGE_DEFAULTS[name] : showValue(name, PAGE_DEFAULTS[name]);
        });
        self.onChange("variant");
      });
    }
    this.onChange(null);
    this.root.setAttribute("data-ready", "true");
  };

  /** Read every control; refuse at the control and keep the last good state on any error. */
  Explorer.prototype.onChange = function (changed, fromSlider) {
    var t0 = performance.now();
    var self = this, params = {}, errors = {};
    // A new modulator mode brings its own frame rate and values per pixel (ledger make_settings does the same).
    if (changed === "modulator" && MODULATORS.hasOwnProperty(this.controls.modulator.value)) {
      var mode = MODULATORS[this.controls.modulator.value];
      if (this.controls.frame_rate) this.controls.frame_rate.value = showValue("frame_rate", mode.frame_rate_hz);
      if (this.controls.values_per_pixel) {
        this.controls.values_per_pixel.value = showValue("values_per_pixel", 1 / (mode.cell[0] * mode.cell[1]));
      }
    }
    Object.keys(this.controls).forEach(function (name) {
      var el = self.controls[name];
      if (el.tagName === "SELECT") { params[name] = el.value; return; }
      var parsed = parseTyped(name, el.value);
      if (parsed.error) errors[name] = parsed.error; else params[name] = parsed.value;
    });
    var row = null;
    if (!Object.keys(errors).length) {
      try {
        // A block must tile the matrices whatever the variant, so switching to the circulant
        // model later cannot fail.
        if ("block" in params) checkBlock(params.block, LLAMA3_8B);
        row = stepRow(params);
      } catch (err) {
        if (err.name !== "LedgerError") throw err;
        var at = (changed && changed !== "variant" && this.controls[changed]) ? changed :
                 (err.param && this.controls[err.param] ? err.param : "variant");
        errors[at] = humanize(err.message);
      }
    }
    Object.keys(this.controls).forEach(function (name) {
      self.setAlert(name, errors[name] || "");
    });
    if (!fromSlider || !errors[changed]) this.syncSliders(params, changed, fromSlider);
    if (row) {
      this.state = params;
      this.row = row;
      this.render(row, params);
      this.root.removeAttribute("data-invalid");
    } else {
      this.root.setAttribute("data-invalid", "true");
    }
    this.redraws += 1;
    this.root.setAttribute("data-redraws", String(this.redraws));
    this.root.setAttribute("data-redraw-ms", (performance.now() - t0).toFixed(3));
  };

  /** The ledger's own message, which names the setting by its key, e.g. "seq_len = 3000 does not ...". */
  function humanize(message) {
    return message + ".";
  }

  Explorer.prototype.setAlert = function (name, message) {
    var el = this.alerts[name], ctl = this.controls[name];
    if (ctl) {
      if (message) ctl.setAttribute("aria-invalid", "true"); else ctl.removeAttribute("aria-invalid");
    }
    if (!el) return;
    var text = message ? "Refused: " + message : "";
    if (el.textContent !== text) el.textContent = text;
    el.hidden = !message;
  };

  Explorer.prototype.syncSliders = function (params, changed, fromSlider) {
    var self = this;
    Object.keys(this.sliders).forEach(function (name) {
      if (fromSlider && name === changed) return;
      if (!(name in params)) return;
      var sl = self.sliders[name];
      sl.value = String(valueToSlider(sl.getAttribute("data-scale"), params[name]));
    });
  };

  // ---- Bars ----

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  Explorer.prototype.buildBars = function () {
    var self = this;
    this.flopBars = {};
    var host = this.root.querySelector("#tx-flop-bars");
    if (host) {
      ALL_PHASES.forEach(function (phase) {
        var row = el("div", "tx-bar-row");
        row.setAttribute("data-phase", phase);
        row.appendChild(el("span", "tx-bar-label", PHASE_LABELS[phase]));
        var track = el("div", "tx-bar-track");
        var segs = {};
        CLASSES.forEach(function (c) {
          var seg = el("div", "tx-seg tx-cls-" + c);
          seg.setAttribute("data-class", c);
          track.appendChild(seg);
          segs[c] = seg;
        });
        row.appendChild(track);
        var value = el("span", "tx-bar-value");
        row.appendChild(value);
        host.appendChild(row);
        self.flopBars[phase] = { segs: segs, value: value, track: track, row: row };
      });
    }
    this.timeBars = {};
    var thost = this.root.querySelector("#tx-time-bars");
    if (thost) {
      this.timeAxis = el("div", "tx-axis");
      TIME_BARS.forEach(function (m) {
        var row = el("div", "tx-bar-row");
        row.setAttribute("data-time", m[0]);
        row.appendChild(el("span", "tx-bar-label", m[1]));
        var track = el("div", "tx-bar-track");
        var bar = el("div", "tx-seg tx-time-" + m[0]);
        track.appendChild(bar);
        row.appendChild(track);
        var value = el("span", "tx-bar-value");
        row.appendChild(value);
        thost.appendChild(row);
        self.timeBars[m[0]] = { bar: bar, value: value };
      });
      var axisRow = el("div", "tx-bar-row tx-axis-row");
      axisRow.appendChild(el("span", "tx-bar-label", ""));
      axisRow.appendChild(this.timeAxis);
      axisRow.appendChild(el("span", "tx-bar-value", ""));
      thost.appendChild(axisRow);
    }
  };

  Explorer.prototype.render = function (row, params) {
    var F = api.format;
    Array.prototype.forEach.call(this.metrics, function (m) {
      var key = m.getAttribute("data-metric");
      var v = key in row ? row[key] : null;
      var text;
      if (v == null) text = "";
      else if (/share$|^data_part$/.test(key)) text = F.share(v);
      else if (/^amdahl/.test(key)) text = F.bound(v);
      else if (key === "net_speedup") text = F.speedup(v);
      else if (/_s$/.test(key)) text = F.seconds(v);
      else if (/flops$/.test(key)) text = F.sci(v);
      else if (typeof v === "number") text = F.int(v);
      else text = String(v);
      if (m.textContent !== text) m.textContent = text;
      m.setAttribute("data-value", typeof v === "number" ? String(v) : "");
    });

    // FLOPs by class, each phase a bar scaled to the largest phase.
    var byPhase = row.flops_by_phase, maxTotal = 0, self = this;
    ALL_PHASES.forEach(function (p) { maxTotal = Math.max(maxTotal, sumOf(byPhase[p], CLASSES)); });
    ALL_PHASES.forEach(function (p) {
      var bar = self.flopBars[p];
      if (!bar) return;
      // The recompute bar shows only when the forward pass is run again (recompute = full).
      if (p === RECOMPUTE) bar.row.hidden = params.recompute !== "full";
      var total = sumOf(byPhase[p], CLASSES);
      CLASSES.forEach(function (c) {
        var w = maxTotal > 0 ? 100 * byPhase[p][c] / maxTotal : 0;
        bar.segs[c].style.width = w.toFixed(3) + "%";
        bar.segs[c].title = CLASS_LABELS[c] + ": " + F.sci(byPhase[p][c]) + " FLOPs (" +
                            F.share(share(byPhase[p][c], total)) + " of " + PHASE_LABELS[p] + ")";
      });
      bar.value.textContent = F.sci(total) + " FLOPs, " + F.share(share(sumOf(byPhase[p], OPTICAL_CLASSES), total)) +
                              " optical";
    });

    // Times on a log axis from a power of ten below the smallest to one above the largest.
    var keys = TIME_BARS.map(function (m) { return m[0]; });
    var positive = keys.map(function (k) { return row[k]; }).filter(function (v) { return v > 0; });
    var lo = Math.floor(Math.log10(Math.min.apply(null, positive))) - 1;
    var hi = Math.ceil(Math.log10(Math.max.apply(null, positive)));
    if (hi <= lo) hi = lo + 1;
    keys.forEach(function (k) {
      var b = self.timeBars[k];
      if (!b) return;
      var v = row[k];
      var w = v > 0 ? 100 * (Math.log10(v) - lo) / (hi - lo) : 0;
      b.bar.style.width = Math.max(0, Math.min(100, w)).toFixed(3) + "%";
      var text = F.seconds(v);
      if (/mask_s$/.test(k)) {
        var fr = row[k === "weight_mask_s" ? "weight_mask_frames" : "data_mask_frames"];
        text = v > 0 ? text + " (" + F.int(fr) + " frames)" : "0 s (no masks)";
      }
      b.value.textContent = text;
    });
    if (this.timeAxis) {
      var axisKey = lo + ":" + hi;
      if (this.timeAxis.getAttribute("data-range") !== axisKey) {
        this.timeAxis.textContent = "";
        var every = Math.max(1, Math.ceil((hi - lo) / 7));  // at most about eight labelled ticks
        for (var e = lo; e <= hi; e += every) {
          var tick = el("span", "tx-tick", tickLabel(e));
          tick.style.left = (100 * (e - lo) / (hi - lo)).toFixed(3) + "%";
          this.timeAxis.appendChild(tick);
        }
        this.timeAxis.setAttribute("data-range", axisKey);
      }
    }

    // Shape-only extrapolation beyond the trained context.
    var beyond = params.seq_len > TRAINED_CONTEXT;
    var flag = this.root.querySelector("#tx-extrapolation");
    if (flag) flag.hidden = !beyond;
    this.root.classList.toggle("tx-beyond-context", beyond);
    var hyb = this.root.querySelector("#tx-hybrid-layers");
    if (hyb) {
      hyb.textContent = row.variant === "hybrid" ?
        row.attention_layers + " of " + LLAMA3_8B.n_layers + " layers keep attention" : "used by the hybrid only";
    }
    var note = this.root.querySelector("#tx-modulator-note");
    if (note) {
      var text = row.modulator + ": " + MODULATORS[row.modulator].label + ", " + F.int(row.frame_rate_hz) +
                 " frames/s, " + showValue("values_per_pixel", row.values_per_pixel) + " complex value per pixel" +
                 (row.cited ? " (the cited device)." : ": overridden, no longer the cited device.");
      if (note.textContent !== text) note.textContent = text;
      note.setAttribute("data-cited", row.cited ? "true" : "false");
    }
    var engineNote = this.root.querySelector("#tx-engine-note");
    if (engineNote) {
      var said = engineText(row);
      if (engineNote.textContent !== said) engineNote.textContent = said;
    }
    var blk = this.root.querySelector("#tx-block-note");
    if (blk) blk.textContent = row.variant === "hyena2_circulant" ? "" : "(Used by hyena2_circulant only.)";
  };

  /** The engine's time in words: its parts, the slowest, how the masks combine, and the break-even rates. */
  function engineText(row) {
    var F = api.format;
    if (!("break_even_mask_rate" in row)) {
      return "The engine takes no work in this variant: the hybrid step is the all-digital step.";
    }
    var parts = row.engine_parts, slowest = ENGINE_PARTS[0];
    ENGINE_PARTS.forEach(function (p) { if (parts[p[0]] > parts[slowest[0]]) slowest = p; });
    var masks = row.mask_overlap === "overlapped" ?
      "the longer of the two counts (overlapped)" : "the two are added (serial)";
    return "The engine's time per step: streaming " + F.seconds(row.stream_s) + " (the slowest part, " +
           slowest[1] + "; input plane " + F.seconds(parts.input_s) + ", detector " + F.seconds(parts.detector_s) +
           ", link " + F.seconds(parts.link_s) + ", optics " + F.seconds(parts.optics_s) + ") and weight-mask " +
           "rewrites " + F.seconds(parts.mask_s) + "; " + masks + ". Break-even rates, each part alone against " +
           "the seconds the engine could save: a mask device of " + F.rate(row.break_even_mask_rate) +
           " frames/s, an input plane of " + F.rate(row.break_even_input_rate) + " numbers/s, a detector of " +
           F.rate(row.break_even_detector_rate) + " samples/s, a link of " + F.rate(row.break_even_link_rate) +
           " bytes/s each way.";
  }

  function tickLabel(e) {
    if (e >= 0 && e <= 4) return String(Math.pow(10, e)) + " s";
    if (e < 0 && e >= -3) return String(Number(Math.pow(10, e).toPrecision(1))) + " s";
    return "1e" + e + " s";
  }

  function init() {
    var rootEl = document.getElementById("tx-explorer");
    if (!rootEl || rootEl.getAttribute("data-ready")) return;  // not this page, or already wired
    var ex = new Explorer(rootEl);
    root.TxExplorer = ex;
    ex.start();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})(typeof globalThis !== "undefined" ? globalThis : this);
