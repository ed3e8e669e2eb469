"""Queries of the live probe page: the dataset's dish names to match a typed dish against, the
matched dish, and its stored batch answers (one SELECT each on marts.*)."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame

STORED_ANSWER_LIMIT = 50


def dish_names(source: Source) -> pd.DataFrame:
    """Every name of every dish (all languages, plus each dish's display name): dish_key, lang, name."""
    return _frame(
        source,
        """
        SELECT DISTINCT dish_key, lang, display_name AS name FROM marts.dish_names WHERE display_name <> ''
        UNION
        SELECT DISTINCT dish_key, lang, display_name AS name FROM marts.dishes WHERE display_name <> ''
        ORDER BY dish_key, lang, name
        """,
    )


def dish_info(source: Source, dish_key: str) -> pd.DataFrame:
    """The matched dish: dataset, lang, display_name, origins (alpha-2 joined by ',')."""
    return _frame(
        source,
        "SELECT dataset, lang, dish_id, display_name, origins FROM marts.dishes WHERE dish_key = $dish_key LIMIT 1",
        {"dish_key": dish_key},
    )


def stored_answers(source: Source, dish_key: str, lang: str, limit: int = STORED_ANSWER_LIMIT) -> pd.DataFrame:
    """Scored batch answers about the dish (prompts in `lang` and its variants first): model, lang,
    task, status, predicted, gold, response."""
    return _frame(
        source,
        """
        SELECT model, lang, task, status, predicted, gold, response
        FROM marts.dish_answers
        WHERE dish_key = $dish_key
        ORDER BY split_part(lang, '_', 1) <> $lang, model, lang, variant, item_id
        LIMIT $limit
        """,
        {"dish_key": dish_key, "lang": lang, "limit": int(limit)},
    )
