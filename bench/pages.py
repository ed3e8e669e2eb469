"""Each dashboard page's first draw in a real browser (headless Chromium), cold and warm.

For every page of tests/e2e/test_browser.py's list (the same links and the same "drawn" marks: its
charts, maps and tables), on the demo warehouse:

- **cold**: a fresh `streamlit run` process (nothing imported, nothing cached), then the page opened
  in a fresh browser context: from the navigation to the page drawn; the median of `--cold-runs`
  samples, each on its own fresh server (one sample moves by ±0.5 s on this 2-core machine);
- **warm**: the same server (its caches filled), median of `--warm-runs`, two ways: the page opened
  again in a new tab (the whole frontend loads again: "tab"), and the page reached by its link in
  the navigation from another page of the same tab, as a reader clicks around ("switch"; the link
  carries no query string, so the page shows what the session last chose there).

"Drawn" means: the page's title shown, each chart or map it must draw visible, a map's canvas painted
(more than a few colours), and Streamlit's script run finished. Goals (issue 13): <= 5 s cold and
<= 2 s warm for every page; the ratio columns are time / goal (<= 1.00 meets it), warm by the
page switch.

    .venv/bin/python bench/pages.py --warehouse /work/cache/demo/warehouse.duckdb
    .venv/bin/python bench/pages.py --pages map,dish --warm-runs 5
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from app.dashboard import VIEWS  # noqa: E402
from bench.load import NAV_LINK, NAV_SECTION, exact  # noqa: E402
from pipeline.core.settings import default_warehouse  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, HEIGHT, WIDTH, serve  # noqa: E402
from tests.e2e.test_browser import DECK, PAGES, Page  # noqa: E402

COLD_GOAL_S, WARM_GOAL_S = 5.0, 2.0
TIMEOUT_MS = 120_000
TITLE = "[data-testid='stMainBlockContainer'] h1"
FINISHED = "[data-test-script-state='notRunning']"
PAINTED = """(canvas) => {
    // a painted deck.gl canvas: sample its pixels through a 2D copy and count distinct colours
    const copy = document.createElement('canvas');
    copy.width = 64; copy.height = 32;
    const ctx = copy.getContext('2d');
    ctx.drawImage(canvas, 0, 0, 64, 32);
    const px = ctx.getImageData(0, 0, 64, 32).data;
    const seen = new Set();
    for (let i = 0; i < px.length; i += 4) seen.add(px[i] * 65536 + px[i + 1] * 256 + px[i + 2]);
    return seen.size;
}"""


def painted(page) -> bool:
    """A map canvas shows more than a blank background (deck.gl draws a frame or two after it appears)."""
    try:
        return page.locator(DECK).first.evaluate(PAINTED) > 3
    except Exception:  # WebGL canvases without preserveDrawingBuffer read back blank: use a screenshot
        shot = page.locator(DECK).first.screenshot()
        with Image.open(io.BytesIO(shot)) as image:
            return len(image.convert("RGB").getcolors(maxcolors=image.width * image.height) or []) > 3


def drawn(page, spec: Page, start: float, title_not: str | None = None) -> float:
    """Wait until `spec` is drawn (its title, its charts and maps, a painted canvas, the run finished);
    `title_not`: the previous page's title, which must be gone first. Seconds since `start`."""
    if title_not is None:
        page.locator(TITLE).first.wait_for(state="visible", timeout=TIMEOUT_MS)
    else:
        page.wait_for_function(
            f"(old) => {{ const h = document.querySelector({TITLE!r}); return h && h.innerText.trim() !== old; }}",
            arg=title_not,
            timeout=TIMEOUT_MS,
        )
    for selector in spec.draws:
        page.locator(selector).first.wait_for(state="visible", timeout=TIMEOUT_MS)
    page.wait_for_selector(FINISHED, state="attached", timeout=TIMEOUT_MS)
    if DECK in spec.draws:
        deadline = time.perf_counter() + TIMEOUT_MS / 1000
        while not painted(page) and time.perf_counter() < deadline:
            page.wait_for_timeout(50)
    return time.perf_counter() - start


def first_draw(context, url: str, spec: Page) -> float:
    """Seconds from navigating a new tab to `spec`'s link until it is drawn."""
    page = context.new_page()
    try:
        start = time.perf_counter()
        page.goto(url + spec.path, wait_until="commit")
        return drawn(page, spec, start)
    finally:
        page.close()


def nav_link(page, title: str):
    """The navigation's link to the page titled `title`, its section's menu opened (the sections run across the top,
    each a menu of its pages; bench/load.py opens them alike)."""
    section = next(view.section for view in VIEWS.values() if view.title == title)
    page.locator(NAV_SECTION).filter(has_text=exact(section)).first.click()
    page.locator(NAV_LINK).first.wait_for(state="visible", timeout=TIMEOUT_MS)
    return page.locator(NAV_LINK).filter(has_text=exact(title)).first


def switches(context, url: str, spec: Page, runs: int, via: Page) -> list[float]:
    """Seconds from clicking `spec`'s navigation link (coming from `via`, in the same tab; its menu opened first) until
    drawn."""
    page = context.new_page()
    times = []
    try:
        page.goto(url + spec.path, wait_until="commit")
        drawn(page, spec, time.perf_counter())
        for _ in range(runs):
            title = page.locator(TITLE).first.inner_text().strip()
            nav_link(page, via.title).click()
            drawn(page, via, time.perf_counter(), title_not=title)
            title = page.locator(TITLE).first.inner_text().strip()
            link = nav_link(page, spec.title)
            start = time.perf_counter()
            link.click()
            times.append(drawn(page, spec, start, title_not=title))
    finally:
        page.close()
    return times


def measure(
    spec: Page, warehouse: Path, warm_runs: int, browser, cold_runs: int
) -> tuple[list[float], list[float], list[float]]:
    """(cold seconds, warm seconds in new tabs, warm seconds by page switches) of one page: each cold
    sample on a fresh server, the warm ones on the first of them."""
    via = next(page for page in PAGES if page.name == ("dishes" if spec.name != "dishes" else "method_audit"))
    colds: list[float] = []
    tabs: list[float] = []
    switched: list[float] = []
    for run in range(cold_runs):
        with serve("app/main.py", {"DISH_ATLAS_WAREHOUSE": str(warehouse)}) as url:
            context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)
            try:
                colds.append(first_draw(context, url, spec))
                if run == 0:
                    tabs = [first_draw(context, url, spec) for _ in range(warm_runs)]
                    switched = switches(context, url, spec, warm_runs, via)
            finally:
                context.close()
    return colds, tabs, switched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", type=Path, default=default_warehouse(), help="the published demo warehouse")
    parser.add_argument("--pages", default="", help="comma-separated page names (default: every page)")
    parser.add_argument("--warm-runs", type=int, default=3)
    parser.add_argument(
        "--cold-runs", type=int, default=3, help="cold samples per page, each on a fresh server (the median is shown)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if not args.warehouse.is_file():
        sys.exit(f"error: {args.warehouse}: no published warehouse — build one with `make warehouse`")
    wanted = {name for name in args.pages.split(",") if name}
    specs = [spec for spec in PAGES if not wanted or spec.name in wanted]
    unknown = wanted - {spec.name for spec in PAGES}
    if unknown:
        sys.exit(f"error: unknown pages {sorted(unknown)} — known: {', '.join(spec.name for spec in PAGES)}")

    from playwright.sync_api import sync_playwright

    rows = []
    print(f"{'page':<20}{'cold s':>8}{'warm tab s':>12}{'warm switch s':>15}{'cold/5s':>9}{'warm/2s':>9}  goals")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for spec in specs:
                colds, tabs, switched = measure(spec, args.warehouse, args.warm_runs, browser, args.cold_runs)
                cold, tab, warm = statistics.median(colds), statistics.median(tabs), statistics.median(switched)
                met = "met" if cold <= COLD_GOAL_S and warm <= WARM_GOAL_S else "NOT met"
                print(
                    f"{spec.name:<20}{cold:>8.2f}{tab:>12.2f}{warm:>15.2f}"
                    f"{cold / COLD_GOAL_S:>9.2f}{warm / WARM_GOAL_S:>9.2f}  {met}",
                    flush=True,
                )
                row = {"page": spec.name, "path": spec.path, "cold_s": cold, "cold_runs_s": colds, "warm_tab_s": tabs}
                rows.append(row | {"warm_switch_s": switched})
        finally:
            browser.close()
    worst_cold = max(row["cold_s"] for row in rows)
    worst_warm = max(statistics.median(row["warm_switch_s"]) for row in rows)
    print(
        f"worst: cold {worst_cold:.2f} s ({worst_cold / COLD_GOAL_S:.2f}x the 5 s goal), "
        f"warm {worst_warm:.2f} s ({worst_warm / WARM_GOAL_S:.2f}x the 2 s goal)"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
