"""The map's queries (warehouse/queries/geo.py), run on the real demo warehouse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shapely.geometry import Point, shape

from tests.helpers import query
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


def test_recall_over_two_models_adds_up_the_counts(path: Path, task: str, two_models: tuple[str, str]):
    recall = geo.country_recall(path, Filters(DATASET, task, models=two_models)).set_index("country")
    rows = query(
        path,
        """SELECT country, n_answers, n_hits FROM marts.country_recall
           WHERE dataset = ? AND task = ? AND model IN (?, ?)""",
        [DATASET, task, *two_models],
    )
    expected: dict[str, list[int]] = {}
    for country, n_answers, n_hits in rows:
        totals = expected.setdefault(country, [0, 0])
        totals[0] += n_answers
        totals[1] += n_hits
    assert set(recall.index) == set(expected)
    for country, (n_answers, n_hits) in expected.items():
        assert recall.loc[country, "n_answers"] == n_answers
        assert recall.loc[country, "n_hits"] == n_hits
        assert recall.loc[country, "recall"] == pytest.approx(n_hits / n_answers)


def test_recall_of_one_model_and_language_is_the_mart_row(path: Path, task: str, two_models: tuple[str, str]):
    filters = Filters(DATASET, task, models=two_models[:1], langs=("en",))
    recall = geo.country_recall(path, filters).set_index("country")
    rows = query(
        path,
        """SELECT country, recall FROM marts.country_recall
           WHERE dataset = ? AND task = ? AND model = ? AND lang = 'en'""",
        [DATASET, task, two_models[0]],
    )
    assert len(recall) == len(rows)
    for country, value in rows:
        assert recall.loc[country, "recall"] == pytest.approx(value)


def test_overprediction_is_a_share_of_all_selected_answers(path: Path, task: str, two_models: tuple[str, str]):
    filters = Filters(DATASET, task, models=two_models, langs=("en", "ru_formal"))
    over = geo.country_overprediction(path, filters)
    [(n_selected,)] = query(
        path,
        """SELECT count(*) FROM marts.origin_scores
           WHERE dataset = ? AND task = ? AND model IN (?, ?) AND lang IN ('en', 'ru_formal')""",
        [DATASET, task, *two_models],
    )
    assert not over.empty
    assert set(over["n_answers"]) == {n_selected}
    [(n_wrong,)] = query(
        path,
        """SELECT sum(n_wrong) FROM marts.country_overprediction
           WHERE dataset = ? AND task = ? AND model IN (?, ?) AND lang IN ('en', 'ru_formal')""",
        [DATASET, task, *two_models],
    )
    assert over["n_wrong"].sum() == n_wrong
    assert (over["share"] == over["n_wrong"] / n_selected).all()
    assert over["n_wrong"].is_monotonic_decreasing


def test_error_arcs_are_the_most_frequent_wrong_pairs(path: Path, task: str):
    filters = Filters(DATASET, task)
    arcs = geo.error_arcs(path, filters, top=20)
    assert len(arcs) == 20
    assert (arcs["true_country"] != arcs["predicted_country"]).all()
    assert "-" not in set(arcs["predicted_country"])
    assert arcs["n"].is_monotonic_decreasing
    first = arcs.iloc[0]
    [(n,)] = query(
        path,
        """SELECT sum(n) FROM marts.confusion WHERE dataset = ? AND task = ?
           AND true_country = ? AND predicted_country = ?""",
        [DATASET, task, first["true_country"], first["predicted_country"]],
    )
    assert first["n"] == n
    assert len(geo.error_arcs(path, filters, top=150)) == 150


def test_country_answers_are_about_that_countrys_dishes(path: Path, task: str, two_models: tuple[str, str]):
    filters = Filters(DATASET, task, models=two_models)
    rows = geo.country_answers(path, filters, "UA")
    assert not rows.empty
    assert all("UA" in gold.split(",") for gold in rows["gold"])
    assert set(rows["model"]) == set(two_models)
    [(n,)] = query(
        path,
        """SELECT count(*) FROM marts.origin_scores WHERE dataset = ? AND task = ? AND model IN (?, ?)
           AND list_contains(string_split(gold, ','), 'UA')""",
        [DATASET, task, *two_models],
    )
    assert len(rows) == min(n, geo.DEFAULT_ANSWER_LIMIT)
    assert set(rows["n_total"]) == {n}
    assert {"model", "lang", "response", "predicted", "status"} <= set(rows.columns)
    limited = geo.country_answers(path, filters, "ua", limit=5)
    assert len(limited) == 5 and set(limited["n_total"]) == {n}


def test_dish_labels_name_the_dishes(path: Path, task: str):
    rows = geo.country_answers(path, Filters(DATASET, task), "UA", limit=50)
    keys = tuple(sorted(set(rows["dish_key"])))
    labels = geo.dish_labels(path, keys)
    assert set(labels["dish_key"]) == set(keys)
    assert labels["dish"].notna().all()
