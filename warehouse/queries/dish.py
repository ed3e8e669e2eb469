"""Queries for the per-dish page: one dish's names, images, origins and every model answer about it.

Each function is one short SELECT on `marts.*` with bound parameters. The answer queries take the
global `Filters` (dataset, task, models, prompt languages) so the page follows the sidebar.
"""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters

ANSWER_COLUMNS = (
    "model", "lang", "variant", "item_id", "status", "gold", "predicted", "jaccard", "accuracy", "answer_lang",
    "response", "generation_id", "no_country",
)  # fmt: skip


def options(source: Source, dataset: str) -> pd.DataFrame:
    """Every dish of the dataset for the dish picker, in catalogue order: dish_key, lang, dish_id,
    display_name, and n_answers: the origin answers about it (its own questions' and, through dish
    links, those asked about a linked record: what its page shows), 0 when none."""
    return _frame(
        source,
        """
        WITH own AS (
            SELECT dish_key, count(*) AS n FROM marts.origin_scores WHERE dataset = $dataset GROUP BY dish_key
        ), linked AS (
            SELECT dish_key, count(*) AS n FROM marts.linked_answers WHERE kind = 'origin' GROUP BY dish_key
        )
        SELECT d.dish_key, d.lang, d.dish_id, d.display_name, (coalesce(own.n, 0) + coalesce(linked.n, 0))::BIGINT
               AS n_answers
        FROM marts.dishes d
        LEFT JOIN own USING (dish_key) LEFT JOIN linked USING (dish_key)
        WHERE d.dataset = $dataset
        ORDER BY d.lang, try_cast(d.dish_id AS BIGINT) NULLS LAST, d.dish_id
        """,
        {"dataset": dataset},
    )


CATALOGUE_COLUMNS = (
    "dataset", "lang", "dish_id", "dish_key", "display_name", "origins", "n_answers", "accuracy",
    "n_linked_answers", "linked_accuracy", "names_ru", "names_uk", "names_en", "source",
)  # fmt: skip


def catalogue(
    source: Source,
    dataset: str,
    filters: Filters | None,
    lang: str | None = None,
    country: str | None = None,
    search: str | None = None,
    answered: bool = False,
    limit: int | None = 10_000,
) -> pd.DataFrame:
    """The Dishes page: marts.dishes rows (as `warehouse.queries.dishes` filters them: `lang`,
    `country` among the origins, `search` in the id or any name) with their answers. `n_answers` and
    `accuracy` (mean, a missing score as 0) are the dish's own origin answers under `filters` (the
    sidebar; none without); `n_linked_answers` and `linked_accuracy` those asked about a linked
    record in another dataset, scored against this dish's gold. `answered` keeps dishes with either."""
    search = (search or "").strip() or None
    where, params = filters.where("s") if filters is not None else ("FALSE", {})
    return _frame(
        source,
        f"""
        WITH own AS (
            SELECT s.dish_key, count(*) AS n, avg(coalesce(s.accuracy, 0)) AS accuracy
            FROM marts.origin_scores s WHERE {where} GROUP BY s.dish_key
        ), linked AS (
            SELECT dish_key, count(*) AS n, avg(score_dish_gold) AS accuracy
            FROM marts.linked_answers WHERE kind = 'origin' GROUP BY dish_key
        )
        SELECT d.dataset, d.lang, d.dish_id, d.dish_key, d.display_name, d.origins,
               coalesce(own.n, 0)::BIGINT AS n_answers, own.accuracy,
               coalesce(linked.n, 0)::BIGINT AS n_linked_answers, linked.accuracy AS linked_accuracy,
               d.names_ru, d.names_uk, d.names_en, d.source
        FROM marts.dishes d
        LEFT JOIN own USING (dish_key) LEFT JOIN linked USING (dish_key)
        WHERE d.dataset = $dataset
          AND ($lang IS NULL OR d.lang = $lang)
          AND ($country IS NULL OR list_contains(string_split(d.origins, ','), upper($country)))
          AND ($search IS NULL OR strpos(lower(concat_ws(' ', d.dish_id, d.name, d.display_name,
                                                         d.names_ru, d.names_uk, d.names_en)),
                                         lower($search)) > 0)
          AND (NOT $answered OR own.n > 0 OR linked.n > 0)
        ORDER BY d.lang, try_cast(d.dish_id AS BIGINT) NULLS LAST, d.dish_id
        LIMIT $limit
        """,
        {
            **params,
            "dataset": dataset,
            "lang": lang,
            "country": country or None,
            "search": search,
            "answered": bool(answered),
            "limit": limit,
        },
    )


def first_answered(source: Source, filters: Filters) -> str | None:
    """The first dish (catalogue order) with at least one scored answer under `filters`; None if none."""
    where, params = filters.where("s")
    frame = _frame(
        source,
        f"""
        SELECT d.dish_key
        FROM marts.dishes d
        WHERE d.dataset = $dataset
          AND EXISTS (SELECT 1 FROM marts.dish_answers s WHERE s.dish_key = d.dish_key AND {where})
        ORDER BY d.lang, try_cast(d.dish_id AS BIGINT) NULLS LAST, d.dish_id
        LIMIT 1
        """,
        params,
    )
    return None if frame.empty else str(frame["dish_key"].iloc[0])


def dish(source: Source, dish_key: str) -> pd.DataFrame:
    """The marts.dishes row of one dish (empty when the key is unknown)."""
    return _frame(
        source,
        """
        SELECT dataset, lang, dish_id, name, display_name, dish_key, origins, n_origins, description, category,
               source, n_images, is_sample
        FROM marts.dishes
        WHERE dish_key = $dish_key
        """,
        {"dish_key": dish_key},
    )


def names(source: Source, dish_key: str) -> pd.DataFrame:
    """The dish's names per language, primary name first: lang, name, display_name, is_primary."""
    return _frame(
        source,
        """
        SELECT lang, name, display_name, is_primary
        FROM marts.dish_names
        WHERE dish_key = $dish_key
        ORDER BY is_primary DESC, lang, display_name
        """,
        {"dish_key": dish_key},
    )


def images(source: Source, dish_key: str) -> pd.DataFrame:
    """The dish's photos (remote URLs, in dataset order) with their licenses."""
    return _frame(
        source,
        "SELECT position, url, license FROM marts.dish_images WHERE dish_key = $dish_key ORDER BY position",
        {"dish_key": dish_key},
    )


def countries(source: Source, codes: tuple[str, ...]) -> pd.DataFrame:
    """English names of alpha-2 codes, in the order given (unknown codes get a null name)."""
    return _frame(
        source,
        """
        SELECT c.country, s.name_en AS country_name
        FROM unnest($codes) WITH ORDINALITY AS c(country, position)
        LEFT JOIN marts.country_shapes s USING (country)
        ORDER BY c.position
        """,
        {"codes": list(codes)},
    )


def answers(source: Source, dish_key: str, filters: Filters) -> pd.DataFrame:
    """Every scored answer about the dish under `filters`, by model, prompt language and variant."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT {", ".join(ANSWER_COLUMNS)}
        FROM marts.dish_answers
        WHERE dish_key = $dish_key AND {where}
        ORDER BY model, lang, variant, item_id
        """,
        {**params, "dish_key": dish_key},
    )


def spans(source: Source, dish_key: str, filters: Filters) -> pd.DataFrame:
    """The matched country/region mentions in those answers, with offsets into the answer text."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT generation_id, span_start, span_end, text, country, region, negated
        FROM marts.answer_spans
        WHERE generation_id IN (SELECT generation_id FROM marts.dish_answers WHERE dish_key = $dish_key AND {where})
        ORDER BY generation_id, span_start
        """,
        {**params, "dish_key": dish_key},
    )


def scores(source: Source, dish_key: str, filters: Filters) -> pd.DataFrame:
    """Mean Jaccard and accuracy per model, prompt language and prompt variant for the dish."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT model, lang, variant, count(*) AS n, avg(jaccard) AS jaccard, avg(accuracy) AS accuracy,
               string_agg(DISTINCT nullif(predicted, ''), ' | ') AS predicted,
               string_agg(DISTINCT status, ',') AS status
        FROM marts.dish_answers
        WHERE dish_key = $dish_key AND {where}
        GROUP BY model, lang, variant
        ORDER BY model, lang, variant
        """,
        {**params, "dish_key": dish_key},
    )


def wrong_countries(source: Source, dish_key: str, filters: Filters, limit: int = 5) -> pd.DataFrame:
    """Countries the answers name that are not among the dish's origins (the question's gold, and every
    origin the dataset gives the dish: naming Russia for Paskha, from Russia and Ukraine, is not wrong
    here, as on the Confusion page), most often named first."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT country, count(*) AS n_answers
        FROM (SELECT unnest(string_split(predicted, ',')) AS country, string_split(gold, ',') AS gold
              FROM marts.dish_answers WHERE dish_key = $dish_key AND {where})
        WHERE country <> '' AND NOT list_contains(gold, country)
          AND NOT list_contains(coalesce((SELECT string_split(origins, ',') FROM marts.dishes
                                          WHERE dish_key = $dish_key), []), country)
        GROUP BY country
        ORDER BY n_answers DESC, country
        LIMIT $limit
        """,
        {**params, "dish_key": dish_key, "limit": limit},
    )


def answer_photos(source: Source, dish_key: str, task: str | None, item_ids: tuple[str, ...]) -> pd.DataFrame:
    """The photos the image questions `item_ids` of `task` showed (generated or imported answers alike)."""
    return _frame(
        source,
        """
        SELECT item_key, item_id, position, image_id, image, url, n_answers, n_imported
        FROM marts.answer_photos
        WHERE dish_key = $dish_key AND ($task IS NULL OR task = $task) AND list_contains($items, item_id)
        ORDER BY item_key, position
        """,
        {"dish_key": dish_key, "task": task, "items": list(item_ids)},
    )
