"""Writing helpers every stage shares: one transaction per unit of work, inserts by column name,
run ids, and the one-value query. They live with the warehouse, not with any stage, so a stage
never imports another stage to write its own tables."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:  # polars only when inserting: the dashboard reads through this module and never needs it
    import polars as pl


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None):
    """First column of the first row; fetches everything so the connection is free afterwards."""
    rows = con.execute(sql, params or []).fetchall()
    return rows[0][0] if rows else None


def new_run_id() -> str:
    """A sortable id for one command's work (UTC time + random suffix)."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """All or nothing: a failure (or a kill) rolls the whole block back."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict] | pl.DataFrame) -> int:
    """Insert rows by column name; an empty list is a no-op."""
    import polars as pl  # ~0.25 s to import, spared to every dashboard start (warehouse.db imports `scalar`)

    frame = rows if isinstance(rows, pl.DataFrame) else pl.DataFrame(rows, infer_schema_length=None)
    if frame.height == 0:
        return 0
    con.register("_rows", frame)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _rows")
    except duckdb.Error as exc:
        raise duckdb.Error(f"loading {frame.height} rows into {table}: {exc}") from exc
    con.unregister("_rows")
    return frame.height
