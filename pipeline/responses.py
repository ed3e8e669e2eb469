"""Importing answers produced elsewhere (the `replay` path): WorldCuisines task2_oe_MODEL.jsonl.

Real files are messy: ids come as strings or numbers, a prediction can be missing or not a
string. Each line is checked; a malformed one stops the file with FILE:LINE and the reason, or,
with skip_bad_lines, is recorded in meta.ingest_reports and left out. One file is one
transaction, and its content hash makes a re-import of the same bytes a no-op.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.datasets.common import Quirk, already_loaded, record_quirks, record_source, sha256_files
from pipeline.datasets.worldcuisines import TASK_ID
from pipeline.errors import DataError
from warehouse.io import insert, scalar, transaction

FORMATS = ("worldcuisines",)
MODEL_FROM_FILENAME = re.compile(r"^task2_oe_(?P<model>.+?)(?:_pred)?\.jsonl$")
IMPORT_KIND = "worldcuisines_responses"


@dataclass(frozen=True)
class ImportedAnswer:
    """One accepted line."""

    line_number: int
    qa_id: str
    lang: str
    prediction: str | None
    answer: str | None


@dataclass
class FileImport:
    path: Path
    model: str
    skipped: bool = False
    accepted: list[ImportedAnswer] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)

    @property
    def rejected(self) -> list[Quirk]:
        return [q for q in self.quirks if q.severity == "rejected"]


def model_from_path(path: Path) -> str:
    match = MODEL_FROM_FILENAME.match(path.name)
    if not match:
        raise DataError(path, "cannot tell the model from the file name: name it task2_oe_MODEL.jsonl or pass --model")
    return match.group("model")


def parse_line(text: str) -> ImportedAnswer | str:
    """An accepted answer, or the reason the line is malformed."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    qa_id = _qa_id(record.get("qa_id"))
    if qa_id is None:
        return f"qa_id must be a whole number (string or number), got {record.get('qa_id')!r}"
    lang = record.get("lang")
    if not isinstance(lang, str) or not lang.strip():
        return f"lang must be a non-empty string, got {lang!r}"
    prediction = record.get("prediction")
    if isinstance(prediction, (list, dict)):
        return f"prediction must be text, got a JSON {type(prediction).__name__}"
    if prediction is not None and not isinstance(prediction, str):
        prediction = json.dumps(prediction)  # a bare number or boolean: keep what the model said, as text
    answer = record.get("answer")
    return ImportedAnswer(
        0, qa_id, lang.strip().lower().replace("-", "_"), prediction, answer if isinstance(answer, str) else None
    )


def read_file(path: Path, model: str, known_items: set[str], skip_bad_lines: bool) -> FileImport:
    result = FileImport(path=path, model=model)
    first_line_of: dict[tuple[str, str], int] = {}
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115 - closed below, errors name the file
    except OSError as exc:
        raise DataError(path, f"cannot open: {exc.strerror}") from exc
    with handle:
        try:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                parsed = parse_line(text)
                if isinstance(parsed, ImportedAnswer):
                    parsed = ImportedAnswer(number, parsed.qa_id, parsed.lang, parsed.prediction, parsed.answer)
                    key = (parsed.qa_id, parsed.lang)
                    if parsed.qa_id not in known_items:
                        parsed = f"qa_id {parsed.qa_id} is not a WorldCuisines task-2 item"
                    elif key in first_line_of:
                        parsed = (
                            f"second answer for qa_id {key[0]} in lang {key[1]} (first on line {first_line_of[key]})"
                        )
                    else:
                        first_line_of[key] = number
                if isinstance(parsed, str):
                    if not skip_bad_lines:
                        raise DataError(path, parsed + " (use --skip-bad-lines to import the other lines)", line=number)
                    result.quirks.append(
                        Quirk("worldcuisines", path.name, number, "bad_line", parsed, "rejected", text.rstrip("\n"))
                    )
                    continue
                if parsed.prediction is None:
                    result.quirks.append(
                        Quirk(
                            "worldcuisines",
                            path.name,
                            number,
                            "missing_prediction",
                            "no prediction: imported as an empty answer",
                            "info",
                        )
                    )
                result.accepted.append(parsed)
        except UnicodeDecodeError as exc:
            raise DataError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    return result


def generation_id(model: str, item_id: str, lang: str, variant: str) -> str:
    """Imported answers are keyed by what they answer; a re-import replaces, never duplicates."""
    key = json.dumps(["import", model, item_id, lang, variant])
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def import_file(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    run_id: str,
    model: str | None = None,
    skip_bad_lines: bool = False,
) -> FileImport:
    model = model or model_from_path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    sha = sha256_files([path])
    if already_loaded(con, sha, IMPORT_KIND, scope=model):
        return FileImport(path=path, model=model, skipped=True)
    variants = dict(con.execute("SELECT source_ref, variant FROM core.items WHERE task_id = ?", [TASK_ID]).fetchall())
    if not variants:
        raise DataError(
            path,
            "no WorldCuisines items in the warehouse: run `python -m pipeline ingest worldcuisines --source DIR` first",
        )
    started = time.perf_counter()
    result = read_file(path, model, set(variants), skip_bad_lines)
    now = datetime.now(UTC).replace(tzinfo=None)
    rows = result.accepted
    generations = pl.DataFrame(
        {
            "generation_id": [generation_id(model, f"{TASK_ID}:{a.qa_id}", a.lang, variants[a.qa_id]) for a in rows],
            "run_id": [run_id] * len(rows),
            "model_id": [model] * len(rows),
            "item_id": [f"{TASK_ID}:{a.qa_id}" for a in rows],
            "lang": [a.lang for a in rows],
            "variant": [variants[a.qa_id] for a in rows],
            "response": [a.prediction for a in rows],
            "origin": ["import"] * len(rows),
            "created_at": [now] * len(rows),
        },
        schema_overrides={"response": pl.String},
    )
    raw = pl.DataFrame(
        {
            "file_sha256": [sha] * len(rows),
            "line_number": [a.line_number for a in rows],
            "model": [model] * len(rows),
            "qa_id": [a.qa_id for a in rows],
            "lang": [a.lang for a in rows],
            "prediction": [a.prediction for a in rows],
            "answer": [a.answer for a in rows],
        },
        schema_overrides={"prediction": pl.String, "answer": pl.String},
    )
    with transaction(con):
        con.execute("DELETE FROM raw.imported_responses WHERE model = ?", [model])
        insert(con, "raw.imported_responses", raw)
        if not scalar(con, "SELECT count(*) FROM core.models WHERE model_id = ?", [model]):
            insert(
                con,
                "core.models",
                [{"model_id": model, "display_name": model, "backend": "replay", "path": None, "is_vision": True}],
            )
        con.execute(
            "DELETE FROM core.generations WHERE generation_id IN (SELECT unnest(?))",
            [generations["generation_id"].to_list()],
        )
        insert(con, "core.generations", generations)
        insert(
            con,
            "core.generation_runs",
            [
                {
                    "run_id": f"{run_id}:{model}",
                    "model_id": model,
                    "task_id": TASK_ID,
                    "backend": "replay",
                    "settings": json.dumps({"file": str(path), "sha256": sha}),
                    "n_requested": len(rows) + len(result.rejected),
                    "n_generated": len(rows),
                    "n_skipped": 0,
                    "n_failed": len(result.rejected),
                    "tokens_in": None,
                    "tokens_out": None,
                    "wall_seconds": time.perf_counter() - started,
                    "started_at": now,
                    "finished_at": datetime.now(UTC).replace(tzinfo=None),
                }
            ],
        )
        record_quirks(con, result.quirks, run_id, replace_files=[path.name])
        record_source(
            con,
            sha256=sha,
            kind=IMPORT_KIND,
            scope=model,
            path=path,
            rows_loaded=len(rows),
            rows_rejected=len(result.rejected),
            run_id=run_id,
        )
    return result


def _qa_id(value: object) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str) and re.fullmatch(r"\s*\d+(\.0+)?\s*", value):
        return str(int(float(value)))
    return None
