"""Connections (warehouse/connect.py): DISH_ATLAS_DUCKDB_THREADS sets every connection's threads; a bad value is one
line."""

from __future__ import annotations

from pathlib import Path

import pytest

from warehouse.db import Warehouse


def test_duckdb_threads_follow_the_setting_and_a_bad_value_is_one_line(
    sample_warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests import cli_process
    from tests.helpers import REPO, cli_arguments, cli_environment
    from warehouse.db import THREADS_ENV

    warehouse = Warehouse(sample_warehouse)
    for threads in ("1", "3"):
        monkeypatch.setenv(THREADS_ENV, threads)
        with warehouse.writer() as con:
            assert con.execute("SELECT current_setting('threads')").fetchone() == (int(threads),)
        reader = warehouse.reader()
        assert reader.execute("SELECT current_setting('threads')").fetchone() == (int(threads),)
        reader.close()
    before = sample_warehouse.read_bytes(), sample_warehouse.with_name("w.work.duckdb").read_bytes()
    for bad in ("0", "two", "-1"):
        result = cli_process.run(
            cli_arguments(sample_warehouse, "ingest", "sample"),
            cwd=REPO,
            env={**cli_environment(), THREADS_ENV: bad},
            timeout=120,
        )
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.returncode == 2 and len(lines) == 1, result.stderr
        assert lines[0].startswith("error:") and THREADS_ENV in lines[0] and "whole number" in lines[0]
    assert (sample_warehouse.read_bytes(), sample_warehouse.with_name("w.work.duckdb").read_bytes()) == before
