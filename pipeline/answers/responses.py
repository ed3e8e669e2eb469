"""Importing answers produced elsewhere (the `replay` path): WorldCuisines prediction files,
open-ended (`task2_oe_MODEL.jsonl`) and multiple-choice (`task2_mc_MODEL.jsonl`,
`task1_mc_MODEL.jsonl`).

Nothing is lost silently. Real files are messy: lines written as Python dicts (read with
`ast.literal_eval`, a counted quirk), ids as strings or numbers, `lang` NaN where pandas turned the
Min Nan code "nan" into NaN (read back as "nan", as upstream does), NaN or missing predictions
(a missing answer, never the text "NaN"), chat-template tokens left at the end of an answer
(`<|im_end|>`: removed, counted). Each line is checked; a malformed one stops the file with
FILE:LINE and the reason, or, with skip_bad_lines, is recorded in meta.ingest_reports and left
out, but a file that imports nothing, or rejects more than `max_bad_share` of its lines, fails
and names the languages and ids it would lose. One file is one transaction. A file is marked done
(by content hash, model, task and IMPORTER_VERSION) only after it is committed, so a corrected
importer reads a once-rejected file again.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import duckdb
import polars as pl

from pipeline.answers.formats import IMPORTERS
from pipeline.answers.store import register_imported_model, store_answers
from pipeline.core import limits
from pipeline.core.errors import DataError
from pipeline.core.output import progress_bar, say
from pipeline.core.run_settings import Options
from pipeline.datasets.common import Quirk, already_loaded, record_quirks, record_source, sha256_files
from pipeline.datasets.worldcuisines import CHOICE_TASKS, TASK1_ID, TASK_ID
from pipeline.extract.choice import clean_answer
from warehouse.io import insert, scalar, transaction

# Bumped whenever the importer reads files differently: files marked done by an older version are read again.
IMPORTER_VERSION = 2
MODEL_FROM_FILENAME = re.compile(r"^(?P<task>task[12])_(?P<kind>oe|mc)_(?P<model>.+?)(?:_pred)?(?:_small)?\.jsonl$")
# Which task a WorldCuisines prediction file answers, by its name.
TASK_OF_FILE = {
    ("task2", "oe"): TASK_ID,
    ("task1", "oe"): TASK1_ID,
    **{key: task for key, task in CHOICE_TASKS.items()},
}
IMPORT_KIND = "worldcuisines_responses"
MAX_BAD_SHARE = 0.01


@dataclass(frozen=True)
class ImportedAnswer:
    """One accepted line."""

    line_number: int
    qa_id: str
    lang: str
    prediction: str | None
    answer: str | None
    multi_choice_answer: int | None = None
    raw_prediction: str | None = None  # as written, before chat tokens and outer whitespace were removed
    notes: tuple[str, ...] = ()  # quirk kinds this line showed (python_literal, lang_nan, ...)


@dataclass
class FileImport:
    path: Path
    model: str
    task_id: str = TASK_ID
    skipped: bool = False
    accepted: list[ImportedAnswer] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)
    rejected_keys: list[tuple[str | None, str | None]] = field(default_factory=list)  # (lang, qa_id) when known
    targets: list[tuple[str, str]] = field(default_factory=list)  # (item_id, variant) of each accepted answer

    @property
    def rejected(self) -> list[Quirk]:
        return [q for q in self.quirks if q.severity == "rejected"]

    @property
    def lines(self) -> int:
        return len(self.accepted) + len(self.rejected)

    def loss_summary(self) -> str:
        """Which languages and ids the rejected lines held ("en: 1900, 1901; nan: 12 ids; ?: 3 lines")."""
        by_lang: dict[str, list[str]] = {}
        for lang, qa_id in self.rejected_keys:
            by_lang.setdefault(lang or "?", []).append(qa_id or "?")
        parts = []
        for lang, ids in sorted(by_lang.items()):
            shown = ", ".join(ids[:5]) + (f" … ({len(ids)} lines)" if len(ids) > 5 else "")
            parts.append(f"{lang}: {shown}")
        return "; ".join(parts)


def task_from_path(path: Path) -> str | None:
    match = MODEL_FROM_FILENAME.match(path.name)
    return TASK_OF_FILE.get((match.group("task"), match.group("kind"))) if match else None


def model_from_path(path: Path) -> str:
    match = MODEL_FROM_FILENAME.match(path.name)
    if not match:
        raise DataError(
            path,
            "cannot tell the model from the file name: name it task2_oe_MODEL.jsonl (or task2_mc_…) or pass --model",
        )
    return match.group("model")


def _literal(text: str) -> object:
    """A Python-literal line ({'qa_id': '1900', 'lang': nan, ...}); nan/NaN/None read as values."""
    tree = ast.parse(text.strip(), mode="eval")
    for node in ast.walk(tree):
        for name, child in ast.iter_fields(node):
            if isinstance(child, ast.Name) and child.id in ("nan", "NaN"):
                setattr(node, name, ast.Constant(math.nan))
            elif isinstance(child, list):
                child[:] = [
                    ast.Constant(math.nan) if isinstance(c, ast.Name) and c.id in ("nan", "NaN") else c for c in child
                ]
    return ast.literal_eval(tree.body)


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and math.isnan(value)


_SCAN_JSON = json.JSONDecoder().scan_once  # what json.loads runs, without its Python wrapper around the C scanner
_JSON_SPACE = " \t\n\r"  # the whitespace json.loads allows around a value


def parse_plain_line(text: str, line_number: int = 0) -> ImportedAnswer | None:
    """`parse_line`'s answer for the common line, or None where `parse_line` must decide. A real line is one JSON
    object of string fields (`multi_choice_answer` a number); this reads only such lines, in a third of the time,
    and leaves every other case (not JSON, a Python literal, NaN, a number id, a missing prediction, a surrogate)
    to `parse_line`, so each message and note comes from one place. tests/pipeline/answers/test_responses.py holds
    the two to the same answers."""
    if text[:1] != "{":
        return None
    try:
        record, end = _SCAN_JSON(text, 0)
    except Exception:  # whatever is wrong (StopIteration, RecursionError, ...), parse_line says it
        return None
    if type(record) is not dict or text[end:].strip(_JSON_SPACE) or limits.not_text(text, record):
        return None
    qa_id, lang, prediction = record.get("qa_id"), record.get("lang"), record.get("prediction")
    # Up to 15 digits a string id is exactly what _qa_id's int(float(...)) makes of it.
    if type(qa_id) is not str or not (qa_id.isascii() and qa_id.isdigit() and len(qa_id) <= 15):
        return None
    if type(lang) is not str or type(prediction) is not str:
        return None
    lang = lang.strip()
    choice = record.get("multi_choice_answer")
    if not lang or (choice is not None and type(choice) is not int):
        return None
    stripped = prediction.strip()
    # Every chat token clean_answer removes starts with "<".
    cleaned = clean_answer(prediction) if "<" in prediction else stripped
    answer = record.get("answer")
    return ImportedAnswer(
        line_number,
        str(int(qa_id)),
        lang.lower().replace("-", "_"),
        cleaned,
        answer if isinstance(answer, str) else None,
        choice,
        prediction,
        ("chat_token",) if cleaned != stripped else (),
    )


def parse_line(text: str) -> ImportedAnswer | str:
    """An accepted answer, or the reason the line is malformed."""
    notes: list[str] = []
    try:
        record = json.loads(text)
    except RecursionError:  # a hostile line: a parser's stack is the limit, not the memory
        return "not valid JSON (nested too deeply)"
    except json.JSONDecodeError as exc:
        try:
            literal = text.lstrip().startswith("{") and len(text) <= limits.LITERAL_LINE_BYTES
            record = _literal(text) if literal else None
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            record = None
        if record is None:
            return f"not valid JSON ({exc.msg} at column {exc.colno})"
        notes.append("python_literal")
    except ValueError as exc:  # valid JSON Python will not read, e.g. an integer of more than 4,300 digits
        return f"not readable JSON ({exc})"
    if limits.not_text(text, record):
        return limits.not_text(text, record)
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    qa_id = _qa_id(record.get("qa_id"))
    if qa_id is None:
        return f"qa_id must be a whole number (string or number), got {record.get('qa_id')!r}"
    lang = record.get("lang")
    if _is_nan(lang):
        lang = "nan"  # pandas wrote the Min Nan code "nan" as NaN; upstream reads it back as "nan"
        notes.append("lang_nan")
    if not isinstance(lang, str) or not lang.strip():
        return f"lang must be a non-empty string, got {lang!r}"
    prediction = record.get("prediction")
    if isinstance(prediction, (list, dict)):
        return f"prediction must be text, got a JSON {type(prediction).__name__}"
    if _is_nan(prediction):
        prediction = None
        notes.append("prediction_nan")
    elif prediction is not None and not isinstance(prediction, str):
        prediction = json.dumps(prediction)  # a bare number or boolean: keep what the model said, as text
    raw_prediction = prediction
    if prediction is not None:
        cleaned = clean_answer(prediction)
        if cleaned != prediction.strip():
            notes.append("chat_token")
        prediction = cleaned
    answer = record.get("answer")
    choice = record.get("multi_choice_answer")
    if choice is not None and not _is_nan(choice):
        choice_id = _qa_id(choice)
        if choice_id is None:
            return f"multi_choice_answer must be a whole number, got {choice!r}"
        choice = int(choice_id)
    else:
        choice = None
    return ImportedAnswer(
        0,
        qa_id,
        lang.strip().lower().replace("-", "_"),
        prediction,
        answer if isinstance(answer, str) else None,
        choice,
        raw_prediction,
        tuple(notes),
    )


NOTE_MESSAGES = {
    "python_literal": "lines written as Python dicts, not JSON: read with ast.literal_eval",
    "lang_nan": 'lang NaN (pandas wrote the Min Nan code "nan" as NaN): read as "nan"',
    "prediction_nan": "prediction NaN: imported as a missing answer",
    "missing_prediction": "no prediction: imported as a missing answer",
    "chat_token": "chat-template tokens (<|im_end|> …) removed from the answer",
}


def read_file(path: Path, model: str, resolve, skip_bad_lines: bool, task_id: str = TASK_ID) -> FileImport:
    """The accepted lines of one file; `resolve(answer)` is the (item_id, variant) an answer belongs
    to, or the reason it belongs to none."""
    result = FileImport(path=path, model=model, task_id=task_id)
    first_line_of: dict[tuple[str, str], int] = {}
    notes: Counter = Counter()
    first_note_line: dict[str, int] = {}
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, errors name the file
    except OSError as exc:
        raise DataError(path, f"cannot open: {exc.strerror}") from exc
    number = 0
    with handle:
        try:
            for number, line in enumerate(limits.lines(handle), start=1):  # a 1 GB line is refused, not read
                text = line.decode("utf-8").replace("\r\n", "\n")
                if not text.strip():
                    continue
                parsed = parse_plain_line(text, number) or parse_line(text)
                key: tuple[str | None, str | None] = (None, None)
                if isinstance(parsed, ImportedAnswer):
                    if parsed.line_number != number:
                        parsed = ImportedAnswer(number, *_fields(parsed)[1:])
                    key = (parsed.lang, parsed.qa_id)
                    target = resolve(parsed)
                    if isinstance(target, str):
                        parsed = target
                    elif (parsed.qa_id, parsed.lang) in first_line_of:
                        parsed = (
                            f"second answer for qa_id {key[1]} in lang {key[0]} "
                            f"(first on line {first_line_of[(key[1], key[0])]})"
                        )
                    else:
                        first_line_of[(parsed.qa_id, parsed.lang)] = number
                if isinstance(parsed, str):
                    if not skip_bad_lines:
                        raise DataError(path, parsed + " (use --skip-bad-lines to import the other lines)", line=number)
                    result.quirks.append(
                        Quirk("worldcuisines", path.name, number, "bad_line", parsed, "rejected", text.rstrip("\n"))
                    )
                    result.rejected_keys.append(key if key != (None, None) else _guess_key(text))
                    continue
                if parsed.notes or parsed.raw_prediction is None:
                    line_notes = list(parsed.notes) + (
                        ["missing_prediction"]
                        if parsed.raw_prediction is None and "prediction_nan" not in parsed.notes
                        else []
                    )
                    for note in line_notes:
                        notes[note] += 1
                        first_note_line.setdefault(note, number)
                result.accepted.append(parsed)
                result.targets.append(target)
        except UnicodeDecodeError as exc:
            raise DataError(
                path, f"not UTF-8 text ({exc.reason} at byte {exc.start + 1} of the line)", line=number
            ) from exc
        except limits.LimitExceeded as exc:
            raise DataError(path, str(exc), line=exc.line) from exc
    for note, count in notes.items():
        result.quirks.append(
            Quirk(
                "worldcuisines",
                path.name,
                first_note_line[note],
                note,
                f"{count} lines: {NOTE_MESSAGES[note]} (first on line {first_note_line[note]})",
                "info",
            )
        )
    return result


def _fields(answer: ImportedAnswer) -> tuple:
    return (
        answer.line_number,
        answer.qa_id,
        answer.lang,
        answer.prediction,
        answer.answer,
        answer.multi_choice_answer,
        answer.raw_prediction,
        answer.notes,
    )


def _guess_key(text: str) -> tuple[str | None, str | None]:
    """The language and id a line that could not be parsed probably held, for the loss summary."""
    lang = re.search(r"""["']lang["']\s*:\s*["']([^"']+)["']""", text)
    qa_id = re.search(r"""["']qa_id["']\s*:\s*["']?(\d+)""", text)
    return (lang.group(1) if lang else None, qa_id.group(1) if qa_id else None)


_QUOTE = json.encoder.encode_basestring_ascii  # json.dumps' encoder of one string (ensure_ascii, its default)


def generation_id(model: str, item_id: str, lang: str, variant: str, sample: int = 0) -> str:
    """Imported answers are keyed by what they answer; a re-import replaces, never duplicates. A repeated
    sample (`sample` > 0: the same question asked again) is an answer of its own. The key is the JSON list
    json.dumps writes; for the common call (four strings, no sample) it is written with json's own string encoder,
    without json.dumps' per-call set-up (a third of the cost over an import's hundreds of thousands of answers)."""
    if not sample and type(model) is str and type(item_id) is str and type(lang) is str and type(variant) is str:
        key = f'["import", {_QUOTE(model)}, {_QUOTE(item_id)}, {_QUOTE(lang)}, {_QUOTE(variant)}]'
    else:
        key = json.dumps(["import", model, item_id, lang, variant] + ([sample] if sample else []))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def done_scope(model: str, task_id: str) -> str:
    """The done-marker's scope: the model, the task and the importer version that read the file."""
    return f"{model}|{task_id}|importer@{IMPORTER_VERSION}"


def refuse_lossy_import(path: Path, result, max_bad_share: float) -> None:
    """Stop an import that would bring nothing, or lose more than `max_bad_share` of its lines, naming what it would
    lose. `result` has `accepted`, `rejected` (each with `line` and `message`), `lines` and `loss_summary()`: the
    prediction files' and BORSch's importers share this rule."""
    if not result.accepted:
        if not result.rejected:
            raise DataError(path, "empty file: no answer lines, nothing imported — is it the right file?")
        raise DataError(
            path,
            f"nothing imported: all {len(result.rejected)} lines rejected ({result.rejected[0].message}, line "
            f"{result.rejected[0].line}); lost: {result.loss_summary()}",
        )
    if len(result.rejected) > max_bad_share * result.lines:
        raise DataError(
            path,
            f"{len(result.rejected)} of {result.lines} lines rejected ({len(result.rejected) / result.lines:.1%}, more "
            f"than --max-bad-share {max_bad_share:.1%}); nothing imported; they hold {result.loss_summary()} — fix the "
            "file or raise --max-bad-share",
        )


def import_file(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    run_id: str,
    model: str | None = None,
    skip_bad_lines: bool = False,
    max_bad_share: float = MAX_BAD_SHARE,
    allow_duplicate: bool = False,
    task_id: str | None = None,
) -> FileImport:
    model = model or model_from_path(path)
    task_id = task_id or task_from_path(path) or TASK_ID
    if not path.is_file():
        raise DataError(path, "file not found")
    sha = sha256_files([path])
    scope = done_scope(model, task_id)
    if already_loaded(con, sha, IMPORT_KIND, scope=scope):
        return FileImport(path=path, model=model, task_id=task_id, skipped=True)
    if not allow_duplicate:
        others = [
            row[0].split("|", 1)[0]
            for row in con.execute(
                "SELECT scope FROM meta.source_files WHERE sha256 = ? AND kind = ? AND split_part(scope, '|', 1) <> ?",
                [sha, IMPORT_KIND, model],
            ).fetchall()
        ]
        if others:
            raise DataError(
                path,
                f"the same bytes were already imported as model {others[0]}: importing them as {model} would "
                "count one model twice — pass --allow-duplicate if that is intended",
            )
    resolve = _task1_items(con, path) if task_id == TASK1_ID else _items_by_qa_id(con, path, task_id)
    started = time.perf_counter()
    result = read_file(path, model, resolve, skip_bad_lines, task_id)
    refuse_lossy_import(path, result, max_bad_share)
    now = datetime.now(UTC).replace(tzinfo=None)
    rows = result.accepted
    targets = result.targets  # (item_id, variant) of each accepted answer
    item_ids = [item for item, _ in targets]
    generations = pl.DataFrame(
        {
            "generation_id": [
                generation_id(model, item, a.lang, variant) for (item, variant), a in zip(targets, rows, strict=True)
            ],
            "run_id": [run_id] * len(rows),
            "model_id": [model] * len(rows),
            "item_id": item_ids,
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
            "prediction": [a.raw_prediction for a in rows],
            "answer": [a.answer for a in rows],
            "task_id": [task_id] * len(rows),
            "multi_choice_answer": [a.multi_choice_answer for a in rows],
        },
        schema_overrides={"prediction": pl.String, "answer": pl.String, "multi_choice_answer": pl.Int32},
    )
    with transaction(con):
        con.execute(
            "DELETE FROM raw.imported_responses WHERE model = ? AND coalesce(task_id, ?) = ?", [model, TASK_ID, task_id]
        )
        insert(con, "raw.imported_responses", raw)
        register_imported_model(con, model)
        # An imported answer's id is a digest of its model and item (`generation_id`): only a re-import of this
        # model's answers to this task can meet an earlier row. The DELETE scans the whole table, a cost that grew
        # with every file imported before (quadratic over a lab's 360 files); asking first costs a scan of the
        # model's own rows only.
        answered_before = scalar(
            con,
            "SELECT count(*) FROM core.generations WHERE model_id = ? AND item_id IN "
            "(SELECT item_id FROM core.items WHERE task_id = ?)",
            [model, task_id],
        )
        store_answers(con, generations, replace=bool(answered_before))
        insert(
            con,
            "core.generation_runs",
            [
                {
                    "run_id": f"{run_id}:{model}:{task_id}",
                    "model_id": model,
                    "task_id": task_id,
                    "backend": "replay",
                    "settings": json.dumps({"file": str(path), "sha256": sha}),
                    "n_requested": result.lines,
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
        # Marked done only now, inside the transaction that stores its answers.
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


def _items_by_qa_id(con: duckdb.DuckDBPyConnection, path: Path, task_id: str):
    """Answers of task 2 and of the multiple-choice tasks belong to the item with their qa_id."""
    variants = dict(con.execute("SELECT source_ref, variant FROM core.items WHERE task_id = ?", [task_id]).fetchall())
    if not variants:
        raise DataError(
            path,
            f"no {task_id} items in the warehouse: run `python -m pipeline ingest worldcuisines --source DIR` first",
        )

    def resolve(answer: ImportedAnswer) -> tuple[str, str] | str:
        if answer.qa_id not in variants:
            return f"qa_id {answer.qa_id} is not an item of {task_id}"
        return f"{task_id}:{answer.qa_id}", variants[answer.qa_id]

    return resolve


def _task1_items(con: duckdb.DuckDBPyConnection, path: Path):
    """Task-1 answers belong to the dish whose gold name in the line's language is the line's
    `answer` (the published answers number questions differently from the published set); the
    line's qa_id is kept as the variant."""
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


@IMPORTERS.register("worldcuisines")
def import_answers(con: duckdb.DuckDBPyConnection, options: Options, run_id: str, failures: list) -> None:
    """`import-responses` of WorldCuisines prediction files (the demo: every published one), one transaction each;
    a refused file is kept in `failures` and the others still import."""
    from pipeline.datasets.worldcuisines import predictions

    files = list(options.responses)
    quiet = not files  # the demo imports the published predictions with a bar only
    if not files and options.data is not None:
        files = predictions(options.data)
    with progress_bar() as progress:
        bar = progress.add_task("importing answers" if quiet else "importing", total=len(files))
        for path in files:
            started = time.perf_counter()
            try:
                result = import_file(
                    con,
                    path,
                    run_id,
                    model=options.model,
                    skip_bad_lines=options.skip_bad_lines,
                    max_bad_share=options.max_bad_share,
                    allow_duplicate=options.allow_duplicate,
                    task_id=options.task,
                )
            except DataError as exc:  # this file changed nothing; the others still import
                failures.append(exc)
                progress.advance(bar)
                continue
            elapsed = time.perf_counter() - started
            if quiet:
                pass
            elif result.skipped:
                say("[dim]{}: already imported for {}[/]", path.name, result.model)
            else:
                rate = len(result.accepted) / elapsed if elapsed else 0.0
                say(
                    "imported {}: {} answers of {} ({}, {} lines/s)",
                    path.name,
                    len(result.accepted),
                    result.model,
                    result.task_id,
                    f"{rate:,.0f}",
                )
                say_losses(result)
            progress.advance(bar)


class ImportReport(Protocol):
    """What an importer's result reports (FileImport here, BorschImport in borsch.py)."""

    rejected: list
    quirks: list[Quirk]

    def loss_summary(self) -> str: ...


def say_losses(result: ImportReport) -> None:
    """An imported file's rejected lines (with what they lose) and its other quirks, one line each: the report every
    answer importer prints under its `imported …` line (WorldCuisines files here, BORSch files in borsch.py)."""
    if result.rejected:
        say("  [yellow]{} lines rejected[/], lost: {}", len(result.rejected), result.loss_summary())
    for quirk in result.quirks:
        if quirk.severity != "rejected":
            say("  [dim]{}[/]: {}", quirk.kind, quirk.message)
