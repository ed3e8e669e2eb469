"""Queries for the scoring-method switch (the paper's rule vs ours), the Method audit page and the
Language switching page. Each reads one mart."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters

METHODS = ("atlas", "paper")


def method_accuracy(source: Source, filters: Filters, method: str) -> pd.DataFrame:
    """Accuracy (as a fraction) per model and prompt language under `method`, plus the pooled row
    (lang '*', correct answers over all answers)."""
    where, params = filters.where()
    params["method"] = method
    return _frame(
        source,
        f"""
        SELECT model, lang, n, correct / n AS accuracy FROM marts.accuracy WHERE method = $method AND {where}
        UNION ALL
        SELECT model, '*' AS lang, sum(n)::BIGINT, sum(correct) / sum(n) FROM marts.accuracy
        WHERE method = $method AND {where} GROUP BY model
        ORDER BY model, lang
        """,
        params,
    )


def audit(source: Source, filters: Filters) -> pd.DataFrame:
    """Paper vs ours per (model, prompt language), largest gap first."""
    where, params = filters.where()
    return _frame(
        source,
        f"""SELECT model, lang, n, paper_accuracy, atlas_accuracy, gap, n_ours_only, n_paper_only,
                   top_reason, top_reason_n
            FROM marts.method_audit WHERE {where} ORDER BY abs(gap) DESC, model, lang""",
        params,
    )


def audit_by_language(source: Source, filters: Filters) -> pd.DataFrame:
    """Per prompt language, over the selected models: mean gap, its commonest reason and the share of
    disagreements it explains, and what the gold strings of that language name."""
    where, params = filters.where("a")
    d_where, _ = filters.where("d")
    return _frame(
        source,
        f"""
        WITH gaps AS (
            SELECT a.dataset, a.task, a.lang, avg(a.gap) AS mean_gap, count(*) AS n_models
            FROM marts.method_audit a WHERE {where} GROUP BY ALL
        ), reasons AS (
            SELECT d.lang, d.reason, count(*) AS n FROM marts.method_disagreements d WHERE {d_where} GROUP BY ALL
        ), top AS (
            SELECT lang, arg_max(reason, n) AS reason, max(n) / sum(n) AS reason_share, sum(n) AS n_disagreements
            FROM reasons GROUP BY lang
        )
        SELECT g.lang, g.mean_gap, g.n_models, t.reason, t.reason_share, t.n_disagreements,
               c.n_items, c.names_gold, c.names_other, c.names_none
        FROM gaps g
        LEFT JOIN top t USING (lang)
        LEFT JOIN marts.method_gold_checks c ON c.dataset = g.dataset AND c.task = g.task AND c.lang = g.lang
        ORDER BY abs(g.mean_gap) DESC, g.lang
        """,
        params,
    )


def disagreements(source: Source, filters: Filters, model: str, lang: str, limit: int = 500) -> pd.DataFrame:
    """The answers one (model, prompt language) is scored differently on, with the reason; each with
    its dish (`dish_key`, `dish_name`: the display name), so the page can link it to the Dish page."""
    where, params = filters.where("m")
    params.update({"model": model, "lang": lang, "limit": limit})
    return _frame(
        source,
        f"""SELECT m.item_id, s.dish_key, coalesce(d.display_name, d.name, s.dish_key) AS dish_name, m.direction,
                   m.reason, m.response, m.gold_text, m.gold_countries, m.predicted, m.answer_lang
            FROM marts.method_disagreements m
            LEFT JOIN marts.origin_scores s USING (generation_id)
            LEFT JOIN marts.dishes d ON d.dish_key = s.dish_key
            WHERE {where} AND m.model = $model AND m.lang = $lang
            ORDER BY m.direction, m.reason, try_cast(m.item_id AS BIGINT), m.item_id LIMIT $limit""",
        params,
    )


def switching_summary(source: Source, filters: Filters) -> pd.DataFrame:
    """Per model x prompt language: share of answers in the prompt's language, mixed, in another; where
    they switch to; accuracy with and without a switch."""
    where, params = filters.where()
    return _frame(
        source,
        f"""SELECT model, lang, prompt_lang, n, share_in_prompt_lang, share_mixed, share_other, switched_to,
                   accuracy_switched, accuracy_not_switched, n_switched
            FROM marts.language_switching_summary WHERE {where} ORDER BY model, lang""",
        params,
    )


def switching_examples(source: Source, filters: Filters, model: str, lang: str, limit: int = 50) -> pd.DataFrame:
    """Answers of one (model, prompt language) that left the prompt's language, with their segments."""
    where, params = filters.where()
    params.update({"model": model, "lang": lang, "limit": limit})
    return _frame(
        source,
        f"""SELECT item_id, kind, answer_lang, response, segments, accuracy
            FROM marts.language_switching
            WHERE {where} AND model = $model AND lang = $lang AND switched
            ORDER BY kind, try_cast(item_id AS BIGINT) LIMIT $limit""",
        params,
    )
