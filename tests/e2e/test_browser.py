"""End to end through a real browser: every dashboard page served by `streamlit run` over the real
warehouse, opened in headless Chromium (the first half of the pages here, the second in
test_browser_pages.py).

For each page the test waits for the script run to finish and for its charts and maps to draw, then
requires that:

- no Streamlit exception box is shown;
- it drew its content: each page names the marks it must show (bars, points or heatmap cells,
  metrics, table rows, texts) with a least count, and the least number of rows of its largest table,
  so a page that stops early or draws an empty chart fails;
- every request the page made went to the local server (127.0.0.1 / localhost) or stayed inside the
  browser (data: and blob: URLs). The one allowed exception is the dish photo: the Dish page shows
  the dataset's photo by its remote URL, for the browser to fetch when it can reach it (the Dish names page
  shows the photos of the dishes models mistake for one another the same way); so image requests
  to upload.wikimedia.org, and only those, are allowed. No map tiles, fonts, scripts or
  topojson may come from elsewhere;
- maps (deck.gl canvases) actually drew something.

A screenshot of each page (the 1400 x 1000 window) is saved to out/screenshots/<page>.png; with
$DISH_ATLAS_SCREENSHOTS set, whole pages (1400 px wide, full height) go there instead (docs/screenshots
refreshes the README's; the map one is shown there).
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import HEIGHT, RUN_TIMEOUT_MS, WIDTH, listening, serve
from tests.helpers import REPO

pytestmark = pytest.mark.e2e

# out/screenshots (git-ignored) by default, so a test run leaves the checkout clean; refresh the
# README's pictures with DISH_ATLAS_SCREENSHOTS=docs/screenshots.
SCREENSHOTS = REPO / os.environ.get("DISH_ATLAS_SCREENSHOTS", "out/screenshots")
FULL_PAGES = bool(os.environ.get("DISH_ATLAS_SCREENSHOTS"))
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
IMAGE_HOST = "upload.wikimedia.org"  # the dish photos, by the dataset's own URLs
MAX_HEIGHT = 8_000
CONTENT_HEIGHT = """() => {
    const block = document.querySelector("[data-testid='stMainBlockContainer']");
    if (!block) return document.documentElement.scrollHeight;
    return block.getBoundingClientRect().top + block.scrollHeight + 48;
}"""
DECK = "[data-testid='stDeckGlJsonChart'] canvas"
SVG_MAP = "[data-testid='stImage'] img[src^='data:image/svg+xml']"  # the small maps (app/maps.py origins_map)
EXCEPTION = "[data-testid='stException']"
# What a page draws, counted in the browser: chart marks, metrics, table rows Streamlit drew from
# HTML, plain text blocks, radios, messages. Vega-Lite charts (app/vega.py) draw SVG: bars and heatmap
# cells are rect marks, points are symbol marks; a chart whose data makes more than 2,000 marks Streamlit draws
# on a canvas instead (a 36-model heatmap at bench/scale.py's K = 3), which is drawn as well.
VEGA = "[data-testid='stVegaLiteChart'] :is(svg.marks, canvas)"
RECTS = "[data-testid='stVegaLiteChart'] .mark-rect.role-mark path"
SYMBOLS = "[data-testid='stVegaLiteChart'] .mark-symbol.role-mark path"
METRICS = "[data-testid='stMetric']"
HTML_ROWS = "[data-testid='stHtml'] table tbody tr"
TEXTS = "[data-testid='stText']"
RADIOS = "[data-testid='stRadio']"
ALERTS = "[data-testid='stAlert']"
BUTTONS = "[data-testid='stButton'] button"
DATAFRAME = "[data-testid='stDataFrame'] table"
WORLDCUISINES = "dataset=worldcuisines"
PHOTO_PAGES = {"dish", "dish_linked", "dish_names"}  # pages that show dataset photos by their remote URL


@dataclass(frozen=True)
class Page:
    name: str  # the screenshot's file name
    title: str  # as in the navigation (app/main.py)
    path: str  # URL path and query
    draws: tuple[str, ...] = ()  # selectors that must become visible (charts, maps)
    content: tuple[tuple[str, int], ...] = ()  # (selector, at least this many on the page)
    min_rows: int = 0  # the largest table (st.dataframe) must have at least this many rows, header included
    optional: bool = False


PAGES = (
    Page(
        "overview", "What models believe", f"/?{WORLDCUISINES}", (VEGA,), ((RECTS, 12 + 30), (METRICS, 5)), min_rows=13
    ),
    Page("map", "Map", f"/map?{WORLDCUISINES}", (DECK,)),
    Page("confusion", "Confusion", f"/confusion?{WORLDCUISINES}", (VEGA,), ((RECTS, 5 * 17),)),
    Page(
        "language_pull", "Language pull", f"/language-pull?{WORLDCUISINES}", (VEGA,), ((SYMBOLS, 30), (RECTS, 10)), 11
    ),
    Page("answers", "Answers", f"/answers?{WORLDCUISINES}&q=borscht", min_rows=10),
    Page(
        "compare", "Compare models", f"/compare?{WORLDCUISINES}", (VEGA,), ((SYMBOLS, 30), (METRICS, 4)), min_rows=100
    ),
    Page("consistency", "Consistency", f"/consistency?{WORLDCUISINES}", (VEGA,), ((RECTS, 12),), min_rows=100),
    Page("method_audit", "Method audit", f"/method-audit?{WORLDCUISINES}"),
    Page("language_switching", "Language switching", f"/language-switching?{WORLDCUISINES}"),
    Page(
        "dish",
        "Dish",
        f"/dish?{WORLDCUISINES}&dish=worldcuisines:en:949",
        (SVG_MAP,),
        ((HTML_ROWS, 12), (METRICS, 4)),
        2,
    ),
    Page("dishes", "Dishes", f"/dishes?{WORLDCUISINES}", min_rows=1000),
    Page("dish_names", "Dish names", f"/dish-names?{WORLDCUISINES}", (VEGA,), ((RECTS, 12 * 30),)),
    Page("dish_linked", "Dish", "/dish?dataset=borsch&dish=borsch:ru:785"),
    Page("cooccurrence", "Co-occurrence", f"/cooccurrence?{WORLDCUISINES}", (VEGA,), ((SYMBOLS, 4), (RECTS, 2)), 3),
    Page("codemix", "Code mixing", "/codemix?dataset=borsch", (VEGA,), ((RECTS, 3),)),
    Page("imagined", "Imagined dishes", "/imagined?dataset=borsch", content=((ALERTS, 1),)),  # empty state; drawn below
    Page("review", "Corpus review", f"/review?{WORLDCUISINES}", content=((TEXTS, 5), (RADIOS, 5))),
    Page("culturemix", "Culture mix", "/culture-mix?dataset=culturemix", (VEGA,)),
    # the shipped config offers the embedded real model: the form (language radio, ask button) draws
    Page("probe", "Live probe", f"/probe?{WORLDCUISINES}", content=((RADIOS, 1), (BUTTONS, 1)), optional=True),
)


LARGEST_TABLE = f"""() => Math.max(0, ...[...document.querySelectorAll("{DATAFRAME}")]
    .map(e => Number(e.getAttribute('aria-rowcount'))))"""


def largest_table(page) -> int:
    """Rows (header included) of the largest st.dataframe on the page; 0 when it has none."""
    return int(page.evaluate(LARGEST_TABLE))


@dataclass
class Requests:
    """What a page asked the network for, sorted into allowed and not."""

    local: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)  # the allowed exception: photos from IMAGE_HOST
    foreign: list[str] = field(default_factory=list)

    def record(self, url: str, resource_type: str) -> None:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob") or parts.hostname in LOCAL_HOSTS:
            self.local.append(url)
        elif parts.hostname == IMAGE_HOST and resource_type == "image":
            self.images.append(url)
        else:
            self.foreign.append(f"{resource_type} {url}")


def wait_for_run(page) -> None:
    """Until Streamlit reports the script run finished (the app frame and the page both ran)."""
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector("[data-testid='stSidebarNav'], [data-testid='stSidebar']", timeout=RUN_TIMEOUT_MS)


def colours(png: bytes) -> int:
    """How many distinct colours a screenshot holds (a blank canvas has one or two)."""
    with Image.open(io.BytesIO(png)) as image:
        return len(image.convert("RGB").getcolors(maxcolors=image.width * image.height))


def screenshot(page, name: str) -> None:
    """The window, or with $DISH_ATLAS_SCREENSHOTS the whole page at WIDTH px. Streamlit scrolls inside its
    main container, not the document, so for a whole page the viewport is first grown to the content's
    height (a plain full-page shot would stop at HEIGHT) and charts get time to redraw at the new size:
    ~2.5 s a page, taken only when the pictures are wanted."""
    if not FULL_PAGES:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        return
    height = page.evaluate(CONTENT_HEIGHT)
    page.set_viewport_size({"width": WIDTH, "height": max(HEIGHT, min(int(height), MAX_HEIGHT))})
    page.wait_for_timeout(1_500)  # let charts and maps redraw at the new size
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def nav_titles(page) -> set[str]:
    """Page titles in the navigation: its sections run across the top, each a menu of its pages, opened in turn
    (each link's text also holds its icon's ligature name, first)."""
    titles: set[str] = set()
    sections = page.locator("[data-testid='stTopNavSection']")
    for index in range(sections.count()):
        sections.nth(index).click()
        links = page.locator("[data-testid='stTopNavDropdownLink']")
        links.first.wait_for(state="visible")
        titles |= {text.strip().splitlines()[-1].strip() for text in links.all_inner_texts() if text.strip()}
        page.keyboard.press("Escape")
        page.wait_for_timeout(200)
    return titles


# Half the pages here, half in test_browser_pages.py: two files, so the two test workers draw them side by side.
FIRST_HALF = PAGES[:9]
SECOND_HALF = PAGES[9:]


def test_the_first_half_of_the_pages_draws_without_errors_or_remote_requests(app_url: str, tab) -> None:
    assert {"overview", "map", "confusion", "language_pull"} <= set(check_pages(app_url, tab, FIRST_HALF))


def check_pages(app_url: str, page, pages: tuple[Page, ...]) -> list[str]:
    """Open each page (a new document in the tab `page`) and check what the module's docstring promises; the pages
    checked (an optional page not in the navigation is passed over)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    checked = []
    titles: set[str] = set()
    for spec in pages:
        requests = Requests()
        with listening(
            page,
            request=lambda request, seen=requests: seen.record(request.url, request.resource_type),
            websocket=lambda socket, seen=requests: seen.record(socket.url, "websocket"),
        ):
            page.goto(app_url + spec.path, wait_until="domcontentloaded")
            wait_for_run(page)
            if not titles:
                titles = nav_titles(page)
                missing = {p.title for p in PAGES if not p.optional} - titles
                assert not missing, f"pages missing from the navigation: {missing} (found {titles})"
            if spec.title not in titles:
                assert spec.optional, f"{spec.title} is not in the navigation"
                continue
            check_page(page, spec, requests)
        checked.append(spec.name)
    return checked


def check_page(page, spec: Page, requests: Requests) -> None:
    """The page `spec`, open in `page` after its first script run, drew what it must and asked nothing remote."""
    for selector in spec.draws:
        page.locator(selector).first.wait_for(state="visible", timeout=RUN_TIMEOUT_MS)
    if DECK in spec.draws:
        page.wait_for_timeout(2_000)  # deck.gl draws the GeoJSON a frame or two after the canvas appears
        canvas = page.locator(DECK).first.screenshot()
        assert colours(canvas) > 3, f"{spec.name}: the map canvas is blank"
    if SVG_MAP in spec.draws:
        image = page.locator(SVG_MAP).first
        assert image.evaluate("(img) => img.complete && img.naturalWidth > 0"), f"{spec.name}: the map did not load"
        assert colours(image.screenshot()) > 3, f"{spec.name}: the map is blank"
    wait_for_run(page)
    page.wait_for_load_state("networkidle")
    screenshot(page, spec.name)  # before the checks: a failing page leaves its picture behind

    for selector, least in spec.content:
        # widgets can land a moment after the run reports it finished (Review's radios did, on a busy machine)
        with contextlib.suppress(PlaywrightTimeout):
            page.locator(selector).nth(least - 1).wait_for(state="attached", timeout=10_000)
        found = page.locator(selector).count()
        assert found >= least, f"{spec.name}: {found} of {selector!r}, expected at least {least}"
    if spec.min_rows:
        # the run is over; a large table's grid can land a moment after a small one (Compare: 31 rows, then 3,522)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(LARGEST_TABLE + f" >= {spec.min_rows}", timeout=10_000)
        rows = largest_table(page)
        assert rows >= spec.min_rows, f"{spec.name}: the largest table has {rows} rows, expected {spec.min_rows}+"
    errors = page.locator(EXCEPTION)
    assert errors.count() == 0, f"{spec.name}: Streamlit shows an exception:\n{errors.first.inner_text()}"
    assert not requests.foreign, f"{spec.name}: requests to non-local hosts: {requests.foreign}"
    assert requests.local, f"{spec.name}: no request reached the local server"
    if spec.name not in PHOTO_PAGES:
        assert not requests.images, f"{spec.name}: remote images outside the photo pages: {requests.images}"


IMAGE = "[data-testid='stImage'] img, [data-testid='stFullScreenFrame'] img"


def test_the_imagined_dishes_page_draws_generated_and_real_images_locally(imagined_warehouse, tab) -> None:
    """The Imagined dishes page over rows the imagine steps wrote with tiny random models: charts draw,
    the generated and real images load from the local server, and nothing is fetched from elsewhere."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    requests = Requests()
    page = tab
    with (
        serve("app/main.py", {"DISH_ATLAS_WAREHOUSE": str(imagined_warehouse)}) as url,
        listening(page, request=lambda request: requests.record(request.url, request.resource_type)),
    ):
        page.goto(url + "/imagined?dataset=borsch", wait_until="domcontentloaded")
        wait_for_run(page)
        page.locator(VEGA).nth(1).wait_for(state="visible", timeout=RUN_TIMEOUT_MS)  # histogram + scatter
        page.locator(IMAGE).nth(3).wait_for(state="visible", timeout=RUN_TIMEOUT_MS)  # 2 generated + 2 real
        wait_for_run(page)
        page.wait_for_load_state("networkidle")
        screenshot(page, "imagined")
        assert page.locator(EXCEPTION).count() == 0
        assert "Tiny random test models produced" in page.inner_text("body")
        loaded = page.evaluate(f"""() => [...document.querySelectorAll("{IMAGE}")]
            .map(img => img.complete && img.naturalWidth > 0)""")
        assert len(loaded) >= 4 and all(loaded), loaded
        assert not requests.foreign and not requests.images, requests.foreign + requests.images
