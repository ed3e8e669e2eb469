"""The writer session and the reader (warehouse/session.py): one writer, and a run that fails touches no snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from warehouse.db import Warehouse, WarehouseLocked


def test_a_second_writer_gets_a_clear_message(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer(), pytest.raises(WarehouseLocked, match="another pipeline command"), wh.writer():
        pass


def test_a_failed_run_leaves_the_published_snapshot_untouched(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    wh.publish()
    before = wh.path.read_bytes()
    with pytest.raises(RuntimeError), wh.writer() as con:
        con.execute("INSERT INTO core.datasets (dataset, title) VALUES ('x', 'X')")
        raise RuntimeError("the run dies here")
    assert wh.path.read_bytes() == before
