"""Fixtures for the browser tests: the dashboard served by `streamlit run` on a free local port,
over the session's real warehouse, and a headless Debian Chromium driven by Playwright.

Chromium is the system one (`apt-get install chromium`, /usr/bin/chromium); Playwright's own
browser download (`playwright install`) is never used.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
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


@pytest.fixture(scope="module")
def app_url(real_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`streamlit run app/main.py` on the real warehouse; stopped (terminate, then kill) afterwards."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    env = {**os.environ, "DISH_ATLAS_WAREHOUSE": str(real_warehouse)}
    command = [
        sys.executable, "-m", "streamlit", "run", "app/main.py",
        "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
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


@pytest.fixture(scope="module")
def browser():
    """Headless system Chromium (never a browser downloaded by Playwright)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()
