"""BORSch ingestion on the real files: exact counts, every quirk handled and reported, and bad
input rejected with the file, row and value named, leaving the published warehouse as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline.core.errors import DataError
from pipeline.datasets import borsch
from tests.helpers import query, run_cli


def test_real_files_load_with_exact_counts(real_warehouse: Path) -> None:
    counts = dict(
        query(real_warehouse, "SELECT lang, count(*) FROM core.dishes WHERE dataset = 'borsch' GROUP BY lang")
    )
    assert counts == {"ru": 1147, "uk": 823}
    assert query(real_warehouse, "SELECT count(*) FROM core.parallel_dishes")[0][0] == 433
    assert query(real_warehouse, "SELECT count(*) FROM raw.borsch_dishes")[0][0] == 1970


def test_trailing_comma_is_dropped_and_reported(real_warehouse: Path) -> None:
    origins = query(
        real_warehouse,
        "SELECT country FROM core.dish_origins WHERE dish_key = 'borsch:ru:900' ORDER BY position",
    )
    assert [c for (c,) in origins] == ["ES", "MX"]
    report = query(real_warehouse, "SELECT file, line FROM meta.ingest_reports WHERE kind = 'trailing_comma'")
    assert report == [("RU_DATA.xlsx", 901)]


def test_twelve_duplicated_russian_names_are_kept_and_reported(real_warehouse: Path) -> None:
    duplicated = query(
        real_warehouse,
        "SELECT name FROM core.dishes WHERE dataset = 'borsch' AND lang = 'ru' GROUP BY name HAVING count(*) > 1",
    )
    assert len(duplicated) == 12
    reported = query(
        real_warehouse,
        "SELECT count(DISTINCT line) FROM meta.ingest_reports WHERE kind = 'duplicate_name' AND file = 'RU_DATA.xlsx'",
    )[0][0]
    assert reported == 26  # every row of the 12 names (some names appear three times)


def test_one_sided_parallel_rows_keep_the_side_that_exists(real_warehouse: Path) -> None:
    row = query(
        real_warehouse,
        "SELECT ru_dish_key, uk_dish_key, ru_name, uk_name FROM core.parallel_dishes WHERE ru_name = 'ПОДЖАРКА'",
    )
    assert row == [("borsch:ru:212", None, "ПОДЖАРКА", "ПІДЖАРКА")]
    one_sided = query(
        real_warehouse, "SELECT count(*) FROM core.parallel_dishes WHERE uk_dish_key IS NULL OR ru_dish_key IS NULL"
    )[0][0]
    reported = query(real_warehouse, "SELECT count(*) FROM meta.ingest_reports WHERE kind = 'one_sided_parallel'")
    assert one_sided == reported[0][0] == 259


def test_names_are_kept_as_given_with_a_display_form(real_warehouse: Path) -> None:
    name, display, source = query(
        real_warehouse, "SELECT name, display_name, source FROM core.dishes WHERE dish_key = 'borsch:uk:134'"
    )[0]
    assert (name, display, source) == ("КУЛЕБ'ЯКА", "Кулеб’яка", "wikidata")
    sources = {s for (s,) in query(real_warehouse, "SELECT DISTINCT source FROM core.dishes WHERE dataset='borsch'")}
    assert sources == {"wikidata", "bootstrap-0", "bootstrap-1", "bootstrap-2"}


def test_parallel_names_become_aliases_of_each_side(real_warehouse: Path) -> None:
    names = query(
        real_warehouse, "SELECT lang, name FROM core.dish_names WHERE dish_key = 'borsch:ru:212' ORDER BY lang"
    )
    assert names == [("ru", "ПОДЖАРКА"), ("uk", "ПІДЖАРКА")]


# --- bad input -------------------------------------------------------------------------------


def copy_borsch(data_dir: Path, target: Path) -> Path:
    shutil.copytree(data_dir / "borsch", target)
    return target


def rewrite_xlsx(path: Path, edit) -> None:
    frame = pl.read_excel(path, infer_schema_length=0)
    edit(frame).write_excel(path)


@pytest.fixture
def published_sample(warehouse: Path) -> tuple[Path, bytes]:
    """A published warehouse (the sample) and its bytes, to prove a failed run leaves it unchanged."""
    run_cli(warehouse, "ingest", "sample")
    return warehouse, warehouse.read_bytes()


def assert_fails_cleanly(warehouse: Path, before: bytes, source: Path, *expected: str) -> None:
    result = run_cli(warehouse, "ingest", "borsch", "--source", str(source), check=False)
    assert result.returncode == 2
    message = " ".join(result.stderr.split())
    for text in expected:
        assert text in message, message
    assert "Traceback" not in result.stderr
    assert warehouse.read_bytes() == before
    assert query(warehouse, "SELECT count(*) FROM core.dishes WHERE dataset = 'borsch'") == [(0,)]


def test_unknown_country_code_names_file_row_and_value(published_sample, data_dir: Path, tmp_path: Path) -> None:
    source = copy_borsch(data_dir, tmp_path / "borsch")
    rewrite_xlsx(
        source / "UK_DATA.xlsx",
        lambda f: f.with_columns(
            pl.when(pl.col("ID") == "5")
            .then(pl.lit("ID, XX"))
            .otherwise(pl.col("Countries of Origin"))
            .alias("Countries of Origin")
        ),
    )
    assert_fails_cleanly(*published_sample, source, "UK_DATA.xlsx:6", "unknown ISO 3166-1 alpha-2", "'XX'")


def test_truncated_xlsx_is_a_clear_error(published_sample, data_dir: Path, tmp_path: Path) -> None:
    source = copy_borsch(data_dir, tmp_path / "borsch")
    data = (source / "RU_DATA.xlsx").read_bytes()
    (source / "RU_DATA.xlsx").write_bytes(data[: len(data) // 2])
    assert_fails_cleanly(*published_sample, source, "RU_DATA.xlsx", "cannot read as an .xlsx workbook")


def test_wrong_column_set_lists_what_is_missing(published_sample, data_dir: Path, tmp_path: Path) -> None:
    source = copy_borsch(data_dir, tmp_path / "borsch")
    rewrite_xlsx(source / "PARALLEL_RU_UK.xlsx", lambda f: f.rename({"ID RU,UK": "IDS"}))
    assert_fails_cleanly(*published_sample, source, "PARALLEL_RU_UK.xlsx", "wrong column set", "missing ['ID RU,UK']")


def test_parallel_id_that_does_not_exist(data_dir: Path, tmp_path: Path) -> None:
    source = copy_borsch(data_dir, tmp_path / "borsch")
    rewrite_xlsx(
        source / "PARALLEL_RU_UK.xlsx",
        lambda f: f.with_columns(
            pl.when(pl.col("RU_NAME") == "ПЛОВ")
            .then(pl.lit("99999,61"))
            .otherwise(pl.col("ID RU,UK"))
            .alias("ID RU,UK")
        ),
    )
    with pytest.raises(DataError, match=r"PARALLEL_RU_UK.xlsx:2: RU ID 99999 does not exist"):
        borsch.parse(source)


def test_missing_file_names_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"RU_DATA\.xlsx not found"):
        borsch.parse(tmp_path)


def test_reingesting_the_same_files_does_nothing(warehouse: Path, data_dir: Path) -> None:
    run_cli(warehouse, "ingest", "borsch", "--source", str(data_dir / "borsch"))
    again = run_cli(warehouse, "ingest", "borsch", "--source", str(data_dir / "borsch"))
    assert "nothing to do" in again.stderr
    assert query(warehouse, "SELECT count(*) FROM core.dishes") == [(1970,)]
