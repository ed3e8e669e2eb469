"""Each paper's tables and figures as long frames, computed from the published marts, beside the numbers the
paper prints: the `export paper-tables` contract and the study pages' "ours beside published" tables.

One `PaperTable` per table or figure id as the paper numbers it (`table2`, `fig4`, ...), declared in the paper's
module (borsch.py, culturemix.py, zno_vision.py, worldcuisines.py) as one SQL query over the marts that returns
`row, column, value` and any of `n, low, high, method, note` (and `published` where a mart already holds the printed
number, BORSch Table 4). The printed numbers are transcribed once, with their §, in published.csv (paper, table,
row, column, published, section); WorldCuisines publishes its numbers as files of its own (scores/*.json), which
the caller reads and hands in (`extra_published`). A cell the paper prints that we do not compute is a row with
`published` and no `value`, so a reader sees both sides of every comparison.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

import duckdb
import polars as pl

from warehouse.errors import WarehouseError
from warehouse.marts import contract
from warehouse.paper_tables import borsch, culturemix, worldcuisines, zno_vision  # noqa: F401  (they declare)
from warehouse.paper_tables.declare import TABLES, PaperTable

# The contract, declared once in paper_tables.toml (its columns and types, its export and how it names its files):
# `export paper-tables` writes these columns first, in this order (extend at the end, never rename).
DECLARATION = Path(__file__).with_name("paper_tables.toml")
CONTRACT = contract.read(DECLARATION, schema="paper_tables").tables["paper_tables.cells"]
COLUMNS = CONTRACT.names
OPTIONAL = ("published", "n", "low", "high", "method", "note")
PAPERS = ("borsch", "zno-vision", "culturemix", "worldcuisines")
PUBLISHED_FILE = Path(__file__).with_name("published.csv")
PUBLISHED_COLUMNS = ("paper", "table", "row", "column", "published", "section")
_POLARS_TYPES = {"VARCHAR": pl.String, "DOUBLE": pl.Float64, "BIGINT": pl.Int64}
SCHEMA = {name: _POLARS_TYPES[kind] for name, kind in CONTRACT.columns.items()}


def tables_of(paper: str) -> list[PaperTable]:
    """The paper's tables in the order the module declares them; an unknown paper names the known ones."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    return [TABLES[key] for key in TABLES.names() if key.startswith(f"{paper}/")]


@functools.cache
def _published_rows() -> tuple[dict[str, str], ...]:
    with PUBLISHED_FILE.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != PUBLISHED_COLUMNS:
            raise ValueError(f"{PUBLISHED_FILE}: expected the columns {', '.join(PUBLISHED_COLUMNS)}")
        return tuple(reader)


def published(paper: str | None = None, table: str | None = None) -> pl.DataFrame:
    """The printed numbers (published.csv): paper, table, row, column, published, section."""
    frame = pl.DataFrame(
        list(_published_rows()),
        schema={"paper": pl.String, "table": pl.String, "row": pl.String, "column": pl.String,
                "published": pl.String, "section": pl.String},
    ).with_columns(pl.col("published").cast(pl.Float64))  # fmt: skip
    if paper is not None:
        frame = frame.filter(pl.col("paper") == paper)
    if table is not None:
        frame = frame.filter(pl.col("table") == table)
    return frame


def frame(
    con: duckdb.DuckDBPyConnection, declared: PaperTable, extra_published: pl.DataFrame | None = None
) -> pl.DataFrame:
    """The table in long form, contract columns first: our cells (full outer joined on row and column with the
    printed ones) and the printed cells we do not compute. `extra_published`: (table, row, column, published) read
    by the caller from a paper's own files (WorldCuisines' scores)."""
    ours = con.sql(declared.sql).pl()
    for name in OPTIONAL:
        if name not in ours.columns:
            ours = ours.with_columns(pl.lit(None).alias(name))
    ours = ours.select(
        pl.col("row").cast(pl.String),
        pl.col("column").cast(pl.String),
        pl.col("value").cast(pl.Float64),
        pl.col("published").cast(pl.Float64).alias("published_in_mart"),
        *(pl.col(name).cast(SCHEMA[name]) for name in ("n", "low", "high", "method", "note")),
    )
    printed = published(declared.paper, declared.table).select("row", "column", "published")
    if extra_published is not None:
        extra = extra_published.filter(pl.col("table") == declared.table).select("row", "column", "published")
        printed = pl.concat([printed, extra.with_columns(pl.col("published").cast(pl.Float64))])
    joined = ours.join(printed, on=["row", "column"], how="full", coalesce=True)
    joined = joined.with_columns(pl.coalesce("published_in_mart", "published").alias("published"))
    return (
        joined.with_columns(pl.lit(declared.paper).alias("paper"), pl.lit(declared.table).alias("table"))
        .select(COLUMNS)
        .cast(SCHEMA)
    )


def write(
    con: duckdb.DuckDBPyConnection, paper: str, out: Path, extra_published: pl.DataFrame | None = None
) -> dict[str, int]:
    """`PAPER_ID.csv` for every table and figure of the paper, in `out`; returns rows written per file name.
    Every table is computed and passes the contract's data tests (paper_tables.toml) before any file is written;
    each file is written beside as .tmp and renamed into place, so a killed export leaves no half file."""
    tables = {declared.table: frame(con, declared, extra_published) for declared in tables_of(paper)}
    scratch = duckdb.connect()  # one in-memory database tests every table (a connection each cost ~25 ms)
    try:
        for name, table in tables.items():
            check(table, f"{paper}_{name}", scratch)
    finally:
        scratch.close()
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, table in tables.items():
        target = out / CONTRACT.export.files.name.format(paper=paper, table=name)
        partial = target.with_suffix(".csv.tmp")
        table.write_csv(partial)
        partial.replace(target)
        written[target.name] = table.height
    return written


def check(table: pl.DataFrame, name: str, scratch: duckdb.DuckDBPyConnection | None = None) -> None:
    """The contract's data tests (not null, unique, accepted values: the marts' kinds, warehouse/marts/contract.py)
    on one paper table's cells, as a publish runs a mart's: the first failure is one line naming the table, the test
    and a sample of the offending values, and nothing is written. `scratch`: an in-memory database to test in (a new
    one when not given)."""
    tests = list(CONTRACT.tests)
    if not tests:
        return
    own = scratch is None
    scratch = duckdb.connect() if own else scratch
    try:
        scratch.execute("CREATE SCHEMA IF NOT EXISTS paper_tables")
        scratch.register("cells_frame", table)
        scratch.execute("CREATE OR REPLACE TABLE paper_tables.cells AS SELECT * FROM cells_frame")
        scratch.unregister("cells_frame")
        failed = contract.failed_data_tests(scratch, tests)
    finally:
        if own:
            scratch.close()
    if failed:
        test, n, sample = failed[0]
        raise WarehouseError(
            f"paper table {name}: data test failed: {test.label}: {n:,} offending rows, e.g. {sample} — "
            "nothing was written"
        )
