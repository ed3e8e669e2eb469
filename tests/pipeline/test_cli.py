"""The commands as a user types them: demo, export contract, data fetch offline, warehouse option."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from pipeline.core.errors import OfflineError
from pipeline.datasets.fetch import RemoteFile, fetch
from tests.helpers import REPO, query, run_cli

CONTRACT = ["dataset", "lang", "dish_id", "name", "origins", "source"]


def test_demo_with_sample_builds_the_hand_written_sample(warehouse: Path) -> None:
    result = run_cli(warehouse, "demo", "--sample")
    assert "embedded sample" in result.stderr
    # it ends with the next step: the dashboard on this warehouse (not the default one, so it is named)
    last = " ".join(result.stderr.strip().splitlines()[-2:])
    assert "Next: start the dashboard with" in last and "make app" in last and str(warehouse) in last
    rows = query(warehouse, "SELECT dataset, is_sample, n_dishes FROM marts.dataset_summary")
    with open(REPO / "assets" / "sample" / "dishes.csv", encoding="utf-8") as handle:
        n_sample = sum(1 for _ in csv.DictReader(handle))
    assert rows == [("sample", True, n_sample)]


def test_sample_covers_post_soviet_and_other_countries(warehouse: Path) -> None:
    run_cli(warehouse, "ingest", "sample")
    post_soviet, others = query(
        warehouse,
        """SELECT count(DISTINCT country) FILTER (post_soviet),
        count(DISTINCT country) FILTER (NOT post_soviet) FROM marts.dishes_per_origin""",
    )[0]
    assert post_soviet >= 15 and others >= 10
    names = query(warehouse, "SELECT count(DISTINCT dish_key) FROM core.dish_names WHERE lang IN ('ru','uk','en')")
    assert names[0][0] >= 40


def test_export_dishes_keeps_the_column_contract(real_warehouse: Path, tmp_path: Path) -> None:
    csv_text = run_cli(real_warehouse, "export", "dishes", "--format", "csv").stdout
    frame = pl.read_csv(io.StringIO(csv_text), infer_schema_length=0)
    assert frame.columns[:6] == CONTRACT
    row = frame.filter((pl.col("dataset") == "borsch") & (pl.col("lang") == "ru") & (pl.col("dish_id") == "900"))
    assert row.select(CONTRACT).row(0) == ("borsch", "ru", "900", "ПЕРЕЦ ФАРШИРОВАННЫЙ", "ES,MX", "bootstrap-0")
    counts = dict(frame.group_by("dataset").len().iter_rows())
    assert counts == {"borsch": 1970, "worldcuisines": 2414, "culturemix": 44}  # CultureMix: the sample's foods
    wc = frame.filter(pl.col("dataset") == "worldcuisines").filter(pl.col("dish_id") == "949")
    assert wc.select("lang", "name", "origins", "source").row(0) == ("en", "Melktert", "ZA", None)

    out = tmp_path / "dishes.parquet"
    run_cli(real_warehouse, "export", "dishes", "--format", "parquet", "--out", str(out))
    parquet = pl.read_parquet(out)
    assert parquet.columns[:6] == CONTRACT and parquet.height == frame.height


def test_export_before_anything_is_published_says_what_to_run(warehouse: Path) -> None:
    result = run_cli(warehouse, "export", "dishes", check=False)
    assert result.returncode == 2 and "make demo" in result.stderr and "Traceback" not in result.stderr


def test_warehouse_comes_from_the_environment(tmp_path: Path) -> None:
    target = tmp_path / "env" / "wh.duckdb"
    env = {**os.environ, "DISH_ATLAS_WAREHOUSE": str(target)}
    subprocess.run(
        [sys.executable, "-m", "pipeline", "ingest", "sample"], cwd=REPO, env=env, check=True, capture_output=True
    )
    assert target.is_file()


def test_fetch_fails_fast_offline(tmp_path: Path) -> None:
    started = time.monotonic()
    try:
        fetch(tmp_path, [RemoteFile("https://dish-atlas-unreachable.invalid/x.csv", "x.csv")])
    except OfflineError as exc:
        message = str(exc)
    else:
        raise AssertionError("fetch should fail without a network")
    assert time.monotonic() - started < 15
    assert "--source" in message and "DATA=" in message
    assert not (tmp_path / "x.csv").exists()


def test_data_fetch_command_offline(tmp_path: Path) -> None:
    result = run_cli(tmp_path / "w.duckdb", "data", "fetch", "--dest", str(tmp_path / "data"), check=False)
    assert result.returncode == 2
    assert "--source" in " ".join(result.stderr.split())


def test_a_second_demo_with_nothing_new_changes_nothing(real_warehouse: Path, data_dir: Path) -> None:
    # In place (the demo's tiny model is named by its path): it writes nothing, so readers elsewhere are safe.
    stamp = real_warehouse.stat().st_mtime_ns
    again = run_cli(real_warehouse, "demo", "--data", str(data_dir))
    message = " ".join(again.stderr.split())
    assert "nothing to do" in message and "already imported" not in message
    assert "every answer is already scored" in message and "is up to date" in message
    assert real_warehouse.stat().st_mtime_ns == stamp


def test_image_fetch_fails_fast_offline(tmp_path: Path) -> None:
    result = run_cli(tmp_path / "w.duckdb", "data", "fetch", "--images", "--dest", str(tmp_path / "data"), check=False)
    assert result.returncode == 2 and "DATA=" in " ".join(result.stderr.split())


def test_a_demo_without_publishing_says_to_publish_before_starting_the_dashboard(warehouse: Path) -> None:
    result = run_cli(warehouse, "--no-publish", "demo", "--sample")
    assert not warehouse.exists() and warehouse.with_name("warehouse.work.duckdb").is_file()
    last = result.stderr.strip().splitlines()[-1]
    assert "publish" in last and "then start the dashboard" in last
    assert "not published" in result.stderr and "The demo warehouse is ready" not in result.stderr


def test_no_publish_batches_commands_and_the_next_publishing_command_publishes_them(
    sample_warehouse: Path, data_dir: Path
) -> None:
    """`--no-publish` leaves the snapshot as it was (the dashboard keeps reading it) and the changes in the working
    database; the next command that publishes publishes the whole batch."""
    snapshot = sample_warehouse.read_bytes()
    borsch = ("ingest", "borsch", "--source", str(data_dir / "borsch"))
    result = run_cli(sample_warehouse, "--no-publish", *borsch)
    assert "not published" in result.stderr and "published " + str(sample_warehouse) not in result.stderr
    assert sample_warehouse.read_bytes() == snapshot
    working = sample_warehouse.with_name("w.work.duckdb")
    assert query(working, "SELECT count(*) FROM core.dishes WHERE dataset = 'borsch'")[0][0] > 0
    assert query(sample_warehouse, "SELECT DISTINCT dataset FROM marts.dataset_summary") == [("sample",)]

    refused = run_cli(sample_warehouse, "--no-publish", "publish", check=False)
    assert refused.returncode == 2 and "error: --no-publish" in refused.stderr
    assert sample_warehouse.read_bytes() == snapshot

    rerun = run_cli(sample_warehouse, *borsch)  # the same files: nothing to ingest, but the batch is published
    assert "nothing to do" in rerun.stderr and "published " + str(sample_warehouse) in rerun.stderr
    assert query(sample_warehouse, "SELECT DISTINCT dataset FROM marts.dataset_summary ORDER BY 1") == [
        ("borsch",),
        ("sample",),
    ]
