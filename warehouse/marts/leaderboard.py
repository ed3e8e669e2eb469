"""marts.leaderboard: mean Jaccard and accuracy per model and prompt language (and over all
languages, lang = '*'), each with a percentile-bootstrap 95% interval over answers; and the
nation-level match (`uk_nation_match`) over the answers whose gold names a UK nation.

Bootstrap in numpy rather than SQL: 1,000 resamples of each group's scores, fixed seed so a
republish gives the same intervals. Scores take few distinct values (accuracy is 0/1, Jaccard
0, 1/3, 1/2, 1, ...), so resampling n answers with replacement is drawn exactly as a multinomial
over the distinct values: the cost does not grow with n, and 5 million answers publish fast."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl

RESAMPLES = 1000
SEED = 20241


def bootstrap_interval(values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    """Percentile 95% interval of the mean over RESAMPLES bootstrap resamples."""
    if len(values) == 0:
        return (float("nan"), float("nan"))
    distinct, counts = np.unique(values, return_counts=True)
    draws = rng.multinomial(len(values), counts / len(values), size=RESAMPLES)  # RESAMPLES x distinct
    means = draws @ distinct / len(values)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def build(con: duckdb.DuckDBPyConnection) -> None:
    scores = con.sql(
        "SELECT dataset, task, model, lang, jaccard, accuracy, no_country, uk_nation_match FROM marts.origin_scores"
    ).pl()
    rows = []
    rng = np.random.default_rng(SEED)
    if scores.height:
        everything = scores.with_columns(pl.lit("*").alias("lang"))
        for keys, group in pl.concat([scores, everything]).group_by(
            ["dataset", "task", "model", "lang"], maintain_order=True
        ):
            jaccard = group["jaccard"].fill_null(0.0).to_numpy()
            accuracy = group["accuracy"].fill_null(0.0).to_numpy()
            j_low, j_high = bootstrap_interval(jaccard, rng)
            a_low, a_high = bootstrap_interval(accuracy, rng)
            # only the answers whose gold names a UK nation have a nation-level score
            nation = group["uk_nation_match"].drop_nulls().to_numpy()
            n_low, n_high = bootstrap_interval(nation, rng)
            rows.append(
                {
                    "dataset": keys[0],
                    "task": keys[1],
                    "model": keys[2],
                    "lang": keys[3],
                    "n": len(group),
                    "jaccard": float(jaccard.mean()),
                    "jaccard_low": j_low,
                    "jaccard_high": j_high,
                    "accuracy": float(accuracy.mean()),
                    "accuracy_low": a_low,
                    "accuracy_high": a_high,
                    "no_country_share": float(group["no_country"].mean()),  # see marts.origin_scores.no_country
                    "n_uk_nation": len(nation),
                    "uk_nation_match": float(nation.mean()) if len(nation) else None,
                    "uk_nation_match_low": n_low if len(nation) else None,
                    "uk_nation_match_high": n_high if len(nation) else None,
                }
            )
    frame = pl.DataFrame(rows, schema=SCHEMA)
    con.register("_leaderboard", frame)
    con.execute(
        "CREATE OR REPLACE TABLE marts.leaderboard AS SELECT * FROM _leaderboard "
        "ORDER BY dataset, task, lang, jaccard DESC"
    )
    con.unregister("_leaderboard")


SCHEMA = {
    "dataset": pl.String,
    "task": pl.String,
    "model": pl.String,
    "lang": pl.String,
    "n": pl.Int64,
    "jaccard": pl.Float64,
    "jaccard_low": pl.Float64,
    "jaccard_high": pl.Float64,
    "accuracy": pl.Float64,
    "accuracy_low": pl.Float64,
    "accuracy_high": pl.Float64,
    "no_country_share": pl.Float64,
    "n_uk_nation": pl.Int64,
    "uk_nation_match": pl.Float64,
    "uk_nation_match_low": pl.Float64,
    "uk_nation_match_high": pl.Float64,
}
