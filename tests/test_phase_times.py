"""book/_tools/phase_times.py: the one-line phase summary `make test` ends with (issue 20)."""
from __future__ import annotations

import json
import sys

from book_pages import ROOT

sys.path.insert(0, str(ROOT / "book" / "_tools"))
import phase_times  # noqa: E402


def test_summary_gives_each_phase_the_side_by_side_group_the_total_and_the_ratio():
    t0 = 1000.0
    record = {"start": t0, "phases": [
        {"name": "book", "start": t0, "end": t0 + 50, "exit": 0},
        {"name": "student", "start": t0 + 51, "end": t0 + 65, "exit": 0},
        {"name": "pdf", "start": t0 + 50, "end": t0 + 80, "exit": 0},
        {"name": "pytest", "start": t0 + 81, "end": t0 + 231, "exit": 1}]}
    line = phase_times.summary(record, now=t0 + 232)
    assert line == ("make test phases: book 50.0 s | pdf 30.0 s + student 14.0 s side by side: 30.0 s"
                    " | pytest 150.0 s (failed) | total 232.0 s | ratio to book 4.64x")


def test_summary_gives_the_book_and_the_run_over_the_serial_execution_measured_in_it():
    """The serial phase executes the chapters one after another (62.5 s of execution in a 70 s phase): the book
    over that sum, and the whole run less the serial phase (a measurement, not a check) over it."""
    t0 = 1000.0
    record = {"start": t0, "phases": [
        {"name": "serial", "start": t0, "end": t0 + 70, "exit": 0},
        {"name": "book", "start": t0 + 70, "end": t0 + 115, "exit": 0},
        {"name": "pytest", "start": t0 + 115, "end": t0 + 370, "exit": 0}]}
    line = phase_times.summary(record, now=t0 + 370, serial_s=62.5)
    assert line.endswith("| total 370.0 s | ratio to book 8.22x | the chapters' serial execution 62.5 s: "
                         "book 0.72x, make test less the serial phase 4.80x")


def test_summary_gives_the_hosts_speed_in_the_book_phase_and_after_it():
    """The probe's median loop time in the book phase and after it, their ratio, and the ratio the
    total would have at the book phase's core speed: here the loop takes 1.26x as long after the book, so
    the 182 s after it would have taken about 144 s: 3.89x a 50 s book instead of 4.64x."""
    t0 = 1000.0
    record = {"start": t0, "phases": [{"name": "book", "start": t0, "end": t0 + 50, "exit": 0},
                                      {"name": "pytest", "start": t0 + 51, "end": t0 + 231, "exit": 0}]}
    samples = [(t0 + 1, 0.010), (t0 + 20, 0.008), (t0 + 40, 0.009)]  # median 9 ms
    samples += [(t0 + 60, 0.0110), (t0 + 100, 0.0115), (t0 + 200, 0.0112), (t0 + 230, 0.0120)]  # 11.35 ms
    line = phase_times.summary(record, now=t0 + 232, samples=samples)
    assert line.endswith("| ratio to book 4.64x | core speed, a fixed loop's CPU time (median): 9.0 ms in the book "
                         "phase (3 samples), 11.3 ms after it (4), 1.26x; at the book phase's core speed about 3.89x")
    # without samples on both sides of the book's end, nothing is said of the speed
    assert phase_times.summary(record, now=t0 + 232, samples=samples[:3]).endswith("ratio to book 4.64x")
    assert phase_times.summary(record, now=t0 + 232, samples=[]).endswith("ratio to book 4.64x")


def test_the_hosts_speed_scales_only_what_ran_after_the_book():
    """A serial phase before the book (70 s) is not time after the book: at the book phase's core speed the 180 s
    after it would take 180 / 1.25 = 144 s, so (70 + 45 + 144) / 45 = 5.76x, not (45 + 250 / 1.25) / 45 = 5.44x,
    which would scale the serial phase too."""
    t0 = 1000.0
    record = {"start": t0, "phases": [
        {"name": "serial", "start": t0, "end": t0 + 70, "exit": 0},
        {"name": "book", "start": t0 + 70, "end": t0 + 115, "exit": 0},
        {"name": "pytest", "start": t0 + 115, "end": t0 + 295, "exit": 0}]}
    samples = [(t0 + 80, 0.008), (t0 + 200, 0.010)]
    line = phase_times.summary(record, now=t0 + 295, samples=samples)
    assert line.endswith("8.0 ms in the book phase (1 samples), 10.0 ms after it (1), 1.25x; at the book phase's "
                         "core speed about 5.76x")


def test_the_probe_times_its_loop_while_the_watched_process_lives(tmp_path):
    import subprocess

    log = tmp_path / "phases.json"
    watched = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.6)"])
    phase_times.probe(log, watched.pid, every_s=0.1)  # returns once the watched process is gone
    watched.wait()
    samples = phase_times.read_probe(log)
    assert 2 <= len(samples) <= 12
    assert all(0 < seconds < 1 for _, seconds in samples)
    assert [at for at, _ in samples] == sorted(at for at, _ in samples)
    with open(phase_times.probe_path(log), "a") as f:
        f.write("[1.0,")  # a line cut short when the run ended: skipped
    assert phase_times.read_probe(log) == samples
    assert phase_times.read_probe(tmp_path / "none.json") == []


def test_run_records_the_phase_and_passes_on_the_exit_code(tmp_path):
    log = tmp_path / "phases.json"
    phase_times.probe_path(log).write_text("[1.0, 0.01]\n")  # an earlier run's samples
    assert phase_times.main(["start", str(log)]) == 0
    assert phase_times.read_probe(log) == []
    assert phase_times.main(["run", str(log), "fails", "--", sys.executable, "-c", "raise SystemExit(3)"]) == 3
    assert phase_times.main(["run", str(log), "runs", "--", sys.executable, "-c", "pass"]) == 0
    phases = json.loads(log.read_text())["phases"]
    assert [(p["name"], p["exit"]) for p in phases] == [("fails", 3), ("runs", 0)]
    assert all(p["end"] >= p["start"] for p in phases)


def test_bad_usage_is_one_line_and_exit_2(tmp_path, capsys):
    assert phase_times.main(["run", str(tmp_path / "x.json"), "name-without-command"]) == 2
    assert phase_times.main(["summary", str(tmp_path / "missing.json")]) == 2
    assert phase_times.main(["probe", str(tmp_path / "x.json"), "--while", "make"]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3 and "usage" in errors[0] and "missing.json" in errors[1]
    assert "probe needs `--while PID`" in errors[2] and "'make'" in errors[2]


def test_a_phase_is_recorded_when_it_starts_and_waited_for_until_it_ends(tmp_path):
    import threading
    import time

    log = tmp_path / "phases.json"
    phase_times.main(["start", str(log)])
    marker = tmp_path / "go"
    script = f"import pathlib, time\nwhile not pathlib.Path({str(marker)!r}).exists(): time.sleep(0.05)\nraise SystemExit(4)"
    runner = threading.Thread(target=phase_times.main, args=(["run", str(log), "slow", "--", sys.executable, "-c", script],))
    runner.start()
    deadline = time.monotonic() + 10
    while not json.loads(log.read_text())["phases"] and time.monotonic() < deadline:
        time.sleep(0.05)
    (only,) = json.loads(log.read_text())["phases"]
    assert only["name"] == "slow" and only["end"] is None  # recorded at its start
    assert "slow" in phase_times.summary(json.loads(log.read_text()), now=only["start"] + 1) and "(running)" in \
        phase_times.summary(json.loads(log.read_text()), now=only["start"] + 1)
    try:
        phase_times.wait_for(log, ["slow"], timeout_s=0.3, poll_s=0.05)
        raise AssertionError("wait_for returned while the phase ran")
    except TimeoutError as error:
        assert "slow" in str(error)
    marker.touch()
    assert phase_times.wait_for(log, ["slow"], timeout_s=10, poll_s=0.05) == {"slow": 4}
    runner.join()


def test_a_reader_never_sees_a_record_half_written(tmp_path):
    """Phases write the record while wait_for reads it without a lock: every read parses."""
    import threading

    log = tmp_path / "phases.json"
    phase_times.main(["start", str(log)])
    done = threading.Event()

    def write_many():
        for k in range(300):
            phase_times._update(log, lambda record, k=k: record["phases"].append(
                {"name": f"p{k}", "start": 0.0, "end": 1.0, "exit": 0}))
        done.set()

    writer = threading.Thread(target=write_many)
    writer.start()
    reads = 0
    while not done.is_set():
        json.loads(log.read_text())  # raises on a half-written file
        reads += 1
    writer.join()
    assert reads > 0 and len(json.loads(log.read_text())["phases"]) == 300


def test_the_tests_run_long_first_then_those_that_wait_then_the_short_ones(monkeypatch):
    """make test's order (tests/conftest.py run_order): with the pdf and student phases beside the tests,
    the files that wait for neither run first, longest first; then those that wait, pdf's before
    student's; then the short files (under FILLER_S in the last run), which keep both workers busy
    while the last waiting file finishes. Without phases, only the longest-first order."""
    import conftest

    times = {"tests/test_frontend.py": 100.0, "tests/test_offline.py": 80.0, "tests/test_student.py": 15.0,
             "tests/test_claims.py": 10.0, "tests/test_cli.py": 1.5, "tests/test_run.py": 0.2}
    files = ["tests/test_run.py", "tests/test_student.py", "tests/test_cli.py", "tests/test_offline.py",
             "tests/test_claims.py", "tests/test_frontend.py", "tests/test_new.py"]

    def ordered():
        keys = {f"{name}::test_x": conftest.run_order(f"{name}::test_x", times, i) for i, name in enumerate(files)}
        return [nodeid.split("::")[0] for nodeid in sorted(keys, key=keys.get)]

    monkeypatch.setenv("TX_AFTER_PHASES", "pdf student")
    assert ordered() == ["tests/test_frontend.py", "tests/test_claims.py", "tests/test_new.py",  # no time yet: not short
                         "tests/test_offline.py", "tests/test_student.py", "tests/test_cli.py", "tests/test_run.py"]
    monkeypatch.delenv("TX_AFTER_PHASES")
    assert ordered() == ["tests/test_frontend.py", "tests/test_offline.py", "tests/test_student.py",
                         "tests/test_claims.py", "tests/test_cli.py", "tests/test_run.py", "tests/test_new.py"]


def test_only_a_whole_files_time_is_recorded():
    """tests/conftest.py records a file's seconds only when each of its collected tests reported, and
    none when the run picked some tests of a file (-k, -m, --deselect, --lf, a node id): a partial time
    would send a long file to the short ones at the end of the next `make test`."""
    import types

    import conftest

    seconds = {"tests/test_slides.py": 0.5, "tests/test_cli.py": 2.0}
    ran = {"tests/test_slides.py": {"tests/test_slides.py::test_a"},
           "tests/test_cli.py": {"tests/test_cli.py::test_a", "tests/test_cli.py::test_b"}}
    collected = {"tests/test_slides.py": 30, "tests/test_cli.py": 2}
    assert conftest.whole_files(seconds, ran, collected) == {"tests/test_cli.py": 2.0}
    assert conftest.whole_files(seconds, ran, {}) == {}  # nothing known to be whole

    def config(args, **options):
        values = {"keyword": "", "markexpr": "", "deselect": None, "lf": False, **options}
        return types.SimpleNamespace(args=args, getoption=lambda name, default=None: values.get(name, default))

    assert not conftest.selects_part_of_files(config(["tests", "_build/student/notebooks/"]))
    assert not conftest.selects_part_of_files(config(["tests/test_slides.py"]))
    assert conftest.selects_part_of_files(config(["tests/test_slides.py::test_decks_open_offline"]))
    assert conftest.selects_part_of_files(config(["tests"], keyword="slides"))
    assert conftest.selects_part_of_files(config(["tests"], markexpr="not browser"))
    assert conftest.selects_part_of_files(config(["tests"], deselect=["tests/test_cli.py::test_a"]))
    assert conftest.selects_part_of_files(config(["tests"], lf=True))
