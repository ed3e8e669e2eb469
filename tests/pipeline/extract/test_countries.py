"""The country extractor as a specification: what a model's answer names, and what it does not."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pipeline.extract.countries import extract_countries, matcher_for, search_langs
from pipeline.extract.evaluation import evaluate, read_gold
from tests.helpers import REPO


def countries(text: str, lang: str) -> list[str]:
    return list(extract_countries(text, lang).countries)


def test_hand_written_gold_set_f1_is_at_least_097_per_language() -> None:
    gold = read_gold(REPO / "tests" / "data" / "country_gold.tsv")

    def predict(answer: str, lang: str):
        result = extract_countries(answer, lang)
        return result.countries, result.status

    for lang, scores in evaluate(gold, predict).items():
        assert scores.f1 >= 0.97, (lang, scores.f1, scores.errors[:5])
        assert scores.status_accuracy >= 0.95, lang


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("Грузия", "ru", ["GE"]),
        ("Это блюдо узбекской кухни.", "ru", ["UZ"]),
        ("Это блюдо родом из Индии", "ru", ["IN"]),
        ("Франции", "ru", ["FR"]),
        ("українська страва", "uk", ["UA"]),
        ("Ця страва з Білорусі", "uk", ["BY"]),
        ("It is a Georgian dish.", "en", ["GE"]),
        ("Korean cuisine", "en", ["KR"]),
        ("Россия, Украина и Беларусь", "ru", ["RU", "UA", "BY"]),
        ("Молдавия", "ru", ["MD"]),
        ("Киргизия", "ru", ["KG"]),
        ("Персия", "ru", ["IR"]),
        ("Burma", "en", ["MM"]),
        ("США", "ru", ["US"]),
        ("UAE", "en", ["AE"]),
        ("Татарстан", "ru", ["RU"]),
        ("Гагаузия", "ru", ["MD"]),
        ("Crimea", "en", ["UA"]),
        ("Это блюдо из Крыма", "ru", ["UA"]),
        ("Scotland", "en", ["GB"]),
        ("Это блюдо из Georgia", "ru", ["GE"]),
        ("'Ethiopia'", "en", ["ET"]),
        ("**Italy**", "en", ["IT"]),
        ("Nigéria", "fr", ["NG"]),
        ("印度尼西亚", "zh_cn", ["ID"]),
        ("Green chile stew comes from New Mexico.", "en", ["US"]),
        ("Roast turkey is an American dish.", "en", ["US"]),
    ],
)
def test_names_aliases_adjectives_and_regions(text: str, lang: str, expected: list[str]) -> None:
    assert countries(text, lang) == expected


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("Это блюдо не из России, а из Украины", "ru", ["UA"]),
        ("Не Польша, а Литва", "ru", ["LT"]),
        ("Це не російська, а українська страва", "uk", ["UA"]),
        ("This is not from Italy, it's from France", "en", ["FR"]),
        ("not from Italy", "en", []),
        ("Это не только Россия, но и Украина", "ru", ["RU", "UA"]),
        ("Many people think it's Greek, but it's actually from Turkey.", "en", ["TR"]),
    ],
)
def test_negation_and_correction(text: str, lang: str, expected: list[str]) -> None:
    assert countries(text, lang) == expected


def test_countries_named_only_for_spread_do_not_count() -> None:
    text = "Рамен пришёл из Японии. Его можно найти в ресторанах по всему миру, например в США и Германии."
    assert countries(text, "ru") == ["JP"]


def test_broad_regions_are_regions_not_countries() -> None:
    result = extract_countries("Это блюдо Средней Азии или Кавказа", "ru")
    assert result.countries == () and result.status == "no_country"
    assert set(result.regions) == {"Central Asia", "Caucasus"}


@pytest.mark.parametrize(
    ("text", "status"),
    [
        (None, "empty"),
        ("  ", "empty"),
        ("...", "empty"),
        ("Не могу определить происхождение блюда.", "refusal"),
        ("I'm sorry, I can't determine where this dish is from.", "refusal"),
        ("Это плов.", "no_country"),
        ("Узбекистан", "ok"),
    ],
)
def test_status(text: str | None, status: str) -> None:
    assert extract_countries(text, "ru").status == status


def test_prompt_language_variants_that_search_the_same_languages_share_one_matcher() -> None:
    """Building a matcher is most of a short run's extraction cost: id_casual and id_formal search the same
    gazetteers, so they get the same matcher; another list of languages gets its own."""
    assert search_langs("id_casual") == search_langs("id_formal")
    assert matcher_for("id_casual") is matcher_for("id_formal")
    assert matcher_for("id_casual") is not matcher_for("en")


def test_spans_point_into_the_original_answer() -> None:
    text = "Блюдо  не из России, а из «Украины»."
    result = extract_countries(text, "ru")
    assert [(text[s.start : s.end], s.country, s.negated) for s in result.spans] == [
        ("России", "RU", True),
        ("Украины", "UA", False),
    ]


def test_countries_command_contract() -> None:
    lines = "Это блюдо не из России, а из Украины\nУзбекистан или Таджикистан\n\nnot from Italy\n"
    result = subprocess.run(
        [sys.executable, "-m", "pipeline", "countries", "--lang", "ru"],
        input=lines,
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    assert [json.loads(line) for line in result.stdout.splitlines()] == [["UA"], ["UZ", "TJ"], [], []]


def test_countries_command_detects_the_language() -> None:
    lines = "Ця страва з Грузії\nThis is Korean food\n"
    result = subprocess.run(
        [sys.executable, "-m", "pipeline", "countries", "--lang", "auto"],
        input=lines,
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    assert result.stdout.splitlines() == ['["GE"]', '["KR"]']
