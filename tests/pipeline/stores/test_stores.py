"""The app's two stores (pipeline/stores): the live probe's probes and the review page's annotations,
each a DuckDB file of its own beside (never inside) the published warehouse, under one path rule."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pytest

from pipeline.stores import ANNOTATIONS, PROBES, StoreError, annotations
from pipeline.stores import probes as probe_store


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
    with pytest.raises(StoreError, match="unknown probe status"):
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
    with pytest.raises(StoreError, match="would overwrite the warehouse"):
        probe_store.record(model="m", backend="openai", lang="en", status="ok")
    with pytest.raises(StoreError):
        probe_store.record(model="m", backend="openai", lang="en", status="ok", path=published)
    assert published.read_bytes() == before


# --- annotations -------------------------------------------------------------------------------


@pytest.fixture
def labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(tmp_path / "wh" / "warehouse.duckdb"))
    path = tmp_path / "labels" / "annotations.duckdb"
    monkeypatch.setenv(annotations.ANNOTATIONS_ENV, str(path))
    return path


def test_nothing_saved_loads_an_empty_table_without_creating_the_store(labels: Path):
    frame = annotations.load()
    assert frame.empty and list(frame.columns) == list(annotations.COLUMNS)
    assert not labels.exists()


def test_save_then_load(labels: Path):
    annotations.save("abc", "uk", "borsch:uk:1", "FR", "word polysemy", "ann")
    annotations.save("def", "ru", "borsch:ru:1", "US", "inaccurate origin", "")
    frame = annotations.load()
    assert labels.exists()
    assert sorted(zip(frame["sample_id"], frame["category"], frame["annotator"], strict=True)) == [
        ("abc", "word polysemy", "ann"),
        ("def", "inaccurate origin", "anonymous"),
    ]
    assert frame["annotated_at"].notna().all()


def test_saving_again_replaces_the_annotators_label(labels: Path):
    annotations.save("abc", "uk", "borsch:uk:1", "FR", "word polysemy", "ann")
    annotations.save("abc", "uk", "borsch:uk:1", "FR", "miscellaneous", "ann")
    annotations.save("abc", "uk", "borsch:uk:1", "FR", "inaccurate origin", "bob")
    frame = annotations.load()
    assert sorted(zip(frame["annotator"], frame["category"], strict=True)) == [
        ("ann", "miscellaneous"),
        ("bob", "inaccurate origin"),
    ]


def test_unknown_categories_are_refused(labels: Path):
    with pytest.raises(StoreError, match="unknown category"):
        annotations.save("abc", "uk", "borsch:uk:1", "FR", "typo", "ann")


def test_default_store_sits_beside_the_published_warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(annotations.ANNOTATIONS_ENV, raising=False)
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    assert annotations.store_path() == tmp_path / "annotations.duckdb"


def test_shares_per_language_add_up_to_one(labels: Path):
    for n, category in enumerate(["word polysemy", "word polysemy", "inaccurate origin"]):
        annotations.save(f"uk{n}", "uk", "borsch:uk:1", "FR", category, "ann")
    annotations.save("ru0", "ru", "borsch:ru:1", "FR", "miscellaneous", "ann")
    shares = annotations.shares(annotations.load())
    assert shares.groupby("lang")["share"].sum().tolist() == pytest.approx([1.0, 1.0])
    uk = shares[shares["lang"] == "uk"].set_index("category")["share"].to_dict()
    assert uk == {"word polysemy": pytest.approx(2 / 3), "inaccurate origin": pytest.approx(1 / 3)}
    assert list(shares[shares["lang"] == "uk"]["category"]) == ["word polysemy", "inaccurate origin"]


# --- one path rule for both stores ---------------------------------------------------------------

WAREHOUSE_FILES = [
    "warehouse.duckdb",
    "warehouse.work.duckdb",
    "warehouse.lock",
    "warehouse.duckdb.wal",
    "warehouse.work.duckdb.wal",
    "warehouse.duckdb.tmp-1234",
    "warehouse.duckdb.tmp-1234.wal",
    "warehouse.work.duckdb.tmp-99",
]


@pytest.mark.parametrize("store", [PROBES, ANNOTATIONS], ids=["probes", "annotations"])
@pytest.mark.parametrize("name", WAREHOUSE_FILES)
def test_neither_store_may_be_one_of_the_warehouse_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store, name: str
):
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    monkeypatch.setenv(store.env, str(tmp_path / name))
    with pytest.raises(StoreError, match=f"the {store.what} store .* would overwrite the warehouse; set {store.env}"):
        store.path()
    with pytest.raises(StoreError):  # also when named directly, and through a symlink
        (tmp_path / "alias.duckdb").symlink_to(tmp_path / name)
        store.path(tmp_path / "alias.duckdb")
    if store is PROBES:
        with pytest.raises(StoreError):
            probe_store.record(model="m", backend="openai", lang="en", status="ok")
        with pytest.raises(StoreError):
            probe_store.recent()
    else:
        with pytest.raises(StoreError):
            annotations.save("abc", "uk", "borsch:uk:1", "FR", "word polysemy", "ann")
        with pytest.raises(StoreError):
            annotations.load()
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize("store", [PROBES, ANNOTATIONS], ids=["probes", "annotations"])
def test_other_files_beside_the_warehouse_are_fine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store):
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    for name in ("probes.duckdb", "annotations.duckdb", "warehouse.duckdb.bak", "my-warehouse.duckdb"):
        assert store.path(tmp_path / name) == (tmp_path / name).resolve()
    monkeypatch.delenv(store.env, raising=False)
    assert store.path() == (tmp_path / store.filename).resolve()
