"""`import-responses --format uacuisine TABLE`: a UACUISINE table's model answers as imported answers.

The table is also its own dataset: pipeline/datasets/uacuisine.py reads it (`rows`) and its ingest writes the
dishes, items and gold; this reader stores the answers, one per dish, question, language and model, through the
answers' one writer (pipeline/answers/store.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.answers.formats import IMPORTERS
from pipeline.answers.store import IMPORTED_GENERATION_SCHEMA, register_imported_model, store_answers
from pipeline.core.output import say
from pipeline.core.run_settings import Options
from pipeline.datasets.common import Quirk, already_loaded, record_quirks, record_source, sha256_files
from pipeline.datasets.uacuisine import rows
from warehouse.io import transaction

IMPORT_KIND = "uacuisine_table"


@dataclass
class TableImport:
    path: Path
    skipped: bool = False
    answers: int = 0
    models: list[str] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)


def import_answers(con: duckdb.DuckDBPyConnection, path: Path, run_id: str) -> TableImport:
    """The table's model answers as imported generations (one per dish, question, language, model)."""
    table = rows(path)
    sha = sha256_files([path])
    if already_loaded(con, sha, IMPORT_KIND, scope=path.name):
        return TableImport(path, skipped=True)
    now = datetime.now(UTC).replace(tzinfo=None)
    generations = {}
    for row in table:
        key = json.dumps(["uacuisine", row.model, row.item_id, row.lang, row.variant])
        generation = hashlib.sha256(key.encode()).hexdigest()[:32]
        generations[generation] = {
            "generation_id": generation, "run_id": run_id, "model_id": row.model, "item_id": row.item_id,
            "lang": row.lang, "variant": row.variant, "response": row.answer, "origin": "import", "created_at": now,
        }  # fmt: skip
    result = TableImport(path, answers=len(generations), models=sorted({g["model_id"] for g in generations.values()}))
    with transaction(con):
        for model in result.models:
            register_imported_model(con, model)
        store_answers(con, pl.DataFrame(list(generations.values()), schema=IMPORTED_GENERATION_SCHEMA))
        record_quirks(con, result.quirks, run_id, replace_files=[path.name])
        record_source(con, sha256=sha, kind=IMPORT_KIND, scope=path.name, path=path, rows_loaded=len(generations),
                      run_id=run_id)  # fmt: skip
    return result


@IMPORTERS.register("uacuisine")
def import_tables(con: duckdb.DuckDBPyConnection, options: Options, run_id: str, failures: list) -> None:
    """A UACUISINE table holds its items and its answers: ingest read the items (the `import-uacuisine` pipeline
    runs it first), this reads the answers."""
    for path in options.responses:
        result = import_answers(con, path, run_id)
        if result.skipped:
            say("[dim]{}: already imported[/]", path.name)
        else:
            say("imported {}: {} answers of {}", path.name, result.answers, ", ".join(result.models))
