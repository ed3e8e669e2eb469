"""marts.uacuisine_classes: UACUISINE's taste (salty / sweet) and serving-temperature (hot / cold)
questions as classification, per model and prompt language: precision, recall and support of each
class, the way the study reports them. The answers and gold are read as classes by the same pure
function the score stage's metrics use (pipeline/score/uacuisine.py)."""

from __future__ import annotations

import duckdb
import polars as pl

QUESTIONS = {"uacuisine.taste": "taste", "uacuisine.temperature": "temperature"}


def build(con: duckdb.DuckDBPyConnection) -> None:
    from pipeline.score.uacuisine import classification_report, classify

    rows = con.sql(
        """SELECT i.task_id, g.model_id AS model, g.lang, g.response, t.text AS gold
           FROM core.generations g JOIN core.items i USING (item_id)
           JOIN core.item_gold_text t ON t.item_id = g.item_id AND t.lang = g.lang
           WHERE i.task_id IN ('uacuisine.taste', 'uacuisine.temperature')"""
    ).pl()
    out = []
    for (task_id, model, lang), group in rows.group_by(["task_id", "model", "lang"], maintain_order=True):
        question = QUESTIONS[task_id]
        pairs = [
            (classify(r, question), classify(g, question))
            for r, g in zip(group["response"], group["gold"], strict=True)
        ]
        for label, values in classification_report(pairs).items():
            out.append({"dataset": "uacuisine", "task": task_id.split(".", 1)[1], "model": model, "lang": lang,
                        "class": label, **values})  # fmt: skip
    frame = pl.DataFrame(out, schema=SCHEMA)
    con.register("_classes", frame)
    con.execute("CREATE OR REPLACE TABLE marts.uacuisine_classes AS SELECT * FROM _classes ORDER BY ALL")
    con.unregister("_classes")


SCHEMA = {
    "dataset": pl.String,
    "task": pl.String,
    "model": pl.String,
    "lang": pl.String,
    "class": pl.String,
    "precision": pl.Float64,
    "recall": pl.Float64,
    "support": pl.Float64,
}
