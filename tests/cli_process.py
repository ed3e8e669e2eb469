"""`python -m pipeline ARGS` run in a process of its own, forked from one that has already imported the libraries
every command imports first.

A new interpreter spends one to ten CPU-seconds before a command does anything: importing duckdb, polars, pyarrow,
typer, rich and, for the model commands, torch, transformers and diffusers, and, for `score`, loading lingua's
language models. Over the suite's hundreds of CLI runs that added up to minutes. Here a multiprocessing fork server
does that once per pytest worker (tests/cli_server.py) and forks a process per command, which runs
`pipeline/__main__.py` as `python -m` does (its own environment, working folder, arguments, standard output and
error in files, exit status, atexit handlers), so each test still sees a separate process with the command's real
behaviour. No state the pipeline builds is made in the server, so nothing crosses from one test to the next. `run`
can kill a command after a given time (its whole process group: the fault sweep, bench/faults.py); `started` hands
over a running command, whose error output the test reads as it comes, to kill it (SIGKILL, its whole process group)
at a chosen line; tests that must act on a running command in other ways (another signal, locks it holds) start a
real interpreter with `tests.helpers.cli_command` instead.

With COMMAND_LOG_ENV set to a file (bench/suite_budget.py `--commands`), each command appends one JSON line there at
its end: its words, the test that ran it, its CPU-seconds and those of its publish and of the write audit.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import multiprocessing
import os
import resource
import runpy
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path

COMMAND_LOG_ENV = "DISH_ATLAS_TEST_COMMAND_LOG"

_context: multiprocessing.context.ForkServerContext | None = None
_starting = threading.Lock()


def _fork_server() -> multiprocessing.context.ForkServerContext:
    global _context
    if _context is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["tests.cli_server"])
        _context = context
    return _context


def start_server() -> None:
    """Start the fork server now: it imports the libraries first (seconds), which a command timed from its start
    (bench/faults.py) must not wait for."""
    ready = _fork_server().Process(target=_ready)
    _start(ready)  # returns once the server, done with its imports, has forked
    ready.join()


def _ready() -> None:
    """A child that does nothing: its start shows the server is up."""


def _start(process: multiprocessing.Process) -> None:
    # multiprocessing re-runs the caller's `__main__` script in the child, and an AppTest leaves its page script
    # there: the command must start from `pipeline/__main__.py` alone.
    with _starting:  # callers in threads (bench/faults.py) must not swap `__main__` over each other
        caller_main, sys.modules["__main__"] = sys.modules["__main__"], types.ModuleType("__main__")
        try:
            process.start()
        finally:
            sys.modules["__main__"] = caller_main


def _main(
    args: list[str],
    env: dict[str, str],
    cwd: str,
    stdin: str,
    stdout: str,
    stderr: str,
    file_limit: int | None,
    memory_limit: int | None = None,
) -> None:
    """In the forked process: become `python -m pipeline ARGS` and exit with its status."""
    os.setsid()  # a process group of its own, as a command started from a shell has: a kill reaches its children
    if file_limit is not None:  # writes past it fail with EFBIG, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))
    if memory_limit is not None:  # address space the command may add to what the server already mapped
        resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + memory_limit,) * 2)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    written = os.O_WRONLY | os.O_TRUNC
    for fd, path, flags in ((0, stdin, os.O_RDONLY), (1, stdout, written), (2, stderr, written)):
        handle = os.open(path, flags)
        os.dup2(handle, fd)
        os.close(handle)
    # multiprocessing gave the child a /dev/null `sys.stdin`: read fd 0 as the interpreter's own stdin does
    like = sys.__stdin__ or sys.__stdout__
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding=like.encoding, errors=like.errors
    )
    sys.argv = [str(Path(cwd) / "pipeline" / "__main__.py"), *args]
    code: int | str | None = 0
    logged = _cost_log(args) if os.environ.get(COMMAND_LOG_ENV) else None
    try:
        runpy.run_module("pipeline", run_name="__main__", alter_sys=True)
    except SystemExit as exit_:
        code = exit_.code
    except BaseException:  # what the interpreter does with an uncaught exception
        import traceback

        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    if logged is not None:
        logged()
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


def _cost_log(args: list[str]) -> Callable[[], None]:
    """Time the command's publish and write audit (wrapping the two functions for this process only); the returned
    call appends the command's line to the COMMAND_LOG_ENV file."""
    import json

    import pipeline.flow.steps as steps
    import warehouse.db as db

    spent = {"publish": 0.0, "audit": 0.0}

    def timed(function: Callable, part: str) -> Callable:
        def wrapper(*args, **kwargs):
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[part] += time.process_time() - start

        return wrapper

    db.Warehouse.publish = timed(db.Warehouse.publish, "publish")
    steps.table_fingerprints = timed(steps.table_fingerprints, "audit")

    def log() -> None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        line = {
            "words": [word for word in args if not word.startswith(("/", "--warehouse"))],
            "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0],
            "cpu": usage.ru_utime + usage.ru_stime,
            **spent,
        }
        with open(os.environ[COMMAND_LOG_ENV], "a", encoding="utf-8") as out:  # one write: lines never interleave
            out.write(json.dumps(line) + "\n")

    return log


def mapped_bytes() -> int:
    """This process's mapped address space (VmSize), in bytes."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def run(
    args: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    stdin: bytes | None = None,
    file_limit: int | None = None,
    kill_after: float | None = None,
    binary: bool = False,
    memory_limit: int | None = None,
) -> subprocess.CompletedProcess:
    """What `subprocess.run([sys.executable, "-m", "pipeline", *args], input=stdin, capture_output=True, text=True)`
    returns (no `stdin`: the command reads an empty input, as from /dev/null); `file_limit`: the process's
    RLIMIT_FSIZE in bytes; `kill_after`: seconds after which a command still running is killed with SIGKILL, its
    whole process group (its return code is then -9); `binary`: standard output as bytes (a Parquet export);
    `memory_limit`: bytes of address space (RLIMIT_AS) the command may map beyond what it starts with (the fork
    server's libraries), so a command that tries to hold more fails instead of exhausting the machine."""
    with tempfile.TemporaryDirectory(prefix="cli-") as folder:
        given, stdout, stderr = Path(folder) / "stdin", Path(folder) / "stdout", Path(folder) / "stderr"
        given.write_bytes(stdin or b"")
        stdout.touch()
        stderr.touch()
        process = _fork_server().Process(
            target=_main,
            args=(args, env, str(cwd), str(given), str(stdout), str(stderr), file_limit, memory_limit),
        )
        _start(process)
        if kill_after is not None:
            process.join(kill_after)
            _kill_group(process)
        process.join(timeout)
        if process.exitcode is None:
            process.kill()
            process.join()
            raise subprocess.TimeoutExpired(["pipeline", *args], timeout, stdout.read_bytes(), stderr.read_bytes())
        return subprocess.CompletedProcess(
            [sys.executable, "-m", "pipeline", *args],
            process.exitcode,
            stdout.read_bytes() if binary else stdout.read_text(errors="replace"),
            stderr.read_text(errors="replace"),
        )


def _kill_group(process: multiprocessing.Process) -> None:
    """SIGKILL to a command still running, its whole process group (a kill of the command and its children)."""
    if process.exitcode is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:  # killed before it made its group
            process.kill()


class Running:
    """A command started by `started`: its error output line by line as it writes it, and a SIGKILL."""

    def __init__(self, process: multiprocessing.Process, stderr: Path) -> None:
        self.process, self._stderr = process, stderr

    def lines(self, timeout: float = 300) -> Iterator[str]:
        """Each complete line of the command's standard error as it appears, until it exits (then the rest)."""
        deadline = time.monotonic() + timeout
        with open(self._stderr, encoding="utf-8", errors="replace") as handle:
            pending = ""
            while True:
                running = self.process.is_alive()
                pending += handle.read()
                *complete, pending = pending.split("\n")
                yield from (line + "\n" for line in complete)
                if not running:
                    if pending:
                        yield pending
                    return
                if time.monotonic() > deadline:
                    raise subprocess.TimeoutExpired("pipeline", timeout)
                time.sleep(0.02)

    def kill(self) -> int | None:
        """SIGKILL to the command's process group (as a user's kill of the command and its children); its exit
        status (-9, or the status it had already exited with)."""
        _kill_group(self.process)
        self.process.join(60)
        return self.process.exitcode


@contextlib.contextmanager
def started(args: list[str], *, cwd: Path, env: dict[str, str]) -> Iterator[Running]:
    """`python -m pipeline ARGS` running (forked as by `run`, standard input empty, standard output discarded); killed
    when the block ends if it is still running."""
    with tempfile.TemporaryDirectory(prefix="cli-") as folder:
        stdin, stderr = Path(folder) / "stdin", Path(folder) / "stderr"
        stdin.write_bytes(b"")
        stderr.touch()
        process = _fork_server().Process(
            target=_main, args=(args, env, str(cwd), str(stdin), os.devnull, str(stderr), None, None)
        )
        _start(process)
        running = Running(process, stderr)
        try:
            yield running
        finally:
            running.kill()
