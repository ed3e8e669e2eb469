"""The UACUISINE page (the ZNO-Vision paper's Table 4) run headless with AppTest on a UACUISINE table
written in the test: its numbers computed by hand, and the model that computed BERTScore named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import open_page
from tests.pipeline.score.test_uacuisine_paper import shared_table4_warehouse

PAGE = "views/uacuisine.py"


@pytest.fixture(scope="module")
def table4_warehouse() -> tuple[Path, Path]:
    return shared_table4_warehouse()


def test_the_page_shows_table4_and_names_the_bertscore_model(
    table4_warehouse: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse, scorer = table4_warehouse
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(warehouse))
    at = open_page(PAGE, 120, dataset="uacuisine")
    table = at.dataframe[0].value
    rows = {r["model"]: r for r in table.to_dict("records")}
    assert set(rows) == {"m1", "m2"}
    m1 = rows["m1"]
    # the paper's EM compares the whole answer ("Це борщ" is not "Борщ"); ours finds the name in it
    assert m1["em"] == pytest.approx(2 / 5) and m1["em_atlas"] == pytest.approx(4 / 5)
    assert (m1["em_identification"], m1["em_identification_atlas"]) == (0.0, 1.0)
    assert m1["im"] == pytest.approx(1 / 7) and m1["im_atlas"] == 0.5
    assert m1["bertscore"] == pytest.approx(1.0, abs=1e-5)
    captions = " ".join(str(c.value) for c in at.caption).replace("\\", "")
    assert f"BERTScore computed with {scorer}" in captions  # the page says which model computed it
    assert "m1, m2" in captions  # and whose answers these are


def test_an_empty_warehouse_says_how_to_import(sample_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(sample_warehouse))
    at = open_page(PAGE, 120, dataset="sample")
    assert any("No UACUISINE answers in this warehouse yet" in str(i.value) for i in at.info)
    assert any("import-responses --format uacuisine" in str(c.value) for c in at.code)
    assert len(at.get("download_button")) == 1  # the template table, which imports as it is
