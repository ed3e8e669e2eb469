"""Queries for the confusion page: true x predicted origin country, and the answers behind a cell.

All of them read `marts.confusion` / `marts.answer_pairs`, where each row is one (answer, gold
country) pair: an answer about a dish with two origin countries counts once for each. Counts are
summed over the selected models and prompt languages; shares are computed from those sums.
"""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters

OTHER = "other"  # predicted column: a country outside the chosen set
NONE = "-"  # predicted column: the answer named no country (marts.answer_pairs writes '-')

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
              SELECT predicted_country, 0, n FROM marts.confusion WHERE {where} AND predicted_country <> '-') c
        LEFT JOIN marts.country_shapes s USING (country)
        GROUP BY c.country
        ORDER BY n_answers DESC, n_predicted DESC, c.country
        """,
        params,
    )


def matrix(source: Source, filters: Filters, chosen: tuple[str, ...]) -> pd.DataFrame:
    """The row-normalised confusion matrix of the `chosen` countries, in long form.

    One row per (true_country, predicted) cell with answers: `predicted` is a chosen country,
    OTHER (a country outside the set) or NONE (no country named). `n` is the cell's count,
    `row_n` the true country's total and `share` = n / row_n, so each true country's shares sum to 1.
    """
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT true_country,
               CASE WHEN predicted_country = '-' THEN '{NONE}'
                    WHEN list_contains($chosen, predicted_country) THEN predicted_country
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


def cell_answers(
    source: Source,
    filters: Filters,
    true_country: str,
    predicted: str,
    chosen: tuple[str, ...],
    limit: int = CELL_LIMIT,
) -> pd.DataFrame:
    """The answers behind one matrix cell (same cell rules as `matrix`), with the model's response.

    `predicted` is the full list of countries the answer named; `predicted_country` the matrix label.
    """
    where, params = filters.where("p")
    return _frame(
        source,
        f"""
        SELECT p.item_id, p.dish_key, p.model, p.lang, p.true_country, p.predicted_country,
               p.predicted, p.status, p.response
        FROM marts.answer_pairs p
        WHERE {where} AND p.true_country = $true_country
          AND CASE $predicted WHEN '{NONE}' THEN p.predicted_country = '-'
                              WHEN '{OTHER}' THEN p.predicted_country <> '-'
                                              AND NOT list_contains($chosen, p.predicted_country)
                              ELSE p.predicted_country = $predicted END
        ORDER BY p.model, p.lang, p.item_id
        LIMIT $limit
        """,
        {**params, "true_country": true_country, "predicted": predicted, "chosen": list(chosen), "limit": limit},
    )
