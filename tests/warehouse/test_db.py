"""The warehouse contract: versioned migrations, one writer, atomic publishing, read-only readers."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipeline.steps import STEPS
from warehouse.db import NotPublished, Warehouse, WarehouseError, WarehouseLocked, migrations


def test_migrations_are_numbered_and_applied_once(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    with wh.writer() as con:
        versions = [v for (v,) in con.execute("SELECT version FROM meta.schema_migrations ORDER BY 1").fetchall()]
        schemas = {s for (s,) in con.execute("SELECT DISTINCT table_schema FROM information_schema.tables").fetchall()}
    assert versions == [v for v, _, _ in migrations()]
    assert {"raw", "core", "meta"} <= schemas


def test_schema_holds_every_table_a_step_writes_and_no_dead_ones(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer() as con:
        tables = {
            t
            for (t,) in con.execute(
                "SELECT table_schema || '.' || table_name FROM information_schema.tables"
            ).fetchall()
        }
    written = {table for name in STEPS.names() for table in STEPS.get(name).writes}
    assert written <= tables, written - tables  # every table a step writes exists after migrations
    assert "core.prompt_templates" not in tables and "meta.runs" not in tables  # never written: dropped


def test_up_to_ten_images_per_prompt(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer() as con:
        con.execute("INSERT INTO core.item_images VALUES ('i', 9, 'img')")
        with pytest.raises(duckdb.ConstraintException):
            con.execute("INSERT INTO core.item_images VALUES ('i', 10, 'img')")


def test_publish_makes_a_read_only_snapshot_with_marts(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with pytest.raises(NotPublished, match="make demo"):
        wh.reader()
    with wh.writer():
        pass
    wh.publish()
    reader = wh.reader()
    try:
        assert reader.execute("SELECT count(*) FROM marts.dishes").fetchall() == [(0,)]
        with pytest.raises(duckdb.Error):
            reader.execute("CREATE TABLE core.x (a INT)")
    finally:
        reader.close()
    assert not list(tmp_path.glob("*.tmp-*"))


def test_a_reader_keeps_its_snapshot_while_a_new_one_is_published(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    wh.publish()
    reader = wh.reader()
    with wh.writer() as con:
        con.execute("INSERT INTO core.datasets VALUES ('x', 'X', NULL, NULL, false)")
    wh.publish()
    try:
        assert reader.execute("SELECT count(*) FROM core.datasets").fetchall() == [(0,)]
    finally:
        reader.close()
    fresh = wh.reader()
    assert fresh.execute("SELECT count(*) FROM core.datasets").fetchall() == [(1,)]
    fresh.close()


def test_a_failed_run_leaves_the_published_snapshot_untouched(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    wh.publish()
    before = wh.path.read_bytes()
    with pytest.raises(RuntimeError), wh.writer() as con:
        con.execute("INSERT INTO core.datasets VALUES ('x', 'X', NULL, NULL, false)")
        raise RuntimeError("the run dies here")
    assert wh.path.read_bytes() == before


def test_integrity_checks_refuse_to_publish(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    wh.publish()
    before = wh.path.read_bytes()
    with wh.writer() as con:
        con.execute("INSERT INTO core.dish_origins VALUES ('nowhere:xx:1', 'ZZ', 0)")
    with pytest.raises(WarehouseError, match="integrity checks failed"):
        wh.publish()
    assert wh.path.read_bytes() == before
    assert not list(tmp_path.glob("*.tmp-*"))


def test_a_second_writer_gets_a_clear_message(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer(), pytest.raises(WarehouseLocked, match="another pipeline command"), wh.writer():
        pass


def test_publishing_unchanged_content_is_a_no_op(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    assert wh.publish() is True
    stamp = wh.path.stat().st_mtime_ns
    assert wh.publish() is False
    assert wh.path.stat().st_mtime_ns == stamp
    assert wh.publish(force=True) is True
    with wh.writer() as con:
        con.execute("INSERT INTO core.datasets VALUES ('x', 'X', NULL, NULL, false)")
    assert wh.publish() is True
