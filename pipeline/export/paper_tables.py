"""`export paper-tables --paper PAPER --out DIR`: one CSV per table and figure of a paper (warehouse/paper_tables/),
read from the published snapshot. WorldCuisines' published numbers are its own public files (scores/*.json), read
here from the data folder where it holds them (pipeline/score/paper_scores.py reads them the one way)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.score.paper_scores import FILE_OF_TASK, published_table
from warehouse import paper_tables
from warehouse.db import Warehouse
from warehouse.paper_tables.worldcuisines import TASK_OF_TABLE

SCORES_SUFFIX = "_accuracy_{}.json"


def worldcuisines_published(scores_dir: Path) -> pl.DataFrame:
    """(table, row, column, published): every cell of every model's published task-2 accuracies in `scores_dir`;
    empty when the folder is absent (the export then says so)."""
    rows = []
    for table, task in TASK_OF_TABLE.items():
        suffix = SCORES_SUFFIX.format(FILE_OF_TASK[task])
        for path in sorted(scores_dir.glob(f"*{suffix}")):
            model = path.name.removesuffix(suffix)
            rows += [(table, model, lang, value) for lang, value in published_table(scores_dir, model, task).items()]
    schema = {"table": pl.String, "row": pl.String, "column": pl.String, "published": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def export(warehouse: Warehouse, paper: str, out: Path, data: Path | None) -> tuple[dict[str, int], str | None]:
    """Write the paper's tables into `out`; returns the rows per file and, for WorldCuisines without its scores
    folder, a line saying why `published` is empty."""
    paper_tables.tables_of(paper)  # an unknown paper fails before anything is opened
    extra, missing = None, None
    if paper == "worldcuisines":
        scores = (data or Path()) / "worldcuisines" / "scores"
        if scores.is_dir():
            extra = worldcuisines_published(scores)
        else:
            missing = f"no {scores} folder: WorldCuisines' published accuracies left empty (give --data DIR)"
    con = warehouse.reader()
    try:
        return paper_tables.write(con, paper, out, extra), missing
    finally:
        con.close()
