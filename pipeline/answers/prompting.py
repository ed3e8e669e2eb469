"""Prompting: a task's items in one language, its prompt templates filled in, and the requests keyed for the cache.

One home for what a prompt is, so that the generate stage (pipeline/answers/generate.py), the imagine stage's
describer and translator (pipeline/imagine/describe.py, translate.py), the fine-tune examples
(pipeline/finetune/data.py) and the live probe all ask a model the same words: a tuned model is trained on the very
prompt it is evaluated with, and a probe's question is the task's variant 1 word for word (several are the papers'
own wording, tests/pipeline/test_generate.py).

A request's cache key is the model identity, the backend and its settings, the rendered messages, the images' content
hashes and the task's temperature: rerunning skips what is done.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb

from pipeline.backends import Backend, Message, Request
from pipeline.datasets import get_dataset
from pipeline.datasets.base import ItemInput, ItemsRequest, TaskItems
from pipeline.tasks import Task

__all__ = [
    "ItemInput",
    "Planned",
    "cache_key",
    "fill",
    "items",
    "plan",
    "render",
    "templates",
    "with_item_questions",
]


@dataclass(frozen=True)
class Planned:
    """A request with the item it answers, before the cache is consulted."""

    request: Request
    item_id: str
    lang: str
    variant: str
    messages_json: str


def items(
    con: duckdb.DuckDBPyConnection,
    task: Task,
    lang: str,
    *,
    limit: int | None = None,
    subset: str = "full",
    images_dir: Path | None = None,
    run_id: str = "",
) -> TaskItems:
    """The task's items in `lang`, first `limit` of them, as its dataset module builds them (the dataset module is
    the home of its items, gold and images), with the items left out for want of a readable image and why."""
    return get_dataset(task.dataset).items(
        con, ItemsRequest(task, lang, limit=limit, subset=subset, images_dir=images_dir, run_id=run_id)
    )


def templates(task: Task, item: ItemInput, lang: str) -> dict[str, str]:
    """Variant -> template of one item: the task's declared wording, or the item's own questions when the prompts
    come with the data (ZNO, VQA, a translation's rendered request)."""
    return item.questions if task.prompt_source == "dataset" else task.templates(lang)


def with_item_questions(task: Task) -> Task:
    """The task asking each item's own rendered question (`ItemInput.questions`) instead of its templates."""
    return replace(task, prompt_source="dataset")


def fill(template: str, dish: str | None) -> str:
    """A template with the dish's name in it (templates that name no dish are asked as they are)."""
    return template.format(dish=dish) if "{dish}" in template else template


def render(task: Task, item: ItemInput, template: str) -> tuple[Message, ...]:
    """The chat messages for one item and prompt variant."""
    images = item.images if task.inputs in ("images", "images_and_name") else ()
    return (Message("user", fill(template, item.dish_name), images),)


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
        for variant, template in templates(task, item, lang).items():
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
