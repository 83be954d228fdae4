"""Longest test files first, so that `make test`'s two pytest workers finish together.

pytest-xdist's `--dist loadfile` keeps a file on one worker and by default hands out the files with
the most tests first; the slowest files (the JupyterLab front end, the offline crawl) have few tests,
so one of them could start last and run alone while the other worker idles. Here each run records
how long each file took (setup, call and teardown of its tests, summed) in _build/test-times.json,
and the next run collects the files longest first (and tells xdist to keep that order), as the
book's executor starts the longest chapters first. Without that file the order is xdist's own.
Which tests run is not changed, only their order.
"""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_TIMES = ROOT / "_build" / "test-times.json"


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _last_times() -> dict[str, float]:
    try:
        times = json.loads(TEST_TIMES.read_text())
    except (OSError, ValueError):
        return {}
    return {name: float(s) for name, s in times.items() if isinstance(s, (int, float))} if isinstance(times, dict) else {}


_SECONDS: dict[str, float] = {}  # this run's seconds per test file


def pytest_configure(config):
    if _last_times() and hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # keep the collection order below, longest file first


def pytest_collection_modifyitems(session, config, items):
    times = _last_times()
    if times:
        order = {id(item): i for i, item in enumerate(items)}
        items.sort(key=lambda item: (-times.get(_file(item.nodeid), 0.0), order[id(item)]))


def pytest_runtest_logreport(report):
    _SECONDS[_file(report.nodeid)] = _SECONDS.get(_file(report.nodeid), 0.0) + report.duration


def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput") or not _SECONDS:  # an xdist worker: the controller writes
        return
    times = {name: s for name, s in _last_times().items() if (ROOT / name).exists()}  # files since removed go
    times.update({name: round(s, 2) for name, s in _SECONDS.items()})
    TEST_TIMES.parent.mkdir(exist_ok=True)
    TEST_TIMES.write_text(json.dumps(dict(sorted(times.items(), key=lambda kv: -kv[1])), indent=1) + "\n")
