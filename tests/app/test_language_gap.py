"""The Language gap page run headless with AppTest: on answers written in the test (numbers by hand) and on
the real demo's 12 models."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import open_page
from tests.helpers import vega_rows
from tests.warehouse.test_language_gap import shared_gap_warehouse

PAGE = "views/language_gap.py"


@pytest.fixture(scope="module")
def small_gap_warehouse(ingested_template) -> Path:
    return shared_gap_warehouse(ingested_template)


def test_the_page_shows_the_hand_computed_gaps_and_the_items_behind_them(
    small_gap_warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(small_gap_warehouse))
    at = open_page(PAGE, 120)
    captions = " ".join(str(c.value) for c in at.caption)
    assert "gaptest" in captions  # the page says whose answers these are
    [chart] = at.get("vega_lite_chart")
    bars = [(row["lang"], row["gap"], row["low"], row["high"]) for row in vega_rows(chart)]
    # sorted by gap, largest loss first; the interval drawn as a rule beside each bar
    assert bars[0] == ("ru_formal", -25.0, -75.0, 0.0) and bars[1][:2] == ("fr", 0.0)
    table = at.dataframe[0].value
    rows = {r["lang"]: r for r in table.to_dict("records")}
    assert set(rows) == {"fr — French", "ru_formal — Russian (formal)"}
    ru = rows["ru_formal — Russian (formal)"]
    assert (ru["n"], ru["accuracy"], ru["accuracy_en"], ru["gap"]) == (4, 50.0, 75.0, -25.0)
    assert list(table["gap"]) == sorted(table["gap"])  # largest loss first
    # the item lost in Russian: both answers side by side (the default language is the largest loss)
    items = at.dataframe[1].value
    assert list(items["response_en"]) == ["South Africa"] and list(items["response"]) == ["Швеция."]
    at.selectbox(key="url_gap_lang").set_value("fr").run()
    at.selectbox(key="url_change").set_value("gained").run()
    items = at.dataframe[1].value
    assert list(items["response_en"]) == ["Vietnam"] and list(items["response"]) == ["Iran"]
    # filter by script: only the Cyrillic language is left
    at.multiselect(key="url_scripts").set_value(["Cyrillic"]).run()
    assert [str(v) for v in at.dataframe[0].value["lang"]] == ["ru_formal — Russian (formal)"]


def test_the_page_shows_the_twelve_real_models(warehouse_path: Path) -> None:
    at = open_page(PAGE, 180)
    table = at.dataframe[0].value
    assert table["model"].nunique() == 12
    assert table["lang"].nunique() == 29
    assert not at.exception


def test_a_warehouse_without_english_answers_says_so(sample_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(sample_warehouse))
    at = open_page(PAGE, 120, dataset="sample")
    assert at.info and not at.dataframe  # an explanation, no empty table
