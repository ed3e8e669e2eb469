"""Queries for the map: country outlines, per-country recall and over-prediction, error arcs,
and the answers about one country's dishes.

Every function aggregates over the global selection (`Filters`: dataset, task, models, prompt
languages), so several models or languages give one row per country, with the counts added up
before the share is taken (never an average of shares).
"""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters

DEFAULT_ARCS = 150
DEFAULT_ANSWER_LIMIT = 2_000


def country_shapes(source: Source) -> pd.DataFrame:
    """One row per country: alpha-2 code, English name, post_soviet, GeoJSON geometry text and a
    label point (lon, lat). Natural Earth outlines; Crimea is drawn as part of Ukraine."""
    return _frame(
        source,
        "SELECT country, name_en, post_soviet, geojson, lon, lat FROM marts.country_shapes ORDER BY country",
    )


def map_outlines(source: Source) -> pd.DataFrame:
    """One row per country on the maps: alpha-2 code and its polygons as drawn (JSON: a list of
    polygons, each a list of rings of [lon, lat]; warehouse/marts/map_outlines.py)."""
    return _frame(source, "SELECT country, polygons FROM marts.map_outlines ORDER BY country")


def country_recall(source: Source, filters: Filters, method: str = "atlas") -> pd.DataFrame:
    """Per gold origin country: answers about its dishes, how many named it, recall = hits / answers.
    `method` "paper" counts a hit by the benchmark's own rule (gold string in the answer) instead."""
    where, params = filters.where()
    hits = "n_paper_hits" if method == "paper" else "n_hits"
    return _frame(
        source,
        f"""
        SELECT country, any_value(country_name) AS country_name,
               sum(n_answers)::BIGINT AS n_answers, coalesce(sum({hits}), 0)::BIGINT AS n_hits,
               coalesce(sum({hits}), 0) / sum(n_answers) AS recall
        FROM marts.country_recall
        WHERE {where}
        GROUP BY country
        ORDER BY n_answers DESC, country
        """,
        params,
    )


def country_overprediction(source: Source, filters: Filters) -> pd.DataFrame:
    """Per country: how often it is named for a dish that is not from there, as a share of all
    the selected answers.

    The mart repeats each (model, language)'s answer count on every country row; the denominator
    is the total over the selected (model, language) pairs, so a country that only some models
    name wrongly is not divided by the other models' answers only.
    """
    where, params = filters.where()
    return _frame(
        source,
        f"""
        WITH selected AS (
            SELECT * FROM marts.country_overprediction WHERE {where}
        ), total AS (
            SELECT sum(n_answers)::BIGINT AS n_answers
            FROM (SELECT DISTINCT dataset, task, model, lang, n_answers FROM selected)
        )
        SELECT s.country, any_value(s.country_name) AS country_name, sum(s.n_wrong)::BIGINT AS n_wrong,
               any_value(t.n_answers) AS n_answers, sum(s.n_wrong) / any_value(t.n_answers) AS share
        FROM selected s CROSS JOIN total t
        GROUP BY s.country
        ORDER BY n_wrong DESC, s.country
        """,
        params,
    )


def error_arcs(
    source: Source, filters: Filters, top: int = DEFAULT_ARCS, country: str | None = None, towards: bool = False
) -> pd.DataFrame:
    """The `top` most frequent (true origin -> wrongly named country) pairs of the selection; with
    `country`, only its own: the countries named for its dishes, or (`towards`) the dishes it was
    named for instead of their origin.

    Pairs follow the confusion matrix's rule (`confusion_label`, warehouse/marts/050_countries.sql),
    so the map and the Confusion page count the same errors: an answer naming another of the dish's
    origins is a hit ('+'), not an arc. Hits, answers naming no country ('-') and any label holding a
    '+' are left out; `predicted_country` is the label.
    """
    where, params = filters.where()
    side = "confusion_label" if towards else "true_country"
    only = f"AND {side} = $country" if country else ""
    return _frame(
        source,
        f"""
        SELECT true_country, confusion_label AS predicted_country, sum(n)::BIGINT AS n
        FROM marts.confusion
        WHERE {where} AND confusion_label NOT IN (true_country, '-') AND NOT contains(confusion_label, '+') {only}
        GROUP BY true_country, confusion_label
        ORDER BY n DESC, true_country, predicted_country
        LIMIT $top
        """,
        {**params, "top": int(top), **({"country": country.upper()} if country else {})},
    )


def named_instead(source: Source, filters: Filters, country: str) -> pd.DataFrame:
    """For the answers about dishes from `country`: each other country named instead of it (the first
    one an answer named; '-' when it named none), with the number of answers, most first."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT predicted_country AS country, sum(n)::BIGINT AS n_answers
        FROM marts.confusion
        WHERE {where} AND true_country = $country AND predicted_country <> $country
        GROUP BY predicted_country
        ORDER BY n_answers DESC, predicted_country
        """,
        {**params, "country": country.upper()},
    )


def country_dishes(source: Source, filters: Filters, country: str, method: str = "atlas") -> pd.DataFrame:
    """One row per dish whose gold origins include `country`: answers about it, how many named the
    country (`method` "paper": by the benchmark's own rule), that share (`accuracy`), the country
    most often named instead (the first alphabetically on a tie; NULL when none was) and how many
    answers named no country."""
    where, params = filters.where()
    hit = "coalesce(paper_hit, 0) > 0" if method == "paper" else "predicted_country = true_country"
    return _frame(
        source,
        f"""
        WITH answers AS (
            SELECT dish_key, true_country, predicted_country, paper_hit
            FROM marts.answer_pairs
            WHERE {where} AND true_country = $country
        ), instead AS (
            SELECT dish_key, first(predicted_country ORDER BY n DESC, predicted_country) AS named_instead
            FROM (
                SELECT dish_key, predicted_country, count(*) AS n
                FROM answers WHERE predicted_country NOT IN (true_country, '-') GROUP BY ALL
            )
            GROUP BY dish_key
        )
        SELECT dish_key, count(*)::BIGINT AS n_answers, count(*) FILTER ({hit})::BIGINT AS n_hits,
               count(*) FILTER ({hit}) / count(*) AS accuracy, any_value(named_instead) AS named_instead,
               count(*) FILTER (predicted_country = '-')::BIGINT AS n_no_country
        FROM answers LEFT JOIN instead USING (dish_key)
        GROUP BY dish_key
        ORDER BY n_answers DESC, accuracy, dish_key
        """,
        {**params, "country": country.upper()},
    )


def country_answers(
    source: Source, filters: Filters, country: str, limit: int | None = DEFAULT_ANSWER_LIMIT
) -> pd.DataFrame:
    """Every selected answer about a dish whose gold origins include `country` (alpha-2), by dish,
    model and prompt language. `n_total` is the number of rows before the limit."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT item_id, dish_key, gold, model, lang, response, predicted, status, jaccard,
               (SELECT count(*) FROM marts.answer_pairs WHERE {where} AND true_country = $country) AS n_total
        FROM marts.answer_pairs
        WHERE {where} AND true_country = $country
        ORDER BY try_cast(item_id AS BIGINT) NULLS LAST, item_id, model, lang
        LIMIT $limit
        """,
        {**params, "country": country.upper(), "limit": limit},
    )


def dish_labels(source: Source, dish_keys: tuple[str, ...]) -> pd.DataFrame:
    """Display name of each dish key (one row per key found in marts.dishes)."""
    return _frame(
        source,
        """
        SELECT dish_key, any_value(display_name) AS dish
        FROM marts.dishes
        WHERE list_contains($keys, dish_key)
        GROUP BY dish_key
        """,
        {"keys": list(dish_keys)},
    )
