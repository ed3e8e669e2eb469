"""CultureMix's mitigation comparison (Table 2, §6.2): each prompt method and the fine-tuned model against the
base prompt of the base model, per model and subtask, with a paired t-test (scipy's `ttest_rel`), as the paper
tests its methods.

- split `test` (as published, §6.1: "we use the complete test set ... to assess all three mitigation methods"):
  only the images of the 7:3 split's test side. When a culturemix_sft fine-tuning run is recorded, its own test
  items (core.finetune_examples), so every row of the table rests on the images the tuned model never saw;
  otherwise the same split drawn the same way (warehouse/splits.py: per country, a seeded shuffle of the SF
  foods, 70% to training; MF/SFB/MFB images follow their target food's SF image; foods without an SF image
  are left out). Split `all` (ours, kept beside it): every image both prompts answered.
- method `sft` (epoch N where a run saved several): the tuned model (core.finetune_models' folder, answering with
  the base prompt) against its base model with the base prompt, on the same images and samples; the row's
  `model` is the base model.
- accuracy (country, food): pairs are the images a model answered both ways (1 right, 0 wrong), repeated samples
  paired by their number;
- entropy (country, food): pairs are the target foods, each with its label entropy both ways
  (marts.culturemix_entropy, grouping `subtask`).

The paper does not say what it pairs; these are the units both sides share. p is empty when the test is
undefined (fewer than two pairs, or every pair differs by the same amount, e.g. none), and the page says so.
Aggregates what the score stage wrote; never imports the pipeline.
"""

from __future__ import annotations

import math

import duckdb
import polars as pl

from warehouse.splits import CULTUREMIX_SEED, CULTUREMIX_TRAIN_SHARE, split_groups

BASELINE = "base"
MEASURES = ("country_accuracy", "food_accuracy", "country_entropy", "food_entropy")

# Who is compared with whom: a prompt method with the same model's base prompt, and each tuned model (answering
# with the base prompt) with its base model's base prompt.
ARMS_SQL = """
CREATE OR REPLACE TEMP TABLE _arms AS
SELECT DISTINCT model AS base_model, model AS arm_model, prompt AS arm_prompt, prompt AS method
FROM marts.culturemix_answers WHERE prompt <> $base
UNION ALL
SELECT r.base_model, m.model_path, $base,
       CASE WHEN count(*) OVER (PARTITION BY r.finetune_id) > 1 THEN 'sft (epoch ' || m.epoch || ')' ELSE 'sft' END
FROM core.finetune_runs r JOIN core.finetune_models m USING (finetune_id)
WHERE r.recipe = 'culturemix_sft' AND r.status = 'done'
"""
PAIRS_SQL = """
SELECT a.base_model AS model, m.subtask, a.method, 'country_accuracy' AS measure,
       b.country_correct::INT::DOUBLE AS base_value, m.country_correct::INT::DOUBLE AS method_value,
       m.image AS unit, 'image' AS unit_kind
FROM _arms a
JOIN marts.culturemix_answers m ON m.model = a.arm_model AND m.prompt = a.arm_prompt
JOIN marts.culturemix_answers b ON b.model = a.base_model AND b.image = m.image AND b.sample = m.sample
     AND b.prompt = $base
UNION ALL
SELECT a.base_model, m.subtask, a.method, 'food_accuracy', b.food_correct::INT::DOUBLE, m.food_correct::INT::DOUBLE,
       m.image, 'image'
FROM _arms a
JOIN marts.culturemix_answers m ON m.model = a.arm_model AND m.prompt = a.arm_prompt
JOIN marts.culturemix_answers b ON b.model = a.base_model AND b.image = m.image AND b.sample = m.sample
     AND b.prompt = $base
UNION ALL
SELECT a.base_model, m.group_value, a.method, 'country_entropy', b.entropy, m.entropy, m.target_food_id, 'food'
FROM _arms a
JOIN marts.culturemix_entropy m ON m.model = a.arm_model AND m.prompt = a.arm_prompt
JOIN marts.culturemix_entropy b ON b.model = a.base_model AND b.target_food_id = m.target_food_id
     AND b.grouping = m.grouping AND b.group_value = m.group_value AND b.prompt = $base
WHERE m.grouping = 'subtask'
UNION ALL
SELECT a.base_model, m.group_value, a.method, 'food_entropy', b.food_entropy, m.food_entropy, m.target_food_id, 'food'
FROM _arms a
JOIN marts.culturemix_entropy m ON m.model = a.arm_model AND m.prompt = a.arm_prompt
JOIN marts.culturemix_entropy b ON b.model = a.base_model AND b.target_food_id = m.target_food_id
     AND b.grouping = m.grouping AND b.group_value = m.group_value AND b.prompt = $base
WHERE m.grouping = 'subtask'
"""
# The recorded culturemix_sft run's test images (the latest run), when there is one.
RUN_TEST_SQL = """
SELECT DISTINCT i.source_ref AS image
FROM core.finetune_examples e JOIN core.items i USING (item_id)
WHERE e.split = 'test' AND e.finetune_id = (
    SELECT finetune_id FROM core.finetune_runs WHERE recipe = 'culturemix_sft' ORDER BY started_at DESC LIMIT 1
)
"""

SCHEMA = {
    "model": pl.String,
    "subtask": pl.String,
    "method": pl.String,
    "measure": pl.String,
    "n_pairs": pl.Int64,
    "base_value": pl.Float64,
    "method_value": pl.Float64,
    "difference": pl.Float64,
    "t_statistic": pl.Float64,
    "p_value": pl.Float64,
    "split": pl.String,
}
SPLITS = ("test", "all")


def paired_test(base: list[float], method: list[float]) -> tuple[float | None, float | None]:
    """(t, p) of scipy's paired t-test of `method` against `base`; (None, None) when undefined."""
    from scipy import stats

    if len(base) < 2:
        return None, None
    result = stats.ttest_rel(method, base)
    t, p = float(result.statistic), float(result.pvalue)
    if math.isnan(t) or math.isnan(p):
        return None, None
    return t, p


def test_split(con: duckdb.DuckDBPyConnection) -> tuple[set[str], set[str]]:
    """The test side of CultureMix's 7:3 split (§6.1): its images, and the target foods they show."""
    recorded = {image for (image,) in con.execute(RUN_TEST_SQL).fetchall()}
    images = con.execute(
        "SELECT image, subtask, target_food_id, target_country FROM core.culturemix_images "
        "WHERE subtask IN ('SF', 'MF', 'SFB', 'MFB')"
    ).fetchall()
    if recorded:
        foods = {food for image, _, food, _ in images if image in recorded}
        return recorded, foods
    sf_foods = {food: country for _, subtask, food, country in images if subtask == "SF" and food is not None}
    train = split_groups(sf_foods, CULTUREMIX_TRAIN_SHARE, CULTUREMIX_SEED)
    foods = set(sf_foods) - train
    return {image for image, _, food, _ in images if food in foods}, foods


def comparisons(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per split, model, subtask, method and measure (Table 2's cells)."""
    con.execute(ARMS_SQL, {"base": BASELINE})
    every = con.sql(PAIRS_SQL, params={"base": BASELINE}).pl()
    images, foods = test_split(con)
    in_test = (
        pl.when(pl.col("unit_kind") == "image")
        .then(pl.col("unit").is_in(pl.Series(sorted(images), dtype=pl.String).implode()))
        .otherwise(pl.col("unit").is_in(pl.Series(sorted(foods), dtype=pl.String).implode()))
    )
    test = every.filter(in_test).with_columns(split=pl.lit("test"))
    return pl.concat([_cells(test), _cells(every.with_columns(split=pl.lit("all")))])


def _cells(pairs: pl.DataFrame) -> pl.DataFrame:
    """Each cell's paired t-test and means."""
    rows = []
    keys = ("split", "model", "subtask", "method", "measure")
    for key, part in pairs.sort(*keys).group_by(*keys, maintain_order=True):
        base, method = part["base_value"].to_list(), part["method_value"].to_list()
        t, p = paired_test(base, method)
        base_mean, method_mean = sum(base) / len(base), sum(method) / len(method)
        rows.append(
            dict(zip(keys, key, strict=True))
            | {
                "n_pairs": len(base),
                "base_value": base_mean,
                "method_value": method_mean,
                "difference": method_mean - base_mean,
                "t_statistic": t,
                "p_value": p,
            }
        )
    return pl.DataFrame(rows, schema=SCHEMA)


def build(con: duckdb.DuckDBPyConnection) -> None:
    con.register("_culturemix_mitigation", comparisons(con))
    con.execute(
        """
        CREATE OR REPLACE TABLE marts.culturemix_mitigation AS
        SELECT * FROM _culturemix_mitigation
        ORDER BY split = 'all', model, list_position(['SF', 'MF', 'SFB', 'MFB', 'REAL'], subtask), method,
                 list_position(['country_accuracy', 'food_accuracy', 'country_entropy', 'food_entropy'], measure)
        """
    )
    con.unregister("_culturemix_mitigation")
