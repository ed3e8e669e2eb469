"""Building the marts (warehouse/build.py): the integrity checks refuse a warehouse whose rows contradict each other."""

from __future__ import annotations

from pathlib import Path

import pytest

from warehouse.db import Warehouse, WarehouseError


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
