"""A page's script run reads one published snapshot even when a publish renames a new one into place
in the middle of it (app/data.py `one_snapshot`), and a connection is never kept under the identity of
a file that was replaced. Publishing is done here as the pipeline does it: a new file renamed over the
snapshot (warehouse/db.py `publish`); bench/load.py does the same with real publishes and browsers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest

from app import data


def dishes(cur) -> int:
    return cur.execute("SELECT sum(n_dishes) FROM marts.dataset_summary").fetchone()[0]


def dishes_again(cur) -> int:  # the same question under another cache key: never answered before the publish
    return cur.execute("SELECT sum(n_dishes) FROM marts.dataset_summary").fetchone()[0]


def publish(source: Path, published: Path, n_dishes: int) -> None:
    """A new snapshot, different from the last, renamed into place."""
    staged = published.with_name("staged.duckdb")
    shutil.copyfile(source, staged)
    with duckdb.connect(str(staged)) as con:
        con.execute("UPDATE marts.dataset_summary SET n_dishes = ?", [n_dishes]).fetchall()
        con.execute("CHECKPOINT").fetchall()
    os.replace(staged, published)


@pytest.fixture
def published(sample_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "warehouse.duckdb"
    publish(sample_warehouse, path, 1)
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(path))
    return path


def test_a_run_reads_one_snapshot_while_a_publish_replaces_it(sample_warehouse: Path, published: Path):
    with data.one_snapshot():
        first = data.query(dishes)
        publish(sample_warehouse, published, 1000)
        assert data.query(dishes_again) == first  # still the snapshot the run began on
    assert data.query(dishes_again) == 1000 * first  # the next run sees the new one


def test_a_replaced_file_is_never_opened_under_the_old_identity(sample_warehouse: Path, published: Path):
    with data.one_snapshot():
        old = data.snapshot()
        publish(sample_warehouse, published, 7)
        data._connection.clear()  # the old snapshot's connection was dropped (two publishes later, say)
        with pytest.raises(data.SnapshotChanged):
            data._connection(*old)
        assert data.query(dishes) % 7 == 0  # the run moves on to the snapshot published now, no error
        assert data.snapshot() != old
