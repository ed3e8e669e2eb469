"""Migrations (warehouse/migrate.py): numbered, applied once, the schema holding every table a step writes."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipeline.flow.steps import STEPS
from warehouse.db import Warehouse, migrations


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
