"""`make demo` as a newcomer sees it: a fresh clone with no network and no data folder builds from the embedded bundle,
and every page of the dashboard opens in headless Chromium without an exception; every analysis page shows real
answers of real models, the landing page states its findings with links to their evidence, and a study page with
no answers offers its template answer file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.dashboard import VIEWS
from tests.e2e.conftest import serve
from tests.e2e.test_browser import wait_for_run

EXCEPTION = "[data-testid='stException']"
NO_ANSWERS = "holds no scored model answers"
# Pages about the answers the bundle ships (WorldCuisines' 12 models; BORSch through its linked dishes).
ANALYSIS_PAGES = {
    "": "worldcuisines",
    "map": "worldcuisines",
    "language-pull": "worldcuisines",
    "compare": "worldcuisines",
    "consistency": "worldcuisines",
    "answers": "worldcuisines",
    "confusion": "worldcuisines",
    "method-audit": "worldcuisines",
    "language-switching": "worldcuisines",
    "language-gap": "worldcuisines",
    "dish-names": "worldcuisines",
}
# Study pages whose answers no public file holds: each offers what to run and a template to fill in.
EMPTY_STUDY_PAGES = ("zno", "captions", "vqa", "uacuisine", "culture-mix")


@pytest.fixture(scope="module")
def bundle_url(bundle_warehouse: Path) -> Iterator[str]:
    with serve("app/main.py", {"DISH_ATLAS_WAREHOUSE": str(bundle_warehouse)}) as url:
        yield url


def opened(tab, url: str) -> str:
    tab.goto(url, wait_until="domcontentloaded")
    wait_for_run(tab)
    tab.wait_for_timeout(300)
    return tab.locator("[data-testid='stMain']").inner_text()


def test_every_page_opens_without_an_exception(bundle_url: str, tab) -> None:
    for view in VIEWS.values():
        opened(tab, f"{bundle_url}/{view.url_path}?dataset=worldcuisines")
        assert tab.locator(EXCEPTION).count() == 0, view.title


def test_every_analysis_page_shows_real_answers_of_the_bundle(bundle_url: str, tab) -> None:
    for path, dataset in ANALYSIS_PAGES.items():
        text = opened(tab, f"{bundle_url}/{path}?dataset={dataset}")
        assert NO_ANSWERS not in text, path
        assert "Embedded bundle of real results" in text, path  # labelled as a subset, with how to load it whole
    landing = opened(tab, f"{bundle_url}/?dataset=worldcuisines")
    assert "gpt-4o-2024-08-06" in landing and "12 models asked in 30 prompt languages" in landing
    findings = tab.locator("[data-testid='stMain'] a[href^='map?'], [data-testid='stMain'] a[href^='language-pull?']")
    assert findings.count() >= 2  # each finding links to its evidence


def test_a_study_page_without_answers_offers_its_template(bundle_url: str, tab) -> None:
    for path in EMPTY_STUDY_PAGES:
        text = opened(tab, f"{bundle_url}/{path}?dataset=worldcuisines")
        assert "How to fill this page" in text and "What this page shows once answers are in" in text, path
        assert tab.locator("[data-testid='stDownloadButton']").count() == 1, path
