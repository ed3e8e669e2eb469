"""Queries for the confusion page: true x predicted origin country, and the answers behind a cell.

All of them read `marts.confusion` / `marts.answer_pairs`, where each row is one (answer, gold
country) pair: an answer about a dish with two origin countries counts once for each. Counts are
summed over the selected models and prompt languages; shares are computed from those sums.

The matrix column of a pair is its `confusion_label` (warehouse/marts/050_countries.sql): the true
country when the answer named it; CO_ORIGIN when it named another of the dish's origin countries
instead (a hit: naming Russia for Paskha, from Russia and Ukraine, is no UA -> RU confusion); NONE
when it named no country; else the first country it named, shown as itself when chosen and as OTHER
when not (`other_countries` unpacks OTHER).
"""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters

OTHER = "other"  # predicted column: a country outside the chosen set
NONE = "-"  # predicted column: the answer named no country (marts.answer_pairs writes '-')
CO_ORIGIN = "+"  # predicted column: another of the dish's origins, not this one (a hit)

CELL_LIMIT = 2_000


def countries(source: Source, filters: Filters) -> pd.DataFrame:
    """Every country seen as a gold or predicted origin under the filters, most answers first:
    country, name, n_answers (pairs with it as the gold country), n_predicted (pairs naming it)."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT c.country, coalesce(any_value(s.name_en), c.country) AS name,
               sum(c.n_true)::BIGINT AS n_answers, sum(c.n_predicted)::BIGINT AS n_predicted
        FROM (SELECT true_country AS country, n AS n_true, 0 AS n_predicted FROM marts.confusion WHERE {where}
              UNION ALL
              SELECT confusion_label, 0, n FROM marts.confusion WHERE {where} AND confusion_label NOT IN ('-', '+')) c
        LEFT JOIN marts.country_shapes s USING (country)
        GROUP BY c.country
        ORDER BY n_answers DESC, n_predicted DESC, c.country
        """,
        params,
    )


def matrix(source: Source, filters: Filters, chosen: tuple[str, ...]) -> pd.DataFrame:
    """The row-normalised confusion matrix of the `chosen` countries, in long form.

    One row per (true_country, predicted) cell with answers: `predicted` is a chosen country,
    CO_ORIGIN (another origin of the dish named: a hit), OTHER (a country outside the set) or NONE
    (no country named). `n` is the cell's count,
    `row_n` the true country's total and `share` = n / row_n, so each true country's shares sum to 1.
    """
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT true_country,
               CASE WHEN confusion_label = '-' THEN '{NONE}'
                    WHEN confusion_label = '+' THEN '{CO_ORIGIN}'
                    WHEN list_contains($chosen, confusion_label) THEN confusion_label
                    ELSE '{OTHER}' END AS predicted,
               sum(n)::BIGINT AS n,
               (sum(sum(n)) OVER (PARTITION BY true_country))::BIGINT AS row_n,
               sum(n) / sum(sum(n)) OVER (PARTITION BY true_country) AS share
        FROM marts.confusion
        WHERE {where} AND list_contains($chosen, true_country)
        GROUP BY 1, 2
        ORDER BY true_country, predicted
        """,
        {**params, "chosen": list(chosen)},
    )


def other_countries(source: Source, filters: Filters, chosen: tuple[str, ...], top: int = 5) -> pd.DataFrame:
    """OTHER unpacked: per chosen true country, the `top` countries outside the set that its answers
    named (their confusion label): true_country, country, name, n, row_n (the true country's
    pairs, as in `matrix`), share = n / row_n and rank, most named first."""
    where, params = filters.where("c")
    return _frame(
        source,
        f"""
        WITH rows AS (
            SELECT true_country, sum(n) AS row_n FROM marts.confusion c
            WHERE {where} AND list_contains($chosen, true_country) GROUP BY true_country
        ), other AS (
            SELECT true_country, confusion_label AS country, sum(n) AS n FROM marts.confusion c
            WHERE {where} AND list_contains($chosen, true_country)
              AND confusion_label NOT IN ('-', '+') AND NOT list_contains($chosen, confusion_label)
            GROUP BY ALL
        ), ranked AS (
            SELECT o.*, row_number() OVER (PARTITION BY true_country ORDER BY n DESC, country) AS rank
            FROM other o
        )
        SELECT r.true_country, r.country, coalesce(s.name_en, r.country) AS name, r.n::BIGINT AS n,
               rows.row_n::BIGINT AS row_n, r.n / rows.row_n AS share, r.rank
        FROM ranked r JOIN rows USING (true_country) LEFT JOIN marts.country_shapes s ON s.country = r.country
        WHERE r.rank <= $top
        ORDER BY list_position($chosen, r.true_country), r.rank
        """,
        {**params, "chosen": list(chosen), "top": int(top)},
    )


def cell_answers(
    source: Source,
    filters: Filters,
    true_country: str,
    predicted: str,
    chosen: tuple[str, ...],
    limit: int = CELL_LIMIT,
) -> pd.DataFrame:
    """The answers behind one matrix cell (same cell rules as `matrix`), with the model's response.

    `dish_name` is the dish's display name; `origins` every origin the dataset gives the dish;
    `predicted` is the full list of countries the answer named; `predicted_country` the country the
    cell counted it as (for CO_ORIGIN: the first named, which is another origin or a country before it).
    """
    where, params = filters.where("p")
    return _frame(
        source,
        f"""
        SELECT p.item_id, p.dish_key, coalesce(d.display_name, d.name, p.dish_key) AS dish_name, p.model, p.lang,
               p.true_country, p.predicted_country, p.predicted, p.origins, p.status, p.response
        FROM marts.answer_pairs p
        LEFT JOIN marts.dishes d ON d.dish_key = p.dish_key
        WHERE {where} AND p.true_country = $true_country
          AND CASE $predicted WHEN '{NONE}' THEN p.confusion_label = '-'
                              WHEN '{CO_ORIGIN}' THEN p.confusion_label = '+'
                              WHEN '{OTHER}' THEN p.confusion_label NOT IN ('-', '+')
                                              AND NOT list_contains($chosen, p.confusion_label)
                              ELSE p.confusion_label = $predicted END
        ORDER BY p.model, p.lang, try_cast(p.item_id AS BIGINT) NULLS LAST, p.item_id
        LIMIT $limit
        """,
        {**params, "true_country": true_country, "predicted": predicted, "chosen": list(chosen), "limit": limit},
    )
