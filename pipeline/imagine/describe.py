"""Step `dish_description`: the declared task borsch.dish_description, run through any backend by
the generation stage (same cache keys, chunks and failure records as every other task)."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from pipeline.answers import generate, prompting
from pipeline.backends import Backend
from pipeline.tasks import get_task

TASK = "dish_description"


@dataclass(frozen=True)
class Description:
    """One stored description of one dish."""

    generation_id: str
    dish_key: str
    lang: str
    variant: str
    text: str


def task_for(dataset: str):
    return get_task(f"{dataset}.{TASK}")


def planned(con: duckdb.DuckDBPyConnection, spec, backend: Backend, run_id: str = "") -> list[prompting.Planned]:
    """The description requests for the spec's dishes (creating their core.items rows)."""
    task = task_for(spec.dataset)
    items = generate.prepare_items(con, task, spec.lang, limit=spec.limit, run_id=run_id)
    return prompting.plan(task, spec.lang, items, backend, spec.variants)


def run(con: duckdb.DuckDBPyConnection, spec, backend: Backend, run_id: str, on_progress=None) -> generate.RunSummary:
    task = task_for(spec.dataset)
    items = generate.prepare_items(con, task, spec.lang, limit=spec.limit, run_id=run_id)
    return generate.run(
        con, task, spec.lang, backend, items, run_id=run_id, variants=spec.variants,
        chunk_size=spec.chunk_size, on_progress=on_progress,
    )  # fmt: skip


def stored(con: duckdb.DuckDBPyConnection, spec, backend: Backend) -> list[Description]:
    """The descriptions this spec's describer has answered (empty answers left out), in dish order."""
    keys = [p.request.key for p in planned(con, spec, backend)]
    rows = con.execute(
        """
        SELECT g.generation_id, i.dish_key, g.lang, g.variant, g.response
        FROM core.generations g JOIN core.items i USING (item_id)
        WHERE g.generation_id IN (SELECT unnest(?)) AND trim(coalesce(g.response, '')) <> ''
        """,
        [keys],
    ).fetchall()
    order = {key: position for position, key in enumerate(keys)}
    return sorted((Description(*row) for row in rows), key=lambda d: order[d.generation_id])
