"""Time the phases of `make test` and print them in one line at the end, so that a slower phase shows.

  python book/_tools/phase_times.py start LOG              start a new record (the total counts from here)
  python book/_tools/phase_times.py run LOG NAME -- CMD... run CMD, record NAME's start and end; CMD's exit code
  python book/_tools/phase_times.py summary LOG            print the one-line summary
  python book/_tools/phase_times.py probe LOG --while PID  time a fixed loop every PROBE_EVERY_S while PID lives

A phase is recorded when it starts (without an end) and again when it ends, so that a test that needs
what a phase makes can wait for it (`wait_for`, which tests/conftest.py calls: the PDF and the student
edition are made while the tests that do not read them run).

LOG is a small JSON file (the Makefile uses _build/phase-times.json). Phases may run side by side (two
`run`s at once): the summary then gives each one's time and the wall time of the group. The ratio to the
book is the total over the book phase, the measure of issue 20 (make test within four clean book builds),
which issue 33 retired for the ratios to the chapters' serial execution that the line also gives (the book
at most 0.8x, make test less the serial phase at most 5.5x); all are reported, none enforced.

The host's speed changes within a run on a shared machine (a fixed loop took 0.63 s in one hour and
1.97 s in another), and the ratio with it: `probe`, started beside the phases, times a fixed loop's
CPU time (not its wall time, which the phases' own load stretches) every few seconds, and the summary
gives its median in the book phase and after it, so that a ratio moved by the cores' speed shows as
such (the loop sees the cores' speed, not the memory's).
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
    probe_path(log).unlink(missing_ok=True)  # a probe that does not start leaves no old samples behind
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


PROBE_EVERY_S = 5.0
"""How often the probe times its loop: about 10 ms of one core each time, 0.2% of one core."""


def probe_path(log: Path) -> Path:
    """Where `probe` writes its samples beside LOG: one JSON line [time, loop CPU seconds] each."""
    return log.with_name(log.stem + "-probe.jsonl")


def fixed_loop(n: int = 60_000) -> int:
    """The probe's work: the same pure-Python arithmetic every time (about 10 ms on this machine)."""
    x = 0
    for i in range(n):
        x = (x * 31 + i) & 0xFFFFFFFF
    return x


def loop_cpu_seconds() -> float:
    """The CPU time one fixed_loop takes (this thread's CPU time: waiting for a core does not count)."""
    began = time.thread_time()
    fixed_loop()
    return time.thread_time() - began


def process_running(pid: int) -> bool:
    """Whether process `pid` runs: one that has exited but not been waited for (a zombie) does not.
    Read from /proc/<pid>/stat; without /proc, whether the process can be signalled."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    except OSError:  # no /proc: ask the process
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")


def probe(log: Path, watched: int, every_s: float = PROBE_EVERY_S) -> None:
    """Append [time, loop CPU seconds] to probe_path(log) every `every_s` while process `watched` lives."""
    out = probe_path(log)  # `start` has removed the last run's samples
    while process_running(watched):
        with open(out, "a") as f:
            f.write(json.dumps([time.time(), loop_cpu_seconds()]) + "\n")
        time.sleep(every_s)


def read_probe(log: Path) -> list[tuple[float, float]]:
    """The probe's samples (time, loop CPU seconds); none if it did not run."""
    try:
        lines = probe_path(log).read_text().splitlines()
    except OSError:
        return []
    samples = []
    for line in lines:
        try:
            at, seconds = json.loads(line)
        except (ValueError, TypeError):
            continue  # a line cut short by the end of the run
        samples.append((float(at), float(seconds)))
    return samples


def core_speed(phases: list[dict], samples: list[tuple[float, float]], total: float, now: float) -> str:
    """The probe's median loop time in the book phase and after it, and what the ratio to the book would be
    had the time after the book (to `now`) run at the book phase's core speed (an estimate: it assumes every
    phase slows as the loop does; what ran before the book, the serial phase, is left as it was); empty
    without samples on both sides."""
    import statistics

    book = next((p for p in phases if p["name"] == "book"), None)
    if book is None:
        return ""
    during = [s for at, s in samples if book["start"] <= at <= book["end"]]
    after = [s for at, s in samples if at > book["end"]]
    if not during or not after:
        return ""
    in_book, past_book = statistics.median(during), statistics.median(after)
    length, after_book = book["end"] - book["start"], now - book["end"]
    scaled = total - after_book + after_book * in_book / past_book
    return (f" | core speed, a fixed loop's CPU time (median): {1e3 * in_book:.1f} ms in the book phase "
            f"({len(during)} samples), {1e3 * past_book:.1f} ms after it ({len(after)}), "
            f"{past_book / in_book:.2f}x; at the book phase's core speed about {scaled / length:.2f}x")


def summary(record: dict, now: float, samples: list[tuple[float, float]] | None = None,
            serial_s: float | None = None) -> str:
    """book 53.1 s | slides 1.5 s | pdf 29.0 s + student 14.2 s + pytest 120.3 s side by side: 120.3 s | total | ratio;
    with `serial_s` (the chapters' plain serial execution, measured by the "serial" phase of the same run),
    the book's and the rest's ratios to it (issue 33: make test at most 5.5x, the serial phase not counted)."""
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
    speed = core_speed(phases, samples, total, now) if samples else ""
    serial = ""
    if serial_s:
        measuring = sum(p["end"] - p["start"] for p in phases if p["name"] == "serial")
        serial = (f" | the chapters' serial execution {serial_s:.1f} s: book {book[0] / serial_s:.2f}x, "
                  f"make test less the serial phase {(total - measuring) / serial_s:.2f}x") if book else ""
    return "make test phases: " + " | ".join(parts) + f" | total {total:.1f} s{ratio}{serial}{speed}"


def main(argv: list[str]) -> int:
    usage = "usage: phase_times.py start LOG | run LOG NAME -- CMD... | summary LOG | probe LOG --while PID"
    if len(argv) < 2 or argv[0] not in ("start", "run", "summary", "probe"):
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
        record = json.loads(log.read_text())
        serial = log.parent / "serial-baseline.json"  # book/_tools/execute_chapters.py serial writes it
        serial_s = (json.loads(serial.read_text())["seconds"]
                    if serial.exists() and serial.stat().st_mtime >= record["start"] else None)
        print(summary(record, time.time(), read_probe(log), serial_s))
        return 0
    if argv[0] == "probe":
        if len(argv) != 4 or argv[2] != "--while" or not argv[3].isdigit():
            print(f"phase_times.py: probe needs `--while PID` (a process id), got {argv[2:]}", file=sys.stderr)
            return 2
        probe(log, int(argv[3]))
        return 0
    if len(argv) < 5 or argv[3] != "--":
        print(usage, file=sys.stderr)
        return 2
    return run(log, argv[2], argv[4:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
