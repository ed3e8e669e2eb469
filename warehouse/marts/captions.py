"""marts.caption_answers and marts.caption_scores: the caption task's answers (Multi30K-UK and any
caption set in its layout) with their sentence-level scores, and per model x split x prompt language
the paper's Table 2 (mean ± standard deviation of sentence BLEU and BERTScore F1, §5) beside the
corpus-level SacreBLEU, computed from the BLEU statistics the score stage stored for each answer
exactly as sacrebleu's corpus_bleu would (exp smoothing). The standard deviation is numpy's (ddof=0),
as `np.std` reports it. Python rather than SQL for that last step: sacrebleu's own formula."""

from __future__ import annotations

import duckdb
import polars as pl

STATS = ("bleu_sys_len", "bleu_ref_len", *(f"bleu_correct_{n}" for n in range(1, 5)),
         *(f"bleu_total_{n}" for n in range(1, 5)))  # fmt: skip
SCHEMA = {
    "model": pl.String,
    "split": pl.String,
    "lang": pl.String,
    "n": pl.Int64,
    "bleu_mean": pl.Float64,
    "bleu_std": pl.Float64,
    "bertscore_mean": pl.Float64,
    "bertscore_std": pl.Float64,
    "corpus_bleu": pl.Float64,
    "task_id": pl.String,
}


def corpus_bleu(group: pl.DataFrame) -> float:
    from sacrebleu.metrics import BLEU

    summed = {name: int(group[name].sum()) for name in STATS}
    return float(
        BLEU.compute_bleu(
            [summed[f"bleu_correct_{n}"] for n in range(1, 5)],
            [summed[f"bleu_total_{n}"] for n in range(1, 5)],
            summed["bleu_sys_len"],
            summed["bleu_ref_len"],
            smooth_method="exp",
        ).score
    )


def build(con: duckdb.DuckDBPyConnection) -> None:
    pivots = ", ".join(
        f"max(s.value) FILTER (s.metric = '{m}') AS {m}" for m in ("caption_bleu", "caption_bertscore", *STATS)
    )
    con.execute(
        f"""
        CREATE OR REPLACE TABLE marts.caption_answers AS
        SELECT g.model_id AS model, i.subset AS split, g.lang, i.source_ref AS item_id, t.text AS reference,
               g.response, {pivots}, i.task_id, g.generation_id
        FROM core.generations g JOIN core.items i USING (item_id)
        JOIN core.tasks k ON k.task_id = i.task_id
        JOIN core.item_gold_text t ON t.item_id = g.item_id AND t.lang = g.lang
        JOIN core.scores s ON s.generation_id = g.generation_id
        WHERE list_contains(k.metrics, 'caption_bleu')
        GROUP BY ALL
        ORDER BY model, split, g.lang, item_id
        """
    )
    answers = con.sql("SELECT * FROM marts.caption_answers WHERE caption_bleu IS NOT NULL").pl()
    rows = []
    for (model, split, lang, task_id), group in answers.group_by(
        ["model", "split", "lang", "task_id"], maintain_order=True
    ):
        bert = group["caption_bertscore"].drop_nulls().drop_nans()
        rows.append(
            {
                "model": model,
                "split": split,
                "lang": lang,
                "n": group.height,
                "bleu_mean": group["caption_bleu"].mean(),
                "bleu_std": group["caption_bleu"].std(ddof=0),
                "bertscore_mean": bert.mean() if bert.len() else None,
                "bertscore_std": bert.std(ddof=0) if bert.len() else None,
                "corpus_bleu": corpus_bleu(group),
                "task_id": task_id,
            }
        )
    frame = pl.DataFrame(rows, schema=SCHEMA)
    con.register("_caption_scores", frame)
    con.execute(
        "CREATE OR REPLACE TABLE marts.caption_scores AS "
        "SELECT * FROM _caption_scores ORDER BY split, lang, bleu_mean DESC, model"
    )
    con.unregister("_caption_scores")
