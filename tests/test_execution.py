"""The build's notebook executor is bounded: a stalled notebook is retried once, then reported by name.

book/_tools/execute_chapters.py executes every chapter for `make book` and `make stress`. These tests
run it on small notebooks written here: one whose cell sleeps past the cell timeout, one whose kernel
stops answering (it sends itself SIGSTOP), one whose kernel never starts, one whose worker overruns
the wall-clock limit, one killed while its kernel is still starting, one whose cell raises, and one
that runs; and check what is reported, by name, and how long it took. The executor's bounds are its keyword arguments (the build's values are the
defaults, checked below): here they are a second or a few, so each stall shows its timeout, its
retry and its report without waiting out the build's 30-60 s. The seven executions run side by side
(a module fixture); each test reads its own.
"""
from __future__ import annotations

import inspect
import json
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from book_pages import ROOT

sys.path.insert(0, str(ROOT / "book" / "_tools"))
import execute_chapters as ex  # noqa: E402
from phase_times import process_running  # noqa: E402

CELL_TIMEOUT_S = 1  # the build waits 30 s for a cell; a stall shows the same way after one
KERNEL_START_S = 10  # generous: only the kernel that never starts waits it out, with its own bound below
NEVER_STARTS_S = 1  # the bound for the kernel that never starts (the build's is 30 s)
ATTEMPT_LIMIT_S = 15  # wall clock of one attempt; above kernel start plus the cell timeout, under load too
OVERRUN_LIMIT_S = 8  # the wall clock the overrunning worker is killed at (the build's is 60 s), past a kernel start under load
STARTING_LIMIT_S = 8  # the wall clock of the worker killed while its kernel (which never answers) is starting
SCENARIOS = ("sleeps_past_the_timeout", "kernel_never_answers", "kernel_never_starts", "overruns",
             "killed_while_its_kernel_starts", "raises", "runs")


def notebook(folder: Path, name: str, *sources: str, kernel: str = "python3") -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    path = folder / name
    nbformat.write(nb, path)
    return path


def run(src: Path, out_dir: Path, **bounds) -> dict:
    """One execution through execute_with_retry: its outcome, what it logged, and its wall seconds."""
    lines: list[str] = []
    started = time.monotonic()
    outcome = ex.execute_with_retry(src, out_dir / src.name, log=lines.append,
                                    **{"cell_timeout_s": CELL_TIMEOUT_S, "kernel_start_s": KERNEL_START_S,
                                       "attempt_limit_s": ATTEMPT_LIMIT_S, **bounds})
    return {"src": src, "outcome": outcome, "lines": lines, "seconds": time.monotonic() - started}


def attempt_seconds(outcome) -> list[float]:
    """The wall seconds of each failed attempt, as execute_with_retry records them ("... (3.2 s)")."""
    return [float(re.search(r"\(([\d.]+) s\)$", a).group(1)) for a in outcome.attempts]


def pid_gone(pid: int, within_s: float = 5) -> bool:
    """Whether process `pid` has ended (or is a zombie) within `within_s` seconds."""
    deadline = time.monotonic() + within_s
    while True:
        if not process_running(pid):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


@pytest.fixture(scope="module")
def executions(tmp_path_factory) -> dict:
    """Every scenario executed once, all at the same time, with the short bounds above."""
    tmp = tmp_path_factory.mktemp("execution")
    (tmp / "out").mkdir()
    pids = {name: tmp / f"{name}.pids" for name in ("overruns", "kernel_never_starts", "killed_while_its_kernel_starts")}
    # Kernels that never answer their first request: processes that only sleep (their pids recorded).
    for kernel, pid_log in (("never_starts", pids["kernel_never_starts"]),
                            ("still_starting", pids["killed_while_its_kernel_starts"])):
        spec = tmp / "jupyter" / "kernels" / kernel / "kernel.json"
        spec.parent.mkdir(parents=True)
        spec.write_text(json.dumps({"display_name": kernel, "language": "python", "argv": [
            sys.executable, "-c", f"import os, time; open({str(pid_log)!r}, 'a')"
                                  ".write(f'{os.getpid()}\\n'); time.sleep(600)", "{connection_file}"]}))
    jobs = {
        "sleeps_past_the_timeout": (notebook(tmp, "sleeps_past_the_timeout.ipynb", "x = 1",
                                             "import time; time.sleep(600)"), {}),
        "kernel_never_answers": (notebook(tmp, "kernel_never_answers.ipynb",
                                          "import os, signal; os.kill(os.getpid(), signal.SIGSTOP)"), {}),
        "kernel_never_starts": (notebook(tmp, "kernel_never_starts.ipynb", "x = 1", kernel="never_starts"),
                                {"kernel_start_s": NEVER_STARTS_S}),
        "overruns": (notebook(tmp, "overruns.ipynb",
                              f"import os, time; open({str(pids['overruns'])!r}, 'a').write(f'{{os.getpid()}}\\n')",
                              "time.sleep(600)"),
                     {"cell_timeout_s": 600, "attempt_limit_s": OVERRUN_LIMIT_S, "retries": 0}),
        "killed_while_its_kernel_starts": (notebook(tmp, "killed_while_its_kernel_starts.ipynb", "x = 1",
                                                    kernel="still_starting"),
                                           {"kernel_start_s": 600, "attempt_limit_s": STARTING_LIMIT_S, "retries": 0}),
        "raises": (notebook(tmp, "raises.ipynb", "raise ValueError('bad chapter')"), {}),
        "runs": (notebook(tmp, "runs.ipynb", "x = 6 * 7", "print(x)"), {}),
    }
    assert set(jobs) == set(SCENARIOS)
    with pytest.MonkeyPatch.context() as mp:  # the workers find the kernel that never starts here
        mp.setenv("JUPYTER_PATH", os.pathsep.join(filter(None, [str(tmp / "jupyter"), os.environ.get("JUPYTER_PATH")])))
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            futures = {name: pool.submit(run, src, tmp / "out", **bounds) for name, (src, bounds) in jobs.items()}
            done = {name: future.result() for name, future in futures.items()}
        # The overrunning worker is killed on its wall clock only once its kernel runs the sleeping
        # cell; a kernel that died while starting (once, with a dozen kernels starting on the machine:
        # "Kernel died before replying to kernel_info (3.7 s)") tests nothing of that: run it again.
        if any("before replying to kernel_info" in a for a in done["overruns"]["outcome"].attempts):
            pids["overruns"].unlink(missing_ok=True)
            src, bounds = jobs["overruns"]
            done["overruns"] = run(src, tmp / "out", **bounds)
    for name, path in pids.items():
        done[name]["kernel_pids"] = [int(p) for p in path.read_text().split()] if path.exists() else []
    done["runs"]["written"] = tmp / "out" / "runs.ipynb"
    return done


def test_a_cell_sleeping_past_the_timeout_is_retried_once_then_reported_by_name(executions):
    src, outcome, lines, seconds = (executions["sleeps_past_the_timeout"][k] for k in ("src", "outcome", "lines", "seconds"))
    assert not outcome.ok and len(outcome.attempts) == 2
    assert [line.split()[0] for line in lines] == ["RETRY", "FAILED"]
    assert all(str(src) in line and "CellTimeoutError" in line for line in lines), lines
    assert all(s >= CELL_TIMEOUT_S for s in attempt_seconds(outcome)), outcome.attempts
    assert seconds < 2 * ATTEMPT_LIMIT_S, f"the stall cost {seconds:.0f} s"


def test_a_kernel_that_never_answers_is_reported_within_the_bound(executions):
    src, outcome, lines, seconds = (executions["kernel_never_answers"][k] for k in ("src", "outcome", "lines", "seconds"))
    assert not outcome.ok and len(outcome.attempts) == 2
    assert [line.split()[0] for line in lines] == ["RETRY", "FAILED"]
    assert "FAILED" in lines[-1] and str(src) in lines[-1] and "stalled 2 times" in lines[-1], lines
    assert all(s >= CELL_TIMEOUT_S for s in attempt_seconds(outcome)), outcome.attempts
    assert seconds < 2 * ATTEMPT_LIMIT_S, f"the stall cost {seconds:.0f} s"


def test_a_kernel_that_never_starts_is_retried_once_then_reported_by_name(executions):
    run_ = executions["kernel_never_starts"]
    src, outcome, lines, seconds = (run_[k] for k in ("src", "outcome", "lines", "seconds"))
    assert not outcome.ok and len(outcome.attempts) == 2
    assert [line.split()[0] for line in lines] == ["RETRY", "FAILED"]
    assert all(str(src) in line and f"didn't respond in {NEVER_STARTS_S} seconds" in line for line in lines), lines
    assert all(s >= NEVER_STARTS_S for s in attempt_seconds(outcome)), outcome.attempts
    assert seconds < 2 * ATTEMPT_LIMIT_S, f"the stall cost {seconds:.0f} s"
    assert len(run_["kernel_pids"]) == 2, "each attempt starts its own kernel"
    assert all(pid_gone(pid) for pid in run_["kernel_pids"]), "a kernel that never started was left running"


def test_a_worker_past_the_wall_clock_limit_is_killed_with_its_kernel(executions):
    run_ = executions["overruns"]
    src, outcome, lines, seconds = (run_[k] for k in ("src", "outcome", "lines", "seconds"))
    assert not outcome.ok and f"no result after {OVERRUN_LIMIT_S} s, worker killed" in outcome.attempts[0]
    assert lines == [f"FAILED   {src}: stalled 1 times: {outcome.attempts[0]}"]
    assert OVERRUN_LIMIT_S <= seconds < OVERRUN_LIMIT_S + 5
    assert len(run_["kernel_pids"]) == 1, "the kernel did not reach the overrunning cell within the limit"
    assert pid_gone(run_["kernel_pids"][0]), "the overrunning worker's kernel was left running"


def test_a_worker_killed_while_its_kernel_starts_takes_the_kernel_with_it(executions):
    """A worker past its wall clock before its kernel has answered (a loaded machine): the kernel is
    killed with it, at once, instead of living on and holding the worker's output pipes (the kill
    then waited 10 s more for them: 18.0 s for an 8 s limit in one `make test`)."""
    run_ = executions["killed_while_its_kernel_starts"]
    outcome, seconds = run_["outcome"], run_["seconds"]
    assert not outcome.ok and f"no result after {STARTING_LIMIT_S} s, worker killed" in outcome.attempts[0]
    assert STARTING_LIMIT_S <= seconds < STARTING_LIMIT_S + 5, f"the kill took {seconds:.1f} s"
    assert len(run_["kernel_pids"]) == 1, "the kernel's process was not started within the limit"
    assert pid_gone(run_["kernel_pids"][0]), "the kernel of the killed worker was left running"


def test_a_cell_that_raises_fails_at_once_without_a_retry(executions):
    src, outcome, lines = (executions["raises"][k] for k in ("src", "outcome", "lines"))
    assert not outcome.ok and len(outcome.attempts) == 1
    assert lines == [f"FAILED   {src}: a cell raised: ValueError: bad chapter"]


def test_a_notebook_that_runs_is_written_executed(executions):
    outcome, lines = executions["runs"]["outcome"], executions["runs"]["lines"]
    assert outcome.ok and not outcome.attempts and not lines and outcome.seconds > 0
    out = nbformat.read(executions["runs"]["written"], as_version=4)
    assert [c.execution_count for c in out.cells] == [1, 2] and out.cells[1].outputs[0]["text"] == "42\n"


def test_the_builds_bounds_keep_a_stall_to_about_a_minute():
    assert ex.CELL_TIMEOUT_S + ex.KERNEL_START_S <= ex.ATTEMPT_LIMIT_S <= 60
    assert ex.RETRIES == 1 and ex.POLL_SLICE_S <= 1
    # The build passes no bound: the executor's defaults and its command line's are the build's values.
    build = {"kernel_start_s": ex.KERNEL_START_S, "cell_timeout_s": ex.CELL_TIMEOUT_S,
             "iopub_timeout_s": ex.IOPUB_TIMEOUT_S, "attempt_limit_s": ex.ATTEMPT_LIMIT_S,
             "retries": ex.RETRIES, "poll_slice_s": ex.POLL_SLICE_S}
    defaults = inspect.signature(ex.execute_with_retry).parameters
    assert {name: defaults[name].default for name in build} == build
    args = ex.build_parser().parse_args(["book"])
    assert {"kernel_start_s": args.kernel_start_timeout, "cell_timeout_s": args.cell_timeout,
            "iopub_timeout_s": args.iopub_timeout, "attempt_limit_s": args.attempt_limit,
            "retries": args.retries, "poll_slice_s": args.poll_slice} == build


@pytest.mark.parametrize("option, value", [("--cell-timeout", "0"), ("--attempt-limit", "-5"),
                                           ("--kernel-start-timeout", "soon"), ("--iopub-timeout", "inf")])
def test_a_bad_bound_is_refused_in_one_line(option, value, capsys):
    with pytest.raises(SystemExit) as exit_:
        ex.main(["execute", option, value])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_.value.code == 2 and option in error and repr(value) in error, error


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
