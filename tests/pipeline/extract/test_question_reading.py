"""Answers are read as their question asks (issue 35). BORSch's prompt variants ask either where a dish
comes from (`origin`) or where it is served, eaten, cooked, popular or traditional (`served`); the task
declaration says which, once, beside the prompts, and the countries extractor follows it.

tests/data/borsch_question_gold.tsv holds hand-written answers to every BORSch prompt variant in both
languages, in the styles models answer in (origin plus spread, spread only, cuisine adjectives,
negations, "not sure but…", bare lists), labelled with the countries that answer the question asked.
`dev` answers were written while the rules were built; `heldout` answers were written after, and the
rules were not changed for them. Measured on this commit (countries@4 on main read every variant as an
origin question): dev 42/62 -> 62/62, heldout 19/30 -> 28/30.
Issue 38 (countries@7) added 30 held-out answers h031-h060 (region and people origins, "not sure but…", lists
after a region), written and labelled before they were run: 26/30 of them right at first (54/60 held-out).
Three of the four misses (h031, h036, h056: a region claimed in one sentence, its countries listed in the next)
then led to one rule, as the issue states it (a region claimed and no country: every country named is the
answer); they are no longer strictly held out. Then h017 and h057 (similar dishes elsewhere, and a dish "not to
be confused with", are no origin), fixed after they were seen: no longer held out either. Now: dev 62/62, heldout
59/60 (h001 still wrong: "пришли в русскую кухню из Китая" reads the cuisine it came into as a claim)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import Counter

import pytest

from pipeline.extract.countries import READINGS, extract_countries
from pipeline.tasks import READINGS as DECLARED_READINGS
from pipeline.tasks import get_task
from tests.helpers import REPO

GOLD = REPO / "tests" / "data" / "borsch_question_gold.tsv"
ORIGIN_TASKS = ("origin_qa", "origin_vqa", "origin_vqa_with_name")
CATEGORIES = {
    "origin_plus_spread",
    "spread_only",
    "cuisine_adjective",
    "negation",
    "not_sure",
    "plain_list",
    "region_origin",
}
# Floors of the share of answers whose set is exactly right; raise them when the extractor improves.
FLOOR = {"dev": 1.0, "heldout": 0.98}


def rows() -> list[dict[str, str]]:
    with open(GOLD, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def predicted(row: dict[str, str]) -> set[str]:
    reading = get_task(f"borsch.{row['task']}").reading(row["lang"], row["variant"])
    return set(extract_countries(row["answer"].replace("\\n", "\n"), row["lang"], reading).countries)


def expected(row: dict[str, str]) -> set[str]:
    return {code for code in row["expected"].split(",") if code}


def test_the_set_answers_every_variant_in_both_languages_in_every_style() -> None:
    data = rows()
    assert len({r["id"] for r in data}) == len(data)
    for lang in ("ru", "uk"):
        variants = {r["variant"] for r in data if r["lang"] == lang}
        assert variants == set(get_task("borsch.origin_qa").templates(lang)), lang
        for reading in READINGS:
            styles = {r["category"] for r in data if r["lang"] == lang and predicted_reading(r) == reading}
            assert {"negation", "not_sure"} <= styles, (lang, reading, styles)
    assert set(Counter(r["category"] for r in data)) == CATEGORIES
    assert {r["task"] for r in data} == set(ORIGIN_TASKS)


def predicted_reading(row: dict[str, str]) -> str:
    return get_task(f"borsch.{row['task']}").reading(row["lang"], row["variant"])


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_answers_are_read_as_their_question_asks(split: str) -> None:
    data = [r for r in rows() if r["split"] == split]
    wrong = [(r["id"], sorted(expected(r)), sorted(predicted(r))) for r in data if predicted(r) != expected(r)]
    share = 1 - len(wrong) / len(data)
    print(f"{split}: {len(data) - len(wrong)}/{len(data)} sets right; wrong: {wrong}")
    assert share >= FLOOR[split], wrong


def test_the_declaration_follows_the_wording_of_each_variant() -> None:
    """A variant is declared `served` exactly when its (paper's) wording asks where a dish is served,
    eaten, cooked, popular or traditional, in every origin task and both languages."""
    asks_where = ("подавать", "популярно", "традиционно", "традиційною", "готують", "їдять")
    for name in ORIGIN_TASKS:
        task = get_task(f"borsch.{name}")
        for lang in ("ru", "uk"):
            for variant, template in task.templates(lang).items():
                served = any(word in template for word in asks_where)
                assert task.reading(lang, variant) == ("served" if served else "origin"), (name, lang, variant)
    assert DECLARED_READINGS == READINGS


@pytest.mark.parametrize(
    ("answer", "lang", "reading", "countries"),
    [
        # the issue's examples, each under the question it answers
        ("Голубцы традиционны для России, Украины и Польши, а также популярны в Литве.", "ru", "served", "RU UA PL LT"),
        ("Це страва, популярна в Україні, Польщі та Білорусі.", "uk", "served", "UA PL BY"),
        ("Сырники — блюдо русской кухни, популярное также в Беларуси и Украине.", "ru", "origin", "RU"),
        ("Сырники — блюдо русской кухни, популярное также в Беларуси и Украине.", "ru", "served", "RU BY UA"),
        ("Деруни походять з Білорусі. Згодом вони поширилися в Україні, Польщі та Литві.", "uk", "origin", "BY"),
        (
            "Деруни походять з Білорусі. Згодом вони поширилися в Україні, Польщі та Литві.",
            "uk",
            "served",
            "BY UA PL LT",
        ),
        # negations and corrections drop under both readings
        ("Его подают в Беларуси и России, но не в Польше.", "ru", "served", "BY RU"),
        ("Цю страву їдять в Угорщині. Проте в Австрії її не їдять.", "uk", "served", "HU"),
        ("Многие думают, что это польское блюдо, но на самом деле оно украинское.", "ru", "origin", "UA"),
        ("Многие думают, что это польское блюдо, но на самом деле оно украинское.", "ru", "served", "UA"),
    ],
)
def test_the_issues_examples(answer: str, lang: str, reading: str, countries: str) -> None:
    assert set(extract_countries(answer, lang, reading).countries) == set(countries.split())


@pytest.mark.parametrize(
    ("answer", "lang", "countries"),
    [
        # a country claimed as origin: the countries a dish spread to are dropped
        ("Деруни походять з Білорусі. Згодом вони поширилися в Україні, Польщі та Литві.", "uk", "BY"),
        (
            "Empanadas originated in Latin America, in countries such as Argentina and Chile. They are also popular "
            "in Spain and Portugal.",
            "en",
            "AR CL",
        ),
        # a region, a people or a claim short of a country: the countries listed are the answer (issue 38)
        (
            "A dish from Central and Eastern Europe, with variations found in countries such as Poland, Ukraine, and "
            "Russia.",
            "en",
            "PL UA RU",
        ),
        (
            "Hummus originated in the Middle East, specifically in the Levant region, which includes countries such as "
            "Israel, Palestine, Lebanon, Syria, and Jordan.",
            "en",
            "IL PS LB SY JO",
        ),
        (
            "Это блюдо, вероятно, популяризировано в странах Восточной Азии, таких как Китай, Тайвань, Япония и Южная "
            "Корея.",
            "ru",
            "CN TW JP KR",
        ),
        (
            "Кулинарное происхождение этого блюда - это блюдо, которое обычно готовят в странах Балкан, таких как "
            "Сербия, Болгария и Македония.",
            "ru",
            "RS BG MK",
        ),
        ("Это блюдо типично для Балкан, например для Сербии, Болгарии и Хорватии.", "ru", "RS BG HR"),
        (
            "Empanadas are a traditional dish in many Latin American countries, including Argentina, Chile and Peru.",
            "en",
            "AR CL PE",
        ),
        (
            "Ця страва походить зі Східної Європи, її готують у таких країнах, як Україна, Польща та Білорусь.",
            "uk",
            "UA PL BY",
        ),
        ("Популярное блюдо, имеющее итальянское происхождение, а готовят его в основном в США.", "ru", "IT"),
        # negations still drop
        ("Голубцы происходят из Восточной Европы и популярны в Польше и Украине, но не в России.", "ru", "PL UA"),
        # no claim at all, only where a dish is eaten: those places are the answer (issue 38 counts a popularity
        # sentence dropped whole, when it alone names countries, as a miss; a bulleted list after a colon included)
        (
            "This is a traditional Christmas pudding, which is a popular dessert in many countries, including the UK, "
            "Ireland, and Australia.",
            "en",
            "GB IE AU",
        ),
        (
            "Empanadas are a popular pastry in many Latin American countries, including:\n\n* Argentina\n* Chile\n"
            "* Mexico\n\nThey are baked.",
            "en",
            "AR CL MX",
        ),
    ],
)
def test_spread_is_dropped_only_beside_a_country_claimed_as_origin(answer: str, lang: str, countries: str) -> None:
    assert set(extract_countries(answer, lang, "origin").countries) == set(countries.split())


def test_an_unknown_reading_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown reading 'where'"):
        extract_countries("Україна", "uk", "where")


def test_the_countries_command_reads_as_the_question_asks() -> None:
    answer = "Деруни походять з Білорусі. Згодом вони поширилися в Україні, Польщі та Литві.\n"
    read = {}
    for reading in ("origin", "served"):
        result = subprocess.run(
            [sys.executable, "-m", "pipeline", "countries", "--lang", "uk", "--reading", reading],
            input=answer,
            capture_output=True,
            text=True,
            cwd=REPO,
            check=True,
        )
        read[reading] = json.loads(result.stdout)
    assert read == {"origin": ["BY"], "served": ["BY", "UA", "PL", "LT"]}
