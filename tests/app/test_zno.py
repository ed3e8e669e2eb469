"""The ZNO exam page over a warehouse holding the small ZNO-Vision files of the dataset tests and two
models' answers: the subjects x models heatmap with both baselines, Table 1 with intervals, and the
click-through to one model's questions with their images and both readings."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import REPO, run_cli, shown, vega_rows
from tests.pipeline.datasets.zno_files import write_answers, write_zno

PAGE = "views/zno.py"


@pytest.fixture(scope="module")
def zno_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("zno-app")
    warehouse = root / "warehouse.duckdb"
    run_cli(warehouse, "ingest", "zno", "--source", str(write_zno(root / "zno")))
    run_cli(warehouse, "import-responses", "--format", "zno", str(write_answers(root / "answers.jsonl")))
    run_cli(warehouse, "score")
    return warehouse


def open_page(warehouse: Path, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(REPO / "app" / "main.py", default_timeout=90)
    at.query_params["dataset"] = "zno"
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def test_the_heatmap_draws_models_and_both_baselines(zno_warehouse: Path, monkeypatch) -> None:
    at = open_page(zno_warehouse, monkeypatch)
    [chart] = at.get("vega_lite_chart")
    cells = {(c["model"], c["subject"]): c["accuracy"] for c in vega_rows(chart)}
    # paper rule, validation (the first split): m1 right on v1 and v2 of 3; first option right on v1, v3
    assert cells["m1", "(all subjects)"] == pytest.approx(2 / 3)
    assert cells["m1", "Mathematics"] == 1.0
    assert cells["baseline: first option", "(all subjects)"] == pytest.approx(2 / 3)
    assert cells["baseline: random", "(all subjects)"] == pytest.approx((0.25 + 0.25 + 0.2) / 3)
    table = at.dataframe[0].value
    assert table["model"].tolist()[-2:] == ["baseline: first option", "baseline: random"]
    m1 = table[table["model"] == "m1"].iloc[0]
    assert (round(m1["low"], 4), round(m1["high"], 4)) == (0.2077, 0.9385)
    assert "m1, m2 (2 models" in shown(" ".join(m.value for m in at.markdown))


def test_the_click_through_lists_answers_with_both_readings(zno_warehouse: Path, monkeypatch) -> None:
    at = open_page(zno_warehouse, monkeypatch, zno_model="m1", zno_split="test", zno_method="atlas")
    answers = at.dataframe[1].value
    assert answers["item_id"].tolist() == ["t1", "t2"]
    assert answers["atlas_correct"].tolist() == [True, True]
    assert answers["paper_status"].tolist() == ["unparsed", "bracket_other"]
    assert len(at.get("image")) == 2  # each question's image
    assert any("2 of 2 right by ours" in c.value for c in at.caption)
    at.selectbox(key="url_zno_subject").set_value("Chemistry").run()
    assert at.dataframe[1].value["subject"].unique().tolist() == ["Chemistry"]
