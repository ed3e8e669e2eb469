"""The annotation store: the app's only writes, kept out of the published warehouse."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import annotations


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(tmp_path / "wh" / "warehouse.duckdb"))
    path = tmp_path / "labels" / "annotations.duckdb"
    monkeypatch.setenv(annotations.ANNOTATIONS_ENV, str(path))
    return path


def test_nothing_saved_loads_an_empty_table_without_creating_the_store(store: Path):
    frame = annotations.load()
    assert frame.empty and list(frame.columns) == list(annotations.COLUMNS)
    assert not store.exists()


def test_save_then_load(store: Path):
    annotations.save("abc", "uk", "borsch:uk:1", "FR", "word polysemy", "ann")
    annotations.save("def", "ru", "borsch:ru:1", "US", "inaccurate origin", "")
    frame = annotations.load()
    assert store.exists()
    assert sorted(zip(frame["sample_id"], frame["category"], frame["annotator"], strict=True)) == [
        ("abc", "word polysemy", "ann"),
        ("def", "inaccurate origin", "anonymous"),
    ]
    assert frame["annotated_at"].notna().all()


def test_saving_again_replaces_the_annotators_label(store: Path):
    annotations.save("abc", "uk", "borsch:uk:1", "FR", "word polysemy", "ann")
    annotations.save("abc", "uk", "borsch:uk:1", "FR", "miscellaneous", "ann")
    annotations.save("abc", "uk", "borsch:uk:1", "FR", "inaccurate origin", "bob")
    frame = annotations.load()
    assert sorted(zip(frame["annotator"], frame["category"], strict=True)) == [
        ("ann", "miscellaneous"),
        ("bob", "inaccurate origin"),
    ]


def test_unknown_categories_are_refused(store: Path):
    with pytest.raises(annotations.AnnotationStoreError, match="unknown category"):
        annotations.save("abc", "uk", "borsch:uk:1", "FR", "typo", "ann")


def test_default_store_sits_beside_the_published_warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(annotations.ANNOTATIONS_ENV, raising=False)
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    assert annotations.store_path() == tmp_path / "annotations.duckdb"


@pytest.mark.parametrize("name", ["warehouse.duckdb", "warehouse.work.duckdb"])
def test_a_path_naming_the_warehouse_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str):
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    monkeypatch.setenv(annotations.ANNOTATIONS_ENV, str(tmp_path / name))
    with pytest.raises(annotations.AnnotationStoreError, match="would overwrite the warehouse"):
        annotations.save("abc", "uk", "borsch:uk:1", "FR", "word polysemy", "ann")
    with pytest.raises(annotations.AnnotationStoreError):
        annotations.load()
    assert not (tmp_path / name).exists()


def test_shares_per_language_add_up_to_one(store: Path):
    for n, category in enumerate(["word polysemy", "word polysemy", "inaccurate origin"]):
        annotations.save(f"uk{n}", "uk", "borsch:uk:1", "FR", category, "ann")
    annotations.save("ru0", "ru", "borsch:ru:1", "FR", "miscellaneous", "ann")
    shares = annotations.shares(annotations.load())
    assert shares.groupby("lang")["share"].sum().tolist() == pytest.approx([1.0, 1.0])
    uk = shares[shares["lang"] == "uk"].set_index("category")["share"].to_dict()
    assert uk == {"word polysemy": pytest.approx(2 / 3), "inaccurate origin": pytest.approx(1 / 3)}
    assert list(shares[shares["lang"] == "uk"]["category"]) == ["word polysemy", "inaccurate origin"]
