"""The marts are one explicit ordered list with each mart's column contract (warehouse/marts)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.helpers import REPO
from tools.docs_reference import BEGIN, END
from warehouse.db import Warehouse, WarehouseError
from warehouse.marts import EXPORTS, MARTS, MARTS_DIR, export_contract
from warehouse.registry import Registry


def test_every_mart_file_is_listed_once_and_every_listed_file_exists() -> None:
    files = {p.name for p in MARTS_DIR.iterdir() if p.suffix in (".sql", ".py") and p.name != "__init__.py"}
    listed = [mart.file for mart in MARTS.values()]
    assert len(listed) == len(set(listed))
    assert set(listed) == files


def _readme_contracts() -> dict[str, tuple[str, ...]]:
    """`export NAME` -> the columns docs/contracts.md promises by hand, in order (what scripts outside rely on); the
    table generated from the code on the same page is left out, or the code would promise itself."""
    text = (REPO / "docs" / "contracts.md").read_text(encoding="utf-8")
    text = text[: text.index(BEGIN)] + text[text.index(END) + len(END) :]
    rows = re.findall(r"^\| `export ([a-z0-9-]+)[^`]*` \| `([^`]+)`", text, flags=re.M)
    return {name: tuple(c.strip() for c in columns.split(",")) for name, columns in rows}


def test_every_export_is_declared_beside_its_mart_and_documented() -> None:
    documented = _readme_contracts()
    assert sorted(documented) == sorted(EXPORTS)
    for name, table in EXPORTS.items():
        assert any(table in mart.columns and name in mart.exports for mart in MARTS.values()), name


def test_each_export_s_contract_begins_with_the_columns_readme_promises() -> None:
    """The table's contract is the export's (publish refuses a mart that breaks it); the promised columns are its start,
    `method` aside: `export accuracy --method M` writes one method, without the column."""
    for name, promised in _readme_contracts().items():
        contract = tuple(c for c in export_contract(name) if not (name == "accuracy" and c == "method"))
        assert contract[: len(promised)] == promised, name


def test_a_mart_that_breaks_its_contract_stops_the_publish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import warehouse.marts as marts

    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    broken = Registry("mart", ordered=True)
    for name, m in MARTS.items():
        columns = {**m.columns, "marts.dishes": ("dish_key", "dataset")} if "marts.dishes" in m.columns else m.columns
        broken.add(name, replace(m, columns=columns))
    monkeypatch.setattr(marts, "MARTS", broken)
    with pytest.raises(WarehouseError, match=r"010_dishes.sql: column contract broken: marts.dishes"):
        wh.publish()
    assert not wh.path.exists()
    monkeypatch.setattr(marts, "MARTS", MARTS)
    assert wh.publish()
