"""Opening DuckDB: every connection of the project is made here, with DISH_ATLAS_DUCKDB_THREADS applied, and a
snapshot's working database is found beside it here."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from warehouse.errors import WarehouseError

# DISH_ATLAS_DUCKDB_THREADS=N: DuckDB's worker threads per connection (unset: one per core, DuckDB's default). Where
# several commands share the cores (the test suite's workers, a batch of commands), one thread each does the same work
# with less CPU: a small warehouse's statements are too small to share, and publishing one cost a quarter more CPU
# with two threads than with one.
THREADS_ENV = "DISH_ATLAS_DUCKDB_THREADS"


def duckdb_threads() -> int | None:
    """The thread count DISH_ATLAS_DUCKDB_THREADS sets, or None when it is unset."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise WarehouseError(f"{THREADS_ENV}={value!r}: expected a whole number of threads, 1 or more")
    return int(value)


def connect(database: str = ":memory:", *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """`duckdb.connect`, with DISH_ATLAS_DUCKDB_THREADS applied (a setting of the database instance, not its
    configuration: another connection to the same file in this process may still open it)."""
    threads = duckdb_threads()  # a bad value stops the command before it opens anything
    con = duckdb.connect(database, read_only=read_only)
    if threads is not None:
        try:
            con.execute(f"SET threads = {threads}")
        except BaseException:
            con.close()
            raise
    return con


def working_path(path: Path) -> Path:
    """The working database of the snapshot at `path`: `NAME.work.duckdb` beside `NAME.duckdb`."""
    return path.with_name(path.stem + ".work" + path.suffix)


def fsync_dir(directory: Path) -> None:
    """Make a rename in `directory` durable (publish and recover replace files by renaming)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
