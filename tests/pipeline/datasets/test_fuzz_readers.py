"""Every dataset reader fed generated and mutated files (issue 51; strategies: tests/fuzzing.py): the BORSch
workbooks, WorldCuisines' CSV tables, CultureMix's images.csv, ZNO's Parquet, Multi30K's text lists and VQA's JSON.
Each ingest of a mutated folder ends as a loaded dataset (odd rows counted as quirks), or as one error naming the file
that left every table as it was; never a traceback. The readers run in-process, on one working database per
test, with a small real or test folder as the seed and one of its files replaced by the drawn bytes."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given

from pipeline.core.run_settings import Options
from pipeline.datasets import DATASETS
from pipeline.datasets.borsch import FILES as BORSCH_FILES
from pipeline.flow.steps import run_pipeline
from tests import fuzzing
from tests.fixtures.warehouses.build import slice_data
from tests.pipeline.datasets import caption_vqa_files, zno_files
from warehouse.db import Warehouse
from warehouse.io import new_run_id


@pytest.fixture(scope="module")
def seeds(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small valid folder per dataset, and a working database with the reference tables (countries) loaded."""
    root = tmp_path_factory.mktemp("fuzz-readers")
    run_pipeline("ingest", Warehouse(root / "w" / "warehouse.duckdb"), Options(datasets=("sample",)), publish=False)
    return {
        "base": root / "w" / "warehouse.work.duckdb",
        "borsch": fuzzing.write_borsch(data_dir, root / "borsch"),
        "worldcuisines": slice_data(data_dir, root / "wc", dishes=30),
        "culturemix": fuzzing.write_culturemix(data_dir, root / "culturemix", rows=20),
        "zno": zno_files.write_zno(root / "zno"),
        "multi30k": caption_vqa_files.write_multi30k(root / "multi30k"),
        "vqa": caption_vqa_files.write_vqa(root / "vqa"),
    }


def _fuzz(seeds: dict[str, Path], tmp_path: Path, dataset: str, relative: str, files, label: str) -> None:
    """Ingest `dataset` from its seed folder with `relative` replaced by each drawn file."""
    (tmp_path / "w").mkdir()
    shutil.copyfile(seeds["base"], tmp_path / "w" / "warehouse.work.duckdb")
    tally = fuzzing.Tally(label)
    with Warehouse(tmp_path / "w" / "warehouse.duckdb").writer() as con:

        @fuzzing.fuzz_settings()
        @given(data=files)
        def run(data: bytes) -> None:
            with tempfile.TemporaryDirectory(dir=tmp_path) as folder:
                source = Path(folder) / "source"
                shutil.copytree(seeds[dataset], source)
                path = source / relative
                path.write_bytes(data)

                def ingest() -> list:
                    DATASETS[dataset].ingest(con, source, new_run_id(), True)
                    return []

                fuzzing.check_outcome(con, path, ingest, tally)

        run()
    tally.report()
    assert sum(tally.outcomes.values()) >= min(fuzzing.examples(), 10)


def _rows(path: Path) -> list[dict]:
    return pl.read_excel(path, infer_schema_length=0).head(12).to_dicts()


@pytest.mark.parametrize("lang", ["ru", "parallel"])
def test_borsch_workbooks(lang: str, seeds: dict[str, Path], tmp_path: Path) -> None:
    name, header = BORSCH_FILES[lang]
    files = fuzzing.xlsx_file(header, _rows(seeds["borsch"] / name))
    _fuzz(seeds, tmp_path, "borsch", name, files, f"borsch {name}")


@pytest.mark.parametrize("table", ["kb/final_data.csv", "eval/large_eval_task2.csv"])
def test_worldcuisines_tables(table: str, seeds: dict[str, Path], tmp_path: Path) -> None:
    header, rows = fuzzing.csv_records(seeds["worldcuisines"] / table)
    # the knowledge base whole and in order (a dish's id is its row, which the items name), the items sampled
    files = fuzzing.csv_file(header, rows, ordered=True) if table.startswith("kb/") else fuzzing.csv_file(header, rows)
    _fuzz(seeds, tmp_path, "worldcuisines", table, files, f"worldcuisines {table}")


def test_culturemix_images_csv(seeds: dict[str, Path], tmp_path: Path) -> None:
    header, rows = fuzzing.csv_records(seeds["culturemix"] / "images.csv")
    _fuzz(seeds, tmp_path, "culturemix", "images.csv", fuzzing.csv_file(header, rows[:8]), "culturemix images.csv")


def test_zno_parquet(seeds: dict[str, Path], tmp_path: Path) -> None:
    relative = "data/validation-00000-of-00001.parquet"
    rows = pl.read_parquet(seeds["zno"] / relative).to_dicts()
    _fuzz(seeds, tmp_path, "zno", relative, fuzzing.parquet_file(rows), "zno parquet")


@pytest.mark.parametrize(
    "relative", ["data/task1/image_splits/test_2017_flickr.txt", "data/task1/raw/test_2017_flickr.uk"]
)
def test_multi30k_text_files(relative: str, seeds: dict[str, Path], tmp_path: Path) -> None:
    lines = (seeds["multi30k"] / relative).read_text(encoding="utf-8").splitlines()
    _fuzz(seeds, tmp_path, "multi30k", relative, fuzzing.text_lines(lines), f"multi30k {Path(relative).name}")


@pytest.mark.parametrize(
    ("relative", "key"),
    [
        ("uk/v2_OpenEnded_mscoco_val2014_questions.json", "questions"),
        ("uk/v2_mscoco_val2014_annotations.json", "annotations"),
    ],
)
def test_vqa_json(relative: str, key: str, seeds: dict[str, Path], tmp_path: Path) -> None:
    import json

    records = json.loads((seeds["vqa"] / relative).read_text(encoding="utf-8"))[key]
    _fuzz(seeds, tmp_path, "vqa", relative, fuzzing.json_document(key, records), f"vqa {Path(relative).name}")
