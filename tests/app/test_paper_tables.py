"""The study pages' shared widget (app/paper_tables.py): a paper's table pivoted, ours beside the printed numbers,
as `export paper-tables` writes it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from app.paper_tables import pivoted
from tests.app.conftest import open_page
from tests.helpers import copy_warehouse
from warehouse.paper_tables import tables_of


def test_each_column_is_followed_by_the_printed_number_where_the_paper_prints_one() -> None:
    long = pd.DataFrame(
        {
            "row": ["m1", "m1", "m2", "Gemini Pro"],
            "column": ["ZNO val", "ZNO val", "ZNO test", "ZNO val"],
            "value": [0.5, 0.4, 0.3, None],
            "published": [None, None, None, 0.68],
            "method": ["paper", "atlas", "paper", None],
        }
    )
    table = pivoted(long)
    assert list(table.columns) == ["row", "ZNO val · paper", "ZNO val · atlas", "ZNO test · paper", "ZNO val",
                                   "ZNO val (published)"]  # fmt: skip
    assert list(table["row"]) == ["m1", "m2", "Gemini Pro"]
    assert table.set_index("row").loc["Gemini Pro", "ZNO val (published)"] == 0.68
    assert table.set_index("row").loc["m1", "ZNO val · atlas"] == 0.4


def test_the_borsch_page_sets_table_7_beside_the_printed_counts(
    ingested_template, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse = copy_warehouse(ingested_template("borsch"), tmp_path / "wh" / "warehouse.duckdb")
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(warehouse))
    at = open_page("views/borsch_paper.py", dataset="borsch", file="ru")
    order = [t.table for t in tables_of("borsch")]
    at.selectbox(key="borsch_paper_tables_table").select_index(order.index("table7")).run()
    assert not at.exception, [e.value for e in at.exception]
    (table,) = [d.value for d in at.dataframe if "dishes (published)" in d.value.columns]
    counts = table.set_index(table.columns[0])
    assert counts.loc["RU", "dishes"] == counts.loc["RU", "dishes (published)"] == 203  # Appendix M, Table 7
    assert (counts["dishes"] == counts["dishes (published)"]).sum() == 109
