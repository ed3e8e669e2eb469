"""`make demo` as a newcomer sees it: a fresh clone with no network and no data folder builds from the embedded bundle,
and every page of the dashboard opens in headless Chromium without an exception; every analysis page shows real
answers of real models, the landing page states its findings with links to their evidence, and a study page with
no answers offers its template answer file."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.dashboard import VIEWS
from tests.e2e.conftest import serve
from tests.e2e.test_browser import wait_for_run

EXCEPTION = "[data-testid='stException']"
NO_ANSWERS = "holds no scored model answers"
# Pages about the answers the bundle ships (WorldCuisines' 12 models; BORSch through its linked dishes), each opened
# with ?dataset=worldcuisines.
ANALYSIS_PAGES = (
    "",
    "map",
    "language-pull",
    "compare",
    "consistency",
    "answers",
    "confusion",
    "method-audit",
    "language-switching",
    "language-gap",
    "dish-names",
)
# Study pages whose answers no public file holds: each offers what to run and a template to fill in.
EMPTY_STUDY_PAGES = ("zno", "captions", "vqa", "uacuisine", "culture-mix")


@pytest.fixture(scope="module")
def bundle_url(bundle_warehouse: Path) -> Iterator[str]:
    with serve("app/main.py", {"DISH_ATLAS_WAREHOUSE": str(bundle_warehouse)}) as url:
        yield url


@dataclass(frozen=True)
class Drawn:
    """What one page of the bundle's dashboard showed in the browser."""

    text: str
    exceptions: int
    downloads: int
    finding_links: int


FINDING_LINKS = "[data-testid='stMain'] a[href^='map?'], [data-testid='stMain'] a[href^='language-pull?']"


@pytest.fixture(scope="module")
def drawn(bundle_url: str, _worker_tab) -> Iterator[dict[str, Drawn]]:
    """Every page opened once, by its path (each test below reads what it needs: opening the same pages once per test
    drew the analysis and study pages two or three times, ~20 s of the browser's and the server's time)."""
    tab = _worker_tab
    pages = {}
    for view in VIEWS.values():
        tab.goto(f"{bundle_url}/{view.url_path}?dataset=worldcuisines", wait_until="domcontentloaded")
        wait_for_run(tab)
        tab.wait_for_timeout(300)
        pages[view.url_path] = Drawn(
            text=tab.locator("[data-testid='stMain']").inner_text(),
            exceptions=tab.locator(EXCEPTION).count(),
            downloads=tab.locator("[data-testid='stDownloadButton']").count(),
            finding_links=tab.locator(FINDING_LINKS).count(),
        )
    yield pages
    tab.goto("about:blank")


def test_every_page_opens_without_an_exception(drawn: dict[str, Drawn]) -> None:
    for view in VIEWS.values():
        assert drawn[view.url_path].exceptions == 0, view.title


def test_every_analysis_page_shows_real_answers_of_the_bundle(drawn: dict[str, Drawn]) -> None:
    for path in ANALYSIS_PAGES:
        text = drawn[path].text
        assert NO_ANSWERS not in text, path
        assert "Embedded bundle of real results" in text, path  # labelled as a subset, with how to load it whole
    landing = drawn[""]
    assert "gpt-4o-2024-08-06" in landing.text and "12 models asked in 30 prompt languages" in landing.text
    assert landing.finding_links >= 2  # each finding links to its evidence


def test_a_study_page_without_answers_offers_its_template(drawn: dict[str, Drawn]) -> None:
    for path in EMPTY_STUDY_PAGES:
        text = drawn[path].text
        assert "How to fill this page" in text and "What this page shows once answers are in" in text, path
        assert drawn[path].downloads == 1, path
