"""The annotation store: people's labels for the sampled corpus sentences (BORSch Fig. 7).

These are the dashboard's only writes, so they live in their own small DuckDB file, never in the
published warehouse (which is replaced wholesale at every publish and opened read-only by the app):
$DISH_ATLAS_ANNOTATIONS, by default `annotations.duckdb` beside the published warehouse.

Each call opens its own short-lived connection and closes it, so the app never holds the file and
several sessions can take turns writing. One label per sample and annotator: saving again replaces it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pandas as pd

from pipeline.settings import default_warehouse
from warehouse.db import Warehouse

ANNOTATIONS_ENV = "DISH_ATLAS_ANNOTATIONS"

CATEGORIES = (
    "web-scraping error",
    "word polysemy",
    "irrelevant geographic mention",
    "inaccurate origin",
    "miscellaneous",
)

COLUMNS = ("sample_id", "lang", "dish_key", "country", "category", "annotator", "annotated_at")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS annotations (
    sample_id    TEXT NOT NULL,
    lang         TEXT NOT NULL,
    dish_key     TEXT NOT NULL,
    country      TEXT NOT NULL,
    category     TEXT NOT NULL,
    annotator    TEXT NOT NULL,
    annotated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (sample_id, annotator)
)
"""

_RETRIES = 20  # another session holding the file: wait up to ~2 s
_RETRY_SECONDS = 0.1


class AnnotationStoreError(RuntimeError):
    """An annotation store path that would touch the warehouse, or a label that is not allowed."""


def store_path() -> Path:
    """$DISH_ATLAS_ANNOTATIONS, else annotations.duckdb beside the published warehouse."""
    if os.environ.get(ANNOTATIONS_ENV):
        return Path(os.environ[ANNOTATIONS_ENV]).expanduser()
    return default_warehouse().expanduser().parent / "annotations.duckdb"


def _checked(path: Path | None) -> Path:
    path = Path(path or store_path()).expanduser().resolve()
    published = Warehouse(default_warehouse().expanduser().resolve())
    forbidden = {published.path, published.working_path}
    if path in forbidden or path.name.startswith(published.path.name + ".tmp"):
        raise AnnotationStoreError(
            f"the annotation store {path} would overwrite the warehouse; set {ANNOTATIONS_ENV} to another file"
        )
    return path


@contextlib.contextmanager
def _connect(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """Always read-write: within one process duckdb shares a database per path and refuses a
    second connection with another configuration, so readers and writers must match."""
    for attempt in range(_RETRIES):
        try:
            con = duckdb.connect(str(path))
            break
        except (duckdb.IOException, duckdb.ConnectionException):  # held by another process for a moment
            if attempt == _RETRIES - 1:
                raise
            time.sleep(_RETRY_SECONDS)
    try:
        yield con
    finally:
        con.close()


def save(
    sample_id: str,
    lang: str,
    dish_key: str,
    country: str,
    category: str,
    annotator: str,
    *,
    path: Path | None = None,
) -> None:
    """Record (or replace) `annotator`'s category for one sample."""
    if category not in CATEGORIES:
        raise AnnotationStoreError(f"unknown category {category!r}; one of {', '.join(CATEGORIES)}")
    annotator = (annotator or "").strip() or "anonymous"
    target = _checked(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _connect(target) as con:
        con.execute(_SCHEMA)
        con.execute(
            "INSERT OR REPLACE INTO annotations VALUES (?, ?, ?, ?, ?, ?, ?)",
            [sample_id, lang, dish_key, country, category, annotator, datetime.now(UTC).replace(tzinfo=None)],
        )


def load(*, path: Path | None = None) -> pd.DataFrame:
    """Every annotation (empty, with the columns, when nothing was saved yet)."""
    target = _checked(path)
    if not target.exists():
        return pd.DataFrame({column: pd.Series(dtype="object") for column in COLUMNS})
    with _connect(target) as con:
        exists = con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'annotations'"
        ).fetchall()[0][0]
        if not exists:
            return pd.DataFrame({column: pd.Series(dtype="object") for column in COLUMNS})
        return con.sql(f"SELECT {', '.join(COLUMNS)} FROM annotations ORDER BY annotated_at, sample_id").df()


def shares(annotations: pd.DataFrame) -> pd.DataFrame:
    """Category shares per corpus language (each annotator's label counts once)."""
    if annotations.empty:
        return pd.DataFrame({"lang": [], "category": [], "n": [], "share": []})
    counts = annotations.groupby(["lang", "category"]).size().rename("n").reset_index()
    counts["share"] = counts["n"] / counts.groupby("lang")["n"].transform("sum")
    order = {category: position for position, category in enumerate(CATEGORIES)}
    return counts.sort_values(["lang", "category"], key=lambda s: s.map(order) if s.name == "category" else s)
