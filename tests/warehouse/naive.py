"""An independent oracle for the page queries: the same figures recounted naively, in plain Python
over the core tables (generations, items, tasks, extractions, gold countries), never over a mart.

The marts and warehouse/queries compute in SQL over marts built from marts; the tests compare their
results with these loops, so a wrong join, filter or denominator in either layer shows up as a
difference instead of being checked against itself. Definitions are written here from the pages'
own words: recall (answers about a country's dishes that named it), over-prediction (answers naming
a country not among the dish's origins, over all selected answers), the confusion label (no country:
'-'; the gold country if named; else the first country named), a wrong answer (a country was named,
and the first one is not an origin), the prompt language's countries; the confusion page's co-origin
rule (an answer naming another of the dish's origins, per core.dish_origins, is a hit).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from warehouse.queries.answers import Filters

NO_COUNTRY = "-"
CO_ORIGIN = "+"


@dataclass(frozen=True)
class Answer:
    """One scored answer about countries of origin, as the core tables hold it."""

    dataset: str
    task: str
    model: str
    lang: str
    item: str
    dish_key: str
    countries: tuple[str, ...]  # in order of first mention
    gold: frozenset[str]
    origins: frozenset[str] = frozenset()  # the gold and every origin the dataset gives the dish
    variant: str = ""
    ref: str = ""  # the dataset's own item id (core.items.source_ref)
    response: str | None = None

    @property
    def no_country(self) -> bool:
        return not self.countries

    def label_for(self, true_country: str) -> str:
        """The confusion label of this answer for one of its gold countries."""
        if not self.countries:
            return NO_COUNTRY
        return true_country if true_country in self.countries else self.countries[0]

    def confusion_label(self, true_country: str) -> str:
        """The confusion page's rule: as `label_for`, except that an answer naming another of the
        dish's origins (and not `true_country`) is a hit, CO_ORIGIN."""
        label = self.label_for(true_country)
        if label in (NO_COUNTRY, true_country):
            return label
        return CO_ORIGIN if set(self.countries) & self.origins else label

    @property
    def right(self) -> bool:
        """Accuracy: the first country named is a gold origin."""
        return bool(self.countries) and self.countries[0] in self.gold

    @property
    def wrong(self) -> bool:
        return bool(self.countries) and self.countries[0] not in self.gold


def _rows(path: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def load_answers(path: Path) -> list[Answer]:
    """Every scored answer of a task whose answers are countries, from the core tables only."""
    tasks = {
        task_id: (dataset, kind)
        for task_id, dataset, kind in _rows(path, "SELECT task_id, dataset, answer_kind FROM core.tasks")
    }
    items = {
        item_id: (task_id, dish_key, ref)
        for item_id, task_id, dish_key, ref in _rows(
            path, "SELECT item_id, task_id, dish_key, source_ref FROM core.items"
        )
    }
    dish_origins: dict[str, set[str]] = {}
    for dish_key, country in _rows(path, "SELECT dish_key, country FROM core.dish_origins"):
        dish_origins.setdefault(dish_key, set()).add(country)
    gold: dict[str, set[str]] = {}
    for item_id, country in _rows(path, "SELECT item_id, country FROM core.item_gold_countries"):
        gold.setdefault(item_id, set()).add(country)
    extracted = {
        gid: tuple(countries) for gid, countries in _rows(path, "SELECT generation_id, countries FROM core.extractions")
    }
    scored = {gid for (gid,) in _rows(path, "SELECT DISTINCT generation_id FROM core.scores")}
    answers = []
    generations = "SELECT generation_id, model_id, item_id, lang, variant, response FROM core.generations"
    for gid, model, item_id, lang, variant, response in _rows(path, generations):
        task_id, dish_key, ref = items[item_id]
        dataset, kind = tasks[task_id]
        if kind != "countries" or gid not in scored or gid not in extracted:
            continue
        answers.append(
            Answer(
                dataset,
                task_id.split(".", 1)[1],
                model,
                lang,
                item_id,
                dish_key,
                extracted[gid],
                frozenset(gold.get(item_id, ())),
                frozenset(gold.get(item_id, set()) | dish_origins.get(dish_key, set())),
                str(variant),
                str(ref),
                response,
            )
        )
    return answers


def select(answers: Iterable[Answer], filters: Filters) -> list[Answer]:
    return [
        a
        for a in answers
        if a.dataset == filters.dataset
        and (filters.task is None or a.task == filters.task)
        and (not filters.models or a.model in filters.models)
        and (not filters.langs or a.lang in filters.langs)
    ]


def recall(answers: Iterable[Answer]) -> dict[str, tuple[int, int]]:
    """Gold country -> (answers about its dishes, of those the ones naming it)."""
    totals: dict[str, list[int]] = {}
    for answer in answers:
        for country in answer.gold:
            counts = totals.setdefault(country, [0, 0])
            counts[0] += 1
            counts[1] += country in answer.countries
    return {country: (n, hits) for country, (n, hits) in totals.items()}


def overprediction(answers: list[Answer]) -> tuple[Counter, int]:
    """Country -> answers naming it for a dish not from there; and the number of answers."""
    wrong = Counter(country for a in answers for country in a.countries if country not in a.gold)
    return wrong, len(answers)


def pairs(answers: Iterable[Answer]) -> Counter:
    """(true country, confusion label) -> answers, one per gold country of each answer."""
    return Counter((country, a.label_for(country)) for a in answers for country in a.gold)


def confusion_pairs(answers: Iterable[Answer]) -> Counter:
    """(true country, the confusion page's label) -> answers, one per gold country of each answer."""
    return Counter((country, a.confusion_label(country)) for a in answers for country in a.gold)


def prompt_language(lang: str) -> str:
    """A WorldCuisines prompt-language code (ru_formal, zh_cn, nan_spoken, tl…) -> CLDR language."""
    if lang == "zh_cn":
        return "zh"
    if lang.startswith("nan"):
        return "nan"
    if lang == "tl":
        return "fil"
    return lang.split("_", 1)[0]


def language_countries(path: Path) -> dict[str, set[str]]:
    spoken: dict[str, set[str]] = {}
    for language, country in _rows(path, "SELECT lang, country FROM core.language_countries"):
        spoken.setdefault(language, set()).add(country)
    return spoken


def dishes_of_both(path: Path, first: str = "RU", second: str = "UA") -> set[str]:
    origins: dict[str, set[str]] = {}
    for dish_key, country in _rows(path, "SELECT dish_key, country FROM core.dish_origins"):
        origins.setdefault(dish_key, set()).add(country)
    return {dish for dish, countries in origins.items() if {first, second} <= countries}
