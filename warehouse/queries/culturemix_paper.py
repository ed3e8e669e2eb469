"""Queries of the "Culture mix as published" page over the analysis marts (140_culturemix_analyses.sql,
culturemix_mitigation.py): the paper's tables and figures, and the answers behind any cell."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _connection

ANALYSES = ("subtask", "distance", "background", "real", "position", "size", "transition")


def _frame(source: Source, sql: str, params: list | None = None) -> pd.DataFrame:
    with _connection(source) as con:
        return con.sql(sql, params=params or []).df()


def cells(source: Source, analysis: str, prompt: str) -> pd.DataFrame:
    """One analysis's cells (accuracy, entropy, answers) per model, subtask and cell, for one prompt."""
    return _frame(
        source,
        """
        SELECT model, subtask, cell, n_answers, n_foods, country_accuracy, food_accuracy, country_entropy,
               food_entropy, samples_per_image, country_entropy_across_images, food_entropy_across_images
        FROM marts.culturemix_cells WHERE analysis = ? AND prompt = ?
        """,
        [analysis, prompt],
    )


def transitions(source: Source, prompt: str) -> pd.DataFrame:
    """Fig. 17: right/wrong in SF → right/wrong with the distractor, per model, subtask and measure."""
    return _frame(
        source,
        """
        SELECT model, subtask, measure, sf_correct, mixed_correct, n_answers, share, cell
        FROM marts.culturemix_transitions WHERE prompt = ?
        """,
        [prompt],
    )


def pairs(source: Source, analysis: str, prompt: str) -> pd.DataFrame:
    """Tables 10 and 11: each flipped or resized variant against the image as published."""
    return _frame(
        source,
        """
        SELECT model, subtask, variant, n_pairs, country_consistency, food_consistency, original_country_accuracy,
               variant_country_accuracy, original_food_accuracy, variant_food_accuracy
        FROM marts.culturemix_pairs WHERE analysis = ? AND prompt = ?
        """,
        [analysis, prompt],
    )


def combinations(source: Source) -> pd.DataFrame:
    """Fig. 9: MF images per target country x distractor country."""
    return _frame(source, "SELECT * FROM marts.culturemix_combinations")


def mitigation(source: Source, split: str = "test") -> pd.DataFrame:
    """Table 2: each prompt method and the fine-tuned model against the base prompt, with the paired t-test, on the
    7:3 split's test images (`test`, as published, §6.1) or on every image (`all`, ours)."""
    return _frame(
        source, "SELECT * EXCLUDE (split) FROM marts.culturemix_mitigation WHERE split = $split", {"split": split}
    )


def cell_answers(source: Source, analysis: str, model: str, prompt: str, subtask: str, cell: str) -> pd.DataFrame:
    """The answers behind one cell, with their image file and how each was scored."""
    return _frame(
        source,
        """
        SELECT a.image, a.subtask, a.target_food_name, a.target_country, a.distractor_food_name,
               a.distractor_country, a.background_label, a.predicted_food, a.predicted_country,
               a.country_source, a.food_similarity, a.food_correct, a.country_correct, a.shift, a.response,
               im.local_path
        FROM marts.culturemix_cell_answers c
        JOIN marts.culturemix_answers a USING (generation_id)
        LEFT JOIN marts.culturemix_images im ON im.image = a.image
        WHERE c.analysis = ? AND c.model = ? AND c.prompt = ? AND c.subtask = ? AND c.cell = ?
        ORDER BY a.image
        """,
        [analysis, model, prompt, subtask, cell],
    )


def combination_images(source: Source, target_country: str, distractor_country: str) -> pd.DataFrame:
    """The MF images behind one cell of Fig. 9."""
    return _frame(
        source,
        """
        SELECT image, target_food_name, target_country, distractor_food_name, distractor_country, local_path
        FROM marts.culturemix_images
        WHERE subtask = 'MF' AND distractor_kind = 'cultural' AND target_country = ? AND distractor_country = ?
        ORDER BY image
        """,
        [target_country, distractor_country],
    )
