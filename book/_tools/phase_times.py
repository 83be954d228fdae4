"""Time the phases of `make test` and print them in one line at the end, so that a slower phase shows.

  python book/_tools/phase_times.py start LOG              start a new record (the total counts from here)
  python book/_tools/phase_times.py run LOG NAME -- CMD... run CMD, record NAME's start and end; CMD's exit code
  python book/_tools/phase_times.py summary LOG            print the one-line summary

A phase is recorded when it starts (without an end) and again when it ends, so that a test that needs
what a phase makes can wait for it (`wait_for`, which tests/conftest.py calls: the PDF and the student
edition are made while the tests that do not read them run).

LOG is a small JSON file (the Makefile uses _build/phase-times.json). Phases may run side by side (two
`run`s at once): the summary then gives each one's time and the wall time of the group. The ratio is
the total over the book phase, the measure of issue 20 (make test within four clean book builds).
"""
from __future__ import annotations

import fcntl
import json
import os
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
        # Written aside and renamed: a reader that takes no lock (wait_for, the summary) sees the
        # whole old record or the whole new one, never a file half written.
        written = log.with_suffix(log.suffix + ".new")
        written.write_text(json.dumps(record, indent=1) + "\n")
        os.replace(written, log)
    return record


def start(log: Path) -> None:
    log.unlink(missing_ok=True)
    _update(log, lambda record: None)


def run(log: Path, name: str, cmd: list[str]) -> int:
    began = time.time()
    _update(log, lambda record: record["phases"].append({"name": name, "start": began, "end": None, "exit": None}))
    code = subprocess.call(cmd)

    def ended(record):
        phase = next(p for p in reversed(record["phases"]) if p["name"] == name and p["start"] == began)
        phase.update(end=time.time(), exit=code)
    _update(log, ended)
    return code


def wait_for(log: Path, names: list[str], timeout_s: float = 1800, poll_s: float = 0.5) -> dict[str, int]:
    """Wait until every phase in `names` has ended (each may not have started yet); return their exit
    codes. Raises TimeoutError naming the phases still running after `timeout_s` seconds."""
    deadline = time.monotonic() + timeout_s
    while True:
        record = json.loads(log.read_text()) if log.exists() else {"phases": []}
        latest = {p["name"]: p for p in record["phases"]}
        if all(latest.get(n, {}).get("end") is not None for n in names):
            return {n: latest[n]["exit"] for n in names}
        if time.monotonic() > deadline:
            waiting = [n for n in names if latest.get(n, {}).get("end") is None]
            raise TimeoutError(f"the phases {', '.join(waiting)} of {log} did not end within {timeout_s:.0f} s")
        time.sleep(poll_s)


def summary(record: dict, now: float) -> str:
    """book 53.1 s | slides 1.5 s | pdf 29.0 s + student 14.2 s + pytest 120.3 s side by side: 120.3 s | total | ratio."""
    groups: list[list[dict]] = []  # phases that overlap in time form one group
    phases = [{**p, "end": now, "exit": "running"} if p.get("end") is None else p for p in record["phases"]]
    for phase in sorted(phases, key=lambda p: p["start"]):
        if groups and phase["start"] < max(p["end"] for p in groups[-1]):
            groups[-1].append(phase)
        else:
            groups.append([phase])
    parts = []
    for group in groups:
        state = {0: "", "running": " (running)"}
        each = " + ".join(f"{p['name']} {p['end'] - p['start']:.1f} s{state.get(p['exit'], ' (failed)')}"
                          for p in group)
        wall = max(p["end"] for p in group) - min(p["start"] for p in group)
        parts.append(each if len(group) == 1 else f"{each} side by side: {wall:.1f} s")
    total = now - record["start"]
    book = [p["end"] - p["start"] for p in phases if p["name"] == "book"]
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
