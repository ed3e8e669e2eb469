"""tools/screenshots.py shoots the pages the dashboard declares, not a list of its own: a page added to
app/dashboard.py's VIEWS is shot too, under its script's name, at its URL path with the queries asked for."""

from __future__ import annotations

import pytest

from app.dashboard import VIEWS
from tools import screenshots


def test_every_page_of_the_navigation_is_shot_under_its_script_name_in_its_order() -> None:
    shots = screenshots.shots()
    assert [shot.name for shot in shots] == list(VIEWS)
    assert [shot.path for shot in shots] == [f"/{view.url_path}" for view in VIEWS.values()]


def test_a_selection_keeps_the_navigation_order_and_adds_the_queries() -> None:
    names = list(VIEWS)
    last, first = names[-1], names[0]
    shots = screenshots.shots([last, first], query="dataset=worldcuisines", page_queries={last: "x=1"})
    assert [shot.name for shot in shots] == [first, last]
    assert shots[0].path == f"/{VIEWS[first].url_path}?dataset=worldcuisines"
    assert shots[1].path == f"/{VIEWS[last].url_path}?dataset=worldcuisines&x=1"


def test_an_unknown_page_is_one_error_naming_the_known_pages() -> None:
    with pytest.raises(SystemExit, match=r"error: no page nowhere; the pages are: .*map"):
        screenshots.shots(["map", "nowhere"])


def test_a_warehouse_that_does_not_exist_stops_before_any_server_starts(tmp_path) -> None:
    with pytest.raises(SystemExit, match="no such warehouse"):
        screenshots.main(["--warehouse", str(tmp_path / "missing.duckdb"), "--out", str(tmp_path / "shots")])
