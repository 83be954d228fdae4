"""Draw the build's figures for the slides and record their layouts, without executing a chapter again.

The book's kernels keep each figure they show, pickled as drawn for the page
(ledger.figures.keep_figure, into _build/figures/kept/<key>.pickle, the key a hash of the page PNG the
executed chapter's output holds). This step, the first of `make slides`, unpickles each and writes
_build/figures/records.json: for every key, the figure's layout records (labels over each other, legends,
legends over bars) and its slide drawing (ledger.figures.figure_records). slides.py shows the slide
drawing in place of the page's figure; the tests read the records (tests/book_pages.py). The figure code
stays in the chapters, its only home; the slide is the same figure with its type raised.

    python book/_tools/figure_records.py [--kept DIR] [--out FILE] [--workers N]
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import pickle
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ledger.figures import figure_key, figure_records

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "_build" / "figures" / "kept"
RECORDS = ROOT / "_build" / "figures" / "records.json"


class RecordsMissing(Exception):
    """No records, or none for a figure an executed chapter shows: the step has not run since the build."""


def records_of(path: Path) -> tuple[str, dict]:
    """(key, figure_records) of one kept figure, drawn with the Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = pickle.loads(path.read_bytes())
    try:
        return path.stem, figure_records(fig)
    finally:
        plt.close(fig)


def write_records(kept: Path = KEPT, out: Path = RECORDS, workers: int = 2) -> int:
    """Compute every kept figure's records, `workers` processes at once, into `out`; the number of figures."""
    paths = sorted(kept.glob("*.pickle"))
    if not paths:
        raise RecordsMissing(f"{kept} holds no kept figures: build the book first (make book)")
    with ProcessPoolExecutor(max_workers=workers) as pool:
        records = dict(pool.map(records_of, paths, chunksize=max(1, len(paths) // (4 * workers))))
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f"{out.name}.{os.getpid()}.part")
    partial.write_text(json.dumps(records, sort_keys=True), encoding="utf-8")
    partial.replace(out)
    return len(records)


@functools.cache
def _load(path: Path, mtime_ns: int) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def records_for(png_b64: str, path: Path = RECORDS) -> dict:
    """The records of the figure whose page PNG (base64, as the output holds it) is `png_b64`."""
    if not path.exists():
        raise RecordsMissing(f"{path} is missing: make slides writes it (book/_tools/figure_records.py)")
    found = _load(path, path.stat().st_mtime_ns).get(figure_key(png_b64.strip()))
    if found is None:
        raise RecordsMissing(f"a figure of the executed chapters has no records in {path}: it is older than the "
                             "build; make slides writes it again")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kept", type=Path, default=KEPT, help="the build's kept figures (default %(default)s)")
    parser.add_argument("--out", type=Path, default=RECORDS, help="the records file (default %(default)s)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes drawing at once (default: the cores, %(default)s)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be a whole number of at least 1, got {args.workers}")
    started = time.perf_counter()
    try:
        count = write_records(args.kept, args.out, args.workers)
    except RecordsMissing as err:
        print(f"figure records: {err}", file=sys.stderr)
        return 2
    print(f"figure records: {count} figures drawn for the slides and their layouts recorded in "
          f"{time.perf_counter() - started:.1f} s on {args.workers} processes, into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
