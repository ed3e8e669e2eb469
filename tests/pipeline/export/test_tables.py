"""`export ... --out -` writes to standard output, as every Unix tool does, never to a file named `-`."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

from tests import cli_process
from tests.helpers import REPO, cli_arguments, cli_environment
from warehouse.marts import EXPORTS, export_contract


def _export(warehouse: Path, cwd: Path, *args: str, binary: bool = False):
    result = cli_process.run(
        cli_arguments(warehouse, "export", *args), cwd=cwd, env=cli_environment(), timeout=120, binary=binary
    )
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded sample, ingested and published (a copy of the session's build)."""
    from tests import shared_builds
    from tests.helpers import copy_warehouse

    template = shared_builds.wait("ingested-sample", ["ingest", "sample"])
    return copy_warehouse(template, tmp_path_factory.mktemp("stdout") / "wh" / "w.duckdb")


def test_every_export_writes_csv_to_standard_output_with_out_dash(published: Path) -> None:
    for name in EXPORTS:
        method = ["--method", "atlas"] if name == "accuracy" else []
        one_method = name in ("accuracy", "language-gap")  # a file holds one method: the column leaves the frame
        contract = [c for c in export_contract(name) if not (one_method and c == "method")]
        result = _export(published, REPO, name, *method, "--format", "csv", "--out", "-")
        assert not (REPO / "-").exists(), f"export {name} --out - wrote a file named '-'"
        frame = pl.read_csv(io.StringIO(result.stdout), infer_schema_length=0)
        assert frame.columns == contract, name  # the whole contract, every column in order
        assert "wrote" not in result.stderr  # no "wrote N rows to -": nothing was written to a file
    assert (
        _export(published, REPO, "dishes", "--format", "csv").stdout
        == _export(published, REPO, "dishes", "--format", "csv", "--out", "-").stdout
    )  # `-` and no --out are the same thing


def test_parquet_to_standard_output_is_the_file_s_bytes(published: Path, tmp_path: Path) -> None:
    file = tmp_path / "dishes.parquet"
    _export(published, REPO, "dishes", "--format", "parquet", "--out", str(file))
    piped = _export(published, REPO, "dishes", "--format", "parquet", "--out", "-", binary=True).stdout
    assert piped[:4] == b"PAR1" and piped[-4:] == b"PAR1"
    from_stdout, from_file = pl.read_parquet(io.BytesIO(piped)), pl.read_parquet(file)
    assert from_stdout.height > 40 and from_stdout.equals(from_file)
    assert not (REPO / "-").exists()
