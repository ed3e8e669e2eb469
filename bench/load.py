"""Many readers at once while the snapshot is replaced under them: N headless Chromium users click
through every page of the dashboard (app/dashboard.py VIEWS) on one `streamlit run` server, while
`python -m pipeline publish --force` rebuilds and renames a new snapshot in a loop.

    .venv/bin/python bench/load.py --warehouse /work/demo/warehouse.duckdb [--users 20] [--duration 180]
        [--think 1]

The warehouse is copied first (snapshot and working database, tests.helpers.copy_warehouse) into
`--work` (default: a temporary folder), so the source is never written. Each user is a browser context
of its own (its own Streamlit session) that opens the first page with `?dataset=worldcuisines`, then
clicks each page's sidebar link in turn, starting at a different page than its neighbour, until the
time is up, reading each drawn page `--think` seconds (default 1) before the next click. A page counts as drawn
when its title has changed to the new page's and Streamlit reports the script run finished.

All users share one Chromium (a context each). To leave the two cores to the server, each browser is made cheaper
without changing what is checked: the checks poll every 100 ms instead of on every animation frame, and motion is
reduced (Streamlit's running animations): 1.04 CPU-s per page visit instead of 1.20 at 3 users (bench/README.md).
Blocking fonts and images through a request route was tried and cost more than it saved (1.19 CPU-s per visit):
every request then crosses to Playwright and back. `--think` lowers what the browsers take per second (a user
reading a page), not what a visit costs.

An error is any of: an exception box on the page (Streamlit's traceback), the app's "no published
warehouse" or "could not read the published warehouse" message (a reader that saw the snapshot
missing or half-written), a JavaScript error in the page, a page not drawn within `--page-timeout`,
or a publish that failed. Goal: 0 errors with publishes running (issue 39).

Prints: users, visits, errors by kind (with the first few messages), p50/p95/max page seconds,
publishes done and their seconds, the server's memory (resident set, the server process and its
children: peak and at the end) and CPU seconds, and the browsers' CPU seconds (every Chromium process, in all and
per page visit: what the bench itself costs the machine). `--json FILE` writes the same figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

from app.dashboard import VIEWS  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, HEIGHT, WIDTH, serve  # noqa: E402
from tests.helpers import cli_environment, copy_warehouse  # noqa: E402

TITLE = "[data-testid='stMainBlockContainer'] h1"
FINISHED = "[data-test-script-state='notRunning']"
EXCEPTION = "[data-testid='stException']"
ALERT = "[data-testid='stAlert']"
NAV_SECTION = "[data-testid='stTopNavSection']"  # the navigation's sections across the top, each a menu of pages
NAV_LINK = "[data-testid='stTopNavDropdownLink']"
FIRST_QUERY = "?dataset=worldcuisines"
POLL_MS = 100
# what the app says when a reader finds no snapshot, or one it cannot read (app/ui.py, app/dashboard.py)
SNAPSHOT_MESSAGES = {
    "not_published": re.compile(r"No published warehouse", re.I),
    "unreadable": re.compile(r"Could not read the published warehouse", re.I),
}


@dataclass
class Visit:
    user: int
    page: str
    seconds: float
    error: str | None = None  # the kind, see the module docstring
    detail: str = ""


@dataclass
class Publishes:
    done: list[float] = field(default_factory=list)  # seconds each
    failed: list[str] = field(default_factory=list)  # the last line each failure printed


def page_titles() -> list[str]:
    """Every page's navigation title, in the navigation's order."""
    return [view.title for view in VIEWS.values()]


def exact(title: str) -> re.Pattern:
    return re.compile(rf"{re.escape(title)}\s*$")  # "Dish", not "Dishes" or "Dish names"


async def open_section(page, title: str) -> None:
    """Open the navigation menu of the section that holds the page titled `title`."""
    section = next(view.section for view in VIEWS.values() if view.title == title)
    await page.locator(NAV_SECTION).filter(has_text=exact(section)).first.click()
    await page.locator(NAV_LINK).first.wait_for(state="visible")


async def drawn(page, title: str, previous: str | None, timeout_ms: int) -> None:
    """Until the page titled `title` shows (another title than `previous`) and its script run finished."""
    await page.wait_for_function(
        """([old]) => { const h = document.querySelector("[data-testid='stMainBlockContainer'] h1");
                        return h && h.innerText.trim() !== '' && h.innerText.trim() !== old; }""",
        arg=[previous or ""],
        timeout=timeout_ms,
        # every POLL_MS, not on every animation frame (Playwright's default): twenty pages each evaluating the
        # check sixty times a second kept the renderers busy on two cores; a draw is seen POLL_MS late at most
        polling=POLL_MS,
    )
    await page.wait_for_selector(FINISHED, state="attached", timeout=timeout_ms)


async def page_problem(page, js_errors: list[str]) -> tuple[str, str] | None:
    """(kind, message) of what went wrong on the drawn page, or None."""
    if await page.locator(EXCEPTION).count():
        return "exception", (await page.locator(EXCEPTION).first.inner_text())[:300]
    for text in await page.locator(ALERT).all_inner_texts():
        for kind, pattern in SNAPSHOT_MESSAGES.items():
            if pattern.search(text):
                return kind, text[:300]
    if js_errors:
        message = js_errors[0]
        js_errors.clear()
        return "javascript", message[:300]
    return None


async def reader(
    browser,
    url: str,
    user: int,
    titles: list[str],
    deadline: float,
    timeout_ms: int,
    arrives_s: float,
    think_s: float = 0.0,
) -> list[Visit]:
    """One user, arriving `arrives_s` after the first, clicking through every page until `deadline`, reading each
    drawn page for `think_s` before the next click (not counted in the page's seconds)."""
    await asyncio.sleep(arrives_s)
    # reduced motion: Streamlit's running-man and skeleton animations are not redrawn sixty times a second per tab
    context = await browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, reduced_motion="reduce")
    context.set_default_timeout(timeout_ms)
    page = await context.new_page()
    js_errors: list[str] = []
    page.on("pageerror", lambda error: js_errors.append(str(error)))
    visits: list[Visit] = []
    order = titles[user % len(titles) :] + titles[: user % len(titles)]  # neighbours start apart
    try:
        start = time.perf_counter()
        first = next(view for view in VIEWS.values() if view.title == order[0])
        try:
            await page.goto(f"{url}/{first.url_path}{FIRST_QUERY}", wait_until="commit")
            await drawn(page, first.title, None, timeout_ms)
            problem = await page_problem(page, js_errors)
            visits.append(Visit(user, first.title, time.perf_counter() - start, *(problem or (None, ""))))
        except Exception as exc:  # a timeout or a dead server: that user stops, counted
            visits.append(Visit(user, first.title, time.perf_counter() - start, "not_drawn", str(exc)[:300]))
            return visits
        position = 1
        while time.monotonic() + think_s < deadline:
            await asyncio.sleep(think_s)
            title = order[position % len(order)]
            position += 1
            previous = (await page.locator(TITLE).first.inner_text()).strip()
            start = time.perf_counter()
            try:
                await open_section(page, title)
                await page.locator(NAV_LINK).filter(has_text=exact(title)).first.click()
                await drawn(page, title, previous, timeout_ms)
                await page.wait_for_timeout(200)  # elements can land just after the run reports it finished
                problem = await page_problem(page, js_errors)
            except Exception as exc:
                problem = ("not_drawn", str(exc).splitlines()[0][:300])
                with contextlib.suppress(Exception):  # start again from a fresh document
                    await page.goto(f"{url}/{FIRST_QUERY}", wait_until="commit")
                    await drawn(page, "", None, timeout_ms)
            visits.append(Visit(user, title, time.perf_counter() - start, *(problem or (None, ""))))
    finally:
        await context.close()
    return visits


async def readers(
    url: str, users: int, duration_s: float, timeout_ms: int, ramp_s: float, think_s: float = 0.0
) -> list[Visit]:
    from playwright.async_api import async_playwright

    titles = page_titles()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            deadline = time.monotonic() + duration_s
            results = await asyncio.gather(
                *(
                    reader(browser, url, user, titles, deadline, timeout_ms, ramp_s * user / users, think_s)
                    for user in range(users)
                )
            )
        finally:
            await browser.close()
    return [visit for visits in results for visit in visits]


def publish_loop(warehouse: Path, stop: threading.Event, publishes: Publishes, pause_s: float) -> None:
    """`python -m pipeline publish --force` again and again until `stop` (each one a new snapshot renamed
    over the old)."""
    command = [sys.executable, "-m", "pipeline", "--warehouse", str(warehouse), "publish", "--force"]
    while not stop.is_set():
        started = time.perf_counter()
        run = subprocess.run(command, cwd=ROOT, env=cli_environment(), capture_output=True, text=True)
        if run.returncode == 0:
            publishes.done.append(time.perf_counter() - started)
        else:
            lines = (run.stderr or run.stdout).strip().splitlines() or [f"exit {run.returncode}"]
            publishes.failed.append(lines[-1][:300])
        stop.wait(pause_s)


def server_memory(root: psutil.Process) -> int:
    """Resident bytes of the streamlit server and its children."""
    total = 0
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += process.memory_info().rss
    return total


def streamlit_server() -> psutil.Process:
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "streamlit" in " ".join(child.cmdline()):
                return child
    raise RuntimeError("the streamlit server process was not found")


def server_cpu_s(root: psutil.Process) -> float:
    """CPU seconds (user + system) the streamlit server has used so far."""
    with contextlib.suppress(psutil.Error):
        times = root.cpu_times()
        return times.user + times.system
    return 0.0


def sample_browsers(seen: dict[tuple[int, float], float]) -> None:
    """The CPU seconds so far of each Chromium process this bench started (renderers included), by (pid, start)."""
    for process in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "chrom" in process.name().lower():
                times = process.cpu_times()
                seen[process.pid, process.create_time()] = times.user + times.system


def memory_sampler(
    stop: threading.Event, samples: list[int], cpu: list[float], browsers: dict[tuple[int, float], float]
) -> None:
    """Every second: the server's resident memory and the browsers' CPU seconds (a renderer that ends between two
    samples loses its last second); at the start and the end the server's CPU seconds."""
    server = streamlit_server()
    cpu.append(server_cpu_s(server))
    while not stop.wait(1.0):
        with contextlib.suppress(psutil.Error):
            samples.append(server_memory(server))
        sample_browsers(browsers)
    cpu.append(server_cpu_s(server))


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(
    visits: list[Visit],
    publishes: Publishes,
    memory: list[int],
    cpu: list[float],
    args: argparse.Namespace,
    browser_cpu_s: float = 0.0,
) -> dict:
    errors = [visit for visit in visits if visit.error]
    drawn_s = [visit.seconds for visit in visits if not visit.error]
    kinds = Counter(visit.error for visit in errors)
    summary = {
        "users": args.users,
        "duration_s": args.duration,
        "ramp_s": args.ramp,
        "think_s": args.think,
        "pages": len(page_titles()),
        "visits": len(visits),
        "errors": len(errors) + len(publishes.failed),
        "page_errors": dict(kinds),
        "first_errors": [asdict(visit) for visit in errors[:5]],
        "p50_s": round(statistics.median(drawn_s), 2) if drawn_s else None,
        "p95_s": round(percentile(drawn_s, 0.95), 2) if drawn_s else None,
        "max_s": round(max(drawn_s), 2) if drawn_s else None,
        "pages_per_user": dict(Counter(visit.user for visit in visits)),
        "publishes": len(publishes.done),
        "publish_s": [round(seconds, 1) for seconds in publishes.done],
        "publish_failures": publishes.failed,
        "server_rss_mb_peak": round(max(memory) / 2**20) if memory else None,
        "server_rss_mb_end": round(memory[-1] / 2**20) if memory else None,
        "server_cpu_s": round(cpu[-1] - cpu[0], 1) if len(cpu) == 2 else None,
        "browser_cpu_s": round(browser_cpu_s, 1),
        "browser_cpu_s_per_visit": round(browser_cpu_s / len(visits), 2) if visits else None,
    }
    print(
        f"users {args.users} (arriving over {args.ramp:g} s, reading each page {args.think:g} s), "
        f"{args.duration:g} s, {summary['pages']} pages, "
        f"{len(visits)} page visits"
    )
    print(f"errors: {summary['errors']} (pages: {dict(kinds) or 'none'}; publishes failed: {len(publishes.failed)})")
    for visit in errors[:5]:
        print(f"  user {visit.user} {visit.page}: {visit.error}: {visit.detail}")
    for line in publishes.failed[:3]:
        print(f"  publish: {line}")
    print(f"page seconds: p50 {summary['p50_s']}  p95 {summary['p95_s']}  max {summary['max_s']}")
    print(f"publishes done while reading: {summary['publishes']} ({', '.join(map(str, summary['publish_s']))} s)")
    peak, end = summary["server_rss_mb_peak"], summary["server_rss_mb_end"]
    print(f"server memory (RSS, with children): peak {peak} MB, end {end} MB; server CPU {summary['server_cpu_s']} s")
    print(
        f"browsers' CPU (Chromium, every renderer): {summary['browser_cpu_s']} s, "
        f"{summary['browser_cpu_s_per_visit']} s per page visit"
    )
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", type=Path, required=True, help="the published snapshot to copy and serve")
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--duration", type=float, default=180.0, help="seconds of clicking")
    parser.add_argument("--page-timeout", type=float, default=120.0, help="seconds a page may take to draw")
    parser.add_argument("--ramp", type=float, default=0.0, help="seconds over which the users arrive, evenly")
    parser.add_argument("--publish-pause", type=float, default=0.0, help="seconds between publishes")
    parser.add_argument(
        "--think", type=float, default=1.0, help="seconds each user reads a drawn page before the next click"
    )
    parser.add_argument("--no-publish", action="store_true", help="readers only (a baseline)")
    parser.add_argument("--work", type=Path, help="where the copy goes (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    with contextlib.ExitStack() as stack:
        work = args.work or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="dish-atlas-load-")))
        warehouse = copy_warehouse(args.warehouse.resolve(), work / "warehouse.duckdb")
        env = {"DISH_ATLAS_WAREHOUSE": str(warehouse), "DISH_ATLAS_PROBES": str(work / "probes.duckdb")}
        url = stack.enter_context(serve("app/main.py", env))
        stop, publishes, memory, cpu, browsers = threading.Event(), Publishes(), [], [], {}
        threads = [threading.Thread(target=memory_sampler, args=(stop, memory, cpu, browsers), daemon=True)]
        if not args.no_publish:
            threads.append(threading.Thread(target=publish_loop, args=(warehouse, stop, publishes, args.publish_pause)))
        for thread in threads:
            thread.start()
        try:
            visits = asyncio.run(
                readers(
                    url,
                    args.users,
                    args.duration,
                    int(args.page_timeout * 1000),
                    args.ramp,
                    args.think,
                )
            )
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        summary = report(visits, publishes, memory, cpu, args, sum(browsers.values()))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    sys.exit(1 if summary["errors"] else 0)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
