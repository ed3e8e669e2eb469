"""Step `translate`: each description to English, through any backend, as the declared task
`<dataset>.translate_description` (pipeline/tasks). The source text stays in its own generation
(dish_description) and the translation is a generation of its own, so both are kept and cached.

A translation item is one description: item_id `<task>:<description generation id>`. The prompt is
the task's template with `{text}` filled in; the generation stage does the rest (cache keys,
chunks, failures)."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from pipeline.answers import generate, prompting
from pipeline.backends import Backend
from pipeline.datasets.base import ensure_task
from pipeline.imagine.describe import Description
from pipeline.imagine.redact import redact
from pipeline.tasks import Task, get_task
from warehouse.io import insert, transaction

TASK = "translate_description"


@dataclass(frozen=True)
class Translation:
    description: Description
    generation_id: str | None  # None: the description was already in English
    text: str


def task_for(dataset: str) -> Task:
    return get_task(f"{dataset}.{TASK}")


def prompt(task: Task, lang: str, text: str, variant: str = "1") -> str:
    """The translation request for one description (braces in the text survive prompting.render)."""
    rendered = task.templates(lang)[variant].replace("{text}", text)
    return rendered.replace("{", "{{").replace("}", "}}") if "{dish}" in rendered else rendered


def items(con: duckdb.DuckDBPyConnection, task: Task, descriptions: list[Description]) -> list[prompting.ItemInput]:
    """One item per description (created in core.translation_items, the answers step's own part of core.items:
    migration 090), its question the rendered prompt."""
    rows = [
        {"item_id": f"{task.task_id}:{d.generation_id}", "task_id": task.task_id, "dish_key": d.dish_key,
         "source_ref": d.generation_id, "subset": "full"}
        for d in descriptions
    ]  # fmt: skip
    with transaction(con):
        ensure_task(con, task)
        known = {
            row[0]
            for row in con.execute(
                "SELECT item_id FROM core.items WHERE item_id IN (SELECT unnest(?))", [[r["item_id"] for r in rows]]
            ).fetchall()
        }
        insert(con, "core.translation_items", [r for r in rows if r["item_id"] not in known])
    return inputs(con, task, descriptions)


def inputs(con: duckdb.DuckDBPyConnection, task: Task, descriptions: list[Description]) -> list[prompting.ItemInput]:
    """The translation requests' items, read only (what the imagine step keys the stored translations by)."""
    names = _names(con, [d.dish_key for d in descriptions])
    return [
        prompting.ItemInput(
            f"{task.task_id}:{d.generation_id}",
            d.dish_key,
            d.text,
            questions={"1": prompt(task, d.lang, redact(d.text, names.get(d.dish_key, [])))},  # BORSch §5
        )
        for d in descriptions
    ]


def _names(con: duckdb.DuckDBPyConnection, dish_keys: list[str]) -> dict[str, list[str]]:
    """Every name of each dish (all languages), to redact from its descriptions."""
    rows = con.execute(
        "SELECT dish_key, list(name) FROM core.dish_names WHERE dish_key IN (SELECT unnest(?)) GROUP BY dish_key",
        [dish_keys],
    ).fetchall()
    return dict(rows)


def run(
    con: duckdb.DuckDBPyConnection, dataset: str, lang: str, descriptions: list[Description], backend: Backend,
    run_id: str, chunk_size: int = 16, on_progress=None,
) -> generate.RunSummary:  # fmt: skip
    task = task_for(dataset)
    todo = [d for d in descriptions if d.lang != "en"]
    return generate.run(
        con, prompting.with_item_questions(task), lang, backend, items(con, task, todo), run_id=run_id,
        chunk_size=chunk_size, on_progress=on_progress,
    )  # fmt: skip


def stored(
    con: duckdb.DuckDBPyConnection, dataset: str, lang: str, descriptions: list[Description], backend: Backend
) -> list[Translation]:
    """The English text of each description: its stored translation (descriptions not translated
    yet, or whose translation came back empty, are left out) or the description itself if English."""
    task = task_for(dataset)
    todo = [d for d in descriptions if d.lang != "en"]
    planned = prompting.plan(prompting.with_item_questions(task), lang, inputs(con, task, todo), backend, None)
    by_item = {p.item_id: p.request.key for p in planned}
    rows = dict(
        con.execute(
            "SELECT generation_id, response FROM core.generations WHERE generation_id IN (SELECT unnest(?)) "
            "AND trim(coalesce(response, '')) <> ''",
            [list(by_item.values())],
        ).fetchall()
    )
    out = []
    for d in descriptions:
        if d.lang == "en":
            out.append(Translation(d, None, d.text))
            continue
        key = by_item[f"{task.task_id}:{d.generation_id}"]
        if key in rows:
            out.append(Translation(d, key, rows[key].strip()))
    return out
