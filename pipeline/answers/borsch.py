"""BORSch answers produced elsewhere: `import-responses --format borsch FILE…` (a contract).

A file is JSON lines or CSV (JSON lines by its name, .jsonl/.json/.ndjson, or its first character `{`) with
the columns `model, lang, task, variant, dish_id, response` and an optional `images`: `lang` is the prompt
language (ru or uk), `task` one of BORSch's tasks with or without the `borsch.` prefix, `variant`
one of that task's prompt variants in that language, `dish_id` the ID in that language's file
(RU_DATA.xlsx / UK_DATA.xlsx) and `images` the photos the model was shown (a JSON list, or in CSV
a JSON list or names separated by `|`). The names are kept as written (raw.borsch_responses) and looked up
among the photos the warehouse knows for the dish and its parallel pair (`RU/images/12/0.jpg`, `12/0.jpg` or
`0.jpg`); the photos found become the item's images (core.item_images), as `generate` records them, and
names that match none are a counted quirk with their first line.

The answers land in core.generations exactly where generated ones do (one item per task, language
and dish, created by the BORSch dataset module's `create_items`), so the score stage reads them as
it reads generated answers. Nothing is lost silently, as with the other importers: a bad line stops
the file with FILE:LINE and the reason, or under --skip-bad-lines is recorded and left out; a file
that imports nothing, or rejects more than --max-bad-share of its lines, fails and names the dishes
it would lose; chat-template tokens left in an answer and missing answers are counted quirks. One
file is one transaction; the same bytes again are a no-op.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.answers.formats import IMPORTERS, ITEM_BUILDERS
from pipeline.answers.responses import MAX_BAD_SHARE, generation_id, refuse_lossy_import, say_losses
from pipeline.answers.store import register_imported_model, store_answers
from pipeline.core import limits
from pipeline.core.errors import DataError
from pipeline.core.output import say
from pipeline.core.run_settings import Options
from pipeline.datasets.borsch import create_items, known_photos, link_item_images, match_photo_names
from pipeline.datasets.common import Quirk, already_loaded, record_quirks, record_source, sha256_files
from pipeline.extract.choice import clean_answer
from pipeline.tasks import TASKS, Task
from warehouse.io import insert, transaction

FORMAT = "borsch"
IMPORT_KIND = "borsch_responses"
# Bumped whenever the importer reads files differently: files marked done by an older version are read again.
IMPORTER_VERSION = 2  # 2: `images` linked to the dish's known photos (issue 35)
COLUMNS = ("model", "lang", "task", "variant", "dish_id", "response")
OPTIONAL_COLUMNS = ("images",)
LANGS = ("ru", "uk")

NOTE_MESSAGES = {
    "chat_token": "chat-template tokens (<|im_end|> …) removed from the answer",
    "missing_response": "no response: imported as a missing answer",
    "task_prefix": "task written without the borsch. prefix: read as borsch.<task>",
    "numeric_field": "dish_id or variant written as a number: read as text",
    "unknown_image": "image names matching no photo the warehouse knows for the dish or its parallel pair: the answer "
    "is kept, those names left unlinked (photos are known once `generate --images DIR` or `imagine --images DIR` "
    "has read them)",
    "images_differ": "images other than the photos already recorded for the item (by an earlier run or another "
    "model): the item keeps its recorded photos",
}


@dataclass(frozen=True)
class BorschAnswer:
    """One accepted line."""

    line_number: int
    model: str
    lang: str
    task_id: str
    variant: str
    dish_id: str
    response: str | None  # cleaned: chat tokens and outer whitespace removed; None when the model said nothing
    raw_response: str | None
    images: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    image_ids: tuple[str, ...] = ()  # the known photos `images` name (core.images), linked to the item on import

    @property
    def item_id(self) -> str:
        return f"{self.task_id}:{self.lang}:{self.dish_id}"


@dataclass
class BorschImport:
    path: Path
    skipped: bool = False
    accepted: list[BorschAnswer] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)
    rejected_keys: list[str] = field(default_factory=list)  # "lang:task:dish_id" of rejected lines, when known

    @property
    def rejected(self) -> list[Quirk]:
        return [q for q in self.quirks if q.severity == "rejected"]

    @property
    def lines(self) -> int:
        return len(self.accepted) + len(self.rejected)

    @property
    def models(self) -> list[str]:
        return sorted({a.model for a in self.accepted})

    def loss_summary(self) -> str:
        shown = ", ".join(self.rejected_keys[:5])
        return shown + (f" … ({len(self.rejected_keys)} lines)" if len(self.rejected_keys) > 5 else "")


def borsch_tasks() -> dict[str, Task]:
    """BORSch's declared tasks by their full id."""
    return {task_id: task for task_id, task in TASKS.items() if task.dataset == "borsch"}


def read_records(path: Path) -> list[tuple[int, str, dict | str]]:
    """(line number, line as written, record or why it is unreadable) for every non-empty line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise DataError(path, f"cannot open: {exc.strerror}") from exc
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson") or text.lstrip().startswith("{"):
        return [(number, line, _json_record(line)) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    return _csv_records(path, text)


def _json_record(line: str) -> dict | str:
    try:
        record = limits.json_line(line)
    except limits.UnreadableJson as exc:
        return str(exc)
    return record if isinstance(record, dict) else f"expected a JSON object, got {type(record).__name__}"


def _csv_records(path: Path, text: str) -> list[tuple[int, str, dict | str]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return []
    header = [name.strip() for name in header]
    missing = [name for name in COLUMNS if name not in header]
    if missing:
        raise DataError(
            path,
            f"missing columns {', '.join(missing)} (a BORSch answer file has {', '.join(COLUMNS)} and optionally "
            "images; JSON lines start with {)",
            line=1,
        )
    out: list[tuple[int, str, dict | str]] = []
    physical = text.splitlines()
    for row in reader:
        number = reader.line_num  # the line the row ends on (a quoted answer may span lines)
        if not any(cell.strip() for cell in row):
            continue
        raw = physical[number - 1] if number - 1 < len(physical) else ""
        if len(row) != len(header):
            out.append((number, raw, f"{len(row)} fields where the header has {len(header)}"))
            continue
        record: dict = dict(zip(header, row, strict=True))
        if record["response"] == "":
            record["response"] = None  # an empty CSV cell: no answer (counted)
        out.append((number, raw, record))
    return out


def parse_record(record: dict, tasks: dict[str, Task]) -> BorschAnswer | str:
    """An accepted answer (line number 0), or why the record is malformed."""
    notes: list[str] = []
    model = record.get("model")
    if not isinstance(model, str) or not model.strip():
        return f"model must be a non-empty string, got {model!r}"
    lang = record.get("lang")
    if not isinstance(lang, str) or lang.strip().lower() not in LANGS:
        return f"lang must be ru or uk (the language of the prompt and of the dish's file), got {lang!r}"
    lang = lang.strip().lower()
    task = record.get("task")
    if not isinstance(task, str) or not task.strip():
        return f"task must be one of BORSch's tasks, got {task!r}"
    task_id = task.strip() if task.strip().startswith("borsch.") else f"borsch.{task.strip()}"
    if not task.strip().startswith("borsch."):
        notes.append("task_prefix")
    if task_id not in tasks:
        known = ", ".join(sorted(t.split(".", 1)[1] for t in tasks))
        return f"task {task!r} is not a BORSch task (known: {known})"
    variant, numeric_variant = _whole(record.get("variant"))
    prompts = {**tasks[task_id].prompts.get(lang, {})}
    for wording in tasks[task_id].prompt_sets.values():  # the project's own wording (atlas-1…) too
        prompts.update(wording.get(lang, {}))
    if variant is None or variant not in prompts:
        declared = ", ".join(sorted(prompts)) or "none"
        return f"variant must be one of {task_id}'s {lang} prompt variants ({declared}), got {record.get('variant')!r}"
    dish_id, numeric_dish = _whole(record.get("dish_id"))
    if dish_id is None:
        return f"dish_id must be a whole number (the ID in the {lang} file), got {record.get('dish_id')!r}"
    if numeric_variant or numeric_dish:
        notes.append("numeric_field")
    response = record.get("response")
    if isinstance(response, float) and math.isnan(response):
        response = None
    if response is not None and not isinstance(response, str):
        return f"response must be text or null, got a JSON {type(response).__name__}"
    images = _images(record.get("images"))
    if isinstance(images, str):
        return images
    cleaned = None
    if response is not None:
        cleaned = clean_answer(response)
        if cleaned != response.strip():
            notes.append("chat_token")
    else:
        notes.append("missing_response")
    return BorschAnswer(0, model.strip(), lang, task_id, variant, dish_id, cleaned, response, images, tuple(notes))


def _whole(value: object) -> tuple[str | None, bool]:
    """A whole number written as text or as a number, and whether it was a number."""
    if isinstance(value, bool):
        return None, False
    if isinstance(value, int):
        return str(value), True
    if isinstance(value, float) and value.is_integer():
        return str(int(value)), True
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        return str(int(value)), False
    return None, False


def _images(value: object) -> tuple[str, ...] | str:
    """The photo names of a line: a JSON list, a JSON list written in a CSV cell, or names joined by `|`."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = limits.json_line(text)
            except limits.UnreadableJson as exc:
                return f"images is not a JSON list ({exc})"
        else:
            return tuple(part.strip() for part in text.split("|") if part.strip())
    if not isinstance(value, list) or not all(isinstance(name, str) and name.strip() for name in value):
        return f"images must be a list of file names, got {value!r}"
    return tuple(name.strip() for name in value)


def read_file(con: duckdb.DuckDBPyConnection, path: Path, skip_bad_lines: bool, model: str | None) -> BorschImport:
    """The accepted lines of one file, each checked against the warehouse's BORSch dishes."""
    tasks = borsch_tasks()
    dishes = {
        (lang, dish_id)
        for lang, dish_id in con.execute("SELECT lang, dish_id FROM core.dishes WHERE dataset = 'borsch'").fetchall()
    }
    if not dishes:
        raise DataError(
            path, "no BORSch dishes in the warehouse: run `python -m pipeline ingest borsch --source DIR` first"
        )
    result = BorschImport(path)
    first_line: dict[tuple[str, str, str, str, str], int] = {}
    notes: Counter = Counter()
    first_note_line: dict[str, int] = {}
    first_unknown: dict[str, str] = {}
    photos: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (lang, dish_id) -> its known photos
    for number, raw, record in read_records(path):
        if isinstance(record, dict) and model and not record.get("model"):
            record = {**record, "model": model}  # --model names the model of lines that do not
        parsed = parse_record(record, tasks) if isinstance(record, dict) else record
        key_text = _key_of(record)
        if isinstance(parsed, BorschAnswer):
            key = (parsed.model, parsed.task_id, parsed.lang, parsed.variant, parsed.dish_id)
            if (parsed.lang, parsed.dish_id) not in dishes:
                file = "RU_DATA.xlsx" if parsed.lang == "ru" else "UK_DATA.xlsx"
                parsed = f"dish_id {parsed.dish_id} is not a dish of {file} (lang {parsed.lang})"
            elif key in first_line:
                parsed = (
                    f"second answer of {key[0]} to {key[1]} variant {key[3]} for {key[2]} dish {key[4]} "
                    f"(first on line {first_line[key]})"
                )
            else:
                first_line[key] = number
                parsed = BorschAnswer(number, *_fields(parsed)[1:])
                if parsed.images:  # issue 35: the photos the answer saw, linked like generated answers' photos
                    if (parsed.lang, parsed.dish_id) not in photos:
                        photos[parsed.lang, parsed.dish_id] = known_photos(con, parsed.lang, parsed.dish_id)
                    image_ids, unknown = match_photo_names(parsed.images, photos[parsed.lang, parsed.dish_id])
                    notes_of = parsed.notes + (("unknown_image",) if unknown else ())
                    parsed = dataclasses.replace(parsed, image_ids=tuple(image_ids), notes=notes_of)
                    if unknown:
                        first_unknown.setdefault("name", unknown[0])
        if isinstance(parsed, str):
            if not skip_bad_lines:
                raise DataError(path, parsed + " (use --skip-bad-lines to import the other lines)", line=number)
            result.quirks.append(Quirk(FORMAT, path.name, number, "bad_line", parsed, "rejected", raw))
            result.rejected_keys.append(key_text)
            continue
        for note in parsed.notes:
            notes[note] += 1
            first_note_line.setdefault(note, number)
        result.accepted.append(parsed)
    for note, count in notes.items():
        message = f"{count} lines: {NOTE_MESSAGES[note]} (first on line {first_note_line[note]})"
        if note == "unknown_image":
            message = message[:-1] + f": {first_unknown['name']!r})"
        result.quirks.append(Quirk(FORMAT, path.name, first_note_line[note], note, message, "info"))
    return result


def _fields(answer: BorschAnswer) -> tuple:
    return (
        answer.line_number,
        answer.model,
        answer.lang,
        answer.task_id,
        answer.variant,
        answer.dish_id,
        answer.response,
        answer.raw_response,
        answer.images,
        answer.notes,
    )


def _key_of(record: dict | str) -> str:
    """lang:task:dish_id of a line, as far as it can be read, for the loss summary."""
    if not isinstance(record, dict):
        return "?"
    parts = (record.get("lang"), record.get("task"), record.get("dish_id"))
    return ":".join("?" if part is None else str(part) for part in parts)


def import_file(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    run_id: str,
    skip_bad_lines: bool = False,
    max_bad_share: float = MAX_BAD_SHARE,
    model: str | None = None,
) -> BorschImport:
    """Import one file in one transaction; a file whose bytes were imported before is a no-op."""
    if not path.is_file():
        raise DataError(path, "file not found")
    sha = sha256_files([path])
    scope = _scope(model)
    if already_loaded(con, sha, IMPORT_KIND, scope=scope):
        return BorschImport(path, skipped=True)
    started = time.perf_counter()
    result = read_file(con, path, skip_bad_lines, model)
    refuse_lossy_import(path, result, max_bad_share)
    _store(con, result, sha, scope, run_id, started)
    return result


def _scope(model: str | None) -> str:
    """A file's done-marker scope: the model it was imported as, and the importer version that read it."""
    return f"{model or ''}|importer@{IMPORTER_VERSION}"


def _store(con: duckdb.DuckDBPyConnection, result: BorschImport, sha: str, scope: str, run_id: str, started) -> None:
    rows = result.accepted
    tasks = borsch_tasks()
    now = datetime.now(UTC).replace(tzinfo=None)
    generations = pl.DataFrame(
        {
            "generation_id": [generation_id(a.model, a.item_id, a.lang, a.variant) for a in rows],
            "run_id": [f"{run_id}:{a.model}:{a.task_id}" for a in rows],
            "model_id": [a.model for a in rows],
            "item_id": [a.item_id for a in rows],
            "lang": [a.lang for a in rows],
            "variant": [a.variant for a in rows],
            "response": [a.response for a in rows],
            "origin": ["import"] * len(rows),
            "created_at": [now] * len(rows),
        },
        schema_overrides={"response": pl.String},
    )
    raw = pl.DataFrame(
        {
            "file_sha256": [sha] * len(rows),
            "line_number": [a.line_number for a in rows],
            "model": [a.model for a in rows],
            "lang": [a.lang for a in rows],
            "task_id": [a.task_id for a in rows],
            "variant": [a.variant for a in rows],
            "dish_id": [a.dish_id for a in rows],
            "response": [a.raw_response for a in rows],
            "images": [list(a.images) for a in rows],
        },
        schema_overrides={"response": pl.String, "images": pl.List(pl.String)},
    )
    with transaction(con):
        differ = _build_items(con, rows, tasks)
        if differ:
            message = f"{len(differ)} lines: {NOTE_MESSAGES['images_differ']} (first on line {differ[0]})"
            result.quirks.append(Quirk(FORMAT, result.path.name, differ[0], "images_differ", message, "info"))
        con.execute("DELETE FROM raw.borsch_responses WHERE file_sha256 = ?", [sha])
        insert(con, "raw.borsch_responses", raw)
        for model in result.models:
            is_vision = any(a.model == model and tasks[a.task_id].modality == "image" for a in rows)
            register_imported_model(con, model, is_vision=is_vision)
        store_answers(con, generations)
        finished = datetime.now(UTC).replace(tzinfo=None)
        runs = Counter((a.model, a.task_id) for a in rows)
        for (model, task_id), n in sorted(runs.items()):
            run = f"{run_id}:{model}:{task_id}"
            con.execute("DELETE FROM core.generation_runs WHERE run_id = ?", [run])
            insert(
                con,
                "core.generation_runs",
                [
                    {
                        "run_id": run,
                        "model_id": model,
                        "task_id": task_id,
                        "backend": "replay",
                        "settings": json.dumps({"file": str(result.path), "sha256": sha, "format": FORMAT}),
                        "n_requested": n,
                        "n_generated": n,
                        "n_skipped": 0,
                        "n_failed": 0,
                        "tokens_in": None,
                        "tokens_out": None,
                        "wall_seconds": time.perf_counter() - started,
                        "started_at": now,
                        "finished_at": finished,
                    }
                ],
            )
        record_quirks(con, result.quirks, run_id, replace_files=[result.path.name])
        # Marked done only now, inside the transaction that stores its answers.
        record_source(
            con,
            sha256=sha,
            kind=IMPORT_KIND,
            scope=scope,
            path=result.path,
            rows_loaded=len(rows),
            rows_rejected=len(result.rejected),
            run_id=run_id,
        )


def _build_items(con: duckdb.DuckDBPyConnection, rows: list[BorschAnswer], tasks: dict) -> list[int]:
    """The items (and gold) of the answered dishes and the photos each answer names, inside the caller's transaction;
    returns the lines whose photos differ from those already recorded for their item."""
    for (task_id, lang), dish_ids in _answered(rows).items():
        found = con.execute(
            f"""SELECT d.dish_key, d.dish_id,
                       EXISTS (SELECT 1 FROM core.parallel_dishes p WHERE p.{lang}_dish_key = d.dish_key
                               AND p.ru_dish_key IS NOT NULL AND p.uk_dish_key IS NOT NULL)
                FROM core.dishes d WHERE d.dataset = 'borsch' AND d.lang = ? AND d.dish_id IN (SELECT unnest(?))
                ORDER BY try_cast(d.dish_id AS BIGINT)""",
            [lang, sorted(dish_ids)],
        ).fetchall()
        create_items(con, tasks[task_id], lang, found)
    differ = [a.line_number for a in rows if a.image_ids and not link_item_images(con, a.item_id, list(a.image_ids))]
    return differ


@ITEM_BUILDERS.register("borsch")
def build_items(con: duckdb.DuckDBPyConnection, options: Options) -> None:
    """The items the files' answers need, built by the ingest step (the items' one writer) before the answers step
    imports the same files. A file imported before is skipped; one that cannot be read is left to the import, which
    reports it with the others' results."""
    tasks = borsch_tasks()
    for path in options.responses:
        try:
            done = path.is_file() and already_loaded(con, sha256_files([path]), IMPORT_KIND, _scope(options.model))
            if done or not path.is_file():
                continue
            result = read_file(con, path, options.skip_bad_lines, options.model)
            refuse_lossy_import(path, result, options.max_bad_share)
        except DataError:
            continue
        with transaction(con):
            _build_items(con, result.accepted, tasks)


def _answered(rows: list[BorschAnswer]) -> dict[tuple[str, str], set[str]]:
    """The dish ids answered per (task, language): the items the import needs."""
    out: dict[tuple[str, str], set[str]] = {}
    for answer in rows:
        out.setdefault((answer.task_id, answer.lang), set()).add(answer.dish_id)
    return out


@IMPORTERS.register("borsch")
def import_answers(con: duckdb.DuckDBPyConnection, options: Options, run_id: str, failures: list) -> None:
    """`import-responses --format borsch`: each file one transaction; a refused file leaves the others."""
    for path in options.responses:
        try:
            result = import_file(con, path, run_id, options.skip_bad_lines, options.max_bad_share, options.model)
        except DataError as exc:  # this file changed nothing; the others still import
            failures.append(exc)
            continue
        if result.skipped:
            say("[dim]{}: already imported[/]", path.name)
            continue
        say("imported {}: {} answers of {}", path.name, len(result.accepted), ", ".join(result.models))
        say_losses(result)
