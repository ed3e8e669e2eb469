"""Building the marts (warehouse/build.py): the integrity checks refuse a warehouse whose rows contradict each other;
a table changed since the snapshot reaches the marts that read it through a view."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from warehouse.build import _view_reads, _with_views
from warehouse.db import Warehouse, WarehouseError, migrate


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


def test_an_id_two_steps_wrote_is_refused(tmp_path: Path) -> None:
    """core.items and core.images unite tables of different steps (ingest's and the answers' or imagine's): their
    primary keys cannot see each other, the checks do."""
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer() as con:
        for table in ("core.ingested_images", "core.imagine_images"):
            con.execute(f"INSERT INTO {table} (image_id, kind) VALUES ('same', 'real')")
    with pytest.raises(WarehouseError, match=r"(?s)integrity checks failed.*FROM core.images"):
        wh.publish()


def test_a_changed_table_reaches_what_reads_it_through_a_view() -> None:
    con = duckdb.connect()
    migrate(con)
    views = _view_reads(con, {})
    assert _with_views({"core.translation_items"}, views) == {"core.translation_items", "core.items"}
    assert _with_views({"core.ingested_images", "core.dishes"}, views) == {
        "core.ingested_images",
        "core.images",
        "core.dishes",
    }
    assert _with_views({"core.dishes"}, views) == {"core.dishes"}
