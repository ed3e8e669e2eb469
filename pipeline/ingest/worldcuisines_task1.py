"""WorldCuisines task 1 ("what is this dish called?"), the small set: 300 questions about 100
dishes (three prompt types each) in 30 language variants, eval/small_eval_task1/LANG_small_eval_task1.jsonl.

One item per dish (`worldcuisines.dish_name_vqa:<food_id>`): the dish's three questions are its
prompt variants (variant = the set's qa_id), its gold name per prompt language is the set's
`answer`, and its images are the questions' photos. The published answers of the 12 models
(predictions/small/task1_oe_MODEL.jsonl) number the questions differently (qa_id 407-1893, not
0-299, and their multiple-choice options come in another order), so `import-responses` ties each
answer to its dish by the gold name the line carries and keeps the line's qa_id as the variant.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import DataError
from pipeline.ingest.common import Quirk

TASK_ID = "worldcuisines.dish_name_vqa"
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


def options(prompt: str) -> list[str]:
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
                record = _record(text, path, number)
                lang = str(record["lang"]).strip().lower().replace("-", "_")
                food_id = _whole(record["food_id"], path, number, "food_id")
                if food_id not in key_by_food_id:
                    raise DataError(path, f"food_id {food_id} is not a row of final_data.csv", line=number)
                dish_key = key_by_food_id[food_id]
                qa_id = str(_whole(record["qa_id"], path, number, "qa_id"))
                item_id = f"{TASK_ID}:{food_id}"
                answer = str(record["answer"] or "").strip()
                url = str(record.get("image_url") or "").strip()
                data.raw.append(
                    {
                        "qa_id": qa_id,
                        "lang": lang,
                        "food_id": str(food_id),
                        "prompt_id": _text(record.get("prompt_id")),
                        "prompt_type": _text(record.get("prompt_type")),
                        "open_ended_prompt": record["open_ended_prompt"],
                        "multi_choice_prompt": record["multi_choice_prompt"],
                        "options": options(record["multi_choice_prompt"]),
                        "multi_choice_answer": _whole(
                            record["multi_choice_answer"], path, number, "multi_choice_answer"
                        ),
                        "answer": answer,
                        "image_url": url or None,
                        "lang_status": _text(record.get("lang_status")),
                    }
                )
                if item_id not in seen_items:
                    seen_items[item_id] = {
                        "item_id": item_id,
                        "task_id": TASK_ID,
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


def _record(text: str, path: Path, number: int) -> dict:
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


def _whole(value: object, path: Path, number: int, name: str) -> int:
    text = str(value).strip() if value is not None else ""
    if re.fullmatch(r"\d+(\.0+)?", text):
        return int(float(text))
    raise DataError(path, f"{name} must be a whole number, got {value!r}", line=number)


def _text(value: object) -> str | None:
    return None if value is None else str(value)
