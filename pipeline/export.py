"""Exports read the published snapshot. Column order is a contract external scripts rely on:
extend at the end, never rename or reorder."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import polars as pl

from warehouse.db import Warehouse

EXPORTS: dict[str, tuple[str, list[str]]] = {
    # name: (mart, contract columns in order; the mart's other columns follow)
    "dishes": ("marts.dishes", ["dataset", "lang", "dish_id", "name", "origins", "source"]),
    "cooccurrence": (
        "marts.cooccurrence",
        ["lang", "dataset", "dish_id", "name", "docs_with_dish", "docs_with_true_country", "docs_with_any_country"],
    ),
    "codemix": ("marts.codemix", ["dish_id", "uk_name", "ru_name", "docs_uk_name", "docs_ru_name"]),
    "origin-scores": (
        "marts.origin_scores",
        [
            "dataset",
            "model",
            "task",
            "lang",
            "item_id",
            "variant",
            "gold",
            "predicted",
            "jaccard",
            "dice",
            "overlap",
            "status",
        ],
    ),
    # accuracy in percent, rounded as the papers round; one method at a time (--method paper|atlas)
    "accuracy": ("marts.accuracy", ["dataset", "model", "task", "lang", "n", "accuracy"]),
    "choice-scores": (
        "marts.choice_scores",
        ["dataset", "model", "task", "lang", "item_id", "gold_choice", "parsed_choice", "status", "correct"],
    ),
    "language-switching": (
        "marts.language_switching",
        ["dataset", "model", "task", "lang", "item_id", "answer_lang", "switched", "segments"],
    ),
    "name-scores": (
        "marts.name_scores",
        [
            "dataset",
            "model",
            "task",
            "lang",
            "item_id",
            "gold",
            "prediction",
            "matched_name",
            "named_dish_key",
            "exact",
            "lev1",
            "stem",
            "similarity",
            "paper",
            "status",
        ],
    ),
    "dish-links": ("marts.dish_links", ["dish_key", "linked_dish_key", "method", "score"]),
    "imagined": (
        "marts.imagined",
        [
            "model",
            "dataset",
            "dish_id",
            "description",
            "translation",
            "image",
            "generator",
            "seed",
            "encoder",
            "intra_cosine",
            "inter_cosine",
            "qa_jaccard",
        ],
    ),
}
EXPORTS["culturemix"] = (
    "marts.culturemix_answers",
    [
        "model",
        "subtask",
        "prompt",
        "target_food_id",
        "image",
        "target_country",
        "distractor_country",
        "background_country",
        "distance",
        "predicted_food",
        "predicted_country",
        "food_correct",
        "country_correct",
        "shift",
    ],
)
# ZNO-Vision (README "ZNO-Vision"): the exam per method x model x split x subject (Tables 1, 5, 6), the
# caption table (Table 2) and VQA in Ukrainian vs English (Table 3)
EXPORTS["zno-accuracy"] = (
    "marts.zno_accuracy",
    ["method", "model", "split", "subject", "n", "correct", "accuracy", "low", "high"],
)
EXPORTS["captions"] = (
    "marts.caption_scores",
    ["model", "split", "lang", "n", "bleu_mean", "bleu_std", "bertscore_mean", "bertscore_std", "corpus_bleu"],
)
EXPORTS["vqa-languages"] = ("marts.vqa_languages", ["model", "n_uk", "vqa_uk", "n_en", "vqa_en", "gap"])
FORMATS = ("csv", "parquet")
METHODS = ("paper", "atlas")


def export_frame(warehouse: Warehouse, name: str, method: str | None = None) -> pl.DataFrame:
    """The mart behind an export, contract columns first. `method` picks the scoring method of
    `accuracy` (the method column then leaves the frame: a file holds one method)."""
    mart, contract = EXPORTS[name]
    con = warehouse.reader()
    try:
        if method is not None:
            frame = con.sql(f"SELECT * EXCLUDE (method) FROM {mart} WHERE method = ?", params=[method]).pl()
        else:
            frame = con.sql(f"SELECT * FROM {mart}").pl()
    finally:
        con.close()
    extra = [c for c in frame.columns if c not in contract]
    return frame.select(contract + extra)


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """CSV has no lists: a list of codes becomes "ES,MX", like the contract columns (Parquet keeps lists)."""
    return frame.with_columns(
        pl.col(name).cast(pl.List(pl.String)).list.join(",")
        for name, dtype in frame.schema.items()
        if isinstance(dtype, pl.List)
    )


def write(frame: pl.DataFrame, fmt: str, out: Path | None) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    buffer = io.BytesIO() if out is None else None
    target = out if out is not None else buffer
    if fmt == "csv":
        _flat(frame).write_csv(target)
    else:
        frame.write_parquet(target)
    if buffer is not None:
        try:
            sys.stdout.buffer.write(buffer.getvalue())
            sys.stdout.flush()
        except BrokenPipeError:  # `... | head` closed the pipe early: not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
