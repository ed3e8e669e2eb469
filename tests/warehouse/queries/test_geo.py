"""The map's queries (warehouse/queries/geo.py), run on the real demo warehouse and compared with a
naive recount over the core tables (tests/warehouse/naive.py), never with the marts they read."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from shapely.geometry import Point, shape

from tests.warehouse import naive
from warehouse.queries import answers, geo
from warehouse.queries.answers import Filters

DATASET = "worldcuisines"


@pytest.fixture(scope="module")
def path(real_warehouse: Path) -> Path:
    return real_warehouse


@pytest.fixture(scope="module")
def task(path: Path) -> str:
    return answers.tasks(path, DATASET)[0]


@pytest.fixture(scope="module")
def two_models(path: Path, task: str) -> tuple[str, str]:
    models = answers.models(path, DATASET, task)
    assert len(models) >= 2
    return models[0], models[-1]


def test_shapes_hold_ukraine_with_crimea(path: Path):
    shapes = geo.country_shapes(path)
    assert shapes["country"].is_unique
    assert {"UA", "RU", "FR", "JP", "US"} <= set(shapes["country"])
    ukraine = shapes.set_index("country").loc["UA"]
    assert ukraine["name_en"] == "Ukraine"
    crimea = Point(34.1, 45.3)  # Simferopol area
    assert shape(json.loads(ukraine["geojson"])).contains(crimea)
    russia = shapes.set_index("country").loc["RU"]
    assert not shape(json.loads(russia["geojson"])).contains(crimea)


def test_recall_over_two_models_adds_up_the_counts(path: Path, naive_answers, task: str, two_models: tuple[str, str]):
    filters = Filters(DATASET, task, models=two_models)
    recall = geo.country_recall(path, filters).set_index("country")
    expected = naive.recall(naive.select(naive_answers, filters))
    assert len(expected) > 50 and set(recall.index) == set(expected)
    for country, (n_answers, n_hits) in expected.items():
        assert recall.loc[country, "n_answers"] == n_answers
        assert recall.loc[country, "n_hits"] == n_hits
        assert recall.loc[country, "recall"] == pytest.approx(n_hits / n_answers)


def test_recall_of_one_model_and_language(path: Path, naive_answers, task: str, two_models: tuple[str, str]):
    filters = Filters(DATASET, task, models=two_models[:1], langs=("en",))
    recall = geo.country_recall(path, filters).set_index("country")
    expected = naive.recall(naive.select(naive_answers, filters))
    assert len(recall) == len(expected)
    for country, (n_answers, n_hits) in expected.items():
        assert recall.loc[country, "recall"] == pytest.approx(n_hits / n_answers)
    assert recall.loc["JP", "n_answers"] > 0


def test_overprediction_is_a_share_of_all_selected_answers(
    path: Path, naive_answers, task: str, two_models: tuple[str, str]
):
    filters = Filters(DATASET, task, models=two_models, langs=("en", "ru_formal"))
    over = geo.country_overprediction(path, filters).set_index("country")
    wrong, n_selected = naive.overprediction(naive.select(naive_answers, filters))
    assert n_selected > 0 and set(over.index) == set(wrong)
    assert set(over["n_answers"]) == {n_selected}
    for country, n_wrong in wrong.items():
        assert over.loc[country, "n_wrong"] == n_wrong
        assert over.loc[country, "share"] == pytest.approx(n_wrong / n_selected)
    assert over["n_wrong"].is_monotonic_decreasing


def test_error_arcs_are_the_most_frequent_wrong_pairs(path: Path, naive_answers, task: str):
    """Arcs count errors by the confusion matrix's rule: naming another of the dish's origins is a hit."""
    filters = Filters(DATASET, task)
    arcs = geo.error_arcs(path, filters, top=20)
    counts = naive.confusion_pairs(naive.select(naive_answers, filters))
    ranked = sorted(
        (
            (true, named, n)
            for (true, named), n in counts.items()
            if named not in (true, naive.NO_COUNTRY) and "+" not in named
        ),
        key=lambda row: (-row[2], row[0], row[1]),
    )
    assert list(arcs.itertuples(index=False, name=None)) == [(t, p, n) for t, p, n in ranked[:20]]
    assert len(geo.error_arcs(path, filters, top=150)) == 150
    every = geo.error_arcs(path, filters, top=100_000)
    assert not every["predicted_country"].str.contains("+", regex=False).any()
    assert sum(every["n"]) == sum(n for _, _, n in ranked)


def test_a_co_origin_named_is_no_arc(path: Path, naive_answers, task: str):
    """Answers naming Russia for a dish from Russia and Ukraine asked about as Ukrainian (Paskha) are
    hits of the confusion rule: the UA -> RU arc counts fewer answers than the first-named rule would."""
    filters = Filters(DATASET, task)
    selected = naive.select(naive_answers, filters)
    co_origin = sum(n for (true, label), n in naive.confusion_pairs(selected).items() if (true, label) == ("UA", "+"))
    assert co_origin > 0  # the demo has such answers: the rule is exercised
    first_named = naive.pairs(selected)[("UA", "RU")]
    arcs = geo.error_arcs(path, filters, top=100_000, country="UA")
    ua_ru = int(arcs.loc[arcs["predicted_country"] == "RU", "n"].sum())
    assert ua_ru == naive.confusion_pairs(selected)[("UA", "RU")] < first_named


def test_country_answers_are_about_that_countrys_dishes(
    path: Path, naive_answers, task: str, two_models: tuple[str, str]
):
    filters = Filters(DATASET, task, models=two_models)
    rows = geo.country_answers(path, filters, "UA")
    about_ukraine = [a for a in naive.select(naive_answers, filters) if "UA" in a.gold]
    n = len(about_ukraine)
    assert n > 0 and len(rows) == min(n, geo.DEFAULT_ANSWER_LIMIT)
    assert set(rows["n_total"]) == {n}
    assert all("UA" in gold.split(",") for gold in rows["gold"])
    assert set(rows["model"]) == set(two_models)
    every = geo.country_answers(path, filters, "UA", limit=None)
    assert Counter(zip(every["model"], every["lang"], strict=True)) == Counter((a.model, a.lang) for a in about_ukraine)
    assert {"model", "lang", "response", "predicted", "status"} <= set(rows.columns)
    limited = geo.country_answers(path, filters, "ua", limit=5)
    assert len(limited) == 5 and set(limited["n_total"]) == {n}


def test_dish_labels_name_the_dishes(path: Path, task: str):
    rows = geo.country_answers(path, Filters(DATASET, task), "UA", limit=50)
    keys = tuple(sorted(set(rows["dish_key"])))
    labels = geo.dish_labels(path, keys)
    assert set(labels["dish_key"]) == set(keys)
    assert labels["dish"].notna().all()
