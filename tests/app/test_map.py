"""The Map page, run headless with AppTest on the real demo warehouse (WorldCuisines answers)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import REPO, SVG_NS, svg_maps

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


def fills_by_country(layer: dict) -> dict[str, list[int]]:
    return {row["country"]: row["fill"] for row in layer["data"]}


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
    # one flat polygon layer (a primitive layer: clicks on it reach the server; the gaps between the
    # polygons are the borders); no arcs and no selected outline until a country is picked
    assert [layer["@@type"] for layer in spec["layers"]] == ["SolidPolygonLayer"]
    countries = {row["country"]: row for row in spec["layers"][0]["data"]}
    assert "recall" in countries["UA"]["label"] and countries["UA"]["name"] == "Ukraine (UA)"
    assert spec["layers"][0]["pickable"] and countries["UA"]["tip"] == "se" and countries["JP"]["tip"] == "sw"


def test_the_colour_scale_is_fitted_to_the_data(open_map):
    """Most countries' recall is a few percent: the scale ends just above the largest value, not at 100%,
    and the best country is drawn in the scale's top colour."""
    from app import maps

    at = open_map()
    fills = fills_by_country(deck_spec(at)["layers"][0])
    table = at.dataframe[0].value  # all countries as a table
    best = table.sort_values("recall").iloc[-1]
    assert best["recall"] < 0.6
    scale = maps.Scale.fitted(table["recall"])
    assert best["recall"] <= scale.top <= best["recall"] + 0.1
    assert fills[best["country"]] == maps.sequential(scale.position(best["recall"]))
    assert maps.sequential(1.0)[:3] != fills[table.sort_values("recall").iloc[0]["country"]][:3]
    legend = " ".join(html.proto.body for html in at.get("html"))
    assert f"{round(scale.top * 100):g}%" in legend and "100%" not in legend


def test_arcs_only_for_the_selected_country_unless_all_are_asked_for(open_map):
    at = open_map(country="UA")
    layers = deck_spec(at)["layers"]
    assert [layer["id"] for layer in layers] == ["selected", "countries", "arcs"]  # its outline under it
    arcs = layers[-1]
    assert arcs["@@type"] == "ArcLayer"
    assert {row["true_country"] for row in arcs["data"]} == {"UA"}  # recall view: what its dishes were called
    at.radio(key="url_arcs").set_value("all").run()
    arcs = deck_spec(at)["layers"][-1]
    assert at.query_params.get("arcs") == "all"
    assert len(arcs["data"]) == 150 and len({row["true_country"] for row in arcs["data"]}) > 10
    at.radio(key="url_arcs").set_value("none").run()
    assert all(layer["@@type"] != "ArcLayer" for layer in deck_spec(at)["layers"])


def test_arcs_follow_the_confusion_rule(open_map, real_warehouse: Path):
    """A country's arcs are its confusions as the Confusion page counts them (marts.answer_pairs'
    `confusion_label`): an answer naming another origin of the dish (Russia for Paskha, asked about as
    Ukrainian) is a hit, so it draws no UA -> RU arc, and no arc ends at a '+' label."""
    at = open_map(country="UA")
    arcs = {(row["true_country"], row["predicted_country"]): row["n"] for row in deck_spec(at)["layers"][-1]["data"]}
    with duckdb.connect(str(real_warehouse), read_only=True) as con:
        by_label = dict(
            con.sql(
                """SELECT confusion_label, count(*) FROM marts.answer_pairs
                   WHERE dataset = 'worldcuisines' AND true_country = 'UA' GROUP BY ALL"""
            ).fetchall()
        )
        first_named_ru = con.execute(
            """SELECT count(*) FROM marts.answer_pairs
               WHERE dataset = 'worldcuisines' AND true_country = 'UA' AND predicted_country = 'RU'"""
        ).fetchone()[0]
    assert by_label.get("+", 0) > 0  # the demo has co-origin answers: the rule is exercised
    assert arcs[("UA", "RU")] == by_label["RU"] < first_named_ru
    assert all("+" not in named and named not in ("UA", "-") for _, named in arcs)
    for (_, named), n in arcs.items():
        assert by_label[named] == n


def test_over_prediction_view_from_the_link(open_map):
    at = open_map(view="over")
    assert len(deck_charts(at)) == 1
    assert at.radio(key="url_view").value == "over"
    assert at.query_params.get("view") == "over"

    at.radio(key="url_view").set_value("recall").run()
    assert not at.exception
    assert "view" not in at.query_params


def test_a_country_shows_summaries_first_then_every_answer(open_map):
    at = open_map(country="UA")
    assert at.selectbox(key="url_country").value == "UA"
    assert any("Ukraine" in header.value for header in at.subheader)
    assert {metric.label for metric in at.metric} >= {"Recall", "Over-prediction"}
    instead, dishes, answers = (frame.value for frame in at.dataframe[1:4])
    # first: the countries named instead, most first, as shares of the answers about its dishes
    about = int(at.metric[1].value.replace(",", ""))
    assert instead["n_answers"].is_monotonic_decreasing and "Ukraine (UA)" not in set(instead["country"])
    assert "Russia (RU)" in set(instead["country"]) and "no country named" in set(instead["country"])
    assert instead["share"].iloc[0] == pytest.approx(100 * instead["n_answers"].iloc[0] / about)
    # then one row per dish (its name linked to its page): answers, the share naming Ukraine, what was named instead
    assert list(dishes.columns) == ["dish", "n_answers", "accuracy", "named_instead", "n_no_country"]
    assert dishes["n_answers"].sum() == about
    assert dishes["accuracy"].is_monotonic_increasing  # hardest first
    assert all(url.startswith("dish?dataset=worldcuisines&") and "&dish=worldcuisines" in url for url in dishes["dish"])
    # last: every answer (up to 2,000), in an expander
    assert {"dish", "model", "lang", "response", "predicted", "status"} <= set(answers.columns)
    assert all("UA" in gold.split(",") for gold in answers["gold"])
    assert answers["model"].nunique() > 1  # every selected model's answers (all models: none selected)
    assert len(answers) <= 2_000
    assert at.expander[-1].label.startswith("Every answer about its dishes")
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
    """The selection state a click sends (the browser side is tests/e2e/test_map_click.py). The map's
    key follows the country, so each new country gets a fresh map."""
    at = open_map()
    at.session_state["map_deck_none"] = map_click("countries", {"country": "UA", "name": "Ukraine (UA)"})
    at.run()
    assert not at.exception
    assert at.query_params.get("country") == "UA"
    assert any("Ukraine" in header.value for header in at.subheader)
    assert deck_charts(at)[0].proto.id != ""  # the map under its new key draws

    at.selectbox(key="url_country").set_value("FR").run()  # the old click does not win over the selectbox
    assert at.query_params.get("country") == "FR"

    at.session_state["map_deck_FR"] = map_click("arcs", {"true_country": "JP", "predicted_country": "CN", "n": 3})
    at.run()
    assert at.query_params.get("country") == "JP"  # an arc picks the dish's true origin


def small_map(highlight: dict[str, list[int]]) -> ElementTree.Element:
    """origins_map of `highlight` drawn by a one-line page over $DISH_ATLAS_WAREHOUSE; its SVG."""

    def dish_page_map(highlight: dict[str, list[int]]):
        from app import maps

        maps.origins_map(highlight, height=250)

    at = AppTest.from_function(dish_page_map, args=(highlight,), default_timeout=TIMEOUT).run()
    assert not at.exception
    (svg,) = svg_maps(at)
    return svg


def test_origins_map_for_the_dish_page(real_warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(real_warehouse))
    svg = small_map({"UA": [200, 0, 0, 255], "RU": [0, 0, 200, 255]})
    fills = {path.get("id"): path.get("fill") for path in svg.iter(SVG_NS + "path")}
    with duckdb.connect(str(real_warehouse), read_only=True) as con:
        drawn = {code for (code,) in con.execute("SELECT country FROM marts.map_outlines").fetchall()}
    assert set(fills) == drawn  # every country of the outlines, once
    assert fills["UA"] == "rgb(200,0,0)" and fills["RU"] == "rgb(0,0,200)"
    assert fills["FR"] == fills["JP"] == "rgb(228,228,228)"  # every other country the same light grey
    labels = [text.text for text in svg.iter(SVG_NS + "text")]
    assert sorted(labels) == ["Russia (RU)", "Ukraine (UA)"]  # the highlighted countries are named

    # the view is centred between them, as the deck.gl maps' centred_view: both label points inside it
    x, y, width, height = map(float, svg.get("viewBox").split())
    for text in svg.iter(SVG_NS + "text"):
        assert x < float(text.get("x")) < x + width and y < float(text.get("y")) < y + height
    assert width < 1000 and height / width == pytest.approx(250 / 950, rel=0.01)


def test_every_country_name_on_a_small_map_is_well_formed_text(real_warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    """Names come from the warehouse (Natural Earth, babel): on the map as escaped text, never as markup."""
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(real_warehouse))
    with duckdb.connect(str(real_warehouse), read_only=True) as con:
        countries = [code for (code,) in con.execute("SELECT country FROM marts.map_outlines").fetchall()]
    svg = small_map({code: [0, 120, 0, 255] for code in countries})  # parses: well-formed
    labels = [text.text or "" for text in svg.iter(SVG_NS + "text")]
    assert len(labels) >= len(countries) - 5  # every country with a label point is named
    assert "Bosnia & Herzegovina (BA)" in labels  # escaped in the SVG ("&amp;"), read back as the name
    assert all(not list(text) for text in svg.iter(SVG_NS + "text"))  # text only, no elements inside
