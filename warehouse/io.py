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


def delete_rebuilding(con: duckdb.DuckDBPyConnection, table: str, condition: str) -> None:
    """DELETE FROM `table` WHERE `condition`, by rebuilding the table: the rows that stay are set aside, the table is
    dropped and created again from its own DDL (columns, defaults, checks, primary key as they are now) and the rows
    put back, in their order. Inside the caller's transaction.

    Why: DuckDB removes each deleted row's key from the primary-key index when the transaction commits, one key at a
    time: clearing the demo's 2.5 million score-stage rows before a rescore spent 29 of its CPU-seconds in that commit
    (the DELETEs themselves 2.3), while the rebuild costs a copy of what stays (nothing, in a rescore). A table another
    object depends on (an index made by CREATE INDEX, a foreign key pointing at it) gets the plain DELETE."""
    schema, name = table.split(".")
    ddl = scalar(
        con,
        "SELECT sql FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = ? "
        "AND table_name = ?",
        [schema, name],
    )
    dependents = scalar(
        con,
        "SELECT (SELECT count(*) FROM duckdb_indexes() WHERE database_name = current_database() "
        "AND schema_name = $schema AND table_name = $name) + (SELECT count(*) FROM duckdb_constraints() "
        "WHERE database_name = current_database() AND constraint_type = 'FOREIGN KEY' AND referenced_table = $name)",
        {"schema": schema, "name": name},
    )
    if ddl is None or dependents:
        con.execute(f"DELETE FROM {table} WHERE {condition}")
        return
    kept = f"_kept_{name}"
    # IS NOT TRUE: a row whose condition is NULL stays, as DELETE leaves it
    con.execute(f"CREATE OR REPLACE TEMP TABLE {kept} AS SELECT * FROM {table} WHERE ({condition}) IS NOT TRUE")
    con.execute(f"DROP TABLE {table}")
    con.execute(ddl)
    con.execute(f"INSERT INTO {table} SELECT * FROM {kept}")
    con.execute(f"DROP TABLE {kept}")


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
