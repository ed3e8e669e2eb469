"""The embedded sample (assets/sample/dishes.csv): a small hand-written dataset so the demo and
the tests run with no data directory and no network. The dashboard labels it as a sample."""

from __future__ import annotations

from pathlib import Path

import duckdb

from pipeline.core.errors import DataError
from pipeline.core.settings import SAMPLE_DIR
from pipeline.core.text import display_name
from pipeline.datasets import DATASETS
from pipeline.datasets.base import Dataset, no_items
from pipeline.datasets.common import (
    DatasetInfo,
    IngestResult,
    already_loaded,
    clean,
    delete_dataset_dishes,
    dish_key,
    name_row,
    read_csv,
    record_dataset,
    record_source,
    sha256_files,
)
from pipeline.reference.countries import is_iso_alpha2
from warehouse.io import insert, transaction

DATASET = DatasetInfo(
    dataset="sample",
    title="Sample: hand-written dishes for the demo (not a benchmark)",
    home="embedded (assets/sample)",
    license="MIT",
    is_sample=True,
)
COLUMNS = ["dish_id", "name_en", "name_ru", "name_uk", "origins", "description"]


def parse(path: Path) -> tuple[list[dict], list[dict], list[dict]]:
    dishes, names, origins = [], [], []
    seen: set[str] = set()
    for index, record in enumerate(read_csv(path, COLUMNS)):
        line = index + 2
        dish_id = clean(record["dish_id"])
        if not dish_id or dish_id in seen:
            raise DataError(path, f"dish_id {dish_id!r} is empty or repeated", line=line)
        seen.add(dish_id)
        key = dish_key("sample", "en", dish_id)
        for lang in ("en", "ru", "uk"):
            name = clean(record[f"name_{lang}"])
            if not name:
                raise DataError(path, f"empty name_{lang} for {dish_id}", line=line)
            names.append(name_row(key, lang, name, is_primary=lang == "en"))
        codes = [c.strip() for c in clean(record["origins"]).split(";") if c.strip()]
        if not codes:
            raise DataError(path, f"no origins for {dish_id}", line=line)
        for position, code in enumerate(codes):
            if not is_iso_alpha2(code):
                raise DataError(path, f"unknown ISO 3166-1 alpha-2 country code {code!r}", line=line)
            origins.append({"dish_key": key, "country": code, "position": position})
        dishes.append(
            {
                "dish_key": key,
                "dataset": "sample",
                "lang": "en",
                "dish_id": dish_id,
                "name": clean(record["name_en"]),
                "display_name": display_name(clean(record["name_en"])),
                "source": "sample",
                "description": clean(record["description"]) or None,
            }
        )
    return dishes, names, origins


def ingest(con: duckdb.DuckDBPyConnection, run_id: str, path: Path | None = None) -> IngestResult:
    path = path or SAMPLE_DIR / "dishes.csv"
    sha = sha256_files([path])
    if already_loaded(con, sha, "sample"):
        return IngestResult("sample", skipped=True)
    dishes, names, origins = parse(path)
    with transaction(con):
        record_dataset(con, DATASET)
        delete_dataset_dishes(con, "sample")
        insert(con, "core.dishes", dishes)
        insert(con, "core.dish_names", names)
        insert(con, "core.dish_origins", origins)
        record_source(con, sha256=sha, kind="sample", path=path, rows_loaded=len(dishes), run_id=run_id)
    return IngestResult("sample", counts={"dishes": len(dishes)})


def remove(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the sample when real data is loaded, so the demo never mixes the two."""
    with transaction(con):
        delete_dataset_dishes(con, "sample")
        con.execute("DELETE FROM core.datasets WHERE dataset = 'sample'")
        con.execute("DELETE FROM meta.source_files WHERE kind = 'sample'")


DATASETS.add(
    "sample",
    Dataset(
        DATASET,
        lambda: [],  # shipped with the code (assets/sample): nothing to fetch
        lambda con, source, run_id, force=False: ingest(con, run_id, source / "dishes.csv" if source else None),
        no_items,
    ),
)
