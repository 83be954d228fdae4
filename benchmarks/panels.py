"""How long a live panel takes from a control's change to its redrawn numbers and figure (`make bench`).

For every control of the Jupyter explorer (chapter 09's panel, ledger.explore.explorer) and of each
chapter's slider panel (ledger.live.live_panel): each chapter is executed in a kernel of the book's
environment up to its panel's cell, then each control in turn is moved across its values, REPEAT times, each
move drawn at once (as a move the kernel draws when no other waits; ledger.live.Redraw). Reports the median
and worst seconds of a move, the chapter's update (ledger calls and the artists) and the drawing (the canvas
and the PNG), how many moves solved the layout again and how many left a text past the figure's edge or
inside another axes (ledger.live.draw_panel), and beside them the ledger's own time for the same moves: the time inside calls into the
`ledger` package's counting modules, traced in a separate pass (the trace slows what it times, so this is
an upper bound). A figure for the closing note, not a timed test.

    python benchmarks/panels.py [--repeat N] [--only STEM ...] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from ledger import live

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
REPEAT = 3
STEPS = 8  # values a numeric slider is moved through, min to max
DRAWING_MODULES = ("ledger.live", "ledger.figures", "ledger.explore")  # drawing, not counting


def control_values(control) -> list:
    """The values a move benchmark sets: a selection's options in order, a slider's range in STEPS steps."""
    if hasattr(control, "options"):
        values = list(getattr(control, "_options_values", None) or control.options)
        return [v[1] if isinstance(v, tuple) else v for v in values]
    if hasattr(control, "min") and hasattr(control, "max"):
        low, high = control.min, control.max
        values = [low + (high - low) * k / (STEPS - 1) for k in range(STEPS)]
        if hasattr(control, "base"):  # a log slider: min and max are exponents
            values = [control.base ** v for v in values]
        if isinstance(control.value, int) and not isinstance(control.value, bool):
            values = sorted({round(v) for v in values})
        return values
    if isinstance(control.value, bool):
        return [not control.value, control.value]
    raise ValueError(f"{type(control).__name__}: no values to move through")


class LedgerClock:
    """Seconds spent inside calls into the ledger's counting modules (any ledger.* but DRAWING_MODULES) made
    from outside them, traced with sys.setprofile while `with`-ed."""

    def __init__(self):
        self.seconds, self._depth, self._entered = 0.0, 0, 0.0

    def _counting(self, frame) -> bool:
        module = frame.f_globals.get("__name__", "")
        return module.startswith("ledger.") and not module.startswith(DRAWING_MODULES) or module == "ledger"

    def _trace(self, frame, event, _arg):
        if event not in ("call", "return") or not self._counting(frame):
            return
        if event == "call":
            if self._depth == 0:
                self._entered = time.perf_counter()
            self._depth += 1
        else:
            self._depth -= 1
            if self._depth == 0:
                self.seconds += time.perf_counter() - self._entered

    def __enter__(self):
        sys.setprofile(self._trace)
        return self

    def __exit__(self, *_):
        sys.setprofile(None)


def measure_panel(panel, name: str | None = None, repeat: int = REPEAT) -> dict:
    """Move `panel`'s control `name` (default its first) across its values `repeat` times, drawing each move at
    once; the seconds of each move, of the update and the drawing (live panels), and the traced ledger time."""
    controls = panel.controls
    name = name or next(iter(controls))
    control = controls[name]
    values = control_values(control)
    start = control.value
    draw = getattr(panel, "refresh", None) or panel.redraw.now
    moves, splits, cut = [], [], 0
    canvas = panel.fig.canvas if getattr(panel, "fig", None) is not None else None
    layouts = canvas.layouts if canvas is not None else 0
    for _ in range(repeat):
        for value in values:
            began = time.perf_counter()
            panel._syncing = True  # set without the control's own observer, then draw once, as the kernel does
            control.value = value
            panel._syncing = False
            draw()
            moves.append(time.perf_counter() - began)
            if getattr(panel, "timings", None):
                splits.append(panel.timings[-1])
            if canvas is not None:  # a text past the figure's edge or in another axes after this move
                past, into = live._overreach(panel.fig)
                cut += max(past) > live.REACH_TOLERANCE_PX or not into <= canvas.allowed[1]
    traced = LedgerClock()
    for value in values:
        panel._syncing = True
        control.value = value
        panel._syncing = False
        with traced:
            draw()
    control.value = start
    result = {"control": name, "values": len(values), "moves": len(moves),
              "median_s": statistics.median(moves), "worst_s": max(moves),
              "ledger_median_s": traced.seconds / len(values),
              "layouts": (canvas.layouts - layouts) if canvas is not None else 0, "cut": cut}
    if splits:
        result["update_median_s"] = statistics.median(u for u, _ in splits)
        result["draw_median_s"] = statistics.median(d for _, d in splits)
    return result


def panel_cell(nb) -> int:
    """The index of the chapter's panel cell: the first code cell that makes a live panel or the explorer."""
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and ("live_panel(" in cell.source or "explorer(" in cell.source):
            return k
    raise ValueError("no live_panel( or explorer( cell")


def chapter(path: Path, repeat: int) -> dict:
    """Execute `path` up to its panel's cell in a fresh kernel, then time each of its panel's controls there
    (measure_panel): control name -> figures."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nb.cells = nb.cells[:panel_cell(nb) + 1]
    nb.cells.append(nbformat.v4.new_code_cell(
        "import json as _json, sys as _sys\n"
        f"_sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from panels import measure_panel as _measure\n"
        "from ledger import live as _live\n"
        "_panel = _live.PANELS[-1]() if _live.PANELS else _\n"
        f"print('PANEL ' + _json.dumps({{_n: _measure(_panel, _n, repeat={repeat}) for _n in _panel.controls}}))"))
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    for output in nb.cells[-1].outputs:
        for line in output.get("text", "").splitlines():
            if line.startswith("PANEL "):
                return json.loads(line[len("PANEL "):])
    raise RuntimeError(f"{path.name}: the timing cell printed nothing")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=REPEAT, help="passes over each control's values")
    parser.add_argument("--only", nargs="*", default=None, help="chapter stems (default: every chapter with a panel)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be a whole number of at least 1, got {args.repeat}")
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if args.only is not None:
        unknown = sorted(set(args.only) - {p.stem for p in paths})
        if unknown:
            parser.error(f"--only: no chapter {', '.join(unknown)}; the chapters are {', '.join(p.stem for p in paths)}")
        paths = [p for p in paths if p.stem in args.only]
    results = {}
    if args.only is None:
        from ledger.explore import explorer

        panel = explorer()
        results["explorer (in process)"] = {name: measure_panel(panel, name, args.repeat) for name in panel.controls}
    for path in paths:
        source = path.read_text(encoding="utf-8")
        if "live_panel(" in source or "explorer(" in source:
            results[path.stem] = chapter(path, args.repeat)
    print(f"{'panel':32s} {'control':26s} {'median':>8s} {'worst':>8s} {'update':>8s} {'draw':>8s} {'ledger':>8s}"
          "      moves, layouts solved again, moves leaving a text cut off")
    for where, by_control in results.items():
        for r in by_control.values():
            ms = {k: f"{1000 * r[k]:7.1f}" if k in r else "      -" for k in
                  ("median_s", "worst_s", "update_median_s", "draw_median_s", "ledger_median_s")}
            print(f"{where:32s} {r['control']:26s} {ms['median_s']} {ms['worst_s']} {ms['update_median_s']} "
                  f"{ms['draw_median_s']} {ms['ledger_median_s']}  ms  {r['moves']:3d} {r['layouts']:3d} {r['cut']:3d}")
    every = [(where, r) for where, by_control in results.items() for r in by_control.values()]
    where, slowest = max(every, key=lambda item: item[1]["median_s"])
    print(f"slowest median {1000 * slowest['median_s']:.1f} ms ({where}, {slowest['control']}); "
          f"worst move {1000 * max(r['worst_s'] for _, r in every):.1f} ms; {len(every)} controls in {len(results)} panels; "
          f"{sum(r['layouts'] for _, r in every)} layouts solved again, {sum(r['cut'] for _, r in every)} moves left a "
          "text cut off")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
