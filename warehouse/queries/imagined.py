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


def table4(source: Source, dataset: str, model: str) -> pd.DataFrame:
    """BORSch Table 4 for one describer model: every correlation x metric x QA/VQA cell per prompt language and
    encoder, in the paper's row order, with its p-value, dish count and, for an empty cell, why it is empty; and whose
    VQA answers the VQA cells pair with (§4.1)."""
    return _frame(
        source,
        """
        SELECT lang, encoder, setup, metric, correlation, value, p_value, n_dishes, note, vqa_model, pairing
        FROM marts.imagined_table4 WHERE dataset = $dataset AND model = $model
        ORDER BY lang, encoder, setup = 'VQA', list_position(['jaccard', 'dice', 'overlap'], metric),
                 list_position(['pearson', 'spearman', 'kendall'], correlation)
        """,
        {"dataset": dataset, "model": model},
    )


def reference(source: Source, dataset: str) -> pd.DataFrame:
    """BORSch §5's frame of reference per prompt language and encoder: the mean cosine between real photos of one
    dish and of different dishes (over photo pairs), beside the paper's published 0.52 and 0.07
    (marts/112_imagined_reference.sql)."""
    return _frame(
        source,
        """
        SELECT lang, encoder, n_dishes, n_photos, n_dishes_with_pairs, n_intra_pairs, n_inter_pairs, intra_mean,
               inter_mean, paper_intra_mean, paper_inter_mean
        FROM marts.imagined_reference WHERE dataset = $dataset ORDER BY lang, encoder
        """,
        {"dataset": dataset},
    )


def reference_photos(source: Source, dataset: str) -> pd.DataFrame:
    """Each real photo's mean cosine to its own dish's other photos and to the other dishes' photos."""
    return _frame(
        source,
        """
        SELECT lang, encoder, dish_key, dish_id, display_name, image_id, intra_cosine, inter_cosine, n_intra, n_inter
        FROM marts.imagined_reference_photos WHERE dataset = $dataset
        ORDER BY lang, encoder, try_cast(dish_id AS BIGINT) NULLS LAST, dish_id, image_id
        """,
        {"dataset": dataset},
    )


def regions(source: Source, dataset: str, model: str) -> pd.DataFrame:
    """BORSch Fig. 8 for one describer model: the mean intra cosine per prompt language and origin region of the
    dish (marts/113_imagined_regions.sql names the grouping)."""
    return _frame(
        source,
        """
        SELECT lang, encoder, region, n_dishes, n_images, intra_mean, inter_mean
        FROM marts.imagined_regions WHERE dataset = $dataset AND model = $model
        ORDER BY lang, encoder, region_order, region
        """,
        {"dataset": dataset, "model": model},
    )


def region_dishes(source: Source, dataset: str, model: str, region: str) -> pd.DataFrame:
    """The dishes behind one Fig. 8 region: each dish's origins and mean intra cosine, best drawn first."""
    return _frame(
        source,
        """
        SELECT lang, encoder, dish_key, dish_id, display_name, countries, intra_mean, inter_mean, n_images
        FROM marts.imagined_region_dishes WHERE dataset = $dataset AND model = $model AND region = $region
        ORDER BY lang, encoder, intra_mean DESC, dish_key
        """,
        {"dataset": dataset, "model": model, "region": region},
    )


def table4_published(source: Source) -> pd.DataFrame:
    """BORSch Table 4 as the paper prints it (Llama-3.2 and Qwen2, RU and UK), to read ours against."""
    return _frame(source, "SELECT * FROM marts.imagined_table4_published")
