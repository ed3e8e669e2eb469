"""The marts are one explicit ordered list with each mart's column contract (warehouse/marts)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from warehouse.db import Warehouse, WarehouseError
from warehouse.marts import MARTS, MARTS_DIR


def test_every_mart_file_is_listed_once_and_every_listed_file_exists() -> None:
    files = {p.name for p in MARTS_DIR.iterdir() if p.suffix in (".sql", ".py") and p.name != "__init__.py"}
    listed = [mart.file for mart in MARTS]
    assert len(listed) == len(set(listed))
    assert set(listed) == files


def test_the_contract_columns_of_the_exports_are_declared() -> None:
    columns = {table: cols for mart in MARTS for table, cols in mart.columns.items()}
    assert columns["marts.dishes"][:6] == ("dataset", "lang", "dish_id", "name", "origins", "source")
    assert columns["marts.origin_scores"][:12] == (
        "dataset", "model", "task", "lang", "item_id", "variant", "gold", "predicted", "jaccard", "dice", "overlap",
        "status",
    )  # fmt: skip


def test_a_mart_that_breaks_its_contract_stops_the_publish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import warehouse.marts as marts

    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    broken = tuple(
        replace(m, columns={**m.columns, "marts.dishes": ("dish_key", "dataset")}) if "marts.dishes" in m.columns else m
        for m in MARTS
    )
    monkeypatch.setattr(marts, "MARTS", broken)
    with pytest.raises(WarehouseError, match=r"010_dishes.sql: column contract broken: marts.dishes"):
        wh.publish()
    assert not wh.path.exists()
    monkeypatch.setattr(marts, "MARTS", MARTS)
    assert wh.publish()
