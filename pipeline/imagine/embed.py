"""Step `embed`: the [CLS] vector (`last_hidden_state[:, 0]`) of an image encoder loaded with
transformers `AutoModel` + `AutoImageProcessor` (default DINOv2-giant), for the generated images
and the real photos of the same dishes. Keyed by (image content hash, encoder id, local weights
hash): a rerun embeds only new images; each batch is one transaction.

Real photos are whatever local files the warehouse knows (core.images, kind 'real', e.g. from
`generate --images` or `imagine --images`); `register_real_images` adds a BORSch-layout folder's
photos of the dishes in scope. A photo that cannot be read is skipped and counted, never fatal.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from pipeline.backends.base import BackendError, local_weights_hash
from pipeline.datasets.base import read_images
from pipeline.datasets.borsch import IMAGE_DIRS
from pipeline.imagine import device_and_dtype
from warehouse.io import transaction


@dataclass
class EmbedSummary:
    requested: int = 0
    cached: int = 0
    embedded: int = 0
    unreadable: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def images_per_second(self) -> float:
        return self.embedded / self.seconds if self.seconds else 0.0


class ImageEncoder:
    """An image encoder whose [CLS] token is the embedding."""

    def __init__(self, model: str, device: str = "auto", dtype: str = "auto", batch_size: int = 16) -> None:
        self.model_id = model
        self.device = device
        self.dtype = dtype
        self.batch_size = int(batch_size)
        self.weights_hash = (local_weights_hash(Path(model)) or "") if Path(model).is_dir() else ""
        self._model = None

    def _load(self):
        if self._model is None:
            from transformers import AutoImageProcessor, AutoModel

            device, dtype = device_and_dtype(self.device, self.dtype, "float16")
            try:
                self._processor = AutoImageProcessor.from_pretrained(self.model_id)
                self._model = AutoModel.from_pretrained(self.model_id, dtype=dtype).to(device).eval()
            except Exception as error:
                raise BackendError(f"cannot load image encoder {self.model_id!r}: {error}") from error
            self._device, self._dtype = device, dtype
        return self._model

    def embed(self, images: list) -> list[list[float]]:
        """[CLS] of each PIL image, as float lists."""
        import torch

        model = self._load()
        inputs = self._processor(images=images, return_tensors="pt")
        pixels = inputs["pixel_values"].to(self._device, self._dtype)
        with torch.inference_mode():
            cls = model(pixel_values=pixels).last_hidden_state[:, 0]
        return cls.float().cpu().tolist()

    def close(self) -> None:
        self._model = None


def register_real_images(con: duckdb.DuckDBPyConnection, dataset: str, lang: str, dish_keys: list[str],
                         folder: Path) -> int:  # fmt: skip
    """Record the readable photos of `dish_keys` found in a BORSch-layout folder (DIR/RU/images/ID/*) in
    core.imagine_images (this step's own part of core.images); a photo already known, by its content hash, is kept
    as it is."""
    if dataset != "borsch":
        raise ValueError(f"--images is laid out like the BORSch repository; for {dataset!r} use `data fetch --images`")
    added = 0
    with transaction(con):
        for dish_key in dish_keys:
            dish_id = dish_key.rsplit(":", 1)[1]
            images, _problem = read_images(folder / IMAGE_DIRS[lang] / "images" / dish_id)
            for position, (path, digest) in enumerate(images):
                added += len(
                    con.execute(
                        "INSERT INTO core.imagine_images (image_id, kind, dish_key, position, local_path, sha256) "
                        "SELECT ?, 'real', ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM core.images WHERE image_id = ?) "
                        "RETURNING image_id",
                        [digest[:32], dish_key, position, str(path), digest, digest[:32]],
                    ).fetchall()
                )
    return added


def real_images(con: duckdb.DuckDBPyConnection, dish_keys: list[str]) -> list[tuple[str, str, str]]:
    """(image_id, dish_key, local_path) of the known real photos of these dishes that exist on disk."""
    rows = con.execute(
        "SELECT image_id, dish_key, local_path FROM core.images WHERE kind = 'real' AND local_path IS NOT NULL "
        "AND dish_key IN (SELECT unnest(?)) ORDER BY dish_key, position NULLS LAST, image_id",
        [dish_keys],
    ).fetchall()
    return [row for row in rows if Path(row[2]).is_file()]


def run(con: duckdb.DuckDBPyConnection, encoder: ImageEncoder, images: list[tuple[str, str]]) -> EmbedSummary:
    """Embed (image_id, local_path) pairs not embedded yet by this encoder."""
    from PIL import Image, UnidentifiedImageError

    summary = EmbedSummary(requested=len(images))
    done = {
        row[0]
        for row in con.execute(
            "SELECT image_id FROM core.image_embeddings WHERE encoder = ? AND encoder_hash = ? "
            "AND image_id IN (SELECT unnest(?))",
            [encoder.model_id, encoder.weights_hash, [i for i, _ in images]],
        ).fetchall()
    }
    todo = list(dict.fromkeys((i, p) for i, p in images if i not in done))
    summary.cached = len(images) - len(todo)
    clock = time.perf_counter()
    for batch in _batches(todo, encoder.batch_size):
        loaded, ids = [], []
        for image_id, path in batch:
            try:
                with Image.open(path) as image:
                    loaded.append(image.convert("RGB"))
                ids.append(image_id)
            except (OSError, UnidentifiedImageError) as exc:
                summary.unreadable.append(f"{path}: {exc}")
        if not loaded:
            continue
        vectors = encoder.embed(loaded)
        with transaction(con):
            con.executemany(
                "INSERT INTO core.image_embeddings (image_id, encoder, encoder_hash, embedding) VALUES (?, ?, ?, ?)",
                [[i, encoder.model_id, encoder.weights_hash, v] for i, v in zip(ids, vectors, strict=True)],
            )
        summary.embedded += len(ids)
        summary.seconds = time.perf_counter() - clock
    return summary


def _batches(rows: list, size: int) -> Iterator[list]:
    for start in range(0, len(rows), max(1, size)):
        yield rows[start : start + size]
