"""The imagine steps in order, for one spec: what `python -m pipeline imagine` and the run
configuration's imagine stages call. Each step reads what the previous ones stored (so any
step can be rerun alone) and skips what is done.

The first two steps are answers: the description and its English translation are generations of their own tasks,
asked by the answers step of the flow (`answer`, the one writer of core.generations); the imagine step (`run`)
reads them back and draws, embeds and compares."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from pipeline.backends import Backend, create_backend
from pipeline.core.run_settings import ImagineSpec
from pipeline.imagine import STEPS, describe, embed, render, similarity, translate
from pipeline.tiny.marker import is_tiny_random
from warehouse.io import new_run_id, transaction

Say = Callable[[str], None]


@dataclass
class ImagineReport:
    """Counts per step, for the command's summary lines and tests."""

    lines: list[str] = field(default_factory=list)
    descriptions: int = 0
    translations: int = 0
    images: int = 0
    images_per_second: float = 0.0
    embedded: int = 0
    similarities: int = 0
    real_references: int = 0


def image_store(warehouse_path: Path) -> Path:
    """Generated PNGs live beside the warehouse, by content hash."""
    return warehouse_path.parent / "images" / "generated"


def run(
    con: duckdb.DuckDBPyConnection,
    spec: ImagineSpec,
    store: Path,
    steps: tuple[str, ...] = STEPS,
    say: Say = lambda line: None,
) -> ImagineReport:
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        raise ValueError(f"unknown imagine steps {unknown}; known: {', '.join(STEPS)}")
    report = ImagineReport()

    def note(line: str) -> None:
        report.lines.append(line)
        say(line)

    describer, translator = _text_models(spec)
    generator = render.TextToImage(spec.generator, **spec.generator_settings)
    encoder = embed.ImageEncoder(spec.encoder, **spec.encoder_settings)
    try:
        record_provenance(con, spec)
        descriptions = describe.stored(con, spec, describer)
        report.descriptions = len(descriptions)
        translations = translate.stored(con, spec.dataset, spec.lang, descriptions, translator)
        report.translations = len(translations)
        if "imagine" in steps:
            drawn = [0]

            def progress(done: int, total: int) -> None:
                drawn[0] += done
                say(f"drew {drawn[0]}/{total}")  # one line per committed batch (logs, kill tests)

            summary = render.run(con, spec, generator, translations, store, new_run_id(), on_progress=progress)
            report.images_per_second = summary.images_per_second
            note(
                f"imagine: {summary.generated} new images ({summary.cached} cached) with {spec.generator}, "
                f"{summary.images_per_second:.2f} images/s"
            )
        generated = render.stored(con, generator, spec, translations)
        report.images = len(generated)
        dish_keys = sorted({d.dish_key for d in descriptions})
        if spec.images is not None:
            added = embed.register_real_images(con, spec.dataset, spec.lang, dish_keys, spec.images)
            note(f"real images: {added} new from {spec.images}")
        real = embed.real_images(con, dish_keys)
        if "embed" in steps:
            paths = dict(
                con.execute(
                    "SELECT image_id, local_path FROM core.images WHERE image_id IN (SELECT unnest(?))",
                    [[i for i, _ in generated]],
                ).fetchall()
            )
            summary = embed.run(con, encoder, [(i, paths[i]) for i, _ in generated] + [(i, p) for i, _, p in real])
            report.embedded = summary.embedded
            note(
                f"embed: {summary.embedded} new ({summary.cached} cached, {len(summary.unreadable)} unreadable) "
                f"with {spec.encoder}; {len(real)} real photos of {len({d for _, d, _ in real})} dishes"
            )
        if "similarity" in steps:
            report.similarities = similarity.run(
                con, spec.encoder, encoder.weights_hash, generated, [(i, d) for i, d, _ in real]
            )
            note(f"similarity: {report.similarities} generated images compared")
            report.real_references = similarity.run_reference(
                con, spec.encoder, encoder.weights_hash, [(i, d) for i, d, _ in real]
            )
            note(f"similarity: {report.real_references} real photos compared with each other (the §5 reference)")
    finally:
        _close(describer, translator)
        generator.close()
        encoder.close()
    return report


ANSWER_STEPS = ("dish_description", "translate")


def answer(
    con: duckdb.DuckDBPyConnection, spec: ImagineSpec, steps: tuple[str, ...] = STEPS, say: Say = lambda line: None
) -> ImagineReport:
    """The steps that are answers (`ANSWER_STEPS`), run by the flow's answers step: each dish described by the
    describer, each description translated into English by the translator, through the generate stage (same cache
    keys, chunks and failure records as every other task)."""
    report = ImagineReport()
    if not set(steps) & set(ANSWER_STEPS):
        return report

    def note(line: str) -> None:
        report.lines.append(line)
        say(line)

    describer, translator = _text_models(spec)
    try:
        if "dish_description" in steps:
            summary = describe.run(con, spec, describer, new_run_id())
            note(f"dish_description: {summary.generated} new ({summary.cached} cached, {summary.failed} failed)")
        descriptions = describe.stored(con, spec, describer)
        report.descriptions = len(descriptions)
        if "translate" in steps:
            summary = translate.run(
                con, spec.dataset, spec.lang, descriptions, translator, new_run_id(), spec.chunk_size
            )
            note(f"translate: {summary.generated} new ({summary.cached} cached, {summary.failed} failed)")
            report.translations = summary.generated + summary.cached
    finally:
        _close(describer, translator)
    return report


def _text_models(spec: ImagineSpec) -> tuple[Backend, Backend]:
    """The describer and the translator (the describer itself when the spec names no other)."""
    describer = create_backend(spec.backend, spec.describer, **spec.settings)
    same_translator = (spec.translator_model, spec.translator_backend_name) == (spec.describer, spec.backend)
    translator = (
        describer
        if same_translator and not spec.translator_settings
        else create_backend(spec.translator_backend_name, spec.translator_model, **spec.translator_settings)
    )
    return describer, translator


def _close(*engines: Backend) -> None:
    for engine in {id(engine): engine for engine in engines}.values():
        engine.close()


def record_provenance(con: duckdb.DuckDBPyConnection, spec: ImagineSpec) -> None:
    """Which model played which part, and whether it is a tiny random test model; and the vision model whose VQA
    answers BORSch Table 4 pairs with the describer, where the run declares one."""
    roles = {
        "describer": spec.describer,
        "translator": spec.translator_model,
        "generator": spec.generator,
        "encoder": spec.encoder,
    }
    with transaction(con):
        for role, model in roles.items():
            con.execute(
                "INSERT OR REPLACE INTO core.model_provenance (model_id, role, tiny_random) VALUES (?, ?, ?)",
                [model, role, is_tiny_random(model)],
            )
        if spec.vqa_model is not None:  # a declared pairing replaces the paper's for this describer (Table 4)
            con.execute(
                "INSERT OR REPLACE INTO core.vqa_counterparts (describer, vision_model) VALUES (?, ?)",
                [spec.describer, spec.vqa_model],
            )
