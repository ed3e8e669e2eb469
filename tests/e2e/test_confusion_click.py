"""The Confusion heatmap clicked in a real browser: a click on a cell (a Vega-Lite rect, app/vega.py)
reaches the server as the chart's selection and opens the answers behind that cell, with the cell
in the link (`?true=UA&pred=RU`)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import RUN_TIMEOUT_MS
from tests.e2e.test_browser import EXCEPTION, SCREENSHOTS, wait_for_run
from tests.e2e.test_map_click import shown_value

pytestmark = pytest.mark.e2e

CELL = "[data-testid='stVegaLiteChart'] .mark-rect.role-mark path[aria-label^='predicted: RU; true origin: UA;']"


def test_clicking_a_confusion_cell_lists_its_answers(app_url: str, tab) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = tab
    page.goto(f"{app_url}/confusion?dataset=worldcuisines", wait_until="domcontentloaded")
    wait_for_run(page)
    true_box = page.locator("[data-testid='stSelectbox']").filter(has_text="True origin")
    assert "Choose" in shown_value(true_box) and "true=" not in page.url
    cell = page.locator(CELL)
    cell.wait_for(state="visible")
    cell.scroll_into_view_if_needed()
    page.mouse.wheel(0, 200)  # clear of the sticky header
    page.wait_for_timeout(500)
    box = cell.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_url("**true=UA**", timeout=RUN_TIMEOUT_MS)
    wait_for_run(page)
    assert "pred=RU" in page.url
    assert "UA" in shown_value(true_box)
    assert "RU" in shown_value(page.locator("[data-testid='stSelectbox']").filter(has_text="Predicted"))
    assert page.locator(EXCEPTION).count() == 0
    page.screenshot(path=str(SCREENSHOTS / "confusion_after_click.png"), full_page=True)
