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
}
FORMATS = ("csv", "parquet")


def export_frame(warehouse: Warehouse, name: str) -> pl.DataFrame:
    mart, contract = EXPORTS[name]
    con = warehouse.reader()
    try:
        frame = con.sql(f"SELECT * FROM {mart}").pl()
    finally:
        con.close()
    extra = [c for c in frame.columns if c not in contract]
    return frame.select(contract + extra)


def write(frame: pl.DataFrame, fmt: str, out: Path | None) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    buffer = io.BytesIO() if out is None else None
    target = out if out is not None else buffer
    if fmt == "csv":
        frame.write_csv(target)
    else:
        frame.write_parquet(target)
    if buffer is not None:
        try:
            sys.stdout.buffer.write(buffer.getvalue())
            sys.stdout.flush()
        except BrokenPipeError:  # `... | head` closed the pipe early: not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
