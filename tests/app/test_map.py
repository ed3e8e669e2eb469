"""The Map page, run headless with AppTest on the real demo warehouse (WorldCuisines answers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import REPO

MAIN = REPO / "app" / "main.py"
MAP_PAGE = "views/map.py"  # relative to app/main.py
TIMEOUT = 60
DATASET = "worldcuisines"


@pytest.fixture
def open_map(real_warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    """Opens the Map page with the given link parameters (the dataset with answers preselected)."""
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(real_warehouse))

    def open_with(**params: str) -> AppTest:
        at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
        at.query_params["dataset"] = DATASET
        for name, value in params.items():
            at.query_params[name] = value
        at.run()
        at.switch_page(MAP_PAGE).run()
        assert not at.exception, at.exception
        return at

    return open_with


def deck_charts(at: AppTest) -> list:
    return list(at.get("deck_gl_json_chart"))


def deck_spec(at: AppTest) -> dict:
    return json.loads(deck_charts(at)[0].proto.json)


def map_click(layer: str, obj: dict) -> dict:
    """The selection state the map sends back when an object of `layer` is clicked."""
    return {"selection": {"indices": {layer: [0]}, "objects": {layer: [obj]}}}


def test_default_view_draws_the_recall_map(open_map):
    at = open_map()
    assert len(deck_charts(at)) == 1
    assert at.radio(key="url_view").value == "recall"
    assert "view" not in at.query_params
    assert at.selectbox(key="url_country").value == ""  # no country chosen: no dish table yet
    assert not at.metric
    assert {button.label for button in at.get("download_button")} == {"CSV", "Parquet"}  # the country table


def test_the_map_needs_no_network(open_map):
    spec = deck_spec(open_map())
    assert spec["mapStyle"] == "__MAP_STYLE__"  # pydeck's "no basemap": Streamlit then loads no tiles
    assert "mapProvider" not in spec
    assert "http" not in json.dumps(spec)
    countries, arcs = spec["layers"]
    assert countries["@@type"] == "GeoJsonLayer" and arcs["@@type"] == "ArcLayer"
    features = {feature["properties"]["country"]: feature["properties"] for feature in countries["data"]["features"]}
    assert "recall" in features["UA"]["label"] and features["UA"]["name"] == "Ukraine (UA)"
    assert len(arcs["data"]) == 150


def test_over_prediction_view_from_the_link(open_map):
    at = open_map(view="over")
    assert len(deck_charts(at)) == 1
    assert at.radio(key="url_view").value == "over"
    assert at.query_params.get("view") == "over"

    at.radio(key="url_view").set_value("recall").run()
    assert not at.exception
    assert "view" not in at.query_params


def test_country_link_lists_ukraines_dishes_with_every_answer(open_map):
    at = open_map(country="UA")
    assert at.selectbox(key="url_country").value == "UA"
    assert any("Ukraine" in header.value for header in at.subheader)
    assert {metric.label for metric in at.metric} >= {"Recall", "Over-prediction"}
    table = at.dataframe[-1].value
    assert not table.empty
    assert {"dish", "model", "lang", "response", "predicted", "status"} <= set(table.columns)
    assert all("UA" in gold.split(",") for gold in table["gold"])
    assert table["model"].nunique() > 1  # every selected model's answers (all models: none selected)
    assert len(table) <= 2_000
    assert sum(button.label == "CSV" for button in at.get("download_button")) == 2
    assert len(deck_charts(at)) == 1


def test_unknown_country_in_the_link_falls_back(open_map):
    at = open_map(country="ZZ")
    assert any("ZZ" in warning.value for warning in at.warning)
    assert at.selectbox(key="url_country").value == ""
    assert "country" not in at.query_params
    assert len(deck_charts(at)) == 1


def test_picking_a_country_updates_the_link(open_map):
    at = open_map(view="over")
    at.selectbox(key="url_country").set_value("UA").run()
    assert not at.exception
    assert at.query_params.get("country") == "UA"
    assert at.query_params.get("view") == "over"
    assert any("Ukraine" in header.value for header in at.subheader)


def test_clicking_a_country_or_an_arc_picks_it(open_map):
    at = open_map()
    at.session_state["map_deck"] = map_click("countries", {"type": "Feature", "properties": {"country": "UA"}})
    at.run()
    assert not at.exception
    assert at.query_params.get("country") == "UA"
    assert any("Ukraine" in header.value for header in at.subheader)

    at.selectbox(key="url_country").set_value("FR").run()  # the old click does not win over the selectbox
    assert at.query_params.get("country") == "FR"

    at.session_state["map_deck"] = map_click("arcs", {"true_country": "JP", "predicted_country": "CN", "n": 3})
    at.run()
    assert at.query_params.get("country") == "JP"  # an arc picks the dish's true origin


def test_origins_map_for_the_dish_page(real_warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(real_warehouse))

    def dish_page_map():
        import os

        from app import maps
        from warehouse.queries import geo

        shapes = geo.country_shapes(os.environ["DISH_ATLAS_WAREHOUSE"])
        maps.origins_map(shapes, {"UA": [200, 0, 0, 255], "RU": [0, 0, 200, 255]}, key="origins", height=250)

    at = AppTest.from_function(dish_page_map, default_timeout=TIMEOUT).run()
    assert not at.exception
    spec = deck_spec(at)
    assert spec["mapStyle"] == "__MAP_STYLE__"
    fills = {f["properties"]["country"]: f["properties"]["fill"] for f in spec["layers"][0]["data"]["features"]}
    assert fills["UA"] == [200, 0, 0, 255] and fills["RU"] == [0, 0, 200, 255]
    assert fills["FR"] == fills["JP"] != fills["UA"]  # every other country the same light grey
