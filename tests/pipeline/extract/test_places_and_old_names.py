"""Issue 38: places inside countries, older names, more spellings per language, and mentions that name a
language or people. Each case is a real answer of the 12 WorldCuisines models (or its shape), with the
country a reader sees."""

from __future__ import annotations

import pytest

from pipeline.extract import historic, places, spellings
from pipeline.extract.countries import EXTRACTOR, extract_countries
from pipeline.extract.gazetteer import KINDS
from warehouse.marts.method_audit import classify_ours_only


def countries(text: str, lang: str) -> tuple[str, ...]:
    return extract_countries(text, lang).countries


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("Beijing", "id_casual", ("CN",)),
        ("Shanghai", "th", ("CN",)),
        (" 北京", "zh_cn", ("CN",)),
        ("이스탄불", "ko_formal", ("TR",)),
        ("Ìbàdàn.", "yo", ("NG",)),
        ("Philadelphia.", "id_casual", ("US",)),
        ("Detroit.", "tl", ("US",)),
        ("Mallorca", "su_loma", ("ES",)),
        ("নাগাল্যান্ড", "bn", ("IN",)),
        ("德克萨斯州", "nan", ("US",)),
        ("The popular dish shown in the image is Wiener schnitzel, a classic Viennese dish.", "jv_ngoko", ("AT",)),
    ],
)
def test_a_place_names_the_country_that_holds_it(text: str, lang: str, expected: tuple[str, ...]) -> None:
    result = extract_countries(text, lang)
    assert result.countries == expected
    assert {span.via for span in result.spans if span.country} <= {"place", "subnational"}


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("It is a dish from the region of Macedonia, Greece.", "nan_spoken", ("GR",)),  # context decides
        ("Macedonia", "en", ("MK",)),
        ("Georgia", "en", ("GE",)),  # the country wins over the US state
        ("Punjab", "en", ()),  # India or Pakistan: left out
        ("Kashmir", "en", ()),
        (" La Marche en France", "fr", ("FR",)),  # a place followed by the country it is read to lie in
        ("Mexico City, Mexico", "en", ("MX",)),
        ("Georgia, USA", "en", ("US",)),
        # a country named like a place is the place only before the country that holds it, not in a list
        ("**Страны:** Армения, Грузия, Азербайджан.", "ru", ("AM", "GE", "AZ")),
        ("Macedonia, Bulgaria and Serbia", "en", ("MK", "BG", "RS")),
    ],
)
def test_ambiguous_places_are_resolved_by_context_or_left_out(text: str, lang: str, expected: tuple) -> None:
    assert countries(text, lang) == expected


def test_a_place_named_like_a_country_is_the_country() -> None:
    surfaces = {name.casefold() for name, _ in places.candidates("en", frozenset({"kuwait", "panama", "mexico"}))}
    assert not {"kuwait", "panama", "mexico", "georgia", "punjab"} & surfaces
    assert countries("Kuwait", "en") == ("KW",)


@pytest.mark.parametrize(
    ("text", "lang", "expected", "via"),
    [
        ("Persia", "en", ("IR",), "alias"),  # the curated English alias was there first
        ("อาหารของชาวอาหรับและชาวเปอร์เซีย", "th", ("IR",), "historic"),
        (
            "Baklava originated in the Middle East, specifically in the Ottoman Empire.",
            "ja_formal",
            ("TR",),
            "historic",
        ),
        ("हिस्पानिया", "hi", ("ES",), "historic"),
        ("Bohemian cuisine", "en", ("CZ",), "historic"),
        ("Tento pokrm je spojen s jihoslavií.", "cs", (), None),  # Yugoslavia: several countries, a region
        ("Mesopotamia", "en", (), None),
    ],
)
def test_older_names_map_to_todays_country_or_to_none(text: str, lang: str, expected: tuple, via: str | None) -> None:
    result = extract_countries(text, lang)
    assert result.countries == expected
    if via is not None:
        assert via in {span.via for span in result.spans if span.country}


def test_every_old_name_has_a_decision_and_a_reason() -> None:
    for old in historic.OLD_NAMES:
        assert (old.country is None) != (old.region is None), old
        assert old.reason and old.names


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("Deutschland", "az", ("DE",)),  # an endonym
        ("República Dominicana", "si_formal_spoken", ("DO",)),
        ("Dominika Respublikası", "az", ("DO",)),
        ("EE. UU.", "es", ("US",)),
        ("É.-U.", "fr", ("US",)),
        ("Gran Bretaña", "es", ("GB",)),
        ("ब्रिटेन", "hi", ("GB",)),
        ("जापान", "mr", ("JP",)),  # the Hindi spelling in a Marathi answer
        ("เมียนมา", "th", ("MM",)),  # CLDR's name without its bracketed part
        ("ශ්\u200dරී ලංකා", "si_formal_spoken", ("LK",)),  # without Sinhala's definite ending
        ("මලේසියාව.", "si_formal_spoken", ("MY",)),
        ("Tento pokrm je spojen s Bulharskou kuchyní.", "cs", ("BG",)),
        ("Ghanaian cuisine", "tl", ("GH",)),  # English inside another language's answer
        ("Itali", "cs", ("IT",)),  # a five-letter near miss
        ("이 요리는 인도네시아 지역의 특정 국가에서 유명한 요리입니다. 인도네시", "ko_formal", ("ID",)),  # cut off
        ("This dish is a variation of Singapore's famous dish.", "zh_cn", ("SG",)),
        (
            "It is a traditional dish from the Balkans, particularly from Serbia, Croatia, and Bosnia.",
            "su_loma",
            ("RS", "HR", "BA"),
        ),
    ],
)
def test_more_spellings_per_language(text: str, lang: str, expected: tuple[str, ...]) -> None:
    assert countries(text, lang) == expected


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        (
            "El arepa es un plato originario de la región andina de América del Sur, popular en Colombia y Ecuador.",
            "es",
            ("CO", "EC"),
        ),
        (
            "The origin of this dish is in Central America, specifically in Costa Rica, Nicaragua, and Panama.",
            "fr",
            ("CR", "NI", "PA"),
        ),
        ("दक्षिण अमेरिका (विशेषतः व्हेनेझुएला आणि कोलंबिया)", "mr", ("VE", "CO")),
        ("Блюдо имеет итальянское происхождение, но стало популярным в Северной Америке.", "ru_formal", ("IT",)),
        (
            "この料理は、主に南アメリカの国々で広められています。特に、アルゼンチン、ブラジル。",
            "ja_formal",
            ("AR", "BR"),
        ),
        ("यह व्यंजन दक्षिण भारत की पाक उत्पत्ति का है।", "hi", ("IN",)),  # "South" is no Cameroonian region
    ],
)
def test_a_continent_holding_a_countrys_name_is_a_region(text: str, lang: str, expected: tuple[str, ...]) -> None:
    assert countries(text, lang) == expected


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ('This is a question in Marathi language. The answer is "India".', "hi", ("IN",)),
        (
            "The bunny chow is a South African dish that originated in the Indian community of Durban.",
            "jv_krama",
            ("ZA",),
        ),
        ("It is often attributed to Louis Lassen, a Danish immigrant in New Haven, Connecticut.", "id_casual", ("US",)),
        (
            "Caldo de Res originated in the Spanish-speaking countries, particularly in Mexico.",
            "ja_formal",
            ("MX",),
        ),
        ("この料理は、中南米のスペイン語圏であるメキシコで有名です。", "ja_casual", ("MX",)),
        ("Bacaan dalam bahasa Indonesia: Ing pundi asal kuliner menika?", "jv_krama", ()),
        ("ไม่สามารถเลือกให้คำตอบเป็นภาษาไทยได้", "th", ()),
        ("Paskha (Russian: Пасха, Ukrainian: Пасха, Polish: Pascha)", "jv_ngoko", ()),
        (" In questo piatto: un cittadino tedesco e un cittadino americano.", "it", ()),
        ("The question is in Yoruba. The answer in English is: the oil makes the food delicious.", "yo", ()),
        (
            "This dish is common in Asian cuisines, particularly in Chinese, Japanese, and Korean cooking.",
            "tl",
            ("CN", "JP", "KR"),
        ),
        ("This is a bowl of naan, a staple in Indian, Pakistani, and Afghan cuisine.", "ja_casual", ("IN", "PK", "AF")),
        # issue 49: what a language is said to be, both names of "X or Y"
        ("The labels are in a language that appears to be Persian or Turkish; the dish is Indian.", "en", ("IN",)),
        ("A menu in a language such as Thai or Lao hangs behind the Vietnamese noodle soup.", "en", ("VN",)),
    ],
)
def test_a_language_or_people_is_no_origin(text: str, lang: str, expected: tuple[str, ...]) -> None:
    assert countries(text, lang) == expected


def test_an_endonym_that_is_an_everyday_word_is_left_out() -> None:
    text = "This dish is a traditional Indonesian food, specifically from the island of Java."
    assert countries(text, "ru_casual") == ("ID",)  # Icelandic "Ísland" is not "island"
    assert countries("Chili", "id_casual") == ()  # the pepper (the team's decision for Indonesian)
    assert countries("Iceland", "en") == ("IS",)


def test_english_words_in_a_suffixing_language_end_at_their_last_letter() -> None:
    # "Mila" (Algeria), "Shan" (Myanmar), "Bago" (Myanmar) are not inside "Milanese", "Shank", "bagoong"
    text = "The dish is a veal Milanese with pork shank and bagoong, a popular dish in Italy."
    assert countries(text, "si_formal_spoken") == ("IT",)
    assert countries("ভারতীয় খাবার", "bn") == ("IN",)  # the language's own suffixes still attach


def test_the_extractor_version_and_kinds_say_what_changed() -> None:
    assert EXTRACTOR == "countries@8"
    assert {"place", "historic"} <= set(KINDS)
    assert spellings.natural_earth_names()["NAME_HI"]["म्यान्मार"] == "MM"
    assert spellings.endonyms()["Deutschland"] == "DE"


def test_the_method_audit_names_places_and_older_names() -> None:
    assert classify_ours_only(None, False, "Beijing", "China", "place") == "place in the country"
    assert classify_ours_only(None, False, "Persia", "Iran", "historic") == "older name"
    assert classify_ours_only(None, False, "Holland", "Netherlands", "alias") == "alias"


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("Это блюдо из Чернигова.", "ru", ("UA",)),  # issue 49: cities of 100,000+ by their names in their own script
        ("Страва родом з Полтави.", "uk", ("UA",)),
        ("यह व्यंजन उदयपुर का है।", "hi", ("IN",)),
        ("この料理は宇都宮の餃子です。", "ja_formal", ("JP",)),
        ("Пальма — это блюдо.", "ru", ()),  # Palma (ES) is also "a palm tree": an everyday word is left out
        ("البلد الذي بفضله اشتهر هذا الطبق هو البريد الأبيض", "ar", ()),  # El Obeid (SD) is also "the white"
        # a foreign town in katakana is often a loanword: Harar (ET) is "halal"; only a city's own scripts are read
        ("この料理は、イスラム教徒が食べることができるハラールの一部です。", "ja_casual", ()),
    ],
)
def test_smaller_cities_by_their_names_in_their_own_script(text: str, lang: str, expected: tuple[str, ...]) -> None:
    assert countries(text, lang) == expected


@pytest.mark.parametrize(
    ("text", "lang", "region"),
    [
        ("这是印度支那的菜。", "zh_cn", "Indochina"),  # not India (印度) through the part
        ("인도차이나 요리입니다.", "ko_formal", "Indochina"),
        ("อาหารจากอินโดจีน", "th", "Indochina"),  # not China (จีน)
        ("It comes from New Spain.", "en", "New Spain"),  # not Spain
        ("Il vient de la Nouvelle-Espagne.", "fr", "New Spain"),
        ("Origin: Greater Syria.", "en", "Greater Syria"),
    ],
)
def test_a_broad_historical_region_is_not_the_country_its_name_holds(text: str, lang: str, region: str) -> None:
    result = extract_countries(text, lang)
    assert result.countries == () and result.regions == (region,)
