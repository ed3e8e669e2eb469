"""`import-responses --format NAME FILE...`: one importer with a reader per answer-file format, registered in
`IMPORT_FORMATS` (the same `Registry` form as every pluggable kind). Every format keys its answers by one
`generation_id` (pipeline/answers/responses.py: model, item, language, variant), takes one file per transaction,
refuses what it would lose with one line, and is imported only when asked for.

Adding a format = its reader module (a function `(con, options, run_id, failures)` registered with
`@IMPORTERS.register(NAME)`), its line in `IMPORTERS`'s module map and one `IMPORT_FORMATS.add` line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from pipeline.core.run_settings import Options
from warehouse.registry import Registry

Importer = Callable[[duckdb.DuckDBPyConnection, Options, str, list], None]  # con, options, run id, refused files


# Format name -> the module whose import registers its reader (`@IMPORTERS.register(NAME)`), imported when a file
# of that format is imported: the readers' libraries stay out of the command line's start.
IMPORTERS: Registry[Importer] = Registry(
    "answer reader",
    modules={
        "worldcuisines": "pipeline.answers.responses",
        "uacuisine": "pipeline.answers.uacuisine",
        "culturemix": "pipeline.answers.culturemix",
        **dict.fromkeys(("zno", "multi30k", "vqa"), "pipeline.answers.items"),
        "borsch": "pipeline.answers.borsch",
        "borsch-ratings": "pipeline.answers.ratings",
    },
)

# Format name -> the module whose import registers (`@ITEM_BUILDERS.register(NAME)`) the function `(con, options)`
# building the items its answers name, where the format's dataset builds them on first use (BORSch).
ITEM_BUILDERS: Registry[Callable[[duckdb.DuckDBPyConnection, Options], None]] = Registry(
    "answer item builder", modules={"borsch": "pipeline.answers.borsch"}
)


@dataclass(frozen=True)
class ImportFormat:
    """What `--format NAME` reads and the named pipeline it runs in (pipeline/flow/steps.py PIPELINES): BORSch
    answers are scored at once; a UACUISINE table is also its own dataset, so each table is ingested, imported and
    scored on its own. Its reader is `IMPORTERS[NAME]`."""

    reads: str
    pipeline: str = "import"
    per_file: bool = False

    def run(self, con: duckdb.DuckDBPyConnection, options: Options, run_id: str, failures: list) -> None:
        IMPORTERS.get(options.response_format)(con, options, run_id, failures)

    def build_items(self, con: duckdb.DuckDBPyConnection, options: Options) -> None:
        """The items the files' answers name, where the format's dataset builds them on first use (BORSch): the
        ingest step calls this before the answers step imports, so that the items have one writer."""
        if options.response_format in ITEM_BUILDERS:
            ITEM_BUILDERS.get(options.response_format)(con, options)


IMPORT_FORMATS: Registry[ImportFormat] = Registry("answer format", ordered=True)
IMPORT_FORMATS.add("worldcuisines", ImportFormat("WorldCuisines prediction files (task2_oe_MODEL.jsonl, ...)"))
IMPORT_FORMATS.add("uacuisine", ImportFormat("a UACUISINE table", "import-uacuisine", per_file=True))
IMPORT_FORMATS.add("culturemix", ImportFormat("CultureMix answers (JSON lines)"))
for _name in ("zno", "multi30k", "vqa"):
    IMPORT_FORMATS.add(_name, ImportFormat(f"{_name} answers (JSON lines)"))
IMPORT_FORMATS.add(
    "borsch",
    ImportFormat(
        "BORSch answers: model, lang, task, variant, dish_id, response (+ images), JSON lines or CSV", "import-borsch"
    ),
)
IMPORT_FORMATS.add(
    "borsch-ratings",
    ImportFormat("BORSch human ratings (§5 Table 3, §3.2 kappa): model, annotator, kind, item, rating, lang (CSV)"),
)
