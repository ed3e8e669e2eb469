"""The generate stage: a task's prompts (pipeline/answers/prompting.py) for its items, what is cached skipped, the
backend asked, and the answers written chunk by chunk through the answers' one writer (pipeline/answers/store.py).

Each chunk is one transaction, so `kill -9` loses at most the chunk in flight and the rerun completes the rest with
no duplicates. Items whose images are missing or unreadable are skipped with the reason recorded in
core.generation_failures, never silently; so are requests the model failed on (they are retried by the next run).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.answers import prompting
from pipeline.answers.prompting import ItemInput, Planned
from pipeline.answers.store import GENERATION_SCHEMA, record_failure, store_answers
from pipeline.backends import Backend, Request, Response
from pipeline.tasks import Task
from warehouse.io import insert, transaction

__all__ = ["Answers", "answer_locally", "prepare_items", "run"]


@dataclass
class RunSummary:
    run_id: str
    requested: int = 0
    cached: int = 0
    generated: int = 0
    failed: int = 0
    skipped_items: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0

    @property
    def items_per_second(self) -> float:
        return self.generated / self.seconds if self.seconds else 0.0

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_out / self.seconds if self.seconds else 0.0


# --- items -----------------------------------------------------------------------------------


def prepare_items(
    con: duckdb.DuckDBPyConnection, task: Task, lang: str, *, run_id: str = "", **selection
) -> list[ItemInput]:
    """The task's items in `lang` (`selection`: `limit`, `subset`, `images_dir`, as `prompting.items` takes them).
    Items left out for want of a readable image are recorded in core.generation_failures with the reason."""
    found = prompting.items(con, task, lang, run_id=run_id, **selection)
    if found.skipped:
        with transaction(con):
            for item_id, reason in found.skipped:
                record_failure(con, run_id, task.task_id, item_id, lang, None, "input", reason)
    return found.ready


# --- running ---------------------------------------------------------------------------------

# An executor: given the uncached requests in chunks, yields (requests, their responses) as units come back,
# in any order; each unit is committed as one transaction (pipeline/executors/ for Ray).
Answers = Callable[[list[list[Request]]], Iterator[tuple[list[Request], list[Response]]]]


def answer_locally(backend: Backend) -> Answers:
    """The local executor: the backend in this process, one chunk after another."""

    def answers(chunks: list[list[Request]]) -> Iterator[tuple[list[Request], list[Response]]]:
        for chunk in chunks:
            yield chunk, list(backend.generate(chunk))

    return answers


def run(
    con: duckdb.DuckDBPyConnection,
    task: Task,
    lang: str,
    backend: Backend,
    items: list[ItemInput],
    *,
    run_id: str,
    variants: tuple[str, ...] | None = None,
    chunk_size: int = 64,
    max_tokens: int | None = None,
    on_progress: Callable[[int, int, int], None] | None = None,
    answers: Answers | None = None,
) -> RunSummary:
    """Generate what is not cached yet, in chunks that are each one transaction. `answers` is the executor that
    asks the model (default: `backend` in this process, chunk after chunk); whichever it is, cached keys are
    dropped before it sees anything, and each unit it hands back is committed as it comes."""
    summary = RunSummary(run_id=run_id)
    planned = prompting.plan(task, lang, items, backend, variants, max_tokens)
    summary.requested = len(planned)
    done = _existing(con, [p.request.key for p in planned])
    todo = [p for p in planned if p.request.key not in done]
    summary.cached = len(planned) - len(todo)
    if not todo:  # nothing to ask: no run to record, so a rerun with nothing new changes nothing
        return summary
    identity = backend.identity()
    started = datetime.now(UTC).replace(tzinfo=None)
    with transaction(con):
        _upsert_model(con, backend)
        insert(
            con,
            "core.generation_runs",
            [
                {
                    "run_id": run_id,
                    "model_id": identity.model_id,
                    "task_id": task.task_id,
                    "backend": backend.name,
                    "settings": json.dumps({**backend.settings(), "lang": lang}, default=str),
                    "n_requested": summary.requested,
                    "started_at": started,
                }
            ],
        )
    clock = time.perf_counter()
    planned_by_key = {p.request.key: p for p in todo}
    chunks = [[p.request for p in chunk] for chunk in _chunks(todo, chunk_size)]
    # a seeded backend's answers are that seed's repeated sample (core.generations.sample; CultureMix §4's
    # entropy is over them): another seed is another sample of the same question, never a duplicate
    sample = int(backend.settings().get("seed") or 0)
    for asked, responses in (answers or answer_locally(backend))(chunks):
        by_key = {request.key: planned_by_key[request.key] for request in asked}
        _write_chunk(con, task, run_id, identity.model_id, backend.name, by_key, responses, summary, sample)
        summary.seconds = time.perf_counter() - clock
        if on_progress:
            on_progress(len(asked), sum(r.tokens_out or 0 for r in responses), len(todo))
    summary.seconds = time.perf_counter() - clock
    with transaction(con):
        con.execute(
            """UPDATE core.generation_runs SET n_generated = ?, n_skipped = ?, n_failed = ?, tokens_in = ?,
               tokens_out = ?, wall_seconds = ?, finished_at = ? WHERE run_id = ?""",
            [
                summary.generated,
                summary.cached,
                summary.failed,
                summary.tokens_in,
                summary.tokens_out,
                summary.seconds,
                datetime.now(UTC).replace(tzinfo=None),
                run_id,
            ],
        )
    return summary


def _write_chunk(
    con,
    task: Task,
    run_id: str,
    model_id: str,
    backend_name: str,
    by_key: dict[str, Planned],
    responses: list[Response],
    summary: RunSummary,
    sample: int = 0,
) -> None:
    now = datetime.now(UTC).replace(tzinfo=None)
    rows, failures = [], []
    for response in responses:
        planned = by_key[response.key]
        if response.error is not None:
            failures.append((planned, response.error))
            continue
        rows.append(
            {
                "generation_id": response.key,
                "run_id": run_id,
                "model_id": model_id,
                "item_id": planned.item_id,
                "lang": planned.lang,
                "variant": planned.variant,
                "messages": planned.messages_json,
                "response": response.text,
                "finish_reason": response.finish_reason,
                "tokens_in": response.tokens_in,
                "tokens_out": response.tokens_out,
                "latency_ms": response.latency_ms,
                "origin": backend_name,
                "created_at": now,
                "sample": sample,
            }
        )
        summary.tokens_in += response.tokens_in or 0
        summary.tokens_out += response.tokens_out or 0
    missing = set(by_key) - {r.key for r in responses}
    failures += [(by_key[key], "the backend returned no answer") for key in sorted(missing)]
    with transaction(con):
        store_answers(con, pl.DataFrame(rows, schema=GENERATION_SCHEMA), replace=False)
        for planned, reason in failures:
            record_failure(con, run_id, task.task_id, planned.item_id, planned.lang, planned.variant, "model", reason)
    summary.generated += len(rows)
    summary.failed += len(failures)


def _existing(con, keys: list[str]) -> set[str]:
    if not keys:
        return set()
    rows = con.execute(
        "SELECT generation_id FROM core.generations WHERE generation_id IN (SELECT unnest(?))", [keys]
    ).fetchall()
    return {row[0] for row in rows}


def _upsert_model(con, backend: Backend) -> None:
    identity = backend.identity()
    con.execute("DELETE FROM core.models WHERE model_id = ?", [identity.model_id])
    path = identity.model_id if Path(identity.model_id).exists() else None
    insert(
        con,
        "core.models",
        [
            {
                "model_id": identity.model_id,
                "display_name": Path(identity.model_id).name or identity.model_id,
                "backend": backend.name,
                "path": path,
                "revision": identity.revision,
                "weights_hash": identity.weights_hash,
                "is_vision": identity.is_vision,
            }
        ],
    )


def _chunks(rows: list, size: int) -> Iterator[list]:
    for start in range(0, len(rows), max(1, size)):
        yield rows[start : start + size]
