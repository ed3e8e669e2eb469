"""`export NAME` writes a published mart as CSV or Parquet, read from the published snapshot only. Column order is
a contract external scripts rely on: extend at the end, never rename or reorder. Each export and its contract are
declared once, beside the mart that builds its table (the `export` block of the mart's declaration,
warehouse/marts/NAME.toml), which also makes its command (pipeline/export/commands.py)."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import polars as pl

from warehouse.db import Warehouse
from warehouse.marts import EXPORTS, export_contract

FORMATS = ("csv", "parquet")
METHODS = ("paper", "atlas")
STDOUT = "-"  # `--out -`: standard output, the convention of every Unix tool (a contract detail)


def to_stdout(out: Path | None) -> bool:
    """No `--out`, or `--out -`: the export goes to standard output (Parquet too, as bytes)."""
    return out is None or str(out) == STDOUT


def export_frame(warehouse: Warehouse, name: str, method: str | None = None) -> pl.DataFrame:
    """The mart behind an export, contract columns first. `method` picks the scoring method of
    `accuracy` (the method column then leaves the frame: a file holds one method)."""
    mart = EXPORTS[name].table
    contract = [c for c in export_contract(name) if method is None or c != "method"]
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
    buffer = io.BytesIO() if to_stdout(out) else None
    target = out if buffer is None else buffer
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
