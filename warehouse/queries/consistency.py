"""Queries for the Consistency page: does a model give the same answer to the same question asked in
different prompt languages?

An answer is reduced to the *set* of countries it named (sorted, joined by ','; '' when it named
none, which is an answer too: a model that names nothing in every language is consistent). For one
model and one question (item and prompt variant) over its n prompt languages, with c_k answers
giving set k:

- pair agreement = Σ c_k (c_k − 1) / (n (n − 1)): the share of the question's language pairs whose
  two answers name the same set;
- modal share = max c_k / n: the share of languages agreeing with the most common set (ties broken
  by the set's text, so the modal set is deterministic);
- flips = the number of distinct sets − 1.

A question needs answers in at least two languages. The sidebar's prompt languages narrow the
languages compared; its models, the models shown.
"""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters

FLIP_LIMIT = 500

_ITEMS = """
    WITH answers AS (
        SELECT s.model, s.item_id, s.variant, s.lang, s.dish_key, s.gold, coalesce(s.accuracy, 0) AS accuracy,
               array_to_string(list_sort(list_distinct(list_filter(string_split(s.predicted, ','),
                                                                    lambda c: c <> ''))), ',') AS answer_set
        FROM marts.origin_scores s
        WHERE {where}
    ), sets AS (
        SELECT model, item_id, variant, answer_set, count(*) AS c, list(lang ORDER BY lang) AS langs
        FROM answers GROUP BY ALL
    ), items AS (
        SELECT model, item_id, variant, sum(c)::BIGINT AS n_langs, count(*)::BIGINT AS n_sets,
               sum(c * (c - 1)) / (sum(c) * (sum(c) - 1)) AS pair_agreement,
               max(c) / sum(c) AS modal_share,
               first(answer_set ORDER BY c DESC, answer_set) AS modal_set,
               string_agg(coalesce(nullif(answer_set, ''), '—') || ' ×' || c, ' · ' ORDER BY c DESC, answer_set)
                   AS answer_sets
        FROM sets GROUP BY ALL
        HAVING sum(c) >= 2
    ), facts AS (
        SELECT model, item_id, variant, any_value(dish_key) AS dish_key, any_value(gold) AS gold,
               avg(accuracy) AS accuracy
        FROM answers GROUP BY ALL
    )
"""


def items(source: Source, filters: Filters, model: str | None = None, limit: int | None = None) -> pd.DataFrame:
    """One row per (model, question): dish, gold, n_langs, n_sets, pair_agreement, modal_share,
    modal_set, answer_sets ("RU ×20 · UA ×8 · — ×2") and accuracy (mean over its languages); least
    consistent first (lowest pair agreement, then most sets). `model` keeps one model."""
    where, params = filters.where("s")
    if model is not None:
        where += " AND s.model = $model"
        params["model"] = model
    return _frame(
        source,
        _ITEMS.format(where=where)
        + """
        SELECT i.model, i.item_id, i.variant, f.dish_key, coalesce(d.display_name, d.name, f.dish_key) AS dish_name,
               f.gold, i.n_langs, i.n_sets, i.pair_agreement, i.modal_share, i.modal_set, i.answer_sets, f.accuracy
        FROM items i JOIN facts f USING (model, item_id, variant)
        LEFT JOIN marts.dishes d ON d.dish_key = f.dish_key
        ORDER BY i.pair_agreement, i.n_sets DESC, i.model, try_cast(i.item_id AS BIGINT) NULLS LAST, i.item_id
        LIMIT $limit
        """,
        {**params, "limit": limit},
    )


def by_model(source: Source, filters: Filters) -> pd.DataFrame:
    """Per model: questions compared, mean pair agreement, mean modal share, the share of questions
    answered with one set in every language (`all_agree`), mean languages per question, and accuracy;
    most consistent first."""
    where, params = filters.where("s")
    return _frame(
        source,
        _ITEMS.format(where=where)
        + """
        SELECT i.model, count(*)::BIGINT AS n_items, avg(i.pair_agreement) AS pair_agreement,
               avg(i.modal_share) AS modal_share, avg((i.n_sets = 1)::INTEGER) AS all_agree,
               avg(i.n_langs) AS mean_langs, avg(f.accuracy) AS accuracy
        FROM items i JOIN facts f USING (model, item_id, variant)
        GROUP BY i.model
        ORDER BY pair_agreement DESC, i.model
        """,
        params,
    )


def by_language(source: Source, filters: Filters, model: str) -> pd.DataFrame:
    """For one model, per prompt language: how often its answer is the question's modal set
    (`agrees`, over the questions answered in at least two languages); least agreeing first."""
    where, params = filters.where("s")
    return _frame(
        source,
        _ITEMS.format(where=where + " AND s.model = $model")
        + """
        SELECT a.lang, count(*)::BIGINT AS n_items, avg((a.answer_set = i.modal_set)::INTEGER) AS agrees,
               avg(a.accuracy) AS accuracy
        FROM answers a JOIN items i USING (model, item_id, variant)
        GROUP BY a.lang
        ORDER BY agrees, a.lang
        """,
        {**params, "model": model},
    )
