"""The review page's store: people's labels for the sampled corpus sentences (BORSch Fig. 7), in
`annotations.duckdb` ($DISH_ATLAS_ANNOTATIONS) beside the warehouse (path rule and connections:
pipeline/stores/__init__.py). One label per sample and annotator: saving again replaces it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from pipeline.stores import ANNOTATIONS, StoreError

ANNOTATIONS_ENV = ANNOTATIONS.env

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


def store_path() -> Path:
    """$DISH_ATLAS_ANNOTATIONS, else annotations.duckdb beside the published warehouse."""
    return ANNOTATIONS.default_path()


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
        raise StoreError(f"unknown category {category!r}; one of {', '.join(CATEGORIES)}")
    annotator = (annotator or "").strip() or "anonymous"
    target = ANNOTATIONS.path(path)
    with ANNOTATIONS.connect(target) as con:
        con.execute(_SCHEMA)
        con.execute(
            "INSERT OR REPLACE INTO annotations VALUES (?, ?, ?, ?, ?, ?, ?)",
            [sample_id, lang, dish_key, country, category, annotator, datetime.now(UTC).replace(tzinfo=None)],
        )


def load(*, path: Path | None = None) -> pd.DataFrame:
    """Every annotation (empty, with the columns, when nothing was saved yet)."""
    target = ANNOTATIONS.path(path)
    if not target.exists():
        return pd.DataFrame({column: pd.Series(dtype="object") for column in COLUMNS})
    with ANNOTATIONS.connect(target, read_only=True) as con:
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
