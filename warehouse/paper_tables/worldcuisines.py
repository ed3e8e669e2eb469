"""WorldCuisines' published accuracies in long form: task 2 ("2. Regional Cuisine", where is this dish from),
open-ended and multiple choice, per model and prompt language, from marts.accuracy (the benchmark's own rule as
`method` paper, ours as atlas).

WorldCuisines publishes these numbers as files of its own (scores/MODEL_accuracy_oe.json and _mc.json at the pinned
commit), not as a printed table: the ids name the task and answer form (`task2_oe`, `task2_mc`) and the caller
reads `published` from those files (pipeline/score/paper_scores.py) where the data folder holds them. Not written:
the "1a/1b/1c. Dish Name" columns, which score the large task-1 set whose predictions are not public.
"""

from __future__ import annotations

from warehouse.paper_tables.declare import paper_table

PAPER = "worldcuisines"
TASK_OF_TABLE = {"task2_oe": "origin_vqa", "task2_mc": "origin_mc"}

_ACCURACY = """
    SELECT model AS row, lang AS "column", accuracy::DOUBLE AS value, n::BIGINT AS n, method,
           'percent' AS note
    FROM marts.accuracy WHERE dataset = 'worldcuisines' AND task = '{task}'
    ORDER BY row, "column", method DESC
"""
paper_table(
    PAPER,
    "task2_oe",
    "Regional cuisine (task 2), open-ended: accuracy per model and prompt language",
    "scores/MODEL_accuracy_oe.json, 2. Regional Cuisine",
    _ACCURACY.format(task=TASK_OF_TABLE["task2_oe"]),
)
paper_table(
    PAPER,
    "task2_mc",
    "Regional cuisine (task 2), multiple choice: accuracy per model and prompt language",
    "scores/MODEL_accuracy_mc.json, 2. Regional Cuisine",
    _ACCURACY.format(task=TASK_OF_TABLE["task2_mc"]),
)
