"""Queries for the Imagined dishes page: generated images, their similarity to real photos and the
describer's QA score, per model (marts.imagined*, built by warehouse/marts/100_imagined.sql and
imagined_correlations.py)."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame


def correlations(source: Source, dataset: str) -> pd.DataFrame:
    """Per describer model, language, generator and encoder: dish and image counts, mean intra and
    inter cosine, and the Spearman of intra cosine against QA Jaccard with its 95% interval."""
    return _frame(
        source,
        "SELECT * FROM marts.imagined_correlations WHERE dataset = $dataset ORDER BY model, lang, generator, encoder",
        {"dataset": dataset},
    )


def images(source: Source, dataset: str, model: str) -> pd.DataFrame:
    """Every generated image of one describer model, with its similarities and the QA score of its dish."""
    return _frame(
        source,
        """
        SELECT model, dataset, dish_id, description, translation, image, generator, seed, encoder,
               intra_cosine, inter_cosine, qa_jaccard, lang, dish_key, display_name, image_id, translator,
               steps, guidance, width, height, n_intra, n_inter, qa_answers
        FROM marts.imagined WHERE dataset = $dataset AND model = $model
        ORDER BY lang, try_cast(dish_id AS BIGINT) NULLS LAST, dish_id, generator, seed, encoder
        """,
        {"dataset": dataset, "model": model},
    )


def real_images(source: Source, dish_key: str) -> pd.DataFrame:
    """The real photos of one imagined dish, in the dataset's order."""
    return _frame(
        source,
        "SELECT image_id, image FROM marts.imagined_real_images WHERE dish_key = $dish ORDER BY position, image_id",
        {"dish": dish_key},
    )


def tiny_models(source: Source) -> list[str]:
    """Models recorded as tiny random test models (built by `tiny-model`)."""
    frame = _frame(source, "SELECT DISTINCT model FROM marts.imagined_models WHERE tiny_random ORDER BY model")
    return frame["model"].tolist()
