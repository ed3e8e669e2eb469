"""Screenshots of the dashboard's pages for docs/screenshots/, taken by headless Chromium so they can be redone
after any change to the pages: Debian's Chromium (`apt-get install chromium`, /usr/bin/chromium) driven by
Playwright, never a browser Playwright downloads. It builds nothing: it visits a running dashboard, or starts one
(`streamlit run app/main.py`, loopback only) on a warehouse you built, and stops it afterwards.

    python tools/screenshots.py --url http://127.0.0.1:8501                  # a dashboard already running
    python tools/screenshots.py --warehouse W/warehouse.duckdb               # start one on W, shoot, stop it
    python tools/screenshots.py --warehouse W --pages map,overview --query dataset=worldcuisines \
        --page-query dish=dish=worldcuisines:en:949

The pages are those of `app/dashboard.py` `VIEWS` (a page added there is shot here too), each saved as
`<script name>.png` (map.png, language_pull.png, ...) at 1400 px wide, the whole page. A page that shows a
Streamlit exception is still saved and named on standard error, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as a script from anywhere: the project's packages are importable
    sys.path.insert(0, str(REPO))

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, HEIGHT, WIDTH, serve  # noqa: E402

OUT = REPO / "docs" / "screenshots"
TIMEOUT_MS = 120_000
MAX_HEIGHT = 8_000  # a page taller than this is cut (Chromium's texture limits)
FINISHED = "[data-test-script-state='notRunning']"
SIDEBAR = "[data-testid='stSidebarNav'], [data-testid='stSidebar']"
EXCEPTION = "[data-testid='stException']"
DECK = "[data-testid='stDeckGlJsonChart'] canvas"
# Streamlit scrolls inside its main container, not the document: the page's height is the container's.
CONTENT_HEIGHT = """() => {
    const block = document.querySelector("[data-testid='stMainBlockContainer']");
    if (!block) return document.documentElement.scrollHeight;
    return block.getBoundingClientRect().top + block.scrollHeight + 48;
}"""


@dataclass(frozen=True)
class Shot:
    """One page to shoot: the file name (without .png) and the URL path with its query."""

    name: str
    path: str


def shots(pages: list[str] | None = None, query: str = "", page_queries: dict[str, str] | None = None) -> list[Shot]:
    """The pages of `VIEWS` in the navigation's order (only `pages`, when given: script names), each with `query`
    and its own entry of `page_queries` in the URL. An unknown page name is an error naming the known ones."""
    from app.dashboard import VIEWS

    page_queries = page_queries or {}
    known = list(VIEWS)
    unknown = sorted({*(pages or []), *page_queries} - set(known))
    if unknown:
        raise SystemExit(f"error: no page {', '.join(unknown)}; the pages are: {', '.join(known)}")
    selected = [name for name in known if pages is None or name in pages]
    found = []
    for name in selected:
        parts = "&".join(part for part in (query, page_queries.get(name, "")) if part)
        found.append(Shot(name, f"/{VIEWS[name].url_path}" + (f"?{parts}" if parts else "")))
    return found


@contextlib.contextmanager
def dashboard(url: str | None, warehouse: Path | None) -> Iterator[str]:
    """The dashboard's base URL: `url` as given, or a `streamlit run` of this checkout on `warehouse` (loopback)."""
    if url is not None:
        yield url.rstrip("/")
        return
    assert warehouse is not None
    if not warehouse.is_file():
        raise SystemExit(f"error: {warehouse}: no such warehouse — build one first (python -m pipeline demo)")
    env = {"DISH_ATLAS_WAREHOUSE": str(warehouse.resolve())}
    with serve("app/main.py", env) as started:
        yield started


def shoot(page, base: str, shot: Shot, out: Path) -> tuple[float, int]:
    """Open `shot` in `page`, wait for the script run to finish and the network to settle, grow the window to the
    page's height and save it whole. Returns (seconds, the number of exceptions the page shows)."""
    start = time.perf_counter()
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.goto(base + shot.path, wait_until="domcontentloaded")
    page.wait_for_selector(FINISHED, state="attached", timeout=TIMEOUT_MS)
    page.wait_for_selector(SIDEBAR, timeout=TIMEOUT_MS)
    page.wait_for_load_state("networkidle")
    if page.locator(DECK).count():
        page.wait_for_timeout(2_000)  # deck.gl draws its map a frame or two after the canvas appears
    height = page.evaluate(CONTENT_HEIGHT)
    page.set_viewport_size({"width": WIDTH, "height": max(HEIGHT, min(int(height), MAX_HEIGHT))})
    page.wait_for_timeout(1_500)  # charts and maps redraw at the new size
    page.screenshot(path=str(out / f"{shot.name}.png"), full_page=True)
    return time.perf_counter() - start, page.locator(EXCEPTION).count()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running dashboard, e.g. http://127.0.0.1:8501")
    where.add_argument("--warehouse", type=Path, help="start a dashboard on this published warehouse (loopback)")
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the PNGs (default: docs/screenshots)")
    parser.add_argument("--pages", help="only these pages, by script name: map,overview,... (default: every page)")
    parser.add_argument("--query", default="", help="query string for every page, e.g. dataset=worldcuisines")
    parser.add_argument(
        "--page-query",
        action="append",
        default=[],
        metavar="PAGE=QUERY",
        help="query string for one page (repeatable), e.g. dish=dish=worldcuisines:en:949",
    )
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", CHROMIUM), help="the Chromium to drive")
    args = parser.parse_args(argv)
    page_queries = dict(item.split("=", 1) for item in args.page_query)
    todo = shots(args.pages.split(",") if args.pages else None, args.query, page_queries)
    args.out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    failed = []
    with dashboard(args.url, args.warehouse) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            for shot in todo:
                seconds, exceptions = shoot(page, base, shot, args.out)
                print(f"{args.out / shot.name}.png  {seconds:5.1f} s  {base}{shot.path}")
                if exceptions:
                    failed.append(shot.name)
                    print(f"error: {shot.name}: the page shows {exceptions} exception(s)", file=sys.stderr)
        finally:
            browser.close()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
