"""UACUISINE's taste (salty / sweet) and serving-temperature (hot / cold) questions read as classes (ZNO-Vision
§4, UACUISINE), once per answer by the score stage: `core.answer_classes` holds each answer's class and its gold's,
so `marts.uacuisine_classes` computes precision, recall and support in SQL."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.score.uacuisine import classify
from warehouse.io import insert, transaction

READER = "classes@1"  # stored with each row: a new version reads every answer again
QUESTIONS = {"uacuisine.taste": "taste", "uacuisine.temperature": "temperature"}
SCHEMA = {"generation_id": pl.String, "question": pl.String, "predicted": pl.String, "gold": pl.String,
          "reader": pl.String}  # fmt: skip


def classify_answers(con: duckdb.DuckDBPyConnection, rescore: bool = False) -> int:
    """Read every taste and temperature answer not yet read by this reader (all of them with `rescore`)."""
    stale = (
        ""
        if rescore
        else """AND NOT EXISTS (SELECT 1 FROM core.answer_classes c
                                WHERE c.generation_id = g.generation_id AND c.reader = $reader)"""
    )
    rows = con.execute(
        f"""SELECT g.generation_id, i.task_id, g.response, t.text
            FROM core.generations g JOIN core.items i USING (item_id)
            JOIN core.item_gold_text t ON t.item_id = g.item_id AND t.lang = g.lang
            WHERE i.task_id IN (SELECT unnest($tasks)) {stale}""",
        {"tasks": list(QUESTIONS), **({} if rescore else {"reader": READER})},
    ).fetchall()
    classes = [
        {
            "generation_id": generation_id,
            "question": QUESTIONS[task_id],
            "predicted": classify(response, QUESTIONS[task_id]),
            "gold": classify(gold, QUESTIONS[task_id]),
            "reader": READER,
        }
        for generation_id, task_id, response, gold in rows
    ]
    if classes:
        with transaction(con):
            con.execute(
                "DELETE FROM core.answer_classes WHERE generation_id IN (SELECT unnest(?))",
                [[c["generation_id"] for c in classes]],
            )
            insert(con, "core.answer_classes", pl.DataFrame(classes, schema=SCHEMA))
    return len(classes)
