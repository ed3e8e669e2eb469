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
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.errors import DataError
from pipeline.ingest.common import (
    DatasetInfo,
    Quirk,
    already_loaded,
    ensure_reference_data,
    insert,
    name_row,
    record_quirks,
    record_source,
    sha256_files,
    transaction,
)
from pipeline.tasks import get_task
from pipeline.text import display_name
from warehouse.db import scalar

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
IMPORT_KIND = "uacuisine_table"


@dataclass
class TableImport:
    path: Path
    skipped: bool = False
    answers: int = 0
    models: list[str] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)


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
            frame = pl.read_parquet(path)
        else:
            separator = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
            frame = pl.read_csv(path, separator=separator, infer_schema_length=0)
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


def import_table(con: duckdb.DuckDBPyConnection, path: Path, run_id: str) -> TableImport:
    frame = _read(path)
    sha = sha256_files([path])
    if already_loaded(con, sha, IMPORT_KIND):
        return TableImport(path, skipped=True)
    ids = question_ids()
    result = TableImport(path)
    dishes, names, items, gold_text, generations = {}, {}, {}, {}, {}
    now = datetime.now(UTC).replace(tzinfo=None)
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
        key = f"uacuisine:uk:{key_id}"
        dishes.setdefault(key, {"dish_key": key, "dataset": "uacuisine", "lang": "uk", "dish_id": key_id,
                                "name": dish, "display_name": display_name(dish), "source": None,
                                "description": None, "category": None})  # fmt: skip
        names.setdefault((key, "uk", dish.casefold()), name_row(key, "uk", dish, is_primary=True))
        item_id = f"{task_id}:{key_id}"
        items[item_id] = {"item_id": item_id, "task_id": task_id, "dish_key": key, "source_ref": key_id,
                          "subset": "full", "variant": None}  # fmt: skip
        gold = (row["gold"] or "").strip()
        if gold:
            if task_id == "uacuisine.identification":
                names.setdefault((key, lang, gold.casefold()), name_row(key, lang, gold, is_primary=False))
            else:
                gold_text[(item_id, lang)] = {"item_id": item_id, "lang": lang, "text": gold}
        generation = hashlib.sha256(json.dumps(["uacuisine", model, item_id, lang, variant]).encode()).hexdigest()[:32]
        generations[generation] = {
            "generation_id": generation, "run_id": run_id, "model_id": model, "item_id": item_id, "lang": lang,
            "variant": variant, "response": row["answer"], "origin": "import", "created_at": now,
        }  # fmt: skip
    result.models = sorted({g["model_id"] for g in generations.values()})
    result.answers = len(generations)
    task_ids = sorted({task for task, _ in QUESTIONS.values()})
    with transaction(con):
        ensure_reference_data(con, DATASET)
        for task_id in task_ids:
            con.execute("DELETE FROM core.tasks WHERE task_id = ?", [task_id])
            insert(con, "core.tasks", [get_task(task_id).row()])
        keys = list(dishes)
        con.execute("DELETE FROM core.dish_names WHERE dish_key IN (SELECT unnest(?))", [keys])
        con.execute("DELETE FROM core.dishes WHERE dish_key IN (SELECT unnest(?))", [keys])
        con.execute("DELETE FROM core.item_gold_text WHERE item_id IN (SELECT unnest(?))", [list(items)])
        con.execute("DELETE FROM core.items WHERE item_id IN (SELECT unnest(?))", [list(items)])
        con.execute("DELETE FROM core.generations WHERE generation_id IN (SELECT unnest(?))", [list(generations)])
        insert(con, "core.dishes", list(dishes.values()))
        insert(con, "core.dish_names", list(names.values()))
        insert(con, "core.items", list(items.values()))
        insert(con, "core.item_gold_text", list(gold_text.values()))
        for model in result.models:
            if not scalar(con, "SELECT count(*) FROM core.models WHERE model_id = ?", [model]):
                insert(con, "core.models", [{"model_id": model, "display_name": model, "backend": "replay",
                                             "path": None, "is_vision": True}])  # fmt: skip
        insert(
            con, "core.generations", pl.DataFrame(list(generations.values()), schema_overrides={"response": pl.String})
        )
        record_quirks(con, result.quirks, run_id, replace_files=[path.name])
        record_source(con, sha256=sha, kind=IMPORT_KIND, scope=path.name, path=path, rows_loaded=len(generations),
                      run_id=run_id)  # fmt: skip
    return result
