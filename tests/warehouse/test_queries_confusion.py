"""The confusion page's queries, on a warehouse built by the real pipeline from the real data, compared
with a naive recount over the core tables (tests/warehouse/naive.py), never with marts.confusion."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.warehouse import naive
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


@pytest.fixture(scope="module")
def scored(wh: Path) -> list[naive.Answer]:
    return naive.load_answers(wh)


def expected_matrix(scored: list[naive.Answer], filters: Filters, chosen: tuple[str, ...]) -> dict:
    """(true, column) -> answers, with countries outside `chosen` in OTHER and no country in NONE."""
    cells: Counter = Counter()
    for (true, label), n in naive.pairs(naive.select(scored, filters)).items():
        if true in chosen:
            column = NONE if label == naive.NO_COUNTRY else label if label in chosen else OTHER
            cells[(true, column)] += n
    return cells


def test_countries_are_ranked_by_answers_and_count_every_pair(wh: Path, scored):
    frame = confusion.countries(wh, ALL).set_index("country")
    pairs = naive.pairs(naive.select(scored, ALL))
    as_true, as_named = Counter(), Counter()
    for (true, label), n in pairs.items():
        as_true[true] += n
        if label != naive.NO_COUNTRY:
            as_named[label] += n
    assert set(frame.index) == set(as_true) | set(as_named)
    for country in frame.index:
        assert frame.loc[country, "n_answers"] == as_true[country]
        assert frame.loc[country, "n_predicted"] == as_named[country]
    assert list(frame["n_answers"]) == sorted(frame["n_answers"], reverse=True)
    assert naive.NO_COUNTRY not in frame.index  # "no country" is not a country
    assert frame.loc["RU", "name"] == "Russia"


@pytest.mark.parametrize(
    "filters",
    [
        ALL,
        Filters(ALL.dataset, ALL.task, models=(GPT4O, "qwen-vl-2b")),
        Filters(ALL.dataset, ALL.task, langs=("ru_formal", "ja_casual")),
    ],
    ids=["all", "two-models", "one-language"],
)
@pytest.mark.parametrize("chosen", [MIXED, POST_SOVIET], ids=["mixed", "post-soviet"])
def test_matrix_is_the_recount_row_normalised(wh: Path, scored, filters: Filters, chosen: tuple[str, ...]):
    matrix = confusion.matrix(wh, filters, chosen).set_index(["true_country", "predicted"])
    expected = expected_matrix(scored, filters, chosen)
    assert expected and set(matrix.index) == set(expected)
    rows = Counter()
    for (true, _), n in expected.items():
        rows[true] += n
    for (true, column), n in expected.items():
        assert matrix.loc[(true, column), "n"] == n
        assert matrix.loc[(true, column), "row_n"] == rows[true]
        assert matrix.loc[(true, column), "share"] == pytest.approx(n / rows[true])


@pytest.mark.parametrize(("true", "predicted"), [("JP", "CN"), ("RU", OTHER), ("UA", NONE)])
def test_cell_answers_are_the_cell(wh: Path, scored, true: str, predicted: str):
    n = expected_matrix(scored, ALL, MIXED)[(true, predicted)]
    answers = confusion.cell_answers(wh, ALL, true, predicted, MIXED)
    assert n > 0 and len(answers) == min(n, confusion.CELL_LIMIT)
    assert (answers["true_country"] == true).all()
    if predicted == NONE:
        assert (answers["predicted"].fillna("") == "").all()
    elif predicted == OTHER:
        assert not answers["predicted_country"].isin([*MIXED, naive.NO_COUNTRY]).any()
    else:
        assert (answers["predicted_country"] == predicted).all()
    assert {"item_id", "dish_key", "model", "lang", "response", "predicted", "status"} <= set(answers.columns)
    assert answers["response"].notna().all()


def test_cell_answers_respect_the_limit_and_filters(wh: Path):
    answers = confusion.cell_answers(wh, Filters(ALL.dataset, ALL.task, langs=("ru_formal",)), "RU", NONE, MIXED, 5)
    assert len(answers) == 5
    assert set(answers["lang"]) == {"ru_formal"}
