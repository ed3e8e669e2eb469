"""The confusion page's queries, against a warehouse built by the real pipeline from the real data."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import query
from warehouse.queries import confusion
from warehouse.queries.answers import Filters
from warehouse.queries.confusion import NONE, OTHER

POST_SOVIET = ("AM", "AZ", "BY", "EE", "GE", "KG", "KZ", "LT", "LV", "MD", "RU", "TJ", "TM", "UA", "UZ")
MIXED = ("RU", "UA", "GE", "UZ", "JP", "CN")
ALL = Filters(dataset="worldcuisines", task="origin_vqa")
GPT4O = "gpt-4o-2024-08-06"


@pytest.fixture(scope="module")
def wh(real_warehouse: Path) -> Path:
    return real_warehouse


def test_countries_are_ranked_by_answers_and_count_every_pair(wh: Path):
    frame = confusion.countries(wh, ALL)
    assert list(frame["n_answers"]) == sorted(frame["n_answers"], reverse=True)
    (total,) = query(wh, "SELECT sum(n) FROM marts.confusion WHERE dataset = 'worldcuisines'")[0]
    assert frame["n_answers"].sum() == total
    assert "-" not in set(frame["country"])  # "no country" is not a country
    assert frame.set_index("country").loc["RU", "name"] == "Russia"


def test_matrix_rows_are_normalised(wh: Path):
    matrix = confusion.matrix(wh, ALL, MIXED)
    assert set(matrix["true_country"]) <= set(MIXED)
    assert set(matrix["predicted"]) <= {*MIXED, OTHER, NONE}
    per_row = matrix.groupby("true_country").agg(share=("share", "sum"), n=("n", "sum"), row_n=("row_n", "first"))
    assert per_row["share"].round(9).eq(1).all()
    assert (per_row["n"] == per_row["row_n"]).all()
    (ru_pairs,) = query(
        wh, "SELECT count(*) FROM marts.answer_pairs WHERE dataset = 'worldcuisines' AND true_country = 'RU'"
    )[0]
    assert per_row.loc["RU", "row_n"] == ru_pairs


def test_matrix_sums_counts_over_models_not_shares(wh: Path):
    models = (GPT4O, "qwen-vl-2b")
    both = confusion.matrix(wh, Filters(ALL.dataset, ALL.task, models=models), MIXED).set_index(
        ["true_country", "predicted"]
    )
    singles = [
        confusion.matrix(wh, Filters(ALL.dataset, ALL.task, models=(model,)), MIXED).set_index(
            ["true_country", "predicted"]
        )
        for model in models
    ]
    summed = singles[0]["n"].add(singles[1]["n"], fill_value=0)
    assert both["n"].sort_index().tolist() == summed.sort_index().astype(int).tolist()
    row_n = summed.groupby(level="true_country").transform("sum")
    assert (both["share"].sort_index() - (summed / row_n).sort_index()).abs().max() < 1e-12


def test_other_and_none_columns_collect_the_rest(wh: Path):
    matrix = confusion.matrix(wh, ALL, POST_SOVIET).set_index(["true_country", "predicted"])
    (ru_none,) = query(
        wh,
        "SELECT count(*) FROM marts.answer_pairs WHERE dataset = 'worldcuisines' AND true_country = 'RU'"
        " AND predicted_country = '-'",
    )[0]
    assert matrix.loc[("RU", NONE), "n"] == ru_none
    ru_other = query(
        wh,
        "SELECT count(*) FROM marts.answer_pairs WHERE dataset = 'worldcuisines' AND true_country = 'RU'"
        " AND predicted_country <> '-' AND NOT list_contains(?, predicted_country)",
        [list(POST_SOVIET)],
    )[0][0]
    assert matrix.loc[("RU", OTHER), "n"] == ru_other


@pytest.mark.parametrize(("true", "predicted"), [("JP", "CN"), ("RU", OTHER), ("UA", NONE)])
def test_cell_answers_are_the_cell(wh: Path, true: str, predicted: str):
    matrix = confusion.matrix(wh, ALL, MIXED).set_index(["true_country", "predicted"])
    answers = confusion.cell_answers(wh, ALL, true, predicted, MIXED)
    assert len(answers) == min(matrix.loc[(true, predicted), "n"], confusion.CELL_LIMIT)
    assert (answers["true_country"] == true).all()
    if predicted == NONE:
        assert (answers["predicted_country"] == "-").all()
    elif predicted == OTHER:
        assert not answers["predicted_country"].isin([*MIXED, "-"]).any()
    else:
        assert (answers["predicted_country"] == predicted).all()
    assert {"item_id", "dish_key", "model", "lang", "response", "predicted", "status"} <= set(answers.columns)
    assert answers["response"].notna().all()


def test_cell_answers_respect_the_limit_and_filters(wh: Path):
    answers = confusion.cell_answers(wh, Filters(ALL.dataset, ALL.task, langs=("ru_formal",)), "RU", NONE, MIXED, 5)
    assert len(answers) == 5
    assert set(answers["lang"]) == {"ru_formal"}
