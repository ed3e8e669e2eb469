"""UACUISINE-style answer tables: one row per (dish, question, model) with the gold answer and the
model's answer — the layout the ZNO-Vision study's results come in. `import-responses --format
uacuisine FILE` reads one (CSV, TSV or Parquet) and the score stage scores it, so a user who has the
dataset scores every model in it with one command.

Columns: `dish`, `question`, `gold`, `model`, `answer`, and optionally `lang` (default uk). `question`
is a question id (Q1-Q7) or its wording in Ukrainian or English (seed_prompts/uacuisine_questions.tsv).
The table is the dataset: its dishes, items and gold answers are written here (this module is their
only writer), the answers as imported generations. Q1-Q3 ask the dish's name: their gold joins the
dish's names, against which name answers are scored; Q4-Q7 keep their gold text.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from pipeline.core import limits
from pipeline.core.errors import DataError
from pipeline.core.text import display_name
from pipeline.datasets import DATASETS
from pipeline.datasets.base import (
    Dataset,
    ItemInput,
    ItemsRequest,
    TaskItems,
    add_items,
    ensure_task,
    with_local_images,
)
from pipeline.datasets.common import (
    DatasetInfo,
    IngestResult,
    already_loaded,
    name_row,
    record_dataset,
    record_source,
    sha256_files,
)
from pipeline.tasks import get_task
from warehouse.io import insert, transaction

DATASET = DatasetInfo(
    dataset="uacuisine",
    title="UACUISINE (ZNO-Vision): Ukrainian dishes, seven questions per photo",
    home="a UACUISINE-style table imported by the user",
    license="as the table's",
)
COLUMNS = ("dish", "question", "gold", "model", "answer")
# question id -> (task, prompt variant)
QUESTIONS = {
    "Q1": ("uacuisine.identification", "1"),
    "Q2": ("uacuisine.identification", "2"),
    "Q3": ("uacuisine.identification", "3"),
    "Q4": ("uacuisine.ingredients", "1"),
    "Q5": ("uacuisine.recipe", "1"),
    "Q6": ("uacuisine.taste", "1"),
    "Q7": ("uacuisine.temperature", "1"),
}


def question_ids() -> dict[str, str]:
    """Question wording (uk and en, folded) and id -> id, from the task declarations."""
    known: dict[str, str] = {qid.casefold(): qid for qid in QUESTIONS}
    for qid, (task_id, variant) in QUESTIONS.items():
        for templates in get_task(task_id).prompts.values():
            known[" ".join(templates[variant].split()).casefold()] = qid
    return known


def _read(path: Path) -> pl.DataFrame:
    if not path.is_file():
        raise DataError(path, "file not found")
    try:
        if path.suffix.lower() == ".parquet":
            limits.check_parquet(path)  # a million columns stop here, before the schema is parsed
            frame = pl.read_parquet(path)
        else:
            separator = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
            limits.check_csv(path, separator)
            frame = pl.read_csv(path, separator=separator, infer_schema_length=0)
    except DataError:
        raise
    except Exception as exc:  # polars raises several error types for a malformed table
        raise DataError(path, f"cannot read as a table (CSV, TSV or Parquet): {exc}") from exc
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise DataError(path, f"missing columns {missing}; a UACUISINE table has {', '.join(COLUMNS)} (and lang)")
    if frame.height == 0:
        raise DataError(path, "empty table: no answer rows, nothing imported")
    return frame.with_columns(
        pl.col(c).cast(pl.String) for c in (*COLUMNS, *(["lang"] if "lang" in frame.columns else []))
    )


def dish_id(name: str) -> str:
    return hashlib.sha256(" ".join(name.split()).casefold().encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Row:
    line: int
    dish_key: str
    dish_id: str
    dish: str
    task_id: str
    variant: str
    item_id: str
    lang: str
    gold: str
    model: str
    answer: str | None


def rows(path: Path) -> list[Row]:
    """The table's rows, checked: every row names a dish, a model and one of the seven questions."""
    frame = _read(path)
    ids = question_ids()
    out = []
    for line, row in enumerate(frame.iter_rows(named=True), start=2):
        dish, question, model = (
            (row["dish"] or "").strip(),
            (row["question"] or "").strip(),
            (row["model"] or "").strip(),
        )
        lang = ((row.get("lang") or "uk").strip() or "uk").lower()
        qid = ids.get(" ".join(question.split()).casefold())
        if not dish or not model or qid is None:
            why = "no dish" if not dish else "no model" if not model else f"unknown question {question[:60]!r}"
            raise DataError(path, f"{why} (questions are Q1-Q7 or their wording)", line=line)
        task_id, variant = QUESTIONS[qid]
        key_id = dish_id(dish)
        out.append(
            Row(line, f"uacuisine:uk:{key_id}", key_id, dish, task_id, variant, f"{task_id}:{key_id}", lang,
                (row["gold"] or "").strip(), model, row["answer"])
        )  # fmt: skip
    return out


def ingest(con: duckdb.DuckDBPyConnection, path: Path, run_id: str, force: bool = False) -> IngestResult:
    """The table's dishes, items and gold answers (Q1-Q3 gold as names of the dish)."""
    table = rows(path)
    sha = sha256_files([path])
    if not force and already_loaded(con, sha, "uacuisine", scope=path.name):
        return IngestResult("uacuisine", skipped=True)
    dishes, names, items, gold_text = {}, {}, {}, {}
    for row in table:
        dish = {"dish_key": row.dish_key, "dataset": "uacuisine", "lang": "uk", "dish_id": row.dish_id,
                "name": row.dish, "display_name": display_name(row.dish), "source": None, "description": None,
                "category": None}  # fmt: skip
        dishes.setdefault(row.dish_key, dish)
        names.setdefault(
            (row.dish_key, "uk", row.dish.casefold()), name_row(row.dish_key, "uk", row.dish, is_primary=True)
        )
        items[row.item_id] = {"item_id": row.item_id, "task_id": row.task_id, "dish_key": row.dish_key,
                              "source_ref": row.dish_id, "subset": "full", "variant": None}  # fmt: skip
        if row.gold and row.task_id == "uacuisine.identification":
            names.setdefault(
                (row.dish_key, row.lang, row.gold.casefold()),
                name_row(row.dish_key, row.lang, row.gold, is_primary=False),
            )
        elif row.gold:
            gold_text[(row.item_id, row.lang)] = {"item_id": row.item_id, "lang": row.lang, "text": row.gold}
    task_ids = sorted({task for task, _ in QUESTIONS.values()})
    with transaction(con):
        record_dataset(con, DATASET)
        for task_id in task_ids:
            con.execute("DELETE FROM core.tasks WHERE task_id = ?", [task_id])
            insert(con, "core.tasks", [get_task(task_id).row()])
        keys, item_ids = list(dishes), list(items)
        con.execute("DELETE FROM core.dish_names WHERE dish_key IN (SELECT unnest(?))", [keys])
        con.execute("DELETE FROM core.dishes WHERE dish_key IN (SELECT unnest(?))", [keys])
        con.execute("DELETE FROM core.item_gold_text WHERE item_id IN (SELECT unnest(?))", [item_ids])
        con.execute("DELETE FROM core.ingested_items WHERE item_id IN (SELECT unnest(?))", [item_ids])
        insert(con, "core.dishes", list(dishes.values()))
        insert(con, "core.dish_names", list(names.values()))
        insert(con, "core.ingested_items", list(items.values()))
        insert(con, "core.item_gold_text", list(gold_text.values()))
        record_source(
            con, sha256=sha, kind="uacuisine", scope=path.name, path=path, rows_loaded=len(items), run_id=run_id
        )
    return IngestResult(
        "uacuisine", counts={"dishes": len(dishes), "items": len(items), "gold answers": len(gold_text)}
    )


def items(con: duckdb.DuckDBPyConnection, request: ItemsRequest) -> TaskItems:
    """The seven questions can be asked of any dish in the warehouse with a name in the prompt's
    language (photos from --images DIR/<dish_id>/); items are created on demand."""
    rows_ = con.execute(
        """SELECT d.dish_key, d.dish_id, n.display_name FROM core.dishes d
           JOIN core.dish_names n ON n.dish_key = d.dish_key AND n.lang = ? AND n.is_primary
           ORDER BY d.dataset, d.dish_key""",
        [request.lang],
    ).fetchall()
    if not rows_:
        raise ValueError(f"no dish named in {request.lang!r} in the warehouse: ingest a dataset first")
    rows_ = rows_[: request.limit] if request.limit else rows_
    task = request.task
    found = [ItemInput(f"{task.task_id}:{key}", key, name) for key, _dish_id, name in rows_]
    with transaction(con):
        ensure_task(con, task)
        add_items(con, task, [(item.item_id, item.dish_key, item.dish_key, "full") for item in found])
    return with_local_images(con, request, found, lambda item: request.images_dir / item.dish_key.rsplit(":", 1)[1])


def _ingest(con: duckdb.DuckDBPyConnection, source: Path | None, run_id: str, force: bool = False) -> IngestResult:
    if source is None or not source.is_file():
        raise ValueError("UACUISINE is read from a table: import-responses --format uacuisine TABLE")
    return ingest(con, source, run_id, force=force)


DATASETS.add("uacuisine", Dataset(DATASET, lambda: [], _ingest, items))
