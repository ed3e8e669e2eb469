"""WorldCuisines: the dish knowledge base, multilingual dish names, the 500 task-2 VQA items and
the small task-1 set (what is this dish called?; see "task 1" below).

food_id in the eval file is the 0-based data row of kb/final_data.csv (the file has no id
column). Gold countries are English names; "England", "Scotland" and "Wales" become GB because
ISO 3166-1 gives the United Kingdom one code (its nations are ISO 3166-2 subdivisions) and are also
kept as nation gold (core.dish_origin_nations, core.item_gold_nations: GB-ENG, GB-SCT, GB-WLS), and
"Global" (a dish eaten everywhere) is reported, not turned into a country.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import polars as pl

from pipeline.core.errors import DataError
from pipeline.core.safepaths import safe_id
from pipeline.core.text import display_name
from pipeline.datasets import DATASETS
from pipeline.datasets.base import Dataset, ItemInput, ItemsRequest, RemoteFile, TaskItems, with_local_images
from pipeline.datasets.common import (
    DatasetInfo,
    IngestResult,
    Quirk,
    already_loaded,
    clean,
    delete_dataset_dishes,
    dish_key,
    name_row,
    read_csv,
    record_dataset,
    record_quirks,
    record_source,
    sha256_files,
    to_json,
)
from pipeline.extract.english import UnknownCountry, resolve_english
from pipeline.reference.countries import resolve_uk_nation
from pipeline.tasks import get_task
from warehouse.io import insert, transaction

REPO = "worldcuisines/worldcuisines"
COMMIT = "d4d1c4446f468877c06bbf4e516bbe44993246d0"
RAW = f"https://raw.githubusercontent.com/{REPO}/{COMMIT}"
DATASET = DatasetInfo(
    dataset="worldcuisines",
    title="WorldCuisines: multilingual, multicultural visual question answering about food",
    home=f"github.com/{REPO}@{COMMIT}",
    license="Apache-2.0",
)
# The twelve models whose task-2 open-ended answers the repository publishes (imported by `demo`).
MODELS = {
    "Phi-3.5-vision-instruct": "24bc25f74e852c673b94f75a8dc1610b494be43c23808fb02919359d84f06703",
    "aria-25B-moe-4B": "84e8e3904876dc0cbc9d04c6ea5ce1acb0ce80e73b68bc1a54cb467d04841e33",
    "gpt-4o-2024-08-06": "0c1df4748dd8b96ce55fafa0c611eb12851f3ee8c6906a9309ac15319167d7d6",
    "gpt-4o-mini-2024-07-18": "cc974716563eb33782a1963238570cbe0ab00eb9321302a54c17c726fff168fd",
    "llama-3.2-11b": "a3c64de54873d9526bc63f291e70479f08108198042bc9a8fde3ee3f64dfdf43",
    "llava-1.6-13b": "62efb8d7fcd93c719ba6be0770fb9592ac5c4396d014baeec8dbe7c3d4c0a935",
    "llava-1.6-7b": "bb1b43f377abdb472d939b47854a69d981ad9b0dba465e0afac7c8d8e53d3377",
    "molmo-7b-d": "798b6289cd21eaa3b020f4bad0d1536b183eae92233acf04e94cdad5d675c67f",
    "molmo-7b-o": "c6f930759679909137dc4b0ce0e679fa7167f57d23f7d11283934f77735f9429",
    "molmoe-1b": "758dbcee74b79f2908c5879e33c7813c6c22d18579d1812645a5b3382e612405",
    "qwen-vl-2b": "dcb8e60971eaeba005cc992bc390ed9309b6f92be445211b54d8522bd957d86d",
    "qwen2-vl-7b-instruct": "aa5bb0bb76a7a97315bbe26b799864d9289473444f330accba64244508f6a693",
}
# The public files at the pinned commit, with the SHA-256 `data fetch` checks them against.
PUBLIC_FILES = (
    RemoteFile(
        f"{RAW}/kb/final_data.csv",
        "worldcuisines/kb/final_data.csv",
        "04114b78d7968e412d0c5f330974d2a354832e62a46d27d5ce99c60a9cd9b899",
    ),
    RemoteFile(
        f"{RAW}/kb/food_name_multiling.csv",
        "worldcuisines/kb/food_name_multiling.csv",
        "93dadca6a11917eeaf20ddb54f6200c41faf319b3606a6c382bd612ea1602110",
    ),
    RemoteFile(
        f"{RAW}/eval/large_eval_task2.csv",
        "worldcuisines/eval/large_eval_task2.csv",
        "827a4a2d5916aa6ca07114cdaccbe238a482e35a524dc90d3b6a4b3c226f9575",
    ),
    RemoteFile(
        f"{RAW}/LICENSE", "worldcuisines/LICENSE", "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"
    ),
    *(
        RemoteFile(
            f"{RAW}/evaluation/result/task2_oe_{model}_pred.jsonl",
            f"worldcuisines/predictions/task2_oe_{model}.jsonl",
            sha256,
        )
        for model, sha256 in MODELS.items()
    ),
)
TASK_ID = "worldcuisines.origin_vqa"
# Multiple-choice tasks by prediction-file name (task2_mc_MODEL.jsonl, task1_mc_MODEL.jsonl), and the
# per-language item files (eval/…/LANG_*.jsonl) that hold their numbered options and right answers.
CHOICE_TASKS = {("task2", "mc"): "worldcuisines.origin_mc", ("task1", "mc"): "worldcuisines.dish_name_mc"}
CHOICE_ITEM_FILES = {
    "worldcuisines.origin_mc": "eval/large_eval_task2/*_large_eval_task2.jsonl",
    "worldcuisines.dish_name_mc": "eval/small_eval_task1/*_small_eval_task1.jsonl",
}
FILES = {
    "kb": Path("kb/final_data.csv"),
    "names": Path("kb/food_name_multiling.csv"),
    "task2": Path("eval/large_eval_task2.csv"),
}
# The ingester's version, kept with the files' hash: a warehouse loaded by an older one is read
# again (2: UK nations kept as their own gold).
INGESTER = "worldcuisines@2"
KB_COLUMNS = ["Name", "Alias", "Coarse-grained categories", "Countries", "Text Description"]
NAMES_COLUMNS = ["Name", "json_aliases"]
TASK2_COLUMNS = ["qa_id", "food_id", "prompt_id", "prompt_type", "answer", "image_url", "Countries", "correct_index"]


@dataclass
class WorldCuisinesData:
    raw_kb: list[dict] = field(default_factory=list)
    raw_names: list[dict] = field(default_factory=list)
    raw_task2: list[dict] = field(default_factory=list)
    dishes: list[dict] = field(default_factory=list)
    names: list[dict] = field(default_factory=list)
    origins: list[dict] = field(default_factory=list)
    origin_nations: list[dict] = field(default_factory=list)
    regions: list[dict] = field(default_factory=list)
    images: dict[str, dict] = field(default_factory=dict)
    items: list[dict] = field(default_factory=list)
    item_images: list[dict] = field(default_factory=list)
    gold: list[dict] = field(default_factory=list)
    gold_nations: list[dict] = field(default_factory=list)
    gold_text: list[dict] = field(default_factory=list)
    prompts: list[dict] = field(default_factory=list)
    options: list[dict] = field(default_factory=list)
    gold_choices: list[dict] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)
    task1: Task1Data | None = None


def locate_files(source: Path) -> dict[str, Path]:
    for root in (source, source / "worldcuisines"):
        paths = {part: root / rel for part, rel in FILES.items()}
        if all(p.is_file() for p in paths.values()):
            return paths
    missing = [str(source / rel) for rel in FILES.values() if not (source / rel).is_file()]
    raise DataError(source, f"WorldCuisines files not found: {', '.join(missing)}")


def lang_code(column_suffix: str) -> str:
    """'zh-CN' -> 'zh_cn', the spelling the prediction files use."""
    return column_suffix.strip().lower().replace("-", "_")


def image_id_for_url(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:32]


def parse_kb(path: Path, data: WorldCuisinesData) -> dict[int, str]:
    """Dishes of the knowledge base; returns dish_key by food_id."""
    rows = read_csv(path, KB_COLUMNS)
    by_food_id: dict[int, str] = {}
    for food_id, record in enumerate(rows):
        line = food_id + 2
        name = clean(record["Name"])
        if not name:
            raise DataError(path, f"empty dish Name (food_id {food_id})", line=line)
        urls = [clean(record.get(f"Image{i} name / URL")) for i in range(1, 9)]
        licenses = [clean(record.get(f"Image{i} License")) for i in range(1, 9)]
        regions = [clean(record.get(f"Region{i}")) for i in range(1, 6)]
        data.raw_kb.append(
            {
                "row_number": food_id,
                "name": record["Name"],
                "alias": record.get("Alias"),
                "coarse_categories": record.get("Coarse-grained categories"),
                "fine_categories": record.get("Fine-grained categories"),
                "cuisines": record.get("Cuisines"),
                "associated_cuisines": record.get("Associated Cuisines"),
                "area": record.get("Area"),
                "countries": record["Countries"],
                "regions": [r for r in regions if r],
                "description": record["Text Description"],
                "image_urls": [u for u in urls if u],
                "image_licenses": [lic for lic, u in zip(licenses, urls, strict=True) if u],
            }
        )
        key = dish_key("worldcuisines", "en", str(food_id))
        by_food_id[food_id] = key
        categories = _json_list(record.get("Coarse-grained categories"), path, line, "Coarse-grained categories")
        data.dishes.append(
            {
                "dish_key": key,
                "dataset": "worldcuisines",
                "lang": "en",
                "dish_id": str(food_id),
                "name": name,
                "display_name": display_name(name),
                "source": None,
                "description": clean(record["Text Description"]) or None,
                "category": ", ".join(categories) or None,
            }
        )
        data.names.append(name_row(key, "en", name, is_primary=True))
        countries = _json_list(record["Countries"], path, line, "Countries")
        codes = _countries(countries, path, line, data, food_id)
        nations = dict.fromkeys(n for n in (resolve_uk_nation(str(c)) for c in countries) if n)
        data.origin_nations.extend({"dish_key": key, "nation": n} for n in nations)
        if not codes:
            data.quirks.append(
                Quirk(
                    "worldcuisines",
                    path.name,
                    line,
                    "no_origin_country",
                    f"{name!r} (food_id {food_id}) names no country ({record['Countries']})",
                    "warning",
                )
            )
        data.origins.extend({"dish_key": key, "country": c, "position": i} for i, c in enumerate(codes))
        data.regions.extend({"dish_key": key, "region": r} for r in dict.fromkeys(r for r in regions if r))
        for position, (url, lic) in enumerate((u, lic) for u, lic in zip(urls, licenses, strict=True) if u):
            _add_image(data, url, key, position, lic or None)
    return by_food_id


def parse_names(path: Path, data: WorldCuisinesData, key_by_name: dict[str, str]) -> None:
    """Dish names in many languages (JSON keys like 'ru - Russian'), matched to the kb by Name."""
    rows = read_csv(path, NAMES_COLUMNS)
    seen: dict[str, int] = {}
    for index, record in enumerate(rows):
        line = index + 2
        name = clean(record["Name"])
        data.raw_names.append(
            {
                "row_number": index,
                "name": record["Name"],
                "wikipedia_link": record.get("Wikipedia Link"),
                "json_aliases": record["json_aliases"],
            }
        )
        if name in seen:
            data.quirks.append(
                Quirk(
                    "worldcuisines",
                    path.name,
                    line,
                    "duplicate_name",
                    f"{name!r} also on line {seen[name]}; names merged",
                    "info",
                )
            )
        seen.setdefault(name, line)
        key = key_by_name.get(name)
        if key is None:
            data.quirks.append(
                Quirk(
                    "worldcuisines",
                    path.name,
                    line,
                    "unknown_dish",
                    f"{name!r} is not a dish of final_data.csv; its names are skipped",
                    "info",
                )
            )
            continue
        try:
            aliases = json.loads(record["json_aliases"] or "{}")
        except json.JSONDecodeError as exc:
            raise DataError(path, f"json_aliases is not valid JSON: {exc}", line=line) from exc
        for lang_key, alias in aliases.items():
            if not isinstance(alias, str) or not alias.strip():
                continue
            lang = lang_key.split(" - ", 1)[0].strip().lower()
            data.names.append(name_row(key, lang, alias.strip(), is_primary=False))


def parse_task2(path: Path, data: WorldCuisinesData, key_by_food_id: dict[int, str]) -> None:
    rows = read_csv(path, TASK2_COLUMNS)
    columns = rows[0].keys() if rows else []
    prompt_langs = {
        c: lang_code(c.removeprefix("prompt_"))
        for c in columns
        if c.startswith("prompt_") and c not in ("prompt_id", "prompt_type")
    }
    answer_langs = {c: lang_code(c.removeprefix("answer_")) for c in columns if c.startswith("answer_")}
    seen: set[str] = set()
    for index, record in enumerate(rows):
        line = index + 2
        qa_id = _int(record["qa_id"], path, line, "qa_id")
        food_id = _int(record["food_id"], path, line, "food_id")
        if food_id not in key_by_food_id:
            raise DataError(path, f"food_id {food_id} is not a row of final_data.csv", line=line)
        if str(qa_id) in seen:
            raise DataError(path, f"qa_id {qa_id} appears twice", line=line)
        seen.add(str(qa_id))
        item_id = f"{TASK_ID}:{qa_id}"
        key = key_by_food_id[food_id]
        try:
            gold = resolve_english(clean(record["answer"]))
        except UnknownCountry as exc:
            raise DataError(path, f"gold answer: {exc}", line=line) from exc
        if gold is None:
            raise DataError(path, f"gold answer {record['answer']!r} is not a country", line=line)
        variant = str(_int(record["prompt_id"], path, line, "prompt_id"))
        data.raw_task2.append(
            {
                "qa_id": str(qa_id),
                "food_id": str(food_id),
                "prompt_id": record["prompt_id"],
                "prompt_type": record["prompt_type"],
                "answer": record["answer"],
                "image_url": record["image_url"],
                "countries": record["Countries"],
                "prompts": {lang: record[c] or "" for c, lang in prompt_langs.items()},
                "answers": {lang: record[c] or "" for c, lang in answer_langs.items()},
            }
        )
        data.items.append(
            {
                "item_id": item_id,
                "task_id": TASK_ID,
                "dish_key": key,
                "source_ref": str(qa_id),
                "subset": "full",
                "variant": variant,
            }
        )
        data.gold.append({"item_id": item_id, "country": gold})
        nation = resolve_uk_nation(clean(record["answer"]))
        if nation:
            data.gold_nations.append({"item_id": item_id, "nation": nation})
        url = clean(record["image_url"])
        if url:
            data.item_images.append({"item_id": item_id, "position": 0, "image_id": _add_image(data, url, key)})
        else:
            data.quirks.append(
                Quirk("worldcuisines", path.name, line, "no_image", f"qa_id {qa_id} has no image_url", "warning")
            )
        for column, lang in prompt_langs.items():
            if clean(record[column]):
                data.prompts.append({"item_id": item_id, "lang": lang, "variant": variant, "text": record[column]})
        for column, lang in answer_langs.items():
            text = _gold_text(record, column, lang, path, line)
            if text:
                data.gold_text.append({"item_id": item_id, "lang": lang, "text": text})


def choice_item_files(root: Path) -> dict[str, list[Path]]:
    """The per-language multiple-choice item files under a WorldCuisines folder (may be absent)."""
    return {task: sorted(root.glob(pattern)) for task, pattern in CHOICE_ITEM_FILES.items()}


def parse_choice_items(
    task_id: str, files: list[Path], data: WorldCuisinesData, key_by_food_id: dict[int, str]
) -> None:
    """Multiple-choice items: one per qa_id, with the numbered options and the right one per language.

    The prompt ("…\n1. Thailand\n2. South Africa…") is kept as the item's question, so the task can be
    asked again and the paper's own answer reading (which searches the prompt) can be reproduced."""
    from pipeline.extract.choice import options_from_prompt

    gold_country = {g["item_id"].split(":", 1)[1]: g["country"] for g in data.gold}
    seen: set[str] = set()
    for path in files:
        with open(path, encoding="utf-8") as handle:
            for line, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise DataError(path, f"not valid JSON ({exc.msg})", line=line) from exc
                qa_id = str(_int(str(record.get("qa_id")), path, line, "qa_id"))
                food_id = _int(str(record.get("food_id")), path, line, "food_id")
                lang = lang_code(str(record.get("lang") or ""))
                prompt = record.get("multi_choice_prompt") or ""
                options = options_from_prompt(prompt)
                choice = record.get("multi_choice_answer")
                if food_id not in key_by_food_id:
                    raise DataError(path, f"food_id {food_id} is not a row of final_data.csv", line=line)
                if not options or not isinstance(choice, int) or choice not in {n for n, _ in options}:
                    raise DataError(path, f"multi_choice_prompt has no numbered option {choice!r}", line=line)
                item_id = f"{task_id}:{qa_id}"
                variant = str(_int(str(record.get("prompt_id")), path, line, "prompt_id"))
                if qa_id not in seen:
                    seen.add(qa_id)
                    data.items.append(
                        {
                            "item_id": item_id,
                            "task_id": task_id,
                            "dish_key": key_by_food_id[food_id],
                            "source_ref": qa_id,
                            "subset": "full",
                            "variant": variant,
                        }
                    )
                    if task_id == "worldcuisines.origin_mc" and qa_id in gold_country:
                        data.gold.append({"item_id": item_id, "country": gold_country[qa_id]})
                data.prompts.append({"item_id": item_id, "lang": lang, "variant": variant, "text": prompt})
                data.options.extend({"item_id": item_id, "lang": lang, "option": n, "text": t} for n, t in options)
                data.gold_choices.append({"item_id": item_id, "lang": lang, "choice": choice})


def parse(source: Path) -> tuple[WorldCuisinesData, dict[str, Path]]:
    paths = locate_files(source)
    data = WorldCuisinesData()
    key_by_food_id = parse_kb(paths["kb"], data)
    key_by_name = {d["name"]: d["dish_key"] for d in data.dishes}
    parse_names(paths["names"], data, key_by_name)
    parse_task2(paths["task2"], data, key_by_food_id)
    data.task1 = parse_task1(task1_files(paths["kb"].parent.parent), key_by_food_id, image_id_for_url)
    for key, url in data.task1.image_urls:
        _add_image(data, url, key)
    data.quirks += data.task1.quirks
    for task_id, files in choice_item_files(paths["kb"].parent.parent).items():
        parse_choice_items(task_id, files, data, key_by_food_id)
    data.names = list({(n["dish_key"], n["lang"], n["norm_name"]): n for n in data.names}.values())
    return data, paths


def ingest(con: duckdb.DuckDBPyConnection, source: Path, run_id: str, force: bool = False) -> IngestResult:
    paths = locate_files(source)
    choice_files = [p for files in choice_item_files(paths["kb"].parent.parent).values() for p in files]
    sha = sha256_files([*paths.values(), *choice_files])
    if not force and already_loaded(con, sha, "worldcuisines", scope=INGESTER):
        return IngestResult("worldcuisines", skipped=True)
    data, paths = parse(source)
    task_ids = [TASK_ID, TASK1_ID, *(t for t in CHOICE_ITEM_FILES if any(i["task_id"] == t for i in data.items))]
    with transaction(con):
        record_dataset(con, DATASET)
        for task_id in task_ids:
            con.execute("DELETE FROM core.tasks WHERE task_id = ?", [task_id])
            insert(con, "core.tasks", [get_task(task_id).row()])
        items = "(SELECT item_id FROM core.items WHERE task_id IN (SELECT unnest(?)))"
        for table in (
            "core.item_images",
            "core.item_gold_countries",
            "core.item_gold_nations",
            "core.item_gold_text",
            "core.item_prompts",
            "core.item_options",
            "core.item_gold_choices",
        ):
            con.execute(f"DELETE FROM {table} WHERE item_id IN {items}", [task_ids])
        con.execute("DELETE FROM core.ingested_items WHERE task_id IN (SELECT unnest(?))", [task_ids])
        delete_dataset_dishes(con, "worldcuisines")
        for table in (
            "raw.worldcuisines_kb",
            "raw.worldcuisines_names",
            "raw.worldcuisines_task2",
            "raw.worldcuisines_task1",
        ):
            con.execute(f"DELETE FROM {table}")
        insert(con, "raw.worldcuisines_kb", data.raw_kb)
        insert(con, "raw.worldcuisines_names", data.raw_names)
        insert(con, "raw.worldcuisines_task2", _task2_frame(data.raw_task2))
        insert(con, "core.dishes", data.dishes)
        insert(con, "core.dish_names", data.names)
        insert(con, "core.dish_origins", data.origins)
        insert(con, "core.dish_origin_nations", data.origin_nations)
        insert(con, "core.dish_regions", data.regions)
        insert(con, "core.ingested_images", list(data.images.values()))
        insert(con, "core.ingested_items", data.items)
        insert(con, "core.item_images", data.item_images)
        insert(con, "core.item_gold_countries", data.gold)
        insert(con, "core.item_gold_nations", data.gold_nations)
        insert(con, "core.item_gold_text", data.gold_text)
        insert(con, "core.item_prompts", data.prompts)
        if data.task1 is not None:
            insert(con, "raw.worldcuisines_task1", data.task1.raw)
            insert(con, "core.ingested_items", data.task1.items)
            insert(con, "core.item_images", data.task1.item_images)
            insert(con, "core.item_gold_text", data.task1.gold_text)
            insert(con, "core.item_prompts", data.task1.prompts)
        insert(con, "core.item_options", data.options)
        insert(con, "core.item_gold_choices", data.gold_choices)
        record_quirks(con, data.quirks, run_id, replace_files=[p.name for p in paths.values()])
        con.execute("DELETE FROM meta.source_files WHERE kind = 'worldcuisines'")  # an older ingester's marker too
        record_source(
            con,
            sha256=sha,
            kind="worldcuisines",
            scope=INGESTER,
            path=source,
            rows_loaded=len(data.dishes),
            run_id=run_id,
        )
    counts = {
        "dishes": len(data.dishes),
        "dish names": len(data.names),
        "images": len(data.images),
        "task-2 items": sum(i["task_id"] == TASK_ID for i in data.items),
        "multiple-choice items": sum(i["task_id"] != TASK_ID for i in data.items),
        "task-1 dishes": len(data.task1.items) if data.task1 else 0,
        "task-1 questions": len(data.task1.raw) if data.task1 else 0,
    }
    return IngestResult("worldcuisines", counts=counts, quirks=data.quirks)


def _task2_frame(rows: list[dict]) -> pl.DataFrame:
    """The two per-language columns are stored as JSON objects."""
    return pl.DataFrame(
        [{**r, "prompts": to_json(r["prompts"]), "answers": to_json(r["answers"])} for r in rows],
        infer_schema_length=None,
    )


def _gold_text(record: dict, column: str, lang: str, path: Path, line: int) -> str | None:
    text = clean(record[column])
    # answer_<lang> cells hold the five multiple-choice options; the right one is at correct_index.
    if text.startswith("["):
        try:
            options = ast.literal_eval(text)
            return str(options[int(float(record["correct_index"]))]).strip()
        except (ValueError, SyntaxError, IndexError, TypeError) as exc:
            raise DataError(path, f"{column} is not an option list with correct_index: {exc}", line=line) from exc
    return text or None


def _countries(names: list, path: Path, line: int, data: WorldCuisinesData, food_id: int) -> list[str]:
    codes: list[str] = []
    for name in names:
        try:
            code = resolve_english(str(name))
        except UnknownCountry as exc:
            raise DataError(path, f"Countries of food_id {food_id}: {exc}", line=line) from exc
        if code is None:
            data.quirks.append(
                Quirk(
                    "worldcuisines",
                    path.name,
                    line,
                    "not_a_country",
                    f"{name!r} in Countries of food_id {food_id} is not a country; skipped",
                    "info",
                )
            )
        elif name.strip().casefold() in ("england", "scotland", "wales", "northern ireland"):
            data.quirks.append(
                Quirk(
                    "worldcuisines", path.name, line, "uk_nation", f"{name!r} (food_id {food_id}) counted as GB", "info"
                )
            )
        if code and code not in codes:
            codes.append(code)
    return codes


def _json_list(value: str | None, path: Path, line: int, column: str) -> list:
    text = clean(value)
    if not text:
        return []
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        try:  # some cells use Python literal syntax (single quotes)
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError) as exc:
            raise DataError(path, f"{column} is not a list: {text!r}", line=line) from exc
    if not isinstance(parsed, list):
        raise DataError(path, f"{column} is not a list: {text!r}", line=line)
    return parsed


def _int(value: str | None, path: Path, line: int, column: str) -> int:
    text = clean(value)
    if re.fullmatch(r"\d+(\.0+)?", text):
        return int(float(text))
    raise DataError(path, f"{column} must be a whole number, got {value!r}", line=line)


def _add_image(
    data: WorldCuisinesData, url: str, key: str, position: int | None = None, license: str | None = None
) -> str:
    image_id = image_id_for_url(url)
    if image_id not in data.images:
        data.images[image_id] = {
            "image_id": image_id,
            "kind": "real",
            "dish_key": key,
            "position": position,
            "url": url,
            "license": license,
        }
    return image_id


# --- task 1: what is this dish called? (the small set) ---------------------------------------------
# One item per dish (`worldcuisines.dish_name_vqa:<food_id>`): the dish's three questions are its
# prompt variants (variant = the set's qa_id), its gold name per prompt language is the set's
# `answer`, and its images are the questions' photos. The published answers of the 12 models
# (predictions/small/task1_oe_MODEL.jsonl) number the questions differently (qa_id 407-1893, not
# 0-299, and their multiple-choice options come in another order), so `import-responses` ties each
# answer to its dish by the gold name the line carries and keeps the line's qa_id as the variant.

TASK1_ID = "worldcuisines.dish_name_vqa"
TASK1_DIR = Path("eval/small_eval_task1")
FILE_SUFFIX = "_small_eval_task1.jsonl"
FIELDS = ("qa_id", "lang", "food_id", "open_ended_prompt", "multi_choice_prompt", "answer", "multi_choice_answer")
_OPTION = re.compile(r"^\s*(\d+)\.\s*(.+?)\s*$", re.M)


@dataclass
class Task1Data:
    raw: list[dict] = field(default_factory=list)
    items: list[dict] = field(default_factory=list)
    item_images: list[dict] = field(default_factory=list)
    gold_text: list[dict] = field(default_factory=list)
    prompts: list[dict] = field(default_factory=list)
    image_urls: list[tuple[str, str]] = field(default_factory=list)  # (dish_key, url) to register as images
    quirks: list[Quirk] = field(default_factory=list)


def task1_files(root: Path) -> list[Path]:
    """The per-language files under `root` (the worldcuisines folder); empty when the set is absent."""
    folder = root / TASK1_DIR
    return sorted(folder.glob(f"*{FILE_SUFFIX}")) if folder.is_dir() else []


def mc_options(prompt: str) -> list[str]:
    """The numbered options of a multiple-choice prompt ("1. Borscht" lines), in order."""
    return [text for _, text in sorted((int(n), t) for n, t in _OPTION.findall(prompt or ""))]


def parse_task1(files: list[Path], key_by_food_id: dict[int, str], image_id_for_url) -> Task1Data:
    """Rows for raw.worldcuisines_task1 and the dish-level items; a malformed line stops with FILE:LINE."""
    data = Task1Data()
    gold: dict[tuple[str, str], tuple[str, Path, int]] = {}  # (item_id, lang) -> (answer, file, line)
    seen_items: dict[str, dict] = {}
    images: dict[str, list[str]] = {}
    for path in files:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                record = _task1_record(text, path, number)
                lang = str(record["lang"]).strip().lower().replace("-", "_")
                food_id = _whole_number(record["food_id"], path, number, "food_id")
                if food_id not in key_by_food_id:
                    raise DataError(path, f"food_id {food_id} is not a row of final_data.csv", line=number)
                dish_key = key_by_food_id[food_id]
                qa_id = str(_whole_number(record["qa_id"], path, number, "qa_id"))
                item_id = f"{TASK1_ID}:{food_id}"
                answer = str(record["answer"] or "").strip()
                url = str(record.get("image_url") or "").strip()
                data.raw.append(
                    {
                        "qa_id": qa_id,
                        "lang": lang,
                        "food_id": str(food_id),
                        "prompt_id": _text_or_none(record.get("prompt_id")),
                        "prompt_type": _text_or_none(record.get("prompt_type")),
                        "open_ended_prompt": record["open_ended_prompt"],
                        "multi_choice_prompt": record["multi_choice_prompt"],
                        "options": mc_options(record["multi_choice_prompt"]),
                        "multi_choice_answer": _whole_number(
                            record["multi_choice_answer"], path, number, "multi_choice_answer"
                        ),
                        "answer": answer,
                        "image_url": url or None,
                        "lang_status": _text_or_none(record.get("lang_status")),
                    }
                )
                if item_id not in seen_items:
                    seen_items[item_id] = {
                        "item_id": item_id,
                        "task_id": TASK1_ID,
                        "dish_key": dish_key,
                        "source_ref": str(food_id),
                        "subset": "full",
                        "variant": None,
                    }
                if url and url not in images.setdefault(item_id, []):
                    images[item_id].append(url)
                if record["open_ended_prompt"]:
                    data.prompts.append(
                        {"item_id": item_id, "lang": lang, "variant": qa_id, "text": record["open_ended_prompt"]}
                    )
                if not answer:
                    data.quirks.append(
                        Quirk(
                            "worldcuisines",
                            path.name,
                            number,
                            "no_gold_name",
                            f"qa_id {qa_id} has no answer",
                            "warning",
                        )
                    )
                    continue
                earlier = gold.get((item_id, lang))
                if earlier is None:
                    gold[(item_id, lang)] = (answer, path, number)
                elif earlier[0] != answer:
                    data.quirks.append(
                        Quirk(
                            "worldcuisines",
                            path.name,
                            number,
                            "gold_name_differs",
                            f"food_id {food_id} in {lang}: {answer!r} here, {earlier[0]!r} on line {earlier[2]}; "
                            "the first is the item's gold",
                            "warning",
                        )
                    )
    data.items = list(seen_items.values())
    data.gold_text = [{"item_id": i, "lang": lang, "text": g[0]} for (i, lang), g in gold.items()]
    for item_id, urls in images.items():
        dish_key = seen_items[item_id]["dish_key"]
        for position, url in enumerate(urls[:10]):
            data.item_images.append({"item_id": item_id, "position": position, "image_id": image_id_for_url(url)})
            data.image_urls.append((dish_key, url))
    return data


def _task1_record(text: str, path: Path, number: int) -> dict:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not valid JSON ({exc.msg} at column {exc.colno})", line=number) from exc
    if not isinstance(record, dict):
        raise DataError(path, f"expected a JSON object, got {type(record).__name__}", line=number)
    missing = [f for f in FIELDS if f not in record]
    if missing:
        raise DataError(path, f"missing fields {missing}", line=number)
    return record


def _whole_number(value: object, path: Path, number: int, name: str) -> int:
    text = str(value).strip() if value is not None else ""
    if re.fullmatch(r"\d+(\.0+)?", text):
        return int(float(text))
    raise DataError(path, f"{name} must be a whole number, got {value!r}", line=number)


def _text_or_none(value: object) -> str | None:
    return None if value is None else str(value)


# --- items: the task-2 questions the dataset ships, one per item and prompt language -------------


def items(con: duckdb.DuckDBPyConnection, request: ItemsRequest) -> TaskItems:
    """The items ingest created, each with the question the dataset asks in `lang`; image tasks
    read DIR/<food_id>/*."""
    rows = con.execute(
        """
        SELECT i.item_id, i.dish_key, d.name, i.source_ref, p.variant, p.text
        FROM core.items i JOIN core.dishes d USING (dish_key)
        JOIN core.item_prompts p ON p.item_id = i.item_id AND p.lang = ?
        WHERE i.task_id = ? ORDER BY try_cast(i.source_ref AS BIGINT)
        """,
        [request.lang, request.task.task_id],
    ).fetchall()
    if not rows:
        raise ValueError(
            f"no WorldCuisines questions in {request.lang!r}: run `python -m pipeline ingest worldcuisines "
            "--source DIR` first (prompt languages are the dataset's codes: en, ru_formal, zh_cn, ...)"
        )
    rows = rows[: request.limit] if request.limit else rows
    found = [ItemInput(item_id, key, name, questions={variant: text}) for item_id, key, name, _, variant, text in rows]
    return with_local_images(con, request, found, lambda item: request.images_dir / item.dish_key.rsplit(":", 1)[1])


def image_manifest(data_dir: Path) -> list[RemoteFile]:
    """The photo of each task-2 item (eval/large_eval_task2.csv image_url) as DIR/worldcuisines/images/
    FOOD_ID/QA_ID.ext, the layout `generate --images DIR/worldcuisines/images` reads."""
    import csv
    from urllib.parse import urlparse

    path = data_dir / "worldcuisines" / "eval" / "large_eval_task2.csv"
    if not path.is_file():
        return []
    files = []
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            url = (row.get("image_url") or "").strip()
            if url:
                suffix = Path(urlparse(url).path).suffix.lower() or ".jpg"
                food_id, qa_id = safe_id(row["food_id"], path), safe_id(row["qa_id"], path)
                files.append(RemoteFile(url, f"worldcuisines/images/{food_id}/{qa_id}{suffix}"))
    return files


def predictions(source: Path) -> list[Path]:
    """The published answer files beside the knowledge base that `demo` imports: open-ended task 2
    (predictions/task2_oe_MODEL.jsonl) and task 1 (predictions/small/task1_oe_MODEL.jsonl), and
    multiple-choice task 2 (predictions/mc/task2_mc_MODEL.jsonl). The task-1 multiple-choice files
    number their questions differently from the published set and carry no dish name to match by."""
    folder = locate_files(source)["kb"].parent.parent / "predictions"
    return sorted(
        [*folder.glob("*.jsonl"), *folder.glob("mc/task2_mc_*.jsonl"), *folder.glob("small/task1_oe_*.jsonl")]
    )


def _ingest(con: duckdb.DuckDBPyConnection, source: Path | None, run_id: str, force: bool = False) -> IngestResult:
    if source is None:
        raise ValueError("WorldCuisines needs --source DIR (kb/final_data.csv, kb/food_name_multiling.csv, eval/)")
    return ingest(con, source, run_id, force=force)


DATASETS.add(
    "worldcuisines",
    Dataset(DATASET, lambda: list(PUBLIC_FILES), _ingest, items, image_manifest=image_manifest),
)
