"""The Overview page on the real demo warehouse: the model leaderboard above the dataset composition."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import REPO, vega_rows

MAIN = REPO / "app" / "main.py"
TIMEOUT = 60


@pytest.fixture
def app(real_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(real_warehouse))
    return AppTest.from_file(MAIN, default_timeout=TIMEOUT)


def leaderboard(at: AppTest):
    tables = [frame.value for frame in at.dataframe if "jaccard 95% CI" in frame.value.columns]
    assert tables, "no leaderboard table on the page"
    return tables[0]


def test_leaderboard_ranks_the_twelve_models_with_intervals(app: AppTest):
    app.query_params["dataset"] = "worldcuisines"
    at = app.run()
    assert not at.exception
    assert "Leaderboard" in [header.value for header in at.subheader]
    board = leaderboard(at)
    assert len(board) == 12 and board["model"].is_unique
    assert set(board["prompt language"]) == {"all"}
    assert board["jaccard"].is_monotonic_decreasing  # ranked by Jaccard by default
    assert board["jaccard 95% CI"].str.fullmatch(r"\[0\.\d\d, 0\.\d\d\]").all()
    assert {"accuracy", "accuracy 95% CI", "n", "no-country share"} <= set(board.columns)
    assert board.iloc[0]["model"] == "gpt-4o-2024-08-06"
    # bars with error bars in the open tab, dishes per origin country (Vega-Lite); the heatmap's tab is
    # built only when opened
    bars, _origin = (vega_rows(chart) for chart in at.get("vega_lite_chart"))
    pooled = dict(zip(board["model"], board["jaccard"], strict=True))
    drawn = {row["model"]: row["value"] for row in bars}
    assert drawn == pytest.approx(pooled)  # one bar per model, at the table's pooled Jaccard
    assert [row["model"] for row in bars] == sorted(pooled, key=pooled.get, reverse=True)
    downloads = [button.label for button in at.get("download_button")]
    assert downloads.count("CSV") >= 3 and downloads.count("Parquet") >= 3  # leaderboard, composition
    assert "Dishes per origin country" in [header.value for header in at.subheader]  # composition stays

    at.session_state["overview_chart"] = "Models × prompt languages"
    at.run()
    assert not at.exception
    cells, _origin = (vega_rows(chart) for chart in at.get("vega_lite_chart"))
    assert {row["model"] for row in cells} == set(pooled) and len({row["lang"] for row in cells}) == 30
    with_pivot = [button.label for button in at.get("download_button")]
    assert with_pivot.count("CSV") == downloads.count("CSV") + 1  # the pivot's, under the heatmap
    tables = len(at.dataframe)
    at.session_state["overview_origin_table"] = True  # the expander "All N countries as a table", opened
    at.run()
    assert len(at.dataframe) == tables + 1 and "country" in at.dataframe[1].value.columns
    at.selectbox(key="overview_rank_by").select("accuracy").run()  # the heatmap stays open, in accuracy
    cells, _origin = (vega_rows(chart) for chart in at.get("vega_lite_chart"))
    assert at.session_state["overview_chart"] == "Models × prompt languages"
    assert len({row["lang"] for row in cells}) == 30 and all(0 <= row["value"] <= 1 for row in cells)


def test_rank_by_accuracy_and_one_prompt_language(app: AppTest):
    app.query_params["dataset"] = "worldcuisines"
    at = app.run()
    at.selectbox(key="overview_rank_by").select("accuracy").run()
    at.selectbox(key="overview_leaderboard_lang").select("ru_formal").run()
    assert not at.exception
    board = leaderboard(at)
    assert len(board) == 12 and set(board["prompt language"]) == {"ru_formal — Russian (formal)"}
    assert board["accuracy"].is_monotonic_decreasing
    assert board["rank"].tolist() == list(range(1, 13))


def test_rank_and_language_live_in_the_link(app: AppTest):
    """The two leaderboard controls write their state to the query string, and a link with it opens
    the same view (a shared link reproduces the table); defaults stay out of the link."""
    app.query_params["dataset"] = "worldcuisines"
    at = app.run()
    assert "rank" not in at.query_params and "board_lang" not in at.query_params
    at.selectbox(key="overview_rank_by").select("accuracy").run()
    at.selectbox(key="overview_leaderboard_lang").select("ru_formal").run()
    assert at.query_params.get("rank") == "accuracy"
    assert at.query_params.get("board_lang") == "ru_formal"
    chosen = leaderboard(at)

    again = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    for name, value in {"dataset": "worldcuisines", "rank": "accuracy", "board_lang": "ru_formal"}.items():
        again.query_params[name] = value
    again.run()
    assert not again.exception
    assert again.selectbox(key="overview_rank_by").value == "accuracy"
    assert again.selectbox(key="overview_leaderboard_lang").value == "ru_formal"
    assert leaderboard(again).equals(chosen)

    again.selectbox(key="overview_rank_by").select("Jaccard").run()
    assert "rank" not in again.query_params  # back to the default: out of the link


def test_unknown_language_in_the_link_falls_back_with_a_warning(app: AppTest):
    app.query_params["dataset"] = "worldcuisines"
    app.query_params["board_lang"] = "<b>xx</b>"
    at = app.run()
    assert not at.exception
    assert at.selectbox(key="overview_leaderboard_lang").value == "*"
    warnings = [warning.value for warning in at.warning]
    assert any("Unknown prompt language" in text and "`<b>xx</b>`" in text for text in warnings), warnings
    assert "board_lang" not in at.query_params


def test_leaderboard_follows_the_model_filter(app: AppTest):
    app.query_params["dataset"] = "worldcuisines"
    app.query_params["models"] = "molmoe-1b,gpt-4o-2024-08-06"
    at = app.run()
    assert not at.exception
    assert set(leaderboard(at)["model"]) == {"molmoe-1b", "gpt-4o-2024-08-06"}


def test_dataset_without_answers_has_no_leaderboard(app: AppTest):
    app.query_params["dataset"] = "borsch"
    at = app.run()
    assert not at.exception
    assert "Leaderboard" not in [header.value for header in at.subheader]
    assert "Dishes per origin country" in [header.value for header in at.subheader]
