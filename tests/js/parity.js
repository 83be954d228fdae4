// Reads {"points": [params...], "bad": [params...]} as JSON on stdin and writes, as JSON on stdout,
// {"rows": [stepRow(params)...], "bad": [{"refused": bool, "param": name, "message": text}...],
//  "constants": {MODULATORS, DEFAULTS, MASK_OVERLAPS, ...}}
// computed by the very file the book serves: book/_static/explorer.js.
"use strict";
const path = require("path");
const ledger = require(path.join(__dirname, "..", "..", "book", "_static", "explorer.js"));

// NaN and +-Infinity travel both ways as {"__float__": "NaN" | "Infinity" | "-Infinity"} (JSON has neither).
function encode(key, value) {
  if (typeof value === "number" && !isFinite(value)) return { __float__: String(value) };
  return value;
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const job = JSON.parse(input, (k, v) =>
    (v && typeof v === "object" && "__float__" in v) ? Number(v.__float__) : v);
  const rows = job.points.map((p) => ledger.stepRow(p));
  const bad = job.bad.map((p) => {
    try {
      const row = ledger.stepRow(p);
      return { refused: false, row };
    } catch (err) {
      if (err.name !== "LedgerError") throw err;
      return { refused: true, param: err.param, message: err.message };
    }
  });
  const constants = { MODULATORS: ledger.MODULATORS, DEFAULTS: ledger.DEFAULTS, MASK_OVERLAPS: ledger.MASK_OVERLAPS,
                      REFERENCE_COSTS: ledger.REFERENCE_COSTS, KERNELS: ledger.KERNELS,
                      TENSOR_KERNELS: ledger.TENSOR_KERNELS, READOUTS: ledger.READOUTS };
  process.stdout.write(JSON.stringify({ rows, bad, constants }, encode));
});
