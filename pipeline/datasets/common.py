"""Shared pieces of every dataset's ingest: reading files with clear errors, the quirk report,
source-file bookkeeping and the dish rows every dataset writes. Database helpers (insert,
transaction, run ids) live in `warehouse.io`."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import duckdb
import polars as pl

from pipeline.core import limits
from pipeline.core.errors import DataError
from pipeline.core.text import display_name, norm_name
from warehouse.io import insert, scalar


@dataclass(frozen=True)
class Quirk:
    """Something in the input worth knowing about; `rejected` means the line was not loaded."""

    dataset: str
    file: str
    line: int | None
    kind: str
    message: str
    severity: str = "info"  # info | warning | rejected
    raw_text: str | None = None


@dataclass
class IngestResult:
    """What one ingestion did, for the command's summary and the tests."""

    name: str
    skipped: bool = False
    counts: dict[str, int] = field(default_factory=dict)
    quirks: list[Quirk] = field(default_factory=list)

    def quirk_counts(self) -> Counter:
        return Counter((q.kind, q.severity) for q in self.quirks)


@dataclass(frozen=True)
class DatasetInfo:
    """One row of core.datasets, declared next to the code that ingests it."""

    dataset: str
    title: str
    home: str
    license: str
    is_sample: bool = False


def read_xlsx(path: Path, expected_columns: list[str]) -> list[dict[str, str | None]]:
    """All cells as strings, one dict per data row; wrong files fail with the file named."""
    if not path.is_file():
        raise DataError(path, "file not found")
    limits.check_workbook(path)  # a zip bomb stops here, before the reader inflates it into memory
    try:
        frame = pl.read_excel(path, infer_schema_length=0)
    except Exception as exc:  # calamine raises its own error types for corrupt/truncated files
        raise DataError(path, f"cannot read as an .xlsx workbook (truncated or corrupt?): {exc}") from exc
    check_columns(path, frame.columns, expected_columns)
    return frame.select(expected_columns).to_dicts()


def read_csv(path: Path, expected_columns: list[str]) -> list[dict[str, str | None]]:
    if not path.is_file():
        raise DataError(path, "file not found")
    limits.check_csv(path)  # a NUL byte, an unclosed quote, an over-long line: named with their line
    try:
        frame = pl.read_csv(path, infer_schema_length=0)
    except Exception as exc:
        raise DataError(path, f"cannot read as CSV: {exc}") from exc
    check_columns(path, frame.columns, expected_columns)
    return frame.to_dicts()


def check_columns(path: Path, found: list[str], expected: list[str]) -> None:
    missing = [c for c in expected if c not in found]
    if missing:
        raise DataError(
            path,
            f"wrong column set: missing {missing}; expected {expected}, found {list(found)}",
        )


def sha256_files(paths: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def clean(value: str | None) -> str:
    return (value or "").strip()


def already_loaded(con: duckdb.DuckDBPyConnection, sha256: str, kind: str, scope: str = "") -> bool:
    return bool(
        scalar(
            con,
            "SELECT count(*) FROM meta.source_files WHERE sha256 = ? AND kind = ? AND scope = ?",
            [sha256, kind, scope],
        )
    )


def record_source(
    con: duckdb.DuckDBPyConnection,
    *,
    sha256: str,
    kind: str,
    path: Path | str,
    rows_loaded: int,
    run_id: str,
    scope: str = "",
    rows_rejected: int = 0,
) -> None:
    con.execute("DELETE FROM meta.source_files WHERE kind = ? AND scope = ?", [kind, scope])
    insert(
        con,
        "meta.source_files",
        [
            {
                "sha256": sha256,
                "kind": kind,
                "scope": scope,
                "path": str(path),
                "rows_loaded": rows_loaded,
                "rows_rejected": rows_rejected,
                "run_id": run_id,
            }
        ],
    )


def record_quirks(con: duckdb.DuckDBPyConnection, quirks: list[Quirk], run_id: str, replace_files: list[str]) -> None:
    """Quirks of a file replace that file's earlier report (a reload reports afresh)."""
    if replace_files:
        con.execute("DELETE FROM meta.ingest_reports WHERE file IN (SELECT unnest(?))", [replace_files])
    rows = [{**asdict(q), "run_id": run_id, "raw_text": (q.raw_text or None) and q.raw_text[:500]} for q in quirks]
    if rows:
        insert(con, "meta.ingest_reports", pl.DataFrame(rows, schema=_QUIRK_SCHEMA))


_QUIRK_SCHEMA = {
    "dataset": pl.String,
    "file": pl.String,
    "line": pl.Int64,
    "kind": pl.String,
    "message": pl.String,
    "severity": pl.String,
    "raw_text": pl.String,
    "run_id": pl.String,
}


def record_dataset(con: duckdb.DuckDBPyConnection, dataset: DatasetInfo) -> None:
    """The dataset's own row of core.datasets (replaced on every load)."""
    con.execute("DELETE FROM core.datasets WHERE dataset = ?", [dataset.dataset])
    insert(con, "core.datasets", [asdict(dataset)])


def delete_dataset_dishes(con: duckdb.DuckDBPyConnection, dataset: str) -> None:
    """Remove a dataset's dishes and what hangs off them, before loading a new version."""
    keys = "(SELECT dish_key FROM core.dishes WHERE dataset = ?)"
    for table in ("core.dish_origins", "core.dish_origin_nations", "core.dish_names", "core.dish_regions"):
        con.execute(f"DELETE FROM {table} WHERE dish_key IN {keys}", [dataset])
    con.execute(f"DELETE FROM core.ingested_images WHERE kind = 'real' AND dish_key IN {keys}", [dataset])
    con.execute("DELETE FROM core.parallel_dishes WHERE dataset = ?", [dataset])
    con.execute("DELETE FROM core.dishes WHERE dataset = ?", [dataset])


def dish_key(dataset: str, lang: str, dish_id: str) -> str:
    return f"{dataset}:{lang}:{dish_id}"


def name_row(key: str, lang: str, name: str, *, is_primary: bool) -> dict:
    """A core.dish_names row: the name as given, its display form and its comparison form."""
    return {
        "dish_key": key,
        "lang": lang,
        "name": name,
        "display_name": display_name(name),
        "norm_name": norm_name(name),
        "is_primary": is_primary,
    }


def to_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
