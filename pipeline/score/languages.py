"""The language-switching step: the language of every stored answer, per segment, into
core.answer_languages (its only table). Like extraction it needs no model: a new detector version
redoes older rows, and chunks are transactions, so a killed run resumes where it stopped.

Reads core.generations; writes core.answer_languages.

The detection is a pure function of (answer, prompt language), so it can run before the step's turn: `start_detecting`
(the step's `warm`, pipeline/flow/steps.py) hands the pending answers' distinct pairs to a background process as soon
as the answers are in, which detects them on the second core while the corpus and score steps run on the first; the
step then only writes (on the demo, ~126,000 distinct answers, ~30 CPU-s of lingua and segmenting moved off the
critical path). Whatever the worker has not delivered (it died, or the answers changed since) is detected here, as
before, so the rows are the same either way.
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
# The most distinct (answer, language) pairs handed to the background worker: the demo's all; a lab's first 300,000
# (their texts and detections held twice, by the worker and by this process), the rest detected in the step's turn.
AHEAD_LIMIT = 300_000
# The fewest pairs worth a worker: below, starting a process (its imports, lingua's models loaded again) costs more
# than detecting them in the step's turn.
AHEAD_MIN = 5_000

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
    ahead = _AHEAD.pop() if _AHEAD else None
    if not total:
        if ahead is not None:
            ahead.stop()
        return 0
    # (response, lang) -> the row's values: models repeat answers; what the background worker detected comes first
    seen: dict[tuple[str | None, str], tuple] = ahead.results() if ahead is not None else {}
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
    seen.update(zip(new, _detected_values(new), strict=True))
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


def _detected_values(pairs: list[tuple[str | None, str]]) -> list[tuple]:
    """The stored values (prompt_lang, answer_lang, kind, switched, segments as JSON) of each (answer, language)."""
    return [
        (
            result.prompt_lang,
            result.answer_lang,
            result.kind,
            result.switched,
            json.dumps([s.as_dict() for s in result.segments]),
        )
        for result in analyse_many(pairs)
    ]


def start_detecting(con: duckdb.DuckDBPyConnection, redo: bool = False) -> int:
    """Start detecting the pending answers' distinct (answer, language) pairs (at most AHEAD_LIMIT) in a background
    process, for `detect_answer_languages` to collect in the step's turn; returns how many pairs it took (0: no
    process started). Called by the step's `warm`, as soon as core.generations is final."""
    sql = PENDING_SQL.format(redo="true" if redo else "false")
    pairs = con.execute(f"SELECT DISTINCT response, lang FROM ({sql}) LIMIT {AHEAD_LIMIT}", [DETECTOR]).fetchall()
    if len(pairs) < AHEAD_MIN:
        return 0
    while _AHEAD:  # an earlier run's worker nobody collected (its step did not run): ended, not left behind
        _AHEAD.pop().stop()
    try:
        _AHEAD.append(_Ahead(pairs))
    except (AssertionError, OSError):  # a daemonic process may not start one, nor one out of resources: the step
        return 0  # detects every answer in its turn, as without a worker
    return len(pairs)


class _Ahead:
    """One daemon process detecting `pairs` chunk by chunk, sending each chunk's values down a pipe, and a thread of
    this process receiving them as they come (a chunk's values are megabytes: unread, the pipe would hold the worker
    at its first chunk until the step's turn); `results` waits for the rest. A command that ends first ends it; one
    that dies (killed, out of memory) delivered its chunks so far, and the step detects the rest itself."""

    def __init__(self, pairs: list[tuple[str | None, str]]) -> None:
        import multiprocessing
        import threading

        context = multiprocessing.get_context("spawn")  # never fork a process holding DuckDB's threads
        self.receiver, sender = context.Pipe(duplex=False)
        self.worker = context.Process(target=_ahead_worker, args=(pairs, sender), name="answer-languages", daemon=True)
        self.worker.start()
        sender.close()  # the worker's end only: its exit closes the pipe, and `recv` sees the end
        self.found: dict[tuple[str | None, str], tuple] = {}
        self.receiving = threading.Thread(target=self._receive, name="answer-languages-receiver", daemon=True)
        self.receiving.start()

    def _receive(self) -> None:
        try:
            while (chunk := self.receiver.recv()) is not None:
                self.found.update(chunk)
        except (EOFError, OSError):  # the worker died: what it sent stands, the step detects the rest
            pass

    def results(self) -> dict[tuple[str | None, str], tuple]:
        """Every value the worker sent, waiting for the ones it is still detecting."""
        self.receiving.join()
        self.stop()
        return self.found

    def stop(self) -> None:
        """End the worker: at once when its values are not wanted (or it is done), never left behind. Its end of the
        pipe closes with it, which ends the receiving thread."""
        self.worker.terminate()
        self.worker.join()
        self.receiving.join()
        self.receiver.close()


_AHEAD: list[_Ahead] = []


def _ahead_worker(pairs: list[tuple[str | None, str]], sender) -> None:
    for start in range(0, len(pairs), CHUNK):
        chunk = pairs[start : start + CHUNK]
        sender.send(list(zip(chunk, _detected_values(chunk), strict=True)))
    sender.send(None)
    sender.close()


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
