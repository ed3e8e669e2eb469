"""Multi30K-UK captions (Saichyshyna et al. 2023), as ZNO-Vision evaluates them (§3): Flickr photos with
one reference caption each in Ukrainian (and English); the paper uses test_2017_flickr as dev and
test_2018_flickr as test. Any caption set in the same layout loads the same way.

The layout read from a local folder (Multi30K's own repository layout, which Multi30K-UK follows with
`.uk` files beside the `.en` ones; an assumption stated here because the hub cannot be reached):

    DIR/data/task1/image_splits/<split>.txt    one image file name per line (1007129816.jpg)
    DIR/data/task1/raw/<split>.<lang>[.gz]     that image's caption on the same line, lang uk / en / ...
    DIR/images/<image file>                    the photos (optional; `generate --images DIR/images`)

A caption file whose line count differs from its image list stops the ingest with both files named.
Items are one per (split, image), id `<split>/<image file>`; references in core.item_gold_text.
"""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import duckdb

from pipeline.core.errors import DataError
from pipeline.datasets import DATASETS
from pipeline.datasets.base import Dataset, ItemInput, ItemsRequest, RemoteFile, TaskItems
from pipeline.datasets.base import _attach as attach_images
from pipeline.datasets.common import (
    DatasetInfo,
    IngestResult,
    already_loaded,
    record_dataset,
    record_source,
    sha256_files,
)
from pipeline.tasks import get_task
from warehouse.io import insert, transaction

DATASET = DatasetInfo(
    dataset="multi30k",
    title="Multi30K-UK: Flickr photos with Ukrainian and English captions",
    home="Multi30K-UK (Multi30K repository layout, read from a local folder)",
    license="as the dataset's",
)
TASK_ID = "multi30k.caption"
KIND = "multi30k"
PAPER_SPLITS = {"test_2017_flickr": "dev", "test_2018_flickr": "test"}  # §3: Flickr2017 dev, Flickr2018 test
# `data fetch multi30k`: the image lists and English captions of the paper's two splits from Multi30K's own
# repository (the layout this module reads). The Ukrainian captions (Multi30K-UK) are placed beside them as
# data/task1/raw/<split>.uk from that release, whose host could not be checked from here. Not pinned byte for
# byte (no SHA-256).
MULTI30K_REPOSITORY = "https://raw.githubusercontent.com/multi30k/dataset/master"


def remote_files() -> list[RemoteFile]:
    """What `data fetch multi30k` downloads: each paper split's image list and English captions."""
    files = []
    for split in PAPER_SPLITS:
        for path in (f"data/task1/image_splits/{split}.txt", f"data/task1/raw/{split}.en.gz"):
            files.append(RemoteFile(f"{MULTI30K_REPOSITORY}/{path}", path))
    return files


def _lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            return [line.rstrip("\n").rstrip("\r") for line in handle]
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(path, f"cannot read as UTF-8 text: {exc}") from exc


def read(source: Path) -> tuple[dict[tuple[str, str], dict[str, str]], list[Path]]:
    """(split, image) -> {lang: caption}, and the files read."""
    splits_dir, raw_dir = source / "data" / "task1" / "image_splits", source / "data" / "task1" / "raw"
    lists = sorted(splits_dir.glob("*.txt")) if splits_dir.is_dir() else []
    if not lists:
        raise DataError(source, "no Multi30K image lists: expected data/task1/image_splits/<split>.txt")
    captions: dict[tuple[str, str], dict[str, str]] = {}
    files: list[Path] = []
    for listing in lists:
        split = listing.stem
        images = [line.strip() for line in _lines(listing)]
        files.append(listing)
        found = sorted(p for p in raw_dir.glob(f"{split}.*") if p.name.count(".") in (1, 2))
        for path in found:
            lang = path.name[len(split) + 1 :].removesuffix(".gz")
            if not lang.isalpha():
                continue
            texts = _lines(path)
            if len(texts) != len(images):
                raise DataError(path, f"{len(texts)} captions for the {len(images)} images of {listing.name}")
            files.append(path)
            for image, text in zip(images, texts, strict=True):
                if image and text.strip():
                    captions.setdefault((split, image), {})[lang] = text.strip()
    if not captions:
        raise DataError(source, "no captions: expected data/task1/raw/<split>.<lang> beside the image lists")
    return captions, files


def ingest(con: duckdb.DuckDBPyConnection, source: Path | None, run_id: str, force: bool = False) -> IngestResult:
    """One item per (split, image), its reference caption per language."""
    if source is None:
        raise ValueError("Multi30K is read from its folder: python -m pipeline ingest multi30k --source DIR")
    captions, files = read(source)
    sha = sha256_files(files)
    if not force and already_loaded(con, sha, KIND, scope="captions"):
        return IngestResult("multi30k", skipped=True)
    task = get_task(TASK_ID)
    items = [
        {"item_id": f"{TASK_ID}:{split}/{image}", "task_id": TASK_ID, "dish_key": None,
         "source_ref": f"{split}/{image}", "subset": split, "variant": None}
        for split, image in captions
    ]  # fmt: skip
    gold = [
        {"item_id": f"{TASK_ID}:{split}/{image}", "lang": lang, "text": text}
        for (split, image), by_lang in captions.items()
        for lang, text in by_lang.items()
    ]
    with transaction(con):
        record_dataset(con, DATASET)
        con.execute("DELETE FROM core.tasks WHERE task_id = ?", [TASK_ID])
        insert(con, "core.tasks", [task.row()])
        old = "(SELECT item_id FROM core.items WHERE task_id = ?)"
        con.execute(f"DELETE FROM core.item_gold_text WHERE item_id IN {old}", [TASK_ID])
        con.execute("DELETE FROM core.ingested_items WHERE task_id = ?", [TASK_ID])
        insert(con, "core.ingested_items", items)
        insert(con, "core.item_gold_text", gold)
        record_source(con, sha256=sha, kind=KIND, scope="captions", path=source, rows_loaded=len(items), run_id=run_id)
    splits = sorted({split for split, _ in captions})
    return IngestResult("multi30k", counts={f"{s} images": sum(k[0] == s for k in captions) for s in splits})


def items(con: duckdb.DuckDBPyConnection, request: ItemsRequest) -> TaskItems:
    """The images of the ingested splits (`--subset SPLIT`), photos from --images DIR/<image file>."""
    split = None if request.subset == "full" else request.subset
    rows = con.execute(
        """SELECT i.item_id, i.source_ref FROM core.items i
           JOIN core.item_gold_text t ON t.item_id = i.item_id AND t.lang = ?
           WHERE i.task_id = ? AND (? IS NULL OR i.subset = ?) ORDER BY i.item_id""",
        [request.lang, TASK_ID, split, split],
    ).fetchall()
    if not rows:
        raise ValueError(f"no Multi30K captions in {request.lang!r}: run `python -m pipeline ingest multi30k` first")
    rows = rows[: request.limit] if request.limit else rows
    found = [ItemInput(item_id, "", ref) for item_id, ref in rows]
    if request.task.inputs == "name":
        return TaskItems(found)
    result = TaskItems([])
    for item in found:
        photo, problem = _photo(request.images_dir, item.dish_name.split("/", 1)[1])
        if problem:
            result.skipped.append((item.item_id, problem))
        else:
            result.ready.append(attach_images(con, item, [photo]))
    return result


def _photo(images_dir: Path | None, image: str) -> tuple[tuple[Path, str], str | None]:
    """The readable photo DIR/<image> with its content hash, or why there is none."""
    from PIL import Image, UnidentifiedImageError

    if images_dir is None:
        return (Path(), ""), "no image folder given: pass --images DIR (the Flickr30k photos)"
    path = images_dir / image
    try:
        with Image.open(path) as opened:
            opened.verify()
    except (OSError, UnidentifiedImageError) as exc:
        return (path, ""), f"no readable photo {path}: {exc}"
    return (path, hashlib.sha256(path.read_bytes()).hexdigest()), None


DATASETS.add("multi30k", Dataset(DATASET, lambda: [], ingest, items, named_files=remote_files))
