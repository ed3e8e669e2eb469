"""The confusion page's queries, on a warehouse built by the real pipeline from the real data, compared
with a naive recount over the core tables (tests/warehouse/naive.py), never with marts.confusion.

The recount applies the page's co-origin rule itself: an answer naming another of the dish's origin
countries (core.dish_origins), and not the row's, is a hit in the CO_ORIGIN column."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.warehouse import naive
from warehouse.queries import confusion
from warehouse.queries.answers import Filters
from warehouse.queries.confusion import CO_ORIGIN, NONE, OTHER

POST_SOVIET = ("AM", "AZ", "BY", "EE", "GE", "KG", "KZ", "LT", "LV", "MD", "RU", "TJ", "TM", "UA", "UZ")
MIXED = ("RU", "UA", "GE", "UZ", "JP", "CN")
ALL = Filters(dataset="worldcuisines", task="origin_vqa")
GPT4O = "gpt-4o-2024-08-06"


@pytest.fixture(scope="module")
def wh(real_warehouse: Path) -> Path:
    return real_warehouse


def expected_matrix(naive_answers: tuple[naive.Answer, ...], filters: Filters, chosen: tuple[str, ...]) -> dict:
    """(true, column) -> answers, with countries outside `chosen` in OTHER, no country in NONE and
    another origin of the dish in CO_ORIGIN."""
    cells: Counter = Counter()
    for (true, label), n in naive.confusion_pairs(naive.select(naive_answers, filters)).items():
        if true in chosen:
            column = (
                NONE
                if label == naive.NO_COUNTRY
                else CO_ORIGIN
                if label == naive.CO_ORIGIN
                else label
                if label in chosen
                else OTHER
            )
            cells[(true, column)] += n
    return cells


def test_countries_are_ranked_by_answers_and_count_every_pair(wh: Path, naive_answers):
    frame = confusion.countries(wh, ALL).set_index("country")
    pairs = naive.confusion_pairs(naive.select(naive_answers, ALL))
    as_true, as_named = Counter(), Counter()
    for (true, label), n in pairs.items():
        as_true[true] += n
        if label not in (naive.NO_COUNTRY, naive.CO_ORIGIN):
            as_named[label] += n
    assert set(frame.index) == set(as_true) | set(as_named)
    for country in frame.index:
        assert frame.loc[country, "n_answers"] == as_true[country]
        assert frame.loc[country, "n_predicted"] == as_named[country]
    assert list(frame["n_answers"]) == sorted(frame["n_answers"], reverse=True)
    assert naive.NO_COUNTRY not in frame.index and naive.CO_ORIGIN not in frame.index  # neither is a country
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
def test_matrix_is_the_recount_row_normalised(wh: Path, naive_answers, filters: Filters, chosen: tuple[str, ...]):
    matrix = confusion.matrix(wh, filters, chosen).set_index(["true_country", "predicted"])
    expected = expected_matrix(naive_answers, filters, chosen)
    assert expected and set(matrix.index) == set(expected)
    rows = Counter()
    for (true, _), n in expected.items():
        rows[true] += n
    for (true, column), n in expected.items():
        assert matrix.loc[(true, column), "n"] == n
        assert matrix.loc[(true, column), "row_n"] == rows[true]
        assert matrix.loc[(true, column), "share"] == pytest.approx(n / rows[true])


@pytest.mark.parametrize(("true", "predicted"), [("JP", "CN"), ("RU", OTHER), ("UA", NONE), ("UA", CO_ORIGIN)])
def test_cell_answers_are_the_cell(wh: Path, naive_answers, true: str, predicted: str):
    n = expected_matrix(naive_answers, ALL, MIXED)[(true, predicted)]
    answers = confusion.cell_answers(wh, ALL, true, predicted, MIXED)
    assert n > 0 and len(answers) == min(n, confusion.CELL_LIMIT)
    assert (answers["true_country"] == true).all()
    if predicted == NONE:
        assert (answers["predicted"].fillna("") == "").all()
    elif predicted == OTHER:
        assert not answers["predicted_country"].isin([*MIXED, naive.NO_COUNTRY]).any()
    elif predicted == CO_ORIGIN:  # named another origin of the dish, never the row's country
        for named, origins in answers[["predicted", "origins"]].itertuples(index=False):
            assert true not in named.split(",") and set(named.split(",")) & set(origins.split(","))
    else:
        assert (answers["predicted_country"] == predicted).all()
    assert {"item_id", "dish_key", "dish_name", "model", "lang", "response", "predicted", "status"} <= set(
        answers.columns
    )
    assert answers["response"].notna().all() and answers["dish_name"].notna().all()


def test_cell_answers_respect_the_limit_and_filters(wh: Path):
    answers = confusion.cell_answers(wh, Filters(ALL.dataset, ALL.task, langs=("ru_formal",)), "RU", NONE, MIXED, 5)
    assert len(answers) == 5
    assert set(answers["lang"]) == {"ru_formal"}


def test_naming_another_origin_of_the_dish_is_a_hit_not_a_confusion(wh: Path, naive_answers):
    """WorldCuisines asks about Paskha and Rassolnik with the gold Ukraine and lists both dishes as
    from Russia and Ukraine (Rassolnik: and Belarus): an answer naming Russia lands under CO_ORIGIN, and
    the UA -> RU cell holds only answers about dishes the dataset does not place in Russia."""
    co_gold = [
        a for a in naive.select(naive_answers, ALL) if "UA" in a.gold and "RU" in a.origins and "RU" not in a.gold
    ]
    naming_russia = [a for a in co_gold if "RU" in a.countries and "UA" not in a.countries]
    assert {a.dish_key for a in naming_russia} >= {"worldcuisines:en:1223", "worldcuisines:en:1189"}
    assert len(naming_russia) > 150  # the bulk of the old UA -> RU cell

    cells = confusion.matrix(wh, ALL, POST_SOVIET).set_index(["true_country", "predicted"])["n"]
    expected = expected_matrix(naive_answers, ALL, POST_SOVIET)
    assert cells[("UA", CO_ORIGIN)] == expected[("UA", CO_ORIGIN)] >= len(naming_russia)
    ua_ru = confusion.cell_answers(wh, ALL, "UA", "RU", POST_SOVIET)
    assert len(ua_ru) == expected[("UA", "RU")] == cells.get(("UA", "RU"), 0)
    assert not set(ua_ru["dish_key"]) & {a.dish_key for a in naming_russia}
    assert all("RU" not in origins.split(",") for origins in ua_ru["origins"])


def test_other_is_unpacked_into_the_countries_it_holds(wh: Path, naive_answers):
    inside = confusion.other_countries(wh, ALL, MIXED, top=5)
    expected = expected_matrix(naive_answers, ALL, MIXED)
    pairs = naive.confusion_pairs(naive.select(naive_answers, ALL))
    for true in MIXED:
        named = Counter({label: n for (t, label), n in pairs.items() if t == true and label not in (*MIXED, "-", "+")})
        rows = inside[inside["true_country"] == true]
        assert sum(named.values()) == expected[(true, OTHER)]  # OTHER holds exactly these countries
        top = sorted(named.items(), key=lambda item: (-item[1], item[0]))[:5]
        assert list(zip(rows["country"], rows["n"], strict=True)) == top
        row_n = sum(n for (t, _), n in expected.items() if t == true)
        assert (rows["row_n"] == row_n).all()
        assert rows["share"].tolist() == pytest.approx([n / row_n for _, n in top])
