"""Read queries over the published marts: the dashboard's only way into the warehouse.

Each function reads one `marts.*` table of the published snapshot (never raw or core tables)
and returns a pandas DataFrame. `source` is either an open duckdb connection (the app passes a
read-only cursor) or the path of the published warehouse, which is then opened read-only for
the one query. User input only ever travels as bound parameters, never inside the SQL text.

DuckDB 2.0 note: frames come from `con.sql(query, params=...).df()`; `con.execute(...)` results
must be fetched completely before the connection is used again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas as pd

from warehouse.db import Warehouse

Source = duckdb.DuckDBPyConnection | str | Path

DEFAULT_DISH_LIMIT = 10_000

DISH_COLUMNS = (
    "dataset", "lang", "dish_id", "name", "origins", "source", "display_name", "dish_key", "n_origins",
    "names_ru", "names_uk", "names_en", "description", "category", "n_images", "first_image_url",
    "is_sample",
)  # fmt: skip


@contextlib.contextmanager
def _connection(source: Source) -> Iterator[duckdb.DuckDBPyConnection]:
    if isinstance(source, duckdb.DuckDBPyConnection):
        yield source
        return
    con = Warehouse(Path(source)).reader()
    try:
        yield con
    finally:
        con.close()


def _frame(source: Source, sql: str, params: dict | None = None) -> pd.DataFrame:
    with _connection(source) as con:
        return con.sql(sql, params=params or {}).df()


def dataset_summary(source: Source) -> pd.DataFrame:
    """One row per dataset, real datasets first: title, is_sample, home and headline counts."""
    return _frame(
        source,
        """
        SELECT dataset, title, is_sample, home, n_dishes, n_origin_countries, n_items, n_generations, n_models,
               subset
        FROM marts.dataset_summary
        ORDER BY is_sample, dataset
        """,
    )


def languages(source: Source, dataset: str) -> list[str]:
    """The dish-list languages of a dataset (from marts.dishes_per_source), sorted."""
    frame = _frame(
        source,
        "SELECT DISTINCT lang FROM marts.dishes_per_source WHERE dataset = $dataset ORDER BY lang",
        {"dataset": dataset},
    )
    return [str(lang) for lang in frame["lang"]]


def dishes_per_origin(source: Source, dataset: str, lang: str | None = None) -> pd.DataFrame:
    """Dishes per origin country, most dishes first.

    With `lang`, the rows of that dish list; without, one row per country adding up all the
    dataset's language lists (`lang` then names the lists that were added, e.g. "ru,uk").
    """
    return _frame(
        source,
        """
        SELECT dataset, string_agg(DISTINCT lang, ',' ORDER BY lang) AS lang, country,
               any_value(country_name) AS country_name, any_value(alpha3) AS alpha3,
               bool_or(post_soviet) AS post_soviet,
               sum(n_dishes)::BIGINT AS n_dishes, sum(n_shared_dishes)::BIGINT AS n_shared_dishes
        FROM marts.dishes_per_origin
        WHERE dataset = $dataset AND ($lang IS NULL OR lang = $lang)
        GROUP BY dataset, country
        ORDER BY n_dishes DESC, country
        """,
        {"dataset": dataset, "lang": lang},
    )


def dishes_per_source(source: Source, dataset: str, lang: str | None = None) -> pd.DataFrame:
    """Dishes per collection round (`source`) and language list."""
    return _frame(
        source,
        """
        SELECT dataset, lang, source, n_dishes
        FROM marts.dishes_per_source
        WHERE dataset = $dataset AND ($lang IS NULL OR lang = $lang)
        ORDER BY lang, source
        """,
        {"dataset": dataset, "lang": lang},
    )


def ingest_report(source: Source, dataset: str | None = None) -> pd.DataFrame:
    """Data quirks the ingest handled: kind, severity, count and one example per file."""
    return _frame(
        source,
        """
        SELECT dataset, file, kind, severity, n, first_line, example
        FROM marts.ingest_report
        WHERE $dataset IS NULL OR dataset = $dataset
        ORDER BY dataset, file, severity DESC, n DESC, kind
        """,
        {"dataset": dataset},
    )


def answers_per_model(source: Source, dataset: str | None = None) -> pd.DataFrame:
    """Model answers imported per task, model and prompt language, with how many are empty."""
    return _frame(
        source,
        """
        SELECT dataset, task_id, model_id, lang, n_answers, n_empty
        FROM marts.answers_per_model
        WHERE $dataset IS NULL OR dataset = $dataset
        ORDER BY dataset, task_id, model_id, lang
        """,
        {"dataset": dataset},
    )


def dishes(
    source: Source,
    dataset: str,
    lang: str | None = None,
    country: str | None = None,
    search: str | None = None,
    limit: int | None = DEFAULT_DISH_LIMIT,
) -> pd.DataFrame:
    """Dishes of a dataset in catalogue order.

    `country` keeps dishes whose origins include that alpha-2 code; `search` is a
    case-insensitive substring of the id or any name (Latin or Cyrillic); `limit=None` = all.
    """
    search = (search or "").strip() or None
    columns = ", ".join(DISH_COLUMNS)
    return _frame(
        source,
        f"""
        SELECT {columns}
        FROM marts.dishes
        WHERE dataset = $dataset
          AND ($lang IS NULL OR lang = $lang)
          AND ($country IS NULL OR list_contains(string_split(origins, ','), upper($country)))
          AND ($search IS NULL OR strpos(lower(concat_ws(' ', dish_id, name, display_name,
                                                         names_ru, names_uk, names_en)),
                                         lower($search)) > 0)
        ORDER BY lang, try_cast(dish_id AS BIGINT) NULLS LAST, dish_id
        LIMIT $limit
        """,
        {"dataset": dataset, "lang": lang, "country": country or None, "search": search, "limit": limit},
    )


def published_info(source: Source) -> pd.DataFrame:
    """When the snapshot was published and its schema version (one row)."""
    return _frame(source, "SELECT published_at, schema_version FROM marts.published")
