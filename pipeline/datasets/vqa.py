"""VQA 2.0 in two languages, as ZNO-Vision evaluates it (§3, Table 3): 1,000 question-answer pairs of VQA
2.0 (Antol et al. 2015) in English and translated to Ukrainian, keeping the question ids, images and ten
annotator answers.

The layout read from a local folder (VQA 2.0's own JSON files, one folder per question language; the
translation is assumed to keep the same files and fields, as the paper says it preserves the original
associations and metadata):

    DIR/<lang>/*questions*.json     {"questions": [{"question_id", "image_id", "question"}, ...]}
    DIR/<lang>/*annotations*.json   {"annotations": [{"question_id", "image_id", "answers": [{"answer",
                                      "answer_id", "answer_confidence"} x 10], "answer_type", ...}, ...]}
    DIR/images/COCO_val2014_<image_id as 12 digits>.jpg    the photos (optional; generate --images)

Folders holding more than the paper's 1,000 questions (VQA 2.0's own files, before a translation) are cut to
1,000 by `sample_questions`: a seeded uniform draw (seed 0) over the question ids in numeric order. The paper
"selected 1,000 question-answer pairs" (§3) without saying how; the draw is ours, documented and repeatable.

lang is `uk` or `en` (any two-letter code loads). One item per question id; per language its question
(core.item_prompts, with our one-word instruction: the paper's is unpublished, §5) and its ten answers as a
JSON list (core.item_gold_text, what `vqa_accuracy` reads). A question without ten answers, or whose id
is in only one of the two files, is left out and counted as a quirk.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import duckdb
import polars as pl

from pipeline.core.errors import DataError
from pipeline.datasets import DATASETS
from pipeline.datasets.base import Dataset, ItemInput, ItemsRequest, TaskItems
from pipeline.datasets.base import _attach as attach_images
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
from warehouse.io import insert, transaction

DATASET = DatasetInfo(
    dataset="vqa",
    title="VQA 2.0 (1,000 questions) in English and Ukrainian, as ZNO-Vision translated it",
    home="VQA 2.0 JSON files per language, read from a local folder",
    license="as the dataset's (VQA: CC BY 4.0; COCO images: their own)",
)
TASK_ID = "vqa.answer"
KIND = "vqa"
ANNOTATORS = 10
INSTRUCTION = {"uk": "Дай відповідь одним словом.", "en": "Answer with one word."}  # ours (§5: unpublished)
SAMPLE_SIZE = 1000  # §3: "a subset of 1000 questions"
SAMPLE_SEED = 0


def sample_questions(found: dict[str, dict], size: int = SAMPLE_SIZE, seed: int = SAMPLE_SEED) -> dict[str, dict]:
    """`size` questions drawn uniformly with `seed` from the ids in numeric order (all of them when there are no
    more): the same folder always gives the same sample, whatever order its files list the questions in."""
    if len(found) <= size:
        return found
    ordered = sorted(found, key=lambda qid: (not qid.isdigit(), int(qid) if qid.isdigit() else 0, qid))
    chosen = set(random.Random(seed).sample(ordered, size))
    return {qid: found[qid] for qid in ordered if qid in chosen}


def _load(path: Path, key: str) -> list[dict]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(path, f"cannot read as JSON: {exc}") from exc
    rows = document.get(key) if isinstance(document, dict) else None
    if not isinstance(rows, list):
        raise DataError(path, f'expected a JSON object with a "{key}" list (the VQA 2.0 layout)')
    return rows


def _one(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    if len(found) != 1:
        raise DataError(folder, f"expected one {pattern} file, found {len(found)}")
    return found[0]


Question = tuple[str, list[str], int, str | None]  # question, ten answers, image_id, answer_type


def read(source: Path) -> tuple[dict[str, dict[str, Question]], list[Path], list[Quirk]]:
    """question_id -> lang -> (question, ten answers, image_id, answer_type); the files read; the questions
    left out."""
    if not source.is_dir():
        raise DataError(source, "not a folder: pass the VQA folder (<lang>/*questions*.json, *annotations*.json)")
    langs = sorted(p for p in source.iterdir() if p.is_dir() and len(p.name) == 2 and p.name.isalpha())
    if not langs:
        raise DataError(source, "no language folders: expected uk/ and en/ with *questions*.json, *annotations*.json")
    found: dict[str, dict[str, Question]] = {}
    files, quirks = [], []
    for folder in langs:
        questions_path, annotations_path = _one(folder, "*questions*.json"), _one(folder, "*annotations*.json")
        files += [questions_path, annotations_path]
        answers = {}
        for n, row in enumerate(_load(annotations_path, "annotations")):
            row = row if isinstance(row, dict) else {}  # a row that is no object has no answers: counted below
            listed = row.get("answers")
            given = (
                [str(a.get("answer", "")) for a in listed if isinstance(a, dict)] if isinstance(listed, list) else []
            )
            if len(given) != ANNOTATORS:
                why = f"question {row.get('question_id')}: {len(given)} answers"
                quirks.append(Quirk(KIND, annotations_path.name, n, "not_ten_answers", why, "rejected"))
                continue
            answers[str(row.get("question_id"))] = (given, row.get("answer_type"))
        for n, row in enumerate(_load(questions_path, "questions")):
            row = row if isinstance(row, dict) else {}
            qid, text = str(row.get("question_id")), str(row.get("question") or "").strip()
            if qid not in answers or not text:
                quirks.append(Quirk(KIND, questions_path.name, n, "no_answers",
                                    f"question {qid}: no annotations or no text", "rejected"))  # fmt: skip
                continue
            given, answer_type = answers[qid]
            image_id = row.get("image_id") or 0
            if isinstance(image_id, bool) or not isinstance(image_id, int | str) or not str(image_id).isdigit():
                why = f"question {qid}: image_id {image_id!r} is not a whole number"
                quirks.append(Quirk(KIND, questions_path.name, n, "bad_image_id", why, "rejected"))
                continue
            found.setdefault(qid, {})[folder.name] = (text, given, int(image_id), answer_type)
    if not found:
        raise DataError(source, "no question with ten annotator answers")
    return found, files, quirks


def ingest(con: duckdb.DuckDBPyConnection, source: Path | None, run_id: str, force: bool = False) -> IngestResult:
    """One item per question id; its question and ten answers per language."""
    if source is None:
        raise ValueError("VQA is read from its folder: python -m pipeline ingest vqa --source DIR")
    found, files, quirks = read(source)
    n_found = len(found)
    found = sample_questions(found)
    sha = sha256_files(files)
    if not force and already_loaded(con, sha, KIND, scope="questions"):
        return IngestResult("vqa", skipped=True)
    task = get_task(TASK_ID)
    items, prompts, gold, questions = [], [], [], []
    for qid, by_lang in found.items():
        item_id = f"{TASK_ID}:{qid}"
        items.append({"item_id": item_id, "task_id": TASK_ID, "dish_key": None, "source_ref": qid,
                      "subset": "full", "variant": None})  # fmt: skip
        for lang, (question, answers, image_id, answer_type) in by_lang.items():
            questions.append({"item_id": item_id, "lang": lang, "question_id": qid, "image_id": image_id,
                              "answer_type": answer_type, "question": question})  # fmt: skip
            instruction = INSTRUCTION.get(lang, INSTRUCTION["en"])
            prompts.append({"item_id": item_id, "lang": lang, "variant": "1", "text": f"{question} {instruction}"})
            gold.append({"item_id": item_id, "lang": lang, "text": json.dumps(answers, ensure_ascii=False)})
    with transaction(con):
        record_dataset(con, DATASET)
        con.execute("DELETE FROM core.tasks WHERE task_id = ?", [TASK_ID])
        insert(con, "core.tasks", [task.row()])
        old = "(SELECT item_id FROM core.items WHERE task_id = ?)"
        for table in ("core.item_gold_text", "core.item_prompts", "core.item_images", "core.vqa_questions"):
            con.execute(f"DELETE FROM {table} WHERE item_id IN {old}", [TASK_ID])
        con.execute("DELETE FROM core.ingested_items WHERE task_id = ?", [TASK_ID])
        insert(con, "core.ingested_items", items)
        insert(con, "core.item_prompts", prompts)
        insert(con, "core.item_gold_text", gold)
        insert(con, "core.vqa_questions", pl.DataFrame(questions, schema=_QUESTION_SCHEMA))
        record_quirks(con, quirks, run_id, replace_files=[p.name for p in files])
        record_source(con, sha256=sha, kind=KIND, scope="questions", path=source, rows_loaded=len(items),
                      rows_rejected=len(quirks), run_id=run_id)  # fmt: skip
    langs = sorted({lang for by_lang in found.values() for lang in by_lang})
    counts = {f"{lang} questions": sum(lang in by_lang for by_lang in found.values()) for lang in langs}
    if n_found > len(found):
        counts[f"sampled (seed {SAMPLE_SEED}) of {n_found:,} questions"] = len(found)
    return IngestResult("vqa", counts=counts, quirks=quirks)


def items(con: duckdb.DuckDBPyConnection, request: ItemsRequest) -> TaskItems:
    """The questions in `lang` with their COCO photo (--images DIR: COCO_val2014_<12-digit id>.jpg)."""
    rows = con.execute(
        """SELECT i.item_id, lpad(q.image_id::VARCHAR, 12, '0'), p.text FROM core.items i
           JOIN core.item_prompts p ON p.item_id = i.item_id AND p.lang = ?
           JOIN core.vqa_questions q ON q.item_id = i.item_id AND q.lang = p.lang
           WHERE i.task_id = ? ORDER BY try_cast(i.source_ref AS BIGINT), i.source_ref""",
        [request.lang, TASK_ID],
    ).fetchall()
    if not rows:
        raise ValueError(f"no VQA questions in {request.lang!r}: run `python -m pipeline ingest vqa --source DIR`")
    rows = rows[: request.limit] if request.limit else rows
    result = TaskItems([])
    for item_id, image_id, text in rows:
        item = ItemInput(item_id, "", item_id, questions={"1": text})
        if request.task.inputs == "name":
            result.ready.append(item)
            continue
        path = (request.images_dir or Path(".")) / f"COCO_val2014_{image_id}.jpg"
        if request.images_dir is None or not path.is_file():
            result.skipped.append((item_id, f"no photo {path}: pass --images DIR (COCO val2014)"))
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        result.ready.append(attach_images(con, item, [(path, digest)]))
    return result


_QUESTION_SCHEMA = {
    "item_id": pl.String,
    "lang": pl.String,
    "question_id": pl.String,
    "image_id": pl.Int64,
    "answer_type": pl.String,
    "question": pl.String,
}

DATASETS.add("vqa", Dataset(DATASET, lambda: [], ingest, items))
