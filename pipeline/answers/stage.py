"""The generate stage's driver: one `generate` request (task, language, backend, model) from the prepared items to
the committed answers, with progress and a summary line; where the model calls run is passed in, never chosen here.

The executor (pipeline/executors/) is resolved once by the flow (pipeline/flow/steps.py) and hands this driver
`elsewhere`, what replaces the local loop's model calls (None: this process asks the model), and `fans_out`, whether
it may spread one model over several OpenAI-compatible servers.
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from pipeline.answers import generate as generating
from pipeline.backends import Backend, create_backend, endpoint_settings
from pipeline.core.output import console, literal, progress_bar, say
from pipeline.core.run_settings import GenerationSpec
from pipeline.tasks import get_task, with_prompt_set, with_prompt_table
from warehouse.io import new_run_id, scalar

# What an executor runs instead of this process's model calls: (the request, its first backend, every endpoint's
# settings) -> the answers (pipeline/answers/generate.py `Answers`).
AnswerElsewhere = Callable[[GenerationSpec, Backend, list[dict]], generating.Answers]


def task_of(spec: GenerationSpec):
    """The spec's task in the wording it asks for: declared, a declared set by name, or a prompt table (the ingest
    step builds its items, this stage asks them)."""
    task = get_task(spec.task)
    if spec.prompts and str(spec.prompts) in task.prompt_sets and not spec.prompts.exists():
        return with_prompt_set(task, str(spec.prompts))  # a declared wording by name (BORSch: atlas)
    if spec.prompts:
        return with_prompt_table(task, spec.prompts)
    return task


def generate_answers(
    con: duckdb.DuckDBPyConnection,
    spec: GenerationSpec,
    *,
    elsewhere: AnswerElsewhere | None = None,
    fans_out: bool = False,
) -> None:
    """Ask `spec`'s model its task's questions: items prepared (and those without their images counted), the model
    servers checked, the uncached requests answered in `elsewhere` or here, and one summary line."""
    task = task_of(spec)
    run_id = new_run_id()
    items = generating.prepare_items(
        con, task, spec.lang, limit=spec.limit, subset=spec.subset, images_dir=spec.images, run_id=run_id
    )
    skipped = scalar(
        con, "SELECT count(*) FROM core.generation_failures WHERE run_id = ? AND stage = 'input'", [run_id]
    )
    if skipped:
        console.print(
            f"[yellow]{skipped} items skipped for missing or unreadable images[/] (reasons in core.generation_failures)"
        )
    endpoints = endpoint_settings(spec.backend, spec.settings)
    if len(endpoints) > 1 and not fans_out:
        raise ValueError(f"base_url lists {len(endpoints)} servers: fanning out over several needs --executor ray")
    engines = [create_backend(spec.backend, spec.model, **settings) for settings in endpoints]
    for server in engines:
        if hasattr(server, "check"):  # a model server: fail fast when it is down
            server.check()
    engine = engines[0]  # the model's identity and settings: the cache keys
    answers = elsewhere(spec, engine, endpoints) if elsewhere else None
    try:
        with progress_bar(rate=True) as progress:
            bar = progress.add_task(literal(f"{task.task_id} {spec.lang}"), total=None, tokens=0)

            def advance(done: int, tokens: int, total: int) -> None:
                progress.update(bar, total=total, advance=done, tokens=progress.tasks[bar].fields["tokens"] + tokens)
                if not console.is_terminal:  # logs and tests get one line per committed chunk
                    progress.console.print(f"committed {int(progress.tasks[bar].completed)}/{total}")

            summary = generating.run(
                con,
                task,
                spec.lang,
                engine,
                items,
                run_id=run_id,
                variants=spec.variants,
                chunk_size=spec.chunk_size,
                max_tokens=spec.max_tokens,
                on_progress=advance,
                answers=answers,
            )
    finally:
        for server in engines:
            server.close()
    say(
        "{} {} with {}: {} answers ({} cached, {} failed) in {} s, {} items/s, {} tokens/s",
        task.task_id,
        spec.lang,
        spec.model,
        summary.generated,
        summary.cached,
        summary.failed,
        f"{summary.seconds:.1f}",
        f"{summary.items_per_second:.1f}",
        f"{summary.tokens_per_second:.0f}",
    )
