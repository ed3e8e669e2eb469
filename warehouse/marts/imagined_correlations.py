"""marts.imagined_correlations: per describer model, language, generator and encoder, the mean
intra and inter cosine over dishes and the Spearman correlation between a dish's mean intra
cosine and the model's QA Jaccard on it, with a percentile-bootstrap 95% interval over dishes
(fixed seed, so a republish gives the same interval). Dishes without a QA score are left out of
the correlation and counted (n_dishes_with_qa); with fewer than 3, rho is NULL."""

from __future__ import annotations

import math

import duckdb
import polars as pl

from warehouse.stats import bootstrap_spearman, spearman

KEYS = ["model", "dataset", "lang", "generator", "encoder"]
SCHEMA = {
    **dict.fromkeys(KEYS, pl.String),
    "n_dishes": pl.Int64,
    "n_images": pl.Int64,
    "intra_mean": pl.Float64,
    "inter_mean": pl.Float64,
    "n_dishes_with_qa": pl.Int64,
    "spearman": pl.Float64,
    "spearman_low": pl.Float64,
    "spearman_high": pl.Float64,
}


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def build(con: duckdb.DuckDBPyConnection) -> None:
    per_dish = con.sql(
        """
        SELECT model, dataset, lang, generator, encoder, dish_key, count(*) AS n_images,
               avg(intra_cosine) AS intra, avg(inter_cosine) AS inter, any_value(qa_jaccard) AS qa
        FROM marts.imagined GROUP BY ALL ORDER BY ALL
        """
    ).pl()
    rows = []
    for keys, group in per_dish.group_by(KEYS, maintain_order=True):
        paired = group.filter(pl.col("intra").is_not_null() & pl.col("qa").is_not_null())
        x, y = paired["intra"].to_numpy(), paired["qa"].to_numpy()
        low, high = bootstrap_spearman(x, y)
        rows.append(
            {
                **dict(zip(KEYS, keys, strict=True)),
                "n_dishes": group.height,
                "n_images": int(group["n_images"].sum()),
                "intra_mean": group["intra"].mean(),
                "inter_mean": group["inter"].mean(),
                "n_dishes_with_qa": paired.height,
                "spearman": _finite(spearman(x, y)),
                "spearman_low": _finite(low),
                "spearman_high": _finite(high),
            }
        )
    con.register("_imagined_correlations", pl.DataFrame(rows, schema=SCHEMA))
    con.execute("CREATE OR REPLACE TABLE marts.imagined_correlations AS SELECT * FROM _imagined_correlations")
    con.unregister("_imagined_correlations")
