"""Queries of the Culture mix page over marts.culturemix_* (answers, entropy, images, sources)."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _connection

SHIFT_ORDER = ("kept", "to_distractor_country", "to_distractor_continent", "elsewhere")


def _frame(source: Source, sql: str, params: list | None = None) -> pd.DataFrame:
    with _connection(source) as con:
        return con.sql(sql, params=params or []).df()


def sources(source: Source) -> pd.DataFrame:
    """Per model: backend, answers, images, prompts, and whether it is a small test model."""
    return _frame(source, "SELECT * FROM marts.culturemix_sources ORDER BY model")


def prompts(source: Source) -> list[str]:
    frame = _frame(source, "SELECT DISTINCT prompt FROM marts.culturemix_answers ORDER BY prompt")
    order = {"base": 0, "direct": 1, "cot": 2}
    return sorted(frame["prompt"].tolist(), key=lambda p: (order.get(p, 9), p))


def _shares_by(source: Source, prompt: str, by: str, where: str = "TRUE") -> pd.DataFrame:
    """The one home of the label-shift shares (CultureMix §4): per model and `by` (a column of
    marts.culturemix_answers, named by this module only), each shift's answers `n` and its `share` of the answers
    that have an SF answer to compare with (`shift IS NOT NULL`; the score stage classifies each answer once,
    pipeline/score/culturemix.py `classify_shift`)."""
    return _frame(
        source,
        f"""
        SELECT model, {by}, shift, count(*) AS n,
               count(*) / sum(count(*)) OVER (PARTITION BY model, {by}) AS share
        FROM marts.culturemix_answers WHERE prompt = ? AND shift IS NOT NULL AND {where}
        GROUP BY model, {by}, shift ORDER BY model, {by}, shift
        """,
        [prompt],
    )


def shift_shares(source: Source, prompt: str) -> pd.DataFrame:
    """(a) Share of each shift per model and subtask (answers with an SF answer to compare with)."""
    return _shares_by(source, prompt, "subtask")


def retention(source: Source, prompt: str) -> pd.DataFrame:
    """(b) Per model and subtask: the share kept and the share that moved toward a distractor (a distractor's
    country or its continent), from the same shares as (a)."""
    shares = shift_shares(source, prompt)
    toward = shares["shift"].isin(["to_distractor_country", "to_distractor_continent"])
    counts = shares.assign(kept=shares["n"].where(shares["shift"] == "kept", 0), toward=shares["n"].where(toward, 0))
    grouped = counts.groupby(["model", "subtask"], as_index=False)[["n", "kept", "toward"]].sum()
    return pd.DataFrame(
        {
            "model": grouped["model"],
            "subtask": grouped["subtask"],
            "n": grouped["n"],
            "retention": grouped["kept"] / grouped["n"],
            "toward_distractor": grouped["toward"] / grouped["n"],
        }
    )


def by_distance(source: Source, prompt: str) -> pd.DataFrame:
    """(c) Food and country accuracy per cultural distance, and the mean label entropy of the
    target foods' answers at that distance: over each image's repeated samples as published (§4.2),
    and ours across the images beside it."""
    return _frame(
        source,
        """
        WITH accuracy AS (
            SELECT model, distance, count(*) AS n, avg(food_correct::INT) AS food_accuracy,
                   avg(country_correct::INT) AS country_accuracy
            FROM marts.culturemix_answers WHERE prompt = ? AND distance IS NOT NULL GROUP BY model, distance
        ), spread AS (
            SELECT model, group_value AS distance, avg(entropy) AS mean_entropy,
                   avg(entropy_across_images) AS mean_entropy_across_images
            FROM marts.culturemix_entropy WHERE prompt = ? AND grouping = 'distance' GROUP BY model, group_value
        )
        SELECT a.*, s.mean_entropy, s.mean_entropy_across_images
        FROM accuracy a LEFT JOIN spread s USING (model, distance)
        ORDER BY model, list_position(['same_country', 'same_continent', 'other_continent'], distance)
        """,
        [prompt, prompt],
    )


def by_kind(source: Source, prompt: str) -> pd.DataFrame:
    """(d) Shift shares and accuracy with cultural vs culture-agnostic distractors."""
    return _shares_by(source, prompt, "distractor_kind", "distractor_kind IN ('cultural', 'agnostic')")


def food_points(source: Source, prompt: str) -> pd.DataFrame:
    """(e) Fig. 7 (§4.4): per model and target food, the entropy of its SF answers (over the repeated
    samples of its SF image, as published; 0 with one sample) and the share of its other answers that
    shifted."""
    return _frame(
        source,
        """
        SELECT a.model, a.target_food_id, a.target_food_name, s.entropy AS sf_entropy,
               a.shifted_share, a.n_answers, s.samples_per_image AS sf_samples_per_image
        FROM marts.culturemix_entropy a
        JOIN marts.culturemix_entropy s ON s.model = a.model AND s.prompt = a.prompt
             AND s.target_food_id = a.target_food_id AND s.grouping = 'SF'
        WHERE a.prompt = ? AND a.grouping = 'all' AND a.shifted_share IS NOT NULL
        ORDER BY a.model, a.target_food_id
        """,
        [prompt],
    )


def foods(source: Source) -> pd.DataFrame:
    """Target foods with how many images show them (the drilldown's choices)."""
    return _frame(
        source,
        """
        SELECT target_food_id, any_value(target_food_name) AS target_food_name,
               any_value(target_country) AS target_country, count(*) AS n_images
        FROM marts.culturemix_images GROUP BY target_food_id
        ORDER BY max((subtask = 'SF')::INT) DESC, count(*) DESC, target_food_id
        """,
    )


def food_images(source: Source, food_id: str) -> pd.DataFrame:
    return _frame(
        source,
        """
        SELECT image, origin, subtask, distractor_kind, distractor_food_name, distractor_country,
               background_label, background_country, distance, local_path
        FROM marts.culturemix_images WHERE target_food_id = ?
        ORDER BY list_position(['SF', 'MF', 'SFB', 'MFB', 'REAL'], subtask), origin DESC, image
        """,
        [food_id],
    )


def food_answers(source: Source, food_id: str, prompt: str) -> pd.DataFrame:
    return _frame(
        source,
        """
        SELECT image, model, predicted_food, predicted_country, food_correct, country_correct, shift, response
        FROM marts.culturemix_answers WHERE target_food_id = ? AND prompt = ?
        ORDER BY image, model
        """,
        [food_id, prompt],
    )
