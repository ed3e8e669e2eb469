"""Queries for the Language gap page: per model, each prompt language's accuracy minus English on the same
items (marts.language_gap, built at publish), and the items behind a gap (marts.language_gap_items)."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame

ITEM_LIMIT = 200


def tasks(source: Source, dataset: str) -> list[str]:
    """The dataset's tasks answered in English and at least one other prompt language."""
    sql = "SELECT DISTINCT task FROM marts.language_gap WHERE dataset = $dataset ORDER BY task"
    return _frame(source, sql, {"dataset": dataset})["task"].tolist()


def scripts(source: Source, dataset: str, task: str) -> list[str]:
    """The writing systems of the task's prompt languages, most languages first."""
    sql = """SELECT script FROM marts.language_gap WHERE dataset = $dataset AND task = $task AND script <> ''
             GROUP BY script ORDER BY count(DISTINCT lang) DESC, script"""
    return _frame(source, sql, {"dataset": dataset, "task": task})["script"].tolist()


def gaps(
    source: Source,
    dataset: str,
    task: str,
    method: str,
    models: tuple[str, ...] = (),
    langs: tuple[str, ...] = (),
    only_scripts: tuple[str, ...] = (),
) -> pd.DataFrame:
    """One row per (model, prompt language): n paired items, accuracy, accuracy_en, gap and its interval
    (percent, points), script, n_lost, n_gained; largest loss first. Empty filters keep everything."""
    return _frame(
        source,
        """
        SELECT model, lang, script, n, accuracy, accuracy_en, gap, low, high, n_lost, n_gained, metric
        FROM marts.language_gap
        WHERE dataset = $dataset AND task = $task AND method = $method
          AND (len($models) = 0 OR list_contains($models, model))
          AND (len($langs) = 0 OR list_contains($langs, lang))
          AND (len($scripts) = 0 OR list_contains($scripts, script))
        ORDER BY gap, model, lang
        """,
        {
            "dataset": dataset,
            "task": task,
            "method": method,
            "models": list(models),
            "langs": list(langs),
            "scripts": list(only_scripts),
        },
    )


def gap_items(
    source: Source, dataset: str, task: str, method: str, model: str, lang: str, change: str, limit: int = ITEM_LIMIT
) -> pd.DataFrame:
    """The items one model got right in English and wrong in `lang` (`change` = 'lost') or the reverse
    ('gained'): the English gold and answer beside the language's, up to `limit` rows, in item order."""
    return _frame(
        source,
        """
        SELECT item_id, variant, gold_en, response_en, gold, response, dish_key, dish_name,
               generation_id_en, generation_id
        FROM marts.language_gap_items
        WHERE dataset = $dataset AND task = $task AND method = $method AND model = $model AND lang = $lang
          AND change = $change
        ORDER BY try_cast(item_id AS BIGINT) NULLS LAST, item_id, variant
        LIMIT $limit
        """,
        {
            "dataset": dataset,
            "task": task,
            "method": method,
            "model": model,
            "lang": lang,
            "change": change,
            "limit": limit,
        },
    )
