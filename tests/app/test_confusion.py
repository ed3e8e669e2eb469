"""The confusion page, run headless with AppTest against the real demo warehouse."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import open_page as open_app_page
from tests.helpers import REPO, shown, vega_rows
from warehouse.queries import confusion
from warehouse.queries.answers import Filters

MAIN = REPO / "app" / "main.py"
PAGE = "views/confusion.py"
TIMEOUT = 60
BORSCH_FIG3 = ["AM", "AZ", "BY", "GE", "KG", "KZ", "LT", "MD", "RU", "TJ", "UA", "UZ"]  # without EE, LV, TM
MIXED = "RU,UA,GE,UZ,JP,CN"
ALL = Filters(dataset="worldcuisines", task="origin_vqa")


def open_page(**params: str) -> AppTest:
    return open_app_page(PAGE, TIMEOUT, **params)


def matrix_table(at: AppTest):
    return at.dataframe[0].value


def cell_table(at: AppTest):
    """The answers behind the chosen cell (the table with the answers' text)."""
    return next(frame.value for frame in at.dataframe if "response" in frame.value.columns)


def texts(elements) -> list[str]:
    return [shown(str(element.value)) for element in elements]


def test_defaults_show_borsch_fig3s_matrix(warehouse_path: Path):
    at = open_page()
    # BORSch Fig. 3: the Post-Soviet countries without Estonia, Latvia and Turkmenistan, row normalised
    assert at.multiselect(key="confusion_countries").value == BORSCH_FIG3
    assert any("Estonia, Latvia and Turkmenistan left out" in text for text in texts(at.caption))
    assert "countries" not in at.query_params  # the default set stays out of the link
    [chart] = at.get("vega_lite_chart")
    table = matrix_table(at)
    cells = vega_rows(chart)  # one per true country x column, shares as in the table
    assert {cell["true"] for cell in cells} == set(table["true_country"])
    shares = {(cell["true"], cell["predicted"]): cell["share"] for cell in cells}
    labels = {"+": "co-origin ✓", "other": "other", "-": "—"}
    for row in table.itertuples():
        assert shares[(row.true_country, labels.get(row.predicted, row.predicted))] == pytest.approx(row.share)
    answered = set(confusion.matrix(warehouse_path, ALL, tuple(BORSCH_FIG3))["true_country"])
    assert set(table["true_country"]) == answered and "RU" in answered
    assert table.groupby("true_country")["share"].sum().round(9).eq(1).all()
    assert set(table["predicted"]) <= {*BORSCH_FIG3, "+", "other", "-"}
    assert {button.label for button in at.get("download_button")} >= {"CSV", "Parquet"}
    assert any("No answers about dishes from" in text for text in texts(at.caption))


def test_country_set_from_the_link(warehouse_path: Path):
    at = open_page(countries=MIXED)
    assert at.multiselect(key="confusion_countries").value == MIXED.split(",")
    assert at.query_params.get("countries") == MIXED
    table = matrix_table(at)
    assert set(table["true_country"]) == set(MIXED.split(","))
    assert set(table["predicted"]) <= {*MIXED.split(","), "+", "other", "-"}

    at.multiselect(key="confusion_countries").unselect("JP").run()
    assert not at.exception
    assert at.query_params.get("countries") == "RU,UA,GE,UZ,CN"
    assert "JP" not in set(matrix_table(at)["true_country"])


def test_quick_set_top_countries_by_answers(warehouse_path: Path):
    at = open_page(countries=MIXED)
    at.slider(key="confusion_top_n").set_value(5).run()
    next(button for button in at.button if button.label.startswith("Top 5")).click().run()
    assert not at.exception
    top = confusion.countries(warehouse_path, ALL)["country"].head(5).tolist()
    assert at.multiselect(key="confusion_countries").value == top
    assert at.query_params.get("countries") == ",".join(top)


def test_minimum_sample_hides_small_rows(warehouse_path: Path):
    totals = confusion.matrix(warehouse_path, ALL, tuple(BORSCH_FIG3)).groupby("true_country")["row_n"].first()
    threshold = int(totals.sort_values().iloc[-2])  # keeps the two largest rows (or ties)
    at = open_page(min_n=str(threshold))
    assert at.slider(key="confusion_min_n").value == threshold
    shown = set(matrix_table(at)["true_country"])
    assert shown == set(totals[totals >= threshold].index)
    hidden = len(totals) - len(shown)
    assert hidden > 0
    assert any(f"{hidden} rows hidden" in text for text in texts(at.caption))

    at.slider(key="confusion_min_n").set_value(1).run()
    assert "min_n" not in at.query_params
    assert set(matrix_table(at)["true_country"]) == set(totals.index)


def test_a_threshold_above_every_row_is_capped_at_the_largest_row(warehouse_path: Path):
    totals = confusion.matrix(warehouse_path, ALL, ("RU", "UA"))["row_n"]
    at = open_page(countries="RU,UA", min_n="999999999")
    assert at.slider(key="confusion_min_n").value == totals.max()
    assert set(matrix_table(at)["true_country"]) == {"RU"}
    assert any("1 row hidden" in text and "UA" in text for text in texts(at.caption))


def test_a_cell_from_the_link_lists_its_answers(warehouse_path: Path):
    at = open_page(countries=MIXED, true="JP", pred="CN")
    assert at.selectbox(key="url_true").value == "JP" and at.selectbox(key="url_pred").value == "CN"
    cell = matrix_table(at).set_index(["true_country", "predicted"]).loc[("JP", "CN"), "n"]
    answers = cell_table(at)
    assert len(answers) == min(cell, confusion.CELL_LIMIT) > 0
    assert (answers["true_country"] == "JP").all() and (answers["predicted_country"] == "CN").all()
    assert {"item_id", "dish_key", "model", "lang", "response", "predicted", "status"} <= set(answers.columns)

    at.selectbox(key="url_pred").set_value("-").run()  # the no-country column
    assert not at.exception
    assert at.query_params.get("pred") == "-"
    assert (cell_table(at)["predicted_country"] == "-").all()


def test_an_empty_set_asks_to_widen_it(warehouse_path: Path):
    at = open_page(countries="TM,KG")  # WorldCuisines has no dishes from these two
    assert any("Widen the set" in text for text in texts(at.warning))
    assert not at.get("vega_lite_chart")


def test_unknown_countries_in_the_link_are_dropped(warehouse_path: Path):
    at = open_page(countries="RU,ZZ")
    assert any("ZZ" in text for text in texts(at.warning))
    assert at.multiselect(key="confusion_countries").value == ["RU"]


def test_a_dataset_without_answers_shows_the_empty_state(warehouse_path: Path):
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    at.query_params["dataset"] = "borsch"
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert any("No model answers are scored for" in text for text in texts(at.info))
