"""marts.imagined_table4: BORSch Table 4 (Appendix J.2) as published, for every describer model, language and
encoder: the Pearson r, Spearman rho and Kendall tau between a dish's mean DINOv2 cosine (generated image against
its real photos, `intra_cosine`) and the same model's origin scores on that dish (Jaccard, Dice and Overlap, the
paper's equations 1-3), over its QA answers (origin_qa) and its VQA answers (origin_vqa). Every correlation x
metric x QA/VQA cell is a row; a cell without data has no value and says why (`note`): no answers by the model
on the drawn dishes, fewer than 3 dishes, or a constant column. `p_value` is scipy's two-sided p-value of the same
test (the paper prints none; it is here so a reader can tell a weak correlation from noise).

Whose answers: the QA cells are the describer's own origin-QA answers; the VQA cells are its vision counterpart's
origin-VQA answers, as the paper pairs them (§4.1, Appendix J.2-J.3: Qwen2-72B-Instruct's descriptions with
Qwen2-VL-72B-Instruct's VQA answers, Llama-3.1-70B-Instruct's with Llama-3.2-90B-Vision-Instruct's). The pairing is a
setting: one declared for a describer (core.vqa_counterparts, `imagine --vqa-model`) replaces the paper's, and a
describer neither pairs answers its own VQA questions itself. `vqa_model` and `pairing` say which applied."""

from __future__ import annotations

from collections.abc import Callable

import duckdb
import polars as pl

KEYS = ["model", "dataset", "lang", "encoder"]
TASKS = {"QA": "origin_qa", "VQA": "origin_vqa"}
METRICS = ("jaccard", "dice", "overlap")
# §4.1: "Qwen2-72B-Instruct and Llama-3.1-70B-Instruct on text-only QA tasks, and their vision-enabled counterparts
# Qwen2-VL-72B-Instruct and Llama-3.2-90B-Vision-Instruct for VQA tasks". Matched on a model id's last path part,
# case-insensitively, so a hub id (Qwen/Qwen2-72B-Instruct) and a served name (qwen2-72b-instruct) both pair.
PAPER_COUNTERPARTS = {
    "qwen2-72b-instruct": "Qwen2-VL-72B-Instruct",
    "llama-3.1-70b-instruct": "Llama-3.2-90B-Vision-Instruct",
}
PAIRINGS = {
    "paper": "the paper's, §4.1",
    "declared": "declared with --vqa-model",
    "own": "none declared or published: the describer's own answers",
}


def _scipy_stat(name: str) -> Callable:
    """scipy.stats' `name`, imported when a cell is first computed: importing scipy.stats with this module cost every
    publish (and every command that imports the marts) 1.3 s, most of them for a warehouse with no imagined dishes."""

    def correlate(x: list[float], y: list[float]):
        from scipy import stats

        return getattr(stats, name)(x, y)

    return correlate


CORRELATIONS = {
    "pearson": _scipy_stat("pearsonr"),
    "spearman": _scipy_stat("spearmanr"),
    "kendall": _scipy_stat("kendalltau"),
}
SCHEMA = {
    **dict.fromkeys(KEYS, pl.String),
    "setup": pl.String,
    "metric": pl.String,
    "correlation": pl.String,
    "n_dishes": pl.Int64,
    "value": pl.Float64,
    "note": pl.String,
    "p_value": pl.Float64,
    "vqa_model": pl.String,
    "pairing": pl.String,
}
MIN_DISHES = 3


def build(con: duckdb.DuckDBPyConnection) -> None:
    cosines = con.sql(
        """
        SELECT model, dataset, lang, encoder, dish_key, avg(intra_cosine) AS cosine
        FROM marts.imagined WHERE intra_cosine IS NOT NULL GROUP BY ALL ORDER BY ALL
        """
    ).pl()
    scores = con.sql(
        """
        SELECT model, lang, dish_key, task, avg(jaccard) AS jaccard, avg(dice) AS dice, avg(overlap) AS overlap
        FROM marts.origin_scores WHERE task IN ('origin_qa', 'origin_vqa') GROUP BY ALL
        """
    ).pl()
    declared = dict(con.execute("SELECT describer, vision_model FROM core.vqa_counterparts").fetchall())
    vqa_models = scores.filter(pl.col("task") == TASKS["VQA"])["model"].unique().to_list()
    rows = []
    for key, group in cosines.group_by(KEYS, maintain_order=True):
        model, _, lang, _ = key
        vqa_model, pairing = counterpart(model, declared, vqa_models)
        for setup, task in TASKS.items():
            answerer = vqa_model if setup == "VQA" else model
            scored = scores.filter(pl.col("model") == answerer, pl.col("lang") == lang, pl.col("task") == task)
            joined = group.join(scored, on="dish_key", how="inner")
            for metric in METRICS:
                for name, correlate in CORRELATIONS.items():
                    value, p_value, note = _cell(joined["cosine"].to_list(), joined[metric].to_list(), setup, correlate)
                    rows.append(dict(zip(KEYS, key, strict=True)) | {
                        "setup": setup, "metric": metric, "correlation": name, "n_dishes": joined.height,
                        "value": value, "note": note, "p_value": p_value, "vqa_model": vqa_model,
                        "pairing": PAIRINGS[pairing],
                    })  # fmt: skip
    frame = pl.DataFrame(rows, schema=SCHEMA)
    con.register("_table4", frame)
    con.execute("CREATE OR REPLACE TABLE marts.imagined_table4 AS SELECT * FROM _table4")
    con.unregister("_table4")


def _short(model: str) -> str:
    return model.rstrip("/").rsplit("/", 1)[-1].casefold()


def counterpart(describer: str, declared: dict[str, str], vqa_models: list[str]) -> tuple[str, str]:
    """The model whose VQA answers pair with `describer`'s descriptions, and which rule chose it: a declared pairing,
    else the paper's (§4.1), else the describer itself. A named counterpart is found among the models with VQA answers
    by its id or its id's last path part; one with no answers here keeps its name, and its cells say so."""
    if describer in declared:
        wanted, pairing = declared[describer], "declared"
    elif _short(describer) in PAPER_COUNTERPARTS:
        wanted, pairing = PAPER_COUNTERPARTS[_short(describer)], "paper"
    else:
        return describer, "own"
    if wanted in vqa_models:
        return wanted, pairing
    matches = sorted(m for m in vqa_models if _short(m) == _short(wanted))
    return (matches[0] if matches else wanted), pairing


def _cell(
    cosines: list[float], scores: list[float], setup: str, correlate
) -> tuple[float | None, float | None, str | None]:
    """One correlation and its p-value, or None, None and why there is none."""
    if not cosines:
        return None, None, f"no {setup} answers by the paired model on the drawn dishes"
    if len(cosines) < MIN_DISHES:
        return None, None, f"fewer than {MIN_DISHES} dishes"
    if len(set(cosines)) < 2 or len(set(scores)) < 2:
        return None, None, "a constant column: no correlation is defined"
    result = correlate(cosines, scores)
    return float(result.statistic), float(result.pvalue), None
