"""What every dataset module declares: its public files (home, pinned commit, checksums), its
ingest (the only writer of its dishes, items, gold, images and quirks) and how its items become
the inputs of its tasks' prompts."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from pipeline.datasets.common import DatasetInfo, IngestResult
from pipeline.tasks import Task
from warehouse.io import insert, scalar, transaction

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".bmp")
MAX_IMAGES = 10


@dataclass(frozen=True)
class RemoteFile:
    """One public file: where it is served at the pinned commit, where `data fetch` puts it
    (relative to the data directory) and its SHA-256 (None for files not pinned byte for byte)."""

    url: str
    dest: str
    sha256: str | None = None


@dataclass(frozen=True)
class ItemInput:
    """One dataset item as a task sees it: the dish name to fill in and its images."""

    item_id: str
    dish_key: str
    dish_name: str
    images: tuple[Path, ...] = ()
    image_hashes: tuple[str, ...] = ()
    questions: dict[str, str] = field(default_factory=dict)  # variant -> text, for dataset-shipped prompts


@dataclass(frozen=True)
class ItemsRequest:
    """Which items of a task `generate` wants, and where their images are."""

    task: Task
    lang: str
    limit: int | None = None
    subset: str = "full"
    images_dir: Path | None = None
    run_id: str = ""


@dataclass
class TaskItems:
    """The items ready to prompt, and (item_id, reason) for each one left out (no readable image);
    generate records the reasons in core.generation_failures."""

    ready: list[ItemInput]
    skipped: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Dataset:
    """One registered dataset (see pipeline/datasets/__init__.py).

    `ingest(con, source, run_id, force)` loads the published files from `source` (a folder, or None
    for data shipped with the code); `items(con, request)` returns the items of one of its tasks in
    one prompt language, creating their rows when the dataset builds them on demand (BORSch); an
    item whose images cannot be read is left out and its reason recorded."""

    info: DatasetInfo
    public_files: Callable[[], list[RemoteFile]]
    ingest: Callable[[duckdb.DuckDBPyConnection, Path | None, str, bool], IngestResult]
    items: Callable[[duckdb.DuckDBPyConnection, ItemsRequest], TaskItems]
    image_manifest: Callable[[Path], list[RemoteFile]] = lambda data_dir: []
    # `data fetch NAME`: the files pinned for this dataset alone (ZNO, Multi30K), downloaded into NAME/ by
    # pipeline/datasets/fetch.py, or `fetch`, a download of its own into that folder (CultureMix's hub tables).
    named_files: Callable[[], list[RemoteFile]] | None = None
    fetch: Callable[[Path], list[Path]] | None = None

    @property
    def name(self) -> str:
        return self.info.dataset


def no_items(con: duckdb.DuckDBPyConnection, request: ItemsRequest) -> TaskItems:
    raise ValueError(f"generation for dataset {request.task.dataset!r} is not declared")


def ensure_task(con: duckdb.DuckDBPyConnection, task: Task) -> None:
    """The task's core.tasks row, once (its items hang off it)."""
    if not scalar(con, "SELECT count(*) FROM core.tasks WHERE task_id = ?", [task.task_id]):
        insert(con, "core.tasks", [task.row()])


def add_items(con: duckdb.DuckDBPyConnection, task: Task, items: Sequence[tuple[str, str, str, str]]) -> None:
    """The task's items (item_id, dish_key, source_ref, subset) that core.items does not hold yet (written to
    core.ingested_items, ingest's own part of that view: migration 090), in one statement: one INSERT per item cost
    ~10 ms, 11 s for BORSch's dishes before a `generate` could start."""
    if not items:
        return
    ids, keys, refs, subsets = (list(column) for column in zip(*items, strict=True))
    con.execute(
        """INSERT INTO core.ingested_items (item_id, task_id, dish_key, source_ref, subset)
           SELECT item_id, $task, dish_key, source_ref, subset
           FROM (SELECT unnest($ids) AS item_id, unnest($keys) AS dish_key, unnest($refs) AS source_ref,
                        unnest($subsets) AS subset, unnest(range(len($ids))) AS n) new
           WHERE NOT EXISTS (SELECT 1 FROM core.items i WHERE i.item_id = new.item_id)
           ORDER BY n""",  # stored in the given order, as one INSERT per item did (INSERT OR IGNORE would not keep it)
        {"ids": ids, "task": task.task_id, "keys": keys, "refs": refs, "subsets": subsets},
    )


def read_images(folder: Path | None) -> tuple[list[tuple[Path, str]], str | None]:
    """Up to 10 readable images with their content hashes, or the reason there are none."""
    from PIL import Image, UnidentifiedImageError

    if folder is None:
        return [], "no image folder given: pass --images DIR (laid out like the BORSch repository)"
    if not folder.is_dir():
        return [], f"no images: {folder} does not exist"
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)[:MAX_IMAGES]
    images, problems = [], []
    for path in files:
        try:
            with Image.open(path) as image:
                image.verify()
        except (OSError, UnidentifiedImageError) as exc:
            problems.append(f"{path.name}: {exc}")
            continue
        images.append((path, hashlib.sha256(path.read_bytes()).hexdigest()))
    if not images:
        why = "; ".join(problems) if problems else "no image files"
        return [], f"no readable image in {folder} ({why})"
    return images, None


def read_image_folders(folders: Path | list[Path] | None) -> tuple[list[tuple[Path, str]], str | None]:
    """`read_images` over several folders in order (BORSch: both sides of a parallel pair), up to 10 in all;
    the reasons of every folder when none has a readable image."""
    if folders is None or isinstance(folders, Path):
        return read_images(folders)
    images: list[tuple[Path, str]] = []
    problems: list[str] = []
    for folder in folders:
        found, problem = read_images(folder)
        images.extend(found[: MAX_IMAGES - len(images)])
        if problem:
            problems.append(problem)
    return (images, None) if images else ([], "; ".join(problems) or "no image folder")


def with_local_images(
    con: duckdb.DuckDBPyConnection,
    request: ItemsRequest,
    items: list[ItemInput],
    folder_of: Callable[[ItemInput], Path | list[Path]],
) -> TaskItems:
    """Name-only tasks get the items as they are; image tasks get each item's readable photos from
    `folder_of(item)`, recorded in core.ingested_images / core.item_images. An item with none is left out
    with its reason."""
    if request.task.inputs == "name":
        return TaskItems(items)
    result = TaskItems([])
    for item in items:
        images, problem = read_image_folders(folder_of(item) if request.images_dir is not None else None)
        if problem:
            result.skipped.append((item.item_id, problem))
            continue
        result.ready.append(_attach(con, item, images))
    return result


def _attach(con: duckdb.DuckDBPyConnection, item: ItemInput, images: list[tuple[Path, str]]) -> ItemInput:
    with transaction(con):
        for position, (path, digest) in enumerate(images):
            image_id = digest[:32]
            con.execute(  # a photo `imagine --images` registered first stays there: one row per content hash
                "INSERT INTO core.ingested_images (image_id, kind, dish_key, position, local_path, sha256) "
                "SELECT ?, 'real', ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM core.images WHERE image_id = ?)",
                [image_id, item.dish_key, position, str(path), digest, image_id],
            )
            con.execute(
                "INSERT OR REPLACE INTO core.item_images (item_id, position, image_id) VALUES (?, ?, ?)",
                [item.item_id, position, image_id],
            )
    return ItemInput(
        item.item_id,
        item.dish_key,
        item.dish_name,
        tuple(p for p, _ in images),
        tuple(d for _, d in images),
        item.questions,
    )
