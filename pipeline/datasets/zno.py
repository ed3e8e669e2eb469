"""ZNO-Vision's exam benchmark: image questions of the Ukrainian external exam (ZNO) with lettered
options А-Д and one right letter, in dev / validation / test splits (491 / 490 / 3,325 in the paper,
§3 and Appendix B), 13 subjects.

The published layout this module reads (an assumption: the hub cannot be reached from here, so it
follows the Hugging Face `datasets` parquet export the study's release uses, and the field names of
the text-only ZNO set by the same community, `osyvokon/zno`):

    DIR/data/<split>-NNNNN-of-NNNNN.parquet    (or DIR/<split>.parquet), split: dev | validation | test
    columns: question (text), answers (list of {marker, text}: the options, marker "А"…"Д"),
             correct_answers (list of markers: exactly one here), subject (text), year (integer, optional),
             image ({bytes, path}: the `datasets` Image feature) or images (a list of them),
             id (optional: the row's number in its split otherwise),
             visual_only (optional boolean, assumed name: the question's text is only in its image, Tables 7-8)

A question whose image is missing or unreadable, with several images, or with no single right letter among its
options, is left out and counted as a quirk (the paper kept single-letter, single-image questions only). Images
are written by content hash beside the warehouse (images/zno/), recorded in core.images.

Baselines (§4): always the first option ("we select the first choice", about 0.22), and random (the
mean of 1 / options), both computed from the items in marts.zno_baselines.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import polars as pl

from pipeline.core.errors import DataError
from pipeline.datasets import DATASETS
from pipeline.datasets.base import Dataset, ItemInput, ItemsRequest, RemoteFile, TaskItems
from pipeline.datasets.common import (
    DatasetInfo,
    IngestResult,
    Quirk,
    already_loaded,
    record_dataset,
    record_quirks,
    record_source,
    sha256_files,
)
from pipeline.tasks import get_task
from warehouse.io import insert, scalar, transaction

DATASET = DatasetInfo(
    dataset="zno",
    title="ZNO-Vision: image questions of the Ukrainian external exam (ZNO), 13 subjects",
    home="ZNO-Vision (Hugging Face parquet export, read from a local folder)",
    license="as the dataset's",
)
TASK_ID = "zno.exam"
SPLITS = ("dev", "validation", "test")
KIND = "zno"
# `data fetch zno`: the hub repository and revision assumed for the release (not verifiable offline;
# --dest DIR/zno then `ingest zno --source DIR/zno`). Files are not pinned byte for byte (no SHA-256).
HUB_REPO = "lang-uk/zno-vision"
HUB_REVISION = "main"


@dataclass(frozen=True)
class ExamItem:
    """One exam question as read from the files."""

    split: str
    source_ref: str
    question: str
    markers: tuple[str, ...]
    options: tuple[str, ...]
    answer: int  # 1-based option
    subject: str
    year: int | None
    images: tuple[bytes, ...]
    visual_only: bool | None = None  # Tables 7-8: the question's text is only in its image (None: not flagged)

    @property
    def item_id(self) -> str:
        return f"{TASK_ID}:{self.source_ref}"


@dataclass
class ReadResult:
    items: list[ExamItem] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def remote_files() -> list[RemoteFile]:
    """What `data fetch zno` downloads (one parquet file per split, the `datasets` export's names)."""
    base = f"https://huggingface.co/datasets/{HUB_REPO}/resolve/{HUB_REVISION}/data"
    return [
        RemoteFile(f"{base}/{split}-00000-of-00001.parquet", f"data/{split}-00000-of-00001.parquet") for split in SPLITS
    ]


def split_files(source: Path) -> dict[str, list[Path]]:
    """The parquet files of each split found under `source` (data/<split>-*.parquet or <split>.parquet)."""
    if not source.is_dir():
        raise DataError(source, "not a folder: pass the ZNO-Vision folder (data/<split>-*.parquet)")
    found: dict[str, list[Path]] = {}
    for split in SPLITS:
        paths = sorted({*source.glob(f"data/{split}-*.parquet"), *source.glob(f"{split}.parquet")})
        if paths:
            found[split] = paths
    if not found:
        raise DataError(
            source, f"no ZNO-Vision files: expected data/<split>-*.parquet or <split>.parquet, split one of {SPLITS}"
        )
    return found


def _image_bytes(value: object, source: Path) -> bytes | None:
    """The bytes of one `datasets` Image value ({bytes, path}): the embedded bytes, else the file at path."""
    if isinstance(value, dict):
        if isinstance(value.get("bytes"), bytes | bytearray | memoryview) and value["bytes"]:
            return bytes(value["bytes"])
        value = value.get("path")
    if isinstance(value, str) and value:
        path = source / value
        return path.read_bytes() if path.is_file() else None
    return None


def _readable(data: bytes) -> bool:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()
    except (OSError, UnidentifiedImageError):
        return False
    return True


def read(source: Path) -> ReadResult:
    """Every question of every split, checked; what cannot be asked as published is a counted quirk."""
    result = ReadResult()
    seen: dict[str, str] = {}
    for split, paths in split_files(source).items():
        offset = 0  # rows without an id are numbered across the split's files, not per file
        for path in paths:
            result.files.append(path)
            try:
                frame = pl.read_parquet(path)
            except Exception as exc:  # polars raises several error types for a damaged file
                raise DataError(path, f"cannot read as parquet: {exc}") from exc
            missing = [c for c in ("question", "answers", "correct_answers", "subject") if c not in frame.columns]
            if "image" not in frame.columns and "images" not in frame.columns:
                missing.append("image")
            if missing:
                raise DataError(path, f"missing columns {missing}; a ZNO-Vision file has question, answers, "
                                      "correct_answers, subject, year and image")  # fmt: skip
            for row_number, row in enumerate(frame.iter_rows(named=True)):
                item = _item(row, split, row_number, path, source, result.quirks, offset + row_number)
                if item is None:
                    continue
                if item.source_ref in seen:
                    result.quirks.append(Quirk(KIND, path.name, row_number, "duplicate_id",
                                               f"id {item.source_ref} already read in {seen[item.source_ref]}",
                                               "rejected"))  # fmt: skip
                    continue
                seen[item.source_ref] = path.name
                result.items.append(item)
            offset += frame.height
    return result


def _item(
    row: dict, split: str, number: int, path: Path, source: Path, quirks: list[Quirk], in_split: int
) -> ExamItem | None:
    """One row as an exam question (`number`: its row in the file; `in_split`: in its split, the id of a row
    without one), or None with the reason recorded."""

    def reject(kind: str, message: str) -> None:
        quirks.append(Quirk(KIND, path.name, number, kind, message, "rejected"))

    ref = str(row["id"]).strip() if row.get("id") is not None else f"{split}-{in_split}"
    answers = row.get("answers")
    if not isinstance(answers, list) or not all(isinstance(a, dict) for a in answers):
        reject("bad_options", f"question {ref}: answers must be a list of {{marker, text}}, got {answers!r:.80}")
        return None
    markers = tuple(str(a.get("marker") or "").strip() for a in answers)
    options = tuple(str(a.get("text") or "").strip() for a in answers)
    listed = row.get("correct_answers")
    correct = [str(c).strip() for c in listed] if isinstance(listed, list) else [str(listed or "").strip()]
    if not markers or any(not m for m in markers) or len(set(markers)) != len(markers):
        reject("bad_options", f"question {ref}: options need distinct letters, got {list(markers)}")
        return None
    if len(correct) != 1 or correct[0] not in markers:
        reject("not_one_letter", f"question {ref}: the answer must be one of its letters, got {correct}")
        return None
    raw = row.get("images") if row.get("images") is not None else [row.get("image")]
    raw = raw if isinstance(raw, list) else [raw]
    images = [_image_bytes(value, source) for value in raw if value is not None]
    if not images or any(data is None or not _readable(data) for data in images):
        reject("no_image", f"question {ref}: missing or unreadable image")
        return None
    if len(images) > 1:  # §3 / Appendix B: the exam keeps single-image questions only, as the paper did
        reject("several_images", f"question {ref}: {len(images)} images (the paper kept single-image questions)")
        return None
    year = row.get("year")
    try:
        year = int(year) if year not in (None, "") else None
    except (TypeError, ValueError):
        year = None
    subject = str(row.get("subject") or "").strip() or "Other"
    flag = row.get("visual_only")
    return ExamItem(split, ref, str(row.get("question") or "").strip(), markers, options,
                    markers.index(correct[0]) + 1, subject, year, tuple(images),
                    bool(flag) if isinstance(flag, bool | int) else None)  # fmt: skip


def prompt(item_question: str, markers: tuple[str, ...], options: tuple[str, ...], prefix: str) -> str:
    """The paper's prefix prepended to the question (§3), then the options one per line ("А. text"; an
    option whose text is only in the image is its letter alone)."""
    lines = [prefix, item_question, *(f"{m}. {t}".rstrip() if t else m for m, t in zip(markers, options, strict=True))]
    return "\n".join(line for line in lines if line)


def image_folder(con: duckdb.DuckDBPyConnection) -> Path:
    """Exam images live beside the warehouse, by content hash (like generated images)."""
    database = scalar(con, "SELECT path FROM duckdb_databases() WHERE database_name = current_database()")
    return Path(database).parent / "images" / "zno"


def _store(folder: Path, data: bytes) -> tuple[str, Path]:
    from PIL import Image

    digest = hashlib.sha256(data).hexdigest()
    with Image.open(io.BytesIO(data)) as image:
        suffix = "." + (image.format or "png").lower().replace("jpeg", "jpg")
    path = folder / f"{digest[:32]}{suffix}"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    return digest, path


def ingest(con: duckdb.DuckDBPyConnection, source: Path | None, run_id: str, force: bool = False) -> IngestResult:
    """The exam questions: items (split in `subset`), options, right letters, prompts, images, subjects."""
    if source is None:
        raise ValueError("ZNO-Vision is read from its folder: python -m pipeline ingest zno --source DIR")
    found = read(source)
    sha = sha256_files(found.files)
    if not force and already_loaded(con, sha, KIND, scope="exam"):
        return IngestResult("zno", skipped=True)
    if not found.items:
        raise DataError(source, "no question could be read (every row was rejected: see the reasons above)")
    task = get_task(TASK_ID)
    prefix = task.templates("uk")["paper"]
    folder = image_folder(con)
    images, item_images, rows = {}, [], {"items": [], "options": [], "gold": [], "prompts": [], "exam": []}
    for item in found.items:
        for position, data in enumerate(item.images[:10]):
            digest, path = _store(folder, data)
            images[digest[:32]] = {"image_id": digest[:32], "kind": "real", "dish_key": None, "position": position,
                                   "url": None, "local_path": str(path), "sha256": digest}  # fmt: skip
            item_images.append({"item_id": item.item_id, "position": position, "image_id": digest[:32]})
        rows["items"].append({"item_id": item.item_id, "task_id": TASK_ID, "dish_key": None,
                              "source_ref": item.source_ref, "subset": item.split, "variant": "paper"})  # fmt: skip
        rows["options"] += [
            {"item_id": item.item_id, "lang": "uk", "option": n, "text": text or marker}
            for n, (marker, text) in enumerate(zip(item.markers, item.options, strict=True), start=1)
        ]
        rows["gold"].append({"item_id": item.item_id, "lang": "uk", "choice": item.answer})
        rows["prompts"].append({"item_id": item.item_id, "lang": "uk", "variant": "paper",
                                "text": prompt(item.question, item.markers, item.options, prefix)})  # fmt: skip
        rows["exam"].append({"item_id": item.item_id, "dataset": "zno", "split": item.split, "subject": item.subject,
                             "year": item.year, "question": item.question, "n_options": len(item.markers),
                             "letters": "".join(item.markers), "n_images": min(len(item.images), 10),
                             "visual_only": item.visual_only})  # fmt: skip
    with transaction(con):
        record_dataset(con, DATASET)
        con.execute("DELETE FROM core.tasks WHERE task_id = ?", [TASK_ID])
        insert(con, "core.tasks", [task.row()])
        old = "(SELECT item_id FROM core.items WHERE task_id = ?)"
        for table in ("core.item_images", "core.item_options", "core.item_gold_choices", "core.item_prompts",
                      "core.exam_items"):  # fmt: skip
            con.execute(f"DELETE FROM {table} WHERE item_id IN {old}", [TASK_ID])
        con.execute("DELETE FROM core.ingested_items WHERE task_id = ?", [TASK_ID])
        con.execute("DELETE FROM core.ingested_images WHERE image_id IN (SELECT unnest(?))", [list(images)])
        insert(con, "core.ingested_images", pl.DataFrame(list(images.values()), schema=_IMAGE_SCHEMA))
        insert(con, "core.ingested_items", rows["items"])
        insert(con, "core.item_images", item_images)
        insert(con, "core.item_options", rows["options"])
        insert(con, "core.item_gold_choices", rows["gold"])
        insert(con, "core.item_prompts", rows["prompts"])
        insert(con, "core.exam_items", pl.DataFrame(rows["exam"], schema=_EXAM_SCHEMA))
        record_quirks(con, found.quirks, run_id, replace_files=[p.name for p in found.files])
        record_source(con, sha256=sha, kind=KIND, scope="exam", path=source, rows_loaded=len(found.items),
                      rows_rejected=sum(q.severity == "rejected" for q in found.quirks), run_id=run_id)  # fmt: skip
    by_split = {split: sum(i.split == split for i in found.items) for split in SPLITS}
    return IngestResult(
        "zno", counts={f"{split} questions": n for split, n in by_split.items() if n}, quirks=found.quirks
    )


def items(con: duckdb.DuckDBPyConnection, request: ItemsRequest) -> TaskItems:
    """The ingested questions with their images and the paper's prompt (`--subset` picks a split)."""
    split = None if request.subset == "full" else request.subset
    rows = con.execute(
        """SELECT i.item_id, p.text, list(img.local_path ORDER BY ii.position), list(img.sha256 ORDER BY ii.position)
           FROM core.items i JOIN core.item_prompts p ON p.item_id = i.item_id AND p.lang = 'uk'
           JOIN core.item_images ii ON ii.item_id = i.item_id JOIN core.images img USING (image_id)
           WHERE i.task_id = ? AND (? IS NULL OR i.subset = ?)
           GROUP BY ALL ORDER BY i.item_id""",
        [TASK_ID, split, split],
    ).fetchall()
    if not rows:
        raise ValueError("no ZNO questions in the warehouse: run `python -m pipeline ingest zno --source DIR` first")
    rows = rows[: request.limit] if request.limit else rows
    result = TaskItems([])
    for item_id, text, paths, hashes in rows:
        if not all(Path(p).is_file() for p in paths):
            result.skipped.append((item_id, f"image file missing: {paths}"))
            continue
        result.ready.append(
            ItemInput(item_id, "", item_id, tuple(Path(p) for p in paths), tuple(hashes), {"paper": text})
        )
    return result


_IMAGE_SCHEMA = {
    "image_id": pl.String,
    "kind": pl.String,
    "dish_key": pl.String,
    "position": pl.Int32,
    "url": pl.String,
    "local_path": pl.String,
    "sha256": pl.String,
}
_EXAM_SCHEMA = {
    "item_id": pl.String,
    "dataset": pl.String,
    "split": pl.String,
    "subject": pl.String,
    "year": pl.Int32,
    "question": pl.String,
    "n_options": pl.Int32,
    "letters": pl.String,
    "n_images": pl.Int32,
    "visual_only": pl.Boolean,
}

DATASETS.add("zno", Dataset(DATASET, lambda: [], ingest, items, named_files=remote_files))
