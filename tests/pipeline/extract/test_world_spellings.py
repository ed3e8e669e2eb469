"""Spellings real WorldCuisines answers use beyond CLDR's names: Turkish names in Azerbaijani answers, Arabic names
without hamza or with the article."""

from __future__ import annotations

import pytest

from pipeline.extract.countries import extract_countries


@pytest.mark.parametrize(
    ("answer", "lang", "expected"),
    [
        ("Japonya", "az", ["JP"]),  # the Turkish name
        ("İspanya", "az", ["ES"]),
        ("Yaponiyada", "az", ["JP"]),  # a case suffix
        ("ABŞ", "az", ["US"]),
        ("Fransız mətbəxi", "az", ["FR"]),
        ("ايطاليا", "ar", ["IT"]),  # alef without hamza
        ("ايران", "ar", ["IR"]),
        ("الإسبانيا", "ar", ["ES"]),  # with the article
        ("بريطانيا", "ar", ["GB"]),
    ],
)
def test_spellings_of_real_answers(answer: str, lang: str, expected: list[str]) -> None:
    assert list(extract_countries(answer, lang).countries) == expected


def test_iso_codes_translations_spell_names_cldr_spells_otherwise() -> None:
    from pipeline.extract.spellings import iso_code_names

    assert iso_code_names("mr")["व्हिएटनाम"] == "VN"  # CLDR: व्हिएतनाम
    assert extract_countries("व्हिएटनाम", "mr").countries == ("VN",)
    # a short name that begins another country's name is left out: Dominica or the Dominican Republic
    assert "ドミニカ" not in iso_code_names("ja")


def test_a_bare_word_with_indic_vowel_signs_and_a_leaked_end_of_turn_token_is_a_near_miss() -> None:
    # वियेतनाम: one vowel sign more than वियतनाम (Vietnam); aria answers end in its chat template's end token
    assert extract_countries("वियेतनाम<|im_end|>", "mr").countries == ("VN",)
    assert extract_countries("वियेतनाम", "hi").countries == ("VN",)
