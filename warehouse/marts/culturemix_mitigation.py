"""CultureMix's mitigation comparison (Table 2, §6.2): each prompt method against the base prompt,
per model and subtask, with a paired t-test (scipy's `ttest_rel`), as the paper tests its methods.

- accuracy (country, food): pairs are the images a model answered with both prompts (1 right, 0 wrong),
  repeated samples paired by their number;
- entropy (country, food): pairs are the target foods, each with its label entropy under both prompts
  (marts.culturemix_entropy, grouping `subtask`).

The paper does not say what it pairs; these are the units both prompts share. p is empty when the
test is undefined (fewer than two pairs, or every pair differs by the same amount, e.g. none), and
the page says so. Aggregates what the score stage wrote; never imports the pipeline.
"""

from __future__ import annotations

import math

import duckdb
import polars as pl

BASELINE = "base"
MEASURES = ("country_accuracy", "food_accuracy", "country_entropy", "food_entropy")

PAIRS_SQL = """
SELECT m.model, m.subtask, m.prompt AS method, 'country_accuracy' AS measure,
       b.country_correct::INT::DOUBLE AS base_value, m.country_correct::INT::DOUBLE AS method_value
FROM marts.culturemix_answers m
JOIN marts.culturemix_answers b ON b.model = m.model AND b.image = m.image AND b.sample = m.sample
     AND b.prompt = $base
WHERE m.prompt <> $base
UNION ALL
SELECT m.model, m.subtask, m.prompt, 'food_accuracy', b.food_correct::INT::DOUBLE, m.food_correct::INT::DOUBLE
FROM marts.culturemix_answers m
JOIN marts.culturemix_answers b ON b.model = m.model AND b.image = m.image AND b.sample = m.sample
     AND b.prompt = $base
WHERE m.prompt <> $base
UNION ALL
SELECT m.model, m.group_value, m.prompt, 'country_entropy', b.entropy, m.entropy
FROM marts.culturemix_entropy m
JOIN marts.culturemix_entropy b ON b.model = m.model AND b.target_food_id = m.target_food_id
     AND b.grouping = m.grouping AND b.group_value = m.group_value AND b.prompt = $base
WHERE m.grouping = 'subtask' AND m.prompt <> $base
UNION ALL
SELECT m.model, m.group_value, m.prompt, 'food_entropy', b.food_entropy, m.food_entropy
FROM marts.culturemix_entropy m
JOIN marts.culturemix_entropy b ON b.model = m.model AND b.target_food_id = m.target_food_id
     AND b.grouping = m.grouping AND b.group_value = m.group_value AND b.prompt = $base
WHERE m.grouping = 'subtask' AND m.prompt <> $base
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
}


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


def comparisons(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per model, subtask, prompt method and measure (Table 2's cells)."""
    pairs = con.sql(PAIRS_SQL, params={"base": BASELINE}).pl()
    rows = []
    keys = ("model", "subtask", "method", "measure")
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
        ORDER BY model, list_position(['SF', 'MF', 'SFB', 'MFB', 'REAL'], subtask), method,
                 list_position(['country_accuracy', 'food_accuracy', 'country_entropy', 'food_entropy'], measure)
        """
    )
    con.unregister("_culturemix_mitigation")
