"""The language-switching step: the language of every stored answer, per segment, into
core.answer_languages (its only table). Like extraction it needs no model: a new detector version
redoes older rows, and chunks are transactions, so a killed run resumes where it stopped.

Reads core.generations; writes core.answer_languages.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

import duckdb
import polars as pl

from pipeline.extract.switching import DETECTOR, analyse_many
from warehouse.io import insert, transaction

CHUNK = 20_000
SEEN_LIMIT = 1_000_000  # distinct (answer, language) detections kept for repeats (the demo has ~130,000)

PENDING_SQL = """
SELECT g.generation_id, g.lang, g.response,
       EXISTS (SELECT 1 FROM core.answer_languages a WHERE a.generation_id = g.generation_id) AS detected_before
FROM core.generations g
WHERE {redo} OR NOT EXISTS (SELECT 1 FROM core.answer_languages a WHERE a.generation_id = g.generation_id
                            AND a.detector = ? AND a.detected_at >= g.created_at)
ORDER BY g.generation_id
"""


def detect_answer_languages(
    con: duckdb.DuckDBPyConnection, redo: bool = False, on_chunk: Callable[[int, int], None] | None = None
) -> int:
    """Detect the language of every answer that has no current detection; returns how many.

    The pending answers stream from a cursor of their own, a chunk at a time (a lab's millions of answers are never
    all in this process), and the detections kept for repeated answers are forgotten past SEEN_LIMIT."""
    sql = PENDING_SQL.format(redo="true" if redo else "false")
    total = con.execute(f"SELECT count(*) FROM ({sql})", [DETECTOR]).fetchone()[0]
    if not total:
        return 0
    seen: dict[tuple[str | None, str], tuple] = {}  # (response, lang) -> the row's values: models repeat answers
    cursor = con.cursor()
    try:
        cursor.execute(sql, [DETECTOR])  # one snapshot: the chunks written meanwhile on `con` do not move it
        while chunk := cursor.fetchmany(CHUNK):
            if len(seen) > SEEN_LIMIT:
                seen.clear()
            _detect_chunk(con, chunk, seen)
            if on_chunk:
                on_chunk(len(chunk), total)
    finally:
        cursor.close()
    return total


def _detect_chunk(con: duckdb.DuckDBPyConnection, chunk: list[tuple], seen: dict) -> None:
    """One chunk's detections in one transaction; `seen` keeps the values of answers detected before."""
    now = datetime.now(UTC).replace(tzinfo=None)
    columns: dict[str, list] = {column: [] for column in _VALUES}
    new = list({(response, lang): None for _, lang, response, _ in chunk if (response, lang) not in seen})
    for key, result in zip(new, analyse_many(new), strict=True):
        segments = json.dumps([s.as_dict() for s in result.segments])
        seen[key] = (result.prompt_lang, result.answer_lang, result.kind, result.switched, segments)
    for _generation_id, lang, response, _ in chunk:
        for column, value in zip(_VALUES, seen[response, lang], strict=True):
            columns[column].append(value)
    ids = [row[0] for row in chunk]
    frame = pl.DataFrame(
        {"generation_id": ids, "detector": [DETECTOR] * len(ids), **columns, "detected_at": [now] * len(ids)},
        schema=_SCHEMA,
    )
    # Only answers detected before have a row to replace: a first detection (the demo's 468,360 answers) skips
    # the DELETE, which scanned the growing table once per chunk to remove nothing.
    replaced = [row[0] for row in chunk if row[3]]
    with transaction(con):
        if replaced:
            con.execute("DELETE FROM core.answer_languages WHERE generation_id IN (SELECT unnest(?))", [replaced])
        insert(con, "core.answer_languages", frame)


_VALUES = ("prompt_lang", "answer_lang", "kind", "switched", "segments")
_SCHEMA = {
    "generation_id": pl.String,
    "detector": pl.String,
    "prompt_lang": pl.String,
    "answer_lang": pl.String,
    "kind": pl.String,
    "switched": pl.Boolean,
    "segments": pl.String,
    "detected_at": pl.Datetime("us"),
}
