"""Time the phases of `make test` and print them in one line at the end, so that a slower phase shows.

  python book/_tools/phase_times.py start LOG              start a new record (the total counts from here)
  python book/_tools/phase_times.py run LOG NAME -- CMD... run CMD, record NAME's start and end; CMD's exit code
  python book/_tools/phase_times.py summary LOG            print the one-line summary

LOG is a small JSON file (the Makefile uses _build/phase-times.json). Phases may run side by side (two
`run`s at once): the summary then gives each one's time and the wall time of the group. The ratio is
the total over the book phase, the measure of issue 20 (make test within four clean book builds).
"""
from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import time
from pathlib import Path


def _update(log: Path, change) -> dict:
    """Read, change and write the record under a lock (phases side by side write it at once)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log.with_suffix(log.suffix + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        record = json.loads(log.read_text()) if log.exists() else {"start": time.time(), "phases": []}
        change(record)
        log.write_text(json.dumps(record, indent=1) + "\n")
    return record


def start(log: Path) -> None:
    log.unlink(missing_ok=True)
    _update(log, lambda record: None)


def run(log: Path, name: str, cmd: list[str]) -> int:
    began = time.time()
    code = subprocess.call(cmd)
    _update(log, lambda record: record["phases"].append(
        {"name": name, "start": began, "end": time.time(), "exit": code}))
    return code


def summary(record: dict, now: float) -> str:
    """book 53.1 s | pdf 29.0 s + student+slides 14.2 s side by side: 29.3 s | pytest ... | total | ratio."""
    groups: list[list[dict]] = []  # phases that overlap in time form one group
    for phase in sorted(record["phases"], key=lambda p: p["start"]):
        if groups and phase["start"] < max(p["end"] for p in groups[-1]):
            groups[-1].append(phase)
        else:
            groups.append([phase])
    parts = []
    for group in groups:
        each = " + ".join(f"{p['name']} {p['end'] - p['start']:.1f} s{'' if p['exit'] == 0 else ' (failed)'}"
                          for p in group)
        wall = max(p["end"] for p in group) - min(p["start"] for p in group)
        parts.append(each if len(group) == 1 else f"{each} side by side: {wall:.1f} s")
    total = now - record["start"]
    book = [p["end"] - p["start"] for p in record["phases"] if p["name"] == "book"]
    ratio = f" | ratio to book {total / book[0]:.2f}x" if book and book[0] > 0 else ""
    return "make test phases: " + " | ".join(parts) + f" | total {total:.1f} s{ratio}"


def main(argv: list[str]) -> int:
    usage = "usage: phase_times.py start LOG | run LOG NAME -- CMD... | summary LOG"
    if len(argv) < 2 or argv[0] not in ("start", "run", "summary"):
        print(usage, file=sys.stderr)
        return 2
    log = Path(argv[1])
    if argv[0] == "start":
        start(log)
        return 0
    if argv[0] == "summary":
        if not log.exists():
            print(f"phase_times.py: {log} holds no record (run `phase_times.py start {log}` first)", file=sys.stderr)
            return 2
        print(summary(json.loads(log.read_text()), time.time()))
        return 0
    if len(argv) < 5 or argv[3] != "--":
        print(usage, file=sys.stderr)
        return 2
    return run(log, argv[2], argv[4:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
