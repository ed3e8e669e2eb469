"""`import-responses --format zno|multi30k|vqa FILE...`: answers run elsewhere to the ZNO-Vision
study's benchmarks, one JSON object a line:

    {"model": "gemini-1.5-pro", "id": "<the item's id in its dataset>", "response": "... [Б]", "lang": "uk"}

`id` is the dataset's own id: a ZNO question's `id` (or `<split>-<row>` when its files have none,
pipeline/datasets/zno.py), a Multi30K image as `<split>/<image file>` (pipeline/datasets/multi30k.py),
a VQA `question_id` (pipeline/datasets/vqa.py). `lang` is the prompt's language (ZNO: uk only; the others
uk or en, default uk). `response` is the model's whole answer, or null for a missing one. A bad line stops
the file with its line number (nothing imported) unless --skip-bad-lines, which records it as a rejected
quirk; the same bytes again are a no-op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.answers.formats import IMPORTERS
from pipeline.answers.responses import generation_id
from pipeline.answers.store import IMPORTED_GENERATION_SCHEMA, register_imported_model, store_answers
from pipeline.core import limits
from pipeline.core.errors import DataError
from pipeline.core.output import say
from pipeline.core.run_settings import Options
from pipeline.datasets.common import Quirk, already_loaded, record_quirks, record_source, sha256_files
from warehouse.io import transaction


@dataclass(frozen=True)
class AnswerFormat:
    """Which task a format's lines answer, the prompt languages it allows and the prompt variant stored."""

    task_id: str
    langs: tuple[str, ...]
    variant: str
    ingest_hint: str


FORMATS = {
    "zno": AnswerFormat("zno.exam", ("uk",), "paper", "ingest zno --source DIR"),
    "multi30k": AnswerFormat("multi30k.caption", ("uk", "en"), "1", "ingest multi30k --source DIR"),
    "vqa": AnswerFormat("vqa.answer", ("uk", "en"), "1", "ingest vqa --source DIR"),
}


@dataclass
class ItemsImport:
    path: Path
    skipped: bool = False
    rows: list[dict] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)

    @property
    def models(self) -> list[str]:
        return sorted({row["model_id"] for row in self.rows})


def _parse(text: str, items: dict[str, str], spec: AnswerFormat) -> tuple[str, str, str, str | None] | str:
    """(model, item_id, lang, response), or why the line cannot be imported."""
    try:
        record = limits.json_line(text)
    except limits.UnreadableJson as exc:
        return str(exc)
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    model, ref, response = record.get("model"), record.get("id"), record.get("response")
    if not isinstance(model, str) or not model.strip():
        return f"model must be a non-empty string, got {model!r}"
    if not isinstance(ref, str | int) or isinstance(ref, bool) or str(ref).strip() not in items:
        return f"id {ref!r} is not an item of {spec.task_id} in the warehouse (ids as in the dataset's files)"
    lang = record.get("lang", spec.langs[0])
    if lang not in spec.langs:
        return f"lang must be one of {', '.join(spec.langs)}, got {lang!r}"
    if response is not None and not isinstance(response, str):
        return f"response must be text or null, got a JSON {type(response).__name__}"
    return model.strip(), items[str(ref).strip()], lang, response


def import_file(
    con: duckdb.DuckDBPyConnection, path: Path, run_id: str, answer_format: str, skip_bad_lines: bool = False
) -> ItemsImport:
    spec, kind = FORMATS[answer_format], f"{answer_format}_answers"
    if not path.is_file():
        raise DataError(path, "file not found")
    sha = sha256_files([path])
    if already_loaded(con, sha, kind, scope=sha):
        return ItemsImport(path, skipped=True)
    items = dict(con.execute("SELECT source_ref, item_id FROM core.items WHERE task_id = ?", [spec.task_id]).fetchall())
    if not items:
        raise DataError(
            path, f"no items of {spec.task_id} in the warehouse: run `python -m pipeline {spec.ingest_hint}`"
        )
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    result, seen, now = ItemsImport(path), {}, datetime.now(UTC).replace(tzinfo=None)
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        parsed = _parse(text, items, spec)
        if not isinstance(parsed, str) and parsed[:3] in seen:
            parsed = f"second answer of {parsed[0]} to {parsed[1]} in {parsed[2]} (first on line {seen[parsed[:3]]})"
        if isinstance(parsed, str):
            if not skip_bad_lines:
                raise DataError(path, parsed + " (use --skip-bad-lines to import the other lines)", line=number)
            result.quirks.append(Quirk(answer_format, path.name, number, "bad_line", parsed, "rejected", text))
            continue
        model, item_id, lang, response = parsed
        seen[(model, item_id, lang)] = number
        result.rows.append({"generation_id": generation_id(model, item_id, lang, spec.variant),
                            "run_id": f"{run_id}:{model}", "model_id": model, "item_id": item_id, "lang": lang,
                            "variant": spec.variant,
                            "response": response, "origin": "import", "created_at": now})  # fmt: skip
    if not result.rows:
        raise DataError(path, "no answer imported (an empty file, or every line rejected)")
    with transaction(con):
        for model in result.models:
            register_imported_model(con, model)
        store_answers(con, pl.DataFrame(result.rows, schema=IMPORTED_GENERATION_SCHEMA))
        record_quirks(con, result.quirks, run_id, replace_files=[path.name])
        record_source(con, sha256=sha, kind=kind, path=path, rows_loaded=len(result.rows),
                      rows_rejected=len(result.quirks), run_id=run_id, scope=sha)  # fmt: skip
    return result


def import_files(
    con: duckdb.DuckDBPyConnection, files: tuple[Path, ...], run_id: str, answer_format: str, skip_bad_lines: bool
) -> int:
    """Each file in its own transaction; returns how many were new."""
    imported = 0
    for path in files:
        result = import_file(con, path, run_id, answer_format, skip_bad_lines)
        if result.skipped:
            say("[dim]{}: already imported[/]", path.name)
            continue
        imported += 1
        rejected = f", [yellow]{len(result.quirks)} lines rejected[/]" if result.quirks else ""
        say(
            "imported {}: {} " + answer_format + " answers of {}" + rejected,
            path.name,
            len(result.rows),
            ", ".join(result.models),
        )
    return imported


@IMPORTERS.register("zno", "multi30k", "vqa")
def import_answers(con: duckdb.DuckDBPyConnection, options: Options, run_id: str, failures: list) -> None:
    """`import-responses --format zno|multi30k|vqa` (pipeline/answers/formats.py)."""
    import_files(con, options.responses, run_id, options.response_format, options.skip_bad_lines)
