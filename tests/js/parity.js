// Reads {"points": [params...], "bad": [params...]} as JSON on stdin and writes, as JSON on stdout,
// {"rows": [stepRow(params)...], "bad": [{"refused": bool, "param": name, "message": text}...]}
// computed by the very file the book serves: book/_static/explorer.js.
"use strict";
const path = require("path");
const ledger = require(path.join(__dirname, "..", "..", "book", "_static", "explorer.js"));

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  // Python sends NaN and +-Infinity as {"__float__": "NaN" | "Infinity" | "-Infinity"}.
  const job = JSON.parse(input, (k, v) =>
    (v && typeof v === "object" && "__float__" in v) ? Number(v.__float__) : v);
  const rows = job.points.map((p) => ledger.stepRow(p));
  const bad = job.bad.map((p) => {
    try {
      ledger.stepRow(p);
      return { refused: false };
    } catch (err) {
      if (err.name !== "LedgerError") throw err;
      return { refused: true, param: err.param, message: err.message };
    }
  });
  process.stdout.write(JSON.stringify({ rows, bad }));
});
