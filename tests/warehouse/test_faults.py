"""Kills, leftovers and no-op reruns: every writing command that exits 0 leaves the published
snapshot equal to what its working database publishes, and nothing of a killed run behind.

The sweep here kills each writing command once at a seeded random moment (bench/faults.py runs
the long version with many kills per command, and `generate` and `import-responses` too, which their own modules
kill here: tests/pipeline/answers/test_generate.py and tests/pipeline/answers/test_responses.py)."""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

from bench.faults import summary, sweep
from pipeline.answers import responses
from tests.helpers import query, run_cli
from warehouse.db import Warehouse


def test_every_writing_command_killed_at_a_random_point_is_healed_by_its_rerun(
    data_dir: Path, tmp_path: Path, ingested_template
) -> None:
    # The sweep's ingests of BORSch and WorldCuisines are the session's shared ones (made by the same command).
    prebuilt = {
        ("ingest", dataset, "--source", str(data_dir / dataset)): partial(ingested_template, dataset)
        for dataset in ("borsch", "worldcuisines")
    }
    swept = {"ingest", "score", "corpus scan", "publish", "demo"}
    outcomes = sweep(data_dir, tmp_path, kills=1, seed=2026, only=swept, prebuilt=prebuilt)
    assert {o.scenario for o in outcomes} == swept
    for outcome in outcomes:
        assert outcome.rerun_code == 0, (outcome.scenario, outcome.stderr)
        assert outcome.identical, (outcome.scenario, outcome.kill_at, outcome.differences)
        assert outcome.leftover_bytes == 0, (outcome.scenario, outcome.differences)
    assert sum(o.killed for o in outcomes) >= 3  # most runs were still writing when killed


def test_an_already_imported_rerun_publishes_what_a_killed_run_committed(
    worldcuisines_warehouse: Path, data_dir: Path, tmp_path: Path
) -> None:
    warehouse = worldcuisines_warehouse
    answers = tmp_path / "task2_oe_m1.jsonl"
    with open(data_dir / "worldcuisines" / "predictions" / "task2_oe_llava-1.6-7b.jsonl", encoding="utf-8") as src:
        answers.write_text("".join(next(src) for _ in range(500)), encoding="utf-8")
    # What a run killed between its commit and its publish leaves: the answers only in the working copy.
    with Warehouse(warehouse).writer() as con:
        responses.import_file(con, answers, "killed-run")
    assert query(warehouse, "SELECT count(*) FROM core.generations") == [(0,)]

    rerun = run_cli(warehouse, "import-responses", str(answers))
    assert "already imported for m1" in rerun.stderr and "published" in rerun.stderr
    assert query(warehouse, "SELECT count(*) FROM core.generations") == [(500,)]
    assert summary(warehouse) == summary(warehouse)  # readable, and stable


def test_a_killed_publishes_temp_files_are_removed_at_the_next_writers_start_and_only_those(
    sample_warehouse: Path,
) -> None:
    warehouse, folder = sample_warehouse, sample_warehouse.parent
    killed = [folder / "w.duckdb.tmp-4242", folder / "w.duckdb.tmp-4242.wal", folder / "w.work.duckdb.tmp-7"]
    kept = [folder / "w.duckdb.tmp-notes", folder / "other.duckdb.tmp-4242", folder / "w.duckdb.backup"]
    for path in killed + kept:
        path.write_bytes(b"x" * 30_000)
    assert Warehouse(warehouse).leftovers() == sorted(killed)

    run_cli(warehouse, "ingest", "sample")  # a writer: takes the lock, then cleans up
    assert not any(path.exists() for path in killed)
    assert all(path.exists() for path in kept)
    assert Warehouse(warehouse).leftovers() == []


def test_a_publish_after_a_killed_writer_includes_its_last_commit(sample_warehouse: Path, tmp_path: Path) -> None:
    """A writer killed after a commit leaves it in the WAL; `publish` folds the WAL in before copying."""
    warehouse = sample_warehouse
    work = warehouse.with_name("w.work.duckdb")
    killed = tmp_path / "killed"
    killed.mkdir()
    # The state a SIGKILL after COMMIT leaves: the file plus its write-ahead log, never checkpointed.
    import duckdb

    con = duckdb.connect(str(work))
    con.execute("SET checkpoint_threshold = '1TB'")
    con.execute("INSERT INTO core.datasets SELECT 'killed', * EXCLUDE (dataset) FROM core.datasets LIMIT 1")
    shutil.copyfile(work, killed / "w.work.duckdb")
    shutil.copyfile(work.with_name("w.work.duckdb.wal"), killed / "w.work.duckdb.wal")
    con.close()
    shutil.copyfile(killed / "w.work.duckdb", work)
    shutil.copyfile(killed / "w.work.duckdb.wal", work.with_name("w.work.duckdb.wal"))

    run_cli(warehouse, "publish")
    assert ("killed",) in query(warehouse, "SELECT dataset FROM core.datasets")
    assert not work.with_name("w.work.duckdb.wal").exists()
