"""Longest test files first, so that `make test`'s two pytest workers finish together.

pytest-xdist's `--dist loadfile` keeps a file on one worker and by default hands out the files with
the most tests first; the slowest files (the JupyterLab front end, the offline crawl) have few tests,
so one of them could start last and run alone while the other worker idles. Here each run records
how long each file took (setup, call and teardown of its tests, summed; only for a file whose every
test ran) in _build/test-times.json, and the next run collects the files longest first (and tells
xdist to keep that order), as the book's executor starts the longest chapters first. A fresh clone has no such file and reads the times
recorded in the repository (tests/test-times.json) instead; without either the order is xdist's own.
Which tests run is not changed, only their order. Under `make test` (TX_AFTER_PHASES set), the test
files that read the PDF, the slides or the student edition come last and wait for the phases that
make them, which run side by side with the other tests (AFTER_BUILDS below).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEST_TIMES = ROOT / "_build" / "test-times.json"
RECORDED_TIMES = ROOT / "tests" / "test-times.json"
"""A copy of one `make test`'s _build/test-times.json, for a fresh clone's first run (refresh it with
`cp _build/test-times.json tests/`): only the order of the files depends on it."""


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _last_times() -> dict[str, float]:
    """Seconds per test file of the last run here, else of the run recorded in the repository."""
    try:
        times = json.loads((TEST_TIMES if TEST_TIMES.exists() else RECORDED_TIMES).read_text())
    except (OSError, ValueError):
        return {}
    return {name: float(s) for name, s in times.items() if isinstance(s, (int, float))} if isinstance(times, dict) else {}


_SECONDS: dict[str, float] = {}  # this run's seconds per test file


STUDENT = ROOT / "_build" / "student"
STUDENT_KERNELS = ROOT / "_build" / "jupyter-student"
"""Where the kernelspec `tx-student` lives (book/_tools/student_env.py): the student environment's
`python -I -B`, which nbval starts for the student folder's notebooks (`--nbval-kernel-name=tx-student`)."""


def _student_kernel(config) -> None:
    """With `--nbval-kernel-name=tx-student` (make test): nbval runs the notebooks in the student
    environment. Make it if the student folder's requirements changed since it was made, point its
    ledger at the folder's copy, and write the kernelspec where jupyter_client finds it (JUPYTER_PATH,
    set before xdist starts its workers, which inherit it)."""
    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    import student_env

    if hasattr(config, "workerinput"):
        return  # the controller has made it and set JUPYTER_PATH, which the worker inherited
    requirements = STUDENT / "requirements.txt"
    if not requirements.exists():
        raise pytest.UsageError("--nbval-kernel-name=tx-student: build the student folder first (make student)")
    student_env.make(requirements.read_text(encoding="utf-8"), STUDENT)
    student_env.point_at(STUDENT)
    student_env.write_kernel(STUDENT_KERNELS)
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [str(STUDENT_KERNELS)] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p])


def pytest_configure(config):
    if (_last_times() or os.environ.get("TX_AFTER_PHASES")) and hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # keep the collection order below, longest file first
    if getattr(config.option, "nbval_kernel_name", None) == "tx-student":
        _student_kernel(config)


AFTER_BUILDS = {
    "tests/test_book_html.py": ("pdf",), "tests/test_browser.py": ("pdf",), "tests/test_offline.py": ("pdf",),
    "tests/test_pdf.py": ("pdf",),
    "tests/test_answered_before_asked.py": ("student",), "tests/test_student.py": ("student",),
}
"""The test files that read what `make test` builds while the other tests run, and the phases that
build it: the PDF (`pdf`, which also copies itself into the book and links it from the landing page,
so the files that read the book's pages wait for it too) and the student edition's HTML and PDF
(`student`). With TX_AFTER_PHASES (the names of the phases running side by side, in the order they
are expected to end, which make test sets), a file's tests wait for its phases to end and run after
every file that waits for none but the shortest (FILLER_S), and the files of an earlier phase before
those of a later; a phase that failed fails them by name. Every other test reads only the sources,
the book's build and the slides (made before), or the student folder's notebooks, library and
requirements (written before, and kept by the phases: --keep-notebooks)."""
PHASES = ROOT / "_build" / "phase-times.json"


def _running_phases() -> list[str]:
    return os.environ.get("TX_AFTER_PHASES", "").split()


def _waits_for(nodeid: str) -> list[str]:
    """The phases running beside the tests (TX_AFTER_PHASES) whose output this test's file reads."""
    return [name for name in AFTER_BUILDS.get(_file(nodeid), ()) if name in _running_phases()]


def _rank(nodeid: str) -> int:
    """0 for a file that waits for nothing; else 1 + the place of the last phase it waits for."""
    return 1 + max((_running_phases().index(n) for n in _waits_for(nodeid)), default=-1)


FILLER_S = 3.0
"""With phases running beside the tests, a file that waits for none but took less than this in the last
run goes after the files that wait: such short files keep both workers busy to the end, where the
last file that waited (the offline crawl, about a minute) would otherwise finish alone. The waiting
files still start long after their phases end (50 s and more in the runs of 2 December 2026)."""


def run_order(nodeid: str, times: dict[str, float], index: int) -> tuple:
    """The sort key of the test `nodeid` (the `index`-th collected), given each file's seconds in the last
    run: files that wait for nothing first, longest first; then those that wait, by the phase they wait
    for, longest first; then the short files (FILLER_S)."""
    rank, seconds = _rank(nodeid), times.get(_file(nodeid), 0.0)
    if rank == 0 and _running_phases() and 0.0 < seconds < FILLER_S:
        rank = 1 + len(_running_phases())
    return rank, -seconds, index


_COLLECTED: dict[str, int] = {}  # this run's tests per file, as collected (a worker's collection under xdist)


def _count_collected(nodeids) -> None:
    _COLLECTED.clear()
    for nodeid in nodeids:
        _COLLECTED[_file(nodeid)] = _COLLECTED.get(_file(nodeid), 0) + 1


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """Under xdist the controller collects nothing itself: it counts a worker's collection."""
    _count_collected(ids)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    _count_collected(item.nodeid for item in items)
    times = _last_times()
    order = {id(item): i for i, item in enumerate(items)}
    if times or _running_phases():
        items.sort(key=lambda item: run_order(item.nodeid, times, order[id(item)]))


_PHASES_DONE: dict[str, int] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    names = [name for name in _waits_for(item.nodeid) if name not in _PHASES_DONE]
    if names:
        sys.path.insert(0, str(ROOT / "book" / "_tools"))
        import phase_times

        _PHASES_DONE.update(phase_times.wait_for(PHASES, names))
    failed = [f"{name} (exit {code})" for name in _waits_for(item.nodeid)
              if (code := _PHASES_DONE[name]) != 0]
    if failed:
        pytest.fail(f"{_file(item.nodeid)} reads what these phases make, and they failed: {', '.join(failed)}",
                    pytrace=False)


_RAN: dict[str, set[str]] = {}  # this run's tests per file that reported


def pytest_runtest_logreport(report):
    _SECONDS[_file(report.nodeid)] = _SECONDS.get(_file(report.nodeid), 0.0) + report.duration
    _RAN.setdefault(_file(report.nodeid), set()).add(report.nodeid)


def whole_files(seconds: dict[str, float], ran: dict[str, set[str]], collected: dict[str, int]) -> dict[str, float]:
    """The seconds of the files whose every collected test reported (`ran`), out of `collected` tests
    per file: a run stopped early (-x, Ctrl-C) times only part of a file."""
    return {name: s for name, s in seconds.items() if len(ran.get(name, ())) >= collected.get(name, 0) > 0}


def selects_part_of_files(config) -> bool:
    """Whether the run picks some tests of a file (-k, -m, --deselect, --lf, or a test's node id):
    then no file's time is whole. Recorded, a few of a file's tests would send a minute-long file to
    the short files at the end of the next `make test` (FILLER_S), to run there alone (a local run of
    2 December 2026: the slides' 26 s after every other file)."""
    return bool(config.getoption("keyword", "") or config.getoption("markexpr", "")
                or config.getoption("deselect", None) or config.getoption("lf", False)
                or any("::" in str(arg) for arg in config.args))


def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput") or not _SECONDS:  # an xdist worker: the controller writes
        return
    whole = {} if selects_part_of_files(session.config) else whole_files(_SECONDS, _RAN, _COLLECTED)
    if not whole:
        return
    times = {name: s for name, s in _last_times().items() if (ROOT / name).exists()}  # files since removed go
    times.update({name: round(s, 2) for name, s in whole.items()})
    TEST_TIMES.parent.mkdir(exist_ok=True)
    TEST_TIMES.write_text(json.dumps(dict(sorted(times.items(), key=lambda kv: -kv[1])), indent=1) + "\n")
