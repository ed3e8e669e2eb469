"""Cached access to the published warehouse; pages call these functions, never duckdb directly.

One read-only connection per published snapshot is kept with `st.cache_resource`. The pipeline
publishes by renaming a new file over the old one, so the snapshot is identified by the file's
(mtime, inode, size): when that changes, the next call opens the new file, and the query results
cached with `st.cache_data` (keyed by the same identity) are not reused. Each query runs on its
own cursor, so concurrent sessions never share one duckdb connection object, and a connection
that is replaced is not closed under a query still running on it (it closes once unreferenced).

A page's script run reads one snapshot (`one_snapshot`, around app/dashboard.py's `main`): a publish
that renames a new file into place mid-run is seen by the next run, never by half of this one. A
connection is kept only when the file it attached is the snapshot it is keyed by (the file's identity
is the same before and after the ATTACH); otherwise the run moves on to the snapshot now published.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from pipeline.core.settings import default_warehouse
from warehouse import queries
from warehouse.db import NotPublished, check_readable, connect

# (path, mtime_ns, inode, size) of the published snapshot file.
Snapshot = tuple[str, int, int, int]

DISH_LIMIT = queries.DEFAULT_DISH_LIMIT


def warehouse_path() -> Path:
    return default_warehouse().expanduser().resolve()


class SnapshotChanged(RuntimeError):
    """The snapshot a connection was asked for is no longer the file at its path (a publish replaced it)."""


_run = threading.local()  # the snapshot pinned by the script run in this thread (Streamlit: one thread per run)


def snapshot() -> Snapshot:
    """Identity of the snapshot this script run reads (see `one_snapshot`), else of the published one;
    raises NotPublished when there is none."""
    pinned = getattr(_run, "snapshot", None)
    return pinned if pinned is not None else published_snapshot()


@contextlib.contextmanager
def one_snapshot() -> Iterator[None]:
    """Every query in the body reads the snapshot published when it began (none pinned when nothing is
    published: the body's own check says so)."""
    previous = getattr(_run, "snapshot", None)
    try:
        _run.snapshot = published_snapshot()
    except NotPublished:
        _run.snapshot = None
    try:
        yield
    finally:
        _run.snapshot = previous


def _moved_on() -> None:
    """The pinned snapshot's file is gone: the rest of this run reads the one published now."""
    if getattr(_run, "snapshot", None) is not None:
        _run.snapshot = published_snapshot()


def published_snapshot() -> Snapshot:
    """Identity of the published snapshot file now; raises NotPublished when there is none."""
    path = warehouse_path()
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise NotPublished(f"no published warehouse at {path}") from None
    return str(path), stat.st_mtime_ns, stat.st_ino, stat.st_size


CATALOG = "warehouse"
RETRIES = 3  # publishes that may replace the snapshot while one query opens it


@st.cache_resource(max_entries=2, show_spinner=False)
def _connection(path: str, mtime_ns: int, inode: int, size: int) -> duckdb.DuckDBPyConnection:
    """The snapshot file attached read-only to a fresh in-memory database.

    Not `duckdb.connect(path, read_only=True)` (Warehouse.reader): duckdb shares one database
    instance per path within a process, so while the connection to the replaced file is still
    open, connecting again to the same path returns the old snapshot. ATTACH opens whatever the
    path names now.
    """
    wanted = (path, mtime_ns, inode, size)
    if _identity(path) != wanted:  # replaced since it was named: that file cannot be opened by its path any more
        raise SnapshotChanged(path)
    con = connect(":memory:")  # DISH_ATLAS_DUCKDB_THREADS applies to the dashboard's queries too
    try:
        con.execute(f"ATTACH ? AS {CATALOG} (READ_ONLY)", [path]).fetchall()
    except duckdb.Error:
        con.close()
        if not Path(path).exists():  # renamed away between snapshot() and here
            raise NotPublished(f"no published warehouse at {path}") from None
        raise
    if _identity(path) != wanted:  # replaced during the ATTACH: which file it opened is unknown
        con.close()
        raise SnapshotChanged(path)
    try:
        check_readable(con, Path(path), CATALOG)  # another schema version: one line naming both, not a query error
    except BaseException:
        con.close()
        raise
    return con


def _identity(path: str) -> Snapshot | None:
    try:
        stat = Path(path).stat()
    except FileNotFoundError:
        return None
    return path, stat.st_mtime_ns, stat.st_ino, stat.st_size


def _query(snap: Snapshot, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with _connection(*snap).cursor() as cur:
        cur.execute(f"USE {CATALOG}").fetchall()  # `marts.x` then names the snapshot's tables
        return function(cur, *args, **kwargs)


@st.cache_data(max_entries=256, show_spinner=False)
def _cached(snap: Snapshot, name: str, args: tuple, kwargs: tuple, _function: Callable[..., Any]) -> Any:
    """One query result per (snapshot, query, arguments). `name` (module and qualified name) keys the
    cache; `_function` itself is passed along, never looked up again (a leading underscore keeps it
    out of Streamlit's hash)."""
    return _query(snap, _function, *args, **dict(kwargs))


def query(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a `warehouse.queries` function on the current snapshot, cached per snapshot and
    arguments (which must be hashable: pass tuples, frozen dataclasses such as Filters)."""
    name = f"{function.__module__}.{function.__qualname__}"
    for _ in range(RETRIES):
        try:
            return _cached(snapshot(), name, args, tuple(sorted(kwargs.items())), function)
        except SnapshotChanged:
            _moved_on()
    return _cached(published_snapshot(), name, args, tuple(sorted(kwargs.items())), function)


def dataset_summary() -> pd.DataFrame:
    return query(queries.dataset_summary)


def published_info() -> pd.DataFrame:
    return query(queries.published_info)


def languages(dataset: str) -> list[str]:
    return query(queries.languages, dataset)


def dishes_per_origin(dataset: str, lang: str | None = None) -> pd.DataFrame:
    return query(queries.dishes_per_origin, dataset, lang)


def dishes_per_source(dataset: str, lang: str | None = None) -> pd.DataFrame:
    return query(queries.dishes_per_source, dataset, lang)


def ingest_report(dataset: str | None = None) -> pd.DataFrame:
    return query(queries.ingest_report, dataset)


def answers_per_model(dataset: str | None = None) -> pd.DataFrame:
    return query(queries.answers_per_model, dataset)


def dishes(
    dataset: str,
    lang: str | None = None,
    country: str | None = None,
    search: str | None = None,
    limit: int | None = DISH_LIMIT,
) -> pd.DataFrame:
    search = (search or "").strip() or None
    return query(queries.dishes, dataset, lang=lang, country=country or None, search=search, limit=limit)


def to_csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode("utf-8")


def to_parquet(frame: pd.DataFrame) -> bytes:
    return frame.to_parquet(index=False)
