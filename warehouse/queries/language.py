"""Queries for the language-pull page: does the prompt language pull answers toward its countries?

Counts are summed over the selected models before any share is taken (never averaging shares).
The marts store the English base rate and the Russia share as ratios only, so the counts behind
them are recovered per model row: the base numerator is base_share x (the model's wrong answers to
English prompts, i.e. n_wrong of its lang = 'en' row), and the Russia-or-Ukraine denominator is
n_ru / ru_share (or n_ua when no answer named Russia).
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters
from warehouse.queries.linked import OWN, AnswerSource


def language_pull(source: Source, filters: Filters, answers: AnswerSource = OWN) -> pd.DataFrame:
    """One row per prompt language: n_wrong, n_pulled, pull_share = n_pulled / n_wrong, the English
    base (n_base_wrong wrong answers to English prompts, n_base_pulled of them naming one of the
    language's countries, base_share) and lift = pull_share - base_share; largest lift first.

    The selected prompt languages filter the rows; the base always comes from English prompts.
    `answers`: the dataset's own answers, or the linked ones wrong against one dataset's gold.
    """
    where, params = dataclasses.replace(filters, langs=()).where()
    kind, kind_params = answers.where()
    where, params = f"{where} AND {kind}", params | kind_params
    return _frame(
        source,
        f"""
        WITH rows AS (
            SELECT *, max(n_wrong) FILTER (WHERE lang = 'en') OVER (PARTITION BY task, model) AS n_wrong_en
            FROM marts.language_pull WHERE {where}
        ), sums AS (
            SELECT lang, any_value(language) AS language, any_value(language_countries) AS language_countries,
                   sum(n_wrong)::BIGINT AS n_wrong, sum(n_pulled)::BIGINT AS n_pulled,
                   sum(n_wrong_en) FILTER (WHERE base_share IS NOT NULL)::BIGINT AS n_base_wrong,
                   sum(round(base_share * n_wrong_en))::BIGINT AS n_base_pulled
            FROM rows WHERE len($langs) = 0 OR list_contains($langs, lang)
            GROUP BY lang
        )
        SELECT *, n_pulled / nullif(n_wrong, 0) AS pull_share, n_base_pulled / nullif(n_base_wrong, 0) AS base_share,
               pull_share - base_share AS lift
        FROM sums
        ORDER BY lift DESC NULLS LAST, lang
        """,
        {**params, "langs": list(filters.langs)},
    )


def ru_ua_pull(source: Source, filters: Filters, answers: AnswerSource = OWN) -> pd.DataFrame:
    """Per prompt language, for dishes from both Russia and Ukraine: n_answers, n_ru, n_ua, n_either
    (answers naming Russia or Ukraine) and ru_share = n_ru / n_either. Linked answers (`answers`)
    exist only with the dish's own dataset's gold, which decides the dishes "of both"."""
    where, params = filters.where()
    kind, kind_params = answers.where()
    where, params = f"{where} AND {kind}", params | kind_params
    return _frame(
        source,
        f"""
        WITH sums AS (
            SELECT lang, sum(n_answers)::BIGINT AS n_answers, sum(n_ru)::BIGINT AS n_ru, sum(n_ua)::BIGINT AS n_ua,
                   sum(CASE WHEN n_ru = 0 THEN n_ua ELSE round(n_ru / ru_share) END)::BIGINT AS n_either
            FROM marts.ru_ua_pull WHERE {where}
            GROUP BY lang
        )
        SELECT *, n_ru / nullif(n_either, 0) AS ru_share FROM sums ORDER BY ru_share DESC NULLS LAST, lang
        """,
        params,
    )


def ru_ua_dishes(source: Source, filters: Filters, answers: AnswerSource = OWN) -> pd.DataFrame:
    """How many dishes with both RU and UA among their origins (as in marts.ru_ua_pull), and how many of
    their items, the selection answered (with linked answers: the dataset's dishes, and the asking
    dataset's questions about them)."""
    where, params = filters.where()
    if answers.answers_from == "linked":
        return _frame(
            source,
            f"""
            SELECT count(DISTINCT dish_key) AS n_dishes, count(DISTINCT answer_dataset || ':' || item_id) AS n_items
            FROM marts.linked_origin_answers
            WHERE {where} AND dish_key IN (
                SELECT dish_key FROM marts.dishes
                WHERE list_contains(string_split(origins, ','), 'RU')
                  AND list_contains(string_split(origins, ','), 'UA'))
            """,
            params,
        )
    return _frame(
        source,
        f"""
        SELECT count(DISTINCT dish_key) AS n_dishes, count(DISTINCT item_id) AS n_items
        FROM marts.origin_scores
        WHERE {where} AND dish_key IN (
            SELECT dish_key FROM marts.dishes
            WHERE list_contains(string_split(origins, ','), 'RU') AND list_contains(string_split(origins, ','), 'UA'))
        """,
        params,
    )


def ru_ua_by_dish(source: Source, filters: Filters, answers: AnswerSource = OWN) -> pd.DataFrame:
    """Per dish with both RU and UA among its origins (the dishes `ru_ua_dishes` counts): n_answers,
    n_ru, n_ua, n_either (answers naming Russia or Ukraine) and ru_share = n_ru / n_either; the dish's
    display name as `dish_name`. Most answers naming either first. Linked answers count once per
    answer (an answer linked to a dish through several records is one answer)."""
    where, params = filters.where()
    if answers.answers_from == "linked":
        rows = f"""SELECT dish_key, any_value(countries) AS countries FROM marts.linked_origin_answers
                   WHERE {where} AND dish_key IN (SELECT dish_key FROM shared) GROUP BY dish_key, generation_id"""
    else:
        rows = f"""SELECT dish_key, string_split(coalesce(predicted, ''), ',') AS countries FROM marts.origin_scores
                   WHERE {where} AND dish_key IN (SELECT dish_key FROM shared)"""
    return _frame(
        source,
        f"""
        WITH shared AS (
            SELECT dish_key FROM marts.dishes
            WHERE list_contains(string_split(origins, ','), 'RU') AND list_contains(string_split(origins, ','), 'UA')
        ), rows AS ({rows}), sums AS (
            SELECT dish_key, count(*) AS n_answers, count(*) FILTER (list_contains(countries, 'RU')) AS n_ru,
                   count(*) FILTER (list_contains(countries, 'UA')) AS n_ua,
                   count(*) FILTER (list_contains(countries, 'RU') OR list_contains(countries, 'UA')) AS n_either
            FROM rows GROUP BY dish_key
        )
        SELECT s.dish_key, coalesce(d.display_name, d.name, s.dish_key) AS dish_name, s.n_answers, s.n_ru, s.n_ua,
               s.n_either, s.n_ru / nullif(s.n_either, 0) AS ru_share
        FROM sums s LEFT JOIN marts.dishes d USING (dish_key)
        ORDER BY s.n_either DESC, s.n_answers DESC, s.dish_key
        """,
        params,
    )
