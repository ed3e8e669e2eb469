"""The live probe page's own small store: one row per probe, in a DuckDB file of its own.

The dashboard never writes the published warehouse (it only ever opens that read-only), so probes
go to `probes.duckdb` next to it (or wherever `DISH_ATLAS_PROBES` points). Every write opens a
connection, inserts one row and closes it again: a second app process, or the pipeline publishing
a new snapshot, never finds the file held open. A process-wide lock keeps the page's sessions (one
thread each) from opening the file with two configurations at once, which DuckDB refuses.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pandas as pd

from pipeline.scrub import scrub
from pipeline.settings import default_warehouse

PROBES_ENV = "DISH_ATLAS_PROBES"
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

_LOCK = threading.Lock()


class ProbeStoreError(RuntimeError):
    """The store cannot be used as asked (e.g. it would be the published warehouse itself)."""


def default_path() -> Path:
    """$DISH_ATLAS_PROBES, else `probes.duckdb` beside the published warehouse."""
    if os.environ.get(PROBES_ENV):
        return Path(os.environ[PROBES_ENV]).expanduser()
    return default_warehouse().expanduser().parent / "probes.duckdb"


def _resolve(path: Path | str | None) -> Path:
    """The store's path; refused when it names the published warehouse, which the app never writes."""
    target = Path(path).expanduser() if path is not None else default_path()
    if target.resolve() == default_warehouse().expanduser().resolve():
        raise ProbeStoreError(f"the probe store must not be the published warehouse ({target}); set {PROBES_ENV}")
    return target


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
        raise ValueError(f"unknown probe status {status!r}; known: {', '.join(STATUSES)}")
    target = _resolve(path)
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
    with _LOCK:
        target.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(target))
        try:
            con.execute(SCHEMA).fetchall()
            con.execute(f"INSERT INTO probes ({', '.join(COLUMNS)}) VALUES ({placeholders})", row).fetchall()
        finally:
            con.close()
    return probe_id


def recent(limit: int = 20, path: Path | str | None = None) -> pd.DataFrame:
    """The latest `limit` probes, newest first; an empty frame when nothing was recorded yet
    (reading never creates the file)."""
    target = _resolve(path)
    empty = pd.DataFrame(columns=list(COLUMNS))
    if not target.exists():
        return empty
    with _LOCK:
        con = duckdb.connect(str(target), read_only=True)
        try:
            tables = con.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_name = 'probes'"
            ).fetchall()
            if not tables[0][0]:
                return empty
            return con.sql(
                f"SELECT {', '.join(COLUMNS)} FROM probes ORDER BY created_at DESC, probe_id LIMIT $limit",
                params={"limit": max(0, int(limit))},
            ).df()
        finally:
            con.close()
