"""The generate stage: render a task's prompts for its items, skip what is already cached, ask the
backend, and write the answers chunk by chunk.

Every request is keyed by the model (id, revision, weights hash), the backend and its settings, the
rendered messages and the images' content hashes: rerunning skips what is done. Each chunk is one
transaction, so `kill -9` loses at most the chunk in flight and the rerun completes the rest with no
duplicates. Items whose images are missing or unreadable are skipped with the reason recorded in
core.generation_failures, never silently; so are requests the model failed on (they are retried by
the next run).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.backends import Backend, Message, Request, Response
from pipeline.datasets import get_dataset
from pipeline.datasets.base import ItemInput, ItemsRequest
from pipeline.tasks import Task
from warehouse.io import insert, transaction

__all__ = ["Answers", "ItemInput", "answer_locally", "prepare_items", "run"]


@dataclass(frozen=True)
class Planned:
    """A request with the item it answers, before the cache is consulted."""

    request: Request
    item_id: str
    lang: str
    variant: str
    messages_json: str


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
    con: duckdb.DuckDBPyConnection,
    task: Task,
    lang: str,
    *,
    limit: int | None = None,
    subset: str = "full",
    images_dir: Path | None = None,
    run_id: str = "",
) -> list[ItemInput]:
    """The task's items in `lang`, first `limit` of them, as its dataset module builds them (the
    dataset is the only writer of items, gold and images). Items left out for want of a readable
    image are recorded in core.generation_failures with the reason."""
    found = get_dataset(task.dataset).items(
        con, ItemsRequest(task, lang, limit=limit, subset=subset, images_dir=images_dir, run_id=run_id)
    )
    if found.skipped:
        with transaction(con):
            for item_id, reason in found.skipped:
                record_failure(con, run_id, task, item_id, lang, None, "input", reason)
    return found.ready


# --- requests --------------------------------------------------------------------------------


def render(task: Task, item: ItemInput, template: str) -> tuple[Message, ...]:
    """The chat messages for one item and prompt variant."""
    text = template.format(dish=item.dish_name) if "{dish}" in template else template
    images = item.images if task.inputs in ("images", "images_and_name") else ()
    return (Message("user", text, images),)


def cache_key(
    backend: Backend, messages: tuple[Message, ...], image_hashes: tuple[str, ...], temperature: float | None = None
) -> str:
    """What makes two requests the same: model identity, backend settings, messages, image bytes, and the
    task's temperature where it declares one (absent otherwise, so older keys stay valid)."""
    identity = backend.identity()
    payload = {
        "model": [identity.model_id, identity.revision, identity.weights_hash],
        "backend": backend.name,
        "settings": backend.settings(),
        "messages": [[m.role, m.text] for m in messages],
        "images": list(image_hashes),
    }
    if temperature is not None:
        payload["temperature"] = temperature
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def plan(
    task: Task,
    lang: str,
    items: list[ItemInput],
    backend: Backend,
    variants: tuple[str, ...] | None,
    max_tokens: int | None = None,
) -> list[Planned]:
    """Every (item, variant) request, keyed; prompts from the task or shipped with the dataset."""
    planned = []
    for item in items:
        templates = item.questions if task.prompt_source == "dataset" else task.templates(lang)
        for variant, template in templates.items():
            if variants and variant not in variants:
                continue
            messages = render(task, item, template)
            hashes = item.image_hashes if messages[0].images else ()
            key = cache_key(backend, messages, hashes, task.temperature)
            messages_json = json.dumps(
                [{"role": m.role, "text": m.text, "images": list(hashes)} for m in messages], ensure_ascii=False
            )
            planned.append(
                Planned(
                    Request(
                        key, messages, max_tokens or task.max_tokens, item.item_id, lang, variant, task.temperature
                    ),
                    item.item_id,
                    lang,
                    variant,
                    messages_json,
                )
            )
    return planned


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
    planned = plan(task, lang, items, backend, variants, max_tokens)
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
        insert(con, "core.generations", pl.DataFrame(rows, schema=GENERATION_SCHEMA))
        for planned, reason in failures:
            record_failure(con, run_id, task, planned.item_id, planned.lang, planned.variant, "model", reason)
    summary.generated += len(rows)
    summary.failed += len(failures)


def record_failure(
    con, run_id: str, task: Task, item_id: str | None, lang: str, variant: str | None, stage: str, reason: str
) -> None:
    con.execute(
        "INSERT INTO core.generation_failures (run_id, task_id, item_id, lang, variant, stage, reason) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [run_id, task.task_id, item_id, lang, variant, stage, reason[:1000]],
    )


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


# core.generations as the generate stage writes it (imported answers fill a subset of it:
# responses.IMPORTED_GENERATION_SCHEMA)
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
