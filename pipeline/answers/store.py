"""The one writer of answers: core.generations rows, the models that gave them and the requests that failed.

Generated answers (pipeline/answers/generate.py, the imagine stage's descriptions and translations through it) and
imported ones (every `import-responses --format`) land here by the same functions, so the answers table has one
writer and one shape, whoever produced the answer.
"""

from __future__ import annotations

import duckdb
import polars as pl

from warehouse.io import insert

# core.generations as the generate stage writes it (imported answers fill a subset of it: IMPORTED_GENERATION_SCHEMA)
GENERATION_SCHEMA = {
    "generation_id": pl.String,
    "run_id": pl.String,
    "model_id": pl.String,
    "item_id": pl.String,
    "lang": pl.String,
    "variant": pl.String,
    "messages": pl.String,
    "response": pl.String,
    "finish_reason": pl.String,
    "tokens_in": pl.Int32,
    "tokens_out": pl.Int32,
    "latency_ms": pl.Float64,
    "origin": pl.String,
    "created_at": pl.Datetime("us"),
    "sample": pl.Int32,
}
IMPORTED_COLUMNS = ("generation_id", "run_id", "model_id", "item_id", "lang", "variant", "response", "origin")
IMPORTED_GENERATION_SCHEMA = {column: GENERATION_SCHEMA[column] for column in (*IMPORTED_COLUMNS, "created_at")}


def store_answers(con: duckdb.DuckDBPyConnection, answers: pl.DataFrame, *, replace: bool = True) -> int:
    """Append answers to core.generations inside the caller's transaction; `replace` first drops the rows with the
    same ids (a re-imported file replaces its answers: an id is a digest of model, item, language and variant).
    Generated answers are new keys by construction (cached keys are dropped before asking), so they skip it."""
    if replace and answers.height:
        con.execute(
            "DELETE FROM core.generations WHERE generation_id IN (SELECT unnest(?))",
            [answers["generation_id"].to_list()],
        )
    insert(con, "core.generations", answers)
    return answers.height


def register_imported_model(con: duckdb.DuckDBPyConnection, model: str, *, is_vision: bool = True) -> None:
    """A model known only by the name its imported answers give (backend `replay`), once."""
    con.execute(
        "INSERT INTO core.models (model_id, display_name, backend, path, is_vision) "
        "SELECT ?, ?, 'replay', NULL, ? WHERE NOT EXISTS (SELECT 1 FROM core.models WHERE model_id = ?)",
        [model, model, is_vision, model],
    )


def record_failure(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    task_id: str,
    item_id: str | None,
    lang: str,
    variant: str | None,
    stage: str,
    reason: str,
) -> None:
    """A request not answered, and why (`input`: its item had no readable image; `model`: the backend failed it,
    retried by the next run)."""
    con.execute(
        "INSERT INTO core.generation_failures (run_id, task_id, item_id, lang, variant, stage, reason) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [run_id, task_id, item_id, lang, variant, stage, reason[:1000]],
    )
