"""The language-pull page, run headless with AppTest against the real demo warehouse."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl, unquote

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import open_page as open_app_page
from tests.helpers import REPO, shown

MAIN = REPO / "app" / "main.py"
PAGE = "views/language_pull.py"
TIMEOUT = 60
GPT4O = "gpt-4o-2024-08-06"


def open_page(**params: str) -> AppTest:
    return open_app_page(PAGE, TIMEOUT, **params)


def texts(elements) -> list[str]:
    return [shown(str(element.value)) for element in elements]


def test_one_model_shows_the_pull_chart_and_table(warehouse_path: Path):
    at = open_page(models=GPT4O)
    assert at.sidebar.multiselect(key="url_models").value == [GPT4O]
    dumbbell, _ru_ua = (json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart"))
    pull = at.dataframe[0].value
    points = dumbbell["layer"][1]["data"]["values"]  # a base and a pull point per language, as in the table
    pulled = {p["language"]: p["share"] for p in points if p["series"] == "prompts in this language"}
    assert pulled == pytest.approx(dict(zip(pull["lang"], pull["pull_share"], strict=True)))
    assert len(pull) == 30
    assert ((pull["pull_share"] - pull["n_pulled"] / pull["n_wrong"]).abs() < 1e-12).all()
    assert list(pull["lift"]) == sorted(pull["lift"], reverse=True)
    assert any("pull" in text and "English" in text for text in texts(at.markdown))
    assert {button.label for button in at.get("download_button")} >= {"CSV", "Parquet"}


def test_russia_vs_ukraine_per_prompt_language(warehouse_path: Path):
    at = open_page()
    ru_ua = at.dataframe[1].value
    assert len(ru_ua) == 30
    named = ru_ua[ru_ua["n_either"] > 0]
    assert ((named["ru_share"] - named["n_ru"] / named["n_either"]).abs() < 1e-12).all()
    assert any("dishes from both countries" in text and "Few dishes" in text for text in texts(at.caption))


def link_parts(url: str) -> tuple[str, dict[str, str], str]:
    """(page, query parameters, shown text) of a table link (app/links.py)."""
    address, text = url.split("#", 1)
    page, query = address.split("?", 1)
    return page, dict(parse_qsl(query)), unquote(text)


def test_russia_vs_ukraine_per_dish_links_each_dish(warehouse_path: Path):
    """The dishes behind the per-language shares, each name a link to its Dish page; they add up to
    the per-language table (a different mart) and to the caption's number of dishes."""
    at = open_page()
    ru_ua = at.dataframe[1].value
    dishes = at.dataframe[2].value
    assert {"dish", "n_answers", "n_ru", "n_ua", "n_either", "ru_share"} <= set(dishes.columns)
    assert (int(dishes["n_ru"].sum()), int(dishes["n_ua"].sum())) == (
        int(ru_ua["n_ru"].sum()),
        int(ru_ua["n_ua"].sum()),
    )
    assert any(text.startswith(f"{len(dishes)} dishes from both countries") for text in texts(at.caption))
    assert list(dishes["n_either"]) == sorted(dishes["n_either"], reverse=True)
    with duckdb.connect(str(warehouse_path), read_only=True) as con:
        names = dict(con.execute("SELECT dish_key, display_name FROM marts.dishes").fetchall())
    for url in dishes["dish"]:
        page, params, text = link_parts(url)
        assert page == "dish" and params["dataset"] == "worldcuisines"
        assert text == names[params["dish"]]  # the dish's own name, linked to its own page
    paskha = [link_parts(url)[1]["dish"] for url in dishes["dish"] if link_parts(url)[2] == "Paskha"]
    assert len(paskha) == 1
    dish_page = open_app_page("views/dish.py", TIMEOUT, dish=paskha[0])  # the link opens the dish
    assert not dish_page.exception
    assert any("Paskha" in shown(str(header.value)) for header in dish_page.header)


def test_prompt_language_filter_and_empty_states(warehouse_path: Path):
    at = open_page(langs="ru_formal,en")
    assert set(at.dataframe[0].value["lang"]) == {"ru_formal — Russian (formal)", "en — English"}

    at = open_page(langs="nan_spoken")  # no answer in this language names Russia or Ukraine for these dishes
    assert any("names Russia or Ukraine" in text for text in texts(at.info))
    assert len(at.get("vega_lite_chart")) == 1


def test_a_dataset_without_answers_of_its_own_shows_linked_answers_labelled(warehouse_path: Path):
    """BORSch has no answers; its dishes linked to WorldCuisines ones borrow theirs, said plainly (the
    empty state without any answers: tests/app/test_linked_views.py)."""
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    at.query_params["dataset"] = "borsch"
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert any("has no model answers of its own yet" in text for text in texts(at.info))
    assert set(at.dataframe[0].value["answers"]) == {"linked: worldcuisines origin_vqa"}
