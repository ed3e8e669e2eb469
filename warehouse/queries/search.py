"""Queries for the Answers page: search inside the scored answers, and the answers behind any
aggregate another page links to (a leaderboard cell, a dish, a gold country, a named country).

One SELECT on `marts.origin_scores` (the dish's name from `marts.dishes`) under the sidebar's
`Filters` and an `AnswerSearch`; the text is matched as a case-insensitive substring of the answer,
bound as a parameter (never inside the SQL, never as a pattern: `%` and `_` are plain characters).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters

SEARCH_LIMIT = 1_000
RESULTS = {
    "right": "coalesce(s.accuracy, 0) = 1",  # the first country named is a gold origin
    "wrong": "coalesce(s.accuracy, 0) = 0 AND NOT s.no_country",  # a country named, the first not a gold origin
    "no_country": "s.no_country",  # see marts.origin_scores.no_country
}
COLUMNS = (
    "dish_key", "dish_name", "model", "lang", "item_id", "variant", "gold", "predicted", "accuracy", "jaccard",
    "status", "response",
)  # fmt: skip


@dataclass(frozen=True)
class AnswerSearch:
    """What the Answers page narrows the sidebar's selection to; None / "" means no condition."""

    text: str | None = None  # a substring of the answer, any case
    dish_key: str | None = None
    gold: str | None = None  # alpha-2: a gold origin of the question
    named: str | None = None  # alpha-2: a country the answer named
    result: str | None = None  # a key of RESULTS

    def where(self) -> tuple[str, dict]:
        clauses, params = [], {}
        if self.text:
            clauses.append("strpos(lower(s.response), lower($text)) > 0")
            params["text"] = self.text
        if self.dish_key:
            clauses.append("s.dish_key = $dish_key")
            params["dish_key"] = self.dish_key
        if self.gold:
            clauses.append("list_contains(string_split(s.gold, ','), $gold)")
            params["gold"] = self.gold
        if self.named:
            clauses.append("list_contains(string_split(s.predicted, ','), $named)")
            params["named"] = self.named
        if self.result:
            clauses.append(RESULTS[self.result])
        return " AND ".join(clauses) or "TRUE", params


def answers(source: Source, filters: Filters, search: AnswerSearch, limit: int = SEARCH_LIMIT) -> pd.DataFrame:
    """The matching answers, by dish, model and prompt language (at most `limit`); `n_total` on every
    row is how many match before the limit."""
    where, params = filters.where("s")
    narrow, more = search.where()
    return _frame(
        source,
        f"""
        SELECT s.dish_key, coalesce(d.display_name, d.name, s.dish_key) AS dish_name, s.model, s.lang, s.item_id,
               s.variant, s.gold, s.predicted, s.accuracy, s.jaccard, s.status, s.response,
               count(*) OVER () AS n_total
        FROM marts.origin_scores s
        LEFT JOIN marts.dishes d ON d.dish_key = s.dish_key
        WHERE {where} AND {narrow}
        ORDER BY try_cast(s.item_id AS BIGINT) NULLS LAST, s.item_id, s.model, s.lang, s.variant
        LIMIT $limit
        """,
        {**params, **more, "limit": int(limit)},
    )


def answered_dishes(source: Source, filters: Filters) -> pd.DataFrame:
    """The dishes with answers under `filters`, for the dish selector: dish_key, dish_name, n_answers."""
    where, params = filters.where("s")
    return _frame(
        source,
        f"""
        SELECT s.dish_key, coalesce(any_value(d.display_name), any_value(d.name), s.dish_key) AS dish_name,
               count(*) AS n_answers
        FROM marts.origin_scores s LEFT JOIN marts.dishes d ON d.dish_key = s.dish_key
        WHERE {where}
        GROUP BY s.dish_key
        ORDER BY dish_name, s.dish_key
        """,
        params,
    )


def countries(source: Source, filters: Filters) -> pd.DataFrame:
    """Every country that is a gold origin or a named country under `filters`: country, name."""
    where, params = filters.where("s")
    return _frame(
        source,
        f"""
        WITH codes AS (
            SELECT DISTINCT unnest(string_split(s.gold || ',' || s.predicted, ',')) AS country
            FROM marts.origin_scores s WHERE {where}
        )
        SELECT c.country, coalesce(sh.name_en, c.country) AS name
        FROM codes c LEFT JOIN marts.country_shapes sh USING (country)
        WHERE c.country <> ''
        ORDER BY name
        """,
        params,
    )
