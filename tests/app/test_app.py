"""The Streamlit dashboard, run headless with AppTest against a warehouse built by the real pipeline."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import REPO as REPO_ROOT
from tests.helpers import shown

MAIN = REPO_ROOT / "app" / "main.py"
DISHES_PAGE = "views/dishes.py"  # relative to app/main.py
SAMPLE_CSV = REPO_ROOT / "assets" / "sample" / "dishes.csv"
TIMEOUT = 30  # first runs import polars and duckdb


@pytest.fixture(scope="module")
def sample_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("warehouse") / "warehouse.duckdb"
    env = {k: v for k, v in os.environ.items() if k != "DISH_ATLAS_WAREHOUSE"}
    subprocess.run(
        [sys.executable, "-m", "pipeline", "--warehouse", str(path), "ingest", "sample"],
        check=True,
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
    )
    assert path.exists()
    return path


@pytest.fixture
def sample_app(sample_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(sample_warehouse))
    return AppTest.from_file(MAIN, default_timeout=TIMEOUT)


def sample_rows() -> list[dict[str, str]]:
    with SAMPLE_CSV.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def texts(elements) -> list[str]:
    return [shown(str(element.value)) for element in elements]


def metric(at: AppTest, label: str) -> str:
    values = [m.value for m in at.metric if m.label == label]
    assert values, f"no metric {label!r} in {[m.label for m in at.metric]}"
    return values[0]


def test_no_warehouse_shows_what_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(tmp_path / "missing" / "warehouse.duckdb"))
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert any("make demo" in w for w in texts(at.warning))
    assert not at.metric and not at.dataframe and not at.sidebar.selectbox

    at.switch_page(DISHES_PAGE).run()
    assert not at.exception
    assert any("make demo" in w for w in texts(at.warning))
    assert not at.dataframe and not at.text_input


def test_overview_on_the_sample(sample_app: AppTest):
    at = sample_app.run()
    assert not at.exception
    assert any("Sample data" in text and "not a benchmark" in text for text in texts(at.info))
    assert metric(at, "Dishes") == str(len(sample_rows()))
    assert int(metric(at, "Origin countries")) > 0
    assert at.query_params.get("dataset") == "sample"
    assert at.get("vega_lite_chart")
    downloads = {button.label for button in at.get("download_button")}
    assert {"CSV", "Parquet"} <= downloads


def test_unknown_dataset_in_url_falls_back(sample_app: AppTest):
    sample_app.query_params["dataset"] = "no-such-dataset"
    at = sample_app.run()
    assert not at.exception
    assert any("no-such-dataset" in w for w in texts(at.sidebar.warning))
    assert at.sidebar.selectbox(key="url_dataset").value == "sample"
    assert at.query_params.get("dataset") == "sample"
    assert metric(at, "Dishes") == str(len(sample_rows()))


def test_dishes_page_filters_by_country_from_url(sample_app: AppTest):
    expected = {row["dish_id"] for row in sample_rows() if "UA" in row["origins"].split(";")}
    assert expected, "the sample should have Ukrainian dishes"
    at = sample_app.run()
    at.query_params["country"] = "UA"
    at.switch_page(DISHES_PAGE).run()
    assert not at.exception
    assert at.selectbox(key="url_country").value == "UA"
    assert any("Sample data" in text for text in texts(at.info))
    table = at.dataframe[0].value
    assert set(table["dish_id"]) == expected
    assert all("UA" in origins.split(",") for origins in table["origins"])

    at.text_input(key="url_q").input("борщ").run()  # Cyrillic, any case
    assert not at.exception
    found = at.dataframe[0].value
    assert list(found["dish_id"]) == ["S001"]
    assert at.query_params.get("q") == "борщ" and at.query_params.get("country") == "UA"


def test_unknown_country_in_url_falls_back(sample_app: AppTest):
    sample_app.query_params["country"] = "XX"
    at = sample_app.run().switch_page(DISHES_PAGE).run()
    assert not at.exception
    assert any("XX" in w for w in texts(at.warning))
    assert len(at.dataframe[0].value) == len(sample_rows())


def test_republished_snapshot_is_reopened(sample_warehouse: Path, tmp_path: Path, monkeypatch):
    published = tmp_path / "warehouse.duckdb"
    shutil.copyfile(sample_warehouse, published)
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(published))
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT).run()
    assert metric(at, "Dishes") == str(len(sample_rows()))

    # Publish the way the pipeline does: build a new file, rename it over the snapshot.
    staged = tmp_path / "staged.duckdb"
    shutil.copyfile(sample_warehouse, staged)
    with duckdb.connect(str(staged)) as con:
        con.execute("UPDATE marts.dataset_summary SET n_dishes = 12345").fetchall()
        con.execute("CHECKPOINT").fetchall()
    os.replace(staged, published)

    at.run()
    assert not at.exception
    assert metric(at, "Dishes") == "12,345"


def test_a_bad_duckdb_thread_setting_is_one_message_on_the_page(sample_app: AppTest, monkeypatch: pytest.MonkeyPatch):
    import streamlit as st

    st.cache_resource.clear()  # a connection or query results of an earlier test would hide the setting
    st.cache_data.clear()
    monkeypatch.setenv("DISH_ATLAS_DUCKDB_THREADS", "two")
    at = sample_app.run()
    assert not at.exception
    assert [shown(e.value) for e in at.error] == [
        "DISH_ATLAS_DUCKDB_THREADS='two': expected a whole number of threads, 1 or more"
    ]
    assert not at.metric and not at.dataframe
    st.cache_resource.clear()  # nor may this test's failed opening reach the next one
