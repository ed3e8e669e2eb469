"""Expensive test inputs built once per test session, in the background, shared by every worker.

The real-data demo warehouse takes minutes to build. Started when collection shows that a test needs
it, it builds in its own process while the tests that do not need it run (they are ordered first), and
pytest-xdist workers share the one build instead of each making their own. The session folder is made
by the controlling pytest process (passed to workers in DISH_ATLAS_TEST_SHARED) and removed, with any
build still running, when the session ends."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock

from tests.helpers import REPO, cli_command, cli_environment, copy_warehouse

SHARED_ENV = "DISH_ATLAS_TEST_SHARED"


def open_session() -> None:
    """In the controlling process: a fresh session folder, inherited by the workers it starts."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        os.environ[SHARED_ENV] = tempfile.mkdtemp(prefix="dish-atlas-tests-")


def close_session() -> None:
    """In the controlling process: stop builds nobody waited for, and remove everything built."""
    if os.environ.get("PYTEST_XDIST_WORKER") is not None or SHARED_ENV not in os.environ:
        return
    root = Path(os.environ.pop(SHARED_ENV))
    for pid_file in root.glob("*/build.pid"):
        if not (pid_file.parent / "build.done").exists():
            with contextlib.suppress(ProcessLookupError, ValueError, PermissionError):
                os.killpg(int(pid_file.read_text()), signal.SIGKILL)
    shutil.rmtree(root, ignore_errors=True)


def folder_for(name: str) -> Path:
    return Path(os.environ[SHARED_ENV]) / name


def start(name: str, args: list[str], prebuilt: Path | None = None) -> Path:
    """Start `python -m pipeline --warehouse FOLDER/warehouse.duckdb ARGS` once per session (or copy the
    `prebuilt` warehouse's two files instead, while developing)."""
    folder = folder_for(name)
    with FileLock(f"{folder}.lock"):
        if not folder.exists():
            folder.mkdir()
            if prebuilt is not None:
                copy_warehouse(prebuilt, folder / "warehouse.duckdb")
                (folder / "build.done").write_text("0")
                return folder
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.shared_builds", str(folder), *args],
                cwd=REPO,
                env=cli_environment(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: close_session stops it and its children
            )
            (folder / "build.pid").write_text(str(process.pid))
    return folder


def wait(name: str, args: list[str], prebuilt: Path | None = None, timeout: float = 1800) -> Path:
    """The built warehouse, starting its build if collection did not; a failed build fails every caller."""
    folder = start(name, args, prebuilt)
    deadline = time.monotonic() + timeout
    while not (folder / "build.done").exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"shared build {name} not done after {timeout:.0f} s: {folder / 'build.log'}")
        time.sleep(0.5)
    status = (folder / "build.done").read_text()
    if status != "0":
        log = (folder / "build.log").read_text(errors="replace")[-4000:]
        raise AssertionError(f"shared build {name} failed ({status}):\n{log}")
    return folder / "warehouse.duckdb"


def made(name: str, build: Callable[[Path], Path]) -> Path:
    """What `build(folder)` returns, built once per session by the first worker that asks (in that worker;
    the others wait for it): for test inputs made from another shared build that several modules read but none
    writes."""
    folder = folder_for(name)
    with FileLock(f"{folder}.lock"):
        done = folder.with_name(f"{folder.name}.made")
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            done.write_text(str(build(folder)))
        return Path(done.read_text())


def _build(folder: Path, args: list[str]) -> int:
    """The background process: run the CLI, keep its output, then mark the folder done with the exit code."""
    with open(folder / "build.log", "wb") as log:
        code = subprocess.run(
            cli_command(folder / "warehouse.duckdb", *args), cwd=REPO, stdout=log, stderr=log
        ).returncode
    (folder / "build.done.tmp").write_text(str(code))
    (folder / "build.done.tmp").replace(folder / "build.done")
    return code


if __name__ == "__main__":
    raise SystemExit(_build(Path(sys.argv[1]), sys.argv[2:]))
