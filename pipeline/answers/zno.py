"""`import-responses --format zno FILE...`: ZNO exam answers run elsewhere, one JSON object a line:

    {"model": "gemini-1.5-pro", "id": "<the question's id>", "response": "... [Б]"}

`id` is the dataset's own question id (the `id` column, or `<split>-<row>` when the files have none: see
pipeline/datasets/zno.py); `response` is the model's whole answer, or null for a missing one. Both our
reading and the paper's (last bracketed letter) are scored by `score`. A bad line stops the file with
its line number (nothing imported) unless --skip-bad-lines, which records it as a rejected quirk.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.datasets.common import Quirk, already_loaded, record_quirks, record_source, sha256_files
from pipeline.datasets.zno import TASK_ID
from pipeline.errors import DataError
from pipeline.output import say
from warehouse.io import insert, transaction

IMPORT_KIND = "zno_answers"


@dataclass
class ZnoImport:
    path: Path
    skipped: bool = False
    rows: list[dict] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)

    @property
    def models(self) -> list[str]:
        return sorted({row["model_id"] for row in self.rows})


def generation_id(model: str, item_id: str) -> str:
    return hashlib.sha256(json.dumps(["zno", model, item_id, "uk", "paper"]).encode()).hexdigest()[:32]


def _parse(text: str, items: dict[str, str]) -> tuple[str, str, str | None] | str:
    """(model, item_id, response), or why the line cannot be imported."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    model, ref, response = record.get("model"), record.get("id"), record.get("response")
    if not isinstance(model, str) or not model.strip():
        return f"model must be a non-empty string, got {model!r}"
    if not isinstance(ref, str | int) or isinstance(ref, bool) or str(ref).strip() not in items:
        return f"id {ref!r} is not a ZNO question of the warehouse (ids as in the dataset's files)"
    if response is not None and not isinstance(response, str):
        return f"response must be text or null, got a JSON {type(response).__name__}"
    return model.strip(), items[str(ref).strip()], response


def import_file(con: duckdb.DuckDBPyConnection, path: Path, run_id: str, skip_bad_lines: bool = False) -> ZnoImport:
    if not path.is_file():
        raise DataError(path, "file not found")
    sha = sha256_files([path])
    if already_loaded(con, sha, IMPORT_KIND, scope=sha):
        return ZnoImport(path, skipped=True)
    items = dict(con.execute("SELECT source_ref, item_id FROM core.items WHERE task_id = ?", [TASK_ID]).fetchall())
    if not items:
        raise DataError(
            path, "no ZNO questions in the warehouse: run `python -m pipeline ingest zno --source DIR` first"
        )
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    result, seen, now = ZnoImport(path), {}, datetime.now(UTC).replace(tzinfo=None)
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        parsed = _parse(text, items)
        if not isinstance(parsed, str) and parsed[:2] in seen:
            parsed = f"second answer of {parsed[0]} to question {parsed[1]} (first on line {seen[parsed[:2]]})"
        if isinstance(parsed, str):
            if not skip_bad_lines:
                raise DataError(path, parsed + " (use --skip-bad-lines to import the other lines)", line=number)
            result.quirks.append(Quirk("zno", path.name, number, "bad_line", parsed, "rejected", text))
            continue
        model, item_id, response = parsed
        seen[(model, item_id)] = number
        result.rows.append({"generation_id": generation_id(model, item_id), "run_id": f"{run_id}:{model}",
                            "model_id": model, "item_id": item_id, "lang": "uk", "variant": "paper",
                            "response": response, "origin": "import", "created_at": now})  # fmt: skip
    if not result.rows:
        raise DataError(path, "no answer imported (an empty file, or every line rejected)")
    with transaction(con):
        for model in result.models:
            con.execute(
                "INSERT INTO core.models (model_id, display_name, backend, is_vision) "
                "SELECT ?, ?, 'replay', true WHERE NOT EXISTS (SELECT 1 FROM core.models WHERE model_id = ?)",
                [model, model, model],
            )
        ids = [row["generation_id"] for row in result.rows]
        con.execute("DELETE FROM core.generations WHERE generation_id IN (SELECT unnest(?))", [ids])
        insert(con, "core.generations", pl.DataFrame(result.rows, schema=_GENERATION_SCHEMA))
        record_quirks(con, result.quirks, run_id, replace_files=[path.name])
        record_source(con, sha256=sha, kind=IMPORT_KIND, path=path, rows_loaded=len(result.rows),
                      rows_rejected=len(result.quirks), run_id=run_id, scope=sha)  # fmt: skip
    return result


def import_files(con: duckdb.DuckDBPyConnection, files: tuple[Path, ...], run_id: str, skip_bad_lines: bool) -> int:
    """Each file in its own transaction; returns how many were new."""
    imported = 0
    for path in files:
        result = import_file(con, path, run_id, skip_bad_lines)
        if result.skipped:
            say("[dim]{}: already imported[/]", path.name)
            continue
        imported += 1
        rejected = f", [yellow]{len(result.quirks)} lines rejected[/]" if result.quirks else ""
        say("imported {}: {} ZNO answers of {}" + rejected, path.name, len(result.rows), ", ".join(result.models))
    return imported


_GENERATION_SCHEMA = {
    "generation_id": pl.String,
    "run_id": pl.String,
    "model_id": pl.String,
    "item_id": pl.String,
    "lang": pl.String,
    "variant": pl.String,
    "response": pl.String,
    "origin": pl.String,
    "created_at": pl.Datetime("us"),
}
