"""`python -m pipeline ...` parses the pipeline's commands and calls the code that does the work: named pipelines
(pipeline/flow/steps.py), the demo (pipeline/flow/demo.py), the probe, downloads and exports.

Every command that writes goes through the working database and publishes a new snapshot only when it succeeds.
Parsing and error lines live here; no stage logic does."""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import duckdb
import typer
from babel.core import UnknownLocaleError

from pipeline.answers.formats import IMPORT_FORMATS
from pipeline.backends.base import BackendError
from pipeline.core.errors import CorpusError, DataError, OfflineError
from pipeline.core.output import describe, fail_line, print_traceback, say
from pipeline.core.run_settings import GenerationSpec, Options, RayOptions
from pipeline.core.settings import DATA_ENV, WAREHOUSE_ENV, default_data_dir, default_warehouse
from pipeline.datasets import MODULES as DATASET_MODULES
from pipeline.executors import EXECUTORS
from pipeline.export.commands import add_export_commands
from pipeline.flow import runconfig
from pipeline.flow.steps import run_pipeline
from warehouse.db import Warehouse, WarehouseError, code_schema_version, storage_failure
from warehouse.version import release

DATASET_NAMES = sorted(DATASET_MODULES)

# `--help`'s first lines (and docs/cli.md's), kept word for word.
HELP = """`python -m pipeline ...`: the pipeline's commands. Every command that writes goes through the
working database and publishes a new snapshot only when it succeeds."""

app = typer.Typer(add_completion=False, no_args_is_help=True, help=HELP, pretty_exceptions_show_locals=False)
data_app = typer.Typer(no_args_is_help=True, help="Get the public data files.")
export_app = typer.Typer(no_args_is_help=True, help="Write published tables as CSV or Parquet (contracts).")
app.add_typer(data_app, name="data")
app.add_typer(export_app, name="export")
corpus_app = typer.Typer(no_args_is_help=True, help="Dish and country mentions in a text corpus.")
app.add_typer(corpus_app, name="corpus")


@dataclass(frozen=True)
class Session:
    """The top-level options, parsed once and handed to every command as `ctx.obj`."""

    warehouse: Warehouse
    debug: bool = False
    publish: bool = True


def _show_version(value: bool) -> None:
    """`--version`: the release (pyproject.toml) and the schema version of the warehouses it writes."""
    if value:
        print(f"dish-atlas {release()} (warehouse schema version {code_schema_version()})")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    warehouse: Annotated[
        Path | None,
        typer.Option(
            "--warehouse",
            envvar=WAREHOUSE_ENV,
            help="Published warehouse file (the working database sits beside it).",
            show_default=False,
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an error.")] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Show the version and exit."),
    ] = False,
    publish: Annotated[
        bool,
        typer.Option(
            "--publish/--no-publish",
            help="Publish a new snapshot when the command succeeds. --no-publish leaves the changes in the working "
            "database, to batch several commands and publish once (`publish`, or the next command without it).",
        ),
    ] = True,
) -> None:
    ctx.obj = Session(Warehouse((warehouse or default_warehouse()).expanduser().resolve()), debug, publish)


def _steps(ctx: typer.Context, name: str, options: Options, steps: tuple[str, ...] | None = None) -> bool:
    """The pipeline `name` on the `--warehouse` typer hands down as `ctx.obj`, published unless `--no-publish`."""
    return run_pipeline(name, ctx.obj.warehouse, options, steps=steps, publish=ctx.obj.publish)


def _pipeline(ctx: typer.Context, name: str, options: Options) -> None:
    """Run a named pipeline of pipeline/flow/steps.py on the warehouse the top-level `--warehouse` option
    named (typer hands it down as `ctx.obj`); it ends by publishing (a no-op when unchanged) unless `--no-publish`."""
    _run(ctx, lambda: _steps(ctx, name, options))


EXPECTED_FAILURES = (
    DataError,
    WarehouseError,
    OfflineError,
    CorpusError,
    OSError,
    BackendError,
    ValueError,
    KeyError,
    UnknownLocaleError,  # a --lang that no locale data knows
)


def _run(ctx: typer.Context, action: Callable[[], object]) -> None:
    """Every expected failure ends as one line, `error: WHAT[:LINE]: why — what to do`, exit 2;
    anything else as one line too, exit 1. `--debug` prints the traceback first."""
    try:
        action()
    except (typer.Exit, typer.Abort):
        raise
    except Exception as exc:
        raise typer.Exit(code=_fail(exc, ctx.obj)) from None


def _fail(exc: BaseException, session: Session | None) -> int:
    """Print `exc` as one `error:` line (values literal); returns the exit code."""
    debug = session.debug if session else "--debug" in sys.argv
    working = session.warehouse.working_path if session else None
    if debug:
        print_traceback(exc)
    expected = isinstance(exc, EXPECTED_FAILURES) or (
        isinstance(exc, duckdb.Error) and working is not None and storage_failure(exc, working) is not None
    )
    if expected:
        fail_line(describe(exc, working))
        return 2
    hint = "" if debug else " (rerun with --debug for the traceback)"
    fail_line(f"unexpected {type(exc).__name__}: {describe(exc)} — this is a bug, please report it{hint}")
    return 1


@app.command("ingest")
def ingest(
    ctx: typer.Context,
    dataset: Annotated[str, typer.Argument(help="A registered dataset: " + ", ".join(DATASET_NAMES) + ".")],
    source: Annotated[
        Path | None, typer.Option(help="Folder with the dataset's published files (see README; not for `sample`).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Reload even if the files are unchanged.")] = False,
) -> None:
    """Load a dataset from its published files: each dataset module (pipeline/datasets/) reads its own layout."""
    from pipeline.datasets import DATASETS, get_dataset

    if dataset not in DATASETS:
        fail_line(f"ingest {dataset}: unknown dataset — use one of {', '.join(DATASETS.names())}")
        raise typer.Exit(code=2)
    if source is None and not get_dataset(dataset).info.is_sample:
        fail_line(f"ingest {dataset}: needs --source DIR, the folder holding its published files (README)")
        raise typer.Exit(code=2)
    _pipeline(ctx, "ingest", Options(datasets=(dataset,), source=source, force=force))


@app.command("import-responses")
def import_responses(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="Answer files: task2_oe_MODEL.jsonl, task2_mc_MODEL.jsonl, a UACUISINE table.")
    ],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            help="; ".join(f"{name}: {spec.reads}" for name, spec in IMPORT_FORMATS.items()),
        ),
    ] = "worldcuisines",
    model: Annotated[str | None, typer.Option(help="Model name (default: from task2_oe_MODEL.jsonl).")] = None,
    skip_bad_lines: Annotated[
        bool, typer.Option("--skip-bad-lines", help="Import the good lines; record each bad one with its reason.")
    ] = False,
    task: Annotated[
        str | None,
        typer.Option(help="The task the answers belong to (default: from the file name, task1_oe_… or task2_oe_…)."),
    ] = None,
    max_bad_share: Annotated[
        float,
        typer.Option(
            "--max-bad-share",
            help="With --skip-bad-lines: fail a file (import none of it) when more than this share of it is rejected.",
        ),
    ] = Options.max_bad_share,
    allow_duplicate: Annotated[
        bool,
        typer.Option("--allow-duplicate", help="Import a file whose bytes were already imported under another model."),
    ] = False,
) -> None:
    """Import answers produced elsewhere. One file is one transaction; re-importing is idempotent. A file
    that imports nothing, or rejects more than --max-bad-share of its lines, fails (exit 2) and names what
    it would lose. A UACUISINE table (--format uacuisine) is imported and scored in one go."""
    if format not in IMPORT_FORMATS:
        fail_line(f"--format {format}: unknown format — use one of {', '.join(IMPORT_FORMATS)}")
        raise typer.Exit(code=2)
    chosen = IMPORT_FORMATS[format]
    settings = {"model": model, "skip_bad_lines": skip_bad_lines, "max_bad_share": max_bad_share,
                "allow_duplicate": allow_duplicate, "response_format": format, "task": task}  # fmt: skip
    if chosen.per_file:  # a UACUISINE table is its own dataset too: ingested, imported and scored one by one
        for path in files:
            options = Options(datasets=(format,), source=path, responses=(path,), **settings)
            _pipeline(ctx, chosen.pipeline, options)
        return
    _pipeline(ctx, chosen.pipeline, Options(responses=tuple(files), **settings))


@data_app.command("fetch")
def data_fetch(
    ctx: typer.Context,
    dataset: Annotated[
        str | None,
        typer.Argument(help="culturemix: its tables from the hub (hf://); zno, multi30k: their public files."),
    ] = None,
    dest: Annotated[Path | None, typer.Option(help=f"Target folder (default: ${DATA_ENV} or the user cache).")] = None,
    images: Annotated[bool, typer.Option("--images", help="Also the dish photos (BORSch, WorldCuisines).")] = False,
) -> None:
    """Download BORSch and WorldCuisines at their pinned commits (needs internet)."""

    def action() -> None:
        from pipeline.datasets.fetch import fetch_dataset  # HTTP clients: only this command needs them

        fetch_dataset(dataset, dest or default_data_dir(), images)

    _run(ctx, action)


@data_app.command("bundle")
def data_bundle(
    ctx: typer.Context,
    source: Annotated[Path, typer.Option(help="Local copy of the public data (borsch/, worldcuisines/).")],
    out: Annotated[Path | None, typer.Option(help="Target folder (default: assets/bundle).")] = None,
) -> None:
    """Write the embedded bundle (assets/bundle/) from the public files: BORSch whole and a seeded WorldCuisines
    subset with the real answers of its 12 models, byte for byte reproducible; `demo` reads it when no data is given."""

    def action() -> None:
        from pipeline.datasets import bundle

        built = bundle.build(source, out or bundle.BUNDLE_DIR)
        say(
            "bundle written to {}: {} files, {} bytes compressed; {}",
            out or bundle.BUNDLE_DIR,
            len(built["files"]),
            f"{built['archive']['bytes']:,}",
            built["sources"]["worldcuisines"]["subset"],
        )

    _run(ctx, action)


@app.command("compose")
def compose(
    ctx: typer.Context,
    dataset: Annotated[str, typer.Argument(help="culturemix")],
    out: Annotated[Path, typer.Option(help="Folder for the composed images (recipes name the files).")],
    backgrounds: Annotated[
        Path | None, typer.Option(help="Background images named by CultureMix label (Mexico1.jpg, Spain.png).")
    ] = None,
    per_target: Annotated[int, typer.Option(help="Distractor foods and backgrounds per target food.")] = 3,
    seed: Annotated[int, typer.Option(help="Seed of the choices and of the edit model.")] = 0,
    limit: Annotated[int | None, typer.Option(help="First N target foods.")] = None,
    edit_model: Annotated[
        str | None, typer.Option(help="Harmonise with a diffusers FluxKontextPipeline (folder or hub id).")
    ] = None,
    steps: Annotated[int, typer.Option(help="Inference steps of the edit model.")] = 28,
    pairing: Annotated[
        str, typer.Option(help="stratified (CultureMix §2.3: distance x difficulty) or random (the earlier draw).")
    ] = "stratified",
    agnostic: Annotated[
        Path | None, typer.Option(help="Photos of the agnostic objects: apple, car, scissors, teddy_bear (.jpg/.png).")
    ] = None,
    positions: Annotated[str, typer.Option(help="MF target positions: left, or left,right (flipped pairs).")] = "left",
    sizes: Annotated[str | None, typer.Option(help="Also MF with the target at these sizes, e.g. 0.5,0.75.")] = None,
) -> None:
    """Compose CultureMix variants (MF, SFB, MFB, culture-agnostic, REAL) from the warehouse's dish images;
    cached by recipe, a killed run resumes."""
    if dataset != "culturemix":
        fail_line(f"compose {dataset}: unknown dataset — only culturemix composes images")
        raise typer.Exit(code=2)
    settings = {"out": out, "backgrounds": backgrounds, "per_target": per_target, "seed": seed, "limit": limit,
                "edit_model": edit_model, "steps": steps, "pairing": pairing, "agnostic": agnostic,
                "positions": _split(positions), "sizes": tuple(float(x) for x in _split(sizes) or ())}  # fmt: skip
    _pipeline(ctx, "compose", Options(compose=settings))


@app.command("tiny-edit-model")
def tiny_edit_model(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option(help="Folder to save the pipeline in.")],
) -> None:
    """Build a FluxKontextPipeline with tiny random weights offline (tests and smoke runs of --edit-model)."""
    from pipeline.tiny.build import build_tiny_model

    _run(ctx, lambda: say("tiny edit pipeline saved to {}", build_tiny_model("image-edit", out)))


def _export(ctx: typer.Context, name: str, format: str, out: Path | None, method: str | None = None) -> None:
    def action() -> None:
        from pipeline.export import tables as exporting

        if format not in exporting.FORMATS:
            raise DataError("--format", f"unknown format {format!r}; use csv or parquet")
        if method is not None and method not in exporting.METHODS:
            raise DataError("--method", f"unknown method {method!r}; use paper or atlas")
        frame = exporting.export_frame(ctx.obj.warehouse, name, method=method)
        exporting.write(frame, format, out)
        if not exporting.to_stdout(out):
            say("wrote {} rows to {}", frame.height, out)

    _run(ctx, action)


def _export_folder(ctx: typer.Context, name: str, paper: str, out: Path, data: Path | None) -> None:
    """`export paper-tables` (the one folder export): the paper's tables, one CSV each, into `out`."""

    def action() -> None:
        from pipeline.export import paper_tables as exporting

        written, missing = exporting.export(ctx.obj.warehouse, paper, out, data or default_data_dir())
        say("wrote {} tables of {} to {} ({} rows)", len(written), paper, out, sum(written.values()))
        if missing:
            say("[yellow]{}[/]", missing)

    _run(ctx, action)


# `export NAME`: one command per export declared beside its mart (warehouse/marts/*.toml), then the folder exports
# (warehouse/paper_tables/paper_tables.toml)
add_export_commands(export_app, _export, _export_folder)


Executor = enum.Enum("Executor", {name: name for name in EXECUTORS}, type=str)
ExecutorOption = Annotated[Executor, typer.Option(help="local: this process; ray: Ray Data (see README).")]
RayAddressOption = Annotated[
    str | None, typer.Option(help="--executor ray: the cluster to join (default: $RAY_ADDRESS, else a local Ray).")
]
RayWorkersOption = Annotated[
    int | None, typer.Option(min=1, help="--executor ray: model, scanner or scorer workers (default: one per CPU).")
]


@corpus_app.command("scan")
def corpus_scan(
    ctx: typer.Context,
    lang: Annotated[str, typer.Option(help="Corpus language: uk, ru or en.")],
    source: Annotated[str, typer.Option(help="File, folder or glob of JSONL / Parquet / text shards (.gz too).")],
    text_field: Annotated[str, typer.Option(help="The text column of JSONL / Parquet shards.")] = "text",
    executor: ExecutorOption = Executor.local,
    ray_address: RayAddressOption = None,
    ray_workers: RayWorkersOption = None,
    ray_work: Annotated[
        Path | None,
        typer.Option(
            help="--executor ray: folder for per-shard counts, shared by all nodes (default: beside the warehouse)."
        ),
    ] = None,
    skip_corrupt_shards: Annotated[
        bool,
        typer.Option(
            help="Record a shard that cannot be read as corrupt, count it and scan the others "
            "(default: stop on it, warehouse unchanged)."
        ),
    ] = False,
) -> None:
    """Count dish mentions, their co-occurrence with true and other countries, and RU/UK name use."""

    ray = RayOptions(ray_address, ray_workers, ray_work)
    options = Options(
        corpus_lang=lang,
        corpus_source=source,
        text_field=text_field,
        executor=executor.value,
        ray=ray,
        skip_corrupt_shards=skip_corrupt_shards,
    )
    _pipeline(ctx, "corpus", options)


@corpus_app.command("uagec")
def corpus_uagec(
    ctx: typer.Context,
    dest: Annotated[Path | None, typer.Option(help="Where to write the JSONL shard (default: the user cache).")] = None,
) -> None:
    """Scan UA-GEC, the Ukrainian corpus the `ua-gec` package ships (corrected texts), as a uk corpus."""

    _pipeline(ctx, "corpus", Options(uagec=True, uagec_dest=dest))


@app.command("score")
def score(
    ctx: typer.Context,
    rescore: Annotated[bool, typer.Option(help="Re-extract and re-score everything, not only what is new.")] = False,
    executor: ExecutorOption = Executor.local,
    ray_address: RayAddressOption = None,
    ray_workers: RayWorkersOption = None,
) -> None:
    """Extract the countries of every answer not yet scored and score them (no model run needed)."""

    _pipeline(ctx, "score", Options(rescore=rescore, executor=executor.value, ray=RayOptions(ray_address, ray_workers)))


@app.command("generate")
def generate(
    ctx: typer.Context,
    task: Annotated[str, typer.Option(help="Task id, e.g. borsch.origin_qa (see pipeline/tasks/*.toml).")],
    lang: Annotated[str, typer.Option(help="Prompt language (ru, uk; WorldCuisines codes like en, ru_formal).")],
    backend: Annotated[str, typer.Option(help="transformers | vllm | openai | replay")],
    model: Annotated[str, typer.Option(help="Local model folder, hub id, or served model name.")],
    limit: Annotated[int | None, typer.Option(help="First N dataset items, with all their prompt variants.")] = None,
    images: Annotated[Path | None, typer.Option(help="Image folder laid out like BORSch (RU/images/ID/*).")] = None,
    subset: Annotated[str, typer.Option(help="full | parallel (dishes with both a RU and a UK entry)")] = "full",
    prompts: Annotated[
        Path | None,
        typer.Option(
            help="Prompt table (task, lang, variant, template; [DISH]), or a declared prompt set (BORSch: atlas)."
        ),
    ] = None,
    variants: Annotated[str | None, typer.Option(help="Only these prompt variants, e.g. 1,3.")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Override the task's max_tokens.")] = None,
    setting: Annotated[
        list[str] | None, typer.Option("--setting", help="Backend setting KEY=VALUE (repeatable), e.g. batch_size=16.")
    ] = None,
    chunk_size: Annotated[int, typer.Option(help="Answers written per transaction.")] = 64,
    executor: ExecutorOption = Executor.local,
    ray_address: RayAddressOption = None,
    ray_workers: RayWorkersOption = None,
) -> None:
    """Ask a model a task's questions; cached answers are skipped, a killed run resumes."""

    def spec() -> GenerationSpec:
        return GenerationSpec(
            task=task,
            lang=lang,
            backend=backend,
            model=model,
            limit=limit,
            images=images,
            subset=subset,
            prompts=prompts,
            variants=_split(variants),
            max_tokens=max_tokens,
            settings=_settings(setting or []),
            chunk_size=chunk_size,
        )

    def action() -> None:
        options = Options(generations=(spec(),), executor=executor.value, ray=RayOptions(ray_address, ray_workers))
        _steps(ctx, "generate", options)

    _run(ctx, action)


@app.command("finetune")
def finetune(
    ctx: typer.Context,
    model: Annotated[str, typer.Option(help="Base model: a local folder (or hub id) transformers can load.")],
    task: Annotated[
        str, typer.Option(help="Task id(s) to train on, comma-separated, e.g. culturemix.sf,culturemix.mf.")
    ],
    lang: Annotated[str, typer.Option(help="Prompt language of the examples.")],
    out: Annotated[Path, typer.Option(help="Folder for checkpoints and the epoch models (rerun to resume).")],
    recipe: Annotated[
        str, typer.Option(help="culturemix_sft | zno_paligemma | plain (pipeline/finetune/recipes.py).")
    ] = ("plain"),
    variant: Annotated[str | None, typer.Option(help="Prompt variant (default: the task's first).")] = None,
    limit: Annotated[int | None, typer.Option(help="First N items per task.")] = None,
    images: Annotated[Path | None, typer.Option(help="Image folder of the dataset (as for generate).")] = None,
    device: Annotated[str, typer.Option(help="auto | cpu | cuda")] = "auto",
    method: Annotated[str | None, typer.Option(help="full | lora (default: the recipe's).")] = None,
    learning_rate: Annotated[float | None, typer.Option(help="Override the recipe's learning rate.")] = None,
    batch_size: Annotated[int | None, typer.Option(help="Override the recipe's batch size per device.")] = None,
    gradient_accumulation: Annotated[int | None, typer.Option(help="Override the recipe's accumulation.")] = None,
    epochs: Annotated[str | None, typer.Option(help="Epochs to save a model at, e.g. 1,2,4.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the split, the order and the Trainer.")] = None,
    save_steps: Annotated[int | None, typer.Option(help="Checkpoint every N optimizer steps.")] = None,
) -> None:
    """Fine-tune a model on a task's items (Trainer; LoRA optional); a killed run resumes from its last checkpoint."""
    from pipeline.core.run_settings import FinetuneSpec

    def action() -> None:
        overrides = {"method": method, "learning_rate": learning_rate, "batch_size": batch_size,
                     "gradient_accumulation": gradient_accumulation, "seed": seed, "save_steps": save_steps,
                     "epochs": tuple(int(e) for e in _split(epochs)) if epochs else None}  # fmt: skip
        spec = FinetuneSpec(
            model=model, tasks=_split(task) or (), lang=lang, out=out, recipe=recipe, variant=variant, limit=limit,
            images=images, device=device, overrides=overrides,
        )  # fmt: skip
        _steps(ctx, "finetune", Options(finetunes=(spec,)))

    _run(ctx, action)


@app.command("run")
def run_config(
    ctx: typer.Context, config: Annotated[Path, typer.Argument(help="A TOML file of models, tasks and stages.")]
) -> None:
    """Several models x tasks x languages from one file, then score and publish (see README)."""

    def action() -> None:
        plan = runconfig.load(config)
        steps = runconfig.flow_steps(plan.stages)
        steps += ("culturemix_parse",) if "score" in steps else ()
        options = Options(
            generations=tuple(plan.generations),
            imagines=tuple(plan.imagines),
            imagine_steps=plan.imagine_steps,
            executor=plan.executor,
            ray=plan.ray,
            finetunes=tuple(plan.finetunes),
        )
        _steps(ctx, "run", options, steps)

    _run(ctx, action)


@app.command("reproduce")
def reproduce(
    ctx: typer.Context,
    paper: Annotated[str, typer.Argument(help="borsch, zno-vision, culturemix or worldcuisines.")],
    data: Annotated[
        Path | None, typer.Option(envvar="DATA", help="The public data folder (default: the data folder).")
    ] = None,
    backend: Annotated[str | None, typer.Option(help="Every model on this backend instead.")] = None,
    model: Annotated[
        list[str] | None,
        typer.Option("--model", help="PATH for every model, KIND=PATH (text, vision) or NAME=PATH (repeatable)."),
    ] = None,
    answers: Annotated[
        Path | None, typer.Option(help="Import the answer files in this folder instead of generating.")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="First N items of every run (a smoke run).")] = None,
    images: Annotated[Path | None, typer.Option(help="The dish photos of the tasks that need them (BORSch).")] = None,
    tables: Annotated[
        Path | None, typer.Option(help="Then write the paper's tables here (as `export paper-tables`).")
    ] = None,
) -> None:
    """A paper's whole protocol from its run configuration (assets/reproduce/PAPER.toml): ingest, generate (or
    import --answers), score, publish; a killed run resumes."""
    from pipeline.flow import reproduce as reproducing

    def action() -> None:
        protocol = reproducing.load(paper, backend=backend, models=tuple(model or ()), limit=limit, images=images)
        source = (data or default_data_dir()).expanduser().resolve()
        reproducing.run(ctx.obj.warehouse, protocol, data=source, answers=answers, publish=ctx.obj.publish,
                        say=lambda line: say("{}", line))  # fmt: skip
        if tables is not None:
            from pipeline.export import paper_tables as exporting

            written, missing = exporting.export(ctx.obj.warehouse, paper, tables, source)
            say("wrote {} tables of {} to {}", len(written), paper, tables)
            if missing:
                say("[yellow]{}[/]", missing)

    _run(ctx, action)


@app.command("imagine")
def imagine(
    ctx: typer.Context,
    dataset: Annotated[str, typer.Option(help="Dataset whose dishes are described (borsch).")],
    lang: Annotated[str, typer.Option(help="Language the dish is named and described in: ru or uk.")],
    describer: Annotated[str, typer.Option(help="Model that describes the dish (and translates, by default).")],
    generator: Annotated[str, typer.Option(help="diffusers text-to-image pipeline id or folder.")] = (
        "black-forest-labs/FLUX.1-dev"
    ),
    encoder: Annotated[str, typer.Option(help="Image encoder ([CLS] of last_hidden_state).")] = "facebook/dinov2-giant",
    backend: Annotated[str, typer.Option(help="Backend of the describer: transformers | vllm | openai | replay")] = (
        "transformers"
    ),
    limit: Annotated[int | None, typer.Option(help="First N dishes.")] = None,
    images: Annotated[Path | None, typer.Option(help="Real photos laid out like BORSch (RU/images/ID/*).")] = None,
    translator: Annotated[str | None, typer.Option(help="Model that translates (default: the describer).")] = None,
    translator_backend: Annotated[str | None, typer.Option(help="Its backend (default: --backend).")] = None,
    vqa_model: Annotated[
        str | None,
        typer.Option(
            help="Model whose VQA answers BORSch Table 4 pairs with the describer's descriptions (default: the "
            "paper's vision counterpart, §4.1: Qwen2-72B -> Qwen2-VL-72B, Llama-3.1-70B -> Llama-3.2-90B-Vision)."
        ),
    ] = None,
    seeds: Annotated[str, typer.Option(help="Seeds, one image each per description, e.g. 0,1,2.")] = "0",
    steps: Annotated[int, typer.Option(help="Denoising steps.")] = 28,
    guidance: Annotated[float, typer.Option(help="Guidance scale.")] = 3.5,
    size: Annotated[int, typer.Option(help="Image width and height in pixels.")] = 1024,
    setting: Annotated[list[str] | None, typer.Option("--setting", help="Describer backend KEY=VALUE.")] = None,
    generator_setting: Annotated[
        list[str] | None, typer.Option("--generator-setting", help="batch_size, device, dtype, max_sequence_length.")
    ] = None,
    encoder_setting: Annotated[
        list[str] | None, typer.Option("--encoder-setting", help="batch_size, device, dtype.")
    ] = None,
) -> None:
    """Description -> English -> text-to-image -> embeddings -> similarity for N dishes (resumable)."""
    from pipeline.core.run_settings import ImagineSpec

    def action() -> None:
        spec = ImagineSpec(
            dataset=dataset, lang=lang, describer=describer, generator=generator, encoder=encoder, backend=backend,
            translator=translator, translator_backend=translator_backend, vqa_model=vqa_model, limit=limit,
            images=images,
            seeds=tuple(int(s) for s in _split(seeds) or ("0",)), steps=steps, guidance=guidance, width=size,
            height=size, settings=_settings(setting or []), generator_settings=_settings(generator_setting or []),
            encoder_settings=_settings(encoder_setting or []),
        )  # fmt: skip
        _steps(ctx, "imagine", Options(imagines=(spec,)))

    _run(ctx, action)


@app.command("translate-questions")
def translate_questions(
    ctx: typer.Context,
    source: Annotated[Path, typer.Argument(help="VQA folder: SOURCE/<lang>/*questions*.json, *annotations*.json.")],
    out: Annotated[Path, typer.Option(help="Folder to write, in the layout `ingest vqa` reads.")],
    backend: Annotated[str, typer.Option(help="Backend: transformers | vllm | openai | llamacpp | replay")],
    model: Annotated[str, typer.Option(help="Model that translates (ZNO-Vision §3 used GPT-4o).")],
    source_lang: Annotated[str, typer.Option("--from", help="Language of the questions.")] = "en",
    target_lang: Annotated[str, typer.Option("--to", help="Language to translate into.")] = "uk",
    setting: Annotated[list[str] | None, typer.Option("--setting", help="Backend KEY=VALUE.")] = None,
) -> None:
    """Translate VQA questions and answers with any configured backend (ZNO-Vision §3), then `ingest vqa`."""
    from pipeline.answers.vqa_translation import translate_folder
    from pipeline.backends import create_backend

    def action() -> None:
        engine = create_backend(backend, model, **_settings(setting or []))
        try:
            count = translate_folder(source, out, engine, source_lang, target_lang)
        finally:
            engine.close()
        say("translated {} texts into {}: python -m pipeline ingest vqa --source {}", count, target_lang, out)

    _run(ctx, action)


@app.command("tiny-model")
def tiny_model(
    ctx: typer.Context,
    kind: Annotated[
        str,
        typer.Option(
            help="text (Qwen2), vision (LLaVA), text-to-image (FLUX), image-encoder (DINOv2), image-edit (FLUX-Kontext)"
        ),
    ],
    out: Annotated[Path, typer.Option(help="Folder to save the model and tokenizer/processor in.")],
) -> None:
    """Build a randomly initialised tiny model offline (for tests, smoke runs and GPU checks)."""
    from pipeline.tiny.build import build_tiny_model

    def action() -> None:
        path = build_tiny_model(kind, out)
        say("tiny {} model saved to {}", kind, path)

    _run(ctx, action)


def _split(value: str | None) -> tuple[str, ...] | None:
    return tuple(v.strip() for v in value.split(",") if v.strip()) if value else None


def _settings(pairs: list[str]) -> dict:
    """KEY=VALUE pairs; values parsed as JSON when they are (numbers, true/false), else text."""
    settings = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise DataError("--setting", f"expected KEY=VALUE, got {pair!r}")
        try:
            settings[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            settings[key.strip()] = value
    return settings


@app.command("countries")
def countries(
    lang: Annotated[str, typer.Option(help="Answer language (ru, uk, en, a WorldCuisines code) or auto.")],
    reading: Annotated[
        str, typer.Option(help="What the question asked: origin (where from) or served (where served/eaten/popular).")
    ] = "origin",
) -> None:
    """Read one answer per line on stdin; print one JSON array of alpha-2 codes per line (first mention first)."""
    from pipeline.extract.countries import READINGS, extract_countries

    if reading not in READINGS:
        fail_line(f"--reading {reading}: unknown reading — use one of {', '.join(READINGS)}")
        raise typer.Exit(code=2)
    from pipeline.extract.switching import analyse

    for line in sys.stdin:
        text = line.rstrip("\n")
        answer_lang = lang
        if lang == "auto":  # the answer's own language where it is Russian or Ukrainian, English names otherwise
            found = analyse(text, "en").answer_lang
            answer_lang = found if found in ("ru", "uk") else "en"
        result = extract_countries(text, answer_lang, reading)
        sys.stdout.write(json.dumps(list(result.countries)) + "\n")
        sys.stdout.flush()


@app.command("probe")
def probe(
    ctx: typer.Context,
    dish: Annotated[str, typer.Argument(help="A dish name in any language, e.g. борщ or paella.")],
    lang: Annotated[str, typer.Option(help="Prompt language: ru, uk or en.")],
    backend: Annotated[str, typer.Option(help="transformers | openai | vllm | replay")] = "transformers",
    model: Annotated[
        str, typer.Option(help="Model folder, hub id or served name (default: the embedded SmolLM2-135M-Instruct).")
    ] = "embedded:smollm2",
    setting: Annotated[
        list[str] | None, typer.Option("--setting", help="Backend setting KEY=VALUE (repeatable), e.g. base_url=…")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help="The longest answer, in tokens.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object instead of text.")] = False,
) -> None:
    """Ask one model where a dish comes from: the answer, the countries it names, the dish's gold origins."""
    from pipeline.answers import probe as probing

    def action() -> None:
        probing.probe_command(
            ctx.obj.warehouse,
            dish,
            lang,
            backend=backend,
            model=model,
            settings=_settings(setting or []),
            max_tokens=max_tokens,
            as_json=as_json,
        )

    _run(ctx, action)


@app.command("publish")
def publish(
    ctx: typer.Context,
    force: Annotated[bool, typer.Option(help="Publish even if nothing changed since the last snapshot.")] = False,
) -> None:
    """Rebuild marts and publish the working database as the new snapshot."""
    if not ctx.obj.publish:
        fail_line("--no-publish: `publish` does nothing else — run it without --no-publish")
        raise typer.Exit(code=2)
    _pipeline(ctx, "publish", Options(publish_force=force))


@app.command("recover")
def recover(
    ctx: typer.Context,
    force: Annotated[
        bool, typer.Option(help="Replace a working database that is not damaged (its unpublished changes are lost).")
    ] = False,
) -> None:
    """Rebuild a damaged working database from the published snapshot; say what cannot be restored."""
    warehouse = ctx.obj.warehouse

    def action() -> None:
        recovery = warehouse.recover(force=force)
        rows = sum(recovery.restored.values())
        say(
            "[green]recovered[/] {} from the snapshot {} ({} rows in {} tables)",
            warehouse.working_path,
            warehouse.path,
            f"{rows:,}",
            len(recovery.restored),
        )
        if recovery.damaged_copy is not None:
            say("the damaged file is kept as {} (delete it when done)", recovery.damaged_copy)
        if recovery.not_restored:
            say("[yellow]not restored (never published):[/]")
            for line in recovery.not_restored:
                say("  {}", line)
            say("rerun the commands run since then: unchanged files and cached answers are skipped, the rest resumes")
        else:
            say("nothing was lost: the snapshot held everything the working database had")

    _run(ctx, action)


@app.command("demo")
def demo(
    ctx: typer.Context,
    data: Annotated[
        Path | None, typer.Option(envvar="DATA", help="Local copy of the public data (borsch/, worldcuisines/).")
    ] = None,
    sample: Annotated[
        bool, typer.Option("--sample", help="The hand-written sample of 80 dishes and no answers (a quick smoke run).")
    ] = False,
) -> None:
    """Build the demo warehouse: the real data when a data folder is found, else the embedded bundle of real results
    (assets/bundle/), else the hand-written sample."""
    from pipeline.flow import demo as demos

    _pipeline(ctx, "demo", demos.demo_options(ctx.obj.warehouse.path.parent, data, sample))
    demos.say_next_step(ctx.obj.warehouse.path, published=ctx.obj.publish)


def main() -> None:
    try:
        app(prog_name="python -m pipeline")
    except Exception as exc:
        sys.exit(_fail(exc, None))


if __name__ == "__main__":
    sys.exit(main())
