"""Queries for the BORSch paper page (app/views/borsch_paper.py) over marts/111_borsch_figures.sql: the
paper's figures and tables that have no other home (Figs. 2b, 11, 12, 14 and Table 2) and §2's WorldCuisines
coverage."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters


def origins(source: Source, lang: str, *, found_by: str | None = None, parallel_only: bool = False) -> pd.DataFrame:
    """Dishes per origin country of BORSch's `lang` file (Fig. 2b: by `found_by`; Fig. 11: the parallel subset)."""
    return _frame(
        source,
        """
        SELECT country, any_value(country_name) AS country_name, bool_or(post_soviet) AS post_soviet,
               sum(n_dishes)::BIGINT AS n_dishes, sum(n_shared_dishes)::BIGINT AS n_shared_dishes
        FROM marts.borsch_origins
        WHERE lang = $lang AND ($found_by IS NULL OR found_by = $found_by) AND (NOT $parallel OR parallel)
        GROUP BY country
        ORDER BY n_dishes DESC, country
        """,
        {"lang": lang, "found_by": found_by, "parallel": parallel_only},
    )


def worldcuisines_coverage(source: Source) -> pd.DataFrame:
    """§2: the share of BORSch's Russian and Ukrainian dishes that WorldCuisines' Russian and Ukrainian dishes cover,
    from the dish links, per BORSch file and over both, beside the paper's printed 20.8%."""
    return _frame(source, "SELECT * FROM marts.borsch_worldcuisines_coverage")


def wrong_predictions(source: Source, models: tuple[str, ...], method: str, top: int = 10) -> pd.DataFrame:
    """Fig. 12: the `top` non-Post-Soviet countries answers name wrongly, per model, task and prompt language."""
    return _frame(
        source,
        """
        SELECT model, task, lang, rank, country, country_name, n_answers
        FROM marts.borsch_wrong_predictions
        WHERE method = $method AND rank <= $top AND (len($models) = 0 OR list_contains($models, model))
        ORDER BY model, task, lang, rank
        """,
        {"method": method, "top": top, "models": list(models)},
    )


def vqa_name_gain(source: Source, models: tuple[str, ...], langs: tuple[str, ...]) -> pd.DataFrame:
    """Fig. 14: per dish, mean Jaccard with the name and photos minus with the photos only."""
    return _frame(
        source,
        """
        SELECT model, lang, dish_key, dish_name, vqa_jaccard, vqa_with_name_jaccard, gain, n_vqa, n_vqa_with_name
        FROM marts.borsch_vqa_name_gain
        WHERE (len($models) = 0 OR list_contains($models, model)) AND (len($langs) = 0 OR list_contains($langs, lang))
        ORDER BY model, lang, gain DESC, dish_key
        """,
        {"models": list(models), "langs": list(langs)},
    )


def name_accuracy_by_origin(source: Source, models: tuple[str, ...], langs: tuple[str, ...]) -> pd.DataFrame:
    """Table 2: dish-name VQA accuracy per origin country of the dish."""
    return _frame(
        source,
        """
        SELECT model, lang, country, country_name, n_dishes, n_answers, accuracy, paper_accuracy
        FROM marts.borsch_name_accuracy_by_origin
        WHERE (len($models) = 0 OR list_contains($models, model)) AND (len($langs) = 0 OR list_contains($langs, lang))
        ORDER BY model, lang, n_answers DESC, country
        """,
        {"models": list(models), "langs": list(langs)},
    )


def method_by_variant(source: Source, filters: Filters) -> pd.DataFrame:
    """Our reading against BORSch's rule (§4.1: every country named), per task, prompt language and variant: how
    many answers the two read differently and the mean Jaccard of each (issue 35's Method audit)."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT task, lang, variant, any_value(reading) AS reading, count(*)::BIGINT AS n_answers,
               count(*) FILTER (list_sort(string_split(predicted, ',')) <>
                                list_sort(string_split(coalesce(paper_predicted, ''), ',')))::BIGINT AS n_differ,
               avg(jaccard) AS jaccard_ours, avg(paper_jaccard) AS jaccard_paper
        FROM marts.origin_scores
        WHERE {where} AND paper_predicted IS NOT NULL
        GROUP BY task, lang, variant
        ORDER BY task, lang, variant
        """,
        params,
    )


def method_differences(source: Source, filters: Filters, limit: int = 200) -> pd.DataFrame:
    """Answers our reading and BORSch's rule read differently, with both sets and the gold."""
    where, params = filters.where()
    return _frame(
        source,
        f"""
        SELECT model, task, lang, variant, reading, dish_key, gold, predicted AS ours, paper_predicted AS paper,
               jaccard, paper_jaccard, response
        FROM marts.origin_scores
        WHERE {where} AND paper_predicted IS NOT NULL
          AND list_sort(string_split(predicted, ',')) <> list_sort(string_split(paper_predicted, ','))
        ORDER BY task, lang, variant, model, item_id
        LIMIT $limit
        """,
        {**params, "limit": limit},
    )


def human_table3(source: Source) -> pd.DataFrame:
    """BORSch Table 3 (§5, Appendix J.2) from the imported ratings: each correlation between the human ratings of a
    model's descriptions and their images' cosines, per model, language and encoder, or why it is empty."""
    return _frame(
        source,
        """
        SELECT model, lang, encoder, correlation, value, n_dishes, note FROM marts.borsch_table3
        ORDER BY model, lang, encoder, list_position(['pearson', 'spearman', 'kendall', 'lin'], correlation)
        """,
    )


def human_table3_published(source: Source) -> pd.DataFrame:
    """Table 3 as printed, one row per correlation and one column per printed column."""
    return _frame(
        source,
        """
        PIVOT (SELECT * FROM marts.borsch_table3_published) ON "column" USING any_value(value)
        ORDER BY list_position(['pearson', 'spearman', 'kendall', 'lin'], correlation)
        """,
    )


def human_ratings(source: Source) -> pd.DataFrame:
    """Fig. 15's points: a dish's mean human rating beside its images' mean intra cosine."""
    return _frame(source, "SELECT * FROM marts.borsch_human_ratings WHERE cosine IS NOT NULL")


def human_agreement(source: Source) -> pd.DataFrame:
    """Cohen's kappa per kind of rating, language and pair of annotators (§3.2)."""
    return _frame(source, "SELECT * FROM marts.human_agreement ORDER BY kind, lang, annotator_a, annotator_b")
