"""CultureMix marts: one row per answer with its parse, correctness and label shift; entropies per
target food; where the answers come from. The measures are the pure functions of
pipeline/score/culturemix.py (pinned by tests), applied here once at publish.

- marts.culturemix_answers: the `export culturemix` contract (model, subtask, prompt,
  target_food_id, image, target_country, distractor_country, background_country, distance,
  predicted_food, predicted_country, food_correct, country_correct, shift) and more columns after;
- marts.culturemix_entropy: per model, prompt and target food, the entropy of the predicted
  countries (and foods) over all its variants, over its SF answers, and per cultural distance;
- marts.culturemix_images: every image with its labels and local file, for the drilldown;
- marts.culturemix_sources: per model, the backend and how many answers, and whether it is a
  small test model (random weights: a name with tiny / random / test).
"""

from __future__ import annotations

import duckdb
import polars as pl

ANSWERS_SQL = """
SELECT g.generation_id, g.model_id AS model, c.subtask, g.variant AS prompt, c.target_food_id, c.image,
       c.target_country, c.distractor_country, c.background_country, c.distance,
       coalesce(p.food_name, p.food_text) AS predicted_food,
       e.countries[1] AS predicted_country,
       coalesce(p.target_similarity, 0) AS food_similarity,
       e.countries[1] IS NOT NULL AND e.countries[1] = c.target_country AS country_correct,
       c.target_food_name, c.distractor_food_name, c.background_label, c.distractor_kind, c.scene,
       c.distance_food, c.distance_background, c.km_food, c.km_background, c.subset, c.origin,
       coalesce(m.backend, r.backend, g.origin) AS backend, g.origin AS answer_origin, g.response,
       e.status AS extraction_status, coalesce(e.countries, []) AS predicted_countries,
       -- the UK nations beside GB where the labels give one (GB-ENG...), and the nations the answer named
       c.target_nation, c.distractor_nation, coalesce(e.regions, []) AS predicted_regions
FROM core.generations g
JOIN core.items i USING (item_id)
JOIN core.culturemix_images c ON c.image = i.source_ref
LEFT JOIN core.extractions e USING (generation_id)
LEFT JOIN core.culturemix_food_parses p USING (generation_id)
LEFT JOIN core.models m ON m.model_id = g.model_id
LEFT JOIN core.generation_runs r ON r.run_id = g.run_id
WHERE i.task_id LIKE 'culturemix.%'
ORDER BY model, target_food_id, subtask, image, prompt
"""
CONTRACT = [
    "model",
    "subtask",
    "prompt",
    "target_food_id",
    "image",
    "target_country",
    "distractor_country",
    "background_country",
    "distance",
    "predicted_food",
    "predicted_country",
    "food_correct",
    "country_correct",
    "shift",
]


def answers(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    from pipeline.reference.cultural_distance import continent_of
    from pipeline.score.culturemix import FOOD_THRESHOLD, classify_shift

    frame = con.sql(ANSWERS_SQL).pl()
    # The same model's SF answer for the same food and prompt (the first SF image, when several).
    sf = (
        frame.filter(pl.col("subtask") == "SF")
        .sort("image")
        .group_by("model", "target_food_id", "prompt", maintain_order=True)
        .agg(pl.col("predicted_country").first().alias("sf_country"), pl.len().alias("n_sf"))
    )
    frame = frame.join(sf, on=["model", "target_food_id", "prompt"], how="left")
    shifts = []
    for row in frame.select(
        "subtask", "n_sf", "sf_country", "predicted_country", "distractor_country", "background_country"
    ).iter_rows():
        subtask, n_sf, sf_country, country, food_country, background_country = row
        if subtask == "SF" or not n_sf:
            shifts.append(None)
            continue
        distractors = [c for c in (food_country, background_country) if c]
        shifts.append(classify_shift(sf_country, country, distractors, continent_of))
    frame = frame.with_columns(
        pl.Series("shift", shifts, dtype=pl.String),
        (pl.col("food_similarity") >= FOOD_THRESHOLD).alias("food_correct"),
    ).drop("n_sf")
    return frame.select(CONTRACT + [c for c in frame.columns if c not in CONTRACT])


def entropies(frame: pl.DataFrame) -> pl.DataFrame:
    from pipeline.score.culturemix import label_entropy

    rows = []
    groups = [("all", None), ("SF", "subtask"), ("distance", "distance"), ("distractor_kind", "distractor_kind")]
    for (model, prompt, food_id, food_name), part in frame.group_by(
        "model", "prompt", "target_food_id", "target_food_name", maintain_order=True
    ):
        for kind, column in groups:
            if column is None:
                buckets = [("all", part)]
            else:
                buckets = [(str(key[0]), sub) for key, sub in part.group_by(column, maintain_order=True) if key[0]]
                if kind == "SF":
                    buckets = [(name, sub) for name, sub in buckets if name == "SF"]
            for name, sub in buckets:
                rows.append(
                    {
                        "model": model,
                        "prompt": prompt,
                        "target_food_id": food_id,
                        "target_food_name": food_name,
                        "grouping": kind,
                        "group_value": name,
                        "n_answers": sub.height,
                        "entropy": label_entropy(sub["predicted_country"].to_list()),
                        "food_entropy": label_entropy(sub["predicted_food"].to_list()),
                        "shifted_share": _shifted(sub),
                    }
                )
    return pl.DataFrame(rows, schema=ENTROPY_SCHEMA)


def _shifted(part: pl.DataFrame) -> float | None:
    known = part.filter(pl.col("shift").is_not_null())
    if known.height == 0:
        return None
    return known.filter(pl.col("shift") != "kept").height / known.height


ENTROPY_SCHEMA = {
    "model": pl.String,
    "prompt": pl.String,
    "target_food_id": pl.String,
    "target_food_name": pl.String,
    "grouping": pl.String,
    "group_value": pl.String,
    "n_answers": pl.Int64,
    "entropy": pl.Float64,
    "food_entropy": pl.Float64,
    "shifted_share": pl.Float64,
}


def build(con: duckdb.DuckDBPyConnection) -> None:
    frame = answers(con)
    con.register("_culturemix_answers", frame)
    con.execute("CREATE OR REPLACE TABLE marts.culturemix_answers AS SELECT * FROM _culturemix_answers")
    con.unregister("_culturemix_answers")
    con.register("_culturemix_entropy", entropies(frame))
    con.execute("CREATE OR REPLACE TABLE marts.culturemix_entropy AS SELECT * FROM _culturemix_entropy")
    con.unregister("_culturemix_entropy")
    con.execute(
        """
        CREATE OR REPLACE TABLE marts.culturemix_images AS
        SELECT c.*, im.local_path, im.width, im.height
        FROM core.culturemix_images c LEFT JOIN core.images im USING (image_id)
        ORDER BY c.target_food_id, list_position(['SF', 'MF', 'SFB', 'MFB', 'REAL'], c.subtask), c.image
        """
    )
    con.execute(
        """
        CREATE OR REPLACE TABLE marts.culturemix_sources AS
        SELECT model, any_value(backend) AS backend, count(*) AS n_answers,
               count(DISTINCT image) AS n_images, list(DISTINCT prompt ORDER BY prompt) AS prompts,
               regexp_matches(lower(model), '(^|[^a-z])(tiny|random|test)') AS is_test_model
        FROM marts.culturemix_answers GROUP BY model ORDER BY model
        """
    )
