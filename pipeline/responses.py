"""Importing answers produced elsewhere (the `replay` path): WorldCuisines prediction files.

The published file name says what a file answers: `task2_oe_MODEL.jsonl` (which country is this
dish from, open-ended), `task1_oe_MODEL.jsonl` (what is this dish called), `task1_mc_`/`task2_mc_`
(multiple choice); `--task` says it for a file named otherwise. Task-1 answers are tied to their
dish by the gold name on the line (see pipeline/ingest/worldcuisines_task1.py) and keep their qa_id
as the variant.

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
from pipeline.datasets.worldcuisines import TASK1_ID, TASK_ID
from pipeline.errors import DataError
from warehouse.io import insert, scalar, transaction

FORMATS = ("worldcuisines",)
FILE_NAME = re.compile(r"^(?P<task>task[12])_(?P<mode>oe|mc)_(?P<model>.+?)(?:_pred)?\.jsonl$")
# (published task, open-ended or multiple choice) -> the task its answers belong to
TASKS = {
    ("task2", "oe"): TASK_ID,
    ("task1", "oe"): TASK1_ID,
    ("task2", "mc"): "worldcuisines.origin_vqa_mc",
    ("task1", "mc"): "worldcuisines.dish_name_vqa_mc",
}
IMPORTABLE = (TASK_ID, TASK1_ID)  # multiple-choice answers: see pipeline/extract/choice.py (in progress)
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
    match = FILE_NAME.match(path.name)
    if not match:
        raise DataError(path, "cannot tell the model from the file name: name it task2_oe_MODEL.jsonl or pass --model")
    return match.group("model")


def task_from_path(path: Path) -> str | None:
    """The task a published file name says its answers belong to (None: the name does not say)."""
    match = FILE_NAME.match(path.name)
    return TASKS[(match.group("task"), match.group("mode"))] if match else None


def importable(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """(files to import, files left out): a file is imported when its name says a task this version
    imports (the demo's published predictions also hold multiple-choice files)."""
    files = [p for p in paths if task_from_path(p) in IMPORTABLE]
    return files, [p for p in paths if p not in files]


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


def read_file(path: Path, model: str, resolve, skip_bad_lines: bool) -> FileImport:
    """The accepted lines of one file; `resolve(answer)` is the (item_id, variant) an answer belongs
    to, or the reason it belongs to none."""
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
                    target = resolve(parsed)
                    if isinstance(target, str):
                        parsed = target
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
    task: str | None = None,
) -> FileImport:
    model = model or model_from_path(path)
    task_id = task or task_from_path(path) or TASK_ID
    if task_id not in IMPORTABLE:
        raise DataError(path, f"answers of {task_id} cannot be imported yet (known: {', '.join(IMPORTABLE)})")
    if not path.is_file():
        raise DataError(path, "file not found")
    sha = sha256_files([path])
    scope = model if task_id == TASK_ID else f"{task_id}:{model}"
    if already_loaded(con, sha, IMPORT_KIND, scope=scope):
        return FileImport(path=path, model=model, skipped=True)
    resolve = _task1_items(con, path) if task_id == TASK1_ID else _task2_items(con, path)
    started = time.perf_counter()
    result = read_file(path, model, resolve, skip_bad_lines)
    now = datetime.now(UTC).replace(tzinfo=None)
    rows = result.accepted
    targets = [resolve(a) for a in rows]  # (item_id, variant) of each accepted answer
    generations = pl.DataFrame(
        {
            "generation_id": [
                generation_id(model, item, a.lang, variant) for a, (item, variant) in zip(rows, targets, strict=True)
            ],
            "run_id": [run_id] * len(rows),
            "model_id": [model] * len(rows),
            "item_id": [item for item, _ in targets],
            "lang": [a.lang for a in rows],
            "variant": [variant for _, variant in targets],
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
        con.execute(
            "DELETE FROM raw.imported_responses WHERE model = ? AND file_sha256 IN (SELECT sha256 FROM "
            "meta.source_files WHERE kind = ? AND scope = ?)",
            [model, IMPORT_KIND, scope],
        )
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
                    "run_id": f"{run_id}:{task_id}:{model}",
                    "model_id": model,
                    "task_id": task_id,
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
            scope=scope,
            path=path,
            rows_loaded=len(rows),
            rows_rejected=len(result.rejected),
            run_id=run_id,
        )
    return result


def _task2_items(con: duckdb.DuckDBPyConnection, path: Path):
    """Task-2 answers belong to the item with their qa_id, in its fixed prompt variant."""
    variants = dict(con.execute("SELECT source_ref, variant FROM core.items WHERE task_id = ?", [TASK_ID]).fetchall())
    if not variants:
        raise DataError(
            path,
            "no WorldCuisines items in the warehouse: run `python -m pipeline ingest worldcuisines --source DIR` first",
        )

    def resolve(answer: ImportedAnswer) -> tuple[str, str] | str:
        if answer.qa_id not in variants:
            return f"qa_id {answer.qa_id} is not a WorldCuisines task-2 item"
        return f"{TASK_ID}:{answer.qa_id}", variants[answer.qa_id]

    return resolve


def _task1_items(con: duckdb.DuckDBPyConnection, path: Path):
    """Task-1 answers belong to the dish whose gold name in the line's language is the line's
    `answer` (the published answers number questions differently from the published set)."""
    by_gold = {
        (lang, text): item_id
        for item_id, lang, text in con.execute(
            "SELECT t.item_id, t.lang, t.text FROM core.item_gold_text t JOIN core.items i USING (item_id) "
            "WHERE i.task_id = ?",
            [TASK1_ID],
        ).fetchall()
    }
    if not by_gold:
        raise DataError(
            path,
            "no WorldCuisines task-1 items in the warehouse: run `python -m pipeline ingest worldcuisines "
            "--source DIR` with eval/small_eval_task1/ present first",
        )

    def resolve(answer: ImportedAnswer) -> tuple[str, str] | str:
        item_id = by_gold.get((answer.lang, (answer.answer or "").strip()))
        if item_id is None:
            return f"no task-1 dish has the gold name {answer.answer!r} in {answer.lang}"
        return item_id, answer.qa_id

    return resolve


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
