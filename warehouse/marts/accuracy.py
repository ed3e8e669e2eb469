"""marts.accuracy: accuracy per (method, dataset, model, task, prompt language), in percent,
rounded as the papers round; marts.choice_scores: every multiple-choice answer as read by our
choice extractor and by the paper's rule.

Two methods, side by side (`export accuracy --method paper|atlas`):
- `paper`: the benchmark's own rule, reproduced (WorldCuisines: gold string in the lower-cased
  answer for open answers, their number parsing for multiple choice);
- `atlas`: ours (the country extractor's first country for open answers, the choice extractor's
  option for multiple choice).

BORSch's own reading of an answer (§4.1: every country the answer names, found by NER and a country/alias
list) is its `paper` method. The paper scores country QA/VQA by the Jaccard score only (§4.2: "we calculate
the Jaccard score per dish"; `jaccard`, added at the end, is that mean under each method's set); it states
no accuracy rule for them. The accuracy here, right when the answer names exactly the gold set, is ours on
the paper's reading of the answer. §4.2's exact-match accuracy (with a tolerance of one edit) is the dish
name VQA's (`name_contains_lev1`, Fig. 5 and Table 2), not the country questions'.

Python rather than SQL for the last step: the published tables are Python's `round(k / n * 100, 2)`,
and DuckDB's round() rounds halves differently, so the two could disagree in the last digit.
"""

from __future__ import annotations

import duckdb
import polars as pl

# Which registered metric is each method's accuracy (a task declares the metrics it is scored with).
METHOD_METRICS = {
    "paper": ("paper_substring", "paper_choice_accuracy", "name_contains_lev1"),  # the last: BORSch dish names
    "atlas": ("accuracy", "choice_accuracy"),
}


def paper_round(correct: int, n: int) -> float:
    """Accuracy in percent the way WorldCuisines' score.py writes it."""
    return round(correct / n * 100, 2)


def build(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(CHOICE_SCORES_SQL)
    metric_method = [(m, method) for method, metrics in METHOD_METRICS.items() for m in metrics]
    counts = con.sql(
        """
        WITH methods AS (SELECT * FROM (VALUES {values}) AS v(metric, method))
        SELECT m.method, t.dataset, g.model_id AS model, split_part(t.task_id, '.', 2) AS task, g.lang,
               count(s.value)::BIGINT AS n, sum(s.value)::BIGINT AS correct, t.task_id
        FROM core.scores s JOIN methods m USING (metric)
        JOIN core.generations g USING (generation_id)
        JOIN core.items i USING (item_id)
        JOIN core.tasks t USING (task_id)
        WHERE s.value IS NOT NULL AND NOT isnan(s.value)
        GROUP BY ALL
        """.format(values=", ".join(f"('{m}', '{method}')" for m, method in metric_method))
    ).pl()
    choice = con.sql(
        """
        SELECT dataset, model, task, lang,
               avg((status = 'ok')::INTEGER) AS parse_rate,
               count(*) FILTER (paper_status IN ('option_text', 'unparsed'))::BIGINT AS paper_unreadable
        FROM marts.choice_scores GROUP BY ALL
        """
    ).pl()
    # BORSch on its own reading of the answer: the every-country-named set of marts.origin_scores (built before
    # this mart), right when it is exactly the gold set (ours: the paper states no accuracy rule for country QA).
    borsch_paper = con.sql(
        """
        SELECT 'paper' AS method, dataset, model, task, lang, count(*)::BIGINT AS n,
               sum(paper_exact)::BIGINT AS correct, task_id
        FROM marts.origin_scores WHERE dataset = 'borsch' AND paper_exact IS NOT NULL
        GROUP BY ALL
        """
    ).pl()
    jaccard = con.sql(
        """
        SELECT 'atlas' AS method, dataset, model, task, lang, avg(jaccard) AS jaccard
        FROM marts.origin_scores GROUP BY ALL
        UNION ALL
        SELECT 'paper', dataset, model, task, lang, avg(paper_jaccard)
        FROM marts.origin_scores WHERE dataset = 'borsch' AND paper_jaccard IS NOT NULL GROUP BY ALL
        """
    ).pl()
    counts = pl.concat([counts, borsch_paper.select(counts.columns).cast(counts.schema)])
    frame = counts.with_columns(
        pl.struct("correct", "n")
        .map_elements(lambda r: paper_round(r["correct"], r["n"]), return_dtype=pl.Float64)
        .alias("accuracy")
    )
    frame = frame.join(choice, on=["dataset", "model", "task", "lang"], how="left")
    frame = frame.join(jaccard, on=["method", "dataset", "model", "task", "lang"], how="left")
    frame = frame.select(
        "method",
        "dataset",
        "model",
        "task",
        "lang",
        "n",
        "accuracy",
        "correct",
        "parse_rate",
        "paper_unreadable",
        "task_id",
        "jaccard",
    )
    if frame.height == 0:
        frame = pl.DataFrame(schema=SCHEMA)
    con.register("_accuracy", frame)
    con.execute(
        "CREATE OR REPLACE TABLE marts.accuracy AS SELECT * FROM _accuracy ORDER BY method, dataset, model, task, lang"
    )
    con.unregister("_accuracy")


SCHEMA = {
    "method": pl.String,
    "dataset": pl.String,
    "model": pl.String,
    "task": pl.String,
    "lang": pl.String,
    "n": pl.Int64,
    "accuracy": pl.Float64,
    "correct": pl.Int64,
    "parse_rate": pl.Float64,
    "paper_unreadable": pl.Int64,
    "task_id": pl.String,
    "jaccard": pl.Float64,
}

# First nine columns: the `export choice-scores` contract.
CHOICE_SCORES_SQL = """
CREATE OR REPLACE TABLE marts.choice_scores AS
SELECT t.dataset, g.model_id AS model, split_part(t.task_id, '.', 2) AS task, g.lang, i.source_ref AS item_id,
       gc.choice AS gold_choice, c.choice AS parsed_choice, c.status,
       (c.choice IS NOT NULL AND c.choice = gc.choice) AS correct,
       c.paper_choice, c.paper_status, (c.paper_choice IS NOT NULL AND c.paper_choice = gc.choice) AS paper_correct,
       array_to_string(c.choices, ',') AS choices, g.response, t.task_id, g.generation_id, c.extractor
FROM core.choice_extractions c
JOIN core.generations g USING (generation_id)
JOIN core.items i USING (item_id)
JOIN core.tasks t USING (task_id)
LEFT JOIN core.item_gold_choices gc ON gc.item_id = g.item_id AND gc.lang = g.lang
ORDER BY t.dataset, model, task, g.lang, try_cast(i.source_ref AS BIGINT) NULLS LAST, i.source_ref
"""
