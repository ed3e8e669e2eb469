"""The live probe store: its own DuckDB file beside (never inside) the published warehouse."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pytest

from pipeline import probe_store


@pytest.fixture
def published(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small stand-in for the published warehouse, named by DISH_ATLAS_WAREHOUSE."""
    path = tmp_path / "wh" / "warehouse.duckdb"
    path.parent.mkdir()
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA marts; CREATE TABLE marts.published AS SELECT 1 AS version").fetchall()
    con.close()
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(path))
    monkeypatch.delenv(probe_store.PROBES_ENV, raising=False)
    return path


def test_record_and_recent_round_trip(tmp_path: Path):
    store = tmp_path / "probes.duckdb"
    first = probe_store.record(
        model="tiny",
        backend="transformers",
        lang="ru",
        status="ok",
        dish_text="Борщ",
        matched_dish_key="borsch:ru:679",
        match_score=100.0,
        answer="Украина",
        countries=["UA"],
        latency_ms=12.5,
        path=store,
    )
    second = probe_store.record(
        model="server", backend="openai", lang="en", status="error", error="cannot reach the server", path=store
    )

    rows = probe_store.recent(10, path=store)
    assert list(rows.columns) == list(probe_store.COLUMNS)
    assert list(rows["probe_id"]) == [second, first]  # newest first
    newest, oldest = rows.iloc[0], rows.iloc[1]
    assert (newest["model"], newest["status"], newest["error"]) == ("server", "error", "cannot reach the server")
    assert list(newest["countries"]) == [] and pd.isna(newest["answer"])
    assert oldest["dish_text"] == "Борщ" and oldest["matched_dish_key"] == "borsch:ru:679"
    assert (oldest["match_score"], oldest["latency_ms"], list(oldest["countries"])) == (100.0, 12.5, ["UA"])
    assert oldest["created_at"] <= newest["created_at"]

    assert list(probe_store.recent(1, path=store)["probe_id"]) == [second]


def test_reading_an_absent_store_creates_nothing(tmp_path: Path):
    store = tmp_path / "none" / "probes.duckdb"
    assert probe_store.recent(path=store).empty
    assert not store.exists() and not store.parent.exists()


def test_an_unknown_status_is_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="unknown probe status"):
        probe_store.record(model="m", backend="openai", lang="en", status="great", path=tmp_path / "p.duckdb")


def test_the_store_lives_beside_the_published_warehouse_and_never_touches_it(published: Path):
    before = published.read_bytes()
    mtime = published.stat().st_mtime_ns
    assert probe_store.default_path() == published.parent / "probes.duckdb"

    probe_store.record(model="tiny", backend="transformers", lang="uk", status="no_country", answer="…")

    assert (published.parent / "probes.duckdb").is_file()
    assert len(probe_store.recent()) == 1
    assert published.read_bytes() == before and published.stat().st_mtime_ns == mtime
    con = duckdb.connect(str(published), read_only=True)
    try:
        tables = con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()
    finally:
        con.close()
    assert tables == [("published",)]


def test_the_environment_names_the_store(published: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(probe_store.PROBES_ENV, str(tmp_path / "elsewhere" / "mine.duckdb"))
    assert probe_store.default_path() == tmp_path / "elsewhere" / "mine.duckdb"
    probe_store.record(model="m", backend="openai", lang="en", status="empty")
    assert (tmp_path / "elsewhere" / "mine.duckdb").is_file()


def test_the_published_warehouse_is_refused_as_the_store(published: Path, monkeypatch: pytest.MonkeyPatch):
    before = published.read_bytes()
    monkeypatch.setenv(probe_store.PROBES_ENV, str(published))
    with pytest.raises(probe_store.ProbeStoreError, match="must not be the published warehouse"):
        probe_store.record(model="m", backend="openai", lang="en", status="ok")
    with pytest.raises(probe_store.ProbeStoreError):
        probe_store.record(model="m", backend="openai", lang="en", status="ok", path=published)
    assert published.read_bytes() == before
