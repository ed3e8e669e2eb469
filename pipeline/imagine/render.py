"""Step `imagine`: draw each English description with a diffusers text-to-image pipeline.

Any pipeline id `DiffusionPipeline.from_pretrained` can load and call with a prompt works (default
FLUX.1-dev). Each image is keyed by the generator (id and local weights hash), the prompt, the
seed, the number of steps, the guidance and the size: a rerun skips what is done. The PNG is
written to `<store>/<aa>/<sha256>.png` (its content hash; written to a temporary name and renamed,
so a kill never leaves half a file under a final name) before its rows are committed, one
transaction per batch: a killed run redraws at most one batch, with no duplicates.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipeline.backends.base import BackendError, local_weights_hash
from pipeline.imagine import device_and_dtype
from pipeline.imagine.translate import Translation
from warehouse.io import insert, transaction


@dataclass(frozen=True)
class RenderRequest:
    render_id: str
    translation: Translation
    seed: int


@dataclass
class RenderSummary:
    requested: int = 0
    cached: int = 0
    generated: int = 0
    seconds: float = 0.0

    @property
    def images_per_second(self) -> float:
        return self.generated / self.seconds if self.seconds else 0.0


class TextToImage:
    """A diffusers pipeline loaded once, drawing batches of prompts with one seed each."""

    def __init__(
        self, model: str, device: str = "auto", dtype: str = "auto", batch_size: int = 4,
        max_sequence_length: int | None = None,
    ) -> None:  # fmt: skip
        self.model_id = model
        self.device = device
        self.dtype = dtype
        self.batch_size = int(batch_size)
        self.max_sequence_length = max_sequence_length
        self.weights_hash = local_weights_hash(Path(model)) if Path(model).is_dir() else None
        self._pipeline = None

    def identity(self) -> dict:
        """What makes two generators the same (part of every image's cache key)."""
        return {"generator": self.model_id, "weights_hash": self.weights_hash, "class": self.pipeline_class}

    @property
    def pipeline_class(self) -> str:
        index = Path(self.model_id) / "model_index.json"
        if index.is_file():
            return json.loads(index.read_text(encoding="utf-8")).get("_class_name", "DiffusionPipeline")
        return self._load().__class__.__name__

    def _load(self):
        if self._pipeline is None:
            from diffusers import DiffusionPipeline

            device, dtype = device_and_dtype(self.device, self.dtype, "bfloat16")
            try:
                pipeline = DiffusionPipeline.from_pretrained(self.model_id, dtype=dtype)
            except Exception as error:  # hub unreachable, not a diffusers folder, ...
                raise BackendError(f"cannot load text-to-image pipeline {self.model_id!r}: {error}") from error
            if "prompt" not in inspect.signature(pipeline.__call__).parameters:
                raise BackendError(f"{self.model_id!r} ({type(pipeline).__name__}) is not a text-to-image pipeline")
            pipeline.set_progress_bar_config(disable=True)
            self._pipeline = pipeline.to(device)
            self._device = device
        return self._pipeline

    def draw(self, prompts: list[str], seeds: list[int], steps: int, guidance: float, width: int, height: int):
        """PIL images, one per prompt; each seeded on its own (torch.Generator per image)."""
        import torch

        pipeline = self._load()
        accepted = inspect.signature(pipeline.__call__).parameters
        kwargs = {"num_inference_steps": steps, "width": width, "height": height}
        if "guidance_scale" in accepted:
            kwargs["guidance_scale"] = guidance
        if self.max_sequence_length and "max_sequence_length" in accepted:
            kwargs["max_sequence_length"] = self.max_sequence_length
        generators = [torch.Generator(device="cpu").manual_seed(int(seed)) for seed in seeds]
        with torch.inference_mode():
            return pipeline(prompt=prompts, generator=generators, **kwargs).images

    def close(self) -> None:
        self._pipeline = None


def render_key(identity: dict, prompt: str, seed: int, steps: int, guidance: float, width: int, height: int) -> str:
    payload = {**identity, "prompt": prompt, "seed": seed, "steps": steps, "guidance": guidance,
               "width": width, "height": height}  # fmt: skip
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]


def plan(engine: TextToImage, spec, translations: list[Translation]) -> list[RenderRequest]:
    identity = engine.identity()
    return [
        RenderRequest(
            render_key(identity, t.text, seed, spec.steps, spec.guidance, spec.width, spec.height), t, int(seed)
        )
        for t in translations
        for seed in spec.seeds
    ]


def png_bytes(image) -> bytes:
    """PNG bytes with no metadata, so the same pixels always give the same hash."""
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def store_image(store: Path, data: bytes) -> tuple[str, Path]:
    """Write `data` under its sha256 (atomically); returns (sha256, path)."""
    digest = hashlib.sha256(data).hexdigest()
    path = store / digest[:2] / f"{digest}.png"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return digest, path


def run(
    con: duckdb.DuckDBPyConnection,
    spec,
    engine: TextToImage,
    translations: list[Translation],
    store: Path,
    run_id: str,
    on_progress: Callable[[int, int], None] | None = None,
) -> RenderSummary:
    summary = RenderSummary()
    requests = plan(engine, spec, translations)
    summary.requested = len(requests)
    done = existing(con, [r.render_id for r in requests])
    todo = [r for r in requests if r.render_id not in done]
    summary.cached = len(requests) - len(todo)
    clock = time.perf_counter()
    for batch in _batches(todo, engine.batch_size):
        started = time.perf_counter()
        images = engine.draw(
            [r.translation.text for r in batch], [r.seed for r in batch], spec.steps, spec.guidance, spec.width,
            spec.height,
        )  # fmt: skip
        seconds = (time.perf_counter() - started) / len(batch)
        rows, image_rows = [], []
        for request, image in zip(batch, images, strict=True):
            digest, path = store_image(store, png_bytes(image))
            dish_key = request.translation.description.dish_key
            image_rows.append((digest[:32], digest, dish_key, str(path), image.width, image.height))
            rows.append(
                {
                    "render_id": request.render_id,
                    "image_id": digest[:32],
                    "dish_key": request.translation.description.dish_key,
                    "generator": engine.model_id,
                    "generator_hash": engine.weights_hash,
                    "pipeline_class": engine.pipeline_class,
                    "prompt": request.translation.text,
                    "seed": request.seed,
                    "steps": spec.steps,
                    "guidance": spec.guidance,
                    "width": spec.width,
                    "height": spec.height,
                    "description_generation_id": request.translation.description.generation_id,
                    "translation_generation_id": request.translation.generation_id,
                    "run_id": run_id,
                    "seconds": seconds,
                }
            )
        with transaction(con):
            for image_id, digest, dish_key, path, width, height in image_rows:
                con.execute(  # core.imagine_images: the imagine step's own part of core.images (migration 090)
                    "INSERT INTO core.imagine_images (image_id, kind, dish_key, local_path, sha256, width, height) "
                    "SELECT ?, 'generated', ?, ?, ?, ?, ? "
                    "WHERE NOT EXISTS (SELECT 1 FROM core.images WHERE image_id = ?)",
                    [image_id, dish_key, path, digest, width, height, image_id],
                )
            insert(con, "core.generated_images", rows)
        summary.generated += len(batch)
        summary.seconds = time.perf_counter() - clock
        if on_progress:
            on_progress(len(batch), len(todo))
    return summary


def existing(con: duckdb.DuckDBPyConnection, keys: list[str]) -> set[str]:
    if not keys:
        return set()
    rows = con.execute(
        "SELECT render_id FROM core.generated_images WHERE render_id IN (SELECT unnest(?))", [keys]
    ).fetchall()
    return {row[0] for row in rows}


def stored(con: duckdb.DuckDBPyConnection, engine: TextToImage, spec, translations: list[Translation]) -> list[tuple]:
    """(image_id, dish_key) of the images this spec's generator drew for these translations."""
    keys = [r.render_id for r in plan(engine, spec, translations)]
    return con.execute(
        "SELECT DISTINCT image_id, dish_key FROM core.generated_images WHERE render_id IN (SELECT unnest(?)) "
        "ORDER BY dish_key, image_id",
        [keys],
    ).fetchall()


def _batches(rows: list, size: int) -> Iterator[list]:
    for start in range(0, len(rows), max(1, size)):
        yield rows[start : start + size]
