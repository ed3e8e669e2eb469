"""The live probe page's store: one row per probe, in `probes.duckdb` ($DISH_ATLAS_PROBES) beside
the warehouse (path rule and connections: pipeline/stores/__init__.py)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from pipeline.core.scrub import scrub
from pipeline.stores import PROBES, StoreError

PROBES_ENV = PROBES.env
STATUSES = ("ok", "no_country", "refusal", "empty", "error", "timeout")
COLUMNS = (
    "probe_id", "created_at", "model", "backend", "lang", "dish_text", "matched_dish_key", "match_score",
    "image_sha256", "answer", "countries", "status", "latency_ms", "error",
)  # fmt: skip

SCHEMA = """
CREATE TABLE IF NOT EXISTS probes (
    probe_id VARCHAR PRIMARY KEY,
    created_at TIMESTAMPTZ NOT NULL,
    model VARCHAR NOT NULL,
    backend VARCHAR NOT NULL,
    lang VARCHAR NOT NULL,
    dish_text VARCHAR,
    matched_dish_key VARCHAR,
    match_score DOUBLE,
    image_sha256 VARCHAR,
    answer VARCHAR,
    countries VARCHAR[] NOT NULL,
    status VARCHAR NOT NULL,
    latency_ms DOUBLE,
    error VARCHAR
)
"""


def default_path() -> Path:
    """$DISH_ATLAS_PROBES, else `probes.duckdb` beside the published warehouse."""
    return PROBES.default_path()


def record(
    *,
    model: str,
    backend: str,
    lang: str,
    status: str,
    dish_text: str | None = None,
    matched_dish_key: str | None = None,
    match_score: float | None = None,
    image_sha256: str | None = None,
    answer: str | None = None,
    countries: Sequence[str] = (),
    latency_ms: float | None = None,
    error: str | None = None,
    path: Path | str | None = None,
) -> str:
    """Append one probe (opening and closing the store file); returns its probe_id."""
    if status not in STATUSES:
        raise StoreError(f"unknown probe status {status!r}; known: {', '.join(STATUSES)}")
    target = PROBES.path(path)
    probe_id = uuid.uuid4().hex
    row = {
        "probe_id": probe_id,
        "created_at": datetime.now(UTC),
        "model": model,
        "backend": backend,
        "lang": lang,
        "dish_text": dish_text,
        "matched_dish_key": matched_dish_key,
        "match_score": None if match_score is None else float(match_score),
        "image_sha256": image_sha256,
        "answer": scrub(answer),
        "countries": list(countries),
        "status": status,
        "latency_ms": None if latency_ms is None else float(latency_ms),
        "error": scrub(error),
    }
    placeholders = ", ".join(f"${name}" for name in COLUMNS)
    with PROBES.connect(target) as con:
        con.execute(SCHEMA).fetchall()
        con.execute(f"INSERT INTO probes ({', '.join(COLUMNS)}) VALUES ({placeholders})", row).fetchall()
    return probe_id


def recent(limit: int = 20, path: Path | str | None = None) -> pd.DataFrame:
    """The latest `limit` probes, newest first; an empty frame when nothing was recorded yet
    (reading never creates the file)."""
    target = PROBES.path(path)
    empty = pd.DataFrame(columns=list(COLUMNS))
    if not target.exists():
        return empty
    with PROBES.connect(target, read_only=True) as con:
        tables = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'probes'").fetchall()
        if not tables[0][0]:
            return empty
        return con.sql(
            f"SELECT {', '.join(COLUMNS)} FROM probes ORDER BY created_at DESC, probe_id LIMIT $limit",
            params={"limit": max(0, int(limit))},
        ).df()
