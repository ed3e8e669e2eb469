"""The landing page's headline findings: each one number over the selected answers, read from the marts the
evidence pages read, so a sentence on the landing page and the page it links to can never disagree.

Every function returns an empty frame when the warehouse holds nothing to say it with (a dataset without
answers, a task without prompts in English), and the landing page then leaves that finding out.
"""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters

MIN_WRONG = 30  # a prompt language's pull is named only over at least this many wrong answers
MIN_CONFUSED = 10  # a true origin's most common wrong country is named only over this many answers of it


def overall(source: Source, filters: Filters) -> pd.DataFrame:
    """One row: answers, models and prompt languages scored, their accuracy and no-country share."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT sum(n)::BIGINT AS n_answers, count(DISTINCT model) AS n_models,
               (SELECT count(DISTINCT lang) FROM marts.leaderboard WHERE {where} AND lang <> '*') AS n_langs,
               sum(accuracy * n) / sum(n) AS accuracy, sum(no_country_share * n) / sum(n) AS no_country_share
        FROM marts.leaderboard WHERE {where} AND lang = '*'
        HAVING sum(n) > 0
        """,
        params,
    )


def model_range(source: Source, filters: Filters) -> pd.DataFrame:
    """The most and the least accurate model over all prompt languages (two rows, best first)."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        WITH pooled AS (SELECT model, accuracy, n FROM marts.leaderboard WHERE {where} AND lang = '*' AND n > 0)
        (SELECT 'best' AS rank, * FROM pooled ORDER BY accuracy DESC, model LIMIT 1)
        UNION ALL
        (SELECT 'worst', * FROM pooled ORDER BY accuracy, model LIMIT 1)
        """,
        params,
    )


def language_pull(source: Source, filters: Filters) -> pd.DataFrame:
    """Wrong answers to non-English prompts that name a country of the prompt's language, against the same
    countries in the wrong answers to English prompts (marts.language_pull's base); and the language that pulls
    most (over at least MIN_WRONG wrong answers), as `top_lang` with its own shares."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        WITH rows AS (
            SELECT lang, n_wrong, n_pulled, coalesce(base_share, 0) * n_wrong AS n_base
            FROM marts.language_pull WHERE {where} AND answers_from = 'own' AND lang <> 'en' AND n_wrong > 0
        ), per_lang AS (
            SELECT lang, sum(n_wrong) AS n_wrong, sum(n_pulled) / sum(n_wrong) AS pull_share,
                   sum(n_base) / sum(n_wrong) AS base_share
            FROM rows GROUP BY lang HAVING sum(n_wrong) >= {MIN_WRONG}
        ), top AS (SELECT * FROM per_lang ORDER BY pull_share - base_share DESC, lang LIMIT 1)
        SELECT sum(r.n_wrong)::BIGINT AS n_wrong, sum(r.n_pulled) / sum(r.n_wrong) AS pull_share,
               sum(r.n_base) / sum(r.n_wrong) AS base_share,
               any_value(t.lang) AS top_lang, any_value(t.pull_share) AS top_pull_share,
               any_value(t.base_share) AS top_base_share, any_value(t.n_wrong)::BIGINT AS top_n_wrong
        FROM rows r, top t
        HAVING sum(r.n_wrong) > 0
        """,
        params,
    )


def top_confusion(source: Source, filters: Filters) -> pd.DataFrame:
    """The true origin whose dishes are most often given one other country, with that country and the share of
    the origin's answers that name it (over at least MIN_CONFUSED answers of that origin)."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        WITH cells AS (
            SELECT true_country, confusion_label AS named, sum(n) AS n
            FROM marts.confusion WHERE {where} GROUP BY ALL
        ), totals AS (SELECT true_country, sum(n) AS n_true FROM cells GROUP BY ALL HAVING sum(n) >= {MIN_CONFUSED})
        SELECT c.true_country, tc.name_en AS true_name, c.named, nc.name_en AS named_name, c.n::BIGINT AS n,
               t.n_true::BIGINT AS n_true, c.n / t.n_true AS share
        FROM cells c JOIN totals t USING (true_country)
        JOIN core.countries tc ON tc.country = c.true_country
        JOIN core.countries nc ON nc.country = c.named
        WHERE c.named NOT IN (c.true_country, '-', '+')
        ORDER BY share DESC, n DESC, c.true_country LIMIT 1
        """,
        params,
    )


def language_gap(source: Source, filters: Filters) -> pd.DataFrame:
    """The prompt language furthest below English on the same questions, averaged over the models (our method),
    with how many models do worse in it than in English."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT lang, avg(gap) AS gap, count(*) AS n_models, count(*) FILTER (WHERE high < 0) AS n_models_worse
        FROM marts.language_gap WHERE {where} AND method = 'atlas' AND lang <> 'en'
        GROUP BY lang ORDER BY gap, lang LIMIT 1
        """,
        params,
    )


def consistency(source: Source, filters: Filters) -> pd.DataFrame:
    """Over every model and question asked in at least two prompt languages: the chance that two of its languages
    get the same countries from the model (mean pair agreement), and the share of questions answered alike in all."""
    from warehouse.queries import consistency as queries

    frame = queries.by_model(source, filters)
    if frame.empty:
        return frame
    weights = frame["n_items"]
    return pd.DataFrame(
        {
            "n_items": [int(weights.sum())],
            "pair_agreement": [float((frame["pair_agreement"] * weights).sum() / weights.sum())],
            "all_agree": [float((frame["all_agree"] * weights).sum() / weights.sum())],
        }
    )
