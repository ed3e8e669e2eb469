"""The pipeline's stages as steps, and the named pipelines composed from them: one declaration.

A step declares the tables it reads and the tables it writes; no two steps write the same table
(tests/pipeline/flow/test_steps.py checks it), so whoever reads a table knows which step fills it.
`meta.source_files` and `meta.ingest_reports` are the shared ledger of loaded files and their
quirks: each step appends rows of its own kind only, so they are declared as `ledger`, not owned.
`core.items` and `core.images` are views (`UNION_VIEWS`) of base tables each owned by one step; a step that reads
them reads all of those.

A pipeline is an ordered tuple of step names; `run_pipeline` runs them in one working-database
session and ends, always, with `publish`, which is a no-op when the published fingerprint already
matches. So every writing command — a no-op rerun included — leaves a published snapshot that
matches the working database (a snapshot lost or left behind by a killed publish heals itself).

The command line (pipeline/cli.py) only parses arguments into `Options` and calls `run_pipeline`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from rich.table import Table

from pipeline.core.output import console, literal, progress_bar, say
from pipeline.core.run_settings import Options
from pipeline.executors import EXECUTORS, Placement
from warehouse.db import Warehouse, table_fingerprints
from warehouse.io import new_run_id, scalar
from warehouse.registry import Registry


@dataclass(frozen=True)
class Context:
    """One run of a pipeline: the open working database, the options and the run id its steps share.
    `failures` collects input files a step refused while it went on with the others; the pipeline
    publishes what did load and then reports them (exit 2). `executor` is the run's executor, resolved once by
    `run_pipeline` from `options.executor` and bound to its Ray options: steps hand it to their stages' drivers."""

    con: duckdb.DuckDBPyConnection
    options: Options
    run_id: str = field(default_factory=new_run_id)
    failures: list = field(default_factory=list)
    executor: Placement = field(default_factory=Placement)


@dataclass(frozen=True)
class Step:
    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    run: Callable[[Context], None]
    ledger: tuple[str, ...] = ()
    doc: str = ""
    # Started (in the background) as soon as what it reads is final, before the steps between run: see `_warm_ups`.
    warm: Callable[[Context], None] | None = None
    warm_reads: tuple[str, ...] | None = None  # the tables `warm` reads; None: the step's own `reads`


STEPS: Registry[Step] = Registry("step")


def step(
    name: str,
    *,
    reads: tuple[str, ...],
    writes: tuple[str, ...],
    ledger: tuple[str, ...] = (),
    warm: Callable[[Context], None] | None = None,
    warm_reads: tuple[str, ...] | None = None,
):
    """Decorator: declare `func(ctx)` as the step `name` with the tables it reads and writes, and what it can start
    in the background before its turn (`warm`, reading `warm_reads`)."""

    def declare(func: Callable[[Context], None]) -> Callable[[Context], None]:
        doc = (func.__doc__ or "").strip()
        STEPS.add(name, Step(name, reads, writes, func, ledger, doc, warm, warm_reads))
        return func

    return declare


# --- the steps -------------------------------------------------------------------------------

REFERENCE_TABLES = (
    "core.countries",
    "core.country_shapes",
    "core.language_countries",
    "core.country_continents",
    "core.country_outlines",
)
DATASET_TABLES = (
    "raw.borsch_dishes",
    "raw.borsch_parallel",
    "raw.worldcuisines_kb",
    "raw.worldcuisines_names",
    "raw.worldcuisines_task2",
    "raw.culturemix_images",
    "core.culturemix_images",
    "core.datasets",
    "core.dishes",
    "core.dish_names",
    "core.dish_origins",
    "core.dish_regions",
    "core.dish_origin_nations",
    "core.parallel_dishes",
    "core.ingested_images",
    "core.tasks",
    "core.ingested_items",
    "core.item_images",
    "core.item_gold_countries",
    "core.item_gold_nations",
    "core.item_gold_text",
    "core.item_prompts",
    "raw.worldcuisines_task1",
    "core.item_options",
    "core.item_gold_choices",
    "core.exam_items",
    "core.vqa_questions",
)
ANSWER_TABLES = (
    "raw.imported_responses",
    "raw.borsch_responses",
    "core.models",
    "core.generation_runs",
    "core.generations",
    "core.generation_failures",
    "core.human_ratings",  # issue 48: BORSch's human evaluation (`import-responses --format borsch-ratings`)
    "core.translation_items",  # one item per imagined description to translate (pipeline/imagine/translate.py)
)
CORPUS_TABLES = (
    "core.corpora",
    "core.corpus_shards",
    "core.corpus_dish_counts",
    "core.corpus_name_counts",
    "core.corpus_samples",
    "core.corpus_shard_dish_counts",
    "core.corpus_shard_name_counts",
)
SCORE_TABLES = (
    "core.extractions",
    "core.extraction_spans",
    "core.choice_extractions",
    "core.gold_text_checks",
    "core.scores",
    "core.name_matches",
    "core.score_models",
    "core.answer_classes",
)
LEDGER = ("meta.source_files", "meta.ingest_reports")
# The views of several steps' tables (warehouse/migrations/090_one_writer_items_images.sql), by what they read:
# declared reads name the view, ordering follows its tables (tests/pipeline/flow/test_steps.py checks this against
# the migrated schema).
UNION_VIEWS = {
    "core.items": ("core.ingested_items", "core.translation_items"),
    "core.images": ("core.ingested_images", "core.imagine_images"),
}


def read_tables(tables: tuple[str, ...]) -> set[str]:
    """The base tables behind `tables` (a view of `UNION_VIEWS` stands for the tables it unites)."""
    return {base for table in tables for base in UNION_VIEWS.get(table, (table,))}


@step("reference", reads=(), writes=REFERENCE_TABLES)
def reference(ctx: Context) -> None:
    """Countries, their outlines and where languages are spoken: once, before any dataset."""
    from pipeline.reference.load import load_reference

    load_reference(ctx.con)


def _warm_ingest(ctx: Context) -> None:
    """The curated languages' gazetteers (ru, uk, en; the costliest, ~2-3 CPU-s each), from nothing at all: a
    dataset's gold strings are read in English, every country matcher searches all three, the corpus is Ukrainian.
    They build while the reference tables load."""
    from pipeline.extract.gazetteer import prebuild

    prebuild(("en", "uk", "ru"))  # in the order they are needed: datasets' gold, the corpus, the answers


@step("ingest", reads=REFERENCE_TABLES, writes=DATASET_TABLES, ledger=LEDGER, warm=_warm_ingest, warm_reads=())
def ingest(ctx: Context) -> None:
    """Each dataset module loads its own files (the only writer of its dishes, items, gold, images), then builds
    the items the command will ask or train on (`_prepare_items`). `demo` drops the sample when real data is
    loaded, so the two never mix."""
    from pipeline.datasets import get_dataset
    from pipeline.datasets.bundle import subset_notes
    from pipeline.datasets.sample import remove as remove_sample

    options = ctx.options
    if options.data is not None and "sample" not in options.datasets:
        remove_sample(ctx.con)
    subsets = subset_notes(options.data)  # the embedded bundle says which datasets it cut, and how
    for name in options.datasets:
        dataset = get_dataset(name)
        source = _dataset_source(name, options)
        _report(dataset.ingest(ctx.con, source, ctx.run_id, options.force))
        ctx.con.execute("UPDATE core.datasets SET subset = ? WHERE dataset = ?", [subsets.get(name), name])
    _prepare_items(ctx)


def _prepare_items(ctx: Context) -> None:
    """The items (gold, photos, CultureMix composites) of every task this command asks or fine-tunes on, built by
    their dataset modules here, in the ingest step, so that they have one writer: some datasets build them on first
    use (BORSch's per task and language, the photos an image task is shown from `--images DIR`). The answers and
    fine-tune steps then read them as they are (a second build finds them there and writes nothing)."""
    from pipeline.answers import prompting
    from pipeline.answers.stage import task_of
    from pipeline.datasets.base import ensure_task
    from pipeline.imagine import describe, translate
    from pipeline.tasks import get_task

    options = ctx.options
    wanted = [(task_of(spec), spec.lang, spec.limit, spec.subset, spec.images) for spec in options.generations]
    wanted += [(describe.task_for(spec.dataset), spec.lang, spec.limit, "full", None) for spec in options.imagines]
    wanted += [
        (get_task(task_id), spec.lang, spec.limit, "full", spec.images)
        for spec in options.finetunes
        for task_id in spec.tasks
    ]
    for task, lang, limit, subset, images in wanted:
        prompting.items(ctx.con, task, lang, limit=limit, subset=subset, images_dir=images, run_id=ctx.run_id)
    for spec in options.imagines:  # its items are made of the descriptions, by the answers step: the task is known now
        ensure_task(ctx.con, translate.task_for(spec.dataset))
    if options.responses:  # the items imported answers name, where their dataset builds them on first use (BORSch)
        from pipeline.answers.formats import IMPORT_FORMATS

        IMPORT_FORMATS[options.response_format].build_items(ctx.con, options)


def _dataset_source(name: str, options: Options) -> Path | None:
    """`ingest NAME --source DIR` names the folder; `demo --data DIR` holds one folder per dataset."""
    if options.data is None:
        return options.source
    nested = options.data / name
    return nested if name == "borsch" and nested.is_dir() else options.data


@step("answers", reads=DATASET_TABLES, writes=ANSWER_TABLES, ledger=LEDGER)
def answers(ctx: Context) -> None:
    """Answers: imported from files (`import-responses`, the demo's published predictions) and
    generated by a backend (`generate`, `run`, and the imagine stage's descriptions and translations);
    all land in core.generations (pipeline/answers/store.py, its one writer)."""
    from pipeline.answers.stage import generate_answers

    if ctx.options.responses or ctx.options.data is not None:
        _import(ctx)
    for spec in ctx.options.generations:
        generate_answers(ctx.con, spec, elsewhere=ctx.executor.answers, fans_out=ctx.executor.fans_out)
    for spec in ctx.options.imagines:  # the imagine stage's text steps are answers of their own tasks
        from pipeline.imagine import STEPS as IMAGINE_STEPS
        from pipeline.imagine import steps as imagining

        imagining.answer(ctx.con, spec, ctx.options.imagine_steps or IMAGINE_STEPS, say=lambda line: say("{}", line))


@step("corpus", reads=("core.dishes", "core.dish_names", "core.dish_origins"), writes=CORPUS_TABLES)
def corpus(ctx: Context) -> None:
    """Dish and country mentions in a text corpus (UA-GEC when no source is given)."""
    from pipeline.corpus import stage as corpus_stage

    options = ctx.options
    settings = {"elsewhere": ctx.executor.scan, "skip_corrupt_shards": options.skip_corrupt_shards}
    if options.uagec:
        corpus_stage.scan_uagec(ctx.con, options.uagec_dest, **settings)
    if options.corpus_source is not None:
        corpus_stage.scan(ctx.con, options.corpus_lang or "uk", options.corpus_source, options.text_field, **settings)


@step(
    "link",
    reads=("core.dishes", "core.dish_names", "core.parallel_dishes"),
    writes=("core.dish_links",),
    ledger=("meta.source_files",),  # the digest of the names the links were computed from
)
def link(ctx: Context) -> None:
    """Which BORSch and WorldCuisines records name one dish (pipeline/datasets/linking.py)."""
    from pipeline.datasets import linking

    counts = linking.link_dishes(ctx.con)
    if counts:
        console.print("dish links: " + ", ".join(f"{n} {method}" for method, n in sorted(counts.items())))


def _warm_score(ctx: Context) -> None:
    from pipeline.score import stage as scoring

    scoring.warm_up(ctx.con, rescore=ctx.options.rescore)


@step(
    "score",
    warm=_warm_score,
    reads=(
        "core.tasks",
        "core.items",
        "core.item_gold_countries",
        "core.item_gold_nations",
        "core.item_gold_text",
        "core.item_options",
        "core.item_gold_choices",
        "core.item_prompts",
        "core.exam_items",
        "core.dish_names",
        "core.dish_links",
        "core.generations",
    ),
    writes=SCORE_TABLES,
)
def score(ctx: Context) -> None:
    """Extract the countries (or names) of every answer not yet extracted and score them."""
    from pipeline.score import stage as scoring

    with progress_bar() as progress:
        task = progress.add_task("extracting + scoring", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, total=total, advance=done)

        summary = scoring.score(ctx.con, rescore=ctx.options.rescore, on_chunk=advance, elsewhere=ctx.executor.score)
    if summary.scored:
        console.print(f"scored {summary.scored:,} answers in {summary.seconds:.1f} s ({summary.per_second:,.0f}/s)")
    else:
        console.print("[dim]every answer is already scored by the current extractor[/]")


def _warm_languages(ctx: Context) -> None:
    """The pending answers' languages, detected in a background process while the corpus and score steps run."""
    from pipeline.score.languages import start_detecting

    start_detecting(ctx.con)


@step("languages", reads=("core.generations",), writes=("core.answer_languages",), warm=_warm_languages)
def languages(ctx: Context) -> None:
    """The language of every answer, per segment: in the prompt's language, another, or mixed."""
    from pipeline.score.languages import detect_answer_languages

    with progress_bar() as progress:
        bar = progress.add_task("answer languages", total=None)
        detected = detect_answer_languages(
            ctx.con,
            redo=False,  # `score --rescore` is about extractors: languages are redone only for a new DETECTOR version
            on_chunk=lambda done, total: progress.update(bar, total=total, advance=done),
        )
    if detected:
        console.print(f"detected the language of {detected:,} answers")


@step(
    "culturemix_parse",
    reads=("core.generations", "core.items", "core.culturemix_images", "core.dish_names", "core.extractions"),
    writes=("core.culturemix_food_parses", "core.culturemix_scores"),
)
def culturemix_parse(ctx: Context) -> None:
    """The food name of every CultureMix answer (its country comes from the `score` extraction), then
    CultureMix's own scores as published (core.culturemix_scores), which its marts aggregate."""
    from pipeline.answers import culturemix as culturemix_answers
    from pipeline.score import culturemix_stage as culturemix_scoring

    parsed = culturemix_answers.parse_answers(ctx.con, reparse=ctx.options.rescore)
    if parsed:
        say("read the food of {} CultureMix answers", parsed)
    scored = culturemix_scoring.score_answers(ctx.con, rescore=ctx.options.rescore)
    if scored:
        say("scored {} CultureMix answers ({})", scored, culturemix_scoring.SCORER)


@step(
    "compose",
    reads=(
        "core.images",
        "core.dishes",
        "core.dish_origins",
        "core.culturemix_images",
        "core.items",
        "core.generations",
        "core.scores",
    ),  # baseline SF answers: difficulty (CultureMix §2.3)
    writes=("core.culturemix_compositions",),
)
def compose(ctx: Context) -> None:
    """CultureMix variants composed from the warehouse's dish images (files + recipes)."""
    from pipeline.compose import culturemix as culturemix_compose

    culturemix_compose.run(ctx.con, ctx.options.compose)


IMAGINE_TABLES = (
    "core.generated_images",
    "core.image_embeddings",
    "core.image_similarities",
    "core.model_provenance",
    "core.real_image_similarities",  # issue 35: BORSch §5's real-photo reference (intra vs inter dish)
    "core.vqa_counterparts",  # issue 48: whose VQA answers Table 4 pairs with a describer (§4.1)
    "core.imagine_images",  # its drawn images and the real photos `imagine --images` registers (part of core.images)
)


@step("imagine", reads=("core.dishes", "core.images", "core.generations"), writes=IMAGINE_TABLES)
def imagine(ctx: Context) -> None:
    """Imagined dishes (pipeline/imagine): dish_description -> translate -> imagine -> embed ->
    similarity. Descriptions and translations are answers of their own tasks, asked by the answers step
    before this one (pipeline/imagine/steps.py `answer`); generated and registered real photos go to
    core.imagine_images, this step's part of core.images."""
    from pipeline.imagine import STEPS as IMAGINE_STEPS
    from pipeline.imagine import steps as imagining

    store = imagining.image_store(_database_file(ctx.con))
    for spec in ctx.options.imagines:
        imagining.run(
            ctx.con, spec, store, ctx.options.imagine_steps or IMAGINE_STEPS, say=lambda line: say("{}", line)
        )


def _database_file(con: duckdb.DuckDBPyConnection) -> Path:
    """The working database's file (generated images are stored beside it)."""
    return Path(scalar(con, "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"))


FINETUNE_TABLES = ("core.finetune_runs", "core.finetune_examples", "core.finetune_models", "core.finetune_losses")


@step(
    "finetune",
    reads=("core.tasks", "core.items", "core.item_gold_countries", "core.item_gold_text", "core.dish_names",
           "core.dish_origins", "core.culturemix_images", "core.countries", "core.images", "core.item_images"),
    writes=FINETUNE_TABLES,  # its items (BORSch's on first use, CultureMix's composites) are built by ingest
)  # fmt: skip
def finetune(ctx: Context) -> None:
    """Fine-tune a model on a task's items (pipeline/finetune): Trainer, resumable from its last checkpoint;
    the run, its data split, hyper-parameters and model folders are recorded for the before/after view."""
    from pipeline.finetune import stage

    for spec in ctx.options.finetunes:
        summary = stage.run(ctx.con, spec, say=lambda line: say("{}", line))
        if summary.skipped:
            say("[dim]fine-tune {} is done already[/]", summary.finetune_id)
        elif summary.first_loss is not None:
            say("training loss {} -> {}", f"{summary.first_loss:.4f}", f"{summary.last_loss:.4f}")
        for epoch, path in sorted(summary.models.items()):
            say("epoch {} model: {} (evaluate: generate --backend transformers --model {})", epoch, path, path)


# --- the pipelines: one declaration ------------------------------------------------------------

PIPELINES: dict[str, tuple[str, ...]] = {
    "ingest": ("reference", "ingest", "link"),
    "import": ("answers",),
    "corpus": ("corpus",),
    "generate": ("ingest", "answers"),
    "import-uacuisine": ("reference", "ingest", "answers", "score", "languages"),
    "import-borsch": ("ingest", "answers", "score", "languages"),
    "demo": ("reference", "ingest", "link", "answers", "corpus", "score", "languages", "culturemix_parse"),
    "run": ("ingest", "link", "finetune", "answers", "score", "languages", "culturemix_parse", "imagine"),
    "imagine": ("ingest", "answers", "imagine"),
    "score": ("link", "score", "languages", "culturemix_parse"),
    "compose": ("reference", "compose"),
    "finetune": ("ingest", "finetune"),
    "publish": (),
}


def run_pipeline(
    name: str, warehouse: Warehouse, options: Options, *, steps: tuple[str, ...] | None = None, publish: bool = True
) -> bool:
    """Run the pipeline `name` (or the given subset of its steps, in its order) in one working-database
    session, then publish (unless `publish` is off: the CLI's `--no-publish`, for a batch of commands published
    once). Returns whether a new snapshot was published."""
    chosen = PIPELINES[name] if steps is None else tuple(s for s in PIPELINES[name] if s in steps)
    failures: list = []
    if chosen:
        with warehouse.writer() as con:
            executor = EXECUTORS[options.executor].bind(options.ray, _database_file(con).parent / "ray-work")
            ctx = Context(con, options, executor=executor)
            audit = os.environ.get(AUDIT_ENV, "") == "1"
            before = table_fingerprints(con) if audit else {}
            warm_ups = _warm_ups(chosen)
            for index, step_name in enumerate(chosen):
                for later in warm_ups.get(index, ()):
                    later.warm(ctx)
                step = STEPS.get(step_name)
                step.run(ctx)
                if audit:  # one scan of the tables per step: what a step leaves is what the next one starts from
                    after = table_fingerprints(con)
                    audit_writes(step, before, after)
                    before = after
            failures = ctx.failures
    if publish:
        published = _publish(warehouse, force=options.publish_force)
    else:
        published = False
        say("[yellow]not published[/]: the changes stay in {} until a command publishes them", warehouse.working_path)
    if failures:
        from pipeline.core.errors import DataError

        if len(failures) == 1:
            raise failures[0]
        raise DataError(f"{len(failures)} files", " | ".join(str(f) for f in failures))
    return published


def _warm_ups(chosen: tuple[str, ...]) -> dict[int, list[Step]]:
    """Before which step (by index) each later step's `warm` starts: right after the last earlier step that writes a
    table it reads, when its inputs are final (for the demo, the curated languages' gazetteers build while the
    reference tables load; the answer languages are known once the answers are imported and build while the corpus
    is scanned)."""
    starts: dict[int, list[Step]] = {}
    for index, name in enumerate(chosen):
        later = STEPS.get(name)
        if later.warm is None:
            continue
        reads = read_tables(later.reads if later.warm_reads is None else later.warm_reads)
        writers = [i for i in range(index) if set(STEPS.get(chosen[i]).writes) & reads]
        start = writers[-1] + 1 if writers else 0
        if start < index:
            starts.setdefault(start, []).append(later)
    return starts


# DISH_ATLAS_AUDIT_WRITES=1: after each step, compare every raw/core/meta table with its state before the step and
# stop when the step changed a table it does not declare (`writes` or `ledger`): the declarations are checked on real
# runs (tests/test_architecture.py), not only read.
AUDIT_ENV = "DISH_ATLAS_AUDIT_WRITES"


class UndeclaredWrite(RuntimeError):
    """A step changed a table its declaration does not name."""


def audit_writes(step: Step, before: dict[str, tuple], after: dict[str, tuple]) -> None:
    changed = {table for table in before.keys() | after.keys() if before.get(table) != after.get(table)}
    undeclared = sorted(changed - set(step.writes) - set(step.ledger))
    if undeclared:
        raise UndeclaredWrite(f"step {step.name!r} wrote {', '.join(undeclared)}, which it does not declare")


def _publish(warehouse: Warehouse, force: bool = False) -> bool:
    """Build marts and publish; a no-op when the published snapshot already matches."""
    if warehouse.publish(force=force):
        say("[green]published[/] {}", warehouse.path)
        return True
    say("[dim]nothing changed: {} is up to date[/]", warehouse.path)
    return False


# --- helpers of the steps ----------------------------------------------------------------------


def _report(result) -> None:
    if result.skipped:
        say("[dim]{}: same files as last time, nothing to do[/]", result.name)
        return
    counts = ", ".join(f"{v} {k}" for k, v in result.counts.items())
    console.print(f"[bold]{result.name}[/]: loaded {counts}")
    if result.quirks:
        table = Table("quirk", "severity", "count", "example", title=f"{result.name}: data quirks handled")
        examples = {}
        for quirk in result.quirks:
            examples.setdefault((quirk.kind, quirk.severity), f"{quirk.file}:{quirk.line} {quirk.message}")
        for (kind, severity), n in sorted(result.quirk_counts().items()):
            table.add_row(literal(kind), severity, str(n), literal(examples[(kind, severity)]))
        console.print(table)


def _import(ctx: Context) -> None:
    """`import-responses --format NAME`: the format's reader (pipeline/answers/formats.py) imports the files."""
    from pipeline.answers.formats import IMPORT_FORMATS

    IMPORT_FORMATS[ctx.options.response_format].run(ctx.con, ctx.options, ctx.run_id, ctx.failures)
