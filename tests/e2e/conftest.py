"""Fixtures for the browser tests: the dashboard served by `streamlit run` on a free local port,
over the session's real warehouse, and a headless Debian Chromium driven by Playwright.

Chromium is the system one (`apt-get install chromium`, /usr/bin/chromium); Playwright's own
browser download (`playwright install`) is never used.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import REPO

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
START_TIMEOUT_S = 90
# Every browser test sees the dashboard at this size, and waits this long for a script run.
WIDTH, HEIGHT = 1400, 1000
RUN_TIMEOUT_MS = 90_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def serve(script: str, env: dict[str, str], *, address: str | None = "127.0.0.1") -> Iterator[str]:
    """`streamlit run SCRIPT` from the repository root (so .streamlit/config.toml applies) on a free
    port; `address` None leaves the listening address to that config. Stopped (terminate, then
    kill) afterwards; a server that does not come up fails with the end of its log."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [
        sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true", "--server.port", str(port),
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    if address is not None:
        command += ["--server.address", address]
    with tempfile.TemporaryDirectory(prefix="streamlit-log-") as logs:
        log_path = Path(logs) / "server.log"
        with open(log_path, "w") as log:
            server = subprocess.Popen(
                command, cwd=REPO, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT
            )
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not healthy(url):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"streamlit did not come up on {url}:\n{log_path.read_text()[-4000:]}")
                time.sleep(0.5)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=20)


@pytest.fixture(scope="session")
def app_url(real_warehouse: Path) -> Iterator[str]:
    """`streamlit run app/main.py` on the real warehouse, on the loopback interface: one server per test
    worker, shared by the browser modules (each page a test opens is a new Streamlit session)."""
    with serve("app/main.py", {"DISH_ATLAS_WAREHOUSE": str(real_warehouse)}) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """Headless system Chromium (never a browser downloaded by Playwright)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def _worker_tab(browser):
    """The test worker's one browser tab (see `tab`), in a context of its own at the shared viewport and timeout."""
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)
    context.set_default_timeout(RUN_TIMEOUT_MS)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def tab(_worker_tab):
    """A browser tab for one test, to `goto` its pages in. Every test of a worker navigates the same tab: each `goto`
    loads a new document and opens a new Streamlit session, but a new tab also starts a renderer process and compiles
    Streamlit's scripts again (nine pages: 42 busy CPU-s in new tabs, 24 in one). Afterwards the tab is put back as a
    test found it: the shared viewport, no cookies, a blank page."""
    yield _worker_tab
    _worker_tab.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    _worker_tab.context.clear_cookies()
    _worker_tab.goto("about:blank")


@contextlib.contextmanager
def listening(page, **handlers: Callable) -> Iterator[None]:
    """`page.on(event, handler)` for each keyword, taken off again on leaving: the tab outlives the test."""
    for event, handler in handlers.items():
        page.on(event, handler)
    try:
        yield
    finally:
        for event, handler in handlers.items():
            page.remove_listener(event, handler)
