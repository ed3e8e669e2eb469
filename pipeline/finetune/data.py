"""Training examples from the warehouse: a task's items rendered exactly as `generate` asks them (same
prompt, same images), with the answer a model should give, split into train and test, ordered.

The prompt side is the generate stage's own rendering (pipeline/answers/prompting.py `render`), so the tuned model
is evaluated on the very questions it was tuned on the style of. The answer side comes from the gold the
dataset stored: CultureMix's target food and country in the `Food: <name>. Country: <country>.` form its
prompts ask for; otherwise the item's gold text, its gold countries or its dish's name in the prompt's
language.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb

from pipeline.backends.base import Message
from pipeline.finetune.recipes import Recipe
from warehouse.splits import split_groups  # CultureMix §6.1's split, shared with Table 2's mart


@dataclass(frozen=True)
class Example:
    """One question with its answer; `group_key` is what the split keeps together, `country` what it balances."""

    item_id: str
    task_id: str
    lang: str
    variant: str
    messages: tuple[Message, ...]
    image_hashes: tuple[str, ...]
    answer: str
    stage: str | None = None
    group_key: str | None = None
    country: str | None = None
    split: str = "train"
    position: int = 0


@dataclass
class ExampleSet:
    """The ordered train examples, the test examples and what was left out (item, reason)."""

    train: list[Example]
    test: list[Example]
    left_out: list[tuple[str, str]]

    def sha256(self) -> str:
        """Hash of everything training depends on: order, prompts, image bytes, answers; and the test items."""
        payload = [
            [e.split, e.item_id, e.variant, [[m.role, m.text] for m in e.messages], list(e.image_hashes), e.answer]
            for e in [*self.train, *self.test]
        ]
        return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()


# --- reading ---------------------------------------------------------------------------------


def load_examples(
    con: duckdb.DuckDBPyConnection,
    task_ids: list[str],
    lang: str,
    *,
    variant: str | None = None,
    limit: int | None = None,
    images_dir: Path | None = None,
) -> tuple[list[Example], list[tuple[str, str]]]:
    """Every item of the tasks in `lang` with a known answer (first `limit` per task), rendered with
    `variant` (default: the task's first)."""
    from pipeline.answers import prompting
    from pipeline.tasks import get_task

    examples: list[Example] = []
    left_out: list[tuple[str, str]] = []
    for task_id in task_ids:
        task = get_task(task_id)
        found = prompting.items(con, task, lang, limit=limit, images_dir=images_dir, run_id="finetune")
        left_out += found.skipped
        labels = _culturemix_labels(con, [i.item_id for i in found.ready]) if task.dataset == "culturemix" else {}
        answers = labels_answers(labels) if labels else gold_answers(con, task.answer_kind, found.ready, lang)
        for item in found.ready:
            templates = prompting.templates(task, item, lang)
            chosen = variant or next(iter(templates), None)
            if chosen not in templates:
                left_out.append((item.item_id, f"no prompt variant {chosen!r} in {lang}"))
                continue
            if item.item_id not in answers:
                left_out.append((item.item_id, "no gold answer to train on"))
                continue
            messages = prompting.render(task, item, templates[chosen])
            label = labels.get(item.item_id, {})
            examples.append(
                Example(
                    item_id=item.item_id,
                    task_id=task_id,
                    lang=lang,
                    variant=chosen,
                    messages=messages,
                    image_hashes=item.image_hashes if messages[0].images else (),
                    answer=answers[item.item_id],
                    stage=label.get("subtask"),
                    group_key=label.get("target_food_id") or item.dish_key,
                    country=label.get("target_country") or _first_gold_country(con, item.item_id),
                )
            )
    return examples, left_out


def _culturemix_labels(con: duckdb.DuckDBPyConnection, item_ids: list[str]) -> dict[str, dict]:
    rows = con.execute(
        """SELECT i.item_id, c.subtask, c.target_food_id, c.target_food_name, c.target_country, k.name_en
           FROM core.items i JOIN core.culturemix_images c ON c.image = i.source_ref
           LEFT JOIN core.countries k ON k.country = c.target_country
           WHERE i.item_id IN (SELECT unnest(?))""",
        [item_ids],
    ).fetchall()
    keys = ("subtask", "target_food_id", "target_food_name", "target_country", "country_name")
    return {row[0]: dict(zip(keys, row[1:], strict=True)) for row in rows}


def labels_answers(labels: dict[str, dict]) -> dict[str, str]:
    """CultureMix: the answer in the form its direct prompt asks for (`Food: <name>. Country: <country>.`)."""
    return {
        item_id: f"Food: {label['target_food_name']}. Country: {label['country_name']}."
        for item_id, label in labels.items()
        if label["target_food_name"] and label["country_name"]
    }


COUNTRY_NAME_COLUMN = {"en": "name_en", "ru": "name_ru", "uk": "name_uk"}


def gold_answers(con: duckdb.DuckDBPyConnection, answer_kind: str, items: list, lang: str) -> dict[str, str]:
    """The answer stored for each item: its gold text in `lang`, else its gold countries' names (in the dataset's
    order), else (dish-name tasks) its dish's primary name in `lang`."""
    ids = [i.item_id for i in items]
    found = dict(
        con.execute(
            "SELECT item_id, text FROM core.item_gold_text WHERE lang = ? AND item_id IN (SELECT unnest(?))",
            [lang, ids],
        ).fetchall()
    )
    base = lang.split("_")[0]
    if answer_kind == "countries" and base in COUNTRY_NAME_COLUMN:
        column = COUNTRY_NAME_COLUMN[base]
        rows = con.execute(
            f"""SELECT g.item_id, string_agg(coalesce(k.{column}, k.name_en), ', '
                          ORDER BY coalesce(o.position, 99), g.country)
                FROM core.item_gold_countries g JOIN core.countries k USING (country)
                JOIN core.items i USING (item_id)
                LEFT JOIN core.dish_origins o ON o.dish_key = i.dish_key AND o.country = g.country
                WHERE g.item_id IN (SELECT unnest(?)) GROUP BY g.item_id""",
            [ids],
        ).fetchall()
        found = dict(rows) | found
    if answer_kind == "dish_name":
        by_dish = dict(
            con.execute(
                "SELECT dish_key, display_name FROM core.dish_names WHERE lang = ? AND is_primary", [base]
            ).fetchall()
        )
        found = {i.item_id: by_dish[i.dish_key] for i in items if i.dish_key in by_dish} | found
    return found


def _first_gold_country(con: duckdb.DuckDBPyConnection, item_id: str) -> str | None:
    row = con.execute("SELECT min(country) FROM core.item_gold_countries WHERE item_id = ?", [item_id]).fetchone()
    return row[0] if row else None


# --- split and order -------------------------------------------------------------------------


def arrange(examples: list[Example], recipe: Recipe, seed: int) -> ExampleSet:
    """Split, sample and order the examples as the recipe says."""
    left_out: list[tuple[str, str]] = []
    if recipe.split == "culturemix_sf":
        # CultureMix §6.1: the SF images are split; MF/SFB/MFB follow the SF image of their target food
        sf_groups = {e.group_key: e.country for e in examples if e.stage == "SF"}
        left_out = [(e.item_id, "its target food has no SF image to split by") for e in examples
                    if e.group_key not in sf_groups]  # fmt: skip
        examples, countries = [e for e in examples if e.group_key in sf_groups], sf_groups
    else:
        countries = {e.group_key or e.item_id: e.country for e in examples}
    train_groups = split_groups(countries, recipe.train_share, seed)
    train = [e for e in examples if (e.group_key or e.item_id) in train_groups]
    test = [e for e in examples if (e.group_key or e.item_id) not in train_groups]
    train = _sample(train, recipe.sample_share, seed)
    train = _order(train, recipe.curriculum, seed)
    return ExampleSet(
        [replace(e, split="train", position=i) for i, e in enumerate(train)],
        [replace(e, split="test", position=i) for i, e in enumerate(sorted(test, key=lambda e: e.item_id))],
        left_out,
    )


def _sample(train: list[Example], share: float, seed: int) -> list[Example]:
    """CultureMix §6.1: a random share (one third) of each food's instances across all its subsets."""
    if share >= 1:
        return train
    by_group: dict[str, list[Example]] = {}
    for example in sorted(train, key=lambda e: e.item_id):
        by_group.setdefault(example.group_key or example.item_id, []).append(example)
    kept = []
    for group, members in sorted(by_group.items()):
        count = max(1, math.ceil(share * len(members) - 1e-9))
        kept += random.Random(f"{seed}:sample:{group}").sample(members, count)
    return kept


def _order(train: list[Example], curriculum: tuple[str, ...], seed: int) -> list[Example]:
    """Groups in a seeded order; within a group, the curriculum's stages in order (CultureMix §6.1: each food
    SF -> MF -> SFB -> MFB). Without a curriculum, one seeded shuffle of all examples."""
    ordered = sorted(train, key=lambda e: e.item_id)
    if not curriculum:
        random.Random(f"{seed}:order").shuffle(ordered)
        return ordered
    groups = sorted({e.group_key or e.item_id for e in ordered})
    random.Random(f"{seed}:groups").shuffle(groups)
    rank = {g: i for i, g in enumerate(groups)}
    stage_rank = {s: i for i, s in enumerate(curriculum)}
    return sorted(
        ordered,
        key=lambda e: (rank[e.group_key or e.item_id], stage_rank.get(e.stage or "", len(curriculum)), e.item_id),
    )
