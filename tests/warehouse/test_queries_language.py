"""The language-pull page's queries, against a warehouse built by the real pipeline from the real data."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import query
from warehouse.queries import language
from warehouse.queries.answers import Filters

ALL = Filters(dataset="worldcuisines", task="origin_vqa")
GPT4O = "gpt-4o-2024-08-06"
TWO = Filters(ALL.dataset, ALL.task, models=(GPT4O, "qwen-vl-2b"))


@pytest.fixture(scope="module")
def wh(real_warehouse: Path) -> Path:
    return real_warehouse


def test_pull_share_is_summed_counts_over_models(wh: Path):
    pull = language.language_pull(wh, TWO).set_index("lang")
    mart = query(
        wh,
        "SELECT lang, sum(n_wrong), sum(n_pulled) FROM marts.language_pull WHERE dataset = 'worldcuisines'"
        " AND list_contains(?, model) GROUP BY lang",
        [list(TWO.models)],
    )
    assert len(pull) == len(mart) == 30
    for lang, n_wrong, n_pulled in mart:
        assert pull.loc[lang, "n_wrong"] == n_wrong
        assert pull.loc[lang, "n_pulled"] == n_pulled
    assert ((pull["pull_share"] - pull["n_pulled"] / pull["n_wrong"]).abs() < 1e-12).all()
    assert ((pull["lift"] - (pull["pull_share"] - pull["base_share"])).abs() < 1e-12).all()
    assert list(pull["lift"]) == sorted(pull["lift"], reverse=True)


def test_one_model_base_is_the_marts_base(wh: Path):
    pull = language.language_pull(wh, Filters(ALL.dataset, ALL.task, models=(GPT4O,))).set_index("lang")
    mart = dict(
        query(
            wh,
            "SELECT lang, base_share FROM marts.language_pull WHERE dataset = 'worldcuisines' AND model = ?",
            [GPT4O],
        )
    )
    for lang, base in mart.items():
        assert pull.loc[lang, "base_share"] == pytest.approx(base, abs=1e-12)
    english = pull.loc["en"]
    assert english["n_base_wrong"] == english["n_wrong"] and english["n_base_pulled"] == english["n_pulled"]
    assert english["lift"] == pytest.approx(0)


def test_base_of_two_models_pools_their_english_answers(wh: Path):
    pull = language.language_pull(wh, TWO).set_index("lang")
    singles = [
        language.language_pull(wh, Filters(ALL.dataset, ALL.task, models=(model,))).set_index("lang")
        for model in TWO.models
    ]
    for column in ("n_base_wrong", "n_base_pulled"):
        pooled = singles[0][column] + singles[1][column]
        assert (pull[column].sort_index() == pooled.sort_index()).all()
    assert pull.loc["en", "n_base_wrong"] == pull.loc["en", "n_wrong"]


def test_language_filter_keeps_the_english_base(wh: Path):
    everything = language.language_pull(wh, ALL).set_index("lang")
    only = language.language_pull(wh, Filters(ALL.dataset, ALL.task, langs=("ru_formal",)))
    assert only["lang"].tolist() == ["ru_formal"]
    assert only["base_share"].iloc[0] == pytest.approx(everything.loc["ru_formal", "base_share"])
    assert set(only["language_countries"].iloc[0].split(",")) >= {"RU", "BY", "KZ"}


def test_ru_ua_shares_count_answers_naming_either(wh: Path):
    ru_ua = language.ru_ua_pull(wh, ALL).set_index("lang")
    # Recount from the scored answers: dishes claimed by both countries, answers naming RU and/or UA.
    direct = query(
        wh,
        """
        SELECT lang, count(*),
               count(*) FILTER (list_contains(string_split(predicted, ','), 'RU')),
               count(*) FILTER (list_contains(string_split(predicted, ','), 'RU')
                                OR list_contains(string_split(predicted, ','), 'UA'))
        FROM marts.origin_scores
        WHERE dataset = 'worldcuisines' AND dish_key IN (
            SELECT dish_key FROM marts.dishes
            WHERE list_contains(string_split(origins, ','), 'RU') AND list_contains(string_split(origins, ','), 'UA'))
        GROUP BY lang
        """,
    )
    assert len(direct) == len(ru_ua) == 30
    for lang, n_answers, n_ru, n_either in direct:
        assert ru_ua.loc[lang, "n_answers"] == n_answers
        assert ru_ua.loc[lang, "n_ru"] == n_ru
        assert ru_ua.loc[lang, "n_either"] == n_either
    named = ru_ua[ru_ua["n_either"] > 0]
    assert ((named["ru_share"] - named["n_ru"] / named["n_either"]).abs() < 1e-12).all()
    assert ru_ua.loc[ru_ua["n_either"] == 0, "ru_share"].isna().all()


def test_ru_ua_dishes_are_counted(wh: Path):
    dishes = language.ru_ua_dishes(wh, ALL)
    assert 0 < dishes["n_dishes"].iloc[0] <= dishes["n_items"].iloc[0]
    nothing = language.ru_ua_dishes(wh, Filters(ALL.dataset, ALL.task, models=("no-such-model",)))
    assert nothing["n_dishes"].iloc[0] == 0
