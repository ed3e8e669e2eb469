"""The language-pull page's queries, on a warehouse built by the real pipeline from the real data,
compared with a naive recount over the core tables (tests/warehouse/naive.py), never with the
marts.language_pull / marts.ru_ua_pull rows they sum."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import pytest

from tests.warehouse import naive
from warehouse.queries import language
from warehouse.queries.answers import Filters

ALL = Filters(dataset="worldcuisines", task="origin_vqa")
GPT4O = "gpt-4o-2024-08-06"
TWO = Filters(ALL.dataset, ALL.task, models=(GPT4O, "qwen-vl-2b"))


@pytest.fixture(scope="module")
def wh(real_warehouse: Path) -> Path:
    return real_warehouse


@pytest.fixture(scope="module")
def spoken(wh: Path) -> dict[str, set[str]]:
    return naive.language_countries(wh)


def expected_pull(naive_answers, spoken, filters: Filters) -> dict[str, dict]:
    """Per prompt language: wrong answers, those naming a country of the language, and the English
    base: the wrong English answers of the same models (those with wrong answers in this language)
    and how many of them name one of this language's countries."""
    everything = naive.select(naive_answers, Filters(filters.dataset, filters.task, models=filters.models))
    wrong: dict[tuple[str, str], list[naive.Answer]] = defaultdict(list)
    for answer in everything:
        if answer.wrong:
            wrong[(answer.model, answer.lang)].append(answer)
    langs = sorted({lang for _, lang in wrong} & (set(filters.langs) or {lang for _, lang in wrong}))
    result = {}
    for lang in langs:
        countries = spoken.get(naive.prompt_language(lang), set())
        models = [model for model, answer_lang in wrong if answer_lang == lang]
        own = [a for model in models for a in wrong[(model, lang)]]
        english = [a for model in models for a in wrong.get((model, "en"), [])]
        row = {
            "n_wrong": len(own),
            "n_pulled": sum(bool(countries & set(a.countries)) for a in own),
            "n_base_wrong": len(english),
            "n_base_pulled": sum(bool(countries & set(a.countries)) for a in english),
        }
        row["pull_share"] = row["n_pulled"] / row["n_wrong"]
        row["base_share"] = row["n_base_pulled"] / row["n_base_wrong"] if row["n_base_wrong"] else math.nan
        result[lang] = row
    return result


@pytest.mark.parametrize(
    "filters",
    [ALL, TWO, Filters(ALL.dataset, ALL.task, models=(GPT4O,)), Filters(ALL.dataset, ALL.task, langs=("ru_formal",))],
    ids=["all", "two-models", "one-model", "one-language"],
)
def test_pull_and_base_are_the_recount(wh: Path, naive_answers, spoken, filters: Filters):
    pull = language.language_pull(wh, filters).set_index("lang")
    expected = expected_pull(naive_answers, spoken, filters)
    assert expected and set(pull.index) == set(expected)
    for lang, row in expected.items():
        for column in ("n_wrong", "n_pulled", "n_base_wrong", "n_base_pulled"):
            assert pull.loc[lang, column] == row[column], (lang, column)
        assert pull.loc[lang, "pull_share"] == pytest.approx(row["pull_share"])
        assert pull.loc[lang, "base_share"] == pytest.approx(row["base_share"], nan_ok=True)
        assert pull.loc[lang, "lift"] == pytest.approx(row["pull_share"] - row["base_share"], nan_ok=True)
    assert list(pull["lift"].dropna()) == sorted(pull["lift"].dropna(), reverse=True)


def test_english_is_its_own_base(wh: Path):
    english = language.language_pull(wh, TWO).set_index("lang").loc["en"]
    assert english["n_base_wrong"] == english["n_wrong"] and english["n_base_pulled"] == english["n_pulled"]
    assert english["lift"] == pytest.approx(0)


def test_language_filter_keeps_the_english_base(wh: Path, spoken):
    only = language.language_pull(wh, Filters(ALL.dataset, ALL.task, langs=("ru_formal",)))
    assert only["lang"].tolist() == ["ru_formal"]
    assert set(only["language_countries"].iloc[0].split(",")) == spoken["ru"] >= {"RU", "BY", "KZ"}


@pytest.mark.parametrize("filters", [ALL, TWO], ids=["all", "two-models"])
def test_ru_ua_shares_count_answers_naming_either(wh: Path, naive_answers, filters: Filters):
    ru_ua = language.ru_ua_pull(wh, filters).set_index("lang")
    both = naive.dishes_of_both(wh)
    about = [a for a in naive.select(naive_answers, filters) if a.dish_key in both]
    by_lang: dict[str, list[naive.Answer]] = defaultdict(list)
    for answer in about:
        by_lang[answer.lang].append(answer)
    assert len(by_lang) == len(ru_ua) == 30
    for lang, answers in by_lang.items():
        n_ru = sum("RU" in a.countries for a in answers)
        n_ua = sum("UA" in a.countries for a in answers)
        n_either = sum("RU" in a.countries or "UA" in a.countries for a in answers)
        assert (ru_ua.loc[lang, "n_answers"], ru_ua.loc[lang, "n_ru"]) == (len(answers), n_ru)
        assert (ru_ua.loc[lang, "n_ua"], ru_ua.loc[lang, "n_either"]) == (n_ua, n_either)
        assert ru_ua.loc[lang, "ru_share"] == pytest.approx(n_ru / n_either if n_either else math.nan, nan_ok=True)


def test_ru_ua_dishes_are_counted(wh: Path, naive_answers):
    both = naive.dishes_of_both(wh)
    about = [a for a in naive.select(naive_answers, ALL) if a.dish_key in both]
    dishes = language.ru_ua_dishes(wh, ALL).iloc[0]
    assert (dishes["n_dishes"], dishes["n_items"]) == (len({a.dish_key for a in about}), len({a.item for a in about}))
    assert 0 < dishes["n_dishes"] <= dishes["n_items"]
    nothing = language.ru_ua_dishes(wh, Filters(ALL.dataset, ALL.task, models=("no-such-model",)))
    assert nothing["n_dishes"].iloc[0] == 0


@pytest.mark.parametrize("filters", [ALL, TWO], ids=["all", "two-models"])
def test_ru_ua_per_dish_counts_each_dishs_answers(wh: Path, naive_answers, filters: Filters):
    by_dish = language.ru_ua_by_dish(wh, filters).set_index("dish_key")
    both = naive.dishes_of_both(wh)
    answers: dict[str, list[naive.Answer]] = defaultdict(list)
    for answer in naive.select(naive_answers, filters):
        if answer.dish_key in both:
            answers[answer.dish_key].append(answer)
    assert set(by_dish.index) == set(answers) and len(answers) > 0
    for dish_key, about in answers.items():
        n_ru = sum("RU" in a.countries for a in about)
        n_ua = sum("UA" in a.countries for a in about)
        n_either = sum("RU" in a.countries or "UA" in a.countries for a in about)
        row = by_dish.loc[dish_key]
        assert (row["n_answers"], row["n_ru"], row["n_ua"], row["n_either"]) == (len(about), n_ru, n_ua, n_either)
        assert row["ru_share"] == pytest.approx(n_ru / n_either if n_either else math.nan, nan_ok=True)
    assert by_dish["dish_name"].notna().all()
    assert list(by_dish["n_either"]) == sorted(by_dish["n_either"], reverse=True)
