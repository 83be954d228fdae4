"""The build's notebook executor is bounded: a stalled notebook is retried once, then reported by name.

book/_tools/execute_chapters.py executes every chapter for `make book` and `make stress`. These tests
run it on small notebooks written here: one whose cell sleeps past the cell timeout, one whose kernel
stops answering (it sends itself SIGSTOP), one whose worker overruns the wall-clock limit, one whose
cell raises, and one that runs; and check what is reported, by name, and how long it took.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
import pytest

from book_pages import ROOT

sys.path.insert(0, str(ROOT / "book" / "_tools"))
import execute_chapters as ex  # noqa: E402

CELL_TIMEOUT_S = 3  # short bounds, so the test is quick; the build's own are checked below
ATTEMPT_LIMIT_S = 25


def notebook(folder: Path, name: str, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / name
    nbformat.write(nb, path)
    return path


def run(src: Path, tmp_path: Path, **bounds):
    lines: list[str] = []
    started = time.monotonic()
    outcome = ex.execute_with_retry(src, tmp_path / "out" / src.name, log=lines.append,
                                    **{"cell_timeout_s": CELL_TIMEOUT_S, "attempt_limit_s": ATTEMPT_LIMIT_S, **bounds})
    return outcome, lines, time.monotonic() - started


@pytest.fixture
def tmp_path_out(tmp_path):
    (tmp_path / "out").mkdir()
    return tmp_path


def test_a_cell_sleeping_past_the_timeout_is_retried_once_then_reported_by_name(tmp_path_out):
    src = notebook(tmp_path_out, "sleeps_past_the_timeout.ipynb", "x = 1", "import time; time.sleep(600)")
    outcome, lines, seconds = run(src, tmp_path_out)
    assert not outcome.ok and len(outcome.attempts) == 2
    assert [line.split()[0] for line in lines] == ["RETRY", "FAILED"]
    assert all(str(src) in line and "CellTimeoutError" in line for line in lines), lines
    assert seconds < 2 * ATTEMPT_LIMIT_S, f"the stall cost {seconds:.0f} s"


def test_a_kernel_that_never_answers_is_reported_within_the_bound(tmp_path_out):
    src = notebook(tmp_path_out, "kernel_never_answers.ipynb", "import os, signal; os.kill(os.getpid(), signal.SIGSTOP)")
    outcome, lines, seconds = run(src, tmp_path_out)
    assert not outcome.ok and len(outcome.attempts) == 2
    assert "FAILED" in lines[-1] and str(src) in lines[-1] and "stalled 2 times" in lines[-1], lines
    assert seconds < 2 * ATTEMPT_LIMIT_S, f"the stall cost {seconds:.0f} s"


def test_a_worker_past_the_wall_clock_limit_is_killed_with_its_kernel(tmp_path_out):
    src = notebook(tmp_path_out, "overruns.ipynb", "import time; time.sleep(600)")
    outcome, lines, seconds = run(src, tmp_path_out, cell_timeout_s=600, attempt_limit_s=8, retries=0)
    assert not outcome.ok and "no result after 8 s, worker killed" in outcome.attempts[0]
    assert lines == [f"FAILED   {src}: stalled 1 times: {outcome.attempts[0]}"]
    assert seconds < 8 + 5


def test_a_cell_that_raises_fails_at_once_without_a_retry(tmp_path_out):
    src = notebook(tmp_path_out, "raises.ipynb", "raise ValueError('bad chapter')")
    outcome, lines, _ = run(src, tmp_path_out)
    assert not outcome.ok and len(outcome.attempts) == 1
    assert lines == [f"FAILED   {src}: a cell raised: ValueError: bad chapter"]


def test_a_notebook_that_runs_is_written_executed(tmp_path_out):
    src = notebook(tmp_path_out, "runs.ipynb", "x = 6 * 7", "print(x)")
    outcome, lines, _ = run(src, tmp_path_out)
    assert outcome.ok and not outcome.attempts and not lines and outcome.seconds > 0
    out = nbformat.read(tmp_path_out / "out" / "runs.ipynb", as_version=4)
    assert [c.execution_count for c in out.cells] == [1, 2] and out.cells[1].outputs[0]["text"] == "42\n"


def test_the_builds_bounds_keep_a_stall_to_about_a_minute():
    assert ex.CELL_TIMEOUT_S + ex.KERNEL_START_S <= ex.ATTEMPT_LIMIT_S <= 60
    assert ex.RETRIES == 1 and ex.POLL_SLICE_S <= 1


def test_sliced_polls_find_a_message_the_event_loop_was_not_woken_for():
    """A reply already in the socket is found when the poll slice ends, and counted as a missed wake-up."""
    import asyncio
    from queue import Empty

    class Channel:  # a socket whose message is there but whose wake-up never comes
        def __init__(self):
            self.polls = []

        async def get_msg(self, timeout=None):
            self.polls.append(timeout)
            await asyncio.sleep(timeout)
            if len(self.polls) < 3:
                raise Empty
            return {"msg_type": "execute_reply"}

    channel, late = Channel(), []
    ex.slice_polls(channel, "shell", 0.05, late)
    started = time.monotonic()
    msg = asyncio.run(channel.get_msg(timeout=30))
    assert msg["msg_type"] == "execute_reply" and time.monotonic() - started < 1
    assert channel.polls == [0.05, 0.05, 0.05]
    assert [entry[0] for entry in late] == ["shell"] and late[0][2] == "execute_reply"
    with pytest.raises(Empty):  # the overall timeout still holds
        channel.polls = []
        asyncio.run(Channel().get_msg(timeout=0))
