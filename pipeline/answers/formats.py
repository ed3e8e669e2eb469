"""`import-responses --format NAME FILE...`: one importer with a reader per answer-file format, registered in
`IMPORT_FORMATS` (the same `Registry` form as every pluggable kind). Every format keys its answers by one
`generation_id` (pipeline/answers/responses.py: model, item, language, variant), takes one file per transaction,
refuses what it would lose with one line, and is imported only when asked for.

Adding a format = its reader module (a function `(con, options, run_id, failures)`) + one `IMPORT_FORMATS.add` line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from pipeline.core.run_settings import Options
from warehouse.registry import Registry, load_function

Importer = Callable[[duckdb.DuckDBPyConnection, Options, str, list], None]  # con, options, run id, refused files


@dataclass(frozen=True)
class ImportFormat:
    """What `--format NAME` reads, the function reading it ("module:function"), and the named pipeline it runs in
    (pipeline/flow/steps.py PIPELINES): BORSch answers are scored at once; a UACUISINE table is also its own
    dataset, so each table is ingested, imported and scored on its own."""

    reads: str
    importer: str
    pipeline: str = "import"
    per_file: bool = False
    items: str | None = None  # "module:function" `(con, options)`: the items its answers need, built by ingest

    def run(self, con: duckdb.DuckDBPyConnection, options: Options, run_id: str, failures: list) -> None:
        function: Importer = load_function(self.importer)
        function(con, options, run_id, failures)

    def build_items(self, con: duckdb.DuckDBPyConnection, options: Options) -> None:
        """The items the files' answers name, where the format's dataset builds them on first use (BORSch): the
        ingest step calls this before the answers step imports, so that the items have one writer."""
        if self.items is not None:
            load_function(self.items)(con, options)


IMPORT_FORMATS: Registry[ImportFormat] = Registry("answer format", ordered=True)
IMPORT_FORMATS.add(
    "worldcuisines",
    ImportFormat(
        "WorldCuisines prediction files (task2_oe_MODEL.jsonl, ...)", "pipeline.answers.responses:import_answers"
    ),
)
IMPORT_FORMATS.add(
    "uacuisine",
    ImportFormat("a UACUISINE table", "pipeline.answers.uacuisine:import_tables", "import-uacuisine", per_file=True),
)
IMPORT_FORMATS.add(
    "culturemix", ImportFormat("CultureMix answers (JSON lines)", "pipeline.answers.culturemix:import_answers")
)
for _name in ("zno", "multi30k", "vqa"):
    IMPORT_FORMATS.add(_name, ImportFormat(f"{_name} answers (JSON lines)", "pipeline.answers.items:import_answers"))
IMPORT_FORMATS.add(
    "borsch",
    ImportFormat(
        "BORSch answers: model, lang, task, variant, dish_id, response (+ images), JSON lines or CSV",
        "pipeline.answers.borsch:import_answers",
        "import-borsch",
        items="pipeline.answers.borsch:build_items",
    ),
)

IMPORT_FORMATS.add(
    "borsch-ratings",
    ImportFormat(
        "BORSch human ratings (§5 Table 3, §3.2 kappa): model, annotator, kind, item, rating, lang (CSV)",
        "pipeline.answers.ratings:import_ratings",
    ),
)
