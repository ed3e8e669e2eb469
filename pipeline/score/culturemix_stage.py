"""CultureMix scored as published, once, in the score stage: core.culturemix_scores.

Each answer gets its predicted country (the `Country:` line when its prompt asks for one, the first
mention otherwise or as a stored fallback: §3.1), its food match (the one rule,
`culturemix_metrics.FOOD_RULE`), the same model's SF answer for the same food and prompt, and the
label shift against it (§4). The marts only aggregate these rows (warehouse/ never imports the
pipeline). Runs after the countries extraction (`score`) and the food parse (culturemix_parse).

Rows are redone when the scorer's version changes (`SCORER`), and whenever an answer, its
extraction or its food parse is newer than its score: a shift depends on another answer (the SF
one), so every CultureMix answer is rescored together — a few thousand rows per model, one
transaction, so a failed run leaves the table as it was.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime

import duckdb
import polars as pl

from pipeline.reference.cultural_distance import continent_of
from pipeline.score.culturemix import FOOD_THRESHOLD, asks_country_line, classify_shift, country_of_answer
from warehouse.io import insert, transaction

SCORER = "culturemix_score@1"

ANSWERS_SQL = """
SELECT g.generation_id, g.model_id AS model, g.variant AS prompt, i.task_id, c.subtask, c.target_food_id,
       c.image, coalesce(c.target_scale, 1.0) AS target_scale, g.response, c.target_country, c.distractor_country,
       c.background_country,
       coalesce(e.countries, []) AS first_mentions,
       coalesce(p.food_name, p.food_text) AS predicted_food, coalesce(p.target_similarity, 0) AS food_similarity
FROM core.generations g
JOIN core.items i USING (item_id)
JOIN core.culturemix_images c ON c.image = i.source_ref
LEFT JOIN core.extractions e USING (generation_id)
LEFT JOIN core.culturemix_food_parses p USING (generation_id)
WHERE i.task_id LIKE 'culturemix.%'
ORDER BY g.model_id, c.target_food_id, g.variant, c.image, g.sample
"""

STALE_SQL = """
SELECT count(*) FROM core.generations g JOIN core.items i USING (item_id)
JOIN core.culturemix_images c ON c.image = i.source_ref
LEFT JOIN core.culturemix_scores s USING (generation_id)
LEFT JOIN core.extractions e USING (generation_id)
LEFT JOIN core.culturemix_food_parses p USING (generation_id)
WHERE i.task_id LIKE 'culturemix.%'
  AND (s.generation_id IS NULL OR s.scorer <> ? OR s.scored_at < g.created_at
       OR s.scored_at < e.extracted_at OR s.scored_at < p.parsed_at)
"""


@functools.cache
def _prompt_asks_line(task_id: str, variant: str) -> bool:
    """Whether the task's English template for this prompt variant asks for a `Country:` line."""
    from pipeline.tasks import TASKS

    task = TASKS[task_id] if task_id in TASKS else None  # noqa: SIM401 (Registry.get raises on an unknown name)
    template = task.prompts.get("en", {}).get(variant) if task else None
    return asks_country_line(template)


def _read_countries(text: str) -> tuple[str, ...]:
    from pipeline.extract.countries import extract_countries

    return extract_countries(text, "en").countries


def score_frame(frame: pl.DataFrame, asks_line=_prompt_asks_line, read_countries=_read_countries) -> pl.DataFrame:
    """Score the rows of `ANSWERS_SQL` (a pure function of them; the tests call it on hand-built rows)."""
    countries, sources = [], []
    for task_id, prompt, response, mentions in frame.select(
        "task_id", "prompt", "response", "first_mentions"
    ).iter_rows():
        country, source = country_of_answer(response, mentions or [], asks_line(task_id, prompt), read_countries)
        countries.append(country)
        sources.append(source)
    frame = frame.with_columns(
        pl.Series("predicted_country", countries, dtype=pl.String),
        pl.Series("country_source", sources, dtype=pl.String),
    )
    # The same model's SF answer for the same food and prompt: the first SF image as published (a resized
    # variant only when there is none), when several; its first repeated sample (ANSWERS_SQL's order).
    sf = (
        frame.filter(pl.col("subtask") == "SF")
        .sort(pl.col("target_scale") != 1, "image", maintain_order=True)
        .group_by("model", "target_food_id", "prompt", maintain_order=True)
        .agg(
            pl.col("generation_id").first().alias("sf_generation_id"),
            pl.col("predicted_country").first().alias("sf_country"),
        )
    )
    frame = frame.join(sf, on=["model", "target_food_id", "prompt"], how="left")
    shifts = []
    for subtask, sf_id, sf_country, country, food_country, background_country in frame.select(
        "subtask", "sf_generation_id", "sf_country", "predicted_country", "distractor_country", "background_country"
    ).iter_rows():
        if subtask == "SF" or sf_id is None:
            shifts.append(None)
            continue
        distractors = [c for c in (food_country, background_country) if c]
        shifts.append(classify_shift(sf_country, country, distractors, continent_of))
    return frame.with_columns(
        pl.Series("shift", shifts, dtype=pl.String),
        pl.when(pl.col("subtask") == "SF").then(None).otherwise(pl.col("sf_generation_id")).alias("sf_generation_id"),
        (pl.col("predicted_country").is_not_null() & (pl.col("predicted_country") == pl.col("target_country")))
        .fill_null(False)
        .alias("country_correct"),
        (pl.col("food_similarity") >= FOOD_THRESHOLD).alias("food_correct"),
    ).select(list(_SCHEMA)[:-2])


def score_answers(con: duckdb.DuckDBPyConnection, rescore: bool = False) -> int:
    """(Re)score every CultureMix answer when any is new or stale (or with `rescore`); returns how many."""
    stale = con.execute(STALE_SQL, [SCORER]).fetchall()[0][0]
    orphans = con.execute(
        "SELECT count(*) FROM core.culturemix_scores s "
        "WHERE NOT EXISTS (SELECT 1 FROM core.generations g WHERE g.generation_id = s.generation_id)"
    ).fetchall()[0][0]
    if not (stale or orphans or rescore):
        return 0
    scored = score_frame(con.sql(ANSWERS_SQL).pl()).with_columns(
        pl.lit(SCORER).alias("scorer"), pl.lit(datetime.now(UTC).replace(tzinfo=None)).alias("scored_at")
    )
    with transaction(con):
        con.execute("DELETE FROM core.culturemix_scores")
        insert(con, "core.culturemix_scores", scored.cast(_SCHEMA).select(list(_SCHEMA)))
    return scored.height


_SCHEMA = {
    "generation_id": pl.String,
    "predicted_country": pl.String,
    "country_source": pl.String,
    "country_correct": pl.Boolean,
    "predicted_food": pl.String,
    "food_similarity": pl.Float64,
    "food_correct": pl.Boolean,
    "sf_generation_id": pl.String,
    "shift": pl.String,
    "scorer": pl.String,
    "scored_at": pl.Datetime("us"),
}
