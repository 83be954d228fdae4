"""Execute the book's chapter notebooks in parallel, from scratch, with every wait bounded.

Why a script of our own rather than myst-nb's executor: myst-nb runs the notebooks one after another
(one core idle), and nbclient's waits on the kernel's replies are as long as the cell timeout, so a
reply whose wake-up the client misses costs the whole timeout, silently (docs/execution.md). Here
each notebook runs in a fresh interpreter and kernel; the client polls its sockets in one-second
slices (a missed wake-up costs at most a second, and is counted); kernel start, each cell and the
whole attempt have bounds; a stalled attempt is retried once; every retry and failure is printed
with the notebook's name.

Commands (run from anywhere; paths are the repository's):
  python book/_tools/execute_chapters.py execute       execute every chapter into _build/executed/
                                                         and a fresh jupyter-cache (_build/.jupyter_cache)
  python book/_tools/execute_chapters.py book          wipe, execute, then `jupyter-book build` reading
                                                         the cache; prints the timings (--serial-baseline:
                                                         first execute the chapters one after another)
  python book/_tools/execute_chapters.py serial        execute the chapters one after another as a reader's
                                                         kernel runs them; their sum into _build/serial-baseline.json
  python book/_tools/execute_chapters.py stress -n 5   execute every chapter 5 times, report the slowest
                                                         execution and the stalls and retries
  python book/_tools/execute_chapters.py one SRC OUT   execute one notebook in this process (a worker)

Every bound is an option (--kernel-start-timeout, --cell-timeout, --iopub-timeout, --attempt-limit,
--retries, --poll-slice) and a keyword argument of execute_with_retry/execute_all, with the build's
values below as defaults; tests/test_execution.py runs the same path with bounds of a second or two.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ledger.figures import FIGURE_STORE_ENV

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "_build"
EXECUTED = BUILD / "executed"  # <docname>.ipynb, executed, for any target that renders the chapters
CACHE = BUILD / ".jupyter_cache"  # the same notebooks in the jupyter-cache myst-nb reads (_config.yml)
TIMINGS = BUILD / "execution-times.json"  # the last run's times: longest chapters start first
KEPT_FIGURES = BUILD / "figures" / "kept"  # each figure the build's kernels showed, pickled (ledger.figures.keep_figure)
SERIAL = BUILD / "serial-baseline.json"  # `--serial-baseline`'s sum, which `make test`'s summary divides by

KERNEL_START_S = 30  # a kernel starts in about a second; 30 s allows a loaded machine
CELL_TIMEOUT_S = 30  # the slowest cell takes a few seconds
IOPUB_TIMEOUT_S = 10  # outputs still arriving after the reply; past this the attempt fails, not silently
POLL_SLICE_S = 1.0  # longest a reply can sit unnoticed in a socket whose wake-up was missed
ATTEMPT_LIMIT_S = 60  # wall clock for one execution (kernel start to shutdown); the worker is killed past it
RETRIES = 1  # a stalled execution is run once more; a cell that raises is not retried
EXIT_CELL_ERROR, EXIT_STALLED = 3, 4
WORKER_REPORTS = ("a cell raised: ", "stalled: ")  # how the worker's one line on stderr starts
# One worker more than cores: a worker's client waits on its kernel's replies, and a kernel waits while
# it starts; on this 2-core machine 3 workers executed the chapters in 22-29 s where 2 took 32-47 s
# (paired runs, docs/execution.md).
WORKERS = (os.cpu_count() or 1) + 1


# ----------------------------------------------------------------------------------------------------
# The worker: one notebook, one kernel, in this process.

def bounded_client(nb, cwd: str, poll_slice_s: float, cell_timeout_s: float, late_wakeups: list,
                   pid_file: Path | None = None, kernel_start_s: float = KERNEL_START_S,
                   iopub_timeout_s: float = IOPUB_TIMEOUT_S):
    """An nbclient NotebookClient with bounded waits whose socket polls are cut into poll_slice_s slices.

    Bounds in seconds: kernel_start_s to start the kernel and get its first reply, cell_timeout_s for
    each cell's reply, iopub_timeout_s for a cell's outputs after its reply.

    late_wakeups collects (channel, seconds waited, message type and cell) for every message found
    only when a poll timed out: it was in the socket, but the event loop was never woken for it (0 disables the slicing,
    which is nbclient's own behaviour). The kernel's process id is written to pid_file, so that a
    worker killed for overrunning can take its kernel (started in a session of its own) with it.
    """
    from nbclient import NotebookClient

    where = {"cell": "before the first cell"}  # what the client is executing, for the missed wake-up report

    class SlicedPollClient(NotebookClient):
        code_cells = sum(1 for cell in nb.cells if cell.cell_type == "code")

        async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
            if cell.cell_type == "code":
                where["cell"] = f"code cell {self.code_cells_executed + 1} of {self.code_cells}"
            return await super().async_execute_cell(cell, cell_index, *args, **kwargs)

        async def async_start_new_kernel(self, **kwargs):
            # Written as soon as the kernel's process is launched, before it answers: a worker killed
            # while its kernel is still starting (a loaded machine) takes the kernel with it too.
            # Written once the kernel had answered, the file was missing then: the kernel lived on,
            # holding the worker's output pipes, and the kill waited 10 s more for them.
            await super().async_start_new_kernel(**kwargs)
            if pid_file is not None and getattr(self.km, "provisioner", None) is not None:
                pid_file.write_text(str(self.km.provisioner.pid))

        async def async_start_new_kernel_client(self):
            kc = await super().async_start_new_kernel_client()
            for name in ("shell", "iopub"):
                slice_polls(getattr(kc, f"{name}_channel"), name, poll_slice_s, late_wakeups, where)
            return kc

    return SlicedPollClient(
        nb, timeout=cell_timeout_s, startup_timeout=kernel_start_s, iopub_timeout=iopub_timeout_s,
        raise_on_iopub_timeout=True, shutdown_kernel="immediate", allow_errors=False,
        record_timing=False,  # cell timing metadata would change the hash jupyter-cache matches on
        resources={"metadata": {"path": cwd}})


def slice_polls(channel, name: str, poll_slice_s: float, late_wakeups: list, where: dict | None = None) -> None:
    """Replace channel.get_msg(timeout) by polls of at most poll_slice_s seconds each, same overall timeout.

    where["cell"], if given, names the cell being executed, for the record of a missed wake-up.
    """
    from queue import Empty

    original = channel.get_msg

    async def get_msg(timeout: float | None = None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            step = remaining if not poll_slice_s else (
                poll_slice_s if remaining is None else min(poll_slice_s, remaining))
            started = time.monotonic()
            try:
                msg = await original(timeout=step)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise
                continue
            waited = time.monotonic() - started
            if step and waited >= 0.999 * step:  # woken by the poll's timer, not by the socket
                context = f" ({where['cell']})" if where else ""
                late_wakeups.append((name, round(waited, 3), f"{msg.get('msg_type')}{context}"))
            return msg

    channel.get_msg = get_msg


def kernel_pid_file(out: Path) -> Path:
    return out.with_name(out.name + ".kernel-pid")


EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")
EVAL_MARK = "\x1eEVAL-VALUES\x1e"


def eval_cell_source(expressions: list[str]) -> str:
    """A cell that evaluates each prose `{eval}` expression in the chapter's kernel and prints
    {expression: {"text": str(value)} or {"error": ...}} as one JSON line after EVAL_MARK."""
    return ("import json as _eval_json\n"
            "def _eval_text(_expression):\n"
            "    try:\n"
            "        return {'text': str(eval(_expression))}\n"
            "    except Exception as _error:  # reported by the book's eval role, naming the expression\n"
            "        return {'error': f'{type(_error).__name__}: {_error}'}\n"
            f"print({EVAL_MARK!r} + _eval_json.dumps({{_e: _eval_text(_e) for _e in {expressions!r}}}))\n")


def eval_expressions(nb) -> list[str]:
    """Every distinct `{eval}` expression of the notebook's markdown, in order."""
    found = (m.group(1) for c in nb.cells if c.cell_type == "markdown" for m in EVAL_ROLE.finditer(c.source))
    return list(dict.fromkeys(found))


def take_eval_values(nb) -> dict:
    """Remove the evaluation cell appended by execute_one and return the values it printed."""
    cell = nb.cells.pop()
    text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    return json.loads(text.split(EVAL_MARK, 1)[1]) if EVAL_MARK in text else {}


def execute_one(src: Path, out: Path, poll_slice_s: float = POLL_SLICE_S, cell_timeout_s: float = CELL_TIMEOUT_S,
                kernel_start_s: float = KERNEL_START_S, iopub_timeout_s: float = IOPUB_TIMEOUT_S) -> int:
    """Execute src in a fresh kernel (cwd: its folder), write it to out (and, when its prose has
    `{eval}` roles, their values to <out>.eval.json: book/_ext/eval_values.py); print one JSON line;
    exit code."""
    import nbformat
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(src, as_version=4)
    expressions = eval_expressions(nb)
    if expressions:
        nb.cells.append(nbformat.v4.new_code_cell(eval_cell_source(expressions)))
    late: list = []
    started = time.monotonic()
    try:
        bounded_client(nb, str(src.parent), poll_slice_s, cell_timeout_s, late, kernel_pid_file(out),
                       kernel_start_s, iopub_timeout_s).execute()
    except CellExecutionError as err:  # the chapter's own code raised: deterministic, not retried
        print(f"a cell raised: {err.ename}: {err.evalue}", file=sys.stderr)
        return EXIT_CELL_ERROR
    except Exception as err:  # CellTimeoutError, DeadKernelError, a kernel that did not start (RuntimeError),
        # or nbclient's own AssertionError when the kernel_info reply never comes: the machinery stalled
        line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        print(f"stalled: {type(err).__name__}: {line}", file=sys.stderr)
        return EXIT_STALLED
    seconds = time.monotonic() - started
    if expressions:
        values = take_eval_values(nb)
        out.with_suffix(".eval.json").write_text(json.dumps(values, indent=1, ensure_ascii=False) + "\n",
                                                 encoding="utf-8")
    nbformat.write(nb, out)
    print(json.dumps({"seconds": round(seconds, 3), "late_wakeups": late}))
    return 0


# ----------------------------------------------------------------------------------------------------
# The parent: a pool of workers, retries, reports.

@dataclass
class Outcome:
    """What executing one notebook came to, over all its attempts."""
    name: str
    seconds: float = 0.0  # the successful attempt, kernel start to shutdown
    ok: bool = False
    attempts: list[str] = field(default_factory=list)  # why each failed attempt failed
    late_wakeups: list = field(default_factory=list)


def chapters() -> list[Path]:
    """The notebooks in _toc.yml, in book order."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc.get("parts", []) for c in part["chapters"]]
    return [ROOT / f"{f}.ipynb" for f in files if (ROOT / f"{f}.ipynb").exists()]


def run_attempt(src: Path, out: Path, poll_slice_s: float, cell_timeout_s: float, attempt_limit_s: float,
                kernel_start_s: float = KERNEL_START_S,
                iopub_timeout_s: float = IOPUB_TIMEOUT_S) -> tuple[int, str, float]:
    """One execution of src in a worker process; (exit code, what it printed, wall seconds).

    The worker gets its own session, so a worker past attempt_limit_s is killed with its kernel.
    """
    cmd = [sys.executable, str(Path(__file__).resolve()), "one", str(src), str(out),
           "--poll-slice", str(poll_slice_s), "--cell-timeout", str(cell_timeout_s),
           "--kernel-start-timeout", str(kernel_start_s), "--iopub-timeout", str(iopub_timeout_s)]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=ROOT)
    try:
        stdout, stderr = proc.communicate(timeout=attempt_limit_s)
    except subprocess.TimeoutExpired:
        pid_file = kernel_pid_file(out)
        if pid_file.exists():  # the kernel first: it may hold the worker's output pipes open
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        os.killpg(proc.pid, signal.SIGKILL)
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        return EXIT_STALLED, f"stalled: no result after {attempt_limit_s:g} s, worker killed", \
            time.monotonic() - started
    if proc.returncode == 0 and stdout.strip():
        return 0, stdout.strip().splitlines()[-1], time.monotonic() - started
    # The worker's own one-line report; what a library prints after it (e.g. nbclient's atexit
    # cleanup of a kernel that never started) must not hide it.
    reports = [line for line in stderr.strip().splitlines() if line.startswith(WORKER_REPORTS)]
    return proc.returncode, reports[-1] if reports else stderr.strip(), time.monotonic() - started


def execute_with_retry(src: Path, out: Path, poll_slice_s: float = POLL_SLICE_S,
                       cell_timeout_s: float = CELL_TIMEOUT_S, attempt_limit_s: float = ATTEMPT_LIMIT_S,
                       retries: int = RETRIES, log=None, kernel_start_s: float = KERNEL_START_S,
                       iopub_timeout_s: float = IOPUB_TIMEOUT_S) -> Outcome:
    """Execute src into out; retry a stalled attempt `retries` times; log every retry and failure by name.

    The bounds (seconds) default to the build's; a test passes shorter ones to the same code path.
    """
    name = str(src.relative_to(ROOT)) if src.is_relative_to(ROOT) else str(src)
    log = log or (lambda line: print(line, flush=True))
    outcome = Outcome(name)
    for attempt in range(retries + 1):
        code, text, wall = run_attempt(src, out, poll_slice_s, cell_timeout_s, attempt_limit_s,
                                       kernel_start_s, iopub_timeout_s)
        kernel_pid_file(out).unlink(missing_ok=True)
        if code == 0:
            report = json.loads(text)
            outcome.ok, outcome.seconds, outcome.late_wakeups = True, report["seconds"], report["late_wakeups"]
            return outcome
        reason = text.splitlines()[-1] if text else f"worker exited with {code}"
        outcome.attempts.append(f"{reason} ({wall:.1f} s)")
        if code != EXIT_STALLED:
            log(f"FAILED   {name}: {reason}")
            return outcome
        if attempt < retries:
            log(f"RETRY    {name}: attempt {attempt + 1} {reason} after {wall:.1f} s; executing it again")
    log(f"FAILED   {name}: stalled {retries + 1} times: {'; '.join(outcome.attempts)}")
    return outcome


def execute_all(notebooks: list[Path], out_dir: Path, workers: int, repeat: int = 1,
                **bounds) -> tuple[list[Outcome], float]:
    """Execute every notebook `repeat` times on `workers` workers; (outcomes, wall seconds).

    bounds: keyword arguments of execute_with_retry (poll_slice_s, cell_timeout_s, attempt_limit_s,
    retries, kernel_start_s, iopub_timeout_s); the build's values where not given.
    """
    jobs = [(nb, out_dir / f"{i}" / nb.relative_to(ROOT)) for i in range(repeat) for nb in notebooks]
    for _, out in jobs:
        out.parent.mkdir(parents=True, exist_ok=True)
    # Longest first: the slowest chapters start at once instead of finishing last on one core.
    previous = json.loads(TIMINGS.read_text()).get("seconds", {}) if TIMINGS.exists() else {}
    order = sorted(jobs, key=lambda job: -previous.get(str(job[0].relative_to(ROOT)), 0.0))
    started = time.monotonic()

    def job(item):
        src, out = item
        outcome = execute_with_retry(src, out, **bounds)
        if outcome.ok:
            late = f"  ({len(outcome.late_wakeups)} missed wake-up(s) recovered)" if outcome.late_wakeups else ""
            print(f"executed {outcome.name}  {outcome.seconds:.2f} s{late}", flush=True)
        return item, outcome

    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = dict(pool.map(job, order))
    return [results[item] for item in jobs], time.monotonic() - started


def summarise(outcomes: list[Outcome], wall: float, workers: int) -> str:
    serial = sum(o.seconds for o in outcomes if o.ok)
    retried = [f"{o.name}: {'; '.join(o.attempts)}" for o in outcomes if o.attempts and o.ok]
    failed = [o.name for o in outcomes if not o.ok]
    late = sum(len(o.late_wakeups) for o in outcomes)
    return (f"{len(outcomes)} executions on {workers} workers in {wall:.1f} s wall; "
            f"sum of the per-notebook execution times {serial:.1f} s; "
            f"retried {len(retried)}{' (' + ', '.join(retried) + ')' if retried else ''}; "
            f"failed {len(failed)}{' (' + ', '.join(failed) + ')' if failed else ''}; "
            f"missed wake-ups recovered {late}")


def write_cache(outcomes: list[Outcome], executed_dir: Path) -> None:
    """Put the executed notebooks into a fresh jupyter-cache at CACHE, for myst-nb (execute_notebooks: cache)."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    shutil.rmtree(CACHE, ignore_errors=True)
    cache = get_cache(str(CACHE))
    for outcome in outcomes:
        nb = nbformat.read(executed_dir / outcome.name, as_version=4)
        cache.cache_notebook_bundle(CacheBundleIn(nb, str(ROOT / outcome.name),
                                                  data={"execution_seconds": outcome.seconds}),
                                    check_validity=False, overwrite=True)


def command_execute(workers: int, **bounds) -> int:
    """Execute every chapter once, from scratch, into EXECUTED and CACHE, keeping each figure in KEPT_FIGURES
    for `make slides` (its kernels inherit ledger.figures.FIGURE_STORE_ENV); 1 if any failed."""
    for stale in (EXECUTED, CACHE, KEPT_FIGURES):
        shutil.rmtree(stale, ignore_errors=True)
    os.environ[FIGURE_STORE_ENV] = str(KEPT_FIGURES)
    with tempfile.TemporaryDirectory(dir=BUILD) as tmp:
        outcomes, wall = execute_all(chapters(), Path(tmp), workers, **bounds)
        print(summarise(outcomes, wall, workers), flush=True)
        if not all(o.ok for o in outcomes):
            return 1
        shutil.copytree(Path(tmp) / "0", EXECUTED)
    write_cache(outcomes, EXECUTED)
    TIMINGS.write_text(json.dumps({"wall": round(wall, 2), "workers": workers,
                                   "seconds": {o.name: o.seconds for o in outcomes},
                                   "retried": [o.name for o in outcomes if o.attempts]}, indent=1))
    return 0


def serial_baseline(**bounds) -> float:
    """The sum of the chapters' execution times, executed one after another as a reader's kernel runs them
    (no figure kept), written to SERIAL; nothing else is kept."""
    BUILD.mkdir(exist_ok=True)
    os.environ.pop(FIGURE_STORE_ENV, None)
    with tempfile.TemporaryDirectory(dir=BUILD) as tmp:
        outcomes, wall = execute_all(chapters(), Path(tmp), workers=1, **bounds)
    print("serial baseline: " + summarise(outcomes, wall, 1), flush=True)
    if not all(o.ok for o in outcomes):
        raise SystemExit("serial baseline: a chapter failed to execute (above)")
    serial = sum(o.seconds for o in outcomes)
    SERIAL.write_text(json.dumps({"seconds": round(serial, 2), "wall": round(wall, 2)}))
    return serial


def command_book(workers: int, baseline: bool = False, **bounds) -> int:
    """Wipe the build, execute every chapter, build the book from the cache; print the timings.

    With baseline, first execute the chapters one after another and compare the build with their sum.
    """
    serial_s = serial_baseline(**bounds) if baseline else None
    started = time.monotonic()
    for stale in ("html", ".doctrees", "jupyter_execute"):  # command_execute wipes its own two
        shutil.rmtree(BUILD / stale, ignore_errors=True)
    BUILD.mkdir(exist_ok=True)
    if command_execute(workers, **bounds):
        print("make book: stopped, a chapter failed to execute (above)")
        return 1
    executed_at = time.monotonic()
    build = subprocess.Popen([str(Path(sys.executable).parent / "jupyter-book"), "build", ".", "-W", "-n",
                              "--keep-going"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    missed = []
    for line in build.stdout:
        print(line, end="", flush=True)
        if "Executing notebook" in line:  # myst-nb found no cached result and executed the chapter itself
            missed.append(line.strip())
    code = build.wait()
    total = time.monotonic() - started
    during = sum(json.loads(TIMINGS.read_text())["seconds"].values())
    print(f"make book: {total:.1f} s in all ({executed_at - started:.1f} s executing on {workers} workers, "
          f"{total - executed_at + started:.1f} s rendering); the chapters' execution times sum to "
          f"{during:.1f} s as measured during this build (in parallel, so above their serial times); "
          f"ratio {total / during:.2f}")
    if serial_s:
        print(f"make book: the chapters executed one after another just before took {serial_s:.1f} s in sum; "
              f"ratio {total / serial_s:.2f}")
    if missed:
        print("make book: myst-nb re-executed notebooks the cache did not match:\n  " + "\n  ".join(missed))
        return 1
    return code


def command_stress(repeat: int, workers: int, **bounds) -> int:
    """Execute every chapter `repeat` times through the build's path; report the slowest, stalls, retries."""
    BUILD.mkdir(exist_ok=True)
    poll_slice_s = bounds.get("poll_slice_s", POLL_SLICE_S)
    cell_timeout_s = bounds.get("cell_timeout_s", CELL_TIMEOUT_S)
    with tempfile.TemporaryDirectory(dir=BUILD) as tmp:
        outcomes, wall = execute_all(chapters(), Path(tmp), workers, repeat=repeat, **bounds)
    done = [o for o in outcomes if o.ok]
    slowest = max(done, key=lambda o: o.seconds) if done else None
    stalled = sum(len(o.attempts) for o in outcomes)
    late = [(o.name, *w) for o in outcomes for w in o.late_wakeups]
    print(f"stress: every chapter {repeat} times, poll slice {poll_slice_s} s, cell timeout {cell_timeout_s} s")
    print("stress: " + summarise(outcomes, wall, workers))
    if slowest:
        print(f"stress: slowest execution {slowest.name} {slowest.seconds:.2f} s; "
              f"stalled attempts {stalled}; executions retried {sum(1 for o in outcomes if o.attempts and o.ok)}; "
              f"failed {len(outcomes) - len(done)}")
    for name, channel, waited, msg_type in late:
        print(f"stress: missed wake-up in {name}: {msg_type} on {channel} found when the poll timed out "
              f"after {waited:.2f} s")
    return 0 if len(done) == len(outcomes) else 1


def positive_seconds(text: str) -> float:
    """A bound in seconds, for argparse: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a bound is a finite number of seconds above 0")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line; the bounds default to the build's (KERNEL_START_S, CELL_TIMEOUT_S, ...)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["execute", "book", "serial", "stress", "one"])
    parser.add_argument("paths", nargs="*", type=Path, help="for `one`: the notebook and where to write it")
    parser.add_argument("-n", "--repeat", type=int, default=5, help="stress: executions of every chapter")
    parser.add_argument("--workers", type=int, default=WORKERS)
    parser.add_argument("--poll-slice", type=float, default=POLL_SLICE_S,
                        help="seconds per socket poll; 0 polls for the whole timeout, as nbclient does")
    parser.add_argument("--kernel-start-timeout", type=positive_seconds, default=KERNEL_START_S,
                        help="seconds for a kernel to start and answer (default %(default)s)")
    parser.add_argument("--cell-timeout", type=positive_seconds, default=CELL_TIMEOUT_S,
                        help="seconds for one cell's reply (default %(default)s)")
    parser.add_argument("--iopub-timeout", type=positive_seconds, default=IOPUB_TIMEOUT_S,
                        help="seconds for a cell's outputs after its reply (default %(default)s)")
    parser.add_argument("--attempt-limit", type=positive_seconds, default=ATTEMPT_LIMIT_S,
                        help="wall-clock seconds for one execution, kernel start to shutdown; the worker "
                             "is killed past it (default %(default)s)")
    parser.add_argument("--retries", type=int, default=RETRIES,
                        help="executions of a stalled notebook after the first (default %(default)s)")
    parser.add_argument("--serial-baseline", action="store_true",
                        help="book: first execute the chapters one after another, and compare")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name, value in (("--repeat", args.repeat), ("--workers", args.workers)):
        if value < 1:
            parser.error(f"{name} must be a whole number of at least 1, got {value}")
    if args.retries < 0:
        parser.error(f"--retries must be a whole number of at least 0, got {args.retries}")
    if args.poll_slice < 0:
        parser.error(f"--poll-slice must be 0 (no slicing) or a number of seconds above 0, got {args.poll_slice}")
    if args.command == "one":
        if len(args.paths) != 2:
            parser.error("`one` takes two paths: the notebook and where to write the executed copy")
        return execute_one(args.paths[0], args.paths[1], args.poll_slice, args.cell_timeout,
                           args.kernel_start_timeout, args.iopub_timeout)
    bounds = {"poll_slice_s": args.poll_slice, "cell_timeout_s": args.cell_timeout,
              "kernel_start_s": args.kernel_start_timeout, "iopub_timeout_s": args.iopub_timeout,
              "attempt_limit_s": args.attempt_limit, "retries": args.retries}
    if args.command == "execute":
        BUILD.mkdir(exist_ok=True)
        return command_execute(args.workers, **bounds)
    if args.command == "serial":
        serial_baseline(**bounds)
        return 0
    if args.command == "book":
        return command_book(args.workers, args.serial_baseline, **bounds)
    return command_stress(args.repeat, args.workers, **bounds)


if __name__ == "__main__":
    sys.exit(main())
