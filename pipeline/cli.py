"""`python -m pipeline ...`: the pipeline's commands. Every command that writes goes through the
working database and publishes a new snapshot only when it succeeds."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import duckdb
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from pipeline import export as exporting
from pipeline import fetch as fetching
from pipeline import linking, responses, runconfig
from pipeline import score as scoring
from pipeline.backends.base import BackendError
from pipeline.errors import CorpusError, DataError, OfflineError
from pipeline.extract.countries import extract_countries
from pipeline.extract.language import answer_language
from pipeline.ingest import borsch, sample, worldcuisines
from pipeline.ingest.common import IngestResult, new_run_id
from pipeline.output import console, describe, fail_line, literal, print_traceback, say
from pipeline.runconfig import GenerationSpec
from pipeline.settings import DATA_ENV, WAREHOUSE_ENV, default_data_dir, default_warehouse
from pipeline.tasks import get_task, with_prompt_table
from warehouse.db import Warehouse, WarehouseError, scalar, storage_failure

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__, pretty_exceptions_show_locals=False)
ingest_app = typer.Typer(no_args_is_help=True, help="Load a dataset from its published files.")
data_app = typer.Typer(no_args_is_help=True, help="Get the public data files.")
export_app = typer.Typer(no_args_is_help=True, help="Write published tables as CSV or Parquet (contracts).")
app.add_typer(ingest_app, name="ingest")
app.add_typer(data_app, name="data")
app.add_typer(export_app, name="export")
corpus_app = typer.Typer(no_args_is_help=True, help="Dish and country mentions in a text corpus.")
app.add_typer(corpus_app, name="corpus")


class State:
    warehouse: Warehouse = Warehouse(default_warehouse())
    rescore: bool = False
    debug: bool = False


@app.callback()
def main_options(
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
) -> None:
    State.debug = debug
    State.warehouse = Warehouse((warehouse or default_warehouse()).expanduser().resolve())


def _publish(force: bool = False) -> None:
    if State.warehouse.publish(force=force):
        say("[green]published[/] {}", State.warehouse.path)
    else:
        say("[dim]nothing changed: {} is up to date[/]", State.warehouse.path)


def _report(result: IngestResult) -> None:
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


EXPECTED_FAILURES = (DataError, WarehouseError, OfflineError, CorpusError, OSError, BackendError, ValueError, KeyError)


def _run(action: Callable[[], None]) -> None:
    """Every expected failure ends as one line, `error: WHAT[:LINE]: why — what to do`, exit 2;
    anything else as one line too, exit 1. `--debug` prints the traceback first."""
    try:
        action()
    except (typer.Exit, typer.Abort):
        raise
    except Exception as exc:
        raise typer.Exit(code=_fail(exc)) from None


def _fail(exc: BaseException) -> int:
    """Print `exc` as one `error:` line (values literal); returns the exit code."""
    if State.debug:
        print_traceback(exc)
    expected = isinstance(exc, EXPECTED_FAILURES) or (
        isinstance(exc, duckdb.Error) and storage_failure(exc, State.warehouse.working_path) is not None
    )
    if expected:
        fail_line(describe(exc, State.warehouse.working_path))
        return 2
    hint = "" if State.debug else " (rerun with --debug for the traceback)"
    fail_line(f"unexpected {type(exc).__name__}: {describe(exc)} — this is a bug, please report it{hint}")
    return 1


@ingest_app.command("borsch")
def ingest_borsch(
    source: Annotated[Path, typer.Option(help="Folder with RU_DATA.xlsx, UK_DATA.xlsx, PARALLEL_RU_UK.xlsx.")],
    force: Annotated[bool, typer.Option(help="Reload even if the files are unchanged.")] = False,
) -> None:
    """BORSch: 1,147 Russian- and 823 Ukrainian-named dishes with countries of origin."""

    def action() -> None:
        with State.warehouse.writer() as con:
            _report(borsch.ingest(con, source, new_run_id(), force=force))
            _link(con)
        _publish()

    _run(action)


@ingest_app.command("worldcuisines")
def ingest_worldcuisines(
    source: Annotated[Path, typer.Option(help="Folder with kb/final_data.csv, kb/food_name_multiling.csv, eval/.")],
    force: Annotated[bool, typer.Option(help="Reload even if the files are unchanged.")] = False,
) -> None:
    """WorldCuisines: knowledge base, multilingual names and the 500 task-2 VQA items."""

    def action() -> None:
        with State.warehouse.writer() as con:
            _report(worldcuisines.ingest(con, source, new_run_id(), force=force))
            _link(con)
        _publish()

    _run(action)


@ingest_app.command("sample")
def ingest_sample() -> None:
    """The embedded sample dataset (assets/sample), for demos with no data directory."""

    def action() -> None:
        with State.warehouse.writer() as con:
            _report(sample.ingest(con, new_run_id()))
        _publish()

    _run(action)


@app.command("import-responses")
def import_responses(
    files: Annotated[list[Path], typer.Argument(help="Answer files, e.g. task2_oe_MODEL.jsonl.")],
    format: Annotated[str, typer.Option("--format", help="Layout of the files.")] = "worldcuisines",
    model: Annotated[str | None, typer.Option(help="Model name (default: from task2_oe_MODEL.jsonl).")] = None,
    skip_bad_lines: Annotated[
        bool, typer.Option("--skip-bad-lines", help="Import the good lines; record each bad one with its reason.")
    ] = False,
    task: Annotated[
        str | None,
        typer.Option(help="The task the answers belong to (default: from the file name, task1_oe_… or task2_oe_…)."),
    ] = None,
) -> None:
    """Import answers produced elsewhere. One file is one transaction; re-importing is idempotent."""
    if format not in responses.FORMATS:
        fail_line(f"--format {format}: unknown format — use one of {', '.join(responses.FORMATS)}")
        raise typer.Exit(code=2)

    def action() -> None:
        run_id = new_run_id()
        imported = 0
        with State.warehouse.writer() as con, _progress() as progress:
            bar = progress.add_task("importing", total=len(files))
            for path in files:
                started = time.perf_counter()
                result = responses.import_file(con, path, run_id, model=model, skip_bad_lines=skip_bad_lines, task=task)
                elapsed = time.perf_counter() - started
                if result.skipped:
                    say("[dim]{}: already imported for {}[/]", path.name, result.model)
                else:
                    imported += 1
                    rate = len(result.accepted) / elapsed if elapsed else 0.0
                    rejected = f", [yellow]{len(result.rejected)} lines rejected[/]" if result.rejected else ""
                    say(
                        "imported {}: {} answers of {} ({} lines/s)" + rejected,
                        path.name,
                        len(result.accepted),
                        result.model,
                        f"{rate:,.0f}",
                    )
                progress.advance(bar)
        _publish()  # also after a no-op rerun: a run killed before its publish is published now

    _run(action)


@data_app.command("fetch")
def data_fetch(
    dest: Annotated[Path | None, typer.Option(help=f"Target folder (default: ${DATA_ENV} or the user cache).")] = None,
    images: Annotated[bool, typer.Option("--images", help="Also the dish photos (BORSch, WorldCuisines).")] = False,
) -> None:
    """Download BORSch and WorldCuisines at their pinned commits (needs internet)."""

    def action() -> None:
        target = dest or default_data_dir()
        written = fetching.fetch(target)
        if images:
            photos = fetching.borsch_image_manifest() + fetching.worldcuisines_image_manifest(target)
            written += fetching.fetch(target, photos)
        say("{} files downloaded into {}", len(written), target)

    _run(action)


FormatOption = Annotated[str, typer.Option("--format", help="csv or parquet")]
OutOption = Annotated[Path | None, typer.Option(help="Output file (default: standard output).")]


def _export(name: str, format: str, out: Path | None) -> None:
    def action() -> None:
        if format not in exporting.FORMATS:
            raise DataError("--format", f"unknown format {format!r}; use csv or parquet")
        frame = exporting.export_frame(State.warehouse, name)
        exporting.write(frame, format, out)
        if out is not None:
            say("wrote {} rows to {}", frame.height, out)

    _run(action)


@export_app.command("dishes")
def export_dishes(format: FormatOption = "csv", out: OutOption = None) -> None:
    """One row per dish: dataset, lang, dish_id, name, origins, source (+ more columns after)."""
    _export("dishes", format, out)


@export_app.command("origin-scores")
def export_origin_scores(format: FormatOption = "csv", out: OutOption = None) -> None:
    """One row per scored answer: dataset, model, task, lang, item_id, variant, gold, predicted, jaccard,
    dice, overlap, status (+ more columns after)."""
    _export("origin-scores", format, out)


@export_app.command("cooccurrence")
def export_cooccurrence(format: FormatOption = "csv", out: OutOption = None) -> None:
    """One row per (corpus language, dish): lang, dataset, dish_id, name, docs_with_dish,
    docs_with_true_country, docs_with_any_country (+ more columns after)."""
    _export("cooccurrence", format, out)


@export_app.command("codemix")
def export_codemix(format: FormatOption = "csv", out: OutOption = None) -> None:
    """One row per parallel dish: dish_id, uk_name, ru_name, docs_uk_name, docs_ru_name (+ more after)."""
    _export("codemix", format, out)


@export_app.command("name-scores")
def export_name_scores(format: FormatOption = "csv", out: OutOption = None) -> None:
    """One row per dish-name answer: dataset, model, task, lang, item_id, gold, prediction, matched_name,
    named_dish_key, exact, lev1, stem, similarity, paper, status (+ more columns after)."""
    _export("name-scores", format, out)


@export_app.command("dish-links")
def export_dish_links(format: FormatOption = "csv", out: OutOption = None) -> None:
    """One row per direction of each dish link: dish_key, linked_dish_key, method, score (+ more after)."""
    _export("dish-links", format, out)


@corpus_app.command("scan")
def corpus_scan(
    lang: Annotated[str, typer.Option(help="Corpus language: uk, ru or en.")],
    source: Annotated[str, typer.Option(help="File, folder or glob of JSONL / Parquet / text shards (.gz too).")],
    text_field: Annotated[str, typer.Option(help="The text column of JSONL / Parquet shards.")] = "text",
) -> None:
    """Count dish mentions, their co-occurrence with true and other countries, and RU/UK name use."""

    def action() -> None:
        with State.warehouse.writer() as con:
            _scan(con, lang, source, text_field)
        _publish()

    _run(action)


@corpus_app.command("uagec")
def corpus_uagec(
    dest: Annotated[Path | None, typer.Option(help="Where to write the JSONL shard (default: the user cache).")] = None,
) -> None:
    """Scan UA-GEC, the Ukrainian corpus the `ua-gec` package ships (corrected texts), as a uk corpus."""

    def action() -> None:
        with State.warehouse.writer() as con:
            _scan_uagec(con, dest)
        _publish()

    _run(action)


def _scan_uagec(con, dest: Path | None = None) -> None:
    from pipeline.corpus.uagec import export_uagec

    shard = export_uagec((dest or default_data_dir() / "corpora").expanduser())
    _scan(con, "uk", str(shard), "text")


def _scan(con, lang: str, source: str, text_field: str) -> None:
    from pipeline.corpus.scan import scan_corpus

    with _progress() as progress:
        bar = progress.add_task(f"scanning {lang} corpus", total=None)

        def advance(p) -> None:
            progress.update(
                bar,
                total=p.bytes_total,
                completed=p.bytes_done,
                description=f"scanning {lang} corpus ({p.mb_per_s:,.0f} MB/s)",
            )

        summary = scan_corpus(con, lang, source, text_field, run_id=new_run_id(), on_progress=advance)
    console.print(
        f"{summary.shards_scanned} shards scanned, {summary.shards_total - summary.shards_scanned} skipped "
        f"(unchanged), {summary.n_docs:,} documents, {summary.mb_per_s:,.1f} MB/s"
    )
    for path, reason in summary.corrupt:
        say("[yellow]corrupt shard skipped:[/] {}: {}", path, reason)


def _import_predictions(con, folder: Path, run_id: str) -> None:
    """Every published prediction file under `folder` and its subfolders, by the kind its name says;
    files of a kind this version cannot import yet are counted and named, never a reason to stop."""
    files, left = responses.prediction_files(folder)
    with _progress() as progress:
        task = progress.add_task("importing answers", total=len(files))
        for path in files:
            responses.import_file(con, path, run_id)
            progress.advance(task)
    if left:
        kinds = sorted({responses.task_from_path(p) or "unknown file name" for p in left})
        console.print(f"[yellow]skipped {len(left)} prediction files of kinds not imported yet:[/] {', '.join(kinds)}")


def _link(con) -> None:
    """The `link` step: which BORSch and WorldCuisines records name one dish (core.dish_links)."""
    counts = linking.link_dishes(con)
    if counts:
        console.print("dish links: " + ", ".join(f"{n} {method}" for method, n in sorted(counts.items())))


def _score(con) -> None:
    _link(con)  # dish-name answers are checked against the linked dishes' names too
    with _progress() as progress:
        task = progress.add_task("extracting + scoring", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, total=total, advance=done)

        summary = scoring.score(con, rescore=State.rescore, on_chunk=advance)
    if summary.scored:
        console.print(f"scored {summary.scored:,} answers in {summary.seconds:.1f} s ({summary.per_second:,.0f}/s)")
    else:
        console.print("[dim]every answer is already scored by the current extractor[/]")


@app.command("score")
def score(
    rescore: Annotated[bool, typer.Option(help="Re-extract and re-score everything, not only what is new.")] = False,
) -> None:
    """Extract the countries of every answer not yet scored and score them (no model run needed)."""

    def action() -> None:
        State.rescore = rescore
        with State.warehouse.writer() as con:
            _score(con)
        _publish()

    _run(action)


@app.command("generate")
def generate(
    task: Annotated[str, typer.Option(help="Task id, e.g. borsch.origin_qa (see pipeline/tasks/*.toml).")],
    lang: Annotated[str, typer.Option(help="Prompt language (ru, uk; WorldCuisines codes like en, ru_formal).")],
    backend: Annotated[str, typer.Option(help="transformers | vllm | openai | replay")],
    model: Annotated[str, typer.Option(help="Local model folder, hub id, or served model name.")],
    limit: Annotated[int | None, typer.Option(help="First N dataset items, with all their prompt variants.")] = None,
    images: Annotated[Path | None, typer.Option(help="Image folder laid out like BORSch (RU/images/ID/*).")] = None,
    subset: Annotated[str, typer.Option(help="full | parallel (dishes with both a RU and a UK entry)")] = "full",
    prompts: Annotated[Path | None, typer.Option(help="Prompt table (task, lang, variant, template; [DISH]).")] = None,
    variants: Annotated[str | None, typer.Option(help="Only these prompt variants, e.g. 1,3.")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Override the task's max_tokens.")] = None,
    setting: Annotated[
        list[str] | None, typer.Option("--setting", help="Backend setting KEY=VALUE (repeatable), e.g. batch_size=16.")
    ] = None,
    chunk_size: Annotated[int, typer.Option(help="Answers written per transaction.")] = 64,
) -> None:
    """Ask a model a task's questions; cached answers are skipped, a killed run resumes."""

    def action() -> None:
        spec = GenerationSpec(
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
        with State.warehouse.writer() as con:
            _generate(con, spec)
        _publish()

    _run(action)


@app.command("run")
def run_config(config: Annotated[Path, typer.Argument(help="A TOML file of models, tasks and stages.")]) -> None:
    """Several models x tasks x languages from one file, then score and publish (see README)."""

    def action() -> None:
        plan = runconfig.load(config)
        with State.warehouse.writer() as con:
            for spec in plan.generations:
                _generate(con, spec)
            if "score" in plan.stages:
                _score(con)
        if "publish" in plan.stages:
            _publish()

    _run(action)


@app.command("tiny-model")
def tiny_model(
    kind: Annotated[str, typer.Option(help="text (Qwen2-style) or vision (LLaVA-style)")],
    out: Annotated[Path, typer.Option(help="Folder to save the model and tokenizer/processor in.")],
) -> None:
    """Build a randomly initialised tiny model offline (for tests, smoke runs and GPU checks)."""
    from pipeline.backends.tiny import build_tiny_model

    def action() -> None:
        path = build_tiny_model(kind, out)
        say("tiny {} model saved to {}", kind, path)

    _run(action)


def _generate(con, spec: GenerationSpec) -> None:
    from pipeline import generate as generating
    from pipeline.backends import create_backend

    task = get_task(spec.task)
    if spec.prompts:
        task = with_prompt_table(task, spec.prompts)
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
    engine = create_backend(spec.backend, spec.model, **spec.settings)
    if hasattr(engine, "check"):  # a model server: fail fast when it is down
        engine.check()
    try:
        with _progress(rate=True) as progress:
            bar = progress.add_task(f"{task.task_id} {spec.lang}", total=None, tokens=0)

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
            )
    finally:
        engine.close()
    console.print(
        f"{task.task_id} {spec.lang} with {spec.model}: {summary.generated} answers "
        f"({summary.cached} cached, {summary.failed} failed) in {summary.seconds:.1f} s, "
        f"{summary.items_per_second:.1f} items/s, {summary.tokens_per_second:.0f} tokens/s"
    )


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
) -> None:
    """Read one answer per line on stdin; print one JSON array of alpha-2 codes per line (first mention first)."""
    for line in sys.stdin:
        text = line.rstrip("\n")
        answer_lang = (answer_language(text) or "en") if lang == "auto" else lang
        answer_lang = "en" if answer_lang == "other" else answer_lang
        result = extract_countries(text, answer_lang)
        sys.stdout.write(json.dumps(list(result.countries)) + "\n")
        sys.stdout.flush()


@app.command("publish")
def publish(
    force: Annotated[bool, typer.Option(help="Publish even if nothing changed since the last snapshot.")] = False,
) -> None:
    """Rebuild marts and publish the working database as the new snapshot."""
    _run(lambda: _publish(force=force))


@app.command("recover")
def recover(
    force: Annotated[
        bool, typer.Option(help="Replace a working database that is not damaged (its unpublished changes are lost).")
    ] = False,
) -> None:
    """Rebuild a damaged working database from the published snapshot; say what cannot be restored."""

    def action() -> None:
        recovery = State.warehouse.recover(force=force)
        rows = sum(recovery.restored.values())
        say(
            "[green]recovered[/] {} from the snapshot {} ({} rows in {} tables)",
            State.warehouse.working_path,
            State.warehouse.path,
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

    _run(action)


@app.command("demo")
def demo(
    data: Annotated[
        Path | None, typer.Option(envvar="DATA", help="Local copy of the public data (borsch/, worldcuisines/).")
    ] = None,
) -> None:
    """Build the demo warehouse: the real data when a data folder is found, else the embedded sample."""

    def action() -> None:
        source = data or (default_data_dir() if (default_data_dir() / "borsch").is_dir() else None)
        run_id = new_run_id()
        with State.warehouse.writer() as con:
            if source is None:
                console.print("[yellow]No data folder: building the demo on the embedded sample dataset.[/]")
                _report(sample.ingest(con, run_id))
            else:
                source = source.expanduser().resolve()
                say("building the demo from {}", source)
                sample.remove(con)
                _report(borsch.ingest(con, source / "borsch" if (source / "borsch").is_dir() else source, run_id))
                _report(worldcuisines.ingest(con, source, run_id))
                _import_predictions(con, worldcuisines.locate_files(source)["kb"].parent.parent / "predictions", run_id)
                _scan_uagec(con)  # a real Ukrainian corpus (UA-GEC), so the corpus pages show real counts
            _score(con)
        _publish()

    _run(action)


class ThroughputColumn(ProgressColumn):
    """items/s and tokens/s of a generation run so far."""

    def render(self, task) -> Text:
        elapsed = task.elapsed or 0.0
        if not elapsed:
            return Text("")
        tokens = task.fields.get("tokens", 0)
        return Text(f"{task.completed / elapsed:,.1f} items/s, {tokens / elapsed:,.0f} tokens/s", style="cyan")


def _progress(rate: bool = False) -> Progress:
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    if rate:
        columns.append(ThroughputColumn())
    return Progress(*columns, console=console)


def main() -> None:
    try:
        app(prog_name="python -m pipeline")
    except Exception as exc:
        sys.exit(_fail(exc))


if __name__ == "__main__":
    sys.exit(main())
